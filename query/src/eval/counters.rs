//! Evaluation counters (the dissertation's cost metric): how many attribute and top-level
//! expression evaluations were made and how many expression nodes were visited, process-wide.
//!
//! Each [`Evaluator`](super::Evaluator) counts in plain fields and, when dropped, adds them to
//! a per-thread tally; a thread's tally is added to the process-wide atomics every
//! [`FLUSH_EVERY`] evaluations and when the thread ends. So counting costs no atomic operation
//! per match. [`counters`] reports the process-wide totals plus the calling thread's tally:
//! exact for a single thread, up to [`FLUSH_EVERY`] evaluations behind per other live thread.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// How many evaluations a thread tallies before adding them to the process-wide totals.
pub const FLUSH_EVERY: u64 = 4096;

/// A thread's unflushed counts; flushed when the thread ends.
struct Local {
    evaluations: Cell<u64>,
    nodes: Cell<u64>,
}

impl Drop for Local {
    fn drop(&mut self) {
        flush(self.evaluations.get(), self.nodes.get());
    }
}

thread_local! {
    static LOCAL: Local = const {
        Local {
            evaluations: Cell::new(0),
            nodes: Cell::new(0),
        }
    };
    /// Every node this thread's evaluators visited, never reset (see [`thread_nodes`]).
    static THREAD_NODES: Cell<u64> = const { Cell::new(0) };
}

static EVALUATIONS: AtomicU64 = AtomicU64::new(0);
static NODES: AtomicU64 = AtomicU64::new(0);

/// A snapshot of the process-wide counters.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Expression evaluations: each top-level evaluation through the API and each evaluation of
    /// an attribute's expression reached by reference.
    pub evaluations: u64,
    /// Expression nodes visited (plus work units charged by built-in functions).
    pub nodes: u64,
}

impl Counters {
    /// The counts accumulated since `earlier` was taken.
    pub fn since(self, earlier: Counters) -> Counters {
        Counters {
            evaluations: self.evaluations.wrapping_sub(earlier.evaluations),
            nodes: self.nodes.wrapping_sub(earlier.nodes),
        }
    }
}

/// The counters as of now: the process-wide totals plus this thread's unflushed tally
/// (evaluators still alive have not been added yet).
pub fn counters() -> Counters {
    let (e, n) = LOCAL
        .try_with(|l| (l.evaluations.get(), l.nodes.get()))
        .unwrap_or((0, 0));
    Counters {
        evaluations: EVALUATIONS.load(Ordering::Relaxed).wrapping_add(e),
        nodes: NODES.load(Ordering::Relaxed).wrapping_add(n),
    }
}

/// The number of expression evaluations made so far (see [`counters`] for what is included).
pub fn evaluation_count() -> u64 {
    counters().evaluations
}

/// Expression nodes (and work units of built-in functions) visited by the evaluations this
/// thread finished so far: exact, whatever other threads do, so a caller can tell what a
/// piece of its own work cost by the difference of two readings (the gangmatcher's search
/// bound does).
pub fn thread_nodes() -> u64 {
    THREAD_NODES.try_with(Cell::get).unwrap_or(0)
}

/// Adds one evaluator's counts to this thread's tally.
#[inline]
pub(crate) fn record(evaluations: u64, nodes: u64) {
    let _ = THREAD_NODES.try_with(|t| t.set(t.get().wrapping_add(nodes)));
    let flushed = LOCAL.try_with(|l| {
        let e = l.evaluations.get() + evaluations;
        let n = l.nodes.get() + nodes;
        if e >= FLUSH_EVERY {
            l.evaluations.set(0);
            l.nodes.set(0);
            flush(e, n);
        } else {
            l.evaluations.set(e);
            l.nodes.set(n);
        }
    });
    if flushed.is_err() {
        // The thread is ending: its tally is gone, so add straight to the totals.
        flush(evaluations, nodes);
    }
}

/// Adds counts to the process-wide totals.
fn flush(evaluations: u64, nodes: u64) {
    if evaluations != 0 {
        EVALUATIONS.fetch_add(evaluations, Ordering::Relaxed);
    }
    if nodes != 0 {
        NODES.fetch_add(nodes, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_accumulates() {
        let before = counters();
        record(3, 10);
        let d = counters().since(before);
        // Other tests may run concurrently: the totals only grow.
        assert!(d.evaluations >= 3 && d.nodes >= 10);
    }

    #[test]
    fn thread_nodes_count_this_thread_only() {
        let before = thread_nodes();
        record(1, 7);
        std::thread::spawn(|| record(1, 1000))
            .join()
            .expect("thread");
        assert_eq!(thread_nodes() - before, 7);
    }
}
