//! [`SledStore`]: [`Store`] on a sled 0.34 database directory.
//!
//! What this module guards against, and how:
//! - **Lost acknowledged writes**: sled's background flusher alone does not make a write
//!   durable; callers flush at their commit points through [`Store::flush`].
//! - **Unbounded memory**: `cache_capacity` is always set ([`SledOptions`]).
//! - **A second process**: sled takes an exclusive `flock` on `DIR/db` and fails at once when it
//!   is held; that failure is recognised and turned into [`StoreError::InUse`].
//! - **Panics on damaged files**: sled may panic while recovering or reading a damaged log.
//!   Every call into sled runs under `catch_unwind`, and a panic becomes
//!   [`StoreError::Damaged`], so no damaged input panics through this crate. A panic hook
//!   keeps such caught panics quiet (the error carries the message; no panic message and
//!   backtrace on stderr); every other panic goes to the hook that was there before.

use super::mark::{self, Mark, MARK_FILE};
use super::reserve;
use super::{Batch, EntryIter, KeyRange, Recovered, Store, Tx, TxBody, TxError, UntilError, Write};
use crate::error::StoreError;
use parking_lot::RwLock;
use sled::transaction::{
    ConflictableTransactionError, TransactionError, TransactionalTree, UnabortableTransactionError,
};
use sled::Transactional;
use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The name sled gives its default tree; it is not one of ours.
const SLED_DEFAULT_TREE: &[u8] = b"__sled__default";

/// Settings of a sled database.
#[derive(Clone, Debug)]
pub struct SledOptions {
    /// Bytes of page cache sled may hold (1 GiB, sled's own default, set explicitly: a smaller
    /// cache makes sled page nodes out and in again during bulk loads).
    pub cache_capacity: u64,
    /// How often sled's background thread flushes, in milliseconds (`None`: never; commit
    /// points flush anyway).
    pub flush_every_ms: Option<u64>,
    /// How long an open keeps retrying while the directory is locked. A process that just
    /// closed the database may hold its lock for a moment while sled's threads wind down; a
    /// process that really has it open keeps it, and the open then fails with
    /// [`StoreError::InUse`].
    pub lock_grace: Duration,
    /// Bytes set aside in the database directory so that an open on a full file system can
    /// write sled's snapshot (`reserve.rs`); 0 for none.
    pub reserve: u64,
}

impl Default for SledOptions {
    fn default() -> SledOptions {
        SledOptions {
            cache_capacity: 1 << 30,
            flush_every_ms: Some(1000),
            lock_grace: Duration::from_millis(500),
            reserve: 2 << 20,
        }
    }
}

/// A store in a sled database directory. Cloning shares the open database.
#[derive(Clone)]
pub struct SledStore {
    db: sled::Db,
    path: PathBuf,
    trees: std::sync::Arc<RwLock<HashMap<String, sled::Tree>>>,
    recovered: Recovered,
    /// True when the file system had no room for the reserve at open: writes are refused.
    full: bool,
    /// The acknowledged-writes mark (`None` when its file could not be opened for writing).
    mark: Option<std::sync::Arc<Mark>>,
}

/// The key (in sled's default tree) of the count of writes made (`backend/mark.rs`).
const WRITES_KEY: &[u8] = b"adjoin.writes";

/// A count as stored under [`WRITES_KEY`].
fn count_of(v: Option<&[u8]>) -> u64 {
    v.and_then(|v| v.try_into().ok())
        .map_or(0, u64::from_le_bytes)
}

impl std::fmt::Debug for SledStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SledStore({})", self.path.display())
    }
}

/// The text of a caught panic.
fn panic_text(payload: Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "sled panicked".to_owned()
    }
}

thread_local! {
    /// True while this thread runs a call into sled under [`catch_unwind`].
    static CAUGHT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs, once, the panic hook that is silent for panics [`catch_unwind`] will catch.
fn quiet_caught_panics() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !CAUGHT.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
}

/// `std::panic::catch_unwind` of a call into sled, with the panic hook quiet meanwhile: the
/// caller turns the panic into an error that carries its message.
fn catch_unwind<T>(f: impl FnOnce() -> T + std::panic::UnwindSafe) -> std::thread::Result<T> {
    quiet_caught_panics();
    let was = CAUGHT.with(|c| c.replace(true));
    let r = std::panic::catch_unwind(f);
    CAUGHT.with(|c| c.set(was));
    r
}

/// Runs `f` (a call into sled), turning a panic into [`StoreError::Damaged`].
fn guard<T>(context: &str, f: impl FnOnce() -> Result<T, StoreError>) -> Result<T, StoreError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(StoreError::Damaged {
            context: context.to_owned(),
            detail: format!("the storage engine panicked: {}", panic_text(payload)),
        }),
    }
}

/// Maps a sled error met while doing `context` on the database at `path`.
fn map_err(e: sled::Error, context: &str, path: &Path) -> StoreError {
    match e {
        sled::Error::Io(io) => {
            // sled reports a held lock as an Io error of kind Other with this text.
            if io.to_string().starts_with("could not acquire lock") {
                StoreError::InUse {
                    path: path.to_owned(),
                }
            } else {
                StoreError::Io {
                    context: format!("{context} on {}", path.display()),
                    source: io,
                }
            }
        }
        sled::Error::Corruption { at, .. } => StoreError::Damaged {
            context: format!("{context} on {}", path.display()),
            detail: match at {
                Some(at) => format!("sled found corrupted data at {at:?}"),
                None => "sled found corrupted data".to_owned(),
            },
        },
        sled::Error::ReportableBug(msg) => StoreError::Damaged {
            context: format!("{context} on {}", path.display()),
            detail: format!("sled reached an impossible state: {msg}"),
        },
        sled::Error::Unsupported(msg) if context == "opening" => StoreError::Backend {
            context: format!("{context} on {}", path.display()),
            detail: format!(
                "sled refused the directory (its conf file may be damaged, or was written by \
                 another sled version or with other settings): {msg}"
            ),
        },
        other => StoreError::Backend {
            context: format!("{context} on {}", path.display()),
            detail: other.to_string(),
        },
    }
}

impl SledStore {
    /// Opens (creating if needed) the sled database in directory `path`.
    pub fn open(path: &Path, opts: &SledOptions) -> Result<SledStore, StoreError> {
        let _span = tracing::info_span!("sled_open", path = %path.display()).entered();
        if path.exists() && !path.is_dir() {
            return Err(StoreError::Io {
                context: format!("opening {}", path.display()),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "not a directory (a database is a directory)",
                ),
            });
        }
        // Leftovers of interrupted opens that would make sled refuse the directory.
        let recovered = if path.is_dir() {
            super::leftovers::recover(path)?
        } else {
            Recovered::default()
        };
        let config = sled::Config::new()
            .path(path)
            .cache_capacity(opts.cache_capacity)
            .flush_every_ms(opts.flush_every_ms)
            .mode(sled::Mode::HighThroughput);
        let started = Instant::now();
        let mut recovered = recovered;
        let mut released = false;
        let db = loop {
            match guard("opening", || {
                config.open().map_err(|e| map_err(e, "opening", path))
            }) {
                Err(StoreError::InUse { .. }) if started.elapsed() < opts.lock_grace => {
                    std::thread::sleep(Duration::from_millis(10));
                }
                // sled writes at open; on a full file system, its write gets the reserve's
                // room, once, after what the failed write left is removed.
                Err(StoreError::Io { source, .. })
                    if reserve::is_full(&source) && !released && reserve::release(path) =>
                {
                    released = true;
                    recovered
                        .removed
                        .extend(super::leftovers::recover(path)?.removed);
                }
                other => break other?,
            }
        };
        // Writes need the reserve in place: without it, a write could take the room the next
        // open's snapshot needs, and the database could not be opened even to read.
        let full = !reserve::ensure(path, opts.reserve);
        // Acknowledged writes sled's recovery dropped (a damaged record mid-log reads to it as
        // a torn tail): the count it recovered is below the last one made durable.
        let writes = guard("opening", || {
            db.get(WRITES_KEY)
                .map(|v| count_of(v.as_deref()))
                .map_err(|e| map_err(e, "opening", path))
        })?;
        if let Some(acked) = mark::read(path).filter(|&acked| acked > writes) {
            return Err(StoreError::Damaged {
                context: format!("opening {}", path.display()),
                detail: format!(
                    "the log lost acknowledged writes: it holds {writes} writes, {acked} were \
                     made durable (remove {} to open what is left)",
                    path.join(MARK_FILE).display()
                ),
            });
        }
        // A mark that cannot be written (a read-only directory) records nothing; reads go on.
        let mark = match Mark::open(path) {
            Ok((mark, _)) => Some(std::sync::Arc::new(mark)),
            Err(e) => {
                tracing::debug!(error = %e, "the acknowledged-writes mark cannot be written");
                None
            }
        };
        Ok(SledStore {
            db,
            path: path.to_owned(),
            trees: Default::default(),
            recovered,
            full,
            mark,
        })
    }

    /// Counts a write just made (after it, in sled's log).
    fn count(&self) -> Result<(), StoreError> {
        guard("writing", || {
            self.db
                .update_and_fetch(WRITES_KEY, |v| {
                    Some((count_of(v) + 1).to_le_bytes().to_vec())
                })
                .map(|_| ())
                .map_err(|e| self.err(e, "writing"))
        })
    }

    /// Flushes, closes, and returns once the directory's lock is released (sled's threads can
    /// hold it a moment after the last handle is dropped), so another process can open it at
    /// once. Other clones of this store keep the database open; close them first.
    pub fn close(self) -> Result<(), StoreError> {
        self.flush()?;
        let path = self.path.clone();
        drop(self);
        wait_released(&path, Duration::from_secs(10))
    }

    /// The database directory.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The leftovers of interrupted opens this open removed.
    pub fn recovered(&self) -> &Recovered {
        &self.recovered
    }

    /// True when the file system had no room for the reserve at open, so that writes are
    /// refused ([`StoreError::Full`]) and reads work.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// Refuses a write when the file system is full.
    fn writable(&self) -> Result<(), StoreError> {
        if self.full {
            return Err(StoreError::Full {
                path: self.path.clone(),
            });
        }
        Ok(())
    }

    /// True when the directory held a database before this open.
    pub fn was_recovered(&self) -> bool {
        self.db.was_recovered()
    }

    fn err(&self, e: sled::Error, context: &str) -> StoreError {
        map_err(e, context, &self.path)
    }

    /// The sled tree `name`, opened once and cached.
    fn tree(&self, name: &str) -> Result<sled::Tree, StoreError> {
        if let Some(t) = self.trees.read().get(name) {
            return Ok(t.clone());
        }
        let t = guard("opening a tree", || {
            self.db
                .open_tree(name)
                .map_err(|e| self.err(e, "opening a tree"))
        })?;
        self.trees.write().insert(name.to_owned(), t.clone());
        Ok(t)
    }
}

/// Waits until no open file holds the lock of the database in `path` (sled's `flock` on
/// `path/db`), for at most `timeout`.
pub fn wait_released(path: &Path, timeout: Duration) -> Result<(), StoreError> {
    use fs2::FileExt;
    let file = match std::fs::File::open(path.join("db")) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(source) => {
            return Err(StoreError::Io {
                context: format!("probing the lock of {}", path.display()),
                source,
            })
        }
    };
    let started = Instant::now();
    loop {
        if file.try_lock_exclusive().is_ok() {
            let _ = file.unlock();
            return Ok(());
        }
        if started.elapsed() >= timeout {
            return Err(StoreError::InUse {
                path: path.to_owned(),
            });
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// A transaction view over sled's transactional trees.
struct SledTx<'a> {
    views: &'a [TransactionalTree],
    path: &'a Path,
}

impl SledTx<'_> {
    fn view(&self, tree: usize) -> Result<&TransactionalTree, TxError> {
        self.views.get(tree).ok_or_else(|| {
            TxError::Store(StoreError::Backend {
                context: "transaction".into(),
                detail: format!("tree number {tree} was not named when the transaction began"),
            })
        })
    }

    fn lift(&self, e: UnabortableTransactionError) -> TxError {
        match e {
            UnabortableTransactionError::Conflict => TxError::Conflict,
            UnabortableTransactionError::Storage(e) => {
                TxError::Store(map_err(e, "transaction", self.path))
            }
        }
    }
}

impl Tx for SledTx<'_> {
    fn get(&self, tree: usize, key: &[u8]) -> Result<Option<Vec<u8>>, TxError> {
        let v = self.view(tree)?.get(key).map_err(|e| self.lift(e))?;
        Ok(v.map(|v| v.to_vec()))
    }

    fn put(&self, tree: usize, key: &[u8], value: &[u8]) -> Result<(), TxError> {
        self.view(tree)?
            .insert(key, value)
            .map_err(|e| self.lift(e))?;
        Ok(())
    }

    fn delete(&self, tree: usize, key: &[u8]) -> Result<(), TxError> {
        self.view(tree)?.remove(key).map_err(|e| self.lift(e))?;
        Ok(())
    }
}

impl Store for SledStore {
    fn describe(&self) -> String {
        format!("sled at {}", self.path.display())
    }

    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        let t = self.tree(tree)?;
        guard("reading", || {
            t.get(key)
                .map(|v| v.map(|v| v.to_vec()))
                .map_err(|e| self.err(e, "reading"))
        })
    }

    fn put(&self, tree: &str, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        self.writable()?;
        let t = self.tree(tree)?;
        guard("writing", || {
            t.insert(key, value)
                .map(|_| ())
                .map_err(|e| self.err(e, "writing"))
        })?;
        self.count()
    }

    fn delete(&self, tree: &str, key: &[u8]) -> Result<bool, StoreError> {
        self.writable()?;
        let t = self.tree(tree)?;
        let was = guard("deleting", || {
            t.remove(key)
                .map(|old| old.is_some())
                .map_err(|e| self.err(e, "deleting"))
        })?;
        self.count()?;
        Ok(was)
    }

    fn scan(&self, tree: &str, range: KeyRange) -> Result<EntryIter<'_>, StoreError> {
        let t = self.tree(tree)?;
        if range.is_empty() {
            return Ok(Box::new(std::iter::empty()));
        }
        let mut iter = guard("scanning", || Ok(t.range((range.start, range.end))))?;
        let context = format!("scanning tree {tree}");
        // sled's iterator repeats its error forever after a bad page: the scan ends there.
        Ok(Box::new(UntilError::new(std::iter::from_fn(
            move || match catch_unwind(AssertUnwindSafe(|| iter.next())) {
                Ok(None) => None,
                Ok(Some(Ok((k, v)))) => Some(Ok((k.to_vec(), v.to_vec()))),
                Ok(Some(Err(e))) => Some(Err(self.err(e, &context))),
                Err(payload) => Some(Err(StoreError::Damaged {
                    context: context.clone(),
                    detail: format!("the storage engine panicked: {}", panic_text(payload)),
                })),
            },
        ))))
    }

    fn batch(&self, tree: &str, batch: Batch) -> Result<(), StoreError> {
        self.writable()?;
        let t = self.tree(tree)?;
        let mut b = sled::Batch::default();
        for w in batch.writes {
            match w {
                Write::Put(k, v) => b.insert(k, v),
                Write::Delete(k) => b.remove(k),
            }
        }
        guard("writing a batch", || {
            t.apply_batch(b).map_err(|e| self.err(e, "writing a batch"))
        })?;
        self.count()
    }

    fn transaction(&self, trees: &[&str], body: TxBody<'_>) -> Result<(), TxError> {
        self.writable()?;
        let trees: Vec<sled::Tree> = trees
            .iter()
            .map(|n| self.tree(n))
            .collect::<Result<_, _>>()?;
        let path = self.path.as_path();
        let run = || {
            trees
                .as_slice()
                .transaction(|views: &Vec<TransactionalTree>| {
                    let tx = SledTx { views, path };
                    body(&tx).map_err(|e| match e {
                        TxError::Conflict => ConflictableTransactionError::Conflict,
                        other => ConflictableTransactionError::Abort(other),
                    })
                })
        };
        match catch_unwind(AssertUnwindSafe(run)) {
            Ok(Ok(())) => self.count().map_err(TxError::Store),
            Ok(Err(TransactionError::Abort(e))) => Err(e),
            Ok(Err(TransactionError::Storage(e))) => {
                Err(TxError::Store(self.err(e, "committing a transaction")))
            }
            Err(payload) => Err(TxError::Store(StoreError::Damaged {
                context: "committing a transaction".into(),
                detail: format!("the storage engine panicked: {}", panic_text(payload)),
            })),
        }
    }

    fn flush(&self) -> Result<(), StoreError> {
        let _span = tracing::debug_span!("sled_flush").entered();
        // The writes counted before the flush are durable once it returns.
        let writes = guard("flushing", || {
            self.db
                .get(WRITES_KEY)
                .map(|v| count_of(v.as_deref()))
                .map_err(|e| self.err(e, "flushing"))
        })?;
        guard("flushing", || {
            self.db
                .flush()
                .map(|_| ())
                .map_err(|e| self.err(e, "flushing"))
        })?;
        match &self.mark {
            Some(mark) => mark.record(writes).map_err(|source| StoreError::Io {
                context: format!("recording the durable writes in {}", self.path.display()),
                source,
            }),
            None => Ok(()),
        }
    }

    fn tree_names(&self) -> Result<Vec<String>, StoreError> {
        guard("listing trees", || {
            let mut names: Vec<String> = self
                .db
                .tree_names()
                .into_iter()
                .filter(|n| n.as_ref() != SLED_DEFAULT_TREE)
                .map(|n| String::from_utf8_lossy(&n).into_owned())
                .collect();
            names.sort();
            Ok(names)
        })
    }

    fn size_bytes(&self) -> Result<u64, StoreError> {
        guard("measuring", || {
            self.db.size_on_disk().map_err(|e| self.err(e, "measuring"))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_survive_reopen() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        {
            let s = SledStore::open(&path, &SledOptions::default()).expect("open");
            assert!(!s.was_recovered());
            s.put("t", b"k", b"v").expect("put");
            s.flush().expect("flush");
        }
        let s = SledStore::open(&path, &SledOptions::default()).expect("reopen");
        assert!(s.was_recovered());
        assert_eq!(s.get("t", b"k").expect("get").as_deref(), Some(&b"v"[..]));
    }

    /// Acknowledged writes the recovered log lacks (as when sled's recovery takes a damaged
    /// record mid-log for a torn tail and drops what follows) fail the open; writes counted but
    /// never flushed (a crash) do not.
    #[test]
    fn a_log_behind_the_mark_fails_the_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        {
            let s = SledStore::open(&path, &SledOptions::default()).expect("open");
            s.put("t", b"a", b"1").expect("put");
            s.batch(
                "t",
                Batch {
                    writes: vec![Write::Delete(b"a".to_vec())],
                },
            )
            .expect("batch");
            s.flush().expect("flush");
            s.close().expect("close");
        }
        // Two writes were made durable; the mark says so, and the log holds them.
        let (_, acked) = Mark::open(&path).expect("mark");
        assert_eq!(acked, Some(2));
        let s = SledStore::open(&path, &SledOptions::default()).expect("reopen");
        s.put("t", b"b", b"2").expect("put"); // counted, flushed only by close
        s.close().expect("close");
        SledStore::open(&path, &SledOptions::default())
            .expect("reopen")
            .close()
            .expect("close");
        // A mark ahead of the log: writes the log lost.
        Mark::open(&path)
            .expect("mark")
            .0
            .record(10)
            .expect("record");
        match SledStore::open(&path, &SledOptions::default()) {
            Err(StoreError::Damaged { detail, .. }) => {
                assert!(detail.contains("lost acknowledged writes"), "{detail}")
            }
            other => panic!("expected damage, got {other:?}"),
        }
        // Removing the mark opens what is left.
        std::fs::remove_file(path.join(MARK_FILE)).expect("remove mark");
        let s = SledStore::open(&path, &SledOptions::default()).expect("open what is left");
        assert_eq!(s.get("t", b"b").expect("get").as_deref(), Some(&b"2"[..]));
    }

    #[test]
    fn second_open_is_in_use_not_a_hang() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        let _first = SledStore::open(&path, &SledOptions::default()).expect("open");
        let t = std::time::Instant::now();
        match SledStore::open(&path, &SledOptions::default()) {
            Err(StoreError::InUse { path: p }) => assert_eq!(p, path),
            other => panic!("want InUse, got {other:?}"),
        }
        assert!(t.elapsed() < std::time::Duration::from_secs(5));
    }

    #[test]
    fn close_releases_the_lock_at_once() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("db");
        for _ in 0..5 {
            let s = SledStore::open(
                &path,
                &SledOptions {
                    lock_grace: Duration::ZERO,
                    ..SledOptions::default()
                },
            )
            .expect("open right after close");
            s.put("t", b"k", b"v").expect("put");
            s.close().expect("close");
        }
    }

    /// A database of several log segments, closed; its value for `k<i>` is `v<i>` repeated.
    fn filled(path: &Path) {
        let s = SledStore::open(path, &SledOptions::default()).expect("open");
        for i in 0..2000u32 {
            s.put(
                "t",
                format!("k{i}").as_bytes(),
                format!("v{i}").repeat(200).as_bytes(),
            )
            .expect("put");
        }
        s.close().expect("close");
        // sled writes its snapshot at the open after writes.
        SledStore::open(path, &SledOptions::default())
            .expect("reopen")
            .close()
            .expect("close");
    }

    fn intact(path: &Path) {
        let s = SledStore::open(path, &SledOptions::default()).expect("open after the leftover");
        assert_eq!(s.scan("t", KeyRange::all()).expect("scan").count(), 2000);
        for i in [0u32, 999, 1999] {
            let v = s.get("t", format!("k{i}").as_bytes()).expect("get");
            assert_eq!(v, Some(format!("v{i}").repeat(200).into_bytes()));
        }
        s.close().expect("close");
    }

    fn snapshot_of(path: &Path) -> PathBuf {
        let mut snaps: Vec<PathBuf> = std::fs::read_dir(path)
            .expect("ls")
            .map(|e| e.expect("entry").path())
            .filter(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with("snap."))
            })
            .collect();
        snaps.sort();
        snaps.pop().expect("sled wrote a snapshot")
    }

    /// Each leftover an interrupted or full-disk open can leave (leftovers.rs), injected into
    /// a closed database: the next open removes it and every entry is there.
    #[test]
    fn leftovers_of_interrupted_opens_are_recovered() {
        type Inject = fn(&Path);
        let cases: [(&str, Inject, usize); 6] = [
            (
                "partial .generating",
                |p| {
                    let snap = snapshot_of(p);
                    let bytes = std::fs::read(&snap).expect("read");
                    let partial = format!("{}.generating", snap.display());
                    std::fs::write(partial, &bytes[..bytes.len() / 2]).expect("write");
                },
                1,
            ),
            (
                "empty .generating",
                |p| {
                    let snap = snapshot_of(p);
                    std::fs::write(format!("{}.generating", snap.display()), b"").expect("write");
                },
                1,
            ),
            (
                "whole .generating of a later position",
                |p| {
                    let snap = snapshot_of(p);
                    let bytes = std::fs::read(&snap).expect("read");
                    std::fs::write(p.join("snap.FFFFFFFFFFFFFFF0.generating"), bytes)
                        .expect("write");
                },
                1,
            ),
            (
                "damaged snapshot",
                |p| {
                    let snap = snapshot_of(p);
                    let mut bytes = std::fs::read(&snap).expect("read");
                    bytes[3] ^= 0x40;
                    std::fs::write(snap, bytes).expect("write");
                },
                1,
            ),
            (
                "truncated snapshot",
                |p| {
                    let snap = snapshot_of(p);
                    let bytes = std::fs::read(&snap).expect("read");
                    std::fs::write(snap, &bytes[..5]).expect("write");
                },
                1,
            ),
            (
                "partial conf",
                |p| {
                    let conf = p.join("conf");
                    let bytes = std::fs::read(&conf).expect("read");
                    std::fs::write(conf, &bytes[..bytes.len() / 2]).expect("write");
                },
                1,
            ),
        ];
        for (what, inject, removed) in cases {
            let dir = tempfile::tempdir().expect("tempdir");
            let path = dir.path().join("db");
            filled(&path);
            inject(&path);
            if what == "partial .generating" {
                // What sled alone makes of it: the database bricked.
                let raw = sled::Config::new().path(&path).open();
                assert!(raw.is_err(), "{what}: sled alone opens it");
            }
            {
                let s = SledStore::open(&path, &SledOptions::default()).expect(what);
                assert_eq!(s.recovered().removed.len(), removed, "{what}");
                s.close().expect("close");
            }
            intact(&path);
        }
    }

    #[test]
    fn caught_panics_become_one_error() {
        let r = guard("reading", || -> Result<(), StoreError> {
            panic!("bad page")
        });
        match r {
            Err(e @ StoreError::Damaged { .. }) => {
                assert_eq!(
                    e.to_string(),
                    "database files damaged (reading): the storage engine panicked: bad page"
                );
            }
            other => panic!("want Damaged, got {other:?}"),
        }
        // The hook is quiet only inside the catch: outside, the flag is down again.
        assert!(!CAUGHT.with(std::cell::Cell::get));
    }

    #[test]
    fn a_regular_file_is_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = dir.path().join("file");
        std::fs::write(&path, b"not a db").expect("write");
        assert!(matches!(
            SledStore::open(&path, &SledOptions::default()),
            Err(StoreError::Io { .. })
        ));
    }
}
