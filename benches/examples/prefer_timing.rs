//! Times preferences (issue 12) in one run, so that the ratios are of the same machine state:
//! 1. one request with a 6-variable net (`benches/prefer.rs`'s) against SLOTS generated slots:
//!    the best feasible slot by the walk through the index, and the whole ranked list through
//!    the index, each against finding every candidate and evaluating and sorting it (median of
//!    REPS runs each, interleaved);
//! 2. a dry-run cycle of REQUESTS generated jobs of CLUSTERS templates against the SLOTS slots,
//!    with the same net added to every job, against the same cycle without it.
//!
//! `cargo run --release -p adjoin-workload --example prefer_timing -- [SLOTS [REQUESTS
//! [CLUSTERS [REPS]]]]` (defaults 100000 100000 1000 21; `0` REQUESTS skips the cycles).

use adjoin::cycle::{run, CycleOptions};
use adjoin::index::{Bits, Index};
use adjoin::prefer::{self, Feasible, IndexedOffers, OfferRanks, Preferences};
use adjoin::query::eval::EvalOptions;
use adjoin::query::{parse, ClassAd, Name};
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::templates::JobTemplates;
use adjoin_workload::Workload;
use std::error::Error;
use std::sync::Arc;
use std::time::Instant;

/// The allocator the `adjoin` binary uses, so that figures match the command line's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[path = "../prefer.rs"]
#[allow(dead_code, unused_imports)]
mod bench;

/// The median of `reps` runs of `f`, in seconds.
fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or(0.0)
}

fn secs(t: Instant) -> f64 {
    t.elapsed().as_secs_f64()
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.replace(['_', ','], "").parse())
        .collect::<Result<_, _>>()?;
    let arg = |i: usize, d: u64| args.get(i).copied().unwrap_or(d);
    let (slots, requests, clusters, reps) =
        (arg(0, 100_000), arg(1, 100_000), arg(2, 1000), arg(3, 21));

    // 1. One request.
    let (offers, mut idx): (Vec<Arc<ClassAd>>, Index) = bench::slots(slots);
    let request = Arc::new(parse::classad(bench::REQUEST)?);
    let opts = EvalOptions::default();
    let p = Preferences::from_ad(&request, "bench", &opts)?.ok_or("no preferences")?;
    let classed = OfferRanks::new(&offers);
    let none = Bits::new();
    let evaluate = |idx: &mut Index| {
        let all = IndexedOffers {
            index: idx,
            except: &none,
        }
        .matching(&request);
        prefer::rank_all(&p, &request, all.iter(), &offers, &opts)
    };
    // Warm: the index imports what the windows bound.
    let want = evaluate(&mut idx);
    let got = prefer::ranked(&p, &request, &mut idx, &offers, Some(&classed), &opts)?;
    assert_eq!(got, want, "the walk ranks as evaluation does");
    let (mut best_walk, mut best_eval, mut list_walk, mut list_eval) =
        (vec![], vec![], vec![], vec![]);
    for _ in 0..reps {
        let t = Instant::now();
        let b = prefer::best(&p, &request, &mut idx, &offers, Some(&classed), &opts)?;
        best_walk.push(secs(t));
        let t = Instant::now();
        let e = evaluate(&mut idx);
        best_eval.push(secs(t));
        assert_eq!(b.as_ref(), e.first());
        let t = Instant::now();
        let l = prefer::ranked(&p, &request, &mut idx, &offers, Some(&classed), &opts)?;
        list_walk.push(secs(t));
        let t = Instant::now();
        let e = evaluate(&mut idx);
        list_eval.push(secs(t));
        assert_eq!(l.len(), e.len());
    }
    let (bw, be, lw, le) = (
        median(&mut best_walk),
        median(&mut best_eval),
        median(&mut list_walk),
        median(&mut list_eval),
    );
    println!(
        "one request, {} variables, {slots} slots, {} candidates (medians of {reps}):",
        p.len(),
        want.len()
    );
    println!(
        "  best: walk {:.3} ms, evaluate all {:.1} ms ({:.0}x)",
        bw * 1e3,
        be * 1e3,
        be / bw
    );
    println!(
        "  ranked list: through the index {:.1} ms, evaluate all {:.1} ms ({:.1}x)",
        lw * 1e3,
        le * 1e3,
        le / lw
    );
    drop((offers, idx, classed));
    if requests == 0 {
        return Ok(());
    }

    // 2. Cycles with and without the net.
    let db = Db::open_in_memory()?;
    let mut w = Workload::new(42)?;
    let put = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut loader = db.store().loader("machines", put.clone());
    for n in 0..slots {
        loader.push(&w.slot_ad(n))?;
    }
    loader.finish()?;
    let templates = JobTemplates::new(w.rng(), clusters as usize)?;
    let prefs = parse::classad(bench::REQUEST)?
        .get("Preferences")
        .cloned()
        .ok_or("no preferences")?;
    let mut plain = db.store().loader("jobs", put.clone());
    let mut with = db.store().loader("jobs_prefer", put);
    let mut g = w.rng().clone();
    for job in templates.jobs(&mut g, requests) {
        plain.push(&job)?;
        let mut job = job;
        job.insert(Name::new("Preferences"), prefs.clone());
        with.push(&job)?;
    }
    plain.finish()?;
    with.finish()?;
    for round in 0..2 {
        for coll in ["jobs", "jobs_prefer"] {
            let o = CycleOptions {
                dry_run: true,
                ..CycleOptions::new(coll, "machines")
            };
            let r = run(&db, &o)?;
            println!(
                "cycle {round} {coll}: {requests} requests x {slots} slots, {} clusters, {} matched, {:.3} s (matching {:.3} s)",
                r.clusters, r.matched, r.seconds, r.phases.matching
            );
        }
    }
    Ok(())
}
