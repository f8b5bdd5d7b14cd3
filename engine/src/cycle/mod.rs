//! Matchmaking cycles as a database operation (dissertation Algorithm 1, 3.2.4,
//! 3.4.2): requests served in priority order, each matched to its best compatible offers by
//! the docking vector, matched ads consumed and matches recorded atomically and durably.
//!
//! Rules, beyond those of `order` and `dock`:
//! - An offer is matched at most once a cycle; it leaves the candidates as soon as it is
//!   taken. Expired and consumed ads are not in the store's scan, so they never match; an ad
//!   that expires or is consumed by someone else during a durable cycle is skipped when its
//!   match is refused ([`DbError`] `MissingMember`), and the next candidate is tried.
//! - A durable cycle commits its matches in groups (`group`): each match atomic with the
//!   consumption of its ads, many matches to a transaction, one flush at the end. The results
//!   are those of recording each match on its own as it is decided: when the store refuses a
//!   match of a group because its offer went, the group's later decisions (made assuming it)
//!   are undone, not recorded, and the refused match's request goes on with its next
//!   candidate; when its request went, the request is passed over. A cycle killed midway
//!   leaves whole groups.
//! - A request with `Preferences` ranks its candidates by the preference order first
//!   ([`crate::prefer`]; default vector `[preference order, request Rank, offer Rank]`), and
//!   with `PreferenceKeep` only the best fraction of them, taken when its list is made (such a
//!   request is a cluster of its own). A request whose `Preferences` cannot be read is not
//!   matched; `bad_preferences` reports it.
//! - A request is matched up to `RequestCount` times (default 1) with its best candidates,
//!   best first (vector descending, ties to the earliest-loaded offer).
//! - A request matched at least once is consumed, in the same transaction as its first match
//!   (3.4.2: a matched ad is consumed; its agent re-advertises under a fresh identity, e.g.
//!   with the count still wanted). A request matched zero times is left as it is.
//! - Each (request, offer) pair is one match record, members `[request, offer]`, the offer
//!   always consumed. Their ranks are the default vector's two components; with `--dock` the
//!   request member carries the whole vector as a list and the offer member none.
//! - Requests are autoclustered (`cluster`): requests alike in everything the cycle reads
//!   of them share one sorted candidate list, computed once and popped, taken offers skipped.
//!   The results are exactly those of the uncached path (`no_clusters`, and `naive`), which
//!   computes every request's list afresh. `clusters` reports the number of clusters.
//! - A request ranked by the default vector without preferences is confirmed lazily: its list
//!   holds the index's raw candidates, each evaluated only when the list reaches it
//!   (`offers::Unconfirmed`); where its rank's values are remembered for every offer, the list
//!   is read in rank order, group by group, through the offers sorted once per rank shape
//!   (`topk.rs`; a long group of equal request rank itself class by class of offers alike in
//!   their `Rank`); where its rank is constant (absent or a literal), class of offers by class
//!   of offers alike in their `Rank` (`by_class.rs`). Each gives exactly the order of the fully
//!   confirmed, fully ranked list. Raw candidates that the request's residual conjuncts rule
//!   out (`residual.rs`: what the index cannot convert, settled once per distinct value of what
//!   it reads) leave the list unevaluated, and an offer's own side is evaluated once per class
//!   of offers alike in their Requirements and requests alike in what it reads of them
//!   (`offer_classes.rs`); both only drop what evaluation would reject.
//! - A clustering cycle holds the requests it read in the Db for the next cycle over their
//!   collection (`held_requests.rs`): each one's ad, shape and windows, by its `seq` and
//!   revision. The next cycle reads from the store only the requests stored or changed since
//!   (when nine in ten or more are held as they are, their shapes started from the same names,
//!   and the store reports no damage; otherwise it reads them all, as before).
//! - The offers are read and analysed on a second thread while the requests are read, and the
//!   requests are shaped for clustering there as they come. They are searched through the
//!   Db's held index of their collection, lent to the cycle (`held.rs`; made from the offers
//!   just read when the Db holds none and there is no checkpoint; the attributes the requests'
//!   shapes bound imported there first), so that a cycle indexes only what changed since the
//!   last (a private index is built only when the cycle's index options are not the Db's,
//!   or the offers were not read in `seq` order). Offers re-indexed during the cycle
//!   (partitionable remainders) go to a private overlay. Deciding the matches is one
//!   sequential pass: a cluster's list is computed when its first request is served, against
//!   the offers left then.

mod ahead;
mod by_class;
pub(crate) mod cluster;
mod columns;
pub(crate) mod dock;
mod group;
mod held;
mod held_offers;
mod held_requests;
mod matchlist;
mod offer_classes;
mod offers;
pub(crate) mod order;
mod part_windows;
mod partition;
mod per_request;
pub(crate) mod ranks;
mod residual;
mod shape;
mod share;
mod topk;
pub(crate) mod vector;

pub(crate) use held_requests::{HeldRequests, HELD_MOST};
pub(crate) use share::WindowShare;

use self::cluster::{Clusters, Roots, RootsFinder, Shapes};
pub use self::dock::unknown_dock_names;
use self::dock::Dock;
pub use self::group::GROUP;
use self::group::{Group, Writer};
use self::held_offers::Derived;
pub(crate) use self::held_offers::HeldOffers;
use self::held_requests::Prepared;
pub use self::offers::Offers;
use self::offers::Windows;
use crate::collection::{live_if_held, Collection, CollectionError};
use crate::prefer::{PreferenceError, Preferences};
use crate::{Db, DbError};
use adjoin_index::{AdId, IndexOptions, Query};
use adjoin_query::eval::EvalOptions;
use adjoin_query::{ClassAd, Expr, Value};
use adjoin_storage::codec::CodecError;
use adjoin_storage::{AdError, AdStore, Damage, LiveAd, NewMatch, NewMember, RawAd};
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
    /// Match partitionable offers (`PartitionableSlot = true`) whole, consuming them as
    /// static ones (the dissertation's consumption, and HTCondor's before partitionable
    /// slots), instead of carving each match's share out of them (`partition.rs`).
    pub whole_slots: bool,
    /// Index and evaluation options.
    pub index: IndexOptions,
}

impl CycleOptions {
    /// A durable cycle of the requests in `requests` against the offers in `offers`, every
    /// other option at its default.
    pub fn new(requests: &str, offers: &str) -> CycleOptions {
        CycleOptions {
            requests: requests.to_owned(),
            offers: offers.to_owned(),
            ..CycleOptions::default()
        }
    }
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
    /// Index probes: the window steps answered from an axis (a step met again is answered
    /// from its remembered set, and still counted), in the windows whose answers were used.
    /// The same for the same pools whichever thread searched which window.
    pub probes: u64,
    /// Requirement evaluations (index confirmations, residual conjuncts, and offers' sides
    /// evaluated once per class and distinct bindings of what they read of the request; or
    /// every pair with `naive`).
    pub evaluations: u64,
    /// Request clusters (the number of requests when uncached).
    pub clusters: usize,
    /// Ads the scans could not read (skipped).
    pub damaged: Vec<DbError>,
    /// Requests whose `Preferences` could not be read (not matched), each error naming it.
    pub bad_preferences: Vec<PreferenceError>,
    /// Where the time went.
    pub phases: Phases,
    /// Match records the Db's retention policy pruned after the cycle.
    pub pruned: u64,
}

/// Wall-clock seconds of each phase of a cycle. The offers are read and prepared on a second
/// thread while the requests are read (kept undecoded until the offers are read, then shaped
/// for clustering as they come), so the cycle takes about
/// max(`scan_requests`, `scan_offers` + `index`) + `cluster` + `order` + `matching`. Once the
/// index is built, the second thread readies it for the requests' shapes as they are found
/// (imports the attributes they probe).
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    /// Reading the requests from the store, shaping them as they come (or placing them as the
    /// last cycle over the collection held them, `held_requests.rs`).
    pub scan_requests: f64,
    /// Reading the offers from the store (or taking those the last cycle held, decoded).
    pub scan_offers: f64,
    /// Finding what the offers read of the requests, classing their ranks, and making the
    /// index: lending the Db's held index (making it first when there is none, and importing
    /// the attributes the requests' shapes bound, waiting for the requests not included), or
    /// building a private one or the naive pool (readying it for the requests' shapes not
    /// included).
    pub index: f64,
    /// Autoclustering the requests (from their shapes).
    pub cluster: f64,
    /// Putting the requests in serving order.
    pub order: f64,
    /// Finding, ranking and taking candidates, and recording the matches.
    pub matching: f64,
}

/// Why a cycle failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CycleError {
    /// A database operation failed; boxed, as it is large.
    #[error(transparent)]
    Db(Box<DbError>),
    /// The offers could not be read or indexed.
    #[error(transparent)]
    Indexed(#[from] CollectionError),
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
    // The offers' side on a second thread, passing the offers back as soon as they are read
    // (this one finds the roots of the requests' signatures in them), while this one reads the
    // requests, shaping them.
    let clustering = !(opts.naive || opts.no_clusters);
    let share = WindowShare::keeping();
    let (requests, side) = std::thread::scope(|s| {
        let (tx, rx) = mpsc::channel();
        let (reps_tx, reps_rx) = mpsc::channel();
        let from_reader = FromReader {
            reps: reps_rx,
            share: &share,
            index: &opts.index,
        };
        let to_side = clustering.then_some((tx, from_reader));
        let side = s.spawn(|| OfferSide::new(db, opts, &eval, to_side));
        let requests = match clustering {
            true => read_requests(db, opts, &eval, &rx, (&reps_tx, &share), true),
            false => Collection::scan(db, &opts.requests)
                .map(|c| (c, None, None))
                .map_err(CycleError::from),
        };
        drop(reps_tx);
        phases.scan_requests = start.elapsed().as_secs_f64();
        (requests, side.join())
    });
    // The offers' side first: when it failed, the requests' reading may have failed for it.
    let side = side.unwrap_or_else(|p| std::panic::resume_unwind(p))?;
    let (mut requests, shapes, kept) = requests?;
    if let Some(mut kept) = kept {
        // Held for the next cycle, with the windows the offers' side made.
        kept.add_windows(share.take_made());
        db.held_requests().put(&opts.requests, kept);
    }
    (phases.scan_offers, phases.index) = (side.scan, side.index);
    let (offers, pool, dock) = (side.offers, side.pool, side.dock);
    let (partitionable, fresh) = (side.partitionable, side.fresh);
    let mut lap = Instant::now();
    let mut split = || {
        std::mem::replace(&mut lap, Instant::now())
            .elapsed()
            .as_secs_f64()
    };
    // The roots found (if the cycle clustered), held with the offers for the next cycle.
    let roots = clustering.then(|| {
        (
            opts.dock.clone(),
            shapes.as_ref().map(|s| s.roots_found().clone()),
        )
    });
    let clusters = match shapes {
        Some(shapes) => {
            let (clusters, ads) = shapes.finish();
            requests.ads = ads;
            clusters
        }
        None => Clusters::singletons(requests.len()),
    };
    phases.cluster = split();
    let serving = order::request_order(&requests.ads, opts.order_by.as_ref(), &eval);
    phases.order = split();
    let report = CycleReport {
        // A durable cycle takes its number from the store's counter as it starts, whether or
        // not it records anything.
        cycle: if opts.dry_run {
            0
        } else {
            db.store().begin_cycle().map_err(DbError::from)?
        },
        requests: requests.len(),
        clusters: clusters.len(),
        ..CycleReport::default()
    };
    if !partitionable.is_empty() {
        // Offers that change as they are matched: served uncached (`partition.rs`).
        let mut c = partition::Carving {
            opts,
            eval,
            db,
            requests: &requests,
            offers: &offers,
            current: offers.ads.clone(),
            partitionable,
            pool,
            dock,
            taken: vec![false; offers.ads.len()],
            carves: vec![0; offers.ads.len()],
            unchanged: Default::default(),
            report,
        };
        c.serve(&serving)?;
        let mut report = c.report;
        if !opts.dry_run {
            db.flush()?;
            if let Some(p) = db.apply_retention()? {
                report.pruned = p.pruned;
            }
        }
        (report.probes, report.evaluations) = c.pool.work();
        report.clusters = requests.len();
        report.damaged = requests.damaged;
        report.damaged.extend(offers.damaged);
        phases.matching = split();
        report.phases = phases;
        report.seconds = start.elapsed().as_secs_f64();
        return Ok(report);
    }
    let (report, mut pool, clusters, dock) = std::thread::scope(|s| {
        let mut c = Cycle {
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
            inflight: None,
            writer: (!opts.dry_run).then(|| Writer::spawn(s, db)),
            ahead: None,
        };
        // The requests' disjuncts' windows the last cycle made, held with the requests
        // (the naive cycle searches no window: it leaves them).
        if !opts.naive {
            let held = db
                .held_requests()
                .take_part_windows(&opts.requests, &opts.index);
            c.pool.use_part_windows(held);
        }
        // Windows run ahead on the second core, which is idle while serving.
        if let Some(lent) = c.pool.lend_ahead() {
            let run = ahead::to_run(&serving, c.clusters.of_each(), &requests.ads, &c.eval);
            let lent = lent.with_parts(matches!(c.dock, Dock::Ranks(_)));
            c.ahead = Some(ahead::spawn(s, lent, &requests.ads, run));
        }
        c.serve(&serving)?;
        // Serving's end gone, the thread stops (before the index goes back).
        c.ahead = None;
        let Cycle {
            report,
            pool,
            clusters,
            dock,
            ..
        } = c;
        Ok::<_, CycleError>((report, pool, clusters, dock))
    })?;
    let mut report = report;
    if !opts.dry_run {
        // Every group committed atomically; one flush makes them all durable before the
        // report acknowledges them.
        db.flush()?;
        // The Db's retention policy, one bounded step a cycle.
        if let Some(p) = db.apply_retention()? {
            report.pruned = p.pruned;
        }
    }
    (report.probes, report.evaluations) = pool.work();
    if let Some(made) = pool.take_part_windows() {
        db.held_requests().put_part_windows(&opts.requests, made);
    }
    if !opts.naive {
        // Derived from these offers alone: held for the next cycle over them.
        let ranker = match dock {
            Dock::Ranks(r) => Some(r.for_next_cycle()),
            Dock::Exprs(_) => None,
        };
        let learnt = pool.learnt(fresh, ranker);
        let derived = Derived::new(offers.ads.clone(), &opts.index.eval, roots, learnt);
        db.held_offers().put(&opts.offers, derived);
    }
    report.damaged = requests.damaged;
    report.damaged.extend(offers.damaged);
    phases.matching = split();
    report.phases = phases;
    report.seconds = start.elapsed().as_secs_f64();
    // The held index lent goes back now (a Db write or query from here on changes it in
    // place, not a copy); the rest of the working set (a million ads take seconds) is freed
    // off the caller's path; if no thread can be had, here.
    drop(pool);
    let rest = (requests.ads, offers.ads, clusters);
    let _ = std::thread::Builder::new()
        .name("cycle-free".into())
        .spawn(move || drop(rest));
    Ok(report)
}

/// Reads the live requests of a clustering cycle in load order, shaping each from its stored
/// encoding and decoding only the ads that cannot be stood in for ([`Shapes::place`]); the
/// collection's ads are left empty, to be taken from the shapes. Until the offers' side sends
/// the roots shapes start from (or the offers to find them in, run by run until
/// [`RootsFrom::Read`]), the requests' bodies are kept as read; if there are none
/// (clustering is off), every request is decoded and the shapes are `None`. The first
/// request of each shape goes to `reps`, with its windows made here or left to the offers'
/// side as `share` says ([`WindowShare`]).
pub(crate) fn read_requests(
    db: &Db,
    opts: &CycleOptions,
    eval: &EvalOptions,
    roots: &mpsc::Receiver<RootsFrom>,
    (reps, share): (&mpsc::Sender<Vec<Rep>>, &WindowShare),
    hold: bool,
) -> Result<(Collection, Option<Shapes>, Option<Prepared>), CycleError> {
    let store = db.store();
    let coll = opts.requests.as_str();
    let mut reader = Reader {
        state: Waiting::Roots(Vec::new()),
        ids: Vec::new(),
        ads: Vec::new(),
        damaged: Vec::new(),
        reps,
        share,
        index: &opts.index,
        kept: None,
        hold,
        unsent: Vec::new(),
    };
    let mut finder = RootsFinder::default();
    if let Some(held) = hold.then(|| db.held_requests().take(coll)).flatten() {
        // Through the requests the last cycle read, when nearly all of them are still there
        // as it read them (the others are read one by one).
        let is_held = |a: &LiveAd| held.get(a.seq, a.revision).is_some();
        if let Some(live) = live_if_held(db, coll, is_held)? {
            while let Waiting::Roots(_) = reader.state {
                let from = roots.recv().ok();
                reader.heard(from, &mut finder, (store, coll), opts, eval);
            }
            if reader.read_held(live, held, (store, coll)) {
                db.held_requests().used();
                return reader.finish(coll);
            }
        }
    }
    let scan = store.scan_with(coll, |_, header, raw| {
        while let Waiting::Roots(_) = reader.state {
            let from = match roots.try_recv() {
                Ok(r) => Some(r),
                Err(mpsc::TryRecvError::Empty) => break,
                Err(mpsc::TryRecvError::Disconnected) => None,
            };
            reader.heard(from, &mut finder, (store, coll), opts, eval);
        }
        reader.read(header.id, header.seq, raw)
    });
    let mut damaged = Vec::new();
    for item in scan.map_err(DbError::from)? {
        if let Err(e) = item {
            damaged.push(e.into());
        }
    }
    while let Waiting::Roots(_) = reader.state {
        // Read before the offers were: the roots (or none, if the offers' side failed).
        let from = roots.recv().ok();
        reader.heard(from, &mut finder, (store, coll), opts, eval);
    }
    reader.damaged.extend(damaged);
    reader.finish(coll)
}

/// Sends the first requests `unsent` to `reps`, as one message (if the offers' side is gone,
/// the cycle fails).
fn send_run(unsent: &mut Vec<Rep>, reps: &mpsc::Sender<Vec<Rep>>) {
    if !unsent.is_empty() {
        let _ = reps.send(std::mem::replace(unsent, Vec::with_capacity(SEND_RUN)));
    }
}

/// Why a held request stood in for last time was not placed as held.
enum Missed {
    /// It was rewritten since the live view: the ad read and its revision.
    Changed((Arc<ClassAd>, u64)),
    /// It could not be read (`None`: it is gone).
    Unread(Option<Box<DbError>>),
}

/// The request `id` of the collection `from`, decoded, with its record's revision; `Err(None)`
/// when it is gone.
fn read_one(
    (store, coll): (&AdStore, &str),
    id: &str,
) -> Result<(Arc<ClassAd>, u64), Option<Box<DbError>>> {
    match store.get(coll, id) {
        Ok(Some(ad)) => Ok((Arc::new(ad.ad), ad.revision)),
        Ok(None) => Err(None),
        Err(e) => Err(Some(Box::new(e.into()))),
    }
}

/// What [`read_requests`] does with each request.
enum Waiting {
    /// Keeps its id, number, revision and body until the roots come.
    Roots(Vec<(String, u64, u64, Vec<u8>)>),
    /// Shapes it.
    Shaping(Box<Shapes>),
    /// Decodes it (no clustering).
    Plain,
}

/// The requests read so far.
struct Reader<'a> {
    state: Waiting,
    ids: Vec<String>,
    /// The decoded requests when not clustering.
    ads: Vec<Arc<ClassAd>>,
    damaged: Vec<DbError>,
    reps: &'a mpsc::Sender<Vec<Rep>>,
    /// Who makes the windows of the requests sent.
    share: &'a WindowShare,
    /// The options the windows of the requests sent to `reps` are made with.
    index: &'a IndexOptions,
    /// The requests shaped so far, to be held for the next cycle (`held_requests.rs`).
    kept: Option<Prepared>,
    /// Whether to keep them.
    hold: bool,
    /// First requests of their shapes not yet sent to `reps`.
    unsent: Vec<Rep>,
}

/// First requests the reader sends the offers' side together: one at a time, each woke it
/// (a system call) while it waited.
const SEND_RUN: usize = 32;

impl Reader<'_> {
    /// Takes the next request (`id`, numbered `seq`, `raw`), as the state says.
    fn read(&mut self, id: String, seq: u64, raw: RawAd<'_>) -> Result<(), CodecError> {
        match &mut self.state {
            Waiting::Roots(kept) => kept.push((id, seq, raw.revision(), raw.bytes().to_vec())),
            Waiting::Plain => {
                self.ads.push(Arc::new(raw.decode()?));
                self.ids.push(id);
            }
            Waiting::Shaping(shapes) => {
                let revision = raw.revision();
                let first = shapes.place_raw(raw)?;
                // The offers' side readies the index for it (if it is gone, the cycle fails).
                let windows = (first.as_ref()).and_then(|f| {
                    (!self.share.leave()).then(|| Query::two_sided(f, self.index).into())
                });
                if let Some(kept) = &mut self.kept {
                    kept.keep(shapes, (seq, revision), None, windows.as_ref());
                }
                if let Some(first) = first {
                    self.unsent.push((first, windows, seq));
                    if self.unsent.len() >= SEND_RUN {
                        self.send();
                    }
                }
                self.ids.push(id);
            }
        }
        Ok(())
    }

    /// Reads the live requests `live` (in load order) through `held`, the requests the last
    /// cycle read: each still held at its revision is placed by the shape found for it then
    /// (its ad and windows kept), the others read from the store. `false` (nothing read) when
    /// the requests are not being shaped or their shapes start from other names now.
    fn read_held(&mut self, live: Vec<LiveAd>, mut held: Prepared, from: (&AdStore, &str)) -> bool {
        let Waiting::Shaping(shapes) = &mut self.state else {
            return false;
        };
        if shapes.start() != held.start.as_slice() {
            return false;
        }
        let windows_held = held.windows_for(self.index);
        let roots_held = held.roots == shapes.roots();
        for a in live {
            let id = a.id.to_string();
            let hit = (held.requests.remove(&a.seq)).filter(|r| r.revision == a.revision);
            let placed = match &hit {
                Some(r) => {
                    let shape =
                        (r.shape.as_ref()).map(|(h, b, rh)| (*h, b, roots_held.then_some(*rh)));
                    let ad = r.ad.clone();
                    // Stood in for last time, it is read now if it must be: as the revision
                    // held, or else (rewritten since the view) placed as a request not held.
                    let placed = shapes.place_shaped(shape, |_| match ad {
                        Some(ad) => Ok(ad),
                        None => match read_one(from, &id) {
                            Ok((ad, rev)) if rev == a.revision => Ok(ad),
                            Ok(changed) => Err(Missed::Changed(changed)),
                            Err(e) => Err(Missed::Unread(e)),
                        },
                    });
                    match placed {
                        Ok(first) => Ok((first, a.revision)),
                        Err(Missed::Changed((ad, rev))) => Ok((shapes.add_one(ad, false), rev)),
                        Err(Missed::Unread(e)) => Err(e),
                    }
                }
                None => {
                    read_one(from, &id).map(|(ad, revision)| (shapes.add_one(ad, false), revision))
                }
            };
            let (first, revision) = match placed {
                Ok(placed) => placed,
                Err(None) => continue,
                Err(Some(e)) => {
                    self.damaged.push(*e);
                    continue;
                }
            };
            let (ad, hit_shape, mut windows) = match hit.filter(|r| r.revision == revision) {
                Some(r) => (r.ad, Some(r.shape), r.windows.filter(|_| windows_held)),
                None => (None, None, None),
            };
            if first.is_none() {
                windows = None;
            }
            let windows = match (&first, windows) {
                (Some(f), None) => {
                    (!self.share.leave()).then(|| Query::two_sided(f, self.index).into())
                }
                (_, w) => w,
            };
            if let Some(kept) = &mut self.kept {
                let held = hit_shape.map(|shape| (ad, shape));
                kept.keep(shapes, (a.seq, revision), held, windows.as_ref());
            }
            if let Some(first) = first {
                self.unsent.push((first, windows, a.seq));
                if self.unsent.len() >= SEND_RUN {
                    send_run(&mut self.unsent, self.reps);
                }
            }
            self.ids.push(id);
        }
        self.send();
        true
    }

    /// Sends the first requests not yet sent.
    fn send(&mut self) {
        send_run(&mut self.unsent, self.reps);
    }

    /// The requests read, their shapes (when shaped) and what to hold of them.
    fn finish(
        mut self,
        coll: &str,
    ) -> Result<(Collection, Option<Shapes>, Option<Prepared>), CycleError> {
        self.send();
        let Reader {
            state,
            ids,
            ads,
            damaged,
            kept,
            ..
        } = self;
        if AdId::try_from(ids.len()).is_err() {
            return Err(CollectionError::TooMany(coll.to_owned()).into());
        }
        let shapes = match state {
            Waiting::Roots(_) | Waiting::Plain => None,
            Waiting::Shaping(shapes) => Some(*shapes),
        };
        Ok((Collection { ids, ads, damaged }, shapes, kept))
    }

    /// What the offers' side sent (`None`: it is gone, no clustering), given to `finder`;
    /// once the roots are known, the reader starts on them.
    fn heard(
        &mut self,
        from: Option<RootsFrom>,
        finder: &mut RootsFinder,
        (store, coll): (&AdStore, &str),
        opts: &CycleOptions,
        eval: &EvalOptions,
    ) {
        let got = match from {
            Some(r) => r.found(finder, opts, eval),
            None => Some(None),
        };
        if let Some(roots) = got {
            self.start(store, coll, roots, opts, eval);
        }
    }

    /// The roots came (`None`: no clustering): the requests kept are read now.
    fn start(
        &mut self,
        store: &AdStore,
        coll: &str,
        roots: Option<Roots>,
        opts: &CycleOptions,
        eval: &EvalOptions,
    ) {
        let next = match roots {
            Some(r) => {
                let shapes = Shapes::new(&r, opts.order_by.as_ref(), eval);
                if self.hold {
                    let index = self.index.clone();
                    let (start, roots) = (shapes.start().to_vec(), shapes.roots().to_vec());
                    self.kept = Some(Prepared::new(start, roots, index));
                }
                Waiting::Shaping(Box::new(shapes))
            }
            None => Waiting::Plain,
        };
        let Waiting::Roots(kept) = std::mem::replace(&mut self.state, next) else {
            return;
        };
        for (id, seq, revision, body) in kept {
            let raw = store.raw_ad(&body).with_revision(revision);
            if let Err(e) = self.read(id.clone(), seq, raw) {
                let d = Damage {
                    tree: "blocks".into(),
                    collection: Some(coll.to_owned()),
                    id: Some(id),
                    key: Vec::new(),
                    problem: e.to_string(),
                };
                self.damaged.push(DbError::Ad(AdError::Damaged(d)));
            }
        }
    }
}

/// The offers' side's channels with the requests' reader: the offers go to it for the
/// roots, the first request of each shape comes from it.
type ToRequests<'a> = (mpsc::Sender<RootsFrom>, FromReader<'a>);

/// What the requests' reader has the roots of its shapes from.
pub(crate) enum RootsFrom {
    /// The roots found (`None`: none, clustering is off).
    Found(Option<Roots>),
    /// The next offers read, for the reader to find the roots in ([`RootsFinder`]) while the
    /// offers' side reads on, then indexes them: the reader would wait for them idle.
    Offers(Vec<Arc<ClassAd>>),
    /// Every offer has been sent.
    Read,
}

impl RootsFrom {
    /// The roots once they are known (`Some(None)`: there are none; `None`: not known yet),
    /// from the offers given to `finder` so far.
    fn found(
        self,
        finder: &mut RootsFinder,
        opts: &CycleOptions,
        eval: &EvalOptions,
    ) -> Option<Option<Roots>> {
        match self {
            RootsFrom::Found(r) => Some(r),
            RootsFrom::Offers(offers) => {
                finder.add(&offers, eval);
                None
            }
            RootsFrom::Read => Some(std::mem::take(finder).finish(&opts.dock)),
        }
    }
}

/// The first request of a shape, its windows unless the offers' side is to make them, and its
/// number.
type Rep = (Arc<ClassAd>, Option<Windows>, u64);

/// The first request of a shape, and its windows.
type Ready = (Arc<ClassAd>, Windows);

/// What the offers' side receives from the requests' reader.
struct FromReader<'a> {
    reps: mpsc::Receiver<Vec<Rep>>,
    /// Marked free once this side waits for them.
    share: &'a WindowShare,
    index: &'a IndexOptions,
}

impl<'a> FromReader<'a> {
    /// The requests as they come, until the reader is done, each with its windows (made here
    /// for those sent without); this side is marked free first.
    fn ready(self) -> impl Iterator<Item = Ready> + 'a {
        self.batches().flatten()
    }

    /// [`FromReader::ready`] in batches: each holds the requests come by the time it is
    /// taken (at least one), so that one import of the attributes they bound serves them
    /// all (a pass over the offers each).
    fn batches(self) -> impl Iterator<Item = Vec<Ready>> + 'a {
        self.share.mark_free();
        let (index, share, reps) = (self.index, self.share, self.reps);
        let made = move |(r, w, seq): Rep| {
            let w = w.unwrap_or_else(|| {
                let w: Windows = Query::two_sided(&r, index).into();
                share.made(seq, &w);
                w
            });
            (r, w)
        };
        std::iter::from_fn(move || {
            let mut batch: Vec<Ready> = reps.recv().ok()?.into_iter().map(made).collect();
            let more = std::iter::from_fn(|| reps.try_recv().ok());
            batch.extend(more.flatten().map(made));
            Some(batch)
        })
    }
}

/// What a cycle prepares of its offers: read, indexed (or pooled for `naive`), their ranks
/// classed; the offers are passed back to the requests' reader as soon as they are read.
struct OfferSide {
    offers: Collection,
    pool: Offers,
    dock: Dock,
    /// Which offers are partitionable (empty when none is).
    partitionable: Vec<bool>,
    /// Seconds reading the offers; indexing them and classing their ranks.
    scan: f64,
    index: f64,
    /// What a cycle starting afresh had learnt, when the pool starts from what the last
    /// cycle's serving learnt of these offers ([`Offers::adopt`]).
    fresh: Option<held_offers::Size>,
}

impl OfferSide {
    /// Prepares the offers. With `requests`, the offers are sent there in runs as they are
    /// read, then [`RootsFrom::Read`] (for the reader's [`RootsFinder`] of the roots of the
    /// requests' signatures), and the index is readied for each request received (the first
    /// of each shape) once it is built.
    fn new(
        db: &Db,
        opts: &CycleOptions,
        eval: &EvalOptions,
        requests: Option<ToRequests<'_>>,
    ) -> Result<OfferSide, CycleError> {
        let t = Instant::now();
        let (roots_to, reps) = requests.unzip();
        // What the last cycle derived from its offers (`held_offers.rs`), if it evaluated
        // alike; the naive cycle holds nothing.
        let derived = (!opts.naive)
            .then(|| db.held_offers().take(&opts.offers))
            .flatten()
            .filter(|d| d.evaluates_as(eval));
        let held_roots = (derived.as_ref())
            .and_then(|d| d.roots_for(&opts.dock))
            .filter(|_| roots_to.is_some());
        let held_ads = derived.as_ref().map_or(&[][..], |d| d.ads());
        // Runs of offers go to the reader as they are read; a reader gone has failed, and
        // its error is the cycle's. While they are the offers whose roots are held, they are
        // kept back (the roots go instead, once every offer is read).
        let (mut kept_back, mut read) = (held_roots.is_some(), 0);
        // The first `upto` offers, kept back, sent after all.
        let send_kept = |to: &mpsc::Sender<RootsFrom>, upto: usize| {
            if let Some(kept) = held_ads.get(..upto).filter(|k| !k.is_empty()) {
                let _ = to.send(RootsFrom::Offers(kept.to_vec()));
            }
        };
        let each_run = |run: &[Arc<ClassAd>]| {
            let Some(to) = &roots_to else {
                return;
            };
            let at = read;
            read += run.len();
            if kept_back {
                let held = held_ads.get(at..read);
                if held.is_some_and(|h| h.iter().zip(run).all(|(a, b)| Arc::ptr_eq(a, b))) {
                    return;
                }
                kept_back = false;
                send_kept(to, at);
            }
            let _ = to.send(RootsFrom::Offers(run.to_vec()));
        };
        // The naive cycle, the oracle of the others, reads every offer (and holds none).
        let (offers, marks) = match opts.naive {
            true => Collection::scan_marked(db, &opts.offers, each_run)?,
            false => Collection::scan_held(db, &opts.offers, each_run)?,
        };
        if let Some(to) = &roots_to {
            match held_roots.filter(|_| kept_back && read == held_ads.len()) {
                Some(roots) => {
                    let _ = to.send(RootsFrom::Found(roots.clone()));
                }
                None => {
                    if kept_back {
                        send_kept(to, read);
                    }
                    let _ = to.send(RootsFrom::Read);
                }
            }
        }
        let scan = t.elapsed().as_secs_f64();
        let mut lap = Instant::now();
        let mut partitionable: Vec<bool> = offers
            .ads
            .iter()
            .map(|a| partition::is_partitionable(a, eval))
            .collect();
        if opts.whole_slots || !partitionable.contains(&true) {
            partitionable.clear();
        }
        // What the last cycle's serving learnt of these very offers, unless they change as
        // they are matched.
        let mut learnt = derived
            .filter(|d| d.is_of(&offers.ads) && partitionable.is_empty())
            .and_then(|mut d| d.take_searched());
        let mut dock = match learnt.as_mut().and_then(|l| l.ranker.take()) {
            Some(ranker) if opts.dock.is_empty() => Dock::Ranks(Box::new(ranker)),
            _ => Dock::for_offers(opts.dock.clone(), &offers.ads),
        };
        let numbers = (!opts.naive && db.lends_for(&opts.index))
            .then(|| held::numbers(&marks))
            .flatten();
        let (mut pool, reps, index) = match numbers {
            Some(numbers) => {
                let (pool, reps, index) = lend(db, opts, &offers, &marks, numbers, reps, lap)?;
                lap = Instant::now();
                (pool, reps, index)
            }
            None => {
                let pool = match opts.naive {
                    true => Offers::naive(&offers, eval.clone()),
                    false => Offers::indexed(&offers, opts.index.clone())?,
                };
                let index = lap.elapsed().as_secs_f64();
                lap = Instant::now();
                let reps: Vec<Ready> = reps.into_iter().flat_map(FromReader::ready).collect();
                (pool, reps, index)
            }
        };
        let fresh = learnt.and_then(|l| pool.adopt(l));
        if fresh.is_some() {
            db.held_offers().used();
        }
        for (rep, windows) in reps {
            pool.prepare_for(&rep, windows);
        }
        if let Some(columns) = pool.columns() {
            dock.share(columns);
        }
        tracing::debug!(prepare = lap.elapsed().as_secs_f64(), "offers readied");
        Ok(OfferSide {
            offers,
            pool,
            dock,
            partitionable,
            scan,
            index,
            fresh,
        })
    }
}

/// The offers of a cycle searched through the Db's held index of their collection, lent
/// ([`Db::lend_index`]): the attributes the requests' shapes bound imported there first (as
/// the shapes' first requests come from the reader, `reps`: those come meanwhile imported in
/// one pass), then the index lent. Returns the pool, the requests received, and the seconds
/// spent on the index (not waiting for them).
fn lend(
    db: &Db,
    opts: &CycleOptions,
    offers: &Collection,
    marks: &[(u64, u64)],
    numbers: held::Numbers,
    reps: Option<FromReader<'_>>,
    start: Instant,
) -> Result<(Offers, Vec<Ready>, f64), CycleError> {
    let coll = opts.offers.as_str();
    let views = held::views(&offers.ads, numbers.clone());
    db.hold_index_of(coll, &offers.ids, &offers.ads, marks)?;
    let mut have = db.with_index(coll, |h| h.index.imported_attrs())?;
    let mut busy = start.elapsed().as_secs_f64();
    let mut got = Vec::new();
    for batch in reps.into_iter().flat_map(FromReader::batches) {
        let t = Instant::now();
        let mut missing: Vec<adjoin_query::Key> = batch
            .iter()
            .flat_map(|rep| rep.1.iter())
            .flat_map(|q| q.window_attrs())
            .filter(|k| have.binary_search(k).is_err())
            .collect();
        if !missing.is_empty() {
            missing.sort_unstable();
            missing.dedup();
            drop(db.lend_index(coll, marks, &missing, &views)?);
            have.extend(missing);
            have.sort_unstable();
        }
        got.extend(batch);
        busy += t.elapsed().as_secs_f64();
    }
    let t = Instant::now();
    let lent = db.lend_index(coll, marks, &[], &views)?;
    let index = held::CycleIndex::lent(lent.index, &offers.ads, numbers, &lent.same);
    busy += t.elapsed().as_secs_f64();
    Ok((Offers::through(index), got, busy))
}

/// A cycle under way: what it reads, what it has decided, and what is not yet committed.
struct Cycle<'a> {
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
    /// Decisions not yet sent to be written.
    group: Group,
    /// The group sent and not yet known recorded.
    inflight: Option<Group>,
    /// Where groups are written (`None`: a dry run).
    writer: Option<Writer<'a>>,
    /// The windows run ahead of serving (`ahead.rs`; `None`: each searched when served).
    ahead: Option<ahead::Ahead>,
}

impl Cycle<'_> {
    /// Serves the requests in `serving` order, committing the matches of a durable cycle in
    /// groups, resuming where a refusal says.
    fn serve(&mut self, serving: &[usize]) -> Result<(), CycleError> {
        self.serve_with(serving, GROUP, |_| {})
    }

    /// [`Cycle::serve`] in groups of `size` matches, `before_send` seeing the cycle before
    /// each group is sent (where tests consume ads behind its back).
    fn serve_with(
        &mut self,
        serving: &[usize],
        size: usize,
        mut before_send: impl FnMut(&Cycle<'_>),
    ) -> Result<(), CycleError> {
        self.clusters.plan(serving);
        let (mut pos, mut got) = (0, 0);
        loop {
            while let Some(&ri) = serving.get(pos) {
                self.visit(pos, ri, std::mem::take(&mut got));
                self.clusters.served(pos, ri);
                pos += 1;
                if self.group.len() >= size {
                    before_send(self);
                    if let Some(resume) = self.commit()? {
                        (pos, got) = (resume.pos, resume.got);
                    }
                }
            }
            before_send(self);
            match self.finish_commits()? {
                Some(resume) => (pos, got) = (resume.pos, resume.got),
                None => return Ok(()),
            }
        }
    }

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
        if fresh && matches!(self.dock, Dock::Ranks(_)) {
            if let Err(e) = Preferences::from_ad(req, req_id, &self.eval) {
                tracing::warn!(request = %req_id, error = %e, "preferences");
                self.report.bad_preferences.push(e);
                return;
            }
        }
        let (pool, offers, dock, eval) = (&mut self.pool, self.offers, &self.dock, &self.eval);
        let (ahead, requests) = (&mut self.ahead, &self.requests.ads);
        let compute = || {
            if let Some(e) = ahead.as_mut().and_then(|a| a.take(ri, req, requests)) {
                pool.give_early(req, e);
            }
            // Ranked by the default vector without preferences (no fraction kept), the list
            // is confirmed only as far as it is read.
            if let (Dock::Ranks(r), None) = (dock, req.get("Preferences")) {
                let (all, unconfirmed) = pool.candidates_unconfirmed(req, &offers.ads);
                r.ranked(req, all, unconfirmed, &offers.ads, eval)
            } else {
                dock.matchlist(req, pool.candidates(req), &offers.ads, eval)
            }
        };
        let Some(list) = self.clusters.list(ri, compute) else {
            return;
        };
        if !self.opts.dry_run {
            self.group.visit(pos, ri, fresh, self.inflight.is_some());
        }
        let first = got;
        let mut got = got;
        // Offers' ranks against the request, for lists read in rank order, per offer class.
        let mut memo = rustc_hash::FxHashMap::default();
        while got < want {
            let mut theirs = |o| match &self.dock {
                Dock::Ranks(r) => r.offer_rank(&mut memo, req, o, &self.offers.ads, &self.eval),
                Dock::Exprs(_) => Value::Int(0),
            };
            let Some((vector, o)) = list.peek_confirmed(&self.taken, &mut self.pool, &mut theirs)
            else {
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
        // `[request Rank, offer Rank]`, after the preference order when the request has one.
        Dock::Ranks { .. } => {
            let at = vector.len().saturating_sub(2);
            (vector.get(at).cloned(), vector.get(at + 1).cloned())
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    /// The requests sent before the offers' side takes them come in one batch (one import
    /// of the attributes they bound), each with its windows; later ones in later batches,
    /// until the reader is done.
    #[test]
    fn requests_come_in_batches() {
        let (tx, rx) = mpsc::channel();
        let (share, index) = (WindowShare::default(), IndexOptions::default());
        let ad = |t: &str| Arc::new(parse::classad(t).expect("ad"));
        let mut batches = FromReader {
            reps: rx,
            share: &share,
            index: &index,
        }
        .batches();
        assert!(share.leave(), "the offers' side waits for requests");
        let sent = [
            (ad("[Requirements = TARGET.Memory > 1]"), None, 0),
            (
                ad("[Requirements = TARGET.Cpus > 1]"),
                Some(Windows::from([])),
                1,
            ),
        ];
        // Two runs sent before it takes them: one batch.
        for r in sent {
            tx.send(vec![r]).expect("sent");
        }
        let first = batches.next().expect("a batch");
        assert_eq!(first.len(), 2);
        assert_eq!(first[0].1.len(), 1, "windows made for the one sent without");
        assert!(first[1].1.is_empty(), "windows sent with it kept");
        tx.send(vec![(ad("[]"), Some(Windows::from([])), 2)])
            .expect("sent");
        drop(tx);
        assert_eq!(batches.next().map(|b| b.len()), Some(1));
        assert!(batches.next().is_none(), "the reader is done");
    }
}
