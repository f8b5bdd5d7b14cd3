//! HTCondor's real machine and job ads (`shared/conformance/real-ads`) against HTCondor's own
//! answers (`tests/golden/real-ads/`): every attribute of every ad evaluated in its own ad; every
//! attribute of each job and slot with the other as TARGET; and each job's Requirements and Rank
//! against each slot and back, under old-ClassAd semantics (unscoped names fall back to TARGET,
//! as in HTCondor's daemons) and strict new-ClassAd semantics. The clock is fixed.

mod common;

use adjoin::query::eval::{eval_expr, eval_in_match, EvalOptions, MatchAds};
use adjoin::query::parse::{self, Format};
use adjoin::query::{ClassAd, Expr, Value};
use std::collections::HashMap;

const REAL_ADS: &str = "../shared/conformance/real-ads";
const GOLDEN: &str = "tests/golden/real-ads";
/// The files written in new syntax; all others are old syntax.
const NEW_SYNTAX: &[&str] = &[
    "python_bindings-test.ad",
    "python_bindings-test_multiple.ad",
];

/// Every real-ads file's ads, keyed `file#index`, plus the file names in order.
fn load_all() -> (HashMap<String, ClassAd>, Vec<(String, usize)>) {
    let mut names: Vec<String> = std::fs::read_dir(common::top(REAL_ADS))
        .expect("shared/conformance/real-ads beside the repo")
        .filter_map(|e| e.ok().map(|e| e.file_name().to_string_lossy().into_owned()))
        .collect();
    names.sort();
    let mut ads = HashMap::new();
    let mut files = Vec::new();
    for f in names {
        let text = common::read(&format!("{REAL_ADS}/{f}"));
        let format = if NEW_SYNTAX.contains(&f.as_str()) {
            Format::New
        } else {
            Format::Old
        };
        let parsed = parse::ads(&text, format).unwrap_or_else(|e| panic!("{f}: {e}"));
        files.push((f.clone(), parsed.len()));
        for (i, ad) in parsed.into_iter().enumerate() {
            ads.insert(format!("{f}#{i}"), ad);
        }
    }
    (ads, files)
}

/// Compares one value with HTCondor's, recording a failure.
fn compare(ours: &Value, want: &str, what: String, failures: &mut Vec<String>) -> bool {
    match common::agrees(ours, want) {
        Ok(true) => true,
        Ok(false) => {
            failures.push(format!(
                "{what}\n    htcondor: {want}\n    adjoin:   {ours}"
            ));
            false
        }
        Err(e) => {
            failures.push(format!("{what}: {e}"));
            false
        }
    }
}

fn attr_value(ad: &ClassAd, attr: &str, target: Option<&ClassAd>, opts: &EvalOptions) -> Value {
    let e = Expr::attr(attr);
    match target {
        Some(t) => eval_in_match(&e, MatchAds { my: ad, target: t }, opts),
        None => eval_expr(&e, ad, opts),
    }
}

fn report(name: &str, passed: usize, failures: &[String]) {
    println!("{name}: {passed} passed, {} failed", failures.len());
    assert!(
        failures.is_empty(),
        "{} disagreements with HTCondor:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_attribute_in_its_own_ad() {
    let (ads, files) = load_all();
    let opts = common::golden_opts(true);
    let (mut passed, mut failures) = (0, Vec::new());
    for (file, count) in files {
        let golden = common::read(&format!("{GOLDEN}/{file}.attrs.golden"));
        let mut seen = 0;
        for line in golden.lines().filter(|l| !l.starts_with('#')) {
            let mut f = line.splitn(3, '\t');
            let (Some(i), Some(attr), Some(want)) = (f.next(), f.next(), f.next()) else {
                panic!("{file}: bad golden line {line:?}");
            };
            let ad = &ads[&format!("{file}#{i}")];
            assert!(ad.contains(attr), "{file}#{i}: attribute {attr} missing");
            seen += 1;
            let v = attr_value(ad, attr, None, &opts);
            if compare(&v, want, format!("{file}#{i} {attr}"), &mut failures) {
                passed += 1;
            }
        }
        let total: usize = (0..count).map(|i| ads[&format!("{file}#{i}")].len()).sum();
        assert_eq!(seen, total, "{file}: golden covers every attribute");
    }
    report("real ads, attributes in their own ad", passed, &failures);
}

#[test]
fn every_attribute_in_a_match_context() {
    let (ads, _) = load_all();
    let opts = common::golden_opts(true);
    let (mut passed, mut failures) = (0, Vec::new());
    let golden = common::read(&format!("{GOLDEN}/in-match-context.golden"));
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.splitn(4, '\t').collect();
        let [my, target, attr, want] = f[..] else {
            panic!("bad golden line {line:?}");
        };
        let v = attr_value(&ads[my], attr, Some(&ads[target]), &opts);
        if compare(
            &v,
            want,
            format!("{my} {attr} (TARGET {target})"),
            &mut failures,
        ) {
            passed += 1;
        }
    }
    report("real ads, attributes in a match context", passed, &failures);
}

fn check_matches(golden_file: &str, target_fallback: bool) {
    let (ads, _) = load_all();
    let opts = common::golden_opts(target_fallback);
    let (mut passed, mut failures) = (0, Vec::new());
    let golden = common::read(&format!("{GOLDEN}/{golden_file}"));
    let req = parse::expr("requirements").expect("parses");
    let rank = parse::expr("rank").expect("parses");
    let sym = parse::expr("TARGET.requirements && MY.requirements").expect("parses");
    for line in golden.lines().filter(|l| !l.starts_with('#')) {
        let f: Vec<&str> = line.split('\t').collect();
        let [j, s, job_req, slot_req, sym_val, sym_bool, job_rank, slot_rank] = f[..] else {
            panic!("bad golden line {line:?}");
        };
        let (job, slot) = (&ads[j], &ads[s]);
        let in_job = MatchAds {
            my: job,
            target: slot,
        };
        let in_slot = MatchAds {
            my: slot,
            target: job,
        };
        let cases = [
            (
                eval_in_match(&req, in_job, &opts),
                job_req,
                "job.Requirements",
            ),
            (
                eval_in_match(&req, in_slot, &opts),
                slot_req,
                "slot.Requirements",
            ),
            (
                eval_in_match(&sym, in_slot, &opts),
                sym_val,
                "symmetric match value",
            ),
            (eval_in_match(&rank, in_job, &opts), job_rank, "job.Rank"),
            (eval_in_match(&rank, in_slot, &opts), slot_rank, "slot.Rank"),
        ];
        for (v, want, what) in cases {
            if compare(&v, want, format!("{j} vs {s}: {what}"), &mut failures) {
                passed += 1;
            }
        }
        let ours = adjoin::query::eval::symmetric_match(job, slot, &opts);
        if ours == (sym_bool == "true") {
            passed += 1;
        } else {
            failures.push(format!(
                "{j} vs {s}: symmetric_match is {ours}, HTCondor {sym_bool}"
            ));
        }
    }
    report(golden_file, passed, &failures);
}

#[test]
fn jobs_against_slots_old_semantics() {
    check_matches("match.golden", true);
}

#[test]
fn jobs_against_slots_new_semantics() {
    check_matches("match-new.golden", false);
}

/// The spatial index joins the real job against the real slots (each way, old and new
/// semantics) and finds exactly the slots HTCondor's library accepts (`symmetricMatch()`).
#[test]
fn index_join_gives_htcondors_matches() {
    use adjoin_index::{join, AdId, Index, IndexOptions};
    use std::sync::Arc;
    let (ads, _) = load_all();
    for (golden_file, fallback) in [("match.golden", true), ("match-new.golden", false)] {
        let golden = common::read(&format!("{GOLDEN}/{golden_file}"));
        let rows: Vec<Vec<&str>> = golden
            .lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| l.split('\t').collect())
            .collect();
        let mut slots: Vec<&str> = rows.iter().map(|r| r[1]).collect();
        slots.dedup();
        let mut idx = Index::new(IndexOptions {
            eval: common::golden_opts(fallback),
            ..IndexOptions::default()
        });
        let stored: Vec<(AdId, Arc<ClassAd>)> = slots
            .iter()
            .enumerate()
            .map(|(i, s)| (i as AdId, Arc::new(ads[*s].clone())))
            .collect();
        idx.extend(stored).expect("index the slots");
        let mut jobs: Vec<&str> = rows.iter().map(|r| r[0]).collect();
        jobs.dedup();
        let probes: Vec<Arc<ClassAd>> = jobs.iter().map(|j| Arc::new(ads[*j].clone())).collect();
        let answers = join(&mut idx, &probes);
        for (job, answer) in jobs.iter().zip(&answers) {
            let want: Vec<u32> = rows
                .iter()
                .filter(|r| r[0] == *job && r[5] == "true")
                .map(|r| slots.iter().position(|s| *s == r[1]).expect("slot") as u32)
                .collect();
            let got: Vec<u32> = answer.iter().collect();
            assert_eq!(got, want, "{golden_file}: {job}");
            assert!(!want.is_empty(), "{golden_file}: {job} matches some slot");
        }
    }
}
