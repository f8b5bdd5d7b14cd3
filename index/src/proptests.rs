//! Property tests of the whole index against brute force: random semi-structured ad sets
//! (absent and deviant attributes, several types under one name, `!=`, string case, booleans
//! against numbers, undefined/error/list values, ports, the TARGET fallback on and off) go
//! through all three directions; the raw answer must contain every brute-force match, the
//! exact part must hold matches only, and the confirmed answer must equal brute force. Brute
//! force is plain evaluation of every pair (`symmetric_match`, the stored requirements with
//! the probe as TARGET, the constraint with the stored ad as MY). Then ads are removed and
//! replaced, and everything is checked again.

use crate::answer::Hit;
use crate::bits::Bits;
use crate::index::{AdId, Index, IndexOptions};
use crate::ports::{units_for, units_in, PortScopes};
use crate::query::StepCache;
use crate::window::{accepts, satisfies, Query};
use adjoin_query::ast::BinOp;
use adjoin_query::eval::{eval_in_match, requirements_key, symmetric_match, EvalOptions, MatchAds};
use adjoin_query::{parse, ClassAd, Expr, Value};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::collections::BTreeSet;
use std::sync::Arc;

const NAMES: [&str; 4] = ["a", "b", "c", "d"];

fn constant() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "0",
        "1",
        "-2",
        "3",
        "2.0",
        "-0.0",
        "0.5",
        "true",
        "false",
        "\"x\"",
        "\"X\"",
        "\"y\"",
        "\"\"",
        "undefined",
        "relTime(60)",
        "absTime(\"2020-01-01T00:00:00Z\")",
    ])
}

fn value() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => constant().prop_map(str::to_owned),
        1 => Just("real(\"NaN\")".to_owned()),
        1 => Just("error".to_owned()),
        1 => Just("{1, 2}".to_owned()),
        1 => prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("{{T}}.{n} + 1")),
        1 => prop::sample::select(NAMES.to_vec()).prop_map(|n| format!("MY.{n} * 2")),
        1 => Just("ifThenElse({T}.b > 0, 1, \"x\")".to_owned()),
    ]
}

fn rel() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec!["<", "<=", "==", "!=", ">=", ">"])
}

fn name() -> impl Strategy<Value = &'static str> {
    prop::sample::select(NAMES.to_vec())
}

/// A leaf of a constraint; `{T}` stands for the scope of the other side (`TARGET`, `other`,
/// a port label, or nothing for one-sided constraints).
fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => (name(), rel(), constant()).prop_map(|(n, r, c)| format!("{{T}}.{n} {r} {c}")),
        3 => (constant(), rel(), name()).prop_map(|(c, r, n)| format!("{c} {r} {{T}}.{n}")),
        2 => name().prop_map(|n| format!("{{T}}.{n}")),
        2 => (name(), rel(), constant()).prop_map(|(n, r, c)| format!("{n} {r} {c}")),
        1 => (name(), constant()).prop_map(|(n, c)| format!("{{T}}.{n} =?= {c}")),
        1 => name().prop_map(|n| format!("{{T}}.{n} =!= undefined")),
        1 => (name(), name()).prop_map(|(n, m)| format!("{{T}}.{n} == {{T}}.{m}")),
        1 => name().prop_map(|n| format!("strcmp({{T}}.{n}, \"x\") == 0")),
        1 => (name(), rel(), name()).prop_map(|(n, r, m)| format!("MY.{n} {r} {{T}}.{m}")),
        1 => prop::sample::select(vec!["true", "false", "undefined"]).prop_map(str::to_owned),
    ]
}

fn constraint() -> impl Strategy<Value = String> {
    leaf().prop_recursive(3, 12, 3, |inner| {
        prop_oneof![
            3 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} && {b})")),
            2 => (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} || {b})")),
            2 => inner.clone().prop_map(|a| format!("!({a})")),
            1 => (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(a, b, c)| format!("({a} ? {b} : {c})")),
            1 => (inner.clone(), inner).prop_map(|(a, b)| format!("(({a}) ?: ({b}))")),
        ]
    })
}

/// Attribute bindings: each name absent or bound to a value.
fn attrs() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::option::weighted(0.7, value()), NAMES.len()).prop_map(|vals| {
        NAMES
            .iter()
            .zip(vals)
            .filter_map(|(n, v)| v.map(|v| format!("{n} = {}; ", scoped(&v, "TARGET"))))
            .collect()
    })
}

fn scoped(text: &str, scope: &str) -> String {
    text.replace("{T}", scope)
}

/// An ad's text: attributes and requirements, or ports each with their own.
fn ad() -> impl Strategy<Value = String> {
    let plain = (
        attrs(),
        prop::option::weighted(0.95, constraint()),
        prop::sample::select(vec!["TARGET", "other"]),
    )
        .prop_map(|(a, c, scope)| match c {
            Some(c) => format!("[{a}Requirements = {};]", scoped(&c, scope)),
            None => format!("[{a}]"),
        });
    let ported = (attrs(), (attrs(), constraint()), (attrs(), constraint())).prop_map(|(outer, (a1, c1), (a2, c2))| {
        format!(
            "[{outer}Ports = {{ [Label = P; {a1}Requirements = {}], [Label = Q; {a2}Requirements = {}] }}]",
            scoped(&c1, "P"),
            scoped(&c2, "Q"),
        )
    });
    prop_oneof![6 => plain, 1 => ported]
}

fn parsed(text: &str) -> Arc<ClassAd> {
    match parse::classad(text) {
        Ok(ad) => Arc::new(ad),
        Err(e) => panic!("generated ad does not parse: {e:?}\n{text}"),
    }
}

/// The stored units matching `q` by brute force.
fn brute(
    ads: &[(AdId, Arc<ClassAd>)],
    q: &Query,
    probe: Option<&ClassAd>,
    c: Option<&Expr>,
    opts: &EvalOptions,
) -> BTreeSet<Hit> {
    let mut out = BTreeSet::new();
    for (id, ad) in ads {
        for u in units_in(ad, PortScopes::Pairwise, opts.target_fallback) {
            let ok = match (q.direction(), probe, c) {
                (crate::Direction::TwoSided, Some(p), _) => symmetric_match(&u.ad, p, opts),
                (crate::Direction::Reverse, Some(p), _) => accepts(&u.ad, p, opts),
                (crate::Direction::OneSided, _, Some(c)) => satisfies(&u.ad, c, opts),
                _ => false,
            };
            if ok {
                out.insert(Hit {
                    ad: *id,
                    port: u.port,
                });
            }
        }
    }
    out
}

/// Runs `q` and checks raw ⊇ brute, exact ⊆ brute, confirmed == brute.
fn check_query(
    idx: &mut Index,
    ads: &[(AdId, Arc<ClassAd>)],
    q: &Query,
    probe: Option<&ClassAd>,
    c: Option<&Expr>,
    what: &str,
    cache: &mut StepCache,
) -> Result<(), TestCaseError> {
    let opts = idx.options().eval.clone();
    let want = brute(ads, q, probe, c, &opts);
    // New imported axes leave the sets of steps on other axes as they were.
    idx.prepare(q);
    let mut a = idx.candidates(q);
    // Through the cache of steps (shared by every query of this index): the same answer, the
    // first time and again.
    for _ in 0..2 {
        let b = idx.candidates_cached(q, &crate::Bits::new(), cache);
        prop_assert!(
            b.rids == a.rids
                && b.exact == a.exact
                && b.stored_decided == a.stored_decided
                && b.probe_decided == a.probe_decided,
            "{}: cached window differs",
            what
        );
    }
    // Uncounted, its units counted as it is split by ad: as many as the window counts.
    let mut u = idx.candidates_uncounted(q, &crate::Bits::new(), Some(cache));
    idx.split_ads_counted(&mut u);
    prop_assert_eq!(
        u.explain.candidates,
        a.explain.candidates,
        "{}: units split out",
        what
    );
    prop_assert_eq!(
        idx.several,
        idx.ads.values().filter(|us| us.len() > 1).count(),
        "{}: ads of several units",
        what
    );
    let hits_of = |rids: &crate::Bits| -> BTreeSet<Hit> {
        rids.iter()
            .filter_map(|r| idx.owner(r))
            .map(|(ad, port)| Hit { ad, port })
            .collect()
    };
    // The units among RIDs, counted without a map of them: as many as a map finds, for the
    // answer and for parts of it (units whose first RID is missing).
    for part in [0, 2, 3] {
        let rids = match part {
            0 => a.rids.clone(),
            n => crate::Bits::from_rids(a.rids.iter().filter(|r| r % n != 0)),
        };
        let units: BTreeSet<u32> = rids
            .iter()
            .filter_map(|r| idx.rids.owner(r).map(|o| o.unit))
            .collect();
        prop_assert_eq!(
            idx.count_units(&rids),
            units.len() as u64,
            "{}: units",
            what
        );
    }
    let raw = hits_of(&a.rids);
    let exact = hits_of(&a.exact);
    prop_assert!(
        raw.is_superset(&want),
        "{what}: missed {:?}",
        want.difference(&raw).collect::<Vec<_>>()
    );
    prop_assert!(
        exact.is_subset(&want),
        "{what}: wrongly exact {:?}",
        exact.difference(&want).collect::<Vec<_>>()
    );
    let got: BTreeSet<Hit> = idx.confirm(q, &mut a).into_iter().collect();
    prop_assert_eq!(&got, &want, "{}: confirmed", what);
    prop_assert_eq!(a.explain.confirmed as usize, want.len());
    // With every other ad's rectangles excepted: the matches of the rest, exactly.
    let excepted: BTreeSet<AdId> = ads.iter().step_by(2).map(|(id, _)| *id).collect();
    let except = crate::Bits::from_rids(excepted.iter().flat_map(|&id| idx.rids_of(id)));
    let mut a = idx.candidates_except(q, &except);
    let got: BTreeSet<Hit> = idx.confirm(q, &mut a).into_iter().collect();
    let rest: BTreeSet<Hit> = want
        .iter()
        .filter(|h| !excepted.contains(&h.ad))
        .copied()
        .collect();
    prop_assert_eq!(&got, &rest, "{}: confirmed, every other ad excepted", what);
    Ok(())
}

/// The operands of `e`'s top-level `||`, parentheses looked through.
fn disjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    let e = e.unparen();
    match e.operands_of(BinOp::Or) {
        Some(terms) => terms.for_each(|t| disjuncts(t, out)),
        None => out.push(e),
    }
}

/// Each disjunct of the probe's constraint as a window of its own ([`Query::narrowed`]): its
/// raw answer holds every unit accepting the probe for which the disjunct counts as true; the
/// ads of its RIDs ([`Index::ads_of`]) are the ads of its hits.
fn check_narrowed(
    idx: &mut Index,
    ads: &[(AdId, Arc<ClassAd>)],
    q: &Query,
    probe: &Arc<ClassAd>,
    what: &str,
) -> Result<(), TestCaseError> {
    let opts = idx.options().clone();
    let Some(e) = requirements_key(probe).and_then(|k| probe.get_key(k)) else {
        return Ok(());
    };
    let mut ds = Vec::new();
    disjuncts(e, &mut ds);
    for &d in &ds {
        let Some(n) = q.narrowed(d, &opts) else {
            return Err(TestCaseError::fail(format!("{what}: not narrowed")));
        };
        let mut want = BTreeSet::new();
        for (id, ad) in ads {
            for u in units_for(ad, &opts) {
                let my = MatchAds {
                    my: probe,
                    target: &u.ad,
                };
                let holds = match eval_in_match(d, my, &opts.eval) {
                    Value::Bool(b) => b,
                    Value::Int(i) => i != 0,
                    Value::Real(r) => r != 0.0,
                    _ => false,
                };
                if holds && accepts(&u.ad, probe, &opts.eval) {
                    want.insert(Hit {
                        ad: *id,
                        port: u.port,
                    });
                }
            }
        }
        idx.prepare(&n);
        let a = idx.candidates(&n);
        let raw: BTreeSet<Hit> = a
            .rids
            .iter()
            .filter_map(|r| idx.owner(r))
            .map(|(ad, port)| Hit { ad, port })
            .collect();
        prop_assert!(
            raw.is_superset(&want),
            "{what}, disjunct {d}: missed {:?}",
            want.difference(&raw).collect::<Vec<_>>()
        );
        let ads_of: BTreeSet<AdId> = idx.ads_of(&a.rids).iter().collect();
        let of_hits: BTreeSet<AdId> = raw.iter().map(|h| h.ad).collect();
        prop_assert_eq!(ads_of, of_hits, "{}, disjunct {}: ads", what, d);
    }
    // Each disjunct's window run from what the probe's own steps kept in the whole window (of
    // several rectangles) answers as searched whole.
    let none = Bits::new();
    let (_, base) = idx.candidates_base_uncounted(q, &none, None);
    let Some(base) = base else {
        prop_assert!(q.rects.len() < 2, "{what}: no base");
        return Ok(());
    };
    for d in ds {
        let Some(n) = q.narrowed(d, &opts) else {
            continue;
        };
        let whole = idx.candidates_uncounted(&n, &none, None);
        let Some(from) = idx.narrowed_uncounted(&n, &base, None) else {
            return Err(TestCaseError::fail(format!("{what}: another probe")));
        };
        prop_assert_eq!(&from.rids, &whole.rids, "{}, disjunct {}: rids", what, d);
        prop_assert_eq!(&from.exact, &whole.exact, "{}, disjunct {}: exact", what, d);
        prop_assert_eq!(
            &from.stored_decided,
            &whole.stored_decided,
            "{}: stored",
            what
        );
        prop_assert_eq!(&from.probe_decided, &whole.probe_decided, "{}: probe", what);
        prop_assert!(
            from.explain.probes <= whole.explain.probes,
            "{}: more probes",
            what
        );
    }
    // Not another probe's.
    let other = Query::two_sided(&Arc::new((**probe).clone()), &opts);
    if let Some(o) = other.first() {
        prop_assert!(
            idx.narrowed_uncounted(o, &base, None).is_none(),
            "{what}: fits another"
        );
    }
    Ok(())
}

fn check_all(
    idx: &mut Index,
    ads: &[(AdId, Arc<ClassAd>)],
    probes: &[String],
    queries: &[String],
) -> Result<(), TestCaseError> {
    idx.check();
    let cache = &mut StepCache::default();
    for p in probes {
        let probe = parsed(p);
        let opts = idx.options().clone();
        let windows = [
            ("two-sided", Query::two_sided(&probe, &opts)),
            ("reverse", Query::reverse(&probe, &opts)),
        ];
        for (direction, qs) in windows {
            for q in qs {
                let unit = units_for(&probe, &opts)[q.port().map_or(0, usize::from)]
                    .ad
                    .clone();
                let what = format!("{direction} {p}");
                check_query(idx, ads, &q, Some(&unit), None, &what, cache)?;
                if q.direction() == crate::Direction::TwoSided {
                    check_narrowed(idx, ads, &q, &unit, &what)?;
                }
            }
        }
    }
    for text in queries {
        let c = match parse::expr(text) {
            Ok(c) => c,
            Err(e) => return Err(TestCaseError::fail(format!("{text}: {e:?}"))),
        };
        let q = Query::one_sided(&c, idx.options());
        check_query(
            idx,
            ads,
            &q,
            None,
            Some(&c),
            &format!("one-sided {text}"),
            cache,
        )?;
    }
    idx.check();
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 1000,
        rng_seed: RngSeed::Fixed(0x1dec5),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn index_agrees_with_brute_force(
        stored in prop::collection::vec(ad(), 1..12),
        probes in prop::collection::vec(ad(), 1..4),
        queries in prop::collection::vec(constraint(), 1..4),
        replacement in ad(),
        fallback in any::<bool>(),
        bulk in any::<bool>(),
        filter in any::<bool>(),
        victim in any::<usize>(),
    ) {
        let opts = IndexOptions {
            eval: EvalOptions { target_fallback: fallback, now: Some(1_600_000_000), ..EvalOptions::default() },
            filter_max: if filter { 48 } else { 0 },
            ..IndexOptions::default()
        };
        let mut idx = Index::new(opts);
        let mut ads: Vec<(AdId, Arc<ClassAd>)> = stored
            .iter()
            .enumerate()
            .map(|(i, t)| (i as AdId * 3 + 1, parsed(t)))
            .collect();
        if bulk {
            idx.extend(ads.iter().cloned()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        } else {
            for (id, ad) in &ads {
                idx.insert(*id, ad.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
            }
        }
        let queries: Vec<String> = queries
            .iter()
            .enumerate()
            .map(|(i, q)| scoped(q, if i % 2 == 0 { "MY" } else { "" }))
            .collect();
        check_all(&mut idx, &ads, &probes, &queries)?;
        // Remove one ad and replace another; everything must still agree.
        let gone = ads.remove(victim % ads.len()).0;
        prop_assert!(idx.remove(gone));
        prop_assert!(!idx.remove(gone));
        if let Some(first) = ads.first_mut() {
            first.1 = parsed(&replacement);
            idx.insert(first.0, first.1.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        check_all(&mut idx, &ads, &probes, &queries)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 10,
        rng_seed: RngSeed::Fixed(0x5ca1e),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Hundreds of ads: the axes grow checkpoints and dense key sets, and removals run
    /// through them.
    #[test]
    fn large_sets_agree_with_brute_force(
        stored in prop::collection::vec(ad(), 150..260),
        probes in prop::collection::vec(ad(), 1..3),
        queries in prop::collection::vec(constraint(), 1..3),
        fallback in any::<bool>(),
        victims in prop::collection::vec(any::<usize>(), 1..40),
    ) {
        let opts = IndexOptions {
            eval: EvalOptions { target_fallback: fallback, now: Some(1_600_000_000), ..EvalOptions::default() },
            filter_max: 4,
            ..IndexOptions::default()
        };
        let mut idx = Index::new(opts);
        let mut ads: Vec<(AdId, Arc<ClassAd>)> = stored
            .iter()
            .enumerate()
            .map(|(i, t)| (i as AdId, parsed(t)))
            .collect();
        idx.extend(ads.iter().cloned()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let queries: Vec<String> = queries.iter().map(|q| scoped(q, "")).collect();
        check_all(&mut idx, &ads, &probes, &queries)?;
        for v in victims {
            if ads.is_empty() {
                break;
            }
            let gone = ads.remove(v % ads.len()).0;
            prop_assert!(idx.remove(gone));
        }
        check_all(&mut idx, &ads, &probes, &queries)?;
    }
}

/// Ads by id behind a lock, as a database gives a restored index its ads back.
#[derive(Debug, Default)]
struct MapSource(std::sync::RwLock<std::collections::BTreeMap<AdId, Arc<ClassAd>>>);

impl MapSource {
    fn set(&self, ads: &[(AdId, Arc<ClassAd>)]) {
        if let Ok(mut m) = self.0.write() {
            *m = ads.iter().cloned().collect();
        }
    }
}

impl crate::AdSource for MapSource {
    fn fetch(&self, ids: &[AdId]) -> Vec<Option<Arc<ClassAd>>> {
        let m = self.0.read().expect("lock");
        ids.iter().map(|i| m.get(i).cloned()).collect()
    }

    fn for_each(&self, f: &mut dyn FnMut(AdId, Arc<ClassAd>)) {
        let m = self.0.read().expect("lock").clone();
        for (i, ad) in m {
            f(i, ad);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 200,
        rng_seed: RngSeed::Fixed(0x5a7ed),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// An index restored from its snapshot (through bytes, as a checkpoint holds it) holds
    /// what the original holds and answers every query as brute force does, also after
    /// writes replayed on top of it (removals, replacements, new ads, a new imported axis).
    #[test]
    fn a_restored_index_equals_the_built_one(
        stored in prop::collection::vec(ad(), 1..40),
        probes in prop::collection::vec(ad(), 1..3),
        queries in prop::collection::vec(constraint(), 1..3),
        later in prop::collection::vec(constraint(), 1..2),
        removed in prop::collection::vec(any::<usize>(), 0..6),
        replacement in ad(),
        added in prop::collection::vec(ad(), 0..4),
        fallback in any::<bool>(),
    ) {
        let opts = IndexOptions {
            eval: EvalOptions { target_fallback: fallback, now: Some(1_600_000_000), ..EvalOptions::default() },
            filter_max: 4,
            ..IndexOptions::default()
        };
        let source = Arc::new(MapSource::default());
        let mut ads: Vec<(AdId, Arc<ClassAd>)> = stored
            .iter()
            .enumerate()
            .map(|(i, t)| (i as AdId * 2 + 1, parsed(t)))
            .collect();
        source.set(&ads);
        let mut built = Index::with_source(opts.clone(), source.clone());
        built.extend(ads.iter().cloned()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        // Some ads gone before the snapshot (holes in the RIDs), some axes imported.
        for v in &removed {
            if ads.len() > 1 {
                let gone = ads.remove(v % ads.len()).0;
                prop_assert!(built.remove(gone));
            }
        }
        source.set(&ads);
        let queries: Vec<String> = queries.iter().map(|q| scoped(q, "")).collect();
        check_all(&mut built, &ads, &probes, &queries)?;
        let snap = built.snapshot();
        let bytes = bincode::serialize(&snap).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let back: crate::IndexSnapshot =
            bincode::deserialize(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let mut restored = Index::restore(opts, source.clone(), back)
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (a, b) = (built.stats(), restored.stats());
        prop_assert_eq!((a.ads, a.units, a.rectangles), (b.ads, b.units, b.rectangles));
        prop_assert_eq!(built.exported_attrs(), restored.exported_attrs());
        prop_assert_eq!(built.imported_attrs(), restored.imported_attrs());
        prop_assert_eq!(restored.snapshot(), snap);
        check_all(&mut restored, &ads, &probes, &queries)?;
        // Writes replayed on top: a replacement, new ads, then a query on new attributes.
        if let Some(first) = ads.first_mut() {
            first.1 = parsed(&replacement);
            restored.insert(first.0, first.1.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        for (i, t) in added.iter().enumerate() {
            let id = 1000 + i as AdId;
            ads.push((id, parsed(t)));
            restored.insert(id, parsed(t)).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        if ads.len() > 1 {
            let gone = ads.remove(ads.len() / 2).0;
            prop_assert!(restored.remove(gone));
        }
        source.set(&ads);
        let later: Vec<String> = later.iter().map(|q| scoped(q, "")).collect();
        check_all(&mut restored, &ads, &probes, &[queries, later].concat())?;
    }
}
