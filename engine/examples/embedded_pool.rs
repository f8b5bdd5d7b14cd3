//! An embedded pool with a matchmaking cycle: slots and jobs built in Rust, stored in a
//! database, matched (a partitionable slot is carved, a static one consumed), and the match
//! records read back.
//!
//! Run with `cargo run -p adjoin --example embedded_pool`.

use adjoin::cycle::CycleOptions;
use adjoin::query::ClassAd;
use adjoin::Db;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let db = Db::open(dir.path().join("pool.db"))?;

    // Offers: an 8-core partitionable slot and a 1-core static one.
    let big = ClassAd::builder()
        .attr("Name", "slot1@big.example")
        .attr("PartitionableSlot", true)
        .attr("Cpus", 8)
        .attr("Memory", 32768)
        .attr("Disk", 1_000_000)
        .expr(
            "Requirements",
            "TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory",
        )
        .build()?;
    let small = ClassAd::builder()
        .attr("Name", "slot1@small.example")
        .attr("Cpus", 1)
        .attr("Memory", 2048)
        .attr("Disk", 100_000)
        .expr(
            "Requirements",
            "TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory",
        )
        .build()?;
    db.put("machines", &big)?;
    db.put("machines", &small)?;

    // Requests: ids from GlobalJobId; the Rank prefers more memory.
    for (n, cpus, memory) in [(0, 4, 8192), (1, 2, 4096), (2, 1, 1024), (3, 4, 4096)] {
        let job = ClassAd::builder()
            .attr("GlobalJobId", format!("submit.example#{n}.0#1"))
            .attr("RequestCpus", cpus)
            .attr("RequestMemory", memory)
            .attr("RequestDisk", 1000)
            .expr("Requirements", "TARGET.Cpus >= RequestCpus")
            .expr("Rank", "TARGET.Memory")
            .build()?;
        db.put("jobs", &job)?;
    }

    let report = db.match_cycle(&CycleOptions::new("jobs", "machines"))?;
    for m in &report.matches {
        println!("{} -> {} (match {:?})", m.request, m.offer, m.record);
    }
    println!(
        "{} of {} jobs matched in {:.3} s",
        report.matched, report.requests, report.seconds
    );

    // What is left of the partitionable slot, and the shares the records name.
    if let Some(left) = db.get("machines", "slot1@big.example")? {
        println!(
            "slot1@big.example has {:?} CPUs and {:?} MB left",
            left.ad.eval_attr("Cpus").as_i64(),
            left.ad.eval_attr("Memory").as_i64()
        );
    }
    for rec in db.matches()? {
        let offer = &rec.members[1];
        let share = offer.rank.as_ref().and_then(|r| r.as_ad().cloned());
        println!(
            "match {}: {} carved {:?}",
            rec.id,
            offer.id,
            share.map(|s| s.to_string())
        );
    }
    db.close()?;
    Ok(())
}
