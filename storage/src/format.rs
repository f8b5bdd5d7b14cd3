//! The format version: the one module that writes it, checks it on open, and runs migrations.
//!
//! A new database gets [`CURRENT`]. Opening refuses a newer version ([`OpenError::NewerFormat`])
//! and brings an older one up through [`MIGRATIONS`], one step at a time. Each step must leave
//! the store at its target version atomically: it writes the new version in the same
//! transaction as its last change, or is safe to run again from the start.
//!
//! Change log (docs/storage-format.md repeats it):
//! - **1**: first format: one `ads` entry per ad, an `ids` and an `expiry` tree.
//! - **2**: ads in blocks (`blocks` tree); ids and expiries indexed in memory, not on disk.
//! - **3**: a consumed ad's record may stay in its block (dead: its id is tombstoned) until
//!   the tombstone goes; readers of format 2 would take such records for live ads.
//! - **4**: the match history indexed by cycle and by ad; the durable cycle counter.
//! - **5**: an expression may hold a chain node (`Expr::Chain`, a run of one operator as one
//!   n-ary node), which format-4 builds cannot decode.

use crate::backend::{KeyRange, Store, TxError};
use crate::codec;
use crate::error::{Damage, MigrationError, OpenError};
use crate::key::{meta, tree};

/// The format this build writes.
pub const CURRENT: u32 = 5;

/// A step from version `from` to `from + 1`.
#[derive(Clone, Copy)]
pub struct Migration {
    /// The version it upgrades.
    pub from: u32,
    /// Performs the upgrade, recording `from + 1` as the version (see [`write_version_tx`]).
    pub run: fn(&dyn Store) -> Result<(), MigrationError>,
}

/// The migrations this build knows, by `from`.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        from: 1,
        run: crate::migrate::blocks_from_records,
    },
    Migration {
        from: 2,
        run: crate::migrate::dead_records_allowed,
    },
    Migration {
        from: 3,
        run: crate::migrate::match_history_indexed,
    },
    Migration {
        from: 4,
        run: crate::migrate::chains_allowed,
    },
];

/// What opening found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Opened {
    /// A new, empty database, now stamped with [`CURRENT`].
    Created,
    /// A database at [`CURRENT`].
    Current,
    /// A database migrated from the given version.
    Migrated(u32),
}

/// The version recorded in `store`, if any.
pub fn read_version(store: &dyn Store) -> Result<Option<u32>, OpenError> {
    let Some(raw) = store.get(tree::META, meta::FORMAT)? else {
        return Ok(None);
    };
    codec::open::<u32>(meta::FORMAT, &raw)
        .map(Some)
        .map_err(|e| {
            OpenError::Damaged(Damage {
                tree: tree::META.into(),
                collection: None,
                id: Some("format".into()),
                key: meta::FORMAT.to_vec(),
                problem: e.to_string(),
            })
        })
}

/// Records `version` (outside a transaction; for a new database).
pub(crate) fn write_version(store: &dyn Store, version: u32) -> Result<(), OpenError> {
    let value = codec::seal(meta::FORMAT, &version).map_err(|e| OpenError::Migration {
        from: version,
        detail: e.into(),
    })?;
    store.put(tree::META, meta::FORMAT, &value)?;
    Ok(())
}

/// Records `version` inside a transaction whose tree number `meta_tree` is the `meta` tree.
pub fn write_version_tx(
    tx: &dyn crate::backend::Tx,
    meta_tree: usize,
    version: u32,
) -> Result<(), TxError> {
    let value = codec::seal(meta::FORMAT, &version).map_err(TxError::abort)?;
    tx.put(meta_tree, meta::FORMAT, &value)
}

/// Checks the version of `store` against [`CURRENT`], stamping a new database and migrating an
/// old one with [`MIGRATIONS`].
pub fn open(store: &dyn Store) -> Result<Opened, OpenError> {
    open_with(store, CURRENT, MIGRATIONS)
}

/// [`open`] with a given current version and migration list (tests use it to exercise the hook).
pub fn open_with(
    store: &dyn Store,
    current: u32,
    migrations: &[Migration],
) -> Result<Opened, OpenError> {
    let found = match read_version(store)? {
        Some(v) => v,
        None => {
            let mut nonempty = Vec::new();
            for t in store.tree_names()? {
                if store.scan(&t, KeyRange::all())?.next().is_some() {
                    nonempty.push(t);
                }
            }
            if !nonempty.is_empty() {
                return Err(OpenError::Foreign(format!(
                    "{} holds trees {} but no format version",
                    store.describe(),
                    nonempty.join(", ")
                )));
            }
            write_version(store, current)?;
            store.flush()?;
            return Ok(Opened::Created);
        }
    };
    if found > current {
        return Err(OpenError::NewerFormat {
            found,
            supported: current,
        });
    }
    let mut v = found;
    while v < current {
        let step = migrations
            .iter()
            .find(|m| m.from == v)
            .ok_or_else(|| OpenError::Migration {
                from: v,
                detail: MigrationError::Unknown(v),
            })?;
        (step.run)(store).map_err(|detail| OpenError::Migration { from: v, detail })?;
        store.flush()?;
        let now = read_version(store)?.unwrap_or(v);
        if now != v + 1 {
            return Err(OpenError::Migration {
                from: v,
                detail: MigrationError::WrongVersion {
                    left: now,
                    wanted: v + 1,
                },
            });
        }
        v = now;
    }
    Ok(if found == current {
        Opened::Current
    } else {
        Opened::Migrated(found)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::MemStore;

    #[test]
    fn new_store_is_stamped_then_current() {
        let s = MemStore::new();
        assert_eq!(open(&s).expect("open"), Opened::Created);
        assert_eq!(read_version(&s).expect("read"), Some(CURRENT));
        assert_eq!(open(&s).expect("reopen"), Opened::Current);
    }

    #[test]
    fn newer_format_is_refused() {
        let s = MemStore::new();
        write_version(&s, CURRENT + 1).expect("stamp");
        match open(&s) {
            Err(OpenError::NewerFormat { found, supported }) => {
                assert_eq!((found, supported), (CURRENT + 1, CURRENT))
            }
            other => panic!("want NewerFormat, got {other:?}"),
        }
    }

    #[test]
    fn data_without_version_is_foreign() {
        let s = MemStore::new();
        s.put("someone_elses", b"k", b"v").expect("put");
        assert!(matches!(open(&s), Err(OpenError::Foreign(_))));
    }

    #[test]
    fn damaged_version_is_reported() {
        let s = MemStore::new();
        s.put(tree::META, meta::FORMAT, b"\0\0\0\0\x01")
            .expect("put");
        assert!(matches!(open(&s), Err(OpenError::Damaged(_))));
    }

    fn step_0_to_1(s: &dyn Store) -> Result<(), MigrationError> {
        s.transaction(&[tree::META], &|tx| {
            tx.put(0, b"migrated", b"yes")?;
            write_version_tx(tx, 0, 1)
        })?;
        Ok(())
    }

    fn step_that_forgets_the_version(_: &dyn Store) -> Result<(), MigrationError> {
        Ok(())
    }

    #[test]
    fn migrations_run_in_order() {
        let s = MemStore::new();
        write_version(&s, 0).expect("stamp");
        let steps = [Migration {
            from: 0,
            run: step_0_to_1,
        }];
        assert_eq!(open_with(&s, 1, &steps).expect("open"), Opened::Migrated(0));
        assert_eq!(
            s.get(tree::META, b"migrated").expect("get").as_deref(),
            Some(&b"yes"[..])
        );
        assert_eq!(open_with(&s, 1, &steps).expect("reopen"), Opened::Current);
    }

    #[test]
    fn missing_or_broken_migrations_are_errors() {
        let s = MemStore::new();
        write_version(&s, 0).expect("stamp");
        assert!(matches!(
            open_with(&s, 1, &[]),
            Err(OpenError::Migration { from: 0, .. })
        ));
        let bad = [Migration {
            from: 0,
            run: step_that_forgets_the_version,
        }];
        assert!(matches!(
            open_with(&s, 1, &bad),
            Err(OpenError::Migration { from: 0, .. })
        ));
    }
}
