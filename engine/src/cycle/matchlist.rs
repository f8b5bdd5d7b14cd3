//! A cluster's candidates ranked best first (matchlist caching, seed 002 4.1): entries in
//! descending order of their docking vectors, ties in load order, popped by the cluster's
//! requests in turn, entries taken by anyone passed over.
//!
//! Vectors are stored once per distinct value where the ranks repeat (an offer's rank that
//! reads nothing of the offer, a request's constant rank): a first-fit list over thousands of
//! candidates holds one vector, and ordering it is a counting sort over the distinct vectors.

use super::by_class::ClassWalk;
use super::offers::{Offers, Unconfirmed};
use super::topk::RankWalk;
use super::vector::cmp_vectors;
use adjoin_index::AdId;
use adjoin_query::Value;
use std::cmp::Ordering;

/// Lists with at most this many distinct vectors (or entries) are ordered when made (a
/// counting sort over the distinct vectors); longer ones as they are read.
const ORDER_AT_ONCE: usize = 64;

/// The entries a list with many distinct vectors orders first (then twice as many each time).
const FIRST_CHUNK: usize = 8;

/// One cluster's candidates, best first, and how far its requests have taken them.
#[derive(Debug, Default)]
pub struct Matchlist {
    /// Components per vector.
    dim: usize,
    /// The vectors, `dim` components each.
    vectors: Vec<Value>,
    /// (vector number, offer), best first.
    entries: Vec<(u32, AdId)>,
    /// Entries not yet ordered, all after those in `entries`: (vector number, order pushed,
    /// offer). The best of them are moved to `entries` as the list is read
    /// ([`Matchlist::fill`]), so that a list read no further than its first few entries is
    /// not sorted whole.
    rest: Vec<(u32, u32, AdId)>,
    /// By vector number, when `rest` has entries and the vectors allow it ([`order_keys`]):
    /// one integer per vector, ascending as the vectors descend, so that ordering `rest`
    /// compares integers instead of values.
    keys: Vec<u128>,
    /// How many entries of `rest` the next [`Matchlist::fill`] orders.
    chunk: usize,
    next: usize,
    /// Entries not yet known to match, confirmed as the list is read
    /// ([`Matchlist::peek_confirmed`]); `None`: every entry matches.
    unconfirmed: Option<Box<Unconfirmed>>,
    /// Entries still to come, a group at a time, from a walk in rank order (`topk.rs`),
    /// after every entry in `entries`. Only [`Matchlist::peek_confirmed`] reads them: a
    /// walked list is made only for a request without preferences, whose list is read by
    /// nothing else.
    walk: Option<Box<Walk>>,
}

/// Where a walked list's entries come from.
#[derive(Debug)]
enum Walk {
    /// In the order of the request's rank, through the offers sorted by it (`topk.rs`).
    Rank(RankWalk),
    /// Class by class, for a request whose rank is constant (`by_class.rs`).
    Class(ClassWalk),
}

impl Matchlist {
    /// A list of candidates already sorted best first.
    pub fn new(entries: Vec<(Vec<Value>, AdId)>) -> Matchlist {
        let dim = entries.first().map_or(0, |(v, _)| v.len());
        let mut b = Builder::new(dim);
        for (v, o) in entries {
            let n = b.vector(v);
            b.push(n, o);
        }
        Matchlist {
            dim,
            vectors: b.vectors,
            entries: b.entries,
            rest: Vec::new(),
            keys: Vec::new(),
            chunk: 0,
            next: 0,
            unconfirmed: None,
            walk: None,
        }
    }

    /// Moves the best entries of `rest` (a growing number each time) to the end of
    /// `entries`, in order: vector descending, ties in the order pushed.
    fn fill(&mut self) {
        if self.rest.is_empty() {
            return;
        }
        let (dim, vectors) = (self.dim, &self.vectors);
        let vector = |n: u32| {
            let at = n as usize * dim;
            vectors.get(at..at + dim).unwrap_or(&[])
        };
        let best_first = |a: &(u32, u32, AdId), b: &(u32, u32, AdId)| {
            cmp_vectors(vector(b.0), vector(a.0)).then(a.1.cmp(&b.1))
        };
        let k = self.chunk.clamp(1, self.rest.len());
        match self.keys.is_empty() {
            true => select_best(&mut self.rest, k, best_first),
            false => {
                let keys = &self.keys;
                let key = |n: u32| keys.get(n as usize).copied().unwrap_or(u128::MAX);
                select_best(&mut self.rest, k, |a, b| {
                    key(a.0).cmp(&key(b.0)).then(a.1.cmp(&b.1))
                });
            }
        }
        self.entries
            .extend(self.rest.drain(..k).map(|(n, _, o)| (n, o)));
        self.chunk = self.chunk.saturating_mul(2);
    }

    /// Orders every entry (for what reads the whole list).
    fn fill_all(&mut self) {
        self.chunk = usize::MAX;
        self.fill();
    }

    /// A list of `[request rank, offer rank]` vectors read from `walk` (`topk.rs`), its
    /// entries confirmed as read (`u`): read it with [`Matchlist::peek_confirmed`].
    pub fn walked(walk: RankWalk, u: Option<Box<Unconfirmed>>) -> Matchlist {
        Matchlist::walking(Walk::Rank(walk), u)
    }

    /// A list of `[request rank, offer rank]` vectors read from `walk` (`by_class.rs`), its
    /// entries confirmed as read (`u`): read it with [`Matchlist::peek_confirmed`].
    pub fn by_class(walk: ClassWalk, u: Option<Box<Unconfirmed>>) -> Matchlist {
        Matchlist::walking(Walk::Class(walk), u)
    }

    fn walking(walk: Walk, u: Option<Box<Unconfirmed>>) -> Matchlist {
        Matchlist {
            dim: 2,
            vectors: Vec::new(),
            entries: Vec::new(),
            rest: Vec::new(),
            keys: Vec::new(),
            chunk: 0,
            next: 0,
            unconfirmed: u,
            walk: Some(Box::new(walk)),
        }
    }

    /// This list with some entries still to confirm (`u`): read it with
    /// [`Matchlist::peek_confirmed`].
    pub fn unconfirmed(mut self, u: Option<Box<Unconfirmed>>) -> Matchlist {
        self.unconfirmed = u;
        self
    }

    /// [`Matchlist::peek`] of a list whose entries may still need confirming: the best
    /// candidate not taken that matches, entries found not to match passed over for good.
    /// The order is the fully confirmed list's (confirming drops entries, it moves none).
    /// A walked list's next groups come from its walk, `theirs` giving an offer's rank
    /// against the request.
    pub fn peek_confirmed(
        &mut self,
        taken: &[bool],
        pool: &mut Offers,
        theirs: &mut dyn FnMut(AdId) -> Value,
    ) -> Option<(&[Value], AdId)> {
        loop {
            let o = match self.peek(taken) {
                Some((_, o)) => o,
                None => {
                    let walk = self.walk.as_deref_mut()?;
                    let group = match walk {
                        Walk::Rank(w) => w.next_group(theirs),
                        Walk::Class(w) => w.next_group(),
                    };
                    if group.is_empty() {
                        return None;
                    }
                    for (mine, their, o) in group {
                        let n = (self.vectors.len() / self.dim.max(1)) as u32;
                        self.vectors.extend([mine, their]);
                        self.entries.push((n, o));
                    }
                    continue;
                }
            };
            let ok = match self.unconfirmed.as_deref_mut() {
                Some(u) => pool.holds(u, o),
                None => true,
            };
            if ok {
                break;
            }
            self.next += 1;
        }
        self.peek(taken)
    }

    #[cfg(test)]
    /// The number of entries (taken ones included).
    pub fn len(&self) -> usize {
        self.entries.len() + self.rest.len()
    }

    fn vector(&self, n: u32) -> &[Value] {
        let at = n as usize * self.dim;
        self.vectors.get(at..at + self.dim).unwrap_or(&[])
    }

    /// The best candidate not yet taken (entries taken by anyone are passed over for good).
    pub fn peek(&mut self, taken: &[bool]) -> Option<(&[Value], AdId)> {
        loop {
            if self.next >= self.entries.len() {
                self.fill();
            }
            let Some((_, o)) = self.entries.get(self.next) else {
                break;
            };
            if taken.get(*o as usize).copied().unwrap_or(true) {
                self.next += 1;
            } else {
                break;
            }
        }
        let &(n, o) = self.entries.get(self.next)?;
        Some((self.vector(n), o))
    }

    /// Every entry, best first, with none of the `n` offers taken.
    #[cfg(test)]
    pub fn read_whole(mut self, n: usize) -> Vec<(Vec<Value>, AdId)> {
        let taken = vec![false; n];
        let mut out = Vec::new();
        while let Some((v, o)) = self.peek(&taken) {
            out.push((v.to_vec(), o));
            self.advance();
        }
        out
    }

    /// The offers of the entries not yet passed over, best first.
    pub fn ids(&mut self) -> Vec<AdId> {
        self.fill_all();
        self.entries.iter().skip(self.next).map(|e| e.1).collect()
    }

    /// This list (its entries not yet passed over) led by one more component: entry `i` gets
    /// `lead(keys[i])` in front of its vector, and the entries are sorted by their keys
    /// ascending, stably (equal keys keep this list's order); the first `keep` are kept.
    /// Vectors stay shared where both the key and the old vector repeat.
    pub fn led_by(mut self, keys: &[u64], keep: usize, lead: impl Fn(u64) -> Value) -> Matchlist {
        self.fill_all();
        let mut b = Builder::new(self.dim + 1);
        let mut memo: rustc_hash::FxHashMap<(u64, u32), u32> = Default::default();
        let mut entries: Vec<(u64, u32, AdId)> = Vec::with_capacity(keys.len());
        for (&(n, o), &k) in self.entries.iter().skip(self.next).zip(keys) {
            let v = *memo.entry((k, n)).or_insert_with(|| {
                b.vector(std::iter::once(lead(k)).chain(self.vector(n).iter().cloned()))
            });
            entries.push((k, v, o));
        }
        entries.sort_by_key(|e| e.0);
        entries.truncate(keep);
        Matchlist {
            dim: self.dim + 1,
            vectors: b.vectors,
            entries: entries.into_iter().map(|(_, v, o)| (v, o)).collect(),
            rest: Vec::new(),
            keys: Vec::new(),
            chunk: 0,
            next: 0,
            unconfirmed: self.unconfirmed,
            walk: self.walk,
        }
    }

    /// Passes over the candidate [`Matchlist::peek`] returned (taken, or never usable).
    pub fn advance(&mut self) {
        self.next += 1;
    }

    /// Starts again from the best candidate: for offers taken by matches later undone (the
    /// entries passed over are skipped again if still taken).
    pub fn rewind(&mut self) {
        self.next = 0;
    }
}

impl From<Vec<(Vec<Value>, AdId)>> for Matchlist {
    fn from(entries: Vec<(Vec<Value>, AdId)>) -> Matchlist {
        Matchlist::new(entries)
    }
}

/// A matchlist in the making: candidates pushed in load order with their vectors.
#[derive(Debug)]
pub struct Builder {
    dim: usize,
    vectors: Vec<Value>,
    entries: Vec<(u32, AdId)>,
}

impl Builder {
    /// An empty list of vectors of `dim` components.
    pub fn new(dim: usize) -> Builder {
        Builder {
            dim,
            vectors: Vec::new(),
            entries: Vec::new(),
        }
    }

    /// An empty list of vectors of `dim` components with room for `n` entries, each with a
    /// vector of its own.
    pub fn with_capacity(dim: usize, n: usize) -> Builder {
        Builder {
            dim,
            vectors: Vec::with_capacity(dim * n),
            entries: Vec::with_capacity(n),
        }
    }

    /// Adds a vector (of `dim` components: missing ones count 0, extra ones are dropped)
    /// and returns its number, for any number of [`Builder::push`]es.
    pub fn vector(&mut self, v: impl IntoIterator<Item = Value>) -> u32 {
        let n = (self.vectors.len() / self.dim.max(1)) as u32;
        let at = self.vectors.len();
        self.vectors.extend(v.into_iter().take(self.dim));
        self.vectors.resize(at + self.dim, Value::Int(0));
        n
    }

    /// Adds offer `o` (after every offer pushed before it in load order) with vector `n`.
    pub fn push(&mut self, n: u32, o: AdId) {
        self.entries.push((n, o));
    }

    /// The matchlist: entries by vector descending, ties in the order pushed.
    pub fn finish(self) -> Matchlist {
        let Builder {
            dim,
            vectors,
            mut entries,
        } = self;
        let count = vectors.len().checked_div(dim).unwrap_or(0);
        if count > ORDER_AT_ONCE && entries.len() > ORDER_AT_ONCE {
            // Many distinct vectors: ordered as the list is read.
            let rest = (0..).zip(entries).map(|(i, (n, o))| (n, i, o)).collect();
            return Matchlist {
                dim,
                keys: order_keys(dim, &vectors).unwrap_or_default(),
                vectors,
                entries: Vec::new(),
                rest,
                chunk: FIRST_CHUNK,
                next: 0,
                unconfirmed: None,
                walk: None,
            };
        }
        let vector = |n: u32| {
            let at = n as usize * dim;
            vectors.get(at..at + dim).unwrap_or(&[])
        };
        // Rank the distinct vectors best first; equal ones share a rank (so their order
        // here does not matter).
        let mut by_value: Vec<u32> = (0..count as u32).collect();
        by_value.sort_unstable_by(|&a, &b| cmp_vectors(vector(b), vector(a)));
        let mut rank = vec![0u32; count];
        let mut ranks = 0u32;
        for (i, &n) in by_value.iter().enumerate() {
            if i > 0 && cmp_vectors(vector(by_value[i - 1]), vector(n)) != Ordering::Equal {
                ranks += 1;
            }
            if let Some(r) = rank.get_mut(n as usize) {
                *r = ranks;
            }
        }
        // A stable counting sort of the entries by their vector's rank.
        let rank_of = |n: u32| rank.get(n as usize).copied().unwrap_or(0) as usize;
        if ranks > 0 {
            let mut starts = vec![0usize; ranks as usize + 2];
            for &(n, _) in &entries {
                starts[rank_of(n) + 1] += 1;
            }
            for i in 1..starts.len() {
                starts[i] += starts[i - 1];
            }
            let mut sorted = vec![(0u32, 0 as AdId); entries.len()];
            for &(n, o) in &entries {
                let slot = &mut starts[rank_of(n)];
                sorted[*slot] = (n, o);
                *slot += 1;
            }
            entries = sorted;
        }
        Matchlist {
            dim,
            vectors,
            entries,
            rest: Vec::new(),
            keys: Vec::new(),
            chunk: 0,
            next: 0,
            unconfirmed: None,
            walk: None,
        }
    }
}

/// Puts the first `k` entries of `rest` in order (`cmp`), the others after them in any order.
fn select_best<T>(rest: &mut [T], k: usize, mut cmp: impl FnMut(&T, &T) -> Ordering) {
    if k < rest.len() {
        rest.select_nth_unstable_by(k - 1, &mut cmp);
    }
    if let Some(head) = rest.get_mut(..k) {
        head.sort_unstable_by(cmp);
    }
}

/// Each of `vectors` (`dim` components each, at most two) as one integer, ascending as the
/// vectors descend by [`cmp_vectors`] and equal exactly when they compare equal: a component
/// as the integer itself where every vector's is an integer, else as the bits of the double
/// it compares as, ordered as `f64::total_cmp` orders them (`None` when some integer there is
/// beyond 2^53, which compares by its exact value, or the vectors are longer).
fn order_keys(dim: usize, vectors: &[Value]) -> Option<Vec<u128>> {
    const EXACT: i64 = 1 << 53;
    if dim == 0 || dim > 2 {
        return None;
    }
    let mut ints = [true; 2];
    for (j, all) in ints.iter_mut().enumerate().take(dim) {
        *all = (vectors.iter().skip(j).step_by(dim)).all(|v| matches!(v, Value::Int(_)));
    }
    // Ascending as the component descends.
    let descending = |k: i64| u64::MAX - ((k as u64) ^ (1 << 63));
    let component = |v: &Value, ints: bool| -> Option<u64> {
        let k = match v {
            Value::Int(i) if ints => *i,
            Value::Int(i) if (-EXACT..=EXACT).contains(i) => total_bits(*i as f64),
            Value::Int(_) => return None,
            Value::Real(r) => total_bits(*r),
            // What `cmp_vectors` compares anything else as.
            _ => total_bits(0.0),
        };
        Some(descending(k))
    };
    vectors
        .chunks_exact(dim)
        .map(|v| {
            let mut key = 0u128;
            for ((x, &ints), shift) in v.iter().zip(&ints).zip([64, 0]) {
                key |= u128::from(component(x, ints)?) << shift;
            }
            Some(key)
        })
        .collect()
}

/// `x` as an integer ordered as `f64::total_cmp` orders the doubles.
fn total_bits(x: f64) -> i64 {
    let b = x.to_bits() as i64;
    b ^ (((b >> 63) as u64) >> 1) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Candidates 0, 1, … pushed with these vectors (`r` a real, two components), in the
    /// order the list gives them.
    fn check(vectors: &[[f64; 2]], want: &[AdId]) {
        let mut b = Builder::new(2);
        for (o, v) in (0..).zip(vectors) {
            let n = b.vector(v.map(Value::Real));
            b.push(n, o);
        }
        let mut l = b.finish();
        let taken = vec![false; vectors.len()];
        let mut got = Vec::new();
        while let Some((v, o)) = l.peek(&taken) {
            assert_eq!(v.len(), 2);
            got.push(o);
            l.advance();
        }
        assert_eq!(got, want, "{vectors:?}");
    }

    #[test]
    fn orders() {
        check(&[], &[]);
        check(&[[0.0, 0.0]; 3], &[0, 1, 2]);
        check(&[[0.0, 1.0], [1.0, 0.0], [0.0, 2.0]], &[1, 2, 0]);
        check(
            &[[1.0, 1.0], [2.0, 0.0], [1.0, 1.0], [2.0, 0.0]],
            &[1, 3, 0, 2],
        );
        // Components compare as totally ordered numbers: -0 below 0.
        check(&[[-0.0, 0.0], [0.0, 0.0]], &[1, 0]);
    }

    #[test]
    fn long_lists_ordered_as_read_are_sorted_lists() {
        // Many distinct vectors (ordered as read), with ties, read with some entries taken.
        let mut seed = 7u64;
        let mut next = |m: u64| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) % m
        };
        for n in [65usize, 200, 1000] {
            let vectors: Vec<[f64; 2]> =
                (0..n).map(|_| [next(40) as f64, next(3) as f64]).collect();
            let mut want: Vec<AdId> = (0..n as AdId).collect();
            want.sort_by(|&a, &b| {
                let (x, y) = (vectors[a as usize], vectors[b as usize]);
                cmp_vectors(&y.map(Value::Real), &x.map(Value::Real))
            });
            let taken: Vec<bool> = (0..n).map(|_| next(5) == 0).collect();
            want.retain(|&o| !taken[o as usize]);
            let mut b = Builder::new(2);
            for (o, v) in (0..).zip(&vectors) {
                let k = b.vector(v.map(Value::Real));
                b.push(k, o);
            }
            let mut l = b.finish();
            assert!(!l.rest.is_empty(), "ordered as read");
            let mut got = Vec::new();
            while let Some((_, o)) = l.peek(&taken) {
                got.push(o);
                l.advance();
            }
            assert_eq!(got, want, "{n}");
            l.rewind();
            assert_eq!(l.peek(&taken).map(|x| x.1), want.first().copied());
        }
    }

    /// Components of every kind a vector may hold: integers (beyond 2^53 too), reals (-0,
    /// NaN, infinities, one integral beyond 2^53), and what compares as 0.
    fn component(i: usize) -> Value {
        const BIG: i64 = 1 << 53;
        match i % 16 {
            0 => Value::Int(0),
            1 => Value::Int(1),
            2 => Value::Int(-3),
            3 => Value::Int(BIG + 1),
            4 => Value::Int(i64::MIN),
            5 => Value::Real(-0.0),
            6 => Value::Real(0.0),
            7 => Value::Real(1.0),
            8 => Value::Real(-2.5),
            9 => Value::Real(f64::NAN),
            10 => Value::Real(f64::INFINITY),
            11 => Value::Real(f64::NEG_INFINITY),
            12 => Value::Real(BIG as f64),
            13 => Value::Bool(true),
            14 => Value::Int(i64::MAX),
            _ => Value::Int(7),
        }
    }

    proptest::proptest! {
        /// A long list ordered as read through integer keys (or values, where the keys cannot
        /// say) gives the entries in the order of its vectors compared as values.
        #[test]
        fn keyed_lists_order_as_vectors_compare(
            dim in 1usize..4,
            picks in proptest::collection::vec((0usize..16, 0usize..5), 65..400),
            ints in proptest::bool::ANY,
        ) {
            let kinds = if ints { 5 } else { 16 };
            let vectors: Vec<Vec<Value>> = (0..picks.len())
                .map(|o| {
                    (0..dim)
                        .map(|j| {
                            let (k, small) = picks[(o + j * 7) % picks.len()];
                            match k % kinds {
                                // Many distinct integers, so that the list is ordered as read.
                                0 => Value::Int((o % 97) as i64 - small as i64),
                                k => component(k),
                            }
                        })
                        .collect()
                })
                .collect();
            let mut want: Vec<AdId> = (0..vectors.len() as AdId).collect();
            want.sort_by(|&a, &b| cmp_vectors(&vectors[b as usize], &vectors[a as usize]));
            let mut b = Builder::new(dim);
            for (o, v) in (0..).zip(&vectors) {
                let n = b.vector(v.iter().cloned());
                b.push(n, o);
            }
            let l = b.finish();
            if dim <= 2 && ints && !l.rest.is_empty() {
                proptest::prop_assert!(!l.keys.is_empty(), "integers are keyed");
            }
            let got: Vec<AdId> = l.read_whole(vectors.len()).iter().map(|e| e.1).collect();
            proptest::prop_assert_eq!(got, want);
        }
    }

    #[test]
    fn shared_vectors() {
        // One vector for many offers; ties keep the order pushed.
        let mut b = Builder::new(2);
        let low = b.vector([Value::Int(0), Value::Int(0)]);
        let high = b.vector([Value::Int(0), Value::Real(1.0)]);
        for o in 0..6 {
            b.push(if o % 3 == 2 { high } else { low }, o);
        }
        let mut l = b.finish();
        assert_eq!(l.len(), 6);
        let mut taken = vec![false; 6];
        taken[5] = true;
        let mut got = Vec::new();
        while let Some((v, o)) = l.peek(&taken) {
            got.push((o, v.to_vec()));
            l.advance();
        }
        let ids: Vec<AdId> = got.iter().map(|g| g.0).collect();
        assert_eq!(ids, [2, 0, 1, 3, 4]);
        assert_eq!(got[0].1, [Value::Int(0), Value::Real(1.0)]);
    }
}
