//! Matchmaking cycles (dry runs, in-memory databases; each figure includes reading both
//! collections, indexing the offers and clustering the requests; after the first iteration
//! an indexed cycle reads them through what the last one held, `cycle/held_requests.rs`,
//! except where a `cold` figure releases that first):
//! - `first_fit_cycle_ads_4000`: the dissertation's job/machine model
//!   (`shared/workloads/ads_4000.txt`: 4,000 machines, 4,000 jobs; jobs in load order, first
//!   fit), indexed and autoclustered against plain evaluation of every pair, in one run.
//!   HTCondor's library needs 0.41 s for this cycle on this machine class
//!   (shared/workloads/README.md) and matches 3,724 jobs.
//! - `cycle_10k`: 10,000 generated slots against 10,000 generated jobs of 1,000 autoclusters
//!   (`adjoin_workload`), indexed, autoclustered and uncached. The naive cycle (100M pairs,
//!   over a minute) is too slow for criterion's ten samples: `examples/cycle_timing.rs
//!   --naive` measures the ratio in one run.
//! - `cycle_clustered_1k`: 1,000 slots against 2,000 jobs of 100 autoclusters: autoclustered,
//!   uncached and naive.
//! - `cycle_partitionable_1k`: the same pool with every fourth slot partitionable: the
//!   carving cycle, indexed and naive, against matching the slots whole.
//! - `cycle_hetero_2k`: the heterogeneous pool (`adjoin_workload::hetero`: every request
//!   distinct, ranks on both sides), 2,000 offers × 2,000 requests: indexed (lists confirmed
//!   as read, walked in rank order; `indexed_cold` with nothing held, every ad read) against
//!   naive, in one run; `examples/cycle_timing.rs --hetero --naive` measures larger pools.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::cycle::{run, CycleOptions};
use adjoin::storage::{Durability, IdRule, PutOptions};
use adjoin::{Db, LoadOptions};
use adjoin_workload::hetero::Heterogeneous;
use adjoin_workload::templates::JobTemplates;
use adjoin_workload::Workload;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};

const N: usize = 4000;

fn workload() -> Db {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/workloads/ads_4000.txt"
    );
    let text = std::fs::read_to_string(path).expect("shared/workloads beside the repo");
    let lines: Vec<&str> = text.lines().collect();
    let db = Db::open_in_memory().expect("db");
    let opts = LoadOptions {
        put: PutOptions {
            id: IdRule::attr("Key"),
            ..LoadOptions::default().put
        },
        ..LoadOptions::default()
    };
    for (coll, part) in [("machines", &lines[..N]), ("jobs", &lines[N..])] {
        db.load_text(coll, "ads_4000.txt", &part.join("\n"), &opts)
            .expect("load");
    }
    db
}

/// `offers` generated slots and `requests` generated jobs of `clusters` templates.
fn generated(offers: u64, requests: u64, clusters: usize) -> Db {
    let db = Db::open_in_memory().expect("db");
    let mut w = Workload::new(42).expect("workload");
    let put = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut loader = db.store().loader("machines", put.clone());
    for n in 0..offers {
        loader.push(&w.slot_ad(n)).expect("push");
    }
    loader.finish().expect("load");
    let templates = JobTemplates::new(w.rng(), clusters).expect("templates");
    let mut g = w.rng().clone();
    let mut loader = db.store().loader("jobs", put);
    for job in templates.jobs(&mut g, requests) {
        loader.push(&job).expect("push");
    }
    loader.finish().expect("load");
    db
}

/// A dry-run cycle of jobs against machines, options set by `f`.
fn opts(f: impl FnOnce(&mut CycleOptions)) -> CycleOptions {
    let mut o = CycleOptions {
        dry_run: true,
        ..CycleOptions::new("jobs", "machines")
    };
    f(&mut o);
    o
}

fn ads_4000(c: &mut Criterion) {
    let db = workload();
    let opts = |naive: bool| opts(|o| o.naive = naive);
    for naive in [false, true] {
        let report = run(&db, &opts(naive)).expect("cycle");
        assert_eq!(report.matched, 3724, "HTCondor's first-fit answer");
    }
    let mut group = c.benchmark_group("first_fit_cycle_ads_4000");
    group.sample_size(10);
    group.bench_function("indexed", |b| {
        b.iter(|| run(&db, &opts(false)).expect("cycle"))
    });
    group.bench_function("naive", |b| {
        b.iter(|| run(&db, &opts(true)).expect("cycle"))
    });
    group.finish();
}

/// The variants of a generated pool's cycle: (name, options), the first autoclustered.
fn variants(naive: bool) -> Vec<(&'static str, CycleOptions)> {
    let mut v = vec![
        ("autoclustered", opts(|_| {})),
        ("uncached", opts(|o| o.no_clusters = true)),
    ];
    if naive {
        v.push(("naive", opts(|o| o.naive = true)));
    }
    v
}

fn generated_pools(c: &mut Criterion) {
    for (group, offers, requests, clusters, naive) in [
        ("cycle_10k", 10_000, 10_000, 1_000, false),
        ("cycle_clustered_1k", 1_000, 2_000, 100, true),
    ] {
        let db = generated(offers, requests, clusters);
        let variants = variants(naive);
        // Every variant makes the same matches.
        let reports: Vec<_> = variants
            .iter()
            .map(|(_, o)| run(&db, o).expect("cycle"))
            .collect();
        for r in &reports {
            assert_eq!(r.matches, reports[0].matches);
        }
        assert_eq!(reports[0].clusters, clusters);
        let mut g = c.benchmark_group(group);
        g.sample_size(10);
        for (name, o) in &variants {
            g.bench_function(*name, |b| b.iter(|| run(&db, o).expect("cycle")));
        }
        g.finish();
    }
}

/// 1,000 generated slots, every fourth made partitionable (four times the CPUs), against
/// 2,000 jobs of 100 autoclusters: the carving cycle (indexed, and naive), against the same
/// pool matched whole (autoclustered).
fn partitionable_pool(c: &mut Criterion) {
    let db = Db::open_in_memory().expect("db");
    let mut w = Workload::new(42).expect("workload");
    for n in 0..1_000u64 {
        let mut ad = w.slot_ad(n);
        if n % 4 == 0 {
            ad.set_value("PartitionableSlot", true);
            let cpus = ad.eval_attr("Cpus").as_i64().unwrap_or(1);
            ad.set_value("Cpus", cpus * 4);
        }
        db.put("machines", &ad).expect("put");
    }
    let templates = JobTemplates::new(w.rng(), 100).expect("templates");
    let mut g = w.rng().clone();
    for job in templates.jobs(&mut g, 2_000) {
        db.put("jobs", &job).expect("put");
    }
    let carving = opts(|_| {});
    let naive = opts(|o| o.naive = true);
    let whole = opts(|o| o.whole_slots = true);
    let (a, b) = (
        run(&db, &carving).expect("cycle"),
        run(&db, &naive).expect("cycle"),
    );
    assert_eq!(a.matches, b.matches);
    let mut g = c.benchmark_group("cycle_partitionable_1k");
    g.sample_size(10);
    for (name, o) in [
        ("carving", &carving),
        ("carving_naive", &naive),
        ("whole_slots", &whole),
    ] {
        g.bench_function(name, |b| b.iter(|| run(&db, o).expect("cycle")));
    }
    g.finish();
}

/// The heterogeneous pool: 2,000 offers and 2,000 distinct requests, indexed against naive.
fn hetero_pool(c: &mut Criterion) {
    let db = Db::open_in_memory().expect("db");
    let mut h = Heterogeneous::new(42);
    let put = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut loader = db.store().loader("machines", put.clone());
    for n in 0..2_000 {
        loader.push(&h.offer(n).expect("offer")).expect("push");
    }
    loader.finish().expect("load");
    let mut loader = db.store().loader("jobs", put);
    for n in 0..2_000 {
        loader.push(&h.request(n).expect("request")).expect("push");
    }
    loader.finish().expect("load");
    let indexed = opts(|_| {});
    let naive = opts(|o| o.naive = true);
    let (a, b) = (
        run(&db, &indexed).expect("cycle"),
        run(&db, &naive).expect("cycle"),
    );
    assert_eq!(a.matches, b.matches);
    let mut g = c.benchmark_group("cycle_hetero_2k");
    g.sample_size(10);
    for (name, o) in [("indexed", &indexed), ("naive", &naive)] {
        g.bench_function(name, |b| b.iter(|| run(&db, o).expect("cycle")));
    }
    g.bench_function("indexed_cold", |b| {
        b.iter_batched(
            || db.release_held(),
            |()| run(&db, &indexed).expect("cycle"),
            BatchSize::PerIteration,
        )
    });
    g.finish();
}

criterion_group!(
    benches,
    ads_4000,
    generated_pools,
    partitionable_pool,
    hetero_pool
);
criterion_main!(benches);
