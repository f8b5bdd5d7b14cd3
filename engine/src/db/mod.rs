//! [`Db`]: the database a program opens — collections of ads on disk (or in memory), with
//! lifetimes, consumption, a match registrar, constraint queries and file loading.
//!
//! `Db` is `Send + Sync`: share it in an `Arc`. Writes are serialized inside; gets and scans
//! take no lock and run while a write goes on; a constraint query locks its collection's held
//! index (`indexes.rs`), which a write to any collection also holds while it runs.

mod checkpoints;
mod held_files;
mod history;
mod indexes;
mod loading;
mod maintenance;
mod opening;
mod query;
mod restoring;

pub use self::checkpoints::CheckpointPolicy;
pub use self::history::{match_json, rank_json, RetentionPolicy, RETENTION_STEP};
pub use self::indexes::{Held, Made, SharedIndex};
pub use self::loading::{check_files, LoadOptions, LoadProgress, LoadReport, LoadedAd};
pub use self::maintenance::{MaintainReport, Maintenance};
pub(crate) use self::query::same_eval;
pub use self::query::{selects, Answer, Joined, Query};

use self::indexes::{Indexes, Writing};
use crate::collection::HeldAds;
use crate::cycle::{HeldOffers, HeldRequests};
use adjoin_index::IndexOptions;

use adjoin_query::ClassAd;
use adjoin_storage::backend::{MemStore, SledOptions, SledStore, Store};
use adjoin_storage::{
    AdError, AdScan, AdStore, Carve, CheckReport, Clock, Durability, MatchRecord, NewMatch,
    OpenError, Purged, Put, PutOptions, Stats, StoreOptions, StoredAd, Tombstone,
};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use thiserror::Error;

/// Settings for opening a [`Db`].
#[derive(Clone, Debug)]
pub struct DbOptions {
    /// Bytes of page cache the on-disk store may hold.
    pub cache_capacity: u64,
    /// Seconds a consumed id stays tombstoned.
    pub tombstone_ttl: i64,
    /// Ads per transaction in bulk loads.
    pub chunk_size: usize,
    /// Most ads per stored block (see docs/storage-format.md).
    pub block_ads: usize,
    /// Bytes of records at which a stored block is closed.
    pub block_bytes: usize,
    /// A fixed clock, for tests; `None` uses the system clock.
    pub clock: Option<ClockFn>,
    /// A retention policy for the match history, applied after every durable cycle (one
    /// bounded step each) and by [`Db::apply_retention`]; `None` keeps every record.
    pub retention: Option<RetentionPolicy>,
    /// How long an open waits for another process to release the database before failing
    /// with "database in use" (default half a second, which covers a process that is just
    /// closing it).
    pub lock_wait: std::time::Duration,
    /// Open without writing: every write is refused ([`DbError::ReadOnly`]). A database
    /// whose files cannot be written is opened so without being asked. The store underneath
    /// needs write access to its files even to read, so a read-only open reads a private
    /// copy of the directory, made at open and removed at drop (its cost: copying the
    /// files).
    pub read_only: bool,
    /// Checkpoints of the held indexes taken in the background (on-disk databases that are
    /// not read-only), so that a restart after a kill replays only what came after the last
    /// one; `None` checkpoints only at close. Default: [`CheckpointPolicy::default`].
    pub checkpoints: Option<CheckpointPolicy>,
}

/// A clock as [`DbOptions`] holds it.
#[derive(Clone)]
pub struct ClockFn(pub Clock);

impl std::fmt::Debug for ClockFn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClockFn")
    }
}

impl Default for DbOptions {
    fn default() -> DbOptions {
        let s = StoreOptions::default();
        DbOptions {
            cache_capacity: SledOptions::default().cache_capacity,
            tombstone_ttl: s.tombstone_ttl,
            chunk_size: s.chunk_size,
            block_ads: s.block_ads,
            block_bytes: s.block_bytes,
            clock: None,
            retention: None,
            lock_wait: SledOptions::default().lock_grace,
            read_only: false,
            checkpoints: Some(CheckpointPolicy::default()),
        }
    }
}

impl DbOptions {
    fn store_options(&self) -> StoreOptions {
        let mut s = StoreOptions {
            tombstone_ttl: self.tombstone_ttl,
            chunk_size: self.chunk_size,
            block_ads: self.block_ads,
            block_bytes: self.block_bytes,
            ..StoreOptions::default()
        };
        if let Some(c) = &self.clock {
            s.clock = c.0.clone();
        }
        s
    }
}

/// A failure of a [`Db`] operation.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum DbError {
    /// Opening failed: e.g. the database is in use by another process, or was written by a
    /// newer adjoin.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// An operation on ads failed: e.g. a put under a consumed id.
    #[error(transparent)]
    Ad(#[from] AdError),
    /// A file could not be read: e.g. `load` of a missing file, or one that is not UTF-8.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A constraint that does not parse: e.g. `query 'Memory >'`.
    #[error("constraint: {0}")]
    Constraint(#[from] adjoin_query::ParseError),
    /// A collection's index ran out of rectangle ids.
    #[error("indexing: {0}")]
    Index(#[from] adjoin_index::IndexError),
    /// This process already has the database open: e.g. a second `Db::open` of the same
    /// path while the first `Db` is alive. Share the first (`Db` is `Send + Sync`).
    #[error("database already open in this process: {}", path.display())]
    AlreadyOpen {
        /// The database directory.
        path: PathBuf,
    },
    /// A write to a database opened read-only (asked for, or its files are not writable).
    #[error("database opened read-only: {} (its files are not writable, or read-only was asked for)", path.display())]
    ReadOnly {
        /// The database directory.
        path: PathBuf,
    },
    /// A matchmaking cycle failed (for callers holding one error type for the facade).
    #[error(transparent)]
    Cycle(Box<crate::cycle::CycleError>),
    /// A strict load refused its input because some ads are bad: e.g. `load --strict` of a file
    /// with one malformed ad. Nothing was stored.
    #[error("load refused: {} bad ad(s), nothing stored; first: {}", bad.len(), bad.first().map(ToString::to_string).unwrap_or_default())]
    Refused {
        /// Every bad ad.
        bad: Vec<crate::files::BadAd>,
    },
    /// A load failed part-way (e.g. the file system filled up) after storing some of its ads:
    /// the first `stored` ads of its input are in the collection, of which `durable` are known
    /// to be on disk (the others too unless the flush after the failure failed as well).
    #[error("load into {collection} failed after storing {stored} ad(s) of its input, in input order ({}): {source}", durable_note(*stored, *durable))]
    LoadFailed {
        /// The collection loaded into.
        collection: String,
        /// Ads committed before the failure.
        stored: u64,
        /// Of those, ads known to be durable.
        durable: u64,
        /// The failure.
        #[source]
        source: Box<DbError>,
    },
}

/// How many of a failed load's ads are known durable, for its message.
fn durable_note(stored: u64, durable: u64) -> String {
    if durable >= stored {
        "all of them durable".to_owned()
    } else {
        format!(
            "{durable} known durable; the flush after the failure failed, so up to {} of the \
             last ones may be missing after a restart",
            stored - durable
        )
    }
}

impl From<crate::cycle::CycleError> for DbError {
    /// A cycle's database error as itself; any other cycle error wrapped.
    fn from(e: crate::cycle::CycleError) -> DbError {
        match e {
            crate::cycle::CycleError::Db(db) => *db,
            other => DbError::Cycle(Box::new(other)),
        }
    }
}

/// A database of ad collections.
///
/// It holds a spatial index per collection it has queried (see `indexes.rs`), restored from
/// a snapshot or rebuilt on first use and kept current by its writes; [`Db::close`] (or
/// dropping the Db) writes the snapshots of those that changed.
#[derive(Debug)]
pub struct Db {
    /// The background checkpoints (stopped first when the Db goes).
    checkpointer: Option<checkpoints::Checkpointer>,
    store: Arc<AdStore>,
    path: Option<PathBuf>,
    indexes: Arc<Indexes>,
    retention: Option<RetentionPolicy>,
    /// This process's claim on the directory.
    _claim: Option<opening::Claim>,
    /// The private copy a read-only database reads (dropped after the store, last).
    read_only: Option<opening::Copy>,
    /// The requests the last cycles read, by collection (`cycle::held_requests`).
    held_requests: HeldRequests,
    /// The offers the last cycles read, decoded, by collection (`Collection::scan_held`).
    held_ads: HeldAds,
    /// What the last cycles derived from their offers alone, by collection
    /// (`cycle::held_offers`).
    held_offers: HeldOffers,
}

impl Db {
    /// Opens (creating if needed) the database in directory `path`.
    pub fn open(path: impl AsRef<Path>) -> Result<Db, DbError> {
        Db::open_with(path, &DbOptions::default())
    }

    /// Opens the database in `path` with `opts`.
    ///
    /// Fails with [`DbError::AlreadyOpen`] when this process has it open already, and with
    /// "database in use" when another process holds it for longer than
    /// [`DbOptions::lock_wait`]. A database whose files are not writable is opened read-only
    /// ([`DbOptions::read_only`]).
    pub fn open_with(path: impl AsRef<Path>, opts: &DbOptions) -> Result<Db, DbError> {
        let path = path.as_ref();
        let claim = opening::Claim::take(path).ok_or_else(|| DbError::AlreadyOpen {
            path: path.to_owned(),
        })?;
        let read_only = if opts.read_only || opening::not_writable(path) {
            let copy = opening::Copy::of(path).map_err(|source| DbError::Io {
                path: path.to_owned(),
                source,
            })?;
            Some(copy)
        } else {
            None
        };
        let sled_opts = SledOptions {
            cache_capacity: opts.cache_capacity,
            lock_grace: opts.lock_wait,
            ..SledOptions::default()
        };
        let dir = read_only.as_ref().map_or(path, |c| c.path());
        // The checkpoints restored while sled and the store open (`restoring.rs`).
        let restoring = restoring::Restoring::start(dir, &IndexOptions::default());
        let backend = SledStore::open(dir, &sled_opts).map_err(OpenError::from)?;
        // Under the lock sled now holds: what interrupted snapshot writes left.
        held_files::remove_temporaries(dir);
        let store = Arc::new(AdStore::open(Arc::new(backend), opts.store_options())?);
        let mut indexes = Indexes::new(Some(dir.to_owned()), IndexOptions::default());
        indexes.restoring = restoring;
        let indexes = Arc::new(indexes);
        // The store tells the indexes every commit's changes, to count towards a checkpoint.
        store.observe(Arc::clone(&indexes.unsaved) as Arc<dyn adjoin_storage::CommitObserver>);
        let checkpointer = match (&opts.checkpoints, &read_only) {
            (Some(policy), None) => Some(
                checkpoints::Checkpointer::spawn(
                    Arc::clone(&indexes),
                    Arc::clone(&store),
                    policy.clone(),
                )
                .map_err(|source| DbError::Io {
                    path: path.to_owned(),
                    source,
                })?,
            ),
            _ => None,
        };
        Ok(Db {
            checkpointer,
            store,
            path: Some(path.to_owned()),
            retention: opts.retention.clone(),
            indexes,
            _claim: Some(claim),
            read_only,
            held_requests: HeldRequests::default(),
            held_ads: HeldAds::default(),
            held_offers: HeldOffers::default(),
        })
    }

    /// True when the database was opened read-only (every write is refused).
    pub fn is_read_only(&self) -> bool {
        self.read_only.is_some()
    }

    /// A database held in memory, gone when dropped.
    pub fn open_in_memory() -> Result<Db, DbError> {
        Db::open_in_memory_with(&DbOptions::default())
    }

    /// A database in memory with `opts`.
    pub fn open_in_memory_with(opts: &DbOptions) -> Result<Db, DbError> {
        let backend: Arc<dyn Store> = Arc::new(MemStore::new());
        let store = Arc::new(AdStore::open(backend, opts.store_options())?);
        Ok(Db {
            checkpointer: None,
            store,
            path: None,
            indexes: Arc::new(Indexes::new(None, IndexOptions::default())),
            retention: opts.retention.clone(),
            _claim: None,
            read_only: None,
            held_requests: HeldRequests::default(),
            held_ads: HeldAds::default(),
            held_offers: HeldOffers::default(),
        })
    }

    /// Flushes and closes the database, returning once its directory is free for another
    /// process to open (sled's threads can hold the lock a moment after the last handle goes).
    pub fn close(self) -> Result<(), DbError> {
        self.store.flush()?;
        self.save_indexes()?;
        let path = match self.read_only {
            Some(_) => None,
            None => self.path.clone(),
        };
        drop(self);
        if let Some(p) = path {
            adjoin_storage::backend::wait_released(&p, std::time::Duration::from_secs(10))
                .map_err(AdError::from)?;
        }
        Ok(())
    }

    /// The evaluation options of the held indexes (a query with others is answered by a scan).
    pub(crate) fn index_eval(&self) -> &adjoin_query::eval::EvalOptions {
        &self.indexes.opts.eval
    }

    /// The directory, for an on-disk database.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    /// The requests the last cycles read, by collection.
    pub(crate) fn held_requests(&self) -> &HeldRequests {
        &self.held_requests
    }

    /// The offers the last cycles read, decoded, by collection.
    pub(crate) fn held_ads(&self) -> &HeldAds {
        &self.held_ads
    }

    /// What the last cycles derived from their offers alone, by collection.
    pub(crate) fn held_offers(&self) -> &HeldOffers {
        &self.held_offers
    }

    /// Frees what matchmaking cycles hold between them: the requests and offers the last
    /// cycles read (their ads, shapes and windows), so that the next cycle reads every ad
    /// again. Held data is otherwise kept while the Db is open (at most a million requests and
    /// a million offers a collection).
    pub fn release_held(&self) {
        self.held_requests.clear();
        self.held_ads.clear();
        self.held_offers.clear();
    }

    /// The ad store underneath (for operations the facade does not wrap). A held index does
    /// not follow writes made here: it notices the collection's new generation at its next
    /// use and is rebuilt.
    pub fn store(&self) -> &AdStore {
        &self.store
    }

    /// Stores `ad` in `collection` (id from `Name`, then `GlobalJobId`, else generated),
    /// durably.
    pub fn put(&self, collection: &str, ad: &ClassAd) -> Result<Put, DbError> {
        self.put_with(collection, ad, &PutOptions::default())
    }

    /// Stores `ad` in `collection` under id `id` (whatever the ad's `Name`), durably,
    /// replacing (or re-advertising) an ad with that id.
    pub fn put_with_id(&self, collection: &str, id: &str, ad: &ClassAd) -> Result<Put, DbError> {
        self.writing_to(&[collection], |w| {
            let put = self
                .store
                .put_with_id(collection, id, ad, &PutOptions::default())?;
            w.apply(collection, |h| h.apply_put(&put, Arc::new(ad.clone())));
            Ok(put)
        })
    }

    /// Stores `ad` with the given id rule, expiry and durability.
    pub fn put_with(
        &self,
        collection: &str,
        ad: &ClassAd,
        opts: &PutOptions,
    ) -> Result<Put, DbError> {
        self.writing_to(&[collection], |w| {
            let put = self.store.put(collection, ad, opts)?;
            w.apply(collection, |h| h.apply_put(&put, Arc::new(ad.clone())));
            Ok(put)
        })
    }

    /// Runs a write that changes only `collections` (and purges nothing elsewhere) with their
    /// held indexes locked, so that they follow it; writes to other collections, and queries
    /// building other collections' indexes, go on meanwhile (`indexes.rs`).
    fn writing_to<T>(
        &self,
        collections: &[&str],
        write: impl FnOnce(&mut Writing<'_>) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        self.refuse_if_read_only()?;
        let slots = self.held_slots_of(collections);
        let mut w = Writing::begin(self, &slots)?;
        let out = write(&mut w);
        w.finish(out.is_ok())?;
        out
    }

    /// [`DbError::ReadOnly`] for a database opened read-only.
    fn refuse_if_read_only(&self) -> Result<(), DbError> {
        match self.read_only {
            Some(_) => Err(DbError::ReadOnly {
                path: self.path.clone().unwrap_or_default(),
            }),
            None => Ok(()),
        }
    }

    /// Runs a write that may change any collection (a purge, maintenance) with every held
    /// index locked, so that they follow it (`indexes.rs`).
    fn writing<T>(
        &self,
        write: impl FnOnce(&mut Writing<'_>) -> Result<T, DbError>,
    ) -> Result<T, DbError> {
        self.refuse_if_read_only()?;
        // One Db write at a time, the slots listed under the same lock: every commit to a
        // held collection is then a held index's own (writes through `store()` excepted).
        let _one = self.indexes.write.lock();
        let slots = self.held_slots();
        let mut w = Writing::begin(self, &slots)?;
        let out = write(&mut w);
        w.finish(out.is_ok())?;
        out
    }

    /// How many held-index checkpoints this Db has written (at close, by
    /// [`Db::save_indexes`] and in the background).
    pub fn checkpoints_written(&self) -> u64 {
        self.indexes
            .checkpoints
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Writes the checkpoints of the held indexes that changed (each after a flush).
    pub fn save_indexes(&self) -> Result<(), DbError> {
        // No purge or maintenance step between the flushes and the snapshots; other writes
        // wait for the index being saved (its lock), and each snapshot follows a flush.
        let _one = self.indexes.write.lock();
        if self.read_only.is_some() {
            return Ok(());
        }
        self.indexes.save(&|| Ok(self.store.flush()?))
    }

    /// The live ad `id` of `collection`.
    pub fn get(&self, collection: &str, id: &str) -> Result<Option<StoredAd>, DbError> {
        Ok(self.store.get(collection, id)?)
    }

    /// Removes ad `id`, durably; true when a live ad was removed.
    pub fn remove(&self, collection: &str, id: &str) -> Result<bool, DbError> {
        self.writing_to(&[collection], |w| {
            let removed = self.store.remove(collection, id, Durability::Immediate)?;
            if removed {
                w.apply(collection, |h| h.apply_remove(id));
            }
            Ok(removed)
        })
    }

    /// The live ads of `collection` in load order.
    pub fn scan(&self, collection: &str) -> Result<AdScan<'_>, DbError> {
        Ok(self.store.scan(collection)?)
    }

    /// The collections, by name.
    pub fn collections(&self) -> Vec<String> {
        self.store.collections()
    }

    /// Consumes ad `id` (removes it and tombstones its id), durably.
    pub fn consume(&self, collection: &str, id: &str) -> Result<(), DbError> {
        self.writing_to(&[collection], |w| {
            self.store.consume(collection, id)?;
            w.apply(collection, |h| h.apply_remove(id));
            Ok(())
        })
    }

    /// Records a match, consuming the members it says to, in one durable transaction.
    pub fn record_match(&self, m: &NewMatch) -> Result<MatchRecord, DbError> {
        let colls: Vec<&str> = m.members.iter().map(|m| m.collection.as_str()).collect();
        self.writing_to(&colls, |w| {
            let rec = self.store.record_match(m)?;
            for member in m.members.iter().filter(|m| m.consume) {
                w.apply(&member.collection, |h| h.apply_remove(&member.id));
            }
            Ok(rec)
        })
    }

    /// Records many matches in one durable transaction (one flush), each with the consumption
    /// of its members and all or nothing; one outcome per match attempted, in order. A refused
    /// match (e.g. a member gone: `AdError::MissingMember`) records and consumes nothing;
    /// `after` says whether the matches after it are still attempted.
    pub fn record_matches(
        &self,
        ms: &[NewMatch],
        after: adjoin_storage::AfterRefusal,
    ) -> Result<Vec<Result<MatchRecord, DbError>>, DbError> {
        self.record_matches_with(ms, after, Durability::Immediate)
    }

    /// [`Db::record_matches`], flushed or not (`Buffered`: atomic now, durable at the next
    /// [`Db::flush`]).
    pub fn record_matches_with(
        &self,
        ms: &[NewMatch],
        after: adjoin_storage::AfterRefusal,
        durability: Durability,
    ) -> Result<Vec<Result<MatchRecord, DbError>>, DbError> {
        self.record_matches_carving(ms, &[], after, durability)
    }

    /// [`Db::record_matches_with`] where match `i` may carve a partitionable offer
    /// (`carves[i]`): the offer is replaced by what is left of it in the match's transaction
    /// instead of being consumed.
    pub fn record_matches_carving(
        &self,
        ms: &[NewMatch],
        carves: &[Option<Carve>],
        after: adjoin_storage::AfterRefusal,
        durability: Durability,
    ) -> Result<Vec<Result<MatchRecord, DbError>>, DbError> {
        let mut colls: Vec<&str> = ms
            .iter()
            .flat_map(|m| m.members.iter().map(|m| m.collection.as_str()))
            .chain(carves.iter().flatten().map(|c| c.collection.as_str()))
            .collect();
        colls.sort_unstable();
        colls.dedup();
        self.writing_to(&colls, |w| {
            let outcomes = self
                .store
                .record_matches_carving(ms, carves, after, durability)?;
            for (i, (m, outcome)) in ms.iter().zip(&outcomes).enumerate() {
                if outcome.is_ok() {
                    for member in m.members.iter().filter(|m| m.consume) {
                        w.apply(&member.collection, |h| h.apply_remove(&member.id));
                    }
                    if let Some(Some(c)) = carves.get(i) {
                        // The held index does not know the remainder's expiry: it is
                        // dropped, and rebuilt when next used.
                        w.apply(&c.collection, |_| false);
                    }
                }
            }
            Ok(outcomes
                .into_iter()
                .map(|r| r.map_err(DbError::from))
                .collect())
        })
    }

    /// The recorded matches, oldest first.
    pub fn matches(&self) -> Result<Vec<MatchRecord>, DbError> {
        Ok(self.store.matches()?.collect::<Result<Vec<_>, _>>()?)
    }

    /// The match with id `id`.
    pub fn get_match(&self, id: u64) -> Result<Option<MatchRecord>, DbError> {
        Ok(self.store.get_match(id)?)
    }

    /// The tombstone in force on `id`, if any.
    pub fn tombstone(&self, collection: &str, id: &str) -> Result<Option<Tombstone>, DbError> {
        Ok(self.store.tombstone(collection, id)?)
    }

    /// Purges expired ads and tombstones, durably.
    pub fn purge(&self) -> Result<Purged, DbError> {
        self.writing(|_| Ok(self.store.purge()?))
    }

    /// Counts per collection, matches, and bytes on disk.
    pub fn stats(&self) -> Result<Stats, DbError> {
        let mut stats = self.store.stats()?;
        if let (Some(copy), Some(path)) = (&self.read_only, &self.path) {
            // The backend names the private copy read; the user named the database.
            let (copy, path) = (copy.path().display(), path.display());
            stats.backend = stats.backend.replace(&copy.to_string(), &path.to_string())
                + " (read-only: a private copy)";
        }
        Ok(stats)
    }

    /// Reads and verifies every record; the report lists damage by collection and id.
    pub fn check(&self) -> Result<CheckReport, DbError> {
        Ok(self.store.check()?)
    }

    /// Makes every write so far durable.
    pub fn flush(&self) -> Result<(), DbError> {
        Ok(self.store.flush()?)
    }
}

impl Drop for Db {
    fn drop(&mut self) {
        self.checkpointer = None;
        // Best effort: a checkpoint not written only costs replaying more on the next open.
        if let Err(e) = self.save_indexes() {
            tracing::warn!(%e, "index snapshots not written");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn db_is_send_and_sync() {
        assert_send_sync::<Db>();
    }

    #[test]
    fn put_with_id_and_one_error_type() {
        let db = Db::open_in_memory().expect("db");
        let ad = ClassAd::builder()
            .attr("Name", "ignored")
            .attr("Memory", 2048)
            .expr("Requirements", "true")
            .build()
            .expect("ad");
        let put = db.put_with_id("m", "chosen", &ad).expect("put");
        assert_eq!((put.id.as_str(), put.generated), ("chosen", false));
        assert!(db.get("m", "ignored").expect("get").is_none());
        assert_eq!(db.count("m", None).expect("count"), 1);
        let probe = ClassAd::builder()
            .expr("Requirements", "TARGET.Memory > 1024")
            .build()
            .expect("probe");
        let answer = db.candidates("m", &probe).expect("candidates");
        assert_eq!(answer.ids, ["chosen"]);
        // A cycle's error converts into the facade's.
        let same = crate::cycle::run(&db, &crate::cycle::CycleOptions::new("m", "m"))
            .expect_err("same collection");
        let e: DbError = same.into();
        assert!(matches!(e, DbError::Cycle(_)), "{e}");
        let e: DbError = crate::cycle::CycleError::from(DbError::ReadOnly {
            path: PathBuf::from("p"),
        })
        .into();
        assert!(matches!(e, DbError::ReadOnly { .. }), "{e}");
    }

    #[test]
    fn a_second_open_in_one_process_says_so() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.db");
        let first = Db::open(&p).expect("first");
        let err = Db::open(&p).expect_err("second");
        assert!(matches!(err, DbError::AlreadyOpen { .. }), "{err}");
        assert!(
            err.to_string().contains("already open in this process"),
            "{err}"
        );
        first.close().expect("close");
        Db::open(&p).expect("after close");
    }

    #[test]
    fn read_only_opens_read_and_refuse_writes() {
        let dir = tempfile::tempdir().expect("tempdir");
        let p = dir.path().join("x.db");
        let db = Db::open(&p).expect("open");
        let ad = adjoin_query::parse::classad("[Name = \"a\"; Memory = 1]").expect("ad");
        db.put("m", &ad).expect("put");
        db.close().expect("close");
        let opts = DbOptions {
            read_only: true,
            ..DbOptions::default()
        };
        let ro = Db::open_with(&p, &opts).expect("read-only");
        assert!(ro.is_read_only());
        // Statistics name the database opened, not the private copy read.
        let backend = ro.stats().expect("stats").backend;
        let shown = format!("{} (read-only: a private copy)", p.display());
        assert!(backend.ends_with(&shown), "{backend}");
        assert!(ro.get("m", "a").expect("get").is_some());
        assert_eq!(ro.count("m", None).expect("count"), 1);
        let err = ro.put("m", &ad).expect_err("write");
        assert!(matches!(err, DbError::ReadOnly { .. }), "{err}");
        drop(ro);
        // The original is untouched and free.
        let db = Db::open(&p).expect("reopen");
        assert!(!db.is_read_only());
        assert_eq!(db.count("m", None).expect("count"), 1);
    }
}
