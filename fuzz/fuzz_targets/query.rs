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

const ADS: &[&str] = &[
    r#"[Name = "m0"; Memory = 2048; Cpus = 4; Arch = "X86_64"; Requirements = true]"#,
    r#"[Name = "m1"; Memory = 512.5; Cpus = "many"; Arch = "x86_64"; Tag = {1, "a"}; Requirements = TARGET.Memory =!= undefined]"#,
    r#"[Name = "m2"; Memory = undefined; Cpus = true; Arch = "INTEL"; Requirements = other.Cpus < 8]"#,
    r#"[Name = "m3"; Cpus = 0; Disk = relTime("1:00"); Site = [Name = "s"; Cap = 5]; Requirements = MY.Cpus == 0]"#,
    r#"[Name = "m4"; Memory = Cpus * 1024; Cpus = 2; Arch = error; Requirements = isUndefined(TARGET.x)]"#,
    r#"[Name = "m5"; Memory = -1; Cpus = 1e300; Disk = absTime(0); Arch = ""; Requirements = Memory > 0]"#,
    r#"[Name = "m6"; Memory = TARGET.Memory; Cpus = 16; Tag = "b"; AvailableGPUs = {G}; G = [Capability = 7]]"#,
    r#"[Name = "m7"; memory = 4096; CPUS = 8; arch = "ARM"; Requirements = regexp("^a", TARGET.Arch, "i")]"#,
];

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

/// Whether `text` may read the clock or draw random numbers.
fn unsteady(text: &str) -> bool {
    let l = text.to_ascii_lowercase();
    l.contains("random")
        || l.match_indices("time").any(|(i, _)| {
            let before = &l[..i];
            !(before.ends_with("rel") || before.ends_with("abs"))
        })
}

fn name(ad: &ClassAd) -> String {
    ad.get("Name")
        .map(|e| e.to_string().trim_matches('"').to_owned())
        .unwrap_or_default()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if unsteady(text) {
        return;
    }
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
