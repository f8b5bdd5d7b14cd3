//! Partitionable offers in matchmaking cycles: a match carves its share out of a
//! `PartitionableSlot` offer, which stays with its resources reduced and takes further
//! requests while it has room. The indexed cycle agrees with the naive one on random pools
//! of static and partitionable offers; a durable cycle records each match with its share,
//! stores each offer's remainder (what is left equals what it had less the shares recorded)
//! and makes the matches of its dry run; the real slot ads load, match and load again.

mod common;

use adjoin::cycle::CycleReport;
use adjoin::query::{ClassAd, Expr, Value};
use adjoin::{Db, LoadOptions};
use common::cycles::{load, pairs, run};
use proptest::prelude::*;
use std::collections::HashMap;
use std::path::Path;

/// An integer attribute of `ad`.
fn int(ad: &ClassAd, name: &str) -> i64 {
    match ad.get(name) {
        Some(Expr::Lit(Value::Int(i))) => *i,
        other => panic!("{name}: {other:?}"),
    }
}

/// An offer: `Key`, resources, partitionable or not, a rank (`shape` 0–3) and Requirements
/// that check the request's share (`shape` 0–3) or read nothing of it (4–7: only the carving
/// stands between a request and an offer too small for it).
fn offer(k: usize, cpus: i64, mem: i64, part: bool, shape: u8) -> String {
    let rank = ["0", "MY.Memory / 1024", "TARGET.RequestCpus", "MY.Cpus"][shape as usize % 4];
    let requirements = match shape < 4 {
        true => "TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory",
        false => "true",
    };
    format!(
        "[Key = \"m{k}\"; Cpus = {cpus}; Memory = {mem}; Disk = 10000; PartitionableSlot = {part}; \
         Rank = {rank}; Requirements = {requirements}]"
    )
}

/// A request: `Key`, what it asks, how many, a rank (`shape` 0–3), and Requirements reading
/// the offer's Cpus (`shape` 0–3) or nothing (4–7).
fn request(k: usize, cpus: i64, mem: i64, count: i64, shape: u8) -> String {
    let rank = shape;
    let rank = [
        "0",
        "TARGET.Memory",
        "-TARGET.Cpus",
        "TARGET.Cpus * 1000 - TARGET.Memory",
    ][rank as usize % 4];
    let requirements = match shape < 4 {
        true => "TARGET.Cpus >= RequestCpus",
        false => "true",
    };
    format!(
        "[Key = \"j{k}\"; RequestCpus = {cpus}; RequestMemory = {mem}; RequestDisk = 100; \
         RequestCount = {count}; Rank = {rank}; Requirements = {requirements}]"
    )
}

fn pool() -> impl Strategy<Value = (Vec<String>, Vec<String>)> {
    let offers = prop::collection::vec((1i64..9, 1i64..9, any::<bool>(), 0u8..8), 1..8);
    let requests = prop::collection::vec((1i64..4, 1i64..5, 1i64..4, 0u8..8), 1..14);
    (offers, requests).prop_map(|(os, rs)| {
        let offers = os
            .into_iter()
            .enumerate()
            .map(|(k, (c, m, p, r))| offer(k, c, m * 1024, p, r))
            .collect();
        let requests = rs
            .into_iter()
            .enumerate()
            .map(|(k, (c, m, n, r))| request(k, c, m * 512, n, r))
            .collect();
        (offers, requests)
    })
}

fn db_of(offers: &[String], requests: &[String]) -> Db {
    let db = Db::open_in_memory().expect("db");
    load(&db, "machines", offers);
    load(&db, "jobs", requests);
    db
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, .. ProptestConfig::default() })]

    #[test]
    fn indexed_partitionable_cycles_agree_with_naive_and_durable_with_dry((offers, requests) in pool()) {
        let db = db_of(&offers, &requests);
        let indexed = run(&db, |o| o.dry_run = true);
        let naive = run(&db, |o| { o.dry_run = true; o.naive = true; });
        prop_assert_eq!(&indexed.matches, &naive.matches);
        let durable = run(&db, |_| {});
        let strip = |r: &CycleReport| -> Vec<(String, String, Vec<Value>)> {
            r.matches.iter().map(|m| (m.request.clone(), m.offer.clone(), m.vector.clone())).collect()
        };
        prop_assert_eq!(strip(&durable), strip(&indexed));
        prop_assert!(durable.matches.iter().all(|m| m.record.is_some()));
        // What each partitionable offer has left is what it had less the shares recorded;
        // a matched static offer is consumed.
        let mut cpus: HashMap<String, i64> = HashMap::new();
        let mut mem: HashMap<String, i64> = HashMap::new();
        for rec in db.matches().expect("matches") {
            let o = &rec.members[1];
            match &o.rank {
                Some(Value::Ad(share)) => {
                    prop_assert!(!o.consumed);
                    *cpus.entry(o.id.clone()).or_default() += int(share, "Cpus");
                    *mem.entry(o.id.clone()).or_default() += int(share, "Memory");
                }
                _ => prop_assert!(o.consumed),
            }
        }
        for (k, text) in offers.iter().enumerate() {
            let before = adjoin::query::parse::classad(text).expect("offer");
            let id = format!("m{k}");
            let now = db.get("machines", &id).expect("get");
            let part = text.contains("PartitionableSlot = true");
            let matched = durable.matches.iter().any(|m| m.offer == id);
            match (part, now) {
                (true, Some(now)) => {
                    prop_assert_eq!(int(&now.ad, "Cpus"), int(&before, "Cpus") - cpus.get(&id).copied().unwrap_or(0));
                    prop_assert_eq!(int(&now.ad, "Memory"), int(&before, "Memory") - mem.get(&id).copied().unwrap_or(0));
                }
                (false, now) => prop_assert_eq!(now.is_none(), matched, "{}", id),
                (true, None) => prop_assert!(false, "partitionable {} gone", id),
            }
        }
        prop_assert!(db.check().expect("check").is_clean());
    }
}

#[test]
fn a_partitionable_offer_takes_requests_while_it_has_room() {
    let db = db_of(
        &[offer(0, 4, 8192, true, 0), offer(1, 1, 1024, false, 0)],
        &[
            request(0, 2, 2048, 1, 0),
            request(1, 1, 1024, 3, 0),
            request(2, 1, 4096, 1, 0),
        ],
    );
    let r = run(&db, |_| {});
    let got = pairs(&r);
    // j0 carves 2 of m0's 4 CPUs; j1 wants three: m0's two left, then static m1; j2 finds
    // m0 out of CPUs and m1 consumed.
    assert_eq!(
        got,
        [("j0", "m0"), ("j1", "m0"), ("j1", "m0"), ("j1", "m1")]
    );
    let m0 = db.get("machines", "m0").expect("get").expect("m0 stays");
    assert_eq!(
        (
            int(&m0.ad, "Cpus"),
            int(&m0.ad, "Memory"),
            int(&m0.ad, "Disk")
        ),
        (0, 4096, 9700)
    );
    assert!(db.get("machines", "m1").expect("get").is_none());
    let recs = db.matches().expect("matches");
    assert_eq!(
        recs[0].members[1]
            .rank
            .as_ref()
            .map(ToString::to_string)
            .as_deref(),
        Some("[ Rank = 0; Cpus = 2; Memory = 2048; Disk = 100 ]")
    );
    // Whole slots: the old consumption.
    let db = db_of(&[offer(0, 4, 8192, true, 0)], &[request(0, 1, 1024, 2, 0)]);
    let r = run(&db, |o| o.whole_slots = true);
    assert_eq!(r.matches.len(), 1);
    assert!(db.get("machines", "m0").expect("get").is_none());
}

/// The real slot ads of the README's tour.
fn real_slots() -> Vec<std::path::PathBuf> {
    let tour = Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/tour");
    ["basic4slot", "partionable8core", "small1slot"]
        .iter()
        .map(|f| tour.join(format!("StatusAds-{f}")))
        .collect()
}

#[test]
fn real_slot_ads_load_match_and_load_again() {
    let db = Db::open_in_memory().expect("db");
    let slots = real_slots();
    let first = db
        .load_files("machines", &slots, &LoadOptions::default(), &mut |_| {})
        .expect("load");
    assert!(first.bad.is_empty(), "{:?}", first.bad);
    let jobs: Vec<String> = (0..3)
        .map(|k| {
            format!(
                "[Key = \"j{k}\"; MyType = \"Job\"; Owner = \"raman\"; JobUniverse = 5; NumCkpts = 0; \
                 RequestCpus = 1; RequestMemory = 1024; RequestDisk = 1000000; \
                 Requirements = TARGET.Arch == \"X86_64\" && TARGET.State == \"Unclaimed\"; Rank = TARGET.Memory]"
            )
        })
        .collect();
    load(&db, "jobs", &jobs);
    let r = run(&db, |_| {});
    let pslot = "slot1@ingwe.cs.wisc.edu";
    let on_pslot = r.matches.iter().filter(|m| m.offer == pslot).count();
    assert_eq!(on_pslot, 3, "{:?}", r.matches);
    let left = db.get("machines", pslot).expect("get").expect("stays");
    assert_eq!(
        (int(&left.ad, "Cpus"), int(&left.ad, "Memory")),
        (1, 15428 - 3 * 1024)
    );
    // The collector's files again: every slot re-advertises (the partitionable one's
    // UpdateSequenceNumber equals the stored remainder's), but for the 4-slot machine's
    // slot1, an update from an earlier start of a daemon that since advertised the
    // partitionable slot1: stale.
    let again = db
        .load_files("machines", &slots, &LoadOptions::default(), &mut |_| {})
        .expect("load again");
    assert!(again.bad.is_empty(), "{:?}", again.bad);
    let stale: Vec<String> = again.stale.iter().map(ToString::to_string).collect();
    assert_eq!(stale.len(), 1, "{stale:?}");
    assert!(stale[0].contains("stale update of ad slot1@ingwe.cs.wisc.edu in machines: UpdateSequenceNumber 8 (DaemonStartTime 1417808219) is older than the stored ad's 8 (DaemonStartTime 1417808273)"), "{stale:?}");
    assert_eq!(again.stored.len(), first.stored.len() - 1);
    let back = db.get("machines", pslot).expect("get").expect("back");
    assert_eq!(int(&back.ad, "Cpus"), 4);
    assert_eq!(db.matches().expect("matches").len(), 3);
    assert!(db.check().expect("check").is_clean());
}

#[test]
fn requests_alike_but_for_their_shares_carve_their_own() {
    // Nothing reads the requests' shares but the carving: requests of one shape that ask for
    // different shares must not stand in for each other (`big` cannot have 8 of 4 CPUs).
    let offers = [
        "[Key = \"s1\"; PartitionableSlot = true; Cpus = 4; Memory = 8192; Requirements = true]",
    ];
    let requests = [
        "[Key = \"small0\"; RequestCpus = 1; Requirements = true]",
        "[Key = \"big\"; RequestCpus = 8; Requirements = true]",
        "[Key = \"small\"; RequestCpus = 1; Requirements = true]",
    ];
    let dir = tempfile::tempdir().expect("tempdir");
    for on_disk in [false, true] {
        let db = match on_disk {
            true => Db::open(dir.path().join("db")).expect("db"),
            false => Db::open_in_memory().expect("db"),
        };
        load(&db, "machines", &offers);
        load(&db, "jobs", &requests);
        for naive in [false, true] {
            let got = run(&db, |o| {
                o.dry_run = true;
                o.naive = naive;
            });
            assert_eq!(
                pairs(&got),
                [("small0", "s1"), ("small", "s1")],
                "naive {naive}, on disk {on_disk}"
            );
        }
        db.close().expect("close");
    }
}
