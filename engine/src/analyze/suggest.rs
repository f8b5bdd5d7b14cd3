//! Suggestions (seed 001 3.1.1), each checked by re-matching before it is shown:
//!
//! - M1, the fewest conditions removed: the boolean table's rows over the offers that accept
//!   the request, best first (fewest false conditions, then most offers); the row's false
//!   conditions are removed.
//! - M2, conditions modified to the nearest offer's values: every offer accepting the request
//!   is a point, its distance the sum over the conditions it fails of the normalized distance
//!   (numbers: `|old - new|` over the pool's range of the attribute; strings and booleans: 1;
//!   a condition that cannot be modified — `!=`, not a comparison with a literal, the offer
//!   lacking the attribute — costs 1 and is removed). `==` takes the offer's value, `<`/`<=`
//!   and `>`/`>=` relax to include it.
//!
//! `would_match` is the number of offers the changed request really matches
//! (through the offer collection's index for [`crate::Db::analyze`], by evaluating every
//! pair for [`super::analyze`]).

use super::conditions::{condition, Condition, Simple};
use super::table::Table;
use super::{Action, AnalyzeOptions, Change, Metric, Pool, Rematch, Suggestion};
use adjoin_index::{classify, Classified, MangledValue};
use adjoin_query::ast::{BinOp, Expr};
use adjoin_query::eval::{eval_in_match, requirements_key, symmetric_match, EvalOptions, MatchAds};
use adjoin_query::name::kw;
use adjoin_query::{ClassAd, Key, Name, Value};
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;

/// The suggestions of both metrics (M1 first), those that match nothing left out, over the
/// table of every offer; M2 reads the offers' values through `values`.
pub(crate) fn suggestions(
    request: &ClassAd,
    conds: &[Condition],
    t: &Table,
    values: &dyn OfferValues,
    opts: &AnalyzeOptions,
    rematch: Rematch<'_>,
) -> Vec<Suggestion> {
    let mut out = Vec::new();
    let mut seen: FxHashSet<Vec<Change>> = FxHashSet::default();
    let mut push = |metric, changes: Vec<Change>, out: &mut Vec<Suggestion>| {
        if changes.is_empty() || !seen.insert(changes.clone()) {
            return;
        }
        let would_match = would_match(request, conds, &changes, opts.eval.target_fallback, rematch);
        if would_match > 0 {
            out.push(Suggestion {
                metric,
                changes,
                would_match,
            });
        }
    };
    for changes in m1(t, opts.max_suggestions) {
        push(Metric::M1, changes, &mut out);
    }
    for changes in m2(conds, t, values, opts) {
        push(Metric::M2, changes, &mut out);
    }
    out
}

/// M1's removals: for the best rows over the accepting offers, the conditions each row has
/// false.
fn m1(t: &Table, most: usize) -> Vec<Vec<Change>> {
    let mut rows: Vec<(u64, u64)> = t.rows(&t.accepting).into_iter().collect();
    let n = t.sets.len().min(64);
    let full: u64 = if n == 64 { u64::MAX } else { (1u64 << n) - 1 };
    rows.sort_by_key(|&(row, count)| ((full & !row).count_ones(), std::cmp::Reverse(count), row));
    rows.into_iter()
        .map(|(row, _)| full & !row)
        .filter(|&removed| removed != 0)
        .take(most)
        .map(|removed| {
            (0..n)
                .filter(|i| removed & (1 << i) != 0)
                .map(|condition| Change {
                    condition,
                    action: Action::Remove,
                    to: None,
                })
                .collect()
        })
        .collect()
}

/// The value of `reference` (an offer's attribute as the request reads it) for `offer`.
pub(crate) fn offer_value(
    reference: &Expr,
    request: &ClassAd,
    offer: &ClassAd,
    eval: &EvalOptions,
) -> Value {
    eval_in_match(
        reference,
        MatchAds {
            my: request,
            target: offer,
        },
        eval,
    )
}

/// An offer's value of an attribute as comparisons see it — the index's classification
/// ([`classify`]: numbers and booleans on one line, strings case-folded); `None` when no
/// comparison can hold of it (absent, `undefined`, a list, NaN, …).
pub(crate) type Seen = Option<MangledValue>;

/// How a value is seen ([`Seen`]).
pub(crate) fn seen(v: &Value) -> Seen {
    match classify(v) {
        Classified::Key(k) => Some(k),
        Classified::NoMatch | Classified::Deviant => None,
    }
}

/// What M2 reads of the offers, by their numbers in the table.
pub(crate) trait OfferValues {
    /// Offer `o`'s value of `s`'s attribute as comparisons see it.
    fn seen(&self, o: u32, s: &Simple) -> Cow<'_, Seen>;
    /// Offer `o`'s value of `s`'s attribute, exactly (for a change's text).
    fn exact(&self, o: u32, s: &Simple) -> Value;
}

/// The offers of a pool in memory, evaluated.
pub(crate) struct PoolValues<'a> {
    /// The request (MY).
    pub request: &'a ClassAd,
    /// The offers, by position.
    pub pool: &'a Pool,
    /// How expressions are evaluated.
    pub eval: &'a EvalOptions,
}

impl OfferValues for PoolValues<'_> {
    fn seen(&self, o: u32, s: &Simple) -> Cow<'_, Seen> {
        Cow::Owned(seen(&self.exact(o, s)))
    }

    fn exact(&self, o: u32, s: &Simple) -> Value {
        match self.pool.ads.get(o as usize) {
            Some(offer) => offer_value(&s.reference, self.request, offer, self.eval),
            None => Value::Undefined,
        }
    }
}

/// A number as comparisons see it.
fn number(v: &Seen) -> Option<f64> {
    match v {
        Some(MangledValue::Number(k)) => Some(k.approx.get()),
        _ => None,
    }
}

/// How `s` is modified to accept an offer whose value is seen as `v`: the operator and the
/// normalized distance (`range`: the pool's range of the attribute); `None` when it cannot
/// be (it is then removed, at cost 1). `==`/`=?=` change value within the literal's type,
/// `<`/`<=` and `>`/`>=` only relax, `!=`/`=!=` only go.
fn modification(s: &Simple, v: &Seen, range: f64) -> Option<(BinOp, f64)> {
    let lit = seen(&s.value);
    let dist = match (number(&lit), number(v)) {
        (Some(a), Some(b)) => ((a - b).abs() / range).min(1.0),
        (None, None)
            if matches!(
                (&lit, v),
                (Some(MangledValue::String(_)), Some(MangledValue::String(_)))
            ) =>
        {
            1.0
        }
        _ => return None,
    };
    let op = match s.op {
        BinOp::Eq | BinOp::Is => s.op,
        BinOp::Gt | BinOp::Ge if number(v).is_some() => BinOp::Ge,
        BinOp::Lt | BinOp::Le if number(v).is_some() => BinOp::Le,
        _ => return None,
    };
    Some((op, dist))
}

/// The modification of `s` that accepts the value `v` (exact) seen as `seen_as`, and its
/// distance (normalized by `range`); `None` when it cannot be modified to (it is then
/// removed).
fn modify(s: &Simple, v: &Value, range: f64) -> Option<(Expr, f64)> {
    let (op, dist) = modification(s, &seen(v), range)?;
    Some((
        Expr::binary(op, s.reference.clone(), Expr::Lit(v.clone())),
        dist,
    ))
}

/// M2's changes for the offers nearest the request, nearest first: every offer accepting the
/// request is weighed by how its values are seen ([`OfferValues::seen`]); offers whose values
/// are seen alike give one suggestion, written with the values of the nearest (then
/// earliest) of them, read exactly.
fn m2(
    conds: &[Condition],
    t: &Table,
    values: &dyn OfferValues,
    opts: &AnalyzeOptions,
) -> Vec<Vec<Change>> {
    // The pool's range of each attribute a simple condition with a number reads.
    let mut ranges: FxHashMap<Key, f64> = FxHashMap::default();
    for s in conds.iter().filter_map(|c| c.simple.as_ref()) {
        if ranges.contains_key(&s.attr) || number(&seen(&s.value)).is_none() {
            continue;
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for o in &t.universe {
            if let Some(x) = number(&values.seen(o, s)) {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
        let r = hi - lo;
        ranges.insert(s.attr, if r.is_finite() && r > 0.0 { r } else { 1.0 });
    }
    let range = |s: &Simple| ranges.get(&s.attr).copied().unwrap_or(1.0);
    // Each accepting offer's cost: per condition it fails, the distance to modify it to the
    // offer's value, or 1 to remove it.
    let len = t.accepting.max().map_or(0, |m| m as usize + 1);
    let mut cost = vec![0.0f64; len];
    for (c, set) in conds.iter().zip(&t.sets) {
        for o in &t.accepting - set {
            let d = c
                .simple
                .as_ref()
                .and_then(|s| modification(s, &values.seen(o, s), range(s)).map(|(_, d)| d));
            if let Some(x) = cost.get_mut(o as usize) {
                *x += d.unwrap_or(1.0);
            }
        }
    }
    let mut costed: Vec<(f64, u32)> = t
        .accepting
        .iter()
        .filter_map(|o| Some((*cost.get(o as usize)?, o)))
        .filter(|(c, _)| *c > 0.0)
        .collect();
    costed.sort_unstable_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    // What distinguishes an offer's suggestion: per failing condition, removed or modified
    // to the value seen.
    let signature = |o: u32| -> Vec<(usize, Seen)> {
        conds
            .iter()
            .zip(&t.sets)
            .enumerate()
            .filter(|(_, (_, set))| !set.contains(o))
            .map(|(i, (c, _))| {
                let v = c.simple.as_ref().and_then(|s| {
                    let v = values.seen(o, s);
                    modification(s, &v, range(s)).map(|_| v.into_owned())
                });
                (i, v.flatten())
            })
            .collect()
    };
    let mut taken: Vec<Vec<(usize, Seen)>> = Vec::new();
    let mut out: Vec<Vec<Change>> = Vec::new();
    for &(_, o) in &costed {
        if out.len() >= opts.max_suggestions {
            break;
        }
        let sig = signature(o);
        if taken.contains(&sig) {
            continue;
        }
        let changes = sig
            .iter()
            .map(|(i, v)| {
                let to = match (v, conds.get(*i).and_then(|c| c.simple.as_ref())) {
                    (Some(_), Some(s)) => {
                        modify(s, &values.exact(o, s), range(s)).map(|(e, _)| e.to_string())
                    }
                    _ => None,
                };
                Change {
                    condition: *i,
                    action: if to.is_some() {
                        Action::Modify
                    } else {
                        Action::Remove
                    },
                    to,
                }
            })
            .collect();
        taken.push(sig);
        out.push(changes);
    }
    out
}

/// `request` with its Requirements replaced by the conjunction of `conds` (`true` when none).
pub(crate) fn with_requirements(request: &ClassAd, conds: &[Expr]) -> ClassAd {
    let mut ad = request.clone();
    let name = requirements_key(request)
        .and_then(|k| request.entry(k).map(|(n, _)| n))
        .unwrap_or_else(|| Name::new(kw::REQUIREMENTS.as_str()));
    let paren = |e: &Expr| match e {
        Expr::Binary(BinOp::Or, _) | Expr::Chain(BinOp::Or, _) | Expr::Cond(_) | Expr::Elvis(_) => {
            Expr::Paren(Box::new(e.clone()))
        }
        _ => e.clone(),
    };
    let conj = conds
        .iter()
        .map(paren)
        .reduce(|a, b| Expr::binary(BinOp::And, a, b))
        .unwrap_or(Expr::Lit(Value::Bool(true)));
    ad.insert(name, conj);
    ad
}

/// The conditions with `changes` applied.
pub(crate) fn changed(
    request: &ClassAd,
    conds: &[Condition],
    changes: &[Change],
    fallback: bool,
) -> Vec<Condition> {
    conds
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match changes.iter().find(|ch| ch.condition == i) {
            None => Some(c.clone()),
            Some(Change {
                action: Action::Remove,
                ..
            }) => None,
            Some(Change { to, .. }) => to
                .as_deref()
                .and_then(|t| adjoin_query::parse::expr(t).ok())
                .map(|e| condition(e, request, fallback)),
        })
        .collect()
}

/// How many offers of `pool` match `request` both ways once `changes` are applied to its
/// conditions.
pub(crate) fn would_match(
    request: &ClassAd,
    conds: &[Condition],
    changes: &[Change],
    fallback: bool,
    rematch: Rematch<'_>,
) -> u64 {
    let exprs: Vec<Expr> = changed(request, conds, changes, fallback)
        .into_iter()
        .map(|c| c.expr)
        .collect();
    rematch(&with_requirements(request, &exprs))
}

/// How many offers of `pool` match `ad` both ways, by evaluating every pair.
pub(crate) fn rematch_pool(ad: &ClassAd, pool: &Pool, eval: &EvalOptions) -> u64 {
    pool.ads
        .iter()
        .filter(|o| symmetric_match(ad, o, eval))
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::table::tests::seed_pool;
    use crate::analyze::{analyze, split_requirements};
    use adjoin_query::parse;

    /// Seed 001's example: M1 removes the Arch condition (rows F T T, two machines); M2
    /// moves to a nearest machine's values.
    #[test]
    fn seed_suggestions() {
        let job = parse::classad(
            "[Requirements = (other.Arch == \"ALPHA\") && (other.OpSys == \"SOLARIS\") && (other.Memory >= 512)]",
        )
        .expect("job");
        let a = analyze("job", &job, &seed_pool(), &AnalyzeOptions::default()).expect("analysis");
        let first = &a.suggestions[0];
        assert_eq!(first.metric, Metric::M1);
        assert_eq!(
            first.changes,
            vec![Change {
                condition: 0,
                action: Action::Remove,
                to: None
            }]
        );
        assert_eq!(first.would_match, 2);
        let m2: Vec<&Suggestion> = a
            .suggestions
            .iter()
            .filter(|s| s.metric == Metric::M2)
            .collect();
        assert!(!m2.is_empty());
        // The nearest machines are one string change away (3, 5 and 6 all cost 1).
        assert_eq!(m2[0].changes.len(), 1);
        assert!(m2.iter().all(|s| s.would_match > 0));
        // The JSON's field names (the contract).
        let v = serde_json::to_value(m2[0]).expect("json");
        assert_eq!(v["metric"], "M2");
        assert_eq!(v["changes"][0]["action"], "modify");
        assert_eq!(v["changes"][0]["condition"], 0);
        assert_eq!(v["changes"][0]["to"], "other.Arch == \"INTEL\"");
        assert_eq!(v["would_match"], 1);
    }

    #[test]
    fn modifications_relax() {
        let job = parse::classad("[Requirements = TARGET.Memory >= 4096 && TARGET.Cpus < 2]")
            .expect("job");
        let cs = split_requirements("j", &job, &EvalOptions::default()).expect("split");
        let s0 = cs[0].simple.as_ref().expect("simple");
        let (e, d) = modify(s0, &Value::Int(1024), 4096.0).expect("modify");
        assert_eq!(
            (e.to_string(), d),
            ("TARGET.Memory >= 1024".to_owned(), 0.75)
        );
        let s1 = cs[1].simple.as_ref().expect("simple");
        assert_eq!(
            modify(s1, &Value::Int(8), 8.0).map(|(e, _)| e.to_string()),
            Some("TARGET.Cpus <= 8".to_owned())
        );
        assert_eq!(modify(s1, &Value::str("x"), 8.0), None);
    }
}
