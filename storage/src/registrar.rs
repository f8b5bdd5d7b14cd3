//! Consumption and the match registrar (dissertation 3.4.2, 3.5): a consumed ad is removed and
//! its id tombstoned in the same transaction, and a match is recorded together with the
//! consumption of its members, so a crash leaves either the whole match or none of it.
//!
//! Group commit: [`AdStore::record_matches`] plans many matches in one transaction and
//! flushes once. Each match is still all or nothing: its members are checked (live, not
//! consumed earlier in the batch, each consumed once) before anything of it is planned, so a
//! refused match leaves the transaction as it found it.

use crate::backend::KeyRange;
use crate::codec;
use crate::error::AdError;
use crate::key::{self, meta, tree};
use crate::record::{MatchMember, MatchRecord, Tombstone};
use crate::store::{damage, t, AdStore, Durability};
use crate::txn::Txn;
use crate::write::{missing, unreachable_outcome};
use adjoin_query::{ClassAd, Value};

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

/// A partitionable offer's remainder after a match carved its share: the ad that replaces
/// the offer (same id, place in load order and expiry) in the match's transaction, instead of
/// the offer being consumed.
#[derive(Clone, Debug)]
pub struct Carve {
    /// The offer's collection.
    pub collection: String,
    /// The offer's id.
    pub id: String,
    /// What is left of it.
    pub rest: ClassAd,
}

/// What [`AdStore::record_matches`] does with the matches after one it refuses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum AfterRefusal {
    /// Attempts them: every match that can be recorded is.
    #[default]
    Continue,
    /// Attempts none of them, for callers whose later matches were decided assuming the
    /// earlier ones were made (a matchmaking cycle).
    Stop,
}

/// Consumes ad `id` of `name` in `txn`: drops it (its record stays in its block, dead, without
/// rewriting the block) and tombstones its id. False when no live ad has that id (nothing
/// planned then).
fn consume_one(
    txn: &mut Txn<'_>,
    store: &AdStore,
    name: &str,
    id: &str,
    now: i64,
    match_id: Option<u64>,
) -> Result<bool, AdError> {
    // The record stays in its block, dead (format 3): the block is not rewritten.
    let Some(coll) = txn.collection(name)? else {
        return Ok(false);
    };
    let c = coll.id;
    let Some(loc) = txn.lookup(c, id) else {
        return Ok(false);
    };
    let Some(expires) = txn.expiry_of(name, c, id, loc)? else {
        return Err(missing(name, id, loc.seq));
    };
    if expires.is_some_and(|at| at <= now) {
        return Ok(false);
    }
    if txn.kill(name, c, id, loc)?.is_none() {
        return Err(missing(name, id, loc.seq));
    }
    txn.update_collection(name, |e| e.count = e.count.saturating_sub(1));
    let ts = Tombstone {
        consumed_at: now,
        until: now.saturating_add(store.opts.tombstone_ttl),
        match_id,
    };
    txn.set_tombstone(c, id, Some(ts));
    Ok(true)
}

/// True when ad `id` of `name` is live as `txn` will leave it (stored, not expired at `now`).
/// Reads, plans nothing.
fn live(txn: &mut Txn<'_>, name: &str, id: &str, now: i64) -> Result<bool, AdError> {
    let Some(c) = txn.collection(name)? else {
        return Ok(false);
    };
    let Some(loc) = txn.lookup(c.id, id) else {
        return Ok(false);
    };
    match txn.expiry_of(name, c.id, id, loc)? {
        Some(expires) => Ok(expires.is_none_or(|at| at > now)),
        None => Err(missing(name, id, loc.seq)),
    }
}

/// Plans match `m` in `txn`: its record and the consumption of its members. The outer
/// `Result` fails the whole write; the inner one refuses this match only, with nothing of it
/// planned (every member is checked before anything is changed).
fn plan_match(
    txn: &mut Txn<'_>,
    store: &AdStore,
    m: &NewMatch,
    carve: Option<&Carve>,
    now: i64,
) -> Result<Result<MatchRecord, AdError>, AdError> {
    crate::history::valid_members(m)?;
    let consumed: Vec<&NewMember> = m.members.iter().filter(|mem| mem.consume).collect();
    if let Some(cv) = carve {
        let clash = consumed
            .iter()
            .any(|p| p.collection == cv.collection && p.id == cv.id);
        let ok = match live(txn, &cv.collection, &cv.id, now) {
            Ok(ok) => ok && !clash,
            Err(AdError::Damaged(d)) => return Ok(Err(AdError::Damaged(d))),
            Err(e) => return Err(e),
        };
        if !ok {
            return Ok(Err(AdError::MissingMember {
                collection: cv.collection.clone(),
                id: cv.id.clone(),
            }));
        }
    }
    for (i, mem) in consumed.iter().enumerate() {
        let twice = consumed[..i]
            .iter()
            .any(|p| p.collection == mem.collection && p.id == mem.id);
        let ok = match live(txn, &mem.collection, &mem.id, now) {
            Ok(ok) => ok && !twice,
            Err(AdError::Damaged(d)) => return Ok(Err(AdError::Damaged(d))),
            Err(e) => return Err(e),
        };
        if !ok {
            return Ok(Err(AdError::MissingMember {
                collection: mem.collection.clone(),
                id: mem.id.clone(),
            }));
        }
    }
    let id = txn.counter(meta::NEXT_MATCH, 1)?;
    for mem in consumed {
        if !consume_one(txn, store, &mem.collection, &mem.id, now, Some(id))? {
            return Err(unreachable_outcome("consuming a checked match member"));
        }
    }
    if let Some(cv) = carve {
        // Checked live above; a remainder that cannot be stored fails the whole batch rather
        // than leave this match half planned.
        crate::write::replace_live(txn, store, &cv.collection, &cv.id, &cv.rest, now)??;
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
    txn.put(t::MATCHES, &key::match_id(id), &rec)?;
    crate::history::index_match(txn, &rec)?;
    txn.set_counter(meta::NEXT_MATCH, id + 1);
    Ok(Ok(rec))
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
            let mut txn = Txn::new(self);
            if !consume_one(&mut txn, self, name, id, now, None)? {
                return Err(AdError::NotFound {
                    collection: name.to_owned(),
                    id: id.to_owned(),
                });
            }
            txn.commit()?;
        }
        self.commit_point(Durability::Immediate)
    }

    /// Records a match and consumes the members it says to, in one transaction, durably. If a
    /// member to consume is not there ([`AdError::MissingMember`]) nothing is recorded or
    /// consumed.
    pub fn record_match(&self, m: &NewMatch) -> Result<MatchRecord, AdError> {
        self.record_matches(std::slice::from_ref(m), AfterRefusal::Stop)?
            .pop()
            .unwrap_or_else(|| Err(unreachable_outcome("recording a match")))
    }

    /// Records matches in one transaction and one flush (group commit), each with the
    /// consumption of its members. Returns one outcome per match attempted, in order: every
    /// match with [`AfterRefusal::Continue`], those up to the first refused with
    /// [`AfterRefusal::Stop`]. A refused match records and consumes nothing: a member to
    /// consume is missing, expired, consumed by an earlier match of the batch or named twice
    /// ([`AdError::MissingMember`]), or its block is damaged ([`AdError::Damaged`]). Match ids
    /// follow the order of the recorded matches. The outer error fails the whole batch
    /// (nothing is written).
    pub fn record_matches(
        &self,
        ms: &[NewMatch],
        after: AfterRefusal,
    ) -> Result<Vec<Result<MatchRecord, AdError>>, AdError> {
        self.record_matches_with(ms, after, Durability::Immediate)
    }

    /// [`AdStore::record_matches`], flushed or not: with [`Durability::Buffered`] the batch
    /// commits atomically but becomes durable at the next flush (a caller committing many
    /// batches flushes once, before it reports them).
    pub fn record_matches_with(
        &self,
        ms: &[NewMatch],
        after: AfterRefusal,
        durability: Durability,
    ) -> Result<Vec<Result<MatchRecord, AdError>>, AdError> {
        self.record_matches_carving(ms, &[], after, durability)
    }

    /// [`AdStore::record_matches_with`] where match `i` may carve a partitionable offer:
    /// `carves[i]` (when there, and `Some`) replaces the offer by what is left of it in the
    /// match's transaction (the offer member is not consumed). A carve whose offer is gone
    /// refuses its match ([`AdError::MissingMember`]).
    pub fn record_matches_carving(
        &self,
        ms: &[NewMatch],
        carves: &[Option<Carve>],
        after: AfterRefusal,
        durability: Durability,
    ) -> Result<Vec<Result<MatchRecord, AdError>>, AdError> {
        let _span = tracing::debug_span!("record_matches", matches = ms.len()).entered();
        let now = self.now();
        let mut out = Vec::with_capacity(ms.len());
        {
            let _w = self.write.lock();
            let mut txn = Txn::new(self);
            for (i, m) in ms.iter().enumerate() {
                let carve = carves.get(i).and_then(Option::as_ref);
                let r = plan_match(&mut txn, self, m, carve, now)?;
                let refused = r.is_err();
                out.push(r);
                if refused && after == AfterRefusal::Stop {
                    break;
                }
            }
            if !out.iter().any(Result::is_ok) {
                return Ok(out);
            }
            txn.commit()?;
        }
        self.commit_point(durability)?;
        Ok(out)
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

    /// The recorded matches (those kept), oldest first: a scan of the whole history (see
    /// [`AdStore::recent_matches`], [`AdStore::matches_of_cycle`] and
    /// [`AdStore::matches_of_ad`] for reads that need none).
    pub fn matches(
        &self,
    ) -> Result<impl Iterator<Item = Result<MatchRecord, AdError>> + '_, AdError> {
        // Ends at the backend's first error, whatever the backend does after it.
        Ok(
            crate::backend::UntilError::new(self.store.scan(tree::MATCHES, KeyRange::all())?).map(
                |entry| {
                    let (k, v) = entry?;
                    codec::open(&k, &v).map_err(|e| {
                        let id = key::decode_match_id(&k).map(|i| i.to_string());
                        AdError::Damaged(damage(tree::MATCHES, None, id.as_deref(), &k, e))
                    })
                },
            ),
        )
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
