//! Frozen fixtures: databases written by earlier builds (tests/fixtures/storage/, see its
//! README for provenance and checksums) must open, read back exactly, and check clean, so a
//! format change cannot silently break old databases.

use adjoin::query::{ClassAd, Expr, Value};
use adjoin::storage::format::Opened;
use adjoin::storage::{Expiry, NewMatch, NewMember, PutOptions};
use adjoin::{Db, DbOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Time 2026-01-01T00:00:00Z: the fixture's clock, so expiries and tombstones are fixed.
const T0: i64 = 1_767_225_600;

fn fixture_dir(version: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/storage")
        .join(format!("v{version}"))
}

fn at(t: i64) -> DbOptions {
    DbOptions {
        tombstone_ttl: 900,
        clock: Some(adjoin::db::ClockFn(Arc::new(move || t))),
        ..DbOptions::default()
    }
}

/// The content of format `version`'s fixture: the same ads in every format; from format 5
/// (chain nodes) each machine also has a `Policy` that is a run of `||`.
fn content(version: u32) -> Vec<(&'static str, String)> {
    let mut ads = Vec::new();
    for k in 0..40 {
        let policy = if version >= 5 {
            format!(
                r#"; Policy = Owner == "a" || Owner == "b" || Owner == "u{k}" || Memory + Cpus + {k} > 9"#
            )
        } else {
            String::new()
        };
        ads.push((
            "machines",
            format!(
                r#"[Name = "slot{k}@fixture"; Memory = {}; Arch = "X86_64"; LoadAvg = {}.5; Start = KeyboardIdle > 15 * 60; Tags = {{"a", {k}}}; Sub = [x = {k}]{policy}]"#,
                k * 512,
                k % 3
            ),
        ));
    }
    for k in 0..10 {
        ads.push((
            "jobs",
            format!(
                r#"[GlobalJobId = "submit#{k}.0#1"; Owner = "user{}"; RequestMemory = {}]"#,
                k % 3,
                256 * (k + 1)
            ),
        ));
    }
    ads.push(("jobs", "[Owner = \"nobody\"; Anonymous = true]".to_owned()));
    ads
}

fn parse(text: &str) -> ClassAd {
    adjoin::query::parse::classad(text).expect("fixture ad parses")
}

/// Writes the fixture of the current format (run once, by hand, when a format is released; see
/// the README). Format 1's was written the same way by the build that wrote format 1.
#[test]
#[ignore = "writes tests/fixtures/storage/vN for the current format N; run by hand to make the fixture"]
fn write_current_fixture() {
    let dir = fixture_dir(adjoin::storage::format::CURRENT);
    let _ = std::fs::remove_dir_all(&dir);
    let db = Db::open_with(dir.join("db"), &at(T0)).expect("open");
    // Machines one put at a time (blocks of one), jobs in one bulk load (blocks of several).
    let mut jobs = db.store().loader("jobs", PutOptions::default());
    for (coll, text) in content(adjoin::storage::format::CURRENT) {
        let opts = PutOptions {
            expiry: if text.contains("slot39") {
                Expiry::At(T0 + 3600)
            } else {
                Expiry::Never
            },
            ..PutOptions::default()
        };
        if coll == "jobs" {
            jobs.push(&parse(&text)).expect("push");
        } else {
            db.put_with(coll, &parse(&text), &opts).expect("put");
        }
    }
    jobs.finish().expect("load");
    db.record_match(&NewMatch {
        cycle: 1,
        members: vec![
            NewMember {
                collection: "jobs".into(),
                id: "submit#0.0#1".into(),
                rank: Some(Value::Real(2.5)),
                consume: true,
            },
            NewMember {
                collection: "machines".into(),
                id: "slot0@fixture".into(),
                rank: Some(Value::Int(0)),
                consume: true,
            },
        ],
    })
    .expect("match");
    db.close().expect("close");
}

/// Copies a fixture to a temporary directory (opening writes) and opens it at time `t`.
fn open_copy(version: u32, t: i64) -> (tempfile::TempDir, Db) {
    let tmp = tempfile::tempdir().expect("tempdir");
    let from = fixture_dir(version).join("db");
    let to = tmp.path().join("db");
    std::fs::create_dir_all(&to).expect("mkdir");
    for entry in std::fs::read_dir(&from).expect("fixture present") {
        let entry = entry.expect("entry");
        if entry.file_type().expect("type").is_file() {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    }
    let db = Db::open_with(&to, &at(t)).expect("the fixture opens");
    (tmp, db)
}

/// Opens a copy of format `version`'s fixture and checks that it reads back exactly.
fn reads_back(version: u32) {
    let (_tmp, db) = open_copy(version, T0 + 60);
    let opened = db.store().opened();
    if version == adjoin::storage::format::CURRENT {
        assert_eq!(opened, Opened::Current);
    } else {
        assert_eq!(opened, Opened::Migrated(version));
    }
    assert_eq!(db.collections(), ["jobs", "machines"]);
    let machines: Vec<String> = db
        .scan("machines")
        .expect("scan")
        .map(|a| a.expect("ad").header.id)
        .collect();
    let want: Vec<String> = (1..40).map(|k| format!("slot{k}@fixture")).collect();
    assert_eq!(machines, want, "load order, slot0 consumed");
    for (coll, text) in content(version) {
        let ad = parse(&text);
        let id = ["Name", "GlobalJobId"]
            .iter()
            .find_map(|a| match ad.get(a) {
                Some(Expr::Lit(Value::Str(s))) => Some(s.to_string()),
                _ => None,
            });
        let Some(id) = id else { continue };
        let got = db.get(coll, &id).expect("get");
        if id == "slot0@fixture" || id == "submit#0.0#1" {
            assert!(got.is_none(), "{id} was consumed");
            assert!(
                db.tombstone(coll, &id).expect("tombstone").is_some(),
                "{id} tombstoned"
            );
        } else {
            assert_eq!(got.expect("present").ad.to_string(), ad.to_string(), "{id}");
        }
    }
    let generated = db
        .get("jobs", "auto-1")
        .expect("get")
        .expect("generated id");
    assert!(generated.header.generated_id);
    let m = db.matches().expect("matches");
    assert_eq!(m.len(), 1);
    assert_eq!(
        (m[0].id, m[0].cycle, m[0].time, m[0].members.len()),
        (1, 1, T0, 2)
    );
    // The history's access paths (format 4; built by the migration from older formats).
    let store = db.store();
    let ids = |ms: Vec<adjoin::storage::MatchRecord>| ms.iter().map(|m| m.id).collect::<Vec<_>>();
    assert_eq!(ids(store.matches_of_cycle(1).expect("by cycle")), [1]);
    assert_eq!(
        ids(store
            .matches_of_ad("machines", "slot0@fixture")
            .expect("by ad")),
        [1]
    );
    assert_eq!(
        ids(store.matches_of_ad("jobs", "submit#0.0#1").expect("by ad")),
        [1]
    );
    assert_eq!(ids(store.recent_matches(10).expect("recent")), [1]);
    assert_eq!(store.peek_cycle().expect("next cycle"), 2);
    let report = db.check().expect("check");
    assert!(report.is_clean(), "{:?}", report.damage);
    let stats = db.stats().expect("stats");
    assert_eq!(stats.format, adjoin::storage::format::CURRENT);
    // Reopened, the migrated (or current) database is as it was.
    let path = db.path().expect("on disk").to_owned();
    db.close().expect("close");
    let again = Db::open_with(&path, &at(T0 + 60)).expect("reopen");
    assert_eq!(again.store().opened(), Opened::Current);
    assert_eq!(again.count("machines", None).expect("count"), 39);
    assert!(again.check().expect("check").is_clean());
    // Time passes: slot39 expires, the tombstones lapse.
    let (_tmp2, later) = open_copy(version, T0 + 7200);
    assert!(later
        .get("machines", "slot39@fixture")
        .expect("get")
        .is_none());
    assert!(later
        .tombstone("machines", "slot0@fixture")
        .expect("ts")
        .is_none());
}

#[test]
fn format_1_fixture_is_migrated_and_reads_back() {
    reads_back(1);
}

#[test]
fn format_2_fixture_reads_back() {
    reads_back(2);
}

#[test]
fn format_3_fixture_reads_back() {
    // The consumed ads' records are still in their blocks here, dead.
    reads_back(3);
}

#[test]
fn format_4_fixture_reads_back() {
    // The match history indexed by cycle and by ad, the cycle counter stored.
    reads_back(4);
}

#[test]
fn format_5_fixture_reads_back() {
    // Runs of one operator stored as chain nodes.
    reads_back(5);
    let (_tmp, db) = open_copy(5, T0 + 60);
    let slot = db
        .get("machines", "slot1@fixture")
        .expect("get")
        .expect("slot1");
    let policy = slot.ad.get("Policy").expect("Policy");
    assert!(
        matches!(policy, Expr::Chain(adjoin::query::BinOp::Or, t) if t.len() == 4),
        "{policy:?}"
    );
}

/// A held-index checkpoint fixture: format 5's database with a checkpoint of `machines'` held
/// index (docs/storage-format.md, "Held indexes"), its payload of `layout` 1 (written by the
/// build that introduced checkpoint files) or 2 (the columns of `index/src/snapshot.rs`); each
/// written once, by hand (see the README).
fn checkpoint_fixture(layout: u32) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(format!("../tests/fixtures/storage/checkpoint-v{layout}"))
}

/// The first bytes of a payload of layout 2 (`engine/src/db/held_files.rs`).
const LAYOUT_2: &[u8] = b"ADJIDX\x00\x02";

/// Copies `from` (files, and the files of its subdirectories one level down) into `to`.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("fixture present") {
        let entry = entry.expect("entry");
        if entry.file_type().expect("type").is_dir() {
            copy_tree(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).expect("copy");
        }
    }
}

#[test]
#[ignore = "writes tests/fixtures/storage/checkpoint-v2; run by hand to make the fixture"]
fn write_checkpoint_fixture() {
    let dir = checkpoint_fixture(2);
    let _ = std::fs::remove_dir_all(&dir);
    copy_tree(&fixture_dir(5).join("db"), &dir.join("db"));
    let db = Db::open_with(dir.join("db"), &at(T0 + 60)).expect("open");
    db.count("machines", None).expect("count");
    db.close().expect("close");
}

#[test]
fn checkpoint_fixtures_restore_the_held_index_without_reading_an_ad() {
    for layout in [1, 2] {
        let tmp = tempfile::tempdir().expect("tempdir");
        let path = tmp.path().join("db");
        copy_tree(&checkpoint_fixture(layout).join("db"), &path);
        let snap = path.join("adjoin-index/c1.snap");
        // The file as the format describes it: machines is collection 1, its 39 live ads
        // (slot0, sequence number 1, consumed) marked by their sequence numbers 2..=40.
        let c = adjoin::storage::Checkpoint::open(&snap).expect("the checkpoint opens");
        assert_eq!(c.generation().collection, 1);
        let seqs: Vec<u64> = c.marks().map(|(s, _)| s).collect();
        assert_eq!(seqs, (2..41).collect::<Vec<u64>>());
        assert_eq!(
            c.payload().starts_with(LAYOUT_2),
            layout == 2,
            "layout {layout}"
        );
        drop(c);
        let db = Db::open_with(&path, &at(T0 + 60)).expect("open");
        let e = adjoin::query::parse::expr("Memory >= 10240").expect("constraint");
        let mut got = db.indexed_query("machines", &e).expect("query").ids;
        got.sort();
        let mut want: Vec<String> = (20..40).map(|k| format!("slot{k}@fixture")).collect();
        want.sort();
        assert_eq!(got, want, "layout {layout}");
        let made = db.with_index("machines", |h| h.made()).expect("index");
        assert_eq!((made.restored, made.replayed, made.removed), (true, 0, 0));
        db.close().expect("close");
        // A checkpoint of layout 1 is written again, of layout 2, at the next checkpoint.
        let c = adjoin::storage::Checkpoint::open(&snap).expect("the checkpoint opens");
        assert!(
            c.payload().starts_with(LAYOUT_2),
            "layout {layout} after close"
        );
    }
}
