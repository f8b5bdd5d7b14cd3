//! Ranking a cluster's candidates by the default docking vector, `[request Rank, offer
//! Rank]`, without evaluating what is known to repeat. Exact: every value is the one
//! evaluation would give.
//!
//! - Offer classes: offers of one shape from `Rank` ([`Walk`]: the same `Rank` and the same
//!   expressions for every name it mentions, transitively) rank a given request alike, so a
//!   list evaluates an offer's rank once per class.
//! - A request's rank that is absent or a literal is the same against every offer.
//! - Remembered request ranks: requests of one shape from `Rank` rank a given offer alike
//!   when everything that rank reads of the offer (its external references) is a plain
//!   literal or absent (no expression of the offer is evaluated, so nothing else of the
//!   request is read). Clusters differ in
//!   much, but their `Rank`s are few; from the second list of a rank shape on, its value
//!   against each offer is remembered for the rest of the cycle. Offers that bind what
//!   it reads to the same expressions (their [`Binding`]s, `columns.rs`) rank alike: the rank
//!   is evaluated once per distinct tuple of bindings, not once per offer.
//!
//! What the analysis cannot follow (`eval`, `random`, …) is evaluated every time.

use super::by_class::{ClassSets, ClassWalk};
use super::columns::{Binding, Columns, PORTED};
use super::matchlist::{Builder, Matchlist};
use super::offers::Unconfirmed;
use super::per_request::PerRequest;
use super::residual::pure_calls;
use super::shape::{agree, binds_alike, plain, Bindings, ByHash, Walk};
use super::topk::{RankWalk, Sorted};
use super::vector::{rank_number, rank_of};
use crate::prefer::rank::{keep_fraction, order_component};
use crate::prefer::Preferences;
use adjoin_index::{AdId, Bits, RoaringBitmap};
use adjoin_query::eval::{EvalOptions, MatchAds};
use adjoin_query::name::kw;
use adjoin_query::refs::external_refs;
use adjoin_query::{ClassAd, Expr, Key, Value};
use rustc_hash::FxHashMap;
use std::cell::RefCell;
use std::sync::Arc;

/// Remembered request ranks, at most this many in all (the tables are dense over offers).
const REMEMBERED: usize = 1 << 24;

/// A request's list is read through its rank shape's sorted offers (`topk.rs`) when it has
/// at least this many candidates (unit tests walk the smallest lists)...
const WALK_MIN: u64 = if cfg!(test) { 1 } else { 64 };
/// ... or this many once the shape's offers are sorted (a walk through a few candidates'
/// places costs less than ranking them whole).
const WALK_SORTED_MIN: u64 = if cfg!(test) { 1 } else { 8 };
/// ... once the shape has had this many such lists ...
const SORT_AFTER: u32 = if cfg!(test) { 2 } else { 8 };
/// ... and its lists so far ranked, all told, at least one offer in this many of the pool
/// (sorting the offers ranks each once: it is paid for by the ranking it saves; a walk
/// through sparse candidates goes through their places alone, `topk.rs`).
const SORT_SHARE: u64 = if cfg!(test) { u32::MAX as u64 } else { 1 };

/// How a cycle ranks candidates by the default vector.
#[derive(Clone, Debug)]
pub struct Ranker {
    /// The key of `Rank`.
    rank: Key,
    /// Each offer's class, by position; offers beyond it, or of class `None`, are
    /// evaluated one by one.
    classes: Vec<Option<u32>>,
    /// The offers of each class as sets, when the classes are few (`by_class.rs`).
    sets: Option<Arc<ClassSets>>,
    remembered: RefCell<Remembered>,
    /// The offers' bindings ([`Ranker::share`]).
    columns: Arc<Columns>,
    /// Preference outcome keys remembered across clusters.
    outcomes: RefCell<crate::prefer::remembered::Remembered>,
}

/// Request ranks remembered across clusters.
#[derive(Clone, Debug, Default)]
struct Remembered {
    /// Rank shapes by hash: their names, a request of that shape, its number (`None`:
    /// dynamic, never remembered).
    shapes: ByHash<Vec<RankShape>>,
    /// Per rank shape, by number.
    tables: Vec<Table>,
    /// Entries in all the tables.
    entries: usize,
    /// Requests' rank shapes' numbers (`None`: dynamic), by request (a ranker held for the
    /// next cycle, [`Ranker::for_next_cycle`], meets its requests held).
    numbers: PerRequest<(), Option<u32>>,
}

/// A rank shape: its names, a request of it, its number (`None`: never remembered).
type RankShape = (Vec<Key>, Arc<ClassAd>, Option<u32>);

/// Each offer's rank, by position: `None` not yet known, `Some(None)` not to be remembered.
type Ranks = Vec<Option<Option<Value>>>;

/// A rank shape's remembered ranks.
#[derive(Clone, Debug, Default)]
struct Table {
    /// What its rank reads of the offer (the external references).
    reads: Vec<Key>,
    /// Lists ranked so far, and the offers sorted by rank.
    walk: Lists,
    /// Empty until the second list.
    ranks: Ranks,
    /// The offers' bindings of `reads`, when at most [`TUPLE`] (from the second list).
    columns: Option<Vec<Arc<Binding>>>,
    /// Ranks by tuple of the offers' bindings of `reads` ([`tuple`]).
    by_tuple: FxHashMap<[u32; TUPLE], Option<Value>>,
}

/// Ranks reading at most this many names of an offer are remembered per tuple of bindings.
const TUPLE: usize = 2;

/// A rank shape's table ready to remember ranks in: what the rank reads of an offer, the
/// offers' bindings of those names (`None`: more than two, each offer evaluated), its ranks
/// by offer and by tuple of bindings.
struct Rows<'a> {
    reads: &'a [Key],
    columns: Option<&'a [Arc<Binding>]>,
    ranks: &'a mut Ranks,
    by_tuple: &'a mut FxHashMap<[u32; TUPLE], Option<Value>>,
}

/// A rank shape's lists so far, and its offers sorted by their remembered rank.
#[derive(Clone, Debug, Default)]
pub struct Lists {
    /// Lists ranked so far.
    lists: u32,
    /// Lists long enough to be read through the sorted offers, so far.
    long: u32,
    /// Candidates of the lists so far, all told.
    ranked: u64,
    /// Every offer sorted by its remembered rank (`topk.rs`), once the shape's lists have
    /// ranked as many candidates as there are offers.
    sorted: Option<Arc<Sorted>>,
}

impl Ranker {
    #[cfg(test)]
    /// A ranker that classes nothing (every rank evaluated).
    pub fn plain(rank: Key) -> Ranker {
        Ranker {
            rank,
            classes: Vec::new(),
            sets: None,
            remembered: RefCell::default(),
            columns: Arc::default(),
            outcomes: RefCell::default(),
        }
    }

    /// A ranker for a cycle over `offers` (by position), their classes found.
    pub fn new(rank: Key, offers: &[Arc<ClassAd>]) -> Ranker {
        let start = [rank];
        let mut walk = Walk::default();
        // Shapes by hash, with their class (`None`: dynamic).
        let mut seen: ByHash<Vec<(Bindings<'_>, Option<u32>)>> = ByHash::default();
        let mut count = 0u32;
        let classes = offers
            .iter()
            .map(|o| {
                let same = seen.entry(walk.shape(o, &start)).or_default();
                if let Some((_, c)) = same.iter().find(|(b, _)| agree(b, &walk.bound)) {
                    return *c;
                }
                let c = (!walk.dynamic()).then(|| {
                    count += 1;
                    count - 1
                });
                same.push((walk.bound.clone(), c));
                c
            })
            .collect::<Vec<_>>();
        let sets = ClassSets::new(&classes).map(Arc::new);
        Ranker {
            rank,
            classes,
            sets,
            remembered: RefCell::default(),
            columns: Arc::default(),
            outcomes: RefCell::default(),
        }
    }

    /// Reads the offers' bindings from `columns` (made for the same offers), shared with
    /// whoever else reads them.
    pub(crate) fn share(&mut self, columns: Arc<Columns>) {
        self.columns = columns;
    }

    /// The key of `Rank`.
    pub fn key(&self) -> Key {
        self.rank
    }

    /// Offer `o`'s class.
    pub fn class(&self, o: AdId) -> Option<u32> {
        self.classes.get(o as usize).copied().flatten()
    }

    /// The matchlist of `request` over `candidates` (positions in `offers`, ascending).
    pub fn matchlist(
        &self,
        request: &Arc<ClassAd>,
        candidates: impl IntoIterator<Item = AdId>,
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Matchlist {
        let mine = constant_rank(request, self.rank);
        let mut remembered = self.remembered.borrow_mut();
        let table = match mine {
            Some(_) => None,
            None => remembered.table(request, self.rank, offers, &self.columns, opts),
        };
        let candidates = candidates.into_iter();
        let hint = candidates.size_hint().0;
        self.list_with(
            request,
            mine,
            table.map(|t| t.0),
            (candidates, hint),
            offers,
            opts,
        )
    }

    /// The matchlist of `request` over its `candidates` (positions in `offers`), entries not
    /// yet confirmed in `unconfirmed` ([`Matchlist::peek_confirmed`]): read in the order of
    /// its rank through the offers sorted by it ([`RankWalk`]) when its rank's values are
    /// remembered and the candidates are many; otherwise ranked whole.
    pub fn ranked(
        &self,
        request: &Arc<ClassAd>,
        candidates: Bits,
        unconfirmed: Option<Box<Unconfirmed>>,
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Matchlist {
        let rank = self.rank;
        let count = candidates.len();
        let n = count as usize;
        let mine = constant_rank(request, rank);
        if let (Some(m), Some(sets)) = (&mine, &self.sets) {
            // Read class by class when the candidates outnumber the classes.
            if count >= WALK_MIN.max(sets.len() as u64) {
                let mut memo = FxHashMap::default();
                let mut theirs = |o| self.offer_rank(&mut memo, request, o, offers, opts);
                let walk = ClassWalk::new(m.clone(), candidates, Arc::clone(sets), &mut theirs);
                return Matchlist::by_class(walk, unconfirmed);
            }
        }
        let mut remembered = self.remembered.borrow_mut();
        let table = match mine {
            Some(_) => None,
            None => remembered.table(request, rank, offers, &self.columns, opts),
        };
        let Some((mut rows, lists)) = table else {
            return self
                .list_with(request, mine, None, (candidates.iter(), n), offers, opts)
                .unconfirmed(unconfirmed);
        };
        let many = count >= WALK_MIN;
        lists.long += u32::from(many);
        lists.ranked = lists.ranked.saturating_add(count);
        let sort = lists.long >= SORT_AFTER
            && lists.ranked.saturating_mul(SORT_SHARE) >= rows.ranks.len() as u64;
        let walk = match &lists.sorted {
            Some(_) => count >= WALK_SORTED_MIN,
            None => many && sort,
        };
        if !walk {
            return self
                .list_with(
                    request,
                    mine,
                    Some(rows),
                    (candidates.iter(), n),
                    offers,
                    opts,
                )
                .unconfirmed(unconfirmed);
        }
        let sorted = Arc::clone(lists.sorted.get_or_insert_with(|| {
            // Every offer's rank, remembered where it may be.
            let (mut entries, mut outside) =
                (Vec::with_capacity(offers.len()), RoaringBitmap::new());
            for (o, offer) in (0..).zip(offers) {
                match remember(&mut rows, o, offer, rank, request, opts) {
                    Some(v) => entries.push((v, o)),
                    None => {
                        outside.insert(o);
                    }
                }
            }
            Arc::new(Sorted::new(entries, outside).with_classes(self.sets.as_deref()))
        }));
        // The candidates outside the order, ranked now.
        let mut memo: FxHashMap<u32, Value> = FxHashMap::default();
        let others = sorted
            .outside
            .iter()
            .filter(|&o| candidates.contains(o))
            .filter_map(|o| {
                let offer = offers.get(o as usize)?;
                let r = MatchAds {
                    my: request,
                    target: offer,
                };
                let theirs = self.offer_rank(&mut memo, request, o, offers, opts);
                Some((rank_of(rank, r, opts), theirs, o))
            })
            .collect();
        Matchlist::walked(
            RankWalk::new(sorted, candidates, others, self.sets.clone()),
            unconfirmed,
        )
    }

    /// Offer `o`'s rank against `request`, remembered per offer class in `memo` (for one
    /// request).
    pub fn offer_rank(
        &self,
        memo: &mut FxHashMap<u32, Value>,
        request: &ClassAd,
        o: AdId,
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Value {
        let class = self.class(o);
        if let Some(v) = class.and_then(|c| memo.get(&c)) {
            return v.clone();
        }
        let Some(offer) = offers.get(o as usize) else {
            return Value::Int(0);
        };
        let t = MatchAds {
            my: offer,
            target: request,
        };
        let v = rank_of(self.rank, t, opts);
        if let Some(c) = class {
            memo.insert(c, v.clone());
        }
        v
    }

    /// The loop of [`Ranker::matchlist`]: `mine` the request's constant rank, `table` its
    /// rank shape's remembered ranks, `candidates` with (a lower bound of) their number.
    fn list_with(
        &self,
        request: &Arc<ClassAd>,
        mine: Option<Value>,
        mut table: Option<Rows<'_>>,
        (candidates, hint): (impl IntoIterator<Item = AdId>, usize),
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Matchlist {
        let rank = self.rank;
        let mut b = Builder::with_capacity(2, hint);
        // Per class: the offers' rank, and their vector when the request's is constant.
        let mut memo: FxHashMap<u32, (Value, Option<u32>)> = FxHashMap::default();
        for o in candidates {
            let Some(offer) = offers.get(o as usize) else {
                continue;
            };
            let (r, t) = (
                MatchAds {
                    my: request,
                    target: offer,
                },
                MatchAds {
                    my: offer,
                    target: request,
                },
            );
            let theirs = |memo: &mut FxHashMap<u32, (Value, Option<u32>)>| match self.class(o) {
                Some(c) => memo
                    .entry(c)
                    .or_insert_with(|| (rank_of(rank, t, opts), None))
                    .0
                    .clone(),
                None => rank_of(rank, t, opts),
            };
            let n = match (&mine, self.class(o)) {
                (Some(m), Some(c)) => match memo.get(&c) {
                    Some(&(_, Some(n))) => n,
                    _ => {
                        let theirs = theirs(&mut memo);
                        let n = b.vector([m.clone(), theirs.clone()]);
                        memo.insert(c, (theirs, Some(n)));
                        n
                    }
                },
                (Some(m), None) => b.vector([m.clone(), theirs(&mut memo)]),
                (None, _) => {
                    let slot = table
                        .as_mut()
                        .and_then(|rows| remember(rows, o, offer, rank, request, opts));
                    let m = slot.unwrap_or_else(|| rank_of(rank, r, opts));
                    b.vector([m, theirs(&mut memo)])
                }
            };
            b.push(n, o);
        }
        b.finish()
    }
}

impl Ranker {
    /// This ranker for the next cycle over the same offers (`held_offers.rs`): the offers'
    /// classes and what it remembered of the rank shapes that read no clock are kept; the
    /// other shapes are not remembered from now on (each rank evaluated), and the preference
    /// outcomes are forgotten.
    pub(crate) fn for_next_cycle(mut self) -> Ranker {
        let rank = self.rank;
        let Remembered {
            shapes,
            tables,
            entries,
            numbers,
        } = self.remembered.get_mut();
        let mut forgotten = Vec::new();
        for (names, rep, n) in shapes.values_mut().flatten() {
            if let Some(m) = *n {
                if !clock_free(rep, rank, names) {
                    if let Some(t) = tables.get_mut(m as usize) {
                        *entries = entries.saturating_sub(t.ranks.len());
                        *t = Table::default();
                    }
                    forgotten.push(m);
                    *n = None;
                }
            }
        }
        // Shapes never remembered (dynamic, or forgotten now) are not held: they would only
        // hold their first requests' ads, one more for every new request of a shape of its
        // own. The requests' numbers found this cycle are, for the next; those of shapes
        // forgotten now say `None`.
        for same in shapes.values_mut() {
            same.retain(|(_, _, n)| n.is_some());
        }
        shapes.retain(|_, same| !same.is_empty());
        numbers.next_cycle();
        numbers.update(|n| {
            if n.is_some_and(|m| forgotten.contains(&m)) {
                *n = None;
            }
        });
        self.outcomes = RefCell::default();
        self
    }

    /// The rank shapes whose ranks are remembered (their tables, forgotten ones too).
    pub(crate) fn remembered_shapes(&self) -> usize {
        self.remembered.borrow().tables.len()
    }

    #[cfg(test)]
    /// The rank shapes known, with the requests' numbers found (this cycle and the last).
    pub(crate) fn shapes_known(&self) -> (usize, usize) {
        let r = self.remembered.borrow();
        let shapes = r.shapes.values().map(Vec::len).sum();
        (shapes, r.numbers.len())
    }
}

/// Whether the rank of `request` (a request of a rank shape binding `names`) reads no clock:
/// its Rank and its bindings of `names` call only functions whose value depends on their
/// arguments alone (`residual::PURE`), and none names `CurrentTime`.
fn clock_free(request: &ClassAd, rank: Key, names: &[Key]) -> bool {
    let pure = |k: Key| {
        request.get_key(k).is_none_or(|e| {
            let mut mentioned = Vec::new();
            adjoin_query::structural::names(e, &mut mentioned);
            pure_calls(e) && !mentioned.contains(&kw::CURRENT_TIME)
        })
    };
    pure(rank) && names.iter().all(|&k| pure(k))
}

impl Ranker {
    /// The matchlist of a request with preferences: `[preference order, request Rank, offer
    /// Rank]`, the ranks as [`Ranker::matchlist`] gives them, the outcome keys remembered
    /// across clusters ([`crate::prefer::remembered`]); the best fraction `PreferenceKeep`
    /// kept.
    pub fn preference_matchlist(
        &self,
        prefs: &Preferences,
        request: &Arc<ClassAd>,
        candidates: impl IntoIterator<Item = AdId>,
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Matchlist {
        let mut list = self.matchlist(request, candidates, offers, opts);
        let ids = list.ids();
        let keys = self
            .outcomes
            .borrow_mut()
            .keys(prefs, request, &ids, offers, opts);
        list.led_by(&keys, keep_fraction(ids.len(), prefs.keep), order_component)
    }
}

impl Remembered {
    /// What `request`'s rank reads of an offer, and the table of its rank shape, if its
    /// ranks are remembered (from the second list of that shape on, within the overall
    /// bound).
    fn table<'a>(
        &'a mut self,
        request: &Arc<ClassAd>,
        rank: Key,
        offers: &[Arc<ClassAd>],
        columns: &Columns,
        opts: &EvalOptions,
    ) -> Option<(Rows<'a>, &'a mut Lists)> {
        let n = self.number(request, rank, opts)?;
        let t = self.tables.get_mut(n as usize)?;
        t.walk.lists += 1;
        if t.walk.lists == 2 && self.entries + offers.len() <= REMEMBERED {
            self.entries += offers.len();
            t.ranks = vec![None; offers.len()];
            if t.reads.len() <= TUPLE {
                t.columns = Some(columns.of_all(&t.reads, offers));
            }
        }
        if t.ranks.len() != offers.len() {
            return None;
        }
        let rows = Rows {
            reads: &t.reads,
            columns: t.columns.as_deref(),
            ranks: &mut t.ranks,
            by_tuple: &mut t.by_tuple,
        };
        Some((rows, &mut t.walk))
    }
}

impl Remembered {
    /// The number of `request`'s rank shape (`None`: dynamic, never remembered), found once
    /// per request (its ad's address) and numbered now if new.
    fn number(&mut self, request: &Arc<ClassAd>, rank: Key, opts: &EvalOptions) -> Option<u32> {
        if let Some(n) = self.numbers.get(request, ()) {
            return n;
        }
        let n = self.shape_number(request, rank, opts);
        self.numbers.insert(request, (), n);
        n
    }

    /// The number of `request`'s rank shape, found among the shapes (numbered now if new).
    fn shape_number(
        &mut self,
        request: &Arc<ClassAd>,
        rank: Key,
        opts: &EvalOptions,
    ) -> Option<u32> {
        let mut walk = Walk::default();
        let same = self.shapes.entry(walk.shape(request, &[rank])).or_default();
        let found = same
            .iter()
            .find(|(names, rep, _)| binds_alike(&walk.bound, names, rep));
        if let Some(&(_, _, n)) = found {
            return n;
        }
        let names: Vec<Key> = walk.bound.iter().map(|b| b.0).collect();
        let n = (!walk.dynamic()).then_some(self.tables.len() as u32);
        if n.is_some() {
            // What the rank reads of the offer (the same for the whole shape).
            let reads = request
                .get_key(rank)
                .map(|e| external_refs(e, request, opts))
                .unwrap_or_default();
            let reads = reads.iter().map(|r| Key::of(r)).collect();
            self.tables.push(Table {
                reads,
                ..Table::default()
            });
        }
        same.push((names, Arc::clone(request), n));
        n
    }
}

/// Offer `o`'s remembered rank for `request`'s rank shape (`rows`), found now if not yet
/// known (evaluated once per tuple of the offers' bindings of what the rank reads, when
/// known); `None` when it is not to be remembered (the offer binds a name the rank reads to
/// an expression).
fn remember(
    rows: &mut Rows<'_>,
    o: AdId,
    offer: &ClassAd,
    rank: Key,
    request: &ClassAd,
    opts: &EvalOptions,
) -> Option<Value> {
    let slot = rows.ranks.get_mut(o as usize)?;
    if slot.is_none() {
        let names = rows.reads;
        let found = || {
            let r = MatchAds {
                my: request,
                target: offer,
            };
            names
                .iter()
                .all(|&k| offer.get_key(k).is_none_or(plain))
                .then(|| rank_of(rank, r, opts))
        };
        *slot = Some(match rows.columns.and_then(|c| tuple(c, o)) {
            Some(t) => rows.by_tuple.entry(t).or_insert_with(found).clone(),
            None => found(),
        });
    }
    slot.clone().flatten()
}

/// Offer `o`'s bindings in `columns` (at most [`TUPLE`]): offers of one tuple bind those
/// names to the same expressions. `None` for an offer with ports binding one of them (its id
/// says nothing of its expression), or more columns than a tuple holds.
fn tuple(columns: &[Arc<Binding>], o: AdId) -> Option<[u32; TUPLE]> {
    let mut t = [0; TUPLE];
    if columns.len() > TUPLE {
        return None;
    }
    for (slot, c) in t.iter_mut().zip(columns) {
        let id = *c.ids.get(o as usize)?;
        if id == PORTED {
            return None;
        }
        *slot = id;
    }
    Some(t)
}

/// `request`'s Rank as a component when it is the same against every offer: absent (0) or a
/// literal.
fn constant_rank(request: &ClassAd, rank: Key) -> Option<Value> {
    match request.get_key(rank).map(Expr::unparen) {
        None => Some(Value::Int(0)),
        Some(Expr::Lit(v)) => Some(rank_number(&v.as_evaluated())),
        Some(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::dock::Dock;
    use crate::cycle::vector::cmp_vectors;
    use adjoin_query::parse;

    #[test]
    fn ranks_remembered_per_tuple_of_bindings_are_the_ranks_evaluated() {
        // Offers binding `Memory` and `Cpus` to literals (some alike), to an expression, or
        // not at all; some with ports.
        let offers: Vec<Arc<ClassAd>> = (0..48)
            .map(|i| {
                let memory = match i % 5 {
                    0 => String::new(),
                    4 => "Memory = Cpus * 512;".to_owned(),
                    m => format!("Memory = {};", 1024 * (m % 3)),
                };
                let ports = if i % 11 == 0 {
                    "Ports = {[a = 1]};"
                } else {
                    ""
                };
                let cpus = if i % 7 == 3 {
                    "2.0"
                } else {
                    ["1", "2", "4"][i % 3]
                };
                let ad = format!("[{memory} Cpus = {cpus}; {ports} Rank = TARGET.Prio]");
                Arc::new(parse::classad(&ad).expect("offer"))
            })
            .collect();
        let opts = EvalOptions::default();
        let rank = Key::of("Rank");
        let mut ranker = Ranker::new(rank, &offers);
        ranker.share(Arc::default());
        for (i, r) in [
            "TARGET.Cpus * 100 + TARGET.Memory / 1024",
            "TARGET.Memory",
            "TARGET.Cpus * 100 + TARGET.Memory / 1024",
            "TARGET.Memory",
            "TARGET.Cpus * 100 + TARGET.Memory / 1024",
            "TARGET.Cpus * 100 + TARGET.Memory / 1024",
        ]
        .iter()
        .enumerate()
        {
            let request =
                Arc::new(parse::classad(&format!("[Prio = {i}; Rank = {r}]")).expect("request"));
            let got = ranker
                .matchlist(&request, 0..offers.len() as u32, &offers, &opts)
                .read_whole(offers.len());
            let plain = Dock::Ranks(Box::new(Ranker::plain(rank)));
            let mut want: Vec<(Vec<Value>, AdId)> = (0u32..)
                .zip(&offers)
                .filter_map(|(o, offer)| Some((plain.vector(&request, offer, &opts)?, o)))
                .collect();
            want.sort_by(|a, b| cmp_vectors(&b.0, &a.0).then(a.1.cmp(&b.1)));
            assert_eq!(got, want, "{r} (list {i})");
        }
    }
}
