//! Preferences (issue 12): one request with a 6-variable CP-net against 100,000 generated
//! slots (`adjoin_workload`), in one run:
//! - `best`: the most preferred feasible slot by the walk through the index (outcomes from the
//!   optimum down, each a window, stopping at the first that confirms) against finding every
//!   candidate through the index, evaluating its outcome and ranks, and sorting;
//! - `ranked`: the whole ranked list through the index (one window per listed value, no value
//!   evaluated) against the same evaluate-and-sort.
//!
//! - `dominance_wide_tables`: a dominance query over a net of 24 two-valued variables, each
//!   with up to 10 parents (tables of 1,024 rows, a parity rule that makes every flip
//!   conditional), stopped by a budget of 16,384 outcomes: each step looks up a row per
//!   variable, which a table of thousands of rows answers by hash, not by a scan.
//!
//! A cycle with preferences against the same cycle without them is measured at scale by
//! `examples/prefer_timing.rs` (one run each; criterion's ten samples of 100,000 × 100,000
//! would take minutes).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::index::{AdId, Bits, Index, IndexOptions};
use adjoin::prefer::{self, Feasible, IndexedOffers, OfferRanks, Preferences};
use adjoin::query::eval::EvalOptions;
use adjoin::query::{parse, ClassAd};
use adjoin_workload::Workload;
use criterion::{criterion_group, criterion_main, Criterion};
use std::sync::Arc;

/// The request: a 6-variable net over what slots advertise.
pub const REQUEST: &str = r#"[
  Owner = "raman"; ImageSize = 20000; Want = 2;
  Requirements = TARGET.Disk >= 5000000 && TARGET.Memory >= 64 && TARGET.HasFileTransfer == true;
  Preferences = {
    [ Name = "os"; Value = TARGET.OpSys; Order = {"LINUX", "SOLARIS27", "SOLARIS26"} ],
    [ Name = "arch"; Value = TARGET.Arch; Parents = {"os"};
      Table = { [ When = {"LINUX"}; Order = {"X86_64", "INTEL"} ],
                [ When = {"SOLARIS27"}; Order = {"SUN4u", "SUN4x"} ] } ],
    [ Name = "mem"; Value = TARGET.Memory >= 256; Parents = {"os"};
      Table = { [ When = {"LINUX"}; Order = {true, false} ],
                [ When = {"SOLARIS26"}; Order = {false, true} ] } ],
    [ Name = "cpus"; Value = TARGET.Cpus; Parents = {"mem"};
      Table = { [ When = {true}; Order = {8, 4, 2} ], [ When = {false}; Order = {1, 2} ] } ],
    [ Name = "java"; Value = TARGET.HasJava; Order = {true, false} ],
    [ Name = "state"; Value = TARGET.State; Parents = {"java"};
      Table = { [ When = {true}; Order = {"Unclaimed", "Claimed"} ] } ]
  } ]"#;

/// `n` generated slots, indexed.
pub fn slots(n: u64) -> (Vec<Arc<ClassAd>>, Index) {
    let mut w = Workload::new(42).expect("workload");
    let offers: Vec<Arc<ClassAd>> = (0..n).map(|i| Arc::new(w.slot_ad(i))).collect();
    let mut idx = Index::new(IndexOptions::default());
    idx.extend((0..).zip(offers.iter().cloned()))
        .expect("index");
    (offers, idx)
}

/// Every candidate through the index, evaluated and sorted.
fn evaluated(
    p: &Preferences,
    request: &Arc<ClassAd>,
    idx: &mut Index,
    offers: &[Arc<ClassAd>],
    opts: &EvalOptions,
) -> prefer::Ranked {
    let none = Bits::new();
    let all = IndexedOffers {
        index: idx,
        except: &none,
    }
    .matching(request);
    prefer::rank_all(p, request, all.iter(), offers, opts)
}

fn single_request(c: &mut Criterion) {
    let (offers, mut idx) = slots(100_000);
    let request = Arc::new(parse::classad(REQUEST).expect("request"));
    let opts = EvalOptions::default();
    let p = Preferences::from_ad(&request, "bench", &opts)
        .expect("prefs")
        .expect("some");
    let classed = OfferRanks::new(&offers);
    let want = evaluated(&p, &request, &mut idx, &offers, &opts);
    let got = prefer::ranked(&p, &request, &mut idx, &offers, Some(&classed), &opts).expect("walk");
    assert_eq!(got, want, "the walk ranks as evaluation does");
    let best = prefer::best(&p, &request, &mut idx, &offers, Some(&classed), &opts).expect("walk");
    assert_eq!(best.as_ref(), want.first());
    let top: Option<AdId> = best.map(|b| b.1);
    eprintln!(
        "prefer bench: {} candidates of {} slots; best {top:?}",
        want.len(),
        offers.len()
    );
    let mut g = c.benchmark_group("prefer_best_100k");
    g.bench_function("walk", |b| {
        b.iter(|| prefer::best(&p, &request, &mut idx, &offers, Some(&classed), &opts))
    });
    g.bench_function("evaluate_all", |b| {
        b.iter(|| {
            evaluated(&p, &request, &mut idx, &offers, &opts)
                .into_iter()
                .next()
        })
    });
    g.finish();
    let mut g = c.benchmark_group("prefer_ranked_100k");
    g.sample_size(10);
    g.bench_function("walk", |b| {
        b.iter(|| prefer::ranked(&p, &request, &mut idx, &offers, Some(&classed), &opts))
    });
    g.bench_function("evaluate_all", |b| {
        b.iter(|| evaluated(&p, &request, &mut idx, &offers, &opts))
    });
    g.finish();
}

/// The wide-table net: `n` variables `v0…`, each with the (up to) `k` before it as parents,
/// preferring 1 when its parents' values sum to an even number and 0 otherwise.
fn wide_net(n: usize, k: usize) -> String {
    let mut entries = vec![r#"[Name = "v0"; Value = TARGET.v0; Order = {1, 0}]"#.to_owned()];
    for i in 1..n {
        let parents: Vec<usize> = (i.saturating_sub(k)..i).collect();
        let rows: Vec<String> = (0..1u32 << parents.len())
            .map(|bits| {
                let when: Vec<String> = (0..parents.len())
                    .map(|j| ((bits >> j) & 1).to_string())
                    .collect();
                let order = match bits.count_ones() % 2 {
                    0 => "{1, 0}",
                    _ => "{0, 1}",
                };
                format!("[When = {{{}}}; Order = {order}]", when.join(", "))
            })
            .collect();
        let names: Vec<String> = parents.iter().map(|p| format!("\"v{p}\"")).collect();
        entries.push(format!(
            "[Name = \"v{i}\"; Value = TARGET.v{i}; Parents = {{{}}}; Table = {{{}}}]",
            names.join(", "),
            rows.join(", ")
        ));
    }
    format!(
        "[Requirements = true; Preferences = {{{}}}]",
        entries.join(", ")
    )
}

fn dominance(c: &mut Criterion) {
    let n = 24;
    let request = parse::classad(&wide_net(n, 10)).expect("request");
    let opts = EvalOptions::default();
    let p = Preferences::from_ad(&request, "bench", &opts)
        .expect("prefs")
        .expect("some");
    let offer = |f: &dyn Fn(usize) -> u32| {
        let attrs: Vec<String> = (0..n).map(|i| format!("v{i} = {}", f(i))).collect();
        parse::classad(&format!("[{}]", attrs.join("; "))).expect("offer")
    };
    let a = p.outcome(&request, &offer(&|_| 1), &opts);
    let b = p.outcome(&request, &offer(&|i| (i % 2) as u32), &opts);
    let budget = 1 << 14;
    let mut g = c.benchmark_group("prefer_dominance_wide_tables");
    g.sample_size(10);
    g.bench_function("budget_16k", |bench| {
        bench.iter(|| p.dominates_within(&a, &b, budget))
    });
    g.finish();
}

criterion_group!(benches, single_request, dominance);
criterion_main!(benches);
