//! Queries (dissertation 4.5.4, Algorithm 2): the exclusionary window query, in three
//! directions, then confirmation.
//!
//! A query window is a probing unit's imported values (read per query, for the attributes
//! stored constraints bound) and rectangles (its constraint's profiles). Starting from every
//! live RID, each component excludes the rectangles it proves cannot match:
//!
//! - the probe's point `k` on attribute `N` keeps the rectangles that do not bound `N` or whose
//!   interval contains `k` (step 2; the dissertation also keeps every deviant rectangle, but a
//!   profile with a failed property is false whatever its deviant part says, so ours does not);
//! - the probe lacking `N` drops every rectangle that bounds `N` (step 3);
//! - the probe's interval `I` on `N` keeps the rectangles whose value of `N` lies in `I` or is
//!   deviant (step 4; those without a value are thereby dropped).
//!
//! Steps 2–3 depend on the probe's values only, so they run once; step 4 runs per probe
//! rectangle and the results are united. Two-sided queries run all steps, one-sided ones
//! step 4 only, reverse ones steps 2–3 only (see `window.rs`).
//!
//! Steps run cheapest and most selective first (equality windows, absent attributes, stabs,
//! ranges), and once few candidates are left the rest are checked RID by RID against the
//! stored rectangles rather than probed. The raw answer is a superset of the matches; the
//! candidates known exact (no deviant part on either side, every property exact, single
//! profiles) need no evaluation.

use crate::ad_words::AdWords;
use crate::answer::{Answer, Explain, Hit, Step};
use crate::bits::Bits;
use crate::index::{AdId, AdSource, Counters, Index, UnitData};
use crate::position::{ends, Pos};
use crate::rectangle::{imp_value, ImpValue};
use crate::window::{accepts, satisfies, satisfies_against, Direction, Query};
use adjoin_query::eval::{one_side_match, symmetric_match};
use adjoin_query::{ClassAd, Expr, Key};
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// An axis with at most this many distinct keys (ends) is cheap to probe whatever the range.
const FEW_KEYS: usize = 64;

/// Candidates whose views are read back from a source at once.
const CONFIRM_BATCH: usize = 1024;

/// One component of a window: the probe's point (as a position) against stored bounds, an
/// attribute the probe lacks, or the probe's interval (as end positions) against stored
/// values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Probe {
    Stab(Key, Pos),
    Absent(Key),
    Window(Key, Pos, Pos),
}

/// A probe's stab steps against an index's exported axes ([`Index::probe_steps`]): the
/// names exported, in the index's order, and how it evaluates, with the steps found.
#[derive(Debug)]
pub(crate) struct Stabs {
    exported: Vec<Key>,
    eval: EvalKey,
    shared: Vec<Probe>,
    deviant: Vec<Key>,
}

/// What of the evaluation options a probe's values are folded with: equal keys fold alike.
/// (What folds reads no clock, `profile::reads_no_clock`; the host's time zone it may read.)
#[derive(Debug)]
struct EvalKey {
    options: (bool, Option<i64>, Option<i32>, u32, u64),
    host: adjoin_query::eval::host::HostRef,
}

impl EvalKey {
    fn of(e: &adjoin_query::eval::EvalOptions) -> EvalKey {
        EvalKey {
            options: (
                e.target_fallback,
                e.now,
                e.tz_offset,
                e.max_depth,
                e.max_work,
            ),
            host: e.host.clone(),
        }
    }
}

impl PartialEq for EvalKey {
    fn eq(&self, other: &EvalKey) -> bool {
        self.options == other.options && Arc::ptr_eq(&self.host.0, &other.host.0)
    }
}

impl Probe {
    fn attr(&self) -> Key {
        match self {
            Probe::Stab(k, _) | Probe::Absent(k) | Probe::Window(k, ..) => *k,
        }
    }

    fn kind(&self) -> &'static str {
        match self {
            Probe::Stab(..) => "stab",
            Probe::Absent(_) => "absent",
            Probe::Window(..) => "window",
        }
    }
}

/// Bytes of sets a [`StepCache`] holds at most.
const STEP_CACHE_BYTES: usize = 256 << 20;

/// What a window's probe kept of the live rectangles (its own steps, before any window
/// rectangle's), and its deviant values: the start of every window of the same probe among the
/// same rectangles ([`Index::narrowed_uncounted`]), valid while the index does not change.
#[derive(Clone, Debug)]
pub struct Base {
    probe: Option<(Arc<ClassAd>, Option<u16>)>,
    direction: Direction,
    rids: Bits,
    deviant_values: Vec<Key>,
}

impl Base {
    /// Whether `q` has the probe this was found for.
    fn fits(&self, q: &Query) -> bool {
        q.direction == self.direction
            && match (&self.probe, &q.probe) {
                (Some((ad, port)), Some(u)) => Arc::ptr_eq(ad, &u.ad) && *port == u.port,
                _ => false,
            }
    }
}

/// What window steps keep of every live rectangle, remembered across the windows of many
/// queries over one index ([`Index::candidates_cached`]), so that a step met again costs one
/// intersection instead of a probe. A step's set is kept from its second use on (steps met
/// once, e.g. a bound no other query states, cost no memory), up to 256 MiB. Valid only while
/// the index does not change: its owner clears it on every insert or removal. A step answered
/// from it is still counted as a probe (and making a set is not): the counters tell the steps
/// a window answered from the axes, whatever was remembered, so that they do not depend on
/// which windows went through which cache (`adjoin`'s cycles search on two threads).
#[derive(Debug, Default)]
pub struct StepCache {
    sets: FxHashMap<Probe, Bits>,
    seen: rustc_hash::FxHashSet<Probe>,
    bytes: usize,
}

impl StepCache {
    /// Forgets every set (the index changed).
    pub fn clear(&mut self) {
        *self = StepCache::default();
    }
}

impl Index {
    /// Gives the attributes `q`'s window bounds imported axes (one scan per new attribute),
    /// so that [`Index::candidates`] can prune on them and its exact answers are exact.
    pub fn prepare(&mut self, q: &Query) {
        self.ensure_imported(&q.window_attrs());
    }

    /// Runs `q`'s window (Algorithm 2): a superset of the matching rectangles, and those
    /// among them that match for certain.
    pub fn candidates(&self, q: &Query) -> Answer {
        self.candidates_except(q, &Bits::new())
    }

    /// [`Index::candidates`] among the rectangles not in `except` (e.g. those of the offers a
    /// matchmaking cycle has taken: [`Index::rids_of`]), which the window never considers.
    pub fn candidates_except(&self, q: &Query, except: &Bits) -> Answer {
        self.window(q, except, None)
    }

    /// [`Index::candidates_except`], steps met before taken from `cache` (which must have
    /// been used with this index only, unchanged since: [`StepCache`]).
    pub fn candidates_cached(&self, q: &Query, except: &Bits, cache: &mut StepCache) -> Answer {
        self.window(q, except, Some(cache))
    }

    /// [`Index::candidates_cached`] without adding to the index's counters: the window's
    /// work, in its [`Explain`], is counted when its answer is used ([`Index::count`]) — so
    /// that windows searched ahead and never used are not. Its candidate units are not
    /// counted (unless explained): [`Index::split_ads_counted`] or
    /// [`Index::count_candidates`] does.
    pub fn candidates_uncounted(
        &self,
        q: &Query,
        except: &Bits,
        cache: Option<&mut StepCache>,
    ) -> Answer {
        self.window_uncounted(q, except, cache)
    }

    /// Counts the candidate units of `a` (from [`Index::candidates_uncounted`]) into its
    /// [`Explain`], for [`Index::count`].
    pub fn count_candidates(&self, a: &mut Answer) {
        a.explain.candidates = self.count_units(&a.rids);
    }

    /// Adds a window's work (`ex`, from [`Index::candidates_uncounted`]) to the counters.
    pub fn count(&self, ex: &Explain) {
        let c = &self.counters;
        Counters::add(&c.queries, 1);
        Counters::add(&c.probes, ex.probes);
        Counters::add(&c.filtered, ex.filtered);
        Counters::add(&c.candidates, ex.candidates);
    }

    /// [`Index::candidates_except`] with or without a cache of steps.
    fn window(&self, q: &Query, except: &Bits, cache: Option<&mut StepCache>) -> Answer {
        let mut answer = self.window_uncounted(q, except, cache);
        if !q.explained {
            self.count_candidates(&mut answer);
        }
        self.count(&answer.explain);
        answer
    }

    /// [`Index::window`], its work left out of the counters.
    fn window_uncounted(&self, q: &Query, except: &Bits, cache: Option<&mut StepCache>) -> Answer {
        self.candidates_base_uncounted(q, except, cache).0
    }

    /// The answer to `p`, a query of the probe `base` was found for narrowed
    /// ([`Query::narrowed`]): only its own rectangles' steps are run, from what the probe's
    /// kept; the same answer as [`Index::candidates_uncounted`] gives with the `except` the
    /// base was found with, while the index is unchanged (the caller's to see to: the base
    /// does not know them), for less work. `None` when `p` has another probe.
    pub fn narrowed_uncounted(
        &self,
        p: &Query,
        base: &Base,
        mut cache: Option<&mut StepCache>,
    ) -> Option<Answer> {
        if !base.fits(p) {
            return None;
        }
        let mut ex = Explain {
            direction: p.direction.as_str(),
            rectangles: p.rects.len(),
            ..Explain::default()
        };
        let (per_rect, unprepared) = self.rect_steps(p);
        let mut rids = Bits::new();
        for steps in per_rect {
            let kept = self.run(base.rids.clone(), steps, p.explained, &mut ex, &mut cache);
            rids.or_assign(&kept);
        }
        Some(self.answer(p, rids, &unprepared, &base.deviant_values, ex))
    }

    /// The probe's own steps (its values against the stored bounds, steps 2-3), and the
    /// keys whose value in it is deviant.
    fn probe_steps(&self, q: &Query) -> (Vec<Probe>, Vec<Key>) {
        // Remembered with the probe (shared by its query's clones and narrowed windows), for
        // an index exporting the same names and evaluating alike.
        let eval = EvalKey::of(&self.opts.eval);
        let mut memo = q.stabs.lock().unwrap_or_else(|p| p.into_inner());
        let same = |s: &&Stabs| s.eval == eval && s.exported.iter().eq(self.exported.keys());
        if let Some(s) = memo.as_ref().filter(same) {
            return (s.shared.clone(), s.deviant.clone());
        }
        let (shared, deviant) = self.probe_steps_now(q);
        *memo = Some(Stabs {
            exported: self.exported.keys().copied().collect(),
            eval,
            shared: shared.clone(),
            deviant: deviant.clone(),
        });
        (shared, deviant)
    }

    /// [`Index::probe_steps`], found now.
    fn probe_steps_now(&self, q: &Query) -> (Vec<Probe>, Vec<Key>) {
        let mut shared: Vec<Probe> = Vec::new();
        let mut deviant_values: Vec<Key> = Vec::new();
        if let Some(u) = &q.probe {
            for &k in self.exported.keys() {
                match imp_value(&u.ad, k, &self.opts.eval) {
                    ImpValue::Point(v) => shared.push(Probe::Stab(k, Pos::point(v))),
                    ImpValue::Absent => shared.push(Probe::Absent(k)),
                    ImpValue::Deviant => deviant_values.push(k),
                }
            }
        }
        (shared, deviant_values)
    }

    /// Each window rectangle's steps (its bounds against the stored values, step 4), and the
    /// keys it bounds that are not imported.
    fn rect_steps(&self, q: &Query) -> (Vec<Vec<Probe>>, Vec<Key>) {
        let mut unprepared: Vec<Key> = Vec::new();
        let mut per_rect: Vec<Vec<Probe>> = Vec::with_capacity(q.rects.len());
        for r in q.rects.iter() {
            let mut steps = Vec::with_capacity(r.exp.len());
            for (k, iv) in &r.exp {
                if self.imported.contains_key(k) {
                    let (lo, hi) = ends(iv);
                    steps.push(Probe::Window(*k, lo, hi));
                } else if !unprepared.contains(k) {
                    unprepared.push(*k);
                }
            }
            per_rect.push(steps);
        }
        (per_rect, unprepared)
    }

    /// [`Index::candidates_uncounted`], and, for a window of several rectangles, what the
    /// probe's own steps kept ([`Base`]), for the windows of the same probe narrowed
    /// ([`Index::narrowed_uncounted`]).
    pub fn candidates_base_uncounted(
        &self,
        q: &Query,
        except: &Bits,
        mut cache: Option<&mut StepCache>,
    ) -> (Answer, Option<Base>) {
        let mut ex = Explain {
            direction: q.direction.as_str(),
            rectangles: q.rects.len(),
            ..Explain::default()
        };
        let (shared, deviant_values) = self.probe_steps(q);
        let (mut per_rect, unprepared) = self.rect_steps(q);
        // Units whose constraint is never true answer one-sided queries only.
        let mut live = self.live.clone();
        live.andnot_assign(except);
        if q.direction != Direction::OneSided {
            live.andnot_assign(&self.never);
        }
        let (rids, base) = match per_rect.len() {
            0 => (Bits::new(), None),
            1 => {
                let mut steps = shared;
                steps.append(&mut per_rect[0]);
                (
                    self.run(live, steps, q.explained, &mut ex, &mut cache),
                    None,
                )
            }
            _ => {
                let base = self.run(live, shared, q.explained, &mut ex, &mut cache);
                let mut all = Bits::new();
                for steps in per_rect {
                    all.or_assign(&self.run(base.clone(), steps, q.explained, &mut ex, &mut cache));
                }
                (all, Some(base))
            }
        };
        let base = base.map(|rids| Base {
            probe: q.probe.as_ref().map(|u| (Arc::clone(&u.ad), u.port)),
            direction: q.direction,
            rids,
            deviant_values: deviant_values.clone(),
        });
        (self.answer(q, rids, &unprepared, &deviant_values, ex), base)
    }

    /// The answer of window `q` whose candidates are `rids`.
    fn answer(
        &self,
        q: &Query,
        rids: Bits,
        unprepared: &[Key],
        deviant_values: &[Key],
        mut ex: Explain,
    ) -> Answer {
        // Exact: both sides exact and prepared; no deviant value meets a bound. Each side
        // apart: the stored units' constraints decided by the probe's points (converted
        // exactly, no deviant value of the probe on a bound attribute), and the probe's
        // constraint decided by the window (converted exactly and prepared, no deviant stored
        // value in it).
        let decided = if q.direction == Direction::TwoSided {
            let mut stored = rids.clone();
            stored.andnot_assign(&self.inexact);
            for k in deviant_values {
                if let Some(a) = self.exported.get(k) {
                    stored.andnot_assign(a.rids());
                }
            }
            stored
        } else {
            Bits::new()
        };
        let (exact, probe_decided) = if q.exact && unprepared.is_empty() {
            let mut good = rids.clone();
            for k in q.window_attrs() {
                if let Some(a) = self.imported.get(&k) {
                    good.andnot_assign(a.deviant());
                }
            }
            let probe = (q.direction == Direction::TwoSided).then(|| good.clone());
            if q.direction != Direction::OneSided {
                good.andnot_assign(&self.inexact);
            }
            for k in deviant_values {
                if let Some(a) = self.exported.get(k) {
                    good.andnot_assign(a.rids());
                }
            }
            (good, probe.unwrap_or_default())
        } else {
            (Bits::new(), Bits::new())
        };
        ex.unprepared = unprepared.iter().map(|k| k.as_str().to_owned()).collect();
        ex.unprepared.sort_unstable();
        // Counted here when explaining; otherwise by the caller, when it counts the work
        // ([`Index::split_ads_counted`] counts them cheaply).
        if q.explained {
            ex.candidates = self.count_units(&rids);
        }
        Answer {
            rids,
            exact,
            stored_decided: decided,
            probe_decided,
            explain: ex,
        }
    }

    /// The number of distinct units among `rids`: each counted by its first RID, or, when
    /// that is not among them, by its others (few: units of several rectangles).
    pub(crate) fn count_units(&self, rids: &Bits) -> u64 {
        if self.one_rect_per_unit() {
            return rids.len();
        }
        let others = rids.and(&self.extra);
        let owners = self.rids.owners();
        let mut lacking: Vec<u32> = others
            .iter()
            .filter_map(|r| owners.get(r as usize).copied().flatten())
            .filter(|o| {
                self.unit(o.unit)
                    .and_then(|d| d.rids.first())
                    .is_some_and(|&first| !rids.contains(first))
            })
            .map(|o| o.unit)
            .collect();
        lacking.sort_unstable();
        lacking.dedup();
        rids.len() - others.len() + lacking.len() as u64
    }

    /// Cheap and selective first: equality windows (one key), absent attributes (one set),
    /// axes with few distinct keys, range windows (one range query), stabs (two).
    fn rank(&self, p: &Probe) -> u8 {
        match p {
            Probe::Window(k, lo, hi) => {
                let few = self
                    .imported
                    .get(k)
                    .is_some_and(|a| a.distinct() <= FEW_KEYS);
                match (lo == hi, few) {
                    (true, _) => 0,
                    (false, true) => 2,
                    (false, false) => 3,
                }
            }
            Probe::Absent(_) => 1,
            Probe::Stab(k, _) => {
                if self
                    .exported
                    .get(k)
                    .is_some_and(|a| a.distinct() <= FEW_KEYS)
                {
                    2
                } else {
                    4
                }
            }
        }
    }

    /// Runs steps from the provisional set `o` (through `cache` when given).
    fn run(
        &self,
        mut o: Bits,
        mut steps: Vec<Probe>,
        explained: bool,
        ex: &mut Explain,
        cache: &mut Option<&mut StepCache>,
    ) -> Bits {
        // Ties in rank: the probe's own steps first, then by name (no two steps alike). Not by
        // key: its number depends on the order names were first read in this process
        // (threads racing), and which steps are probed and which filtered, and the probes
        // counted, must be the same in every run. (Each step's key made once: fewer
        // instructions than remaking it at every comparison.)
        steps.sort_by_cached_key(|p| {
            let window = matches!(p, Probe::Window(..));
            (self.rank(p), window, p.attr().as_str())
        });
        // Sizes are counted exactly only when explaining; otherwise just far enough to tell
        // whether checking one by one has become cheaper than probing.
        let limit = if explained {
            u64::MAX
        } else {
            self.opts.filter_max
        };
        let mut size = o.len_up_to(limit);
        for step in &steps {
            if size == 0 {
                break;
            }
            let filtered = size <= self.opts.filter_max;
            let cached = match cache.as_deref_mut() {
                Some(c) if !filtered && !explained => self.cached(c, step),
                _ => None,
            };
            if let Some(set) = cached {
                // A probe all the same, answered from the set remembered.
                ex.probes += 1;
                o.and_assign(set);
            } else if filtered {
                ex.filtered += size;
                o = self.filter(o, step);
            } else {
                ex.probes += 1;
                self.probe(&mut o, step);
            }
            let before = size;
            size = o.len_up_to(limit);
            if explained {
                ex.steps.push(Step {
                    attr: step.attr().as_str().to_owned(),
                    kind: step.kind(),
                    filtered,
                    before: Some(before),
                    after: Some(size),
                });
            }
        }
        o
    }

    /// What `step` keeps of every live rectangle, from `cache` (made now on the step's second
    /// use; `None` on its first, or when the cache is full).
    fn cached<'c>(&self, cache: &'c mut StepCache, step: &Probe) -> Option<&'c Bits> {
        if !cache.sets.contains_key(step) {
            if cache.seen.insert(step.clone()) || cache.bytes >= STEP_CACHE_BYTES {
                return None;
            }
            let mut all = self.live.clone();
            self.probe(&mut all, step);
            cache.bytes += all.bytes();
            cache.sets.insert(step.clone(), all);
        }
        cache.sets.get(step)
    }

    /// One step by probing its axis.
    fn probe(&self, o: &mut Bits, step: &Probe) {
        match step {
            Probe::Stab(k, p) => {
                if let Some(axis) = self.exported.get(k) {
                    axis.keep_containing(o, p);
                }
            }
            Probe::Absent(k) => {
                if let Some(axis) = self.exported.get(k) {
                    o.andnot_assign(axis.rids());
                }
            }
            Probe::Window(k, lo, hi) => {
                if let Some(axis) = self.imported.get(k) {
                    axis.restrict(o, lo, hi);
                }
            }
        }
    }

    /// One step by checking each candidate's stored rectangle.
    fn filter(&self, mut o: Bits, step: &Probe) -> Bits {
        match step {
            Probe::Stab(k, p) => match self.exported.get(k) {
                Some(axis) => {
                    o.retain(|r| axis.contains(r, p) != Some(false));
                    o
                }
                None => o,
            },
            Probe::Absent(k) => match self.exported.get(k) {
                Some(axis) => {
                    let mut o = o;
                    o.andnot_assign(axis.rids());
                    o
                }
                None => o,
            },
            Probe::Window(k, lo, hi) => match self.imported.get(k) {
                Some(axis) => {
                    o.retain(|r| axis.admits(r, lo, hi));
                    o
                }
                None => o,
            },
        }
    }

    /// Whether `view` (a stored unit's ad or port view) matches `q` by evaluation.
    fn evaluate(&self, q: &Query, view: &ClassAd) -> bool {
        let opts = &self.opts.eval;
        match (q.direction, &q.probe, &q.constraint) {
            (Direction::TwoSided, Some(p), _) => symmetric_match(view, &p.ad, opts),
            (Direction::Reverse, Some(p), _) => accepts(view, &p.ad, opts),
            (Direction::OneSided, _, Some(c)) => match &q.target {
                Some(t) => satisfies_against(view, t, c, opts),
                None => satisfies(view, c, opts),
            },
            _ => false,
        }
    }

    /// [`Index::evaluate`] of a two-sided query, `known` saying whether the stored unit's
    /// constraint and the probe's are known to hold: only the others are evaluated.
    fn evaluate_rest(&self, q: &Query, view: &ClassAd, known: (bool, bool)) -> bool {
        let opts = &self.opts.eval;
        match (q.direction, &q.probe, known) {
            (Direction::TwoSided, Some(_), (true, true)) => true,
            (Direction::TwoSided, Some(p), (true, false)) => one_side_match(&p.ad, view, opts),
            (Direction::TwoSided, Some(p), (false, true)) => one_side_match(view, &p.ad, opts),
            _ => self.evaluate(q, view),
        }
    }

    /// Confirms a raw answer: the matching units, sorted by ad and port. Exact candidates
    /// are taken as they are; the others are evaluated (counted in the answer's explain).
    pub fn confirm(&self, q: &Query, a: &mut Answer) -> Vec<Hit> {
        let mut hits = Vec::new();
        self.confirm_with(q, a, self.source.as_deref(), true, |u| {
            hits.push(Hit {
                ad: u.ad,
                port: u.port,
            })
        });
        hits.sort_unstable();
        hits
    }

    /// Confirms a raw answer: the ids of the ads with a matching unit.
    pub fn confirm_ads(&self, q: &Query, a: &mut Answer) -> RoaringBitmap {
        self.confirm_ads_in(q, a, self.source.as_deref(), true)
    }

    /// [`Index::confirm_ads`] evaluating the ads `views` gives (by this index's ids) instead
    /// of those it holds or reads back: for a caller that holds the very versions the index
    /// was made of (a matchmaking cycle lent a held index). `views` is asked in batches,
    /// never for every ad at once.
    pub fn confirm_ads_from(
        &self,
        q: &Query,
        a: &mut Answer,
        views: &dyn AdSource,
    ) -> RoaringBitmap {
        self.confirm_ads_in(q, a, Some(views), false)
    }

    fn confirm_ads_in(
        &self,
        q: &Query,
        a: &mut Answer,
        source: Option<&dyn AdSource>,
        scan_many: bool,
    ) -> RoaringBitmap {
        let mut ads = Vec::new();
        self.confirm_with(q, a, source, scan_many, |u| ads.push(u.ad));
        ads.sort_unstable();
        ads.dedup();
        RoaringBitmap::from_sorted_iter(ads).unwrap_or_default()
    }

    /// Confirms `a`, ads read back from `source` when the units hold no views (`scan_many`:
    /// one pass over all of them when much of the collection is pending).
    fn confirm_with(
        &self,
        q: &Query,
        a: &mut Answer,
        source: Option<&dyn AdSource>,
        scan_many: bool,
        mut hit: impl FnMut(&UnitData),
    ) {
        let mut seen = RoaringBitmap::new();
        let single = self.one_rect_per_unit();
        let all_exact = a.all_exact();
        let (mut exact, mut confirmed) = (0, 0);
        // Units to evaluate: their views are read in one batch when the index holds none.
        let mut pending: Vec<u32> = Vec::new();
        for rid in a.rids.iter() {
            let Some(u) = self.rids.owner(rid).map(|o| o.unit) else {
                continue;
            };
            if !single && !seen.insert(u) {
                continue;
            }
            let Some(unit) = self.unit(u) else { continue };
            if all_exact || a.exact.contains(rid) {
                exact += 1;
                confirmed += 1;
                hit(unit);
            } else {
                pending.push(u);
            }
        }
        let evaluated = pending.len() as u64;
        match source {
            // Much of a collection whose ads are elsewhere: one pass over all of them.
            Some(source)
                if scan_many
                    && pending.len() >= CONFIRM_BATCH
                    && pending.len() * 4 >= self.len() =>
            {
                let mut by_ad: FxHashMap<AdId, Vec<u32>> = FxHashMap::default();
                for &u in &pending {
                    if let Some(unit) = self.unit(u) {
                        by_ad.entry(unit.ad).or_default().push(u);
                    }
                }
                source.for_each(&mut |id, ad| {
                    let Some(us) = by_ad.get(&id) else { return };
                    let views = crate::ports::units_for(&ad, &self.opts);
                    for unit in us.iter().filter_map(|&u| self.unit(u)) {
                        let view = views.iter().find(|v| v.port == unit.port);
                        if view.is_some_and(|v| self.evaluate(q, &v.ad)) {
                            confirmed += 1;
                            hit(unit);
                        }
                    }
                });
            }
            _ => {
                for chunk in pending.chunks(CONFIRM_BATCH) {
                    for (&u, view) in chunk.iter().zip(self.views_from(chunk, source)) {
                        let Some(unit) = self.unit(u) else { continue };
                        // An ad that cannot be read back matches nothing.
                        if view.is_some_and(|v| self.evaluate(q, &v)) {
                            confirmed += 1;
                            hit(unit);
                        }
                    }
                }
            }
        }
        a.explain.exact = exact;
        a.explain.evaluations = evaluated;
        a.explain.confirmed = confirmed;
        let c = &self.counters;
        Counters::add(&c.exact, exact);
        Counters::add(&c.evaluations, evaluated);
        Counters::add(&c.confirmed, confirmed);
    }

    /// A raw answer split by ad, for confirming one ad at a time ([`Index::confirm_ad`]):
    /// the ads with a candidate known to match (counted as exact and confirmed), and the
    /// others, whose candidates must be evaluated.
    pub fn split_ads(&self, a: &Answer) -> (RoaringBitmap, RoaringBitmap) {
        let (sure, pending) = self.split_ads_bits(a);
        (sure.to_roaring(), pending.to_roaring())
    }

    /// [`Index::split_ads_bits`] of an answer from [`Index::candidates_uncounted`], its
    /// candidate units counted into its [`Explain`] — when no ad has several units, as the
    /// ads split out, without looking at the units.
    pub fn split_ads_counted(&self, a: &mut Answer) -> (Bits, Bits) {
        let (sure, pending) = self.split_ads_bits(a);
        a.explain.candidates = match self.one_unit_per_ad() {
            true => sure.len() + pending.len(),
            false => self.count_units(&a.rids),
        };
        (sure, pending)
    }

    /// The ads of the RIDs `rids` (an answer's raw candidates, say), as a word set of ad ids.
    pub fn ads_of(&self, rids: &Bits) -> Bits {
        let (words, hint, ad_of) = self.ad_words(rids);
        words.ads(rids, hint, ad_of)
    }

    /// How RIDs map onto ads ([`AdWords`], made on first use), room for the ads of `rids` at
    /// once, and the owner of each RID.
    fn ad_words(&self, rids: &Bits) -> (&AdWords, u32, impl Fn(u32) -> Option<u32> + '_) {
        let owners = self.rids.owners();
        let ad_of = |rid: u32| owners.get(rid as usize).copied().flatten().map(|o| o.ad);
        let words = self
            .ad_words
            .get_or_init(|| AdWords::new(owners.len(), ad_of));
        // RIDs come mostly in the order of their ads: room for them all at once.
        let hint = rids
            .max()
            .and_then(ad_of)
            .map_or(0, |a| a.saturating_add(1));
        (words, hint, ad_of)
    }

    /// [`Index::split_ads`] as word sets of ad ids.
    pub fn split_ads_bits(&self, a: &Answer) -> (Bits, Bits) {
        // The exact candidates are among the raw ones: their ads, and the others' ads, in
        // one pass over the words.
        debug_assert!(
            a.exact.iter().all(|r| a.rids.contains(r)),
            "exact among raw"
        );
        let (words, hint, ad_of) = self.ad_words(&a.rids);
        let [sure, mut pending] = words.ads_split(&a.rids, &a.exact, hint, ad_of);
        pending.andnot_assign(&sure);
        let c = &self.counters;
        Counters::add(&c.exact, sure.len());
        Counters::add(&c.confirmed, sure.len());
        (sure, pending)
    }

    /// Whether ad `id` has a unit among `a`'s candidates that matches `q`, by evaluating
    /// them (an ad [`Index::split_ads`] left pending): what [`Index::confirm_ads`] finds of
    /// that ad. Counted as evaluations and confirmations.
    pub fn confirm_ad(&self, q: &Query, a: &Answer, id: AdId) -> bool {
        self.confirm_ad_in(q, a, id, self.source.as_deref())
    }

    /// [`Index::confirm_ad`] evaluating the ad `views` gives (see
    /// [`Index::confirm_ads_from`]).
    pub fn confirm_ad_from(&self, q: &Query, a: &Answer, id: AdId, views: &dyn AdSource) -> bool {
        self.confirm_ad_in(q, a, id, Some(views))
    }

    fn confirm_ad_in(
        &self,
        q: &Query,
        a: &Answer,
        id: AdId,
        source: Option<&dyn AdSource>,
    ) -> bool {
        let Some(us) = self.ads.get(&id) else {
            return false;
        };
        let c = &self.counters;
        for &u in us {
            let Some(d) = self.unit(u) else { continue };
            if !d.rids.iter().any(|&r| a.rids.contains(r)) {
                continue;
            }
            Counters::add(&c.evaluations, 1);
            // What the window decided of each side is not evaluated again.
            let decided = |set: &Bits| {
                d.rids
                    .iter()
                    .any(|&r| a.rids.contains(r) && set.contains(r))
            };
            let known = (decided(&a.stored_decided), decided(&a.probe_decided));
            let holds = match (&d.view, source) {
                (Some(view), _) => self.evaluate_rest(q, view, known),
                // Read back from the source; an ad that cannot be read matches nothing.
                (None, Some(_)) => self
                    .views_from(&[u], source)
                    .pop()
                    .flatten()
                    .is_some_and(|v| self.evaluate_rest(q, &v, known)),
                (None, None) => false,
            };
            if holds {
                Counters::add(&c.confirmed, 1);
                return true;
            }
        }
        false
    }

    /// Prepares, runs and confirms `q`: the matching units and what was done.
    pub fn matching(&mut self, q: &Query) -> (Vec<Hit>, Explain) {
        let span = tracing::debug_span!("index_query", candidates = 0u64, confirmed = 0u64);
        let _entered = span.enter();
        self.prepare(q);
        let mut a = self.candidates(q);
        let hits = self.confirm(q, &mut a);
        span.record("candidates", a.explain.candidates);
        span.record("confirmed", a.explain.confirmed);
        (hits, a.explain)
    }

    /// The stored units matching `ad` both ways (every port of `ad` in turn).
    pub fn two_sided(&mut self, ad: &Arc<ClassAd>) -> Vec<(Option<u16>, Vec<Hit>)> {
        Query::two_sided(ad, &self.opts)
            .iter()
            .map(|q| (q.port(), self.matching(q).0))
            .collect()
    }

    /// The stored units whose constraints accept `ad` (every port of `ad` in turn).
    pub fn reverse(&mut self, ad: &Arc<ClassAd>) -> Vec<(Option<u16>, Vec<Hit>)> {
        Query::reverse(ad, &self.opts)
            .iter()
            .map(|q| (q.port(), self.matching(q).0))
            .collect()
    }

    /// The stored units satisfying `constraint` (evaluated with each as MY).
    pub fn one_sided(&mut self, constraint: &Expr) -> (Vec<Hit>, Explain) {
        let q = Query::one_sided(constraint, &self.opts);
        self.matching(&q)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{AdId, IndexOptions};
    use adjoin_query::parse;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(parse::classad(text).expect("ad"))
    }

    fn index(texts: &[&str]) -> Index {
        let mut idx = Index::new(IndexOptions::default());
        for (i, t) in texts.iter().enumerate() {
            idx.insert(i as AdId, ad(t)).expect("insert");
        }
        idx
    }

    fn ids(hits: &[Hit]) -> Vec<AdId> {
        hits.iter().map(|h| h.ad).collect()
    }

    /// Figure 16: offers stored, requests probing; and the figure's intersections.
    #[test]
    fn figure_16() {
        let mut idx = index(&[
            "[ x=10; Constraint=other.y>=7 ]",
            "[ x=7; Constraint=other.y<=5 ]",
        ]);
        let cases: [(&str, &[AdId], &[AdId]); 3] = [
            // (request, both ways, offers accepting the request)
            ("[ y=8; Constraint=other.x>=8 ]", &[0], &[0]),
            ("[ y=3; Constraint=other.x<=15 ]", &[1], &[1]),
            ("[ y=7; Constraint=other.x<=8 ]", &[], &[0]),
        ];
        for (req, both, accepting) in cases {
            let r = ad(req);
            let two = idx.two_sided(&r);
            assert_eq!(ids(&two[0].1), both, "{req}");
            let rev = idx.reverse(&r);
            assert_eq!(ids(&rev[0].1), accepting, "{req} reverse");
        }
        assert_eq!(
            idx.stats().evaluations,
            0,
            "everything here converts exactly"
        );
    }

    /// 4.4.2 and 4.4.4: a name both imported and exported; one name with two types.
    #[test]
    fn names_and_types() {
        let mut idx = index(&[
            "[ x = 7 ; Constraint = other.x > 1 ]",
            "[ x = 73282; Constraint = other.y == \"foo\" ]",
            "[ x = \"asd\"; Constraint = other.y == \"bar\" ]",
        ]);
        assert_eq!(
            ids(&idx.two_sided(&ad("[ x = 3 ; Constraint = other.x < 9 ]"))[0].1),
            [0]
        );
        let cases: [(&str, &[AdId]); 5] = [
            ("x > 10", &[1]),
            ("x > \"a\"", &[2]),
            ("x == \"ASD\"", &[2]),
            ("x =?= \"ASD\"", &[]),
            // `"asd" >= 7` is error, and `error || true` is error: the index proposes ad 2,
            // evaluation rejects it.
            ("x >= 7 || x == \"asd\"", &[0, 1]),
        ];
        for (c, want) in cases {
            let (hits, _) = idx.one_sided(&parse::expr(c).expect("expr"));
            assert_eq!(ids(&hits), want, "{c}");
        }
    }

    /// The attributes a window could not prune on are listed by name, whichever was read
    /// first in the process.
    #[test]
    fn unprepared_attributes_are_listed_by_name() {
        assert!(Key::of("UnprepZed") < Key::of("UnprepAble"));
        let idx = index(&["[UnprepAble = 5; UnprepZed = 5; Requirements = true]"]);
        let q = Query::one_sided(
            &parse::expr("UnprepZed > 1 && UnprepAble > 1").expect("expr"),
            idx.options(),
        );
        assert_eq!(
            idx.candidates(&q).explain.unprepared,
            ["unprepable", "unprepzed"]
        );
    }

    /// A query reading an attribute no query read before gives it an imported axis; until
    /// then the attribute prunes nothing and nothing is exact.
    #[test]
    fn adaptive_dimensions() {
        let mut idx = index(&[
            "[Memory = 64; Requirements = true]",
            "[Memory = 8; Requirements = true]",
        ]);
        assert!(idx.imported_attrs().is_empty());
        let q = Query::one_sided(&parse::expr("Memory > 10").expect("expr"), idx.options());
        let raw = idx.candidates(&q);
        assert_eq!((raw.rids.len(), raw.exact.len()), (2, 0));
        assert_eq!(raw.explain.unprepared, ["memory"]);
        idx.prepare(&q);
        assert_eq!(idx.imported_attrs(), [adjoin_query::Key::of("memory")]);
        let mut a = idx.candidates(&q);
        assert_eq!((a.rids.len(), a.exact.len()), (1, 1));
        assert_eq!(ids(&idx.confirm(&q, &mut a)), [0]);
        // Later inserts record their value on the new axis.
        idx.insert(7, ad("[Memory = 99; Requirements = true]"))
            .expect("insert");
        assert_eq!(idx.candidates(&q).rids.len(), 2);
    }

    #[test]
    fn explain_counts_steps() {
        let mut idx = index(&[
            "[Arch = \"INTEL\"; Memory = 64; Requirements = TARGET.Size < 10]",
            "[Arch = \"SPARC\"; Memory = 64; Requirements = TARGET.Size < 10]",
            "[Arch = \"INTEL\"; Memory = 8; Requirements = TARGET.Size < 100]",
        ]);
        let job = ad("[Size = 50; Requirements = TARGET.Arch == \"intel\" && TARGET.Memory > 32]");
        let q = Query::two_sided(&job, idx.options()).remove(0).explained();
        idx.prepare(&q);
        let mut a = idx.candidates(&q);
        let hits = idx.confirm(&q, &mut a);
        assert!(hits.is_empty());
        let steps: Vec<(String, &str, Option<u64>)> = a
            .explain
            .steps
            .iter()
            .map(|s| (s.attr.clone(), s.kind, s.after))
            .collect();
        assert_eq!(
            steps,
            [
                ("arch".to_string(), "window", Some(2)),
                ("size".to_string(), "stab", Some(1)),
                ("memory".to_string(), "window", Some(0)),
            ]
        );
        let text = a.explain.to_string();
        assert!(
            text.starts_with("two-sided query, 1 rectangle(s)"),
            "{text}"
        );
        // Not explained: the same probes counted, no steps listed.
        let plain = idx.candidates(&Query::two_sided(&job, idx.options()).remove(0));
        assert_eq!(plain.rids, a.rids);
        assert_eq!(plain.explain.probes, a.explain.probes);
        assert!(plain.explain.steps.is_empty());
        assert!(
            text.ends_with("candidates 0, exact 0, evaluated 0, confirmed 0"),
            "{text}"
        );
    }

    /// Steps of one rank run in the order of their names, whichever name was read first in
    /// the process (keys are numbered in that order), so that what is probed and what is
    /// filtered, and the probes counted, are the same in every run.
    #[test]
    fn steps_of_one_rank_run_by_name_not_key() {
        for (a, b, read_first) in [
            ("StepsAlpha", "StepsBeta", "StepsAlpha"),
            ("StepsDelta", "StepsGamma", "StepsGamma"),
        ] {
            // `a` comes before `b` by name; `read_first` is interned first, so its key is the
            // smaller: the second pair's keys are in the other order.
            let read_second = if read_first == a { b } else { a };
            assert!(Key::of(read_first) < Key::of(read_second));
            let mut idx = index(&[
                &format!("[{a} = 1; {b} = 1; Requirements = true]"),
                &format!("[{a} = 5; {b} = 5; Requirements = true]"),
                &format!("[{a} = 9; {b} = 9; Requirements = true]"),
            ]);
            let job = ad(&format!(
                "[Requirements = TARGET.{b} > 2 && TARGET.{a} > 2]"
            ));
            let q = Query::two_sided(&job, idx.options()).remove(0).explained();
            idx.prepare(&q);
            let found = idx.candidates(&q);
            let steps: Vec<(String, &str)> = (found.explain.steps.iter())
                .map(|s| (s.attr.clone(), s.kind))
                .collect();
            let window = |n: &str| (n.to_ascii_lowercase(), "window");
            assert_eq!(steps, [window(a), window(b)]);
        }
    }

    /// Ports: rectangles per port, RIDs leading to (ad, port).
    #[test]
    fn ports_map_back() {
        let render = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/dissertation/fig10_render_service.ad"
        ))
        .expect("figure");
        let mut idx = Index::new(IndexOptions::default());
        idx.insert(5, ad(&render)).expect("insert");
        let owners: Vec<_> = idx
            .rids_of(5)
            .iter()
            .filter_map(|&r| idx.owner(r))
            .collect();
        // Port 0 bounds `request.Owner != "rival"`: two rectangles.
        assert_eq!(
            owners,
            [(5, Some(0)), (5, Some(0)), (5, Some(1)), (5, Some(2))]
        );
        let license = ad("[App = \"do_render\"; Requirements = true]");
        let hits = &idx.two_sided(&license)[0].1;
        assert_eq!(
            hits,
            &[Hit {
                ad: 5,
                port: Some(2)
            }]
        );
        assert!(idx.remove(5) && idx.rectangles() == 0);
    }

    #[test]
    fn the_index_can_be_shared() {
        fn shared<T: Send + Sync>() {}
        shared::<Index>();
        shared::<Query>();
    }
}
