//! The durable store: bulk load of generated slot ads (about 40 attributes each; ads per second,
//! and bytes on disk per ad printed once), a durable single put of a new ad and of a replacement,
//! reopening a database until the first query answers, and scanning a collection decoded
//! against scanning it undecoded (`scan_with`: every attribute walked, two decoded). The full-size figures (1,000,000 ads) come from
//! `cargo run --release -p adjoin-workload --example storage_timing`.
// criterion_group! defines an undocumented public function.
#![allow(missing_docs)]

use adjoin::query::{ClassAd, Expr, Value};
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::Workload;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion, Throughput};
use std::time::Duration;

const LOAD: u64 = 20_000;
const REOPEN: u64 = 50_000;

fn slot_ads(n: u64) -> Vec<ClassAd> {
    let mut w = Workload::new(42).expect("workload");
    (0..n).map(|i| w.slot_ad(i)).collect()
}

fn bulk_load(db: &Db, coll: &str, ads: &[ClassAd]) {
    let opts = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut l = db.store().loader(coll, opts);
    for ad in ads {
        l.push(ad).expect("push");
    }
    l.finish().expect("finish");
}

fn bench(c: &mut Criterion) {
    let ads = slot_ads(LOAD);

    let mut g = c.benchmark_group("storage_bulk_load");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.throughput(Throughput::Elements(LOAD));
    g.bench_function("slot_ads_buffered", |b| {
        b.iter_batched(
            || {
                let dir = tempfile::tempdir().expect("tempdir");
                let db = Db::open(dir.path().join("db")).expect("open");
                (dir, db)
            },
            |(dir, db)| {
                bulk_load(&db, "machines", &ads);
                (dir, db)
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
    {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = Db::open(dir.path().join("db")).expect("open");
        bulk_load(&db, "machines", &ads);
        let bytes = db.stats().expect("stats").bytes;
        println!(
            "storage: {LOAD} slot ads of {} attributes take {bytes} bytes on disk, {:.0} per ad",
            ads[0].len(),
            bytes as f64 / LOAD as f64
        );
    }

    let mut g = c.benchmark_group("storage_put");
    g.sample_size(50);
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Db::open(dir.path().join("db")).expect("open");
    let mut n = 0u64;
    g.bench_function("durable_single_put", |b| {
        b.iter(|| {
            let mut ad = ads[(n % LOAD) as usize].clone();
            ad.set("Name", Expr::lit(Value::str(&format!("p{n}"))));
            n += 1;
            db.put("machines", &ad).expect("put")
        })
    });
    // Replacing a bulk-loaded ad rewrites the block it shares with its neighbours.
    bulk_load(&db, "loaded", &ads);
    let mut k = 0u64;
    g.bench_function("durable_single_replace_of_a_loaded_ad", |b| {
        b.iter(|| {
            k = (k + 7919) % LOAD;
            db.put("loaded", &ads[k as usize]).expect("put")
        })
    });
    g.finish();
    drop(db);

    let mut g = c.benchmark_group("storage_reopen");
    g.sample_size(10);
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    {
        let db = Db::open(&path).expect("open");
        let mut w = Workload::new(7).expect("workload");
        let opts = PutOptions {
            durability: Durability::Buffered,
            ..PutOptions::default()
        };
        let mut l = db.store().loader("machines", opts);
        for i in 0..REOPEN {
            l.push(&w.slot_ad(i)).expect("push");
        }
        l.finish().expect("finish");
        db.close().expect("close");
    }
    let probe = format!(
        "slot{}@host{}.pool.example",
        REOPEN / 2 % 4 + 1,
        REOPEN / 2 / 4
    );
    g.bench_function("open_until_first_get_50k_ads", |b| {
        b.iter(|| {
            let db = Db::open(&path).expect("open");
            let got = db.get("machines", &probe).expect("get").is_some();
            assert!(got);
            db.close().expect("close");
        })
    });
    g.finish();
}

/// A full scan decoding every ad, against one walking each ad's attributes undecoded and
/// decoding two of them (what a cycle does with most requests).
fn scan(c: &mut Criterion) {
    let ads = slot_ads(LOAD);
    let db = Db::open_in_memory().expect("db");
    bulk_load(&db, "machines", &ads);
    let wanted = [
        adjoin::query::Key::of("Memory"),
        adjoin::query::Key::of("Cpus"),
    ];
    let mut g = c.benchmark_group("storage_scan");
    g.sample_size(10).measurement_time(Duration::from_secs(5));
    g.throughput(Throughput::Elements(LOAD));
    g.bench_function("decoded", |b| {
        b.iter(|| {
            let n = db
                .scan("machines")
                .expect("scan")
                .filter(Result::is_ok)
                .count();
            assert_eq!(n as u64, LOAD);
        })
    });
    g.bench_function("undecoded_two_attributes_read", |b| {
        b.iter(|| {
            let scan = db.store().scan_with("machines", |_, _, raw| {
                let mut found = 0;
                raw.for_each_attr(|n, bytes| {
                    if wanted.contains(&n.key()) {
                        found += usize::from(adjoin::storage::raw::decode_expr(bytes).is_ok());
                    }
                })?;
                Ok(found)
            });
            let found: usize = scan.expect("scan").filter_map(Result::ok).sum();
            assert_eq!(found as u64, 2 * LOAD);
        })
    });
    g.finish();
}

criterion_group!(benches, bench, scan);
criterion_main!(benches);
