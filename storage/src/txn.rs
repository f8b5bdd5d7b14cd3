//! [`Txn`]: one write (a put, a chunk of a bulk load, a removal, a match, a purge) planned in
//! memory under the writer lock and committed as one store transaction.
//!
//! A writer reads what it needs straight from the store (no other writer can run), edits the
//! blocks it touches here, and [`Txn::commit`] writes every changed block, catalog entry,
//! counter, tombstone and match at once. Only after the commit succeeds is the in-memory index
//! changed, so a failed commit leaves nothing behind, on disk or in memory.

use crate::backend::Tx;
use crate::block::{self, Rec, View};
use crate::codec;
use crate::error::{AdError, StoreError};
use crate::index::{Change, Loc};
use crate::key::{self, tree, CollId};
use crate::record::{CollectionEntry, Tombstone};
use crate::store::{damage, t, tx_result, AdStore};
use std::collections::{BTreeMap, HashMap};

/// A block as this transaction will leave it.
struct Touched {
    /// `(id, seq, expires, revision)` of the records it held before (empty for a new block).
    old: Vec<(String, u64, Option<i64>, u64)>,
    /// Its records now, in sequence order.
    recs: Vec<Rec>,
    /// True when the block is in the store.
    existed: bool,
}

/// A collection as read and as it will be written.
struct Coll {
    name: String,
    before: Option<CollectionEntry>,
    now: CollectionEntry,
}

/// A write being planned. See the module documentation.
pub(crate) struct Txn<'s> {
    s: &'s AdStore,
    colls: HashMap<String, Coll>,
    /// `meta` counters: (value read, value to write).
    counters: BTreeMap<&'static [u8], (u64, u64)>,
    blocks: BTreeMap<(CollId, u64), Touched>,
    /// Ids placed or removed by this transaction (`None`: removed).
    pending: HashMap<CollId, HashMap<Box<str>, Option<Loc>>>,
    /// The block new ads of each collection go to, and its size in bytes.
    open: HashMap<CollId, (u64, usize)>,
    /// Tombstones to write (`None`: delete), by key.
    tombstones: BTreeMap<Vec<u8>, Option<Tombstone>>,
    /// Other sealed values to write: (tree number, key, value).
    puts: Vec<(usize, Vec<u8>, Vec<u8>)>,
    /// Unsealed entries to write or delete (index trees whose values say nothing).
    raws: Vec<(usize, Vec<u8>, Option<Vec<u8>>)>,
    /// Records killed (consumed, left in their blocks): collection, id, place, expiry.
    kills: Vec<(CollId, String, Loc, Option<i64>)>,
    /// Dead records taken out of their blocks.
    buried: Vec<(CollId, String, Loc)>,
}

/// A failure to encode a value, as the error a write reports.
fn encoding(e: codec::CodecError) -> AdError {
    AdError::Store(StoreError::Backend {
        context: "encoding".into(),
        detail: e.to_string(),
    })
}

impl<'s> Txn<'s> {
    /// A new, empty write on `s`. The caller holds the writer lock until [`Txn::commit`].
    pub(crate) fn new(s: &'s AdStore) -> Txn<'s> {
        Txn {
            s,
            colls: HashMap::new(),
            counters: BTreeMap::new(),
            blocks: BTreeMap::new(),
            pending: HashMap::new(),
            open: HashMap::new(),
            tombstones: BTreeMap::new(),
            puts: Vec::new(),
            raws: Vec::new(),
            kills: Vec::new(),
            buried: Vec::new(),
        }
    }

    /// Reads the catalog entry of `name` into the transaction; `None` when there is none.
    fn load_collection(&mut self, name: &str) -> Result<Option<&mut Coll>, AdError> {
        if !self.colls.contains_key(name) {
            let k = key::catalog(name);
            let Some(raw) = self.s.store.get(tree::CATALOG, &k)? else {
                return Ok(None);
            };
            let e: CollectionEntry = codec::open(&k, &raw)
                .map_err(|e| AdError::Damaged(damage(tree::CATALOG, Some(name), None, &k, e)))?;
            self.colls.insert(
                name.to_owned(),
                Coll {
                    name: name.to_owned(),
                    before: Some(e),
                    now: e,
                },
            );
        }
        Ok(self.colls.get_mut(name))
    }

    /// The catalog entry of `name` as this transaction will leave it, if the collection exists.
    pub(crate) fn collection(&mut self, name: &str) -> Result<Option<CollectionEntry>, AdError> {
        Ok(self.load_collection(name)?.map(|c| c.now))
    }

    /// The catalog entry of `name`, creating the collection if it is new.
    pub(crate) fn collection_or_create(&mut self, name: &str) -> Result<CollectionEntry, AdError> {
        if let Some(c) = self.collection(name)? {
            return Ok(c);
        }
        let id = self.counter(crate::key::meta::NEXT_COLLECTION, 1)?;
        let id = CollId::try_from(id).map_err(|_| AdError::InvalidCollection {
            name: name.to_owned(),
            reason: "the database holds 2^32 collections already",
        })?;
        self.set_counter(crate::key::meta::NEXT_COLLECTION, u64::from(id) + 1);
        let entry = CollectionEntry {
            id,
            next_seq: 1,
            count: 0,
        };
        self.colls.insert(
            name.to_owned(),
            Coll {
                name: name.to_owned(),
                before: None,
                now: entry,
            },
        );
        Ok(entry)
    }

    /// Changes the catalog entry of `name` (which this transaction has read or created).
    pub(crate) fn update_collection(&mut self, name: &str, f: impl FnOnce(&mut CollectionEntry)) {
        if let Some(c) = self.colls.get_mut(name) {
            f(&mut c.now);
        }
    }

    /// A `meta` counter as this transaction will leave it (absent counts as `first`).
    pub(crate) fn counter(&mut self, name: &'static [u8], first: u64) -> Result<u64, AdError> {
        if let Some(&(_, v)) = self.counters.get(name) {
            return Ok(v);
        }
        let v = match self.s.store.get(tree::META, name)? {
            Some(raw) => codec::open::<u64>(name, &raw).map_err(|e| {
                let id = String::from_utf8_lossy(name);
                AdError::Damaged(damage(tree::META, None, Some(&id), name, e))
            })?,
            None => first,
        };
        self.counters.insert(name, (v, v));
        Ok(v)
    }

    /// Sets a counter read with [`Txn::counter`].
    pub(crate) fn set_counter(&mut self, name: &'static [u8], value: u64) {
        if let Some(c) = self.counters.get_mut(name) {
            c.1 = value;
        }
    }

    /// Where ad `id` of `c` is, as this transaction will leave it.
    pub(crate) fn lookup(&self, c: CollId, id: &str) -> Option<Loc> {
        match self.pending.get(&c).and_then(|p| p.get(id)) {
            Some(p) => *p,
            None => self.s.index.read().get(c, id),
        }
    }

    /// The block `(c, b)` of collection `name`, read into the transaction.
    fn block(&mut self, name: &str, c: CollId, b: u64) -> Result<&mut Touched, AdError> {
        if !self.blocks.contains_key(&(c, b)) {
            let k = key::block(c, b);
            let touched = match self.s.store.get(tree::BLOCKS, &k)? {
                None => Touched {
                    old: Vec::new(),
                    recs: Vec::new(),
                    existed: false,
                },
                Some(raw) => {
                    let view = View::open(&k, b, &raw).map_err(|e| {
                        AdError::Damaged(damage(tree::BLOCKS, Some(name), None, &k, e))
                    })?;
                    Touched {
                        old: view
                            .entries()
                            .iter()
                            .map(|e| (e.id.to_owned(), e.seq, e.expires, e.revision()))
                            .collect(),
                        recs: view.recs(),
                        existed: true,
                    }
                }
            };
            self.blocks.insert((c, b), touched);
        }
        self.blocks
            .get_mut(&(c, b))
            .ok_or_else(|| crate::write::unreachable_outcome("reading a block"))
    }

    /// The record at `loc` of collection `name` (number `c`), as this transaction has it.
    pub(crate) fn record(
        &mut self,
        name: &str,
        c: CollId,
        loc: Loc,
    ) -> Result<Option<&Rec>, AdError> {
        let b = self.block(name, c, loc.block)?;
        Ok(b.recs.iter().find(|r| r.header.seq == loc.seq))
    }

    /// Removes the record at `loc`, returning it (`None` when the block does not hold it).
    pub(crate) fn take(&mut self, name: &str, c: CollId, loc: Loc) -> Result<Option<Rec>, AdError> {
        let b = self.block(name, c, loc.block)?;
        let Some(i) = b.recs.iter().position(|r| r.header.seq == loc.seq) else {
            return Ok(None);
        };
        let rec = b.recs.remove(i);
        self.note(c, &rec.header.id, None);
        Ok(Some(rec))
    }

    /// The expiry of live ad `id` of `c` at `loc` from the in-memory index alone, when this
    /// transaction has not changed the id or its block (else `None`).
    fn indexed_expiry(&self, c: CollId, id: &str, loc: Loc) -> Option<Option<i64>> {
        if self.blocks.contains_key(&(c, loc.block))
            || self.pending.get(&c).is_some_and(|p| p.contains_key(id))
        {
            return None;
        }
        let ix = self.s.index.read();
        let coll = ix.colls.get(&c)?;
        (coll.ids.get(id).map(|l| l.loc) == Some(loc))
            .then(|| coll.expires_at.get(&loc.seq).copied())
    }

    /// The expiry of live ad `id` of `c` at `loc`: from the in-memory index when it can tell,
    /// else read from its block without taking the block into the transaction (which would
    /// rewrite it); `None` when the block does not hold it.
    pub(crate) fn expiry_of(
        &mut self,
        name: &str,
        c: CollId,
        id: &str,
        loc: Loc,
    ) -> Result<Option<Option<i64>>, AdError> {
        if let Some(e) = self.indexed_expiry(c, id, loc) {
            return Ok(Some(e));
        }
        if let Some(t) = self.blocks.get(&(c, loc.block)) {
            let rec = t.recs.iter().find(|r| r.header.seq == loc.seq);
            return Ok(rec.map(|r| r.header.expires));
        }
        let k = key::block(c, loc.block);
        let Some(raw) = self.s.store.get(tree::BLOCKS, &k)? else {
            return Ok(None);
        };
        let view = View::open(&k, loc.block, &raw)
            .map_err(|e| AdError::Damaged(damage(tree::BLOCKS, Some(name), None, &k, e)))?;
        Ok(view.find(loc.seq).map(|i| view.entries()[i].expires))
    }

    /// Kills the record at `loc` (consumption): its id leaves the index, the record stays in
    /// its block, dead, until its tombstone goes ([`Txn::bury`]); a block this transaction
    /// rewrites anyway loses it at once. Returns its expiry, or `None` when the block does not
    /// hold it.
    pub(crate) fn kill(
        &mut self,
        name: &str,
        c: CollId,
        id: &str,
        loc: Loc,
    ) -> Result<Option<Option<i64>>, AdError> {
        if self.blocks.contains_key(&(c, loc.block)) {
            return Ok(self.take(name, c, loc)?.map(|r| r.header.expires));
        }
        let Some(expires) = self.expiry_of(name, c, id, loc)? else {
            return Ok(None);
        };
        self.note(c, id, None);
        self.kills.push((c, id.to_owned(), loc, expires));
        Ok(Some(expires))
    }

    /// The latest dead record of `id` of `c` (the ad its last consumption left), if any.
    pub(crate) fn last_dead(&self, c: CollId, id: &str) -> Option<Loc> {
        let ix = self.s.index.read();
        ix.colls
            .get(&c)
            .and_then(|x| x.dead_ids.get(id))
            .and_then(|locs| locs.iter().max_by_key(|l| l.seq).copied())
    }

    /// The ad of the record at `loc` of collection `name` (live or dead), decoded, read
    /// without taking its block into the transaction (which would rewrite it): `None` when
    /// its block does not hold it, the inner error when it does not decode.
    pub(crate) fn decode_at(
        &mut self,
        name: &str,
        c: CollId,
        loc: Loc,
    ) -> Result<Option<Result<adjoin_query::ClassAd, codec::CodecError>>, AdError> {
        let names = &self.s.names;
        if let Some(t) = self.blocks.get(&(c, loc.block)) {
            return Ok(t
                .recs
                .iter()
                .find(|r| r.header.seq == loc.seq)
                .map(|r| crate::raw::RawAd::new(&r.body, names).decode()));
        }
        let k = key::block(c, loc.block);
        let Some(raw) = self.s.store.get(tree::BLOCKS, &k)? else {
            return Ok(None);
        };
        let view = View::open(&k, loc.block, &raw)
            .map_err(|e| AdError::Damaged(damage(tree::BLOCKS, Some(name), None, &k, e)))?;
        Ok(view.find(loc.seq).map(|i| {
            view.body(i)
                .and_then(|body| crate::raw::RawAd::new(body, names).decode())
        }))
    }

    /// Takes the dead records of `id` of `c` out of their blocks (before its tombstone goes:
    /// without it they would read as live again).
    pub(crate) fn bury(&mut self, name: &str, c: CollId, id: &str) -> Result<(), AdError> {
        let locs: Vec<Loc> = {
            let ix = self.s.index.read();
            ix.colls
                .get(&c)
                .and_then(|x| x.dead_ids.get(id))
                .cloned()
                .unwrap_or_default()
        };
        for loc in locs {
            let b = self.block(name, c, loc.block)?;
            if let Some(i) = b.recs.iter().position(|r| r.header.seq == loc.seq) {
                b.recs.remove(i);
            }
            self.buried.push((c, id.to_owned(), loc));
        }
        Ok(())
    }

    /// Puts `rec` in place of the record with the same sequence number at `loc` (which must
    /// hold it: see [`Txn::record`]).
    pub(crate) fn replace(
        &mut self,
        name: &str,
        c: CollId,
        loc: Loc,
        rec: Rec,
    ) -> Result<(), AdError> {
        let b = self.block(name, c, loc.block)?;
        let Some(slot) = b.recs.iter_mut().find(|r| r.header.seq == loc.seq) else {
            return Err(crate::write::unreachable_outcome("replacing a record"));
        };
        let old_id = std::mem::replace(slot, rec).header.id;
        let new_id = slot.header.id.clone();
        if old_id != new_id {
            self.note(c, &old_id, None);
        }
        self.note(c, &new_id, Some(loc));
        Ok(())
    }

    /// Notes where `id` of `c` now is (`None`: nowhere).
    fn note(&mut self, c: CollId, id: &str, loc: Option<Loc>) {
        self.pending.entry(c).or_default().insert(id.into(), loc);
    }

    /// Adds `rec` (whose sequence number is the collection's next) after every other record of
    /// `c`, in the block this transaction is filling, or a new one.
    pub(crate) fn append(&mut self, c: CollId, rec: Rec) {
        let seq = rec.header.seq;
        let size = rec.body.len() + rec.header.id.len() + 32;
        let (max_ads, max_bytes) = (self.s.opts.block_ads.max(1), self.s.opts.block_bytes);
        let block = match self.open.get(&c) {
            Some(&(b, bytes)) if bytes < max_bytes => {
                let full = self
                    .blocks
                    .get(&(c, b))
                    .is_none_or(|t| t.recs.len() >= max_ads);
                (!full).then_some(b)
            }
            _ => None,
        };
        let b = match block {
            Some(b) => b,
            None => {
                self.blocks.insert(
                    (c, seq),
                    Touched {
                        old: Vec::new(),
                        recs: Vec::new(),
                        existed: false,
                    },
                );
                self.open.insert(c, (seq, 0));
                seq
            }
        };
        if let Some(o) = self.open.get_mut(&c) {
            o.1 += size;
        }
        self.note(c, &rec.header.id, Some(Loc { block: b, seq }));
        if let Some(t) = self.blocks.get_mut(&(c, b)) {
            t.recs.push(rec);
        }
    }

    /// The tombstone on `id` of `c`, as this transaction will leave it (lapsed ones included).
    pub(crate) fn tombstone(
        &self,
        name: &str,
        c: CollId,
        id: &str,
    ) -> Result<Option<Tombstone>, AdError> {
        let k = key::id(c, id);
        if let Some(t) = self.tombstones.get(&k) {
            return Ok(*t);
        }
        if !self.s.index.read().tombstoned.contains(&k) {
            return Ok(None);
        }
        let Some(raw) = self.s.store.get(tree::TOMBSTONES, &k)? else {
            return Ok(None);
        };
        codec::open(&k, &raw)
            .map(Some)
            .map_err(|e| AdError::Damaged(damage(tree::TOMBSTONES, Some(name), Some(id), &k, e)))
    }

    /// Writes (or with `None` deletes) the tombstone on `id` of `c`.
    pub(crate) fn set_tombstone(&mut self, c: CollId, id: &str, ts: Option<Tombstone>) {
        self.tombstones.insert(key::id(c, id), ts);
    }

    /// Deletes the `tombstones` entry under `k`.
    pub(crate) fn delete_tombstone_key(&mut self, k: &[u8]) {
        self.tombstones.insert(k.to_vec(), None);
    }

    /// Writes `value`, sealed, under `key` of tree number `tree` (a `t::` number).
    pub(crate) fn put<T: serde::Serialize + ?Sized>(
        &mut self,
        tree: usize,
        key: &[u8],
        value: &T,
    ) -> Result<(), AdError> {
        let sealed = codec::seal(key, value).map_err(encoding)?;
        self.puts.push((tree, key.to_vec(), sealed));
        Ok(())
    }

    /// Writes (`Some`) or deletes (`None`) an unsealed entry of tree number `tree`: entries of
    /// index trees whose keys say everything.
    pub(crate) fn raw(&mut self, tree: usize, key: Vec<u8>, value: Option<Vec<u8>>) {
        self.raws.push((tree, key, value));
    }

    /// Commits every write at once, then updates the index and the catalog in memory. Nothing
    /// is written when the transaction changed nothing.
    pub(crate) fn commit(self) -> Result<(), AdError> {
        type Writes = Vec<(usize, Vec<u8>, Option<Vec<u8>>)>;
        let mut writes: Writes = Vec::new();
        let mut changes = Vec::new();
        let mut adds = Vec::new();
        let names: HashMap<CollId, &str> = self
            .colls
            .values()
            .map(|c| (c.now.id, c.name.as_str()))
            .collect();
        for (&(c, b), touched) in &self.blocks {
            let k = key::block(c, b).to_vec();
            if touched.recs.is_empty() {
                if touched.existed {
                    writes.push((t::DIRS, k.clone(), None));
                    writes.push((t::BLOCKS, k, None));
                }
            } else {
                let value = block::encode(&k, &touched.recs).map_err(|e| {
                    let name = names.get(&c).copied();
                    let id = touched.recs.first().map(|r| r.header.id.as_str());
                    match e {
                        codec::CodecError::Encode(detail) => AdError::TooLarge {
                            id: id.unwrap_or_default().to_owned(),
                            detail,
                        },
                        other => AdError::Damaged(damage(tree::BLOCKS, name, id, &k, other)),
                    }
                })?;
                if let Some(head) = block::head(&value) {
                    writes.push((t::DIRS, k.clone(), Some(head.to_vec())));
                }
                writes.push((t::BLOCKS, k, Some(value)));
            }
            // Only records that changed change the index: both lists are in sequence order.
            type Listed<'a> = Vec<(&'a str, u64, Option<i64>, u64)>;
            let now: Listed = touched
                .recs
                .iter()
                .map(|r| {
                    (
                        r.header.id.as_str(),
                        r.header.seq,
                        r.header.expires,
                        r.revision(),
                    )
                })
                .collect();
            let was: Listed = touched
                .old
                .iter()
                .map(|(id, seq, exp, rev)| (id.as_str(), *seq, *exp, *rev))
                .collect();
            let loc = |seq| Loc { block: b, seq };
            for &(id, seq, exp, _) in was.iter().filter(|o| {
                now.binary_search_by_key(&o.1, |n| n.1)
                    .map_or(true, |i| now[i] != **o)
            }) {
                changes.push(Change::Remove(c, id.to_owned(), loc(seq), exp));
            }
            for &(id, seq, exp, rev) in now.iter().filter(|n| {
                was.binary_search_by_key(&n.1, |o| o.1)
                    .map_or(true, |i| was[i] != **n)
            }) {
                adds.push(Change::Add(c, id.to_owned(), loc(seq), exp, rev));
            }
        }
        changes.extend(adds);
        for (c, id, loc, exp) in &self.kills {
            changes.push(Change::Remove(*c, id.clone(), *loc, *exp));
            changes.push(Change::Dead(*c, id.clone(), *loc));
        }
        for (c, id, loc) in &self.buried {
            changes.push(Change::Buried(*c, id.clone(), *loc));
        }
        // Every collection with a block written or a record killed moves to its next
        // generation.
        let mut changed: Vec<CollId> = self.blocks.keys().map(|&(c, _)| c).collect();
        changed.extend(self.kills.iter().map(|k| k.0));
        changed.sort_unstable();
        changed.dedup();
        for c in changed {
            let k = key::meta::generation(c);
            let next = self.s.generation_of(c)?.wrapping_add(1);
            writes.push((
                t::META,
                k.clone(),
                Some(codec::seal(&k, &next).map_err(encoding)?),
            ));
        }
        for c in self.colls.values() {
            if c.before != Some(c.now) {
                let k = key::catalog(&c.name);
                let v = codec::seal(&k, &c.now).map_err(encoding)?;
                writes.push((t::CATALOG, k, Some(v)));
            }
        }
        for (&name, &(before, now)) in &self.counters {
            if before != now {
                let v = codec::seal(name, &now).map_err(encoding)?;
                writes.push((t::META, name.to_vec(), Some(v)));
            }
        }
        for (k, ts) in &self.tombstones {
            match ts {
                Some(ts) => {
                    writes.push((
                        t::TOMBSTONES,
                        k.clone(),
                        Some(codec::seal(k, ts).map_err(encoding)?),
                    ));
                    changes.push(Change::Tombstone(k.clone()));
                }
                None => {
                    writes.push((t::TOMBSTONES, k.clone(), None));
                    changes.push(Change::Untombstone(k.clone()));
                }
            }
        }
        for (tree, k, v) in self.puts {
            writes.push((tree, k, Some(v)));
        }
        writes.extend(self.raws);
        if writes.is_empty() {
            return Ok(());
        }
        let body = |tx: &dyn Tx| {
            for (tree, k, v) in &writes {
                match v {
                    Some(v) => tx.put(*tree, k, v)?,
                    None => tx.delete(*tree, k)?,
                }
            }
            Ok(())
        };
        tx_result(self.s.store.transaction(&tree::ALL, &body))?;
        let told = (!self.s.observers.read().is_empty()).then(|| changes.clone());
        self.s.index.write().apply(changes);
        for c in self.colls.values() {
            if c.before.is_none() {
                self.s.learn_collection(&c.name, c.now.id);
            }
        }
        if let Some(changes) = told {
            self.s.tell_observers(&changes);
        }
        Ok(())
    }
}
