//! Golden gangs (`tests/golden/gangs/gangs.golden`, made by `gen/gen_gangs.py` with HTCondor's
//! classad2): for the dissertation's Figures 8, 28–30 and 32 and hand-made gangs of depth 2
//! and 3 (and plain ads docking through their implicit port), every complete gang tree's
//! Figure-32 environment is evaluated here as classad2 evaluated it — every port's constraint
//! to the same value — and every algorithm finds a gang exactly when classad2 finds a valid
//! tree, and the gang it finds is one classad2 calls valid. The same for 200 random gangs
//! (`random-gangs.golden`, `gen/random_gangs.py`); `ADJOIN_GANGS_GOLDEN=FILE` compares another
//! such file in its place.

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

/// The cases of `file` in `tests/golden/gangs/` (or of the file `ADJOIN_GANGS_GOLDEN` names, in
/// place of `random-gangs.golden`, for a differential run of new random cases).
fn cases(file: &str) -> BTreeMap<String, Case> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/golden/gangs/");
    let path = match std::env::var("ADJOIN_GANGS_GOLDEN") {
        Ok(p) if file == RANDOM => p,
        _ => format!("{dir}{file}"),
    };
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

/// The hand-made cases.
const MADE: &str = "gangs.golden";
/// The random cases (`gen/random_gangs.py`).
const RANDOM: &str = "random-gangs.golden";

#[test]
fn environments_evaluate_as_htcondor_evaluates_them() {
    let all = cases(MADE);
    assert_eq!(all.len(), 21);
    environments_agree(&all);
}

#[test]
fn random_environments_evaluate_as_htcondor_evaluates_them() {
    let all = cases(RANDOM);
    if std::env::var_os("ADJOIN_GANGS_GOLDEN").is_none() {
        // The committed file, whole: 200 cases, 3,441 trees, 103 of them valid.
        let trees = all.values().map(|c| c.trees.len()).sum::<usize>();
        let valid = all.values().flat_map(|c| &c.trees).filter(|t| t.2).count();
        assert_eq!((all.len(), trees, valid), (200, 3441, 103));
    }
    environments_agree(&all);
}

#[test]
fn every_algorithm_finds_a_gang_htcondor_calls_valid() {
    algorithms_agree(&cases(MADE));
}

#[test]
fn every_algorithm_finds_a_random_gang_htcondor_calls_valid() {
    algorithms_agree(&cases(RANDOM));
}

/// Every tree's environment gives each port's constraint classad2's value, and the tree is
/// valid exactly when classad2 says so.
fn environments_agree(all: &BTreeMap<String, Case>) {
    let opts = EvalOptions::default();
    let mut wrong = Vec::new();
    for (name, case) in all {
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
                if v.to_string() != *want {
                    wrong.push(format!(
                        "{name} {tree:?} member {member} port {port}: {v}, HTCondor {want}"
                    ));
                }
            }
            if valid(&t, &opts) != *ok {
                wrong.push(format!("{name} {tree:?}: valid is not {ok}"));
            }
        }
    }
    no_differences(&wrong);
}

/// Every algorithm finds a gang exactly when classad2 calls some tree valid, and one it calls
/// valid.
fn algorithms_agree(all: &BTreeMap<String, Case>) {
    let opts = IndexOptions::default();
    let mut wrong = Vec::new();
    for (name, case) in all {
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
            if found.is_some() == good.is_empty() {
                wrong.push(format!("{name} {alg}: found {}", found.is_some()));
            }
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
                if !good.contains(&edges(&tree)) {
                    wrong.push(format!("{name} {alg}: {tree:?} not among {good:?}"));
                }
            }
        }
    }
    no_differences(&wrong);
}

/// Fails listing every difference found, if any.
fn no_differences(wrong: &[String]) {
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
