//! What a cycle derives from its offers alone, held between cycles with the offers it was
//! derived from, so that the next cycle over the same offers starts from it:
//!
//! - the roots its requests' shapes start from ([`Roots`]: what the offers read of the
//!   requests, with `--dock`'s names), found by walking every offer's expressions;
//! - what serving learnt of the offers ([`Searched`]): their bindings by name (`columns.rs`),
//!   the residual conjuncts' values per distinct binding (`residual.rs`), the offers'
//!   classes by Requirements with what they said of each tuple of request bindings
//!   (`offer_classes.rs`), and, for the default docking vector, the offers' classes by Rank
//!   and each rank shape's remembered ranks and sorted offers (`ranks.rs`, `topk.rs`).
//!
//! **When it is used.** Only by a cycle that reads the very same offers, in the same order:
//! the same objects (the Db's held ads give a cycle the ads the last one read, as the same
//! objects, while they are not stored again: `Collection::scan_held`), held here so that
//! an address is never another ad's. A cycle whose offers differ in any way, or that
//! evaluates with other options, starts afresh, as before; so does a cycle with partitionable
//! offers (they change as they are matched), and the naive cycle, the oracle of the others,
//! which neither reads nor holds anything here.
//!
//! **Why it stays exact.** Each thing held is a function of the offers and of the requests'
//! expressions alone, never of a cycle's state: the roots, of the offers' expressions and the
//! dock (compared); the bindings, of the offers' expressions; a conjunct's or a class's value
//! against offers binding what it reads alike, of the conjunct, the bindings and the request's
//! tuple, through functions whose value depends on their arguments alone (`residual::PURE`:
//! no clock, no randomness); a rank shape's ranks, of the request's Rank and what it reads of
//! the request and of the offers' literals, kept only for shapes calling such functions alone
//! and not naming `CurrentTime`. (The requests' windows, held with them, fold nothing that
//! reads the clock either: `absTime()` is not folded into a window, `adjoin_index`'s
//! `profile::reads_no_clock`.) So the next cycle decides exactly what a cycle starting afresh
//! decides; only its counts of evaluations are smaller, as the values learnt before are not
//! evaluated again.
//!
//! **Memory.** What is learnt grows with the distinct conjuncts and tuples the requests bring.
//! It is held only while it is at most twice what one cycle starting afresh learnt (plus
//! [`SLACK`]); past that, the next cycle starts afresh, so requests that change from cycle to
//! cycle do not make it grow without bound. It lives while the Db is open and is freed by
//! [`Db::release_held`](crate::Db::release_held).

use super::cluster::Roots;
use super::held_requests::same_host;
use super::offer_classes::OfferClasses;
use super::ranks::Ranker;
use super::residual::Residuals;
use crate::collection::ByCollection;
use crate::db::same_eval;
use adjoin_query::eval::EvalOptions;
use adjoin_query::structural::same;
use adjoin_query::{ClassAd, Expr};
use parking_lot::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// What may be learnt past twice what a fresh cycle learnt, in conjuncts, tuples or rank
/// shapes, before the next cycle starts afresh.
const SLACK: usize = 4096;

/// Offers' collections' derived state, by collection.
#[derive(Debug, Default)]
pub(crate) struct HeldOffers {
    held: ByCollection<Derived>,
    /// Cycles that started from what serving learnt before (for tests).
    used: AtomicU64,
}

impl HeldOffers {
    /// What is held for `coll`, taken out (a cycle puts back what it derived).
    pub(crate) fn take(&self, coll: &str) -> Option<Derived> {
        self.held.take(coll)
    }

    /// Holds `derived` for `coll`.
    pub(crate) fn put(&self, coll: &str, derived: Derived) {
        self.held.put(coll, derived);
    }

    /// Holds nothing.
    pub(crate) fn clear(&self) {
        self.held.clear();
    }

    /// A cycle started from what serving learnt before.
    pub(crate) fn used(&self) {
        self.used.fetch_add(1, Ordering::Relaxed);
    }

    #[cfg(test)]
    /// How many cycles started from what serving learnt before.
    pub(crate) fn times_used(&self) -> u64 {
        self.used.load(Ordering::Relaxed)
    }
}

/// What one cycle derived from its offers.
#[derive(Debug)]
pub(crate) struct Derived {
    /// The offers, by position, as the cycle read them.
    ads: Vec<Arc<ClassAd>>,
    /// The options it evaluated with.
    eval: EvalOptions,
    /// The roots found, with the dock they were found with (`None`: not found, the cycle
    /// did not cluster).
    roots: Option<(Vec<Expr>, Option<Roots>)>,
    /// What serving learnt.
    searched: Option<Searched>,
}

/// What serving learnt of the offers ([`Offers::learnt`](super::Offers::learnt)).
#[derive(Debug)]
pub(crate) struct Searched {
    pub(crate) residuals: Arc<Mutex<Residuals>>,
    pub(crate) classes: Option<Box<OfferClasses>>,
    /// The ranks remembered by rank shape, with the offers' classes by rank (the default
    /// docking vector only; [`Ranker::for_next_cycle`]).
    pub(crate) ranker: Option<Ranker>,
    /// What a cycle starting afresh had learnt by its end ([`Searched::size`]).
    pub(crate) fresh: Size,
}

/// How much serving learnt: conjuncts, tuples of request bindings, rank shapes.
pub(crate) type Size = [usize; 3];

impl Searched {
    /// How much is learnt.
    pub(crate) fn size(&self) -> Size {
        let conjuncts = self.residuals.lock().conjunct_count();
        let tuples = self.classes.as_ref().map_or(0, |c| c.tuple_count());
        let shapes = self.ranker.as_ref().map_or(0, Ranker::remembered_shapes);
        [conjuncts, tuples, shapes]
    }

    /// Whether it is still small enough to hold ([`within`]).
    fn bounded(&self) -> bool {
        within(self.size(), self.fresh)
    }
}

/// Whether each count of `size` is at most twice that of `fresh`, plus [`SLACK`].
fn within(size: Size, fresh: Size) -> bool {
    size.iter()
        .zip(fresh)
        .all(|(&n, f)| n <= f.saturating_mul(2).saturating_add(SLACK))
}

impl Derived {
    /// What a cycle over `ads` (by position), evaluated with `eval`, derived: the roots it
    /// found with `dock`, if it clustered, and what serving learnt.
    pub(crate) fn new(
        ads: Vec<Arc<ClassAd>>,
        eval: &EvalOptions,
        roots: Option<(Vec<Expr>, Option<Roots>)>,
        searched: Option<Searched>,
    ) -> Derived {
        Derived {
            ads,
            eval: eval.clone(),
            roots,
            searched: searched.filter(Searched::bounded),
        }
    }

    /// Whether it was derived evaluating as `eval` does (the host compared as
    /// [`Db::lends_for`](crate::Db) compares it).
    pub(crate) fn evaluates_as(&self, eval: &EvalOptions) -> bool {
        same_eval(&self.eval, eval) && same_host(&self.eval, eval)
    }

    /// The offers it was derived from.
    pub(crate) fn ads(&self) -> &[Arc<ClassAd>] {
        &self.ads
    }

    /// Whether `ads` are its offers: the same objects, in the same order.
    pub(crate) fn is_of(&self, ads: &[Arc<ClassAd>]) -> bool {
        self.ads.len() == ads.len() && self.ads.iter().zip(ads).all(|(a, b)| Arc::ptr_eq(a, b))
    }

    /// The roots found with `dock`, if they were.
    pub(crate) fn roots_for(&self, dock: &[Expr]) -> Option<&Option<Roots>> {
        let (d, roots) = self.roots.as_ref()?;
        let alike = d.len() == dock.len() && d.iter().zip(dock).all(|(a, b)| same(a, b));
        alike.then_some(roots)
    }

    /// What serving learnt, taken out.
    pub(crate) fn take_searched(&mut self) -> Option<Searched> {
        self.searched.take()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::{run, CycleOptions, CycleReport};
    use crate::Db;
    use adjoin_query::eval::host::{Host, HostRef};
    use adjoin_query::parse;
    use std::sync::atomic::AtomicI64;

    fn put(db: &Db, coll: &str, text: &str) {
        db.put(coll, &parse::classad(text).expect("ad"))
            .expect("put");
    }

    fn dry(db: &Db, eval: &EvalOptions) -> CycleReport {
        let mut o = CycleOptions::new("jobs", "machines");
        o.dry_run = true;
        o.index.eval = eval.clone();
        run(db, &o).expect("cycle")
    }

    /// Offers whose classes and residual conjuncts are learnt: Requirements of two kinds,
    /// requests with conditions the index does not convert (`regexp`), of two disjuncts.
    fn pool(db: &Db) {
        for n in 0..40 {
            let reqs = ["TARGET.Prio < 5", "member(TARGET.Owner, {\"a\", \"b\"})"][n % 2];
            put(
                db,
                "machines",
                &format!(
                    "[Name = \"s{n}\"; Memory = {}; Machine = \"h{}\"; Tag = {}; \
                     Requirements = {reqs}]",
                    1024 * (n % 4),
                    n % 7,
                    n % 3
                ),
            );
        }
        for n in 0..30 {
            put(
                db,
                "jobs",
                &format!(
                    "[Name = \"r{n}\"; Owner = \"{}\"; Prio = {}; Rank = TARGET.Memory; \
                     Requirements = regexp(\"^h[{}-6]\", TARGET.Machine) && \
                     (TARGET.Tag == {} || TARGET.Memory >= {})]",
                    ["a", "b", "c"][n % 3],
                    n % 8,
                    n % 5,
                    n % 3,
                    1024 * (n % 4)
                ),
            );
        }
    }

    /// The next cycle over the same offers starts from what the last one learnt, and decides
    /// alike with fewer evaluations; once an offer changes, a cycle starts afresh.
    #[test]
    fn what_serving_learnt_is_used_for_the_same_offers_only() {
        let db = Db::open_in_memory().expect("db");
        pool(&db);
        let eval = EvalOptions::default();
        let fresh = dry(&db, &eval);
        assert!(fresh.matched > 5, "{} matched", fresh.matched);
        let used = db.held_offers().times_used();
        let held = dry(&db, &eval);
        assert_eq!(db.held_offers().times_used(), used + 1);
        assert_eq!((&held.matches, held.probes), (&fresh.matches, fresh.probes));
        assert!(held.evaluations < fresh.evaluations, "{held:?}");
        // Another version of one offer: nothing learnt is used.
        put(
            &db,
            "machines",
            "[Name = \"s3\"; Memory = 8192; Machine = \"h3\"; Tag = 0; Requirements = true]",
        );
        let changed = dry(&db, &eval);
        assert_eq!(db.held_offers().times_used(), used + 1);
        db.release_held();
        let afresh = dry(&db, &eval);
        assert_eq!(changed.matches, afresh.matches);
        assert_eq!(changed.evaluations, afresh.evaluations);
        // Other evaluation options: not used either.
        let fixed = EvalOptions {
            now: Some(1_700_000_000),
            ..EvalOptions::default()
        };
        let other = dry(&db, &fixed);
        assert_eq!(db.held_offers().times_used(), used + 1);
        assert_eq!(other.evaluations, afresh.evaluations);
    }

    /// A clock the test moves.
    #[derive(Debug, Default)]
    struct Clock(AtomicI64);

    impl Host for Clock {
        fn now(&self) -> f64 {
            self.0.load(Ordering::Relaxed) as f64
        }
        fn tz_offset(&self, _: i64) -> i32 {
            0
        }
        fn home_of(&self, _: &str) -> Option<String> {
            None
        }
        fn seed(&self) -> u64 {
            1
        }
    }

    /// What reads the clock is never held: with the same host, its clock moved, the next
    /// cycle decides as the naive cycle does at the new time (`time()` in both sides'
    /// Requirements and in the requests' Rank).
    #[test]
    fn what_reads_the_clock_is_evaluated_anew() {
        let machines: Vec<String> = (0..12)
            .map(|n| {
                format!(
                    "[Name = \"s{n}\"; Until = {}; Memory = {}; \
                     Requirements = time() < MY.Until && TARGET.Start <= time()]",
                    100 + 10 * n,
                    1024 * (n % 3)
                )
            })
            .collect();
        let jobs: Vec<String> = (0..10)
            .map(|n| {
                format!(
                    "[Name = \"r{n}\"; Start = {}; Rank = TARGET.Until - time(); \
                     Requirements = TARGET.Until > time() + {} && TARGET.Memory >= 0]",
                    50 + 10 * n,
                    5 * n
                )
            })
            .collect();
        let (db, clock, eval) = clocked(&machines, &jobs);
        follows_the_clock(&db, &clock, &eval);
    }

    /// A database whose decisions depend on the clock through `absTime()` (the time now),
    /// and the options of a host whose clock the test moves.
    fn clocked(machines: &[String], jobs: &[String]) -> (Db, Arc<Clock>, EvalOptions) {
        let db = Db::open_in_memory().expect("db");
        for m in machines {
            put(&db, "machines", m);
        }
        for j in jobs {
            put(&db, "jobs", j);
        }
        let clock = Arc::new(Clock::default());
        let eval = EvalOptions {
            host: HostRef(clock.clone()),
            ..EvalOptions::default()
        };
        (db, clock, eval)
    }

    /// As the clock moves back and forth, each cycle through what the last one held decides
    /// as the naive cycle and a cycle starting afresh do.
    fn follows_the_clock(db: &Db, clock: &Clock, eval: &EvalOptions) {
        let naive = |db: &Db| {
            let mut o = CycleOptions::new("jobs", "machines");
            (o.dry_run, o.naive) = (true, true);
            o.index.eval = eval.clone();
            run(db, &o).expect("naive").matches
        };
        let mut seen = Vec::new();
        for (i, now) in [100, 200, 100, 200, 30, 100, 200, 30]
            .into_iter()
            .enumerate()
        {
            clock.0.store(now, Ordering::Relaxed);
            let used = db.held_offers().times_used();
            let held = dry(db, eval);
            assert_eq!(
                db.held_offers().times_used(),
                used + u64::from(i > 0),
                "held used"
            );
            assert_eq!(held.matches, naive(db), "at {now}");
            db.release_held();
            assert_eq!(dry(db, eval).matches, held.matches, "at {now}, afresh");
            dry(db, eval);
            seen.push(held.matches.len());
        }
        assert!(
            seen.windows(2).any(|w| w[0] != w[1]),
            "the clock changed nothing: {seen:?}"
        );
    }

    /// A request's value of what offers' Requirements read, `absTime()`: not folded into the
    /// steps its window probes with (remembered with the window, held with the request).
    #[test]
    fn a_request_probing_with_the_time_now_follows_the_clock() {
        let machines: Vec<String> = (0..8)
            .map(|n| {
                format!(
                    "[Name = \"s{n}\"; Memory = {n}; Requirements = TARGET.Stamp >= absTime(150)]"
                )
            })
            .collect();
        let jobs: Vec<String> = (0..6)
            .map(|n| {
                format!("[Name = \"r{n}\"; Stamp = absTime(); Requirements = TARGET.Memory >= {n}]")
            })
            .collect();
        let (db, clock, eval) = clocked(&machines, &jobs);
        follows_the_clock(&db, &clock, &eval);
    }

    /// A request's Requirements reading `absTime()` in one of its disjuncts: not folded into
    /// its window or its disjuncts' windows (held with the request).
    #[test]
    fn windows_of_the_time_now_follow_the_clock() {
        let machines: Vec<String> = (0..8)
            .map(|n| {
                format!(
                    "[Name = \"s{n}\"; Memory = {n}; Born = absTime({}); Requirements = true]",
                    50 + 20 * n
                )
            })
            .collect();
        let jobs: Vec<String> = (0..6)
            .map(|n| {
                format!(
                    "[Name = \"r{n}\"; Requirements = (TARGET.Born >= absTime() && \
                     TARGET.Memory >= {n}) || TARGET.Memory == 99]"
                )
            })
            .collect();
        let (db, clock, eval) = clocked(&machines, &jobs);
        follows_the_clock(&db, &clock, &eval);
    }

    /// Requests coming and going, each with a Rank of a shape of its own that is never
    /// remembered (`eval`): the ranker held does not keep their shapes.
    #[test]
    fn rank_shapes_never_remembered_are_not_held() {
        let db = Db::open_in_memory().expect("db");
        for n in 0..10 {
            put(
                &db,
                "machines",
                &format!("[Name = \"s{n}\"; Memory = {n}; Requirements = true]"),
            );
        }
        let eval = EvalOptions::default();
        let mut known = Vec::new();
        for c in 0..30 {
            for n in 0..20 {
                put(
                    &db,
                    "jobs",
                    &format!(
                        "[Name = \"r{c}_{n}\"; Boost = {}; Rank = eval(\"TARGET.Memory\") + MY.Boost; \
                         Requirements = TARGET.Memory >= 0]",
                        c * 100 + n
                    ),
                );
            }
            assert!(dry(&db, &eval).matched > 0);
            for n in 0..20 {
                db.remove("jobs", &format!("r{c}_{n}")).expect("remove");
            }
            let mut d = db.held_offers().take("machines").expect("held");
            let learnt = d.take_searched().expect("learnt");
            known.push(learnt.ranker.as_ref().map(Ranker::shapes_known));
            d.searched = Some(learnt);
            db.held_offers().put("machines", d);
        }
        assert!(
            known
                .iter()
                .all(|k| k.is_some_and(|(shapes, numbers)| shapes == 0 && numbers <= 20)),
            "{known:?}"
        );
    }

    #[test]
    fn what_is_learnt_is_held_while_within_twice_a_fresh_cycle() {
        assert!(within([0; 3], [0; 3]));
        assert!(within([2 * 100 + SLACK, 10, 3], [100, 10, 3]));
        assert!(!within([2 * 100 + SLACK + 1, 10, 3], [100, 10, 3]));
        assert!(!within([10, 2 * 7 + SLACK + 1, 0], [100, 7, 0]));
        assert!(!within([10, 7, SLACK + 1], [100, 7, 0]));
        assert!(within([usize::MAX, 0, 0], [usize::MAX, 0, 0]));
    }
}
