//! [`AdStore`]: collections of ads on any [`Store`]; opening, the catalog, and what every
//! operation shares (options, the clock, the writer lock, transaction plumbing).
//!
//! Writers are serialized by one lock ([`AdStore`] `write`): a writer reads what it needs,
//! decides, and commits its writes in one store transaction with no other writer in between,
//! then brings the in-memory index (`index.rs`) up to date before releasing the lock. Readers
//! take no lock (only the index's read lock, briefly). A durable write flushes after releasing
//! the lock, so concurrent writers share flushes.

use crate::backend::{Store, TxError};
use crate::codec;
use crate::error::{AdError, Damage, OpenError, StoreError};
use crate::format;
use crate::index::Index;
use crate::key::{self, tree, CollId};
use crate::record::CollectionEntry;
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;
use std::sync::Arc;

/// A source of the current time, in seconds since the epoch.
pub type Clock = Arc<dyn Fn() -> i64 + Send + Sync>;

/// The system clock.
pub fn system_clock() -> Clock {
    Arc::new(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs() as i64)
            .unwrap_or(0)
    })
}

/// Settings of an [`AdStore`].
#[derive(Clone)]
pub struct StoreOptions {
    /// Seconds a consumed id stays tombstoned (HTCondor's default ad lifetime, 900 s).
    pub tombstone_ttl: i64,
    /// Where "now" comes from (tests fix it).
    pub clock: Clock,
    /// Ads committed per transaction by a bulk load.
    pub chunk_size: usize,
    /// Expired ads of its own collection a put purges on its way out (the lazy purge).
    pub lazy_purge: usize,
    /// Most ads a block holds (the new ads of one write are packed into blocks, in load order).
    pub block_ads: usize,
    /// A block is closed once its ads' bodies reach this many bytes. 6 KiB (about ten slot ads)
    /// keeps a full sled leaf below sled's blob threshold, so that rewriting a block (to replace
    /// or remove one of its ads) stays cheap; see docs/storage-format.md.
    pub block_bytes: usize,
}

impl Default for StoreOptions {
    fn default() -> StoreOptions {
        StoreOptions {
            tombstone_ttl: 900,
            clock: system_clock(),
            chunk_size: 1000,
            lazy_purge: 64,
            block_ads: 64,
            block_bytes: 6 << 10,
        }
    }
}

impl std::fmt::Debug for StoreOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoreOptions")
            .field("tombstone_ttl", &self.tombstone_ttl)
            .field("chunk_size", &self.chunk_size)
            .field("lazy_purge", &self.lazy_purge)
            .field("block_ads", &self.block_ads)
            .field("block_bytes", &self.block_bytes)
            .finish_non_exhaustive()
    }
}

/// Whether a write is durable when it returns.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// Flushed before the call returns (bulk loads: after every chunk).
    #[default]
    Immediate,
    /// Left to the next flush: a bulk load flushes once at its end, and [`AdStore::flush`]
    /// flushes on request.
    Buffered,
}

/// Collection names ↔ numbers, as far as committed.
#[derive(Default)]
pub(crate) struct Catalog {
    pub(crate) by_name: HashMap<String, CollId>,
    pub(crate) by_id: HashMap<CollId, String>,
}

/// Collections of ads with ids, lifetimes, consumption and a match registrar, kept in a
/// [`Store`]. `Send + Sync`: share it between threads; reads run while a write goes on.
pub struct AdStore {
    pub(crate) store: Arc<dyn Store>,
    pub(crate) opts: StoreOptions,
    pub(crate) write: Mutex<()>,
    pub(crate) catalog: RwLock<Catalog>,
    pub(crate) index: RwLock<Index>,
    pub(crate) names: crate::names::Names,
    opened: format::Opened,
    /// Told every commit's changes to records, inside the commit (`held.rs`).
    pub(crate) observers: RwLock<Vec<Arc<dyn crate::held::CommitObserver>>>,
}

impl std::fmt::Debug for AdStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "AdStore({})", self.store.describe())
    }
}

/// Tree numbers in every write transaction (the order of [`tree::ALL`]).
pub(crate) mod t {
    pub const META: usize = 0;
    pub const CATALOG: usize = 1;
    pub const BLOCKS: usize = 2;
    pub const DIRS: usize = 3;
    pub const TOMBSTONES: usize = 4;
    pub const MATCHES: usize = 5;
    pub const MATCHES_BY_CYCLE: usize = 7;
    pub const MATCHES_BY_AD: usize = 8;
}

const _: () = assert!(tree::ALL.len() == 9, "t:: numbers follow tree::ALL");

/// Longest collection name, in bytes.
pub const MAX_COLLECTION_LEN: usize = 255;
/// Longest id, in bytes.
pub const MAX_ID_LEN: usize = 4096;

/// Checks a collection name.
pub(crate) fn valid_collection(name: &str) -> Result<(), AdError> {
    let reason = if name.is_empty() {
        "empty"
    } else if name.len() > MAX_COLLECTION_LEN {
        "longer than 255 bytes"
    } else if name.chars().any(char::is_control) {
        "contains a control character"
    } else {
        return Ok(());
    };
    Err(AdError::InvalidCollection {
        name: name.to_owned(),
        reason,
    })
}

/// Checks an id.
pub(crate) fn valid_id(id: &str) -> Result<(), AdError> {
    let reason = if id.is_empty() {
        "empty"
    } else if id.len() > MAX_ID_LEN {
        "longer than 4096 bytes"
    } else {
        return Ok(());
    };
    Err(AdError::InvalidId {
        id: id.to_owned(),
        reason,
    })
}

/// A damage report for an entry of `tree`.
pub(crate) fn damage(
    tree: &str,
    collection: Option<&str>,
    id: Option<&str>,
    key: &[u8],
    problem: impl std::fmt::Display,
) -> Damage {
    Damage {
        tree: tree.to_owned(),
        collection: collection.map(str::to_owned),
        id: id.map(str::to_owned),
        key: key.to_vec(),
        problem: problem.to_string(),
    }
}

/// Maps the outcome of a transaction whose body aborts with [`AdError`]s.
pub(crate) fn tx_result(r: Result<(), TxError>) -> Result<(), AdError> {
    match r {
        Ok(()) => Ok(()),
        Err(TxError::Abort(e)) => match e.downcast::<AdError>() {
            Ok(e) => Err(*e),
            Err(e) => Err(AdError::Store(StoreError::Backend {
                context: "transaction".into(),
                detail: e.to_string(),
            })),
        },
        Err(TxError::Store(e)) => Err(AdError::Store(e)),
        Err(TxError::Conflict) => Err(AdError::Store(StoreError::Backend {
            context: "transaction".into(),
            detail: "unresolved conflict".into(),
        })),
    }
}

impl AdStore {
    /// Opens an ad store on `store`: checks (or stamps) the format version, migrates an older
    /// one, and loads the catalog.
    pub fn open(store: Arc<dyn Store>, opts: StoreOptions) -> Result<AdStore, OpenError> {
        let _span = tracing::info_span!("adstore_open", store = %store.describe()).entered();
        let opened = format::open(&*store)?;
        let names = crate::names::Names::load(&*store)?;
        let index = Index::load(&*store)?;
        let s = AdStore {
            store,
            opts,
            write: Mutex::new(()),
            catalog: RwLock::new(Catalog::default()),
            index: RwLock::new(index),
            names,
            opened,
            observers: RwLock::new(Vec::new()),
        };
        s.load_catalog()?;
        Ok(s)
    }

    /// What opening found: a new database, a current one, or one migrated from an older format.
    pub fn opened(&self) -> format::Opened {
        self.opened
    }

    /// The store underneath.
    pub fn backend(&self) -> &Arc<dyn Store> {
        &self.store
    }

    /// The options in force.
    pub fn options(&self) -> &StoreOptions {
        &self.opts
    }

    pub(crate) fn now(&self) -> i64 {
        (self.opts.clock)()
    }

    /// Reads the catalog into memory.
    fn load_catalog(&self) -> Result<(), OpenError> {
        let mut cat = Catalog::default();
        for entry in self
            .store
            .scan(tree::CATALOG, crate::backend::KeyRange::all())?
        {
            let (k, v) = entry?;
            let bad = |name: Option<&str>, problem: &dyn std::fmt::Display| {
                OpenError::Damaged(damage(tree::CATALOG, name, None, &k, problem))
            };
            let name = key::decode_catalog(&k)
                .ok_or_else(|| bad(None, &"collection name is not UTF-8"))?;
            let e = codec::open::<CollectionEntry>(&k, &v).map_err(|e| bad(Some(&name), &e))?;
            cat.by_id.insert(e.id, name.clone());
            cat.by_name.insert(name, e.id);
        }
        *self.catalog.write() = cat;
        Ok(())
    }

    /// The number of collection `name`, if it exists.
    pub(crate) fn coll_id(&self, name: &str) -> Option<CollId> {
        self.catalog.read().by_name.get(name).copied()
    }

    /// The name of collection number `id`.
    pub(crate) fn coll_name(&self, id: CollId) -> Option<String> {
        self.catalog.read().by_id.get(&id).cloned()
    }

    /// Records a collection created by a committed transaction.
    pub(crate) fn learn_collection(&self, name: &str, id: CollId) {
        let mut cat = self.catalog.write();
        cat.by_name.insert(name.to_owned(), id);
        cat.by_id.insert(id, name.to_owned());
    }

    /// The collections, by name.
    pub fn collections(&self) -> Vec<String> {
        let mut names: Vec<String> = self.catalog.read().by_name.keys().cloned().collect();
        names.sort();
        names
    }

    /// Makes every write so far durable.
    pub fn flush(&self) -> Result<(), AdError> {
        Ok(self.store.flush()?)
    }

    /// Flushes when `d` asks for it.
    pub(crate) fn commit_point(&self, d: Durability) -> Result<(), AdError> {
        match d {
            Durability::Immediate => self.flush(),
            Durability::Buffered => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn coll(name: &str, ok: bool) {
        assert_eq!(valid_collection(name).is_ok(), ok, "{name:?}");
    }

    #[test]
    fn collection_names() {
        coll("machines", true);
        coll("jobs in pool 2", true);
        coll("", false);
        coll("a\nb", false);
        coll(&"x".repeat(256), false);
        coll(&"x".repeat(255), true);
    }

    #[test]
    fn ids() {
        assert!(valid_id("slot1@host").is_ok());
        assert!(valid_id("").is_err());
        assert!(valid_id(&"i".repeat(MAX_ID_LEN + 1)).is_err());
    }
}
