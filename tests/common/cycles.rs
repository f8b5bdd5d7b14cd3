//! Cycle tests' setup: ads stored with ids from their `Key`, and a cycle of `jobs` against
//! `machines` with options set by a closure.

use adjoin::cycle::{self, CycleOptions, CycleReport};
use adjoin::storage::{IdRule, PutOptions};
use adjoin::{Db, LoadOptions};

/// Stores ads (one per line) in `coll` in the given order, ids from `Key`.
pub fn load(db: &Db, coll: &str, lines: &[impl AsRef<str>]) {
    let opts = LoadOptions {
        put: PutOptions {
            id: IdRule::attr("Key"),
            ..LoadOptions::default().put
        },
        ..LoadOptions::default()
    };
    let text: Vec<&str> = lines.iter().map(AsRef::as_ref).collect();
    let report = db
        .load_text(coll, "t.ads", &text.join("\n"), &opts)
        .expect("load");
    assert_eq!(report.stored.len(), lines.len(), "{:?}", report.bad);
}

/// A cycle of `jobs` against `machines` with options set by `f`.
pub fn run(db: &Db, f: impl FnOnce(&mut CycleOptions)) -> CycleReport {
    let mut o = CycleOptions::new("jobs", "machines");
    f(&mut o);
    cycle::run(db, &o).expect("cycle")
}

/// The (request, offer) pairs a cycle matched, in order.
pub fn pairs(r: &CycleReport) -> Vec<(&str, &str)> {
    r.matches
        .iter()
        .map(|m| (m.request.as_str(), m.offer.as_str()))
        .collect()
}
