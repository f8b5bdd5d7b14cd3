//! Fuzz target: the gang search's promise. For any constraints on a request's two ports (the
//! input's first two lines; an empty second line leaves the request one port) and any
//! constraint on one offer's port (its third line, replacing that offer in the store), every
//! indexed algorithm (LR, DYN, DYNS, DYNSR) finds a gang exactly when the naive search does,
//! and the gang each finds is one: the naive search over only its members finds a gang too.
//! The offers mix machines (one with two ports), licenses, disks and plain ads, with types
//! mixed under one name, absent and undefined values, and attributes that read the docked
//! ads. A search may give up at a work bound (an expression of exponential cost); only
//! searches that did not are compared. Inputs reading the clock or `random()` are left out.
#![no_main]

use adjoin::gang::{Algorithm, GangOptions};
use adjoin::query::{parse, ClassAd, Expr};
use adjoin::Db;
use libfuzzer_sys::fuzz_target;
use std::sync::{Mutex, OnceLock};

mod common;
use common::{expressions, steady_text};

/// The offers; `o0`'s `job` port constraint is the input's third line.
const OFFERS: &[&str] = &[
    r#"[Key = 1; Memory = 2048; Arch = "X86_64"; Host = "h1"; Ports = {[Label = job; Requirements = true], [Label = disk; Requirements = disk.Host == Host]}]"#,
    r#"[Key = 2; Memory = 512.5; Arch = "x86_64"; Host = "h2"; Ports = {[Label = job; Requirements = job.Need <= 4]}]"#,
    r#"[Key = "3"; Memory = undefined; Arch = "INTEL"; Host = "h1"; Ports = {[Label = job; Requirements = job.Owner =!= "bob"; Need = job.Need * 2]}]"#,
    r#"[App = "sim"; Seats = 2; Ports = {[Label = job; Requirements = job.HostId == 1 || job.HostId == "3"]}]"#,
    r#"[App = "sim"; Seats = 0; Ports = {[Label = job; Requirements = isUndefined(job.HostId)]}]"#,
    r#"[App = 7; Ports = {[Label = job; Requirements = job.Need > Seats]}; Seats = 5]"#,
    r#"[Host = "h1"; Free = 30; Ports = {[Label = m; Requirements = m.Memory > 1000]}]"#,
    r#"[Host = "h2"; Free = 3; Ports = {[Label = m; Requirements = m.Memory =!= undefined]}]"#,
    r#"[Memory = 4096; Arch = "X86_64"; Key = 9; Requirements = TARGET.Need < 10]"#,
    r#"[Memory = 100; Arch = error; Key = 1.0; Requirements = other.Owner == "ann"]"#,
];

fn db() -> &'static Mutex<Db> {
    static DB: OnceLock<Mutex<Db>> = OnceLock::new();
    DB.get_or_init(|| {
        let db = Db::open_in_memory().expect("db");
        for (i, text) in OFFERS.iter().enumerate() {
            let ad = parse::classad(text).expect("offer");
            db.put_with_id("o", &format!("o{i}"), &ad).expect("put");
        }
        Mutex::new(db)
    })
}

/// The request: ports `cpu` and, when `lic` is given, `lic` (whose `HostId` reads the `cpu`
/// ad's `Key`).
fn request(cpu: &Expr, lic: Option<&Expr>) -> Option<ClassAd> {
    let mut ports = vec![format!("[Label = cpu; Requirements = {cpu}]")];
    if let Some(l) = lic {
        ports.push(format!(
            "[Label = lic; HostId = cpu.Key; Requirements = {l}]"
        ));
    }
    let text = format!(
        "[Owner = \"ann\"; Need = 2; Ports = {{{}}}]",
        ports.join(", ")
    );
    parse::classad(&text).ok()
}

/// What a search found: a gang (its offers' ids), none, or it gave up at the work bound.
#[derive(Debug, PartialEq)]
enum Found {
    Gang(Vec<String>),
    None,
    GaveUp,
}

/// Work one search may spend: enough for any gang of these offers, small enough that an
/// expression costing exponential work is given up on quickly (by every algorithm alike).
const BOUND: u64 = 1_000_000;

/// The gang `algorithm` finds for `req` among the offers of `db`'s collection `coll`.
fn found(db: &Db, coll: &str, req: &ClassAd, algorithm: Algorithm) -> Found {
    let opts = GangOptions {
        algorithm,
        search_bound: Some(BOUND),
        ..GangOptions::new("r", &[coll])
    };
    let Ok(report) = db.gang_query(req, &opts) else {
        // A request whose ports are bad is refused by every algorithm alike.
        return Found::None;
    };
    if !report.gave_up.is_empty() {
        return Found::GaveUp;
    }
    match report.gangs.into_iter().next() {
        Some(g) => Found::Gang(g.members.into_iter().map(|m| m.offer).collect()),
        None => Found::None,
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(text) = steady_text(data) else {
        return;
    };
    let Some([Some(cpu), lic, offer]) = expressions::<3>(text) else {
        return;
    };
    let Some(req) = request(&cpu, lic.as_ref()) else {
        return;
    };
    let Ok(db) = db().lock() else {
        return;
    };
    // o0's job port takes the third line (or `true`).
    let mut o0: ClassAd = parse::classad(OFFERS[0]).expect("offer");
    let job = offer.map_or_else(|| "true".to_owned(), |e| e.to_string());
    let ports = format!(
        "{{[Label = job; Requirements = {job}], [Label = disk; Requirements = disk.Host == Host]}}"
    );
    let Ok(ports) = parse::expr(&ports) else {
        return;
    };
    o0.set("Ports", ports);
    db.put_with_id("o", "o0", &o0).expect("put");
    let naive = found(&db, "o", &req, Algorithm::Naive);
    if naive == Found::GaveUp {
        return;
    }
    for alg in [
        Algorithm::Lr,
        Algorithm::Dyn,
        Algorithm::Dyns,
        Algorithm::Dynsr,
    ] {
        let got = found(&db, "o", &req, alg);
        // Giving up is allowed (the indexed searches count their work differently); finding
        // a gang, or none, must agree with the naive search.
        if got == Found::GaveUp {
            continue;
        }
        assert_eq!(
            matches!(got, Found::Gang(_)),
            matches!(naive, Found::Gang(_)),
            "{alg} against naive for {text:?}: {got:?} / {naive:?}"
        );
        if let Found::Gang(members) = got {
            // The members alone hold a gang: the naive search over them finds one.
            for id in &members {
                let stored = db.get("o", id).expect("get").expect("member");
                db.put_with_id("only", id, &stored.ad).expect("put");
            }
            let alone = found(&db, "only", &req, Algorithm::Naive);
            for id in &members {
                db.remove("only", id).expect("remove");
            }
            assert_ne!(
                alone,
                Found::None,
                "{alg}'s gang {members:?} for {text:?} is none"
            );
        }
    }
});
