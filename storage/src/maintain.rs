//! Maintenance in small steps: what accumulates under a steady load and nothing else removes —
//! expired ads not yet purged, tombstones whose time is up (and with them the dead records of
//! consumed ads, format 3) — removed a bounded chunk at a time, the writer lock taken per
//! chunk and released between them, so that writers wait for one chunk at most, never for the
//! whole job. [`AdStore::purge`] does the same work at once.

use crate::error::AdError;
use crate::store::AdStore;

/// Entries one maintenance chunk handles under the writer lock.
const CHUNK: usize = 512;

/// What a maintenance step removed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Maintained {
    /// Expired ads purged.
    pub ads: u64,
    /// Lapsed tombstones removed (each with its id's dead records).
    pub tombstones: u64,
    /// True when nothing due was left (false: the budget ran out first).
    pub done: bool,
}

impl AdStore {
    /// Purges up to `budget` entries due now — expired ads first, then lapsed tombstones with
    /// their dead records — in chunks, each its own transaction under the writer lock; durable
    /// when it returns. Call it again while `done` is false.
    pub fn maintain(&self, budget: u64) -> Result<Maintained, AdError> {
        let _span = tracing::debug_span!("maintain", budget).entered();
        let now = self.now();
        let mut out = Maintained::default();
        let room = |out: &Maintained| budget.saturating_sub(out.ads + out.tombstones);
        // Expired ads, then lapsed tombstones: chunks under the writer lock until one comes
        // back short (nothing more due) or the budget is spent.
        let step_ads = |limit: usize| -> Result<u64, AdError> {
            let _w = self.write.lock();
            self.purge_some(now, limit)
        };
        let step_tombstones = |limit: usize| -> Result<u64, AdError> {
            let _w = self.write.lock();
            let keys = self.lapsed_tombstones(now, limit)?;
            self.purge_tombstone_keys(&keys)?;
            Ok(keys.len() as u64)
        };
        for (step, ads) in [
            (&step_ads as &dyn Fn(usize) -> Result<u64, AdError>, true),
            (&step_tombstones, false),
        ] {
            loop {
                let limit = usize::try_from(room(&out)).unwrap_or(usize::MAX).min(CHUNK);
                if limit == 0 {
                    break;
                }
                let n = step(limit)?;
                if ads {
                    out.ads += n;
                } else {
                    out.tombstones += n;
                }
                if (n as usize) < limit {
                    break;
                }
            }
        }
        out.done = if room(&out) > 0 {
            true
        } else {
            // The budget is spent: done only if nothing is due any more.
            self.index.read().due(now, 1).is_empty() && self.lapsed_tombstones(now, 1)?.is_empty()
        };
        self.flush()?;
        Ok(out)
    }
}
