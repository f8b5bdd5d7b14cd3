//! Index snapshot files: a collection's held index ([`super::indexes`]) written beside the
//! store, so that a restart restores it instead of reading and converting every ad.
//!
//! One file per collection, `adjoin-index/c<collection number>.snap` inside the database's
//! directory:
//!
//! ```text
//! magic "ADJIDX\0\x01" (8 bytes) ‖ payload length u64 LE ‖ payload CRC-32 u32 LE ‖ payload
//! ```
//!
//! The payload is bincode [`SnapshotFile`]: the store generation it reflects, the options it
//! was converted with, the ids by index number, expiries, the ads with ports, and the index's
//! own [`IndexSnapshot`]. A file is written whole to a temporary name, synced, and renamed
//! over the old one; a reader that finds anything wrong (magic, length, checksum, decoding,
//! another generation or other options) ignores the file and the index is rebuilt from the
//! store. The store stays the only source of truth: a snapshot is a cache of it.

use adjoin_index::{AdId, IndexOptions, IndexSnapshot};
use adjoin_storage::Generation;
use bincode::Options;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 8] = b"ADJIDX\0\x01";

/// The version of how ads are converted (profiles, rectangles, mangling, imported values):
/// raise it with any change there, so that snapshots of older conversions are not restored.
pub(crate) const CONVERSION: u32 = 1;
const HEAD: usize = 8 + 8 + 4;

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

/// The payload of a snapshot file.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct SnapshotFile {
    pub(crate) generation: Generation,
    pub(crate) options: OptionsStamp,
    /// Stored ids by index number (`None`: a number no longer in use).
    pub(crate) ids: Vec<Option<String>>,
    /// `(index number, expiry)` of the ads that expire.
    pub(crate) expires: Vec<(AdId, i64)>,
    /// The ads with ports.
    pub(crate) ported: Vec<AdId>,
    /// Ads that could not be read when the index was built (not indexed), as messages.
    pub(crate) damaged: Vec<String>,
    pub(crate) index: IndexSnapshot,
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

/// Writes `snap` as collection `c`'s snapshot, atomically.
pub(crate) fn write(db: &Path, c: u32, snap: &SnapshotFile) -> std::io::Result<()> {
    let _span = tracing::debug_span!("write_snapshot", collection = c).entered();
    let payload = codec()
        .serialize(snap)
        .map_err(|e| std::io::Error::other(e.to_string()))?;
    let d = dir(db);
    std::fs::create_dir_all(&d)?;
    let target = path(db, c);
    let tmp = target.with_extension("tmp");
    let written = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(MAGIC)?;
        f.write_all(&(payload.len() as u64).to_le_bytes())?;
        f.write_all(&crc32fast::hash(&payload).to_le_bytes())?;
        f.write_all(&payload)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &target)
    })();
    if let Err(e) = written {
        // A partial file would only keep a full disk full.
        let _ = std::fs::remove_file(&tmp);
        return Err(e);
    }
    // The rename itself durable: sync the directory (where the platform allows opening one).
    if let Ok(dirf) = std::fs::File::open(&d) {
        let _ = dirf.sync_all();
    }
    Ok(())
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

/// Collection `c`'s snapshot, if a readable one exists; why not, otherwise.
pub(crate) fn read(db: &Path, c: u32) -> Result<SnapshotFile, String> {
    let _span = tracing::debug_span!("read_snapshot", collection = c).entered();
    let bytes = std::fs::read(path(db, c)).map_err(|e| e.to_string())?;
    decode(&bytes)
}

/// The generation collection `c`'s snapshot says it reflects, read from its first bytes only
/// (a hint: [`read`] checks the whole file).
pub(crate) fn generation(db: &Path, c: u32) -> Option<Generation> {
    use std::io::Read;
    let mut head = [0u8; HEAD + 12];
    std::fs::File::open(path(db, c))
        .ok()?
        .read_exact(&mut head)
        .ok()?;
    if &head[..8] != MAGIC {
        return None;
    }
    codec().deserialize(&head[HEAD..]).ok()
}

fn decode(bytes: &[u8]) -> Result<SnapshotFile, String> {
    if bytes.len() < HEAD || &bytes[..8] != MAGIC {
        return Err("not an index snapshot of this version".into());
    }
    let len = u64::from_le_bytes(bytes[8..16].try_into().map_err(|_| "short header")?);
    let crc = u32::from_le_bytes(bytes[16..20].try_into().map_err(|_| "short header")?);
    let payload = &bytes[HEAD..];
    if payload.len() as u64 != len {
        return Err(format!(
            "{} payload bytes, header says {len}",
            payload.len()
        ));
    }
    if crc32fast::hash(payload) != crc {
        return Err("checksum mismatch".into());
    }
    codec()
        .with_limit(len)
        .deserialize(payload)
        .map_err(|e| e.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> SnapshotFile {
        SnapshotFile {
            generation: Generation {
                collection: 3,
                writes: 7,
            },
            options: OptionsStamp::of(&IndexOptions::default()),
            ids: vec![Some("a".into()), None, Some("c".into())],
            expires: vec![(2, 1000)],
            ported: vec![],
            damaged: vec![],
            index: IndexSnapshot::default(),
        }
    }

    #[test]
    fn interrupted_writes_leave_no_temporaries() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), 1, &sample()).expect("write");
        let stale = path(dir.path(), 2).with_extension("tmp");
        std::fs::write(&stale, b"ADJIDX partial").expect("stale");
        remove_temporaries(dir.path());
        assert!(!stale.exists());
        assert!(path(dir.path(), 1).exists(), "finished snapshots stay");
        // A write that fails at its rename (the target is a directory) removes its file.
        std::fs::create_dir_all(path(dir.path(), 3).join("x")).expect("dir");
        assert!(write(dir.path(), 3, &sample()).is_err());
        assert!(!path(dir.path(), 3).with_extension("tmp").exists());
    }

    #[test]
    fn files_round_trip_and_damage_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), 3, &sample()).expect("write");
        let back = read(dir.path(), 3).expect("read");
        assert_eq!((back.generation, back.ids.len()), (sample().generation, 3));
        let file = path(dir.path(), 3);
        let good = std::fs::read(&file).expect("bytes");
        for (what, bytes) in [
            ("truncated", good[..good.len() - 1].to_vec()),
            ("empty", Vec::new()),
            ("flipped", {
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
            assert!(decode(&bytes).is_err(), "{what}");
        }
        assert!(read(dir.path(), 4).is_err(), "missing");
    }
}
