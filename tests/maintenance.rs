//! Maintenance: what a steady load leaves behind (expired ads, lapsed tombstones with the dead
//! records of consumed ads) is removed in bounded steps by `Db::maintain` and by the background
//! thread of `Db::spawn_maintenance`; `stats` reports what is due; the held index and the
//! store agree all along.

use adjoin::cycle::CycleOptions;
use adjoin::query::parse;
use adjoin::storage::{Expiry, PutOptions};
use adjoin::{Db, DbOptions};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// A database on disk with a hand-driven clock and tombstones lasting 10 s.
fn db_at(clock: &Arc<AtomicI64>) -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().expect("tempdir");
    let c = Arc::clone(clock);
    let opts = DbOptions {
        tombstone_ttl: 10,
        clock: Some(adjoin::db::ClockFn(Arc::new(move || {
            c.load(Ordering::SeqCst)
        }))),
        ..DbOptions::default()
    };
    let db = Db::open_with(dir.path().join("db"), &opts).expect("open");
    (dir, db)
}

/// `n` slots and `n` jobs that match one to one, and `n` slots expiring at 50.
fn fill(db: &Db, n: usize) {
    for i in 0..n {
        let slot = parse::classad(&format!("[Name = \"s{i}\"; Requirements = true]")).expect("ad");
        let job = parse::classad(&format!("[Name = \"j{i}\"; Requirements = true]")).expect("ad");
        let short =
            parse::classad(&format!("[Name = \"x{i}\"; Requirements = false]")).expect("ad");
        db.put("slots", &slot).expect("put");
        db.put("jobs", &job).expect("put");
        let opts = PutOptions {
            expiry: Expiry::At(50),
            ..PutOptions::default()
        };
        db.put_with("slots", &short, &opts).expect("put");
    }
}

/// (lapsed tombstones, dead records, expired ads) as `stats` reports them.
fn due(db: &Db) -> (u64, u64, u64) {
    let s = db.stats().expect("stats");
    let dead = s.collections.iter().map(|c| c.dead).sum();
    let expired = s.collections.iter().map(|c| c.expired).sum();
    (s.lapsed_tombstones, dead, expired)
}

#[test]
fn maintenance_removes_what_a_load_leaves_behind_in_steps() {
    let clock = Arc::new(AtomicI64::new(10));
    let (_dir, db) = db_at(&clock);
    fill(&db, 300);
    // Queries hold the indexes, which must follow every maintenance step.
    let constraint = parse::expr("Requirements").expect("expr");
    assert_eq!(db.count("slots", Some(&constraint)).expect("count"), 300);
    let r = db
        .match_cycle(&CycleOptions::new("jobs", "slots"))
        .expect("cycle");
    assert_eq!(r.matches.len(), 300);
    assert_eq!(due(&db), (0, 600, 0), "consumed ads stay as dead records");
    let dead_bytes = |db: &Db| -> u64 {
        let s = db.stats().expect("stats");
        s.collections.iter().map(|c| c.dead_bytes).sum()
    };
    // Their bytes, as the blocks' directories give them: every record has a body.
    assert!(dead_bytes(&db) >= 600, "{}", dead_bytes(&db));
    clock.store(100, Ordering::SeqCst);
    assert_eq!(
        due(&db),
        (600, 600, 300),
        "tombstones lapsed, short slots expired"
    );
    // A budget smaller than the work: done says so; the next call goes on.
    let first = db.maintain(400).expect("maintain");
    assert_eq!((first.ads, first.tombstones, first.done), (300, 100, false));
    let rest = db.maintain(u64::MAX).expect("maintain");
    assert_eq!((rest.ads, rest.tombstones, rest.done), (0, 500, true));
    assert_eq!(due(&db), (0, 0, 0));
    assert_eq!(
        dead_bytes(&db),
        0,
        "the dead records went with their tombstones"
    );
    let again = db.maintain(u64::MAX).expect("maintain");
    assert_eq!((again.ads, again.tombstones, again.done), (0, 0, true));
    // The held index and the store agree; the database checks clean.
    assert_eq!(db.count("slots", None).expect("count"), 0);
    assert_eq!(db.count("slots", Some(&constraint)).expect("count"), 0);
    let report = db.check().expect("check");
    assert!(report.is_clean(), "{:?}", report.damage);
    // The ids are free again.
    let slot = parse::classad("[Name = \"s1\"; Requirements = true]").expect("ad");
    db.put("slots", &slot).expect("a lapsed id is stored again");
    assert_eq!(db.count("slots", Some(&constraint)).expect("count"), 1);
}

#[test]
fn a_background_thread_keeps_the_store_maintained() {
    let clock = Arc::new(AtomicI64::new(10));
    let (_dir, db) = db_at(&clock);
    let db = Arc::new(db);
    fill(&db, 50);
    db.match_cycle(&CycleOptions::new("jobs", "slots"))
        .expect("cycle");
    clock.store(100, Ordering::SeqCst);
    let handle = db
        .spawn_maintenance(Duration::from_millis(10), 1000)
        .expect("thread");
    // Wait (bounded) for the thread's rounds to remove everything due.
    let mut rounds = 0;
    while due(&db) != (0, 0, 0) && rounds < 500 {
        std::thread::sleep(Duration::from_millis(20));
        rounds += 1;
    }
    drop(handle);
    assert_eq!(due(&db), (0, 0, 0));
    assert!(db.check().expect("check").is_clean());
}
