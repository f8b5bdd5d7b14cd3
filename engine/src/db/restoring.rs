//! Checkpoints restored while the database opens: the checkpoint files beside the store are
//! mapped and checked first thing at open, and each one's index is restored on a thread of its
//! own while sled and the store open, so that the first use of a collection's index finds it
//! restored (or waits only for the rest) and goes on to the difference with the store.
//!
//! Nothing here decides what the index holds: a restored index is used exactly as one restored
//! at first use would be (`indexes.rs`, `made_from_base`): its checkpoint's marks, the very
//! same mapped file, make the difference with the live view, and an index that does not pass
//! the checks (payload, options, consistency with the marks) is not restored (the index is
//! built from the store). A collection whose index is never used costs its restore's time on
//! another thread and its memory until the `Db` goes.

use super::held_files;
use adjoin_index::{AdId, AdSource, Index, IndexOptions, RoaringBitmap};
use adjoin_query::ClassAd;
use adjoin_storage::Checkpoint;
use parking_lot::Mutex;
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::thread::JoinHandle;

/// An index restored from a checkpoint, with its ads with ports, and whether the payload is of
/// the current layout (an older one is written again at the next checkpoint).
pub(crate) type Restored = (Index, RoaringBitmap, bool);

/// A checkpoint mapped at open, and its restore under way.
pub(crate) struct Early {
    /// The checkpoint (its marks make the difference with the store).
    pub(crate) checkpoint: Arc<Checkpoint>,
    job: JoinHandle<Option<Restored>>,
}

impl Early {
    /// The restored index, waiting for the restore if it is still running (`None`: the
    /// checkpoint is not usable).
    pub(crate) fn join(self) -> Option<Restored> {
        self.job.join().ok().flatten()
    }
}

/// The restores started at open, by collection number (taken at first use).
#[derive(Default)]
pub(crate) struct Restoring(Mutex<HashMap<u32, Early>>);

impl std::fmt::Debug for Restoring {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut ns: Vec<u32> = self.0.lock().keys().copied().collect();
        ns.sort_unstable();
        f.debug_tuple("Restoring").field(&ns).finish()
    }
}

/// A source for an index restored before the store is open: it reads nothing. It is replaced
/// ([`Index::set_source`]) before the index answers anything.
#[derive(Debug)]
struct NotYet;

impl AdSource for NotYet {
    fn fetch(&self, ids: &[AdId]) -> Vec<Option<Arc<ClassAd>>> {
        vec![None; ids.len()]
    }

    fn for_each(&self, _: &mut dyn FnMut(AdId, Arc<ClassAd>)) {}
}

impl Restoring {
    /// Maps and checks every checkpoint file of the database in `db` and starts restoring
    /// each on a thread of its own. A file that does not open is left for the first use to
    /// report (it is not restored).
    pub(crate) fn start(db: &Path, opts: &IndexOptions) -> Restoring {
        let mut jobs = HashMap::new();
        let Ok(entries) = std::fs::read_dir(held_files::dir(db)) else {
            return Restoring::default();
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(n) = name.to_str().and_then(|n| {
                n.strip_prefix('c')?
                    .strip_suffix(".snap")?
                    .parse::<u32>()
                    .ok()
            }) else {
                continue;
            };
            let Ok(checkpoint) = Checkpoint::open(&entry.path()) else {
                continue;
            };
            if checkpoint.generation().collection != n {
                continue;
            }
            let checkpoint = Arc::new(checkpoint);
            let (c, o) = (Arc::clone(&checkpoint), opts.clone());
            let job = std::thread::Builder::new()
                .name(format!("adjoin-restore-c{n}"))
                .spawn(move || restore(&o, &c, Arc::new(NotYet)));
            if let Ok(job) = job {
                jobs.insert(n, Early { checkpoint, job });
            }
        }
        Restoring(Mutex::new(jobs))
    }

    /// The restore of collection number `n` started at open, if any (once).
    pub(crate) fn take(&self, n: u32) -> Option<Early> {
        self.0.lock().remove(&n)
    }
}

/// The index `checkpoint` holds, reading through `source`, if its payload is usable: it
/// decodes, was converted under `opts`, and agrees with the checkpoint's marks.
pub(crate) fn restore(
    opts: &IndexOptions,
    checkpoint: &Checkpoint,
    source: Arc<dyn AdSource>,
) -> Option<Restored> {
    let _span = tracing::info_span!("restore_index").entered();
    let (payload, layout) = match held_files::decode(checkpoint.payload()) {
        Ok((p, layout)) if p.options == held_files::OptionsStamp::of(opts) => (p, layout),
        Ok(_) => {
            tracing::debug!("index checkpoint of other options; building");
            return None;
        }
        Err(e) => {
            tracing::warn!(%e, "index checkpoint not restored; building");
            return None;
        }
    };
    let index = match Index::restore(opts.clone(), source, payload.index) {
        Ok(index) => index,
        Err(e) => {
            tracing::warn!(%e, "index checkpoint not restored; building");
            return None;
        }
    };
    // A checkpoint that passed its checksum may still contradict itself: its marks must
    // be exactly the index's ads.
    let consistent = index.len() == checkpoint.len()
        && checkpoint
            .marks()
            .all(|(s, _)| AdId::try_from(s).is_ok_and(|n| index.contains(n)))
        && payload.ported.iter().all(|&n| index.contains(n));
    if !consistent {
        tracing::warn!("index checkpoint inconsistent; building");
        return None;
    }
    let current = layout == held_files::LAYOUT;
    Some((index, payload.ported.into_iter().collect(), current))
}
