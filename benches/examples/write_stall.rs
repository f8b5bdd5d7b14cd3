//! Put latency while another thread builds an index: N generated slot ads in collection
//! `big` (on disk, reopened so that no index is held), then one thread counts `big` by a
//! constraint (building its index by one scan) while another puts ads one at a time,
//! durably; prints the puts' latency (p50, p99, max) during the build, and the build's time.
//! Twice: puts into another collection, `small` (writes wait only for the collection they
//! touch), then, reopened without the index's checkpoint, puts into `big` itself (the index
//! is built beside its slot: the puts wait only for the replay of what they wrote meanwhile).
//!
//! `cargo run --release -p adjoin-workload --example write_stall -- [N] [DIR]`
//! (N defaults to 1,000,000; DIR to a fresh temporary directory).

use adjoin::query::parse;
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::Workload;
use std::error::Error;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The allocator the `adjoin` binary uses, so that figures match the command line's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let n: u64 = args
        .next()
        .map(|a| a.replace('_', "").parse())
        .transpose()?
        .unwrap_or(1_000_000);
    let tmp = tempfile::tempdir()?;
    let dir = args
        .next()
        .map_or_else(|| tmp.path().join("db"), std::path::PathBuf::from);
    {
        let t = Instant::now();
        let db = Db::open(&dir)?;
        let mut w = Workload::new(1)?;
        let mut l = db.store().loader(
            "big",
            PutOptions {
                durability: Durability::Buffered,
                ..PutOptions::default()
            },
        );
        for i in 0..n {
            l.push(&w.slot_ad(i))?;
        }
        l.finish()?;
        db.close()?;
        println!("{n} slot ads loaded in {:.1} s", t.elapsed().as_secs_f64());
    }
    let db = Db::open(&dir)?;
    // Hold `small`'s index, so that each put keeps an index current as it would in service.
    db.count("small", None)?;
    stall(&db, n, "small", "another collection")?;
    db.close()?;
    // Without the checkpoint, the next count builds `big`'s index from nothing again.
    std::fs::remove_dir_all(dir.join("adjoin-index"))?;
    let db = Db::open(&dir)?;
    stall(&db, n, "big", "the same collection")?;
    Ok(())
}

/// Counts `big` by a constraint (building its index) while putting ads into `into`, one at
/// a time, durably; prints the build's time and the puts' latency.
fn stall(db: &Db, n: u64, into: &str, what: &str) -> Result<(), Box<dyn Error>> {
    let building = AtomicBool::new(true);
    let constraint = parse::expr("Memory >= 4096 && KFlops > 1000000")?;
    let (build, mut latencies) = std::thread::scope(|s| {
        let builder = s.spawn(|| {
            let t = Instant::now();
            let r = db.count("big", Some(&constraint));
            building.store(false, Ordering::SeqCst);
            (t.elapsed(), r)
        });
        let mut lat = Vec::new();
        let mut i = 0u64;
        while building.load(Ordering::SeqCst) {
            let ad = parse::classad(&format!(
                "[Name = \"{into}{i}\"; Memory = {}]",
                i % 64 * 512
            ))
            .expect("ad");
            let t = Instant::now();
            db.put(into, &ad).expect("put");
            lat.push(t.elapsed());
            i += 1;
            std::thread::sleep(Duration::from_millis(1));
        }
        (builder.join(), lat)
    });
    let (took, count) = build.map_err(|_| "the building thread panicked")?;
    println!(
        "index of {n} ads built by the first count ({} ads) in {:.2} s",
        count?,
        took.as_secs_f64()
    );
    latencies.sort();
    let at = |q: f64| {
        latencies
            .get(((latencies.len() as f64 - 1.0) * q).round() as usize)
            .map_or(0.0, |d| d.as_secs_f64() * 1e3)
    };
    println!(
        "{} durable puts to {what} meanwhile: p50 {:.2} ms, p99 {:.2} ms, max {:.2} ms",
        latencies.len(),
        at(0.5),
        at(0.99),
        at(1.0)
    );
    Ok(())
}
