//! Fuzz target: the index's promise. For any constraint that parses, a query through a
//! database's index selects exactly the ads plain evaluation selects, and the candidates of a
//! job whose Requirements is the constraint are exactly the ads it matches both ways. The ads
//! mix types under one name, absent and undefined values, expressions, lists, nested ads and a
//! relative-time literal. Constraints reading the clock or `random()` are left out (two
//! evaluations of them may differ).
#![no_main]

use adjoin::query::eval::{eval_expr, symmetric_match, EvalOptions};
use adjoin::query::{parse, ClassAd};
use adjoin::{Db, LoadOptions};
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, OnceLock};

mod common;
use common::{steady_text, ADS};

fn db() -> &'static (Db, Vec<ClassAd>) {
    static DB: OnceLock<(Db, Vec<ClassAd>)> = OnceLock::new();
    DB.get_or_init(|| {
        let db = Db::open_in_memory().expect("db");
        db.load_text("m", "m.ads", &ADS.join("\n"), &LoadOptions::default())
            .expect("load");
        let ads = ADS.iter().map(|a| parse::classad(a).expect("ad")).collect();
        (db, ads)
    })
}

fn name(ad: &ClassAd) -> String {
    ad.get("Name")
        .map(|e| e.to_string().trim_matches('"').to_owned())
        .unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = steady_text(data) else {
        return;
    };
    let Ok(constraint) = parse::expr(text) else {
        return;
    };
    let (db, ads) = db();
    let opts = EvalOptions::default();
    let want: Vec<String> = ads
        .iter()
        .filter(|ad| adjoin::db::selects(&eval_expr(&constraint, ad, &opts)))
        .map(name)
        .collect();
    let got: Vec<String> = db
        .query("m", &constraint)
        .expect("query")
        .map(|a| a.expect("ad").header.id)
        .collect();
    assert_eq!(got, want, "query {text}");
    let mut job =
        parse::classad(r#"[Name = "j"; Memory = 1024; Cpus = 2; Arch = "X86_64"; x = 1]"#)
            .expect("job");
    job.set("Requirements", constraint);
    let job = Arc::new(job);
    let want: Vec<String> = ads
        .iter()
        .filter(|ad| symmetric_match(&job, ad, &opts))
        .map(name)
        .collect();
    let got = db.candidates("m", &job).expect("candidates").ids;
    assert_eq!(got, want, "candidates of a job requiring {text}");
});
