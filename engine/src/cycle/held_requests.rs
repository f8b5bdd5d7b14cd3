//! The requests a [`Db`](crate::Db) holds between cycles: each request's ad, shape and
//! windows as the last cycle over its collection made them, so that the next cycle reads,
//! decodes and shapes only the requests stored or changed since (HTCondor's schedd keeps each
//! job's autocluster signature between negotiation cycles likewise).
//!
//! A held request is known by the store's numbers for it, its `seq` and its record's
//! revision (`adjoin_storage::record::revision`): a request whose revision is the one held is
//! the request held, and anything else is read again. What a request's shape is depends on
//! the names shapes start from (the roots the offers read, and `--order-by`'s names): shapes
//! held for other names are not used. Its windows depend on the index options: windows held
//! for other options are made again. So a cycle through the held requests decides exactly
//! what a cycle reading every request decides.
//!
//! Each cycle that shapes its requests replaces its collection's held requests with those it
//! read; one that does not (naive or uncached) leaves them. The requests are held only while
//! the Db is open, and not past [`HELD_MOST`] of them. A shape's bindings are shared by its
//! requests; a request stood in for by the first of its shape holds no ad, and is read when
//! it must be (as the revision held, or else placed as a request not held).
//!
//! What a cycle through held requests does not do: read again a record it holds at the same
//! revision, so damage to such a record since it was read is found by `adjoin check`, not by
//! the cycle; and tell apart two versions of a request stored in the same second whose CRCs
//! collide (the risk the held indexes' checkpoints take, 2^-32 per such replacement).

use super::cluster::{Bound, Shapes};
use super::offers::Windows;
use super::part_windows::PartWindows;
use crate::collection::ByCollection;
use crate::db::same_eval;
use adjoin_index::IndexOptions;
use adjoin_query::eval::EvalOptions;
use adjoin_query::{ClassAd, Key};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// Requests held for a collection, at most: past this many, a cycle holds none (a cycle of a
/// million distinct requests holds their ads and windows, some gigabytes, between cycles).
pub(crate) const HELD_MOST: usize = 1_000_000;

/// Collections' held requests, by collection.
#[derive(Debug, Default)]
pub(crate) struct HeldRequests {
    held: ByCollection<Prepared>,
    /// Their disjuncts' windows, by collection (`part_windows.rs`).
    parts: ByCollection<PartWindows>,
    /// Cycles that read their requests through the held ones (for tests).
    used: AtomicU64,
}

impl HeldRequests {
    /// The requests held for `collection`, taken out (a cycle puts back what it read).
    pub(crate) fn take(&self, collection: &str) -> Option<Prepared> {
        self.held.take(collection)
    }

    /// Holds `prepared` for `collection` (unless it holds more than [`HELD_MOST`]).
    pub(crate) fn put(&self, collection: &str, prepared: Prepared) {
        if prepared.requests.len() <= HELD_MOST {
            self.held.put(collection, prepared);
        }
    }

    /// Holds nothing.
    pub(crate) fn clear(&self) {
        self.held.clear();
        self.parts.clear();
    }

    /// The disjuncts' windows held for `collection`'s requests, taken out, for a cycle with
    /// `options` ([`PartWindows::next`]).
    pub(crate) fn take_part_windows(
        &self,
        collection: &str,
        options: &IndexOptions,
    ) -> PartWindows {
        match self.parts.take(collection) {
            Some(w) => w.next(options),
            None => PartWindows::new(options.clone()),
        }
    }

    /// Holds the disjuncts' windows a cycle over `collection` made or used.
    pub(crate) fn put_part_windows(&self, collection: &str, made: PartWindows) {
        self.parts.put(collection, made);
    }

    /// A cycle read its requests through the held ones.
    pub(crate) fn used(&self) {
        self.used.fetch_add(1, Ordering::Relaxed);
    }
}

/// A collection's requests as one cycle read them.
#[derive(Debug)]
pub(crate) struct Prepared {
    /// The names the shapes started from ([`Shapes::start`](super::cluster::Shapes::start)).
    pub(crate) start: Vec<Key>,
    /// The roots whose bindings the shapes' roots' hashes hash
    /// ([`Shapes::roots`](super::cluster::Shapes::roots)).
    pub(crate) roots: Vec<Key>,
    /// The options the windows were made with.
    pub(crate) options: IndexOptions,
    /// The requests, by sequence number.
    pub(crate) requests: FxHashMap<u64, Request>,
}

impl Prepared {
    /// None yet, for shapes from `start` (`roots` among them) and windows made with
    /// `options`.
    pub(crate) fn new(start: Vec<Key>, roots: Vec<Key>, options: IndexOptions) -> Prepared {
        Prepared {
            start,
            roots,
            options,
            requests: FxHashMap::default(),
        }
    }

    /// Keeps the request `shapes` placed last, numbered `seq` at `revision`, with `windows`:
    /// `held` gives its ad and shape as held before (the ad `shapes` decoded now, if any,
    /// comes first); without, both are taken from `shapes`.
    pub(crate) fn keep(
        &mut self,
        shapes: &Shapes,
        (seq, revision): (u64, u64),
        held: Option<Held>,
        windows: Option<&Windows>,
    ) {
        let Some((last, own)) = shapes.last_shape() else {
            return;
        };
        let (ad, shape) = match held {
            Some((ad, shape)) => (own.cloned().or(ad), shape),
            None => (own.cloned(), last.map(|(h, b, r)| (h, Arc::clone(b), r))),
        };
        let windows = windows.cloned();
        let r = Request {
            revision,
            ad,
            shape,
            windows,
        };
        self.requests.insert(seq, r);
    }

    /// Gives the requests the windows made for them elsewhere, `made` (by number), where
    /// they have none.
    pub(crate) fn add_windows(&mut self, made: Vec<(u64, Windows)>) {
        for (seq, w) in made {
            if let Some(r) = self.requests.get_mut(&seq) {
                r.windows.get_or_insert(w);
            }
        }
    }

    /// Whether windows made with `opts` are those held (made with `self.options`,
    /// [`same_windows`]).
    pub(crate) fn windows_for(&self, opts: &IndexOptions) -> bool {
        same_windows(&self.options, opts)
    }

    /// The request numbered `seq` if it is held at `revision`.
    pub(crate) fn get(&self, seq: u64, revision: u64) -> Option<&Request> {
        self.requests.get(&seq).filter(|r| r.revision == revision)
    }
}

/// Whether windows made with `a` are those made with `b`: the options that change a window
/// are the same, and so is the host ([`same_host`]).
pub(crate) fn same_windows(a: &IndexOptions, b: &IndexOptions) -> bool {
    same_eval(&a.eval, &b.eval)
        && (a.profile_cap, a.rectangle_cap, a.filter_max)
            == (b.profile_cap, b.rectangle_cap, b.filter_max)
        && a.ports == b.ports
        && same_host(&a.eval, &b.eval)
}

/// Whether `a` and `b` evaluate on the same host: one handle, or hosts alike (options made
/// afresh for each cycle hold a new handle on the same system host), as
/// [`Db::lends_for`](crate::Db) compares them.
pub(crate) fn same_host(a: &EvalOptions, b: &EvalOptions) -> bool {
    Arc::ptr_eq(&a.host.0, &b.host.0) || format!("{:?}", a.host) == format!("{:?}", b.host)
}

/// A held request's ad and shape ([`Request::ad`], [`Request::shape`]).
pub(crate) type Held = (Option<Arc<ClassAd>>, Option<HeldShape>);

/// A held request's shape: its hash, its bindings (shared by the shape's requests) and the
/// hash of its roots' bindings.
pub(crate) type HeldShape = (u64, Arc<Bound>, u64);

/// One request as a cycle read it.
#[derive(Debug)]
pub(crate) struct Request {
    /// Its record's revision.
    pub(crate) revision: u64,
    /// Its ad, when it was decoded (a request stood in for by the first of its shape was
    /// not).
    pub(crate) ad: Option<Arc<ClassAd>>,
    /// Its shape; `None` when it was kept whole (ports, or an expression that does not
    /// decode).
    pub(crate) shape: Option<HeldShape>,
    /// Its windows, when it was the first of its shape.
    pub(crate) windows: Option<Windows>,
}

#[cfg(test)]
impl HeldRequests {
    /// How many requests are held for `collection`.
    pub(crate) fn len(&self, collection: &str) -> Option<usize> {
        self.held.with(collection, |p| p.requests.len())
    }

    /// How many cycles read their requests through the held ones.
    pub(crate) fn times_used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::{run, CycleOptions};
    use crate::Db;
    use adjoin_query::parse;
    use proptest::prelude::*;

    const CONDITIONS: [&str; 8] = [
        "TARGET.Memory >= 2048",
        "TARGET.Cpus >= 2",
        "TARGET.OpSys == \"LINUX\"",
        "TARGET.Tag == 3",
        "regexp(\"^h1\", TARGET.Machine)",
        "TARGET.Score > 4",
        "TARGET.HasGPU",
        "true",
    ];
    const RANKS: [&str; 4] = [
        "",
        "Rank = TARGET.Memory;",
        "Rank = -TARGET.Cpus;",
        "Rank = TARGET.HasGPU;",
    ];

    /// Request `n` of variant `v`: its Requirements, Rank and Prio drawn from `v`, its Owner from
    /// `n` (requests alike but for their Owner are alike until an offer reads it).
    fn request(n: usize, v: usize) -> Result<ClassAd, adjoin_query::ParseError> {
        let a = CONDITIONS[v % CONDITIONS.len()];
        let b = CONDITIONS[(v / 8) % 4 + 4];
        let rank = RANKS[(v / 32) % RANKS.len()];
        parse::classad(&format!(
            "[Name = \"r{n}\"; Owner = \"o{}\"; Prio = {}; {rank} Requirements = {a} && {b}]",
            n % 3,
            v % 7
        ))
    }

    /// Offer `n` of variant `v`; from variant 1,000 on, its Requirements read the request's
    /// `Owner` (another root for the requests' shapes).
    fn offer(n: usize, v: usize) -> Result<ClassAd, adjoin_query::ParseError> {
        let reads = if v >= 1000 {
            "TARGET.Owner != \"o1\""
        } else {
            "TARGET.Prio < 6"
        };
        parse::classad(&format!(
            "[Name = \"s{n}\"; Memory = {}; Cpus = {}; OpSys = \"{}\"; Tag = {}; Machine = \"h{}\"; \
             HasGPU = {}; Score = TARGET.Prio + 1; Rank = TARGET.Prio; Requirements = {reads}]",
            1024 * (v % 5),
            v % 4,
            ["LINUX", "OSX"][v % 2],
            v % 5,
            v % 13,
            v.is_multiple_of(3),
        ))
    }

    /// A dry-run cycle's matches. A cycle reading every ad and starting afresh (what is held
    /// set aside, then put back) must make the same matches, with the same vectors, in as many clusters, and the
    /// naive cycle the same matches.
    fn dry(db: &Db) -> Result<Vec<(String, String)>, TestCaseError> {
        let fail = |e: crate::cycle::CycleError| TestCaseError::fail(e.to_string());
        let mut o = CycleOptions::new("jobs", "machines");
        o.dry_run = true;
        let held = run(db, &o).map_err(fail)?;
        let (requests, offers, derived) = (
            db.held_requests().take("jobs"),
            db.held_ads().take("machines"),
            db.held_offers().take("machines"),
        );
        let read = run(db, &o).map_err(fail)?;
        if let Some(r) = requests {
            db.held_requests().put("jobs", r);
        }
        if let Some(a) = offers {
            db.held_ads().put("machines", a);
        }
        if let Some(d) = derived {
            db.held_offers().put("machines", d);
        }
        prop_assert_eq!(&held.matches, &read.matches);
        prop_assert_eq!(held.clusters, read.clusters);
        prop_assert_eq!(held.damaged.len(), read.damaged.len());
        o.naive = true;
        let naive = run(db, &o).map_err(fail)?;
        prop_assert_eq!(&held.matches, &naive.matches);
        Ok(held
            .matches
            .into_iter()
            .map(|m| (m.request, m.offer))
            .collect())
    }

    /// Requests alike but for what no offer read are shaped alike; once an offer reads it,
    /// the shapes held are not used.
    #[test]
    fn shapes_held_for_other_roots_are_not_used() -> Result<(), TestCaseError> {
        let db = Db::open_in_memory().expect("db");
        let slot = |reads: &str| {
            parse::classad(&format!(
                "[Name = \"s\"; Memory = 4096; Requirements = {reads}]"
            ))
        };
        db.put("machines", &slot("true").expect("slot"))
            .expect("put");
        for (n, owner) in ["o1", "o1", "o2"].iter().enumerate() {
            let text = format!(
                "[Name = \"r{n}\"; Owner = \"{owner}\"; RequestCount = 2; \
                 Requirements = TARGET.Memory > 1024]"
            );
            db.put("jobs", &parse::classad(&text).expect("job"))
                .expect("put");
        }
        prop_assert_eq!(dry(&db)?, [("r0".to_owned(), "s".to_owned())]);
        prop_assert_eq!(db.held_requests().len("jobs"), Some(3));
        let refuses = slot("TARGET.Owner != \"o1\"").expect("slot");
        db.put("machines", &refuses).expect("put");
        prop_assert_eq!(dry(&db)?, [("r2".to_owned(), "s".to_owned())]);
        Ok(())
    }

    /// Requests stood in for by the first of their shape are not held decoded; when that
    /// first request is gone, the next is read then, and decides as read.
    #[test]
    fn a_request_stood_in_for_is_read_when_its_first_is_gone() -> Result<(), TestCaseError> {
        let db = Db::open_in_memory().expect("db");
        for (n, memory) in [4096, 2048, 1024].iter().enumerate() {
            let text = format!("[Name = \"s{n}\"; Memory = {memory}; Requirements = true]");
            db.put("machines", &parse::classad(&text).expect("slot"))
                .expect("put");
        }
        for n in 0..3 {
            let text = format!(
                "[Name = \"r{n}\"; Rank = TARGET.Memory; Requirements = TARGET.Memory > 1024]"
            );
            db.put("jobs", &parse::classad(&text).expect("job"))
                .expect("put");
        }
        let pairs = |p: &[(&str, &str)]| -> Vec<(String, String)> {
            p.iter()
                .map(|(r, o)| (r.to_string(), o.to_string()))
                .collect()
        };
        prop_assert_eq!(dry(&db)?, pairs(&[("r0", "s0"), ("r1", "s1")]));
        db.remove("jobs", "r0").expect("remove");
        for _ in 0..2 {
            prop_assert_eq!(dry(&db)?, pairs(&[("r1", "s0"), ("r2", "s1")]));
        }
        Ok(())
    }

    /// Released, nothing is held: the next cycle reads every ad, and holds them again.
    #[test]
    fn released_the_next_cycle_reads_every_ad() -> Result<(), TestCaseError> {
        let db = Db::open_in_memory().expect("db");
        db.put("machines", &offer(0, 7).expect("offer"))
            .expect("put");
        db.put("jobs", &request(0, 3).expect("request"))
            .expect("put");
        let first = dry(&db)?;
        db.release_held();
        prop_assert_eq!(db.held_requests().len("jobs"), None);
        prop_assert_eq!(db.held_ads().with("machines", |h| h.len()), None);
        let used = db.held_requests().times_used();
        let mut o = CycleOptions::new("jobs", "machines");
        o.dry_run = true;
        let again = run(&db, &o).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(db.held_requests().times_used(), used, "read, not held");
        let pairs: Vec<(String, String)> = again
            .matches
            .into_iter()
            .map(|m| (m.request, m.offer))
            .collect();
        prop_assert_eq!(pairs, first);
        prop_assert_eq!(db.held_requests().len("jobs"), Some(1));
        Ok(())
    }

    /// Windows held are made again under other index options.
    #[test]
    fn windows_held_are_for_the_options_they_were_made_with() -> Result<(), TestCaseError> {
        let db = Db::open_in_memory().expect("db");
        for n in 0..4 {
            let text = format!("[Name = \"s{n}\"; Memory = {}; Cpus = {n}]", 1024 * n);
            db.put("machines", &parse::classad(&text).expect("slot"))
                .expect("put");
        }
        let job = "[Name = \"r\"; Requirements = TARGET.Memory >= 2048 && TARGET.Cpus >= 3]";
        db.put("jobs", &parse::classad(job).expect("job"))
            .expect("put");
        let mut o = CycleOptions::new("jobs", "machines");
        o.dry_run = true;
        let first = run(&db, &o).map_err(|e| TestCaseError::fail(e.to_string()))?;
        o.index.rectangle_cap = 1;
        o.index.profile_cap = 1;
        let other = run(&db, &o).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(&first.matches, &other.matches);
        prop_assert_eq!(db.held_requests().times_used(), 1);
        let held = db.held_requests().take("jobs").expect("held");
        prop_assert!(
            held.windows_for(&o.index),
            "held with the options last used"
        );
        let fresh = CycleOptions {
            index: adjoin_index::IndexOptions {
                rectangle_cap: 1,
                profile_cap: 1,
                ..adjoin_index::IndexOptions::default()
            },
            ..CycleOptions::new("jobs", "machines")
        };
        prop_assert!(
            held.windows_for(&fresh.index),
            "options made afresh, the same host"
        );
        o.index.rectangle_cap = 2;
        prop_assert!(!held.windows_for(&o.index));
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Cycles through the requests and offers held between them decide as cycles reading
        /// every ad do (the naive cycle, which holds none), as requests and offers are added,
        /// replaced and removed, offers change what they read of the requests, and a durable
        /// cycle consumes some.
        #[test]
        fn held_requests_decide_as_reading_them_all(
            requests in prop::collection::vec(0usize..128, 4..40),
            offers in prop::collection::vec(0usize..1000, 4..30),
            changes in prop::collection::vec((0usize..40, 0usize..128, 0u8..5), 0..12),
            reroot in any::<bool>(),
        ) {
            let db = Db::open_in_memory().expect("db");
            for (n, &v) in offers.iter().enumerate() {
                db.put("machines", &offer(n, v).expect("offer")).expect("put");
            }
            for (n, &v) in requests.iter().enumerate() {
                db.put("jobs", &request(n, v).expect("request")).expect("put");
            }
            dry(&db)?;
            prop_assert_eq!(db.held_requests().len("jobs"), Some(requests.len()));
            prop_assert_eq!(db.held_ads().with("machines", |h| h.len()), Some(offers.len()));
            // Held now: the same decisions again, through them, then after changes.
            let (used, learnt) = (db.held_requests().times_used(), db.held_offers().times_used());
            dry(&db)?;
            prop_assert_eq!(db.held_requests().times_used(), used + 1);
            prop_assert_eq!(db.held_offers().times_used(), learnt + 1);
            for &(n, v, how) in &changes {
                match how {
                    0 => {
                        db.put("jobs", &request(n, v).expect("request")).expect("put");
                    }
                    1 => {
                        db.remove("jobs", &format!("r{n}")).expect("remove");
                    }
                    2 => {
                        db.put("jobs", &request(n + 40, v).expect("request")).expect("put");
                    }
                    3 => {
                        db.put("machines", &offer(n, v * 31).expect("offer")).expect("put");
                    }
                    _ => {
                        db.remove("machines", &format!("s{n}")).expect("remove");
                    }
                }
            }
            dry(&db)?;
            if reroot {
                db.put("machines", &offer(0, 1000 + offers[0]).expect("offer")).expect("put");
                dry(&db)?;
            }
            let mut durable = CycleOptions::new("jobs", "machines");
            durable.dry_run = false;
            run(&db, &durable).map_err(|e| TestCaseError::fail(e.to_string()))?;
            dry(&db)?;
        }
    }

    #[test]
    fn a_request_is_held_at_its_revision() {
        let held = HeldRequests::default();
        let mut p = Prepared::new(Vec::new(), Vec::new(), IndexOptions::default());
        p.requests.insert(
            7,
            Request {
                revision: 3,
                ad: None,
                shape: None,
                windows: None,
            },
        );
        held.put("jobs", p);
        let p = held.take("jobs").expect("held");
        assert!(p.get(7, 3).is_some());
        assert!(p.get(7, 4).is_none(), "another revision is another request");
        assert!(p.get(8, 3).is_none());
        assert!(held.take("jobs").is_none(), "taken out");
    }
}
