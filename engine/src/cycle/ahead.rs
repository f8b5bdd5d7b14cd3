//! Windows run ahead of serving, on the second core.
//!
//! Serving is sequential (each match takes an offer from every later request), but a
//! request's window among the offers left is its window among any more offers, less those
//! since taken (each step keeps or drops a rectangle on its own,
//! [`Answer::remove`](adjoin_index::Answer::remove)). So while one thread serves, a second
//! runs the windows of the requests to come, in serving order, among the offers not taken as
//! far as it knows (serving logs what it takes, [`Log`], and the thread catches up before each
//! window), and splits each answer by offer; serving takes out the offers taken since (one
//! word operation per set) and goes on to rank and confirm. An answer found before an offer
//! was put back (a durable cycle undoing a match) is not used. The two threads share the
//! index, which does not change under a cycle that serves whole offers (partitionable ones are
//! served apart, `partition.rs`).
//!
//! Only the requests that will compute a list are run ahead: the first of each cluster in
//! serving order that wants a match. Serving asks for them by position ([`Ahead::take`]);
//! what it passed over is dropped, and a request asked for again (a refusal sent the cycle
//! back) or never run ahead is searched as before, on the serving thread. At most [`AHEAD`]
//! answers wait at once.

use super::held::{CycleAnswer, Gone};
use super::offers::{windows_of, Lent};
use super::order;
use adjoin_index::{Bits, Query};
use adjoin_query::eval::EvalOptions;
use adjoin_query::ClassAd;
use parking_lot::Mutex;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::Arc;

/// Answers found ahead and not yet taken, at most.
pub(crate) const AHEAD: usize = 32;

/// A request's windows, and, for one window the index answers as it is, its answer.
#[derive(Debug)]
pub struct Early {
    /// The windows (one per probing unit).
    pub qs: Vec<Query>,
    /// The answer to the only window, among the offers not taken as the thread knew them.
    pub window: Option<Window>,
    /// How many rectangles had been put back then ([`Log::current`]).
    pub restores: u64,
}

/// Rectangles gone (`true`) and back (`false`), in the order serving changed them.
type Changes = Arc<Mutex<Vec<(u32, bool)>>>;

/// Serving's log of the offers it takes and puts back, for the thread running ahead.
#[derive(Debug, Default)]
pub struct Log {
    changes: Changes,
    /// Rectangles put back so far.
    restores: u64,
}

impl Log {
    /// A new log, and its reading end.
    pub(crate) fn new() -> (Log, Changes) {
        let log = Log::default();
        let changes = Arc::clone(&log.changes);
        (log, changes)
    }

    /// An offer's rectangles `rids` are gone.
    pub(crate) fn gone(&self, rids: &[u32]) {
        self.changes.lock().extend(rids.iter().map(|&r| (r, true)));
    }

    /// An offer's rectangles `rids` are back.
    pub(crate) fn back(&mut self, rids: &[u32]) {
        self.changes.lock().extend(rids.iter().map(|&r| (r, false)));
        self.restores += rids.len() as u64;
    }

    /// Whether `e` was found with no offer put back since: what it takes out is all that
    /// has changed.
    pub(crate) fn current(&self, e: &Early) -> bool {
        e.restores == self.restores
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
}

/// Serving's end: the answers found ahead, in serving order.
#[derive(Debug)]
pub(crate) struct Ahead {
    /// Each request's place among those run ahead, by position ([`NONE`]: not run ahead).
    place: Vec<u32>,
    /// The place of the next answer to come.
    next: u32,
    rx: Receiver<(u32, Early)>,
}

/// Not run ahead.
const NONE: u32 = u32::MAX;

impl Ahead {
    /// What was found ahead for request `ri`, waiting for it if it is still to come; `None`
    /// when it was not run ahead or was passed over.
    pub(crate) fn take(&mut self, ri: usize) -> Option<Early> {
        let want = *self.place.get(ri)?;
        if want == NONE || want < self.next {
            return None;
        }
        loop {
            let (at, early) = self.rx.recv().ok()?;
            self.next = at + 1;
            if at == want {
                return Some(early);
            }
        }
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
/// through what `lent` lends; serving's end is returned.
pub(crate) fn spawn<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    lent: Lent,
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
    let spawned = std::thread::Builder::new()
        .name("cycle-ahead".into())
        .spawn_scoped(scope, move || search(lent, requests, &run, &tx));
    if let Err(e) = spawned {
        // No thread: serving searches every window itself.
        tracing::warn!(error = %e, "windows not run ahead");
    }
    Ahead { place, next: 0, rx }
}

/// The thread: each request of `run` searched in turn, until serving stops listening.
fn search(lent: Lent, requests: &[Arc<ClassAd>], run: &[usize], tx: &SyncSender<(u32, Early)>) {
    let _span = tracing::debug_span!("cycle_ahead", requests = run.len()).entered();
    let Lent {
        index,
        mut readied,
        mut steps,
        mut gone,
        changes,
    } = lent;
    let mut restores = 0;
    for (at, &ri) in (0..).zip(run) {
        let Some(request) = requests.get(ri) else {
            continue;
        };
        restores += catch_up(&mut gone, &changes);
        let qs = windows_of(&mut readied, request, &index);
        let window = match &qs[..] {
            [q] if index.prepared(q) => {
                let answer = index.candidates_cached(q, &gone, &mut steps);
                let (sure, pending) = index.split_ads_bits(&answer);
                Some(Window {
                    answer,
                    sure,
                    pending,
                })
            }
            _ => None,
        };
        let early = Early {
            qs,
            window,
            restores,
        };
        if tx.send((at, early)).is_err() {
            return;
        }
    }
}

/// Applies serving's changes to `gone`; the number of offers put back.
fn catch_up(gone: &mut Gone, changes: &Changes) -> u64 {
    let changes = std::mem::take(&mut *changes.lock());
    let mut back = 0;
    for (rid, went) in changes {
        match went {
            true => {
                gone.insert(rid);
            }
            false => {
                gone.remove(rid);
                back += 1;
            }
        }
    }
    back
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
            pool.prepare_for(r, Query::two_sided(r, &opts));
        }
        pool
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
    fn an_answer_found_before_an_offer_came_back_is_not_used() {
        let offers: Vec<Arc<ClassAd>> = (0..8)
            .map(|i| ad(&format!("[Memory = {i}; Requirements = true]")))
            .collect();
        let requests = vec![ad("[Requirements = TARGET.Memory >= 2]")];
        let mut pool = indexed(&offers, &requests);
        let Some(lent) = pool.lend_ahead() else {
            panic!("an indexed pool lends");
        };
        // Offer 5 is taken, the window run without it, then offer 5 comes back.
        pool.remove(5);
        let (tx, rx) = sync_channel(1);
        search(lent, &requests, &[0], &tx);
        let Ok((0, early)) = rx.recv() else {
            panic!("the window was run");
        };
        assert!(early.window.is_some());
        pool.restore(5, &offers[5]);
        pool.give_early(&requests[0], early);
        let (got, _) = pool.candidates_unconfirmed(&requests[0], &offers);
        assert_eq!(got.iter().collect::<Vec<_>>(), [2, 3, 4, 5, 6, 7]);
    }

    #[test]
    fn answers_found_ahead_are_those_of_serving() {
        let offers: Vec<Arc<ClassAd>> = (0..40)
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
                let (cpus, mem) = (i % 3, i * 30);
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
        let Some(lent) = ahead_pool.lend_ahead() else {
            panic!("an indexed pool lends");
        };
        // Served out of the order run: 7 asked for after 5 (passed over), 9 never run ahead.
        let run = vec![2, 7, 5, 3, 11, 0];
        std::thread::scope(|s| {
            let mut ahead = spawn(s, lent, &requests, run);
            for (step, ri) in [2, 5, 7, 3, 9, 11, 0].into_iter().enumerate() {
                let early = ahead.take(ri);
                assert_eq!(early.is_some(), ri != 7 && ri != 9, "request {ri}");
                let req = &requests[ri];
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
    }
}
