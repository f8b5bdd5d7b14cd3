//! The search stays bounded on adversarial requests, and says so: the bound counts the work
//! done (a docking whose constraints have a thousand conjuncts costs what it evaluates and
//! probes, not one unit), a root past it is reported as given up (never as gangless), and a
//! request whose gang would pass the member limit is refused before any search. Counters
//! only, no clocks: each test runs in well under a second in release.

use super::{Algorithm, GangError, GangOptions, PortsError};
use crate::Db;
use adjoin_query::{parse, Expr, Value};

/// A bound small enough for quick tests (the default is 50 times it).
const BOUND: u64 = 2_000_000;

/// How far past the bound the last step of a search may reach: one probe of a
/// thousand-conjunct window, or one recheck of a gang of such constraints.
const LAST_STEP: u64 = 1_000_000;

fn put(db: &Db, coll: &str, id: &str, text: &str) {
    let mut ad = parse::classad(text).expect(id);
    ad.set("Name", Expr::Lit(Value::str(id)));
    db.put(coll, &ad).expect("put");
}

/// A request of `ports` ports, port `i` reading its partner through `cond(i)`.
fn request(ports: usize, cond: impl Fn(usize) -> String) -> String {
    let ps: Vec<String> = (0..ports)
        .map(|i| format!("[Label = p{i}; Requirements = {}]", cond(i)))
        .collect();
    format!("[Ports = {{{}}}]", ps.join(", "))
}

/// `n` offers with distinct `X` (so none stands for another), `X = first + j`.
fn offers(db: &Db, coll: &str, n: usize, first: usize) {
    for j in 0..n {
        put(
            db,
            coll,
            &format!("o{j}"),
            &format!("[X = {}; Requirements = true]", first + j),
        );
    }
}

fn cycle(db: &Db, alg: Algorithm, bound: Option<u64>) -> super::GangReport {
    let mut o = GangOptions::new("jobs", &["offers"]);
    o.algorithm = alg;
    o.search_bound = bound;
    o.dry_run = true;
    db.gang_cycle(&o).expect("cycle")
}

/// The audit's request: 11 ports, each constraint 1,000 conjuncts, over 10 offers (no gang:
/// 11 distinct offers are needed). Counted in dockings, the bound let it run for an hour; in
/// work, it stops after a handful of probes and evaluations, and is reported as given up.
#[test]
fn the_bound_counts_evaluation_and_probes_not_dockings() {
    let db = Db::open_in_memory().expect("db");
    let conj = |i: usize| {
        (1..=1000)
            .map(|k| format!("p{i}.X != {k}"))
            .collect::<Vec<_>>()
            .join(" && ")
    };
    put(&db, "jobs", "big", &request(11, conj));
    offers(&db, "offers", 10, 2000);
    for alg in Algorithm::ALL {
        let r = cycle(&db, alg, Some(BOUND));
        assert_eq!(
            (r.matched, r.gave_up.clone()),
            (0, vec!["big".to_owned()]),
            "{alg}"
        );
        assert!(
            r.most_work > BOUND && r.most_work <= BOUND + LAST_STEP,
            "{alg}: {}",
            r.most_work
        );
        // Each docking costs thousands of units: a few hundred dockings at most, where the
        // old count of dockings allowed two million.
        assert!(
            r.probes < 100 && r.evaluations < 1000,
            "{alg}: {} probes, {} evaluations",
            r.probes,
            r.evaluations
        );
    }
}

/// A request of 64 ports would make a gang of 65 members: refused as a bad request, with no
/// search spent on it; 63 ports still get their gang of 64.
#[test]
fn a_request_past_the_member_limit_is_refused_before_any_search() {
    let db = Db::open_in_memory().expect("db");
    let cond = |i: usize| format!("p{i}.X >= 0");
    put(&db, "jobs", "wide", &request(64, cond));
    offers(&db, "offers", 70, 0);
    for alg in Algorithm::ALL {
        let r = cycle(&db, alg, None);
        assert_eq!(r.requests, 1);
        assert_eq!(
            r.bad,
            vec![(
                "jobs".to_owned(),
                "wide".to_owned(),
                PortsError::TooManyMembers(65)
            )],
            "{alg}"
        );
        assert_eq!(
            (
                r.matched,
                r.gave_up.len(),
                r.probes,
                r.evaluations,
                r.most_work
            ),
            (0, 0, 0, 0, 0),
            "{alg}"
        );
    }
    let ad = parse::classad(&request(64, cond)).expect("ad");
    let q = db.gang_query(&ad, &GangOptions::new("jobs", &["offers"]));
    assert!(
        matches!(
            q,
            Err(GangError::BadRequest(PortsError::TooManyMembers(65)))
        ),
        "{q:?}"
    );
    let ad = parse::classad(&request(63, cond)).expect("ad");
    let q = db
        .gang_query(&ad, &GangOptions::new("jobs", &["offers"]))
        .expect("query");
    assert_eq!(q.gangs.first().map(|g| g.members.len()), Some(63));
}

/// The audit's chain: 26 ports, each partner's `X` above the previous port's, over 26 offers
/// (one gang: all of them in load order). DYN tries the lowest `X` first and walks straight
/// to it; DYNSR's random start puts a high `X` early, after which no candidate can finish the
/// chain and every shorter increasing run is tried: exponential, as is DYN on the mirrored
/// chain (each `X` below the previous). Neither prunes anything the other has (the failed
/// group rule is the same for both, and these constraints translate nothing for path
/// consistency): the search is exponential in the ports, and the bound stops it, reported.
#[test]
fn an_exponential_chain_is_given_up_at_the_bound_not_searched_for_ever() {
    for (rel, dyn_finds) in [(">", true), ("<", false)] {
        let db = Db::open_in_memory().expect("db");
        let cond = |i: usize| match i {
            0 => "p0.X >= 0".to_owned(),
            _ => format!("p{i}.X {rel} p{}.X", i - 1),
        };
        put(&db, "jobs", "chain", &request(26, cond));
        offers(&db, "offers", 26, 0);
        let r = cycle(&db, Algorithm::Dyn, Some(BOUND));
        assert_eq!(r.matched == 1, dyn_finds, "{rel}");
        assert_eq!(r.gave_up.is_empty(), dyn_finds, "{rel}");
        let r = cycle(&db, Algorithm::Dynsr, Some(BOUND));
        assert_eq!(
            (r.matched, r.gave_up.clone()),
            (0, vec!["chain".to_owned()]),
            "{rel}"
        );
        assert!(r.most_work <= BOUND + LAST_STEP, "{rel}: {}", r.most_work);
    }
}
