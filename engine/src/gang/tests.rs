//! Property tests of the gang search: on small random pools (requests with 2–3 ports, offers
//! with 1–2 ports, plain ads among them, in two collections; many offers identical or
//! interchangeable — copies of a few prototypes, some with a serial number nothing reads, some
//! with the constraint written another way), every algorithm's gangs are valid in the
//! Figure-32 environment, and every algorithm gives a gang to exactly the requests the
//! exhaustive search finds one for, request after request and cycle after cycle as gangs are
//! consumed. DYNS and DYNSR run over summarized pools (one representative per group indexed).

use super::env::valid;
use super::oracle;
use super::pool::Pool;
use super::ports::GangAd;
use super::search::Searcher;
use super::signature::Reads;
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
/// offer).
fn offer() -> impl Strategy<Value = (u8, i64, i64, i64)> {
    (0..4u8, 0..3i64, 0..4i64, 0..3i64)
}

/// An offer drawn from a prototype: the prototype, its number (the offer's `K`), and how it
/// is copied (0: as it is, 1: with a serial number, 2: the constraint written another way).
type Copied = ((u8, i64, i64, i64), usize, u8);

/// Offers drawn from 1–3 prototypes, each copy as it is (identical: the same text, another
/// id), with a serial number no expression names (the same rectangles, another text), or with
/// its constraint written another way (the same rectangle where it is a conjunction of
/// comparisons, another text otherwise).
fn offers() -> impl Strategy<Value = Vec<Copied>> {
    (
        prop::collection::vec(offer(), 1..=3),
        prop::collection::vec((0..3usize, 0..3u8), 3..=6),
    )
        .prop_map(|(protos, picks)| {
            picks
                .into_iter()
                .map(|(i, v)| (protos[i % protos.len()], i % protos.len(), v))
                .collect()
        })
}

fn offer_text(
    k: usize,
    (kind, a, n, lo): (u8, i64, i64, i64),
    variant: u8,
    serial: usize,
) -> String {
    let other = variant == 2;
    let c = match (kind, other) {
        (0, false) => format!("TARGET.N <= {n} + 1"),
        (0, true) => format!("{n} + 1 >= other.n"),
        (1, false) => format!("p.N >= {lo}"),
        (1, true) => format!("{lo} <= p.n && p.N >= {lo} - 1"),
        (2, false) => format!("p.H is undefined || (p.H >= {lo} && p.H < {lo} + 2)"),
        (2, true) => format!("(p.H >= {lo} && p.H < {lo} + 2) || p.H is undefined"),
        (_, false) => format!("q.A >= {lo} && q.K != p.K"),
        (_, true) => format!("q.K != p.K && q.A >= {lo}"),
    };
    let extra = if variant == 1 {
        format!("Serial = {serial}; ")
    } else {
        String::new()
    };
    match kind {
        0 => format!("[{extra}K = {k}; A = {a}; N = {n}; Requirements = {c}]"),
        1 | 2 => {
            format!("[{extra}K = {k}; A = {a}; Ports = {{[Label = p; N = {n}; Constraint = {c}]}}]")
        }
        _ => format!(
            "[{extra}K = {k}; A = {a}; Ports = {{[Label = p; N = {n}; Constraint = p.N <= {n}], \
             [Label = q; N = {n}; Constraint = {c}]}}]"
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

/// The pool of `offers` in two collections, for `alg` in a cycle of `requests` with docking
/// vector `dock` (which decide what is read, so which offers are interchangeable).
fn pool(
    offers: &[Copied],
    alg: Algorithm,
    requests: &[String],
    dock: &[adjoin_query::Expr],
) -> Pool {
    let texts: Vec<String> = offers
        .iter()
        .enumerate()
        .map(|(i, &(o, k, v))| offer_text(k, o, v, i))
        .collect();
    let half = texts.len() / 2;
    let colls = vec![
        ("a".to_owned(), collection(&texts[..half], "a")),
        ("b".to_owned(), collection(&texts[half..], "b")),
    ];
    let ads: Vec<ClassAd> = requests
        .iter()
        .chain(&texts)
        .map(|t| parse::classad(t).expect("ad"))
        .collect();
    let reads = Reads::of(ads.iter(), dock);
    let opts = IndexOptions::default();
    let mut bad = Vec::new();
    let p = Pool::with_reads(
        colls,
        alg.indexed().then_some(&opts),
        reads,
        alg.summarized(),
        &mut bad,
    )
    .expect("pool");
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
        offers in offers(),
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
            let exprs: &[adjoin_query::Expr] = if dock.is_some() { &vector } else { &[] };
            let mut mine = pool(&offers, alg, &requests, exprs);
            let mut theirs = pool(&offers, Algorithm::Naive, &requests, &[]);
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
    let reads = Reads::of(w.jobs.iter().chain(&w.machines).chain(&w.licenses), &[]);
    let mut pool = Pool::with_reads(colls, Some(&opts), reads, alg.summarized(), &mut Vec::new())
        .expect("pool");
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

#[test]
fn summarized_pools_index_one_representative_per_group() {
    // Licenses of two kinds, each with its own serial number (nothing reads it), and one
    // that reads differently: three groups, three ads indexed.
    let mut licenses = vec![];
    for i in 0..12 {
        let c = if i % 2 == 0 {
            "Job.HostId >= 2"
        } else {
            "Job.HostId < 2"
        };
        licenses.push(format!(
            "[Lic = 1; Serial = {i}; Ports = {{[Label = Job; Constraint = {c}]}}]"
        ));
    }
    licenses.push(
        "[Lic = 1; Serial = 99; Ports = {[Label = Job; Constraint = 2 <= Job.HOSTID]}]".to_owned(),
    );
    licenses.push(
        "[Lic = 1; Serial = 98; Ports = {[Label = Job; Constraint = Job.HostId != 2]}]".to_owned(),
    );
    let machines: Vec<String> = (0..4)
        .map(|k| format!("[Key = {k}; Ports = {{[Label = Job; Constraint = true]}}]"))
        .collect();
    let job = "[Ports = {[Label = Cpu; Constraint = Cpu.Key >= 0], \
               [Label = L1; HostId = Cpu.Key; Constraint = L1.Lic == 1], \
               [Label = L2; HostId = Cpu.Key; Constraint = L2.Lic == 1]}]";
    let ads: Vec<ClassAd> = machines
        .iter()
        .chain(&licenses)
        .chain([&job.to_owned()])
        .map(|t| parse::classad(t).expect("ad"))
        .collect();
    let opts = IndexOptions::default();
    let make = |summarize: bool| {
        let colls = vec![
            ("machines".to_owned(), collection(&machines, "m")),
            ("licenses".to_owned(), collection(&licenses, "l")),
        ];
        let reads = Reads::of(ads.iter(), &[]);
        Pool::with_reads(colls, Some(&opts), reads, summarize, &mut Vec::new()).expect("pool")
    };
    let summarized = make(true);
    let rects = |p: &Pool, c: usize| p.colls[c].index.as_ref().map(|i| i.len());
    assert_eq!(
        (rects(&summarized, 0), rects(&summarized, 1)),
        (Some(4), Some(3))
    );
    assert_eq!(rects(&make(false), 1), Some(14));
    // Every job takes a machine and two licenses, often two members of one group (never one
    // offer twice): one gang per machine.
    for alg in [Algorithm::Dyn, Algorithm::Dyns, Algorithm::Dynsr] {
        let mut pool = make(alg.summarized());
        let mut gangs = 0;
        loop {
            let r = root(job);
            let Some(t) = Searcher::new(&mut pool, alg, opts.eval.clone(), None).find(r) else {
                break;
            };
            assert!(valid(&t, &opts.eval), "{alg}");
            let offers: Vec<(usize, u32)> = t.members.iter().filter_map(|m| m.offer).collect();
            let mut distinct = offers.clone();
            distinct.sort_unstable();
            distinct.dedup();
            assert_eq!(distinct.len(), offers.len(), "{alg}: {offers:?}");
            for o in offers {
                pool.take(o);
            }
            gangs += 1;
        }
        assert_eq!(gangs, 4, "{alg}");
    }
}

#[test]
fn a_requirements_reaching_itself_is_read_as_the_environment_reads_it() {
    // The gang environment reaches a member's Requirements through a reference (Figure 32,
    // as classad2 evaluates it), which holds it in progress: `isUndefined(x)` with
    // `x = Requirements` is true there, where a bilateral match reads it at the top level
    // (false). Every algorithm finds the gang the naive search finds.
    let offers = vec![
        "[Requirements = isUndefined(x); x = Requirements; K = 1]".to_owned(),
        "[Requirements = !isUndefined(x); x = Requirements; K = 2]".to_owned(),
    ];
    let opts = EvalOptions::default();
    for request in [
        "[Requirements = other.K == 1]",
        "[Requirements = other.K == 2]",
        "[Ports = {[Label = m; Requirements = m.K == 1]}]",
        "[Requirements = isUndefined(y) && other.K == 1; y = Requirements]",
    ] {
        let mut found = Vec::new();
        for alg in Algorithm::ALL {
            let colls = vec![("o".to_owned(), collection(&offers, "o"))];
            let io = IndexOptions::default();
            let mut pool = Pool::with_reads(
                colls,
                alg.indexed().then_some(&io),
                Reads::everything(),
                alg.summarized(),
                &mut Vec::new(),
            )
            .expect("pool");
            let r = root(request);
            let exists = oracle::exists(&pool, Arc::clone(&r), &opts);
            let got = Searcher::new(&mut pool, alg, opts.clone(), None).find(r);
            assert_eq!(got.is_some(), exists, "{alg} {request}");
            found.push(exists);
        }
        assert!(found.iter().all(|&f| f == found[0]), "{request}");
    }
}
