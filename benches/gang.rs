//! Gang cycles (dry runs, in-memory databases; each figure includes reading the three
//! collections and indexing the offers) on the dissertation's base workload (5.2.1):
//! - `gang_base_1000_50_8`: 1,000 jobs, machines, 500 licenses in 8 partitions — DYN (the
//!   default) against LR; `gang_base_200_50_8`: DYN against naive at 200 jobs (naive takes
//!   about 35 s at 1,000 jobs, too slow for criterion's samples: `examples/gang_timing.rs`
//!   measures the ratio at 1,000 in one run);
//! - `gang_base_4000`: 4,000 jobs at 100% and 50% licenses, selectivity 8 — DYN, DYNS, LR;
//! - `gang_failure_500`: the heuristic-failure workload of 5.7 (500 machines, 1,000 identical
//!   licenses valid on the last 100) against the base workload of 500 jobs, DYN;
//! - `gang_serials`: the same two workloads with every license given its own serial number (an
//!   attribute no constraint reads: the licenses stay interchangeable but no longer print
//!   alike) — DYN, DYNS and DYNSR, whose groups of interchangeable offers must not depend on it.
//!
//! Larger sizes (16,000 jobs) are timed by `examples/gang_timing.rs`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::gang::{Algorithm, GangOptions};
use adjoin::Db;
use adjoin_workload::gangs::{base, heuristic_failure, with_serials, GangWorkload};
use criterion::{criterion_group, criterion_main, Criterion};

fn load(w: &GangWorkload) -> Db {
    let db = Db::open_in_memory().expect("db");
    for (coll, ads) in [
        ("jobs", &w.jobs),
        ("machines", &w.machines),
        ("licenses", &w.licenses),
    ] {
        for ad in ads {
            db.put(coll, ad).expect("put");
        }
    }
    db
}

fn cycle(db: &Db, alg: Algorithm) -> usize {
    let mut o = GangOptions::new("jobs", &["machines", "licenses"]);
    o.algorithm = alg;
    o.dry_run = true;
    db.gang_cycle(&o).expect("cycle").matched
}

fn gangs(c: &mut Criterion) {
    let db = load(&base(1000, 50, 8, 42).expect("workload"));
    let mut g = c.benchmark_group("gang_base_1000_50_8");
    g.sample_size(10);
    for alg in [Algorithm::Dyn, Algorithm::Lr] {
        g.bench_function(alg.to_string(), |b| b.iter(|| cycle(&db, alg)));
    }
    g.finish();
    let db = load(&base(200, 50, 8, 42).expect("workload"));
    let mut g = c.benchmark_group("gang_base_200_50_8");
    g.sample_size(10);
    for alg in [Algorithm::Dyn, Algorithm::Naive] {
        g.bench_function(alg.to_string(), |b| b.iter(|| cycle(&db, alg)));
    }
    g.finish();
    let mut g = c.benchmark_group("gang_base_4000");
    g.sample_size(10);
    for percent in [100, 50] {
        let db = load(&base(4000, percent, 8, 42).expect("workload"));
        for alg in [Algorithm::Dyn, Algorithm::Dyns, Algorithm::Lr] {
            g.bench_function(format!("{alg}/{percent}/8"), |b| b.iter(|| cycle(&db, alg)));
        }
    }
    g.finish();
    let mut g = c.benchmark_group("gang_failure_500");
    g.sample_size(10);
    let failure = load(&heuristic_failure(500, 42).expect("workload"));
    let same = load(&base(500, 100, 1, 42).expect("workload"));
    g.bench_function("failure/dyn", |b| {
        b.iter(|| cycle(&failure, Algorithm::Dyn))
    });
    g.bench_function("base/dyn", |b| b.iter(|| cycle(&same, Algorithm::Dyn)));
    g.finish();
    let mut g = c.benchmark_group("gang_serials");
    g.sample_size(10);
    for (name, mut w) in [
        ("failure_500", heuristic_failure(500, 42).expect("workload")),
        ("base_2000_50_8", base(2000, 50, 8, 42).expect("workload")),
    ] {
        with_serials(&mut w);
        let db = load(&w);
        for alg in [Algorithm::Dyn, Algorithm::Dyns, Algorithm::Dynsr] {
            g.bench_function(format!("{name}/{alg}"), |b| b.iter(|| cycle(&db, alg)));
        }
    }
    g.finish();
}

criterion_group!(benches, gangs);
criterion_main!(benches);
