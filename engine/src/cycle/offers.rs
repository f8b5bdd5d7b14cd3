//! Where a cycle finds a request's candidates: the spatial index (two-sided queries,
//! confirmed by evaluation; the Db's held index lent, or a private one: `held.rs`), or, for
//! `--naive`, every live offer by plain evaluation — the
//! oracle the indexed cycle must agree with. Offers consumed during the cycle leave every
//! later search (and come back when a durable cycle undoes a match its store refused): the
//! index keeps them and its answers are filtered, as removing an offer from every axis costs
//! more than passing over it.

use super::ahead::{Early, Log, Searcher, Window};
use super::columns::Columns;
use super::held::{CycleAnswer, CycleIndex, Gone};
use super::held_offers::{Searched, Size};
use super::offer_classes::{Judged, OfferClasses};
use super::part_windows::PartWindows;
use super::ranks::Ranker;
use super::residual::{self, Checks, Residuals, Ruled, Split};
use crate::collection::{Collection, CollectionError};
use adjoin_index::query::{Base, StepCache};
use adjoin_index::{pairwise_units, AdId, Bits, IndexOptions, Query, RoaringBitmap};
use adjoin_query::eval::{requirements_key, symmetric_match, EvalOptions};
use adjoin_query::refs::internal_refs;
use adjoin_query::{ClassAd, Key};
use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The live offers of a cycle and how they are searched.
pub enum Offers {
    /// Through the spatial index (the Db's held index lent, or a private one:
    /// [`CycleIndex`]), which still holds the offers `gone` from the cycle.
    Indexed {
        /// The index of every offer of the cycle (shared with the windows run ahead of
        /// serving, `ahead.rs`, while they run: it is not changed then).
        index: Arc<CycleIndex>,
        /// The rectangles of the offers taken (or gone) so far.
        gone: Gone,
        /// The offers taken so far, by position.
        taken: Bits,
        /// What was found ahead of serving for one request (`ahead.rs`), by its ad.
        early: Option<Box<(Arc<ClassAd>, Early)>>,
        /// What serving puts back while windows run ahead (whether their answers hold).
        log: Option<Log>,
        /// The windows of the requests readied ([`Offers::prepare_for`]) and not yet
        /// searched, by the address of the request's ad (held here, so that the address
        /// names it while it is here): made once, not again when the request is served.
        readied: Readied,
        /// What is known of the requests' residual conjuncts against the offers
        /// (`residual.rs`), shared with the windows run ahead, which rule out candidates.
        residuals: Arc<Mutex<Residuals>>,
        /// What serving found checking candidates one at a time.
        checks: Box<Checks>,
        /// The offers classed by their Requirements (`offer_classes.rs`), made when first
        /// needed.
        classes: Option<Box<OfferClasses>>,
        /// Window steps met again, remembered (cleared when an offer is re-indexed).
        steps: Box<StepCache>,
        /// The requests' disjuncts' windows, made once per request (`part_windows.rs`).
        part_windows: Arc<PartWindows>,
    },
    /// By evaluating every pair: each live offer's matchable units (one per port, or the ad).
    Naive {
        /// Units by offer position; `None` once consumed.
        units: Vec<Option<Vec<Arc<ClassAd>>>>,
        /// Evaluation options.
        opts: EvalOptions,
        /// Pairs evaluated so far.
        evaluations: u64,
    },
}

impl Offers {
    /// The offers of `c` searched through an index built for them.
    pub fn indexed(c: &Collection, opts: IndexOptions) -> Result<Offers, CollectionError> {
        Ok(Offers::through(CycleIndex::private(&c.ads, opts)?))
    }

    /// The offers searched through `index`.
    pub(crate) fn through(index: CycleIndex) -> Offers {
        let part_windows = Arc::new(PartWindows::new(index.options().clone()));
        Offers::Indexed {
            gone: index.gone(),
            taken: Bits::new(),
            early: None,
            log: None,
            index: Arc::new(index),
            readied: FxHashMap::default(),
            residuals: Arc::default(),
            checks: Box::default(),
            classes: None,
            steps: Box::default(),
            part_windows,
        }
    }

    /// The offers of `c` searched by plain evaluation.
    pub fn naive(c: &Collection, opts: EvalOptions) -> Offers {
        let units = c
            .ads
            .iter()
            .map(|a| Some(pairwise_units(a, &opts).into_iter().map(|u| u.ad).collect()))
            .collect();
        Offers::Naive {
            units,
            opts,
            evaluations: 0,
        }
    }

    /// The live offers matching `request` both ways (some unit of each matching some unit of
    /// the other), in load order.
    pub fn candidates(&mut self, request: &Arc<ClassAd>) -> RoaringBitmap {
        match self {
            Offers::Indexed {
                index: idx,
                gone,
                readied,
                steps,
                early,
                log,
                ..
            } => {
                let mut ads = RoaringBitmap::new();
                let (qs, window) = match early_for(early, log, request) {
                    Some(e) => (e.qs, e.window),
                    None => (windows_of(readied, request, idx), None),
                };
                if let Some(Window { mut answer, .. }) = window {
                    if let [q] = &qs[..] {
                        idx.drop_gone(&mut answer, gone);
                        return idx.confirm_ads(q, &mut answer);
                    }
                }
                for q in qs.iter() {
                    prepare(idx, q);
                    let mut a = idx.candidates_cached(q, gone, steps);
                    ads |= idx.confirm_ads(q, &mut a);
                }
                ads
            }
            Offers::Naive {
                units: offers,
                opts,
                evaluations,
            } => {
                let mine: Vec<Arc<ClassAd>> = pairwise_units(request, opts)
                    .into_iter()
                    .map(|u| u.ad)
                    .collect();
                let mut ads = RoaringBitmap::new();
                for (id, theirs) in (0..).zip(offers.iter()) {
                    let Some(theirs) = theirs else { continue };
                    let hit = theirs.iter().any(|o| {
                        mine.iter().any(|m| {
                            *evaluations += 1;
                            symmetric_match(o, m, opts)
                        })
                    });
                    if hit {
                        ads.insert(id);
                    }
                }
                ads
            }
        }
    }

    /// [`Offers::candidates`] with confirmation put off (as a word set): every raw candidate
    /// of the index's window, and, when some are not known to match, what confirms them one
    /// at a time ([`Offers::holds`]) — so that a ranked list confirms only as far as it is
    /// read. Through the index with one probing unit (a request without ports); otherwise
    /// the candidates are confirmed now and nothing is left. Candidates the request's
    /// residual conjuncts rule out (`residual.rs`; `offers` are the ads by position), and
    /// offers known to refuse requests binding what their Requirements read as this one does
    /// (`offer_classes.rs`), are dropped unevaluated.
    pub fn candidates_unconfirmed(
        &mut self,
        request: &Arc<ClassAd>,
        offers: &[Arc<ClassAd>],
    ) -> (Bits, Option<Box<Unconfirmed>>) {
        let Offers::Indexed {
            index: idx,
            gone,
            taken,
            readied,
            residuals,
            classes,
            steps,
            early,
            log,
            part_windows,
            ..
        } = self
        else {
            return (Bits::from_roaring(&self.candidates(request)), None);
        };
        let (qs, window) = match early_for(early, log, request) {
            Some(e) => (e.qs, e.window),
            None => (windows_of(readied, request, idx), None),
        };
        if qs.len() != 1 {
            // Ports: every window confirmed now ([`Offers::candidates`], given them back).
            let e = Early { qs, window: None };
            *early = Some(Box::new((Arc::clone(request), e)));
            return (Bits::from_roaring(&self.candidates(request)), None);
        }
        let Some(query) = qs.first().cloned() else {
            return (Bits::new(), None);
        };
        let (answer, mut all, mut left, mut parts, ruled) = match window {
            // Found among every offer before serving: those taken since leave it.
            Some(Window {
                answer,
                mut sure,
                mut pending,
                parts,
                ruled,
            }) => {
                sure.andnot_assign(taken);
                pending.andnot_assign(taken);
                (answer, sure, pending, parts, ruled)
            }
            None => {
                prepare(idx, &query);
                let (mut answer, base) = idx.candidates_base_uncounted(&query, gone, steps);
                let (all, left) = idx.split_ads_counted(&mut answer);
                idx.count(&answer);
                let parts = match left.is_empty() {
                    true => None,
                    false => {
                        let made = part_windows;
                        parts_of(idx, &query, base.as_ref(), request, gone, steps, made)
                    }
                };
                for p in parts.iter().flatten() {
                    idx.count(&p.answer);
                }
                (answer, all, left, parts, None)
            }
        };
        if left.is_empty() {
            return (all, None);
        }
        let mut split = None;
        if query.port().is_none() {
            let Ruled { out, split: s } = match ruled {
                Some(r) => r,
                None => {
                    let opts = &idx.options().eval;
                    rule(residuals, request, &left, offers, parts.as_mut(), opts)
                }
            };
            left.andnot_assign(&out);
            split = s;
        }
        let mut refusals = Judged::default();
        if query.port().is_none() && !left.is_empty() {
            let c = classes.get_or_insert_with(|| {
                let columns = residuals.lock().columns();
                Box::new(OfferClasses::new(offers, &columns))
            });
            c.drop_refused(request, &mut refusals, &mut left);
        }
        all.or_assign(&left);
        let pending = left;
        if pending.is_empty() {
            return (all, None);
        }
        let u = Unconfirmed {
            query,
            answer,
            pending,
            rejected: Bits::new(),
            request: Arc::clone(request),
            refusals,
            split,
        };
        (all, Some(Box::new(u)))
    }

    /// Whether `u`'s offer `o` matches its request (evaluated once, then remembered).
    pub fn holds(&mut self, u: &mut Unconfirmed, o: AdId) -> bool {
        if u.rejected.contains(o) {
            return false;
        }
        if !u.pending.contains(o) {
            return true;
        }
        u.pending.remove(o);
        let Offers::Indexed {
            index,
            classes,
            checks,
            ..
        } = self
        else {
            return true;
        };
        // An offer whose class refuses the request, or that rules it out, is not evaluated.
        let opts = &index.options().eval;
        let refused = u.query.port().is_none()
            && (classes
                .as_mut()
                .is_some_and(|c| c.refuses(o, &u.request, &mut u.refusals, opts) == Some(true))
                || u.split
                    .as_deref_mut()
                    .is_some_and(|s| s.rules_out(o, &u.request, index.ads(), checks, opts)));
        let ok = !refused && index.confirm_ad(&u.query, &u.answer, o);
        if !ok {
            u.rejected.insert(o);
        }
        ok
    }

    /// Readies the index for `request`'s searches through its windows `qs` (imports the
    /// attributes they bound), so that its first search costs no more than any other.
    pub fn prepare_for(&mut self, request: &Arc<ClassAd>, qs: Windows) {
        if let Offers::Indexed { index, readied, .. } = self {
            for q in qs.iter() {
                prepare(index, q);
            }
            readied.insert(address(request), (Arc::clone(request), qs));
        }
    }

    /// What windows run ahead of serving need (`ahead.rs`): the index, shared; the windows
    /// readied, and the steps remembered, taken from here. `None` unless indexed.
    pub(crate) fn lend_ahead(&mut self) -> Option<Searcher> {
        match self {
            Offers::Indexed {
                index,
                readied,
                steps,
                gone,
                log,
                residuals,
                part_windows,
                ..
            } => {
                let before = Arc::new(gone.clone());
                *log = Some(Log::new(Arc::clone(&before)));
                Some(Searcher::new(
                    Arc::clone(index),
                    before,
                    std::mem::take(readied),
                    std::mem::take(steps),
                    (Arc::clone(residuals), Arc::clone(part_windows)),
                ))
            }
            Offers::Naive { .. } => None,
        }
    }

    /// Hands `request`'s windows, found ahead of serving, to its next search; their work is
    /// counted now.
    pub(crate) fn give_early(&mut self, request: &Arc<ClassAd>, e: Early) {
        if let Offers::Indexed { early, index, .. } = self {
            if let Some(w) = &e.window {
                index.count(&w.answer);
                for p in w.parts.iter().flatten() {
                    index.count(&p.answer);
                }
            }
            *early = Some(Box::new((Arc::clone(request), e)));
        }
    }

    /// Drops offer `id` (consumed) from every later search.
    pub fn remove(&mut self, id: AdId) {
        match self {
            Offers::Indexed { .. } => self.mark(id, true),
            Offers::Naive { units, .. } => {
                if let Some(u) = units.get_mut(id as usize) {
                    *u = None;
                }
            }
        }
    }

    /// Puts back offer `id` (`ad`), removed by a match that was undone.
    pub fn restore(&mut self, id: AdId, ad: &Arc<ClassAd>) {
        match self {
            Offers::Indexed { .. } => self.mark(id, false),
            Offers::Naive {
                units: offers,
                opts,
                ..
            } => {
                if let Some(u) = offers.get_mut(id as usize) {
                    *u = Some(pairwise_units(ad, opts).into_iter().map(|u| u.ad).collect());
                }
            }
        }
    }

    /// Offer `id` of an indexed pool gone (`went`) or back: its rectangles, its place, and,
    /// when back, the log that tells whether the answers found ahead still hold.
    fn mark(&mut self, id: AdId, went: bool) {
        if let Offers::Indexed {
            index,
            gone,
            taken,
            log,
            ..
        } = self
        {
            let rids = index.rids_of(id);
            for &rid in &rids {
                match went {
                    true => gone.insert(rid),
                    false => gone.remove(rid),
                };
            }
            match went {
                true => taken.insert(id),
                false => taken.remove(id),
            };
            if let (Some(l), false) = (log, went) {
                l.back(&rids);
            }
        }
    }

    /// Replaces offer `id` by `ad` (a partitionable offer's remainder), re-indexed in place:
    /// its rectangles are those of the new ad.
    pub fn update(&mut self, id: AdId, ad: &Arc<ClassAd>) {
        match self {
            Offers::Indexed {
                index,
                residuals,
                checks,
                classes,
                steps,
                ..
            } => {
                let mut r = residuals.lock();
                r.clear();
                checks.clear(r.generation());
                *classes = None;
                steps.clear();
                // An index out of rectangle ids keeps the old rectangles, a superset that
                // confirmation still filters (it evaluates the ad the index now holds).
                // Shared only while windows run ahead of a cycle that changes no offer.
                if Arc::make_mut(index).insert(id, ad.clone()).is_err() {
                    tracing::warn!(offer = id, "partitionable offer not re-indexed");
                }
            }
            Offers::Naive {
                units: offers,
                opts,
                ..
            } => {
                if let Some(u) = offers.get_mut(id as usize) {
                    *u = Some(pairwise_units(ad, opts).into_iter().map(|u| u.ad).collect());
                }
            }
        }
    }

    /// What serving learnt of the offers (`held_offers.rs`), taken out, unless something
    /// learnt was forgotten during the cycle (an offer changed) or the offers are not indexed.
    pub(crate) fn learnt(
        &mut self,
        fresh: Option<Size>,
        ranker: Option<Ranker>,
    ) -> Option<Searched> {
        let Offers::Indexed {
            residuals, classes, ..
        } = self
        else {
            return None;
        };
        if residuals.lock().generation() != 0 {
            return None;
        }
        let mut s = Searched {
            residuals: std::mem::take(residuals),
            classes: classes.take(),
            ranker,
            fresh: [0; 3],
        };
        s.fresh = fresh.unwrap_or_else(|| s.size());
        Some(s)
    }

    /// Starts from what an earlier cycle's serving learnt of the same offers
    /// (`held_offers.rs`; its ranker taken out before), its counts of evaluations from zero;
    /// returns what a cycle starting afresh had learnt. Nothing for offers not indexed.
    pub(crate) fn adopt(&mut self, learnt: Searched) -> Option<Size> {
        let Offers::Indexed {
            residuals,
            classes,
            checks,
            ..
        } = self
        else {
            return None;
        };
        let Searched {
            residuals: r,
            classes: mut c,
            fresh,
            ..
        } = learnt;
        {
            let mut r = r.lock();
            r.next_cycle();
            checks.clear(r.generation());
        }
        if let Some(c) = &mut c {
            c.next_cycle();
        }
        (*residuals, *classes) = (r, c);
        Some(fresh)
    }

    /// Starts from the requests' disjuncts' windows `made` before (indexed offers only).
    pub(crate) fn use_part_windows(&mut self, made: PartWindows) {
        if let Offers::Indexed { part_windows, .. } = self {
            *part_windows = Arc::new(made);
        }
    }

    /// The requests' disjuncts' windows made or used by the cycle, taken out (`None` for
    /// offers not indexed, or while windows still run ahead).
    pub(crate) fn take_part_windows(&mut self) -> Option<PartWindows> {
        let Offers::Indexed { part_windows, .. } = self else {
            return None;
        };
        let blank = Arc::new(PartWindows::new(IndexOptions::default()));
        Arc::try_unwrap(std::mem::replace(part_windows, blank)).ok()
    }

    /// The offers' bindings the residual conjuncts read, to share (indexed offers only).
    pub(crate) fn columns(&self) -> Option<Arc<Columns>> {
        match self {
            Offers::Indexed { residuals, .. } => Some(residuals.lock().columns()),
            Offers::Naive { .. } => None,
        }
    }

    /// (index probes, requirement evaluations) so far.
    pub fn work(&self) -> (u64, u64) {
        match self {
            Offers::Indexed {
                index: idx,
                residuals,
                checks,
                classes,
                ..
            } => {
                let s = idx.stats();
                let classed = classes.as_ref().map_or(0, |c| c.evaluations());
                let ruled = residuals.lock().evaluations + checks.evaluations;
                (s.probes, s.evaluations + ruled + classed)
            }
            Offers::Naive { evaluations, .. } => (0, *evaluations),
        }
    }
}

/// Readies `index` for `q` ([`CycleIndex::prepare`]), unless windows run ahead share it
/// (`ahead.rs`): then what it lacks is left unbounded, a superset that confirmation filters.
fn prepare(index: &mut Arc<CycleIndex>, q: &Query) {
    if let Some(i) = Arc::get_mut(index) {
        i.prepare(q);
    }
}

/// `request`'s windows: readied, or made now.
pub(crate) fn windows_of(
    readied: &mut Readied,
    request: &Arc<ClassAd>,
    index: &CycleIndex,
) -> Windows {
    readied_for(readied, request)
        .unwrap_or_else(|| Query::two_sided(request, index.options()).into())
}

/// One disjunct's own window ([`Query::narrowed`]): its answer, and its raw candidates.
#[derive(Debug)]
pub struct Part {
    answer: CycleAnswer,
    ads: Bits,
}

/// What `request`'s residual conjuncts rule out of its `candidates` among `offers` as they
/// are now (the index's, or newer when some changed: the index keeps the ads it was lent)
/// ([`Residuals::ruled_out`]), through its disjuncts' windows `parts` when given (their raw
/// candidates taken: only their answers are left, to count).
pub(crate) fn rule(
    residuals: &Mutex<Residuals>,
    request: &Arc<ClassAd>,
    candidates: &Bits,
    offers: &[Arc<ClassAd>],
    parts: Option<&mut Vec<Part>>,
    opts: &EvalOptions,
) -> Ruled {
    let ads: Option<Vec<Bits>> =
        parts.map(|ps| ps.iter_mut().map(|p| std::mem::take(&mut p.ads)).collect());
    residuals
        .lock()
        .ruled_out(request, candidates, offers, ads.as_deref(), opts)
}

/// The windows of `request`'s disjuncts ([`residual::disjuncts`]) through the probe of its
/// window `q`, among the offers not `gone`, each from `base` (what the probe kept in `q`'s
/// window) when given: `None` unless it has several, each readied in the index, none reading
/// the Requirements itself (specialized alone, it would not read it as the match does).
/// The windows are made once per request (`made`, [`disjunct_windows`]). Their work is
/// counted when used.
pub(crate) fn parts_of(
    index: &CycleIndex,
    q: &Query,
    base: Option<&Base>,
    request: &Arc<ClassAd>,
    gone: &Gone,
    steps: &mut StepCache,
    made: &PartWindows,
) -> Option<Vec<Part>> {
    let qs = made.of(request, || disjunct_windows(q, request, index.options()))?;
    if !qs.iter().all(|p| index.prepared(p)) {
        return None;
    }
    Some(
        qs.iter()
            .map(|p| {
                let answer = index.narrowed_uncounted(p, base, gone, steps);
                let ads = index.ads_of(&answer);
                Part { answer, ads }
            })
            .collect(),
    )
}

/// The windows of `request`'s disjuncts through the probe of its window `q`
/// ([`parts_of`]), made with `opts`: `None` unless it has several, none reading the
/// Requirements itself, each making a window.
fn disjunct_windows(q: &Query, request: &ClassAd, opts: &IndexOptions) -> Option<Vec<Query>> {
    let disjuncts = residual::disjuncts(request);
    if disjuncts.len() < 2 || q.port().is_some() {
        return None;
    }
    let own = requirements_key(request)?;
    if disjuncts.iter().any(|d| {
        internal_refs(d, request, &opts.eval)
            .iter()
            .any(|n| Key::of(n) == own)
    }) {
        return None;
    }
    disjuncts.iter().map(|d| q.narrowed(d, opts)).collect()
}

/// What was found ahead for `request`, taken out of `early` (left there for another); its
/// answer dropped if an offer gone before it was found came back (`log`).
fn early_for(
    early: &mut Option<Box<(Arc<ClassAd>, Early)>>,
    log: &Option<Log>,
    request: &Arc<ClassAd>,
) -> Option<Early> {
    match early.take().map(|b| *b) {
        Some((ad, mut e)) if Arc::ptr_eq(&ad, request) => {
            if log.as_ref().is_some_and(|l| !l.current()) {
                e.window = None;
            }
            Some(e)
        }
        other => {
            *early = other.map(Box::new);
            None
        }
    }
}

/// The windows readied for requests, by the address of their ads ([`address`]).
pub(crate) type Readied = FxHashMap<usize, (Arc<ClassAd>, Windows)>;

/// A request's windows ([`Query::two_sided`]), shared by whoever holds them (the cycle
/// searching them, the requests held for the next cycle).
pub(crate) type Windows = Arc<[Query]>;

/// The key of a request readied: the address of its ad.
fn address(request: &Arc<ClassAd>) -> usize {
    Arc::as_ptr(request) as usize
}

/// The windows readied for `request`, taken out of `readied`.
fn readied_for(readied: &mut Readied, request: &Arc<ClassAd>) -> Option<Windows> {
    let (ad, qs) = readied.remove(&address(request))?;
    Arc::ptr_eq(&ad, request).then_some(qs)
}

/// Raw candidates of one request not yet confirmed ([`Offers::candidates_unconfirmed`]):
/// the window and its answer, the offers still to evaluate and those found not to match.
#[derive(Debug)]
pub struct Unconfirmed {
    query: Query,
    answer: CycleAnswer,
    pending: Bits,
    rejected: Bits,
    /// The request, and what the offers' classes said of it.
    request: Arc<ClassAd>,
    refusals: Judged,
    /// The request's residual conjuncts, checked one candidate at a time (a request of
    /// several disjuncts).
    split: Option<Box<Split>>,
}
