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

    /// Opens the database, creating it if it does not exist (for commands that write).
    pub fn open_or_create(&self) -> Result<Db> {
        let mut opts = DbOptions::default();
        if let Some(w) = self.wait {
            opts.lock_wait = opts.lock_wait.max(w);
        }
        let db = Db::open_with(&self.path, &opts).map_err(|e| open_error(&self.path, e))?;
        if db.is_read_only() {
            eprintln!(
                "adjoin: note: {} is not writable; reading it read-only (a private copy)",
                self.path.display()
            );
        }
        Ok(db)
    }

    /// Opens an existing database; a missing one is an error rather than a new empty database
    /// (a mistyped `--db` should not answer "0 ads").
    pub fn open_existing(&self) -> Result<Db> {
        if !self.path.exists() {
            bail!(
                "no database at {} (create one with `adjoin load`, or point --db or ${ENV} at one)",
                self.path.display()
            );
        }
        self.open_or_create()
    }
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
}
