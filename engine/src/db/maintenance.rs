//! Maintenance that runs itself: [`Db::maintain`] removes what a steady load leaves behind
//! (expired ads, lapsed tombstones with the dead records of consumed ads, match records beyond
//! the retention policy) in small bounded steps, each a write of its own that the held indexes
//! follow; [`Db::spawn_maintenance`] runs it on a background thread every so often.

use super::{Db, DbError};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Entries one step of [`Db::maintain`] removes under the Db's write lock.
const STEP: u64 = 1024;

/// What [`Db::maintain`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaintainReport {
    /// Expired ads purged.
    pub ads: u64,
    /// Lapsed tombstones removed, each with its id's dead records.
    pub tombstones: u64,
    /// Match records the retention policy pruned.
    pub pruned: u64,
    /// True when nothing due was left (false: the budget ran out first).
    pub done: bool,
}

impl Db {
    /// Removes up to `budget` entries due now — expired ads, then lapsed tombstones (burying the
    /// dead records of their consumed ads) — in steps of a thousand or so, each a write of its
    /// own, then applies one step of the retention policy ([`super::DbOptions::retention`]).
    /// Writers wait for one step at most. Durable when it returns.
    pub fn maintain(&self, budget: u64) -> Result<MaintainReport, DbError> {
        let _span = tracing::info_span!("maintain", budget).entered();
        let mut out = MaintainReport::default();
        loop {
            let left = budget.saturating_sub(out.ads + out.tombstones);
            if left == 0 {
                out.done = false;
                break;
            }
            let m = self.writing(|_| Ok(self.store.maintain(left.min(STEP))?))?;
            out.ads += m.ads;
            out.tombstones += m.tombstones;
            if m.done {
                out.done = true;
                break;
            }
        }
        if let Some(p) = self.apply_retention()? {
            out.pruned = p.pruned;
            out.done &= p.done;
        }
        Ok(out)
    }

    /// Runs [`Db::maintain`] with `budget` every `every` on a thread of its own, until the
    /// returned handle is dropped (or the last `Arc` of the Db goes). Errors are logged
    /// (`tracing`) and the next round tries again.
    pub fn spawn_maintenance(
        self: &Arc<Self>,
        every: Duration,
        budget: u64,
    ) -> std::io::Result<Maintenance> {
        let db: Weak<Db> = Arc::downgrade(self);
        let stop = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("adjoin-maintenance".into())
            .spawn(move || {
                let mut next = Instant::now() + every;
                while !flag.load(Ordering::Relaxed) {
                    if Instant::now() < next {
                        std::thread::sleep(Duration::from_millis(20).min(every));
                        continue;
                    }
                    let Some(db) = db.upgrade() else { break };
                    match db.maintain(budget) {
                        Ok(r) => tracing::debug!(?r, "maintenance"),
                        Err(e) => tracing::warn!(%e, "maintenance failed"),
                    }
                    next = Instant::now() + every;
                }
            })?;
        Ok(Maintenance {
            stop,
            thread: Some(thread),
        })
    }
}

/// A background maintenance thread ([`Db::spawn_maintenance`]); dropping it stops the thread
/// (waiting for a round in progress to end).
#[derive(Debug)]
pub struct Maintenance {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for Maintenance {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
