//! Storing and removing ads: [`AdStore::put`], [`AdStore::put_all`], the chunk commit behind
//! bulk loads ([`Loader`](crate::Loader)), and [`AdStore::remove`].
//!
//! One routine, [`put_one`], stores an ad in a [`Txn`]; a single put runs it for one ad, a bulk
//! load for a chunk of ads, so both keep the same invariants: a stale update is refused, a
//! replaced ad keeps its place in load order (its record is rewritten in its block), and new
//! ads are packed, in load order, into new blocks. A put under a consumed id re-advertises it
//! (`readvertise.rs`).

use crate::block::Rec;
use crate::error::AdError;
use crate::ident::{Expiry, IdRule};
use crate::key::{meta, tree, CollId};
use crate::readvertise::{self, Stamp};
use crate::record::AdHeader;
use crate::store::{damage, valid_collection, valid_id, AdStore, Durability};
use crate::txn::Txn;
use adjoin_query::ClassAd;

/// How to store ads.
#[derive(Clone, Debug, Default)]
pub struct PutOptions {
    /// Where ids come from.
    pub id: IdRule,
    /// When ads expire.
    pub expiry: Expiry,
    /// Whether each write is flushed before it returns.
    pub durability: Durability,
}

/// What storing one ad did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Put {
    /// The ad's id (generated when the ad had none).
    pub id: String,
    /// True when the store made the id up.
    pub generated: bool,
    /// True when an ad with this id was replaced (it keeps its place in load order).
    pub replaced: bool,
    /// Its place in load order.
    pub seq: u64,
    /// When it expires, if it does.
    pub expires: Option<i64>,
    /// Its record's [`revision`](crate::record::revision): what a held index keeps to tell
    /// this version of the ad from a later one under the same `seq`.
    pub revision: u64,
}

/// An ad ready to store: id and expiry resolved, ad encoded.
pub(crate) struct Prepared {
    id: Option<String>,
    /// Its update stamp, for the stale-update guard (`readvertise.rs`).
    stamp: Option<Stamp>,
    expires: Option<i64>,
    ad_bytes: Vec<u8>,
}

/// Resolves what can be known of an ad before its transaction.
pub(crate) fn prepare(
    store: &AdStore,
    ad: &ClassAd,
    opts: &PutOptions,
    now: i64,
) -> Result<Prepared, AdError> {
    prepare_as(store, ad, opts.id.id_of(ad, now), opts, now)
}

/// [`prepare`] with the id given (`None`: generated) instead of read by `opts.id`.
pub(crate) fn prepare_as(
    store: &AdStore,
    ad: &ClassAd,
    id: Option<String>,
    opts: &PutOptions,
    now: i64,
) -> Result<Prepared, AdError> {
    let shown = || id.clone().unwrap_or_else(|| "(no id)".into());
    if let Some(id) = &id {
        valid_id(id)?;
    }
    let expires = opts
        .expiry
        .resolve(ad, now)
        .map_err(|v| AdError::BadExpiry {
            id: shown(),
            attr: match &opts.expiry {
                Expiry::Attr(a) => a.clone(),
                _ => String::new(),
            },
            value: v.0,
        })?;
    let ad_bytes = store.names.encode(&*store.store, ad).map_err(|e| match e {
        AdError::TooLarge { detail, .. } => AdError::TooLarge {
            id: shown(),
            detail,
        },
        other => other,
    })?;
    Ok(Prepared {
        id,
        stamp: Stamp::of(ad),
        expires,
        ad_bytes,
    })
}

/// The prefix of generated ids (`auto-1`, `auto-2`, …).
pub const GENERATED_PREFIX: &str = "auto-";

/// Stores one prepared ad of collection `name` in `txn`. The outer `Result` fails the whole
/// write; the inner one refuses only this ad (nothing of it planned).
fn put_one(
    txn: &mut Txn<'_>,
    name: &str,
    p: Prepared,
    now: i64,
) -> Result<Result<Put, AdError>, AdError> {
    let c = txn.collection_or_create(name)?.id;
    let (id, generated) = match p.id {
        Some(id) => {
            if let Some(ts) = txn.tombstone(name, c, &id)? {
                // A re-advertisement of a consumed id: unless the consumed ad is a later
                // update (and its tombstone in force), the tombstone goes, its dead records
                // first (format 3); the match record stays.
                if ts.until > now {
                    let dead = txn.last_dead(c, &id);
                    if let Err(e) = readvertise::guard(txn, name, c, &id, dead, p.stamp)? {
                        return Ok(Err(e));
                    }
                }
                txn.bury(name, c, &id)?;
                txn.set_tombstone(c, &id, None);
            }
            (id, false)
        }
        None => {
            let mut n = txn.counter(meta::NEXT_GENERATED, 1)?;
            let id = loop {
                let candidate = format!("{GENERATED_PREFIX}{n}");
                n += 1;
                if txn.lookup(c, &candidate).is_none() {
                    break candidate;
                }
            };
            txn.set_counter(meta::NEXT_GENERATED, n);
            (id, true)
        }
    };
    let mut header = AdHeader {
        id,
        seq: 0,
        stored_at: now,
        expires: p.expires,
        generated_id: generated,
    };
    if let Some(loc) = txn.lookup(c, &header.id) {
        // A block that cannot be read refuses this ad only (the rest of a chunk is stored).
        let old_expiry = match txn.record(name, c, loc) {
            Ok(Some(old)) => old.header.expires,
            Ok(None) => return Ok(Err(missing(name, &header.id, loc.seq))),
            Err(AdError::Damaged(d)) => return Ok(Err(AdError::Damaged(d))),
            Err(e) => return Err(e),
        };
        if old_expiry.is_none_or(|at| at > now) {
            if let Err(e) = readvertise::guard(txn, name, c, &header.id, Some(loc), p.stamp)? {
                return Ok(Err(e));
            }
            header.seq = loc.seq;
            let rec = Rec::new(header, p.ad_bytes);
            let put = Put {
                id: rec.header.id.clone(),
                generated,
                replaced: true,
                seq: loc.seq,
                expires: rec.header.expires,
                revision: rec.revision(),
            };
            txn.replace(name, c, loc, rec)?;
            return Ok(Ok(put));
        }
        // The old ad had expired: it is gone, and this one is new, at the end.
        txn.take(name, c, loc)?;
        txn.update_collection(name, |e| e.count = e.count.saturating_sub(1));
    }
    let mut seq = 0;
    txn.update_collection(name, |e| {
        seq = e.next_seq;
        e.next_seq += 1;
        e.count += 1;
    });
    header.seq = seq;
    let rec = Rec::new(header, p.ad_bytes);
    let put = Put {
        id: rec.header.id.clone(),
        generated,
        replaced: false,
        seq,
        expires: rec.header.expires,
        revision: rec.revision(),
    };
    txn.append(c, rec);
    Ok(Ok(put))
}

/// Replaces live ad `id` of `name` by `ad` in `txn`, keeping its place in load order and its
/// expiry (a partitionable slot's remainder after a match carved its share). The inner error
/// refuses it: no live ad has that id ([`AdError::MissingMember`]).
pub(crate) fn replace_live(
    txn: &mut Txn<'_>,
    store: &AdStore,
    name: &str,
    id: &str,
    ad: &ClassAd,
    now: i64,
) -> Result<Result<Put, AdError>, AdError> {
    let gone = || {
        Ok(Err(AdError::MissingMember {
            collection: name.to_owned(),
            id: id.to_owned(),
        }))
    };
    let Some(c) = txn.collection(name)? else {
        return gone();
    };
    let Some(loc) = txn.lookup(c.id, id) else {
        return gone();
    };
    let expires = match txn.expiry_of(name, c.id, id, loc)? {
        Some(e) if e.is_none_or(|at| at > now) => e,
        Some(_) => return gone(),
        None => return Err(missing(name, id, loc.seq)),
    };
    let mut p = match prepare_as(store, ad, Some(id.to_owned()), &PutOptions::default(), now) {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    // The store's own update: not guarded as a daemon's.
    p.stamp = None;
    p.expires = expires;
    put_one(txn, name, p, now)
}

/// The damage of an index entry whose record its block does not hold.
pub(crate) fn missing(name: &str, id: &str, seq: u64) -> AdError {
    AdError::Damaged(damage(
        tree::BLOCKS,
        Some(name),
        Some(id),
        &[],
        format!("the index places the ad at #{seq}, which its block does not hold"),
    ))
}

impl AdStore {
    /// Stores prepared ads in `name` in one transaction, returning each one's outcome in order
    /// (ads refused while being prepared keep their refusal).
    pub(crate) fn put_chunk(
        &self,
        name: &str,
        items: Vec<Result<Prepared, AdError>>,
    ) -> Result<Vec<Result<Put, AdError>>, AdError> {
        self.put_chunk_as(name, items, false)
    }

    /// [`AdStore::put_chunk`]; with `all_or_nothing`, the first refused ad aborts the whole
    /// transaction and comes back as [`AdError::Refused`] with its index.
    fn put_chunk_as(
        &self,
        name: &str,
        items: Vec<Result<Prepared, AdError>>,
        all_or_nothing: bool,
    ) -> Result<Vec<Result<Put, AdError>>, AdError> {
        valid_collection(name)?;
        let _span =
            tracing::debug_span!("put_chunk", collection = name, ads = items.len()).entered();
        let now = self.now();
        let mut outcomes = Vec::with_capacity(items.len());
        {
            let _w = self.write.lock();
            let mut txn = Txn::new(self);
            for (i, item) in items.into_iter().enumerate() {
                let r = match item {
                    Ok(p) => put_one(&mut txn, name, p, now)?,
                    Err(e) => Err(e),
                };
                match r {
                    Err(e) if all_or_nothing => {
                        return Err(AdError::Refused {
                            index: i,
                            reason: Box::new(e),
                        })
                    }
                    r => outcomes.push(r),
                }
            }
            txn.commit()?;
            // The ads are committed; a failed lazy purge must not report them as not stored.
            // It purges in this collection only: a write changes no other collection.
            let only = self.coll_id(name);
            if let Err(e) = only.map_or(Ok(0), |c| {
                self.purge_some_in(now, self.opts.lazy_purge, Some(c))
            }) {
                tracing::warn!(error = %e, "lazy purge failed; expired ads stay until the next purge");
            }
        }
        Ok(outcomes)
    }

    /// Stores `ad` in collection `name` (created if new), replacing an ad with the same id, or
    /// re-advertising a consumed one (the match record stays). Refused when the ad stored
    /// under the id is a later update ([`AdError::Stale`]).
    pub fn put(&self, name: &str, ad: &ClassAd, opts: &PutOptions) -> Result<Put, AdError> {
        let _span = tracing::debug_span!("put", collection = name).entered();
        let p = prepare(self, ad, opts, self.now())?;
        let put = self.put_chunk(name, vec![Ok(p)])?.into_iter().next();
        // put_chunk returns one outcome per item.
        let put = put.ok_or_else(|| unreachable_outcome("put"))??;
        self.commit_point(opts.durability)?;
        Ok(put)
    }

    /// Stores `ad` in collection `name` under id `id` (instead of one read from the ad),
    /// otherwise as [`AdStore::put`] does.
    pub fn put_with_id(
        &self,
        name: &str,
        id: &str,
        ad: &ClassAd,
        opts: &PutOptions,
    ) -> Result<Put, AdError> {
        let _span = tracing::debug_span!("put_with_id", collection = name, id).entered();
        let p = prepare_as(self, ad, Some(id.to_owned()), opts, self.now())?;
        let put = self.put_chunk(name, vec![Ok(p)])?.into_iter().next();
        let put = put.ok_or_else(|| unreachable_outcome("put"))??;
        self.commit_point(opts.durability)?;
        Ok(put)
    }

    /// Stores all of `ads` in `name` in one transaction, or none of them: the first ad refused
    /// (tombstoned id, bad expiry, …) aborts the whole and is returned as
    /// [`AdError::Refused`] with its index. Durable when it returns (per `opts.durability`).
    pub fn put_all(
        &self,
        name: &str,
        ads: &[ClassAd],
        opts: &PutOptions,
    ) -> Result<Vec<Put>, AdError> {
        let _span = tracing::debug_span!("put_all", collection = name, ads = ads.len()).entered();
        let now = self.now();
        let items = ads.iter().map(|a| prepare(self, a, opts, now)).collect();
        let results = self.put_chunk_as(name, items, true)?;
        self.commit_point(opts.durability)?;
        results.into_iter().collect()
    }

    /// Removes the ad `id` from `name`, returning whether a live ad was there. The id is not
    /// tombstoned (see [`AdStore::consume`]).
    pub fn remove(&self, name: &str, id: &str, durability: Durability) -> Result<bool, AdError> {
        let _span = tracing::debug_span!("remove", collection = name, id).entered();
        let Some(_) = self.coll_id(name) else {
            return Ok(false);
        };
        let now = self.now();
        let removed = {
            let _w = self.write.lock();
            let mut txn = Txn::new(self);
            let removed = remove_one(&mut txn, name, id, now)?.is_some_and(|(live, _)| live);
            txn.commit()?;
            removed
        };
        self.commit_point(durability)?;
        Ok(removed)
    }
}

/// The error for a committed write that produced no outcome, which the code above rules out;
/// reported rather than panicked on.
pub(crate) fn unreachable_outcome(what: &str) -> AdError {
    AdError::Store(crate::error::StoreError::Backend {
        context: what.to_owned(),
        detail: "the transaction committed without an outcome".into(),
    })
}

/// Removes ad `id` of `name` in `txn` (its record, and one from the count). `None` when there
/// was no such ad; `Some((live, collection))` otherwise, `live` false for an expired one.
pub(crate) fn remove_one(
    txn: &mut Txn<'_>,
    name: &str,
    id: &str,
    now: i64,
) -> Result<Option<(bool, CollId)>, AdError> {
    let Some(coll) = txn.collection(name)? else {
        return Ok(None);
    };
    let c = coll.id;
    let Some(loc) = txn.lookup(c, id) else {
        return Ok(None);
    };
    let Some(rec) = txn.take(name, c, loc)? else {
        return Err(missing(name, id, loc.seq));
    };
    txn.update_collection(name, |e| e.count = e.count.saturating_sub(1));
    let live = rec.header.expires.is_none_or(|at| at > now);
    Ok(Some((live, c)))
}
