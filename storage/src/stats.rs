//! Statistics: [`AdStore::stats`] counts ads per collection, tombstones and matches, and the
//! bytes the store occupies, from the catalog, the index and the small trees (and the
//! directories of the blocks holding dead records, for their bytes), without reading ads.

use crate::backend::KeyRange;
use crate::codec;
use crate::error::AdError;
use crate::format;
use crate::key::{self, tree, CollId};
use crate::record::Tombstone;
use crate::store::AdStore;
use std::collections::{BTreeMap, HashMap};

/// Counts of one collection.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CollectionStats {
    /// Its name.
    pub name: String,
    /// Live ads.
    pub ads: u64,
    /// Expired ads not yet purged (invisible to reads).
    pub expired: u64,
    /// Ids tombstoned now.
    pub tombstones: u64,
    /// Records of consumed ads still in their blocks (they go with their tombstones, by
    /// maintenance or a purge).
    pub dead: u64,
    /// The bytes of those records' bodies (from their blocks' directories).
    pub dead_bytes: u64,
}

/// Counts of a whole store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Per collection, by name.
    pub collections: Vec<CollectionStats>,
    /// Match records kept.
    pub matches: u64,
    /// Tombstones whose time is up, not yet removed (maintenance or a purge removes them, and
    /// the dead records of their ids).
    pub lapsed_tombstones: u64,
    /// Bytes the store occupies (on disk for sled).
    pub bytes: u64,
    /// The backend, e.g. `sled at ./adjoin.db`.
    pub backend: String,
    /// The format version.
    pub format: u32,
}

impl AdStore {
    /// The body bytes of the dead records `at` (block → sequence numbers) of collection `c`,
    /// read from the blocks' directories (a directory that cannot be read counts nothing;
    /// `check` reports it).
    fn dead_bytes(&self, c: CollId, at: &BTreeMap<u64, Vec<u64>>) -> Result<u64, AdError> {
        let mut bytes = 0u64;
        for (&b, seqs) in at {
            let k = key::block(c, b);
            let Some(v) = self.store.get(tree::DIRS, &k)? else {
                continue;
            };
            if let Ok((entries, _)) = crate::block::directory(&k, b, &v) {
                bytes += entries
                    .iter()
                    .filter(|e| seqs.contains(&e.seq))
                    .map(|e| u64::from(e.len))
                    .sum::<u64>();
            }
        }
        Ok(bytes)
    }

    /// Counts per collection, matches, and size; reads the catalog, the index and
    /// `tombstones`, not the ads.
    pub fn stats(&self) -> Result<Stats, AdError> {
        let _span = tracing::debug_span!("stats").entered();
        let now = self.now();
        let mut tombs: HashMap<CollId, u64> = HashMap::new();
        let mut lapsed = 0u64;
        for entry in self.store.scan(tree::TOMBSTONES, KeyRange::all())? {
            let (k, v) = entry?;
            if let (Some((c, _)), Ok(ts)) = (key::decode_id(&k), codec::open::<Tombstone>(&k, &v)) {
                if ts.until > now {
                    *tombs.entry(c).or_default() += 1;
                } else {
                    lapsed += 1;
                }
            }
        }
        let mut collections = Vec::new();
        for name in self.collections() {
            let Some(c) = self.coll_id(&name) else {
                continue;
            };
            let stored = self.stored_count(&name)?;
            let (exp, dead, dead_at) = {
                let index = self.index.read();
                (
                    index.due_count(c, now),
                    index.dead_count(c),
                    index.dead_places(c),
                )
            };
            collections.push(CollectionStats {
                name,
                ads: stored.saturating_sub(exp),
                expired: exp,
                tombstones: tombs.get(&c).copied().unwrap_or(0),
                dead,
                dead_bytes: self.dead_bytes(c, &dead_at)?,
            });
        }
        Ok(Stats {
            collections,
            matches: self.match_count()?,
            lapsed_tombstones: lapsed,
            bytes: self.store.size_bytes()?,
            backend: self.store.describe(),
            format: format::read_version(&*self.store)
                .ok()
                .flatten()
                .unwrap_or(format::CURRENT),
        })
    }
}
