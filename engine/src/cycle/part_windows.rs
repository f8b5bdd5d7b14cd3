//! The windows of requests' disjuncts ([`Query::narrowed`], `offers::parts_of`), made once
//! per request and held between cycles with the requests (`held_requests.rs`).
//!
//! A request of several disjuncts has each disjunct's own window searched beside its whole
//! window. Making one (the disjunct specialized against the request, converted to
//! rectangles) costs about what searching it does, and depends on nothing but the request and
//! the index options. So they are made once per request, whichever thread searches it first,
//! and kept by the address of the request's ad: the next cycle, reading its held requests as
//! the same objects, finds them made. Whether the index is readied for them is the cycle's
//! own question, asked each time.
//!
//! Only the windows used by a cycle are held for the next, so they stay as many as the
//! requests read; windows made with other index options are made again.

use super::held_requests::same_windows;
use adjoin_index::{IndexOptions, Query};
use adjoin_query::ClassAd;
use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// A request's disjuncts' windows, with the request (held, so that its address names it):
/// `None` when it has none to search (fewer than two disjuncts, ports, a disjunct reading the
/// Requirements itself, or one that makes no window).
type Made = (Arc<ClassAd>, Option<Arc<[Query]>>);

/// Requests' disjuncts' windows, made with one set of index options.
#[derive(Debug)]
pub struct PartWindows {
    options: IndexOptions,
    /// Made before this cycle, by the address of the request's ad.
    before: FxHashMap<usize, Made>,
    /// Made or used by this cycle.
    now: Mutex<FxHashMap<usize, Made>>,
}

impl PartWindows {
    /// None made yet, for windows made with `options`.
    pub(crate) fn new(options: IndexOptions) -> PartWindows {
        PartWindows {
            options,
            before: FxHashMap::default(),
            now: Mutex::default(),
        }
    }

    /// What this cycle made or used, for the next cycle with `options` (made again for other
    /// options).
    pub(crate) fn next(self, options: &IndexOptions) -> PartWindows {
        let mut out = PartWindows::new(options.clone());
        if same_windows(&self.options, options) {
            out.before = self.now.into_inner();
        }
        out
    }

    /// `request`'s disjuncts' windows, made by `make` unless made before.
    pub(crate) fn of(
        &self,
        request: &Arc<ClassAd>,
        make: impl FnOnce() -> Option<Vec<Query>>,
    ) -> Option<Arc<[Query]>> {
        let at = Arc::as_ptr(request) as usize;
        let held = |m: &Made| Arc::ptr_eq(&m.0, request).then(|| m.1.clone());
        if let Some(found) = self.now.lock().get(&at).and_then(held) {
            return found;
        }
        let windows = match self.before.get(&at).and_then(held) {
            Some(found) => found,
            None => make().map(Arc::from),
        };
        (self.now.lock()).insert(at, (Arc::clone(request), windows.clone()));
        windows
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    #[test]
    fn windows_are_made_once_per_request_and_held_for_the_same_options() {
        let opts = IndexOptions::default();
        let ad = |t: &str| Arc::new(parse::classad(t).expect("ad"));
        let (a, b) = (ad("[x = 1]"), ad("[x = 1]"));
        let made = std::cell::Cell::new(0);
        let make = || {
            made.set(made.get() + 1);
            Some(Vec::new())
        };
        let w = PartWindows::new(opts.clone());
        assert!(w.of(&a, make).is_some());
        assert!(w.of(&a, make).is_some());
        assert!(
            w.of(&b, make).is_some(),
            "another ad alike is another request"
        );
        assert_eq!(made.get(), 2);
        // The next cycle finds them made, and holds on only what it used.
        let w = w.next(&opts);
        w.of(&a, make);
        assert_eq!(made.get(), 2);
        let w = w.next(&opts);
        w.of(&b, make);
        assert_eq!(made.get(), 3, "not used by the last cycle: made again");
        // Other options: made again.
        let other = IndexOptions {
            rectangle_cap: opts.rectangle_cap + 1,
            ..opts.clone()
        };
        let w = w.next(&other);
        w.of(&b, make);
        assert_eq!(made.get(), 4);
    }
}
