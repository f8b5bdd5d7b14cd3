//! Fuzz target: the partitionable cycle's promise. For any request `Requirements` (the input's
//! first line), any `RequestMemory` (its second, an expression of the request), any offer
//! `Requirements` on one of the two partitionable slots (its third) and any `Rank` on the
//! other (its fourth), the indexed cycle — each match carving the request's share out of a
//! partitionable slot, whose remainder is re-indexed and takes further requests — makes
//! exactly the matches of the naive cycle, with the same docking vectors. The offers are the
//! `query` target's and two partitionable slots; the requests ask for one to three matches.
//! Inputs reading the clock or `random()` are left out.
#![no_main]

use adjoin::query::{parse, ClassAd, Expr};
use adjoin::Db;
use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};

mod common;
use common::{cycle, expressions, put_ads, steady_text};

/// The partitionable slots: `p0`'s Requirements is the input's third line, `p1`'s Rank its
/// fourth.
const SLOTS: &[&str] = &[
    r#"[Name = "p0"; PartitionableSlot = true; Cpus = 8; Memory = 8192; Disk = 100000; Arch = "X86_64"; Requirements = TARGET.RequestCpus <= MY.Cpus]"#,
    r#"[Name = "p1"; PartitionableSlot = true; Cpus = 3; Memory = 3000.5; Disk = 50; Arch = "INTEL"; Tag = 2; Requirements = true]"#,
];

const REQUESTS: &[&str] = &[
    r#"[Name = "j0"; Memory = 1024; RequestCpus = 2; RequestCount = 3; Arch = "X86_64"; x = 1; Prio = 5]"#,
    r#"[Name = "j1"; Memory = 4096; RequestCpus = 1; Arch = "INTEL"; Prio = 1; Rank = TARGET.Memory]"#,
    r#"[Name = "j2"; Memory = 100; RequestCpus = 4; RequestDisk = 60; RequestCount = 2; x = 2; Rank = -TARGET.Cpus]"#,
];

fn db() -> &'static Mutex<Db> {
    static DB: OnceLock<Mutex<Db>> = OnceLock::new();
    DB.get_or_init(|| Mutex::new(Db::open_in_memory().expect("db")))
}

/// Puts the offers afresh (a cycle's carving replaces none in a dry run, but the slots take
/// the input's expressions).
fn put_offers(db: &Db, slot_req: Option<&Expr>, slot_rank: Option<&Expr>) {
    put_ads(db);
    for (i, text) in SLOTS.iter().enumerate() {
        let mut ad: ClassAd = parse::classad(text).expect("slot");
        match (i, slot_req, slot_rank) {
            (0, Some(r), _) => ad.set("Requirements", r.clone()),
            (1, _, Some(r)) => ad.set("Rank", r.clone()),
            _ => {}
        }
        db.put_with_id("m", &format!("p{i}"), &ad).expect("put");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = steady_text(data) else {
        return;
    };
    let Some([Some(req), memory, slot_req, slot_rank]) = expressions::<4>(text) else {
        return;
    };
    let Ok(db) = db().lock() else {
        return;
    };
    put_offers(&db, slot_req.as_ref(), slot_rank.as_ref());
    for (i, text) in REQUESTS.iter().enumerate() {
        let mut ad: ClassAd = parse::classad(text).expect("request");
        ad.set("Requirements", req.clone());
        if let Some(m) = &memory {
            ad.set("RequestMemory", m.clone());
        }
        db.put_with_id("j", &format!("j{i}"), &ad).expect("put");
    }
    let naive = cycle(&db, true, false);
    assert_eq!(cycle(&db, false, false), naive, "indexed cycle of {text:?}");
    assert_eq!(cycle(&db, false, true), naive, "uncached cycle of {text:?}");
});
