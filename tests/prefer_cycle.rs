//! Preferences in matchmaking cycles (issue 12): a request with `Preferences` docks with
//! `[preference order, request Rank, offer Rank]`, ties to the earliest-loaded offer; its
//! `PreferenceKeep` keeps the best fraction of its candidates; one whose `Preferences` cannot
//! be read is reported and not matched; clustered, uncached and naive cycles agree.

use adjoin::cycle::{self, CycleOptions, CycleReport};
use adjoin::query::Value;
use adjoin::storage::{IdRule, PutOptions};
use adjoin::{Db, LoadOptions};
use proptest::prelude::*;

/// A database with these machines and jobs (ids from `Key`), in load order.
fn pool(machines: &[String], jobs: &[String]) -> Db {
    let db = Db::open_in_memory().expect("db");
    let opts = LoadOptions {
        put: PutOptions {
            id: IdRule::attr("Key"),
            ..LoadOptions::default().put
        },
        ..LoadOptions::default()
    };
    for (coll, xs) in [("machines", machines), ("jobs", jobs)] {
        if !xs.is_empty() {
            db.load_text(coll, "t.ads", &xs.join("\n"), &opts)
                .expect("load");
        }
    }
    db
}

fn dry(db: &Db, naive: bool, no_clusters: bool) -> CycleReport {
    let mut o = CycleOptions::new("jobs", "machines");
    o.dry_run = true;
    o.naive = naive;
    o.no_clusters = no_clusters;
    cycle::run(db, &o).expect("cycle")
}

/// The (request, offer) pairs a cycle matched, in order.
fn pairs(r: &CycleReport) -> Vec<(&str, &str)> {
    r.matches
        .iter()
        .map(|m| (m.request.as_str(), m.offer.as_str()))
        .collect()
}

const OS: &str = r#"Preferences = {
  [ Name = "os";  Value = TARGET.OpSys; Order = {"LINUX", "OSX"} ],
  [ Name = "mem"; Value = TARGET.Memory >= 4096; Parents = {"os"};
    Table = { [ When = {"LINUX"}; Order = {true, false} ],
              [ When = {"OSX"};   Order = {false, true} ] } ] };"#;

fn machines() -> Vec<String> {
    [
        ("m0", "OSX", 8192),
        ("m1", "LINUX", 1024),
        ("m2", "LINUX", 8192),
        ("m3", "OSX", 1024),
        ("m4", "LINUX", 8192),
        ("m5", "WINDOWS", 9000),
    ]
    .iter()
    .map(|(k, os, mem)| {
        format!("[Key = \"{k}\"; OpSys = \"{os}\"; Memory = {mem}; Requirements = true]")
    })
    .collect()
}

#[test]
fn requests_with_preferences_take_their_most_preferred_offers() {
    let jobs = vec![
        format!("[Key = \"j0\"; RequestCount = 6; Rank = TARGET.Memory; {OS} Requirements = true]"),
        "[Key = \"j1\"; Requirements = true]".to_owned(),
    ];
    let db = pool(&machines(), &jobs);
    let r = dry(&db, false, false);
    let got = pairs(&r);
    // LINUX big (ties to the earliest), LINUX small, OSX small, OSX big, then other.
    assert_eq!(
        got,
        [
            ("j0", "m2"),
            ("j0", "m4"),
            ("j0", "m1"),
            ("j0", "m3"),
            ("j0", "m0"),
            ("j0", "m5")
        ]
    );
    // The default vector: [preference order, request Rank, offer Rank].
    assert_eq!(r.matches[0].vector.len(), 3);
    assert_eq!(r.matches[0].vector[1], Value::Int(8192));
    // Without preferences nothing changes: two components.
    let db = pool(&machines(), &jobs[1..]);
    let r = dry(&db, false, false);
    assert_eq!(
        (r.matches[0].offer.as_str(), r.matches[0].vector.len()),
        ("m0", 2)
    );
}

#[test]
fn keep_and_bad_preferences() {
    let jobs = vec![
        format!("[Key = \"j0\"; RequestCount = 6; PreferenceKeep = 0.5; {OS} Requirements = true]"),
        "[Key = \"j1\"; Preferences = {[Name = \"x\"; Value = 1; Order = {1, 1}]}; Requirements = true]".to_owned(),
        "[Key = \"j2\"; Requirements = true]".to_owned(),
    ];
    let db = pool(&machines(), &jobs);
    for r in [dry(&db, false, false), dry(&db, true, false)] {
        let got = pairs(&r);
        // Half of six candidates kept; j1 reported and not matched; j2 takes what is left.
        assert_eq!(
            got,
            [("j0", "m2"), ("j0", "m4"), ("j0", "m1"), ("j2", "m0")]
        );
        assert_eq!(r.bad_preferences.len(), 1);
        let e = r.bad_preferences[0].to_string();
        assert!(e.contains("ad j1") && e.contains("entry x"), "{e}");
    }
}

/// A random job: memory wanted, maybe preferences (some reading the job), maybe a keep.
fn job() -> impl Strategy<Value = String> {
    let prefs = prop_oneof![
        Just(""),
        Just(OS),
        Just("Preferences = {[Name = \"fit\"; Value = TARGET.Memory - MY.Mem < 2000; Order = {true}]};"),
    ];
    let keep = prop_oneof![Just(""), Just("PreferenceKeep = 0.4;")];
    let rank = prop_oneof![Just(""), Just("Rank = -TARGET.Memory;")];
    (0..4i64, prefs, keep, rank, 1..3u8).prop_map(|(m, prefs, keep, rank, count)| {
        format!("Mem = {}; RequestCount = {count}; {prefs} {keep} {rank} Requirements = TARGET.Memory >= Mem", m * 1500)
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn clustered_cycles_with_preferences_equal_naive_cycles(
        offers in prop::collection::vec((0..3usize, 0..6i64), 0..14),
        templates in prop::collection::vec(job(), 1..4),
        picks in prop::collection::vec(0..4usize, 0..16),
    ) {
        let machines: Vec<String> = offers
            .iter()
            .enumerate()
            .map(|(i, &(os, m))| {
                let os = ["LINUX", "OSX", "AIX"][os];
                format!("[Key = \"m{i}\"; OpSys = \"{os}\"; Memory = {}; Requirements = true]", m * 1000)
            })
            .collect();
        let jobs: Vec<String> = picks
            .iter()
            .enumerate()
            .map(|(i, &p)| format!("[Key = \"j{i}\"; {}]", templates[p % templates.len()]))
            .collect();
        let db = pool(&machines, &jobs);
        let clustered = dry(&db, false, false);
        let uncached = dry(&db, false, true);
        let naive = dry(&db, true, false);
        prop_assert_eq!(&clustered.matches, &naive.matches);
        prop_assert_eq!(&uncached.matches, &naive.matches);
    }
}
