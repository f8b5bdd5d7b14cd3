//! Consumption and the match registrar (dissertation 3.4.2, 3.5): a consumed ad is removed and
//! its id tombstoned in the same transaction, and a match is recorded together with the
//! consumption of its members, so a crash leaves either the whole match or none of it.

use crate::backend::{KeyRange, TxError};
use crate::codec;
use crate::error::AdError;
use crate::key::{self, meta, tree};
use crate::record::{MatchMember, MatchRecord, Tombstone};
use crate::store::{damage, t, AdStore, Durability, W};
use crate::write::remove_in_tx;
use adjoin_query::Value;
use std::cell::RefCell;

/// One ad of a match being recorded.
#[derive(Clone, Debug)]
pub struct NewMember {
    /// Its collection.
    pub collection: String,
    /// Its id.
    pub id: String,
    /// The rank it gave the match, if ranked.
    pub rank: Option<Value>,
    /// Whether the match consumes it.
    pub consume: bool,
}

/// A match to record.
#[derive(Clone, Debug)]
pub struct NewMatch {
    /// The matchmaking cycle that made it.
    pub cycle: u64,
    /// Its ads, in the caller's order.
    pub members: Vec<NewMember>,
}

/// Consumes ad `id` of `name` inside a transaction: removes it and tombstones its id.
fn consume_in_tx(
    w: &W<'_>,
    store: &AdStore,
    name: &str,
    id: &str,
    now: i64,
    match_id: Option<u64>,
) -> Result<bool, TxError> {
    let c = match remove_in_tx(w, name, id, now)? {
        Some((true, c)) => c,
        _ => return Ok(false),
    };
    let ts = Tombstone {
        consumed_at: now,
        until: now.saturating_add(store.opts.tombstone_ttl),
        match_id,
    };
    w.put(t::TOMBSTONES, &key::id(c, id), &ts)?;
    Ok(true)
}

impl AdStore {
    /// Consumes ad `id` of `name` without a match record: removes it and refuses updates under
    /// its id for [`StoreOptions::tombstone_ttl`](crate::StoreOptions) seconds. Durable when it
    /// returns. [`AdError::NotFound`] when no live ad has that id.
    pub fn consume(&self, name: &str, id: &str) -> Result<(), AdError> {
        let _span = tracing::debug_span!("consume", collection = name, id).entered();
        let now = self.now();
        {
            let _w = self.write.lock();
            self.write_tx(&|w| {
                if consume_in_tx(w, self, name, id, now, None)? {
                    Ok(())
                } else {
                    Err(TxError::abort(AdError::NotFound {
                        collection: name.to_owned(),
                        id: id.to_owned(),
                    }))
                }
            })?;
        }
        self.commit_point(Durability::Immediate)
    }

    /// Records a match and consumes the members it says to, in one transaction, durably. If a
    /// member to consume is not there ([`AdError::MissingMember`]) nothing is recorded or
    /// consumed.
    pub fn record_match(&self, m: &NewMatch) -> Result<MatchRecord, AdError> {
        let _span =
            tracing::debug_span!("record_match", cycle = m.cycle, members = m.members.len())
                .entered();
        let now = self.now();
        let out: RefCell<Option<MatchRecord>> = RefCell::new(None);
        {
            let _w = self.write.lock();
            self.write_tx(&|w| {
                let id = w.counter(meta::NEXT_MATCH, 1)?;
                for mem in m.members.iter().filter(|mem| mem.consume) {
                    if !consume_in_tx(w, self, &mem.collection, &mem.id, now, Some(id))? {
                        return Err(TxError::abort(AdError::MissingMember {
                            collection: mem.collection.clone(),
                            id: mem.id.clone(),
                        }));
                    }
                }
                let rec = MatchRecord {
                    id,
                    time: now,
                    cycle: m.cycle,
                    members: m
                        .members
                        .iter()
                        .map(|mem| MatchMember {
                            collection: mem.collection.clone(),
                            id: mem.id.clone(),
                            rank: mem.rank.clone(),
                            consumed: mem.consume,
                        })
                        .collect(),
                };
                w.put(t::MATCHES, &key::match_id(id), &rec)?;
                w.put(t::META, meta::NEXT_MATCH, &(id + 1))?;
                *out.borrow_mut() = Some(rec);
                Ok(())
            })?;
        }
        self.commit_point(Durability::Immediate)?;
        out.into_inner()
            .ok_or_else(|| crate::write::unreachable_outcome("record_match"))
    }

    /// The match with id `id`.
    pub fn get_match(&self, id: u64) -> Result<Option<MatchRecord>, AdError> {
        let k = key::match_id(id);
        let Some(raw) = self.store.get(tree::MATCHES, &k)? else {
            return Ok(None);
        };
        codec::open(&k, &raw).map(Some).map_err(|e| {
            AdError::Damaged(damage(tree::MATCHES, None, Some(&id.to_string()), &k, e))
        })
    }

    /// The recorded matches, oldest first.
    pub fn matches(
        &self,
    ) -> Result<impl Iterator<Item = Result<MatchRecord, AdError>> + '_, AdError> {
        Ok(self
            .store
            .scan(tree::MATCHES, KeyRange::all())?
            .map(|entry| {
                let (k, v) = entry?;
                codec::open(&k, &v).map_err(|e| {
                    let id = key::decode_match_id(&k).map(|i| i.to_string());
                    AdError::Damaged(damage(tree::MATCHES, None, id.as_deref(), &k, e))
                })
            }))
    }

    /// The tombstone on id `id` of `name`, if one is in force.
    pub fn tombstone(&self, name: &str, id: &str) -> Result<Option<Tombstone>, AdError> {
        let Some(c) = self.coll_id(name) else {
            return Ok(None);
        };
        let k = key::id(c, id);
        let Some(raw) = self.store.get(tree::TOMBSTONES, &k)? else {
            return Ok(None);
        };
        let ts: Tombstone = codec::open(&k, &raw)
            .map_err(|e| AdError::Damaged(damage(tree::TOMBSTONES, Some(name), Some(id), &k, e)))?;
        Ok((ts.until > self.now()).then_some(ts))
    }
}
