//! Gangs in an analysis: for a request with `Ports`, per port the offers that could dock there
//! alone, and the first port that cannot be filled together with the ports before it. Both
//! are answered by the gang module itself: a docking is judged by its Figure-32 check
//! ([`Tree::edge_holds`]), a prefix of ports is filled by its search ([`Searcher::find`],
//! the default algorithm).

use super::{AnalyzeError, AnalyzeOptions, Pool};
use crate::collection::Collection;
use crate::gang::env::{Check, Tree};
use crate::gang::pool::Pool as GangPool;
use crate::gang::ports::{ports_key, GangAd};
use crate::gang::search::Searcher;
use crate::gang::Algorithm;
use adjoin_index::IndexOptions;
use adjoin_query::ast::BinOp;
use adjoin_query::{ClassAd, Expr, Name, Value};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The gang side of an analysis (flattened into [`super::Analysis`]'s JSON).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortsAnalysis {
    /// Per port of the request, in order.
    pub ports: Vec<PortCount>,
    /// The first port that cannot be filled together with the ports before it (`None`: a
    /// whole gang exists).
    pub first_unfillable: Option<usize>,
}

/// One port of the request and the offers that could dock there alone.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PortCount {
    /// The port's position in `Ports`.
    pub port: usize,
    /// Its label.
    pub label: String,
    /// Available offers that could dock at it (through any of their ports) with nothing else
    /// docked: both constraints true, or depending only on ports not docked yet.
    pub candidates: u64,
}

/// Whether `request` has a `Ports` attribute (a gang request).
pub(crate) fn has_ports(request: &ClassAd) -> bool {
    request.get_key(ports_key()).is_some()
}

/// The gang side of analysing `request` (named `id`) against `pool`; `None` for a request
/// without `Ports`. Offers with bad ports take no part, as in a gang cycle.
pub(crate) fn ports_analysis(
    id: &str,
    request: &ClassAd,
    pool: &Pool,
    opts: &AnalyzeOptions,
) -> Result<Option<PortsAnalysis>, AnalyzeError> {
    if !has_ports(request) {
        return Ok(None);
    }
    let _span = tracing::debug_span!("analyze_ports", offers = pool.len()).entered();
    let root = GangAd::new(Arc::new(request.clone())).map_err(|e| AnalyzeError::Ports {
        id: id.to_owned(),
        error: e,
    })?;
    let index = IndexOptions {
        eval: opts.eval.clone(),
        ..IndexOptions::default()
    };
    let mut gangs = gang_pool(pool, Some(&index))?;
    let root = Arc::new(root);
    let ports: Vec<PortCount> = root
        .ports
        .iter()
        .enumerate()
        .map(|(p, port)| PortCount {
            port: p,
            label: port.label.as_str().to_owned(),
            candidates: candidates(&root, p, &gangs, opts),
        })
        .collect();
    let mut first_unfillable = None;
    let mut search = Searcher::new(&mut gangs, Algorithm::default(), opts.eval.clone(), None);
    for (k, count) in ports.iter().enumerate() {
        // No offer docks there alone: no gang fills it (a `No` is final).
        if count.candidates == 0 || search.find(prefix(&root, k + 1)).is_none() {
            first_unfillable = Some(k);
            break;
        }
    }
    Ok(Some(PortsAnalysis {
        ports,
        first_unfillable,
    }))
}

/// `pool` as the offers of a gang search (indexed with `index`); offers with bad ports take
/// no part.
fn gang_pool(pool: &Pool, index: Option<&IndexOptions>) -> Result<GangPool, AnalyzeError> {
    let coll = Collection {
        ids: pool.ids.clone(),
        ads: pool.ads.clone(),
        damaged: Vec::new(),
    };
    Ok(GangPool::new(
        vec![(String::new(), coll)],
        index,
        &mut Vec::new(),
    )?)
}

/// The offers of `pool` that could dock at port `p` of `root` with nothing else docked.
fn candidates(root: &Arc<GangAd>, p: usize, pool: &GangPool, opts: &AnalyzeOptions) -> u64 {
    let (root, conjuncts) = with_conjuncts(root, p);
    let mut tree = Tree::root(root);
    let mut last = None;
    let mut n = 0;
    for c in pool.all() {
        if last == Some(c.offer()) {
            continue;
        }
        let Some(gad) = pool.free(c.offer()) else {
            continue;
        };
        let child = tree.dock((0, p), Arc::clone(gad), c.offer(), c.port);
        let env = tree.environment();
        let possible = match tree.edge_holds(&env, child, &opts.eval) {
            Check::No => false,
            Check::Yes => true,
            // The port's constraint waits on a port not docked: still impossible when one of
            // its conjuncts is already decided, and not true.
            Check::Maybe => !conjuncts.iter().any(|&name| {
                let (v, touched) = tree.eval_port_attr(&env, 0, p, name, &opts.eval);
                !touched && !truthy(&v)
            }),
        };
        if possible {
            n += 1;
            last = Some(c.offer());
        }
        tree.undock();
    }
    n
}

/// Whether `&&` takes `v` as true (non-zero numbers count; NaN too, to stay on the safe side).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

/// `root` with the top-level conjuncts of port `p`'s constraint added to its record as
/// attributes of their own (names no ad can write), so that each is evaluated in the record's
/// scope; and those names (none when the constraint is not a conjunction).
fn with_conjuncts(root: &Arc<GangAd>, p: usize) -> (Arc<GangAd>, Vec<Name>) {
    let unchanged = (Arc::clone(root), Vec::new());
    let (Some(port), Some(record)) = (root.ports.get(p), root.record(p)) else {
        return unchanged;
    };
    let Some(c) = port.constraint.and_then(|k| record.get_key(k)) else {
        return unchanged;
    };
    let Some(terms) = c.unparen().operands_of(BinOp::And) else {
        return unchanged;
    };
    let terms: Vec<Expr> = terms.cloned().collect();
    let Some(Expr::List(items)) = root.ad.get_key(ports_key()).map(Expr::unparen) else {
        return unchanged;
    };
    let mut rec = record.clone();
    let names: Vec<Name> = (0..terms.len())
        .map(|i| Name::new(&format!("adjoin conjunct {i}")))
        .collect();
    for (n, t) in names.iter().zip(terms) {
        rec.insert(*n, t);
    }
    let mut items = items.clone();
    if let Some(slot) = items.get_mut(p) {
        *slot = Expr::Ad(Arc::new(rec));
    }
    let mut ad = (*root.ad).clone();
    let ports = ad
        .entry(ports_key())
        .map_or_else(|| Name::new("Ports"), |(n, _)| n);
    ad.insert(ports, Expr::List(items));
    match GangAd::new(Arc::new(ad)) {
        Ok(g) => (Arc::new(g), names),
        Err(_) => unchanged,
    }
}

/// `root` with its first `n` ports only: the gang of a prefix. A later port's label is then
/// unbound (its partner reads as undefined, not as pending).
fn prefix(root: &Arc<GangAd>, n: usize) -> Arc<GangAd> {
    Arc::new(GangAd {
        ad: Arc::clone(&root.ad),
        ports: root.ports.iter().take(n).cloned().collect(),
        implicit: root.implicit,
        plain_window: Default::default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gang::oracle;
    use adjoin_query::parse;

    fn pool(ads: &[&str]) -> Pool {
        Pool::numbered(
            ads.iter()
                .map(|t| Arc::new(parse::classad(t).expect("ad")))
                .collect(),
        )
    }

    const MACHINE: &str = r#"[Key = 143; Arch = "INTEL"; OpSys = "LINUX"; Memory = 64M;
        VirtualMemory = 83.235176M; Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory - 15M]}]"#;
    const WINNT: &str = r#"[Key = 144; Arch = "INTEL"; OpSys = "WINNT40"; Memory = 64M;
        VirtualMemory = 83.235176M; Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory - 15M]}]"#;
    const FAR: &str = r#"[Key = 5000; Arch = "INTEL"; OpSys = "LINUX"; Memory = 64M;
        VirtualMemory = 83.235176M; Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory - 15M]}]"#;
    const LICENSE: &str = r#"[Type = "License"; App = "sim_app";
        Ports = {[Label = Site; Constraint = Site.HostID >= 0 && Site.HostId < 1000]}]"#;
    const OTHER_APP: &str = r#"[Type = "License"; App = "other_app";
        Ports = {[Label = Site; Constraint = true]}]"#;
    /// Figure 30's job, with a third port wanting a second license.
    const JOB: &str = r#"[Ports = {
        [Label = Cpu; ImageSize = 13461450.030324; MemoryReqs = 2860414.100368;
         Constraint = Cpu.Arch == "INTEL" && Cpu.OpSys == "LINUX" && Cpu.VirtualMemory > ImageSize],
        [Label = License; HostId = Cpu.Key; Constraint = License.App == "sim_app"],
        [Label = Second; HostId = Cpu.Key; Constraint = Second.App == "sim_app"]}]"#;

    /// The gang module's exhaustive search over `pool` for each prefix of `request`'s ports.
    fn oracle_first(request: &str, pool: &Pool) -> Option<usize> {
        let root =
            Arc::new(GangAd::new(Arc::new(parse::classad(request).expect("job"))).expect("ports"));
        let gangs = gang_pool(pool, None).expect("pool");
        let opts = AnalyzeOptions::default();
        (0..root.ports.len()).find(|&k| !oracle::exists(&gangs, prefix(&root, k + 1), &opts.eval))
    }

    #[test]
    fn per_port_candidates_and_first_unfillable() {
        // (offers, candidates per port, first unfillable)
        let cases: &[(&[&str], [u64; 3], Option<usize>)] = &[
            // Machines: one Linux, one Windows, one whose Key no license admits.
            (
                &[MACHINE, WINNT, FAR, LICENSE, OTHER_APP],
                [2, 1, 1],
                Some(2),
            ),
            (&[MACHINE, LICENSE, LICENSE], [1, 2, 2], None),
            // The only Linux machine's Key is beyond what the licenses admit.
            (&[FAR, LICENSE, LICENSE], [1, 2, 2], Some(1)),
            (&[WINNT, LICENSE, LICENSE], [0, 2, 2], Some(0)),
            (&[MACHINE, OTHER_APP], [1, 0, 0], Some(1)),
            (&[], [0, 0, 0], Some(0)),
        ];
        let request = parse::classad(JOB).expect("job");
        for (i, (ads, counts, first)) in cases.iter().enumerate() {
            let p = pool(ads);
            let a = ports_analysis("job", &request, &p, &AnalyzeOptions::default())
                .expect("analysis")
                .expect("ports");
            let got: Vec<u64> = a.ports.iter().map(|x| x.candidates).collect();
            assert_eq!(got, counts, "case {i}");
            let labels: Vec<&str> = a.ports.iter().map(|x| x.label.as_str()).collect();
            assert_eq!(labels, ["Cpu", "License", "Second"], "case {i}");
            assert_eq!(a.first_unfillable, *first, "case {i}");
            assert_eq!(
                a.first_unfillable,
                oracle_first(JOB, &p),
                "case {i}: oracle"
            );
        }
    }

    /// A port whose constraint waits on an undocked port counts no offer when another of its
    /// conjuncts is already false for every offer (the candidates for that port alone).
    #[test]
    fn a_decided_conjunct_outweighs_an_undocked_port() {
        let offers = pool(&[
            r#"[Name = "m"; Arch = "INTEL"; Requirements = true]"#,
            r#"[Host = "m"; Product = "matlab"; Requirements = true]"#,
        ]);
        for (lic, want) in [
            (r#"lic.Host == cpu.Name && lic.Product == "nope""#, 0),
            (r#"lic.Host == cpu.Name && lic.Product == "matlab""#, 1),
            (r#"lic.Host == cpu.Name || lic.Product == "nope""#, 2),
        ] {
            let job = format!(
                r#"[Ports = {{[Label = cpu; Requirements = cpu.Arch == "INTEL"],
                    [Label = lic; Requirements = {lic}]}}]"#
            );
            let request = parse::classad(&job).expect("job");
            let a = ports_analysis("job", &request, &offers, &AnalyzeOptions::default())
                .expect("analysis")
                .expect("ports");
            assert_eq!(a.ports[1].candidates, want, "{lic}");
        }
    }

    #[test]
    fn no_ports_no_gang_side_and_bad_ports_refused() {
        let p = pool(&[MACHINE]);
        let opts = AnalyzeOptions::default();
        let plain = parse::classad("[Requirements = true]").expect("ad");
        assert!(ports_analysis("j", &plain, &p, &opts)
            .expect("ok")
            .is_none());
        let bad = parse::classad("[Ports = {[Label = a], [Label = A]}]").expect("ad");
        let e = ports_analysis("j", &bad, &p, &opts).expect_err("duplicate labels");
        assert!(e.to_string().starts_with("j: "), "{e}");
    }

    #[test]
    fn whole_analysis_json_has_the_gang_side_only_for_ports() {
        let opts = AnalyzeOptions::default();
        let p = pool(&[MACHINE, LICENSE, OTHER_APP]);
        // Figure 30's job has no Requirements of its own: no conditions, the ports analysed.
        let job = parse::classad(JOB).expect("job");
        let a = super::super::analyze("job", &job, &p, &opts).expect("analysis");
        assert!(a.conditions.is_empty());
        let json = serde_json::to_value(&a).expect("json");
        assert_eq!(
            json["ports"],
            serde_json::json!([
                {"port": 0, "label": "Cpu", "candidates": 1},
                {"port": 1, "label": "License", "candidates": 1},
                {"port": 2, "label": "Second", "candidates": 1}
            ])
        );
        assert_eq!(json["first_unfillable"], serde_json::json!(2));
        let back: super::super::Analysis = serde_json::from_value(json).expect("parse back");
        assert_eq!(back, a);
        let plain = parse::classad(r#"[Requirements = TARGET.Arch == "INTEL"]"#).expect("ad");
        let a = super::super::analyze("plain", &plain, &p, &opts).expect("analysis");
        assert_eq!(a.gang, None);
        let json = serde_json::to_value(&a).expect("json");
        assert!(json.get("ports").is_none() && json.get("first_unfillable").is_none());
        let back: super::super::Analysis = serde_json::from_value(json).expect("parse back");
        assert_eq!(back, a);
    }

    /// A random offer of one port: a machine (key, Linux or not, memory) or a license (app,
    /// the host ids it admits).
    fn offer() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        prop_oneof![
            (0..6i64, any::<bool>(), 1..4i64).prop_map(|(k, linux, m)| format!(
                r#"[Key = {k}; OpSys = "{}"; Memory = {m};
                    Ports = {{[Label = Job; Constraint = Job.Mem <= Memory]}}]"#,
                if linux { "LINUX" } else { "WINNT" }
            )),
            (0..2usize, 0..6i64, 0..4i64).prop_map(|(a, lo, w)| format!(
                r#"[App = "{}"; Ports = {{[Label = Site; Constraint = Site.HostId >= {lo} && Site.HostId <= {}]}}]"#,
                ["a", "b"][a],
                lo + w
            )),
        ]
    }

    /// A random job: a machine port, then one to three license ports.
    fn job() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        (1..4i64, proptest::collection::vec(0..2usize, 1..4)).prop_map(|(mem, apps)| {
            let mut ports = vec![format!(
                r#"[Label = Cpu; Mem = {mem}; Constraint = Cpu.OpSys == "LINUX" && Cpu.Memory >= Mem]"#
            )];
            for (i, a) in apps.iter().enumerate() {
                ports.push(format!(
                    r#"[Label = L{i}; HostId = Cpu.Key; Constraint = L{i}.App == "{}"]"#,
                    ["a", "b"][*a]
                ));
            }
            format!("[Ports = {{{}}}]", ports.join(", "))
        })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(48))]
        /// `first_unfillable` is the exhaustive search's first failing prefix; the machine
        /// port's candidates are the offers that alone fill it; a port before the first
        /// unfillable one has candidates.
        #[test]
        fn agrees_with_the_exhaustive_search(
            j in job(),
            offers in proptest::collection::vec(offer(), 0..7),
        ) {
            let texts: Vec<&str> = offers.iter().map(String::as_str).collect();
            let p = pool(&texts);
            let opts = AnalyzeOptions::default();
            let request = parse::classad(&j).expect("job");
            let a = ports_analysis("job", &request, &p, &opts).expect("analysis").expect("ports");
            proptest::prop_assert_eq!(a.first_unfillable, oracle_first(&j, &p));
            let root = Arc::new(GangAd::new(Arc::new(request)).expect("ports"));
            let alone = (0..p.len())
                .filter(|&i| {
                    let one = Pool::numbered(vec![Arc::clone(&p.ads[i])]);
                    let g = gang_pool(&one, None).expect("pool");
                    oracle::exists(&g, prefix(&root, 1), &opts.eval)
                })
                .count() as u64;
            proptest::prop_assert_eq!(a.ports[0].candidates, alone);
            let first = a.first_unfillable.unwrap_or(a.ports.len());
            for c in &a.ports {
                proptest::prop_assert!(c.port >= first || c.candidates > 0);
            }
        }
    }
}
