//! The match history at scale: an empty durable cycle (one job, one slot that will not take
//! it) on a database holding 10,000 match records and on one holding 500,000, in one run — its
//! time must not grow with the history (cycle numbers come from a counter, nothing reads the
//! records) — and reading the last 100 matches, one cycle's, and one ad's beside a full scan
//! of the history.
//!
//! `cargo bench -p adjoin-workload --bench history -- --warm-up-time 1 --measurement-time 3`
// criterion_group! defines an undocumented public function.
#![allow(missing_docs)]

use adjoin::cycle::CycleOptions;
use adjoin::query::parse;
use adjoin::storage::{AfterRefusal, Durability, NewMatch, NewMember};
use adjoin::Db;
use criterion::{criterion_group, criterion_main, Criterion};

/// A database on disk with `records` match records (members not consumed: records only), in
/// cycles of 1,000, and one job and one slot that do not match.
fn history(records: u64) -> (tempfile::TempDir, Db) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = Db::open(dir.path().join("db")).expect("open");
    let member = |c: &str, id: String| NewMember {
        collection: c.into(),
        id,
        rank: None,
        consume: false,
    };
    let mut batch = Vec::new();
    for i in 0..records {
        batch.push(NewMatch {
            cycle: i / 1000 + 1,
            members: vec![
                member("jobs", format!("submit#{i}.0#1")),
                member("machines", format!("slot{}@host{}", i % 8, i % 997)),
            ],
        });
        if batch.len() == 10_000 || i + 1 == records {
            for r in db
                .record_matches_with(&batch, AfterRefusal::Continue, Durability::Buffered)
                .expect("record")
            {
                r.expect("recorded");
            }
            batch.clear();
        }
    }
    db.flush().expect("flush");
    let job = parse::classad("[Name = \"j\"; Requirements = TARGET.Memory > 1000]").expect("ad");
    let slot = parse::classad("[Name = \"s\"; Memory = 10; Requirements = true]").expect("ad");
    db.put("jobs", &job).expect("put");
    db.put("machines", &slot).expect("put");
    (dir, db)
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("history");
    g.sample_size(20);
    for records in [10_000u64, 500_000] {
        let (_dir, db) = history(records);
        let opts = CycleOptions::new("jobs", "machines");
        g.bench_function(format!("empty_durable_cycle/{records}"), |b| {
            b.iter(|| {
                let r = db.match_cycle(&opts).expect("cycle");
                assert!(r.matches.is_empty());
            })
        });
        g.bench_function(format!("last_100/{records}"), |b| {
            b.iter(|| db.recent_matches(100).expect("recent").len())
        });
        g.bench_function(format!("one_cycle/{records}"), |b| {
            b.iter(|| db.matches_of_cycle(3).expect("cycle").len())
        });
        g.bench_function(format!("one_ad/{records}"), |b| {
            b.iter(|| db.matches_of_ad("jobs", "submit#5.0#1").expect("ad").len())
        });
        if records <= 10_000 {
            g.bench_function(format!("scan_all/{records}"), |b| {
                b.iter(|| db.matches().expect("all").len())
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
