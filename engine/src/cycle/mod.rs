//! Matchmaking cycles as a database operation (issue 5; dissertation Algorithm 1, 3.2.4,
//! 3.4.2): requests served in priority order, each matched to its best compatible offers by
//! the docking vector, matched ads consumed and matches recorded atomically and durably.
//!
//! Rules, beyond those of [`order`] and [`dock`]:
//! - An offer is matched at most once a cycle; it leaves the candidates as soon as it is
//!   taken. Expired and consumed ads are not in the store's scan, so they never match; an ad
//!   that expires or is consumed by someone else during a durable cycle is skipped when its
//!   match is refused ([`DbError`] `MissingMember`), and the next candidate is tried.
//! - A durable cycle commits its matches in groups ([`group`]): each match atomic with the
//!   consumption of its ads, many matches to a transaction, one flush at the end. The results
//!   are those of recording each match on its own as it is decided: when the store refuses a
//!   match of a group because its offer went, the group's later decisions (made assuming it)
//!   are undone, not recorded, and the refused match's request goes on with its next
//!   candidate; when its request went, the request is passed over. A cycle killed midway
//!   leaves whole groups.
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
//! - The offers are read, indexed and analysed on a second thread while the requests are
//!   read, and the requests are shaped for clustering there as they come. Deciding the
//!   matches is one sequential pass: a cluster's list is computed when its first request is
//!   served, against the offers left then.

pub mod cluster;
pub mod dock;
pub mod group;
pub mod matchlist;
pub mod naive;
pub mod order;
pub mod ranks;
pub mod shape;

use self::cluster::{roots, Clusters, Roots, Shapes};
use self::dock::Dock;
use self::group::{Group, GROUP};
use self::naive::Offers;
use crate::indexed::{Collection, IndexedError};
use crate::{Db, DbError};
use adjoin_index::{AdId, IndexOptions};
use adjoin_query::eval::EvalOptions;
use adjoin_query::{ClassAd, Expr, Value};
use adjoin_storage::{NewMatch, NewMember};
use std::sync::{mpsc, Arc};
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
    /// Where the time went.
    pub phases: Phases,
}

/// Wall-clock seconds of each phase of a cycle. The offers are read and prepared on a second
/// thread while the requests are read, and the requests are shaped for clustering there as
/// they come, so the cycle takes about
/// max(`scan_requests`, `scan_offers` + `index` + `shape`) + `cluster` + `order` + `matching`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    /// Reading the requests from the store.
    pub scan_requests: f64,
    /// Reading the offers from the store.
    pub scan_offers: f64,
    /// Building the index over the offers (or the naive pool), classing their ranks, and
    /// finding what the offers read of the requests.
    pub index: f64,
    /// Shaping the requests for clustering, on the second thread, from the end of `index`
    /// until the last request was shaped (waiting for them included).
    pub shape: f64,
    /// Autoclustering the requests (from their shapes).
    pub cluster: f64,
    /// Putting the requests in serving order.
    pub order: f64,
    /// Finding, ranking and taking candidates, and recording the matches.
    pub matching: f64,
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

impl Db {
    /// Runs one matchmaking cycle ([`run`]): requests in priority order, each matched to its
    /// best compatible offers, matched ads consumed and matches recorded unless
    /// [`CycleOptions::dry_run`].
    pub fn match_cycle(&self, opts: &CycleOptions) -> Result<CycleReport, CycleError> {
        run(self, opts)
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
    if !opts.dry_run {
        // Indexes whose snapshots are current follow the consumption (and are saved again at
        // close): otherwise a cycle would leave every later query a full rebuild.
        db.hold_index_if_cheap(&opts.requests)?;
        db.hold_index_if_cheap(&opts.offers)?;
    }
    let eval = opts.index.eval.clone();
    let mut phases = Phases::default();
    // The offers' side on a second thread while this one reads the requests, passing them on
    // to be shaped for clustering there.
    let clustering = !(opts.naive || opts.no_clusters);
    let (requests, side) = std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        let side = s.spawn(|| OfferSide::new(db, opts, &eval, clustering.then_some(rx)));
        let requests = scan_passing(db, &opts.requests, clustering.then_some(tx));
        phases.scan_requests = start.elapsed().as_secs_f64();
        (requests, side.join())
    });
    let requests = requests?;
    let side = side.unwrap_or_else(|p| std::panic::resume_unwind(p))?;
    (phases.scan_offers, phases.index, phases.shape) = (side.scan, side.index, side.shape);
    let (offers, pool, dock) = (side.offers, side.pool, side.dock);
    let mut lap = Instant::now();
    let mut split = || {
        std::mem::replace(&mut lap, Instant::now())
            .elapsed()
            .as_secs_f64()
    };
    let order_by = opts.order_by.as_ref();
    let clusters = match (&side.roots, &side.shapes) {
        (Some(roots), Some(shapes)) => {
            Clusters::from_shapes(&requests.ads, roots, shapes, order_by, &eval)
        }
        (Some(roots), None) => Clusters::from_roots(&requests.ads, roots, order_by, &eval),
        (None, _) => Clusters::singletons(requests.len()),
    };
    phases.cluster = split();
    let serving = order::request_order(&requests.ads, opts.order_by.as_ref(), &eval);
    phases.order = split();
    let report = CycleReport {
        cycle: if opts.dry_run { 0 } else { next_cycle(db)? },
        requests: requests.len(),
        clusters: clusters.len(),
        ..CycleReport::default()
    };
    let mut c = Cycle {
        db,
        opts,
        eval,
        requests: &requests,
        offers: &offers,
        pool,
        dock,
        clusters,
        taken: vec![false; offers.ads.len()],
        report,
        group: Group::default(),
    };
    let (mut pos, mut got) = (0, 0);
    while let Some(&ri) = serving.get(pos) {
        c.visit(pos, ri, std::mem::take(&mut got));
        pos += 1;
        if c.group.len() >= GROUP || pos == serving.len() {
            if let Some(resume) = c.commit()? {
                (pos, got) = (resume.pos, resume.got);
            }
        }
    }
    let Cycle {
        mut report,
        pool,
        clusters,
        ..
    } = c;
    if !opts.dry_run {
        // Every group committed atomically; one flush makes them all durable before the
        // report acknowledges them.
        db.flush()?;
    }
    (report.probes, report.evaluations) = pool.work();
    report.damaged = requests.damaged;
    report.damaged.extend(offers.damaged);
    phases.matching = split();
    report.phases = phases;
    report.seconds = start.elapsed().as_secs_f64();
    // Freeing the working set (a million ads take seconds) off the caller's path; if no
    // thread can be had, here.
    let rest = (requests.ads, offers.ads, pool, clusters);
    let _ = std::thread::Builder::new()
        .name("cycle-free".into())
        .spawn(move || drop(rest));
    Ok(report)
}

/// Requests read before they are passed on to be shaped.
const RUN: usize = 4096;

/// Reads the live ads of `coll` in load order (as [`Collection::scan`]), passing them on to
/// `tx`, if given, a run at a time as they are read.
fn scan_passing(
    db: &Db,
    coll: &str,
    mut tx: Option<mpsc::Sender<Vec<Arc<ClassAd>>>>,
) -> Result<Collection, CycleError> {
    let mut c = Collection::default();
    let mut run = Vec::new();
    for ad in db.scan(coll)? {
        match ad {
            Ok(stored) => {
                if AdId::try_from(c.ads.len()).is_err() {
                    return Err(IndexedError::TooMany(coll.to_owned()).into());
                }
                c.ids.push(stored.id().to_owned());
                let ad = Arc::new(stored.ad);
                if tx.is_some() {
                    run.push(Arc::clone(&ad));
                }
                c.ads.push(ad);
            }
            Err(e) => c.damaged.push(e.into()),
        }
        if run.len() >= RUN {
            // A receiver gone wants no more.
            if tx
                .as_ref()
                .is_some_and(|t| t.send(std::mem::take(&mut run)).is_err())
            {
                tx = None;
            }
        }
    }
    if let Some(t) = tx {
        // Ignored like any refusal above: the receiver shapes what it got.
        let _ = t.send(run);
    }
    Ok(c)
}

/// What a cycle prepares of its offers: read, indexed (or pooled for `naive`), their ranks
/// classed, the roots of the requests' signatures (`None`: no clustering), and the shapes of
/// the requests passed on to it.
struct OfferSide {
    offers: Collection,
    pool: Offers,
    dock: Dock,
    roots: Option<Roots>,
    shapes: Option<Shapes>,
    /// Seconds reading the offers; indexing them, classing their ranks and finding the
    /// roots; shaping the requests.
    scan: f64,
    index: f64,
    shape: f64,
}

impl OfferSide {
    fn new(
        db: &Db,
        opts: &CycleOptions,
        eval: &EvalOptions,
        requests: Option<mpsc::Receiver<Vec<Arc<ClassAd>>>>,
    ) -> Result<OfferSide, CycleError> {
        let t = Instant::now();
        let offers = Collection::scan(db, &opts.offers)?;
        let scan = t.elapsed().as_secs_f64();
        let pool = if opts.naive {
            Offers::naive(&offers, eval.clone())
        } else {
            Offers::indexed(&offers, opts.index.clone())?
        };
        let dock = Dock::for_offers(opts.dock.clone(), &offers.ads);
        let roots = match requests {
            Some(_) => roots(&offers.ads, &opts.dock, eval),
            None => None,
        };
        let index = t.elapsed().as_secs_f64() - scan;
        let shapes = match (&roots, requests) {
            (Some(roots), Some(rx)) => {
                let mut shapes = Shapes::new(roots, opts.order_by.as_ref());
                for run in rx {
                    shapes.add(&run);
                }
                Some(shapes)
            }
            _ => None,
        };
        Ok(OfferSide {
            offers,
            pool,
            dock,
            roots,
            shapes,
            scan,
            index,
            shape: t.elapsed().as_secs_f64() - scan - index,
        })
    }
}

/// A cycle under way: what it reads, what it has decided, and what is not yet committed.
struct Cycle<'a> {
    db: &'a Db,
    opts: &'a CycleOptions,
    eval: EvalOptions,
    requests: &'a Collection,
    offers: &'a Collection,
    pool: Offers,
    dock: Dock,
    clusters: Clusters,
    /// Offers taken this cycle (or gone), by position: cached lists skip them.
    taken: Vec<bool>,
    report: CycleReport,
    group: Group,
}

impl Cycle<'_> {
    /// Serves request `ri` at serving position `pos`, which has `got` matches already:
    /// decides its matches, taking their offers (dry run) or adding them to the group to
    /// commit.
    fn visit(&mut self, pos: usize, ri: usize, got: usize) {
        let (Some(req), Some(req_id)) = (self.requests.ads.get(ri), self.requests.ids.get(ri))
        else {
            return;
        };
        let want = order::request_count(req, &self.eval);
        if got >= want {
            return;
        }
        let fresh = !self.clusters.has_list(ri);
        let (pool, offers, dock, eval) = (&mut self.pool, self.offers, &self.dock, &self.eval);
        let compute = || dock.matchlist(req, pool.candidates(req), &offers.ads, eval);
        let Some(list) = self.clusters.list(ri, compute) else {
            return;
        };
        if !self.opts.dry_run {
            self.group.visit(pos, ri, fresh);
        }
        let first = got;
        let mut got = got;
        while got < want {
            let Some((vector, o)) = list.peek(&self.taken) else {
                break;
            };
            let vector = vector.to_vec();
            let Some(offer_id) = self.offers.id(o) else {
                list.advance();
                continue;
            };
            if !self.opts.dry_run {
                let m = new_match(
                    self.report.cycle,
                    self.opts,
                    req_id,
                    offer_id,
                    &vector,
                    &self.dock,
                    got == 0,
                );
                self.group.push(pos, o, got, m);
            }
            self.pool.remove(o);
            take(&mut self.taken, o);
            got += 1;
            self.report.matches.push(CycleMatch {
                request: req_id.clone(),
                offer: offer_id.to_owned(),
                vector,
                record: None,
            });
        }
        self.report.matched += usize::from(first == 0 && got > 0);
    }
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
