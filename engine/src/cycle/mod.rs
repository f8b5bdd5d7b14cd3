//! Matchmaking cycles as a database operation (issue 5; dissertation Algorithm 1, 3.2.4,
//! 3.4.2): requests served in priority order, each matched to its best compatible offers by
//! the docking vector, matched ads consumed and matches recorded atomically and durably.
//!
//! Rules, beyond those of [`order`] and [`dock`]:
//! - An offer is matched at most once a cycle; it leaves the candidates as soon as it is
//!   taken. Expired and consumed ads are not in the store's scan, so they never match; an ad
//!   that expires or is consumed by someone else during a durable cycle is skipped when its
//!   match is refused ([`DbError`] `MissingMember`), and the next candidate is tried.
//! - A request is matched up to `RequestCount` times (default 1) with its best candidates,
//!   best first (vector descending, ties to the earliest-loaded offer).
//! - A request matched at least once is consumed, in the same transaction as its first match
//!   (3.4.2: a matched ad is consumed; its agent re-advertises under a fresh identity, e.g.
//!   with the count still wanted). A request matched zero times is left as it is.
//! - Each (request, offer) pair is one match record, members `[request, offer]`, the offer
//!   always consumed. Their ranks are the default vector's two components; with `--dock` the
//!   request member carries the whole vector as a list and the offer member none.
//! - Requests are autoclustered ([`cluster`]): requests alike in everything the cycle reads
//!   of them share one sorted candidate list, computed once and popped, taken offers skipped.
//!   The results are exactly those of the uncached path (`no_clusters`, and `naive`), which
//!   computes every request's list afresh. `clusters` reports the number of clusters.

pub mod cluster;
pub mod dock;
pub mod naive;
pub mod order;

use self::cluster::Clusters;
use self::dock::{cmp_vectors, Dock};
use self::naive::Offers;
use crate::indexed::{Collection, IndexedError};
use crate::{Db, DbError};
use adjoin_index::{AdId, IndexOptions};
use adjoin_query::{Expr, Value};
use adjoin_storage::{AdError, NewMatch, NewMember};
use std::time::Instant;
use thiserror::Error;

/// What a cycle matches and how.
#[derive(Clone, Debug, Default)]
pub struct CycleOptions {
    /// The collection of requests (e.g. jobs).
    pub requests: String,
    /// The collection of offers (e.g. machines).
    pub offers: String,
    /// Requests are served in descending order of this, evaluated in each (default: load
    /// order).
    pub order_by: Option<Expr>,
    /// The docking vector's expressions (empty: the two ranks).
    pub dock: Vec<Expr>,
    /// Decide the matches but write nothing.
    pub dry_run: bool,
    /// Find candidates by evaluating every pair instead of through the index (uncached).
    pub naive: bool,
    /// Compute every request's candidates afresh instead of once per cluster.
    pub no_clusters: bool,
    /// Index and evaluation options.
    pub index: IndexOptions,
}

/// One match a cycle made.
#[derive(Clone, Debug, PartialEq)]
pub struct CycleMatch {
    /// The request's id.
    pub request: String,
    /// The offer's id.
    pub offer: String,
    /// The docking vector that chose it.
    pub vector: Vec<Value>,
    /// The match record's id (`None` in a dry run).
    pub record: Option<u64>,
}

/// What a cycle did.
#[derive(Debug, Default)]
pub struct CycleReport {
    /// The cycle number in the match records.
    pub cycle: u64,
    /// The matches, in the order made.
    pub matches: Vec<CycleMatch>,
    /// Requests considered.
    pub requests: usize,
    /// Requests matched at least once.
    pub matched: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Index probes.
    pub probes: u64,
    /// Requirement evaluations (index confirmations, or every pair with `naive`).
    pub evaluations: u64,
    /// Request clusters (the number of requests when uncached).
    pub clusters: usize,
    /// Ads the scans could not read (skipped).
    pub damaged: Vec<DbError>,
}

/// Why a cycle failed.
#[derive(Debug, Error)]
pub enum CycleError {
    /// A database operation failed; boxed, as it is large.
    #[error(transparent)]
    Db(Box<DbError>),
    /// The offers could not be read or indexed.
    #[error(transparent)]
    Indexed(#[from] IndexedError),
    /// Requests and offers are the same collection.
    #[error("requests and offers are the same collection {0}")]
    SameCollection(String),
}

impl From<DbError> for CycleError {
    fn from(e: DbError) -> CycleError {
        CycleError::Db(Box::new(e))
    }
}

/// The number the next cycle's records carry: one more than the last recorded.
fn next_cycle(db: &Db) -> Result<u64, DbError> {
    Ok(db
        .matches()?
        .last()
        .map_or(1, |m| m.cycle.saturating_add(1)))
}

/// Runs one matchmaking cycle over `db`.
pub fn run(db: &Db, opts: &CycleOptions) -> Result<CycleReport, CycleError> {
    let _span =
        tracing::info_span!("match_cycle", requests = %opts.requests, offers = %opts.offers)
            .entered();
    let start = Instant::now();
    if opts.requests == opts.offers {
        return Err(CycleError::SameCollection(opts.requests.clone()));
    }
    let eval = opts.index.eval.clone();
    let requests = Collection::scan(db, &opts.requests)?;
    let offers = Collection::scan(db, &opts.offers)?;
    let mut pool = if opts.naive {
        Offers::naive(&offers, eval.clone())
    } else {
        Offers::indexed(&offers, opts.index.clone())?
    };
    let dock = Dock::new(opts.dock.clone());
    let mut clusters = if opts.naive || opts.no_clusters {
        Clusters::singletons(requests.len())
    } else {
        Clusters::of(
            &requests.ads,
            &offers.ads,
            &opts.dock,
            opts.order_by.as_ref(),
            &eval,
        )
    };
    // Offers taken this cycle (or gone), by position: cached lists skip them.
    let mut taken = vec![false; offers.ads.len()];
    let mut report = CycleReport {
        cycle: if opts.dry_run { 0 } else { next_cycle(db)? },
        requests: requests.len(),
        clusters: clusters.len(),
        ..CycleReport::default()
    };
    for ri in order::request_order(&requests.ads, opts.order_by.as_ref(), &eval) {
        let (Some(req), Some(req_id)) = (requests.ads.get(ri), requests.ids.get(ri)) else {
            continue;
        };
        let want = order::request_count(req, &eval);
        if want == 0 {
            continue;
        }
        let compute = || {
            let mut scored: Vec<(Vec<Value>, AdId)> = pool
                .candidates(req)
                .iter()
                .filter_map(|o| {
                    let offer = offers.ad(o)?;
                    dock.vector(req, offer, &eval).map(|v| (v, o))
                })
                .collect();
            // Best vector first; the sort is stable and candidates come in load order.
            scored.sort_by(|a, b| cmp_vectors(&b.0, &a.0));
            scored
        };
        let Some(list) = clusters.list(ri, compute) else {
            continue;
        };
        let mut got = 0;
        while got < want {
            let Some((vector, o)) = list.peek(&taken) else {
                break;
            };
            let vector = vector.to_vec();
            let Some(offer_id) = offers.id(o) else {
                list.advance();
                continue;
            };
            let record = if opts.dry_run {
                None
            } else {
                let m = new_match(
                    report.cycle,
                    opts,
                    req_id,
                    offer_id,
                    &vector,
                    &dock,
                    got == 0,
                );
                match db.record_match(&m) {
                    Ok(rec) => Some(rec.id),
                    Err(DbError::Ad(AdError::MissingMember { collection, .. })) => {
                        // The offer went (expired, consumed elsewhere): try the next one. The
                        // request went: it can match nothing more.
                        if collection == opts.offers {
                            pool.remove(o);
                            take(&mut taken, o);
                            continue;
                        }
                        break;
                    }
                    Err(e) => return Err(e.into()),
                }
            };
            pool.remove(o);
            take(&mut taken, o);
            got += 1;
            report.matches.push(CycleMatch {
                request: req_id.clone(),
                offer: offer_id.to_owned(),
                vector,
                record,
            });
        }
        report.matched += usize::from(got > 0);
    }
    (report.probes, report.evaluations) = pool.work();
    report.damaged = requests.damaged;
    report.damaged.extend(offers.damaged);
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// Marks offer `o` taken.
fn take(taken: &mut [bool], o: AdId) {
    if let Some(t) = taken.get_mut(o as usize) {
        *t = true;
    }
}

/// The record of one match: the request (consumed with its first match) and the offer.
fn new_match(
    cycle: u64,
    opts: &CycleOptions,
    request: &str,
    offer: &str,
    vector: &[Value],
    dock: &Dock,
    consume_request: bool,
) -> NewMatch {
    let (req_rank, offer_rank) = match dock {
        Dock::Ranks { .. } => (vector.first().cloned(), vector.get(1).cloned()),
        Dock::Exprs(_) => (Some(Value::List(vector.to_vec().into())), None),
    };
    NewMatch {
        cycle,
        members: vec![
            NewMember {
                collection: opts.requests.clone(),
                id: request.to_owned(),
                rank: req_rank,
                consume: consume_request,
            },
            NewMember {
                collection: opts.offers.clone(),
                id: offer.to_owned(),
                rank: offer_rank,
                consume: true,
            },
        ],
    }
}
