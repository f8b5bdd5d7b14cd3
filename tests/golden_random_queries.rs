//! Random constraints over random ads, checked against HTCondor's library
//! (`tests/golden/random-queries.golden`, made by `gen/random_queries.py`): for each of 400
//! constraints, the ads `Db::query` finds through the collection's spatial index, and the ads
//! `Db::count` counts, are exactly those in which HTCondor evaluates the constraint to true
//! (old-ClassAd semantics, as condor_status -constraint). The ads mix types under one name and
//! hold absent, undefined and error attributes, so this checks the one-sided window query's
//! conversions of every comparison operator against the oracle.

mod common;

use adjoin::query::{parse, ClassAd};
use adjoin::Db;
use std::collections::BTreeSet;

#[test]
fn queries_agree_with_htcondor_on_random_ads() {
    let text = common::read("tests/golden/random-queries.golden");
    let db = Db::open_in_memory().expect("db");
    let (mut constraints, mut selected) = (0, 0);
    for (section, lines) in common::sections(&text) {
        for line in lines {
            if section == "machines" {
                let ad: ClassAd = parse::classad(line).expect("golden ads parse");
                let name = ad.eval_attr("Name");
                let id = name.as_str().expect("a Name");
                db.put_with_id("m", id, &ad).expect("put");
                continue;
            }
            assert_eq!(section, "constraints", "unknown section");
            let (constraint, names) = line.split_once('\t').expect("CONSTRAINT<TAB>NAMES");
            let want: BTreeSet<&str> = names.split_whitespace().collect();
            let got: Vec<String> = db
                .query_str("m", constraint)
                .expect("query")
                .map(|a| a.expect("readable").header.id)
                .collect();
            let got_set: BTreeSet<&str> = got.iter().map(String::as_str).collect();
            assert_eq!(got_set, want, "{constraint}");
            assert_eq!(got.len(), want.len(), "{constraint}: no ad twice");
            let e = parse::expr(constraint).expect("parses");
            let count = db.count("m", Some(&e)).expect("count");
            assert_eq!(count as usize, want.len(), "{constraint}: count");
            constraints += 1;
            selected += want.len();
        }
    }
    assert_eq!(constraints, 400);
    assert!(
        selected > 2000,
        "the constraints select enough to test something ({selected})"
    );
}
