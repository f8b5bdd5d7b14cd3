//! A restart after a kill replays only what came after the last checkpoint: a child process
//! writes (new ads, replacements, removals) into a collection whose held index is
//! checkpointed in the background, and is SIGKILLed a moment after a checkpoint; the parent
//! reopens the database and checks that the first indexed queries answer what a scan does,
//! that the index was restored from the checkpoint, and that it read only a small part of
//! the collection (not a full rebuild).
//! The child is this test binary run again with `ADJOIN_CKPT_CHILD` set.

use adjoin::query::eval::{eval_expr, EvalOptions};
use adjoin::query::{parse, Expr};
use adjoin::storage::{Durability, PutOptions};
use adjoin::{CheckpointPolicy, Db, DbOptions};
use adjoin_workload::{Rng, Workload};
use std::time::Duration;

mod common;
use common::child;

const CHILD_ENV: &str = "ADJOIN_CKPT_CHILD";
const BASE: u64 = 3_000;
const ROUNDS: u64 = 3;

fn options() -> DbOptions {
    DbOptions {
        checkpoints: Some(CheckpointPolicy {
            writes: 40,
            every: Duration::from_millis(200),
        }),
        ..DbOptions::default()
    }
}

fn constraints() -> Vec<Expr> {
    [
        "Memory >= 4096",
        "Cpus >= 2 && Memory < 8192",
        "Arch == \"X86_64\"",
        "true",
    ]
    .iter()
    .map(|c| parse::expr(c).expect("constraint"))
    .collect()
}

/// The child: writes one ad at a time, durably, forever (until killed), saying on stdout
/// whenever a background checkpoint was written.
#[test]
fn checkpoint_crash_child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let seed = child::env_u64("ADJOIN_CKPT_SEED");
    let db = Db::open_with(&path, &options()).expect("child open");
    // Hold the index (restored from the last checkpoint), so that writes follow it.
    db.count("machines", Some(&constraints()[0]))
        .expect("child count");
    let mut w = Workload::new(seed).expect("workload");
    let mut rng = Rng::new(seed ^ 0x5eed);
    let mut seen = db.checkpoints_written();
    let put = PutOptions {
        durability: Durability::Immediate,
        ..PutOptions::default()
    };
    for i in 0.. {
        match rng.range(0, 3) {
            // A new ad.
            0 => {
                let mut ad = w.slot_ad(BASE + seed * 1_000_000 + i);
                ad.set(
                    "Name",
                    adjoin::query::Expr::lit(adjoin::query::Value::str(&format!(
                        "new{seed}-{i}@child"
                    ))),
                );
                db.put_with("machines", &ad, &put).expect("put");
            }
            // A replacement of a base ad (same id, other attributes).
            1 => {
                let n = rng.range(0, BASE as i64) as u64;
                let mut ad = w.slot_ad(n + 7);
                let name = w.slot_ad(n).get("Name").cloned();
                if let Some(name) = name {
                    ad.set("Name", name);
                    // Later than any update before (HTCondor's stale-update guard).
                    let usn = (seed * 10_000_000 + 1_000_000 + i) as i64;
                    ad.set(
                        "UpdateSequenceNumber",
                        adjoin::query::Expr::lit(adjoin::query::Value::Int(usn)),
                    );
                    db.put_with("machines", &ad, &put).expect("replace");
                }
            }
            // A removal of a base ad.
            _ => {
                let n = rng.range(0, BASE as i64) as u64;
                if let Some(name) = w.slot_ad(n).get("Name").map(ToString::to_string) {
                    let _ = db.remove("machines", name.trim_matches('"'));
                }
            }
        }
        let now = db.checkpoints_written();
        if now != seen {
            seen = now;
            println!("checkpoint {now} after write {i}");
        }
    }
}

fn by_scan(db: &Db, constraint: &Expr) -> Vec<String> {
    let opts = EvalOptions::default();
    let mut ids: Vec<String> = db
        .scan("machines")
        .expect("scan")
        .map(|a| a.expect("ad"))
        .filter(|a| adjoin::db::selects(&eval_expr(constraint, &a.ad, &opts)))
        .map(|a| a.header.id)
        .collect();
    ids.sort();
    ids
}

#[test]
fn a_restart_after_a_kill_replays_only_what_came_after_the_last_checkpoint() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    {
        let db = Db::open_with(&path, &options()).expect("open");
        let mut w = Workload::new(1).expect("workload");
        for i in 0..BASE {
            db.put_with(
                "machines",
                &w.slot_ad(i),
                &PutOptions {
                    durability: Durability::Buffered,
                    ..PutOptions::default()
                },
            )
            .expect("put");
        }
        db.count("machines", None).expect("count");
        db.close().expect("close");
    }
    let mut rng = Rng::new(0xc4a5);
    for round in 0..ROUNDS {
        let env = [
            (CHILD_ENV, path.display().to_string()),
            ("ADJOIN_CKPT_SEED", (round + 1).to_string()),
        ];
        child::run_killed_after_lines(
            "checkpoint_crash_child",
            &env,
            "checkpoint ",
            rng.range(1, 3) as usize,
            Duration::from_millis(rng.range(20, 150) as u64),
        );
        let db = Db::open_with(&path, &options()).expect("reopen");
        let live = db.store().stored_count("machines").expect("count");
        for (i, e) in constraints().iter().enumerate() {
            let mut got: Vec<String> = db.indexed_query("machines", e).expect("indexed query").ids;
            got.sort();
            assert_eq!(got, by_scan(&db, e), "round {round}, constraint {i}");
        }
        let made = db.with_index("machines", |h| h.made()).expect("index");
        assert!(made.restored, "round {round}: {made:?}");
        assert!(
            (made.replayed as u64) < live / 4,
            "round {round}: replayed {} of {live} ads: {made:?}",
            made.replayed
        );
        eprintln!("round {round}: {live} ads, {made:?}");
        db.close().expect("close");
    }
}
