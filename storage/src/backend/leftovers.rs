//! What an interrupted or full-disk open of sled 0.34 can leave in a database directory, and
//! its removal before the next open ([`recover`]).
//!
//! Read from sled 0.34.7's recovery code (`config.rs`, `pagecache/snapshot.rs`,
//! `pagecache/blob_io.rs`):
//! - **`snap.<lsn>.generating`**: every open whose log moved on since the last snapshot writes
//!   a new one to this name, syncs it, and renames it to `snap.<lsn>`. A kill or a full disk
//!   before the rename leaves it, partial or whole. sled's next open takes the *last* `snap.*`
//!   name in sorted order (skipping only `.in___motion`), which is this one (`.generating`
//!   sorts after its own finished name), and fails on a partial one with "corrupted data"
//!   though nothing is lost. Removed: the finished snapshots and the log still hold everything.
//! - **A damaged `snap.<lsn>`** (its length or CRC-32 wrong; sled checks both and refuses to
//!   open): removed, so sled takes the previous snapshot or, with none, rebuilds from the log,
//!   which holds every page (a snapshot only saves reading all of it).
//! - **A damaged `conf`**: written once, at creation, without a rename; a kill or full disk
//!   while writing leaves a short file that sled cannot parse ("corrupted data"). A `conf` whose
//!   CRC-32 fails is removed; sled writes it again from the open's own settings, which are the
//!   same for every adjoin database (a `conf` of other settings with a good checksum is kept,
//!   and sled refuses it).
//! - **Blobs** (`blobs/<lsn>`) above the last stable log position, partial or not: sled removes
//!   them itself at open. A torn tail of the log (`db`): sled zeroes it itself at open.
//!
//! All of this runs under the database's lock (the `flock` sled takes on `db`), so it never
//! touches the files of a process that has the database open.

use crate::error::StoreError;
use std::path::{Path, PathBuf};

/// The length of sled's snapshot trailer (decompressed length u64, CRC-32 u32) and of its
/// `conf` trailer (CRC-32 u32).
const SNAP_TRAILER: usize = 12;
const CONF_TRAILER: usize = 4;

/// What `recover` removed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Recovered {
    /// The files removed, with why.
    pub removed: Vec<(PathBuf, &'static str)>,
}

/// Removes the leftovers of interrupted opens from the sled database in `dir` (see the
/// module's documentation). Does nothing when the directory holds no database, or when
/// another process holds its lock (that process's open is under way or done; sled's own open
/// then reports the database in use).
pub fn recover(dir: &Path) -> Result<Recovered, StoreError> {
    use fs2::FileExt;
    let io = |what: &str, source: std::io::Error| StoreError::Io {
        context: format!("{what} in {}", dir.display()),
        source,
    };
    let mut done = Recovered::default();
    let lock = match std::fs::File::open(dir.join("db")) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(done),
        Err(e) => return Err(io("opening the lock file", e)),
    };
    if lock.try_lock_exclusive().is_err() {
        return Ok(done);
    }
    let entries = std::fs::read_dir(dir).map_err(|e| io("listing files", e))?;
    let mut snaps = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|e| io("listing files", e))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.starts_with("snap.") || name.ends_with(".in___motion") {
            continue;
        }
        if name.ends_with(".generating") {
            done.removed
                .push((entry.path(), "a snapshot whose writing was interrupted"));
        } else {
            snaps.push(entry.path());
        }
    }
    for snap in snaps {
        let bytes = std::fs::read(&snap).map_err(|e| io("reading a snapshot", e))?;
        if !trailer_crc_holds(&bytes, SNAP_TRAILER) {
            done.removed
                .push((snap, "a snapshot with a wrong length or checksum"));
        }
    }
    let conf = dir.join("conf");
    match std::fs::read(&conf) {
        // sled rewrites a conf of 8 bytes or fewer itself.
        Ok(bytes) if bytes.len() > 8 && !trailer_crc_holds(&bytes, CONF_TRAILER) => {
            done.removed
                .push((conf, "a settings file with a wrong checksum"));
        }
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(io("reading the settings file", e)),
    }
    for (path, why) in &done.removed {
        tracing::warn!(path = %path.display(), why, "removing a leftover of an interrupted open");
        match std::fs::remove_file(path) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io("removing a leftover", e)),
        }
    }
    if !done.removed.is_empty() {
        if let Ok(d) = std::fs::File::open(dir) {
            let _ = d.sync_all();
        }
    }
    let _ = FileExt::unlock(&lock);
    Ok(done)
}

/// True when `bytes` ends in a trailer of `trailer` bytes whose last four are the CRC-32 (LE)
/// of what precedes the trailer, as sled writes its snapshots (`trailer` 12: length, CRC) and
/// its `conf` (`trailer` 4: CRC).
fn trailer_crc_holds(bytes: &[u8], trailer: usize) -> bool {
    let Some(body_len) = bytes.len().checked_sub(trailer) else {
        return false;
    };
    if body_len == 0 && trailer == SNAP_TRAILER {
        return false; // sled refuses a snapshot of 12 bytes or fewer
    }
    let (body, rest) = bytes.split_at(body_len);
    let Some(crc) = rest.get(rest.len() - 4..) else {
        return false;
    };
    crc32fast::hash(body).to_le_bytes() == crc
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with_crc(body: &[u8], extra: &[u8]) -> Vec<u8> {
        let mut v = body.to_vec();
        v.extend_from_slice(extra);
        v.extend_from_slice(&crc32fast::hash(body).to_le_bytes());
        v
    }

    #[test]
    fn trailers() {
        let snap = with_crc(b"pages", &[5, 0, 0, 0, 0, 0, 0, 0]);
        let conf = with_crc(b"segment_size: 1\n", &[]);
        for (bytes, trailer, want) in [
            (snap.clone(), SNAP_TRAILER, true),
            (snap[..snap.len() - 1].to_vec(), SNAP_TRAILER, false),
            (snap[1..].to_vec(), SNAP_TRAILER, false),
            (Vec::new(), SNAP_TRAILER, false),
            (with_crc(b"", &[0; 8]), SNAP_TRAILER, false),
            (conf.clone(), CONF_TRAILER, true),
            (conf[..conf.len() - 2].to_vec(), CONF_TRAILER, false),
            (vec![1, 2], CONF_TRAILER, false),
        ] {
            assert_eq!(trailer_crc_holds(&bytes, trailer), want, "{bytes:?}");
        }
    }
}
