//! The acknowledged-writes mark: a small file beside sled's (`DIR/adjoin-mark`) recording how
//! many writes had been made durable when a flush last returned.
//!
//! sled numbers nothing it recovers, and a damaged record in the middle of its log looks to its
//! recovery like the torn tail of a crash: it keeps the log up to there and drops the rest, so
//! acknowledged writes could vanish without a word. The store therefore counts its writes in
//! sled itself (one counter, updated after each write, so the recovered counter says how far
//! the recovered log goes: sled keeps a prefix of its log) and, after every flush, records the
//! count it made durable here. At open a recovered count below the mark means acknowledged
//! writes were lost: the open fails with the damage.
//!
//! Format: two 24-byte slots (`b"adjmark1"`, the count as a little-endian `u64`, the CRC-32 of
//! those 16 bytes, 4 zero bytes); a record goes to slot `count % 2` and is synced, so a torn
//! write leaves the other slot, one record older, valid. The mark is the larger valid count.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;
use std::sync::Mutex;

/// The file's name in the database directory.
pub const MARK_FILE: &str = "adjoin-mark";

const MAGIC: &[u8; 8] = b"adjmark1";
const SLOT: usize = 24;

/// An open mark file and the largest count recorded in it.
#[derive(Debug)]
pub struct Mark {
    file: Mutex<(File, u64)>,
}

fn slot_bytes(count: u64) -> [u8; SLOT] {
    let mut b = [0u8; SLOT];
    b[..8].copy_from_slice(MAGIC);
    b[8..16].copy_from_slice(&count.to_le_bytes());
    let crc = crc32fast::hash(&b[..16]);
    b[16..20].copy_from_slice(&crc.to_le_bytes());
    b
}

/// The count a slot holds, if it is whole.
fn read_slot(b: &[u8]) -> Option<u64> {
    let b = b.get(..SLOT)?;
    if &b[..8] != MAGIC {
        return None;
    }
    let crc = u32::from_le_bytes(b[16..20].try_into().ok()?);
    if crc != crc32fast::hash(&b[..16]) {
        return None;
    }
    Some(u64::from_le_bytes(b[8..16].try_into().ok()?))
}

/// The count the mark of the database in `dir` holds, read without writing (`None`: no mark,
/// or none readable).
pub fn read(dir: &Path) -> Option<u64> {
    recorded(&std::fs::read(dir.join(MARK_FILE)).ok()?)
}

/// The larger whole count of the two slots in `bytes`.
fn recorded(bytes: &[u8]) -> Option<u64> {
    bytes.chunks(SLOT).take(2).filter_map(read_slot).max()
}

impl Mark {
    /// Opens (or creates) the mark of the database in `dir`; also the count it holds (`None`:
    /// no mark yet, or none readable).
    pub fn open(dir: &Path) -> std::io::Result<(Mark, Option<u64>)> {
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(dir.join(MARK_FILE))?;
        let mut bytes = Vec::with_capacity(2 * SLOT);
        Read::by_ref(&mut file)
            .take(2 * SLOT as u64)
            .read_to_end(&mut bytes)?;
        let count = recorded(&bytes);
        if bytes.len() < 2 * SLOT {
            // Room for both slots now, so that recording never needs a new block.
            file.set_len(2 * SLOT as u64)?;
            file.sync_all()?;
        }
        Ok((
            Mark {
                file: Mutex::new((file, count.unwrap_or(0))),
            },
            count,
        ))
    }

    /// Records `count` (made durable) unless a larger one is recorded already.
    pub fn record(&self, count: u64) -> std::io::Result<()> {
        let mut guard = self
            .file
            .lock()
            .map_err(|_| std::io::Error::other("the mark's lock was poisoned"))?;
        let (file, recorded) = &mut *guard;
        if count <= *recorded {
            return Ok(());
        }
        file.seek(SeekFrom::Start((count % 2) * SLOT as u64))?;
        file.write_all(&slot_bytes(count))?;
        file.sync_data()?;
        *recorded = count;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_survive_reopening_and_a_torn_slot() {
        let dir = tempfile::tempdir().expect("tempdir");
        let (m, c) = Mark::open(dir.path()).expect("open");
        assert_eq!(c, None);
        m.record(5).expect("record");
        m.record(3).expect("record"); // older: ignored
        m.record(6).expect("record");
        drop(m);
        let (_, c) = Mark::open(dir.path()).expect("reopen");
        assert_eq!(c, Some(6));
        // Tear the newer slot (count 6 is in slot 0): the older record stands.
        let path = dir.path().join(MARK_FILE);
        let mut bytes = std::fs::read(&path).expect("read");
        bytes[9] ^= 0xff;
        std::fs::write(&path, &bytes).expect("write");
        let (_, c) = Mark::open(dir.path()).expect("reopen");
        assert_eq!(c, Some(5));
    }
}
