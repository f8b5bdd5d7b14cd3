//! Catching a held index up after a restart: on 20,000 slot ads with a checkpoint taken, then
//! 200 ads replaced and 200 added behind it, the cost of reopening until the first indexed
//! count answers (restore + difference + replay of 400 ads) against the same reopen with the
//! checkpoint current (restore only) and with no checkpoint (a full build); and the store's
//! live view and the difference alone.
//!
//! `cargo bench -p adjoin-workload --bench held -- --warm-up-time 1 --measurement-time 3`
// criterion_group! defines an undocumented public function.
#![allow(missing_docs)]

use adjoin::query::{parse, Expr, Value};
use adjoin::storage::{difference, Durability, PutOptions};
use adjoin::{Db, DbOptions};
use adjoin_workload::Workload;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::path::Path;

const ADS: u64 = 20_000;

fn options() -> DbOptions {
    DbOptions {
        checkpoints: None,
        ..DbOptions::default()
    }
}

/// A database of `ADS` slot ads whose held index is checkpointed; with `behind`, 200 ads
/// replaced and 200 added after the checkpoint.
fn database(dir: &Path, behind: bool) {
    let db = Db::open_with(dir, &options()).expect("open");
    let mut w = Workload::new(3).expect("workload");
    let buffered = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut l = db.store().loader("machines", buffered.clone());
    for i in 0..ADS {
        l.push(&w.slot_ad(i)).expect("push");
    }
    l.finish().expect("load");
    db.count("machines", None).expect("count");
    db.close().expect("close");
    if behind {
        // No index is held in this open: its close leaves the checkpoint as it was.
        let db = Db::open_with(dir, &options()).expect("reopen");
        for i in 0..200 {
            let mut ad = w.slot_ad(i * 50 + 1);
            ad.set("Memory", Expr::lit(Value::Int(7)));
            // Later than the stored update (HTCondor's stale-update guard).
            ad.set("UpdateSequenceNumber", Expr::lit(Value::Int(1 << 40)));
            db.store().put("machines", &ad, &buffered).expect("replace");
            db.store()
                .put("machines", &w.slot_ad(ADS + i), &buffered)
                .expect("add");
        }
        db.close().expect("close");
    }
}

fn bench(c: &mut Criterion) {
    let constraint = parse::expr("Memory >= 4096").expect("constraint");
    let mut g = c.benchmark_group("held_index_reopen_20k");
    g.sample_size(10);
    for (name, behind, keep_checkpoint) in [
        ("checkpoint current", false, true),
        ("checkpoint + 400 behind", true, true),
        ("no checkpoint (full build)", false, false),
    ] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("db");
        database(&path, behind);
        g.bench_function(name, |b| {
            b.iter_batched(
                || {
                    let copy = tempfile::tempdir().expect("tempdir");
                    copy_dir(&path, &copy.path().join("db"), keep_checkpoint);
                    copy
                },
                |copy| {
                    let db = Db::open_with(copy.path().join("db"), &options()).expect("open");
                    db.count("machines", Some(&constraint)).expect("count");
                    (db, copy)
                },
                BatchSize::PerIteration,
            );
        });
    }
    g.finish();
    let db = Db::open_in_memory().expect("open");
    let mut w = Workload::new(4).expect("workload");
    for i in 0..ADS {
        db.put_with(
            "machines",
            &w.slot_ad(i),
            &PutOptions {
                durability: Durability::Buffered,
                ..PutOptions::default()
            },
        )
        .expect("put");
    }
    let view = db.store().live_view("machines").expect("view");
    // Every hundredth ad changed since the marks were taken.
    let marks: Vec<(u64, u64)> = view
        .ads
        .iter()
        .map(|a| (a.seq, a.revision ^ u64::from(a.seq % 100 == 0)))
        .collect();
    c.bench_function("live_view_20k", |b| {
        b.iter(|| db.store().live_view("machines").expect("view").ads.len())
    });
    c.bench_function("difference_20k", |b| {
        b.iter(|| {
            difference(marks.iter().copied(), &view.ads, |_| true)
                .added
                .len()
        })
    });
}

/// Copies the database directory (and, with `checkpoint`, its checkpoints).
fn copy_dir(from: &Path, to: &Path, checkpoint: bool) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            if checkpoint && e.file_name() == "adjoin-index" {
                copy_dir(&p, &to.join("adjoin-index"), true);
            }
            continue;
        }
        std::fs::copy(&p, to.join(e.file_name())).expect("copy");
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
