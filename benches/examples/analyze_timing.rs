//! Timing of `adjoin analyze` at scale, in one run: one generated job against N generated
//! slots (full analysis, counts alone, plain evaluation of every offer), and `--unmatched`
//! over R requests of C clusters.
//!
//! `cargo run --release -p adjoin-workload --example analyze_timing -- [N] [R] [C] [--db PATH] [--only-unmatched] [--unmatchable] [--inexact]`
//! (defaults 100000 10000 100). With `--db PATH` the database is on disk at PATH: made and
//! loaded when PATH does not exist, reused as it is (nothing generated) when it does.
//! `--unmatchable` gives every slot `Requirements = TARGET.ImageSize < 0` (every job unmatched,
//! every cluster analysed); `--inexact` gives every slot a Requirements the index does not
//! convert exactly (`… || TARGET.Owner =?= "nobody"`: the offer side reads every rejecting
//! slot back). The one-request phases print the means of 20 runs. `--only-unmatched` times `--unmatched` alone (after the first analysis readies the index).

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
    let all: Vec<String> = std::env::args().skip(1).collect();
    let path = all
        .iter()
        .position(|a| a == "--db")
        .and_then(|i| all.get(i + 1).cloned());
    let args: Vec<u64> = all.iter().filter_map(|a| a.parse().ok()).collect();
    let n = args.first().copied().unwrap_or(100_000);
    let r = args.get(1).copied().unwrap_or(10_000);
    let c = args.get(2).copied().unwrap_or(100) as usize;
    let only_unmatched = all.iter().any(|a| a == "--only-unmatched");
    let unmatchable = all.iter().any(|a| a == "--unmatchable");
    let inexact = all.iter().any(|a| a == "--inexact");
    let reuse = path
        .as_ref()
        .is_some_and(|p| std::path::Path::new(p).exists());
    let db = match &path {
        Some(p) => Db::open(p).expect("db"),
        None => Db::open_in_memory().expect("db"),
    };
    let mut w = Workload::new(42).expect("workload");
    let put = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    // Reused, the slots are generated all the same (not stored): the job below is the same.
    let mut loader = (!reuse).then(|| db.store().loader("slots", put.clone()));
    for i in 0..n {
        let mut slot = w.slot_ad(i);
        if unmatchable {
            slot.set(
                "Requirements",
                parse::expr("TARGET.ImageSize < 0").expect("requirements"),
            );
        }
        if inexact {
            slot.set(
                "Requirements",
                parse::expr(
                    "(START) && (TARGET.ImageSize <= Memory * 1024 || TARGET.Owner =?= \"nobody\")",
                )
                .expect("requirements"),
            );
        }
        if let Some(l) = loader.as_mut() {
            l.push(&slot).expect("push");
        }
    }
    if let Some(l) = loader {
        l.finish().expect("finish");
    }
    let mut job = w.job_ad(0);
    job.set(
        "Requirements",
        parse::expr("(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= 300000) && TARGET.Cpus >= 2")
            .expect("requirements"),
    );
    let opts = AnalyzeOptions::default();
    // Each phase run `reps` times: the means of its wall and CPU times.
    let timed = |what: &str, reps: u32, f: &mut dyn FnMut() -> String| {
        let (t, cpu) = (Instant::now(), cpu_ms());
        let mut out = String::new();
        for _ in 0..reps {
            out = f();
        }
        let n = f64::from(reps);
        println!(
            "{what:<40} {:>10.1} ms  (cpu {:.1} ms)  {out}",
            t.elapsed().as_secs_f64() * 1e3 / n,
            (cpu_ms() - cpu) / n
        );
    };
    let time = |what: &str, f: &mut dyn FnMut() -> String| timed(what, 1, f);
    // The one-request phases are short: repeated, so that the CPU time's 10 ms ticks tell.
    let repeated = |what: &str, f: &mut dyn FnMut() -> String| timed(what, 20, f);
    time("warm (index built, first analysis)", &mut || {
        let a = db.analyze(&job, "slots", &opts).expect("analysis");
        format!("offers {} matching {}", a.offers, a.matching)
    });
    if !only_unmatched {
        repeated("full analysis", &mut || {
            let a = db.analyze(&job, "slots", &opts).expect("analysis");
            let side: Vec<String> = a
                .offer_side
                .iter()
                .map(|o| format!("{} {}", o.attribute, o.rejecting))
                .collect();
            format!(
                "conflicts {} suggestions {} rejecting_request {} offer_side [{}]",
                a.conflicts.len(),
                a.suggestions.len(),
                a.rejecting_request,
                side.join(", ")
            )
        });
        let few = AnalyzeOptions {
            max_detail_offers: 250,
            ..AnalyzeOptions::default()
        };
        repeated("full analysis, 250 offers read back", &mut || {
            let a = db.analyze(&job, "slots", &few).expect("analysis");
            format!(
                "conflicts {} suggestions {} offer_side {}",
                a.conflicts.len(),
                a.suggestions.len(),
                a.offer_side.len()
            )
        });
        repeated("counts alone", &mut || {
            let a = db.analyze_counts(&job, "slots", &opts).expect("analysis");
            format!("rejected_by_request {}", a.rejected_by_request)
        });
        let pool = db.pool("slots").expect("pool");
        repeated("plain evaluation of every offer", &mut || {
            let m = pool
                .ads
                .iter()
                .filter(|o| symmetric_match(&job, o, &opts.eval))
                .count();
            format!("matching {m}")
        });
    }
    if !reuse {
        let templates = JobTemplates::new(w.rng(), c).expect("templates");
        let mut g = w.rng().clone();
        let mut loader = db.store().loader("jobs", put);
        for job in templates.jobs(&mut g, r) {
            loader.push(&job).expect("push");
        }
        loader.finish().expect("finish");
        db.flush().expect("flush");
    }
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

/// The CPU time this process has used (user and system, every thread), in milliseconds, from
/// `/proc/self/stat` (0 where there is none): on a loaded machine, what the work cost apart
/// from waiting for a core.
fn cpu_ms() -> f64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // The fields after the command's closing parenthesis; utime and stime are the 12th and
    // 13th of them, in clock ticks (100 a second on Linux).
    let after = stat.rsplit(')').next().unwrap_or_default();
    let f: Vec<&str> = after.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) * 10.0
}
