//! The indexes a [`Db`] holds: one spatial index per collection, made on first use and kept
//! exact as the Db's own writes change the collection.
//!
//! **Numbers.** A held index knows an ad by the store's own number for it, the record's
//! sequence number `seq` (per collection, never handed out twice; a replacement keeps its
//! ad's), as its [`AdId`]; with each ad it keeps the record's revision
//! (`adjoin_storage::record::revision`). Those `(seq, revision)` marks describe exactly what the
//! index holds, so that the store can say what changed since: [`adjoin_storage::difference`]
//! against the store's live view ([`AdStore::live_view`], from the in-memory index: no ad is
//! read).
//!
//! **Making an index: catching up.** An index is made by catching up from a base: the
//! collection's checkpoint (`held_files.rs`: restored without reading an ad), the stale index
//! itself (writes made through [`Db::store`] directly), or nothing. Catching up removes the ads
//! gone or changed and reads and adds those new or changed, so a restart after a kill replays
//! only what came after the last checkpoint, and an index is never rebuilt from scratch
//! while a checkpoint of it exists. The catching up runs *beside* the slot: writers to the
//! collection go on (their changes are not applied to the index being made); then, under the
//! slot's lock, a second catch-up replays what they wrote meanwhile and the index is swapped
//! in. Writers to the collection wait only for that replay.
//!
//! **Invariant**: a held index in its slot describes the collection as of its `generation`,
//! and its marks are exactly its ads. A Db write names the collections it changes (a put,
//! load or removal one, a match its members'; a purge or maintenance step all of them, one at
//! a time under `Indexes::write`); it takes those held indexes' locks in name order, writes,
//! applies the same change to each current index and records the new generation (an index
//! that could not follow keeps its marks exact and is caught up at its next use). Writes to
//! other collections, and an index being built for another collection, do not wait for it:
//! the store changes no collection a write does not name (its lazy purge stays within the
//! written collection). A query first compares the generation with the store's and catches
//! the index up if they differ (such a write made through `store()` *while* a Db write runs is
//! not told apart from it, so writes through `store()` must not race the Db's own).
//!
//! **Lending to cycles.** The slot holds its index as a [`SharedIndex`] (an `Arc`): a
//! matchmaking cycle takes a clone of it, caught up ([`Db::lend_index`]), and searches it
//! without any lock while Db writes go on. A write that changes a lent index (a durable
//! cycle consuming its offers, a partitionable remainder replacing one) applies its marks,
//! expiries and ports at once and puts the index's own change off ([`Held::settle`] applies
//! them, in order, before anything next reads or changes the index, by then in place once
//! the cycle has given it back); so a cycle neither waits for the slot's lock nor makes the
//! index copy itself, and the index is exact again before its next use. Only a use while a
//! cycle still holds it copies it (`Arc::make_mut`). A cycle that finds no index held and no
//! checkpoint makes it from the offers it has just read ([`Db::hold_index_of`]), caught up at
//! its next use like any other.
//!
//! **Checkpoints.** The indexes that changed are written as checkpoints on close, and in the
//! background (`CheckpointPolicy`, `checkpoints.rs`) after enough writes or time: each one's
//! marks and snapshot are taken under its lock after a flush, and written outside it (an
//! index lent with changes put off is saved later rather than copied).

use super::held_files::{self, OptionsStamp, Payload};
use super::restoring::{self, Restoring};
use super::{Db, DbError};
use adjoin_index::{AdId, AdSource, Converted, Converter, Index, IndexOptions, RoaringBitmap};
use adjoin_query::ClassAd;
use adjoin_storage::{
    difference, write_checkpoint, AdError, AdStore, Checkpoint, CommitObserver, Committed,
    Generation, LiveAd, StoredAd,
};
use parking_lot::{Mutex, RwLock};
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// An ad a held index holds: its id and its record's revision.
#[derive(Debug)]
struct HeldAd {
    id: Arc<str>,
    revision: u64,
}

/// The ads of a held index by number, shared with its source: those it was made with, in a
/// sorted vector (made from the store's live view in one pass, no hashing), and those stored
/// since in a map. The reverse map (id → number) is made on first need (a write), so that a
/// restart that only reads does not build it.
#[derive(Debug, Default)]
pub(crate) struct IdMap {
    /// The ads it was made with, by increasing number; `None` once removed.
    base: Vec<(AdId, Option<HeldAd>)>,
    /// The ads stored since (never also live in `base`).
    more: FxHashMap<AdId, HeldAd>,
    by_id: Option<FxHashMap<Arc<str>, AdId>>,
}

impl IdMap {
    fn get(&self, n: AdId) -> Option<&HeldAd> {
        if let Some(a) = self.more.get(&n) {
            return Some(a);
        }
        let i = self.base.binary_search_by_key(&n, |e| e.0).ok()?;
        self.base[i].1.as_ref()
    }

    /// Every ad, in no particular order.
    fn iter(&self) -> impl Iterator<Item = (AdId, &HeldAd)> {
        self.base
            .iter()
            .filter_map(|(n, a)| Some((*n, a.as_ref()?)))
            .chain(self.more.iter().map(|(&n, a)| (n, a)))
    }

    /// The id of number `n`.
    pub(crate) fn id(&self, n: AdId) -> Option<&str> {
        self.get(n).map(|a| &*a.id)
    }

    fn by_id(&mut self) -> &mut FxHashMap<Arc<str>, AdId> {
        if self.by_id.is_none() {
            let map = self.iter().map(|(n, a)| (a.id.clone(), n)).collect();
            self.by_id = Some(map);
        }
        self.by_id.get_or_insert_with(FxHashMap::default)
    }

    fn number(&mut self, id: &str) -> Option<AdId> {
        self.by_id().get(id).copied()
    }

    fn insert(&mut self, n: AdId, id: Arc<str>, revision: u64) {
        self.remove(n);
        if let Some(by_id) = &mut self.by_id {
            by_id.insert(id.clone(), n);
        }
        self.more.insert(n, HeldAd { id, revision });
    }

    fn remove(&mut self, n: AdId) -> Option<HeldAd> {
        let old = match self.more.remove(&n) {
            Some(old) => old,
            None => {
                let i = self.base.binary_search_by_key(&n, |e| e.0).ok()?;
                self.base[i].1.take()?
            }
        };
        if let Some(by_id) = &mut self.by_id {
            if by_id.get(&old.id) == Some(&n) {
                by_id.remove(&old.id);
            }
        }
        Some(old)
    }

    /// `(seq, revision)` of every ad, by number.
    fn marks(&self) -> Vec<(u64, u64)> {
        let mut m: Vec<(u64, u64)> = self
            .iter()
            .map(|(n, a)| (u64::from(n), a.revision))
            .collect();
        m.sort_unstable();
        m
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
        let map = self.ids.read();
        for ad in scan {
            let ad = match ad {
                Ok(ad) => ad,
                Err(e) => {
                    self.unread.lock().push((e.to_string(), None));
                    continue;
                }
            };
            // Only the ads the index holds, as it holds them (its number is the ad's seq).
            let Ok(n) = AdId::try_from(ad.header.seq) else {
                continue;
            };
            if map.id(n) == Some(ad.id()) {
                f(n, Arc::new(ad.ad));
            }
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

/// How a held index was last made or caught up.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Made {
    /// It started from the collection's checkpoint (rather than from nothing or a stale index).
    pub restored: bool,
    /// Ads read from the store and indexed (new or changed since its base).
    pub replayed: usize,
    /// Ads removed from its base (gone or changed since).
    pub removed: usize,
}

/// A held index, shared with the matchmaking cycles it is lent to: read through `Deref`; a
/// change through `DerefMut` copies it first while a cycle still holds it (`Arc::make_mut`),
/// so that a cycle's clone never changes under it (the Db's own writes put their changes off
/// instead: see the module's header).
#[derive(Clone, Debug)]
pub struct SharedIndex(Arc<Index>);

impl SharedIndex {
    fn new(index: Index) -> SharedIndex {
        SharedIndex(Arc::new(index))
    }

    /// Whether a cycle holds it (a change now would copy it).
    pub(crate) fn lent(&self) -> bool {
        Arc::strong_count(&self.0) > 1
    }
}

impl std::ops::Deref for SharedIndex {
    type Target = Index;
    fn deref(&self) -> &Index {
        &self.0
    }
}

impl std::ops::DerefMut for SharedIndex {
    fn deref_mut(&mut self) -> &mut Index {
        Arc::make_mut(&mut self.0)
    }
}

/// One collection's index and what ties it to the store.
#[derive(Debug)]
pub struct Held {
    /// The spatial index (its ad ids are the records' sequence numbers).
    pub index: SharedIndex,
    ids: Arc<RwLock<IdMap>>,
    expires: Expiries,
    /// Ads with ports: a constraint query evaluates them whole (the index holds their ports).
    ported: RoaringBitmap,
    generation: Option<Generation>,
    /// The checkpoint file holds exactly this state.
    saved: bool,
    /// Ads that could not be read when it was last caught up (not indexed), as messages.
    damaged: Vec<String>,
    /// How it was last made.
    made: Made,
    /// What the index's reads of the store could not read since last taken.
    unread: Arc<Mutex<Vec<Unread>>>,
    /// Changes to the index put off while it is lent to a cycle (its marks, expiries and
    /// ports follow at once), in order: applied before its next use ([`Held::settle`]).
    deferred: Vec<Deferred>,
}

/// A change to a lent index, put off.
#[derive(Debug)]
enum Deferred {
    Remove(AdId),
    Put(AdId, Converted),
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

    /// Whether the index was restored from a checkpoint (rather than built by reading every
    /// ad).
    pub fn restored(&self) -> bool {
        self.made.restored
    }

    /// How the index was last made or caught up: from a checkpoint or not, and how many ads
    /// that read and removed.
    pub fn made(&self) -> Made {
        self.made
    }

    /// Ads the last catching up could not read (not indexed), as messages.
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

    /// Stores (or replaces) the ad the store just stored as `put`, converted by the index's
    /// [`Converter`]. False when the index could not hold it (its mark is then dropped, so
    /// that catching up reads it again).
    fn put(&mut self, put: &adjoin_storage::Put, ad: Converted) -> bool {
        let Ok(n) = AdId::try_from(put.seq) else {
            return false;
        };
        let old = self.ids.write().number(&put.id);
        if let Some(old) = old.filter(|&o| o != n) {
            // The old ad had expired: the new one is new, at the end of load order.
            self.forget(old);
        }
        self.expires.set(n, put.expires);
        if ad.has_ports() {
            self.ported.insert(n);
        } else {
            self.ported.remove(n);
        }
        if self.index.lent() {
            self.deferred.push(Deferred::Put(n, ad));
        } else if self.index.insert_converted(n, ad).is_err() {
            self.forget(n);
            return false;
        }
        self.ids
            .write()
            .insert(n, put.id.as_str().into(), put.revision);
        true
    }

    /// Drops ad `n` from the index and its marks.
    fn forget(&mut self, n: AdId) {
        self.ids.write().remove(n);
        match self.index.lent() {
            true => self.deferred.push(Deferred::Remove(n)),
            false => {
                self.index.remove(n);
            }
        }
        self.expires.set(n, None);
        self.ported.remove(n);
    }

    /// Applies to the index the changes put off while it was lent (copying it if it still
    /// is): before anything reads or changes it otherwise. An ad it then cannot hold loses
    /// its mark and the index its generation, to be caught up at its next use.
    fn settle(&mut self) {
        for d in std::mem::take(&mut self.deferred) {
            match d {
                Deferred::Remove(n) => {
                    self.index.remove(n);
                }
                Deferred::Put(n, ad) => {
                    if self.index.insert_converted(n, ad).is_err() {
                        self.forget(n);
                        self.generation = None;
                    }
                }
            }
        }
    }

    /// Applies a removal (or consumption) the store made; the index always follows.
    pub(crate) fn apply_remove(&mut self, id: &str) -> bool {
        let n = self.ids.write().number(id);
        if let Some(n) = n {
            self.forget(n);
        }
        true
    }

    /// Removes the ads expired at `now` (a purge).
    fn purge(&mut self, now: i64) {
        for n in self.expires.due(now) {
            self.forget(n);
        }
    }

    /// Adds ads read from the store (new or changed since the index's marks), recording
    /// their marks and expiries: one by one, or (`many`) as one batch.
    fn add_read(&mut self, ads: Vec<StoredAd>, many: bool) -> Result<(), DbError> {
        let mut adding = Vec::with_capacity(ads.len());
        for ad in ads {
            let Ok(n) = AdId::try_from(ad.header.seq) else {
                self.damaged.push(format!(
                    "ad {} is number {}, beyond the index's 32-bit numbers",
                    ad.header.id, ad.header.seq
                ));
                continue;
            };
            adding.push(Adding {
                n,
                id: ad.header.id.into(),
                revision: ad.revision,
                expires: ad.header.expires,
                ad: Arc::new(ad.ad),
            });
        }
        self.add(adding, many)
    }

    /// Adds `ads`, recording their marks and expiries: one by one, or (`many`) as one batch.
    fn add(&mut self, ads: Vec<Adding>, many: bool) -> Result<(), DbError> {
        self.settle();
        let mut batch = Vec::new();
        for a in ads {
            let n = a.n;
            let converted = (!many).then(|| self.index.converter().convert(&a.ad));
            let ported = match &converted {
                Some(c) => c.has_ports(),
                None => adjoin_index::units(&a.ad)
                    .first()
                    .is_some_and(|u| u.port.is_some()),
            };
            if ported {
                self.ported.insert(n);
            } else {
                self.ported.remove(n);
            }
            self.expires.set(n, a.expires);
            self.ids.write().insert(n, a.id, a.revision);
            match converted {
                Some(c) => {
                    if self.index.insert_converted(n, c).is_err() {
                        self.forget(n);
                    }
                }
                None => batch.push((n, a.ad)),
            }
        }
        if !batch.is_empty() {
            self.index.extend(batch)?;
        }
        Ok(())
    }
}

/// An ad to add to a held index: its number (seq), id, revision, expiry, and the ad.
struct Adding {
    n: AdId,
    id: Arc<str>,
    revision: u64,
    expires: Option<i64>,
    ad: Arc<ClassAd>,
}

/// What catching an index up takes: the collection's live view, its difference from the
/// index's marks, and the time ads expire by.
struct Plan {
    view: adjoin_storage::LiveView,
    d: adjoin_storage::Difference,
    now: i64,
}

impl Plan {
    /// The ids of the ads the marks and the view agree on (those the plan keeps), as an
    /// index restored from those marks holds them.
    fn kept_ids(&self) -> IdMap {
        let mut added = vec![false; self.view.ads.len()];
        for &i in &self.d.added {
            added[i] = true;
        }
        let mut map = IdMap::default();
        map.base.reserve(self.view.ads.len() - self.d.added.len());
        let now = self.now;
        for (a, _) in self
            .view
            .ads
            .iter()
            .zip(&added)
            .filter(|(a, &x)| !x && a.expires.is_none_or(|t| t > now))
        {
            // The view is by seq, so the numbers come in increasing order.
            if let Ok(n) = AdId::try_from(a.seq) {
                let ad = HeldAd {
                    id: a.id.clone(),
                    revision: a.revision,
                };
                map.base.push((n, Some(ad)));
            }
        }
        map
    }
}

/// What a cycle is lent of a held index ([`Db::lend_index`]).
pub(crate) struct Lent {
    /// The index as lent (its ad ids are the records' seqs).
    pub(crate) index: Arc<Index>,
    /// The seqs of the ads the cycle read that the index holds in the very version read.
    pub(crate) same: RoaringBitmap,
}

/// The ads of a held index read for an import during a cycle: the cycle's own where they are
/// the versions the index holds (`same`), the store's for the `others`.
#[derive(Debug)]
struct Preferring<'a> {
    views: &'a dyn AdSource,
    same: &'a RoaringBitmap,
    others: Vec<AdId>,
    store: Option<Arc<dyn AdSource>>,
}

impl AdSource for Preferring<'_> {
    fn fetch(&self, ids: &[AdId]) -> Vec<Option<Arc<ClassAd>>> {
        let (mine, theirs): (Vec<AdId>, Vec<AdId>) =
            ids.iter().partition(|&&n| self.same.contains(n));
        let mut mine = mine.iter().copied().zip(self.views.fetch(&mine));
        let mut theirs = match &self.store {
            Some(store) => theirs.iter().copied().zip(store.fetch(&theirs)).collect(),
            None => Vec::new(),
        }
        .into_iter();
        // Both halves keep the order asked: merged back by walking `ids` once.
        let (mut m, mut t) = (mine.next(), theirs.next());
        ids.iter()
            .map(|&n| {
                if m.as_ref().is_some_and(|(id, _)| *id == n) {
                    let got = m.take().and_then(|(_, ad)| ad);
                    m = mine.next();
                    got
                } else if t.as_ref().is_some_and(|(id, _)| *id == n) {
                    let got = t.take().and_then(|(_, ad)| ad);
                    t = theirs.next();
                    got
                } else {
                    None
                }
            })
            .collect()
    }

    fn for_each(&self, f: &mut dyn FnMut(AdId, Arc<ClassAd>)) {
        self.views.for_each(&mut |n, ad| {
            if self.same.contains(n) {
                f(n, ad);
            }
        });
        let Some(store) = &self.store else { return };
        for chunk in self.others.chunks(4096) {
            for (&n, ad) in chunk.iter().zip(store.fetch(chunk)) {
                if let Some(ad) = ad {
                    f(n, ad);
                }
            }
        }
    }
}

/// A collection's slot: its held index, once made, and the lock of whoever is making it.
#[derive(Debug, Default)]
pub(crate) struct SlotCell {
    pub(crate) held: RwLock<Option<Held>>,
    /// Taken by a query making the index (beside the slot), so that one makes it.
    making: Mutex<()>,
}

/// A collection's slot, shared.
pub(crate) type Slot = Arc<SlotCell>;

/// The held indexes of a Db.
#[derive(Debug)]
pub(crate) struct Indexes {
    /// Serializes the Db's writes that may change any collection (and checkpoint saving), so
    /// that each write's generation transition is its own (see [`Writing`]).
    pub(crate) write: Mutex<()>,
    slots: Mutex<HashMap<String, Slot>>,
    /// The database's directory, where checkpoints go (none in memory).
    dir: Option<PathBuf>,
    pub(crate) opts: IndexOptions,
    /// Changes to records committed since the last checkpoint (writes through [`Db::store`]
    /// count too).
    pub(crate) unsaved: Arc<Unsaved>,
    /// Checkpoints written.
    pub(crate) checkpoints: AtomicU64,
    /// The checkpoints being restored since open (`restoring.rs`), taken at first use.
    pub(crate) restoring: Restoring,
}

/// Changes to records committed since the last checkpoint: told by the store, as its
/// [`CommitObserver`] (it holds no index, which reads the store: no cycle of `Arc`s).
#[derive(Debug, Default)]
pub(crate) struct Unsaved(pub(crate) AtomicU64);

impl CommitObserver for Unsaved {
    fn committed(&self, changes: &[Committed<'_>]) {
        self.0.fetch_add(changes.len() as u64, Ordering::Relaxed);
    }
}

impl Indexes {
    pub(crate) fn new(dir: Option<PathBuf>, opts: IndexOptions) -> Indexes {
        Indexes {
            write: Mutex::new(()),
            slots: Mutex::new(HashMap::new()),
            dir,
            opts,
            unsaved: Arc::new(Unsaved::default()),
            checkpoints: AtomicU64::new(0),
            restoring: Restoring::default(),
        }
    }

    fn slot(&self, collection: &str) -> Slot {
        Arc::clone(self.slots.lock().entry(collection.to_owned()).or_default())
    }

    /// Writes a checkpoint of every held index that changed since its last one. Each one's
    /// marks and snapshot are taken under its index's lock after `flush` (so that, but for
    /// writes committed in between, it describes what is durable; those a crash loses are
    /// found by the difference at restore, like any other), and written after the lock is
    /// released: writers to the collection wait for the copy, not for the file.
    pub(crate) fn save(&self, flush: &dyn Fn() -> Result<(), DbError>) -> Result<(), DbError> {
        let Some(dir) = &self.dir else {
            return Ok(());
        };
        let slots: Vec<Slot> = self.slots.lock().values().cloned().collect();
        self.unsaved.0.store(0, Ordering::Relaxed);
        for slot in slots {
            if slot.held.read().as_ref().is_none_or(|h| h.saved) {
                continue;
            }
            flush()?;
            let (g, marks, payload) = {
                let mut guard = slot.held.write();
                let Some(held) = guard.as_mut() else { continue };
                let Some(g) = held.generation.filter(|_| !held.saved) else {
                    continue;
                };
                if held.index.lent() && !held.deferred.is_empty() {
                    // Lent to a cycle with changes put off: saved later (at close at last),
                    // rather than copied now.
                    continue;
                }
                held.settle();
                held.saved = true;
                let payload = Payload {
                    options: OptionsStamp::of(held.index.options()),
                    ported: held.ported.iter().collect(),
                    index: held.index.snapshot(),
                };
                let marks = held.ids.read().marks();
                (g, marks, payload)
            };
            let written = held_files::encode(&payload).and_then(|bytes| {
                write_checkpoint(&held_files::path(dir, g.collection), g, &marks, &bytes)
            });
            if let Err(source) = written {
                if let Some(h) = slot.held.write().as_mut() {
                    h.saved = false;
                }
                return Err(DbError::Io {
                    path: dir.clone(),
                    source,
                });
            }
            self.checkpoints.fetch_add(1, Ordering::Relaxed);
        }
        Ok(())
    }
}

impl Db {
    /// The index of `collection`, current with the store: made (restored from its checkpoint
    /// and caught up, or built) when not held yet, caught up when stale. `f` runs under the
    /// index's lock: it must not call back into this `Db` (a query or a write there would
    /// wait for that lock).
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
        let current = |held: &Option<Held>| -> Result<bool, DbError> {
            Ok(held.as_ref().is_some_and(|h| {
                h.generation.is_some()
                    && h.generation == self.store.generation(collection).ok().flatten()
            }))
        };
        {
            let mut guard = slot.held.write();
            if current(&guard)? {
                if let Some(held) = guard.as_mut() {
                    held.settle();
                    return Ok(f(held));
                }
            }
        }
        // Made beside the slot: writers to the collection go on meanwhile.
        let _making = slot.making.lock();
        let taken = {
            let mut guard = slot.held.write();
            if current(&guard)? {
                if let Some(held) = guard.as_mut() {
                    held.settle();
                    return Ok(f(held));
                }
            }
            guard.take()
        };
        let (mut held, first) = match taken {
            Some(mut held) => {
                let made = self.catch_up(&mut held, collection)?;
                (held, made)
            }
            None => self.made_from_base(collection, attrs)?,
        };
        // Still beside the slot: what writers committed meanwhile, a few rounds while that is
        // much, so that the last round, under the lock, has little to replay.
        let (mut replayed, mut removed) = (first.replayed, first.removed);
        let mut round = first;
        for _ in 0..4 {
            if round.replayed + round.removed <= 64
                || self.store.generation(collection)? == held.generation
            {
                break;
            }
            round = self.catch_up(&mut held, collection)?;
            (replayed, removed) = (replayed + round.replayed, removed + round.removed);
        }
        // Under the slot's lock: what writers committed meanwhile, then swapped in.
        let mut guard = slot.held.write();
        let last = match self.store.generation(collection)? {
            g if g.is_some() && g == held.generation => Made::default(),
            _ => self.catch_up(&mut held, collection)?,
        };
        held.made.restored = first.restored;
        held.made.replayed = replayed + last.replayed;
        held.made.removed = removed + last.removed;
        tracing::info!(
            collection,
            restored = held.made.restored,
            replayed = held.made.replayed,
            removed = held.made.removed,
            replayed_under_lock = last.replayed,
            "held index made"
        );
        *guard = Some(held);
        match guard.as_mut() {
            Some(held) => {
                held.settle();
                Ok(f(held))
            }
            None => Err(DbError::Ad(AdError::NotFound {
                collection: collection.to_owned(),
                id: String::new(),
            })),
        }
    }

    /// Whether a cycle with index options `opts` may search the held indexes: they convert
    /// and evaluate as it would (the same evaluation options, host and caps).
    pub(crate) fn lends_for(&self, opts: &IndexOptions) -> bool {
        let mine = &self.indexes.opts;
        super::query::same_eval(&opts.eval, &mine.eval)
            && (opts.profile_cap, opts.rectangle_cap, opts.filter_max)
                == (mine.profile_cap, mine.rectangle_cap, mine.filter_max)
            && (Arc::ptr_eq(&opts.eval.host.0, &mine.eval.host.0)
                || format!("{:?}", opts.eval.host) == format!("{:?}", mine.eval.host))
    }

    /// Holds `collection`'s index made from the ads a cycle has just read (`ads`, their
    /// stored `ids` and `(seq, revision)` marks, in load order), when it holds none and
    /// there is no checkpoint to restore: so that making it does not read them all again. It
    /// is caught up at its next use (expiries, and what was written since the read).
    pub(crate) fn hold_index_of(
        &self,
        collection: &str,
        ids: &[String],
        ads: &[Arc<ClassAd>],
        marks: &[(u64, u64)],
    ) -> Result<(), DbError> {
        let slot = self.indexes.slot(collection);
        let checkpointed = match (&self.indexes.dir, self.store.generation(collection)?) {
            (Some(dir), Some(g)) => held_files::path(dir, g.collection).exists(),
            _ => false,
        };
        if checkpointed || slot.held.read().is_some() {
            return Ok(());
        }
        let _making = slot.making.lock();
        if slot.held.read().is_some() {
            return Ok(());
        }
        let _span = tracing::debug_span!("hold_index_of", collection).entered();
        let mut held = self.empty_held(collection);
        let adding = ids
            .iter()
            .zip(ads)
            .zip(marks)
            .filter_map(|((id, ad), &(seq, revision))| {
                Some(Adding {
                    n: AdId::try_from(seq).ok()?,
                    id: id.as_str().into(),
                    revision,
                    expires: None,
                    ad: Arc::clone(ad),
                })
            })
            .collect();
        held.add(adding, true)?;
        *slot.held.write() = Some(held);
        Ok(())
    }

    /// Lends `collection`'s held index (caught up first) to a matchmaking cycle that read the
    /// ads `read` (each one's `(seq, revision)`), after giving the attributes of `import`
    /// imported axes: read from `views` (the cycle's ads, by seq) where the index holds the
    /// very version the cycle read, from the store otherwise. The cycle searches its clone
    /// without a lock; Db writes meanwhile put their changes to the index off (see the
    /// module's header).
    pub(crate) fn lend_index(
        &self,
        collection: &str,
        read: &[(u64, u64)],
        import: &[adjoin_query::Key],
        views: &dyn AdSource,
    ) -> Result<Lent, DbError> {
        self.with_index(collection, |held| {
            let same: RoaringBitmap = {
                let map = held.ids.read();
                read.iter()
                    .filter(|&&(seq, rev)| {
                        AdId::try_from(seq)
                            .is_ok_and(|n| map.get(n).is_some_and(|a| a.revision == rev))
                    })
                    .filter_map(|&(seq, _)| AdId::try_from(seq).ok())
                    .collect()
            };
            let imported = held.index.imported_attrs();
            if import.iter().any(|k| imported.binary_search(k).is_err()) {
                let others = held.index.ad_ids().filter(|n| !same.contains(*n)).collect();
                let source = Preferring {
                    views,
                    same: &same,
                    others,
                    store: held.index.source(),
                };
                held.index.ensure_imported_from(import, &source);
            }
            Lent {
                index: Arc::clone(&held.index.0),
                same,
            }
        })
    }

    /// An empty held index of `collection`, reading its ads back from the store.
    fn empty_held(&self, collection: &str) -> Held {
        let ids = Arc::new(RwLock::new(IdMap::default()));
        let unread = Arc::new(Mutex::new(Vec::new()));
        let source = Arc::new(StoreSource {
            store: Arc::clone(&self.store),
            collection: collection.to_owned(),
            ids: Arc::clone(&ids),
            unread: Arc::clone(&unread),
        });
        Held {
            index: SharedIndex::new(Index::with_source(self.indexes.opts.clone(), source)),
            ids,
            expires: Expiries::default(),
            ported: RoaringBitmap::new(),
            generation: None,
            saved: false,
            damaged: Vec::new(),
            made: Made::default(),
            unread,
            deferred: Vec::new(),
        }
    }

    /// A new held index of `collection`: its checkpoint restored and caught up (the
    /// restore on this thread, or on the thread it started on at open, while another takes
    /// the live view and the difference), or, without a usable checkpoint, built from
    /// nothing importing `attrs`.
    fn made_from_base(
        &self,
        collection: &str,
        attrs: &[adjoin_query::Key],
    ) -> Result<(Held, Made), DbError> {
        let mut held = self.empty_held(collection);
        let number = self.store.generation(collection)?.map(|g| g.collection);
        let early = number.and_then(|n| self.indexes.restoring.take(n));
        let (checkpoint, early) = match early {
            Some(e) => (Some(Arc::clone(&e.checkpoint)), Some(e)),
            None => (self.checkpoint_of(collection).map(Arc::new), None),
        };
        if let Some(checkpoint) = checkpoint {
            let (restored, plan) = std::thread::scope(|scope| {
                let planning = scope.spawn(|| -> Result<(Plan, IdMap), DbError> {
                    let plan = self.plan(collection, checkpoint.marks())?;
                    let ids = plan.kept_ids();
                    Ok((plan, ids))
                });
                let source = held.index.source();
                let restored = match (early, source) {
                    (Some(e), Some(source)) => e.join().map(|(mut index, ported, current)| {
                        index.set_source(source);
                        (index, ported, current)
                    }),
                    (None, Some(source)) => {
                        restoring::restore(&self.indexes.opts, &checkpoint, source)
                    }
                    (_, None) => None,
                };
                let plan = planning.join().unwrap_or_else(|_| {
                    Err(DbError::Io {
                        path: PathBuf::new(),
                        source: std::io::Error::other("the planning thread panicked"),
                    })
                });
                (restored, plan)
            });
            let (plan, ids) = plan?;
            if let Some((index, ported, current)) = restored {
                held.index = SharedIndex::new(index);
                held.ported = ported;
                *held.ids.write() = ids;
                held.saved = current;
                let made = self.apply_plan(&mut held, collection, plan, true)?;
                return Ok((held, made));
            }
        }
        held.index.ensure_imported(attrs);
        let made = self.catch_up(&mut held, collection)?;
        Ok((held, made))
    }

    /// `collection`'s checkpoint, if there is one of it that passes its checks.
    fn checkpoint_of(&self, collection: &str) -> Option<Checkpoint> {
        let dir = self.indexes.dir.as_ref()?;
        let g = self.store.generation(collection).ok()??;
        match Checkpoint::open(&held_files::path(dir, g.collection)) {
            Ok(c) if c.generation().collection == g.collection => Some(c),
            Ok(_) => {
                tracing::warn!(
                    collection,
                    "index checkpoint of another collection; building"
                );
                None
            }
            Err(e) => {
                tracing::debug!(collection, %e, "no index checkpoint");
                None
            }
        }
    }

    /// The difference between `marks` (what an index holds, by seq) and `collection`'s live
    /// view, ads expired by now left out.
    fn plan(
        &self,
        collection: &str,
        marks: impl Iterator<Item = (u64, u64)>,
    ) -> Result<Plan, DbError> {
        let now = self.now();
        let view = self.store.live_view(collection)?;
        let d = difference(marks, &view.ads, |a| a.expires.is_none_or(|t| t > now));
        Ok(Plan { view, d, now })
    }

    /// Brings `held` up to date with the store by the difference between its marks and the
    /// collection's live view.
    fn catch_up(&self, held: &mut Held, collection: &str) -> Result<Made, DbError> {
        let marks = held.ids.read().marks();
        let plan = self.plan(collection, marks.into_iter())?;
        self.apply_plan(held, collection, plan, false)
    }

    /// Applies `plan` to `held`: ads gone or changed are removed, ads new or changed read and
    /// added, expiries set as the view has them; it takes the view's generation. `restored`:
    /// `held` was just restored from the checkpoint the plan was made from.
    fn apply_plan(
        &self,
        held: &mut Held,
        collection: &str,
        plan: Plan,
        restored: bool,
    ) -> Result<Made, DbError> {
        let _span = tracing::debug_span!("catch_up", collection).entered();
        let Plan { view, d, now } = plan;
        let keep = |a: &LiveAd| a.expires.is_none_or(|t| t > now);
        for &seq in &d.removed {
            if let Ok(n) = AdId::try_from(seq) {
                held.forget(n);
            }
        }
        // Expiries of the ads kept, as the view has them (those read below as read).
        held.expires = Expiries::default();
        {
            let map = held.ids.read();
            for a in view.ads.iter().filter(|a| a.expires.is_some() && keep(a)) {
                if let Ok(n) = AdId::try_from(a.seq) {
                    if map.id(n).is_some() {
                        held.expires.set(n, a.expires);
                    }
                }
            }
        }
        let mut damaged: Vec<String> = view.damaged.iter().map(ToString::to_string).collect();
        let wanted: Vec<&LiveAd> = d.added.iter().map(|&i| &view.ads[i]).collect();
        // A few ads go in one by one (each updates the axes); many in batches (the axes
        // built once per batch).
        let many = wanted.len() > 4096.max(held.index.len() / 16);
        let mut replayed = 0;
        self.read_wanted(collection, &wanted, &mut damaged, &mut |ads| {
            replayed += ads.len();
            held.add_read(ads, many)
        })?;
        held.damaged.extend(damaged);
        let made = Made {
            restored,
            replayed,
            removed: d.removed.len(),
        };
        if !d.removed.is_empty() || !d.added.is_empty() {
            held.saved = false;
        }
        held.generation = view.generation;
        Ok(made)
    }

    /// The ads of `wanted` (from a live view), read from the store as they are now and handed
    /// to `each` in batches: one by one when few, by one scan of the collection when many.
    /// What cannot be read goes to `damaged`; an ad gone since is skipped.
    fn read_wanted(
        &self,
        collection: &str,
        wanted: &[&LiveAd],
        damaged: &mut Vec<String>,
        each: &mut dyn FnMut(Vec<StoredAd>) -> Result<(), DbError>,
    ) -> Result<(), DbError> {
        const BATCH: usize = 4096;
        let mut out = Vec::with_capacity(wanted.len().min(BATCH));
        if wanted.len() <= 256 {
            for a in wanted {
                match self.store.get(collection, &a.id) {
                    Ok(Some(ad)) => out.push(ad),
                    Ok(None) => {}
                    Err(e) => damaged.push(e.to_string()),
                }
            }
            return each(out);
        }
        let seqs: FxHashSet<u64> = wanted.iter().map(|a| a.seq).collect();
        let scan = self.store.scan_with(collection, |coll, header, raw| {
            if !seqs.contains(&header.seq) {
                return Ok(None);
            }
            Ok(Some(StoredAd {
                collection: coll.to_owned(),
                header,
                revision: raw.revision(),
                ad: raw.decode()?,
            }))
        })?;
        for item in scan {
            match item {
                Ok(Some(ad)) => {
                    out.push(ad);
                    if out.len() == BATCH {
                        each(std::mem::take(&mut out))?;
                    }
                }
                Ok(None) => {}
                Err(e) => damaged.push(e.to_string()),
            }
        }
        each(out)
    }

    /// The clock the store reads.
    pub(crate) fn now(&self) -> i64 {
        (self.store.options().clock)()
    }

    /// Holds `collection`'s index if that costs no full read: the collection is empty or new,
    /// or it has a checkpoint (restored, then caught up by what changed since). A load then
    /// feeds the index as it goes (a collection loaded without one is indexed by one scan
    /// when first queried).
    pub(crate) fn hold_index_if_cheap(&self, collection: &str) -> Result<(), DbError> {
        let g = self.store.generation(collection)?;
        let cheap = match (g, &self.indexes.dir) {
            (None, _) => true,
            (Some(_), _) if self.store.stored_count(collection)? == 0 => true,
            (Some(g), Some(dir)) => held_files::path(dir, g.collection).exists(),
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

/// A write in progress, holding its collections' held indexes' locks (see the module
/// invariant). A write changes its own collections, and may purge expired ads of any:
/// [`Writing::apply`] applies the former, [`Writing::finish`] the latter, then records each
/// index's new generation.
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
            let guard = slot.held.write();
            let before = db.store.generation(name)?;
            let current = guard
                .as_ref()
                .is_some_and(|h| h.generation.is_some() && h.generation == before);
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

    /// Applies a change the write made to `collection`'s index, if held and current; `f`
    /// returns false when the index cannot follow (it is caught up at its next use).
    pub(crate) fn apply(&mut self, collection: &str, f: impl FnOnce(&mut Held) -> bool) {
        let Some(Locked(_, guard, _, current)) = self.held.iter_mut().find(|h| h.0 == collection)
        else {
            return;
        };
        if *current {
            *current = guard.as_mut().is_some_and(f);
        }
    }

    /// Records the write's end: each current held index whose collection changed drops the
    /// ads expired by now (a purge the write may have made) and takes the new generation.
    /// One that was stale, could not follow, or followed a failed write whose changes are
    /// unknown (e.g. committed, then the flush failed) keeps its marks, which say exactly what
    /// it holds, and is caught up at its next use.
    pub(crate) fn finish(mut self, ok: bool) -> Result<(), DbError> {
        let now = self.db.now();
        for Locked(name, guard, before, current) in &mut self.held {
            let after = self.db.store.generation(name)?;
            let Some(h) = guard.as_mut() else { continue };
            if after == *before {
                continue;
            }
            h.saved = false;
            if *current && ok {
                h.purge(now);
                h.generation = after;
            } else {
                h.generation = None;
            }
        }
        Ok(())
    }
}

impl Held {
    /// Applies a put the store made.
    pub(crate) fn apply_put(&mut self, put: &adjoin_storage::Put, ad: Arc<ClassAd>) -> bool {
        let converted = self.index.converter().convert(&ad);
        self.put(put, converted)
    }

    /// Applies a put the store made, of an ad converted ahead by [`Writing::converter`].
    pub(crate) fn apply_converted(&mut self, put: &adjoin_storage::Put, ad: Converted) -> bool {
        self.put(put, ad)
    }
}

#[cfg(test)]
mod tests {
    use super::{tell_unread, HeldAd, IdMap};

    /// The ids a held index was made with (a sorted base) and those written since (a map)
    /// answer as one map: by number, by id, and as marks.
    #[test]
    fn id_maps_answer_over_their_base_and_later_writes() {
        let held = |id: &str, revision| {
            Some(HeldAd {
                id: id.into(),
                revision,
            })
        };
        let mut m = IdMap {
            base: vec![(2, held("a", 20)), (5, held("b", 50)), (9, held("c", 90))],
            ..IdMap::default()
        };
        assert_eq!((m.id(5), m.id(4)), (Some("b"), None));
        assert_eq!(m.marks(), [(2, 20), (5, 50), (9, 90)]);
        assert_eq!(m.number("c"), Some(9));
        // Replaced (5), removed (2), added (7): each once, the reverse map following.
        m.insert(5, "b".into(), 51);
        assert!(m.remove(2).is_some() && m.remove(2).is_none());
        m.insert(7, "d".into(), 70);
        for (n, want) in [(2, None), (5, Some("b")), (7, Some("d")), (9, Some("c"))] {
            assert_eq!(m.id(n), want, "{n}");
        }
        assert_eq!(m.marks(), [(5, 51), (7, 70), (9, 90)]);
        assert_eq!(
            (m.number("a"), m.number("d"), m.number("b")),
            (None, Some(7), Some(5))
        );
        assert!(m.remove(9).is_some() && m.number("c").is_none());
    }

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
