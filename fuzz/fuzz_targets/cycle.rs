//! Fuzz target: the ranked cycle's promise. For any request `Requirements` and `Rank` (the
//! input's first two lines), any offer `Rank` (its third) and any offer `Requirements` (its
//! fourth, read by the index as a stored constraint), the indexed cycle — autoclustered
//! and uncached — makes exactly the matches of the naive cycle, each with the same docking
//! vector: the index, the residual conjuncts, the clusters and the top-k walk of monotone ranks
//! change how the best offer is found, never which; so does a second clustered cycle, through
//! the requests and offers the first held (`cycle/held_requests.rs`). The offers (the `query` target's and two
//! more) mix types under one name, absent and undefined values, expressions reading the
//! request, and ranks of every shape. Inputs reading the clock or `random()` are left out (two
//! evaluations of them may differ).
#![no_main]

use adjoin::query::{parse, ClassAd};
use adjoin::Db;
use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};

mod common;
use common::{cycle, expressions, steady_text, ADS};

/// Offers beyond the shared ones: plain slots, one whose Rank is the input's third line.
const MORE_OFFERS: &[&str] = &[
    r#"[Name = "m8"; Memory = 4096; Cpus = 8; Arch = "X86_64"; LoadAvg = 0.5; Requirements = true]"#,
    r#"[Name = "m9"; Memory = 4096; Cpus = 8; Arch = "X86_64"; LoadAvg = -0.0; Tag = 3; Requirements = TARGET.x > 0]"#,
];

/// Ranks given to some shared offers: reading the request, constant, a string.
const OFFER_RANKS: &[(usize, &str)] = &[
    (0, "TARGET.Prio"),
    (2, "-1"),
    (5, "\"s\""),
    (7, "TARGET.Memory / 1024"),
];

const REQUESTS: &[&str] = &[
    r#"[Name = "j0"; Memory = 1024; Cpus = 2; Arch = "X86_64"; x = 1; Prio = 5]"#,
    r#"[Name = "j1"; Memory = 4096; Cpus = 1; Arch = "INTEL"; Prio = 1]"#,
    r#"[Name = "j2"; Memory = 1024; Cpus = 2; Arch = "X86_64"; x = 1; Prio = 5]"#,
    r#"[Name = "j3"; Memory = 100; x = 2]"#,
];

fn db() -> &'static Mutex<Db> {
    static DB: OnceLock<Mutex<Db>> = OnceLock::new();
    DB.get_or_init(|| {
        let db = Db::open_in_memory().expect("db");
        for (i, text) in ADS.iter().chain(MORE_OFFERS).enumerate() {
            let mut ad = parse::classad(text).expect("offer");
            if let Some((_, rank)) = OFFER_RANKS.iter().find(|(j, _)| *j == i) {
                ad.set("Rank", parse::expr(rank).expect("rank"));
            }
            let id = ad.eval_attr("Name");
            db.put_with_id("m", id.as_str().expect("Name"), &ad)
                .expect("put");
        }
        Mutex::new(db)
    })
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = steady_text(data) else {
        return;
    };
    let Some([Some(req), rank, offer_rank, offer_req]) = expressions::<4>(text) else {
        return;
    };
    let Ok(db) = db().lock() else {
        return;
    };
    // The requests (replaced by every input): two alike but for Memory and Arch (two
    // clusters), one alike to the first (the same cluster), one with no Rank.
    for (i, text) in REQUESTS.iter().enumerate() {
        let mut ad: ClassAd = parse::classad(text).expect("request");
        ad.set("Requirements", req.clone());
        if let (Some(r), true) = (&rank, i < 3) {
            ad.set("Rank", r.clone());
        }
        db.put_with_id("j", &format!("j{i}"), &ad).expect("put");
    }
    // One offer's Rank is the input's third line, another's Requirements its fourth.
    let mut offer = parse::classad(MORE_OFFERS[0]).expect("offer");
    if let Some(r) = &offer_rank {
        offer.set("Rank", r.clone());
    }
    db.put_with_id("m", "m8", &offer).expect("put");
    let mut offer = parse::classad(MORE_OFFERS[1]).expect("offer");
    if let Some(r) = &offer_req {
        offer.set("Requirements", r.clone());
    }
    db.put_with_id("m", "m9", &offer).expect("put");
    let naive = cycle(&db, true, false);
    assert_eq!(
        cycle(&db, false, false),
        naive,
        "clustered cycle of {text:?}"
    );
    // Again, through the requests and offers the first held.
    assert_eq!(
        cycle(&db, false, false),
        naive,
        "clustered cycle again of {text:?}"
    );
    assert_eq!(cycle(&db, false, true), naive, "uncached cycle of {text:?}");
});
