//! The reserve: a file of set-aside space in the database directory (`adjoin-reserve`), so
//! that a database on a full file system can still be opened.
//!
//! sled cannot open a database without writing: an open whose log moved on since the last
//! snapshot writes a new snapshot (`snap.<lsn>`) before it reads anything, and sled has no
//! read-only mode. On a full file system that write fails with "No space left on device" and
//! every command, reads included, would fail at open. So each open that can makes sure the
//! reserve exists (allocated, not sparse); an open that fails for want of space removes it
//! and tries once more, which then has the reserve's room for the snapshot. An open that
//! cannot make the reserve refuses writes ([`crate::StoreError::Full`]) and serves reads, so
//! what the reserve freed stays for later opens; the reserve, and writes, come back at the
//! first open after space returns. Its size is [`super::SledOptions::reserve`]:
//! sled's snapshot holds a few bytes per page (3 KB for 16,000 ads), so the default (2 MiB)
//! leaves room for many opens.

use std::path::{Path, PathBuf};

/// The reserve file of the database in `dir`.
pub(crate) fn path(dir: &Path) -> PathBuf {
    dir.join("adjoin-reserve")
}

/// Makes sure the reserve of `bytes` exists; true when it does (or none is wanted). When the
/// space is not there, leaves none (a partial reserve is removed) and says so in the log.
pub(crate) fn ensure(dir: &Path, bytes: u64) -> bool {
    use fs2::FileExt;
    if bytes == 0 {
        return true;
    }
    let p = path(dir);
    if std::fs::metadata(&p).is_ok_and(|m| m.len() >= bytes) {
        return true;
    }
    let made = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&p)
        .and_then(|f| f.allocate(bytes).and_then(|()| f.sync_all()));
    match made {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(path = %p.display(), error = %e, "no room for the reserve");
            let _ = std::fs::remove_file(&p);
            false
        }
    }
}

/// Removes the reserve, giving its space back; true when there was one.
pub(crate) fn release(dir: &Path) -> bool {
    let p = path(dir);
    let had = std::fs::remove_file(&p).is_ok();
    if had {
        tracing::warn!(path = %p.display(), "file system full: the reserve is released");
    }
    had
}

/// True when `e` says the file system is full.
pub(crate) fn is_full(e: &std::io::Error) -> bool {
    e.kind() == std::io::ErrorKind::StorageFull || e.raw_os_error() == Some(28)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_is_made_once_and_released() {
        let dir = tempfile::tempdir().expect("tempdir");
        assert!(ensure(dir.path(), 4096));
        let len = |d: &Path| std::fs::metadata(path(d)).map(|m| m.len()).ok();
        assert_eq!(len(dir.path()), Some(4096));
        assert!(ensure(dir.path(), 4096));
        assert_eq!(len(dir.path()), Some(4096));
        assert!(release(dir.path()));
        assert!(!release(dir.path()));
        assert!(ensure(dir.path(), 0));
        assert_eq!(len(dir.path()), None);
        assert!(is_full(&std::io::Error::from_raw_os_error(28)));
        assert!(!is_full(&std::io::Error::from_raw_os_error(2)));
    }
}
