//! Flat chains (issue 16): parsing and evaluating a machine list of 5,000 terms
//! (`TARGET.Machine == "…" || …`), which is one chain node; the time per term should stay
//! flat as the list grows (compare the 500- and 5,000-term cases in one run).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::query::eval::{eval_in_match, EvalOptions, MatchAds};
use adjoin::query::{parse, ClassAd};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};

fn machine_list(n: usize) -> String {
    (0..n)
        .map(|i| format!("TARGET.Machine == \"host{i:05}.example.org\""))
        .collect::<Vec<_>>()
        .join(" || ")
}

fn bench(c: &mut Criterion) {
    let opts = EvalOptions::default();
    let job = ClassAd::new();
    for n in [500usize, 5_000] {
        let text = machine_list(n);
        let e = parse::expr(&text).expect("parses");
        let slot =
            parse::classad(&format!("[Machine = \"host{:05}.example.org\"]", n - 1)).expect("slot");
        let mut group = c.benchmark_group(format!("chain_{n}"));
        group.throughput(Throughput::Elements(n as u64));
        group.bench_function("parse", |b| {
            b.iter(|| black_box(parse::expr(black_box(&text)).expect("parses")))
        });
        group.bench_function("eval_last_term", |b| {
            b.iter(|| {
                black_box(eval_in_match(
                    black_box(&e),
                    MatchAds {
                        my: &job,
                        target: &slot,
                    },
                    &opts,
                ))
            })
        });
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
