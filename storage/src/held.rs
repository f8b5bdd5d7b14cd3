//! Held (secondary) indexes as a storage concept: what the store gives an index kept beside
//! it so that the index can follow the store, and the checkpoint files that let it survive
//! a restart or a kill without being rebuilt.
//!
//! - **Numbers.** A record's sequence number `seq` (per collection, from `next_seq`, never
//!   handed out twice; a replacement keeps its ad's) is the number an index knows the ad by.
//!   With the record's [`revision`](crate::record::revision) (which tells two versions under
//!   one `seq` apart) it describes a collection's live records exactly.
//! - **Views.** [`AdStore::live_view`] lists every live record's `(seq, id, revision,
//!   expiry)` and the collection's [`Generation`], consistently (under the writer lock), from
//!   the in-memory index alone: no block is read.
//! - **Observers.** A [`CommitObserver`] registered with [`AdStore::observe`] is told every
//!   commit's changes to live records ([`Committed`]: collection, id, `seq`, revision, expiry,
//!   stored or gone) inside the commit: after the store transaction and the in-memory index,
//!   before the writer lock is released, so in commit order and before the write returns.
//! - **Checkpoints.** A held index's saved state: the `(seq, revision)` of every ad it holds,
//!   in `seq` order, and an opaque payload (the index's own snapshot, whose layout is the
//!   index's business). An index restored from a checkpoint is brought up to date by the
//!   difference between its marks and the live view: ads gone or changed are removed, ads new
//!   or changed read and added; nothing else is read. That is the replay after a kill, with no
//!   change log: the blocks are the log.
//!
//! Checkpoint file (little-endian throughout; the layout is documented in
//! docs/storage-format.md, "Held indexes"):
//!
//! ```text
//! 0   magic "ADJCKPT\x01"
//! 8   collection number u32 ‖ reserved u32 (0)
//! 16  generation's write count u64
//! 24  marks count u64 ‖ payload length u64
//! 40  CRC-32 u32 of bytes 8..40, the marks and the payload ‖ padding u32 (0)
//! 48  marks: count × (seq u64, revision u64), seq strictly increasing
//! ..  payload
//! ```
//!
//! The marks start 8-aligned and are read in place from a memory map (`mapped.rs`).

use crate::error::{AdError, Damage};
use crate::mapped::Mapped;
use crate::read::Generation;
use crate::store::AdStore;
use std::io::Write;
use std::path::Path;

/// One live record of a collection, as [`AdStore::live_view`] lists it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveAd {
    /// Its sequence number (the index's number for it).
    pub seq: u64,
    /// Its id (shared with the store's in-memory index).
    pub id: std::sync::Arc<str>,
    /// Its record's [`revision`](crate::record::revision).
    pub revision: u64,
    /// When it expires, if it does (expired ads not yet purged are listed).
    pub expires: Option<i64>,
}

/// A collection's live records at one moment ([`AdStore::live_view`]).
#[derive(Clone, Debug, Default)]
pub struct LiveView {
    /// The collection's generation at that moment (`None`: no such collection).
    pub generation: Option<Generation>,
    /// Its live records, by `seq`.
    pub ads: Vec<LiveAd>,
    /// Blocks of it whose directory could not be read at open (their ads are not listed).
    pub damaged: Vec<Damage>,
}

impl AdStore {
    /// Every live record of collection `name` with the collection's generation, as of one
    /// moment: taken under the writer lock (writers wait for the copy, not for any read).
    pub fn live_view(&self, name: &str) -> Result<LiveView, AdError> {
        let _span = tracing::debug_span!("live_view", collection = name).entered();
        let _w = self.write.lock();
        let generation = self.generation(name)?;
        let Some(g) = generation else {
            return Ok(LiveView::default());
        };
        let ix = self.index.read();
        let Some(coll) = ix.colls.get(&g.collection) else {
            return Ok(LiveView {
                generation,
                ..LiveView::default()
            });
        };
        let mut ads: Vec<LiveAd> = coll
            .ids
            .iter()
            .map(|(id, live)| LiveAd {
                seq: live.loc.seq,
                id: id.clone(),
                revision: live.revision,
                expires: match coll.expires_at.is_empty() {
                    true => None,
                    false => coll.expires_at.get(&live.loc.seq).copied(),
                },
            })
            .collect();
        let damaged = coll.damaged.clone();
        drop(ix);
        drop(_w);
        ads.sort_unstable_by_key(|a| a.seq);
        Ok(LiveView {
            generation,
            ads,
            damaged,
        })
    }
}

/// One change a commit made to a live record ([`CommitObserver`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Committed<'a> {
    /// The record's collection.
    pub collection: &'a str,
    /// The ad's id.
    pub id: &'a str,
    /// The record's sequence number.
    pub seq: u64,
    /// What happened to it.
    pub change: Change,
}

/// What a commit did to a live record.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Change {
    /// Stored (new, or replacing the record of the same `seq`), of this revision and expiry.
    Stored {
        /// Its [`revision`](crate::record::revision).
        revision: u64,
        /// When it expires, if it does.
        expires: Option<i64>,
    },
    /// No longer live: removed, consumed, purged, or replaced (then `Stored` follows). Also
    /// told of a dead record (consumed earlier) when it is taken out of its block.
    Gone,
}

/// Told every commit's changes to live records, inside the commit (in commit order, under the
/// store's writer lock: it must be quick and must not write to the store).
pub trait CommitObserver: Send + Sync {
    /// The changes of one commit, gone records before stored ones.
    fn committed(&self, changes: &[Committed<'_>]);
}

impl AdStore {
    /// Registers `observer` to be told every later commit's changes.
    pub fn observe(&self, observer: std::sync::Arc<dyn CommitObserver>) {
        self.observers.write().push(observer);
    }

    /// Tells the observers a commit's index changes (`index.rs`), if any observe.
    pub(crate) fn tell_observers(&self, changes: &[crate::index::Change]) {
        use crate::index::Change as C;
        let observers = self.observers.read();
        if observers.is_empty() {
            return;
        }
        let names: std::collections::HashMap<crate::key::CollId, String> = changes
            .iter()
            .filter_map(|c| match c {
                C::Add(c, ..) | C::Remove(c, ..) => Some(*c),
                _ => None,
            })
            .collect::<std::collections::BTreeSet<_>>()
            .into_iter()
            .filter_map(|c| Some((c, self.coll_name(c)?)))
            .collect();
        let told: Vec<Committed<'_>> = changes
            .iter()
            .filter_map(|c| {
                let (coll, id, seq, change) = match c {
                    C::Remove(c, id, loc, _) => (c, id, loc.seq, Change::Gone),
                    C::Add(c, id, loc, expires, revision) => (
                        c,
                        id,
                        loc.seq,
                        Change::Stored {
                            revision: *revision,
                            expires: *expires,
                        },
                    ),
                    _ => return None,
                };
                Some(Committed {
                    collection: names.get(coll)?.as_str(),
                    id: id.as_str(),
                    seq,
                    change,
                })
            })
            .collect();
        if told.is_empty() {
            return;
        }
        for o in observers.iter() {
            o.committed(&told);
        }
    }
}

const MAGIC: &[u8; 8] = b"ADJCKPT\x01";
/// Bytes before the marks.
const HEAD: usize = 48;
/// Bytes per mark.
const MARK: usize = 16;

/// Why a checkpoint file was not used.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CheckpointError {
    /// It could not be read (missing, permissions, …).
    #[error("reading the checkpoint: {0}")]
    Io(#[from] std::io::Error),
    /// It is not a checkpoint of this format, or it is damaged.
    #[error("checkpoint damaged or of another version: {0}")]
    Damaged(String),
}

/// Writes a checkpoint of collection `generation.collection` to `path`, atomically: whole to
/// `path` with the extension `tmp`, synced, renamed over `path`, and the directory synced. A
/// failed write removes its temporary file. `marks` must be in strictly increasing `seq` order.
pub fn write_checkpoint(
    path: &Path,
    generation: Generation,
    marks: &[(u64, u64)],
    payload: &[u8],
) -> std::io::Result<()> {
    let _span = tracing::debug_span!(
        "write_checkpoint",
        collection = generation.collection,
        ads = marks.len()
    )
    .entered();
    if marks.windows(2).any(|w| w[0].0 >= w[1].0) {
        return Err(std::io::Error::other("checkpoint marks out of order"));
    }
    let mut head = Vec::with_capacity(32);
    head.extend_from_slice(&generation.collection.to_le_bytes());
    head.extend_from_slice(&0u32.to_le_bytes());
    head.extend_from_slice(&generation.writes.to_le_bytes());
    head.extend_from_slice(&(marks.len() as u64).to_le_bytes());
    head.extend_from_slice(&(payload.len() as u64).to_le_bytes());
    let mut body = Vec::with_capacity(marks.len() * MARK);
    for &(seq, rev) in marks {
        body.extend_from_slice(&seq.to_le_bytes());
        body.extend_from_slice(&rev.to_le_bytes());
    }
    let mut crc = crc32fast::Hasher::new();
    crc.update(&head);
    crc.update(&body);
    crc.update(payload);
    let tmp = path.with_extension("tmp");
    let written = (|| {
        if let Some(d) = path.parent() {
            std::fs::create_dir_all(d)?;
        }
        let mut f = std::io::BufWriter::new(std::fs::File::create(&tmp)?);
        f.write_all(MAGIC)?;
        f.write_all(&head)?;
        f.write_all(&crc.finalize().to_le_bytes())?;
        f.write_all(&0u32.to_le_bytes())?;
        f.write_all(&body)?;
        f.write_all(payload)?;
        let f = f.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = written {
        // A partial file would only keep a full disk full.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename itself durable: sync the directory (where the platform allows opening one).
    if let Some(Ok(d)) = path.parent().map(std::fs::File::open) {
        let _ = d.sync_all();
    }
    Ok(())
}

/// A checkpoint file, mapped and checked ([`Checkpoint::open`]).
#[derive(Debug)]
pub struct Checkpoint {
    file: Mapped,
    generation: Generation,
    count: usize,
}

fn le64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = b.get(at..at + 8) {
        a.copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}

fn le32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    if let Some(s) = b.get(at..at + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a)
}

impl Checkpoint {
    /// Maps the checkpoint at `path` and checks its magic, lengths and CRC-32.
    pub fn open(path: &Path) -> Result<Checkpoint, CheckpointError> {
        let _span = tracing::debug_span!("open_checkpoint").entered();
        let file = Mapped::open(path)?;
        let b = file.bytes();
        let bad = |m: String| Err(CheckpointError::Damaged(m));
        if b.len() < HEAD || &b[..8] != MAGIC {
            return bad("not a checkpoint of this version".into());
        }
        let count = le64(b, 24);
        let payload = le64(b, 32);
        let want = count
            .checked_mul(MARK as u64)
            .and_then(|m| m.checked_add(payload))
            .and_then(|m| m.checked_add(HEAD as u64));
        if want != Some(b.len() as u64) {
            return bad(format!(
                "{} bytes, the header says {count} marks and {payload} payload bytes",
                b.len()
            ));
        }
        let mut crc = crc32fast::Hasher::new();
        crc.update(&b[8..40]);
        crc.update(&b[HEAD..]);
        if crc.finalize() != le32(b, 40) {
            return bad("checksum mismatch".into());
        }
        let generation = Generation {
            collection: le32(b, 8),
            writes: le64(b, 16),
        };
        let count = usize::try_from(count).map_err(|_| CheckpointError::Damaged("size".into()))?;
        let c = Checkpoint {
            file,
            generation,
            count,
        };
        if c.marks().zip(c.marks().skip(1)).any(|(a, b)| a.0 >= b.0) {
            return bad("marks out of order".into());
        }
        Ok(c)
    }

    /// The generation of the collection the checkpoint was taken at (its ads may include
    /// writes committed after it and not yet durable; the marks say exactly what it holds).
    pub fn generation(&self) -> Generation {
        self.generation
    }

    /// How many ads it holds.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether it holds no ad.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The `(seq, revision)` of every ad it holds, in `seq` order, read in place.
    pub fn marks(&self) -> impl ExactSizeIterator<Item = (u64, u64)> + '_ {
        let b = self.file.bytes();
        (0..self.count).map(move |i| {
            let at = HEAD + i * MARK;
            (le64(b, at), le64(b, at + 8))
        })
    }

    /// The payload (the index's own snapshot), in place.
    pub fn payload(&self) -> &[u8] {
        let b = self.file.bytes();
        b.get(HEAD + self.count * MARK..).unwrap_or(&[])
    }
}

/// The difference between what a held index holds and what the store holds.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Difference {
    /// Held numbers to remove: gone from the store, or changed (then also in `added`).
    pub removed: Vec<u64>,
    /// Positions in the view's `ads` to read and add: new, or changed.
    pub added: Vec<usize>,
}

/// The difference between `held` (`(seq, revision)` in `seq` order) and the live records of
/// `view` (in `seq` order) that `keep` accepts (e.g. those not expired): one merge, no reads.
pub fn difference(
    held: impl Iterator<Item = (u64, u64)>,
    view: &[LiveAd],
    keep: impl Fn(&LiveAd) -> bool,
) -> Difference {
    let mut d = Difference::default();
    let mut live = view.iter().enumerate().filter(|(_, a)| keep(a)).peekable();
    for (seq, rev) in held {
        while let Some((i, a)) = live.next_if(|(_, a)| a.seq < seq) {
            let _ = a;
            d.added.push(i);
        }
        match live.next_if(|(_, a)| a.seq == seq) {
            Some((_, a)) if a.revision == rev => {}
            Some((i, _)) => {
                d.removed.push(seq);
                d.added.push(i);
            }
            None => d.removed.push(seq),
        }
    }
    d.added.extend(live.map(|(i, _)| i));
    d
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn g(writes: u64) -> Generation {
        Generation {
            collection: 3,
            writes,
        }
    }

    #[test]
    fn checkpoints_round_trip_and_damage_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("c3.snap");
        let marks = [(1u64, 10u64), (4, 40), (9, 90)];
        write_checkpoint(&p, g(7), &marks, b"payload").expect("write");
        let c = Checkpoint::open(&p).expect("open");
        assert_eq!(c.generation(), g(7));
        assert_eq!(c.marks().collect::<Vec<_>>(), marks);
        assert_eq!(c.payload(), b"payload");
        assert!(!p.with_extension("tmp").exists());
        let good = std::fs::read(&p).expect("bytes");
        for (what, bytes) in [
            ("truncated", good[..good.len() - 1].to_vec()),
            ("empty", Vec::new()),
            ("flipped mark", {
                let mut b = good.clone();
                b[HEAD + 3] ^= 1;
                b
            }),
            ("flipped payload", {
                let mut b = good.clone();
                let last = b.len() - 1;
                b[last] ^= 1;
                b
            }),
            ("other magic", {
                let mut b = good.clone();
                b[7] = 9;
                b
            }),
        ] {
            std::fs::write(&p, &bytes).expect("write");
            assert!(Checkpoint::open(&p).is_err(), "{what}");
        }
        assert!(matches!(
            Checkpoint::open(&dir.path().join("none")),
            Err(CheckpointError::Io(_))
        ));
        assert!(write_checkpoint(&p, g(1), &[(2, 0), (2, 1)], b"").is_err());
    }

    fn ad(seq: u64, revision: u64) -> LiveAd {
        LiveAd {
            seq,
            id: format!("a{seq}").into(),
            revision,
            expires: None,
        }
    }

    #[test]
    fn differences_are_found_by_one_merge() {
        let view = [ad(1, 1), ad(2, 9), ad(5, 5), ad(7, 7)];
        for (held, keep_all, removed, added) in [
            (vec![], true, vec![], vec![0, 1, 2, 3]),
            (
                vec![(1, 1), (2, 2), (3, 3)],
                true,
                vec![2, 3],
                vec![1, 2, 3],
            ),
            (vec![(1, 1), (2, 9), (5, 5), (7, 7)], true, vec![], vec![]),
            (vec![(1, 1), (2, 9), (5, 5), (7, 7)], false, vec![5], vec![]),
            (vec![(0, 0), (8, 8)], true, vec![0, 8], vec![0, 1, 2, 3]),
        ] {
            let keep = |a: &LiveAd| keep_all || a.seq != 5;
            let d = difference(held.into_iter(), &view, keep);
            assert_eq!((d.removed, d.added), (removed, added));
        }
    }

    #[test]
    fn observers_are_told_each_commit_in_order() {
        use crate::backend::MemStore;
        use crate::{AdStore, Durability, NewMatch, NewMember, PutOptions, StoreOptions};
        use parking_lot::Mutex;
        use std::sync::Arc;

        #[derive(Default)]
        struct Log(Mutex<Vec<String>>);
        impl CommitObserver for Log {
            fn committed(&self, changes: &[Committed<'_>]) {
                let mut log = self.0.lock();
                for c in changes {
                    let what = match c.change {
                        Change::Stored { expires, .. } => format!("stored {expires:?}"),
                        Change::Gone => "gone".into(),
                    };
                    log.push(format!("{} {} #{} {what}", c.collection, c.id, c.seq));
                }
                log.push("|".into());
            }
        }
        let store =
            AdStore::open(Arc::new(MemStore::new()), StoreOptions::default()).expect("open");
        let log = Arc::new(Log::default());
        store.observe(log.clone());
        let ad = |t: &str| adjoin_query::parse::classad(t).expect("ad");
        let p = PutOptions::default();
        let a = store
            .put("m", &ad("[Name = \"a\"; X = 1]"), &p)
            .expect("put");
        store.put("m", &ad("[Name = \"b\"]"), &p).expect("put");
        let a2 = store
            .put("m", &ad("[Name = \"a\"; X = 2]"), &p)
            .expect("replace");
        assert_eq!((a.seq, a2.seq), (1, 1));
        assert_ne!(a.revision, a2.revision);
        store
            .remove("m", "b", Durability::Immediate)
            .expect("remove");
        let member = NewMember {
            collection: "m".into(),
            id: "a".into(),
            rank: None,
            consume: true,
        };
        store
            .record_match(&NewMatch {
                cycle: 1,
                members: vec![member],
            })
            .expect("match");
        assert_eq!(
            *log.0.lock(),
            [
                "m a #1 stored None",
                "|",
                "m b #2 stored None",
                "|",
                "m a #1 gone",
                "m a #1 stored None",
                "|",
                "m b #2 gone",
                "|",
                "m a #1 gone",
                "|",
            ]
        );
    }

    proptest! {
        /// Applying the difference to the held set gives the kept view.
        #[test]
        fn the_difference_brings_a_held_set_to_the_view(
            held in proptest::collection::btree_map(0u64..40, 0u64..3, 0..30),
            live in proptest::collection::btree_map(0u64..40, 0u64..3, 0..30),
            odd_only in any::<bool>(),
        ) {
            let view: Vec<LiveAd> = live.iter().map(|(&s, &r)| ad(s, r)).collect();
            let keep = |a: &LiveAd| !odd_only || a.seq % 2 == 1;
            let d = difference(held.iter().map(|(&s, &r)| (s, r)), &view, keep);
            let mut now = held.clone();
            for s in &d.removed {
                prop_assert!(now.remove(s).is_some());
            }
            for &i in &d.added {
                prop_assert!(now.insert(view[i].seq, view[i].revision).is_none());
            }
            let want: std::collections::BTreeMap<u64, u64> =
                view.iter().filter(|a| keep(a)).map(|a| (a.seq, a.revision)).collect();
            prop_assert_eq!(now, want);
        }
    }
}
