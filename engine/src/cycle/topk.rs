//! Top-k ranking without ranking every candidate: a request's candidates read best first by
//! walking the offers in the order of its `Rank` — the threshold algorithm of Fagin, Lotem
//! and Naor with one sorted list, the request's rank itself.
//!
//! A rank shape whose values are remembered for every offer (`ranks.rs`: what the rank reads
//! of an offer is plain values or absent, so its value against an offer is the same for every
//! request of the shape) sorts the offers once by that value, best first ([`Sorted`]). Any
//! rank expression qualifies — monotone or not, undefined and error counting 0 as they do in
//! the docking vector — as the order is of the values themselves, not of the attributes.
//! A request's list is then read group by group ([`RankWalk::next_group`]): the candidates with
//! the best request rank not yet read, found by walking the sorted offers and keeping the
//! request's candidates; the offers' ranks are evaluated only for that group, which is ordered
//! by them and then by load order, as a fully ranked list orders it. The walk stops as soon as
//! the list is read far enough: every unseen candidate ranks strictly below the group
//! returned (the next value in the sorted order is below it), so no later candidate can come
//! before it. Candidates whose rank is not remembered (an offer whose attribute the rank reads
//! is an expression) are ranked when the list is made and merged in by their vectors.
//!
//! A long group (a boolean rank's `true`: half the candidates) is not ranked whole either: the
//! offers' own ranks are the same within a rank class (`by_class.rs`), so the group's run of
//! the sorted order is read once per distinct offer rank, best first, keeping the candidates
//! of that rank's classes, a chunk at a time ([`ByClass`]): a list that stops at its first
//! entries reads no further into the run.

use super::by_class::ClassSets;
use super::vector::cmp_vectors;
use adjoin_index::{AdId, Bits, RoaringBitmap};
use adjoin_query::Value;
use std::cmp::Ordering;
use std::sync::Arc;

/// Offers sorted by one rank shape's remembered value: best first, ties in load order.
#[derive(Debug, Default)]
pub struct Sorted {
    /// (value, offer), best first.
    pub entries: Vec<(Value, AdId)>,
    /// The offers whose value is not remembered (not in `entries`).
    pub outside: RoaringBitmap,
    /// Each offer's place in `entries` ([`u32::MAX`]: outside).
    position: Vec<u32>,
    /// By place: the end of its run of equal values (the first place of a lower value).
    run_end: Vec<u32>,
    /// By place: the offer's rank class ([`NO_CLASS`]: none, or not known), so that a run
    /// read class by class ([`ByClass`]) passes over the offers of other classes without
    /// reading them.
    class: Vec<u8>,
}

/// [`Sorted::class`] of an offer of no class (classes are at most 64, `by_class.rs`).
const NO_CLASS: u8 = u8::MAX;

impl Sorted {
    /// The offers `(value, offer)` sorted best first, ties in load order; `outside` the others.
    pub fn new(entries: Vec<(Value, AdId)>, outside: RoaringBitmap) -> Sorted {
        let (entries, run_end) = match sort_keys(&entries) {
            // One integer per value, ordered as the values are (equal exactly when they
            // are): a sort of plain numbers (key descending, then offer, then place), the
            // entries then moved into place.
            Some(keys) => {
                let mut order: Vec<u128> = (keys.iter())
                    .zip(&entries)
                    .zip(0u32..)
                    .map(|((&k, e), i)| {
                        let descending = u64::MAX - ((k as u64) ^ (1 << 63));
                        (u128::from(descending) << 64) | (u128::from(e.1) << 32) | u128::from(i)
                    })
                    .collect();
                order.sort_unstable();
                let mut slots: Vec<Option<(Value, AdId)>> = entries.into_iter().map(Some).collect();
                let sorted: Vec<(Value, AdId)> = (order.iter())
                    .filter_map(|&x| slots.get_mut(x as u32 as usize)?.take())
                    .collect();
                let key = |p: usize| order.get(p).map(|&x| (x >> 64) as u64);
                let run_end = run_ends(order.len(), |p| key(p) != key(p + 1));
                (sorted, run_end)
            }
            None => {
                let mut entries = entries;
                entries.sort_by(|a, b| by_value(&a.0, &b.0).then(a.1.cmp(&b.1)));
                let run_end = run_ends(entries.len(), |p| {
                    match (entries.get(p), entries.get(p + 1)) {
                        (Some(e), Some(next)) => by_value(&e.0, &next.0).is_ne(),
                        _ => true,
                    }
                });
                (entries, run_end)
            }
        };
        let n = entries.iter().map(|e| e.1 as usize + 1).max().unwrap_or(0);
        let mut position = vec![u32::MAX; n];
        for (p, e) in (0u32..).zip(&entries) {
            if let Some(x) = position.get_mut(e.1 as usize) {
                *x = p;
            }
        }
        Sorted {
            entries,
            outside,
            position,
            run_end,
            class: Vec::new(),
        }
    }

    /// This order with each place's rank class (`sets`), for reading runs class by class.
    pub fn with_classes(mut self, sets: Option<&ClassSets>) -> Sorted {
        if let Some(sets) = sets {
            self.class = self
                .entries
                .iter()
                .map(|(_, o)| {
                    sets.class_of(*o)
                        .and_then(|c| u8::try_from(c).ok())
                        .unwrap_or(NO_CLASS)
                })
                .collect();
        }
        self
    }

    /// The rank class of the offer at place `p`, if it has one below 64.
    fn class_at(&self, p: usize) -> Option<u32> {
        self.class
            .get(p)
            .filter(|&&c| c != NO_CLASS && c < 64)
            .map(|&c| u32::from(c))
    }

    /// Offer `o`'s place in the order, if it has one.
    fn position(&self, o: AdId) -> Option<usize> {
        self.position
            .get(o as usize)
            .filter(|&&p| p != u32::MAX)
            .map(|&p| p as usize)
    }
}

/// Each entry's value as an integer ordered as [`by_value`] orders the values (reversed): the
/// integers themselves when every value is one; otherwise each
/// value as the double it compares as, by the bits of `f64::total_cmp` (`None` when some
/// integer is beyond 2^53, which compares exactly with other integers only).
fn sort_keys(entries: &[(Value, AdId)]) -> Option<Vec<i64>> {
    const EXACT: i64 = 1 << 53;
    let ints = entries.iter().all(|e| matches!(e.0, Value::Int(_)));
    let key = |v: &Value| -> Option<i64> {
        match v {
            Value::Int(i) if ints => Some(*i),
            Value::Int(i) if (-EXACT..=EXACT).contains(i) => Some(total_bits(*i as f64)),
            Value::Int(_) => None,
            Value::Real(r) => Some(total_bits(*r)),
            _ => Some(total_bits(0.0)),
        }
    };
    entries.iter().map(|(v, _)| key(v)).collect()
}

/// By place, of `len` places in order: the end of its run (the first place after it whose
/// value differs), `last(p)` telling whether place `p` is the last of its run.
fn run_ends(len: usize, last: impl Fn(usize) -> bool) -> Vec<u32> {
    let mut run_end = vec![0u32; len];
    let mut end = len as u32;
    for p in (0..len).rev() {
        if last(p) {
            end = p as u32 + 1;
        }
        if let Some(x) = run_end.get_mut(p) {
            *x = end;
        }
    }
    run_end
}

/// `x` as an integer ordered as `f64::total_cmp` orders the doubles.
fn total_bits(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

/// Descending order of single components, as the docking vector compares them.
pub(crate) fn by_value(a: &Value, b: &Value) -> Ordering {
    cmp_vectors(std::slice::from_ref(b), std::slice::from_ref(a))
}

/// One request's candidates read best first through a [`Sorted`] order. The walk passes
/// over the offers that are not candidates; once the candidates left are few against the
/// offers left to pass (a request whose candidates mostly fail confirmation reads its list to
/// the end), it goes on through the places of those candidates alone, sorted.
#[derive(Debug)]
pub struct RankWalk {
    sorted: Arc<Sorted>,
    /// The next place to look at: in `sorted`, or in `ahead` once there.
    at: usize,
    /// The places in `sorted` of the candidates not yet read, ascending, once the walk goes
    /// through them alone.
    ahead: Option<Vec<u32>>,
    /// Candidates in the sorted order not yet read.
    left: u64,
    /// The request's candidates (a bitset: the walk asks about every offer it passes).
    candidates: Bits,
    /// Candidates outside the sorted order, with their vectors `[request rank, offer
    /// rank]`, best first; and how many have been read.
    others: Vec<(Value, Value, AdId)>,
    others_at: usize,
    /// The rest of the group being read, in order, last first.
    queue: Vec<(Value, Value, AdId)>,
    /// The offers' rank classes, when few (`by_class.rs`): a long group is then read class
    /// by class ([`ByClass`]) instead of ranking and sorting its every member.
    sets: Option<Arc<ClassSets>>,
    /// The long group being read class by class.
    by_class: Option<Box<ByClass>>,
    /// The classes of the candidates in the sorted order ([`RankWalk::classes`]), once found.
    classes: Option<Option<u64>>,
}

/// Entries a walk hands out at a time (the list reads no further than it needs; here and in
/// `by_class.rs`).
pub(super) const CHUNK: usize = 64;

/// Distinct offer ranks in one group beyond which it is sorted by comparing values.
const FEW_RANKS: usize = 64;

/// A walk goes through its candidates' places alone once the offers left to pass outnumber
/// the candidates left this many times (passing an offer costs a bit test; placing a
/// candidate, a lookup and its share of a sort).
const SPARSE: u64 = if cfg!(test) { 2 } else { 16 };

/// A long group (one request rank, one run of the sorted offers) read best first without
/// ranking each member: each rank class's rank asked once, then the run read once per
/// distinct offer rank, best first, keeping the candidates of the classes of that rank (load
/// order within), merged with the group's candidates outside the sorted order of that rank.
/// Only as much is read as the list asks for: a list that stops at the group's first entries
/// reads the run no further than them.
#[derive(Debug)]
struct ByClass {
    /// The group's run: places in the sorted offers (`from..to`), or, when the walk goes
    /// through the candidates' places alone, indices into them.
    from: usize,
    to: usize,
    /// The offers' ranks by class.
    values: Vec<Option<Value>>,
    /// The distinct offer ranks, best first, each with its classes (a bit per class).
    buckets: Vec<(Value, u64)>,
    /// The group's candidates outside the sorted order, best first.
    others: Vec<(Value, Value, AdId)>,
    /// Where the reading is: its bucket, the next place (or index) of the run, and the next
    /// of `others`.
    bucket: usize,
    at: usize,
    others_at: usize,
    /// Members of the run handed out so far.
    read: u64,
}

/// Runs with at least this many offers are read class by class.
const BY_CLASS_MIN: usize = if cfg!(test) { 3 } else { 16 };

impl ByClass {
    /// Up to `n` of the next entries, in order (`sorted` the offers with their classes,
    /// `candidates` the request's, `ahead` the candidates' places when the walk goes through
    /// them alone); fewer when the group is read to the end.
    fn next(
        &mut self,
        n: usize,
        sorted: &Sorted,
        candidates: &Bits,
        ahead: Option<&[u32]>,
    ) -> Vec<(Value, Value, AdId)> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let Some((value, mask)) = self.buckets.get(self.bucket) else {
                break;
            };
            // The next member of this bucket, and the next of `others`.
            let mut walked = None;
            while self.at < self.to {
                let place = match ahead {
                    Some(places) => places.get(self.at).map(|&p| p as usize),
                    None => Some(self.at),
                };
                if let Some(p) = place {
                    // The class first: offers of other classes are passed over unread.
                    let class = sorted.class_at(p);
                    if class.is_some_and(|c| mask & (1u64 << c) != 0) {
                        if let Some((v, o)) = sorted.entries.get(p) {
                            if ahead.is_some() || candidates.contains(*o) {
                                walked = Some((v, *o, class));
                                break;
                            }
                        }
                    }
                }
                self.at += 1;
            }
            let other = self
                .others
                .get(self.others_at)
                .filter(|e| by_value(&e.1, value).is_eq());
            match (walked, other) {
                (Some((v, o, c)), x) if x.is_none_or(|x| o < x.2) => {
                    let theirs = c
                        .and_then(|c| self.values.get(c as usize).cloned().flatten())
                        .unwrap_or_else(|| value.clone());
                    out.push((v.clone(), theirs, o));
                    self.at += 1;
                    self.read += 1;
                }
                (_, Some(x)) => {
                    out.push(x.clone());
                    self.others_at += 1;
                }
                _ => {
                    self.bucket += 1;
                    self.at = self.from;
                }
            }
        }
        out
    }
}

impl RankWalk {
    /// A walk over `candidates` through `sorted`; `others` are the candidates outside it with
    /// their two ranks (in any order).
    pub fn new(
        sorted: Arc<Sorted>,
        candidates: Bits,
        mut others: Vec<(Value, Value, AdId)>,
        sets: Option<Arc<ClassSets>>,
    ) -> RankWalk {
        others.sort_by(|a, b| {
            by_value(&a.0, &b.0)
                .then(by_value(&a.1, &b.1))
                .then(a.2.cmp(&b.2))
        });
        let left = candidates.len().saturating_sub(others.len() as u64);
        RankWalk {
            sorted,
            at: 0,
            ahead: None,
            left,
            candidates,
            others,
            others_at: 0,
            queue: Vec::new(),
            sets,
            by_class: None,
            classes: None,
        }
    }

    /// The candidates with the best request rank not yet read, each with its vector
    /// `[request rank, offer rank]` (`theirs` gives an offer's rank against the request), in
    /// the order of a fully ranked list: offer rank descending, then load order. Empty when
    /// every candidate has been read. A long group comes a chunk at a time (the same order).
    pub fn next_group(
        &mut self,
        theirs: &mut dyn FnMut(AdId) -> Value,
    ) -> Vec<(Value, Value, AdId)> {
        if self.queue.is_empty() {
            if let Some(chunk) = self.next_by_class(theirs) {
                return chunk;
            }
            let mut group = self.group(theirs);
            group.reverse();
            self.queue = group;
        }
        let n = self.queue.len().min(CHUNK);
        let at = self.queue.len() - n;
        self.queue.drain(at..).rev().collect()
    }

    /// The next chunk of a long group read class by class ([`ByClass`]), starting the next
    /// group so when it qualifies ([`RankWalk::start_by_class`]). `None`: the next group is
    /// read whole ([`RankWalk::group`]).
    fn next_by_class(
        &mut self,
        theirs: &mut dyn FnMut(AdId) -> Value,
    ) -> Option<Vec<(Value, Value, AdId)>> {
        loop {
            if let Some(b) = self.by_class.as_deref_mut() {
                let ahead = self.ahead.as_deref();
                let chunk = b.next(CHUNK, &self.sorted, &self.candidates, ahead);
                if !chunk.is_empty() {
                    return Some(chunk);
                }
                // The group is read: the walk goes on after it.
                self.at = b.to;
                self.others_at += b.others.len();
                self.left = self.left.saturating_sub(b.read);
                self.by_class = None;
            }
            self.maybe_ahead();
            let b = self.start_by_class(theirs)?;
            self.by_class = Some(Box::new(b));
        }
    }

    /// The classes of the candidates in the sorted order (a bit per class), found once;
    /// `None` when some of them is of no class (its rank is asked offer by offer).
    fn classes(&mut self) -> Option<u64> {
        if self.classes.is_none() {
            let sets = self.sets.as_deref()?;
            let mut lone = self.candidates.clone();
            lone.andnot_assign(sets.classed());
            let all_classed = lone.iter().all(|o| self.sorted.outside.contains(o));
            let mask = (0..sets.len() as u32)
                .filter(|&c| {
                    sets.members(c)
                        .is_some_and(|m| m.intersects(&self.candidates))
                })
                .fold(0u64, |m, c| m | 1u64 << c);
            self.classes = Some(all_classed.then_some(mask));
        }
        self.classes.flatten()
    }

    /// The next group as a [`ByClass`], when it qualifies: the offers' classes are few (and
    /// known by place in the sorted order), its run has at least [`BY_CLASS_MIN`] offers
    /// (candidates, when the walk goes through their places alone), every candidate in the
    /// sorted order is of some class, and no candidate outside the order ranks better.
    fn start_by_class(&mut self, theirs: &mut dyn FnMut(AdId) -> Value) -> Option<ByClass> {
        if self.sorted.class.len() != self.sorted.entries.len() {
            return None;
        }
        let mask = self.classes()?;
        let sets = Arc::clone(self.sets.as_ref()?);
        let sorted = Arc::clone(&self.sorted);
        let start = self.next_place()?;
        let (first, _) = sorted.entries.get(start)?;
        if let Some(x) = self.others.get(self.others_at) {
            if by_value(&x.0, first).is_lt() {
                return None;
            }
        }
        let end = (*sorted.run_end.get(start)? as usize).min(sorted.entries.len());
        let (from, to) = match &self.ahead {
            Some(ahead) => {
                let rest = ahead.get(self.at..).unwrap_or_default();
                (
                    self.at,
                    self.at + rest.partition_point(|&p| (p as usize) < end),
                )
            }
            None => (start, end),
        };
        if to - from < BY_CLASS_MIN {
            return None;
        }
        let count = self
            .others
            .get(self.others_at..)
            .unwrap_or_default()
            .iter()
            .take_while(|x| by_value(&x.0, first).is_eq())
            .count();
        let others: Vec<_> = self
            .others
            .get(self.others_at..self.others_at + count)
            .unwrap_or_default()
            .to_vec();
        let mut values = vec![None; sets.len()];
        let mut distinct: Vec<Value> = others.iter().map(|x| x.1.clone()).collect();
        for c in 0..sets.len() as u32 {
            if mask & (1u64 << c) != 0 {
                let v = theirs(sets.first(c)?);
                distinct.push(v.clone());
                if let Some(x) = values.get_mut(c as usize) {
                    *x = Some(v);
                }
            }
        }
        distinct.sort_by(by_value);
        distinct.dedup_by(|a, b| by_value(a, b).is_eq());
        let buckets = distinct
            .into_iter()
            .map(|v| {
                let mask = (0u32..)
                    .zip(&values)
                    .filter(|(_, x)| x.as_ref().is_some_and(|x| by_value(x, &v).is_eq()))
                    .fold(0u64, |m, (c, _)| m | 1u64 << c);
                (v, mask)
            })
            .collect();
        Some(ByClass {
            from,
            to,
            values,
            buckets,
            others,
            bucket: 0,
            at: from,
            others_at: 0,
            read: 0,
        })
    }

    /// The whole of the next group, in order.
    fn group(&mut self, theirs: &mut dyn FnMut(AdId) -> Value) -> Vec<(Value, Value, AdId)> {
        self.maybe_ahead();
        let sorted = Arc::clone(&self.sorted);
        let entries = &sorted.entries;
        let walked = self.next_place().and_then(|p| entries.get(p)).map(|e| &e.0);
        let other = self.others.get(self.others_at).map(|e| &e.0);
        let best = match (walked, other) {
            (Some(w), Some(x)) => {
                if by_value(w, x) == Ordering::Greater {
                    x.clone()
                } else {
                    w.clone()
                }
            }
            (Some(w), None) => w.clone(),
            (None, Some(x)) => x.clone(),
            (None, None) => return Vec::new(),
        };
        let same = |v: &Value| by_value(v, &best) == Ordering::Equal;
        let mut group = Vec::new();
        // Equal values are adjacent in the sorted order.
        while let Some((v, o)) = self.next_place().and_then(|p| entries.get(p)) {
            if !same(v) {
                break;
            }
            group.push((v.clone(), theirs(*o), *o));
            self.left = self.left.saturating_sub(1);
            self.at += 1;
        }
        while let Some(e) = self.others.get(self.others_at) {
            if !same(&e.0) {
                break;
            }
            group.push(e.clone());
            self.others_at += 1;
        }
        by_offer_rank(&mut group);
        group
    }

    /// The place in the sorted order of the next candidate to read (offers that are not
    /// candidates passed over).
    fn next_place(&mut self) -> Option<usize> {
        if let Some(ahead) = &self.ahead {
            return ahead.get(self.at).map(|&p| p as usize);
        }
        while let Some((_, o)) = self.sorted.entries.get(self.at) {
            if self.candidates.contains(*o) {
                return Some(self.at);
            }
            self.at += 1;
        }
        None
    }

    /// Goes on through the candidates' places alone when they are few against the offers
    /// left to pass ([`SPARSE`]).
    fn maybe_ahead(&mut self) {
        if self.ahead.is_some() {
            return;
        }
        let unseen = self.sorted.entries.len().saturating_sub(self.at) as u64;
        if self.left.saturating_mul(SPARSE) >= unseen {
            return;
        }
        // The places as a word set, read in order: no sort.
        let (at, sorted) = (self.at, &self.sorted);
        let n = u32::try_from(sorted.entries.len()).unwrap_or(u32::MAX);
        let places = self.candidates.mapped(n, |o| {
            let p = sorted.position(o)?;
            (p >= at).then_some(p as u32)
        });
        self.ahead = Some(places.iter().collect());
        self.at = 0;
    }
}

/// Sorts one group (all of one request rank) by offer rank descending, then load order. Its
/// offer ranks are few (offers of one class rank a request alike) and it comes mostly in load
/// order: then a stable counting sort by rank does it, or nothing when one rank is all.
fn by_offer_rank(group: &mut Vec<(Value, Value, AdId)>) {
    let mut distinct: Vec<&Value> = Vec::new();
    let mut of = Vec::with_capacity(group.len());
    for e in group.iter() {
        let d = match distinct.iter().position(|&v| by_value(v, &e.1).is_eq()) {
            Some(d) => d,
            None if distinct.len() < FEW_RANKS => {
                distinct.push(&e.1);
                distinct.len() - 1
            }
            None => {
                group.sort_by(|a, b| by_value(&a.1, &b.1).then(a.2.cmp(&b.2)));
                return;
            }
        };
        of.push(d as u32);
    }
    let ascending = group.windows(2).all(|w| w[0].2 < w[1].2);
    if distinct.len() <= 1 && ascending {
        return;
    }
    // Each distinct rank's place, best first.
    let mut order: Vec<(&Value, u32)> = distinct.iter().copied().zip(0u32..).collect();
    order.sort_by(|a, b| by_value(a.0, b.0));
    let mut place = vec![0u32; distinct.len()];
    for (p, &(_, d)) in (0u32..).zip(&order) {
        if let Some(x) = place.get_mut(d as usize) {
            *x = p;
        }
    }
    let place_of = |d: u32| place.get(d as usize).copied().unwrap_or(0) as usize;
    // Where each entry goes: by place, then as it comes (load order when ascending).
    let mut starts = vec![0usize; distinct.len() + 1];
    for &d in &of {
        if let Some(c) = starts.get_mut(place_of(d) + 1) {
            *c += 1;
        }
    }
    for i in 1..starts.len() {
        starts[i] += starts[i - 1];
    }
    let mut slots: Vec<Option<(Value, Value, AdId)>> = vec![None; group.len()];
    for (e, &d) in group.drain(..).zip(&of) {
        if let Some(at) = starts.get_mut(place_of(d)) {
            if let Some(slot) = slots.get_mut(*at) {
                *slot = Some(e);
            }
            *at += 1;
        }
    }
    group.extend(slots.into_iter().flatten());
    if !ascending {
        // Entries of one rank out of load order (some outside the sorted offers): within
        // each rank, by load order.
        let mut start = 0;
        while start < group.len() {
            let end = start
                + group[start..]
                    .iter()
                    .take_while(|e| by_value(&e.1, &group[start].1).is_eq())
                    .count();
            group[start..end].sort_by_key(|e| e.2);
            start = end;
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::cycle::{run, CycleOptions};
    use crate::Db;
    use adjoin_query::parse;
    use proptest::prelude::*;

    /// Request ranks of every shape: monotone in one attribute or several, booleans, a
    /// comparison times a constant, mixed types (`Tag`), undefined, error, non-monotone,
    /// reading an offer's expression (`Score`, not remembered), constant, ties everywhere.
    const RANKS: [&str; 16] = [
        "TARGET.Memory",
        "-TARGET.LoadAvg",
        "TARGET.HasGPU",
        "TARGET.Cpus * 100 + TARGET.Memory / 1024",
        "(TARGET.Site == MY.Site) * 10",
        "TARGET.Tag",
        "TARGET.Missing",
        "error",
        "TARGET.Memory % 3",
        "-(TARGET.Cpus - 4) * (TARGET.Cpus - 4)",
        "TARGET.LoadAvg > 2.0 ? 1 : -1",
        "TARGET.Score",
        "TARGET.Score + TARGET.Cpus",
        "1.5",
        "TARGET.Cpus",
        "TARGET.KFlops / 1000000",
    ];

    /// A heterogeneous pool of `seed`: `n` offers, `n` requests, request `i` ranked by
    /// `ranks[i]` (none when out of range) with `counts[i]` as `RequestCount` (1: absent), some
    /// repeated (`repeat`: the same request again, so that clusters share walked lists).
    fn pool(seed: u64, n: u64, ranks: &[usize], counts: &[i64], repeat: &[bool]) -> Db {
        pool_with(seed, n, ranks, counts, repeat, false)
    }

    /// [`pool`], the requests binding `Owner` and `Prio` to two owners and two low priorities
    /// when `alike`.
    fn pool_with(
        seed: u64,
        n: u64,
        ranks: &[usize],
        counts: &[i64],
        repeat: &[bool],
        alike: bool,
    ) -> Db {
        let mut h = adjoin_workload::hetero::Heterogeneous::new(seed);
        let db = Db::open_in_memory().expect("db");
        for i in 0..n {
            db.put("machines", &h.offer(i).expect("offer"))
                .expect("put");
        }
        let mut last = None;
        for i in 0..n as usize {
            let mut r = h.request(i as u64).expect("request");
            if alike {
                let owner = if i % 3 == 0 { "bob" } else { "alice" };
                r.set(
                    "Owner",
                    parse::expr(&format!("\"{owner}\"")).expect("owner"),
                );
                r.set("Prio", parse::expr(&(i % 2).to_string()).expect("prio"));
            }
            if let Some(&k) = ranks.get(i) {
                match RANKS.get(k) {
                    Some(text) => r.set("Rank", parse::expr(text).expect("rank")),
                    None => {
                        r.remove("Rank");
                    }
                }
            }
            if let Some(&c) = counts.get(i).filter(|&&c| c != 1) {
                r.set("RequestCount", parse::expr(&c.to_string()).expect("count"));
            }
            if repeat.get(i).copied().unwrap_or(false) {
                if let Some(prev) = &last {
                    r = Clone::clone(prev);
                    r.set(
                        "GlobalJobId",
                        parse::expr(&format!("\"again{i}\"")).expect("id"),
                    );
                }
            }
            db.put("jobs", &r).expect("put");
            last = Some(r);
        }
        db
    }

    fn cycle(db: &Db, naive: bool, no_clusters: bool) -> crate::cycle::CycleReport {
        let mut o = CycleOptions::new("jobs", "machines");
        (o.dry_run, o.naive, o.no_clusters) = (true, naive, no_clusters);
        run(db, &o).expect("cycle")
    }

    /// The indexed cycle's matches, clustered and not, are the naive cycle's.
    fn equal_to_naive(db: &Db) -> Result<(), TestCaseError> {
        let naive = cycle(db, true, false);
        let indexed = cycle(db, false, false);
        prop_assert_eq!(&indexed.matches, &naive.matches);
        let uncached = cycle(db, false, true);
        prop_assert_eq!(&uncached.matches, &naive.matches);
        Ok(())
    }

    proptest! {
        /// Sorting a group by its offer ranks (counting, or by keys) is sorting it by value
        /// then load order, whatever order it comes in and however many ranks it holds.
        #[test]
        fn groups_sort_as_by_value(
            ranks in prop::collection::vec(0u8..6, 0..200),
            wide in prop::bool::ANY,
            shuffle in prop::bool::ANY,
        ) {
            let value = |r: u8, i: usize| match (wide, r) {
                (true, _) => super::Value::Int(i as i64 % 97),
                (false, 0) => super::Value::Real(1.0),
                (false, 1) => super::Value::Int(1),
                (false, 2) => super::Value::Real(-0.0),
                (false, r) => super::Value::Int(i64::from(r)),
            };
            let mut group: Vec<(super::Value, super::Value, u32)> = ranks
                .iter()
                .enumerate()
                .map(|(i, &r)| (super::Value::Int(0), value(r, i), i as u32 * 3))
                .collect();
            if shuffle {
                group.reverse();
                group.rotate_left(ranks.len() / 3);
            }
            let mut want = group.clone();
            want.sort_by(|a, b| super::by_value(&a.1, &b.1).then(a.2.cmp(&b.2)));
            super::by_offer_rank(&mut group);
            prop_assert_eq!(group, want);
        }
    }

    proptest! {
        /// Offers sorted by keys are sorted by value then load order: integers alone (to
        /// the extremes), doubles (signed zeros, NaN, infinities), both, and what is not a
        /// number (counting 0).
        #[test]
        fn offers_sort_as_by_value(
            values in prop::collection::vec(prop_oneof![
                (-3i64..3).prop_map(super::Value::Int),
                prop_oneof![Just(i64::MAX), Just(i64::MIN), Just((1 << 53) + 1)]
                    .prop_map(super::Value::Int),
                prop_oneof![
                    Just(0.0), Just(-0.0), Just(1.5), Just(-2.0), Just(f64::NAN),
                    Just(f64::INFINITY), Just(f64::NEG_INFINITY), Just(2.0),
                ].prop_map(super::Value::Real),
                Just(super::Value::Undefined),
                Just(super::Value::Bool(true)),
            ], 0..120),
            kinds in 0u8..3,
        ) {
            let entries: Vec<(super::Value, u32)> = (0u32..)
                .zip(values)
                .filter(|(_, v)| match kinds {
                    0 => matches!(v, super::Value::Int(_)),
                    1 => !matches!(v, super::Value::Int(i) if i.unsigned_abs() > 1 << 53),
                    _ => true,
                })
                .map(|(o, v)| (v, o * 7 % 131))
                .collect();
            let mut want = entries.clone();
            want.sort_by(|a, b| super::by_value(&a.0, &b.0).then(a.1.cmp(&b.1)));
            let got = super::Sorted::new(entries, super::RoaringBitmap::new());
            let same = got.entries.iter().zip(&want).all(|(g, w)| {
                g.1 == w.1 && super::by_value(&g.0, &w.0) == std::cmp::Ordering::Equal
            });
            prop_assert!(same && got.entries.len() == want.len(), "{:?} {:?}", got.entries, want);
        }
    }

    /// Reads a walk to the end, `theirs` giving the offers' ranks.
    fn read_walk(
        mut w: super::RankWalk,
        theirs: &dyn Fn(u32) -> super::Value,
    ) -> Vec<(super::Value, super::Value, u32)> {
        let mut out = Vec::new();
        loop {
            let group = w.next_group(&mut |o| theirs(o));
            if group.is_empty() {
                return out;
            }
            out.extend(group);
        }
    }

    proptest! {
        /// A walk reading long groups class by class hands out what ranking each member of
        /// every group gives (the walk without classes), whether it passes every offer or
        /// goes through the candidates' places alone: request ranks with long runs, equal
        /// values spelt differently (`1` and `1.0`), classes ranking alike, offers of no
        /// class, candidates outside the sorted order ranking anywhere.
        #[test]
        fn groups_read_by_class_are_groups_ranked_whole(
            offers in prop::collection::vec((0u8..4, 0u8..5, prop::bool::weighted(0.6)), 1..160),
            class_ranks in prop::collection::vec(0u8..3, 4),
            outside in prop::collection::vec((0u8..4, 0u8..3), 0..6),
            lone in prop::bool::ANY,
        ) {
            use super::{Bits, ClassSets, RankWalk, RoaringBitmap, Sorted, Value};
            use std::sync::Arc;
            let value = |v: u8| match v {
                0 => Value::Int(1),
                1 => Value::Real(1.0),
                v => Value::Int(i64::from(v)),
            };
            // Class 4 stands for no class, when some offers are `lone`.
            let classes: Vec<Option<u32>> = offers
                .iter()
                .map(|o| (o.1 < 4 || !lone).then_some(u32::from(o.1 % 4)))
                .collect();
            let n = offers.len() as u32;
            let mut out_ranks = Vec::new();
            let mut outside_set = RoaringBitmap::new();
            let mut entries = Vec::new();
            let mut candidates = Bits::new();
            for (o, &(mine, _, cand)) in (0u32..).zip(&offers) {
                entries.push((value(mine), o));
                if cand {
                    candidates.insert(o);
                }
            }
            // Candidates outside the sorted order: offers n, n + 1, ….
            for (i, &(mine, theirs)) in (0u32..).zip(&outside) {
                let o = n + i;
                outside_set.insert(o);
                candidates.insert(o);
                out_ranks.push((value(mine), value(theirs), o));
            }
            let theirs = |o: u32| match classes.get(o as usize).copied().flatten() {
                Some(c) => value(class_ranks[c as usize]),
                None => Value::Int(i64::from(o % 3)),
            };
            let sets = ClassSets::new(&classes).map(Arc::new);
            let sorted = Arc::new(Sorted::new(entries, outside_set).with_classes(sets.as_deref()));
            let whole = RankWalk::new(Arc::clone(&sorted), candidates.clone(), out_ranks.clone(), None);
            let by_class = RankWalk::new(sorted, candidates, out_ranks, sets);
            prop_assert_eq!(read_walk(by_class, &theirs), read_walk(whole, &theirs));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]

        /// Lists read in rank order (walked whenever a rank shape comes again: the unit
        /// tests' thresholds) give the naive cycle's matches.
        #[test]
        fn walked_cycles_equal_naive_cycles(
            seed in 0u64..1_000_000,
            n in 20u64..70,
            ranks in prop::collection::vec(0usize..20, 70),
            counts in prop::collection::vec(prop_oneof![Just(1i64), Just(0), Just(3)], 70),
            repeat in prop::collection::vec(prop::bool::weighted(0.2), 70),
        ) {
            equal_to_naive(&pool(seed, n, &ranks, &counts, &repeat))?;
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(12))]

        /// Requests binding what the offers' Requirements read alike (two owners, low
        /// priorities: most `member(TARGET.Owner, AllowedOwners) || TARGET.Prio > 5` offers
        /// refuse them), so that their tuples meet refusals enough to have the refusing offers
        /// left out of later requests' candidates (`offer_classes.rs`): the naive cycle's
        /// matches all the same.
        #[test]
        fn cycles_of_requests_refused_alike_equal_naive_cycles(
            seed in 0u64..1_000_000,
            n in 40u64..120,
            ranks in prop::collection::vec(0usize..20, 120),
        ) {
            equal_to_naive(&pool_with(seed, n, &ranks, &[], &[], true))?;
        }
    }

    /// A rank value: integers, reals (signed zeros and NaN, which remembered ranks never
    /// hold, included), and values that are not numbers.
    fn rank_value() -> impl Strategy<Value = adjoin_query::Value> {
        use adjoin_query::Value;
        prop_oneof![
            (-3i64..4).prop_map(Value::Int),
            prop_oneof![Just(-0.0), Just(0.0), Just(1.5), Just(-2.0), Just(f64::NAN)]
                .prop_map(Value::Real),
            Just(Value::Bool(true)),
            Just(Value::Undefined),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The offers sorted by value are the entries sorted by value descending as the
        /// docking vector compares them, ties in load order, and each place's run ends where
        /// the value changes. Sometimes with an integer beyond 2^53 (`huge`), which orders
        /// with reals only by comparing values.
        #[test]
        fn sorted_orders_as_values_compare(
            values in prop::collection::vec(rank_value(), 0..60),
            huge in prop::option::of((0usize..60, prop_oneof![Just(i64::MAX), Just(i64::MIN), Just((1 << 53) + 1)])),
            shuffle in any::<u64>(),
        ) {
            use super::{by_value, Sorted};
            let mut values = values;
            if let Some((at, v)) = huge {
                values.insert(at.min(values.len()), adjoin_query::Value::Int(v));
            }
            let mut entries: Vec<(adjoin_query::Value, u32)> = values.into_iter().zip(0u32..).collect();
            // Not in load order: the sort alone must put ties there.
            let n = entries.len();
            for i in (1..n).rev() {
                entries.swap(i, (shuffle.rotate_left(i as u32) as usize) % (i + 1));
            }
            let mut want = entries.clone();
            want.sort_by(|a, b| by_value(&a.0, &b.0).then(a.1.cmp(&b.1)));
            let sorted = Sorted::new(entries, adjoin_index::RoaringBitmap::new());
            let got: Vec<u32> = sorted.entries.iter().map(|e| e.1).collect();
            let offers: Vec<u32> = want.iter().map(|e| e.1).collect();
            prop_assert_eq!(got, offers);
            for p in 0..n {
                let end = (p + 1..n)
                    .find(|&q| by_value(&want[q].0, &want[p].0).is_ne())
                    .unwrap_or(n);
                prop_assert_eq!(sorted.run_end[p] as usize, end, "place {}", p);
                prop_assert_eq!(sorted.position[want[p].1 as usize] as usize, p);
            }
        }
    }

    #[test]
    fn every_rank_shape_alone() {
        // Each rank on every request (with ties, undefined and error everywhere), twice the
        // offers' worth of requests, some wanting three.
        for (k, rank) in super::tests::RANKS.iter().enumerate() {
            let ranks = vec![k; 80];
            let counts: Vec<i64> = (0..80).map(|i| if i % 7 == 0 { 3 } else { 1 }).collect();
            let db = pool(k as u64, 80, &ranks, &counts, &[]);
            let naive = cycle(&db, true, false);
            let indexed = cycle(&db, false, false);
            assert!(naive.matched > 0, "{rank}");
            assert_eq!(indexed.matches, naive.matches, "{rank}");
        }
    }
}
