//! The index a `Db` holds per collection: constraint queries through it equal plain
//! evaluation of every ad, whatever writes, expiries, purges, bypassing writes and restarts
//! came before (checkpoints at random points and restarts from an older checkpoint, as after
//! a kill, among them); a restart restores it from its checkpoint and replays only the
//! difference; a damaged checkpoint is ignored.

use adjoin::query::eval::{eval_expr, EvalOptions};
use adjoin::query::{parse, ClassAd, Expr};
use adjoin::storage::{Durability, Expiry, PutOptions};
use adjoin::{Db, DbOptions};
use proptest::prelude::*;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// The ids a scan selects by evaluating `constraint` in every live ad.
fn by_scan(db: &Db, coll: &str, constraint: &Expr) -> Vec<String> {
    let opts = EvalOptions::default();
    db.scan(coll)
        .map(|s| {
            s.filter_map(Result::ok)
                .filter(|ad| adjoin::db::selects(&eval_expr(constraint, &ad.ad, &opts)))
                .map(|ad| ad.header.id)
                .collect()
        })
        .unwrap_or_default()
}

/// The ids the index path selects (through `query`, which reads the ads back).
fn by_index(db: &Db, coll: &str, constraint: &Expr) -> Vec<String> {
    db.query(coll, constraint)
        .expect("query")
        .map(|a| a.expect("ad").header.id)
        .collect()
}

const CONSTRAINTS: &[&str] = &[
    "true",
    "Extra > 5",
    "regexp(\"^x86\", Arch, \"i\")",
    "Memory >= 2048",
    "Memory < 1024 || Arch == \"x86_64\"",
    "Arch =?= \"X86_64\"",
    "Cpus > 1 && Memory > 100",
    "Requirements",
    "Memory == \"big\"",
    "isUndefined(Memory)",
    "Memory",
];

fn constraints() -> Vec<Expr> {
    CONSTRAINTS
        .iter()
        .map(|c| parse::expr(c).expect("constraint"))
        .collect()
}

fn ad(i: u8, memory: u16, arch: u8, cpus: u8, ports: bool) -> ClassAd {
    let arch = ["\"X86_64\"", "\"x86_64\"", "\"INTEL\"", "undefined"][usize::from(arch % 4)];
    let memory = match memory % 7 {
        0 => "\"big\"".to_owned(),
        1 => "Cpus * 1024".to_owned(),
        _ => memory.to_string(),
    };
    let mut text = format!(
        "[Name = \"n{i}\"; Memory = {memory}; Arch = {arch}; Cpus = {cpus}; \
         Requirements = TARGET.ImageSize < Memory"
    );
    if memory.len() % 2 == 0 {
        text.push_str(&format!("; Extra = {}", cpus * 3));
    }
    if ports {
        text.push_str("; Ports = {[Label = p; Memory = 4096]}");
    }
    text.push(']');
    parse::classad(&text).expect("ad")
}

#[derive(Clone, Debug)]
enum Op {
    Put(u8, u16, u8, u8, bool, Option<i64>),
    /// A bulk load (strict or not) of several ads, as text.
    Load(Vec<(u8, u16, u8, u8)>, bool),
    Remove(u8),
    Consume(u8),
    Tick(i64),
    Purge,
    /// A write through the store underneath, which the held index does not see.
    Bypass(u8, u16),
    Reopen,
    /// A checkpoint of the held indexes, its files set aside as "the last checkpoint".
    Checkpoint,
    /// A restart as after a kill following the last checkpoint: the store has every write,
    /// the held index only that checkpoint (none if none was taken).
    Crash,
    /// One constraint (so that some attribute is first read after a reopen).
    QueryOne(usize),
    Query,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        6 => (0u8..24, any::<u16>(), any::<u8>(), 0u8..4, prop::bool::weighted(0.1),
              prop::option::weighted(0.2, 1i64..40))
            .prop_map(|(i, m, a, c, p, e)| Op::Put(i, m, a, c, p, e)),
        2 => (prop::collection::vec((0u8..24, any::<u16>(), any::<u8>(), 0u8..4), 1..6), any::<bool>())
            .prop_map(|(ads, strict)| Op::Load(ads, strict)),
        2 => (0u8..24).prop_map(Op::Remove),
        1 => (0u8..24).prop_map(Op::Consume),
        1 => (1i64..20).prop_map(Op::Tick),
        1 => Just(Op::Purge),
        1 => (0u8..24, any::<u16>()).prop_map(|(i, m)| Op::Bypass(i, m)),
        1 => Just(Op::Reopen),
        1 => Just(Op::Checkpoint),
        1 => Just(Op::Crash),
        2 => (0..CONSTRAINTS.len()).prop_map(Op::QueryOne),
        2 => Just(Op::Query),
    ]
}

fn options(clock: &Arc<AtomicI64>) -> DbOptions {
    let c = Arc::clone(clock);
    DbOptions {
        clock: Some(adjoin::db::ClockFn(Arc::new(move || {
            c.load(Ordering::SeqCst)
        }))),
        tombstone_ttl: 5,
        ..DbOptions::default()
    }
}

/// The ads matching `job` both ways, by evaluating every pair of a scan.
fn candidates_by_scan(db: &Db, job: &Arc<ClassAd>) -> Vec<String> {
    let coll = adjoin::collection::Collection::scan(db, "m").expect("scan");
    let found = coll
        .naive_join(std::slice::from_ref(job), &EvalOptions::default())
        .pop()
        .unwrap_or_default();
    found
        .iter()
        .filter_map(|n| coll.id(n).map(str::to_owned))
        .collect()
}

const JOBS: &[&str] = &[
    "[ImageSize = 300; Requirements = TARGET.Memory >= 1024 && TARGET.Arch == \"X86_64\"]",
    "[ImageSize = 5000; Requirements = TARGET.Cpus >= 2]",
    "[ImageSize = 10; Requirements = true]",
];

fn check(db: &Db, exprs: &[Expr]) {
    for job in JOBS {
        let job = Arc::new(parse::classad(job).expect("job"));
        let got = db.candidates("m", &job).map(|a| a.ids).unwrap_or_default();
        assert_eq!(got, candidates_by_scan(db, &job), "{job:?}");
    }
    for (text, e) in CONSTRAINTS.iter().zip(exprs) {
        assert_eq!(by_index(db, "m", e), by_scan(db, "m", e), "{text}");
        assert_eq!(
            db.count("m", Some(e)).expect("count"),
            by_scan(db, "m", e).len() as u64,
            "{text}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn indexed_queries_equal_scans(ops in prop::collection::vec(op(), 1..40)) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        let clock = Arc::new(AtomicI64::new(1_000));
        let exprs = constraints();
        let mut db = Db::open_with(&path, &options(&clock)).expect("open");
        let index_dir = path.join("adjoin-index");
        let aside = dir.path().join("last-checkpoint");
        for op in ops {
            match op {
                Op::Put(i, m, a, c, p, e) => {
                    let opts = PutOptions {
                        expiry: e.map_or(Expiry::Never, |d| Expiry::At(clock.load(Ordering::SeqCst) + d)),
                        ..PutOptions::default()
                    };
                    // A tombstoned id is refused: that is not this test's business.
                    let _ = db.put_with("m", &ad(i, m, a, c, p), &opts);
                }
                Op::Load(ads, strict) => {
                    let text: Vec<String> = ads
                        .iter()
                        .map(|&(i, m, a, c)| ad(i, m, a, c, false).to_string())
                        .collect();
                    let opts = adjoin::LoadOptions { strict, ..adjoin::LoadOptions::default() };
                    // Tombstoned ids are refused (a strict load then stores nothing).
                    let _ = db.load_text("m", "ops.ads", &text.join("\n"), &opts);
                }
                Op::Remove(i) => {
                    db.remove("m", &format!("n{i}")).expect("remove");
                }
                Op::Consume(i) => {
                    let _ = db.consume("m", &format!("n{i}"));
                }
                Op::Tick(d) => {
                    clock.fetch_add(d, Ordering::SeqCst);
                }
                Op::Purge => {
                    db.purge().expect("purge");
                }
                Op::Bypass(i, m) => {
                    let _ = db.store().put("m", &ad(i, m, 0, 1, false), &PutOptions {
                        durability: Durability::Immediate,
                        ..PutOptions::default()
                    });
                }
                Op::Reopen => {
                    db.close().expect("close");
                    db = Db::open_with(&path, &options(&clock)).expect("reopen");
                }
                Op::Checkpoint => {
                    db.save_indexes().expect("checkpoint");
                    let _ = std::fs::remove_dir_all(&aside);
                    copy_dir(&index_dir, &aside);
                }
                Op::Crash => {
                    db.close().expect("close");
                    let _ = std::fs::remove_dir_all(&index_dir);
                    copy_dir(&aside, &index_dir);
                    db = Db::open_with(&path, &options(&clock)).expect("reopen");
                }
                Op::QueryOne(i) => {
                    assert_eq!(by_index(&db, "m", &exprs[i]), by_scan(&db, "m", &exprs[i]), "{}", CONSTRAINTS[i]);
                }
                Op::Query => check(&db, &exprs),
            }
        }
        check(&db, &exprs);
    }
}

/// Copies the files of directory `from` (if it exists) into `to`.
fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    for e in entries {
        let e = e.expect("entry");
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
    }
}

fn pool(db: &Db, n: usize) {
    for i in 0..n {
        let text = format!(
            "[Name = \"s{i}\"; Memory = {}; Cpus = {}; Requirements = TARGET.ImageSize < Memory]",
            (i % 16) * 512,
            i % 4
        );
        db.put("m", &parse::classad(&text).expect("ad"))
            .expect("put");
    }
}

/// A database of `ads` (one collection, `m`), loaded as text.
fn db_of<S: AsRef<str>>(ads: &[S]) -> Db {
    let db = Db::open_in_memory().expect("db");
    let text: Vec<&str> = ads.iter().map(AsRef::as_ref).collect();
    db.load_text(
        "m",
        "t.ads",
        &text.join("\n"),
        &adjoin::LoadOptions::default(),
    )
    .expect("load");
    db
}

/// `query` through the index (and counted) selects what evaluation selects in `m`, and a job
/// requiring `request` gets the candidates evaluation of every pair gives.
fn index_agrees(db: &Db, label: &str, query: &str, request: &str) {
    let Ok(e) = parse::expr(query) else {
        return;
    };
    assert_eq!(
        by_index(db, "m", &e),
        by_scan(db, "m", &e),
        "{label}: {query}"
    );
    let count = db.count("m", Some(&e)).expect("count");
    assert_eq!(count, by_scan(db, "m", &e).len() as u64, "{label}: {query}");
    let job = format!("[x = 1; Requirements = {request}]");
    let job = Arc::new(parse::classad(&job).expect("job"));
    let got = db.candidates("m", &job).expect("candidates").ids;
    assert_eq!(got, candidates_by_scan(db, &job), "{label}: {request}");
}

/// Constraints nested near evaluation's depth limit (past it the whole is `error`, as in
/// HTCondor): queries, counts and candidates through the index select what evaluation selects.
/// The index once folded a deep constant on its own, less deep than evaluation reaches it, and
/// selected ads whose evaluation is `error` (found by the `query` fuzz target).
#[test]
fn constraints_at_the_depth_limit() {
    let db = db_of(&[
        "[Name = \"a\"; Memory = 1024; Requirements = true]",
        "[Name = \"b\"; Memory = 4096; Requirements = true]",
        "[Name = \"c\"; Memory = 4096; Requirements = TARGET.x == 1]",
    ]);
    for n in 395..=403 {
        let m = "-".repeat(n);
        let label = n.to_string();
        for (query, request) in [
            (
                format!("!{m}2 || Memory > 2000"),
                format!("!{m}2 || TARGET.Memory > 2000"),
            ),
            (
                format!("Memory > {m}2000"),
                format!("TARGET.Memory > {m}2000"),
            ),
            (
                format!("Memory > 2000 && {m}1 == 1"),
                format!("TARGET.Memory > 2000 && {m}1 == 1"),
            ),
            (
                format!("{m}1 == 1 && Memory > 2000"),
                format!("{m}1 == 1 && TARGET.Memory > 2000"),
            ),
            (
                format!("Memory > 2000 && ({m}1 == 1 || Memory > 3000)"),
                format!("{m}1 == 1"),
            ),
        ] {
            index_agrees(&db, &label, &query, &request);
        }
    }
    // Values nested deep, read by constraints nested deep: the index trusts a value only as
    // a reference nested up to half the limit reads it, and decides nothing in a constraint
    // nested deeper.
    let ads: Vec<String> = [10, 150, 195, 200, 205, 250, 390, 398, 399, 400]
        .into_iter()
        .enumerate()
        .map(|(i, n)| {
            let m = "-".repeat(n);
            format!("[Name = \"d{i}\"; Memory = {m}4096; Requirements = TARGET.x == 1]")
        })
        .collect();
    let db = db_of(&ads);
    for n in [
        0, 5, 150, 190, 196, 197, 198, 199, 200, 201, 210, 250, 395, 399,
    ] {
        let not = "!".repeat(n + n % 2);
        let paren = format!("{}Memory > 2000{}", "(".repeat(n), ")".repeat(n));
        let label = format!("values, {n}");
        index_agrees(
            &db,
            &label,
            &format!("{not}(Memory > 2000)"),
            &format!("{not}(TARGET.Memory > 2000)"),
        );
        index_agrees(
            &db,
            &label,
            &paren,
            &paren.replace("Memory", "TARGET.Memory"),
        );
    }
}

/// A relative-time literal (`relTime("12")`, folded when read) evaluates to a real, as in
/// HTCondor; the index reads such literals, in constraints and as the ads' values, the same
/// way (it took them for relative times once: `relTime("12")` selected nothing, `Dur > 10`
/// missed an ad with `Dur = relTime("30")`).
#[test]
fn relative_time_literals_read_as_reals() {
    let db = db_of(&[
        "[Name = \"a\"; Memory = 4; Dur = relTime(\"30\")]",
        "[Name = \"b\"; Memory = 40; Dur = relTime(30)]",
        "[Name = \"c\"; Memory = 400; Dur = 5]",
    ]);
    for (text, want) in [
        ("relTime(\"12\")", &["a", "b", "c"][..]),
        ("relTime(\"0\")", &[]),
        ("relTime(12)", &[]),
        ("relTime(\"12\") && Memory > 10", &["b", "c"]),
        ("Memory < relTime(\"50\")", &["a", "b"]),
        ("Dur > 10", &["a"]),
        ("Dur == 30", &["a"]),
        ("Dur > relTime(10)", &["b"]),
        ("isReal(Dur)", &["a"]),
    ] {
        let e = parse::expr(text).expect("constraint");
        assert_eq!(by_scan(&db, "m", &e), want, "{text} by scan");
        assert_eq!(by_index(&db, "m", &e), want, "{text} through the index");
    }
}

#[test]
fn a_restart_restores_the_index_from_its_snapshot() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let e = parse::expr("Memory >= 4096 && Cpus == 2").expect("constraint");
    let want = {
        let db = Db::open(&path).expect("open");
        pool(&db, 500);
        let want = by_scan(&db, "m", &e);
        assert_eq!(by_index(&db, "m", &e), want);
        db.close().expect("close");
        want
    };
    // Reopened: restored, with the imported attributes, and no evaluation needed.
    let db = Db::open(&path).expect("reopen");
    let answer = db.indexed_query("m", &e).expect("query");
    assert_eq!(answer.ids, want);
    assert_eq!(answer.explain.evaluations, 0);
    assert!(db.with_index("m", |h| h.restored()).expect("index"));
    // A write keeps it current; the next restart restores the changed index.
    db.remove("m", &want[0]).expect("remove");
    db.close().expect("close");
    let db = Db::open(&path).expect("reopen");
    assert!(db.with_index("m", |h| h.restored()).expect("index"));
    assert_eq!(by_index(&db, "m", &e), want[1..]);
    db.close().expect("close");
    // A damaged snapshot is ignored: the index is rebuilt and answers the same.
    let snaps = std::fs::read_dir(path.join("adjoin-index")).expect("snapshots");
    for f in snaps {
        let f = f.expect("entry").path();
        let mut bytes = std::fs::read(&f).expect("read");
        let mid = bytes.len() / 2;
        bytes[mid] ^= 0xff;
        std::fs::write(&f, bytes).expect("write");
    }
    let db = Db::open(&path).expect("reopen");
    assert_eq!(by_index(&db, "m", &e), want[1..]);
    assert!(!db.with_index("m", |h| h.restored()).expect("index"));
}

/// Checkpoints whose checksum is right but whose payload is not (a forged or buggy writer):
/// cut short, or a column naming a value beyond its table. Each is refused, and the index is
/// built from the store and answers as a scan does.
#[test]
fn a_checkpoint_whose_payload_contradicts_itself_is_rebuilt() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let e = parse::expr("Memory >= 4096 && Cpus == 2").expect("constraint");
    let want = {
        let db = Db::open(&path).expect("open");
        pool(&db, 300);
        let want = by_scan(&db, "m", &e);
        assert_eq!(by_index(&db, "m", &e), want);
        db.close().expect("close");
        want
    };
    let file = path.join("adjoin-index/c1.snap");
    let good = std::fs::read(&file).expect("read");
    type Forge = fn(&mut Vec<u8>);
    let forgeries: [(&str, Forge); 2] = [
        ("cut short", |p| p.truncate(p.len() - 10)),
        // The payload ends with the last imported column: its last value number.
        ("a value beyond its table", |p| {
            let n = p.len();
            p[n - 4..].copy_from_slice(&u32::MAX.to_le_bytes());
        }),
    ];
    for (what, forge) in forgeries {
        std::fs::write(&file, &good).expect("write");
        let (generation, marks, mut payload) = {
            let c = adjoin::storage::Checkpoint::open(&file).expect("open");
            (
                c.generation(),
                c.marks().collect::<Vec<_>>(),
                c.payload().to_vec(),
            )
        };
        forge(&mut payload);
        adjoin::storage::write_checkpoint(&file, generation, &marks, &payload).expect("forge");
        let db = Db::open(&path).expect("reopen");
        assert_eq!(by_index(&db, "m", &e), want, "{what}");
        assert!(
            !db.with_index("m", |h| h.restored()).expect("index"),
            "{what}"
        );
        db.close().expect("close");
    }
}

#[test]
fn a_stale_checkpoint_is_caught_up_by_the_difference() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let e = parse::expr("Memory >= 4096").expect("constraint");
    {
        let db = Db::open(&path).expect("open");
        pool(&db, 100);
        by_index(&db, "m", &e);
        db.close().expect("close");
    }
    // Written behind the index's back: the checkpoint is older than the store.
    {
        let db = Db::open(&path).expect("open");
        db.store()
            .remove("m", "s8", Durability::Immediate)
            .expect("remove");
        db.store()
            .put(
                "m",
                &parse::classad("[Name = \"s9\"; Memory = 1]").expect("ad"),
                &PutOptions::default(),
            )
            .expect("put");
        db.close().expect("close");
    }
    let db = Db::open(&path).expect("reopen");
    let got = by_index(&db, "m", &e);
    assert_eq!(got, by_scan(&db, "m", &e));
    assert!(!got.contains(&"s8".to_owned()) && !got.contains(&"s9".to_owned()));
    // Restored, then only the difference replayed: s8 removed, s9's old version removed
    // and its new one read and added.
    let made = db.with_index("m", |h| h.made()).expect("index");
    assert_eq!((made.restored, made.replayed, made.removed), (true, 1, 2));
}

#[test]
fn a_durable_cycle_keeps_the_held_indexes_current() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let e = parse::expr("Memory >= 1024").expect("constraint");
    {
        let db = Db::open(&path).expect("open");
        pool(&db, 200);
        for i in 0..50 {
            let job = format!(
                "[GlobalJobId = \"j{i}\"; ImageSize = {}; Requirements = TARGET.Memory >= {}]",
                i * 10,
                (i % 8) * 512
            );
            db.put("jobs", &parse::classad(&job).expect("job"))
                .expect("put");
        }
        by_index(&db, "m", &e);
        by_index(&db, "jobs", &parse::expr("true").expect("e"));
        db.close().expect("close");
    }
    let db = Db::open(&path).expect("reopen");
    let report = db
        .match_cycle(&adjoin::cycle::CycleOptions::new("jobs", "m"))
        .expect("cycle");
    assert!(report.matched > 0);
    // Restored before the cycle and following its consumption: not rebuilt, and exact.
    for coll in ["m", "jobs"] {
        assert!(
            db.with_index(coll, |h| h.restored()).expect("index"),
            "{coll}"
        );
    }
    assert_eq!(by_index(&db, "m", &e), by_scan(&db, "m", &e));
    let all = parse::expr("true").expect("e");
    assert_eq!(by_index(&db, "jobs", &all), by_scan(&db, "jobs", &all));
    db.close().expect("close");
    let db = Db::open(&path).expect("reopen");
    assert_eq!(by_index(&db, "m", &e), by_scan(&db, "m", &e));
    assert!(db.with_index("m", |h| h.restored()).expect("index"));
}

#[test]
fn many_inexact_candidates_are_confirmed_in_one_pass() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let db = Db::open(&path).expect("open");
    let text: Vec<String> = (0..3000u32)
        .map(|i| {
            format!(
                "[Name = \"s{i}\"; Arch = \"{}\"; Memory = {}]",
                ["X86_64", "INTEL", "x86_64"][(i % 3) as usize],
                i
            )
        })
        .collect();
    db.load_text(
        "m",
        "m.ads",
        &text.join("\n"),
        &adjoin::LoadOptions::default(),
    )
    .expect("load");
    // Not in property form: every ad is a candidate, confirmed by evaluation.
    let e = parse::expr("regexp(\"^x86\", Arch, \"i\") && Memory % 2 == 0").expect("e");
    let answer = db.indexed_query("m", &e).expect("query");
    assert_eq!(answer.explain.evaluations, 3000);
    assert_eq!(answer.ids, by_scan(&db, "m", &e));
    assert_eq!(answer.ids.len(), 1000);
    db.close().expect("close");
    let db = Db::open(&path).expect("reopen");
    assert_eq!(by_index(&db, "m", &e), by_scan(&db, "m", &e));
    assert!(db.with_index("m", |h| h.restored()).expect("index"));
}

#[test]
fn concurrent_writers_and_queries_leave_the_index_exact() {
    let e = parse::expr("Memory >= 4096").expect("constraint");
    for round in 0..20u32 {
        let db = Arc::new(Db::open_in_memory().expect("db"));
        let writers: Vec<_> = (0..2u32)
            .map(|w| {
                let db = Arc::clone(&db);
                std::thread::spawn(move || {
                    for i in 0..60u32 {
                        let text = format!(
                            "[Name = \"w{w}-{}\"; Memory = {}]",
                            i % 25,
                            (i * 7 + round) % 16 * 512
                        );
                        db.put("m", &parse::classad(&text).expect("ad"))
                            .expect("put");
                        if i % 9 == 0 {
                            db.remove("m", &format!("w{w}-{}", i % 5)).expect("remove");
                        }
                    }
                })
            })
            .collect();
        let reader = {
            let db = Arc::clone(&db);
            let e = e.clone();
            std::thread::spawn(move || {
                for _ in 0..30 {
                    db.count("m", Some(&e)).expect("count");
                }
            })
        };
        for t in writers {
            t.join().expect("writer");
        }
        reader.join().expect("reader");
        assert_eq!(
            by_index(&db, "m", &e),
            by_scan(&db, "m", &e),
            "round {round}"
        );
    }
}

#[test]
fn a_write_waits_only_for_the_collection_it_touches() {
    let db = Arc::new(Db::open_in_memory().expect("db"));
    pool(&db, 50);
    let e = parse::expr("Memory >= 4096").expect("constraint");
    db.count("m", Some(&e)).expect("hold m's index");
    db.count("other", None).expect("hold other's index");
    let (done, finished) = std::sync::mpsc::channel();
    // While m's index is held locked (as while it is built or extended), writes to another
    // collection go through: a put, a removal, a match between two other collections.
    db.with_index("m", |_| {
        let db = Arc::clone(&db);
        std::thread::spawn(move || {
            let ad = parse::classad("[Name = \"o1\"; Memory = 1]").expect("ad");
            db.put("other", &ad).expect("put");
            db.put("jobs", &parse::classad("[Name = \"j\"]").expect("ad"))
                .expect("put");
            db.record_match(&adjoin::storage::NewMatch {
                cycle: 1,
                members: vec![adjoin::storage::NewMember {
                    collection: "other".into(),
                    id: "o1".into(),
                    rank: None,
                    consume: true,
                }],
            })
            .expect("match");
            done.send(()).expect("send");
        });
        // Bounded: a write that waited for m's lock would never come back while it is held.
        finished
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the writes to other collections did not wait for m's index");
    })
    .expect("with_index");
    assert_eq!(db.count("other", None).expect("count"), 0);
    assert_eq!(by_index(&db, "m", &e), by_scan(&db, "m", &e));
}

#[test]
fn a_join_through_the_held_index_equals_a_scan_of_every_pair() {
    let db = Db::open_in_memory().expect("open");
    for i in 0..24u8 {
        db.put("m", &ad(i, u16::from(i) * 331, i, i % 4, i % 7 == 0))
            .expect("put");
    }
    db.remove("m", "n5").expect("remove");
    for job in JOBS {
        db.put("jobs", &parse::classad(job).expect("job"))
            .expect("job");
    }
    let joined = db.join("jobs", "m").expect("join");
    assert!(joined.damaged.is_empty());
    assert_eq!(joined.rows.len(), JOBS.len());
    for ((id, offers), job) in joined.rows.iter().zip(JOBS) {
        let job = Arc::new(parse::classad(job).expect("job"));
        assert_eq!(offers, &candidates_by_scan(&db, &job), "{id}");
    }
    // The offers' index is held: a second join makes it no more (no offer read again).
    let made = db.with_index("m", |h| h.made()).expect("held");
    let again = db.join("jobs", "m").expect("join");
    assert_eq!(again.rows, joined.rows);
    assert_eq!(db.with_index("m", |h| h.made()).expect("held"), made);
}
