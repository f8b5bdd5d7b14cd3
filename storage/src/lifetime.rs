//! Lifetimes: purging expired ads (a few on every write, all on [`AdStore::purge`]) and expired
//! tombstones.
//!
//! The `expiry` tree lists `(time, collection, seq)` for every ad with an expiry, so the ads
//! due by now are one range scan away. An entry is acted on only if the record it names still
//! carries that expiry; otherwise the entry is stale and only it is deleted.

use crate::backend::KeyRange;
use crate::backend::TxError;
use crate::codec;
use crate::error::AdError;
use crate::key::{self, tree};
use crate::record::{open_header, IdEntry, Tombstone};
use crate::store::{damage, t, AdStore, W};
use std::cell::Cell;

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
        if limit == 0 {
            return Ok(0);
        }
        let range = KeyRange {
            start: std::ops::Bound::Unbounded,
            end: std::ops::Bound::Excluded(key::expiry_due_end(now)),
        };
        let mut due = Vec::new();
        for entry in self.store.scan(tree::EXPIRY, range)?.take(limit) {
            due.push(entry?.0);
        }
        if due.is_empty() {
            return Ok(0);
        }
        let _span = tracing::debug_span!("purge", due = due.len()).entered();
        let purged = Cell::new(0u64);
        self.write_tx(&|w| {
            purged.set(0);
            for ek in &due {
                if self.purge_entry(w, ek)? {
                    purged.set(purged.get() + 1);
                }
            }
            Ok(())
        })?;
        Ok(purged.get())
    }

    /// Removes the ad an `expiry` entry names if it still expires then; deletes the entry.
    fn purge_entry(&self, w: &W<'_>, ek: &[u8]) -> Result<bool, TxError> {
        w.delete(t::EXPIRY, ek)?;
        let Some((at, c, seq)) = key::decode_expiry(ek) else {
            return Ok(false);
        };
        let Some(name) = self.coll_name(c) else {
            return Ok(false);
        };
        let ak = key::ad(c, seq);
        let Some(raw) = w.tx.get(t::ADS, &ak)? else {
            return Ok(false);
        };
        let Ok((header, _)) = open_header(&ak, &raw) else {
            // Damaged records are left for `check` to report.
            return Ok(false);
        };
        if header.expires != Some(at) {
            return Ok(false);
        }
        w.delete(t::ADS, &ak)?;
        let ik = key::id(c, &header.id);
        let what = || damage(tree::IDS, Some(&name), Some(&header.id), &ik, "");
        if w.get::<IdEntry>(t::IDS, &ik, what)? == Some(IdEntry { seq }) {
            w.delete(t::IDS, &ik)?;
        }
        if let Some(mut coll) = w.collection(&name)? {
            coll.count = coll.count.saturating_sub(1);
            w.put(t::CATALOG, &key::catalog(&name), &coll)?;
        }
        Ok(true)
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
                if n == 0 && !self.any_due(now)? {
                    break;
                }
            }
            out.tombstones = self.purge_tombstones(now)?;
        }
        self.flush()?;
        Ok(out)
    }

    /// True when the `expiry` tree still lists something due at `now`.
    fn any_due(&self, now: i64) -> Result<bool, AdError> {
        let range = KeyRange {
            start: std::ops::Bound::Unbounded,
            end: std::ops::Bound::Excluded(key::expiry_due_end(now)),
        };
        Ok(self.store.scan(tree::EXPIRY, range)?.next().is_some())
    }

    /// Deletes tombstones whose time is up. The caller holds the writer lock.
    fn purge_tombstones(&self, now: i64) -> Result<u64, AdError> {
        let mut expired = Vec::new();
        for entry in self.store.scan(tree::TOMBSTONES, KeyRange::all())? {
            let (k, v) = entry?;
            if let Ok(ts) = codec::open::<Tombstone>(&k, &v) {
                if ts.until <= now {
                    expired.push(k);
                }
            }
        }
        for chunk in expired.chunks(self.opts.chunk_size.max(1)) {
            self.write_tx(&|w| {
                for k in chunk {
                    w.delete(t::TOMBSTONES, k)?;
                }
                Ok(())
            })?;
        }
        Ok(expired.len() as u64)
    }
}
