//! Restart and continue: a database on disk survives its process. A first run loads a pool
//! and matches; after a restart the matches are still recorded, the matched slot
//! re-advertises with its new state (an older update is refused as stale), and a second
//! cycle goes on from there.
//!
//! Run with `cargo run -p adjoin --example restart_and_continue`.

use adjoin::cycle::CycleOptions;
use adjoin::query::ClassAd;
use adjoin::storage::AdError;
use adjoin::{Db, DbError};

fn slot(seq: i64, state: &str) -> Result<ClassAd, adjoin::query::ParseError> {
    ClassAd::builder()
        .attr("Name", "slot1@host.example")
        .attr("State", state)
        .attr("Memory", 4096)
        .attr("UpdateSequenceNumber", seq)
        .attr("DaemonStartTime", 1_764_000_000)
        .expr("Requirements", r#"MY.State == "Unclaimed""#)
        .build()
}

fn job(n: u32) -> Result<ClassAd, adjoin::query::ParseError> {
    ClassAd::builder()
        .attr("GlobalJobId", format!("submit#{n}.0#1"))
        .attr("RequestMemory", 1024)
        .expr("Requirements", "TARGET.Memory >= RequestMemory")
        .build()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("pool.db");

    // First process: load and match.
    {
        let db = Db::open(&path)?;
        db.put("machines", &slot(1, "Unclaimed")?)?;
        db.put("jobs", &job(1)?)?;
        db.put("jobs", &job(2)?)?;
        let r = db.match_cycle(&CycleOptions::new("jobs", "machines"))?;
        println!("first cycle: {} match(es)", r.matches.len());
        db.close()?; // or drop it: the index snapshots are written either way
    }

    // Second process: everything is still there.
    let db = Db::open(&path)?;
    println!("after the restart: {} match record(s)", db.matches()?.len());
    if let Some(ts) = db.tombstone("machines", "slot1@host.example")? {
        println!("slot1 was consumed by match {:?}", ts.match_id);
    }
    // A late, older update is refused; the slot's next update (claimed, then free again)
    // is stored.
    match db.put("machines", &slot(0, "Unclaimed")?) {
        Err(DbError::Ad(e @ AdError::Stale { .. })) => println!("refused: {e}"),
        other => println!("unexpected: {other:?}"),
    }
    db.put("machines", &slot(2, "Claimed")?)?;
    db.put("machines", &slot(3, "Unclaimed")?)?;
    let r = db.match_cycle(&CycleOptions::new("jobs", "machines"))?;
    for m in &r.matches {
        println!("second cycle: {} -> {}", m.request, m.offer);
    }
    println!("{} match record(s) in all", db.matches()?.len());
    db.close()?;
    Ok(())
}
