//! Match diagnostics (`adjoin analyze`, issue 11), in one run:
//! - `analyze_100k`: one generated job (matching nothing: it asks for more memory than any
//!   slot has) against 100,000 generated slots in an in-memory database whose index is held:
//!   the full analysis (counts, conditions, conflicts, suggestions re-matched, offer side),
//!   the counts alone, and beside them the plain evaluation of every offer (the symmetric
//!   match of the job with each slot, the slots already in memory).
//! - `unmatched_10k`: `--unmatched` over 10,000 generated jobs of 100 autoclusters against
//!   10,000 slots (reading both collections included).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::analyze::AnalyzeOptions;
use adjoin::query::eval::symmetric_match;
use adjoin::query::{parse, ClassAd};
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::templates::JobTemplates;
use adjoin_workload::Workload;
use criterion::{criterion_group, criterion_main, Criterion};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// `slots` generated slots (collection `slots`) and `jobs` generated jobs of `clusters`
/// templates (collection `jobs`), and a job that matches nothing.
fn pool(slots: u64, jobs: u64, clusters: usize) -> (Db, ClassAd) {
    let db = Db::open_in_memory().expect("db");
    let mut w = Workload::new(42).expect("workload");
    let put = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut loader = db.store().loader("slots", put.clone());
    for n in 0..slots {
        loader.push(&w.slot_ad(n)).expect("push");
    }
    loader.finish().expect("load");
    if jobs > 0 {
        let templates = JobTemplates::new(w.rng(), clusters).expect("templates");
        let mut g = w.rng().clone();
        let mut loader = db.store().loader("jobs", put);
        for job in templates.jobs(&mut g, jobs) {
            loader.push(&job).expect("push");
        }
        loader.finish().expect("load");
    }
    let mut job = w.job_ad(0);
    job.set(
        "Requirements",
        parse::expr(
            "(TARGET.Arch == \"X86_64\") && (TARGET.OpSys == \"LINUX\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= 300000) && TARGET.Cpus >= 2",
        )
        .expect("requirements"),
    );
    (db, job)
}

fn analyze_100k(c: &mut Criterion) {
    let (db, job) = pool(100_000, 0, 0);
    let opts = AnalyzeOptions::default();
    let a = db.analyze(&job, "slots", &opts).expect("analysis");
    assert_eq!((a.offers, a.matching), (100_000, 0));
    assert!(a.suggestions.iter().all(|s| s.would_match > 0));
    let offers = db.pool("slots").expect("pool");
    let mut g = c.benchmark_group("analyze_100k");
    g.sample_size(10);
    g.bench_function("full", |b| {
        b.iter(|| db.analyze(&job, "slots", &opts).expect("analysis"))
    });
    g.bench_function("counts", |b| {
        b.iter(|| db.analyze_counts(&job, "slots", &opts).expect("counts"))
    });
    g.bench_function("evaluate_every_offer", |b| {
        b.iter(|| {
            offers
                .ads
                .iter()
                .filter(|o| symmetric_match(&job, o, &opts.eval))
                .count()
        })
    });
    g.finish();
}

fn unmatched_10k(c: &mut Criterion) {
    let (db, _) = pool(10_000, 10_000, 100);
    let opts = AnalyzeOptions::default();
    let u = db
        .analyze_unmatched("jobs", "slots", &opts)
        .expect("unmatched");
    assert_eq!(u.requests, 10_000);
    let mut g = c.benchmark_group("unmatched_10k");
    g.sample_size(10);
    g.bench_function("unmatched", |b| {
        b.iter(|| {
            db.analyze_unmatched("jobs", "slots", &opts)
                .expect("unmatched")
        })
    });
    g.finish();
}

criterion_group!(benches, analyze_100k, unmatched_10k);
criterion_main!(benches);
