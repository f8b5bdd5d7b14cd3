//! Golden gangs (`tests/golden/gangs/gangs.golden`, made by `gen/gen_gangs.py` with HTCondor's
//! classad2): for the dissertation's Figures 8, 28–30 and 32 and hand-made gangs of depth 2
//! and 3 (and plain ads docking through their implicit port), every complete gang tree's
//! Figure-32 environment is evaluated here as classad2 evaluated it — every port's constraint
//! to the same value — and every algorithm finds a gang exactly when classad2 finds a valid
//! tree, and the gang it finds is one classad2 calls valid.

use super::env::{valid, Tree};
use super::pool::Pool;
use super::ports::GangAd;
use super::search::Searcher;
use super::Algorithm;
use crate::collection::Collection;
use adjoin_index::IndexOptions;
use adjoin_query::{parse, EvalOptions, Name};
use serde_json::Value as Json;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

/// A gang as its edges: (ad, parent's ad, parent's port, own port).
type Edges = BTreeSet<(i64, i64, i64, i64)>;

/// One tree: members as [ad, parent member, parent port, own port], classad2's value of
/// each (member, port) constraint, and whether all are true.
type GoldenTree = (Vec<[i64; 4]>, Vec<(usize, usize, String)>, bool);

struct Case {
    ads: Vec<String>,
    trees: Vec<GoldenTree>,
}

fn cases() -> BTreeMap<String, Case> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/golden/gangs/gangs.golden"
    );
    let text = std::fs::read_to_string(path).expect("golden file");
    let mut out: BTreeMap<String, Case> = BTreeMap::new();
    for line in text.lines() {
        let j: Json = serde_json::from_str(line).expect("json line");
        let name = j["case"].as_str().expect("case").to_owned();
        if let Some(ads) = j["ads"].as_array() {
            let ads = ads
                .iter()
                .map(|a| a.as_str().expect("ad").to_owned())
                .collect();
            out.insert(
                name,
                Case {
                    ads,
                    trees: Vec::new(),
                },
            );
            continue;
        }
        let tree = j["tree"]
            .as_array()
            .expect("tree")
            .iter()
            .map(|m| {
                let v: Vec<i64> = m
                    .as_array()
                    .expect("member")
                    .iter()
                    .map(|x| x.as_i64().expect("int"))
                    .collect();
                [v[0], v[1], v[2], v[3]]
            })
            .collect();
        let values = j["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| {
                (
                    v[0].as_u64().expect("member") as usize,
                    v[1].as_u64().expect("port") as usize,
                    v[2].as_str().expect("value").to_owned(),
                )
            })
            .collect();
        let ok = j["valid"].as_bool().expect("valid");
        out.get_mut(&name)
            .expect("case first")
            .trees
            .push((tree, values, ok));
    }
    out
}

fn gangs(case: &Case) -> Vec<Arc<GangAd>> {
    case.ads
        .iter()
        .map(|t| Arc::new(GangAd::new(Arc::new(parse::classad(t).expect("ad"))).expect("ports")))
        .collect()
}

fn edges(tree: &[[i64; 4]]) -> Edges {
    tree.iter()
        .skip(1)
        .map(|m| (m[0], tree[m[1] as usize][0], m[2], m[3]))
        .collect()
}

#[test]
fn environments_evaluate_as_htcondor_evaluates_them() {
    let opts = EvalOptions::default();
    let all = cases();
    assert_eq!(all.len(), 21);
    for (name, case) in &all {
        let ads = gangs(case);
        for (tree, values, ok) in &case.trees {
            let mut t = Tree::root(Arc::clone(&ads[0]));
            for m in tree.iter().skip(1) {
                let ad = m[0] as usize;
                t.dock(
                    (m[1] as usize, m[2] as usize),
                    Arc::clone(&ads[ad]),
                    (0, ad as u32 - 1),
                    m[3] as usize,
                );
            }
            let env = t.environment();
            for (member, port, want) in values {
                let g = &t.members[*member].ad;
                let key = g.ports[*port].constraint.expect("constraint");
                let (v, _) = t.eval_port_attr(&env, *member, *port, Name::new(key.as_str()), &opts);
                assert_eq!(
                    &v.to_string(),
                    want,
                    "{name} {tree:?} member {member} port {port}"
                );
            }
            assert_eq!(valid(&t, &opts), *ok, "{name} {tree:?}");
        }
    }
}

#[test]
fn every_algorithm_finds_a_gang_htcondor_calls_valid() {
    let opts = IndexOptions::default();
    for (name, case) in &cases() {
        let ads = gangs(case);
        let good: Vec<Edges> = case
            .trees
            .iter()
            .filter(|t| t.2)
            .map(|t| edges(&t.0))
            .collect();
        for alg in Algorithm::ALL {
            let offers = Collection {
                ids: (1..case.ads.len()).map(|i| format!("o{i}")).collect(),
                ads: ads[1..].iter().map(|g| Arc::clone(&g.ad)).collect(),
                damaged: Vec::new(),
            };
            let mut pool = Pool::new(
                vec![("offers".into(), offers)],
                alg.indexed().then_some(&opts),
                &mut Vec::new(),
            )
            .expect("pool");
            let found =
                Searcher::new(&mut pool, alg, opts.eval.clone(), None).find(Arc::clone(&ads[0]));
            assert_eq!(found.is_some(), !good.is_empty(), "{name} {alg}");
            if let Some(t) = found {
                let tree: Vec<[i64; 4]> = t
                    .members
                    .iter()
                    .map(|m| match (m.offer, m.parent) {
                        (Some((_, pos)), Some(((pm, pp), own))) => {
                            [i64::from(pos) + 1, pm as i64, pp as i64, own as i64]
                        }
                        _ => [0, -1, -1, -1],
                    })
                    .collect();
                assert!(
                    good.contains(&edges(&tree)),
                    "{name} {alg}: {tree:?} not among {good:?}"
                );
            }
        }
    }
}
