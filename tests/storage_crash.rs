//! Crash consistency: a child process writes durably and prints each acknowledged write; the
//! parent SIGKILLs it at a random moment, reopens, and checks that every acknowledged ad is
//! present and intact, every acknowledged consumption holds, every match record has its ads
//! consumed, and nothing partial is visible.
//! The child is this test binary run again with `ADJOIN_CRASH_CHILD` set.

mod common;

use adjoin::query::{ClassAd, Expr, Value};
use adjoin::storage::{AfterRefusal, Durability, NewMatch, NewMember, PutOptions};
use adjoin::{Db, DbOptions};
use adjoin_workload::Rng;
use common::child;
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use std::time::Duration;

const CHILD_ENV: &str = "ADJOIN_CRASH_CHILD";
const ROUNDS: u64 = 24;

/// The ad stored under number `k`: its content follows from `k`.
fn ad_for(k: u64) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.set("Name", Expr::lit(Value::str(&format!("c{k}"))));
    ad.set("Serial", Expr::lit(Value::Int(k as i64)));
    ad.set("Memory", Expr::lit(Value::Int((k * 37 % 4096) as i64)));
    ad.set(
        "Payload",
        Expr::lit(Value::str(&format!("{k:x}").repeat(1 + (k % 50) as usize))),
    );
    ad.set("LoadAvg", Expr::lit(Value::Real(k as f64 / 7.0)));
    for i in 0..20 {
        ad.set(&format!("Attr{i}"), Expr::lit(Value::Int((k ^ i) as i64)));
    }
    ad
}

fn options() -> DbOptions {
    DbOptions {
        chunk_size: 25,
        ..DbOptions::default()
    }
}

/// The child: writes forever (until killed), printing `put ID` after a put or a committed
/// chunk returns, and `consumed ID MATCH` after a match (alone or in a group) commits. Numbers start at `$START`.
#[test]
fn crash_child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let start = child::env_u64("ADJOIN_CRASH_START");
    let db = Db::open_with(&path, &options()).expect("child open");
    let mut rng = Rng::new(start);
    let mut k = start;
    let mut live: Vec<u64> = Vec::new();
    loop {
        // Pace the writes so that a round stores hundreds of ads, not tens of thousands.
        std::thread::sleep(std::time::Duration::from_millis(1));
        match rng.range(0, 11) {
            0..=5 => {
                db.put("slots", &ad_for(k)).expect("put");
                println!("put c{k}");
                live.push(k);
                k += 1;
            }
            6..=7 => {
                let opts = PutOptions {
                    durability: Durability::Immediate,
                    ..PutOptions::default()
                };
                let mut l = db.store().loader("slots", opts);
                for _ in 0..8 {
                    let before = l.results().len();
                    if l.push(&ad_for(k)).expect("push") > 0 {
                        for r in &l.results()[before..] {
                            println!("put {}", r.as_ref().expect("stored").id);
                        }
                    }
                    live.push(k);
                    k += 1;
                }
                let before = l.results().len();
                l.commit().expect("commit");
                for r in &l.results()[before..] {
                    println!("put {}", r.as_ref().expect("stored").id);
                }
            }
            10 => {
                // Re-store a few acknowledged ads (same content) among new ones: their blocks,
                // shared with other acknowledged ads, are rewritten in place.
                if live.is_empty() {
                    continue;
                }
                let opts = PutOptions {
                    durability: Durability::Immediate,
                    ..PutOptions::default()
                };
                let mut l = db.store().loader("slots", opts);
                for j in 0..6 {
                    let n = if j % 2 == 0 {
                        live[rng.range(0, live.len() as i64) as usize]
                    } else {
                        live.push(k);
                        k += 1;
                        k - 1
                    };
                    l.push(&ad_for(n)).expect("push");
                }
                let before = l.results().len();
                l.commit().expect("commit");
                for r in &l.results()[before..] {
                    println!("put {}", r.as_ref().expect("stored").id);
                }
            }
            9 => {
                // Group commit: a few matches in one transaction, one of them refused (its ad
                // consumed by an earlier match of the batch).
                let n = live.len().min(3);
                if n == 0 {
                    continue;
                }
                let mut victims: Vec<u64> = (0..n)
                    .map(|_| live.swap_remove(rng.range(0, live.len() as i64) as usize))
                    .collect();
                victims.push(victims[0]);
                let ms: Vec<NewMatch> = victims
                    .iter()
                    .map(|v| NewMatch {
                        cycle: k,
                        members: vec![NewMember {
                            collection: "slots".into(),
                            id: format!("c{v}"),
                            rank: None,
                            consume: true,
                        }],
                    })
                    .collect();
                // Flushed with the batch, or (as a cycle's groups are) committed buffered and
                // flushed after: a kill in between may lose the batch, never part of it.
                let buffered = rng.range(0, 2) == 0;
                let durability = if buffered {
                    Durability::Buffered
                } else {
                    Durability::Immediate
                };
                let outcomes = db
                    .record_matches_with(&ms, AfterRefusal::Continue, durability)
                    .expect("batch");
                if buffered {
                    db.flush().expect("flush");
                }
                for (v, r) in victims.iter().zip(&outcomes).take(n) {
                    println!("consumed c{v} {}", r.as_ref().expect("match").id);
                }
                assert!(outcomes[n].is_err(), "consumed twice");
            }
            _ => {
                if live.is_empty() {
                    continue;
                }
                let victim = live.swap_remove(rng.range(0, live.len() as i64) as usize);
                let m = db
                    .record_match(&NewMatch {
                        cycle: k,
                        members: vec![NewMember {
                            collection: "slots".into(),
                            id: format!("c{victim}"),
                            rank: Some(Value::Int(1)),
                            consume: true,
                        }],
                    })
                    .expect("match");
                println!("consumed c{victim} {}", m.id);
            }
        }
    }
}

/// Runs one child on `path` from number `start`, kills it after `after`, returns its lines.
fn run_child(path: &Path, start: u64, after: Duration) -> Vec<String> {
    let env = [
        (CHILD_ENV, path.display().to_string()),
        ("ADJOIN_CRASH_START", start.to_string()),
    ];
    child::run_killed("crash_child", &env, after)
}

#[test]
fn acknowledged_writes_survive_sigkill() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let mut rng = Rng::new(0x5eed);
    let mut present: BTreeSet<String> = BTreeSet::new();
    let mut consumed: BTreeMap<String, u64> = BTreeMap::new();
    let mut start = 0u64;
    for round in 0..ROUNDS {
        let after = Duration::from_millis(rng.range(20, 300) as u64);
        let lines = run_child(&path, start, after);
        let mut acked = 0;
        let mut late_consumed: Vec<(String, u64)> = Vec::new();
        let mut fresh: BTreeSet<String> = BTreeSet::new();
        for line in &lines {
            let parts: Vec<&str> = line.split_whitespace().collect();
            match parts.as_slice() {
                ["put", id] => {
                    present.insert(id.to_string());
                    fresh.insert(id.to_string());
                    acked += 1;
                }
                ["consumed", id, m] => {
                    present.remove(*id);
                    consumed.insert(id.to_string(), m.parse().expect("match id"));
                    acked += 1;
                }
                _ => {}
            }
        }
        let db = Db::open_with(&path, &options())
            .unwrap_or_else(|e| panic!("round {round}: reopen failed: {e}"));
        // Every ad acknowledged this round, and a tenth of the older ones, in full.
        for (n, id) in present.iter().enumerate() {
            if !fresh.contains(id) && n % 10 != round as usize % 10 {
                continue;
            }
            let Some(got) = db
                .get("slots", id)
                .unwrap_or_else(|e| panic!("round {round}: {id}: {e}"))
            else {
                // Absent is right only if a match the child committed, but was killed before
                // acknowledging, consumed it: then the tombstone names that match.
                let ts = db.tombstone("slots", id).expect("tombstone");
                let m = ts
                    .and_then(|t| t.match_id)
                    .unwrap_or_else(|| panic!("round {round}: acknowledged ad {id} lost"));
                let rec = db
                    .get_match(m)
                    .expect("match")
                    .unwrap_or_else(|| panic!("round {round}: match {m} of {id} missing"));
                assert_eq!(rec.members[0].id, *id);
                late_consumed.push((id.clone(), m));
                continue;
            };
            let k: u64 = id[1..].parse().expect("number");
            assert_eq!(
                got.ad.to_string(),
                ad_for(k).to_string(),
                "round {round}: {id} intact"
            );
        }
        for (id, m) in &consumed {
            assert!(
                db.get("slots", id).expect("get").is_none(),
                "round {round}: consumed {id} is back"
            );
            let rec = db
                .get_match(*m)
                .expect("match")
                .unwrap_or_else(|| panic!("match {m} lost"));
            assert_eq!(rec.members[0].id, *id);
        }
        for (id, m) in late_consumed {
            present.remove(&id);
            consumed.insert(id, m);
        }
        // Nothing partial: every stored ad decodes to the ad its number gives, and the trees
        // agree with each other.
        let mut max = start;
        for ad in db.scan("slots").expect("scan") {
            let ad = ad.unwrap_or_else(|e| panic!("round {round}: torn record: {e}"));
            let k: u64 = ad.id()[1..].parse().expect("number");
            let want = ad_for(k);
            let serial = ad.ad.get("Serial").map(|e| e.to_string());
            let payload = ad.ad.get("Payload").map(|e| e.to_string());
            assert_eq!(
                (ad.ad.len(), serial, payload),
                (
                    want.len(),
                    want.get("Serial").map(|e| e.to_string()),
                    want.get("Payload").map(|e| e.to_string())
                ),
                "round {round}: {}",
                ad.id()
            );
            max = max.max(k + 1);
        }
        // Every match record has its ads consumed, by it: a group of matches commits whole.
        for rec in db.matches().expect("matches") {
            for m in rec.members.iter().filter(|m| m.consumed) {
                assert!(
                    db.get("slots", &m.id).expect("get").is_none(),
                    "round {round}"
                );
                let ts = db.tombstone("slots", &m.id).expect("tombstone");
                assert_eq!(ts.and_then(|t| t.match_id), Some(rec.id), "round {round}");
            }
        }
        let report = db.check().expect("check");
        assert!(report.is_clean(), "round {round}: {:?}", report.damage);
        assert!(
            acked > 0 || round > 0,
            "the child acknowledged nothing in {after:?}"
        );
        // Ads written but not acknowledged may be there; the next child starts past them.
        start = max.max(start) + 1000;
        db.close().expect("close before the next child opens");
    }
    assert!(
        present.len() > 100,
        "too little was written to test: {}",
        present.len()
    );
}
