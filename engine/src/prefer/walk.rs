//! The most preferred feasible offers found through the index, not by evaluating every
//! candidate.
//!
//! - [`walk`] / [`best`]: outcomes are walked from the optimum down in the lexicographic order,
//!   variable by variable, each step a window on the index — the request's requirements
//!   conjoined with the classes fixed so far (`TARGET.OpSys == "LINUX"`, `TARGET.Memory >=
//!   4096`, …) — and a branch whose window confirms nothing is dropped whole. A branch that
//!   confirms has an offer below it, so finding the best outcome costs at most one probe per
//!   class of each variable; interior steps only ask whether any candidate matches.
//! - [`partition`] / [`ranked`]: the whole ranked list from one window for the feasible offers
//!   and one per listed value of each variable; no `Value` is evaluated.
//!
//! Values tied at a level of the walk (the unlisted ones and `other`, or every value where no
//! row applies) are walked together: their window is the disjunction of their conjunctions.
//! Both give up ([`WalkError`]) past a budget of probes or of outcomes walked together; callers
//! then rank by plain evaluation ([`super::rank_all`]). Exact as long as no offer reads the
//! request's `Requirements` (the windows carry the conjunctions there) and no `Value` reads it
//! either.

use super::net::{Class, Preferences, Variable};
use super::rank::{order_component, ranks, sort, Ranked};
use crate::cycle::ranks::Ranker;
use adjoin_index::{AdId, Bits, Index, Query, RoaringBitmap};
use adjoin_query::eval::{requirements_key, EvalOptions};
use adjoin_query::specialize::boolish;
use adjoin_query::{BinOp, ClassAd, Expr, Key, Name, UnOp, Value};
use std::sync::Arc;
use thiserror::Error;

/// Windows one walk probes, at most.
pub const MAX_PROBES: usize = 1 << 16;
/// Partial outcomes walked together (tied), at most.
pub const MAX_TIED: usize = 1 << 10;

/// Where a walk finds the offers matching a request both ways.
pub trait Feasible {
    /// The offers matching `request` both ways, confirmed, in load order.
    fn matching(&mut self, request: &Arc<ClassAd>) -> RoaringBitmap;

    /// Whether any offer matches `request` both ways.
    fn any(&mut self, request: &Arc<ClassAd>) -> bool {
        !self.matching(request).is_empty()
    }

    /// Calls `f` with each offer matching `request` both ways (in no particular order, an
    /// offer perhaps more than once).
    fn each_matching(&mut self, request: &Arc<ClassAd>, f: &mut dyn FnMut(AdId)) {
        for o in &self.matching(request) {
            f(o);
        }
    }
}

/// The offers of an index, those of `except`'s rectangles left out (e.g. taken in a cycle).
pub struct IndexedOffers<'a> {
    /// The index.
    pub index: &'a mut Index,
    /// Rectangles never considered.
    pub except: &'a Bits,
}

/// No rectangle left out.
static NONE: std::sync::LazyLock<Bits> = std::sync::LazyLock::new(Bits::new);

impl<'a> IndexedOffers<'a> {
    /// Every offer of `index`.
    pub fn all(index: &'a mut Index) -> IndexedOffers<'a> {
        IndexedOffers {
            index,
            except: &NONE,
        }
    }
}

impl Feasible for IndexedOffers<'_> {
    fn matching(&mut self, request: &Arc<ClassAd>) -> RoaringBitmap {
        let mut ads = RoaringBitmap::new();
        for q in Query::two_sided(request, self.index.options()) {
            self.index.prepare(&q);
            let mut a = self.index.candidates_except(&q, self.except);
            ads |= self.index.confirm_ads(&q, &mut a);
        }
        ads
    }

    /// Candidates all known to match are taken from the window as they are (no sorting into a
    /// set); otherwise they are confirmed.
    fn each_matching(&mut self, request: &Arc<ClassAd>, f: &mut dyn FnMut(AdId)) {
        for q in Query::two_sided(request, self.index.options()) {
            self.index.prepare(&q);
            let mut a = self.index.candidates_except(&q, self.except);
            if a.all_exact() {
                for rid in a.rids.iter() {
                    if let Some((ad, _)) = self.index.owner(rid) {
                        f(ad);
                    }
                }
            } else {
                for o in &self.index.confirm_ads(&q, &mut a) {
                    f(o);
                }
            }
        }
    }

    /// Answered by a candidate the window knows to match, when there is one; else by
    /// confirming.
    fn any(&mut self, request: &Arc<ClassAd>) -> bool {
        for q in Query::two_sided(request, self.index.options()) {
            self.index.prepare(&q);
            let mut a = self.index.candidates_except(&q, self.except);
            if !a.exact.is_empty() {
                return true;
            }
            if !a.rids.is_empty() && !self.index.confirm_ads(&q, &mut a).is_empty() {
                return true;
            }
        }
        false
    }
}

/// The offers' ranks, classed once for a pool: offers of one shape from `Rank` rank a given
/// request alike, so ranking the offers that share an outcome evaluates each class's rank
/// once (the cycle's ranker, [`crate::cycle`]).
pub struct OfferRanks {
    ranker: Ranker,
    /// A "taken" flag per offer, all false (the ranker's lists are read whole).
    none_taken: Vec<bool>,
}

impl OfferRanks {
    /// Classes the ranks of `offers` (by position).
    pub fn new(offers: &[Arc<ClassAd>]) -> OfferRanks {
        OfferRanks {
            ranker: Ranker::new(Key::of("Rank"), offers),
            none_taken: vec![false; offers.len()],
        }
    }
}

/// Why a walk gave up.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
pub enum WalkError {
    /// Too many windows.
    #[error("the preference walk gave up after {0} probes")]
    Probes(usize),
    /// Too many partial outcomes tied at one level.
    #[error("the preference walk gave up at {0} tied partial outcomes")]
    Tied(usize),
    /// The request has ports: its windows are its ports', which the walk does not narrow.
    #[error("the preference walk does not narrow requests with ports")]
    Ports,
}

/// What a walk found: the feasible outcomes' keys with their offers, best first.
#[derive(Debug, Default)]
pub struct Walked {
    /// (outcome key, the offers with an outcome of that key), best first.
    pub leaves: Vec<(u64, RoaringBitmap)>,
    /// Windows probed.
    pub probes: usize,
}

/// Walks `request`'s outcomes from the optimum down; with `first`, stops at the first feasible
/// one.
pub fn walk(
    prefs: &Preferences,
    request: &Arc<ClassAd>,
    offers: &mut impl Feasible,
    first: bool,
) -> Result<Walked, WalkError> {
    let _span = tracing::debug_span!("prefer_walk", variables = prefs.len(), first).entered();
    if request.get("Ports").is_some() {
        return Err(WalkError::Ports);
    }
    let mut w = Walker {
        prefs,
        request,
        offers,
        first,
        out: Walked::default(),
    };
    let Some(req_key) = requirements_key(request) else {
        return Ok(w.out);
    };
    let base = request.get_key(req_key).cloned();
    let Some(base) = base else {
        return Ok(w.out);
    };
    let name = Name::new(req_key.as_str());
    if prefs.is_empty() {
        let m = w.offers.matching(request);
        w.out.probes = 1;
        if !m.is_empty() {
            w.out.leaves.push((0, m));
        }
        return Ok(w.out);
    }
    w.level(0, vec![Vec::new()], 0, &name, &base)?;
    tracing::debug!(probes = w.out.probes, leaves = w.out.leaves.len(), "walked");
    Ok(w.out)
}

/// Every feasible outcome with its offers, best first, through the index without evaluating
/// any value: the feasible offers are one window, and each listed value of each variable
/// another (the requirements conjoined with "the variable has that value"); an offer's class
/// is the listed value whose window holds it (one at most: `condition`), else `other`. Its
/// outcome gives its key.
pub fn partition(
    prefs: &Preferences,
    request: &Arc<ClassAd>,
    offers: &mut impl Feasible,
) -> Result<Walked, WalkError> {
    let _span = tracing::debug_span!("prefer_partition", variables = prefs.len()).entered();
    if request.get("Ports").is_some() {
        return Err(WalkError::Ports);
    }
    let mut out = Walked::default();
    let feasible = offers.matching(request);
    out.probes = 1;
    let (Some(req_key), false) = (requirements_key(request), feasible.is_empty()) else {
        return Ok(out);
    };
    let Some(base) = request.get_key(req_key).cloned() else {
        return Ok(out);
    };
    let name = Name::new(req_key.as_str());
    let n = prefs.len();
    let count = feasible.len() as usize;
    // Each feasible offer's outcome, by its rank in `feasible`; `other` until a window says.
    let mut classes: Vec<Class> = Vec::with_capacity(count * n);
    // Each feasible offer's rank in `feasible`, by id (u32::MAX: not feasible).
    let mut position = vec![u32::MAX; feasible.max().map_or(0, |m| m as usize + 1)];
    for (j, o) in feasible.iter().enumerate() {
        if let Some(p) = position.get_mut(o as usize) {
            *p = j as u32;
        }
    }
    for _ in 0..count {
        classes.extend(prefs.vars.iter().map(Variable::other));
    }
    for (i, v) in prefs.vars.iter().enumerate() {
        for c in 0..v.domain.len() as Class {
            if out.probes >= MAX_PROBES {
                return Err(WalkError::Probes(out.probes));
            }
            out.probes += 1;
            let mut ad = ClassAd::clone(request);
            ad.insert(
                name,
                binary(
                    BinOp::And,
                    Expr::Paren(Box::new(base.clone())),
                    condition(v, c),
                ),
            );
            // The values' windows are disjoint (`condition`): at most one holds an offer.
            offers.each_matching(&Arc::new(ad), &mut |o| {
                let at = position.get(o as usize).copied().unwrap_or(u32::MAX) as usize;
                if let Some(slot) = classes.get_mut(at.wrapping_mul(n) + i) {
                    *slot = c;
                }
            });
        }
    }
    // Offers by key, in load order within each: each key's group found by the outcome packed
    // a byte a class (up to 8 variables), keys computed once per outcome.
    let mut group_of: rustc_hash::FxHashMap<u64, usize> = Default::default();
    let mut groups: Vec<(u64, Vec<u32>)> = Vec::new();
    for (j, o) in feasible.iter().enumerate() {
        let Some(outcome) = classes.get(j * n..(j + 1) * n) else {
            continue;
        };
        let key = if n <= 8 {
            let packed = outcome
                .iter()
                .fold(0u64, |acc, &c| (acc << 8) | u64::from(c & 0xff));
            let g = *group_of.entry(packed).or_insert_with(|| {
                let key = prefs.key(outcome);
                match groups.iter().position(|g| g.0 == key) {
                    Some(g) => g,
                    None => {
                        groups.push((key, Vec::new()));
                        groups.len() - 1
                    }
                }
            });
            if let Some(grp) = groups.get_mut(g) {
                grp.1.push(o);
            }
            continue;
        } else {
            prefs.key(outcome)
        };
        match groups.iter_mut().find(|g| g.0 == key) {
            Some(g) => g.1.push(o),
            None => groups.push((key, vec![o])),
        }
    }
    groups.sort_unstable_by_key(|g| g.0);
    out.leaves = groups
        .into_iter()
        .map(|(k, ids)| (k, RoaringBitmap::from_sorted_iter(ids).unwrap_or_default()))
        .collect();
    Ok(out)
}

struct Walker<'a, F> {
    prefs: &'a Preferences,
    request: &'a Arc<ClassAd>,
    offers: &'a mut F,
    first: bool,
    out: Walked,
}

impl<F: Feasible> Walker<'_, F> {
    /// Extends the tied partial outcomes `prefixes` (variables before `i`, key `key` so far)
    /// by variable `i`, best position first. Returns true when the walk is done.
    fn level(
        &mut self,
        i: usize,
        prefixes: Vec<Vec<Class>>,
        key: u64,
        name: &Name,
        base: &Expr,
    ) -> Result<bool, WalkError> {
        let (Some(v), Some(&weight)) = (self.prefs.vars.get(i), self.prefs.weights.get(i)) else {
            return Ok(false);
        };
        // The extended prefixes, grouped by the position of the new class.
        let mut groups: Vec<(u16, Vec<Vec<Class>>)> = Vec::new();
        for p in &prefixes {
            let row = v.row(|j| p.get(j).copied().unwrap_or(Class::MAX));
            for c in 0..v.classes() as Class {
                let q = row.map_or(0, |r| r.position(c));
                let mut next = p.clone();
                next.push(c);
                match groups.iter_mut().find(|g| g.0 == q) {
                    Some(g) => g.1.push(next),
                    None => groups.push((q, vec![next])),
                }
            }
        }
        groups.sort_by_key(|g| g.0);
        let last = i + 1 == self.prefs.len();
        for (q, group) in groups {
            if group.len() > MAX_TIED {
                return Err(WalkError::Tied(group.len()));
            }
            if self.out.probes >= MAX_PROBES {
                return Err(WalkError::Probes(self.out.probes));
            }
            self.out.probes += 1;
            let narrowed = self.narrowed(&group, name, base);
            let key = key + u64::from(q) * weight;
            if last {
                // The offers of these outcomes, all of them.
                let found = self.offers.matching(&narrowed);
                if found.is_empty() {
                    continue;
                }
                self.out.leaves.push((key, found));
                if self.first {
                    return Ok(true);
                }
            } else if !self.offers.any(&narrowed) {
                continue;
            } else if self.level(i + 1, group, key, name, base)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// The request with its requirements conjoined with "the outcome begins with one of
    /// `prefixes`".
    fn narrowed(&self, prefixes: &[Vec<Class>], name: &Name, base: &Expr) -> Arc<ClassAd> {
        let any = prefixes
            .iter()
            .map(|p| {
                let all = p
                    .iter()
                    .zip(&self.prefs.vars)
                    .map(|(&c, v)| condition(v, c));
                conjoin(all)
            })
            .reduce(|a, b| binary(BinOp::Or, a, b))
            .unwrap_or(Expr::Lit(Value::Bool(false)));
        let mut ad = ClassAd::clone(self.request);
        ad.insert(
            *name,
            binary(BinOp::And, Expr::Paren(Box::new(base.clone())), any),
        );
        Arc::new(ad)
    }
}

fn binary(op: BinOp, a: Expr, b: Expr) -> Expr {
    Expr::binary(op, a, b)
}

/// The conjunction of `parts` (`true` when empty).
fn conjoin(parts: impl Iterator<Item = Expr>) -> Expr {
    parts
        .reduce(|a, b| binary(BinOp::And, a, b))
        .unwrap_or(Expr::Lit(Value::Bool(true)))
}

/// "Variable `v` has class `c`" as a requirement (true exactly then): `Value == x` for a
/// listed `x` (a boolean `Value` itself, or its negation, for `true` and `false`), and for
/// `other` that it equals none of them.
fn condition(v: &Variable, c: Class) -> Expr {
    let e = Expr::Paren(Box::new(v.value.clone()));
    let eq = |x: &Value| binary(BinOp::Eq, e.clone(), Expr::Lit(x.clone()));
    let isnt_true = |x: Expr| binary(BinOp::Isnt, x, Expr::Lit(Value::Bool(true)));
    match v.domain.get(c as usize) {
        Some(Value::Bool(true)) if boolish(&v.value) => e,
        Some(Value::Bool(false)) if boolish(&v.value) => Expr::Unary(UnOp::Not, Box::new(e)),
        Some(x) => {
            // A value's class is the first listed value it equals. Listed values are unequal
            // to each other, yet a real may equal two listed integers past 2^53 that round to
            // it: the later one's window leaves out what the earlier one's holds.
            let earlier = v.domain.iter().take(c as usize).filter(|y| same_real(x, y));
            conjoin(std::iter::once(eq(x)).chain(earlier.map(|y| isnt_true(eq(y)))))
        }
        None => conjoin(v.domain.iter().map(|x| isnt_true(eq(x)))),
    }
}

/// True when `x` and `y` are integers that differ but convert to the same real (past 2^53),
/// so that one real value equals both.
fn same_real(x: &Value, y: &Value) -> bool {
    matches!((x, y), (Value::Int(a), Value::Int(b)) if a != b && *a as f64 == *b as f64)
}

/// The offers of `walked`'s leaves ranked: by outcome, then `[request Rank, offer Rank]`, then
/// load order (`offers` by position).
pub fn rank_leaves(
    walked: &Walked,
    request: &Arc<ClassAd>,
    offers: &[Arc<ClassAd>],
    classed: Option<&OfferRanks>,
    opts: &EvalOptions,
) -> Ranked {
    let mut out: Ranked = Vec::new();
    for (key, ids) in &walked.leaves {
        if let (Some(c), true) = (classed, ids.len() > 1) {
            let mut list = c.ranker.matchlist(request, ids.iter(), offers, opts);
            while let Some((v, o)) = list.peek(&c.none_taken) {
                let mut vector = Vec::with_capacity(3);
                vector.push(order_component(*key));
                vector.extend_from_slice(v);
                out.push((vector, o));
                list.advance();
            }
            continue;
        }
        let mut leaf: Ranked = ids
            .iter()
            .filter_map(|o| {
                let offer = offers.get(o as usize)?;
                let [mine, theirs] = ranks(request, offer, opts);
                Some((vec![order_component(*key), mine, theirs], o))
            })
            .collect();
        sort(&mut leaf);
        out.extend(leaf);
    }
    out
}

/// `request`'s feasible offers among `index`'s (positions in `offers`), ranked best first
/// through the index ([`partition`]), `PreferenceKeep` applied.
pub fn ranked(
    prefs: &Preferences,
    request: &Arc<ClassAd>,
    index: &mut Index,
    offers: &[Arc<ClassAd>],
    classed: Option<&OfferRanks>,
    opts: &EvalOptions,
) -> Result<Ranked, WalkError> {
    let walked = partition(prefs, request, &mut IndexedOffers::all(index))?;
    let mut out = rank_leaves(&walked, request, offers, classed, opts);
    out.truncate(super::rank::keep_fraction(out.len(), prefs.keep));
    Ok(out)
}

/// `request`'s most preferred feasible offer among `index`'s (positions in `offers`) with
/// its vector, through the walk, stopping at the first feasible outcome.
pub fn best(
    prefs: &Preferences,
    request: &Arc<ClassAd>,
    index: &mut Index,
    offers: &[Arc<ClassAd>],
    classed: Option<&OfferRanks>,
    opts: &EvalOptions,
) -> Result<Option<(Vec<Value>, AdId)>, WalkError> {
    let walked = walk(prefs, request, &mut IndexedOffers::all(index), true)?;
    Ok(rank_leaves(&walked, request, offers, classed, opts)
        .into_iter()
        .next())
}

#[cfg(test)]
mod tests {
    use super::super::outcome::tests::PAPER;
    use super::super::rank::rank_all;
    use super::*;
    use adjoin_index::IndexOptions;
    use adjoin_query::parse;

    fn ads(texts: &[String]) -> Vec<Arc<ClassAd>> {
        texts
            .iter()
            .map(|t| Arc::new(parse::classad(t).expect("ad")))
            .collect()
    }

    #[test]
    fn walks_the_paper_net_through_the_index() {
        let mut offers = Vec::new();
        for os in ["a", "l", "w"] {
            for cpu in ["p", "x"] {
                for lib in ["e", "n"] {
                    for mem in [1, 4] {
                        offers.push(format!(
                            "[OS = \"{os}\"; CPU = \"{cpu}\"; Lib = \"{lib}\"; Memory = {mem}; Requirements = true]"
                        ));
                    }
                }
            }
        }
        let offers = ads(&offers);
        let mut idx = Index::new(IndexOptions::default());
        idx.extend((0..).zip(offers.iter().cloned()))
            .expect("index");
        let opts = EvalOptions::default();
        for extra in [
            "Requirements = TARGET.Memory >= 2",
            "Requirements = TARGET.Memory >= 2 && TARGET.OS != \"a\"",
            "Requirements = TARGET.CPU == \"x\" && TARGET.Lib == \"e\"; Rank = -TARGET.Memory",
            "Requirements = TARGET.OS == \"w\"",
            "Requirements = false",
        ] {
            let text = PAPER.replacen('[', &format!("[{extra}; "), 1);
            let request = Arc::new(parse::classad(&text).expect("request"));
            let prefs = Preferences::from_ad(&request, "r", &opts)
                .expect("ok")
                .expect("some");
            let all = IndexedOffers {
                index: &mut idx,
                except: &Bits::new(),
            }
            .matching(&request);
            let want = rank_all(&prefs, &request, all.iter(), &offers, &opts);
            let classed = OfferRanks::new(&offers);
            for c in [None, Some(&classed)] {
                let got = ranked(&prefs, &request, &mut idx, &offers, c, &opts).expect("walk");
                assert_eq!(got, want, "{extra}");
                let top = best(&prefs, &request, &mut idx, &offers, c, &opts).expect("walk");
                assert_eq!(top, want.first().cloned(), "{extra}");
            }
        }
    }
}

#[cfg(test)]
mod equal_tests {
    use super::super::rank::rank_all;
    use super::*;
    use adjoin_index::IndexOptions;
    use adjoin_query::parse;

    /// A real equal to two listed integers past 2^53 (which differ, but convert to it) is of
    /// the first's class, as evaluation takes it: the ranked list and the best offer agree
    /// with evaluation whichever integer is listed first and whichever is preferred.
    #[test]
    fn a_value_equal_to_two_listed_values_takes_the_first() {
        let offers: Vec<Arc<ClassAd>> = [
            "[M = 9007199254740992.0; Requirements = true]",
            "[M = 9007199254740993; Requirements = true]",
            "[M = 9007199254740992; Requirements = true]",
        ]
        .iter()
        .map(|t| Arc::new(parse::classad(t).expect("offer")))
        .collect();
        let mut idx = Index::new(IndexOptions::default());
        idx.extend((0..).zip(offers.iter().cloned()))
            .expect("index");
        let opts = EvalOptions::default();
        for prefs in [
            r#"{[Name = "m"; Value = TARGET.M; Order = {9007199254740993, 9007199254740992}]}"#,
            r#"{[Name = "m"; Value = TARGET.M; Order = {9007199254740992, 9007199254740993}]}"#,
            r#"{[Name = "a"; Value = TARGET.M; Order = {9007199254740993, 9007199254740992}],
                [Name = "m"; Value = TARGET.M; Parents = {"a"};
                 Table = {[When = {9007199254740993}; Order = {9007199254740992, 9007199254740993}]}]}"#,
        ] {
            let text = format!("[Requirements = true; Preferences = {prefs}]");
            let request = Arc::new(parse::classad(&text).expect("request"));
            let p = Preferences::from_ad(&request, "r", &opts)
                .expect("ok")
                .expect("some");
            let want = rank_all(&p, &request, 0..offers.len() as AdId, &offers, &opts);
            let got = ranked(&p, &request, &mut idx, &offers, None, &opts).expect("walk");
            assert_eq!(got, want, "{prefs}");
            let top = best(&p, &request, &mut idx, &offers, None, &opts).expect("walk");
            assert_eq!(top, want.first().cloned(), "{prefs}");
        }
    }
}

#[cfg(test)]
mod ports_tests {
    use super::*;
    use adjoin_index::IndexOptions;
    use adjoin_query::parse;

    #[test]
    fn requests_with_ports_are_left_to_evaluation() {
        let request = Arc::new(
            parse::classad(
                r#"[Ports = {[Requirements = true]}; Requirements = true;
                    Preferences = {[Name = "a"; Value = TARGET.A; Order = {1}]}]"#,
            )
            .expect("request"),
        );
        let p = Preferences::from_ad(&request, "r", &EvalOptions::default())
            .expect("ok")
            .expect("some");
        let mut idx = Index::new(IndexOptions::default());
        let got = partition(&p, &request, &mut IndexedOffers::all(&mut idx));
        assert_eq!(got.map(|w| w.probes), Err(WalkError::Ports));
        let got = walk(&p, &request, &mut IndexedOffers::all(&mut idx), true);
        assert_eq!(got.map(|w| w.probes), Err(WalkError::Ports));
    }
}
