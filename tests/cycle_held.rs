//! Cycles through the Db's held index (issue 14): after random puts, replacements, removals,
//! consumptions, expiries, writes bypassing the Db, durable cycles, checkpoints and reopens
//! (restoring the checkpoint), a cycle through the held index lent to it equals the naive
//! cycle, clustered and uncached, and the held index still answers queries as a scan does.

use adjoin::cycle::{self, CycleOptions, CycleReport};
use adjoin::query::eval::{eval_expr, EvalOptions};
use adjoin::query::{parse, ClassAd, Expr};
use adjoin::storage::{Durability, Expiry, PutOptions};
use adjoin::{Db, DbOptions};
use proptest::prelude::*;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;

/// A write to the offers (`machines`), or something that happens to the Db.
#[derive(Clone, Debug)]
enum Op {
    /// Puts offer `m<i>` (a replacement when it exists): memory, rank, expiring after.
    Put(u8, i64, u8, Option<i64>),
    /// Loads a few offers at once.
    Load(Vec<(u8, i64, u8)>),
    Remove(u8),
    Consume(u8),
    /// Puts offer `m<i>` through the store, bypassing the Db.
    Bypass(u8, i64),
    Tick(i64),
    /// A durable cycle of a few requests, consuming what it matches.
    Cycle(Vec<i64>),
    Checkpoint,
    Reopen,
}

fn op() -> impl Strategy<Value = Op> {
    let mem = 0..5i64;
    prop_oneof![
        6 => (0..24u8, mem.clone(), 0..3u8, prop::option::of(1..20i64))
            .prop_map(|(i, m, r, e)| Op::Put(i, m, r, e)),
        2 => prop::collection::vec((0..24u8, mem.clone(), 0..3u8), 1..8).prop_map(Op::Load),
        2 => (0..24u8).prop_map(Op::Remove),
        1 => (0..24u8).prop_map(Op::Consume),
        1 => (0..24u8, mem.clone()).prop_map(|(i, m)| Op::Bypass(i, m)),
        1 => (1..10i64).prop_map(Op::Tick),
        2 => prop::collection::vec(mem, 1..4).prop_map(Op::Cycle),
        1 => Just(Op::Checkpoint),
        2 => Just(Op::Reopen),
    ]
}

/// Offer `m<i>`: memory, a rank of three kinds, a requirement on the request.
fn offer(i: u8, m: i64, rank: u8) -> ClassAd {
    let rank = ["", "Rank = TARGET.Prio;", "Rank = 1;"][rank as usize % 3];
    let text = format!(
        "[Name = \"m{i}\"; Memory = {}; {rank} Requirements = TARGET.Mem <= Memory]",
        m * 1000
    );
    parse::classad(&text).expect("offer")
}

/// Request `j<n>`: memory wanted, a priority, a rank.
fn request(n: usize, m: i64) -> ClassAd {
    let rank = ["", "Rank = TARGET.Memory;", "Rank = -TARGET.Memory;"][n % 3];
    let text = format!(
        "[GlobalJobId = \"j{n}\"; Mem = {}; Prio = {}; {rank} \
         Requirements = TARGET.Memory >= Mem]",
        m * 900,
        n % 2
    );
    parse::classad(&text).expect("request")
}

/// Small blocks, so that the offers span many; the clock the test moves.
fn options(clock: &Arc<AtomicI64>) -> DbOptions {
    let c = Arc::clone(clock);
    DbOptions {
        block_ads: 3,
        clock: Some(adjoin::db::ClockFn(Arc::new(move || {
            c.load(Ordering::SeqCst)
        }))),
        tombstone_ttl: 5,
        ..DbOptions::default()
    }
}

/// A cycle of `jobs` against `machines`, options set by `f`.
fn run(db: &Db, f: impl FnOnce(&mut CycleOptions)) -> CycleReport {
    let mut o = CycleOptions::new("jobs", "machines");
    f(&mut o);
    cycle::run(db, &o).expect("cycle")
}

/// The offers `constraint` selects, by the held index and by a scan.
fn both_ways(db: &Db, constraint: &Expr) -> (Vec<String>, Vec<String>) {
    let opts = EvalOptions::default();
    let scan: Vec<String> = db
        .scan("machines")
        .map(|s| {
            s.filter_map(Result::ok)
                .filter(|ad| adjoin::db::selects(&eval_expr(constraint, &ad.ad, &opts)))
                .map(|ad| ad.header.id)
                .collect()
        })
        .unwrap_or_default();
    let mut index: Vec<String> = db
        .query("machines", constraint)
        .expect("query")
        .filter_map(Result::ok)
        .map(|ad| ad.header.id)
        .collect();
    let mut sorted = scan.clone();
    sorted.sort();
    index.sort();
    (index, sorted)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn held_index_cycles_equal_naive_cycles(
        ops in prop::collection::vec(op(), 1..30),
        requests in prop::collection::vec(0..5i64, 1..12),
    ) {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        let clock = Arc::new(AtomicI64::new(1_000));
        let mut db = Db::open_with(&path, &options(&clock)).expect("open");
        let mut jobs = 0;
        let put_jobs = |db: &Db, jobs: &mut usize, mems: &[i64]| {
            for &m in mems {
                db.put("jobs", &request(*jobs, m)).expect("job");
                *jobs += 1;
            }
        };
        for op in ops {
            match op {
                Op::Put(i, m, r, e) => {
                    let opts = PutOptions {
                        expiry: e.map_or(Expiry::Never, |d| {
                            Expiry::At(clock.load(Ordering::SeqCst) + d)
                        }),
                        ..PutOptions::default()
                    };
                    // A tombstoned id is refused: not this test's business.
                    let _ = db.put_with("machines", &offer(i, m, r), &opts);
                }
                Op::Load(ads) => {
                    let text: Vec<String> =
                        ads.iter().map(|&(i, m, r)| offer(i, m, r).to_string()).collect();
                    let _ = db.load_text(
                        "machines",
                        "ops.ads",
                        &text.join("\n"),
                        &adjoin::LoadOptions::default(),
                    );
                }
                Op::Remove(i) => {
                    db.remove("machines", &format!("m{i}")).expect("remove");
                }
                Op::Consume(i) => {
                    let _ = db.consume("machines", &format!("m{i}"));
                }
                Op::Bypass(i, m) => {
                    let _ = db.store().put("machines", &offer(i, m, 0), &PutOptions {
                        durability: Durability::Immediate,
                        ..PutOptions::default()
                    });
                }
                Op::Tick(d) => {
                    clock.fetch_add(d, Ordering::SeqCst);
                }
                Op::Cycle(mems) => {
                    put_jobs(&db, &mut jobs, &mems);
                    let durable = run(&db, |_| {});
                    // The held index followed the cycle's consumption.
                    let all = parse::expr("true").expect("all");
                    let (index, scan) = both_ways(&db, &all);
                    let now = clock.load(Ordering::SeqCst);
                    let held = db.with_index("machines", |h| h.live(now)).expect("index");
                    prop_assert_eq!(held, scan.len() as u64, "{:?}", durable.matches);
                    prop_assert_eq!(index, scan, "after a durable cycle: {:?}", durable.matches);
                }
                Op::Checkpoint => {
                    db.save_indexes().expect("checkpoint");
                }
                Op::Reopen => {
                    db.close().expect("close");
                    db = Db::open_with(&path, &options(&clock)).expect("reopen");
                }
            }
        }
        put_jobs(&db, &mut jobs, &requests);
        let naive = run(&db, |o| {
            o.dry_run = true;
            o.naive = true;
        });
        for no_clusters in [false, true] {
            let held = run(&db, |o| {
                o.dry_run = true;
                o.no_clusters = no_clusters;
            });
            prop_assert_eq!(&held.matches, &naive.matches, "no_clusters {}", no_clusters);
        }
        // The cycles went through the held index: it imported the attribute the requests
        // bound.
        let imported = db
            .with_index("machines", |h| h.index.imported_attrs())
            .expect("index");
        prop_assert!(imported.iter().any(|k| k.as_str() == "memory"), "{:?}", imported);
        // A durable cycle through it, then the same as the naive cycle's matches.
        let durable = run(&db, |_| {});
        let got: Vec<(&str, &str)> =
            durable.matches.iter().map(|m| (m.request.as_str(), m.offer.as_str())).collect();
        let want: Vec<(&str, &str)> =
            naive.matches.iter().map(|m| (m.request.as_str(), m.offer.as_str())).collect();
        prop_assert_eq!(got, want);
        let (index, scan) = both_ways(&db, &parse::expr("Memory >= 2000").expect("e"));
        prop_assert_eq!(index, scan);
    }
}
