//! Statistics: [`AdStore::stats`] counts ads per collection, tombstones and matches, and the
//! bytes the store occupies, from the catalog, the index and the small trees, without reading
//! ads.

use crate::backend::KeyRange;
use crate::codec;
use crate::error::AdError;
use crate::format;
use crate::key::{self, meta, tree, CollId};
use crate::record::Tombstone;
use crate::store::{damage, AdStore};
use std::collections::HashMap;

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
}

/// Counts of a whole store.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stats {
    /// Per collection, by name.
    pub collections: Vec<CollectionStats>,
    /// Matches recorded.
    pub matches: u64,
    /// Bytes the store occupies (on disk for sled).
    pub bytes: u64,
    /// The backend, e.g. `sled at ./adjoin.db`.
    pub backend: String,
    /// The format version.
    pub format: u32,
}

impl AdStore {
    /// Counts per collection, matches, and size; reads the catalog, the index and
    /// `tombstones`, not the ads.
    pub fn stats(&self) -> Result<Stats, AdError> {
        let _span = tracing::debug_span!("stats").entered();
        let now = self.now();
        let mut tombs: HashMap<CollId, u64> = HashMap::new();
        for entry in self.store.scan(tree::TOMBSTONES, KeyRange::all())? {
            let (k, v) = entry?;
            if let (Some((c, _)), Ok(ts)) = (key::decode_id(&k), codec::open::<Tombstone>(&k, &v)) {
                if ts.until > now {
                    *tombs.entry(c).or_default() += 1;
                }
            }
        }
        let mut collections = Vec::new();
        for name in self.collections() {
            let Some(c) = self.coll_id(&name) else {
                continue;
            };
            let stored = self.stored_count(&name)?;
            let exp = self.index.read().due_count(c, now);
            collections.push(CollectionStats {
                name,
                ads: stored.saturating_sub(exp),
                expired: exp,
                tombstones: tombs.get(&c).copied().unwrap_or(0),
            });
        }
        let next_match = match self.store.get(tree::META, meta::NEXT_MATCH)? {
            Some(raw) => codec::open::<u64>(meta::NEXT_MATCH, &raw).map_err(|e| {
                AdError::Damaged(damage(
                    tree::META,
                    None,
                    Some("next_match"),
                    meta::NEXT_MATCH,
                    e,
                ))
            })?,
            None => 1,
        };
        Ok(Stats {
            collections,
            matches: next_match.saturating_sub(1),
            bytes: self.store.size_bytes()?,
            backend: self.store.describe(),
            format: format::read_version(&*self.store)
                .ok()
                .flatten()
                .unwrap_or(format::CURRENT),
        })
    }
}
