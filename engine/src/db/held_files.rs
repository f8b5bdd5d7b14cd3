//! Held-index checkpoints: a collection's held index ([`super::indexes`]) written beside the
//! store, so that a restart (after a close or a kill) restores it instead of reading and
//! converting every ad.
//!
//! One file per collection, `adjoin-index/c<collection number>.snap` inside the database's
//! directory, in the store's checkpoint container (`adjoin_storage::write_checkpoint`,
//! docs/storage-format.md, "Held indexes"): the `(seq, revision)` of every ad the index
//! holds, then this module's payload: the tag [`TAG`] (payload layout 2), then bincode
//! (fixed-width integers) of [`Payload`]: the options the ads were converted with, the ads with
//! ports, and the index's own [`IndexSnapshot`] (its columns). A payload without the tag is of
//! layout 1 (the same, the snapshot being an [`IndexSnapshotV1`], a list of units), which is
//! still read and converted. Ids and expiries are not in it: the store's live view gives them. A
//! reader that finds anything wrong (magic, length, checksum, decoding, other options) ignores
//! the file and the index is built from the store. The store stays the only source of truth: a
//! checkpoint is a cache of it.

use adjoin_index::{AdId, IndexOptions, IndexSnapshot, IndexSnapshotV1};
use bincode::Options;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The version of how ads are converted (profiles, rectangles, mangling, imported values):
/// raise it with any change there, so that snapshots of older conversions are not restored.
pub(crate) const CONVERSION: u32 = 1;

/// What a snapshot was converted under: a restore with other options would index differently.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct OptionsStamp {
    /// [`CONVERSION`] of the build that wrote it.
    conversion: u32,
    target_fallback: bool,
    now: Option<i64>,
    tz_offset: Option<i32>,
    max_depth: u32,
    max_work: u64,
    profile_cap: u64,
    rectangle_cap: u64,
}

impl OptionsStamp {
    pub(crate) fn of(o: &IndexOptions) -> OptionsStamp {
        OptionsStamp {
            conversion: CONVERSION,
            target_fallback: o.eval.target_fallback,
            now: o.eval.now,
            tz_offset: o.eval.tz_offset,
            max_depth: o.eval.max_depth,
            max_work: o.eval.max_work,
            profile_cap: o.profile_cap as u64,
            rectangle_cap: o.rectangle_cap as u64,
        }
    }
}

/// The payload of a checkpoint file (after the store's marks).
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Payload {
    pub(crate) options: OptionsStamp,
    /// The ads with ports.
    pub(crate) ported: Vec<AdId>,
    pub(crate) index: IndexSnapshot,
}

/// The payload layout this build writes.
pub(crate) const LAYOUT: u32 = 2;

/// The first bytes of a payload of layout 2 (a layout-1 payload starts with
/// [`CONVERSION`] as a `u32`, never with these).
pub(crate) const TAG: &[u8; 8] = b"ADJIDX\x00\x02";

/// The payload of a checkpoint file of layout 1 (read only).
#[derive(Debug, Deserialize)]
struct PayloadV1 {
    options: OptionsStamp,
    ported: Vec<AdId>,
    index: IndexSnapshotV1,
}

/// The directory of a database's snapshots.
pub(crate) fn dir(db: &Path) -> PathBuf {
    db.join("adjoin-index")
}

/// The file of collection number `c`.
pub(crate) fn path(db: &Path, c: u32) -> PathBuf {
    dir(db).join(format!("c{c}.snap"))
}

fn codec() -> impl Options {
    bincode::DefaultOptions::new()
        .with_fixint_encoding()
        .allow_trailing_bytes()
}

/// The payload's bytes (layout 2: the tag, then the payload).
pub(crate) fn encode(p: &Payload) -> std::io::Result<Vec<u8>> {
    let mut out = TAG.to_vec();
    codec()
        .serialize_into(&mut out, p)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(out)
}

/// The payload in `bytes`, if it decodes: of layout 2, or of layout 1 converted; and its
/// layout (2 or 1).
pub(crate) fn decode(bytes: &[u8]) -> Result<(Payload, u32), String> {
    let limit = bytes.len() as u64;
    match bytes.strip_prefix(TAG.as_slice()) {
        Some(rest) => codec()
            .with_limit(limit)
            .deserialize(rest)
            .map(|p| (p, LAYOUT))
            .map_err(|e| e.to_string()),
        None => {
            let v1: PayloadV1 = codec()
                .with_limit(limit)
                .deserialize(bytes)
                .map_err(|e| format!("layout 1: {e}"))?;
            let p = Payload {
                options: v1.options,
                ported: v1.ported,
                index: IndexSnapshot::from(v1.index),
            };
            Ok((p, 1))
        }
    }
}

/// Removes the temporary files of snapshot writes that were interrupted (a kill, a full
/// disk). Called at open, under the database's lock.
pub(crate) fn remove_temporaries(db: &Path) {
    let Ok(entries) = std::fs::read_dir(dir(db)) else {
        return;
    };
    for entry in entries.flatten() {
        if entry.path().extension().is_some_and(|x| x == "tmp") {
            tracing::warn!(path = %entry.path().display(), "removing an interrupted index snapshot");
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_storage::{write_checkpoint, Checkpoint, Generation};

    fn sample() -> Payload {
        Payload {
            options: OptionsStamp::of(&IndexOptions::default()),
            ported: vec![2],
            index: IndexSnapshot::default(),
        }
    }

    #[test]
    fn interrupted_writes_leave_no_temporaries() {
        let dir = tempfile::tempdir().expect("tempdir");
        let g = Generation {
            collection: 1,
            writes: 1,
        };
        let bytes = encode(&sample()).expect("encode");
        write_checkpoint(&path(dir.path(), 1), g, &[], &bytes).expect("write");
        let stale = path(dir.path(), 2).with_extension("tmp");
        std::fs::write(&stale, b"ADJCKPT partial").expect("stale");
        remove_temporaries(dir.path());
        assert!(!stale.exists());
        assert!(path(dir.path(), 1).exists(), "finished checkpoints stay");
        // A write that fails at its rename (the target is a directory) removes its file.
        std::fs::create_dir_all(path(dir.path(), 3).join("x")).expect("dir");
        assert!(write_checkpoint(&path(dir.path(), 3), g, &[], &bytes).is_err());
        assert!(!path(dir.path(), 3).with_extension("tmp").exists());
    }

    #[test]
    fn payloads_round_trip_and_damage_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let g = Generation {
            collection: 3,
            writes: 7,
        };
        let bytes = encode(&sample()).expect("encode");
        write_checkpoint(&path(dir.path(), 3), g, &[(2, 9)], &bytes).expect("write");
        let c = Checkpoint::open(&path(dir.path(), 3)).expect("open");
        let (back, layout) = decode(c.payload()).expect("decode");
        assert_eq!(layout, 2);
        assert_eq!((back.ported, back.options), (vec![2], sample().options));
        assert!(decode(&bytes[..bytes.len() - 1]).is_err(), "truncated");
        assert!(decode(&[]).is_err(), "empty");
    }
}
