//! Random pools matched both ways, checked against HTCondor's library
//! (`tests/golden/random-pools.golden`, made by `gen/random_pools.py`): for every job, the
//! machines the spatial index's join gives, and those nested loops give, are exactly the
//! machines HTCondor's `symmetricMatch` accepts — under old-ClassAd semantics (the TARGET
//! fallback, as HTCondor's daemons evaluate) and strict new-ClassAd semantics. The pools mix
//! types under one name, absent, undefined and error attributes, and constraints the index
//! cannot turn into intervals, so this checks the index's conversions against the oracle.

mod common;

use adjoin::query::eval::EvalOptions;
use adjoin::query::ClassAd;
use adjoin_index::{join, naive_join, AdId, Index, IndexOptions};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One pool of the golden file, its ads shared as the index holds them.
struct Pool {
    name: String,
    machines: Vec<Arc<ClassAd>>,
    jobs: Vec<Arc<ClassAd>>,
    /// (old semantics?, job name, accepted machine names).
    matches: Vec<(bool, String, BTreeSet<String>)>,
}

fn pools() -> Vec<Pool> {
    common::golden_pools("tests/golden/random-pools.golden")
        .into_iter()
        .map(|p| {
            let mut matches = Vec::new();
            for (section, lines) in &p.other {
                let old = match section.as_str() {
                    "matches old" => true,
                    "matches new" => false,
                    other => panic!("unknown section {other:?}"),
                };
                for line in lines {
                    let (job, ms) = line.split_once('\t').expect("JOB<TAB>MACHINES");
                    let ms = ms.split_whitespace().map(str::to_owned).collect();
                    matches.push((old, job.to_owned(), ms));
                }
            }
            Pool {
                name: p.name,
                machines: p.machines.into_iter().map(Arc::new).collect(),
                jobs: p.jobs.into_iter().map(Arc::new).collect(),
                matches,
            }
        })
        .collect()
}

#[test]
fn joins_agree_with_htcondor_on_random_pools() {
    let pools = pools();
    assert_eq!(pools.len(), 4, "four pools in the golden file");
    let mut pairs = 0;
    for pool in &pools {
        for old in [true, false] {
            let opts = IndexOptions {
                eval: EvalOptions {
                    target_fallback: old,
                    ..common::golden_opts(old)
                },
                ..IndexOptions::default()
            };
            let numbered: Vec<(AdId, Arc<ClassAd>)> =
                (0..).zip(pool.machines.iter().cloned()).collect();
            let mut index = Index::new(opts.clone());
            index.extend(numbered.iter().cloned()).expect("index");
            let indexed = join(&mut index, &pool.jobs);
            let naive = naive_join(&numbered, &pool.jobs, &opts.eval);
            let want: Vec<_> = pool.matches.iter().filter(|m| m.0 == old).collect();
            assert_eq!(
                want.len(),
                pool.jobs.len(),
                "{}: one line per job",
                pool.name
            );
            for ((job, (got_i, got_n)), (_, want_job, want_ms)) in
                pool.jobs.iter().zip(indexed.iter().zip(&naive)).zip(want)
            {
                assert_eq!(
                    &common::ad_name(job),
                    want_job,
                    "{}: jobs in order",
                    pool.name
                );
                let names = |b: &adjoin_index::RoaringBitmap| -> BTreeSet<String> {
                    b.iter()
                        .map(|m| common::ad_name(&pool.machines[m as usize]))
                        .collect()
                };
                let semantics = if old { "old" } else { "new" };
                assert_eq!(
                    &names(got_i),
                    want_ms,
                    "{} {semantics} {want_job}: indexed",
                    pool.name
                );
                assert_eq!(
                    &names(got_n),
                    want_ms,
                    "{} {semantics} {want_job}: naive",
                    pool.name
                );
                pairs += want_ms.len();
            }
        }
    }
    assert!(
        pairs > 1000,
        "the pools match often enough to test something ({pairs} pairs)"
    );
}
