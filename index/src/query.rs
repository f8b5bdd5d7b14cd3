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
//! rectangle and the results are united. The directions:
//!
//! - [`Direction::TwoSided`] — which stored units match a whole unit both ways (`adjoin
//!   candidates`, `adjoin join`): all steps; confirmed by `symmetric_match`;
//! - [`Direction::OneSided`] — which stored units satisfy an ad-hoc constraint evaluated with
//!   the stored ad as MY (`adjoin query`): step 4 only; confirmed by evaluating it;
//! - [`Direction::Reverse`] — which stored units' constraints accept a unit: steps 2–3 only;
//!   confirmed by evaluating the stored requirements with the unit as TARGET.
//!
//! Steps run cheapest and most selective first (equality windows, absent attributes, stabs,
//! ranges), and once few candidates are left the rest are checked RID by RID against the
//! stored rectangles rather than probed. The raw answer is a superset of the matches; the
//! candidates known exact (no deviant part on either side, every property exact, single
//! profiles) need no evaluation.

use crate::bits::Bits;
use crate::index::{AdId, Counters, Index, IndexOptions, UnitData};
use crate::ports::{units, Unit};
use crate::position::{ends, Pos};
use crate::profile::{constraint_dpf, query_dpf};
use crate::rectangle::{imp_value, rectangles, ConsistencyError, ImpValue, Rectangle};
use adjoin_query::eval::{
    eval_attr_in_match, eval_expr, requirements_key, symmetric_match, EvalOptions, MatchAds,
};
use adjoin_query::{ClassAd, Expr, Key, Value};
use roaring::RoaringBitmap;
use std::fmt;
use std::sync::Arc;

/// Which way a query matches.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    /// Stored units matching the probe both ways.
    TwoSided,
    /// Stored units satisfying an ad-hoc constraint over their attributes.
    OneSided,
    /// Stored units whose constraints accept the probe.
    Reverse,
}

impl fmt::Display for Direction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Direction::TwoSided => "two-sided",
            Direction::OneSided => "one-sided",
            Direction::Reverse => "reverse",
        })
    }
}

/// A query window, ready to run against an index.
#[derive(Clone, Debug)]
pub struct Query {
    direction: Direction,
    /// The probing unit (two-sided, reverse).
    probe: Option<Unit>,
    /// The ad-hoc constraint (one-sided).
    constraint: Option<Expr>,
    /// The window's rectangles (one empty rectangle for reverse).
    rects: Vec<Rectangle>,
    /// The probe's side converted exactly.
    exact: bool,
    errors: Vec<ConsistencyError>,
    /// Count candidates after every step (for `--explain`; counting costs a pass each).
    explained: bool,
}

impl Query {
    /// Two-sided queries for `ad`: one per unit (port).
    pub fn two_sided(ad: &Arc<ClassAd>, opts: &IndexOptions) -> Vec<Query> {
        units(ad)
            .into_iter()
            .map(|u| {
                let conv = rectangles(
                    &constraint_dpf(&u.ad, &opts.eval, opts.profile_cap),
                    opts.rectangle_cap,
                );
                Query {
                    direction: Direction::TwoSided,
                    probe: Some(u),
                    constraint: None,
                    rects: conv.rects,
                    exact: conv.exact,
                    errors: conv.errors,
                    explained: false,
                }
            })
            .collect()
    }

    /// Reverse queries for `ad`: one per unit (port).
    pub fn reverse(ad: &Arc<ClassAd>) -> Vec<Query> {
        units(ad)
            .into_iter()
            .map(|u| Query {
                direction: Direction::Reverse,
                probe: Some(u),
                constraint: None,
                rects: vec![Rectangle {
                    exp: Vec::new(),
                    deviant: false,
                }],
                exact: true,
                errors: Vec::new(),
                explained: false,
            })
            .collect()
    }

    /// A one-sided query: the stored units for which `constraint`, evaluated with the stored
    /// ad as MY, is true.
    pub fn one_sided(constraint: &Expr, opts: &IndexOptions) -> Query {
        let conv = rectangles(
            &query_dpf(constraint, &opts.eval, opts.profile_cap),
            opts.rectangle_cap,
        );
        Query {
            direction: Direction::OneSided,
            probe: None,
            constraint: Some(constraint.clone()),
            rects: conv.rects,
            exact: conv.exact,
            errors: conv.errors,
            explained: false,
        }
    }

    /// The query counting candidates after every step, for [`Explain`].
    pub fn explained(mut self) -> Query {
        self.explained = true;
        self
    }

    /// The direction.
    pub fn direction(&self) -> Direction {
        self.direction
    }

    /// The probing unit's port, if it is a port.
    pub fn port(&self) -> Option<u16> {
        self.probe.as_ref().and_then(|u| u.port)
    }

    /// The window's rectangles.
    pub fn rectangles(&self) -> &[Rectangle] {
        &self.rects
    }

    /// Contradictions found in the probe's constraint.
    pub fn errors(&self) -> &[ConsistencyError] {
        &self.errors
    }

    /// Whether the probe's side converted exactly.
    pub fn is_exact(&self) -> bool {
        self.exact
    }

    /// The attributes the window's rectangles bound (they need imported axes).
    pub fn window_attrs(&self) -> Vec<Key> {
        let mut v: Vec<Key> = self
            .rects
            .iter()
            .flat_map(|r| r.exp.iter().map(|(k, _)| *k))
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
}

/// One component of a window as run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The attribute.
    pub attr: String,
    /// What was asked: `stab` (a probe value against stored bounds), `absent` (the probe
    /// lacks it), `window` (a probe bound against stored values).
    pub kind: &'static str,
    /// Whether candidates were checked one by one instead of probing the axis.
    pub filtered: bool,
    /// Candidates before (counted only for [`Query::explained`] queries, else `None`).
    pub before: Option<u64>,
    /// Candidates after (likewise).
    pub after: Option<u64>,
}

/// What a query did, for `--explain`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explain {
    /// The direction, as text.
    pub direction: String,
    /// Rectangles in the window.
    pub rectangles: usize,
    /// The steps run, in order (for several rectangles, the shared steps then each
    /// rectangle's).
    pub steps: Vec<Step>,
    /// Axes consulted as structures.
    pub probes: u64,
    /// RIDs checked one by one.
    pub filtered: u64,
    /// Attributes whose axis was missing (no pruning on them; see [`Index::prepare`]).
    pub unprepared: Vec<String>,
    /// Candidate units (the raw answer).
    pub candidates: u64,
    /// Candidates known to match without evaluation.
    pub exact: u64,
    /// Candidates evaluated by confirmation.
    pub evaluations: u64,
    /// Candidates confirmed.
    pub confirmed: u64,
}

impl fmt::Display for Explain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} query, {} rectangle(s), {} probe(s), {} RID check(s)",
            self.direction, self.rectangles, self.probes, self.filtered
        )?;
        let n = |c: Option<u64>| c.map_or_else(|| "?".to_string(), |c| c.to_string());
        for s in &self.steps {
            writeln!(
                f,
                "  {:<7} {:<24} {:>8} -> {:<8}{}",
                s.kind,
                s.attr,
                n(s.before),
                n(s.after),
                if s.filtered { " (checked)" } else { "" }
            )?;
        }
        if !self.unprepared.is_empty() {
            writeln!(f, "  not indexed: {}", self.unprepared.join(", "))?;
        }
        write!(
            f,
            "candidates {}, exact {}, evaluated {}, confirmed {}",
            self.candidates, self.exact, self.evaluations, self.confirmed
        )
    }
}

/// The raw answer of a query, as sets of RIDs ([`Bits`]; [`Answer::to_roaring`] for a
/// roaring bitmap).
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// Candidate rectangles: a superset of the matching ones.
    pub rids: Bits,
    /// The candidates whose match needs no evaluation.
    pub exact: Bits,
    /// What was done.
    pub explain: Explain,
}

impl Answer {
    /// The candidate RIDs as a roaring bitmap.
    pub fn to_roaring(&self) -> RoaringBitmap {
        self.rids.to_roaring()
    }

    /// Whether every candidate is known to match.
    pub fn all_exact(&self) -> bool {
        self.exact.len() == self.rids.len()
    }
}

/// A matching unit.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hit {
    /// The ad.
    pub ad: AdId,
    /// Its port, if the ad has ports.
    pub port: Option<u16>,
}

/// An axis with at most this many distinct keys (ends) is cheap to probe whatever the range.
const FEW_KEYS: usize = 64;

/// One component of a window: the probe's point (as a position) against stored bounds, an
/// attribute the probe lacks, or the probe's interval (as end positions) against stored
/// values.
#[derive(Clone, Debug)]
enum Probe {
    Stab(Key, Pos),
    Absent(Key),
    Window(Key, Pos, Pos),
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

/// True when a requirements value selects: `true` or a non-zero number (`&&`'s reading, as
/// in HTCondor's symmetric match and constraint queries).
fn selects(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Int(i) => *i != 0,
        Value::Real(r) => *r != 0.0,
        _ => false,
    }
}

/// Whether `my`'s requirements are true with `target` as TARGET.
pub fn accepts(my: &ClassAd, target: &ClassAd, opts: &EvalOptions) -> bool {
    match requirements_key(my) {
        Some(k) => selects(&eval_attr_in_match(
            k.as_str(),
            MatchAds { my, target },
            opts,
        )),
        None => false,
    }
}

/// Whether an ad-hoc constraint is true with `ad` as MY.
pub fn satisfies(ad: &ClassAd, constraint: &Expr, opts: &EvalOptions) -> bool {
    selects(&eval_expr(constraint, ad, opts))
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
        let mut ex = Explain {
            direction: q.direction.to_string(),
            rectangles: q.rects.len(),
            ..Explain::default()
        };
        // Steps 2-3: the probe's values against the stored bounds.
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
        // Step 4 per window rectangle: the probe's bounds against the stored values.
        let mut unprepared: Vec<Key> = Vec::new();
        let mut per_rect: Vec<Vec<Probe>> = Vec::with_capacity(q.rects.len());
        for r in &q.rects {
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
        // Units whose constraint is never true answer one-sided queries only.
        let mut live = self.live.clone();
        if q.direction != Direction::OneSided {
            live.andnot_assign(&self.never);
        }
        let rids = match per_rect.len() {
            0 => Bits::new(),
            1 => {
                let mut steps = shared;
                steps.append(&mut per_rect[0]);
                self.run(live, steps, q.explained, &mut ex)
            }
            _ => {
                let base = self.run(live, shared, q.explained, &mut ex);
                let mut all = Bits::new();
                for steps in per_rect {
                    all.or_assign(&self.run(base.clone(), steps, q.explained, &mut ex));
                }
                all
            }
        };
        // Exact: both sides exact and prepared; no deviant value meets a bound.
        let exact = if q.exact && unprepared.is_empty() {
            let mut good = rids.clone();
            if q.direction != Direction::OneSided {
                good.andnot_assign(&self.inexact);
            }
            for k in &deviant_values {
                if let Some(a) = self.exported.get(k) {
                    good.andnot_assign(a.rids());
                }
            }
            for k in q.window_attrs() {
                if let Some(a) = self.imported.get(&k) {
                    good.andnot_assign(a.deviant());
                }
            }
            good
        } else {
            Bits::new()
        };
        ex.unprepared = unprepared.iter().map(|k| k.as_str().to_owned()).collect();
        ex.candidates = self.count_units(&rids);
        let c = &self.counters;
        Counters::add(&c.queries, 1);
        Counters::add(&c.probes, ex.probes);
        Counters::add(&c.filtered, ex.filtered);
        Counters::add(&c.candidates, ex.candidates);
        Answer {
            rids,
            exact,
            explain: ex,
        }
    }

    /// The number of distinct units among `rids`.
    fn count_units(&self, rids: &Bits) -> u64 {
        if self.one_rect_per_unit() {
            return rids.len();
        }
        let mut seen = Bits::new();
        for rid in rids.iter() {
            if let Some(&u) = self.rids.owner(rid) {
                seen.insert(u);
            }
        }
        seen.len()
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

    /// Runs steps from the provisional set `o`.
    fn run(&self, mut o: Bits, mut steps: Vec<Probe>, explained: bool, ex: &mut Explain) -> Bits {
        steps.sort_by_key(|p| self.rank(p));
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
            if filtered {
                ex.filtered += size;
                o = self.filter(o, step);
            } else {
                ex.probes += 1;
                self.probe(&mut o, step);
            }
            let before = size;
            size = o.len_up_to(limit);
            ex.steps.push(Step {
                attr: step.attr().as_str().to_owned(),
                kind: step.kind(),
                filtered,
                before: explained.then_some(before),
                after: explained.then_some(size),
            });
        }
        o
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
    fn filter(&self, o: Bits, step: &Probe) -> Bits {
        match step {
            Probe::Stab(k, p) => match self.exported.get(k) {
                Some(axis) => {
                    Bits::from_rids(o.iter().filter(|&r| axis.contains(r, p) != Some(false)))
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
                Some(axis) => Bits::from_rids(o.iter().filter(|&r| axis.admits(r, lo, hi))),
                None => o,
            },
        }
    }

    /// Whether stored `unit` matches `q` by evaluation.
    fn evaluate(&self, q: &Query, unit: &UnitData) -> bool {
        let opts = &self.opts.eval;
        match (q.direction, &q.probe, &q.constraint) {
            (Direction::TwoSided, Some(p), _) => symmetric_match(&unit.view, &p.ad, opts),
            (Direction::Reverse, Some(p), _) => accepts(&unit.view, &p.ad, opts),
            (Direction::OneSided, _, Some(c)) => satisfies(&unit.view, c, opts),
            _ => false,
        }
    }

    /// Confirms a raw answer: the matching units, sorted by ad and port. Exact candidates
    /// are taken as they are; the others are evaluated (counted in the answer's explain).
    pub fn confirm(&self, q: &Query, a: &mut Answer) -> Vec<Hit> {
        let mut hits = Vec::new();
        self.confirm_with(q, a, |u| {
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
        let mut ads = Vec::new();
        self.confirm_with(q, a, |u| ads.push(u.ad));
        ads.sort_unstable();
        ads.dedup();
        RoaringBitmap::from_sorted_iter(ads).unwrap_or_default()
    }

    fn confirm_with(&self, q: &Query, a: &mut Answer, mut hit: impl FnMut(&UnitData)) {
        let mut seen = RoaringBitmap::new();
        let single = self.one_rect_per_unit();
        let all_exact = a.all_exact();
        let (mut exact, mut evaluated, mut confirmed) = (0, 0, 0);
        for rid in a.rids.iter() {
            let Some(&u) = self.rids.owner(rid) else {
                continue;
            };
            if !single && !seen.insert(u) {
                continue;
            }
            let Some(unit) = self.unit(u) else { continue };
            let ok = if all_exact || a.exact.contains(rid) {
                exact += 1;
                true
            } else {
                evaluated += 1;
                self.evaluate(q, unit)
            };
            if ok {
                confirmed += 1;
                hit(unit);
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

    /// Prepares, runs and confirms `q`: the matching units and what was done.
    pub fn matching(&mut self, q: &Query) -> (Vec<Hit>, Explain) {
        self.prepare(q);
        let mut a = self.candidates(q);
        let hits = self.confirm(q, &mut a);
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
        Query::reverse(ad)
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
