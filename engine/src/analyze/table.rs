//! The boolean table of seed 001 as bitmaps: for each condition the set of offers it is true
//! for, the offers whose Requirements accept the request, and from them the counts, the step
//! counts and the table's distinct rows.

use super::conditions::Condition;
use super::{selects, Analysis, ConditionCount, Pool};
use adjoin_index::accepts;
use adjoin_index::RoaringBitmap;
use adjoin_query::eval::{eval_in_match, EvalOptions, MatchAds};
use adjoin_query::ClassAd;
use rustc_hash::FxHashMap;

/// Conditions beyond this many are left out of the rows (conflicts and M1 look at the first
/// 64 conditions).
pub(crate) const ROW_BITS: usize = 64;

/// Per-condition and acceptance sets over a pool's offers (numbered by position).
#[derive(Clone, Debug)]
pub(crate) struct Table {
    /// The offers available (every set is within it).
    pub universe: RoaringBitmap,
    /// For each condition, the offers it is true for.
    pub sets: Vec<RoaringBitmap>,
    /// The offers whose Requirements accept the request.
    pub accepting: RoaringBitmap,
}

/// Whether `cond` is true with `request` as MY and `offer` as TARGET.
pub(crate) fn holds(
    cond: &Condition,
    request: &ClassAd,
    offer: &ClassAd,
    opts: &EvalOptions,
) -> bool {
    selects(&eval_in_match(
        &cond.expr,
        MatchAds {
            my: request,
            target: offer,
        },
        opts,
    ))
}

impl Table {
    /// The table of `request`'s conditions over `pool`, by evaluating each condition and each
    /// offer's Requirements once per offer.
    pub fn build(request: &ClassAd, conds: &[Condition], pool: &Pool, opts: &EvalOptions) -> Table {
        let mut sets = vec![RoaringBitmap::new(); conds.len()];
        let mut accepting = RoaringBitmap::new();
        for (i, offer) in pool.ads.iter().enumerate() {
            let i = i as u32;
            for (c, set) in conds.iter().zip(sets.iter_mut()) {
                if holds(c, request, offer, opts) {
                    set.insert(i);
                }
            }
            if accepts(offer, request, opts) {
                accepting.insert(i);
            }
        }
        let mut universe = RoaringBitmap::new();
        universe.insert_range(0..pool.len() as u32);
        Table {
            universe,
            sets,
            accepting,
        }
    }

    /// Every offer.
    pub fn all(&self) -> RoaringBitmap {
        self.universe.clone()
    }

    /// The table over the offers `ids` only, renumbered by their positions there.
    pub fn restricted(&self, ids: &[u32]) -> Table {
        let pick = |set: &RoaringBitmap| -> RoaringBitmap {
            ids.iter()
                .enumerate()
                .filter(|(_, o)| set.contains(**o))
                .map(|(i, _)| i as u32)
                .collect()
        };
        let mut universe = RoaringBitmap::new();
        universe.insert_range(0..ids.len() as u32);
        Table {
            universe,
            sets: self.sets.iter().map(pick).collect(),
            accepting: pick(&self.accepting),
        }
    }

    /// The offers the conditions `which` are all true for.
    pub fn together(&self, which: impl IntoIterator<Item = usize>) -> RoaringBitmap {
        let mut b = self.all();
        for i in which {
            if let Some(s) = self.sets.get(i) {
                b &= s;
            }
        }
        b
    }

    /// The counts and the condition table; conflicts, suggestions and offer side empty.
    pub fn counts(&self, id: &str, conds: &[Condition]) -> Analysis {
        let mut step = self.all();
        let conditions = conds
            .iter()
            .zip(&self.sets)
            .map(|(c, s)| {
                step &= s;
                ConditionCount {
                    condition: c.text.clone(),
                    matched: s.len(),
                    step_matched: step.len(),
                }
            })
            .collect();
        let n = self.universe.len();
        Analysis {
            request: id.to_owned(),
            offers: n,
            matching: (&step & &self.accepting).len(),
            rejected_by_request: n - step.len(),
            rejecting_request: n - self.accepting.len(),
            conditions,
            conflicts: Vec::new(),
            conflicts_cut_short: Vec::new(),
            suggestions: Vec::new(),
            offer_side: Vec::new(),
            gang: None,
        }
    }

    /// The distinct rows of the boolean table over the offers in `within` (bit `i` set when
    /// condition `i` is true), each with how many offers have it.
    pub fn rows(&self, within: &RoaringBitmap) -> FxHashMap<u64, u64> {
        let mut row: FxHashMap<u32, u64> = FxHashMap::default();
        for o in within {
            row.insert(o, 0);
        }
        for (i, s) in self.sets.iter().enumerate().take(ROW_BITS) {
            for o in s & within {
                if let Some(r) = row.get_mut(&o) {
                    *r |= 1 << i;
                }
            }
        }
        let mut out: FxHashMap<u64, u64> = FxHashMap::default();
        for r in row.into_values() {
            *out.entry(r).or_default() += 1;
        }
        out
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::analyze::{split_requirements, Pool};
    use adjoin_query::parse;
    use std::sync::Arc;

    /// Seed 001's eight machines (section 3.1.1), each accepting any job.
    pub(crate) fn seed_pool() -> Pool {
        let machines = [
            ("ALPHA", "LINUX", 256),
            ("INTEL", "LINUX", 256),
            ("INTEL", "SOLARIS", 1024),
            ("SPARC", "LINUX", 512),
            ("ALPHA", "LINUX", 512),
            ("SPARC", "SOLARIS", 1024),
            ("SPARC", "LINUX", 256),
            ("INTEL", "SOLARIS", 256),
        ];
        Pool::numbered(
            machines
                .iter()
                .map(|(a, o, m)| {
                    let text = format!(
                        "[Arch = \"{a}\"; OpSys = \"{o}\"; Memory = {m}; Requirements = true]"
                    );
                    Arc::new(parse::classad(&text).expect("machine"))
                })
                .collect(),
        )
    }

    /// Seed 001's boolean table (section 3.1.1): eight machines, three predicates.
    #[test]
    fn seed_boolean_table() {
        let pool = seed_pool();
        let job = parse::classad(
            "[Requirements = (other.Arch == \"ALPHA\") && (other.OpSys == \"SOLARIS\") && (other.Memory >= 512)]",
        )
        .expect("job");
        let conds = split_requirements("job", &job, &EvalOptions::default()).expect("conds");
        let t = Table::build(&job, &conds, &pool, &EvalOptions::default());
        let a = t.counts("job", &conds);
        let got: Vec<(u64, u64)> = a
            .conditions
            .iter()
            .map(|c| (c.matched, c.step_matched))
            .collect();
        assert_eq!(got, [(2, 2), (3, 0), (4, 0)]);
        assert_eq!(
            (
                a.offers,
                a.matching,
                a.rejected_by_request,
                a.rejecting_request
            ),
            (8, 0, 8, 0)
        );
        // Rows as in the seed's table: T F F, F F F, F T T, F F T, T F T, F T T, F F F, F T F.
        let rows = t.rows(&t.all());
        let want: FxHashMap<u64, u64> = [
            (0b001, 1),
            (0b000, 2),
            (0b110, 2),
            (0b100, 1),
            (0b101, 1),
            (0b010, 1),
        ]
        .into_iter()
        .collect();
        assert_eq!(rows, want);
    }
}
