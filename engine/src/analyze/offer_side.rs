//! The offer side ("nobody likes me", seed 001 section 4): for each attribute of the request
//! that offers reject it over, how many offers do, and the value of that attribute accepted by
//! the most offers — tried among the values those offers' constraints compare it with — with
//! the matches it really yields.
//!
//! What "an offer rejects the request over X" means is decided per offer, the same whether the
//! offers are evaluated ([`Tally::offer`]) or read through the held index
//! (`indexed::tally_bounds`, which weighs [`Tally::bounds`] with no offer read and hands the
//! rest to [`Tally::offer`]):
//! - an offer without ports whose constraint the index converts exactly (its rectangles: a
//!   conjunction of comparisons of the request's attributes with constants, the offer's own
//!   attributes folded in), when the request's value of every attribute it bounds is a
//!   constant or absent: X is one it bounds and the request's value of X lies in none of its
//!   rectangles' intervals on X; the candidate values are those intervals' ends (an open end
//!   of an integer also the integers beside it). An offer whose constraint is never true
//!   rejects the request over no attribute (no value of one makes it accept);
//! - any other offer: its Requirements' top-level conjuncts are evaluated with the request as
//!   TARGET; every request attribute a failing conjunct reads (`TARGET.x`, or a bare name the
//!   offer lacks under the TARGET fallback); the candidates are the literals those conjuncts
//!   compare it with (and the integers beside one under a strict comparison).
//!
//! An attribute is spelled as the request spells it, else by the least spelling seen in an
//! evaluated offer's conjuncts, else as the first exactly converted offer bounding it writes
//! it (read back: the index keeps attribute keys, not spellings). Candidate strings are one
//! candidate whatever their case (comparisons fold it), written as the first offer (in load
//! order) they were seen in writes them — read back, when suggested, for a bound.

use super::conditions::{children, target_ref};
use super::table::Table;
use super::{selects, AnalyzeOptions, OfferSide, Pool, Rematch};
use adjoin_index::{
    constraint_dpf, imp_value, pairwise_units, rectangles, Bound, ImpValue, IndexOptions,
    MangledInterval, MangledValue,
};
use adjoin_query::ast::{BinOp, Expr};
use adjoin_query::eval::{eval_in_match, requirements_key, EvalOptions, MatchAds};
use adjoin_query::specialize::specialize_attr_top;
use adjoin_query::{ClassAd, Key, Name, Value};
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// The top-level conjuncts of `e` (past 4,096 of them, the operands of a conjunction are
/// taken whole).
fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>) {
    let inner = e.unparen();
    match inner.operands_of(BinOp::And) {
        Some(terms) if out.len() < 4096 => terms.for_each(|t| conjuncts(t, out)),
        Some(terms) => out.extend(terms),
        None => out.push(inner),
    }
}

/// The request's attributes `e` reads (as the offer's TARGET), with the literals each is
/// compared with directly.
fn reads(
    e: &Expr,
    offer: &ClassAd,
    fallback: bool,
    out: &mut FxHashMap<Key, (Name, Vec<Value>)>,
    depth: u32,
) {
    if depth > 200 {
        return;
    }
    if let Expr::Binary(op, p) = e {
        let lit = |x: &Expr| match x.unparen() {
            Expr::Lit(v @ (Value::Int(_) | Value::Real(_) | Value::Str(_) | Value::Bool(_))) => {
                Some(v.clone())
            }
            _ => None,
        };
        let pairs = [(&p.0, &p.1), (&p.1, &p.0)];
        for (a, b) in pairs {
            if let (Some(k), Some(v)) = (target_ref(a, offer, fallback), lit(b)) {
                let entry = out.entry(k).or_insert_with(|| (name_of(a), Vec::new()));
                entry.1.extend(near(*op, &v));
            }
        }
    }
    if let Some(k) = target_ref(e, offer, fallback) {
        out.entry(k).or_insert_with(|| (name_of(e), Vec::new()));
        return;
    }
    for c in children(e) {
        reads(c, offer, fallback, out, depth + 1);
    }
}

/// The attribute name a reference spells.
fn name_of(e: &Expr) -> Name {
    match e.unparen() {
        Expr::Select(_, n) | Expr::Attr(n) => *n,
        _ => Name::new("?"),
    }
}

/// Values next to literal `v` that a comparison `op` with it may accept: `v` itself, and
/// one beyond for integers under a strict comparison.
fn near(op: BinOp, v: &Value) -> Vec<Value> {
    match (op, v) {
        (BinOp::Lt | BinOp::Gt | BinOp::Ne, Value::Int(i)) => {
            vec![
                Value::Int(*i),
                Value::Int(i.saturating_add(1)),
                Value::Int(i.saturating_sub(1)),
            ]
        }
        _ => vec![v.clone()],
    }
}

/// One attribute's share of the offer side.
#[derive(Debug, Default)]
struct Entry {
    /// The least spelling seen in an evaluated offer's conjuncts.
    spelling: Option<&'static str>,
    /// Offers rejecting the request over it.
    rejecting: u64,
    /// Candidate values from evaluated conjuncts.
    values: Candidates,
    /// Candidate interval ends from exactly converted offers (the end, whether it is open),
    /// with how often seen and the first offer seen in.
    ends: FxHashMap<(MangledValue, bool), (u64, u32)>,
}

impl Entry {
    fn spelled(&mut self, s: &'static str) {
        if self.spelling.is_none_or(|t| s < t) {
            self.spelling = Some(s);
        }
    }
}

/// How `offer`'s Requirements spell attribute `k` (its first reference to it), if they do.
fn spelling_in(offer: &ClassAd, k: Key) -> Option<Name> {
    first_in(offer.get_key(requirements_key(offer)?)?, |e| match e {
        Expr::Attr(n) | Expr::Select(_, n) if n.key() == k => Some(*n),
        _ => None,
    })
}

/// What `f` gives for the first node of `e` (in reading order) it gives something for.
fn first_in<'e, T>(e: &'e Expr, mut f: impl FnMut(&'e Expr) -> Option<T>) -> Option<T> {
    let mut todo = vec![e];
    while let Some(x) = todo.pop() {
        if let Some(t) = f(x) {
            return Some(t);
        }
        // Children in reverse, so that the first in reading order comes out first.
        todo.extend(children(x).into_iter().rev());
    }
    None
}

/// Candidate values by their printing (strings folded: they compare alike).
type Candidates = FxHashMap<String, Candidate>;

/// A candidate value, how often it was seen, and the first offer (by position) it was seen in.
#[derive(Clone, Debug)]
pub(crate) struct Candidate {
    /// The value as that offer wrote it (or, `respell`, as the index compares it).
    value: Value,
    seen: u64,
    first: u32,
    /// Read from the index's bounds: a string is folded, and is spelled as the offer `first`
    /// writes it only when suggested.
    respell: bool,
}

/// Counts `n` sightings of `value` (first seen in offer `at`) among `values`.
fn add(values: &mut Candidates, value: Value, n: u64, at: u32, respell: bool) {
    let key = match &value {
        Value::Str(s) => Value::str(&s.to_ascii_lowercase()).to_string(),
        v => v.to_string(),
    };
    let c = values.entry(key).or_insert_with(|| Candidate {
        value: Value::Undefined,
        seen: 0,
        first: u32::MAX,
        respell,
    });
    c.seen += n;
    if at < c.first || c.first == u32::MAX {
        (c.value, c.first, c.respell) = (value, at, respell);
    }
}

/// One exactly converted rectangle's bounds, sorted by attribute.
pub(crate) type Bounds<'a> = &'a [(Key, MangledInterval)];

/// The interval `r` bounds `k` by.
fn bound(r: Bounds<'_>, k: Key) -> Option<&MangledInterval> {
    r.binary_search_by(|(a, _)| a.cmp(&k)).ok().map(|i| &r[i].1)
}

/// The offer side summed over offers, attribute by attribute (see the module note).
#[derive(Debug, Default)]
pub(crate) struct Tally {
    by: FxHashMap<Key, Entry>,
    /// The request's values as the offers' constraints read them, by attribute.
    points: FxHashMap<Key, ImpValue>,
    /// The first exactly converted rejecting offer bounding each attribute (by position),
    /// whose Requirements spell the attribute when nothing else does.
    bound_at: FxHashMap<Key, u32>,
}

impl Tally {
    /// Weighs offer `at` (its position: load order), rejecting `request`, whose constraint
    /// converted exactly to the rectangles `rects` (none: never true). `false`, and nothing
    /// weighed, when the request's value of an attribute they bound is not a constant (then
    /// only evaluation tells: [`Tally::offer`]).
    pub(crate) fn bounds(
        &mut self,
        request: &ClassAd,
        rects: &[Bounds<'_>],
        eval: &EvalOptions,
        at: u32,
    ) -> bool {
        for r in rects {
            for (k, _) in r.iter() {
                let p = self
                    .points
                    .entry(*k)
                    .or_insert_with(|| imp_value(request, *k, eval));
                if matches!(p, ImpValue::Deviant) {
                    return false;
                }
            }
        }
        for (i, r) in rects.iter().enumerate() {
            for (k, _) in r.iter() {
                if rects[..i].iter().any(|q| bound(q, *k).is_some()) {
                    continue;
                }
                self.bounded_by(*k, at);
                let inside = match self.points.get(k) {
                    Some(ImpValue::Point(m)) => rects
                        .iter()
                        .filter_map(|q| bound(q, *k))
                        .any(|iv| iv.contains(m)),
                    _ => false,
                };
                if inside {
                    continue;
                }
                let e = self.by.entry(*k).or_default();
                e.rejecting += 1;
                for (j, q) in rects.iter().enumerate() {
                    let Some(iv) = bound(q, *k) else { continue };
                    if rects[..j].iter().any(|o| bound(o, *k) == Some(iv)) {
                        continue;
                    }
                    let (lo, hi) = iv.value_ends();
                    for end in [lo, hi] {
                        let key = match end {
                            Bound::Included(m) => (m, false),
                            Bound::Excluded(m) => (m, true),
                            Bound::Unbounded => continue,
                        };
                        let seen = e.ends.entry(key).or_insert((0, at));
                        seen.0 += 1;
                        seen.1 = seen.1.min(at);
                    }
                }
            }
        }
        true
    }

    /// Counts `n` offers rejecting the request over `k`, weighed without their bounds (the
    /// index's stab counts: no candidate values); `first` is the first rejecting offer
    /// bounding `k` (by position).
    pub(crate) fn add_rejecting(&mut self, k: Key, n: u64, first: Option<u32>) {
        if n > 0 {
            self.by.entry(k).or_default().rejecting += n;
        }
        if let Some(at) = first {
            self.bounded_by(k, at);
        }
    }

    fn bounded_by(&mut self, k: Key, at: u32) {
        let b = self.bound_at.entry(k).or_insert(at);
        *b = (*b).min(at);
    }

    /// Weighs offer `at` rejecting `request`, read: by its exact conversion when it has one,
    /// else by evaluating its Requirements conjunct by conjunct.
    pub(crate) fn offer(
        &mut self,
        request: &ClassAd,
        offer: &Arc<ClassAd>,
        eval: &EvalOptions,
        at: u32,
    ) {
        let rects = exact_rectangles(offer, eval);
        self.offer_converted(request, offer, rects.as_deref(), eval, at);
    }

    /// [`Tally::offer`] with the offer's exact conversion made beforehand ([`exact_rectangles`],
    /// once for every request weighed against it).
    pub(crate) fn offer_converted(
        &mut self,
        request: &ClassAd,
        offer: &ClassAd,
        rects: Option<&[adjoin_index::Rectangle]>,
        eval: &EvalOptions,
        at: u32,
    ) {
        if let Some(rects) = rects {
            let bounds: Vec<Bounds<'_>> = rects.iter().map(|r| r.exp.as_slice()).collect();
            if self.bounds(request, &bounds, eval, at) {
                return;
            }
        }
        self.conjuncts(request, offer, eval, at);
    }

    /// Weighs one offer by evaluating its Requirements' top-level conjuncts.
    fn conjuncts(&mut self, request: &ClassAd, offer: &ClassAd, eval: &EvalOptions, at: u32) {
        let Some(req) = requirements_key(offer).and_then(|k| offer.get_key(k)) else {
            return;
        };
        let mut parts = Vec::new();
        conjuncts(req, &mut parts);
        let mut read = FxHashMap::default();
        for part in parts {
            let holds = selects(&eval_in_match(
                part,
                MatchAds {
                    my: offer,
                    target: request,
                },
                eval,
            ));
            if !holds {
                reads(part, offer, eval.target_fallback, &mut read, 0);
            }
        }
        for (k, (name, values)) in read {
            let e = self.by.entry(k).or_default();
            e.rejecting += 1;
            e.spelled(name.as_str());
            for v in values {
                add(&mut e.values, v, 1, at, false);
            }
        }
    }

    /// Per attribute: its name, the offers rejecting over it and the candidate values with
    /// how often each was seen; `offer_at` reads the offer that spells a name nothing else
    /// spells.
    pub(crate) fn attributes(
        mut self,
        request: &ClassAd,
        offer_at: OfferAt<'_>,
    ) -> Vec<(Name, u64, Candidates)> {
        let bound_at = std::mem::take(&mut self.bound_at);
        self.by
            .into_iter()
            .map(|(k, e)| {
                let name = match (request.entry(k), e.spelling, bound_at.get(&k)) {
                    (Some((n, _)), _, _) => n,
                    (None, Some(s), _) => Name::new(s),
                    (None, None, Some(&at)) => offer_at(at)
                        .and_then(|o| spelling_in(&o, k))
                        .unwrap_or_else(|| Name::new(k.as_str())),
                    (None, None, None) => Name::new(k.as_str()),
                };
                let mut values = e.values;
                for ((m, open), (n, at)) in e.ends {
                    let v = m.to_value();
                    let vs = match open {
                        true => near(BinOp::Lt, &v),
                        false => vec![v],
                    };
                    for v in vs {
                        add(&mut values, v, n, at, true);
                    }
                }
                (name, e.rejecting, values)
            })
            .collect()
    }
}

/// The rectangles of `offer`'s constraint as the index converts it, when it has no ports and
/// the conversion is exact.
pub(crate) fn exact_rectangles(
    offer: &Arc<ClassAd>,
    eval: &EvalOptions,
) -> Option<Vec<adjoin_index::Rectangle>> {
    let [unit] = pairwise_units(offer, eval).try_into().ok()?;
    if unit.port.is_some() {
        return None;
    }
    let caps = IndexOptions::default();
    let r = rectangles(
        &constraint_dpf(&unit.ad, eval, caps.profile_cap),
        caps.rectangle_cap,
    );
    r.exact.then_some(r.rects)
}

/// The offer side weighed over every offer of `pool` that `t` says rejects the request.
pub(crate) fn tally_pool(request: &ClassAd, t: &Table, pool: &Pool, eval: &EvalOptions) -> Tally {
    let mut tally = Tally::default();
    for (o, offer) in pool.ads.iter().enumerate() {
        if !t.accepting.contains(o as u32) {
            tally.offer(request, offer, eval, o as u32);
        }
    }
    tally
}

/// An offer by its position (the pool's, or the index number: both load order), read.
pub(crate) type OfferAt<'a> = &'a dyn Fn(u32) -> Option<Arc<ClassAd>>;

/// The offer side of the analysis from its tally, attributes by the most rejecting offers
/// first; the `would_match` of a suggested value comes from `rematch`, a suggested string
/// read from the index's bounds is spelled as the first offer it was seen in writes it.
pub(crate) fn offer_side(
    request: &ClassAd,
    tally: Tally,
    opts: &AnalyzeOptions,
    rematch: Rematch<'_>,
    whole: Acceptors<'_>,
    offer_at: OfferAt<'_>,
) -> Vec<OfferSide> {
    let mut out: Vec<OfferSide> = tally
        .attributes(request, offer_at)
        .into_iter()
        .map(|(name, rejecting, values)| {
            let (suggest, would_match) =
                best_value(request, name, values, opts, rematch, whole, offer_at);
            OfferSide {
                attribute: name.as_str().to_owned(),
                rejecting,
                suggest,
                would_match,
            }
        })
        .collect();
    out.sort_by(|a, b| {
        b.rejecting
            .cmp(&a.rejecting)
            .then(a.attribute.cmp(&b.attribute))
    });
    out
}

/// The attribute the offer side puts first (the most rejecting offers, then the name), with
/// no value tried for it: what `--unmatched` groups by.
pub(crate) fn first_attribute(
    request: &ClassAd,
    tally: Tally,
    offer_at: OfferAt<'_>,
) -> Option<String> {
    tally
        .attributes(request, offer_at)
        .into_iter()
        .map(|(name, rejecting, _)| (rejecting, name.as_str().to_owned()))
        .min_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)))
        .map(|(_, name)| name)
}

/// How many offers of the whole pool accept an ad (their Requirements true for it), and how
/// many accept the request now: a value is chosen by this count over every offer, also when
/// the offers weighed for `rejecting` are a part of the pool.
pub(crate) type Acceptors<'a> = (&'a dyn Fn(&ClassAd) -> u64, u64);

/// The candidate value accepted by the most offers (more than accept the request now), printed,
/// and how many offers the request with it really matches.
fn best_value(
    request: &ClassAd,
    name: Name,
    values: Candidates,
    opts: &AnalyzeOptions,
    rematch: Rematch<'_>,
    (count, now): Acceptors<'_>,
    offer_at: OfferAt<'_>,
) -> (Option<String>, u64) {
    let mut tried: Vec<(String, Candidate)> = values.into_iter().collect();
    tried.sort_by(|a, b| b.1.seen.cmp(&a.1.seen).then(a.0.cmp(&b.0)));
    tried.truncate(opts.max_offer_values);
    let mut best: Option<(u64, Candidate)> = None;
    for (_, c) in tried {
        let accepting = count(&with_value(request, name, &c.value));
        if accepting > now && best.as_ref().is_none_or(|(n, _)| accepting > *n) {
            best = Some((accepting, c));
        }
    }
    match best {
        Some((_, c)) => {
            let v = match c.respell {
                true => offer_at(c.first)
                    .and_then(|o| spelled(&o, name, &c.value, &opts.eval))
                    .unwrap_or(c.value),
                false => c.value,
            };
            let m = rematch(&with_value(request, name, &v));
            (Some(v.to_string()), m)
        }
        None => (None, 0),
    }
}

/// The value `v` read from the index's bounds of attribute `name` as `offer` writes it: the
/// first literal (left to right) its Requirements, its own attributes folded in as the index
/// reads them, compare a reference to `name` with that is `v` as the index compares values
/// (a string whatever its case, `true` for 1, `2048.0` for 2048).
fn spelled(offer: &ClassAd, name: Name, v: &Value, eval: &EvalOptions) -> Option<Value> {
    let key = requirements_key(offer)?;
    let e = specialize_attr_top(offer, key.as_str(), eval)?;
    let names = |x: &Expr| matches!(x.unparen(), Expr::Select(_, n) | Expr::Attr(n) if n.key() == name.key());
    first_in(&e, |x| {
        let Expr::Binary(_, p) = x.unparen() else {
            return None;
        };
        [(&p.0, &p.1), (&p.1, &p.0)]
            .into_iter()
            .find_map(|(r, l)| match l.unparen() {
                Expr::Lit(lit) if names(r) && written_as(lit, v) => Some(lit.clone()),
                _ => None,
            })
    })
}

/// Whether literal `lit` is the value `v` read from the index's bounds (strings folded,
/// booleans as 0 and 1, numbers by value).
fn written_as(lit: &Value, v: &Value) -> bool {
    let number = |x: &Value| match x {
        Value::Bool(b) => Some(f64::from(u8::from(*b))),
        Value::Int(i) => Some(*i as f64),
        Value::Real(r) => Some(*r),
        _ => None,
    };
    match (lit, v) {
        (Value::Str(a), Value::Str(b)) => a.eq_ignore_ascii_case(b),
        _ => matches!((number(lit), number(v)), (Some(a), Some(b)) if a == b),
    }
}

/// `request` with attribute `name` set to `v`.
fn with_value(request: &ClassAd, name: Name, v: &Value) -> ClassAd {
    let mut ad = request.clone();
    ad.insert(name, Expr::Lit(v.clone()));
    ad
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::analyze;
    use adjoin_query::parse;
    use std::sync::Arc;

    /// One offer rejecting the job, weighed alone: the attributes it rejects the job over,
    /// each with its candidate values.
    #[test]
    fn one_offer_each_way() {
        let job = parse::classad("[ImageSize = 3000; Owner = \"eve\"; Requirements = true]")
            .expect("job");
        type Want = &'static [(&'static str, &'static [&'static str])];
        let table: &[(&str, Want)] = &[
            // Exactly converted, its own constants folded in (by evaluation the conjunct
            // reads the job's ImageSize but compares it with no literal).
            (
                "[Max = 2500; Requirements = TARGET.ImageSize <= Max]",
                &[("ImageSize", &["2500"])],
            ),
            // Strict integer ends give the integers beside them; several bounds merge.
            (
                "[Requirements = TARGET.ImageSize > 10 && TARGET.ImageSize < 500]",
                &[("ImageSize", &["10", "11", "499", "500", "501", "9"])],
            ),
            // `!` pushed inward: only the bound the job's value lies outside of.
            (
                "[Requirements = !(TARGET.ImageSize < 2000 || TARGET.Owner == \"eve\")]",
                &[("Owner", &["\"eve\""])],
            ),
            // Strings are compared folded, and suggested folded.
            ("[Requirements = TARGET.Owner == \"Bob\"]", &[("Owner", &["\"bob\""])]),
            // An attribute the job lacks is spelled as the offer's Requirements spell it
            // (the index keeps only its key); a boolean bound reads back as a number.
            (
                "[Requirements = TARGET.HasDocker == true && TARGET.DiskUsage < 10]",
                &[("DiskUsage", &["10", "11", "9"]), ("HasDocker", &["1"])],
            ),
            // Never true: no attribute would make it accept.
            ("[Requirements = TARGET.ImageSize > 5 && TARGET.ImageSize < 2]", &[]),
            ("[Requirements = false && TARGET.ImageSize < 2]", &[]),
            // Not converted exactly: conjunct by conjunct, the literals as written; a
            // conjunct that is a reference to the offer's own (non-constant) attribute reads
            // no attribute of the job.
            ("[Rest = TARGET.ImageSize <= 1000; Requirements = Rest]", &[]),
            ("[Requirements = TARGET.Owner =?= \"Bob\"]", &[("Owner", &["\"Bob\""])]),
            (
                "[Requirements = TARGET.ImageSize < 100 && (TARGET.Owner == \"a\" || TARGET.Cpus > 1)]",
                &[("Cpus", &["0", "1", "2"]), ("ImageSize", &["100", "101", "99"]), ("Owner", &["\"a\""])],
            ),
        ];
        let eval = EvalOptions::default();
        for (offer, want) in table {
            let ad = Arc::new(parse::classad(offer).expect("offer"));
            let mut tally = Tally::default();
            tally.offer(&job, &ad, &eval, 0);
            let mut got: Vec<(String, Vec<String>)> = tally
                .attributes(&job, &|_| Some(Arc::clone(&ad)))
                .into_iter()
                .map(|(name, n, values)| {
                    assert_eq!(n, 1, "{offer}");
                    let mut vs: Vec<String> =
                        values.into_values().map(|c| c.value.to_string()).collect();
                    vs.sort();
                    (name.as_str().to_owned(), vs)
                })
                .collect();
            got.sort();
            let want: Vec<(String, Vec<String>)> = want
                .iter()
                .map(|(a, vs)| (a.to_string(), vs.iter().map(|v| v.to_string()).collect()))
                .collect();
            assert_eq!(got, want, "{offer}");
        }
    }

    #[test]
    fn nobody_likes_me() {
        let offers = [
            "[Name = \"a\"; Requirements = TARGET.ImageSize <= 1000 && TARGET.Owner != \"eve\"]",
            "[Name = \"b\"; Requirements = TARGET.ImageSize <= 2000]",
            "[Name = \"c\"; Requirements = TARGET.ImageSize < 500]",
            "[Name = \"d\"; Requirements = TARGET.Owner == \"bob\"]",
        ];
        let pool = Pool::numbered(
            offers
                .iter()
                .map(|o| Arc::new(parse::classad(o).expect("offer")))
                .collect(),
        );
        let job = parse::classad("[ImageSize = 3000; Owner = \"eve\"; Requirements = true]")
            .expect("job");
        let a = analyze("job", &job, &pool, &AnalyzeOptions::default()).expect("analysis");
        assert_eq!((a.offers, a.matching, a.rejecting_request), (4, 0, 4));
        let got: Vec<(String, u64, Option<String>, u64)> = a
            .offer_side
            .iter()
            .map(|s| {
                (
                    s.attribute.clone(),
                    s.rejecting,
                    s.suggest.clone(),
                    s.would_match,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("ImageSize".into(), 3, Some("499".into()), 2),
                ("Owner".into(), 2, Some("\"bob\"".into()), 1),
            ]
        );
    }

    /// Attributes the job lacks, bounded only by exactly converted offers: named and valued as
    /// the offers write them (the index keeps keys, and booleans as numbers), the same through
    /// a database's held index.
    #[test]
    fn spelled_as_the_offers_write_it() {
        let offers = [
            "[Name = \"a\"; Requirements = TARGET.HasDocker == true && TARGET.ImageSize <= 1000]",
            "[Name = \"b\"; Requirements = TARGET.HasDocker == true]",
            "[Name = \"c\"; Requirements = TARGET.ImageSize >= 7000.0]",
            "[Name = \"d\"; Requirements = TARGET.OpSys == \"LINUX\"]",
        ];
        let ads: Vec<Arc<ClassAd>> = offers
            .iter()
            .map(|o| Arc::new(parse::classad(o).expect("offer")))
            .collect();
        let job =
            parse::classad("[Name = \"job\"; ImageSize = 6000; Requirements = true]").expect("job");
        let pool = Pool::numbered(ads.clone());
        let a = analyze("job", &job, &pool, &AnalyzeOptions::default()).expect("analysis");
        let got: Vec<(&str, u64, Option<&str>, u64)> = a
            .offer_side
            .iter()
            .map(|s| {
                (
                    s.attribute.as_str(),
                    s.rejecting,
                    s.suggest.as_deref(),
                    s.would_match,
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("HasDocker", 2, Some("true"), 1),
                ("ImageSize", 2, Some("7.000000000000000E+03"), 1),
                ("OpSys", 1, Some("\"LINUX\""), 1),
            ]
        );
        let db = crate::Db::open_in_memory().expect("db");
        for ad in &ads {
            db.put("machines", ad).expect("put");
        }
        let held = db
            .analyze(&job, "machines", &AnalyzeOptions::default())
            .expect("analysis through the index");
        assert_eq!(held.offer_side, a.offer_side);
    }
}
