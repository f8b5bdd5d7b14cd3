//! Times the durable store outside criterion, at full size: bulk load of N generated slot ads
//! (ads/s, bytes on disk per ad), reopen until the first query answers, durable single puts of
//! new ads and of replacements (p50/p99), buffered replacements (ads/s), and a full scan.
//!
//! `cargo run --release -p adjoin-workload --example storage_timing -- [N] [DIR]`
//! (N defaults to 1,000,000; DIR to a fresh temporary directory, removed afterwards).
//! Environment: `ADJOIN_CACHE_MB` sets sled's cache (1024 by default), `ADJOIN_BLOCK_ADS` and
//! `ADJOIN_BLOCK_KB` the block limits (docs/storage-format.md).

use adjoin::query::{ClassAd, Expr, Value};
use adjoin::storage::{Durability, PutOptions};
use adjoin::{Db, DbOptions};
use adjoin_workload::{Rng, Workload};
use std::time::{Duration, Instant};

/// The value of environment variable `name`, parsed, if set.
fn env<T: std::str::FromStr>(name: &str) -> Result<Option<T>, String> {
    match std::env::var(name) {
        Ok(v) => v
            .parse()
            .map(Some)
            .map_err(|_| format!("{name}: bad number {v:?}")),
        Err(_) => Ok(None),
    }
}

/// p50 and p99 of `lat`, in milliseconds.
fn percentiles(mut lat: Vec<Duration>) -> (f64, f64) {
    lat.sort();
    let pct = |p: usize| lat[(lat.len() * p / 100).min(lat.len() - 1)].as_secs_f64() * 1e3;
    (pct(50), pct(99))
}

/// Generated ad `i`: one of `ads` under the fresh name `slot{i}@gen`.
fn nth(ads: &[ClassAd], i: u64) -> ClassAd {
    let mut ad = ads[(i % ads.len() as u64) as usize].clone();
    ad.set("Name", Expr::lit(Value::str(&format!("slot{i}@gen"))));
    ad
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
    let mut opts = DbOptions::default();
    if let Some(mb) = env::<u64>("ADJOIN_CACHE_MB")? {
        opts.cache_capacity = mb << 20;
    }
    if let Some(a) = env::<usize>("ADJOIN_BLOCK_ADS")? {
        opts.block_ads = a;
    }
    if let Some(kb) = env::<usize>("ADJOIN_BLOCK_KB")? {
        opts.block_bytes = kb << 10;
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
    // Generating (cloning a prepared ad under a fresh name) and dropping ads is the
    // benchmark's work, not the store's: it is timed and left out.
    let mut gen_time = Duration::ZERO;
    // Pushes that commit a chunk (the chunk's commit plus one ad's encoding) and the others
    // (one ad's encoding each).
    let (mut committing, mut encoding) = (Duration::ZERO, Duration::ZERO);
    for i in 0..n {
        let t = Instant::now();
        let ad = nth(&ads, i);
        gen_time += t.elapsed();
        let t = Instant::now();
        if loader.push(&ad)? > 0 {
            committing += t.elapsed();
        } else {
            encoding += t.elapsed();
        }
        let t = Instant::now();
        drop(ad);
        gen_time += t.elapsed();
    }
    let t = Instant::now();
    let report = loader.finish()?;
    let finish = t.elapsed();
    let load = started.elapsed() - gen_time;
    let bytes = db.stats()?.bytes;
    println!(
        "bulk load: {n} ads of {attrs} attributes in {:.2} s = {:.0} ads/s (ad generation, {:.2} s, left out); {} stored; {bytes} bytes on disk = {:.0} bytes/ad",
        load.as_secs_f64(),
        n as f64 / load.as_secs_f64(),
        gen_time.as_secs_f64(),
        report.stored(),
        bytes as f64 / n as f64,
    );
    let per_ad = |d: Duration| d.as_secs_f64() * 1e6 / n as f64;
    println!(
        "  per ad: encoding {:.2} µs, committing chunks {:.2} µs; the last chunk and the flush {:.1} ms",
        per_ad(encoding),
        per_ad(committing),
        finish.as_secs_f64() * 1e3
    );
    db.close()?;

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
        ad.set("Name", Expr::lit(Value::str(&format!("single{i}"))));
        let t = Instant::now();
        db.put("singles", &ad)?;
        lat.push(t.elapsed());
    }
    let (p50, p99) = percentiles(lat);
    println!("durable single put of a new ad: p50 {p50:.3} ms, p99 {p99:.3} ms (1000 puts)");

    // Replacements of loaded ads, at random: each rewrites the block its ad is in.
    let mut rng = Rng::new(7);
    let mut lat = Vec::new();
    for _ in 0..1000u64 {
        let ad = nth(&ads, rng.range(0, n as i64) as u64);
        let t = Instant::now();
        db.put("machines", &ad)?;
        lat.push(t.elapsed());
    }
    let (p50, p99) = percentiles(lat);
    println!(
        "durable single put replacing a loaded ad: p50 {p50:.3} ms, p99 {p99:.3} ms (1000 puts)"
    );
    let replaces = n.min(20_000);
    let buffered = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let before = db.stats()?.bytes;
    let mut busy = Duration::ZERO;
    for _ in 0..replaces {
        let ad = nth(&ads, rng.range(0, n as i64) as u64);
        let t = Instant::now();
        db.put_with("machines", &ad, &buffered)?;
        busy += t.elapsed();
    }
    let t = Instant::now();
    db.flush()?;
    busy += t.elapsed();
    let grown = db.stats()?.bytes.saturating_sub(before);
    println!(
        "buffered single puts replacing random loaded ads: {replaces} in {:.2} s = {:.0} ads/s; the files grew {:.0} bytes per replacement",
        busy.as_secs_f64(),
        replaces as f64 / busy.as_secs_f64(),
        grown as f64 / replaces as f64
    );

    let t = Instant::now();
    let count = db.count("machines", None)?;
    println!(
        "full scan of {count} ads: {:.2} s",
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
