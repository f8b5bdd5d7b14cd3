//! The match history's access paths and retention (format 4): cycle numbers from a durable
//! counter, each match record indexed by its cycle (`matches_by_cycle`) and by each member ad
//! (`matches_by_ad`) in the transaction that records it, reads of the recent matches, of one
//! cycle's and of one ad's without a scan of the history, and pruning of the oldest records by
//! age or count in bounded steps.
//!
//! **Invariant**: `next_cycle` is above the cycle of every match ever recorded.
//!
//! **Invariant**: the records kept are exactly the match ids from `pruned_below` (default 1) up
//! to `next_match` (exclusive): pruning always takes the oldest. Every record kept has its
//! `matches_by_cycle` entry and one `matches_by_ad` entry per member, and no entry names a
//! record that is not kept (`check` verifies both).

use crate::backend::KeyRange;
use crate::codec;
use crate::error::AdError;
use crate::key::{self, meta, tree};
use crate::record::MatchRecord;
use crate::store::{damage, t, valid_collection, AdStore, Durability};
use crate::txn::Txn;

/// Which match records to keep: those that pass every bound given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Retention {
    /// Records older than this many seconds go.
    pub max_age: Option<i64>,
    /// Beyond this many records, the oldest go.
    pub max_records: Option<u64>,
}

/// What a prune did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PruneReport {
    /// Records removed.
    pub pruned: u64,
    /// Records kept.
    pub kept: u64,
    /// False when the step budget ran out before the retention held (call again).
    pub done: bool,
}

/// Records a prune removes per transaction.
const PRUNE_CHUNK: usize = 4096;

/// Plans the index entries of `rec` (just recorded) in `txn`, and keeps the cycle counter past
/// its cycle (a caller may number its cycles itself; later [`AdStore::begin_cycle`] calls still
/// hand out numbers above every cycle recorded).
pub(crate) fn index_match(txn: &mut Txn<'_>, rec: &MatchRecord) -> Result<(), AdError> {
    let next = txn.counter(meta::NEXT_CYCLE, 1)?;
    if rec.cycle >= next {
        txn.set_counter(meta::NEXT_CYCLE, rec.cycle.saturating_add(1));
    }
    txn.raw(
        t::MATCHES_BY_CYCLE,
        key::match_by_cycle(rec.cycle, rec.id).to_vec(),
        Some(Vec::new()),
    );
    for m in &rec.members {
        txn.raw(
            t::MATCHES_BY_AD,
            key::match_by_ad(&m.collection, &m.id, rec.id),
            Some(Vec::new()),
        );
    }
    Ok(())
}

/// Plans the removal of `rec` and its index entries in `txn`.
fn unindex_match(txn: &mut Txn<'_>, rec: &MatchRecord) {
    txn.raw(t::MATCHES, key::match_id(rec.id).to_vec(), None);
    txn.raw(
        t::MATCHES_BY_CYCLE,
        key::match_by_cycle(rec.cycle, rec.id).to_vec(),
        None,
    );
    for m in &rec.members {
        txn.raw(
            t::MATCHES_BY_AD,
            key::match_by_ad(&m.collection, &m.id, rec.id),
            None,
        );
    }
}

/// Checks the members of a match to record: their collection names must be valid (they go
/// into index keys).
pub(crate) fn valid_members(rec: &crate::registrar::NewMatch) -> Result<(), AdError> {
    rec.members
        .iter()
        .try_for_each(|m| valid_collection(&m.collection))
}

impl AdStore {
    /// A `meta` counter's value (`default` when absent).
    fn meta_u64(&self, name: &'static [u8], default: u64) -> Result<u64, AdError> {
        match self.store.get(tree::META, name)? {
            Some(raw) => codec::open(name, &raw).map_err(|e| {
                AdError::Damaged(damage(
                    tree::META,
                    None,
                    std::str::from_utf8(name).ok(),
                    name,
                    e,
                ))
            }),
            None => Ok(default),
        }
    }

    /// Takes the next matchmaking cycle number, durably: every call returns a number greater
    /// than any returned before, across restarts and whether or not the cycle records anything.
    pub fn begin_cycle(&self) -> Result<u64, AdError> {
        {
            let _w = self.write.lock();
            let mut txn = Txn::new(self);
            let n = txn.counter(meta::NEXT_CYCLE, 1)?;
            txn.set_counter(meta::NEXT_CYCLE, n.saturating_add(1));
            txn.commit()?;
            self.commit_point(Durability::Immediate)?;
            Ok(n)
        }
    }

    /// The number the next cycle will take (a dry run reports it; nothing is reserved).
    pub fn peek_cycle(&self) -> Result<u64, AdError> {
        self.meta_u64(meta::NEXT_CYCLE, 1)
    }

    /// The id range of the records kept: `[first, next)`.
    fn kept_ids(&self) -> Result<(u64, u64), AdError> {
        let next = self.meta_u64(meta::NEXT_MATCH, 1)?;
        let first = self.meta_u64(meta::PRUNED_BELOW, 1)?.clamp(1, next.max(1));
        Ok((first, next))
    }

    /// How many match records are kept.
    pub fn match_count(&self) -> Result<u64, AdError> {
        let (first, next) = self.kept_ids()?;
        Ok(next.saturating_sub(first))
    }

    /// The last `n` matches recorded, oldest first (read by id, no scan of the rest).
    pub fn recent_matches(&self, n: u64) -> Result<Vec<MatchRecord>, AdError> {
        let (first, next) = self.kept_ids()?;
        let from = next.saturating_sub(n).max(first);
        self.matches_in(from, next)
    }

    /// Matches with ids in `[from, to)`, in id order.
    fn matches_in(&self, from: u64, to: u64) -> Result<Vec<MatchRecord>, AdError> {
        if from >= to {
            return Ok(Vec::new());
        }
        let range = KeyRange::between(key::match_id(from).to_vec(), key::match_id(to).to_vec());
        let mut out = Vec::new();
        for entry in self.store.scan(tree::MATCHES, range)? {
            let (k, v) = entry?;
            out.push(self.open_match(&k, &v)?);
        }
        Ok(out)
    }

    fn open_match(&self, k: &[u8], v: &[u8]) -> Result<MatchRecord, AdError> {
        codec::open(k, v).map_err(|e| {
            let id = key::decode_match_id(k).map(|i| i.to_string());
            AdError::Damaged(damage(tree::MATCHES, None, id.as_deref(), k, e))
        })
    }

    /// The matches an index entry range names, in match-id order.
    fn matches_named(
        &self,
        index: &str,
        prefix: &[u8],
        decode: impl Fn(&[u8]) -> Option<u64>,
    ) -> Result<Vec<MatchRecord>, AdError> {
        let mut out = Vec::new();
        for entry in self.store.scan(index, KeyRange::prefix(prefix))? {
            let (k, _) = entry?;
            let Some(id) = decode(&k) else {
                return Err(AdError::Damaged(damage(
                    index,
                    None,
                    None,
                    &k,
                    "malformed key",
                )));
            };
            match self.get_match(id)? {
                Some(m) => out.push(m),
                None => {
                    return Err(AdError::Damaged(damage(
                        index,
                        None,
                        Some(&id.to_string()),
                        &k,
                        "index entry of no match",
                    )))
                }
            }
        }
        out.sort_by_key(|m| m.id);
        Ok(out)
    }

    /// The matches of cycle `cycle`, in id order (through `matches_by_cycle`).
    pub fn matches_of_cycle(&self, cycle: u64) -> Result<Vec<MatchRecord>, AdError> {
        self.matches_named(tree::MATCHES_BY_CYCLE, &cycle.to_be_bytes(), |k| {
            key::decode_match_by_cycle(k).map(|(_, id)| id)
        })
    }

    /// The matches ad `id` of `collection` took part in, in id order (through
    /// `matches_by_ad`).
    pub fn matches_of_ad(&self, collection: &str, id: &str) -> Result<Vec<MatchRecord>, AdError> {
        self.matches_named(
            tree::MATCHES_BY_AD,
            &key::match_by_ad_prefix(collection, id),
            |k| key::decode_match_by_ad(k).map(|(_, _, m)| m),
        )
    }

    /// Removes the oldest match records until `retention` holds at `now`, at most `budget`
    /// records in all (in transactions of a few thousand, flushed at the end). Each record is
    /// handed to `export` before it goes (e.g. to write it out); an error from `export` stops
    /// the prune with nothing of that chunk removed.
    pub fn prune_matches(
        &self,
        retention: &Retention,
        budget: u64,
        export: &mut dyn FnMut(&MatchRecord) -> Result<(), AdError>,
    ) -> Result<PruneReport, AdError> {
        let _span = tracing::debug_span!("prune_matches", budget).entered();
        let now = self.now();
        let mut report = PruneReport::default();
        loop {
            let done = {
                let _w = self.write.lock();
                let (first, next) = self.kept_ids()?;
                let kept = next.saturating_sub(first);
                let over = retention.max_records.map_or(0, |m| kept.saturating_sub(m));
                let cutoff = retention.max_age.map(|a| now.saturating_sub(a));
                // Whether the record `i` places after the oldest kept must go.
                let goes = |i: usize, m: &MatchRecord| {
                    (i as u64) < over || cutoff.is_some_and(|c| m.time < c)
                };
                let room = budget.saturating_sub(report.pruned);
                // Nothing over the count: the oldest record alone tells whether any goes by age
                // (a policy applied after every cycle reads one record, not a chunk).
                if over == 0 {
                    let oldest = match cutoff {
                        Some(_) => self.matches_in(first, first.saturating_add(1).min(next))?,
                        None => Vec::new(),
                    };
                    if !oldest.first().is_some_and(|m| goes(0, m)) {
                        report.kept = kept;
                        report.done = true;
                        break;
                    }
                }
                let look = (PRUNE_CHUNK as u64).min(room.max(1));
                let candidates = self.matches_in(first, first.saturating_add(look).min(next))?;
                let take = candidates
                    .iter()
                    .enumerate()
                    .take_while(|&(i, m)| goes(i, m))
                    .count()
                    .min(usize::try_from(room).unwrap_or(usize::MAX));
                if take > 0 {
                    for m in &candidates[..take] {
                        export(m)?;
                    }
                    let mut txn = Txn::new(self);
                    for m in &candidates[..take] {
                        unindex_match(&mut txn, m);
                    }
                    let below = candidates[take - 1].id.saturating_add(1);
                    txn.counter(meta::PRUNED_BELOW, 1)?;
                    txn.set_counter(meta::PRUNED_BELOW, below);
                    txn.commit()?;
                    report.pruned += take as u64;
                }
                report.kept = kept - take as u64;
                match candidates.get(take) {
                    // The next record stays: the retention holds.
                    Some(m) if !goes(take, m) => Some(true),
                    // It must go too, but the budget is spent.
                    Some(_) => Some(false),
                    // Every record read went: the history is exhausted, or read on.
                    None if first + take as u64 >= next => Some(true),
                    None if report.pruned >= budget => Some(false),
                    None => None,
                }
            };
            if let Some(done) = done {
                report.done = done;
                break;
            }
        }
        self.flush()?;
        Ok(report)
    }
}
