//! The offer side ("nobody likes me", seed 001 section 4): for each attribute of the request
//! that a failing condition of an offer's Requirements reads, how many offers reject the
//! request over it, and the value of that attribute accepted by the most offers — tried among
//! the literals those conditions compare it with — with the matches it really yields.

use super::conditions::{children, target_ref};
use super::table::Table;
use super::{selects, AnalyzeOptions, OfferSide, Pool, Rematch};
use adjoin_query::ast::{BinOp, Expr};
use adjoin_query::eval::{eval_in_match, requirements_key, MatchAds};
use adjoin_query::{ClassAd, Key, Name, Value};
use rustc_hash::{FxHashMap, FxHashSet};

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

/// Per attribute: the rejecting offers whose failing conditions read it, and the candidate
/// values with how often they were seen.
type Readers = FxHashMap<Key, (Name, FxHashSet<u32>, FxHashMap<String, (Value, u64)>)>;

/// The offer side of the analysis, attributes by the most rejecting offers first. `t` and
/// `pool` are the offers looked at (every offer, or those read back); the `would_match` of a
/// suggested value comes from `rematch`.
pub(crate) fn offer_side(
    request: &ClassAd,
    t: &Table,
    pool: &Pool,
    opts: &AnalyzeOptions,
    rematch: Rematch<'_>,
    whole: Acceptors<'_>,
) -> Vec<OfferSide> {
    let mut out: Vec<OfferSide> = readers(request, t, pool, opts)
        .into_values()
        .map(|(name, rejecting, values)| {
            let (suggest, would_match) = best_value(request, name, values, opts, rematch, whole);
            OfferSide {
                attribute: name.as_str().to_owned(),
                rejecting: rejecting.len() as u64,
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
    t: &Table,
    pool: &Pool,
    opts: &AnalyzeOptions,
) -> Option<String> {
    readers(request, t, pool, opts)
        .into_values()
        .map(|(name, rejecting, _)| (rejecting.len(), name.as_str().to_owned()))
        .min_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)))
        .map(|(_, name)| name)
}

/// Per attribute the rejecting offers whose failing conditions read it and the candidate
/// values.
fn readers(request: &ClassAd, t: &Table, pool: &Pool, opts: &AnalyzeOptions) -> Readers {
    let eval = &opts.eval;
    let mut by_attr: Readers = FxHashMap::default();
    for (o, offer) in pool.ads.iter().enumerate() {
        let o = o as u32;
        let Some(req) = requirements_key(offer).and_then(|k| offer.get_key(k)) else {
            continue;
        };
        if t.accepting.contains(o) {
            continue;
        }
        let mut parts = Vec::new();
        conjuncts(req, &mut parts);
        for part in parts {
            let holds = selects(&eval_in_match(
                part,
                MatchAds {
                    my: offer,
                    target: request,
                },
                eval,
            ));
            if holds {
                continue;
            }
            let mut read = FxHashMap::default();
            reads(part, offer, eval.target_fallback, &mut read, 0);
            for (k, (name, values)) in read {
                let entry = by_attr
                    .entry(k)
                    .or_insert_with(|| (name, FxHashSet::default(), FxHashMap::default()));
                entry.1.insert(o);
                for v in values {
                    entry.2.entry(v.to_string()).or_insert((v, 0)).1 += 1;
                }
            }
        }
    }
    by_attr
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
    values: FxHashMap<String, (Value, u64)>,
    opts: &AnalyzeOptions,
    rematch: Rematch<'_>,
    (count, now): Acceptors<'_>,
) -> (Option<String>, u64) {
    let mut tried: Vec<(Value, u64)> = values.into_values().collect();
    tried.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.to_string().cmp(&b.0.to_string())));
    tried.truncate(opts.max_offer_values);
    let mut best: Option<(u64, Value)> = None;
    for (v, _) in tried {
        let accepting = count(&with_value(request, name, &v));
        if accepting > now && best.as_ref().is_none_or(|(n, _)| accepting > *n) {
            best = Some((accepting, v));
        }
    }
    match best {
        Some((_, v)) => {
            let m = rematch(&with_value(request, name, &v));
            (Some(v.to_string()), m)
        }
        None => (None, 0),
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
}
