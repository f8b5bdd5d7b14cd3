//! Random pools matched both ways, checked against HTCondor's library
//! (`tests/golden/random-pools.golden`, made by `gen/random_pools.py`): for every job, the
//! machines the spatial index's join gives, and those nested loops give, are exactly the
//! machines HTCondor's `symmetricMatch` accepts — under old-ClassAd semantics (the TARGET
//! fallback, as HTCondor's daemons evaluate) and strict new-ClassAd semantics. The pools mix
//! types under one name, absent, undefined and error attributes, and constraints the index
//! cannot turn into intervals, so this checks the index's conversions against the oracle.

mod common;

use adjoin::query::eval::EvalOptions;
use adjoin::query::{parse, ClassAd};
use adjoin_index::{join, naive_join, AdId, Index, IndexOptions};
use std::collections::BTreeSet;
use std::sync::Arc;

/// One `## pool` block of the golden file.
#[derive(Default)]
struct Pool {
    name: String,
    machines: Vec<Arc<ClassAd>>,
    jobs: Vec<Arc<ClassAd>>,
    /// (old semantics?, job name, accepted machine names).
    matches: Vec<(bool, String, BTreeSet<String>)>,
}

fn pools() -> Vec<Pool> {
    let text = common::read("tests/golden/random-pools.golden");
    let mut pools: Vec<Pool> = Vec::new();
    for (section, lines) in common::sections(&text) {
        if let Some(name) = section.strip_prefix("pool ") {
            pools.push(Pool {
                name: name.to_owned(),
                ..Pool::default()
            });
            continue;
        }
        let pool = pools.last_mut().expect("a ## pool section first");
        let ads = || {
            lines
                .iter()
                .map(|l| Arc::new(parse::classad(l).expect("golden ads parse")))
        };
        match section {
            "machines" => pool.machines.extend(ads()),
            "jobs" => pool.jobs.extend(ads()),
            "matches old" | "matches new" => {
                for line in &lines {
                    let (job, ms) = line.split_once('\t').expect("JOB<TAB>MACHINES");
                    let ms = ms.split_whitespace().map(str::to_owned).collect();
                    pool.matches
                        .push((section == "matches old", job.to_owned(), ms));
                }
            }
            other => panic!("unknown section {other:?}"),
        }
    }
    pools
}

fn name(ad: &ClassAd) -> String {
    ad.eval_attr("Name")
        .as_str()
        .expect("every golden ad has a Name")
        .to_owned()
}

#[test]
fn joins_agree_with_htcondor_on_random_pools() {
    let pools = pools();
    assert_eq!(pools.len(), 3, "three pools in the golden file");
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
                assert_eq!(&name(job), want_job, "{}: jobs in order", pool.name);
                let names = |b: &adjoin_index::RoaringBitmap| -> BTreeSet<String> {
                    b.iter().map(|m| name(&pool.machines[m as usize])).collect()
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
