//! Gang cycles killed midway leave whole gangs or nothing: a child process loads small base
//! workloads (jobs, machines, licenses) and runs durable gang cycles until the parent
//! SIGKILLs it at a random moment; the parent reopens the database and checks that every
//! match record's members are all consumed by that record, and that nothing was consumed
//! without one (the tombstones number exactly the members of the records).
//! The child is this test binary run again with `ADJOIN_GANG_CHILD` set.

mod common;

use adjoin::gang::GangOptions;
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::gangs::base;
use adjoin_workload::Rng;
use common::child;
use std::path::Path;
use std::time::Duration;

const CHILD_ENV: &str = "ADJOIN_GANG_CHILD";
const ROUNDS: u64 = 8;
const COLLECTIONS: [&str; 3] = ["jobs", "machines", "licenses"];

/// The child: loads 40 jobs, machines and licenses a round and runs a durable gang cycle,
/// forever (until killed).
#[test]
fn gang_crash_child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    let seed = child::env_u64("ADJOIN_GANG_SEED");
    let db = Db::open(&path).expect("child open");
    let put = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    for round in 0.. {
        let w = base(40, 50, 2, seed * 1000 + round).expect("workload");
        for (coll, ads) in COLLECTIONS.iter().zip([&w.jobs, &w.machines, &w.licenses]) {
            for ad in ads {
                db.put_with(coll, ad, &put).expect("put");
            }
        }
        db.flush().expect("flush");
        db.gang_cycle(&GangOptions::new("jobs", &["machines", "licenses"]))
            .expect("cycle");
    }
}

/// Runs one child on `path`, kills it after `after`.
fn run_child(path: &Path, seed: u64, after: Duration) {
    let env = [
        (CHILD_ENV, path.display().to_string()),
        ("ADJOIN_GANG_SEED", seed.to_string()),
    ];
    child::run_killed("gang_crash_child", &env, after);
}

#[test]
fn killed_gang_cycles_leave_whole_gangs() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let mut rng = Rng::new(0x9a9);
    let mut gangs_seen = 0;
    for round in 0..ROUNDS {
        run_child(
            &path,
            round,
            Duration::from_millis(rng.range(100, 600) as u64),
        );
        let db = Db::open(&path).unwrap_or_else(|e| panic!("round {round}: reopen: {e}"));
        let records = db.matches().expect("matches");
        let mut members = 0u64;
        for rec in &records {
            assert_eq!(
                rec.members.len(),
                3,
                "round {round}: a gang is a job, a machine and a license"
            );
            for m in &rec.members {
                assert!(
                    db.get(&m.collection, &m.id).expect("get").is_none(),
                    "round {round}: {m:?} live"
                );
                let ts = db.tombstone(&m.collection, &m.id).expect("tombstone");
                assert_eq!(
                    ts.and_then(|t| t.match_id),
                    Some(rec.id),
                    "round {round}: {m:?}"
                );
                members += 1;
            }
        }
        let stats = db.stats().expect("stats");
        let tombstones: u64 = stats
            .collections
            .iter()
            .filter(|c| COLLECTIONS.contains(&c.name.as_str()))
            .map(|c| c.tombstones)
            .sum();
        assert_eq!(
            tombstones, members,
            "round {round}: consumed without a record"
        );
        let check = db.check().expect("check");
        assert!(check.damage.is_empty(), "round {round}: {:?}", check.damage);
        gangs_seen = records.len();
    }
    assert!(gangs_seen > 0, "no gang was ever recorded");
}
