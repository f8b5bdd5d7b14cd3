//! `adjoin analyze` on HTCondor's real ads (issue 11): requests over the slot ads of
//! `shared/conformance/real-ads`, every count checked against HTCondor's library
//! (`tests/golden/analyze-real-ads.golden`, made by `gen/gen_analyze_real_ads.py`): offers,
//! matching, rejected_by_request, rejecting_request, and per condition matched and step
//! counts; the data conflicts of two conditions are exactly the failing pairs. Under old-ClassAd
//! semantics (as HTCondor's daemons) and strict new-ClassAd semantics; through the library's
//! pool and through a database (under old semantics also with the database's own evaluation
//! options, so that the answer comes through its held index).

mod common;

use adjoin::analyze::{analyze, AnalyzeOptions, ConflictKind, Pool};
use adjoin::query::parse::{self, Format};
use adjoin::query::ClassAd;
use adjoin::storage::{IdRule, PutOptions};
use adjoin::Db;
use common::analysis::{self, Case};
use std::sync::Arc;

const GOLDEN: &str = "tests/golden/analyze-real-ads.golden";
const REAL_ADS: &str = "../shared/conformance/real-ads";
/// The files written in new syntax; all others are old syntax.
const NEW_SYNTAX: &[&str] = &[
    "python_bindings-test.ad",
    "python_bindings-test_multiple.ad",
];

/// The golden blocks: (old semantics, cases).
fn blocks() -> Vec<(bool, Vec<Case>)> {
    let text = common::read(GOLDEN);
    let mut out: Vec<(bool, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        match line.strip_prefix("## semantics ") {
            Some(rest) => out.push((rest.starts_with("old"), Vec::new())),
            None => out.last_mut().map_or((), |b| b.1.push(line)),
        }
    }
    assert_eq!(out.len(), 2, "old and new blocks");
    out.into_iter()
        .map(|(old, lines)| (old, analysis::cases(lines)))
        .collect()
}

/// Every real ad as `(file#index, ad)`, files in name order.
fn real_ads() -> Vec<(String, ClassAd)> {
    let mut files: Vec<String> = std::fs::read_dir(common::top(REAL_ADS))
        .expect("shared/conformance/real-ads")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut ads = Vec::new();
    for f in files {
        let format = if NEW_SYNTAX.contains(&f.as_str()) {
            Format::New
        } else {
            Format::Old
        };
        let text = common::read(&format!("{REAL_ADS}/{f}"));
        let parsed = parse::ads(&text, format).unwrap_or_else(|e| panic!("{f}: {e}"));
        ads.extend(
            parsed
                .into_iter()
                .enumerate()
                .map(|(i, ad)| (format!("{f}#{i}"), ad)),
        );
    }
    ads
}

/// The ad's MyType.
fn my_type(ad: &ClassAd) -> Option<String> {
    match adjoin::query::eval::eval_attr_value(ad, "MyType", &Default::default()) {
        adjoin::query::Value::Str(s) => Some(s.to_string()),
        _ => None,
    }
}

#[test]
fn counts_are_htcondors() {
    let ads = real_ads();
    let slots: Vec<Arc<ClassAd>> = ads
        .iter()
        .filter(|(_, ad)| my_type(ad).as_deref() == Some("Machine"))
        .map(|(_, ad)| Arc::new(ad.clone()))
        .collect();
    let jobs: Vec<(&String, &ClassAd)> = ads
        .iter()
        .filter(|(_, ad)| {
            my_type(ad).as_deref() == Some("Job")
                || (my_type(ad).is_none()
                    && (ad.contains("JobUniverse") || ad.contains("ClusterId")))
        })
        .map(|(n, ad)| (n, ad))
        .collect();
    let pool = Pool::numbered(slots.clone());
    let db = Db::open_in_memory().expect("db");
    let put = PutOptions {
        id: IdRule::new(Vec::<String>::new()),
        ..PutOptions::default()
    };
    for s in &slots {
        db.put_with("slots", s, &put).expect("put");
    }
    let mut checked = 0;
    for (old, cases) in blocks() {
        let opts = AnalyzeOptions {
            eval: common::golden_opts(old),
            ..AnalyzeOptions::default()
        };
        for case in &cases {
            let (job_name, _) = case.name.split_once('/').expect("job/variant");
            let (_, job) = jobs
                .iter()
                .find(|(n, _)| n.as_str() == job_name)
                .expect("job");
            let mut req = (*job).clone();
            let conj: Vec<&str> = case.conditions.iter().map(|c| c.0.as_str()).collect();
            req.set(
                "Requirements",
                parse::expr(&conj.join(" && ")).expect("requirements"),
            );
            let a = analyze(&case.name, &req, &pool, &opts).expect("analysis");
            let via_db = db
                .analyze_named(&case.name, &req, "slots", &opts)
                .expect("db analysis");
            assert_eq!(a, via_db, "{} (old: {old})", case.name);
            analysis::check(&a, case, 2, &format!("{} (old: {old})", case.name));
            if old {
                // The database's own evaluation options: answered through its held index.
                let held = db
                    .analyze_named(&case.name, &req, "slots", &AnalyzeOptions::default())
                    .expect("db analysis through the index");
                analysis::check(&held, case, 2, &format!("{} through the index", case.name));
            }
            if case.name.ends_with("/value-conflict") {
                assert_eq!(a.conflicts[0].kind, ConflictKind::Value, "{}", case.name);
            }
            checked += 1;
        }
    }
    assert_eq!(checked, 20, "every golden case");
}
