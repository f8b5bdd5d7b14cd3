//! Who makes the windows of the requests a cycle readies its offers' index for, while the
//! requests are read on one thread and the offers indexed on the other.

use super::offers::Windows;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

/// How the two threads of a cycle's reading share making the windows of the requests the
/// offers' side readies its index for: the reader makes them while that side is busy, and
/// leaves them to it once it is free, unless it has [`UNMADE`] left to make already. Both
/// sides work until the reader is done, and neither waits long for the other then: left
/// to make them all, the offers' side was still making a backlog after the last request
/// was read.
#[derive(Debug)]
pub(crate) struct WindowShare {
    /// Set once the offers' side waits for requests.
    free: AtomicBool,
    /// Requests sent without their windows that the offers' side has not made yet.
    unmade: AtomicUsize,
    /// The most it may have left to make ([`UNMADE`]).
    most: usize,
    /// Whether the windows the offers' side makes are kept (in `made`) for the requests held
    /// between cycles (`held_requests.rs`).
    keeping: bool,
    /// Those windows, by request number.
    made: Mutex<Vec<(u64, Windows)>>,
}

/// Requests' windows the offers' side may have left to make before the reader makes them.
const UNMADE: usize = 4;

impl Default for WindowShare {
    fn default() -> WindowShare {
        WindowShare {
            free: AtomicBool::new(false),
            unmade: AtomicUsize::new(0),
            most: UNMADE,
            keeping: false,
            made: Mutex::new(Vec::new()),
        }
    }
}

impl WindowShare {
    /// For a reader whose requests no side readies an index for: it makes no windows.
    pub(crate) fn none_made() -> WindowShare {
        WindowShare {
            free: AtomicBool::new(true),
            most: usize::MAX,
            ..WindowShare::default()
        }
    }

    /// As the default, keeping the windows the offers' side makes ([`WindowShare::take_made`]).
    pub(crate) fn keeping() -> WindowShare {
        WindowShare {
            keeping: true,
            ..WindowShare::default()
        }
    }

    /// The windows the offers' side made, by request number (when keeping).
    pub(crate) fn take_made(&self) -> Vec<(u64, Windows)> {
        std::mem::take(&mut *self.made.lock())
    }

    /// The offers' side waits for requests from now on.
    pub(super) fn mark_free(&self) {
        self.free.store(true, Ordering::Relaxed);
    }

    /// Whether the reader leaves the windows of the request it sends now to the offers' side
    /// (then counted as unmade). Called by the reader alone: the count it reads only falls
    /// meanwhile, so it never passes the most.
    pub(super) fn leave(&self) -> bool {
        let leave =
            self.free.load(Ordering::Relaxed) && self.unmade.load(Ordering::Relaxed) < self.most;
        if leave {
            self.unmade.fetch_add(1, Ordering::Relaxed);
        }
        leave
    }

    /// The offers' side made the windows of a request left to it, numbered `seq`.
    pub(super) fn made(&self, seq: u64, windows: &Windows) {
        self.unmade.fetch_sub(1, Ordering::Relaxed);
        if self.keeping {
            self.made.lock().push((seq, Arc::clone(windows)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn left_while_free_and_few_are_unmade() {
        let share = WindowShare::default();
        assert!(
            !share.leave(),
            "the offers' side is busy: the reader makes them"
        );
        share.mark_free();
        for n in 0..UNMADE {
            assert!(share.leave(), "{n} unmade");
        }
        assert!(!share.leave(), "{UNMADE} unmade: the reader makes them");
        share.made(0, &Windows::from([]));
        assert!(share.leave(), "one made: left again");
        let none = WindowShare::none_made();
        assert!(
            (0..3 * UNMADE).all(|_| none.leave()),
            "never made by the reader"
        );
    }
}
