//! The ad store's semantics, checked case by case against every backend (memory and sled) by
//! [`adstore_suite!`]: ids, load order, replace, lifetimes, consumption, the registrar and its
//! group commit, bulk loads, stats, check, and damage reporting.

use crate::backend::{MemStore, SledOptions, SledStore, Store};
use crate::{
    AdError, AdStore, AfterRefusal, Durability, Expiry, IdRule, MatchRecord, NewMatch, NewMember,
    PutOptions, StoreOptions,
};
use adjoin_query::{parse, ClassAd, Value};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A store with a hand-driven clock starting at 1000.
pub(crate) struct Fixture {
    pub(crate) s: AdStore,
    pub(crate) now: Arc<AtomicI64>,
    _dir: Option<tempfile::TempDir>,
}

impl Fixture {
    fn at(&self, t: i64) {
        self.now.store(t, Ordering::SeqCst)
    }

    /// Opens the ad store again on the same backend: the index is rebuilt from the blocks.
    fn reopen(self) -> Fixture {
        let store = self.s.backend().clone();
        let opts = self.s.options().clone();
        drop(self.s);
        let s = AdStore::open(store, opts).expect("reopen");
        Fixture { s, ..self }
    }
}

fn options(now: &Arc<AtomicI64>, chunk: usize) -> StoreOptions {
    let n = now.clone();
    StoreOptions {
        tombstone_ttl: 100,
        clock: Arc::new(move || n.load(Ordering::SeqCst)),
        chunk_size: chunk,
        lazy_purge: 64,
        // Small blocks, so that the cases cross block boundaries.
        block_ads: 2,
        block_bytes: 48 << 10,
    }
}

pub(crate) fn memory(chunk: usize) -> Fixture {
    let now = Arc::new(AtomicI64::new(1000));
    let store: Arc<dyn Store> = Arc::new(MemStore::new());
    let s = AdStore::open(store, options(&now, chunk)).expect("open");
    Fixture { s, now, _dir: None }
}

pub(crate) fn sled(chunk: usize) -> Fixture {
    let now = Arc::new(AtomicI64::new(1000));
    let dir = tempfile::tempdir().expect("tempdir");
    let store: Arc<dyn Store> =
        Arc::new(SledStore::open(&dir.path().join("db"), &SledOptions::default()).expect("sled"));
    let s = AdStore::open(store, options(&now, chunk)).expect("open");
    Fixture {
        s,
        now,
        _dir: Some(dir),
    }
}

fn ad(text: &str) -> ClassAd {
    parse::classad(text).expect("test ad parses")
}

fn put(f: &Fixture, coll: &str, text: &str) -> String {
    f.s.put(coll, &ad(text), &PutOptions::default())
        .expect("put")
        .id
}

fn ids(f: &Fixture, coll: &str) -> Vec<String> {
    f.s.scan(coll)
        .expect("scan")
        .map(|a| a.expect("ad").header.id)
        .collect()
}

fn attr(f: &Fixture, coll: &str, id: &str, name: &str) -> Option<String> {
    let a = f.s.get(coll, id).expect("get")?;
    a.ad.get(name).map(|e| e.to_string())
}

pub(crate) fn ids_and_load_order(f: Fixture) {
    assert_eq!(put(&f, "m", r#"[Name = "b"; Memory = 1]"#), "b");
    assert_eq!(put(&f, "m", r#"[GlobalJobId = "g#1"]"#), "g#1");
    assert_eq!(put(&f, "m", "[Memory = 3]"), "auto-1");
    assert_eq!(put(&f, "m", r#"[Name = "a"]"#), "a");
    assert_eq!(put(&f, "m", "[Memory = 4]"), "auto-2");
    assert_eq!(ids(&f, "m"), ["b", "g#1", "auto-1", "a", "auto-2"]);
    // Replacing keeps the place; removing and putting again moves to the end.
    let r =
        f.s.put(
            "m",
            &ad(r#"[Name = "b"; Memory = 9]"#),
            &PutOptions::default(),
        )
        .expect("put");
    assert!(r.replaced && !r.generated);
    assert_eq!(ids(&f, "m"), ["b", "g#1", "auto-1", "a", "auto-2"]);
    assert_eq!(attr(&f, "m", "b", "Memory").as_deref(), Some("9"));
    assert!(f.s.remove("m", "b", Durability::Immediate).expect("remove"));
    assert!(!f
        .s
        .remove("m", "b", Durability::Immediate)
        .expect("remove twice"));
    assert_eq!(f.s.get("m", "b").expect("get").map(|a| a.header.id), None);
    put(&f, "m", r#"[Name = "b"]"#);
    assert_eq!(ids(&f, "m"), ["g#1", "auto-1", "a", "auto-2", "b"]);
    // A real id that looks generated is skipped by the generator.
    put(&f, "m", r#"[Name = "auto-3"]"#);
    assert_eq!(put(&f, "m", "[x = 1]"), "auto-4");
    // Collections are separate; ids by another attribute.
    let opts = PutOptions {
        id: IdRule::attr("Key"),
        ..PutOptions::default()
    };
    assert_eq!(
        f.s.put("j", &ad(r#"[Key = 143; Name = "n"]"#), &opts)
            .expect("put")
            .id,
        "143"
    );
    assert_eq!(f.s.collections(), ["j", "m"]);
    assert_eq!(f.s.stored_count("m").expect("count"), 7);
    assert!(f.s.get("nope", "x").expect("get").is_none());
    assert_eq!(ids(&f, "nope"), Vec::<String>::new());
}

pub(crate) fn bad_names_are_refused(f: Fixture) {
    let e =
        f.s.put("", &ad("[a = 1]"), &PutOptions::default())
            .expect_err("empty collection");
    assert!(matches!(e, AdError::InvalidCollection { .. }), "{e}");
    let e =
        f.s.put("m", &ad(r#"[Name = ""]"#), &PutOptions::default())
            .expect_err("empty id");
    assert!(matches!(e, AdError::InvalidId { .. }), "{e}");
    let opts = PutOptions {
        expiry: Expiry::Attr("Lifetime".into()),
        ..PutOptions::default()
    };
    let e =
        f.s.put("m", &ad(r#"[Name = "x"; Lifetime = "soon"]"#), &opts)
            .expect_err("bad expiry");
    assert!(e.to_string().contains("Lifetime"), "{e}");
}

pub(crate) fn lifetimes(f: Fixture) {
    let at = |t| PutOptions {
        expiry: Expiry::At(t),
        ..PutOptions::default()
    };
    let attr_opts = PutOptions {
        expiry: Expiry::Attr("Lifetime".into()),
        ..PutOptions::default()
    };
    f.s.put("m", &ad(r#"[Name = "short"]"#), &at(1010))
        .expect("put");
    f.s.put("m", &ad(r#"[Name = "long"]"#), &at(2000))
        .expect("put");
    f.s.put("m", &ad(r#"[Name = "life"; Lifetime = 50]"#), &attr_opts)
        .expect("put");
    put(&f, "m", r#"[Name = "forever"]"#);
    assert_eq!(ids(&f, "m"), ["short", "long", "life", "forever"]);
    f.at(1010);
    assert!(
        f.s.get("m", "short").expect("get").is_none(),
        "expired at its time"
    );
    assert_eq!(ids(&f, "m"), ["long", "life", "forever"]);
    let st = f.s.stats().expect("stats");
    assert_eq!((st.collections[0].ads, st.collections[0].expired), (3, 1));
    f.at(1060);
    assert_eq!(ids(&f, "m"), ["long", "forever"]);
    // A write purges lazily, in its own collection only; purge() purges the rest.
    put(&f, "other", "[a = 1]");
    assert_eq!(
        f.s.stored_count("m").expect("count"),
        4,
        "a write to another collection purges nothing here"
    );
    put(&f, "m", r#"[Name = "lazy"]"#);
    assert_eq!(f.s.stored_count("m").expect("count"), 3);
    f.at(5000);
    let p = f.s.purge().expect("purge");
    assert_eq!(p.ads, 1);
    assert_eq!(ids(&f, "m"), ["forever", "lazy"]);
    // An expired ad replaced by a put is new: it goes to the end.
    f.s.put("m", &ad(r#"[Name = "x"]"#), &at(5001))
        .expect("put");
    put(&f, "m", r#"[Name = "y"]"#);
    f.at(5001);
    let r =
        f.s.put("m", &ad(r#"[Name = "x"]"#), &PutOptions::default())
            .expect("put");
    assert!(!r.replaced);
    assert_eq!(ids(&f, "m"), ["forever", "lazy", "y", "x"]);
    assert!(f.s.check().expect("check").is_clean());
}

pub(crate) fn consumption_and_tombstones(f: Fixture) {
    put(
        &f,
        "m",
        r#"[Name = "s1"; UpdateSequenceNumber = 5; DaemonStartTime = 10]"#,
    );
    f.s.consume("m", "s1").expect("consume");
    assert!(f.s.get("m", "s1").expect("get").is_none());
    // An update older than the consumed ad is stale: refused, the tombstone stays.
    let e =
        f.s.put(
            "m",
            &ad(r#"[Name = "s1"; UpdateSequenceNumber = 4; DaemonStartTime = 10]"#),
            &PutOptions::default(),
        )
        .expect_err("stale");
    match &e {
        AdError::Stale {
            id,
            seq,
            stored_seq,
            ..
        } => assert_eq!((id.as_str(), *seq, *stored_seq), ("s1", 4, 5)),
        other => panic!("want Stale, got {other}"),
    }
    let ts =
        f.s.tombstone("m", "s1")
            .expect("tombstone")
            .expect("in force");
    assert_eq!(ts.until, 1100);
    assert!(matches!(
        f.s.consume("m", "s1"),
        Err(AdError::NotFound { .. })
    ));
    // A newer update re-advertises the consumed id at once: stored, tombstone gone.
    assert_eq!(
        put(
            &f,
            "m",
            r#"[Name = "s1"; UpdateSequenceNumber = 6; DaemonStartTime = 10; State = "Claimed"]"#
        ),
        "s1",
    );
    assert!(f.s.tombstone("m", "s1").expect("tombstone").is_none());
    assert_eq!(attr(&f, "m", "s1", "State").as_deref(), Some("\"Claimed\""));
    assert!(f.s.check().expect("check").is_clean());
    // A live ad is guarded alike; the same update twice is accepted.
    let stale = f.s.put(
        "m",
        &ad(r#"[Name = "s1"; UpdateSequenceNumber = 5; DaemonStartTime = 10]"#),
        &PutOptions::default(),
    );
    assert!(matches!(stale, Err(AdError::Stale { .. })), "{stale:?}");
    assert_eq!(
        put(
            &f,
            "m",
            r#"[Name = "s1"; UpdateSequenceNumber = 6; DaemonStartTime = 10]"#
        ),
        "s1"
    );
    // A restarted daemon numbers from 1 again.
    assert_eq!(
        put(
            &f,
            "m",
            r#"[Name = "s1"; UpdateSequenceNumber = 1; DaemonStartTime = 20]"#
        ),
        "s1"
    );
    // An ad without a sequence number re-advertises unguarded.
    f.s.consume("m", "s1").expect("consume again");
    assert_eq!(put(&f, "m", r#"[Name = "s1"]"#), "s1");
    f.s.consume("m", "s1").expect("consume a third time");
    assert!(f.s.check().expect("check").is_clean());
    f.at(3000);
    assert_eq!(f.s.purge().expect("purge").tombstones, 1);
    assert!(f.s.check().expect("check").is_clean());
}

pub(crate) fn matches_commit_atomically(f: Fixture) {
    put(&f, "jobs", r#"[GlobalJobId = "j1"]"#);
    put(&f, "slots", r#"[Name = "s1"]"#);
    put(&f, "slots", r#"[Name = "s2"]"#);
    let member = |c: &str, id: &str, consume| NewMember {
        collection: c.into(),
        id: id.into(),
        rank: Some(Value::Real(1.5)),
        consume,
    };
    let m =
        f.s.record_match(&NewMatch {
            cycle: 7,
            members: vec![member("jobs", "j1", true), member("slots", "s1", true)],
        })
        .expect("match");
    assert_eq!((m.id, m.cycle, m.time), (1, 7, 1000));
    assert!(f.s.get("jobs", "j1").expect("get").is_none());
    assert_eq!(
        f.s.tombstone("slots", "s1")
            .expect("ts")
            .and_then(|t| t.match_id),
        Some(1)
    );
    // s1 is gone, so a second match naming it records nothing and consumes nothing.
    put(&f, "jobs", r#"[GlobalJobId = "j2"]"#);
    let e =
        f.s.record_match(&NewMatch {
            cycle: 8,
            members: vec![member("jobs", "j2", true), member("slots", "s1", true)],
        })
        .expect_err("missing member");
    assert!(matches!(e, AdError::MissingMember { .. }), "{e}");
    assert!(
        f.s.get("jobs", "j2").expect("get").is_some(),
        "nothing consumed"
    );
    // A member that is not consumed need not exist.
    let m2 =
        f.s.record_match(&NewMatch {
            cycle: 8,
            members: vec![member("jobs", "j2", true), member("slots", "s2", false)],
        })
        .expect("match");
    assert_eq!(m2.id, 2);
    assert!(f.s.get("slots", "s2").expect("get").is_some());
    let all: Vec<u64> =
        f.s.matches()
            .expect("list")
            .map(|m| m.expect("match").id)
            .collect();
    assert_eq!(all, [1, 2]);
    let got = f.s.get_match(1).expect("get").expect("present");
    assert_eq!(got.members[1].id, "s1");
    assert!(got.members.iter().all(|m| m.consumed));
    assert_eq!(f.s.stats().expect("stats").matches, 2);
    assert!(f.s.check().expect("check").is_clean());
}

/// A match of `members` (`(collection, id, consumed)`) in cycle 3.
fn new_match(members: &[(&str, &str, bool)]) -> NewMatch {
    NewMatch {
        cycle: 3,
        members: members
            .iter()
            .map(|&(c, id, consume)| NewMember {
                collection: c.into(),
                id: id.into(),
                rank: Some(Value::Int(1)),
                consume,
            })
            .collect(),
    }
}

/// Each outcome of a batch: the match id, or `-` for a `MissingMember` refusal.
fn outcomes(rs: &[Result<MatchRecord, AdError>]) -> String {
    let each: Vec<String> = rs
        .iter()
        .map(|r| match r {
            Ok(m) => m.id.to_string(),
            Err(AdError::MissingMember { .. }) => "-".into(),
            Err(e) => panic!("want a record or MissingMember, got {e}"),
        })
        .collect();
    each.join(" ")
}

pub(crate) fn matches_commit_in_groups(f: Fixture) {
    for j in ["j1", "j2", "j3", "j4", "j5"] {
        put(&f, "jobs", &format!(r#"[GlobalJobId = "{j}"]"#));
    }
    for s in ["s1", "s2", "s3", "s4", "s5"] {
        put(&f, "slots", &format!(r#"[Name = "{s}"]"#));
    }
    let at = PutOptions {
        expiry: Expiry::At(1005),
        ..PutOptions::default()
    };
    f.s.put("slots", &ad(r#"[Name = "old"]"#), &at)
        .expect("put");
    f.at(1005);
    // One line per match: refused ones record and consume nothing, the rest commit together.
    let batch = [
        new_match(&[("jobs", "j1", true), ("slots", "s1", true)]),
        new_match(&[("jobs", "j2", true), ("slots", "nope", true)]),
        new_match(&[("jobs", "j2", true), ("slots", "s1", true)]),
        new_match(&[("jobs", "j2", true), ("slots", "s2", true)]),
        new_match(&[("jobs", "j3", true), ("jobs", "j3", true)]),
        new_match(&[("jobs", "j3", true), ("slots", "old", true)]),
        new_match(&[("jobs", "j3", true), ("nowhere", "s3", true)]),
        new_match(&[("jobs", "j3", true), ("slots", "s3", true)]),
        new_match(&[("jobs", "j3", false), ("slots", "s4", true)]),
    ];
    let rs =
        f.s.record_matches(&batch, AfterRefusal::Continue)
            .expect("batch");
    assert_eq!(outcomes(&rs), "1 - - 2 - - - 3 4");
    let check = |f: &Fixture| {
        let all: Vec<(u64, u64, String)> =
            f.s.matches()
                .expect("list")
                .map(|m| m.expect("match"))
                .map(|m| (m.id, m.cycle, m.members[1].id.clone()))
                .collect();
        let want = [(1, "s1"), (2, "s2"), (3, "s3"), (4, "s4")];
        assert_eq!(all, want.map(|(id, s)| (id, 3, s.to_owned())));
        assert_eq!(ids(f, "jobs"), ["j4", "j5"]);
        assert_eq!(ids(f, "slots"), ["s5"]);
        for (c, id, m) in [
            ("jobs", "j1", 1),
            ("slots", "s1", 1),
            ("jobs", "j2", 2),
            ("slots", "s2", 2),
            ("jobs", "j3", 3),
            ("slots", "s4", 4),
        ] {
            let ts = f.s.tombstone(c, id).expect("tombstone").map(|t| t.match_id);
            assert_eq!(ts, Some(Some(m)), "{c} {id}");
        }
        assert!(f.s.check().expect("check").is_clean());
    };
    check(&f);
    // Stop: nothing after the first refusal is attempted; a batch refusing everything, or
    // empty, writes nothing.
    let batch = [
        new_match(&[("jobs", "j4", true), ("slots", "s5", true)]),
        new_match(&[("jobs", "j5", true), ("slots", "s1", true)]),
        new_match(&[("jobs", "j5", true), ("slots", "s5", false)]),
    ];
    let rs =
        f.s.record_matches(&batch[1..], AfterRefusal::Stop)
            .expect("batch");
    assert_eq!(outcomes(&rs), "-");
    let rs = f.s.record_matches(&[], AfterRefusal::Stop).expect("empty");
    assert_eq!(outcomes(&rs), "");
    check(&f);
    let rs =
        f.s.record_matches(&batch, AfterRefusal::Stop)
            .expect("batch");
    assert_eq!(outcomes(&rs), "5 -");
    assert!(f.s.get("jobs", "j5").expect("get").is_some());
    // The next match id follows the last recorded one, after reopening too.
    let f = f.reopen();
    assert_eq!(ids(&f, "slots"), Vec::<String>::new());
    let m =
        f.s.record_match(&new_match(&[("jobs", "j5", true)]))
            .expect("match");
    assert_eq!(m.id, 6);
    assert_eq!(f.s.stats().expect("stats").matches, 6);
    assert!(f.s.check().expect("check").is_clean());
}

pub(crate) fn bulk_loads(f: Fixture) {
    put(&f, "m", r#"[Name = "taken"]"#);
    f.s.consume("m", "taken").expect("consume");
    let mut l = f.s.loader(
        "m",
        PutOptions {
            durability: Durability::Buffered,
            ..PutOptions::default()
        },
    );
    let texts = [
        r#"[Name = "a"; v = 1]"#,
        r#"[Name = "b"]"#,
        r#"[Name = "taken"]"#,
        r#"[Name = "a"; v = 2]"#,
        "[v = 5]",
        r#"[Name = ""]"#,
        r#"[Name = "c"]"#,
    ];
    let mut committed = 0;
    for t in texts {
        committed += l.push(&ad(t)).expect("push");
    }
    assert_eq!(committed, 6, "two chunks of three committed on the way");
    let report = l.finish().expect("finish");
    assert_eq!((report.stored(), report.rejected()), (6, 1));
    let shown: Vec<String> = report
        .results
        .iter()
        .map(|r| match r {
            Ok(p) => p.id.clone(),
            Err(AdError::InvalidId { .. }) => "invalid".into(),
            Err(e) => e.to_string(),
        })
        .collect();
    // The consumed id is re-advertised.
    assert_eq!(shown, ["a", "b", "taken", "a", "auto-1", "invalid", "c"]);
    assert!(report.results[3].as_ref().is_ok_and(|p| p.replaced));
    assert_eq!(ids(&f, "m"), ["a", "b", "taken", "auto-1", "c"]);
    assert_eq!(attr(&f, "m", "a", "v").as_deref(), Some("2"));
    assert!(f.s.check().expect("check").is_clean());
}

pub(crate) fn damage_is_reported_by_collection_and_id(f: Fixture) {
    put(&f, "m", r#"[Name = "ok1"]"#);
    put(&f, "m", r#"[Name = "hurt"; Memory = 1024]"#);
    put(&f, "m", r#"[Name = "ok2"]"#);
    let store = f.s.backend().clone();
    let (k, mut v) = store
        .scan(crate::key::tree::BLOCKS, crate::backend::KeyRange::all())
        .expect("scan")
        .nth(1)
        .expect("second record")
        .expect("entry");
    let last = v.len() - 1;
    v[last] ^= 0x40;
    store
        .put(crate::key::tree::BLOCKS, &k, &v)
        .expect("damage it");
    match f.s.get("m", "hurt") {
        Err(AdError::Damaged(d)) => {
            assert_eq!(
                (d.collection.as_deref(), d.id.as_deref()),
                (Some("m"), Some("hurt"))
            );
            assert!(d.problem.contains("checksum"), "{d}");
        }
        other => panic!("want damage, got {other:?}"),
    }
    let items: Vec<bool> = f.s.scan("m").expect("scan").map(|r| r.is_ok()).collect();
    assert_eq!(items, [true, false, true], "the scan reports and goes on");
    let report = f.s.check().expect("check");
    assert_eq!(report.damage.len(), 1, "{:?}", report.damage);
    let d = &report.damage[0];
    assert_eq!(
        (d.tree.as_str(), d.collection.as_deref(), d.id.as_deref()),
        ("blocks", Some("m"), Some("hurt"))
    );
    // A put under the damaged id repairs it.
    put(&f, "m", r#"[Name = "hurt"]"#);
    assert!(f.s.check().expect("check").is_clean());
}

pub(crate) fn block_edits_survive_reopening(f: Fixture) {
    let opts = PutOptions {
        expiry: Expiry::Attr("Exp".into()),
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut l = f.s.loader("m", opts);
    for id in ["a", "b", "c", "d", "e", "f", "g", "h"] {
        let exp = if id == "e" { "; Exp = 5" } else { "" };
        l.push(&ad(&format!("[Name = \"{id}\"; v = 1{exp}]")))
            .expect("push");
    }
    l.finish().expect("finish");
    // Blocks of two: [a b] [c d] [e f] [g h]. Edit inside them.
    let r =
        f.s.put("m", &ad(r#"[Name = "c"; v = 2]"#), &PutOptions::default());
    assert!(r.expect("replace").replaced);
    assert!(f.s.remove("m", "d", Durability::Immediate).expect("remove"));
    f.s.consume("m", "a").expect("consume");
    f.at(1005);
    put(&f, "m", r#"[Name = "x"]"#);
    let want = ["b", "c", "f", "g", "h", "x"];
    assert_eq!(ids(&f, "m"), want);
    assert_eq!(f.s.stored_count("m").expect("count"), 6, "e was purged");
    assert!(f.s.check().expect("check").is_clean());
    let f = f.reopen();
    assert_eq!(ids(&f, "m"), want);
    assert_eq!(attr(&f, "m", "c", "v").as_deref(), Some("2"));
    assert!(f.s.get("m", "a").expect("get").is_none());
    assert!(f.s.tombstone("m", "a").expect("tombstone").is_some());
    assert!(f.s.check().expect("check").is_clean());
    // An id twice in one chunk: the second replaces the first in the block being written.
    let mut l = f.s.loader("m", PutOptions::default());
    for text in [
        r#"[Name = "y"; v = 1]"#,
        "[v = 2]",
        r#"[Name = "y"; v = 3]"#,
    ] {
        l.push(&ad(text)).expect("push");
    }
    let report = l.finish().expect("finish");
    assert!(report.results[2].as_ref().is_ok_and(|p| p.replaced));
    assert_eq!(attr(&f, "m", "y", "v").as_deref(), Some("3"));
    let f = f.reopen();
    assert_eq!(ids(&f, "m"), ["b", "c", "f", "g", "h", "x", "y", "auto-1"]);
    assert!(f.s.check().expect("check").is_clean());
    // Emptying a block removes it; the rest stays in order.
    assert!(f.s.remove("m", "b", Durability::Immediate).expect("remove"));
    assert!(f.s.remove("m", "c", Durability::Immediate).expect("remove"));
    let f = f.reopen();
    assert_eq!(ids(&f, "m"), ["f", "g", "h", "x", "y", "auto-1"]);
    assert!(f.s.check().expect("check").is_clean());
}

/// Every committed write that changes a collection's records moves it to a new generation;
/// reads, refused writes and other collections' writes do not; reopening keeps it.
pub(crate) fn generations_count_record_changes(f: Fixture) {
    let generation = |f: &Fixture| f.s.generation("m").expect("generation");
    assert_eq!(generation(&f), None);
    put(&f, "m", r#"[Name = "a"]"#);
    let g0 = generation(&f).expect("exists");
    let mut last = g0.writes;
    let mut step = |f: &Fixture, changes: bool, what: &str| {
        let g = generation(f).expect("exists");
        assert_eq!(g.collection, g0.collection, "{what}");
        assert_eq!(g.writes != last, changes, "{what}");
        assert!(g.writes >= last, "{what}");
        last = g.writes;
    };
    put(&f, "m", r#"[Name = "a"; x = 1]"#);
    step(&f, true, "a replacing put");
    put(&f, "m", r#"[Name = "b"; UpdateSequenceNumber = 5]"#);
    step(&f, true, "a new ad");
    ids(&f, "m");
    f.s.get("m", "a").expect("get");
    step(&f, false, "reads");
    put(&f, "other", r#"[Name = "a"]"#);
    step(&f, false, "another collection");
    f.s.consume("m", "b").expect("consume");
    step(&f, true, "consumption");
    f.s.put(
        "m",
        &ad(r#"[Name = "b"; UpdateSequenceNumber = 4]"#),
        &PutOptions::default(),
    )
    .expect_err("stale");
    step(&f, false, "a refused put");
    assert!(!f
        .s
        .remove("m", "nobody", Durability::Immediate)
        .expect("remove"));
    step(&f, false, "removing nothing");
    f.s.put(
        "m",
        &ad(r#"[Name = "c"]"#),
        &PutOptions {
            expiry: Expiry::At(1010),
            ..PutOptions::default()
        },
    )
    .expect("put");
    step(&f, true, "an expiring ad");
    f.at(1010);
    f.s.purge().expect("purge");
    step(&f, true, "a purge");
    let f = f.reopen();
    step(&f, false, "reopening");
}

/// Consumption leaves the record in its block, dead (format 3): it is gone from every read,
/// across reopens, until its tombstone goes — then a put under the id, or the purge of the
/// tombstone, takes it out of the block; `check` stays clean throughout.
pub(crate) fn consumed_records_stay_dead(f: Fixture) {
    for i in 0..6 {
        put(&f, "m", &format!("[Name = \"s{i}\"; n = {i}]"));
    }
    f.s.consume("m", "s1").expect("consume");
    f.s.consume("m", "s4").expect("consume");
    let clean = |f: &Fixture, what: &str| {
        let r = f.s.check().expect("check");
        assert!(r.is_clean(), "{what}: {r:?}");
    };
    clean(&f, "after consuming");
    assert_eq!(ids(&f, "m"), ["s0", "s2", "s3", "s5"]);
    assert_eq!(f.s.stored_count("m").expect("count"), 4);
    let f = f.reopen();
    assert_eq!(
        ids(&f, "m"),
        ["s0", "s2", "s3", "s5"],
        "dead after a reopen"
    );
    assert!(f.s.get("m", "s1").expect("get").is_none());
    clean(&f, "after reopening");
    // Other writes in the same blocks keep the dead records dead.
    put(&f, "m", r#"[Name = "s0"; n = 10]"#);
    assert!(f
        .s
        .remove("m", "s5", Durability::Immediate)
        .expect("remove"));
    clean(&f, "after writes beside them");
    // The tombstone lapses: a put under the id buries the dead record and is new.
    f.at(1100);
    let r =
        f.s.put("m", &ad(r#"[Name = "s1"; n = 11]"#), &PutOptions::default())
            .expect("put after the tombstone");
    assert!(!r.replaced);
    assert_eq!(attr(&f, "m", "s1", "n").as_deref(), Some("11"));
    // The purge of the other tombstone buries its dead record.
    assert_eq!(f.s.purge().expect("purge").tombstones, 1);
    clean(&f, "after burying");
    let f = f.reopen();
    assert_eq!(ids(&f, "m"), ["s0", "s2", "s3", "s1"]);
    assert_eq!(attr(&f, "m", "s1", "n").as_deref(), Some("11"));
    assert!(
        f.s.get("m", "s4").expect("get").is_none(),
        "buried, not back"
    );
    clean(&f, "after reopening again");
}

/// The match history: durable cycle numbers, reads by cycle, by ad and of the most recent,
/// retention by count and by age with every pruned record exported first, and `check` over
/// the history's indexes.
pub(crate) fn match_history(f: Fixture) {
    for i in 1..=8 {
        put(&f, "slots", &format!("[Name = \"s{i}\"]"));
        put(&f, "jobs", &format!("[Name = \"j{i}\"]"));
    }
    let pair = |cycle: u64, i: u32| NewMatch {
        cycle,
        members: vec![
            NewMember {
                collection: "jobs".into(),
                id: format!("j{i}"),
                rank: None,
                consume: true,
            },
            NewMember {
                collection: "slots".into(),
                id: format!("s{i}"),
                rank: Some(Value::Int(i64::from(i))),
                consume: true,
            },
        ],
    };
    let record = |f: &Fixture, cycle: u64, pairs: &[u32]| {
        let ms: Vec<NewMatch> = pairs.iter().map(|&i| pair(cycle, i)).collect();
        for r in f.s.record_matches(&ms, AfterRefusal::Stop).expect("record") {
            r.expect("recorded");
        }
    };
    let ids = |ms: Vec<MatchRecord>| ms.iter().map(|m| m.id).collect::<Vec<u64>>();
    assert_eq!(f.s.peek_cycle().expect("peek"), 1);
    let c1 = f.s.begin_cycle().expect("cycle");
    record(&f, c1, &[1, 2]);
    // A cycle that records nothing still takes its number.
    let empty = f.s.begin_cycle().expect("cycle");
    let c3 = f.s.begin_cycle().expect("cycle");
    assert_eq!((c1, empty, c3), (1, 2, 3));
    record(&f, c3, &[3]);
    f.at(2000);
    let f = f.reopen();
    let c4 = f.s.begin_cycle().expect("cycle after reopening");
    assert_eq!(c4, 4);
    record(&f, c4, &[4, 5]);
    for (cycle, want) in [(1, vec![1, 2]), (2, vec![]), (3, vec![3]), (4, vec![4, 5])] {
        assert_eq!(ids(f.s.matches_of_cycle(cycle).expect("by cycle")), want);
    }
    for (coll, id, want) in [
        ("slots", "s3", vec![3]),
        ("jobs", "j5", vec![5]),
        ("jobs", "j", vec![]),
        ("slots", "s1", vec![1]),
    ] {
        assert_eq!(
            ids(f.s.matches_of_ad(coll, id).expect("by ad")),
            want,
            "{id}"
        );
    }
    assert_eq!(ids(f.s.recent_matches(2).expect("recent")), [4, 5]);
    assert_eq!(
        ids(f.s.recent_matches(99).expect("recent")),
        [1, 2, 3, 4, 5]
    );
    assert_eq!(f.s.match_count().expect("count"), 5);
    // By count: the oldest go, each handed over first.
    let mut exported = Vec::new();
    let keep3 = crate::Retention {
        max_records: Some(3),
        ..Default::default()
    };
    let r =
        f.s.prune_matches(&keep3, u64::MAX, &mut |m| {
            exported.push(m.id);
            Ok(())
        })
        .expect("prune");
    assert_eq!(
        (r.pruned, r.kept, r.done, exported),
        (2, 3, true, vec![1, 2])
    );
    assert!(f.s.matches_of_cycle(1).expect("by cycle").is_empty());
    assert!(f.s.matches_of_ad("slots", "s1").expect("by ad").is_empty());
    assert_eq!(
        ids(f.s.matches().expect("all").map(|m| m.expect("m")).collect()),
        [3, 4, 5]
    );
    // By age: at 2500, a day of 1000 s keeps what was recorded at 2000.
    f.at(2500);
    let by_age = crate::Retention {
        max_age: Some(1000),
        ..Default::default()
    };
    let r =
        f.s.prune_matches(&by_age, u64::MAX, &mut |_| Ok(()))
            .expect("prune");
    assert_eq!((r.pruned, r.kept, r.done), (1, 2, true));
    // A budget smaller than the work: done says so, and the next call goes on.
    let none = crate::Retention {
        max_records: Some(0),
        ..Default::default()
    };
    let r = f.s.prune_matches(&none, 1, &mut |_| Ok(())).expect("prune");
    assert_eq!((r.pruned, r.kept, r.done), (1, 1, false));
    // An export that fails stops the prune with nothing of its chunk removed.
    let failed = f.s.prune_matches(&none, 9, &mut |_| {
        Err(AdError::NotFound {
            collection: "export".into(),
            id: String::new(),
        })
    });
    assert!(failed.is_err());
    assert_eq!(f.s.match_count().expect("count"), 1);
    let r = f.s.prune_matches(&none, 9, &mut |_| Ok(())).expect("prune");
    assert_eq!((r.pruned, r.kept, r.done), (1, 0, true));
    // Numbers go on after everything was pruned.
    assert_eq!(f.s.begin_cycle().expect("cycle"), 5);
    record(&f, 5, &[6]);
    assert_eq!(ids(f.s.recent_matches(5).expect("recent")), [6]);
    let report = f.s.check().expect("check");
    assert!(report.is_clean(), "{:?}", report.damage);
}

/// One `#[test]` per case, for the fixture `$make` builds.
macro_rules! adstore_suite {
    ($modname:ident, $make:expr) => {
        mod $modname {
            use super::*;
            #[test]
            fn ids_and_load_order() {
                super::ids_and_load_order($make(1000))
            }
            #[test]
            fn bad_names_are_refused() {
                super::bad_names_are_refused($make(1000))
            }
            #[test]
            fn lifetimes() {
                super::lifetimes($make(1000))
            }
            #[test]
            fn consumption_and_tombstones() {
                super::consumption_and_tombstones($make(1000))
            }
            #[test]
            fn matches_commit_atomically() {
                super::matches_commit_atomically($make(1000))
            }
            #[test]
            fn generations_count_record_changes() {
                super::generations_count_record_changes($make(1000))
            }
            #[test]
            fn matches_commit_in_groups() {
                super::matches_commit_in_groups($make(1000))
            }
            #[test]
            fn consumed_records_stay_dead() {
                super::consumed_records_stay_dead($make(1000))
            }
            #[test]
            fn match_history() {
                super::match_history($make(1000))
            }
            #[test]
            fn bulk_loads() {
                super::bulk_loads($make(3))
            }
            #[test]
            fn block_edits_survive_reopening() {
                super::block_edits_survive_reopening($make(1000))
            }
            #[test]
            fn damage_is_reported_by_collection_and_id() {
                super::damage_is_reported_by_collection_and_id($make(1000))
            }
        }
    };
}

adstore_suite!(on_memory, memory);
adstore_suite!(on_sled, sled);
