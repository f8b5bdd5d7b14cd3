//! Preferences (issue 12): one request with a 6-variable CP-net against 100,000 generated
//! slots (`adjoin_workload`), in one run:
//! - `best`: the most preferred feasible slot by the walk through the index (outcomes from the
//!   optimum down, each a window, stopping at the first that confirms) against finding every
//!   candidate through the index, evaluating its outcome and ranks, and sorting;
//! - `ranked`: the whole ranked list through the index (one window per listed value, no value
//!   evaluated) against the same evaluate-and-sort.
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

criterion_group!(benches, single_request);
criterion_main!(benches);
