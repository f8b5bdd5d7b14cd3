//! Ad-hoc constraint queries over real HTCondor slot ads, as `condor_status -constraint`
//! answers them: counts, selected ads with evaluated attributes, the slots one job matches.
//!
//! Run with `cargo run -p adjoin --example constraint_queries`.

use adjoin::query::{parse, ClassAd};
use adjoin::{Db, LoadOptions};
use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let db = Db::open_in_memory()?;
    let tour = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tour");
    let files: Vec<_> = ["basic4slot", "partionable8core", "small1slot"]
        .iter()
        .map(|f| tour.join(format!("StatusAds-{f}")))
        .collect();
    let report = db.load_files("slots", &files, &LoadOptions::default(), &mut |_| {})?;
    println!(
        "loaded {} slot ads ({} bad)",
        report.stored.len(),
        report.bad.len()
    );

    // A count, through the collection's index.
    let idle = parse::expr(r#"State == "Unclaimed" && Memory >= 1024"#)?;
    println!(
        "idle slots with >= 1 GB: {}",
        db.count("slots", Some(&idle))?
    );

    // The ads themselves, attributes evaluated in each.
    for ad in db.query_str("slots", "Cpus > 1 || PartitionableSlot")? {
        let ad = ad?;
        println!(
            "{} cpus={:?} memory={:?}",
            ad.id(),
            ad.ad.eval_attr("Cpus").as_i64(),
            ad.ad.eval_attr("Memory").as_i64()
        );
    }

    // The slots a job matches both ways.
    let job = ClassAd::builder()
        .attr("MyType", "Job")
        .attr("RequestCpus", 1)
        .attr("RequestMemory", 2048)
        .attr("RequestDisk", 1000)
        .attr("JobUniverse", 5)
        .expr(
            "Requirements",
            r#"TARGET.State == "Unclaimed" && TARGET.Memory >= RequestMemory"#,
        )
        .build()?;
    let answer = db.candidates("slots", &job)?;
    println!("the job matches: {:?}", answer.ids);
    Ok(())
}
