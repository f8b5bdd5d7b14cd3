//! Times a held index across restarts, at full size: N generated slot ads bulk-loaded, then
//! the first indexed query (the index built by one scan), closing (its snapshot written),
//! and reopening until the first indexed query answers (restored from the snapshot); then a
//! query on an attribute no query read before (a new imported axis, read back from the store).
//!
//! `cargo run --release -p adjoin-workload --example index_restart -- [N] [DIR]`
//! (N defaults to 1,000,000; DIR to a fresh temporary directory, removed afterwards).

use adjoin::query::{parse, ClassAd, Expr, Value};
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::Workload;
use std::time::Instant;

// As the `adjoin` binary does (see its main.rs).
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Generated ad `i`: one of `ads` under the fresh name `slot{i}@gen`.
fn nth(ads: &[ClassAd], i: u64) -> ClassAd {
    let mut ad = ads[(i % ads.len() as u64) as usize].clone();
    ad.set("Name", Expr::lit(Value::str(&format!("slot{i}@gen"))));
    ad
}

fn dir_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .filter_map(|e| e.metadata().ok())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args
        .next()
        .map(|a| a.replace('_', "").parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let tmp = tempfile::tempdir()?;
    let dir = args
        .next()
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| tmp.path().join("db"));
    let constraint = parse::expr("Memory >= 512 && OpSys == \"LINUX\"")?;
    let fresh = parse::expr("Disk > 50000000")?;

    if !dir.exists() {
        let mut w = Workload::new(42)?;
        let ads: Vec<_> = (0..n.min(10_000)).map(|i| w.slot_ad(i)).collect();
        let db = Db::open(&dir)?;
        let t = Instant::now();
        let mut loader = db.store().loader(
            "machines",
            PutOptions {
                durability: Durability::Buffered,
                ..PutOptions::default()
            },
        );
        for i in 0..n {
            loader.push(&nth(&ads, i))?;
        }
        loader.finish()?;
        db.close()?;
        println!("loaded {n} ads in {:.2} s", t.elapsed().as_secs_f64());
    }

    let t = Instant::now();
    let db = Db::open(&dir)?;
    let answer = db.indexed_query("machines", &constraint)?;
    let restored = db.with_index("machines", |h| h.restored())?;
    println!(
        "open + first indexed query: {:.2} s ({} ads, restored from a snapshot: {restored}; {} evaluations)",
        t.elapsed().as_secs_f64(),
        answer.ids.len(),
        answer.explain.evaluations,
    );
    let t = Instant::now();
    db.close()?;
    println!(
        "close (snapshot written): {:.2} s, snapshot {} bytes = {:.0} bytes/ad",
        t.elapsed().as_secs_f64(),
        dir_bytes(&dir.join("adjoin-index")),
        dir_bytes(&dir.join("adjoin-index")) as f64 / n as f64
    );

    for round in 0..3 {
        let t = Instant::now();
        let db = Db::open(&dir)?;
        let opened = t.elapsed();
        let answer = db.indexed_query("machines", &constraint)?;
        let first = t.elapsed();
        let restored = db.with_index("machines", |h| h.restored())?;
        let t2 = Instant::now();
        let again = db.indexed_query("machines", &constraint)?;
        let second = t2.elapsed();
        println!(
            "reopen {round}: open {:.3} s, until the first indexed query answers {:.3} s ({} ads, restored: {restored}, {} probes, {} evaluations); the same query again {:.1} ms",
            opened.as_secs_f64(),
            first.as_secs_f64(),
            answer.ids.len(),
            answer.explain.probes,
            answer.explain.evaluations,
            second.as_secs_f64() * 1e3,
        );
        assert_eq!(again.ids.len(), answer.ids.len());
        if round == 2 {
            let t = Instant::now();
            let a = db.indexed_query("machines", &fresh)?;
            println!(
                "a query on an attribute never queried (Disk: a new imported axis, every ad read back once): {:.2} s ({} ads)",
                t.elapsed().as_secs_f64(),
                a.ids.len()
            );
            let t = Instant::now();
            let a = db.indexed_query("machines", &fresh)?;
            println!(
                "  the same again: {:.1} ms ({} ads)",
                t.elapsed().as_secs_f64() * 1e3,
                a.ids.len()
            );
        }
        db.close()?;
    }
    Ok(())
}
