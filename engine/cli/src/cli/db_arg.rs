//! Which database a command works on (`--db PATH`, else `$ADJOIN_DB`, else `./adjoin.db`)
//! and opening it with messages that say what to do.

use adjoin::storage::{OpenError, StoreError};
use adjoin::{Db, DbError, DbOptions};
use anyhow::{bail, Result};
use std::path::{Path, PathBuf};

/// The environment variable naming the default database.
pub const ENV: &str = "ADJOIN_DB";

/// The database used when neither `--db` nor `$ADJOIN_DB` names one.
pub const DEFAULT: &str = "./adjoin.db";

/// The database a command was pointed at.
#[derive(Clone, Debug)]
pub struct DbPath {
    path: PathBuf,
    /// How long an open waits for another process to release the database.
    wait: Option<std::time::Duration>,
}

impl DbPath {
    /// `--db` when given, else `$ADJOIN_DB` when set and non-empty, else `./adjoin.db`.
    pub fn resolve(flag: Option<&Path>, env: Option<std::ffi::OsString>) -> DbPath {
        let path = match (flag, env) {
            (Some(p), _) => p.to_owned(),
            (None, Some(e)) if !e.is_empty() => PathBuf::from(e),
            _ => PathBuf::from(DEFAULT),
        };
        DbPath { path, wait: None }
    }

    /// This path, an open waiting up to `wait` for another process to release it (`--wait`).
    pub fn waiting(self, wait: Option<std::time::Duration>) -> DbPath {
        DbPath { wait, ..self }
    }

    /// [`DbPath::resolve`] with this process's environment.
    pub fn from_flag(flag: Option<&Path>) -> DbPath {
        DbPath::resolve(flag, std::env::var_os(ENV))
    }

    /// Opens the database, creating it if it does not exist (for commands that write). A
    /// database is made only in a directory of its own: a new one (whose parent exists) or an
    /// empty one, never among other files (a mistyped `--db ~` must not fill a home directory).
    pub fn open_or_create(&self) -> Result<Db> {
        match self.contents()? {
            Contents::Database => {}
            Contents::Missing => {
                let parent = match self.path.parent() {
                    Some(p) if !p.as_os_str().is_empty() => p,
                    _ => Path::new("."),
                };
                if !parent.is_dir() {
                    bail!(
                        "cannot create a database at {}: {} is not a directory",
                        self.path.display(),
                        parent.display()
                    );
                }
            }
            Contents::Empty => {}
            Contents::Other => bail!(
                "{} is not an adjoin database: the directory holds other files (a new database \
                 needs a new or empty directory)",
                self.path.display()
            ),
        }
        self.open()
    }

    /// Opens the database at this path, whatever is there (the storage layer creates what is
    /// missing).
    fn open(&self) -> Result<Db> {
        let mut opts = DbOptions::default();
        if let Some(w) = self.wait {
            opts.lock_wait = opts.lock_wait.max(w);
        }
        let db = Db::open_with(&self.path, &opts).map_err(|e| open_error(&self.path, e))?;
        if db.is_read_only() {
            warn!(
                "adjoin: note: {} is not writable; reading it read-only (a private copy)",
                self.path.display()
            );
        }
        Ok(db)
    }

    /// Opens an existing database; a missing one is an error rather than a new empty database
    /// (a mistyped `--db` should not answer "0 ads").
    pub fn open_existing(&self) -> Result<Db> {
        match self.contents()? {
            Contents::Database => self.open(),
            Contents::Missing | Contents::Empty => bail!(
                "no database at {} (create one with `adjoin load`, or point --db or ${ENV} at one)",
                self.path.display()
            ),
            Contents::Other => bail!(
                "{} is not an adjoin database (it holds none of a database's files: {})",
                self.path.display(),
                MARKERS.join(", ")
            ),
        }
    }

    /// What is at the path now.
    fn contents(&self) -> Result<Contents> {
        let p = &self.path;
        if !p.exists() {
            return Ok(Contents::Missing);
        }
        if !p.is_dir() {
            // The storage layer's open says what is wrong with it.
            return Ok(Contents::Database);
        }
        if MARKERS.iter().any(|m| p.join(m).exists()) {
            return Ok(Contents::Database);
        }
        Ok(match empty_dir(p)? {
            true => Contents::Empty,
            false => Contents::Other,
        })
    }
}

/// True when `p` is a directory with nothing in it.
pub fn empty_dir(p: &Path) -> Result<bool> {
    Ok(p.is_dir()
        && std::fs::read_dir(p)
            .map_err(|e| anyhow::Error::new(e).context(format!("reading {}", p.display())))?
            .next()
            .is_none())
}

/// The files an adjoin database holds (sled's, then the store's own): a directory with none of
/// them is not one, though a damaged database may have lost some.
const MARKERS: [&str; 4] = ["db", "conf", "blobs", "adjoin-mark"];

/// What a database path holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Contents {
    /// Nothing: no such file or directory.
    Missing,
    /// An empty directory.
    Empty,
    /// A database (a directory with one of [`MARKERS`]), or a file the open will refuse.
    Database,
    /// A directory of other files.
    Other,
}

/// True when an open failed because the database's files are damaged (as opposed to in use,
/// unreadable, or newer): `adjoin check` reports that as damage found.
pub fn is_damage(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<DbError>(),
        Some(DbError::Open(
            OpenError::Damaged(_) | OpenError::Store(StoreError::Damaged { .. })
        ))
    )
}

/// Names the database in an open error unless the message already does.
fn open_error(path: &Path, e: DbError) -> anyhow::Error {
    let shown = path.display().to_string();
    if e.to_string().contains(&shown) {
        anyhow::Error::new(e)
    } else {
        anyhow::Error::new(e).context(format!("opening {shown}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_then_environment_then_default() {
        for (flag, env, want) in [
            (Some("x.db"), Some("env.db"), "x.db"),
            (None, Some("env.db"), "env.db"),
            (None, Some(""), DEFAULT),
            (None, None, DEFAULT),
            (Some("x.db"), None, "x.db"),
        ] {
            let got = DbPath::resolve(flag.map(Path::new), env.map(Into::into));
            assert_eq!(got.path, Path::new(want), "{flag:?} {env:?}");
        }
    }

    #[test]
    fn a_missing_database_is_not_created_by_readers() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("none.db");
        let err = DbPath::resolve(Some(&p), None)
            .open_existing()
            .expect_err("missing");
        assert!(err.to_string().starts_with("no database at "), "{err}");
        assert!(!p.exists());
    }

    #[test]
    fn databases_are_made_only_in_directories_of_their_own() {
        let dir = tempfile::tempdir().expect("tempdir");
        let other = dir.path().join("other");
        std::fs::create_dir(&other).expect("mkdir");
        std::fs::write(other.join("notes.txt"), "mine").expect("write");
        let empty = dir.path().join("empty");
        std::fs::create_dir(&empty).expect("mkdir");
        let nested = dir.path().join("no").join("such.db");
        let at = |p: &Path| DbPath::resolve(Some(p), None);
        for (p, creating, want) in [
            (&other, false, "is not an adjoin database"),
            (&other, true, "is not an adjoin database"),
            (&empty, false, "no database at "),
            (&nested, true, "cannot create a database at "),
            (&nested, false, "no database at "),
        ] {
            let got = match creating {
                true => at(p).open_or_create(),
                false => at(p).open_existing(),
            };
            let err = got.expect_err("refused").to_string();
            assert!(err.contains(want), "{p:?} {creating}: {err}");
        }
        // Nothing was written where it was refused.
        let names = |d: &Path| std::fs::read_dir(d).expect("read").count();
        assert_eq!(names(&other), 1);
        assert_eq!(names(&empty), 0);
        assert!(!nested.exists() && !nested.parent().is_some_and(Path::exists));
        // An empty directory takes a new database, which then opens as one.
        drop(at(&empty).open_or_create().expect("created"));
        drop(at(&empty).open_existing().expect("reopened"));
    }
}
