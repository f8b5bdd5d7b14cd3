//! Checkpoints of the held indexes taken in the background: a thread of the [`Db`] writes
//! the checkpoints of the indexes that changed once enough writes were applied to them or
//! enough time passed since the last ones, so that a restart after a kill replays only
//! what came after ([`CheckpointPolicy`], [`DbOptions::checkpoints`]).
//!
//! [`Db`]: super::Db
//! [`DbOptions::checkpoints`]: super::DbOptions::checkpoints

use super::indexes::Indexes;
use super::DbError;
use adjoin_storage::AdStore;
use parking_lot::{Condvar, Mutex};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

/// When the held indexes are checkpointed in the background: after `writes` changes to
/// records were committed (the store tells every commit's), or `every` after the first change
/// since the last checkpoint, whichever comes first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CheckpointPolicy {
    /// Changes to records committed (an ad stored, replaced, removed, consumed or purged counts
    /// one; a replacement two).
    pub writes: u64,
    /// Time since the last checkpoint, once anything changed.
    pub every: Duration,
}

impl Default for CheckpointPolicy {
    /// 10,000 changes or a minute.
    fn default() -> CheckpointPolicy {
        CheckpointPolicy {
            writes: 10_000,
            every: Duration::from_secs(60),
        }
    }
}

/// The background thread, stopped and joined when dropped.
#[derive(Debug)]
pub(crate) struct Checkpointer {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Checkpointer {
    /// Starts the thread.
    pub(crate) fn spawn(
        indexes: Arc<Indexes>,
        store: Arc<AdStore>,
        policy: CheckpointPolicy,
    ) -> std::io::Result<Checkpointer> {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let flag = Arc::clone(&stop);
        let poll = Duration::from_millis(50).min(policy.every.max(Duration::from_millis(1)));
        let thread = std::thread::Builder::new()
            .name("adjoin-checkpoints".into())
            .spawn(move || {
                let mut last = Instant::now();
                let (lock, cv) = &*flag;
                let mut stopped = lock.lock();
                while !*stopped {
                    cv.wait_for(&mut stopped, poll);
                    if *stopped {
                        break;
                    }
                    let unsaved = indexes.unsaved.0.load(Ordering::Relaxed);
                    let due = unsaved >= policy.writes.max(1)
                        || (unsaved > 0 && last.elapsed() >= policy.every);
                    if !due {
                        continue;
                    }
                    parking_lot::MutexGuard::unlocked(&mut stopped, || {
                        let _span = tracing::info_span!("checkpoint", unsaved).entered();
                        let _one = indexes.write.lock();
                        let saved = indexes.save(&|| store.flush().map_err(DbError::from));
                        if let Err(e) = saved {
                            tracing::warn!(%e, "held index checkpoint failed");
                        }
                    });
                    last = Instant::now();
                }
            })?;
        Ok(Checkpointer {
            stop,
            thread: Some(thread),
        })
    }
}

impl Drop for Checkpointer {
    fn drop(&mut self) {
        *self.stop.0.lock() = true;
        self.stop.1.notify_all();
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}
