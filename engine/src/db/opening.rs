//! How a [`Db`](super::Db) gets its directory: at most one open per path in a process (a
//! second open says so instead of blaming another process), and read-only opens of databases
//! whose files cannot be written.
//!
//! sled cannot open a database without write access: it takes an exclusive lock on, and
//! writes to, its files on open. A read-only open therefore copies the directory into a
//! private temporary directory (removed when the `Db` goes) and opens the copy, refusing every
//! write. The copy is as consistent as the files are while it is made: nobody can be writing
//! them if they are not writable, but a writer holding the lock with write access while a
//! reader without it copies would give the reader a torn copy (sled recovers its log up to
//! the last complete flush, so the reader sees an older state, or reports damage).

use parking_lot::Mutex;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// The database directories open in this process, canonicalized.
static OPEN: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);

/// A claim on a database directory for this process; released when dropped.
#[derive(Debug)]
pub(crate) struct Claim {
    path: PathBuf,
}

impl Claim {
    /// Claims `path` (an existing directory, or one about to be made). `None` when this
    /// process already has it open.
    pub(crate) fn take(path: &Path) -> Option<Claim> {
        let path = canonical(path);
        let mut open = OPEN.lock();
        let set = open.get_or_insert_with(HashSet::new);
        if !set.insert(path.clone()) {
            return None;
        }
        drop(open);
        Some(Claim { path })
    }
}

impl Drop for Claim {
    fn drop(&mut self) {
        if let Some(set) = OPEN.lock().as_mut() {
            set.remove(&self.path);
        }
    }
}

/// `path` made absolute and free of symlinks where it exists (its parent where it does not).
fn canonical(path: &Path) -> PathBuf {
    if let Ok(p) = path.canonicalize() {
        return p;
    }
    let abs = std::env::current_dir()
        .map(|d| d.join(path))
        .unwrap_or_else(|_| path.to_owned());
    match (abs.parent(), abs.file_name()) {
        (Some(parent), Some(name)) => parent
            .canonicalize()
            .map(|p| p.join(name))
            .unwrap_or(abs.clone()),
        _ => abs,
    }
}

/// True when a file of the database in `path` cannot be opened for writing (so that sled
/// cannot open it): the directory itself, or its `db` file or `conf`.
pub(crate) fn not_writable(path: &Path) -> bool {
    let writable = |p: &Path| {
        if p.is_dir() {
            // A directory is writable when a file can be made in it.
            let probe = p.join(format!(".adjoin-probe-{}", std::process::id()));
            match std::fs::File::create(&probe) {
                Ok(_) => {
                    let _ = std::fs::remove_file(&probe);
                    true
                }
                Err(_) => false,
            }
        } else {
            !p.exists() || std::fs::OpenOptions::new().append(true).open(p).is_ok()
        }
    };
    path.is_dir() && !(writable(path) && writable(&path.join("db")) && writable(&path.join("conf")))
}

/// A private copy of a database directory, removed when dropped.
#[derive(Debug)]
pub(crate) struct Copy {
    dir: PathBuf,
}

impl Copy {
    /// Copies the database in `from` (files and subdirectories) into a fresh directory under
    /// the temporary directory.
    pub(crate) fn of(from: &Path) -> std::io::Result<Copy> {
        static N: AtomicU64 = AtomicU64::new(0);
        let dir = std::env::temp_dir().join(format!(
            "adjoin-read-only-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed)
        ));
        let copy = Copy { dir };
        copy_dir(from, &copy.dir)?;
        Ok(copy)
    }

    /// Where the copy is.
    pub(crate) fn path(&self) -> &Path {
        &self.dir
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Copies directory `from` into `to` (created), recursively; files are copied with their
/// contents only (the copy is writable).
fn copy_dir(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_dir(&entry.path(), &target)?;
        } else {
            std::fs::write(&target, std::fs::read(entry.path())?)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_claimed_once_until_released() {
        let dir = tempfile::tempdir().expect("tempdir");
        let a = Claim::take(&dir.path().join("x.db")).expect("first");
        assert!(Claim::take(&dir.path().join("x.db")).is_none(), "second");
        assert!(
            Claim::take(&dir.path().join(".").join("x.db")).is_none(),
            "another spelling"
        );
        drop(a);
        assert!(Claim::take(&dir.path().join("x.db")).is_some(), "released");
    }

    #[test]
    fn copies_hold_the_files_and_go_when_dropped() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("d/sub")).expect("mkdir");
        std::fs::write(dir.path().join("d/a"), "1").expect("write");
        std::fs::write(dir.path().join("d/sub/b"), "2").expect("write");
        let c = Copy::of(&dir.path().join("d")).expect("copy");
        let p = c.path().to_owned();
        assert_eq!(std::fs::read_to_string(p.join("sub/b")).expect("read"), "2");
        drop(c);
        assert!(!p.exists());
    }
}
