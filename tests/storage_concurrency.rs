//! Concurrency: reader threads run gets and scans while a writer replaces, adds, removes and
//! consumes ads; no reader ever sees a torn ad (every attribute of an ad carries the same
//! version), and `Db` is shared as `Arc<Db>` across threads.

use adjoin::query::{ClassAd, Expr, Value};
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

const SLOTS: u64 = 50;
const ATTRS: usize = 30;

/// Slot `k` at `version`: every `A<i>` attribute holds the version.
fn ad(k: u64, version: u64) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.set("Name", Expr::lit(Value::str(&format!("slot{k}"))));
    ad.set("Version", Expr::lit(Value::Int(version as i64)));
    for i in 0..ATTRS {
        ad.set(&format!("A{i}"), Expr::lit(Value::Int(version as i64)));
    }
    ad.set("Tail", Expr::lit(Value::str(&format!("v{version}"))));
    ad
}

/// Panics unless every versioned attribute of `ad` agrees.
fn assert_whole(ad: &ClassAd) {
    let v = ad.get("Version").map(|e| e.to_string()).expect("Version");
    for i in 0..ATTRS {
        let a = ad.get(&format!("A{i}")).map(|e| e.to_string());
        assert_eq!(
            a.as_deref(),
            Some(v.as_str()),
            "torn ad: A{i} differs from Version {v}"
        );
    }
    assert_eq!(
        ad.get("Tail").map(|e| e.to_string()),
        Some(format!("\"v{v}\""))
    );
    assert_eq!(ad.len(), ATTRS + 3);
}

fn run(db: Arc<Db>) {
    for k in 0..SLOTS {
        db.put("slots", &ad(k, 0)).expect("seed");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let reads = Arc::new(AtomicU64::new(0));
    let readers: Vec<_> = (0..3)
        .map(|r| {
            let (db, stop, reads) = (db.clone(), stop.clone(), reads.clone());
            std::thread::spawn(move || {
                let mut n = 0u64;
                while !stop.load(Ordering::Relaxed) {
                    if r == 0 {
                        let mut last_seq = 0;
                        for a in db.scan("slots").expect("scan") {
                            let a = a.expect("scanned ad");
                            assert!(a.header.seq > last_seq, "scan out of load order");
                            last_seq = a.header.seq;
                            assert_whole(&a.ad);
                            n += 1;
                        }
                    } else {
                        let k = n % SLOTS;
                        if let Some(a) = db.get("slots", &format!("slot{k}")).expect("get") {
                            assert_eq!(a.id(), format!("slot{k}"));
                            assert_whole(&a.ad);
                        }
                        n += 1;
                    }
                }
                reads.fetch_add(n, Ordering::Relaxed);
            })
        })
        .collect();
    let started = Instant::now();
    let mut version = 1;
    let buffered = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    while started.elapsed() < Duration::from_millis(1500) {
        let k = version % SLOTS;
        match version % 7 {
            0 => {
                db.remove("slots", &format!("slot{k}")).expect("remove");
            }
            1 => {
                let mut l = db.store().loader("slots", buffered.clone());
                for j in 0..10 {
                    l.push(&ad((k + j) % SLOTS, version)).expect("push");
                }
                l.finish().expect("finish");
            }
            _ => {
                db.put_with("slots", &ad(k, version), &buffered)
                    .expect("put");
            }
        }
        version += 1;
    }
    stop.store(true, Ordering::Relaxed);
    for r in readers {
        r.join().expect("a reader saw a torn ad or an error");
    }
    assert!(reads.load(Ordering::Relaxed) > 100, "readers barely ran");
    assert!(version > 100, "writer barely ran");
    assert!(db.check().expect("check").is_clean());
}

#[test]
fn readers_never_see_torn_ads_on_disk() {
    let dir = tempfile::tempdir().expect("tempdir");
    run(Arc::new(Db::open(dir.path().join("db")).expect("open")));
}

#[test]
fn readers_never_see_torn_ads_in_memory() {
    run(Arc::new(Db::open_in_memory().expect("db")));
}
