//! Windows run ahead of serving, on the second core.
//!
//! Serving is sequential (each match takes an offer from every later request), but a
//! request's window among the offers left is its window among more offers, less those taken
//! since (each step keeps or drops a rectangle on its own,
//! [`Answer::remove`](adjoin_index::Answer::remove)). So while one thread serves, a second
//! runs the windows of the requests to come, in serving order, among the offers there when
//! the cycle began serving, and splits each answer by offer; serving takes out the offers
//! taken since (one word operation per set) and goes on to rank and confirm. An answer lacks
//! only the offers gone before it began: one of those put back (a durable cycle undoing a
//! match) makes the answers found ahead stale ([`Log`]), and serving searches again. The two
//! threads share the index, which does not change under a cycle that serves whole offers
//! (partitionable ones are served apart, `partition.rs`).
//!
//! A request of several disjuncts has each disjunct's own window searched with it, the same
//! way ([`Part`], `residual.rs`).
//!
//! Only the requests that will compute a list are run ahead: the first of each cluster in
//! serving order that wants a match. Serving asks for them by position ([`Ahead::take`]);
//! what it passed over is dropped, and a request asked for again (a refusal sent the cycle
//! back) or never run ahead is searched as before, on the serving thread. Serving does not
//! wait for a window the thread has not begun: it claims it and searches it itself, as the
//! thread would search it, and the thread passes over what is claimed — so that where
//! windows are the longer work (large pools) both threads run them; each place is claimed
//! once, by whichever thread comes first, so no window is searched (or ruled) twice. When the
//! thread has begun the one serving wants, serving searches the next places not begun
//! meanwhile (at most [`STOLEN`] kept) rather than wait idle. At most [`AHEAD`] answers wait
//! at once.
//!
//! A list confirmed as read (ranks docking, no preferences) is also ruled there: what the
//! request's residual conjuncts rule out of its candidates (`residual.rs`), through the
//! shared [`Residuals`], whose memory of conjuncts and offers both threads add to.
//!
//! Which thread searched a window changes nothing reported: each window searches among the
//! same offers whoever runs it, counts a step answered from a remembered set as the probe it
//! stands for ([`StepCache`]), and its work is counted only when serving takes its answer
//! ([`CycleIndex::count`](super::held::CycleIndex::count)). A ruling's evaluations are
//! counted as it is made, each request ruled once among the same candidates whoever rules
//! it; what the shared memory saves (a conjunct evaluated once per distinct value of what it
//! reads) does not depend on the order the requests came in. Only a request served again (a
//! refusal sent a durable cycle back) or passed over is ruled twice or in vain: its counts
//! then depend on how far the thread had got.

use super::held::{CycleAnswer, CycleIndex, Gone};
use super::offers::{parts_of, rule, windows_of, Part, Readied, Windows};
use super::order;
use super::part_windows::PartWindows;
use super::residual::{Residuals, Ruled};
use adjoin_index::query::StepCache;
use adjoin_index::Bits;
use adjoin_query::eval::EvalOptions;
use adjoin_query::ClassAd;
use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender, TryRecvError};
use std::sync::Arc;

/// Answers found ahead and not yet taken, at most. Heavy windows and heavy lists come in
/// stretches: a thread far enough ahead through a light stretch is still ahead after a
/// heavy one, instead of idling at the cap and then holding serving up. An answer holds its
/// window's offer sets (a few dense sets, more with disjuncts): at 200,000 offers the peak
/// resident set grew by some 30 MB over 32 (session 17, docs/benchmarks.md).
pub(crate) const AHEAD: usize = 256;

/// A request's windows, and, for one window the index answers as it is, its answer.
#[derive(Debug)]
pub struct Early {
    /// The windows (one per probing unit).
    pub qs: Windows,
    /// The answer to the only window, among the offers there when serving began.
    pub window: Option<Window>,
}

/// Serving's note of the offers it puts back, for the answers found ahead: they lack the
/// offers gone before serving began, and are stale once one of those is back.
#[derive(Debug)]
pub struct Log {
    /// The rectangles gone when serving began.
    before: Arc<Gone>,
    stale: bool,
}

impl Log {
    /// A log for windows searched among the offers not `before`.
    pub(crate) fn new(before: Arc<Gone>) -> Log {
        Log {
            before,
            stale: false,
        }
    }

    /// An offer's rectangles `rids` are back.
    pub(crate) fn back(&mut self, rids: &[u32]) {
        if rids.iter().any(|&r| self.before.contains(r)) {
            self.stale = true;
        }
    }

    /// Whether the answers found ahead hold every offer there now (less those taken since).
    pub(crate) fn current(&self) -> bool {
        !self.stale
    }
}

/// A window's answer among every offer of the cycle, and the offers it names, by position.
#[derive(Debug)]
pub struct Window {
    /// The raw answer.
    pub answer: CycleAnswer,
    /// The offers with a candidate known to match.
    pub sure: Bits,
    /// The others, whose candidates must be confirmed.
    pub pending: Bits,
    /// The windows of the request's disjuncts, when it has several
    /// ([`parts_of`](super::offers::parts_of)).
    pub parts: Option<Vec<Part>>,
    /// What the request's residual conjuncts rule out of `pending` (`residual.rs`), for a
    /// list confirmed as read.
    pub ruled: Option<Ruled>,
}

/// What searches windows ahead ([`Offers::lend_ahead`](super::offers::Offers::lend_ahead)):
/// the index, the offers gone when serving began, the windows readied (shared by the
/// searchers of one cycle: each request's are taken by the first to search it) and the
/// searcher's own steps remembered.
#[derive(Debug)]
pub(crate) struct Searcher {
    index: Arc<CycleIndex>,
    before: Arc<Gone>,
    readied: Arc<Mutex<Readied>>,
    steps: Box<StepCache>,
    /// What is known of the residual conjuncts (shared with serving).
    residuals: Arc<Mutex<Residuals>>,
    /// The requests' disjuncts' windows (shared with serving).
    part_windows: Arc<PartWindows>,
    /// Whether requests without preferences get their disjuncts' windows (only lists
    /// confirmed as read use them, [`Offers::candidates_unconfirmed`](super::offers::Offers::candidates_unconfirmed)).
    parts: bool,
}

impl Searcher {
    /// A searcher through `index` among the offers not `before`.
    pub(crate) fn new(
        index: Arc<CycleIndex>,
        before: Arc<Gone>,
        readied: Readied,
        steps: Box<StepCache>,
        (residuals, part_windows): (Arc<Mutex<Residuals>>, Arc<PartWindows>),
    ) -> Searcher {
        Searcher {
            index,
            before,
            readied: Arc::new(Mutex::new(readied)),
            steps,
            residuals,
            part_windows,
            parts: true,
        }
    }

    /// The searcher, searching the disjuncts' windows (`parts`) or not: not when the cycle
    /// docks by expressions, whose lists are confirmed whole.
    pub(crate) fn with_parts(mut self, parts: bool) -> Searcher {
        self.parts = parts;
        self
    }

    /// Another searcher among the same offers and windows readied, with no steps remembered.
    fn another(&self) -> Searcher {
        Searcher {
            index: Arc::clone(&self.index),
            before: Arc::clone(&self.before),
            readied: Arc::clone(&self.readied),
            steps: Box::default(),
            residuals: Arc::clone(&self.residuals),
            part_windows: Arc::clone(&self.part_windows),
            parts: self.parts,
        }
    }

    /// `request`'s windows, and the answer to the only one when the index answers it as it is.
    fn find(&mut self, request: &Arc<ClassAd>) -> Early {
        let qs = windows_of(&mut self.readied.lock(), request, &self.index);
        let window = match &qs[..] {
            [q] if self.index.prepared(q) => {
                let (mut answer, base) =
                    self.index
                        .candidates_base_uncounted(q, &self.before, &mut self.steps);
                let (sure, pending) = self.index.split_ads_counted(&mut answer);
                // Only a list confirmed as read (no preferences) uses them.
                let read = !pending.is_empty()
                    && self.parts
                    && q.port().is_none()
                    && request.get("Preferences").is_none();
                let mut parts = match read {
                    true => {
                        let (index, before) = (&self.index, &self.before);
                        let made = &self.part_windows;
                        parts_of(
                            index,
                            q,
                            base.as_ref(),
                            request,
                            before,
                            &mut self.steps,
                            made,
                        )
                    }
                    false => None,
                };
                let ruled = read.then(|| {
                    // The index's ads are the offers: a cycle searched ahead changes none.
                    let (index, residuals) = (&self.index, &self.residuals);
                    let opts = &index.options().eval;
                    rule(
                        residuals,
                        request,
                        &pending,
                        index.ads(),
                        parts.as_mut(),
                        opts,
                    )
                });
                Some(Window {
                    answer,
                    sure,
                    pending,
                    parts,
                    ruled,
                })
            }
            _ => None,
        };
        Early { qs, window }
    }
}

/// Serving's end: the answers found ahead, in serving order.
#[derive(Debug)]
pub(crate) struct Ahead {
    /// Each request's place among those run ahead, by position ([`NONE`]: not run ahead).
    place: Vec<u32>,
    /// The place of the next answer to come.
    next: u32,
    rx: Receiver<(u32, Early)>,
    /// Places before this one are searched by serving itself: the thread passes over them.
    claimed: Arc<AtomicU32>,
    /// Serving's own searcher, for the answers it does not wait for.
    own: Searcher,
    /// Whether serving searches a window itself rather than wait for it.
    steal: bool,
    /// The request of each place.
    run: Vec<usize>,
    /// What serving found itself for later places while the thread searched the one it
    /// wanted (at most [`STOLEN`]), by place.
    stolen: FxHashMap<u32, Early>,
}

/// Later places serving searches while it waits, at most.
const STOLEN: usize = 4;

/// Not run ahead.
const NONE: u32 = u32::MAX;

impl Ahead {
    /// What was found ahead for request `ri` (`request`); `None` when it was not run ahead or
    /// was passed over.
    ///
    /// When the thread has not begun it, serving does not wait: it claims it (and every
    /// place before it) and searches the window itself, as the thread would; once begun, it
    /// waits for the thread's answer (no window is searched twice).
    pub(crate) fn take(
        &mut self,
        ri: usize,
        request: &Arc<ClassAd>,
        requests: &[Arc<ClassAd>],
    ) -> Option<Early> {
        let want = *self.place.get(ri)?;
        if want == NONE {
            return None;
        }
        // Found here while waiting (those passed over dropped).
        self.stolen.retain(|&at, _| at >= want);
        if let Some(e) = self.stolen.remove(&want) {
            self.next = self.next.max(want + 1);
            return Some(e);
        }
        if want < self.next {
            return None;
        }
        // Whoever claims a place first searches it (the thread claims each as it begins it).
        if self.steal && self.claimed.fetch_max(want + 1, Ordering::AcqRel) <= want {
            // Not begun (or no thread): searched now.
            self.next = want + 1;
            return Some(self.own.find(request));
        }
        // Begun by the thread: its answer comes; meanwhile serving searches the next places
        // not begun, for later.
        loop {
            let got = match self.rx.try_recv() {
                Ok(got) => got,
                Err(TryRecvError::Empty) if self.steal_next(requests) => continue,
                Err(TryRecvError::Empty) => match self.rx.recv() {
                    Ok(got) => got,
                    Err(_) => break,
                },
                Err(TryRecvError::Disconnected) => break,
            };
            let (at, early) = got;
            self.next = at + 1;
            if at == want {
                return Some(early);
            }
        }
        // The thread is gone.
        self.next = want + 1;
        Some(self.own.find(request))
    }

    /// Claims the next place not begun and searches it here, for later; false when there is
    /// none, it was begun first, or enough are waiting.
    fn steal_next(&mut self, requests: &[Arc<ClassAd>]) -> bool {
        if !self.steal || self.stolen.len() >= STOLEN {
            return false;
        }
        let p = self.claimed.load(Ordering::Acquire);
        let Some(request) = self.run.get(p as usize).and_then(|&ri| requests.get(ri)) else {
            return false;
        };
        let won = self
            .claimed
            .compare_exchange(p, p + 1, Ordering::AcqRel, Ordering::Acquire)
            .is_ok();
        if won {
            let early = self.own.find(request);
            self.stolen.insert(p, early);
        }
        won
    }
}

/// The requests that compute a list, in serving order: the first of each cluster (`of`:
/// each request's cluster) that wants a match.
pub(crate) fn to_run(
    serving: &[usize],
    of: &[usize],
    requests: &[Arc<ClassAd>],
    eval: &EvalOptions,
) -> Vec<usize> {
    let mut seen = Bits::new();
    serving
        .iter()
        .copied()
        .filter(|&ri| {
            let (Some(&c), Some(req)) = (of.get(ri), requests.get(ri)) else {
                return false;
            };
            let c = u32::try_from(c).unwrap_or(u32::MAX);
            !seen.contains(c) && seen.insert(c) && order::request_count(req, eval) > 0
        })
        .collect()
}

/// Runs the windows of `run` (request positions, in serving order) on a thread of `scope`,
/// through `searcher`; serving's end is returned.
pub(crate) fn spawn<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    searcher: Searcher,
    requests: &'s [Arc<ClassAd>],
    run: Vec<usize>,
) -> Ahead {
    let mut place = vec![NONE; requests.len()];
    for (at, &ri) in (0..).zip(&run) {
        if let Some(p) = place.get_mut(ri) {
            *p = at;
        }
    }
    let (tx, rx) = sync_channel(AHEAD);
    let claimed = Arc::new(AtomicU32::new(0));
    let passed = Arc::clone(&claimed);
    let own = searcher.another();
    let order = run.clone();
    let spawned = std::thread::Builder::new()
        .name("cycle-ahead".into())
        .spawn_scoped(scope, move || {
            search(searcher, requests, &run, (&tx, &passed))
        });
    if let Err(e) = spawned {
        // No thread: serving searches every window itself.
        tracing::warn!(error = %e, "windows not run ahead");
    }
    Ahead {
        place,
        next: 0,
        rx,
        claimed,
        own,
        steal: true,
        run: order,
        stolen: FxHashMap::default(),
    }
}

/// The thread: each request of `run` searched in turn, but those serving claimed, until
/// serving stops listening.
fn search(
    mut searcher: Searcher,
    requests: &[Arc<ClassAd>],
    run: &[usize],
    (tx, claimed): (&SyncSender<(u32, Early)>, &AtomicU32),
) {
    let _span = tracing::debug_span!("cycle_ahead", requests = run.len()).entered();
    for (at, &ri) in (0..).zip(run) {
        let Some(request) = requests.get(ri) else {
            continue;
        };
        if claimed.fetch_max(at + 1, Ordering::AcqRel) > at {
            // Serving claimed it (searched it itself) first.
            continue;
        }
        if tx.send((at, searcher.find(request))).is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::Collection;
    use crate::cycle::offers::Offers;
    use adjoin_index::IndexOptions;
    use adjoin_query::parse;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(parse::classad(text).expect("parses"))
    }

    /// `offers` indexed, readied for `requests` as a cycle readies them before serving.
    fn indexed(offers: &[Arc<ClassAd>], requests: &[Arc<ClassAd>]) -> Offers {
        let coll = Collection {
            ids: Vec::new(),
            ads: offers.to_vec(),
            damaged: Vec::new(),
        };
        let opts = IndexOptions::default();
        let mut pool = Offers::indexed(&coll, opts.clone()).expect("index");
        for r in requests {
            pool.prepare_for(r, adjoin_index::Query::two_sided(r, &opts).into());
        }
        pool
    }

    /// The window answers of `e`: raw candidates, sure and pending offers.
    fn found(e: &Early) -> Option<(Bits, Bits)> {
        e.window
            .as_ref()
            .map(|w| (w.sure.clone(), w.pending.clone()))
    }

    /// Serving, finding the place it wants begun by the thread, searches the next places not
    /// begun (at most [`STOLEN`]) and takes them later from there, as the thread would have
    /// found them; each place is searched once.
    #[test]
    fn serving_searches_the_next_places_while_the_thread_searches_its_own() {
        let offers: Vec<Arc<ClassAd>> = (0..100)
            .map(|i| {
                ad(&format!(
                    "[Memory = {}; Requirements = TARGET.Cpus <= {}]",
                    i * 10,
                    i % 4
                ))
            })
            .collect();
        let requests: Vec<Arc<ClassAd>> = (0..8)
            .map(|i| {
                ad(&format!(
                    "[Cpus = {}; Requirements = TARGET.Memory >= {}]",
                    i % 3,
                    i * 100
                ))
            })
            .collect();
        let mut pool = indexed(&offers, &requests);
        let Some(searcher) = pool.lend_ahead() else {
            panic!("an indexed pool lends");
        };
        let mut fresh = searcher.another();
        let want: Vec<_> = requests.iter().map(|r| found(&fresh.find(r))).collect();
        let run: Vec<usize> = (0..requests.len()).collect();
        let (tx, rx) = sync_channel(AHEAD);
        // Place 0 begun by the "thread", which answers once serving has claimed 4 more.
        let claimed = Arc::new(AtomicU32::new(1));
        let mut ahead = Ahead {
            place: (0..requests.len() as u32).collect(),
            next: 0,
            rx,
            claimed: Arc::clone(&claimed),
            own: searcher.another(),
            steal: true,
            run,
            stolen: FxHashMap::default(),
        };
        std::thread::scope(|s| {
            let (mut thread, first) = (searcher, &requests[0]);
            s.spawn(move || {
                while claimed.load(Ordering::Acquire) < 1 + STOLEN as u32 {
                    std::thread::yield_now();
                }
                let _ = tx.send((0, thread.find(first)));
            });
            for (ri, r) in requests.iter().enumerate() {
                let e = ahead.take(ri, r, &requests).expect("every place answered");
                assert_eq!(found(&e), want[ri], "request {ri}");
                if ri == 0 {
                    let mut stolen: Vec<u32> = ahead.stolen.keys().copied().collect();
                    stolen.sort_unstable();
                    assert_eq!(stolen, [1, 2, 3, 4]);
                }
            }
        });
        assert!(ahead.stolen.is_empty());
    }

    #[test]
    fn the_first_of_each_cluster_that_wants_a_match_runs() {
        let eval = EvalOptions::default();
        let requests: Vec<Arc<ClassAd>> = ["[a = 1]", "[a = 2]", "[RequestCount = 0]", "[a = 3]"]
            .iter()
            .map(|t| ad(t))
            .collect();
        // Clusters: 0 -> {0, 3}, 1 -> {1}, 2 -> {2}.
        let of = [0, 1, 2, 0];
        assert_eq!(to_run(&[3, 2, 1, 0], &of, &requests, &eval), [3, 1]);
        assert_eq!(to_run(&[0, 1, 2, 3], &of, &requests, &eval), [0, 1]);
    }

    #[test]
    fn answers_found_ahead_are_stale_once_an_offer_gone_before_comes_back() {
        let offers: Vec<Arc<ClassAd>> = (0..8)
            .map(|i| ad(&format!("[Memory = {i}; Requirements = true]")))
            .collect();
        let requests = vec![ad("[Requirements = TARGET.Memory >= 2]")];
        for gone_before in [true, false] {
            let mut pool = indexed(&offers, &requests);
            // Offer 5 is taken before serving begins, or after: the window is run, then
            // offer 5 comes back.
            if gone_before {
                pool.remove(5);
            }
            let Some(lent) = pool.lend_ahead() else {
                panic!("an indexed pool lends");
            };
            if !gone_before {
                pool.remove(5);
            }
            let (tx, rx) = sync_channel(1);
            search(lent, &requests, &[0], (&tx, &AtomicU32::new(0)));
            let Ok((0, early)) = rx.recv() else {
                panic!("the window was run");
            };
            assert!(early.window.is_some());
            pool.restore(5, &offers[5]);
            pool.give_early(&requests[0], early);
            let (got, _) = pool.candidates_unconfirmed(&requests[0], &offers);
            assert_eq!(got.iter().collect::<Vec<_>>(), [2, 3, 4, 5, 6, 7]);
            let Offers::Indexed { log: Some(log), .. } = &pool else {
                panic!("a lent pool logs");
            };
            assert_eq!(log.current(), !gone_before);
        }
    }

    #[test]
    fn answers_found_ahead_are_those_of_serving_and_count_alike_whoever_searched() {
        // Waiting for every answer from the thread, or searching those not there yet.
        let waited = serve_ahead(false);
        for _ in 0..8 {
            assert_eq!(serve_ahead(true), waited);
        }
    }

    /// Serves a pool with windows run ahead (`steal`: serving does not wait for them),
    /// checking each request's candidates against a pool without and against naive; the
    /// pool's work (probes, evaluations).
    fn serve_ahead(steal: bool) -> (u64, u64) {
        let offers: Vec<Arc<ClassAd>> = (0..200)
            .map(|i| {
                let cpus = i % 4;
                ad(&format!(
                    "[Memory = {}; Requirements = TARGET.Cpus <= {cpus}]",
                    i * 10
                ))
            })
            .collect();
        let requests: Vec<Arc<ClassAd>> = (0..12)
            .map(|i| {
                let (cpus, mem) = (i % 3, i * 110);
                ad(&format!(
                    "[Cpus = {cpus}; Requirements = TARGET.Memory >= {mem}]"
                ))
            })
            .collect();
        let mut ahead_pool = indexed(&offers, &requests);
        let mut plain = indexed(&offers, &requests);
        let coll = Collection {
            ids: Vec::new(),
            ads: offers.clone(),
            damaged: Vec::new(),
        };
        let mut naive = Offers::naive(&coll, IndexOptions::default().eval);
        // One offer gone before serving begins.
        for pool in [&mut ahead_pool, &mut plain, &mut naive] {
            pool.remove(199);
        }
        let Some(lent) = ahead_pool.lend_ahead() else {
            panic!("an indexed pool lends");
        };
        // Served out of the order run: 7 asked for after 5 (passed over), 9 never run ahead.
        let run = vec![2, 7, 5, 3, 11, 0];
        std::thread::scope(|s| {
            let mut ahead = spawn(s, lent, &requests, run);
            ahead.steal = steal;
            for (step, ri) in [2, 5, 7, 3, 9, 11, 0].into_iter().enumerate() {
                let req = &requests[ri];
                let early = ahead.take(ri, req, &requests);
                assert_eq!(early.is_some(), ri != 7 && ri != 9, "request {ri}");
                if let Some(e) = early {
                    ahead_pool.give_early(req, e);
                }
                let (got, mut u) = ahead_pool.candidates_unconfirmed(req, &offers);
                let want = plain.candidates_unconfirmed(req, &offers).0;
                assert_eq!(got, want, "request {ri}");
                let confirmed: Vec<u32> = got
                    .iter()
                    .filter(|&o| u.as_mut().is_none_or(|u| ahead_pool.holds(u, o)))
                    .collect();
                let truth: Vec<u32> = naive.candidates(req).iter().collect();
                assert_eq!(confirmed, truth, "request {ri}");
                // Each served request takes offers from those after it; one comes back
                // (a refused match undone), after later answers were found without it.
                for o in [step as u32 * 5, step as u32 * 5 + 1] {
                    ahead_pool.remove(o);
                    plain.remove(o);
                    naive.remove(o);
                }
                if step == 2 {
                    let back = offers.get(5).expect("offer 5");
                    ahead_pool.restore(5, back);
                    plain.restore(5, back);
                    naive.restore(5, back);
                }
            }
        });
        ahead_pool.work()
    }
}
