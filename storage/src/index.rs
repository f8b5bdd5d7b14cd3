//! The in-memory index of a store: for each collection, where each id's record is and when
//! ads expire, plus the keys of tombstoned ids. It is derived data: built on open by reading
//! every block's directory (the `dirs` tree, which copies them: the blocks' bodies are not
//! read) and every tombstone key — a record whose id is tombstoned is dead (consumed, left in
//! its block: format 3) and is kept apart, not indexed — and changed by writers only after
//! their transaction has committed.
//!
//! **Invariant** (while no writer runs): `ids[c][i] = Live { loc: Loc { block: b, seq: s },
//! revision: r }` exactly when block `(c, b)` holds a record with id `i`, sequence `s` and
//! revision `r`; `expiry[c]` holds `(t, s, b)`
//! exactly for those records that expire at `t`. Blocks whose directory could not be read are
//! listed in `damaged` (their ads are not indexed).

use crate::backend::{KeyRange, Store};
use crate::block::directory;
use crate::error::{Damage, StoreError};
use crate::key::{self, tree, CollId};
use crate::store::damage;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::{BTreeSet, HashMap, HashSet};

/// Where an ad's record is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Loc {
    /// The block's key sequence (its first ad's sequence number when it was written).
    pub(crate) block: u64,
    /// The ad's own sequence number.
    pub(crate) seq: u64,
}

/// A live record as the index holds it: where it is, and its
/// [`revision`](crate::record::revision) — what a held index's checkpoint is compared with
/// (`AdStore::live_view`), kept beside the place so that a live view of a million records
/// makes one random access per record, not two.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Live {
    pub(crate) loc: Loc,
    pub(crate) revision: u64,
}

/// The index of one collection.
#[derive(Clone, Debug, Default)]
pub(crate) struct CollIndex {
    /// Id → record (ids shared, so that a live view copies none).
    pub(crate) ids: HashMap<std::sync::Arc<str>, Live>,
    /// `(expiry time, seq, block)` of every ad that expires.
    pub(crate) expiry: BTreeSet<(i64, u64, u64)>,
    /// The same, by sequence number (so that a consumption need not read the block). Keyed
    /// by the store's own numbers, so hashed fast (Fx), unlike ids, which users choose.
    pub(crate) expires_at: FxHashMap<u64, i64>,
    /// Blocks whose directory is unreadable, and why.
    pub(crate) damaged: Vec<Damage>,
    /// Dead records (consumed, left in their blocks) by sequence number, and by id.
    pub(crate) dead: FxHashSet<u64>,
    pub(crate) dead_ids: HashMap<Box<str>, Vec<Loc>>,
}

impl CollIndex {
    fn add_dead(&mut self, id: Box<str>, loc: Loc) {
        self.dead.insert(loc.seq);
        self.dead_ids.entry(id).or_default().push(loc);
    }
}

/// The index of every collection.
#[derive(Clone, Debug, Default)]
pub(crate) struct Index {
    pub(crate) colls: HashMap<CollId, CollIndex>,
    /// `tombstones` keys: an id not here has no tombstone (one here may have lapsed).
    pub(crate) tombstoned: HashSet<Vec<u8>>,
}

/// An index change to make once a transaction has committed.
#[derive(Clone, Debug)]
pub(crate) enum Change {
    /// The record `id` at `loc` (expiring at the time given) is gone.
    Remove(CollId, String, Loc, Option<i64>),
    /// The record `id` (of the revision given) is now at `loc`.
    Add(CollId, String, Loc, Option<i64>, u64),
    /// The id (a `tombstones` key) has a tombstone.
    Tombstone(Vec<u8>),
    /// The id's tombstone was deleted.
    Untombstone(Vec<u8>),
    /// The record `id` at `loc` is dead: consumed, left in its block.
    Dead(CollId, String, Loc),
    /// The dead record `id` at `loc` was taken out of its block.
    Buried(CollId, String, Loc),
}

/// What one block gives the index.
enum Found {
    /// The block's records: id, place, expiry, revision.
    Ads(CollId, Vec<(std::sync::Arc<str>, Loc, Option<i64>, u64)>),
    /// The block's directory cannot be read.
    Damaged(CollId, Damage),
}

/// Blocks per batch handed from [`read_directories`] to the index.
const LOAD_BATCH: usize = 64;

/// Reads every block directory of `store` (the `dirs` tree) and sends what each says, in
/// batches, to `tx`.
fn read_directories(
    store: &dyn Store,
    tx: &std::sync::mpsc::SyncSender<Vec<Found>>,
) -> Result<(), StoreError> {
    let mut batch = Vec::with_capacity(LOAD_BATCH);
    for entry in store.scan(tree::DIRS, KeyRange::all())? {
        let (k, v) = entry?;
        let Some((c, b)) = key::decode_block(&k) else {
            // Reported by `check`; nothing to index.
            continue;
        };
        batch.push(match directory(&k, b, &v) {
            Ok((entries, _)) => Found::Ads(
                c,
                entries
                    .iter()
                    .map(|e| {
                        (
                            e.id.into(),
                            Loc {
                                block: b,
                                seq: e.seq,
                            },
                            e.expires,
                            e.revision(),
                        )
                    })
                    .collect(),
            ),
            Err(e) => Found::Damaged(c, damage(tree::DIRS, None, None, &k, e)),
        });
        if batch.len() == LOAD_BATCH && tx.send(std::mem::take(&mut batch)).is_err() {
            return Ok(());
        }
    }
    if !batch.is_empty() {
        let _ = tx.send(batch);
    }
    Ok(())
}

impl Index {
    /// Reads every block directory and tombstone key of `store`.
    pub(crate) fn load(store: &dyn Store) -> Result<Index, StoreError> {
        let mut ix = Index::default();
        // Sized from the catalog's counts, so that a large index is not rehashed as it grows.
        for entry in store.scan(tree::CATALOG, KeyRange::all())? {
            let (k, v) = entry?;
            if let Ok(e) = crate::codec::open::<crate::record::CollectionEntry>(&k, &v) {
                let coll = ix.colls.entry(e.id).or_default();
                let n = usize::try_from(e.count).unwrap_or(0).min(1 << 26);
                coll.ids.reserve(n);
            }
        }
        // Tombstones first: a record whose id is tombstoned is dead (format 3: consumption
        // leaves the record in its block; no live ad can have a tombstoned id, as a put under
        // one buries the dead records and deletes the tombstone in its transaction).
        for entry in store.scan(tree::TOMBSTONES, KeyRange::all())? {
            ix.tombstoned.insert(entry?.0);
        }
        // One thread reads the blocks and decodes their directories while this one fills the
        // maps: at a million ads, the two halves take about as long.
        std::thread::scope(|scope| -> Result<(), StoreError> {
            let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<Found>>(8);
            let reader = scope.spawn(move || read_directories(store, &tx));
            for batch in rx {
                for found in batch {
                    match found {
                        Found::Ads(c, entries) => {
                            let coll = ix.colls.entry(c).or_default();
                            for (id, loc, expires, revision) in entries {
                                if ix.tombstoned.contains(&crate::key::id(c, &id)) {
                                    coll.add_dead((*id).into(), loc);
                                    continue;
                                }
                                if let Some(t) = expires {
                                    coll.expiry.insert((t, loc.seq, loc.block));
                                    coll.expires_at.insert(loc.seq, t);
                                }
                                coll.ids.insert(id, Live { loc, revision });
                            }
                        }
                        Found::Damaged(c, d) => ix.colls.entry(c).or_default().damaged.push(d),
                    }
                }
            }
            reader.join().unwrap_or_else(|_| {
                Err(StoreError::Damaged {
                    context: "reading the block directories".into(),
                    detail: "the reader thread panicked".into(),
                })
            })
        })?;
        Ok(ix)
    }

    /// Where ad `id` of collection `c` is.
    pub(crate) fn get(&self, c: CollId, id: &str) -> Option<Loc> {
        self.colls.get(&c)?.ids.get(id).map(|l| l.loc)
    }

    /// Applies committed changes, in order.
    pub(crate) fn apply(&mut self, changes: Vec<Change>) {
        for ch in changes {
            match ch {
                Change::Remove(c, id, loc, expires) => {
                    let coll = self.colls.entry(c).or_default();
                    if coll.ids.get(id.as_str()).map(|l| l.loc) == Some(loc) {
                        coll.ids.remove(id.as_str());
                    }
                    if let Some(t) = expires {
                        coll.expiry.remove(&(t, loc.seq, loc.block));
                        if coll.expires_at.get(&loc.seq) == Some(&t) {
                            coll.expires_at.remove(&loc.seq);
                        }
                    }
                }
                Change::Add(c, id, loc, expires, revision) => {
                    let coll = self.colls.entry(c).or_default();
                    coll.ids.insert(id.into(), Live { loc, revision });
                    if let Some(t) = expires {
                        coll.expiry.insert((t, loc.seq, loc.block));
                        coll.expires_at.insert(loc.seq, t);
                    }
                }
                Change::Tombstone(k) => {
                    self.tombstoned.insert(k);
                }
                Change::Untombstone(k) => {
                    self.tombstoned.remove(&k);
                }
                Change::Dead(c, id, loc) => {
                    self.colls
                        .entry(c)
                        .or_default()
                        .add_dead(id.into_boxed_str(), loc);
                }
                Change::Buried(c, id, loc) => {
                    if let Some(coll) = self.colls.get_mut(&c) {
                        coll.dead.remove(&loc.seq);
                        if let Some(locs) = coll.dead_ids.get_mut(id.as_str()) {
                            locs.retain(|l| *l != loc);
                            if locs.is_empty() {
                                coll.dead_ids.remove(id.as_str());
                            }
                        }
                    }
                }
            }
        }
    }

    /// Up to `limit` records due at `now`, as `(collection, expiry, loc)`, earliest first.
    pub(crate) fn due(&self, now: i64, limit: usize) -> Vec<(CollId, i64, Loc)> {
        self.due_in(now, limit, None)
    }

    /// [`Index::due`], of collection `only` alone when given.
    pub(crate) fn due_in(
        &self,
        now: i64,
        limit: usize,
        only: Option<CollId>,
    ) -> Vec<(CollId, i64, Loc)> {
        let mut out: Vec<(CollId, i64, Loc)> = Vec::new();
        for (&c, coll) in self
            .colls
            .iter()
            .filter(|(c, _)| only.is_none_or(|o| o == **c))
        {
            for &(t, seq, block) in coll.expiry.iter().take_while(|e| e.0 <= now).take(limit) {
                out.push((c, t, Loc { block, seq }));
            }
        }
        out.sort_by_key(|&(c, t, loc)| (t, c, loc.seq));
        out.truncate(limit);
        out
    }

    /// How many records of `c` are due at `now` (expired, not yet purged).
    pub(crate) fn due_count(&self, c: CollId, now: i64) -> u64 {
        self.colls.get(&c).map_or(0, |coll| {
            coll.expiry.range(..(now.saturating_add(1), 0, 0)).count() as u64
        })
    }

    /// Where collection `c`'s dead records are: block → their sequence numbers.
    pub(crate) fn dead_places(&self, c: CollId) -> std::collections::BTreeMap<u64, Vec<u64>> {
        let mut at: std::collections::BTreeMap<u64, Vec<u64>> = Default::default();
        if let Some(coll) = self.colls.get(&c) {
            for loc in coll.dead_ids.values().flatten() {
                at.entry(loc.block).or_default().push(loc.seq);
            }
        }
        at
    }

    /// How many dead records (consumed, left in their blocks) collection `c` holds.
    pub(crate) fn dead_count(&self, c: CollId) -> u64 {
        self.colls.get(&c).map_or(0, |coll| coll.dead.len() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn loc(block: u64, seq: u64) -> Loc {
        Loc { block, seq }
    }

    #[test]
    fn changes_apply_in_order() {
        let mut ix = Index::default();
        ix.apply(vec![
            Change::Add(1, "a".into(), loc(1, 1), Some(50), 7),
            Change::Add(1, "b".into(), loc(1, 2), None, 8),
            Change::Add(2, "a".into(), loc(1, 1), Some(10), 9),
        ]);
        assert_eq!(ix.get(1, "a"), Some(loc(1, 1)));
        assert_eq!(ix.due(60, 10).len(), 2);
        assert_eq!(ix.due(20, 10), [(2, 10, loc(1, 1))]);
        assert_eq!((ix.due_count(1, 50), ix.due_count(1, 49)), (1, 0));
        // A replacement moves the id; removing the stale place leaves the new one.
        ix.apply(vec![
            Change::Add(1, "a".into(), loc(3, 3), None, 10),
            Change::Remove(1, "a".into(), loc(1, 1), Some(50)),
        ]);
        assert_eq!(ix.get(1, "a"), Some(loc(3, 3)));
        assert_eq!(ix.due_count(1, 1000), 0);
        ix.apply(vec![Change::Remove(1, "b".into(), loc(1, 2), None)]);
        assert_eq!(ix.get(1, "b"), None);
        let live = &ix.colls[&1].ids;
        assert_eq!(
            (live.get("a").map(|l| l.revision), live.get("b")),
            (Some(10), None)
        );
        ix.apply(vec![
            Change::Tombstone(vec![1]),
            Change::Untombstone(vec![1]),
        ]);
        assert!(ix.tombstoned.is_empty());
    }
}
