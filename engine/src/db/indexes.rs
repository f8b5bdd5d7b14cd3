//! The indexes a [`Db`] holds: one spatial index per collection, made on first use and kept
//! exact as the Db's own writes change the collection.
//!
//! A held index is made the cheapest way that is current: restored from the collection's
//! snapshot file when the snapshot's store generation is the collection's (no ad is read),
//! else rebuilt by one scan of the store. It keeps no ads in memory: it reads them back from
//! the store ([`StoreSource`]) when it must evaluate a candidate or import a new attribute.
//! Index numbers ([`AdId`]) follow load order: new ads get the next number, a replaced ad
//! keeps its own.
//!
//! **Invariant**: a held index describes the collection as of its `generation`. A Db write
//! names the collections it changes (a put, load or removal one, a match its members'; a purge
//! or maintenance step all of them, one at a time under `Indexes::write`); it takes those held
//! indexes' locks in name order, writes, applies the same change to each index and records the
//! new generation (a failed write that changed the collection anyway drops the index). Writes
//! to other collections, and an index being built for another collection, do not wait for it:
//! the store changes no collection a write does not name (its lazy purge stays within the
//! written collection). An index made while an unlocked write commits is labelled with the
//! generation read before its scan, so it is found stale and made again at its next use. A query first compares the generation with the
//! store's and rebuilds the index if they differ (e.g. after writes made through
//! [`Db::store`] directly; such a write made *while* a Db write runs is not told apart from
//! it, so writes through `store()` must not race the Db's own). On close the indexes that
//! changed are written as snapshots (`snapshot.rs`), under the write lock, after a flush.

use super::held_files::{self, OptionsStamp, SnapshotFile};
use super::{Db, DbError};
use adjoin_index::{AdId, AdSource, Converted, Converter, Index, IndexOptions, RoaringBitmap};
use adjoin_query::ClassAd;
use adjoin_storage::{AdError, AdStore, Generation};
use parking_lot::{Mutex, RwLock};
use rustc_hash::FxHashMap;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

/// Ids by index number, shared by a held index and its source. The reverse map is made on
/// first need (a write), so that a restart that only reads does not build it.
#[derive(Debug, Default)]
pub(crate) struct IdMap {
    ids: Vec<Option<Box<str>>>,
    by_id: Option<FxHashMap<Box<str>, AdId>>,
    live: usize,
}

impl IdMap {
    /// The map of `ids`, by index number.
    fn from_ids(ids: Vec<Option<String>>) -> IdMap {
        let ids: Vec<Option<Box<str>>> = ids
            .into_iter()
            .map(|i| i.map(String::into_boxed_str))
            .collect();
        let live = ids.iter().filter(|i| i.is_some()).count();
        IdMap {
            ids,
            by_id: None,
            live,
        }
    }

    /// The id of number `n`.
    pub(crate) fn id(&self, n: AdId) -> Option<&str> {
        self.ids.get(n as usize)?.as_deref()
    }

    fn by_id(&mut self) -> &mut FxHashMap<Box<str>, AdId> {
        let ids = &self.ids;
        self.by_id.get_or_insert_with(|| {
            (0..)
                .zip(ids)
                .filter_map(|(n, id)| Some((id.clone()?, n)))
                .collect()
        })
    }

    fn number(&mut self, id: &str) -> Option<AdId> {
        self.by_id().get(id).copied()
    }

    /// Gives `id` the next number.
    fn push(&mut self, id: &str) -> Option<AdId> {
        let n = AdId::try_from(self.ids.len()).ok()?;
        self.by_id().insert(id.into(), n);
        self.ids.push(Some(id.into()));
        self.live += 1;
        Some(n)
    }

    fn remove(&mut self, id: &str) -> Option<AdId> {
        let n = self.by_id().remove(id)?;
        if let Some(slot) = self.ids.get_mut(n as usize) {
            *slot = None;
        }
        self.live -= 1;
        Some(n)
    }
}

/// When held ads expire: by number, and in time order (so that a write's purge and a count
/// cost what expired, not every expiring ad).
#[derive(Debug, Default)]
struct Expiries {
    at: FxHashMap<AdId, i64>,
    by_time: std::collections::BTreeSet<(i64, AdId)>,
}

impl Expiries {
    fn set(&mut self, n: AdId, t: Option<i64>) {
        if let Some(old) = self.at.remove(&n) {
            self.by_time.remove(&(old, n));
        }
        if let Some(t) = t {
            self.at.insert(n, t);
            self.by_time.insert((t, n));
        }
    }

    fn expired(&self, n: AdId, now: i64) -> bool {
        self.at.get(&n).is_some_and(|&t| t <= now)
    }

    /// The numbers expired at `now`.
    fn due(&self, now: i64) -> Vec<AdId> {
        self.by_time
            .range(..(now.saturating_add(1), 0))
            .map(|&(_, n)| n)
            .collect()
    }

    fn due_count(&self, now: i64) -> usize {
        self.by_time.range(..(now.saturating_add(1), 0)).count()
    }
}

/// Reads a held index's ads back from the store, by index number.
#[derive(Debug)]
pub(crate) struct StoreSource {
    store: Arc<AdStore>,
    collection: String,
    ids: Arc<RwLock<IdMap>>,
    /// What could not be read back (damage), for the next answer to report ([`Held::take_unread`]).
    unread: Arc<Mutex<Vec<Unread>>>,
}

/// A read back from the store that failed: the problem, and the ad's id when one was asked for.
type Unread = (String, Option<String>);

/// Failed reads back from the store as messages: repeats of one problem (one damaged page
/// behind many ads) told once, with the first ids it hides and how many.
fn tell_unread(all: Vec<Unread>) -> Vec<String> {
    const SHOWN: usize = 5;
    let mut told: Vec<(String, Vec<String>, usize)> = Vec::new();
    let mut at: HashMap<String, usize> = HashMap::new();
    for (m, id) in all {
        let i = *at.entry(m.clone()).or_insert_with(|| {
            told.push((m, Vec::new(), 0));
            told.len() - 1
        });
        let (_, ids, n) = &mut told[i];
        *n += 1;
        if let Some(id) = id.filter(|_| ids.len() < SHOWN) {
            ids.push(id);
        }
    }
    told.into_iter()
        .map(|(m, ids, n)| match (ids.as_slice(), n) {
            ([], 1) => m,
            ([], n) => format!("{m} ({n} reads)"),
            ([one], 1) => format!("ad {one} cannot be read: {m}"),
            (some, n) => format!(
                "{n} ads cannot be read ({}{}): {m}",
                some.join(", "),
                if n > some.len() { ", …" } else { "" }
            ),
        })
        .collect()
}

impl AdSource for StoreSource {
    fn for_each(&self, f: &mut dyn FnMut(AdId, Arc<ClassAd>)) {
        let scan = match self.store.scan(&self.collection) {
            Ok(scan) => scan,
            Err(e) => return self.unread.lock().push((e.to_string(), None)),
        };
        // The scan and the numbers both follow load order: walk them side by side.
        let map = self.ids.read();
        let mut n = 0usize;
        let unread = &self.unread;
        let readable = scan.filter_map(|ad| {
            ad.map_err(|e| unread.lock().push((e.to_string(), None)))
                .ok()
        });
        for ad in readable {
            let start = n;
            while n < map.ids.len() && map.ids[n].as_deref() != Some(ad.id()) {
                n += 1;
            }
            if n == map.ids.len() {
                // Not held (an ad the index does not know): look no further for it.
                n = start;
                continue;
            }
            f(n as AdId, Arc::new(ad.ad));
            n += 1;
        }
    }

    fn fetch(&self, wanted: &[AdId]) -> Vec<Option<Arc<ClassAd>>> {
        let ids: Vec<Option<Box<str>>> = {
            let map = self.ids.read();
            wanted.iter().map(|&n| map.id(n).map(Into::into)).collect()
        };
        ids.iter()
            .map(
                |id| match self.store.get(&self.collection, id.as_deref()?) {
                    Ok(ad) => Some(Arc::new(ad?.ad)),
                    Err(AdError::Damaged(d)) if d.id.is_some() => {
                        let what = format!("tree {}: {}", d.tree, d.problem);
                        self.unread.lock().push((what, d.id));
                        None
                    }
                    Err(e) => {
                        self.unread.lock().push((e.to_string(), None));
                        None
                    }
                },
            )
            .collect()
    }
}

/// One collection's index and what ties it to the store.
#[derive(Debug)]
pub struct Held {
    /// The spatial index (its ad ids are index numbers).
    pub index: Index,
    ids: Arc<RwLock<IdMap>>,
    expires: Expiries,
    /// Ads with ports: a constraint query evaluates them whole (the index holds their ports).
    ported: RoaringBitmap,
    generation: Option<Generation>,
    /// The snapshot file holds exactly this state.
    saved: bool,
    /// Ads the rebuild could not read (not indexed), as messages.
    damaged: Vec<String>,
    /// Made from a snapshot (rather than by a scan).
    restored: bool,
    /// What the index's reads of the store could not read since last taken.
    unread: Arc<Mutex<Vec<Unread>>>,
}

impl Held {
    /// The stored id of index number `n`.
    pub fn id(&self, n: AdId) -> Option<String> {
        self.ids.read().id(n).map(str::to_owned)
    }

    /// Whether ad `n` has expired at `now`.
    pub fn expired(&self, n: AdId, now: i64) -> bool {
        self.expires.expired(n, now)
    }

    /// Whether the index was restored from a snapshot (rather than built by a scan).
    pub fn restored(&self) -> bool {
        self.restored
    }

    /// Ads the rebuild could not read (not indexed), as messages.
    pub fn damaged(&self) -> &[String] {
        &self.damaged
    }

    /// What the index could not read back from the store (damaged ads it was confirming)
    /// since this was last called: an answer it helped make lacks those ads.
    /// Repeats of one problem (one damaged page behind many ads) are told once, with the
    /// first ids it hides and how many.
    pub fn take_unread(&self) -> Vec<String> {
        tell_unread(std::mem::take(&mut *self.unread.lock()))
    }

    /// How many ads are live (held and not expired) at `now`.
    pub fn live(&self, now: i64) -> u64 {
        self.index.len().saturating_sub(self.expires.due_count(now)) as u64
    }

    /// Whether ad `n` has ports.
    pub fn ported(&self, n: AdId) -> bool {
        self.ported.contains(n)
    }

    /// The ads with ports.
    pub fn ported_ads(&self) -> &RoaringBitmap {
        &self.ported
    }

    /// Stores (or replaces) ad `id` as the store just did, converted by the index's
    /// [`Converter`].
    fn put(&mut self, id: &str, replaced: bool, expires: Option<i64>, ad: Converted) -> bool {
        let n = {
            let mut map = self.ids.write();
            match map.number(id) {
                Some(n) if replaced => Some(n),
                // The store replaced an ad the index does not hold (e.g. one the rebuild could
                // not read): its place in load order is unknown here; drop the index.
                None if replaced => return false,
                Some(_) => {
                    // The old ad had expired: the new one is new, at the end of load order.
                    if let Some(old) = map.remove(id) {
                        self.index.remove(old);
                        self.expires.set(old, None);
                        self.ported.remove(old);
                    }
                    map.push(id)
                }
                None => map.push(id),
            }
        };
        let Some(n) = n else {
            return false; // Out of numbers: the caller drops the index.
        };
        self.expires.set(n, expires);
        if ad.has_ports() {
            self.ported.insert(n);
        } else {
            self.ported.remove(n);
        }
        self.index.insert_converted(n, ad).is_ok()
    }

    /// Applies a removal (or consumption) the store made; the index always follows.
    pub(crate) fn apply_remove(&mut self, id: &str) -> bool {
        if let Some(n) = self.ids.write().remove(id) {
            self.index.remove(n);
            self.expires.set(n, None);
            self.ported.remove(n);
        }
        true
    }

    /// Removes the ads expired at `now` (a purge).
    fn purge(&mut self, now: i64) {
        for n in self.expires.due(now) {
            let id = self.ids.read().id(n).map(str::to_owned);
            match id {
                Some(id) => {
                    self.apply_remove(&id);
                }
                None => self.expires.set(n, None),
            }
        }
    }

    fn file(&self) -> Option<SnapshotFile> {
        let generation = self.generation?;
        let map = self.ids.read();
        let expires: Vec<(AdId, i64)> = self.expires.by_time.iter().map(|&(t, n)| (n, t)).collect();
        Some(SnapshotFile {
            generation,
            options: OptionsStamp::of(self.index.options()),
            ids: map
                .ids
                .iter()
                .map(|i| i.as_deref().map(str::to_owned))
                .collect(),
            expires,
            ported: self.ported.iter().collect(),
            damaged: self.damaged.clone(),
            index: self.index.snapshot(),
        })
    }
}

/// A collection's slot: its held index, once made.
type Slot = Arc<RwLock<Option<Held>>>;

/// The held indexes of a Db.
#[derive(Debug)]
pub(crate) struct Indexes {
    /// Serializes the Db's writes (and snapshot saving), so that each write's generation
    /// transition is its own (see [`Writing`]).
    pub(crate) write: Mutex<()>,
    slots: Mutex<HashMap<String, Slot>>,
    /// The database's directory, where snapshots go (none in memory).
    dir: Option<PathBuf>,
    pub(crate) opts: IndexOptions,
}

impl Indexes {
    pub(crate) fn new(dir: Option<PathBuf>, opts: IndexOptions) -> Indexes {
        Indexes {
            write: Mutex::new(()),
            slots: Mutex::new(HashMap::new()),
            dir,
            opts,
        }
    }

    fn slot(&self, collection: &str) -> Slot {
        Arc::clone(self.slots.lock().entry(collection.to_owned()).or_default())
    }

    /// Writes a snapshot of every held index that changed since its last one. Each is taken
    /// under its index's lock after `flush` made every write to its collection durable (the
    /// writes hold that lock), so that no snapshot runs ahead of what is durable: a snapshot's
    /// generation is one the store keeps after a crash.
    pub(crate) fn save(&self, flush: &dyn Fn() -> Result<(), DbError>) -> Result<(), DbError> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let slots: Vec<Slot> = self.slots.lock().values().cloned().collect();
        for slot in slots {
            let mut guard = slot.write();
            let Some(held) = guard.as_mut() else { continue };
            if held.saved {
                continue;
            }
            if let (Some(g), Some(file)) = (held.generation, held.file()) {
                flush()?;
                held_files::write(dir, g.collection, &file).map_err(|source| DbError::Io {
                    path: dir.clone(),
                    source,
                })?;
                held.saved = true;
            }
        }
        Ok(())
    }
}

impl Db {
    /// The index of `collection`, current with the store: restored from its snapshot or
    /// rebuilt by one scan when not held yet or stale. `f` runs under the index's lock: it must
    /// not call back into this `Db` (a query or a write there would wait for that lock).
    pub fn with_index<R>(
        &self,
        collection: &str,
        f: impl FnOnce(&mut Held) -> R,
    ) -> Result<R, DbError> {
        self.with_index_importing(collection, &[], f)
    }

    /// [`Db::with_index`]; an index built now imports `attrs` in the same pass (so that the
    /// query about to run does not read every ad a second time).
    pub(crate) fn with_index_importing<R>(
        &self,
        collection: &str,
        attrs: &[adjoin_query::Key],
        f: impl FnOnce(&mut Held) -> R,
    ) -> Result<R, DbError> {
        let slot = self.indexes.slot(collection);
        let mut guard = slot.write();
        let current = self.store.generation(collection)?;
        if guard.as_ref().is_none_or(|h| h.generation != current) {
            *guard = Some(self.make_index(collection, current, attrs)?);
        }
        match guard.as_mut() {
            Some(held) => Ok(f(held)),
            None => Err(DbError::Ad(AdError::NotFound {
                collection: collection.to_owned(),
                id: String::new(),
            })),
        }
    }

    fn make_index(
        &self,
        collection: &str,
        current: Option<Generation>,
        attrs: &[adjoin_query::Key],
    ) -> Result<Held, DbError> {
        let ids = Arc::new(RwLock::new(IdMap::default()));
        let unread = Arc::new(Mutex::new(Vec::new()));
        let source = Arc::new(StoreSource {
            store: Arc::clone(&self.store),
            collection: collection.to_owned(),
            ids: Arc::clone(&ids),
            unread: Arc::clone(&unread),
        });
        let stamp = OptionsStamp::of(&self.indexes.opts);
        let mut earlier = None;
        if let (Some(dir), Some(g)) = (&self.indexes.dir, current) {
            match held_files::read(dir, g.collection) {
                Ok(file) if file.generation == g && file.options == stamp => {
                    let _span = tracing::info_span!("restore_index", collection).entered();
                    let ads = file.index.ads();
                    let opts = self.indexes.opts.clone();
                    // The id map and the index are independent: make them side by side.
                    let (map, restored) = std::thread::scope(|scope| {
                        let map = scope.spawn(|| IdMap::from_ids(file.ids));
                        let restored = Index::restore(opts, source.clone(), file.index);
                        (map.join(), restored)
                    });
                    // A snapshot that passed its checksum may still contradict itself: every
                    // number it uses must have an id.
                    let known = |map: &IdMap, n: AdId| map.id(n).is_some();
                    let consistent = |map: &IdMap, index: &Index| {
                        index.len() == map.live
                            && index.ad_ids().all(|n| known(map, n))
                            && file.expires.iter().all(|&(n, _)| known(map, n))
                            && file.ported.iter().all(|&n| known(map, n))
                    };
                    match (map, restored) {
                        (Ok(map), Ok(index)) if consistent(&map, &index) => {
                            let mut expires = Expiries::default();
                            for &(n, t) in &file.expires {
                                expires.set(n, Some(t));
                            }
                            *ids.write() = map;
                            tracing::debug!(ads, "index restored from its snapshot");
                            return Ok(Held {
                                index,
                                ids,
                                expires,
                                ported: file.ported.iter().copied().collect(),
                                generation: current,
                                saved: true,
                                damaged: file.damaged.clone(),
                                restored: true,
                                unread,
                            });
                        }
                        (_, Err(e)) => {
                            tracing::warn!(%e, "index snapshot not restored; rebuilding")
                        }
                        _ => tracing::warn!("index snapshot inconsistent; rebuilding"),
                    }
                }
                Ok(file) => earlier = Some(file.index),
                Err(e) => tracing::debug!(%e, "no index snapshot"),
            }
        }
        let _span = tracing::info_span!("rebuild_index", collection).entered();
        let mut index = Index::with_source(self.indexes.opts.clone(), source);
        // Attributes earlier queries imported, and the coming query's, are imported as the
        // ads go in (on an empty index, declaring them reads nothing).
        let mut keys: Vec<adjoin_query::Key> = attrs.to_vec();
        if let Some(old) = earlier {
            keys.extend(old.imported_names().map(adjoin_query::Key::of));
        }
        index.ensure_imported(&keys);
        let mut held = Held {
            index,
            ids,
            expires: Expiries::default(),
            ported: RoaringBitmap::new(),
            generation: current,
            saved: false,
            damaged: Vec::new(),
            restored: false,
            unread,
        };
        let mut ads = Vec::new();
        for ad in self.store.scan(collection)? {
            let ad = match ad {
                Ok(ad) => ad,
                Err(e) => {
                    held.damaged.push(e.to_string());
                    continue;
                }
            };
            let Some(n) = held.ids.write().push(ad.id()) else {
                break;
            };
            held.expires.set(n, ad.header.expires);
            let ad = Arc::new(ad.ad);
            if adjoin_index::units(&ad)
                .first()
                .is_some_and(|u| u.port.is_some())
            {
                held.ported.insert(n);
            }
            ads.push((n, ad));
            if ads.len() == 4096 {
                held.index.extend(std::mem::take(&mut ads))?;
            }
        }
        held.index.extend(ads)?;
        Ok(held)
    }

    /// The clock the store reads.
    pub(crate) fn now(&self) -> i64 {
        (self.store.options().clock)()
    }

    /// Holds `collection`'s index if that costs no scan: the collection is empty or new, or
    /// its snapshot is current. A load then feeds the index as it goes (a collection loaded
    /// without one is indexed by one scan when first queried).
    pub(crate) fn hold_index_if_cheap(&self, collection: &str) -> Result<(), DbError> {
        let g = self.store.generation(collection)?;
        let cheap = match (g, &self.indexes.dir) {
            (None, _) => true,
            (Some(_), _) if self.store.stored_count(collection)? == 0 => true,
            (Some(g), Some(dir)) => held_files::generation(dir, g.collection) == Some(g),
            (Some(_), None) => false,
        };
        if cheap {
            self.with_index(collection, |_| ())?;
        }
        Ok(())
    }

    /// The held slots of `collections` (those made so far), in name order (the order writers
    /// lock them in).
    pub(crate) fn held_slots_of(&self, collections: &[&str]) -> Vec<(String, Slot)> {
        let mut v: Vec<(String, Slot)> = {
            let slots = self.indexes.slots.lock();
            collections
                .iter()
                .filter_map(|c| slots.get(*c).map(|s| ((*c).to_owned(), Arc::clone(s))))
                .collect()
        };
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v.dedup_by(|a, b| a.0 == b.0);
        v
    }

    /// Every held slot, in name order (the order writers lock them in).
    pub(crate) fn held_slots(&self) -> Vec<(String, Slot)> {
        let mut v: Vec<(String, Slot)> = self
            .indexes
            .slots
            .lock()
            .iter()
            .map(|(k, v)| (k.clone(), Arc::clone(v)))
            .collect();
        v.sort_by(|a, b| a.0.cmp(&b.0));
        v
    }
}

/// A write in progress, holding every held index's lock (see the module invariant). A write
/// changes its own collections, and may purge expired ads of any: [`Writing::apply`] applies
/// the former, [`Writing::finish`] the latter, then records each index's new generation.
pub(crate) struct Writing<'a> {
    db: &'a Db,
    held: Vec<Locked<'a>>,
}

/// One held index locked by a write: its collection, the lock, the collection's generation
/// before the write, and whether the index is current (and following the write).
struct Locked<'a>(
    &'a str,
    parking_lot::RwLockWriteGuard<'a, Option<Held>>,
    Option<Generation>,
    bool,
);

impl<'a> Writing<'a> {
    /// Locks `slots` (from [`Db::held_slots`]) and notes their generations.
    pub(crate) fn begin(db: &'a Db, slots: &'a [(String, Slot)]) -> Result<Writing<'a>, DbError> {
        let mut held = Vec::with_capacity(slots.len());
        for (name, slot) in slots {
            let guard = slot.write();
            let before = db.store.generation(name)?;
            let current = guard.as_ref().is_some_and(|h| h.generation == before);
            held.push(Locked(name.as_str(), guard, before, current));
        }
        Ok(Writing { db, held })
    }

    /// A converter for `collection`'s index, if held and current: during the write no
    /// attribute can get an imported axis (queries wait for the lock), so it stays valid.
    pub(crate) fn converter(&self, collection: &str) -> Option<Converter> {
        let Locked(_, guard, _, current) = self.held.iter().find(|h| h.0 == collection)?;
        guard
            .as_ref()
            .filter(|_| *current)
            .map(|h| h.index.converter())
    }

    /// Applies a change the write made to `collection`'s index, if held; `f` returns false
    /// when the index cannot follow (it is dropped at [`Writing::finish`]).
    pub(crate) fn apply(&mut self, collection: &str, f: impl FnOnce(&mut Held) -> bool) {
        let Some(Locked(_, guard, _, current)) = self.held.iter_mut().find(|h| h.0 == collection)
        else {
            return;
        };
        if *current {
            *current = guard.as_mut().is_some_and(f);
        }
    }

    /// Records the write's end: each held index whose collection changed drops the ads
    /// expired by now (a purge the write may have made) and takes the new generation; one
    /// that was stale or could not follow is dropped, to be made again when next used. After
    /// a failed write (`ok` false) an index whose collection changed anyway (e.g. committed,
    /// then the flush failed) is dropped too: what was applied to it is unknown.
    pub(crate) fn finish(mut self, ok: bool) -> Result<(), DbError> {
        let now = self.db.now();
        for Locked(name, guard, before, current) in &mut self.held {
            let after = self.db.store.generation(name)?;
            match guard.as_mut() {
                Some(h) if *current && (ok || after == *before) => {
                    if after != *before {
                        h.purge(now);
                        h.generation = after;
                        h.saved = false;
                    }
                }
                _ => **guard = None,
            }
        }
        Ok(())
    }
}

impl Held {
    /// Applies a put the store made.
    pub(crate) fn apply_put(&mut self, put: &adjoin_storage::Put, ad: Arc<ClassAd>) -> bool {
        let converted = self.index.converter().convert(&ad);
        self.put(&put.id, put.replaced, put.expires, converted)
    }

    /// Applies a put the store made, of an ad converted ahead by [`Writing::converter`].
    pub(crate) fn apply_converted(&mut self, put: &adjoin_storage::Put, ad: Converted) -> bool {
        self.put(&put.id, put.replaced, put.expires, ad)
    }
}

#[cfg(test)]
mod tests {
    use super::tell_unread;

    #[test]
    fn failed_reads_are_told_once_per_problem() {
        let read = |m: &str, id: Option<&str>| (m.to_owned(), id.map(str::to_owned));
        let ids: Vec<_> = (0..7)
            .map(|i| read("bad page", Some(&format!("m{i}"))))
            .collect();
        for (all, want) in [
            (vec![], vec![]),
            (vec![read("scan", None)], vec!["scan"]),
            (
                vec![read("scan", None), read("scan", None)],
                vec!["scan (2 reads)"],
            ),
            (
                vec![read("bad page", Some("m1"))],
                vec!["ad m1 cannot be read: bad page"],
            ),
            (
                [ids.clone(), vec![read("other", Some("j1"))]].concat(),
                vec![
                    "7 ads cannot be read (m0, m1, m2, m3, m4, …): bad page",
                    "ad j1 cannot be read: other",
                ],
            ),
            (
                ids[..2].to_vec(),
                vec!["2 ads cannot be read (m0, m1): bad page"],
            ),
        ] {
            assert_eq!(tell_unread(all), want);
        }
    }
}
