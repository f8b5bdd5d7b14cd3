//! HTCondor's `shared/conformance/htcondor-tests.txt` against HTCondor's own answers
//! (`tests/golden/tests.golden`): the lexer's one-token cases (their expected tokens are in the
//! script itself), the named ads (they parse, and read back equal to HTCondor's reading), every
//! `evaluate` line, the `test-match` cases and the `print-classad` forms.

mod common;

use adjoin::query::eval::{eval_expr, eval_in_match, symmetric_match, MatchAds};
use adjoin::query::parse::{self, lex_one};
use adjoin::query::print;
use adjoin::query::ClassAd;
use std::collections::HashMap;

const SCRIPT: &str = "../shared/conformance/htcondor-tests.txt";

/// Failures where HTCondor's answer is not one adjoin should give, with the reason. Each must
/// still fail (a stale entry fails the test).
const NOT_FOLLOWED: &[(&str, &str)] = &[
    (
        "ad Times",
        "HTCondor's parseOne() flattens a relTime(\"…\") literal to a real, while ClassAd() and \
         parseAds() keep relTime(\"3+01:14:16.123\"); adjoin keeps it (the value is the same real)",
    ),
    (
        "print Times repr",
        "the same parseOne() flattening as `ad Times`",
    ),
    ("print Times printOld", "the same parseOne() flattening as `ad Times`"),
    (
        "evaluate policy access_times[\"globus\"].start",
        "HTCondor answers undefined through a use-after-free in its subscript code (variants crash \
         its Python bindings); adjoin gives 1900, as HTCondor does for access_times[\"globus\"][\"start\"]",
    ),
];

/// The named ads of the script, as text.
fn script_ads(script: &str) -> HashMap<String, String> {
    let mut ads = HashMap::new();
    let mut current: Option<(String, String)> = None;
    for line in script.lines() {
        if let Some(name) = line.strip_prefix("begin-classad ") {
            current = Some((name.trim().to_string(), String::new()));
        } else if line.starts_with("end-classad") {
            if let Some((name, text)) = current.take() {
                ads.insert(name, text);
            }
        } else if let Some((_, text)) = current.as_mut() {
            text.push_str(line);
            text.push('\n');
        }
    }
    ads
}

/// The golden file's sections: header → rows of tab-separated fields.
fn golden_sections() -> HashMap<String, Vec<Vec<String>>> {
    let mut sections: HashMap<String, Vec<Vec<String>>> = HashMap::new();
    let mut current = String::new();
    for line in common::read("tests/golden/tests.golden").lines() {
        if let Some(h) = line.strip_prefix("## ") {
            current = h.split('\t').next().unwrap_or(h).to_string();
        } else if !line.starts_with('#') && !line.is_empty() {
            sections
                .entry(current.clone())
                .or_default()
                .push(line.split('\t').map(str::to_string).collect());
        }
    }
    sections
}

fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match (c, c == '\\') {
            (_, true) => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => out.push('\\'),
            },
            (c, false) => out.push(c),
        }
    }
    out
}

#[test]
fn lexer_one_token_cases() {
    let script = common::read(SCRIPT);
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in script.lines() {
        let Some(rest) = line.strip_prefix("test-lexer-one-token") else {
            continue;
        };
        let rest = rest.trim();
        let Some((text, token)) = rest.rsplit_once(char::is_whitespace) else {
            panic!("bad lexer case {line:?}");
        };
        checked += 1;
        let got = lex_one(text.trim()).name();
        if got != token {
            failures.push(format!("{text:?}: want {token}, got {got}"));
        }
    }
    println!(
        "lexer cases: {} passed, {} failed",
        checked - failures.len(),
        failures.len()
    );
    assert!(checked >= 40, "only {checked} lexer cases found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn named_ads_evaluations_matches_and_printing() {
    let script = common::read(SCRIPT);
    let texts = script_ads(&script);
    let golden = golden_sections();
    let opts = common::golden_opts(false);
    let mut ads: HashMap<String, ClassAd> = HashMap::new();
    let (mut passed, mut failures) = (0usize, Vec::new());

    for row in &golden["ads"] {
        let [name, status, repr] = &row[..] else {
            panic!("bad ads row {row:?}");
        };
        let parsed = parse::classad(&texts[name]);
        match (parsed, status.as_str()) {
            (Ok(ad), "ok") => {
                match common::agrees(&adjoin::query::Value::Ad(ad.clone().into()), repr) {
                    Ok(true) => passed += 1,
                    Ok(false) => failures.push(format!("ad {name}: read as {ad}, HTCondor {repr}")),
                    Err(e) => failures.push(format!("ad {name}: {e}")),
                }
                ads.insert(name.clone(), ad);
            }
            (Err(_), "parse error") => passed += 1,
            (Ok(ad), _) => failures.push(format!("ad {name}: parsed as {ad}, HTCondor refused")),
            (Err(e), _) => failures.push(format!("ad {name}: {e}")),
        }
    }

    for row in &golden["evaluate"] {
        let [name, expr, want] = &row[..] else {
            panic!("bad evaluate row {row:?}");
        };
        let text = expr.trim().trim_end_matches(';');
        let ad = &ads[name];
        let v = match parse::expr(text) {
            Ok(e) => eval_expr(&e, ad, &opts),
            Err(e) => {
                failures.push(format!("evaluate {name} {expr}: {e}"));
                continue;
            }
        };
        match common::agrees(&v, want) {
            Ok(true) => passed += 1,
            Ok(false) => failures.push(format!(
                "evaluate {name} {expr}: adjoin {v}, HTCondor {want}"
            )),
            Err(e) => failures.push(format!("evaluate {name} {expr}: {e}")),
        }
    }

    for row in &golden["test-match"] {
        let [kind, left, right, want, _] = &row[..] else {
            panic!("bad test-match row {row:?}");
        };
        let (l, r) = (&ads[left], &ads[right]);
        let req = parse::expr("Requirements").expect("parses");
        let holds = |my: &ClassAd, target: &ClassAd| {
            eval_in_match(&req, MatchAds { my, target }, &opts).is_true()
        };
        let got = match kind.as_str() {
            "symmetricMatch" => symmetric_match(l, r, &opts),
            // HTCondor: leftMatchesRight is the *right* ad's Requirements, and vice versa.
            "leftMatchesRight" => holds(r, l),
            "rightMatchesLeft" => holds(l, r),
            other => panic!("unknown match kind {other}"),
        };
        if got == (want == "true") {
            passed += 1;
        } else {
            failures.push(format!(
                "{kind} {left} {right}: adjoin {got}, HTCondor {want}"
            ));
        }
    }

    for row in &golden["print-classad"] {
        let [name, form, text] = &row[..] else {
            panic!("bad print-classad row {row:?}");
        };
        let ad = &ads[name];
        let want = unescape(text);
        let got = match form.as_str() {
            "printOld" => print::ad_to_old(ad),
            "printJson" => print::ad_to_json(ad),
            "repr" => {
                match common::agrees(&adjoin::query::Value::Ad(ad.clone().into()), &want) {
                    Ok(true) => passed += 1,
                    _ => failures.push(format!("print {name} repr: adjoin {ad}, HTCondor {want}")),
                }
                continue;
            }
            // classad2 exposes no XML printer, so HTCondor gave no answer to compare with; our XML
            // round trip is checked by the functional tests.
            "xml" => continue,
            other => panic!("unknown print form {other}"),
        };
        if got == want {
            passed += 1;
        } else {
            failures.push(format!(
                "print {name} {form}:\n  adjoin   {got:?}\n  htcondor {want:?}"
            ));
        }
    }

    let mut known = 0;
    for (prefix, reason) in NOT_FOLLOWED {
        match failures
            .iter()
            .position(|f| f.starts_with(&format!("{prefix}:")))
        {
            Some(i) => {
                failures.remove(i);
                known += 1;
                println!("  not followed: {prefix}: {reason}");
            }
            None => failures.push(format!("{prefix}: agrees now; remove it from NOT_FOLLOWED")),
        }
    }
    println!(
        "tests.golden: {passed} passed, {} failed ({known} HTCondor answers deliberately not followed)",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
