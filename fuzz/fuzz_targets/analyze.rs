//! Fuzz target: the analysis's promise. For any request `Requirements` (the input's first
//! line) and any value of one of the request's attributes (its second, read by the offers'
//! Requirements), the analysis through the Db's held index (`Db::analyze`: its table, offer
//! side, conflicts and suggestions, changed requests re-matched through the index) is the
//! analysis of the same offers by evaluation alone (`analyze::analyze` over the pool), and its
//! counts are those of evaluating every pair. The offers are the `query` target's (mixed
//! types under one name, absent and undefined values, expressions reading the request).
//! Inputs reading the clock or `random()` are left out.
#![no_main]

use adjoin::analyze::{self, AnalyzeOptions};
use adjoin::db::selects;
use adjoin::query::eval::{eval_attr_in_match, symmetric_match, EvalOptions, MatchAds};
use adjoin::query::{parse, ClassAd};
use adjoin::Db;
use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};

mod common;
use common::{expressions, offers_db, steady_text};

/// The request; its `Requirements` is the input's first line, its `x` the second.
const REQUEST: &str =
    r#"[Name = "j0"; Memory = 1024; Cpus = 2; Arch = "X86_64"; Owner = "ann"; Prio = 5]"#;

fn db() -> &'static Mutex<Db> {
    static DB: OnceLock<Mutex<Db>> = OnceLock::new();
    DB.get_or_init(|| Mutex::new(offers_db()))
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = steady_text(data) else {
        return;
    };
    let Some([Some(req), x]) = expressions::<2>(text) else {
        return;
    };
    let mut request: ClassAd = parse::classad(REQUEST).expect("request");
    request.set("Requirements", req);
    if let Some(x) = x {
        request.set("x", x);
    }
    let Ok(db) = db().lock() else {
        return;
    };
    let opts = AnalyzeOptions::default();
    let pool = db.pool("m").expect("pool");
    let by_evaluation = analyze::analyze("j0", &request, &pool, &opts);
    let through_index = db.analyze_named("j0", &request, "m", &opts);
    let (want, got) = match (by_evaluation, through_index) {
        (Ok(w), Ok(g)) => (w, g),
        // A request the analysis refuses (no conditions to read) is refused by both.
        (Err(_), Err(_)) => return,
        (w, g) => panic!("one analysis failed for {text:?}: {w:?} / {g:?}"),
    };
    assert_eq!(got, want, "analysis of {text:?}");
    // The counts are those of evaluating every pair.
    let eval = EvalOptions::default();
    let matching = pool
        .ads
        .iter()
        .filter(|o| symmetric_match(&request, o, &eval))
        .count() as u64;
    assert_eq!(want.matching, matching, "matching of {text:?}");
    let rejected = pool
        .ads
        .iter()
        .filter(|o| {
            let ads = MatchAds {
                my: &request,
                target: o,
            };
            !selects(&eval_attr_in_match("Requirements", ads, &eval))
        })
        .count() as u64;
    assert_eq!(want.rejected_by_request, rejected, "rejected of {text:?}");
});
