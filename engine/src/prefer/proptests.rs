//! Property tests of the preference library against naive oracles written from the nets'
//! definitions: random acyclic nets (up to 8 variables, domains up to 4 with `other`), whose
//! dominance answers must equal an exhaustive search over improving flips, whose optimum must
//! be the best of all outcomes, and whose ranking must be consistent with dominance; and the
//! walk through the index, which must rank exactly as plain evaluation of every candidate.

use super::dominance::Dominance;
use super::net::{Class, Preferences};
use super::rank::rank_all;
use super::walk::{ranked, OfferRanks};
use adjoin_index::{naive_join, AdId, Index, IndexOptions};
use adjoin_query::eval::EvalOptions;
use adjoin_query::{parse, ClassAd, Value};
use proptest::prelude::*;
use std::collections::{HashSet, VecDeque};
use std::sync::Arc;

/// The test kit's seeded generator, `below(n)` drawing from `0..n`.
struct Rng(adjoin_workload::Rng);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0.range(0, n.max(1) as i64) as usize
    }
}

/// A variable as generated: its parents and its rows (parents' values → order of values).
struct Spec {
    parents: Vec<usize>,
    rows: Vec<(Vec<i64>, Vec<i64>)>,
}

impl Spec {
    /// The values its orders list, sorted.
    fn domain(&self) -> Vec<i64> {
        let mut d: Vec<i64> = self.rows.iter().flat_map(|r| r.1.clone()).collect();
        d.sort_unstable();
        d.dedup();
        d
    }
}

/// A spec outcome: each variable's value, `None` for `other`.
type Out = Vec<Option<i64>>;

/// A random acyclic net of up to `max_vars` variables, each listing values among 1..=3.
fn random_net(seed: u64, max_vars: usize) -> Vec<Spec> {
    let mut rng = Rng(adjoin_workload::Rng::new(seed));
    let n = 1 + rng.below(max_vars);
    let mut specs: Vec<Spec> = Vec::new();
    for i in 0..n {
        let mut parents = Vec::new();
        for _ in 0..rng.below(3) {
            let p = rng.below(i.max(1));
            if i > 0 && !parents.contains(&p) {
                parents.push(p);
            }
        }
        let order = |rng: &mut Rng| {
            let mut vals: Vec<i64> = vec![1, 2, 3];
            for k in (1..vals.len()).rev() {
                vals.swap(k, rng.below(k + 1));
            }
            vals.truncate(1 + rng.below(3));
            vals
        };
        let rows = if parents.is_empty() {
            vec![(Vec::new(), order(&mut rng))]
        } else {
            // Every combination of the parents' listed values, each with a row or not.
            let mut combos: Vec<Vec<i64>> = vec![Vec::new()];
            for &p in &parents {
                let d = specs[p].domain();
                combos = combos
                    .into_iter()
                    .flat_map(|c| {
                        d.iter().map(move |&x| {
                            let mut c = c.clone();
                            c.push(x);
                            c
                        })
                    })
                    .collect();
            }
            let mut rows = Vec::new();
            for c in combos {
                if rng.below(4) != 0 {
                    rows.push((c, order(&mut rng)));
                }
            }
            rows
        };
        specs.push(Spec { parents, rows });
    }
    specs
}

/// The net as a `Preferences` list (variable `i` named `v{i}`, reading `TARGET.v{i}`).
fn text(specs: &[Spec]) -> String {
    let list = |xs: &[i64]| xs.iter().map(i64::to_string).collect::<Vec<_>>().join(", ");
    let entries: Vec<String> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| {
            if s.parents.is_empty() {
                let order = s.rows.first().map(|r| list(&r.1)).unwrap_or_default();
                format!("[Name = \"v{i}\"; Value = TARGET.v{i}; Order = {{{order}}}]")
            } else {
                let parents: Vec<String> = s.parents.iter().map(|p| format!("\"v{p}\"")).collect();
                let rows: Vec<String> = s
                    .rows
                    .iter()
                    .map(|(w, o)| format!("[When = {{{}}}; Order = {{{}}}]", list(w), list(o)))
                    .collect();
                format!(
                    "[Name = \"v{i}\"; Value = TARGET.v{i}; Parents = {{{}}}; Table = {{{}}}]",
                    parents.join(", "),
                    rows.join(", ")
                )
            }
        })
        .collect();
    format!("{{{}}}", entries.join(",\n"))
}

fn parse_net(specs: &[Spec], extra: &str) -> (Arc<ClassAd>, Preferences) {
    let ad = parse::classad(&format!("[{extra}Preferences = {}]", text(specs))).expect("ad");
    let p = Preferences::from_ad(&ad, "random", &EvalOptions::default())
        .expect("a generated net parses")
        .expect("some");
    (Arc::new(ad), p)
}

/// The position of value `x` of variable `i` under `o`'s parent values (the spec's reading).
fn spec_position(specs: &[Spec], i: usize, x: Option<i64>, o: &Out) -> usize {
    let s = &specs[i];
    let row = s
        .rows
        .iter()
        .find(|(w, _)| w.iter().zip(&s.parents).all(|(&v, &p)| o[p] == Some(v)));
    match row {
        None => 0,
        Some((_, order)) => x
            .and_then(|x| order.iter().position(|&y| y == x))
            .unwrap_or(order.len()),
    }
}

/// Every improving flip from `o`.
fn spec_flips(specs: &[Spec], o: &Out) -> Vec<Out> {
    let mut out = Vec::new();
    for (i, s) in specs.iter().enumerate() {
        let here = spec_position(specs, i, o[i], o);
        let values = s.domain().into_iter().map(Some).chain([None]);
        for x in values {
            if spec_position(specs, i, x, o) < here {
                let mut t = o.clone();
                t[i] = x;
                out.push(t);
            }
        }
    }
    out
}

/// Every outcome of the net.
fn all_outcomes(specs: &[Spec]) -> Vec<Out> {
    let mut all: Vec<Out> = vec![Vec::new()];
    for s in specs {
        let values: Vec<Option<i64>> = s.domain().into_iter().map(Some).chain([None]).collect();
        all = all
            .into_iter()
            .flat_map(|o| {
                values.iter().map(move |&x| {
                    let mut o = o.clone();
                    o.push(x);
                    o
                })
            })
            .collect();
    }
    all
}

/// Whether improving flips lead from `b` to `a` (exhaustively, breadth first).
fn spec_dominates(specs: &[Spec], a: &Out, b: &Out) -> bool {
    let mut seen: HashSet<Out> = HashSet::from([b.clone()]);
    let mut todo = VecDeque::from([b.clone()]);
    while let Some(s) = todo.pop_front() {
        for t in spec_flips(specs, &s) {
            if &t == a {
                return true;
            }
            if seen.insert(t.clone()) {
                todo.push_back(t);
            }
        }
    }
    false
}

/// A spec outcome as the library's classes.
fn classes(p: &Preferences, o: &Out) -> Vec<Class> {
    o.iter()
        .zip(&p.vars)
        .map(|(x, v)| x.map_or(v.other(), |x| v.class_of(&Value::Int(x))))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn nets_agree_with_exhaustive_search(seed in any::<u64>(), picks in prop::collection::vec(any::<u64>(), 8)) {
        let specs = random_net(seed, 8);
        let (_, p) = parse_net(&specs, "");
        let all = all_outcomes(&specs);
        let lex = |o: &Out| -> Vec<usize> {
            (0..specs.len()).map(|i| spec_position(&specs, i, o[i], o)).collect()
        };
        // The key is the lexicographic order of the positions.
        let best = all.iter().map(lex).min().expect("outcomes");
        prop_assert_eq!(p.positions(&p.optimum()).iter().map(|&x| x as usize).collect::<Vec<_>>(), best);
        // Every outcome of small nets, a spread of those of large ones (the suite stays quick).
        for o in all.iter().step_by((all.len() / 2048).max(1)) {
            let c = classes(&p, o);
            prop_assert!(p.key(&p.optimum()) <= p.key(&c));
            // Ranking is consistent with dominance: every improving flip moves up.
            for t in spec_flips(&specs, o) {
                prop_assert!(p.key(&classes(&p, &t)) < p.key(&c), "{:?} -> {:?}", o, t);
            }
        }
        // The optimum has no improving flip.
        let opt: Out = p.optimum().iter().zip(&p.vars).map(|(&c, v)| match v.domain.get(c as usize) {
            Some(Value::Int(x)) => Some(*x),
            _ => None,
        }).collect();
        prop_assert!(spec_flips(&specs, &opt).is_empty());
        // Dominance queries between random outcomes, and from each to the optimum.
        for pair in picks.chunks(2) {
            let a = &all[(pair[0] % all.len() as u64) as usize];
            let b = &all[(pair[1] % all.len() as u64) as usize];
            for (a, b) in [(a, b), (&opt, b), (b, a)] {
                let (ca, cb) = (classes(&p, a), classes(&p, b));
                let want = a != b && spec_dominates(&specs, a, b);
                // The direct flips tried past the budget find only real witnesses.
                if let Some(flips) = p.direct_flips(&ca, &cb) {
                    prop_assert!(want, "direct {:?} > {:?}", a, b);
                    prop_assert!(p.check_flips(&ca, &cb, &flips));
                }
                match p.dominates(&ca, &cb).expect("within budget") {
                    Dominance::Dominates(flips) => {
                        prop_assert!(want, "{:?} > {:?}", a, b);
                        prop_assert!(p.check_flips(&ca, &cb, &flips));
                    }
                    Dominance::No => prop_assert!(!want, "{:?} > {:?}", a, b),
                }
            }
        }
    }

    #[test]
    fn ranked_through_the_index_is_plain_ranking(
        seed in any::<u64>(),
        offers in prop::collection::vec(prop::collection::vec(0i64..6, 5), 0..40),
        reqs in 0usize..5,
        keep in prop::option::of(1u32..=10),
    ) {
        let specs = random_net(seed, 4);
        let requirements = [
            "TARGET.Memory >= 2",
            "true",
            "TARGET.v0 == 1 || TARGET.Memory > 3",
            "TARGET.v1 =!= 2",
            "TARGET.Memory < 3 && MY.Want > 0",
        ][reqs];
        let keep = keep.map(|k| format!("PreferenceKeep = {}; ", f64::from(k) / 10.0)).unwrap_or_default();
        let extra = format!("Want = 1; Rank = TARGET.Memory % 3; Requirements = {requirements}; {keep}");
        let (request, p) = parse_net(&specs, &extra);
        // Values 0, 4 and 5 are listed nowhere (other); 5 leaves the attribute out.
        let offers: Vec<Arc<ClassAd>> = offers
            .iter()
            .map(|vals| {
                let mut attrs = vec![format!("Memory = {}", vals[0]), format!("Rank = {}", vals[1] % 2)];
                for (i, &v) in vals.iter().enumerate().skip(1) {
                    if v != 5 {
                        attrs.push(format!("v{} = {v}", i - 1));
                    }
                }
                attrs.push("Requirements = MY.Memory > 0 || TARGET.Want == 1".into());
                Arc::new(parse::classad(&format!("[{}]", attrs.join("; "))).expect("offer"))
            })
            .collect();
        let opts = EvalOptions::default();
        let numbered: Vec<(AdId, Arc<ClassAd>)> = (0..).zip(offers.iter().cloned()).collect();
        let feasible = naive_join(&numbered, std::slice::from_ref(&request), &opts).pop().unwrap_or_default();
        let want = rank_all(&p, &request, feasible.iter(), &offers, &opts);
        let mut idx = Index::new(IndexOptions::default());
        idx.extend(numbered).expect("index");
        let classed = OfferRanks::new(&offers);
        for c in [None, Some(&classed)] {
            let got = ranked(&p, &request, &mut idx, &offers, c, &opts).expect("walk");
            prop_assert_eq!(&got, &want);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Keys remembered across requests are the keys evaluation gives, whatever the requests
    /// read of themselves and the offers of the requests.
    #[test]
    fn remembered_keys_are_evaluated_keys(
        seed in any::<u64>(),
        offers in prop::collection::vec((0i64..5, 0i64..5, any::<bool>()), 1..30),
        requests in prop::collection::vec((0i64..3, 0usize..3), 1..8),
    ) {
        let specs = random_net(seed, 3);
        // The first variable reads the request's Want through a comparison, in one kind.
        let offers: Vec<Arc<ClassAd>> = offers
            .iter()
            .map(|&(a, b, expr)| {
                let v1 = if expr { "TARGET.Want + 1".to_owned() } else { b.to_string() };
                Arc::new(parse::classad(&format!("[v0 = {a}; v1 = {v1}; v2 = {b}]")).expect("offer"))
            })
            .collect();
        let ids: Vec<AdId> = (0..offers.len() as AdId).collect();
        let opts = EvalOptions::default();
        let mut remembered = super::remembered::Remembered::default();
        for &(want, kind) in &requests {
            let mut text = text(&specs);
            if kind == 1 {
                text = text.replacen("Value = TARGET.v0", "Value = TARGET.v0 - MY.Want + 1", 1);
            } else if kind == 2 {
                text = text.replacen("Value = TARGET.v0", "Value = eval(\"TARGET.v0\")", 1);
            }
            let request = parse::classad(&format!("[Want = {want}; Preferences = {text}]")).expect("request");
            let p = Preferences::from_ad(&request, "r", &opts).expect("ok").expect("some");
            let got = remembered.keys(&p, &request, &ids, &offers, &opts);
            let want: Vec<u64> = offers.iter().map(|o| p.key(&p.outcome(&request, o, &opts))).collect();
            prop_assert_eq!(got, want);
        }
    }
}
