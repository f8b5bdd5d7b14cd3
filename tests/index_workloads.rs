//! The spatial index on the dissertation's job/machine model (`shared/workloads/ads_N.txt`, N
//! machine ads then N job ads): the indexed join — every job probing the indexed machines
//! both ways — finds exactly the number of symmetric matches HTCondor's own library counts
//! over all N × N pairs, needs no evaluation to do so (every constraint converts exactly), and
//! agrees pair by pair with plain evaluation on a sample of jobs.

mod common;

use adjoin::query::eval::EvalOptions;
use adjoin::query::{parse, ClassAd};
use adjoin_index::{join, naive_join, AdId, Index, IndexOptions};
use std::sync::Arc;

/// Stored ads with their ids, and probing ads.
type Sides = (Vec<(AdId, Arc<ClassAd>)>, Vec<Arc<ClassAd>>);

/// Machines (with their position as id) and jobs of `ads_N.txt`.
fn load(n: usize) -> Sides {
    let text = common::read(&format!("../shared/workloads/ads_{n}.txt"));
    let (mut machines, mut jobs) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        let ad = Arc::new(parse::classad(line).unwrap_or_else(|e| panic!("line {i}: {e}")));
        if i < n {
            machines.push((i as AdId, ad));
        } else {
            jobs.push(ad);
        }
    }
    assert_eq!((machines.len(), jobs.len()), (n, n));
    (machines, jobs)
}

fn check(n: usize, want_pairs: u64, sample_jobs: usize) {
    let (machines, jobs) = load(n);
    let mut idx = Index::new(IndexOptions::default());
    let report = idx.extend(machines.iter().cloned()).expect("index");
    assert!(report.exact && report.errors.is_empty());
    let answers = join(&mut idx, &jobs);
    let pairs: u64 = answers.iter().map(|a| a.len()).sum();
    assert_eq!(
        pairs, want_pairs,
        "HTCondor counts {want_pairs} symmetric matches"
    );
    let stats = idx.stats();
    assert_eq!(stats.evaluations, 0, "{stats:?}");
    assert_eq!(stats.confirmed, want_pairs);
    // A sample of jobs against every machine, by plain evaluation.
    let step = (jobs.len() / sample_jobs).max(1);
    let sample: Vec<Arc<ClassAd>> = jobs.iter().step_by(step).cloned().collect();
    let naive = naive_join(&machines, &sample, &EvalOptions::default());
    let indexed: Vec<_> = answers.iter().step_by(step).cloned().collect();
    assert_eq!(indexed, naive);
}

#[test]
fn ads_1000_join_agrees_with_htcondor() {
    check(1000, 109_616, 10);
}

#[test]
fn ads_4000_join_agrees_with_htcondor() {
    check(4000, 1_798_172, 4);
}
