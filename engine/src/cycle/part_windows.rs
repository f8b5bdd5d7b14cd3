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
use super::per_request::PerRequest;
use adjoin_index::{IndexOptions, Query};
use adjoin_query::ClassAd;
use parking_lot::Mutex;
use std::sync::Arc;

/// Requests' disjuncts' windows, made with one set of index options: `None` for a request
/// with none to search (fewer than two disjuncts, ports, a disjunct reading the Requirements
/// itself, or one that makes no window).
#[derive(Debug)]
pub struct PartWindows {
    options: IndexOptions,
    made: Mutex<PerRequest<(), Option<Arc<[Query]>>>>,
}

impl PartWindows {
    /// None made yet, for windows made with `options`.
    pub(crate) fn new(options: IndexOptions) -> PartWindows {
        PartWindows {
            options,
            made: Mutex::default(),
        }
    }

    /// What this cycle made or used, for the next cycle with `options` (made again for other
    /// options).
    pub(crate) fn next(self, options: &IndexOptions) -> PartWindows {
        let mut out = PartWindows::new(options.clone());
        if same_windows(&self.options, options) {
            let mut made = self.made.into_inner();
            made.next_cycle();
            out.made = Mutex::new(made);
        }
        out
    }

    /// `request`'s disjuncts' windows, made by `make` (outside the lock) unless made before.
    pub(crate) fn of(
        &self,
        request: &Arc<ClassAd>,
        make: impl FnOnce() -> Option<Vec<Query>>,
    ) -> Option<Arc<[Query]>> {
        if let Some(found) = self.made.lock().get(request, ()) {
            return found;
        }
        let windows: Option<Arc<[Query]>> = make().map(Arc::from);
        self.made.lock().insert(request, (), windows.clone());
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
