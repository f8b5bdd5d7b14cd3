//! The analysis through an offer collection's held index: each condition's satisfying set of
//! available offers is a one-sided window query of the condition rewritten over the offer
//! (specialized against the request, then `TARGET.Memory >= RequestMemory` becomes
//! `Memory >= 2048`; confirmed by evaluation only where the
//! index's conversion is inexact), the offers accepting the request a reverse query, and a
//! changed request is re-matched by the index's two-sided join. No offer is read for the
//! counts, conflicts or M1; M2 reads back the offers whose values the index does not hold as
//! constants, the offer side those whose constraints it did not convert exactly.
//!
//! A condition that cannot be rewritten (it reads a non-literal attribute of the request, a
//! scope as a whole, or a function that inspects its arguments' form), offers with ports, or
//! evaluation options other than the index's: the analysis reads every offer instead.

use super::conditions::{is_scope, Condition, Simple};
use super::offer_side::{Bounds, Tally};
use super::suggest::{offer_value, seen, OfferValues, Seen};
use super::table::Table;
use super::{AnalyzeOptions, Pool};
use crate::db::Held;
use adjoin_index::{
    imp_value, AdId, Bits, ImpValue, MangledValue, Query as IndexQuery, RoaringBitmap,
};
use adjoin_query::ast::Expr;
use adjoin_query::eval::EvalOptions;
use adjoin_query::name::{kw, Name};
use adjoin_query::specialize::specialize;
use adjoin_query::structural;
use adjoin_query::{ClassAd, Key, Value};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::Arc;

/// Deepest nesting rewritten.
const MAX_DEPTH: u32 = 200;

/// `e` (a condition written in `request`, TARGET the offer) as a constraint over the offer
/// alone (the offer as MY), when that has the same value for every offer.
pub(crate) fn over_offer(e: &Expr, request: &ClassAd, fallback: bool, depth: u32) -> Option<Expr> {
    if depth > MAX_DEPTH {
        return None;
    }
    let d = depth + 1;
    let rec = |x: &Expr| over_offer(x, request, fallback, d);
    Some(match e {
        Expr::Lit(Value::Ad(_)) | Expr::Ad(_) | Expr::Root(_) => return None,
        Expr::Lit(_) => e.clone(),
        Expr::Attr(n) => {
            if is_scope(n.key()) || request.get_key(n.key()).is_some() {
                return None;
            }
            if fallback {
                Expr::Attr(*n)
            } else {
                Expr::Lit(Value::Undefined)
            }
        }
        Expr::Select(base, n) => match base.unparen() {
            // The rewritten condition is evaluated with the request as TARGET (the offer's own
            // attributes may read it), where an unscoped name the offer lacks falls back to the
            // request: `x` where the request has no `x` (the index reads it as the offer's, so
            // the window stays exact where the offers' values are constants), else `MY.x`.
            Expr::Attr(s) if s.key() == kw::TARGET || s.key() == kw::OTHER => {
                match request.get_key(n.key()) {
                    None => Expr::Attr(*n),
                    Some(_) => Expr::Select(Box::new(Expr::Attr(Name::new("MY"))), *n),
                }
            }
            Expr::Attr(s) if s.key() == kw::MY || s.key() == kw::SELF => {
                if request.get_key(n.key()).is_some() {
                    return None;
                }
                Expr::Lit(Value::Undefined)
            }
            _ => return None,
        },
        Expr::Call(name, args) => {
            let lower = name.as_str().to_ascii_lowercase();
            if matches!(
                lower.as_str(),
                "unparse" | "eval" | "unresolved" | "debug" | "random"
            ) {
                return None;
            }
            Expr::Call(*name, args.iter().map(rec).collect::<Option<Vec<_>>>()?)
        }
        Expr::List(items) => Expr::List(items.iter().map(rec).collect::<Option<Vec<_>>>()?),
        Expr::Unary(op, b) => Expr::Unary(*op, Box::new(rec(b)?)),
        Expr::Paren(b) => Expr::Paren(Box::new(rec(b)?)),
        Expr::Binary(op, p) => Expr::binary(*op, rec(&p.0)?, rec(&p.1)?),
        Expr::Chain(op, items) => {
            Expr::chain(*op, items.iter().map(rec).collect::<Option<Vec<_>>>()?)?
        }
        Expr::Elvis(p) => Expr::Elvis(Box::new((rec(&p.0)?, rec(&p.1)?))),
        Expr::Index(p) => Expr::Index(Box::new((rec(&p.0)?, rec(&p.1)?))),
        Expr::Cond(t) => Expr::Cond(Box::new((rec(&t.0)?, rec(&t.1)?, rec(&t.2)?))),
    })
}

/// Whether every attribute of the offers that `e` (a condition rewritten over the offer)
/// reads is held by the index as a constant in every offer: then its answer does not depend
/// on which request plays TARGET. Every name `e` mentions counts (unscoped, `MY.x`, selected or
/// subscripted): a superset of what it reads.
fn reads_constants(held: &Held, e: &Expr) -> bool {
    let mut keys = Vec::new();
    structural::names(e, &mut keys);
    held.index.constant_values(&keys)
}

/// The available offers of a held index at `now`.
pub(crate) fn universe(held: &Held, now: i64) -> RoaringBitmap {
    held.index
        .ad_ids()
        .filter(|&n| !held.expired(n, now))
        .collect()
}

/// The table of `request`'s conditions over the held index's available offers (numbered by
/// index number), or `None` when it cannot be answered through the index.
pub(crate) fn index_table(
    held: &mut Held,
    request: &ClassAd,
    conds: &[Condition],
    opts: &AnalyzeOptions,
    now: i64,
    memo: Option<&Remembered>,
) -> Option<Table> {
    if !held.ported_ads().is_empty() {
        return None;
    }
    let iopts = held.index.options().clone();
    let fallback = opts.eval.target_fallback;
    let rewritten: Vec<Expr> = conds
        .iter()
        .map(|c| {
            let known = specialize(&c.expr, request, &opts.eval);
            over_offer(&known, request, fallback, 0)
        })
        .collect::<Option<_>>()?;
    let universe = match memo {
        Some(m) => m
            .universe
            .borrow_mut()
            .get_or_insert_with(|| universe(held, now))
            .clone(),
        None => universe(held, now),
    };
    let mut sets = Vec::with_capacity(conds.len());
    let target = Arc::new(request.clone());
    for e in &rewritten {
        // The offers' own attributes may read the request (`Memory = TARGET.RequestMemory`,
        // or, under the old semantics, a name the offer lacks): the rewritten condition is
        // evaluated with the request as TARGET, and its set is remembered for the next
        // request only when every offer's value of what it reads is a constant.
        let q = IndexQuery::one_sided(e, &iopts).against(Arc::clone(&target));
        let key = memo
            .filter(|_| reads_constants(held, e))
            .map(|_| e.to_string());
        let known = memo
            .zip(key.as_ref())
            .and_then(|(m, k)| m.sets.borrow().get(k).cloned());
        let found = match known {
            Some(found) => found,
            None => {
                held.index.prepare(&q);
                let mut a = held.index.candidates(&q);
                let found = held.index.confirm_ads(&q, &mut a);
                if let Some((m, k)) = memo.zip(key) {
                    m.sets.borrow_mut().insert(k, found.clone());
                }
                found
            }
        };
        sets.push(&found & &universe);
    }
    let accepting = accepting(held, request, &universe);
    Some(Table {
        universe,
        sets,
        accepting,
    })
}

/// The offers of `available` in the held index whose Requirements accept `ad` (the reverse
/// query, confirmed).
pub(crate) fn accepting(held: &mut Held, ad: &ClassAd, available: &RoaringBitmap) -> RoaringBitmap {
    let mut found = RoaringBitmap::new();
    let opts = held.index.options().clone();
    for q in IndexQuery::reverse(&Arc::new(ad.clone()), &opts) {
        held.index.prepare(&q);
        let mut a = held.index.candidates(&q);
        found |= held.index.confirm_ads(&q, &mut a);
    }
    found & available
}

/// The offers read back for M2 and the offer side: up to `most` accepting offers failing the
/// fewest conditions (at least one), then up to `most` rejecting ones, in index order; every
/// offer when there are no more than `most`.
pub(crate) fn detail_offers(t: &Table, most: usize) -> Vec<AdId> {
    if most == 0 {
        return Vec::new();
    }
    if t.universe.len() <= most as u64 {
        return t.universe.iter().collect();
    }
    let mut failing: Vec<(u32, AdId)> = Vec::new();
    let all_true = t.together(0..t.sets.len());
    for o in t.accepting.iter().filter(|o| !all_true.contains(*o)) {
        let f = t.sets.iter().filter(|s| !s.contains(o)).count() as u32;
        failing.push((f, o));
    }
    failing.sort_unstable();
    let mut out: Vec<AdId> = failing.into_iter().take(most).map(|(_, o)| o).collect();
    out.extend((&t.universe - &t.accepting).iter().take(most));
    out.sort_unstable();
    out
}

/// The offer side through a held index: every offer of `rejecting` whose constraint the index
/// converted exactly is weighed from its rectangles' bounds, with no offer read
/// ([`Tally::bounds`]); the others (and those whose bounds meet a request value that is not
/// a constant) are returned, to be read back and weighed by evaluation ([`Tally::offer`]).
pub(crate) fn tally_bounds(
    held: &Held,
    request: &ClassAd,
    rejecting: &RoaringBitmap,
    eval: &EvalOptions,
    tally: &mut Tally,
) -> Vec<(AdId, String)> {
    let mut rest = Vec::new();
    let mut rects: Vec<Bounds<'_>> = Vec::new();
    for n in rejecting {
        rects.clear();
        let exact = held.index.exact_bounds(n, |r| rects.push(r));
        if !(exact && tally.bounds(request, &rects, eval, n)) {
            rest.extend(held.id(n).map(|id| (n, id)));
        }
    }
    rest
}

/// What `--unmatched` weighs the offer side of a cluster every available offer rejects
/// against (see [`EveryOffer::first_attribute`]): the available offers held as one exactly
/// converted rectangle (their RIDs), per exported attribute those of them bounding it (and
/// the first of those, read back: its Requirements spell the attribute), and the others (but
/// those never true), read back once.
#[derive(Debug)]
pub(crate) struct EveryOffer {
    by_attr: Vec<(Key, Bits, AdId)>,
    rest: Pool,
    /// Each of `rest` converted exactly, if it is: made by the first cluster weighed, for
    /// every one (a batch weighs them all with the same options).
    rest_rects: std::sync::OnceLock<Vec<Option<Vec<adjoin_index::Rectangle>>>>,
    numbers: Vec<AdId>,
    spellers: FxHashMap<AdId, Arc<ClassAd>>,
}

/// Offers `--unmatched` reads back once for [`EveryOffer`], at most (past that it weighs the
/// first `max_detail_offers` offers read back, as before).
const MOST_READ_BACK: usize = 1 << 14;

impl EveryOffer {
    /// The split of `available` in the held index of `collection`; `None` when more than
    /// [`MOST_READ_BACK`] offers would have to be read back.
    pub(crate) fn of(
        db: &crate::Db,
        collection: &str,
        available: &RoaringBitmap,
    ) -> Result<Option<EveryOffer>, super::AnalyzeError> {
        let split = db.with_index(collection, |held| {
            let (one, rest) = held.index.single_exact(available);
            if rest.len() > MOST_READ_BACK {
                return None;
            }
            let by_attr: Vec<(Key, Bits, AdId)> = held
                .index
                .exported_attrs()
                .into_iter()
                .filter_map(|k| {
                    let b = held.index.bounding(k, &one);
                    let first = b.iter().filter_map(|r| held.index.owner(r)).min()?.0;
                    Some((k, b, first))
                })
                .collect();
            let named = |n: AdId| held.id(n).map(|id| (n, id));
            let ids: Vec<(AdId, String)> = rest.into_iter().filter_map(named).collect();
            let mut firsts: Vec<AdId> = by_attr.iter().map(|b| b.2).collect();
            firsts.sort_unstable();
            firsts.dedup();
            let spellers: Vec<(AdId, String)> = firsts.into_iter().filter_map(named).collect();
            Some((by_attr, ids, spellers))
        })?;
        let Some((by_attr, ids, spellers)) = split else {
            return Ok(None);
        };
        let (rest, numbers) = read_back(db, collection, &ids, None)?;
        let (spelling, at) = read_back(db, collection, &spellers, None)?;
        Ok(Some(EveryOffer {
            by_attr,
            rest,
            rest_rects: std::sync::OnceLock::new(),
            numbers,
            spellers: at.into_iter().zip(spelling.ads).collect(),
        }))
    }

    /// The attribute the offer side of `request` puts first when every available offer
    /// rejects it, weighed over every one: per attribute, those of the exactly converted
    /// offers bounding it less those whose interval holds the request's value (stab counts),
    /// plus the offers read back, weighed one by one. `None` when the request's value of an
    /// attribute they bound is not a constant (only evaluating them tells).
    pub(crate) fn first_attribute(
        &self,
        held: &Held,
        request: &ClassAd,
        eval: &EvalOptions,
    ) -> Option<Option<String>> {
        let mut tally = Tally::default();
        for (k, bounding, first) in &self.by_attr {
            let inside = match imp_value(request, *k, eval) {
                ImpValue::Point(m) => held.index.stab_count(*k, bounding, &m),
                ImpValue::Absent => 0,
                ImpValue::Deviant => return None,
            };
            tally.add_rejecting(*k, bounding.len() - inside, Some(*first));
        }
        let rest_rects = self.rest_rects.get_or_init(|| {
            (self.rest.ads.iter())
                .map(|o| super::offer_side::exact_rectangles(o, eval))
                .collect()
        });
        for ((offer, n), rects) in self.rest.ads.iter().zip(&self.numbers).zip(rest_rects) {
            tally.offer_converted(request, offer, rects.as_deref(), eval, *n);
        }
        // `numbers` ascend: the offers were read back in the index's number order.
        let offer_at = |n: AdId| match self.numbers.binary_search(&n) {
            Ok(i) => self.rest.ads.get(i).cloned(),
            Err(_) => self.spellers.get(&n).cloned(),
        };
        Some(super::offer_side::first_attribute(
            request, tally, &offer_at,
        ))
    }
}

/// What a batch of analyses (`--unmatched`) remembers from one to the next: the available
/// offers, each rewritten condition's answer over the whole index (the available offers are
/// applied after), and the offers read back (at most [`REMEMBERED_OFFERS`]; then it starts over).
#[derive(Debug, Default)]
pub(crate) struct Remembered {
    /// The available offers, as the batch's first analysis found them.
    universe: RefCell<Option<RoaringBitmap>>,
    sets: RefCell<FxHashMap<String, RoaringBitmap>>,
    offers: RefCell<FxHashMap<AdId, Arc<ClassAd>>>,
}

impl Remembered {
    /// Nothing remembered yet but the available offers.
    pub(crate) fn with_universe(universe: RoaringBitmap) -> Remembered {
        Remembered {
            universe: RefCell::new(Some(universe)),
            ..Remembered::default()
        }
    }
}

/// Offers a batch keeps read back, at most.
const REMEMBERED_OFFERS: usize = 1 << 16;

/// The pool of the offers `ids` of a held index, read back from `db` (those gone since are
/// left out; those `memo` remembers taken from it), and their index numbers.
pub(crate) fn read_back(
    db: &crate::Db,
    collection: &str,
    ids: &[(AdId, String)],
    memo: Option<&Remembered>,
) -> Result<(Pool, Vec<AdId>), super::AnalyzeError> {
    let mut pool = Pool::default();
    let mut numbers = Vec::with_capacity(ids.len());
    for (n, id) in ids {
        let known = memo.and_then(|m| m.offers.borrow().get(n).cloned());
        let ad = match known {
            Some(ad) => Some(ad),
            None => db.get(collection, id)?.map(|ad| Arc::new(ad.ad)),
        };
        if let Some(ad) = ad {
            if let Some(m) = memo {
                let mut offers = m.offers.borrow_mut();
                if offers.len() >= REMEMBERED_OFFERS {
                    offers.clear();
                }
                offers.insert(*n, Arc::clone(&ad));
            }
            pool.ids.push(id.clone());
            pool.ads.push(ad);
            numbers.push(*n);
        }
    }
    Ok((pool, numbers))
}

/// Each simple condition's attribute as a held index's imported axes hold it, for every
/// available offer: what M2 weighs, with no offer read (those whose value is not a constant
/// there are read back and evaluated).
#[derive(Debug, Default)]
pub(crate) struct Imported {
    /// By attribute: the distinct values as comparisons see them (the first `None`), and
    /// each offer's among them, by index number.
    seen: FxHashMap<Key, (Vec<Seen>, Vec<u32>)>,
    /// The offers whose values only evaluation tells: index number and id.
    deviant: Vec<(AdId, String)>,
}

impl Imported {
    /// What the held index holds of the attributes of `conds`' simple comparisons, over the
    /// offers `universe` (the attributes are given imported axes first, if they have none).
    pub(crate) fn of(held: &mut Held, conds: &[Condition], universe: &RoaringBitmap) -> Imported {
        let mut keys: Vec<Key> = conds
            .iter()
            .filter_map(|c| c.simple.as_ref().map(|s| s.attr))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        held.index.ensure_imported(&keys);
        let len = universe.max().map_or(0, |m| m as usize + 1);
        let mut out = Imported::default();
        let mut deviant = RoaringBitmap::new();
        // Per attribute: the distinct values (the first `None`), their numbers, and each
        // offer's (every unit has a value on every imported axis, deviant if unread).
        let mut distinct: Vec<Vec<Seen>> = keys.iter().map(|_| vec![None]).collect();
        let mut numbers: Vec<FxHashMap<&MangledValue, u32>> =
            keys.iter().map(|_| FxHashMap::default()).collect();
        let mut of: Vec<Vec<u32>> = keys.iter().map(|_| vec![0; len]).collect();
        held.index.imported_values(&keys, |n, i, v| {
            let (Some(d), Some(num), Some(o)) =
                (distinct.get_mut(i), numbers.get_mut(i), of.get_mut(i))
            else {
                return;
            };
            let at = match v {
                ImpValue::Point(m) => *num.entry(m).or_insert_with(|| {
                    d.push(Some(m.clone()));
                    d.len() as u32 - 1
                }),
                ImpValue::Absent => 0,
                ImpValue::Deviant => {
                    deviant.insert(n);
                    0
                }
            };
            if let Some(x) = o.get_mut(n as usize) {
                *x = at;
            }
        });
        for ((k, d), o) in keys.iter().zip(distinct).zip(of) {
            out.seen.insert(*k, (d, o));
        }
        deviant &= universe;
        out.deviant = deviant
            .iter()
            .filter_map(|n| held.id(n).map(|id| (n, id)))
            .collect();
        out
    }
}

/// M2's reading of the offers through a held index: values as its imported axes hold them,
/// the deviant offers and those a suggestion is written with read back.
pub(crate) struct IndexValues<'a> {
    imported: &'a Imported,
    /// The deviant offers, read back.
    read: FxHashMap<AdId, Arc<ClassAd>>,
    db: &'a crate::Db,
    collection: &'a str,
    request: &'a ClassAd,
    eval: &'a EvalOptions,
}

impl<'a> IndexValues<'a> {
    /// The values of `imported` (its deviant offers read back from `collection` of `db`).
    pub(crate) fn new(
        imported: &'a Imported,
        db: &'a crate::Db,
        collection: &'a str,
        request: &'a ClassAd,
        eval: &'a EvalOptions,
    ) -> Result<IndexValues<'a>, super::AnalyzeError> {
        let (pool, numbers) = read_back(db, collection, &imported.deviant, None)?;
        Ok(IndexValues {
            imported,
            read: numbers.into_iter().zip(pool.ads).collect(),
            db,
            collection,
            request,
            eval,
        })
    }

    /// Offer `o` read back now (`None`: gone, or unreadable).
    fn offer(&self, o: AdId) -> Option<Arc<ClassAd>> {
        if let Some(ad) = self.read.get(&o) {
            return Some(Arc::clone(ad));
        }
        let id = self.db.with_index(self.collection, |h| h.id(o)).ok()??;
        Some(Arc::new(self.db.get(self.collection, &id).ok()??.ad))
    }
}

impl OfferValues for IndexValues<'_> {
    fn seen(&self, o: u32, s: &Simple) -> Cow<'_, Seen> {
        const NONE: &Seen = &None;
        match self.read.get(&o) {
            Some(offer) => Cow::Owned(seen(&offer_value(
                &s.reference,
                self.request,
                offer,
                self.eval,
            ))),
            None => Cow::Borrowed(
                self.imported
                    .seen
                    .get(&s.attr)
                    .and_then(|(distinct, of)| distinct.get(*of.get(o as usize)? as usize))
                    .unwrap_or(NONE),
            ),
        }
    }

    fn exact(&self, o: u32, s: &Simple) -> Value {
        match self.offer(o) {
            Some(offer) => offer_value(&s.reference, self.request, &offer, self.eval),
            None => Value::Undefined,
        }
    }
}
