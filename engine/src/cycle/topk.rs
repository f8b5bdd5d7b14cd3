//! Top-k ranking without ranking every candidate: a request's candidates read best first by
//! walking the offers in the order of its `Rank` — the threshold algorithm of Fagin, Lotem
//! and Naor with one sorted list, the request's rank itself.
//!
//! A rank shape whose values are remembered for every offer (`ranks.rs`: what the rank reads
//! of an offer is plain values or absent, so its value against an offer is the same for every
//! request of the shape) sorts the offers once by that value, best first ([`Sorted`]). Any
//! rank expression qualifies — monotone or not, undefined and error counting 0 as they do in
//! the docking vector — as the order is of the values themselves, not of the attributes.
//! A request's list is then read group by group ([`RankWalk::next_group`]): the candidates with
//! the best request rank not yet read, found by walking the sorted offers and keeping the
//! request's candidates; the offers' ranks are evaluated only for that group, which is ordered
//! by them and then by load order, as a fully ranked list orders it. The walk stops as soon as
//! the list is read far enough: every unseen candidate ranks strictly below the group
//! returned (the next value in the sorted order is below it), so no later candidate can come
//! before it. Candidates whose rank is not remembered (an offer whose attribute the rank reads
//! is an expression) are ranked when the list is made and merged in by their vectors.

use super::vector::cmp_vectors;
use adjoin_index::{AdId, Bits, RoaringBitmap};
use adjoin_query::Value;
use std::cmp::Ordering;
use std::sync::Arc;

/// Offers sorted by one rank shape's remembered value: best first, ties in load order.
#[derive(Debug, Default)]
pub struct Sorted {
    /// (value, offer), best first.
    pub entries: Vec<(Value, AdId)>,
    /// The offers whose value is not remembered (not in `entries`).
    pub outside: RoaringBitmap,
}

impl Sorted {
    /// The offers `(value, offer)` sorted best first, ties in load order; `outside` the others.
    pub fn new(mut entries: Vec<(Value, AdId)>, outside: RoaringBitmap) -> Sorted {
        entries.sort_by(|a, b| by_value(&a.0, &b.0).then(a.1.cmp(&b.1)));
        Sorted { entries, outside }
    }
}

/// Descending order of single components, as the docking vector compares them.
fn by_value(a: &Value, b: &Value) -> Ordering {
    cmp_vectors(std::slice::from_ref(b), std::slice::from_ref(a))
}

/// One request's candidates read best first through a [`Sorted`] order.
#[derive(Debug)]
pub struct RankWalk {
    sorted: Arc<Sorted>,
    /// The next position in `sorted` to look at.
    at: usize,
    /// The request's candidates (a bitset: the walk asks about every offer it passes).
    candidates: Bits,
    /// Candidates outside the sorted order, with their vectors `[request rank, offer
    /// rank]`, best first; and how many have been read.
    others: Vec<(Value, Value, AdId)>,
    others_at: usize,
}

impl RankWalk {
    /// A walk over `candidates` through `sorted`; `others` are the candidates outside it with
    /// their two ranks (in any order).
    pub fn new(
        sorted: Arc<Sorted>,
        candidates: Bits,
        mut others: Vec<(Value, Value, AdId)>,
    ) -> RankWalk {
        others.sort_by(|a, b| {
            by_value(&a.0, &b.0)
                .then(by_value(&a.1, &b.1))
                .then(a.2.cmp(&b.2))
        });
        RankWalk {
            sorted,
            at: 0,
            candidates,
            others,
            others_at: 0,
        }
    }

    /// The candidates with the best request rank not yet read, each with its vector
    /// `[request rank, offer rank]` (`theirs` gives an offer's rank against the request), in
    /// the order of a fully ranked list: offer rank descending, then load order. Empty when
    /// every candidate has been read.
    pub fn next_group(
        &mut self,
        theirs: &mut dyn FnMut(AdId) -> Value,
    ) -> Vec<(Value, Value, AdId)> {
        let entries = &self.sorted.entries;
        while let Some((_, o)) = entries.get(self.at) {
            if self.candidates.contains(*o) {
                break;
            }
            self.at += 1;
        }
        let walked = entries.get(self.at).map(|e| &e.0);
        let other = self.others.get(self.others_at).map(|e| &e.0);
        let best = match (walked, other) {
            (Some(w), Some(x)) => {
                if by_value(w, x) == Ordering::Greater {
                    x.clone()
                } else {
                    w.clone()
                }
            }
            (Some(w), None) => w.clone(),
            (None, Some(x)) => x.clone(),
            (None, None) => return Vec::new(),
        };
        let same = |v: &Value| by_value(v, &best) == Ordering::Equal;
        let mut group = Vec::new();
        // Equal values are adjacent in the sorted order.
        while let Some((v, o)) = entries.get(self.at) {
            if !same(v) {
                break;
            }
            if self.candidates.contains(*o) {
                group.push((v.clone(), theirs(*o), *o));
            }
            self.at += 1;
        }
        while let Some(e) = self.others.get(self.others_at) {
            if !same(&e.0) {
                break;
            }
            group.push(e.clone());
            self.others_at += 1;
        }
        group.sort_by(|a, b| by_value(&a.1, &b.1).then(a.2.cmp(&b.2)));
        group
    }
}

#[cfg(test)]
mod tests {
    use crate::cycle::{run, CycleOptions};
    use crate::Db;
    use adjoin_query::parse;
    use proptest::prelude::*;

    /// Request ranks of every shape: monotone in one attribute or several, booleans, a
    /// comparison times a constant, mixed types (`Tag`), undefined, error, non-monotone,
    /// reading an offer's expression (`Score`, not remembered), constant, ties everywhere.
    const RANKS: [&str; 16] = [
        "TARGET.Memory",
        "-TARGET.LoadAvg",
        "TARGET.HasGPU",
        "TARGET.Cpus * 100 + TARGET.Memory / 1024",
        "(TARGET.Site == MY.Site) * 10",
        "TARGET.Tag",
        "TARGET.Missing",
        "error",
        "TARGET.Memory % 3",
        "-(TARGET.Cpus - 4) * (TARGET.Cpus - 4)",
        "TARGET.LoadAvg > 2.0 ? 1 : -1",
        "TARGET.Score",
        "TARGET.Score + TARGET.Cpus",
        "1.5",
        "TARGET.Cpus",
        "TARGET.KFlops / 1000000",
    ];

    /// A heterogeneous pool of `seed`: `n` offers, `n` requests, request `i` ranked by
    /// `ranks[i]` (none when out of range) with `counts[i]` as `RequestCount` (1: absent), some
    /// repeated (`repeat`: the same request again, so that clusters share walked lists).
    fn pool(seed: u64, n: u64, ranks: &[usize], counts: &[i64], repeat: &[bool]) -> Db {
        let mut h = adjoin_workload::hetero::Heterogeneous::new(seed);
        let db = Db::open_in_memory().expect("db");
        for i in 0..n {
            db.put("machines", &h.offer(i).expect("offer"))
                .expect("put");
        }
        let mut last = None;
        for i in 0..n as usize {
            let mut r = h.request(i as u64).expect("request");
            if let Some(&k) = ranks.get(i) {
                match RANKS.get(k) {
                    Some(text) => r.set("Rank", parse::expr(text).expect("rank")),
                    None => {
                        r.remove("Rank");
                    }
                }
            }
            if let Some(&c) = counts.get(i).filter(|&&c| c != 1) {
                r.set("RequestCount", parse::expr(&c.to_string()).expect("count"));
            }
            if repeat.get(i).copied().unwrap_or(false) {
                if let Some(prev) = &last {
                    r = Clone::clone(prev);
                    r.set(
                        "GlobalJobId",
                        parse::expr(&format!("\"again{i}\"")).expect("id"),
                    );
                }
            }
            db.put("jobs", &r).expect("put");
            last = Some(r);
        }
        db
    }

    fn cycle(db: &Db, naive: bool, no_clusters: bool) -> crate::cycle::CycleReport {
        let mut o = CycleOptions::new("jobs", "machines");
        (o.dry_run, o.naive, o.no_clusters) = (true, naive, no_clusters);
        run(db, &o).expect("cycle")
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Lists read in rank order (walked whenever a rank shape comes again: the unit
        /// tests' thresholds) give the naive cycle's matches.
        #[test]
        fn walked_cycles_equal_naive_cycles(
            seed in 0u64..1_000_000,
            n in 20u64..70,
            ranks in prop::collection::vec(0usize..20, 70),
            counts in prop::collection::vec(prop_oneof![Just(1i64), Just(0), Just(3)], 70),
            repeat in prop::collection::vec(prop::bool::weighted(0.2), 70),
        ) {
            let db = pool(seed, n, &ranks, &counts, &repeat);
            let naive = cycle(&db, true, false);
            let indexed = cycle(&db, false, false);
            prop_assert_eq!(&indexed.matches, &naive.matches);
            let uncached = cycle(&db, false, true);
            prop_assert_eq!(&uncached.matches, &naive.matches);
        }
    }

    #[test]
    fn every_rank_shape_alone() {
        // Each rank on every request (with ties, undefined and error everywhere), twice the
        // offers' worth of requests, some wanting three.
        for (k, rank) in super::tests::RANKS.iter().enumerate() {
            let ranks = vec![k; 80];
            let counts: Vec<i64> = (0..80).map(|i| if i % 7 == 0 { 3 } else { 1 }).collect();
            let db = pool(k as u64, 80, &ranks, &counts, &[]);
            let naive = cycle(&db, true, false);
            let indexed = cycle(&db, false, false);
            assert!(naive.matched > 0, "{rank}");
            assert_eq!(indexed.matches, naive.matches, "{rank}");
        }
    }
}
