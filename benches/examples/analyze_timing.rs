//! Timing of `adjoin analyze` at scale, in one run: one generated job against N generated
//! slots (full analysis, counts alone, plain evaluation of every offer), and `--unmatched`
//! over R requests of C clusters.
//!
//! `cargo run --release -p adjoin-workload --example analyze_timing -- [N] [R] [C]`
//! (defaults 100000 10000 100).

use adjoin::analyze::AnalyzeOptions;
use adjoin::query::eval::symmetric_match;
use adjoin::query::parse;
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::templates::JobTemplates;
use adjoin_workload::Workload;
use std::time::Instant;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(100_000);
    let r = args.get(1).copied().unwrap_or(10_000);
    let c = args.get(2).copied().unwrap_or(100) as usize;
    let db = Db::open_in_memory().expect("db");
    let mut w = Workload::new(42).expect("workload");
    let put = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut loader = db.store().loader("slots", put.clone());
    for i in 0..n {
        loader.push(&w.slot_ad(i)).expect("push");
    }
    loader.finish().expect("finish");
    let mut job = w.job_ad(0);
    job.set(
        "Requirements",
        parse::expr("(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= 300000) && TARGET.Cpus >= 2")
            .expect("requirements"),
    );
    let opts = AnalyzeOptions::default();
    let time = |what: &str, f: &mut dyn FnMut() -> String| {
        let t = Instant::now();
        let out = f();
        println!(
            "{what:<40} {:>10.1} ms  {out}",
            t.elapsed().as_secs_f64() * 1e3
        );
    };
    time("warm (index built, first analysis)", &mut || {
        let a = db.analyze(&job, "slots", &opts).expect("analysis");
        format!("offers {} matching {}", a.offers, a.matching)
    });
    time("full analysis", &mut || {
        let a = db.analyze(&job, "slots", &opts).expect("analysis");
        format!(
            "conflicts {} suggestions {} offer_side {}",
            a.conflicts.len(),
            a.suggestions.len(),
            a.offer_side.len()
        )
    });
    let few = AnalyzeOptions {
        max_detail_offers: 250,
        ..AnalyzeOptions::default()
    };
    time("full analysis, 250 offers read back", &mut || {
        let a = db.analyze(&job, "slots", &few).expect("analysis");
        format!(
            "conflicts {} suggestions {} offer_side {}",
            a.conflicts.len(),
            a.suggestions.len(),
            a.offer_side.len()
        )
    });
    time("counts alone", &mut || {
        let a = db.analyze_counts(&job, "slots", &opts).expect("analysis");
        format!("rejected_by_request {}", a.rejected_by_request)
    });
    let pool = db.pool("slots").expect("pool");
    time("plain evaluation of every offer", &mut || {
        let m = pool
            .ads
            .iter()
            .filter(|o| symmetric_match(&job, o, &opts.eval))
            .count();
        format!("matching {m}")
    });
    let templates = JobTemplates::new(w.rng(), c).expect("templates");
    let mut g = w.rng().clone();
    let mut loader = db.store().loader("jobs", put);
    for job in templates.jobs(&mut g, r) {
        loader.push(&job).expect("push");
    }
    loader.finish().expect("finish");
    time("--unmatched", &mut || {
        let u = db
            .analyze_unmatched("jobs", "slots", &opts)
            .expect("unmatched");
        format!(
            "requests {} clusters {} unmatched {} groups {}",
            u.requests,
            u.clusters,
            u.unmatched,
            u.groups.len()
        )
    });
}
