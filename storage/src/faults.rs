//! Injected failures: a store that fails its Nth transaction, and one whose scans fail mid-way
//! and then repeat their error forever (as sled's iterator does after a bad page). Every
//! operation that fails must leave the ad store exactly as it was (no partial write visible,
//! check clean), and the next operations must work; every read of a failing scan must end.

use crate::backend::{
    Batch, EntryIter, KeyRange, MemStore, SledOptions, SledStore, Store, TxBody, TxError,
};
use crate::error::StoreError;
use crate::{AdStore, NewMatch, NewMember, PutOptions, StoreOptions};
use adjoin_query::{parse, ClassAd};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// Delegates to `inner`, with the failures asked for: the transaction `countdown` reaches 0
/// at fails after running its body (as a commit that hits a full disk would); scans of the
/// tree `repeat` names yield that many entries and then the same error forever, without
/// ending (a backend that does not end its scans at an error); writes fail once `limit` bytes
/// (keys and values) have been written, whole, with "No space left on device" (a file system
/// that fills up).
struct Injected {
    inner: Arc<dyn Store>,
    countdown: AtomicI64,
    repeat: Option<(&'static str, usize)>,
    written: AtomicI64,
    limit: AtomicI64,
}

impl Injected {
    /// `inner` with no failure armed.
    fn new(inner: Arc<dyn Store>) -> Injected {
        Injected {
            inner,
            countdown: AtomicI64::new(-1),
            repeat: None,
            written: AtomicI64::new(0),
            limit: AtomicI64::new(i64::MAX),
        }
    }

    fn arm(&self, n: i64) {
        self.countdown.store(n, Ordering::SeqCst);
    }

    /// Takes `bytes` from the budget, or fails when they are not there.
    fn take(&self, bytes: usize) -> Result<(), StoreError> {
        let after = self.written.load(Ordering::SeqCst) + bytes as i64;
        if after > self.limit.load(Ordering::SeqCst) {
            return Err(StoreError::Io {
                context: "writing (injected)".into(),
                source: std::io::Error::from_raw_os_error(28),
            });
        }
        self.written.store(after, Ordering::SeqCst);
        Ok(())
    }
}

/// A transaction view that counts the bytes its body writes.
struct Counting<'a> {
    inner: &'a dyn crate::backend::Tx,
    bytes: &'a std::cell::Cell<usize>,
}

impl crate::backend::Tx for Counting<'_> {
    fn get(&self, tree: usize, key: &[u8]) -> Result<Option<Vec<u8>>, TxError> {
        self.inner.get(tree, key)
    }
    fn put(&self, tree: usize, key: &[u8], value: &[u8]) -> Result<(), TxError> {
        self.bytes.set(self.bytes.get() + key.len() + value.len());
        self.inner.put(tree, key, value)
    }
    fn delete(&self, tree: usize, key: &[u8]) -> Result<(), TxError> {
        self.bytes.set(self.bytes.get() + key.len());
        self.inner.delete(tree, key)
    }
}

impl Store for Injected {
    fn describe(&self) -> String {
        format!("injected {}", self.inner.describe())
    }
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        self.inner.get(tree, key)
    }
    fn put(&self, tree: &str, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.take(key.len() + value.len())?;
        self.inner.put(tree, key, value)
    }
    fn delete(&self, tree: &str, key: &[u8]) -> Result<bool, StoreError> {
        self.take(key.len())?;
        self.inner.delete(tree, key)
    }
    fn scan(&self, tree: &str, range: KeyRange) -> Result<EntryIter<'_>, StoreError> {
        let inner = self.inner.scan(tree, range)?;
        let Some((_, good)) = self.repeat.filter(|&(t, _)| t == tree) else {
            return Ok(inner);
        };
        let bad = std::iter::repeat_with(|| {
            Err(StoreError::Damaged {
                context: "scanning (injected)".into(),
                detail: "bad page".into(),
            })
        });
        Ok(Box::new(inner.take(good).chain(bad)))
    }
    fn batch(&self, tree: &str, batch: Batch) -> Result<(), StoreError> {
        let bytes = batch
            .writes
            .iter()
            .map(|w| match w {
                crate::backend::Write::Put(k, v) => k.len() + v.len(),
                crate::backend::Write::Delete(k) => k.len(),
            })
            .sum();
        self.take(bytes)?;
        self.inner.batch(tree, batch)
    }
    fn transaction(&self, trees: &[&str], body: TxBody<'_>) -> Result<(), TxError> {
        let fail = self.countdown.fetch_sub(1, Ordering::SeqCst) == 0;
        let bytes = std::cell::Cell::new(0);
        self.inner.transaction(trees, &|tx| {
            bytes.set(0);
            body(&Counting {
                inner: tx,
                bytes: &bytes,
            })?;
            if fail {
                // Ran against the real store; the commit is refused.
                return Err(TxError::Store(StoreError::Io {
                    context: "injected".into(),
                    source: std::io::Error::other("disk full (injected)"),
                }));
            }
            // The commit fails whole when its writes do not fit.
            self.take(bytes.get()).map_err(TxError::Store)
        })
    }
    fn flush(&self) -> Result<(), StoreError> {
        self.inner.flush()
    }
    fn tree_names(&self) -> Result<Vec<String>, StoreError> {
        self.inner.tree_names()
    }
    fn size_bytes(&self) -> Result<u64, StoreError> {
        self.inner.size_bytes()
    }
}

fn ad(text: &str) -> ClassAd {
    parse::classad(text).expect("test ad")
}

/// Everything visible: each collection's ads (id and text) in order, tombstones, matches.
fn snapshot(s: &AdStore) -> String {
    let mut out = String::new();
    for c in s.collections() {
        for a in s.scan(&c).expect("scan") {
            let a = a.expect("ad");
            out.push_str(&format!("{c}/{} {}\n", a.header.id, a.ad));
            if let Some(t) = s.tombstone(&c, a.id()).expect("ts") {
                out.push_str(&format!("  tombstone {t:?}\n"));
            }
        }
        for id in ["s1", "s2", "j1", "auto-1", "auto-2"] {
            if let Some(t) = s.tombstone(&c, id).expect("ts") {
                out.push_str(&format!("{c}/{id} tombstone {t:?}\n"));
            }
        }
    }
    for m in s.matches().expect("matches") {
        out.push_str(&format!("match {:?}\n", m.expect("match").id));
    }
    out.push_str(&format!("{:?}\n", s.stats().expect("stats").collections));
    out
}

/// An operation; true when it succeeded.
type Op = Box<dyn Fn(&AdStore) -> bool>;

/// The operations, each of which the injected failure may hit.
fn ops() -> Vec<Op> {
    let p = PutOptions::default;
    vec![
        Box::new(move |s| s.put("m", &ad(r#"[Name = "s1"; v = 1]"#), &p()).is_ok()),
        Box::new(move |s| s.put("m", &ad("[v = 2]"), &p()).is_ok()),
        Box::new(move |s| s.put("j", &ad(r#"[GlobalJobId = "j1"]"#), &p()).is_ok()),
        Box::new(move |s| s.put("m", &ad(r#"[Name = "s1"; v = 3]"#), &p()).is_ok()),
        Box::new(move |s| {
            let mut l = s.loader("m", p());
            for t in [r#"[Name = "s2"]"#, "[v = 4]", r#"[Name = "s1"; v = 5]"#] {
                if l.push(&ad(t)).is_err() {
                    return false;
                }
            }
            l.finish().is_ok()
        }),
        Box::new(|s| {
            s.remove("m", "auto-1", crate::Durability::Immediate)
                .is_ok()
        }),
        Box::new(|s| {
            let m = |c: &str, id: &str| NewMember {
                collection: c.into(),
                id: id.into(),
                rank: None,
                consume: true,
            };
            s.record_match(&NewMatch {
                cycle: 1,
                members: vec![m("j", "j1"), m("m", "s2")],
            })
            .is_ok()
        }),
        Box::new(|s| s.consume("m", "s1").is_ok()),
        Box::new(|s| s.purge().is_ok()),
    ]
}

fn run(make: &dyn Fn() -> (Option<tempfile::TempDir>, Arc<dyn Store>)) {
    let n_ops = ops().len();
    for fail_at in 0..n_ops as i64 {
        let (_dir, inner) = make();
        let faulty = Arc::new(Injected::new(inner));
        let now = Arc::new(AtomicI64::new(1000));
        let n = now.clone();
        let opts = StoreOptions {
            // Tombstones lapse at once, so that the final purge has work (a transaction) to do.
            tombstone_ttl: 0,
            clock: Arc::new(move || n.load(Ordering::SeqCst)),
            ..StoreOptions::default()
        };
        let s = AdStore::open(faulty.clone(), opts).expect("open");
        for (i, op) in ops().iter().enumerate() {
            let before = snapshot(&s);
            if i as i64 == fail_at {
                faulty.arm(0);
                let ok = op(&s);
                assert!(
                    faulty.countdown.load(Ordering::SeqCst) < 0,
                    "op {i} made no transaction"
                );
                assert!(!ok, "op {i} must fail when its commit fails");
                faulty.arm(-1);
                assert_eq!(snapshot(&s), before, "op {i}: a failed commit left a trace");
                assert!(s.check().expect("check").is_clean());
            }
            assert!(op(&s) || i >= 5, "op {i} works once the fault is gone");
        }
        assert!(s.check().expect("check").is_clean(), "fail_at {fail_at}");
    }
}

#[test]
fn failed_commits_leave_nothing_in_memory() {
    run(&|| (None, Arc::new(MemStore::new())));
}

#[test]
fn failed_commits_leave_nothing_on_sled() {
    run(&|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = SledStore::open(&dir.path().join("db"), &SledOptions::default()).expect("sled");
        (Some(dir), Arc::new(s))
    });
}

/// A bound no correct read of the small stores below comes near.
const BOUND: usize = 10_000;

#[test]
fn scans_end_at_a_repeating_backend_error() {
    use crate::key::tree;
    // Ads in several blocks, a match recorded, one tombstone.
    let base: Arc<dyn Store> = Arc::new(MemStore::new());
    {
        let s = AdStore::open(base.clone(), StoreOptions::default()).expect("open");
        let mut l = s.loader("m", PutOptions::default());
        for i in 0..3000 {
            l.push(&ad(&format!("[Name = \"s{i}\"; v = {i}]")))
                .expect("push");
        }
        l.finish().expect("finish");
        s.remove("m", "s7", crate::Durability::Immediate)
            .expect("rm");
        for i in 0..3 {
            let m = |id: String| NewMember {
                collection: "m".into(),
                id,
                rank: None,
                consume: false,
            };
            s.record_match(&NewMatch {
                cycle: i,
                members: vec![m(format!("s{}", 10 + i))],
            })
            .expect("match");
        }
    }
    for t in [tree::BLOCKS, tree::MATCHES, tree::TOMBSTONES] {
        for good in [0, 1, 2] {
            let store = Arc::new(Injected {
                repeat: Some((t, good)),
                ..Injected::new(base.clone())
            });
            let Ok(s) = AdStore::open(store, StoreOptions::default()) else {
                continue; // an open that reads the tree may refuse it: also an end
            };
            let items: Vec<bool> = s
                .scan("m")
                .expect("scan")
                .take(BOUND)
                .map(|r| r.is_ok())
                .collect();
            assert!(
                items.len() < BOUND,
                "{t} after {good}: the scan did not end"
            );
            if t == tree::BLOCKS {
                assert_eq!(items.last(), Some(&false), "the last item is the damage");
                assert_eq!(items.iter().filter(|ok| !**ok).count(), 1);
                let err = s.scan("m").expect("scan").find_map(Result::err);
                let msg = err.expect("an error").to_string();
                assert!(
                    msg.contains("collection m") && msg.contains("scan stopped"),
                    "{msg}"
                );
            }
            let matches = s.matches().expect("matches").take(BOUND).count();
            assert!(matches < BOUND, "{t} after {good}: matches did not end");
            let report = s.check().expect("check");
            assert!(!report.is_clean() || t == tree::MATCHES && good >= 3);
            let _ = s.stats();
            let _ = s.purge();
        }
    }
}

/// A store that fills up during a bulk load: the load fails with the full-disk error after
/// committing some chunks; exactly the ads of those chunks are there and read back, `check`
/// is clean; once space returns they are all still there and loads work again.
fn fill_up(inner: Arc<dyn Store>) {
    let budget = Arc::new(Injected::new(inner));
    let opts = StoreOptions {
        chunk_size: 100,
        ..StoreOptions::default()
    };
    let s = AdStore::open(budget.clone(), opts).expect("open");
    budget.limit.store(
        budget.written.load(Ordering::SeqCst) + 60_000,
        Ordering::SeqCst,
    );
    let text = |i: usize| {
        format!(
            r#"[Name = "s{i}"; Memory = {i}; Text = "{}"]"#,
            "x".repeat(80)
        )
    };
    let mut l = s.loader("m", PutOptions::default());
    let mut failure = None;
    for i in 0..5000 {
        if let Err(e) = l.push(&ad(&text(i))) {
            failure = Some(e);
            break;
        }
    }
    let failure = failure.expect("the budget ran out");
    let stored = l.results().len();
    assert!(
        failure.to_string().contains("No space left on device"),
        "{failure}"
    );
    assert!(
        stored > 0 && stored.is_multiple_of(100),
        "whole chunks stored: {stored}"
    );
    drop(l);
    // Full: reads work and find exactly what was acknowledged.
    let ids: Vec<String> = s
        .scan("m")
        .expect("scan")
        .map(|a| a.expect("ad").header.id)
        .collect();
    assert_eq!(ids.len(), stored);
    assert!(ids.iter().enumerate().all(|(i, id)| *id == format!("s{i}")));
    assert!(s.check().expect("check").is_clean());
    assert_eq!(s.stored_count("m").expect("count"), stored as u64);
    // Space returns.
    budget.limit.store(i64::MAX, Ordering::SeqCst);
    let mut l = s.loader("m", PutOptions::default());
    for i in stored..stored + 150 {
        l.push(&ad(&text(i))).expect("push after space returned");
    }
    l.finish().expect("finish");
    assert_eq!(s.scan("m").expect("scan").count(), stored + 150);
    assert!(s.check().expect("check").is_clean());
}

#[test]
fn a_store_that_fills_up_keeps_what_it_acknowledged_in_memory() {
    fill_up(Arc::new(MemStore::new()));
}

#[test]
fn a_store_that_fills_up_keeps_what_it_acknowledged_on_sled() {
    let dir = tempfile::tempdir().expect("tempdir");
    let s = SledStore::open(&dir.path().join("db"), &SledOptions::default()).expect("sled");
    fill_up(Arc::new(s));
}
