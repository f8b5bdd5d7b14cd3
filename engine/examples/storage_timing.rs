//! Times the durable store outside criterion, at full size: bulk load of N generated slot ads
//! (ads/s, bytes on disk per ad), reopen until the first query answers, and durable single
//! puts (p50/p99).
//!
//! `cargo run --release -p adjoin --example storage_timing -- [N] [DIR]`
//! (N defaults to 1,000,000; DIR to a fresh temporary directory, removed afterwards;
//! `ADJOIN_CACHE_MB` sets sled's cache, 1024 by default).

use adjoin::storage::{Durability, PutOptions};
use adjoin::workload::Workload;
use adjoin::{Db, DbOptions};
use std::time::{Duration, Instant};

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
    let mut opts = DbOptions::default();
    if let Ok(mb) = std::env::var("ADJOIN_CACHE_MB") {
        opts.cache_capacity = mb.parse::<u64>()? << 20;
    }

    let mut w = Workload::new(42)?;
    let ads: Vec<_> = (0..n.min(10_000)).map(|i| w.slot_ad(i)).collect();
    let attrs = ads.first().map_or(0, |a| a.len());
    let db = Db::open_with(&dir, &opts)?;
    let started = Instant::now();
    let mut loader = db.store().loader(
        "machines",
        PutOptions {
            durability: Durability::Buffered,
            ..PutOptions::default()
        },
    );
    let mut gen_time = Duration::ZERO;
    for i in 0..n {
        let t = Instant::now();
        // Reuse generated ads under fresh names so generation does not dominate the timing.
        let mut ad = ads[(i % ads.len() as u64) as usize].clone();
        ad.set(
            "Name",
            adjoin::query::Expr::lit(adjoin::query::Value::str(&format!("slot{i}@gen"))),
        );
        gen_time += t.elapsed();
        loader.push(&ad)?;
    }
    let report = loader.finish()?;
    let load = started.elapsed() - gen_time;
    let bytes = db.stats()?.bytes;
    println!(
        "bulk load: {n} ads of {attrs} attributes in {:.2} s = {:.0} ads/s; {} stored; {bytes} bytes on disk = {:.0} bytes/ad",
        load.as_secs_f64(),
        n as f64 / load.as_secs_f64(),
        report.stored(),
        bytes as f64 / n as f64,
    );
    drop(db);

    let t = Instant::now();
    let db = Db::open_with(&dir, &opts)?;
    let opened = t.elapsed();
    let probe = format!("slot{}@gen", n / 2);
    let got = db.get("machines", &probe)?.is_some();
    let first_get = t.elapsed();
    let first_scanned = db.scan("machines")?.next().transpose()?.is_some();
    let first_scan = t.elapsed();
    println!(
        "reopen: open {:.3} s, first get ({got}) {:.3} s, first scanned ad ({first_scanned}) {:.3} s",
        opened.as_secs_f64(),
        first_get.as_secs_f64(),
        first_scan.as_secs_f64()
    );

    let mut lat = Vec::new();
    for i in 0..1000u64 {
        let mut ad = ads[(i % ads.len() as u64) as usize].clone();
        ad.set(
            "Name",
            adjoin::query::Expr::lit(adjoin::query::Value::str(&format!("single{i}"))),
        );
        let t = Instant::now();
        db.put("singles", &ad)?;
        lat.push(t.elapsed());
    }
    lat.sort();
    let pct = |p: usize| lat[(lat.len() * p / 100).min(lat.len() - 1)].as_secs_f64() * 1e3;
    println!(
        "durable single put: p50 {:.3} ms, p99 {:.3} ms (1000 puts)",
        pct(50),
        pct(99)
    );
    let t = Instant::now();
    let count = db.count("machines", None)?;
    println!(
        "full scan of {count} ads: {:.2} s",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
