//! A matchmaking cycle on the dissertation's job/machine model (`shared/workloads/ads_4000.txt`:
//! 4,000 machines, 4,000 jobs; jobs in load order, first fit): indexed and autoclustered against
//! plain evaluation of every pair, in one run. HTCondor's library needs 0.41 s for this cycle on
//! this machine class (shared/workloads/README.md) and matches 3,724 jobs.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::cycle::{run, CycleOptions};
use adjoin::storage::{IdRule, PutOptions};
use adjoin::{Db, LoadOptions};
use criterion::{criterion_group, criterion_main, Criterion};

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

fn bench(c: &mut Criterion) {
    let db = workload();
    let opts = |naive: bool| CycleOptions {
        requests: "jobs".into(),
        offers: "machines".into(),
        dry_run: true,
        naive,
        ..CycleOptions::default()
    };
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

criterion_group!(benches, bench);
criterion_main!(benches);
