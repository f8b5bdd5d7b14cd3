//! Gang cycles as a database operation: requests in priority order (as the bilateral cycle
//! takes them), each given a gang among the offers still free, every gang consumed whole — the
//! request and each offer in it — with one match record in one atomic transaction. Durable
//! cycles write each gang buffered and flush once before reporting, so a killed cycle leaves
//! whole gangs or nothing. A gang the store refuses (an offer went behind the cycle's back) is
//! undone and its request searched again without that offer.
//!
//! Ads whose `Ports` are bad are reported ([`GangReport::bad`]) and take no part; the cycle
//! goes on without them. So are requests whose gang would have more than
//! [`MAX_MEMBERS`](super::env::MAX_MEMBERS) members (64 ports or more), before any search.

use super::env::Tree;
use super::pool::Pool;
use super::ports::{GangAd, PortsError};
use super::search::Searcher;
use super::signature::Reads;
use super::{Algorithm, GangOptions};
use crate::collection::{Collection, CollectionError};
use crate::cycle::dock::Dock;
use crate::cycle::order;
use crate::{Db, DbError};
use adjoin_query::ClassAd;
use adjoin_storage::{AdError, AfterRefusal, Durability, NewMatch, NewMember};
use std::sync::Arc;
use std::time::Instant;
use thiserror::Error;

/// One offer in a gang.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GangMember {
    /// The labels from the root down to the port it fills, joined by `/`.
    pub path: String,
    /// Its collection.
    pub collection: String,
    /// Its id.
    pub offer: String,
    /// Its own port docked there.
    pub port: usize,
}

/// A gang a cycle made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Gang {
    /// The request's id.
    pub request: String,
    /// The offers, depth first from the root's ports in order.
    pub members: Vec<GangMember>,
    /// The match record's id (`None` in a dry run or a query).
    pub record: Option<u64>,
}

/// What a gang cycle did.
#[derive(Debug, Default)]
pub struct GangReport {
    /// The cycle number in the match records (0 in a dry run).
    pub cycle: u64,
    /// The gangs, in the order made.
    pub gangs: Vec<Gang>,
    /// Requests considered.
    pub requests: usize,
    /// Requests given a gang.
    pub matched: usize,
    /// Wall-clock seconds.
    pub seconds: f64,
    /// Index probes.
    pub probes: u64,
    /// Constraint evaluations in the gang environment.
    pub evaluations: u64,
    /// The algorithm.
    pub algorithm: Algorithm,
    /// Ads with bad ports: (collection, id, why); they took no part.
    pub bad: Vec<(String, String, PortsError)>,
    /// Requests whose search the cycle gave up on at the safety bound on work
    /// ([`GangOptions::search_bound`]): left without a gang though one may exist (every other
    /// request left without a gang has none among the offers still free at its turn).
    pub gave_up: Vec<String>,
    /// Ads the scans could not read (skipped).
    pub damaged: Vec<DbError>,
    /// The most work units one request's search spent (see [`GangOptions::search_bound`]).
    pub most_work: u64,
}

/// Why a gang cycle failed.
#[derive(Debug, Error)]
pub enum GangError {
    /// A database operation failed; boxed, as it is large.
    #[error(transparent)]
    Db(Box<DbError>),
    /// The offers could not be read or indexed.
    #[error(transparent)]
    Indexed(#[from] CollectionError),
    /// The requests are also an offer collection.
    #[error("requests and offers are the same collection {0}")]
    SameCollection(String),
    /// No offer collection was given.
    #[error("no offer collection given")]
    NoOffers,
    /// The one request's ports are bad.
    #[error("request: {0}")]
    BadRequest(PortsError),
}

impl From<DbError> for GangError {
    fn from(e: DbError) -> GangError {
        GangError::Db(Box::new(e))
    }
}

impl Db {
    /// Runs one gang cycle: requests in priority order, each given a gang among the free
    /// offers, consumed whole with one match record unless [`GangOptions::dry_run`].
    pub fn gang_cycle(&self, opts: &GangOptions) -> Result<GangReport, GangError> {
        run(self, opts)
    }

    /// The gang `request` would get now among the offers (nothing consumed; `requests` and
    /// `dry_run` of `opts` are not used), and the report of the search.
    pub fn gang_query(
        &self,
        request: &ClassAd,
        opts: &GangOptions,
    ) -> Result<GangReport, GangError> {
        let start = Instant::now();
        let gad = GangAd::root(Arc::new(request.clone())).map_err(GangError::BadRequest)?;
        let mut report = GangReport {
            algorithm: opts.algorithm,
            requests: 1,
            ..GangReport::default()
        };
        let mut pool = read_offers(self, opts, &[request], &mut report)?;
        let mut s = Searcher::new(
            &mut pool,
            opts.algorithm,
            opts.index.eval.clone(),
            dock(opts),
        );
        s.bound = opts.search_bound.unwrap_or(s.bound);
        if let Some(tree) = s.find(Arc::new(gad)) {
            report.gangs.push(gang("request", &tree, s.pool));
            report.matched = 1;
        } else if s.gave_up() {
            report.gave_up.push("request".to_owned());
        }
        report.evaluations = s.evaluations;
        report.most_work = s.most_work;
        report.probes = pool.probes;
        report.seconds = start.elapsed().as_secs_f64();
        Ok(report)
    }
}

/// The docking vector of `opts` (`None`: per-port ranks).
fn dock(opts: &GangOptions) -> Option<Dock> {
    (!opts.dock.is_empty()).then(|| Dock::Exprs(opts.dock.clone()))
}

/// Reads and pools the offer collections, for `requests` (what they read decides which
/// offers are interchangeable).
fn read_offers(
    db: &Db,
    opts: &GangOptions,
    requests: &[&ClassAd],
    report: &mut GangReport,
) -> Result<Pool, GangError> {
    if opts.offers.is_empty() {
        return Err(GangError::NoOffers);
    }
    let mut colls: Vec<(String, Collection)> = Vec::with_capacity(opts.offers.len());
    for name in &opts.offers {
        // A collection named twice is read once: an ad is in a gang at most once.
        if colls.iter().any(|(n, _)| n == name) {
            continue;
        }
        let mut c = Collection::scan(db, name)?;
        report.damaged.append(&mut c.damaged);
        colls.push((name.clone(), c));
    }
    let index = opts.algorithm.indexed().then_some(&opts.index);
    // Groups of interchangeable offers serve the indexed algorithms only.
    let reads = if opts.algorithm.indexed() {
        Reads::of(
            requests
                .iter()
                .copied()
                .chain(colls.iter().flat_map(|(_, c)| c.ads.iter().map(|a| &**a))),
            &opts.dock,
        )
    } else {
        Reads::everything()
    };
    Ok(Pool::with_reads(
        colls,
        index,
        reads,
        opts.algorithm.summarized(),
        &mut report.bad,
    )?)
}

/// The gang of `tree` for request `request`, members depth first in port order.
fn gang(request: &str, tree: &Tree, pool: &Pool) -> Gang {
    let mut members = Vec::with_capacity(tree.members.len());
    let mut stack = vec![0usize];
    while let Some(m) = stack.pop() {
        if let Some(member) = tree.members.get(m) {
            if let Some((ci, pos)) = member.offer {
                let c = pool.colls.get(ci);
                members.push(GangMember {
                    path: tree.path(m),
                    collection: c.map(|c| c.name.clone()).unwrap_or_default(),
                    offer: c.and_then(|c| c.ads.id(pos)).unwrap_or_default().to_owned(),
                    port: member.parent.map_or(0, |(_, own)| own),
                });
            }
            let parent_port = member.parent.map(|(_, own)| own);
            let children: Vec<usize> = member
                .docked
                .iter()
                .enumerate()
                .filter(|&(p, _)| Some(p) != parent_port)
                .filter_map(|(_, d)| d.map(|(k, _)| k))
                .collect();
            stack.extend(children.into_iter().rev());
        }
    }
    Gang {
        request: request.to_owned(),
        members,
        record: None,
    }
}

/// Runs one gang cycle over `db`.
pub fn run(db: &Db, opts: &GangOptions) -> Result<GangReport, GangError> {
    run_with(db, opts, |_| {})
}

/// [`run`], `before_record` seeing each gang before it is recorded (where tests consume ads
/// behind the cycle's back).
fn run_with(
    db: &Db,
    opts: &GangOptions,
    mut before_record: impl FnMut(&Gang),
) -> Result<GangReport, GangError> {
    let _span =
        tracing::info_span!("gang_cycle", requests = %opts.requests, algorithm = %opts.algorithm)
            .entered();
    let start = Instant::now();
    if opts.offers.contains(&opts.requests) {
        return Err(GangError::SameCollection(opts.requests.clone()));
    }
    let mut report = GangReport {
        algorithm: opts.algorithm,
        ..GangReport::default()
    };
    let mut requests = Collection::scan(db, &opts.requests)?;
    report.damaged.append(&mut requests.damaged);
    let readers: Vec<&ClassAd> = requests.ads.iter().map(|a| &**a).collect();
    let mut pool = read_offers(db, opts, &readers, &mut report)?;
    let eval = opts.index.eval.clone();
    let serving = order::request_order(&requests.ads, opts.order_by.as_ref(), &eval);
    report.requests = requests.len();
    // A durable cycle takes its number from the store's counter as it starts, as the
    // bilateral cycle does.
    report.cycle = if opts.dry_run {
        0
    } else {
        db.store().begin_cycle().map_err(DbError::from)?
    };
    let mut s = Searcher::new(&mut pool, opts.algorithm, eval, dock(opts));
    s.bound = opts.search_bound.unwrap_or(s.bound);
    for ri in serving {
        let (Some(ad), Some(id)) = (requests.ads.get(ri), requests.ids.get(ri)) else {
            continue;
        };
        let root = match GangAd::root(Arc::clone(ad)) {
            Ok(g) => Arc::new(g),
            Err(e) => {
                report.bad.push((opts.requests.clone(), id.clone(), e));
                continue;
            }
        };
        // Searched again while the store refuses the gang for an offer gone meanwhile.
        while let Some(tree) = s.find(Arc::clone(&root)) {
            let mut g = gang(id, &tree, s.pool);
            if !opts.dry_run {
                before_record(&g);
                let m = record_of(report.cycle, &opts.requests, &g);
                let outcome = db
                    .record_matches_with(
                        std::slice::from_ref(&m),
                        AfterRefusal::Stop,
                        Durability::Buffered,
                    )?
                    .pop();
                match outcome {
                    Some(Ok(rec)) => g.record = Some(rec.id),
                    Some(Err(DbError::Ad(AdError::MissingMember {
                        collection,
                        id: gone,
                    }))) => {
                        if collection == opts.requests && gone == *id {
                            break;
                        }
                        if let Some(o) = find_offer(s.pool, &collection, &gone) {
                            s.pool.take(o);
                        }
                        continue;
                    }
                    Some(Err(e)) => return Err(e.into()),
                    None => break,
                }
            }
            for member in &tree.members {
                if let Some(o) = member.offer {
                    s.pool.take(o);
                }
            }
            report.matched += 1;
            report.gangs.push(g);
            break;
        }
        if s.gave_up() {
            tracing::warn!(request = %id, "gang search gave up at its bound");
            report.gave_up.push(id.clone());
        }
    }
    report.evaluations = s.evaluations;
    report.most_work = s.most_work;
    report.probes = pool.probes;
    if !opts.dry_run {
        db.flush()?;
        // The Db's retention policy, one bounded step a cycle.
        db.apply_retention()?;
    }
    report.seconds = start.elapsed().as_secs_f64();
    Ok(report)
}

/// The offer `id` of collection `coll` in the pool.
fn find_offer(pool: &Pool, coll: &str, id: &str) -> Option<(usize, u32)> {
    pool.colls.iter().enumerate().find_map(|(ci, c)| {
        if c.name != coll {
            return None;
        }
        c.ads
            .ids
            .iter()
            .position(|x| x == id)
            .map(|p| (ci, p as u32))
    })
}

/// The match record of gang `g`: the request and every offer, all consumed.
fn record_of(cycle: u64, requests: &str, g: &Gang) -> NewMatch {
    let mut members = vec![NewMember {
        collection: requests.to_owned(),
        id: g.request.clone(),
        rank: None,
        consume: true,
    }];
    members.extend(g.members.iter().map(|m| NewMember {
        collection: m.collection.clone(),
        id: m.offer.clone(),
        rank: None,
        consume: true,
    }));
    NewMatch { cycle, members }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::{parse, Expr, Value};

    fn put(db: &Db, coll: &str, id: &str, text: &str) {
        let mut ad = parse::classad(text).expect(id);
        ad.set("Name", Expr::Lit(Value::str(id)));
        db.put(coll, &ad).expect("put");
    }

    #[test]
    fn a_gang_refused_by_the_store_is_searched_again() {
        let db = Db::open_in_memory().expect("db");
        put(&db, "jobs", "j", "[Ports = {[Label = cpu; Requirements = cpu.M > 1], [Label = lic; Requirements = true]}]");
        for m in ["m1", "m2"] {
            put(&db, "machines", m, "[M = 2; Requirements = true]");
        }
        put(&db, "licenses", "l", "[Requirements = true]");
        let mut first = true;
        let opts = GangOptions::new("jobs", &["machines", "licenses"]);
        let r = run_with(&db, &opts, |g| {
            // The first gang's machine goes behind the cycle's back.
            if std::mem::take(&mut first) {
                db.consume("machines", &g.members[0].offer)
                    .expect("consume");
            }
        })
        .expect("cycle");
        assert_eq!(r.matched, 1);
        let offers: Vec<&str> = r.gangs[0]
            .members
            .iter()
            .map(|m| m.offer.as_str())
            .collect();
        assert_eq!(offers, ["m2", "l"]);
        let records = db.matches().expect("matches");
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].members.len(), 3);
        // Nothing of the refused gang was consumed: the license went with the second.
        assert!(db.scan("licenses").expect("scan").next().is_none());
    }
}
