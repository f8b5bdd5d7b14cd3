//! Storing and removing ads: [`AdStore::put`], [`AdStore::put_all`], the chunk commit behind
//! bulk loads ([`Loader`](crate::Loader)), and [`AdStore::remove`].
//!
//! One routine, [`put_in_tx`], stores an ad inside a transaction; a single put runs it for one
//! ad, a bulk load for a chunk of ads, so both keep the same invariants: a record, its `ids`
//! entry and its `expiry` entry are written together, a tombstoned id is refused, and a
//! replaced ad keeps its place in load order.

use crate::backend::TxError;
use crate::codec;
use crate::error::AdError;
use crate::ident::{Expiry, IdRule};
use crate::key::{self, meta, tree, CollId};
use crate::record::{ad_payload, open_header, AdHeader, CollectionEntry, IdEntry, Tombstone};
use crate::store::{damage, t, valid_collection, valid_id, AdStore, Durability, W};
use adjoin_query::ClassAd;
use std::cell::RefCell;

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
}

/// An ad ready to store: id and expiry resolved, ad encoded.
pub(crate) struct Prepared {
    id: Option<String>,
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
    let id = opts.id.id_of(ad, now);
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
        expires,
        ad_bytes,
    })
}

/// What a chunk's transaction reads once and writes back once.
struct ChunkState {
    coll: CollectionEntry,
    coll_before: CollectionEntry,
    next_generated: Option<u64>,
}

/// The prefix of generated ids (`auto-1`, `auto-2`, …).
pub const GENERATED_PREFIX: &str = "auto-";

/// Stores one prepared ad inside a transaction. The outer `Result` fails the transaction; the
/// inner one rejects only this ad (nothing of it written).
fn put_in_tx(
    w: &W<'_>,
    name: &str,
    st: &mut ChunkState,
    p: &Prepared,
    now: i64,
) -> Result<Result<Put, AdError>, TxError> {
    let c = st.coll.id;
    let (id, generated) = match &p.id {
        Some(id) => {
            let tk = key::id(c, id);
            let what = || damage(tree::TOMBSTONES, Some(name), Some(id), &tk, "");
            if let Some(ts) = w.get::<Tombstone>(t::TOMBSTONES, &tk, what)? {
                if ts.until > now {
                    return Ok(Err(AdError::Consumed {
                        collection: name.to_owned(),
                        id: id.clone(),
                        match_id: ts.match_id,
                        until: ts.until,
                    }));
                }
                w.delete(t::TOMBSTONES, &tk)?;
            }
            (id.clone(), false)
        }
        None => {
            let mut n = match st.next_generated {
                Some(n) => n,
                None => w.counter(meta::NEXT_GENERATED, 1)?,
            };
            let id = loop {
                let candidate = format!("{GENERATED_PREFIX}{n}");
                n += 1;
                if w.tx.get(t::IDS, &key::id(c, &candidate))?.is_none() {
                    break candidate;
                }
            };
            st.next_generated = Some(n);
            (id, true)
        }
    };
    let ik = key::id(c, &id);
    let what = || damage(tree::IDS, Some(name), Some(&id), &ik, "");
    let existing = w.get::<IdEntry>(t::IDS, &ik, what)?;
    let mut replaced = false;
    let seq = match existing {
        Some(IdEntry { seq: old }) => {
            let ak = key::ad(c, old);
            let old_header = match w.tx.get(t::ADS, &ak)? {
                // A damaged or missing old record is overwritten: the put repairs it.
                Some(raw) => open_header(&ak, &raw).ok().map(|(h, _)| h),
                None => None,
            };
            let old_expiry = old_header.as_ref().and_then(|h| h.expires);
            if let Some(at) = old_expiry {
                w.delete(t::EXPIRY, &key::expiry(at, c, old))?;
            }
            if old_expiry.is_some_and(|at| at <= now) {
                // The old ad had expired: it is gone, and this one is new, at the end.
                w.delete(t::ADS, &ak)?;
                let seq = st.coll.next_seq;
                st.coll.next_seq += 1;
                seq
            } else {
                replaced = true;
                old
            }
        }
        None => {
            let seq = st.coll.next_seq;
            st.coll.next_seq += 1;
            st.coll.count += 1;
            seq
        }
    };
    let header = AdHeader {
        id: id.clone(),
        seq,
        stored_at: now,
        expires: p.expires,
        generated_id: generated,
    };
    let ak = key::ad(c, seq);
    let payload = match ad_payload(&header, &p.ad_bytes) {
        Ok(b) => b,
        Err(e) => {
            return Ok(Err(AdError::TooLarge {
                id,
                detail: e.to_string(),
            }))
        }
    };
    w.tx.put(t::ADS, &ak, &codec::frame(&ak, &payload))?;
    if existing.map(|e| e.seq) != Some(seq) {
        w.put(t::IDS, &ik, &IdEntry { seq })?;
    }
    if let Some(at) = p.expires {
        let ek = key::expiry(at, c, seq);
        w.put(t::EXPIRY, &ek, &())?;
    }
    Ok(Ok(Put {
        id,
        generated,
        replaced,
        seq,
    }))
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
        let mut outcomes: Vec<Option<Result<Put, AdError>>> = Vec::with_capacity(items.len());
        let mut ready: Vec<(usize, Prepared)> = Vec::with_capacity(items.len());
        for (i, item) in items.into_iter().enumerate() {
            match item {
                Ok(p) => {
                    ready.push((i, p));
                    outcomes.push(None);
                }
                Err(e) if all_or_nothing => {
                    return Err(AdError::Refused {
                        index: i,
                        reason: Box::new(e),
                    })
                }
                Err(e) => outcomes.push(Some(Err(e))),
            }
        }
        let done: RefCell<(Vec<Result<Put, AdError>>, CollId)> = RefCell::new((Vec::new(), 0));
        {
            let _w = self.write.lock();
            self.write_tx(&|w| {
                let coll = w.collection_or_create(name)?;
                let mut st = ChunkState {
                    coll,
                    coll_before: coll,
                    next_generated: None,
                };
                let mut results = Vec::with_capacity(ready.len());
                for (i, p) in &ready {
                    match put_in_tx(w, name, &mut st, p, now)? {
                        Err(e) if all_or_nothing => {
                            return Err(TxError::abort(AdError::Refused {
                                index: *i,
                                reason: Box::new(e),
                            }))
                        }
                        r => results.push(r),
                    }
                }
                if st.coll_before != st.coll {
                    w.put(t::CATALOG, &key::catalog(name), &st.coll)?;
                }
                if let Some(n) = st.next_generated {
                    w.put(t::META, meta::NEXT_GENERATED, &n)?;
                }
                *done.borrow_mut() = (results, st.coll.id);
                Ok(())
            })?;
            let c = done.borrow().1;
            self.learn_collection(name, c);
            // The ads are committed; a failed lazy purge must not report them as not stored.
            if let Err(e) = self.purge_some(now, self.opts.lazy_purge) {
                tracing::warn!(error = %e, "lazy purge failed; expired ads stay until the next purge");
            }
        }
        for ((i, _), r) in ready.iter().zip(done.into_inner().0) {
            outcomes[*i] = Some(r);
        }
        Ok(outcomes.into_iter().flatten().collect())
    }

    /// Stores `ad` in collection `name` (created if new), replacing an ad with the same id.
    /// Refused when the id is tombstoned ([`AdError::Consumed`]).
    pub fn put(&self, name: &str, ad: &ClassAd, opts: &PutOptions) -> Result<Put, AdError> {
        let _span = tracing::debug_span!("put", collection = name).entered();
        let p = prepare(self, ad, opts, self.now())?;
        let put = self.put_chunk(name, vec![Ok(p)])?.into_iter().next();
        // put_chunk returns one outcome per item.
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
        let removed = RefCell::new(false);
        {
            let _w = self.write.lock();
            self.write_tx(&|w| {
                *removed.borrow_mut() =
                    remove_in_tx(w, name, id, now)?.is_some_and(|(live, _)| live);
                Ok(())
            })?;
        }
        self.commit_point(durability)?;
        Ok(removed.into_inner())
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

/// Removes ad `id` of `name` inside a transaction (record, id entry, expiry entry, count).
/// `None` when there was no such ad; `Some((live, collection))` otherwise, `live` false for an
/// expired one.
pub(crate) fn remove_in_tx(
    w: &W<'_>,
    name: &str,
    id: &str,
    now: i64,
) -> Result<Option<(bool, CollId)>, TxError> {
    let Some(mut coll) = w.collection(name)? else {
        return Ok(None);
    };
    let c = coll.id;
    let ik = key::id(c, id);
    let what = || damage(tree::IDS, Some(name), Some(id), &ik, "");
    let Some(IdEntry { seq }) = w.get::<IdEntry>(t::IDS, &ik, what)? else {
        return Ok(None);
    };
    let ak = key::ad(c, seq);
    let header = match w.tx.get(t::ADS, &ak)? {
        Some(raw) => open_header(&ak, &raw).ok().map(|(h, _)| h),
        None => None,
    };
    if let Some(at) = header.as_ref().and_then(|h| h.expires) {
        w.delete(t::EXPIRY, &key::expiry(at, c, seq))?;
    }
    let live = header
        .as_ref()
        .is_some_and(|h| h.expires.is_none_or(|at| at > now));
    w.delete(t::ADS, &ak)?;
    w.delete(t::IDS, &ik)?;
    coll.count = coll.count.saturating_sub(1);
    w.put(t::CATALOG, &key::catalog(name), &coll)?;
    Ok(Some((live, c)))
}
