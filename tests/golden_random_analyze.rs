//! `adjoin analyze` on random pools, checked against HTCondor's library
//! (`tests/golden/random-analyze.golden`, made by `gen/random_analyze.py`): for random requests
//! (conjunctions of random conditions, some parenthesized conjunctions split in two) over
//! random machines (mixed types under one name, absent, undefined, error and list values,
//! random Requirements), the counts offers, matching, rejected_by_request and
//! rejecting_request, every condition's matched and step counts, and the minimal failing pairs
//! and triples. Under old-ClassAd semantics both through a database's held index and over the
//! pool evaluated, and under strict new-ClassAd semantics over the pool; the two paths give the
//! same whole analysis (conditions, conflicts, suggestions and the offer side).

mod common;

use adjoin::analyze::{analyze, AnalyzeOptions, Pool};
use adjoin::query::ClassAd;
use adjoin::storage::{IdRule, PutOptions};
use adjoin::Db;
use common::analysis;
use std::sync::Arc;

const GOLDEN: &str = "tests/golden/random-analyze.golden";

#[test]
fn analyses_agree_with_htcondor_on_random_pools() {
    let pools = common::golden_pools(GOLDEN);
    assert_eq!(pools.len(), 4, "four pools in the golden file");
    let mut checked = 0;
    let mut matching = 0;
    let mut failing = 0;
    for p in &pools {
        let slots: Vec<Arc<ClassAd>> = p.machines.iter().cloned().map(Arc::new).collect();
        let pool = Pool::numbered(slots.clone());
        let db = Db::open_in_memory().expect("db");
        let put = PutOptions {
            id: IdRule::new(vec!["Name".to_owned()]),
            ..PutOptions::default()
        };
        for s in &slots {
            db.put_with("machines", s, &put).expect("put");
        }
        for (section, lines) in &p.other {
            let old = match section.as_str() {
                "analyze old" => true,
                "analyze new" => false,
                other => panic!("unknown section {other:?}"),
            };
            let cases = analysis::cases(lines.iter().map(String::as_str));
            assert_eq!(
                cases.len(),
                p.jobs.len(),
                "{}: one case per request",
                p.name
            );
            for (req, case) in p.jobs.iter().zip(&cases) {
                assert_eq!(
                    common::ad_name(req),
                    case.name,
                    "{}: requests in order",
                    p.name
                );
                let what = format!("{} {} (old: {old})", p.name, case.name);
                let opts = AnalyzeOptions {
                    eval: common::golden_opts(old),
                    ..AnalyzeOptions::default()
                };
                let a = analyze(&case.name, req, &pool, &opts).expect("analysis");
                analysis::check(&a, case, 3, &what);
                if old {
                    // The database's own evaluation options: answered through its held index.
                    let held = db
                        .analyze_named(&case.name, req, "machines", &AnalyzeOptions::default())
                        .expect("db analysis");
                    analysis::check(&held, case, 3, &format!("{what} through the index"));
                    assert_eq!(
                        (&held.conditions, &held.conflicts, &held.suggestions),
                        (&a.conditions, &a.conflicts, &a.suggestions),
                        "{what}: the index's analysis is the evaluated one"
                    );
                    assert_eq!(
                        held.offer_side, a.offer_side,
                        "{what}: the index's offer side is the evaluated one"
                    );
                }
                checked += 1;
                matching += usize::from(case.counts[1] > 0);
                failing += case.failing.len();
            }
        }
    }
    assert_eq!(checked, 320, "every golden case");
    assert!(
        matching >= 10 && failing >= 20,
        "the pools test something ({matching} matching requests, {failing} failing sets)"
    );
}
