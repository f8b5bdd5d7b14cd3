//! Gang cycles through the `Db`: whole gangs consumed with one match record each, dry runs and
//! one-request queries consuming nothing, priority order, plain ads docking through their
//! implicit port, and ads with bad ports reported by id while the cycle goes on.

use adjoin::gang::{Algorithm, GangOptions, PortsError};
use adjoin::query::parse;
use adjoin::Db;

/// A gang as (request, [(path, offer, port)]).
type Summary = (String, Vec<(String, String, usize)>);

const JOB: &str = r#"[Prio = PRIO; Ports = {
    [Label = Cpu; MemoryReqs = 10; Constraint = Cpu.Arch == "INTEL" && Cpu.Memory >= 64],
    [Label = License; HostId = Cpu.Key; Constraint = License.App == "sim"]}]"#;

fn db() -> Db {
    let db = Db::open_in_memory().expect("db");
    for (i, prio) in [1, 5, 3].into_iter().enumerate() {
        put(
            &db,
            "jobs",
            &format!("job{i}"),
            &JOB.replace("PRIO", &prio.to_string()),
        );
    }
    for (id, text) in [
        (
            "m0",
            r#"[Key = 7; Arch = "INTEL"; Memory = 32; Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory]}]"#,
        ),
        (
            "m1",
            r#"[Key = 8; Arch = "INTEL"; Memory = 128; Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory]}]"#,
        ),
        (
            "m2",
            r#"[Key = 9; Arch = "INTEL"; Memory = 128; Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory]}]"#,
        ),
    ] {
        put(&db, "machines", id, text);
    }
    put(
        &db,
        "licenses",
        "l0",
        r#"[App = "sim"; Ports = {[Label = Job; Constraint = Job.HostId == 9]}]"#,
    );
    put(
        &db,
        "licenses",
        "l1",
        r#"[App = "sim"; Ports = {[Label = Job; Constraint = Job.HostId >= 8]}]"#,
    );
    db
}

fn put(db: &Db, coll: &str, id: &str, text: &str) {
    let mut ad = parse::classad(text).expect(id);
    ad.set(
        "Name",
        adjoin::query::Expr::Lit(adjoin::query::Value::str(id)),
    );
    db.put(coll, &ad).expect("put");
}

fn ids(db: &Db, coll: &str) -> Vec<String> {
    db.scan(coll)
        .expect("scan")
        .map(|a| a.expect("ad").header.id)
        .collect()
}

#[test]
fn gangs_are_consumed_whole_with_one_record() {
    for alg in Algorithm::ALL {
        let db = db();
        let mut o = GangOptions::new("jobs", &["machines", "licenses"]);
        o.algorithm = alg;
        o.order_by = Some(parse::expr("Prio").expect("order"));
        let r = db.gang_cycle(&o).expect("cycle");
        // job1 (priority 5) first, then job2 (3); job0 finds no license left.
        let got: Vec<Summary> = r
            .gangs
            .iter()
            .map(|g| {
                (
                    g.request.clone(),
                    g.members
                        .iter()
                        .map(|m| (m.path.clone(), m.offer.clone(), m.port))
                        .collect(),
                )
            })
            .collect();
        assert_eq!(got.len(), 2, "{alg}: {got:?}");
        assert_eq!(got[0].0, "job1", "{alg}");
        assert_eq!(got[1].0, "job2", "{alg}");
        for (_, members) in &got {
            assert_eq!(
                members.iter().map(|m| m.0.as_str()).collect::<Vec<_>>(),
                ["Cpu", "License"],
                "{alg}"
            );
        }
        assert_eq!((r.requests, r.matched), (3, 2));
        let records = db.matches().expect("matches");
        assert_eq!(records.len(), 2);
        assert!(records.iter().all(|m| m.members.len() == 3 && m.cycle == 1));
        assert_eq!(ids(&db, "jobs"), ["job0"]);
        assert_eq!(ids(&db, "machines"), ["m0"]);
        assert!(ids(&db, "licenses").is_empty());
        // The next cycle has nothing to give.
        let r = db.gang_cycle(&o).expect("cycle 2");
        assert_eq!((r.requests, r.matched), (1, 0));
    }
}

#[test]
fn dry_runs_and_queries_consume_nothing() {
    let db = db();
    let mut o = GangOptions::new("jobs", &["machines", "licenses"]);
    o.dry_run = true;
    let r = db.gang_cycle(&o).expect("dry run");
    assert_eq!(r.matched, 2);
    assert!(r.gangs.iter().all(|g| g.record.is_none()));
    let job = parse::classad(&JOB.replace("PRIO", "0")).expect("job");
    let q = db.gang_query(&job, &o).expect("query");
    assert_eq!(q.matched, 1);
    let offers: Vec<&str> = q.gangs[0]
        .members
        .iter()
        .map(|m| m.offer.as_str())
        .collect();
    assert_eq!(offers, ["m1", "l1"]);
    assert!(db.matches().expect("matches").is_empty());
    assert_eq!(ids(&db, "jobs").len(), 3);
}

#[test]
fn plain_ads_dock_through_their_implicit_port() {
    let db = Db::open_in_memory().expect("db");
    put(
        &db,
        "jobs",
        "j",
        r#"[RequestMemory = 100; Requirements = TARGET.Memory >= MY.RequestMemory]"#,
    );
    put(
        &db,
        "slots",
        "small",
        r#"[Memory = 50; Requirements = true]"#,
    );
    put(
        &db,
        "slots",
        "big",
        r#"[Memory = 500; Requirements = TARGET.RequestMemory < 200]"#,
    );
    let r = db
        .gang_cycle(&GangOptions::new("jobs", &["slots"]))
        .expect("cycle");
    assert_eq!(r.gangs.len(), 1);
    assert_eq!(
        (
            r.gangs[0].members[0].path.as_str(),
            r.gangs[0].members[0].offer.as_str()
        ),
        ("other", "big")
    );
    // A two-port job cannot use one slot twice, even when the collection is named twice.
    let db = Db::open_in_memory().expect("db");
    put(
        &db,
        "jobs",
        "two",
        "[Ports = {[Label = a; Requirements = true], [Label = b; Requirements = true]}]",
    );
    put(&db, "slots", "only", "[Requirements = true]");
    let r = db
        .gang_cycle(&GangOptions::new("jobs", &["slots", "slots"]))
        .expect("cycle");
    assert_eq!((r.requests, r.matched), (1, 0), "{:?}", r.gangs);
    put(&db, "slots", "second", "[Requirements = true]");
    let r = db
        .gang_cycle(&GangOptions::new("jobs", &["slots", "slots"]))
        .expect("cycle");
    assert_eq!(r.matched, 1);
}

#[test]
fn bad_ports_are_reported_and_the_cycle_goes_on() {
    let db = db();
    put(
        &db,
        "jobs",
        "dup",
        "[Ports = {[Label = a; Constraint = true], [Label = A; Constraint = true]}]",
    );
    put(
        &db,
        "machines",
        "early",
        "[Ports = {[Label = x; Constraint = y.k > 1], [Label = y; Constraint = true]}]",
    );
    let r = db
        .gang_cycle(&GangOptions::new("jobs", &["machines", "licenses"]))
        .expect("cycle");
    assert_eq!(r.matched, 2);
    let mut bad: Vec<(String, String, PortsError)> = r.bad.clone();
    bad.sort_by(|a, b| a.1.cmp(&b.1));
    assert_eq!(bad.len(), 2);
    assert_eq!((bad[0].0.as_str(), bad[0].1.as_str()), ("jobs", "dup"));
    assert!(matches!(bad[0].2, PortsError::DuplicateLabel { .. }));
    assert_eq!(
        (bad[1].0.as_str(), bad[1].1.as_str()),
        ("machines", "early")
    );
    assert!(
        bad[1]
            .2
            .to_string()
            .contains("uses label y before its port 1"),
        "{}",
        bad[1].2
    );
    // The bad ads are still stored.
    assert!(ids(&db, "jobs").contains(&"dup".to_owned()));
}

/// A pool where a job's only gang is the last pair tried: its second port needs `A.X + B.X` to
/// hit one sum, so a search tries about `n²` dockings before it finds it.
fn late_gang_db(n: i64) -> Db {
    let db = Db::open_in_memory().expect("db");
    put(
        &db,
        "jobs",
        "job",
        &format!(
            "[Ports = {{[Label = A; Constraint = true], [Label = B; Constraint = A.X + B.X == {}]}}]",
            2 * n - 3
        ),
    );
    for i in 0..n {
        put(
            &db,
            "vals",
            &format!("v{i}"),
            &format!("[X = {i}; Requirements = true]"),
        );
    }
    db
}

/// More dockings than the old 200,000-docking budget that abandoned such a request as
/// gangless: the complete algorithms still find its gang.
#[test]
fn a_gang_found_only_after_many_dockings_is_still_found() {
    let db = late_gang_db(460);
    for alg in [Algorithm::Naive, Algorithm::Dyn] {
        let mut o = GangOptions::new("jobs", &["vals"]);
        o.algorithm = alg;
        o.dry_run = true;
        let r = db.gang_cycle(&o).expect("cycle");
        assert_eq!(r.matched, 1, "{alg}: {} evaluations", r.evaluations);
        assert!(r.gave_up.is_empty(), "{alg}");
    }
}

/// A search stopped by its bound is reported as given up, by request, never as gangless.
#[test]
fn a_search_stopped_at_its_bound_is_reported_as_given_up() {
    let db = late_gang_db(20);
    for alg in Algorithm::ALL {
        let mut o = GangOptions::new("jobs", &["vals"]);
        o.algorithm = alg;
        o.search_bound = Some(50);
        o.dry_run = true;
        let r = db.gang_cycle(&o).expect("cycle");
        assert_eq!(
            (r.matched, r.gave_up.clone()),
            (0, vec!["job".to_owned()]),
            "{alg}"
        );
        let q = db
            .gang_query(&parse::classad("[Ports = {[Label = A; Constraint = true], [Label = B; Constraint = A.X + B.X == 37]}]").expect("ad"), &o)
            .expect("query");
        assert_eq!(
            (q.matched, q.gave_up),
            (0, vec!["request".to_owned()]),
            "{alg}"
        );
        o.search_bound = None;
        let r = db.gang_cycle(&o).expect("cycle");
        assert_eq!((r.matched, r.gave_up.len()), (1, 0), "{alg}");
    }
}

/// `--dock` reads the whole Figure-32 environment: the machine port's `Score` reads the job's
/// port record through the label `Job` (undefined in the port's view alone, which left every
/// machine out), and the higher score (the later-loaded machine) wins.
#[test]
fn dock_vectors_read_the_gang_environment() {
    let db = Db::open_in_memory().expect("db");
    put(
        &db,
        "jobs",
        "job",
        "[Ports = {[Label = Cpu; Boost = 2; Constraint = true]}]",
    );
    for (id, memory) in [("m0", 10), ("m1", 20)] {
        put(
            &db,
            "machines",
            id,
            &format!(
                "[Memory = {memory}; Ports = {{[Label = Job; Score = Job.Boost * Memory; Constraint = true]}}]"
            ),
        );
    }
    // DYNSR starts each port's candidates at a random place: not ranked.
    for alg in [
        Algorithm::Naive,
        Algorithm::Lr,
        Algorithm::Dyn,
        Algorithm::Dyns,
    ] {
        let mut o = GangOptions::new("jobs", &["machines"]);
        o.algorithm = alg;
        o.dry_run = true;
        o.dock = vec![parse::expr("offer.Score + request.Cpu.Memory").expect("dock")];
        let r = db.gang_cycle(&o).expect("cycle");
        let got: Vec<&str> = r
            .gangs
            .iter()
            .flat_map(|g| g.members.iter().map(|m| m.offer.as_str()))
            .collect();
        assert_eq!(got, ["m1"], "{alg}");
    }
}
