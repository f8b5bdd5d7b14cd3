//! Files read through a memory map: the one module of this crate that allows `unsafe`.
//!
//! A held index's checkpoint (`held.rs`) is tens of megabytes at a million ads, most of it
//! arrays read once, front to back, at restore. Mapping the file instead of reading it into
//! a buffer saves the copy (and the allocation of the whole file) and lets the restore read
//! the arrays in place.
//!
//! **Safety argument.** `Mmap::map` is `unsafe` because the mapped bytes may change, or
//! vanish (`SIGBUS`), if another process modifies or truncates the file while it is mapped;
//! Rust's aliasing rules assume a `&[u8]` does not change under it. The files mapped here are
//! checkpoint files, which are never modified in place: a checkpoint is written whole to a
//! temporary name and renamed over the old one (`held::write`), so a mapping always keeps
//! the old file's inode and its bytes, which nothing writes again; and only this process
//! writes them while it holds the database's exclusive lock (sled's `flock`, taken by every
//! open). A database that opens maps its checkpoints before sled takes that lock (to restore
//! them while sled opens): another process holding the lock may then still replace a file,
//! which again only renames a new inode over the name; the mapping keeps the old, complete
//! file, whose marks and payload belong together (and if that process keeps the lock, the
//! open fails and the mapping is dropped). A file damaged on disk reads as wrong bytes, which
//! the checkpoint's CRC-32 finds before anything is trusted. What remains is a user truncating the file by hand while the
//! database is open, which is outside the contract (as is editing sled's own files). The map
//! is read-only (`PROT_READ`), and no pointer into it outlives the [`Mapped`] value that owns it
//! (every slice borrows from it).

#![allow(unsafe_code)]

use std::fs::File;
use std::path::Path;

/// A whole file, read-only, mapped into memory (or read into a buffer when it is empty, which
/// cannot be mapped).
#[derive(Debug)]
pub(crate) struct Mapped {
    map: Option<memmap2::Mmap>,
}

impl Mapped {
    /// Maps the file at `path`.
    pub(crate) fn open(path: &Path) -> std::io::Result<Mapped> {
        let file = File::open(path)?;
        if file.metadata()?.len() == 0 {
            return Ok(Mapped { map: None });
        }
        // SAFETY: see the module's safety argument: checkpoint files are replaced by rename,
        // never written in place, and only under the database's exclusive lock.
        let map = unsafe { memmap2::Mmap::map(&file)? };
        Ok(Mapped { map: Some(map) })
    }

    /// The file's bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.map.as_deref().unwrap_or(&[])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn maps_files_and_empty_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        for content in [&b""[..], b"x", &[7u8; 10_000]] {
            let p = dir.path().join("f");
            std::fs::write(&p, content).expect("write");
            assert_eq!(Mapped::open(&p).expect("map").bytes(), content);
        }
        assert!(Mapped::open(&dir.path().join("missing")).is_err());
    }
}
