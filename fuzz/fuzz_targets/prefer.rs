//! Fuzz target: the preference walk's promise. For any `Value` expressions of a request's
//! three CP-net variables (the input's first three lines; the nets' orders, parents and
//! tables fixed, over strings, numbers and booleans), any request `Rank` (its fourth line) and
//! any `PreferenceKeep` (its fifth),
//! the candidates ranked through the Db's held index (`Db::ranked_candidates`: the outcomes
//! walked as index windows) are those of evaluating every pair, ranked by evaluation alone
//! (`prefer::rank_candidates`), in the same order with the same vectors. The offers are the
//! `query` target's, some with a `Rank`. Inputs reading the clock or `random()` are left out,
//! and so are inputs naming `Requirements` or calling `eval`: a `Value` reading the request's
//! Requirements is the documented limit of the walk's exactness (docs/preferences.md). A blank
//! line leaves a variable's `Value` at a default reading the offer.
#![no_main]

use adjoin::prefer::{rank_candidates, Preferences};
use adjoin::query::eval::{symmetric_match, EvalOptions};
use adjoin::query::{parse, ClassAd, Expr};
use adjoin::Db;
use libfuzzer_sys::fuzz_target;
use std::sync::{Arc, Mutex, OnceLock};

mod common;
use common::{expressions, offers_db, steady_text};

fn db() -> &'static Mutex<Db> {
    static DB: OnceLock<Mutex<Db>> = OnceLock::new();
    DB.get_or_init(|| {
        let db = offers_db();
        // Some offers ranked, so that vectors differ in their last component too.
        for (name, rank) in [("m0", "TARGET.Prio"), ("m2", "-1"), ("m3", "\"s\"")] {
            let mut ad = db.get("m", name).expect("get").expect("offer").ad;
            ad.set("Rank", parse::expr(rank).expect("rank"));
            db.put_with_id("m", name, &ad).expect("put");
        }
        Mutex::new(db)
    })
}

/// The request with its three variables' `Value`s, its `Rank` and its `PreferenceKeep`.
fn request(values: [&Expr; 3], rank: Option<&Expr>, keep: Option<&Expr>) -> Option<ClassAd> {
    let [a, b, c] = values;
    let prefs = format!(
        "{{[Name = \"a\"; Value = {a}; Order = {{\"X86_64\", 2048, true}}], \
         [Name = \"b\"; Value = {b}; Parents = {{\"a\"}}; \
          Table = {{[When = {{\"X86_64\"}}; Order = {{true, false}}], \
                    [When = {{2048}}; Order = {{false, 1, \"s\"}}]}}], \
         [Name = \"c\"; Value = {c}; Parents = {{\"a\", \"b\"}}; \
          Table = {{[When = {{true, true}}; Order = {{8, 4, 0}}], \
                    [When = {{\"X86_64\", false}}; Order = {{\"ARM\", 2.5}}]}}]}}"
    );
    let mut ad = parse::classad(
        r#"[Name = "r"; Memory = 1024; Cpus = 2; Arch = "X86_64"; x = 1; Prio = 3; Requirements = true]"#,
    )
    .ok()?;
    ad.set("Preferences", parse::expr(&prefs).ok()?);
    if let Some(r) = rank {
        ad.set("Rank", r.clone());
    }
    if let Some(k) = keep {
        ad.set("PreferenceKeep", k.clone());
    }
    Some(ad)
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = steady_text(data) else {
        return;
    };
    let lower = text.to_ascii_lowercase();
    if lower.contains("requirements") || lower.contains("eval") {
        return;
    }
    let Some([a, b, c, rank, keep]) = expressions::<5>(text) else {
        return;
    };
    let defaults = ["TARGET.Arch", "TARGET.Memory >= 1024", "TARGET.Cpus"]
        .map(|d| parse::expr(d).expect("default"));
    let values = [
        a.as_ref().unwrap_or(&defaults[0]),
        b.as_ref().unwrap_or(&defaults[1]),
        c.as_ref().unwrap_or(&defaults[2]),
    ];
    let Some(req) = request(values, rank.as_ref(), keep.as_ref()) else {
        return;
    };
    let req = Arc::new(req);
    let Ok(db) = db().lock() else {
        return;
    };
    let opts = EvalOptions::default();
    let Ok(Some(prefs)) = Preferences::from_ad(&req, "r", &opts) else {
        return;
    };
    let got = db
        .ranked_candidates("m", &req, "r")
        .expect("preferences that read are ranked");
    // By evaluation: every offer matching both ways, ranked by the net, then the ranks.
    let pool = db.pool("m").expect("pool");
    let matching: Vec<u32> = (0..pool.ads.len() as u32)
        .filter(|&o| symmetric_match(&req, &pool.ads[o as usize], &opts))
        .collect();
    let want = rank_candidates(Some(&prefs), &req, matching, &pool.ads, &opts);
    let want_ids: Vec<&str> = want
        .iter()
        .map(|(_, o)| pool.ids[*o as usize].as_str())
        .collect();
    let got_ids: Vec<&str> = got.ids.iter().map(String::as_str).collect();
    assert_eq!(got_ids, want_ids, "order of {text:?}");
    let want_vectors: Vec<String> = want.iter().map(|(v, _)| format!("{v:?}")).collect();
    let got_vectors: Vec<String> = got.vectors.iter().map(|v| format!("{v:?}")).collect();
    assert_eq!(got_vectors, want_vectors, "vectors of {text:?}");
    let want_ads: Vec<&ClassAd> = want.iter().map(|(_, o)| &*pool.ads[*o as usize]).collect();
    let got_ads: Vec<&ClassAd> = got.ads.iter().collect();
    assert_eq!(got_ads, want_ads, "ads of {text:?}");
});
