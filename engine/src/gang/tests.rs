//! Property tests of the gang search: on small random pools (requests with 2–3 ports, offers
//! with 1–2 ports, plain ads among them, in two collections), every algorithm's gangs are
//! valid in the Figure-32 environment, and every algorithm gives a gang to exactly the
//! requests the exhaustive search finds one for, request after request and cycle after cycle
//! as gangs are consumed.

use super::env::valid;
use super::oracle;
use super::pool::Pool;
use super::ports::GangAd;
use super::search::Searcher;
use super::Algorithm;
use crate::collection::Collection;
use crate::cycle::dock::Dock;
use adjoin_index::IndexOptions;
use adjoin_query::eval::EvalOptions;
use adjoin_query::{parse, ClassAd};
use proptest::prelude::*;
use std::sync::Arc;

/// A request: 2–3 ports; later ports may depend on the first (`H = r0.K`, `r0.A`).
fn request() -> impl Strategy<Value = String> {
    let port = (0..3i64, 0..4i64, 0..3u8);
    prop::collection::vec(port, 2..=3).prop_map(|ports| {
        let mut s = String::from("[Ports = {");
        for (i, (a, n, kind)) in ports.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            let c = match (i, kind) {
                (0, _) | (_, 0) => format!("r{i}.A >= {a}"),
                (_, 1) => format!("r{i}.A == r0.A"),
                _ => format!("r{i}.A <= {a} + 1"),
            };
            let h = if i > 0 {
                "H = r0.K; ".to_owned()
            } else {
                String::new()
            };
            s.push_str(&format!("[Label = r{i}; N = {n}; {h}Constraint = {c}]"));
        }
        s.push_str("}]");
        s
    })
}

/// An offer: plain (the implicit port), one port, or two ports (the second docking another
/// offer). Keys repeat (`K` is the position modulo 3), so identical offers occur.
fn offer() -> impl Strategy<Value = (u8, i64, i64, i64)> {
    (0..4u8, 0..3i64, 0..4i64, 0..3i64)
}

fn offer_text(k: usize, (kind, a, n, lo): (u8, i64, i64, i64)) -> String {
    match kind {
        0 => format!("[K = {k}; A = {a}; N = {n}; Requirements = TARGET.N <= {n} + 1]"),
        1 => format!(
            "[K = {k}; A = {a}; Ports = {{[Label = p; N = {n}; Constraint = p.N >= {lo}]}}]"
        ),
        2 => format!(
            "[K = {k}; A = {a}; Ports = {{[Label = p; N = {n}; \
             Constraint = p.H is undefined || (p.H >= {lo} && p.H < {lo} + 2)]}}]"
        ),
        _ => format!(
            "[K = {k}; A = {a}; Ports = {{[Label = p; N = {n}; Constraint = p.N <= {n}], \
             [Label = q; N = {n}; Constraint = q.A >= {lo} && q.K != p.K]}}]"
        ),
    }
}

fn collection(texts: &[String], prefix: &str) -> Collection {
    Collection {
        ids: (0..texts.len()).map(|i| format!("{prefix}{i}")).collect(),
        ads: texts
            .iter()
            .map(|t| Arc::new(parse::classad(t).expect("ad")))
            .collect(),
        damaged: Vec::new(),
    }
}

fn pool(offers: &[(u8, i64, i64, i64)], indexed: bool) -> Pool {
    let texts: Vec<String> = offers
        .iter()
        .enumerate()
        .map(|(k, &o)| offer_text(k % 3, o))
        .collect();
    let half = texts.len() / 2;
    let colls = vec![
        ("a".to_owned(), collection(&texts[..half], "a")),
        ("b".to_owned(), collection(&texts[half..], "b")),
    ];
    let opts = IndexOptions::default();
    let mut bad = Vec::new();
    let p = Pool::new(colls, indexed.then_some(&opts), &mut bad).expect("pool");
    assert!(bad.is_empty(), "{bad:?}");
    p
}

fn root(text: &str) -> Arc<GangAd> {
    let ad: ClassAd = parse::classad(text).expect("request");
    Arc::new(GangAd::new(Arc::new(ad)).expect("ports"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn every_algorithm_is_complete_and_valid(
        requests in prop::collection::vec(request(), 1..=4),
        offers in prop::collection::vec(offer(), 3..=6),
    ) {
        let opts = EvalOptions::default();
        // Per-port ranks, and a docking vector read in the whole environment (`request.r0.K`
        // pending until `r0` docks): neither costs completeness.
        let vector = ["offer.A * 2 - request.N", "request.r0.K"]
            .map(|e| parse::expr(e).expect("dock"))
            .to_vec();
        for (alg, dock) in Algorithm::ALL
            .into_iter()
            .flat_map(|a| [(a, None), (a, Some(Dock::Exprs(vector.clone())))])
        {
            let mut mine = pool(&offers, alg.indexed());
            let mut theirs = pool(&offers, false);
            // Two cycles over the same requests: the second sees what the first consumed.
            for cycle in 0..2 {
                for (ri, text) in requests.iter().enumerate() {
                    let r = root(text);
                    let exists = oracle::exists(&theirs, Arc::clone(&r), &opts);
                    let found = Searcher::new(&mut mine, alg, opts.clone(), dock.clone()).find(r);
                    prop_assert_eq!(found.is_some(), exists, "{} cycle {} request {}", alg, cycle, ri);
                    if let Some(tree) = found {
                        prop_assert!(valid(&tree, &opts), "{} gang invalid", alg);
                        for m in &tree.members {
                            if let Some(o) = m.offer {
                                mine.take(o);
                                theirs.take(o);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn two_license_ports_that_cannot_agree_fail_without_search() {
    // Path consistency: one license port needs the host above 10, the other below 5.
    let mut machines = vec![];
    for k in 0..40 {
        machines.push(format!(
            "[Key = {k}; Ports = {{[Label = Job; Constraint = true]}}]"
        ));
    }
    let mut licenses = vec![];
    for i in 0..20 {
        let c = if i % 2 == 0 {
            "Job.HostId > 10"
        } else {
            "Job.HostId < 5"
        };
        licenses.push(format!(
            "[App = {}; Ports = {{[Label = Job; Constraint = {c}]}}]",
            i % 2
        ));
    }
    let colls = vec![
        ("machines".to_owned(), collection(&machines, "m")),
        ("licenses".to_owned(), collection(&licenses, "l")),
    ];
    let opts = IndexOptions::default();
    let mut pool = Pool::new(colls, Some(&opts), &mut Vec::new()).expect("pool");
    let job = root(
        "[Ports = {[Label = Cpu; Constraint = true], \
         [Label = L1; HostId = Cpu.Key; Constraint = L1.App == 0], \
         [Label = L2; HostId = Cpu.Key; Constraint = L2.App == 1]}]",
    );
    let mut s = Searcher::new(&mut pool, Algorithm::Dyn, opts.eval.clone(), None);
    assert!(s.find(Arc::clone(&job)).is_none());
    // No docking was even evaluated: the ports' windows disagreed.
    assert_eq!(s.evaluations, 0);
    let mut s = Searcher::new(&mut pool, Algorithm::Lr, opts.eval.clone(), None);
    assert!(s.find(job).is_none());
    assert!(s.evaluations > 40, "{}", s.evaluations);
}

/// The probes `alg` makes over `w` (its offers indexed), and the gangs it gives.
fn probes_and_gangs(w: &adjoin_workload::gangs::GangWorkload, alg: Algorithm) -> (u64, usize) {
    let coll = |ads: &[ClassAd], p: &str| Collection {
        ids: (0..ads.len()).map(|i| format!("{p}{i}")).collect(),
        ads: ads.iter().map(|a| Arc::new(a.clone())).collect(),
        damaged: Vec::new(),
    };
    let colls = vec![
        ("machines".to_owned(), coll(&w.machines, "m")),
        ("licenses".to_owned(), coll(&w.licenses, "l")),
    ];
    let opts = IndexOptions::default();
    let mut pool = Pool::new(colls, Some(&opts), &mut Vec::new()).expect("pool");
    let mut gangs = 0;
    for job in &w.jobs {
        let r = Arc::new(GangAd::new(Arc::new(job.clone())).expect("job"));
        let found = Searcher::new(&mut pool, alg, opts.eval.clone(), None).find(r);
        if let Some(t) = found {
            gangs += 1;
            for m in &t.members {
                if let Some(o) = m.offer {
                    pool.take(o);
                }
            }
        }
    }
    (pool.probes, gangs)
}

#[test]
fn dyn_probes_stay_linear_where_lr_goes_quadratic() {
    // The heuristic-failure workload of 5.7 at 200: licenses valid on the last 40 machines.
    let w = adjoin_workload::gangs::heuristic_failure(200, 3).expect("workload");
    let (dyn_probes, dyn_gangs) = probes_and_gangs(&w, Algorithm::Dyn);
    let (lr_probes, lr_gangs) = probes_and_gangs(&w, Algorithm::Lr);
    assert_eq!((dyn_gangs, lr_gangs), (40, 40));
    assert!(dyn_probes <= 6 * 200, "{dyn_probes}");
    assert!(lr_probes >= 20 * 200, "{lr_probes}");
    // The base workload with scarce licenses (50%, selectivity 8).
    let w = adjoin_workload::gangs::base(200, 50, 8, 3).expect("workload");
    let (dyn_probes, dyn_gangs) = probes_and_gangs(&w, Algorithm::Dyn);
    let (lr_probes, lr_gangs) = probes_and_gangs(&w, Algorithm::Lr);
    assert_eq!(dyn_gangs, lr_gangs);
    assert!(dyn_probes <= 6 * 200, "{dyn_probes}");
    assert!(lr_probes > 2 * dyn_probes, "{lr_probes} {dyn_probes}");
}
