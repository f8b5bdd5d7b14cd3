//! Lifetimes: purging expired ads (a few on every write, all on [`AdStore::purge`]) and expired
//! tombstones.
//!
//! The index keeps `(time, seq, block)` for every ad with an expiry (`index.rs`), so the ads due
//! by now are the front of an ordered set. An entry is acted on only if the record it names
//! still carries that expiry.

use crate::backend::KeyRange;
use crate::codec;
use crate::error::AdError;
use crate::key::tree;
use crate::record::Tombstone;
use crate::store::AdStore;
use crate::txn::Txn;

/// What a purge removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Purged {
    /// Expired ads removed.
    pub ads: u64,
    /// Expired tombstones removed.
    pub tombstones: u64,
}

impl AdStore {
    /// Purges up to `limit` ads due at `now`. The caller holds the writer lock.
    pub(crate) fn purge_some(&self, now: i64, limit: usize) -> Result<u64, AdError> {
        self.purge_some_in(now, limit, None)
    }

    /// [`AdStore::purge_some`], in collection `only` alone when given (a write's lazy purge
    /// stays within the collection it wrote, so that it changes no other collection).
    pub(crate) fn purge_some_in(
        &self,
        now: i64,
        limit: usize,
        only: Option<crate::key::CollId>,
    ) -> Result<u64, AdError> {
        if limit == 0 {
            return Ok(0);
        }
        let due = self.index.read().due_in(now, limit, only);
        if due.is_empty() {
            return Ok(0);
        }
        let _span = tracing::debug_span!("purge", due = due.len()).entered();
        let mut txn = Txn::new(self);
        let mut purged = 0;
        for (c, at, loc) in due {
            let Some(name) = self.coll_name(c) else {
                continue;
            };
            // A block that cannot be read is left for `check` to report.
            let rec = match txn.record(&name, c, loc) {
                Ok(Some(rec)) => rec,
                Ok(None) | Err(AdError::Damaged(_)) => continue,
                Err(e) => return Err(e),
            };
            if rec.header.expires != Some(at) {
                continue;
            }
            txn.take(&name, c, loc)?;
            txn.collection(&name)?;
            txn.update_collection(&name, |e| e.count = e.count.saturating_sub(1));
            purged += 1;
        }
        txn.commit()?;
        Ok(purged)
    }

    /// Purges every expired ad and every expired tombstone, durably.
    pub fn purge(&self) -> Result<Purged, AdError> {
        let _span = tracing::info_span!("purge_all").entered();
        let now = self.now();
        let mut out = Purged::default();
        {
            let _w = self.write.lock();
            loop {
                let n = self.purge_some(now, self.opts.chunk_size.max(1))?;
                out.ads += n;
                if n == 0 {
                    break;
                }
            }
            out.tombstones = self.purge_tombstones(now)?;
        }
        self.flush()?;
        Ok(out)
    }

    /// Deletes tombstones whose time is up. The caller holds the writer lock.
    fn purge_tombstones(&self, now: i64) -> Result<u64, AdError> {
        let expired = self.lapsed_tombstones(now, usize::MAX)?;
        for chunk in expired.chunks(self.opts.chunk_size.max(1)) {
            self.purge_tombstone_keys(chunk)?;
        }
        Ok(expired.len() as u64)
    }

    /// The keys of up to `limit` tombstones whose time is up at `now`.
    pub(crate) fn lapsed_tombstones(
        &self,
        now: i64,
        limit: usize,
    ) -> Result<Vec<Vec<u8>>, AdError> {
        let mut expired = Vec::new();
        for entry in self.store.scan(tree::TOMBSTONES, KeyRange::all())? {
            let (k, v) = entry?;
            if let Ok(ts) = codec::open::<Tombstone>(&k, &v) {
                if ts.until <= now {
                    expired.push(k);
                    if expired.len() >= limit {
                        break;
                    }
                }
            }
        }
        Ok(expired)
    }

    /// Deletes the tombstones under `keys` in one transaction, burying their ids' dead records
    /// (format 3). The caller holds the writer lock.
    pub(crate) fn purge_tombstone_keys(&self, keys: &[Vec<u8>]) -> Result<(), AdError> {
        let mut txn = Txn::new(self);
        for k in keys {
            // The id's dead records go with its tombstone (format 3).
            if let Some((c, id)) = crate::key::decode_id(k) {
                if let Some(name) = self.coll_name(c) {
                    txn.bury(&name, c, &id)?;
                }
            }
            txn.delete_tombstone_key(k);
        }
        txn.commit()
    }
}
