//! The conformance suite every [`Store`] implementation must pass: one set of checks, run by
//! [`store_conformance!`] against [`MemStore`] and [`SledStore`] alike.

use super::{Batch, KeyRange, Store, TxError};
use std::sync::Arc;

fn keys(s: &dyn Store, tree: &str, range: KeyRange) -> Vec<Vec<u8>> {
    s.scan(tree, range)
        .expect("scan")
        .map(|e| e.expect("entry").0)
        .collect()
}

pub(super) fn get_put_delete(s: &dyn Store) {
    assert_eq!(s.get("a", b"k").expect("get"), None);
    s.put("a", b"k", b"v1").expect("put");
    assert_eq!(s.get("a", b"k").expect("get").as_deref(), Some(&b"v1"[..]));
    s.put("a", b"k", b"v2").expect("put");
    assert_eq!(s.get("a", b"k").expect("get").as_deref(), Some(&b"v2"[..]));
    assert_eq!(s.get("b", b"k").expect("get"), None, "trees are separate");
    assert!(s.delete("a", b"k").expect("delete"));
    assert!(!s.delete("a", b"k").expect("delete"));
    assert_eq!(s.get("a", b"k").expect("get"), None);
    s.put("a", b"", b"").expect("empty key and value");
    assert_eq!(s.get("a", b"").expect("get").as_deref(), Some(&b""[..]));
}

pub(super) fn scans_are_ordered_and_bounded(s: &dyn Store) {
    for k in [&[2u8][..], &[1, 0xff], &[1], &[1, 0], &[0xff], &[3, 1]] {
        s.put("t", k, k).expect("put");
    }
    let all = keys(s, "t", KeyRange::all());
    assert_eq!(
        all,
        vec![
            vec![1],
            vec![1, 0],
            vec![1, 0xff],
            vec![2],
            vec![3, 1],
            vec![0xff]
        ]
    );
    assert_eq!(
        keys(s, "t", KeyRange::prefix(&[1])),
        vec![vec![1], vec![1, 0], vec![1, 0xff]]
    );
    assert_eq!(keys(s, "t", KeyRange::prefix(&[0xff])), vec![vec![0xff]]);
    assert_eq!(
        keys(s, "t", KeyRange::between(vec![1, 0], vec![3])),
        vec![vec![1, 0], vec![1, 0xff], vec![2]]
    );
    assert!(
        keys(s, "t", KeyRange::between(vec![3], vec![1])).is_empty(),
        "inverted range"
    );
    assert!(keys(s, "none", KeyRange::all()).is_empty(), "absent tree");
    let r = KeyRange::prefix(&[1]);
    assert_eq!(keys(s, "t", r.resume_after(&[1, 0])), vec![vec![1, 0xff]]);
}

pub(super) fn long_scans_see_every_entry(s: &dyn Store) {
    for i in 0u32..2000 {
        s.put("long", &i.to_be_bytes(), &i.to_le_bytes())
            .expect("put");
    }
    let got: Vec<u32> = s
        .scan("long", KeyRange::all())
        .expect("scan")
        .map(|e| {
            let (k, v) = e.expect("entry");
            assert_eq!(k.iter().rev().copied().collect::<Vec<_>>(), v);
            u32::from_be_bytes(k.try_into().expect("4 bytes"))
        })
        .collect();
    assert_eq!(got, (0..2000).collect::<Vec<_>>());
}

pub(super) fn batches_apply_in_order(s: &dyn Store) {
    s.put("b", b"gone", b"x").expect("put");
    let mut b = Batch::default();
    b.put(b"k1".to_vec(), b"1".to_vec());
    b.put(b"k2".to_vec(), b"2".to_vec());
    b.delete(b"gone".to_vec());
    b.put(b"k1".to_vec(), b"1b".to_vec());
    s.batch("b", b).expect("batch");
    assert_eq!(
        keys(s, "b", KeyRange::all()),
        vec![b"k1".to_vec(), b"k2".to_vec()]
    );
    assert_eq!(s.get("b", b"k1").expect("get").as_deref(), Some(&b"1b"[..]));
}

#[derive(Debug, thiserror::Error)]
#[error("refused")]
struct Refused;

pub(super) fn transactions_commit_or_leave_nothing(s: &dyn Store) {
    s.put("x", b"seen", b"0").expect("put");
    s.transaction(&["x", "y"], &|tx| {
        assert_eq!(tx.get(0, b"seen")?.as_deref(), Some(&b"0"[..]));
        tx.put(0, b"seen", b"1")?;
        assert_eq!(
            tx.get(0, b"seen")?.as_deref(),
            Some(&b"1"[..]),
            "reads own write"
        );
        tx.put(1, b"other", b"2")?;
        tx.delete(1, b"other")?;
        assert_eq!(tx.get(1, b"other")?, None, "reads own delete");
        tx.put(1, b"kept", b"3")?;
        Ok(())
    })
    .expect("commit");
    assert_eq!(
        s.get("x", b"seen").expect("get").as_deref(),
        Some(&b"1"[..])
    );
    assert_eq!(s.get("y", b"other").expect("get"), None);
    assert_eq!(
        s.get("y", b"kept").expect("get").as_deref(),
        Some(&b"3"[..])
    );

    let r = s.transaction(&["x", "y"], &|tx| {
        tx.put(0, b"seen", b"2")?;
        tx.put(1, b"new", b"4")?;
        Err(TxError::abort(Refused))
    });
    match r {
        Err(TxError::Abort(e)) => assert!(e.downcast_ref::<Refused>().is_some()),
        other => panic!("want the abort back, got {other:?}"),
    }
    assert_eq!(
        s.get("x", b"seen").expect("get").as_deref(),
        Some(&b"1"[..]),
        "abort undoes"
    );
    assert_eq!(s.get("y", b"new").expect("get"), None, "abort undoes");

    let bad = s.transaction(&["x"], &|tx| tx.put(5, b"k", b"v"));
    assert!(
        matches!(bad, Err(TxError::Store(_))),
        "unknown tree number: {bad:?}"
    );
}

pub(super) fn transactions_serialize(s: Arc<dyn Store>) {
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let s = s.clone();
            std::thread::spawn(move || {
                for _ in 0..50 {
                    s.transaction(&["ctr", "log"], &|tx| {
                        let n = tx
                            .get(0, b"n")?
                            .map(|v| u64::from_be_bytes(v.try_into().unwrap_or([0; 8])))
                            .unwrap_or(0);
                        tx.put(0, b"n", &(n + 1).to_be_bytes())?;
                        tx.put(1, &(n + 1).to_be_bytes(), b"")?;
                        Ok(())
                    })
                    .expect("increment");
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("thread");
    }
    let n = s.get("ctr", b"n").expect("get").expect("counter");
    assert_eq!(u64::from_be_bytes(n.try_into().expect("8 bytes")), 200);
    assert_eq!(
        keys(&*s, "log", KeyRange::all()).len(),
        200,
        "no lost update"
    );
}

pub(super) fn names_and_size(s: &dyn Store) {
    let before = s.size_bytes().expect("size");
    s.put("zeta", b"k", &[7u8; 4096]).expect("put");
    s.put("alpha", b"k", b"v").expect("put");
    s.flush().expect("flush");
    let names = s.tree_names().expect("names");
    assert!(
        names.contains(&"zeta".to_owned()) && names.contains(&"alpha".to_owned()),
        "{names:?}"
    );
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(names, sorted);
    assert!(s.size_bytes().expect("size") >= before);
    assert!(!s.describe().is_empty());
}

/// Generates one `#[test]` per check of the suite for the store `$make` builds (an expression
/// giving `(guard, Arc<dyn Store>)`; the guard, e.g. a temporary directory, lives as long as
/// the test).
macro_rules! store_conformance {
    ($modname:ident, $make:expr) => {
        mod $modname {
            use super::*;
            #[allow(unused_imports)]
            use std::sync::Arc;

            #[test]
            fn get_put_delete() {
                let (_g, s) = $make;
                conformance::get_put_delete(&*s);
            }
            #[test]
            fn scans_are_ordered_and_bounded() {
                let (_g, s) = $make;
                conformance::scans_are_ordered_and_bounded(&*s);
            }
            #[test]
            fn long_scans_see_every_entry() {
                let (_g, s) = $make;
                conformance::long_scans_see_every_entry(&*s);
            }
            #[test]
            fn batches_apply_in_order() {
                let (_g, s) = $make;
                conformance::batches_apply_in_order(&*s);
            }
            #[test]
            fn transactions_commit_or_leave_nothing() {
                let (_g, s) = $make;
                conformance::transactions_commit_or_leave_nothing(&*s);
            }
            #[test]
            fn transactions_serialize() {
                let (_g, s) = $make;
                conformance::transactions_serialize(s);
            }
            #[test]
            fn names_and_size() {
                let (_g, s) = $make;
                conformance::names_and_size(&*s);
            }
        }
    };
}

mod suites {
    use super::super::{MemStore, SledOptions, SledStore, Store};
    use super::*;

    fn mem() -> ((), Arc<dyn Store>) {
        ((), Arc::new(MemStore::new()))
    }

    fn sled() -> (tempfile::TempDir, Arc<dyn Store>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = SledStore::open(&dir.path().join("db"), &SledOptions::default()).expect("open");
        (dir, Arc::new(s))
    }

    use super as conformance;
    store_conformance!(memory, mem());
    store_conformance!(sled_store, sled());
}
