//! The spatial index against nested-loop evaluation.
//!
//! (a) The dissertation's index workload (4.6.1, Figures 19–20): N offers and N queries with
//!     2, 4 or 8 attributes, domain mixes T, M and D, 5% omission. Criterion times the indexed
//!     join (index the offers, then every query probes them both ways and is confirmed) and
//!     the naive join (every pair evaluated) at small N; a one-shot report follows for N up to
//!     16,000 with conversion cost and memory per ad. Naive times past N = 2,000 are measured
//!     on a sample of queries against all offers and scaled by N / sample (the naive join is
//!     exactly linear in the number of queries).
//! (b) The job/machine model of `shared/workloads/ads_4000.txt`: the whole indexed join of
//!     4,000 jobs against 4,000 machines (HTCondor's library: 1,798,172 symmetric matches over
//!     all pairs in about 7.5 s), and the candidates of one job among 100,000 generated slot ads
//!     (`adjoin_workload`), median over 1,000 jobs.
//!
//! Run: `cargo bench -p adjoin-workload --bench index_join -- --warm-up-time 1 --measurement-time 3`
//! (the one-shot report is skipped under `--test` and when a filter is given).

// criterion's macros and this harness generate undocumented items.
#![allow(missing_docs)]

use adjoin::query::eval::{symmetric_match, EvalOptions};
use adjoin::query::{parse, ClassAd};
use adjoin_index::workload::{generate, Mix, Spec};
use adjoin_index::{join, AdId, Index, IndexOptions, Query};
use adjoin_workload::Workload;
use criterion::{black_box, BenchmarkId, Criterion};
use std::sync::Arc;
use std::time::{Duration, Instant};

type Offers = Vec<(AdId, Arc<ClassAd>)>;

fn workload(n: usize, attrs: usize, mix: Mix) -> (Offers, Vec<Arc<ClassAd>>) {
    let (offers, queries) = generate(&Spec::new(n, attrs, mix, 461));
    let offers = offers
        .into_iter()
        .enumerate()
        .map(|(i, a)| (i as AdId, Arc::new(a)))
        .collect();
    (offers, queries.into_iter().map(Arc::new).collect())
}

fn indexed_join(offers: &Offers, queries: &[Arc<ClassAd>]) -> u64 {
    let mut idx = Index::new(IndexOptions::default());
    if idx.extend(offers.iter().cloned()).is_err() {
        return 0;
    }
    join(&mut idx, queries).iter().map(|a| a.len()).sum()
}

fn naive_pairs(offers: &Offers, queries: &[Arc<ClassAd>]) -> u64 {
    let opts = EvalOptions::default();
    let mut n = 0;
    for q in queries {
        for (_, o) in offers {
            n += u64::from(symmetric_match(o, q, &opts));
        }
    }
    n
}

fn bench_workload(c: &mut Criterion) {
    let mut g = c.benchmark_group("workload_4_6_1");
    g.sample_size(10);
    for attrs in [2, 4, 8] {
        for mix in Mix::ALL {
            let label = format!("{attrs}/{}", mix.letter());
            for n in [1000, 2000] {
                let (offers, queries) = workload(n, attrs, mix);
                g.bench_with_input(
                    BenchmarkId::new(format!("indexed {label}"), n),
                    &n,
                    |b, _| b.iter(|| black_box(indexed_join(&offers, &queries))),
                );
            }
        }
    }
    for attrs in [2, 8] {
        let (offers, queries) = workload(1000, attrs, Mix::D);
        g.bench_with_input(
            BenchmarkId::new(format!("naive {attrs}/D"), 1000),
            &1000,
            |b, _| b.iter(|| black_box(naive_pairs(&offers, &queries))),
        );
    }
    g.finish();
}

fn ads_file(n: usize) -> (Offers, Vec<Arc<ClassAd>>) {
    let path = format!(
        "{}/../../shared/workloads/ads_{n}.txt",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    let (mut machines, mut jobs) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        let Ok(ad) = parse::classad(line) else {
            continue;
        };
        if i < n {
            machines.push((i as AdId, Arc::new(ad)));
        } else {
            jobs.push(Arc::new(ad));
        }
    }
    (machines, jobs)
}

fn bench_ads(c: &mut Criterion) {
    let (machines, jobs) = ads_file(4000);
    assert_eq!(
        (machines.len(), jobs.len()),
        (4000, 4000),
        "shared/workloads/ads_4000.txt"
    );
    let mut g = c.benchmark_group("job_machine");
    g.sample_size(20);
    g.bench_function("ads_4000 indexed join", |b| {
        b.iter(|| black_box(indexed_join(&machines, &jobs)))
    });
    let (pool, probes) = slot_pool(100_000, 200);
    let mut idx = Index::new(IndexOptions::default());
    if idx.extend(pool).is_ok() {
        let opts = idx.options().clone();
        let queries: Vec<Query> = probes
            .iter()
            .flat_map(|j| Query::two_sided(j, &opts))
            .collect();
        for q in &queries {
            idx.prepare(q);
        }
        let mut i = 0;
        g.bench_function("one job among 100,000 slots: candidates", |b| {
            b.iter(|| {
                i = (i + 1) % queries.len();
                black_box(idx.candidates(&queries[i]).rids.len())
            })
        });
        g.bench_function("one job among 100,000 slots: convert + candidates", |b| {
            b.iter(|| {
                i = (i + 1) % probes.len();
                let q = Query::two_sided(&probes[i], &opts);
                black_box(q.first().map(|q| idx.candidates(q).rids.len()))
            })
        });
    }
    g.finish();
}

/// `n` generated slot ads and `jobs` job ads.
fn slot_pool(n: u64, jobs: u64) -> (Offers, Vec<Arc<ClassAd>>) {
    let Ok(mut w) = Workload::new(2001) else {
        return (Vec::new(), Vec::new());
    };
    let slots = (0..n)
        .map(|i| (i as AdId, Arc::new(w.slot_ad(i))))
        .collect();
    let jobs = (0..jobs).map(|i| Arc::new(w.job_ad(i))).collect();
    (slots, jobs)
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// The one-shot report: larger N than criterion can afford.
fn report() {
    println!("\n== dissertation workload (4.6.1), indexed vs naive join ==");
    println!(
        "{:>6} {:>6} {:>12} {:>10} {:>12} {:>14} {:>9} {:>11} {:>8}",
        "N", "a/mix", "indexed", "build", "conv/ad", "naive", "ratio", "mem/ad", "pairs"
    );
    let cases: Vec<(usize, usize, Mix)> = [1000, 2000, 4000, 8000, 16000]
        .iter()
        .flat_map(|&n| {
            [
                (n, 2, Mix::D),
                (n, 4, Mix::M),
                (n, 8, Mix::T),
                (n, 8, Mix::D),
            ]
        })
        .collect();
    for (n, attrs, mix) in cases {
        let (offers, queries) = workload(n, attrs, mix);
        let t = Instant::now();
        let mut idx = Index::new(IndexOptions::default());
        if idx.extend(offers.iter().cloned()).is_err() {
            continue;
        }
        let build = t.elapsed();
        let pairs: u64 = join(&mut idx, &queries).iter().map(|a| a.len()).sum();
        let indexed = t.elapsed();
        let mem = idx.axis_bytes() as f64 / n as f64;
        // Naive: every pair up to N = 2,000; beyond, a sample of queries, scaled.
        let sample = if n <= 2000 { n } else { 256 };
        let t = Instant::now();
        let naive_sample = naive_pairs(&offers, &queries[..sample]);
        let naive = t.elapsed().mul_f64(n as f64 / sample as f64);
        if n <= 2000 {
            assert_eq!(naive_sample, pairs, "indexed and naive joins disagree");
        }
        println!(
            "{:>6} {:>6} {:>12} {:>10} {:>9.2} µs {:>14} {:>8.0}× {:>7.0} B {:>8}",
            n,
            format!("{attrs}/{}", mix.letter()),
            ms(indexed),
            ms(build),
            build.as_secs_f64() * 1e6 / n as f64,
            format!("{}{}", ms(naive), if n > 2000 { "*" } else { "" }),
            naive.as_secs_f64() / indexed.as_secs_f64(),
            mem,
            pairs
        );
    }
    println!("(* naive scaled from {} queries × N offers)", 256);

    println!("\n== job/machine model (shared/workloads) ==");
    for (n, want) in [(1000, 109_616_u64), (4000, 1_798_172)] {
        let (machines, jobs) = ads_file(n);
        let mut best = Duration::MAX;
        let mut pairs = 0;
        for _ in 0..5 {
            let t = Instant::now();
            pairs = indexed_join(&machines, &jobs);
            best = best.min(t.elapsed());
        }
        println!(
            "ads_{n}: indexed join (index {n} machines + {n} job probes, confirmed) best of 5: {}; {} pairs (HTCondor: {})",
            ms(best),
            pairs,
            want
        );
        assert_eq!(pairs, want);
    }
    let (pool, probes) = slot_pool(100_000, 1000);
    let mut idx = Index::new(IndexOptions::default());
    let t = Instant::now();
    if idx.extend(pool).is_err() {
        return;
    }
    println!(
        "100,000 slot ads indexed in {} ({:.0} B of axes per ad)",
        ms(t.elapsed()),
        idx.axis_bytes() as f64 / 100_000.0
    );
    let opts = idx.options().clone();
    for j in &probes {
        for q in Query::two_sided(j, &opts) {
            idx.prepare(&q);
        }
    }
    let (mut cand, mut whole, mut found) = (Vec::new(), Vec::new(), 0);
    for j in &probes {
        let t = Instant::now();
        let qs = Query::two_sided(j, &opts);
        let t1 = Instant::now();
        let a = qs.first().map(|q| idx.candidates(q));
        cand.push(t1.elapsed());
        whole.push(t.elapsed());
        found += a.map_or(0, |a| a.rids.len());
    }
    cand.sort();
    whole.sort();
    println!(
        "one job among 100,000 slots: candidates median {:.1} µs (p90 {:.1} µs), with the job's conversion {:.1} µs; {} candidates per job on average",
        cand[cand.len() / 2].as_secs_f64() * 1e6,
        cand[cand.len() * 9 / 10].as_secs_f64() * 1e6,
        whole[whole.len() / 2].as_secs_f64() * 1e6,
        found / probes.len() as u64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test");
    // A filter is a bare argument that is not the value of an option.
    const WITH_VALUE: &[&str] = &[
        "--warm-up-time",
        "--measurement-time",
        "--sample-size",
        "--save-baseline",
        "--baseline",
        "--load-baseline",
        "--profile-time",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--nresamples",
        "--output-format",
        "--color",
        "--format",
        "--plotting-backend",
    ];
    let filtered = args
        .windows(2)
        .any(|w| !w[1].starts_with('-') && !WITH_VALUE.contains(&w[0].as_str()));
    let mut c = Criterion::default().configure_from_args();
    bench_workload(&mut c);
    bench_ads(&mut c);
    c.final_summary();
    if !test_mode && !filtered {
        report();
    }
}
