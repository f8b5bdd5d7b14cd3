//! adjoin against HTCondor's own answers for thousands of expressions
//! (`tests/golden/exprs.golden`, made by `tests/golden/gen/` with HTCondor's library).
//!
//! Sections fix MY, TARGET and the mode: `new` (strict new-ClassAd semantics), `old` (unscoped
//! names missing from MY fall back to TARGET, as HTCondor's daemons do) and `compat` (the daemons'
//! compatibility functions registered; adjoin always has them). The one section that records a
//! bare library *without* them (`compat-absent`) describes a configuration adjoin does not offer;
//! it is counted and reported, not compared. Deliberate deviations are listed with their reasons
//! in `tests/golden/deviations.tsv`; each must still differ, so a stale entry fails the test.

mod common;

use adjoin::query::eval::{eval_expr, eval_in_match, MatchAds};
use adjoin::query::{parse, ClassAd};
use std::collections::HashMap;

/// Sections describing configurations adjoin deliberately does not offer.
const NOT_COMPARED: &[&str] = &["compat-absent"];

struct Section {
    name: String,
    mode: String,
    my: Option<ClassAd>,
    target: Option<ClassAd>,
}

fn deviations() -> HashMap<(String, String), String> {
    common::read("tests/golden/deviations.tsv")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .filter_map(|l| {
            let mut f = l.splitn(3, '\t');
            Some((
                (f.next()?.to_string(), f.next()?.to_string()),
                f.next()?.to_string(),
            ))
        })
        .collect()
}

#[test]
fn exprs_agree_with_htcondor() {
    // ADJOIN_EXPRS_GOLDEN names another file of the same format (e.g. a differential run of
    // random expressions made by gen/random_exprs.py with HTCondor's library).
    // Without it: the battery, then the random expressions of `random.golden`, the random
    // lexemes of `lexemes.golden` and the random `countMatches`/`evalInEachContext` calls of
    // `contexts.golden`.
    let text = match std::env::var("ADJOIN_EXPRS_GOLDEN") {
        Ok(path) => std::fs::read_to_string(path).expect("ADJOIN_EXPRS_GOLDEN is readable"),
        Err(_) => {
            common::read("tests/golden/exprs.golden")
                + &common::read("tests/golden/random.golden")
                + &common::read("tests/golden/lexemes.golden")
                + &common::read("tests/golden/contexts.golden")
        }
    };
    let deviations = deviations();
    let mut section = Section {
        name: String::new(),
        mode: "new".into(),
        my: None,
        target: None,
    };
    let (mut agreed, mut documented, mut skipped) = (0usize, 0usize, 0usize);
    let mut failures = Vec::new();
    let mut per_section: Vec<(String, usize, usize)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if let Some(rest) = line.strip_prefix("## ") {
            let (key, val) = rest.split_once(' ').unwrap_or((rest, ""));
            match key {
                "section" => {
                    section = Section {
                        name: val.to_string(),
                        mode: "new".into(),
                        my: None,
                        target: None,
                    };
                    per_section.push((val.to_string(), 0, 0));
                }
                "mode" => section.mode = val.to_string(),
                "my" => section.my = Some(parse::classad(val).expect("golden MY ad parses")),
                "target" => {
                    section.target = Some(parse::classad(val).expect("golden TARGET ad parses"))
                }
                _ => panic!("line {}: unknown header {line:?}", i + 1),
            }
            continue;
        }
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let Some((expr_text, want)) = line.split_once('\t') else {
            panic!("line {}: no tab in {line:?}", i + 1);
        };
        if NOT_COMPARED.contains(&section.name.as_str()) {
            skipped += 1;
            continue;
        }
        let opts = common::golden_opts(section.mode == "old");
        let verdict: Result<(bool, String), String> = match (parse::expr(expr_text), want) {
            (Err(_), "parse error") => Ok((true, "parse error".into())),
            (Err(e), _) => Ok((false, format!("parse error: {e}"))),
            (Ok(_), "parse error") => Ok((false, "parsed".into())),
            (Ok(e), _) => {
                let empty = ClassAd::new();
                let my = section.my.as_ref().unwrap_or(&empty);
                let v = match &section.target {
                    Some(t) => eval_in_match(&e, MatchAds { my, target: t }, &opts),
                    None => eval_expr(&e, my, &opts),
                };
                common::agrees(&v, want).map(|ok| (ok, v.to_string()))
            }
        };
        let key = (section.name.clone(), expr_text.to_string());
        let entry = per_section.last_mut();
        match (verdict, deviations.get(&key)) {
            (Ok((true, _)), None) => {
                agreed += 1;
                if let Some(s) = entry {
                    s.1 += 1;
                }
            }
            (Ok((false, _)), Some(_)) => documented += 1,
            (Ok((true, _)), Some(reason)) => failures.push(format!(
                "line {}: [{}] {expr_text}: agrees now, but deviations.tsv says: {reason}",
                i + 1,
                section.name
            )),
            (Ok((false, ours)), None) => {
                if let Some(s) = entry {
                    s.2 += 1;
                }
                failures.push(format!(
                    "line {}: [{}] {expr_text}\n    htcondor: {want}\n    adjoin:   {ours}",
                    i + 1,
                    section.name
                ))
            }
            (Err(e), _) => failures.push(format!("line {}: {e}", i + 1)),
        }
    }
    for (name, ok, bad) in &per_section {
        println!("  {name}: {ok} agree, {bad} differ");
    }
    println!(
        "exprs.golden: {agreed} passed, {} failed ({documented} documented deviations, {skipped} not compared: {NOT_COMPARED:?})",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagreements with HTCondor:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
