//! An incremental interval tree of `(interval, RID)` entries: stabbing and overlap queries.
//!
//! A treap in an arena: nodes ordered by (lower end, upper end, RID), heap-ordered by random
//! priorities (so its depth is O(log n) with high probability whatever order keys arrive in),
//! each augmented with the greatest and least upper end in its subtree and its size. A query
//! skips a subtree whose greatest upper end falls short of the window, and a right subtree whose
//! lower ends all lie beyond it. When it knows that every lower end of a subtree admits the
//! window (all of a left subtree does once its parent's does) and the least upper end does too,
//! the whole subtree is in the answer: it is taken without another comparison, and a subtree of
//! [`CACHE_MIN`] entries or more keeps the roaring bitmap of its RIDs, so it is taken as one
//! bitmap union. A stab of the dissertation's one-sided constraints (`x <= c`, `x >= c`), whose
//! answer is half the tree, thus costs O(log n) comparisons and a few bitmap unions; a selective
//! stab costs O(log n + k log n) at worst.
//!
//! Cached bitmaps stay exact under insert and remove: an ancestor gains or loses one RID; a
//! rotation recomputes the one node whose set changed from its children's, and a treap rotates
//! at a subtree of size s with probability about 1/s, so the expected upkeep per update is
//! O(log n) bitmap edits. Memory: one bitmap bit-or-array per entry per cached level, about
//! log2(n / CACHE_MIN) levels.
//!
//! Every operation is iterative. Nodes live densely in two parallel arenas (a removed node's
//! slot is refilled by the last node): the keys, augmentation and caches; and the links and
//! RID, which is all a walk of a subtree reads.

use crate::collect::RidCollector;
use crate::interval::{cmp_hi, cmp_lo, hi_admits, lo_admits, spans, Bound, Interval};
use roaring::{MultiOps, RoaringBitmap};
use std::cmp::Ordering;

const NIL: u32 = u32::MAX;

/// Subtrees with at least this many entries keep the bitmap of their RIDs.
pub const CACHE_MIN: u32 = 2048;

#[derive(Clone, Debug)]
struct Node<K> {
    /// The greatest upper end in this subtree.
    max_hi: Bound<K>,
    iv: Interval<K>,
    /// The least upper end in this subtree.
    min_hi: Bound<K>,
    prio: u32,
    /// The number of entries in this subtree.
    size: u32,
    /// The RIDs of this subtree, exactly when `size >= cache_min`.
    cache: Option<Box<RoaringBitmap>>,
}

#[derive(Copy, Clone, Debug)]
struct Link {
    left: u32,
    right: u32,
    rid: u32,
}

/// An interval tree holding `(interval, RID)` entries, each RID at most once (a rectangle has
/// at most one interval per dimension; `!=` makes two rectangles).
#[derive(Clone, Debug)]
pub struct IntervalTree<K> {
    nodes: Vec<Node<K>>,
    links: Vec<Link>,
    /// The RIDs held.
    rids: RoaringBitmap,
    root: u32,
    rng: u64,
    cache_min: u32,
}

impl<K: Ord + Clone> Default for IntervalTree<K> {
    fn default() -> Self {
        IntervalTree::new()
    }
}

/// splitmix64: priorities need only be independent of the keys.
fn next_prio(state: &mut u64) -> u32 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    (z ^ (z >> 31)) as u32
}

/// Walks a subtree by its links alone, reporting every RID.
fn walk(links: &[Link], top: u32, stack: &mut Vec<u32>, f: &mut impl FnMut(u32)) {
    stack.push(top);
    while let Some(n) = stack.pop() {
        let l = links[n as usize];
        f(l.rid);
        if l.left != NIL {
            stack.push(l.left);
        }
        if l.right != NIL {
            stack.push(l.right);
        }
    }
}

/// Where a query's answer goes.
trait Sink<'t, K> {
    fn one(&mut self, rid: u32);
    /// The whole subtree under `n` is in the answer.
    fn all(&mut self, tree: &'t IntervalTree<K>, n: u32);
}

/// Reports RID by RID.
struct EachRid<F>(F, Vec<u32>);

impl<'t, K, F: FnMut(u32)> Sink<'t, K> for EachRid<F> {
    fn one(&mut self, rid: u32) {
        (self.0)(rid)
    }
    fn all(&mut self, tree: &'t IntervalTree<K>, n: u32) {
        walk(&tree.links, n, &mut self.1, &mut self.0)
    }
}

/// Gathers a bitmap, taking cached subtrees whole.
struct Gather<'t> {
    rids: RidCollector,
    sets: Vec<&'t RoaringBitmap>,
    stack: Vec<u32>,
}

impl<'t> Gather<'t> {
    fn new() -> Gather<'t> {
        Gather {
            rids: RidCollector::new(),
            sets: Vec::new(),
            stack: Vec::new(),
        }
    }

    fn finish(self) -> RoaringBitmap {
        let mut out = self.rids.finish();
        match self.sets.len() {
            0 => {}
            1 => out |= self.sets[0],
            _ => out |= self.sets.into_iter().union(),
        }
        out
    }
}

impl<'t, K> Sink<'t, K> for Gather<'t> {
    fn one(&mut self, rid: u32) {
        self.rids.push(rid)
    }
    fn all(&mut self, tree: &'t IntervalTree<K>, n: u32) {
        match &tree.nodes[n as usize].cache {
            Some(b) => self.sets.push(b),
            None => {
                let rids = &mut self.rids;
                walk(&tree.links, n, &mut self.stack, &mut |r| rids.push(r))
            }
        }
    }
}

impl<K: Ord + Clone> IntervalTree<K> {
    /// An empty tree.
    pub fn new() -> IntervalTree<K> {
        IntervalTree::with_cache_min(CACHE_MIN)
    }

    /// An empty tree whose subtrees of `cache_min` entries or more cache their RIDs (the
    /// default is [`CACHE_MIN`]; `u32::MAX` disables caching).
    pub fn with_cache_min(cache_min: u32) -> IntervalTree<K> {
        IntervalTree {
            nodes: Vec::new(),
            links: Vec::new(),
            rids: RoaringBitmap::new(),
            root: NIL,
            rng: 0x5EED,
            cache_min: cache_min.max(1),
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree holds no entry.
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The RIDs held: every rectangle with an interval in this tree.
    pub fn rids(&self) -> &RoaringBitmap {
        &self.rids
    }

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&Interval<K>, u32)> {
        self.nodes
            .iter()
            .zip(&self.links)
            .map(|(n, l)| (&n.iv, l.rid))
    }

    /// The tree's height (0 when empty): O(log n) with high probability.
    pub fn height(&self) -> usize {
        let mut best = 0;
        let mut stack = Vec::new();
        if self.root != NIL {
            stack.push((self.root, 1));
        }
        while let Some((n, d)) = stack.pop() {
            best = best.max(d);
            let l = self.links[n as usize];
            for c in [l.left, l.right] {
                if c != NIL {
                    stack.push((c, d + 1));
                }
            }
        }
        best
    }

    /// Bytes held by the cached subtree bitmaps (serialized size: a close estimate).
    pub fn cache_bytes(&self) -> usize {
        self.nodes
            .iter()
            .filter_map(|n| n.cache.as_ref())
            .map(|b| b.serialized_size())
            .sum()
    }

    fn cmp_entry(&self, iv: &Interval<K>, rid: u32, n: u32) -> Ordering {
        let node = &self.nodes[n as usize].iv;
        cmp_lo(&iv.lo, &node.lo)
            .then_with(|| cmp_hi(&iv.hi, &node.hi))
            .then(rid.cmp(&self.links[n as usize].rid))
    }

    fn size(&self, n: u32) -> u32 {
        if n == NIL {
            0
        } else {
            self.nodes[n as usize].size
        }
    }

    /// Recomputes `n`'s augmentation (bounds and size, not the cache) from its children's.
    fn update(&mut self, n: u32) {
        let Link { left, right, .. } = self.links[n as usize];
        let size = 1 + self.size(left) + self.size(right);
        let node = &self.nodes[n as usize];
        let mut max = &node.iv.hi;
        let mut min = &node.iv.hi;
        for c in [left, right] {
            if c != NIL {
                let child = &self.nodes[c as usize];
                if cmp_hi(&child.max_hi, max) == Ordering::Greater {
                    max = &child.max_hi;
                }
                if cmp_hi(&child.min_hi, min) == Ordering::Less {
                    min = &child.min_hi;
                }
            }
        }
        let (max, min) = (max.clone(), min.clone());
        let node = &mut self.nodes[n as usize];
        node.max_hi = max;
        node.min_hi = min;
        node.size = size;
    }

    /// The RIDs of the subtrees under `roots` (cached bitmaps taken whole), plus `extra`.
    fn union_of(&self, roots: [u32; 2], extra: Option<u32>) -> RoaringBitmap {
        let mut g = Gather::new();
        for r in roots {
            if r != NIL {
                g.all(self, r);
            }
        }
        if let Some(rid) = extra {
            g.rids.push(rid);
        }
        g.finish()
    }

    /// The cache `n` should hold, computed from its children's (which must be exact).
    fn fresh_cache(&self, n: u32) -> Option<Box<RoaringBitmap>> {
        if self.nodes[n as usize].size < self.cache_min {
            return None;
        }
        let l = self.links[n as usize];
        Some(Box::new(self.union_of([l.left, l.right], Some(l.rid))))
    }

    /// Rotates `p`'s left child up; returns it. Augments both; caches are the caller's.
    fn rotate_right(&mut self, p: u32) -> u32 {
        let l = self.links[p as usize].left;
        self.links[p as usize].left = self.links[l as usize].right;
        self.links[l as usize].right = p;
        self.update(p);
        self.update(l);
        l
    }

    /// Rotates `p`'s right child up; returns it. Augments both; caches are the caller's.
    fn rotate_left(&mut self, p: u32) -> u32 {
        let r = self.links[p as usize].right;
        self.links[p as usize].right = self.links[r as usize].left;
        self.links[r as usize].left = p;
        self.update(p);
        self.update(r);
        r
    }

    /// Points the link that led to a subtree (the last step of `path`, or the root) at `to`.
    fn relink(&mut self, path: &[(u32, bool)], to: u32) {
        match path.last() {
            Some(&(p, true)) => self.links[p as usize].left = to,
            Some(&(p, false)) => self.links[p as usize].right = to,
            None => self.root = to,
        }
    }

    /// Finds an entry: its node and the path to it (each ancestor, and whether the path went
    /// left there).
    fn find(&self, iv: &Interval<K>, rid: u32, path: &mut Vec<(u32, bool)>) -> Option<u32> {
        let mut cur = self.root;
        while cur != NIL {
            match self.cmp_entry(iv, rid, cur) {
                Ordering::Equal => return Some(cur),
                Ordering::Less => {
                    path.push((cur, true));
                    cur = self.links[cur as usize].left;
                }
                Ordering::Greater => {
                    path.push((cur, false));
                    cur = self.links[cur as usize].right;
                }
            }
        }
        None
    }

    fn push_node(&mut self, iv: Interval<K>, rid: u32) -> u32 {
        let n = self.nodes.len() as u32;
        let prio = next_prio(&mut self.rng);
        self.nodes.push(Node {
            max_hi: iv.hi.clone(),
            min_hi: iv.hi.clone(),
            iv,
            prio,
            size: 1,
            cache: (self.cache_min <= 1).then(|| Box::new(RoaringBitmap::from_iter([rid]))),
        });
        self.links.push(Link {
            left: NIL,
            right: NIL,
            rid,
        });
        n
    }

    /// Adds an entry. Returns false (and stores nothing) when the interval is empty or the RID
    /// is already held (with this interval or another).
    pub fn insert(&mut self, iv: Interval<K>, rid: u32) -> bool {
        if iv.is_empty() || self.nodes.len() >= NIL as usize || self.rids.contains(rid) {
            return false;
        }
        let mut path = Vec::with_capacity(48);
        if self.find(&iv, rid, &mut path).is_some() {
            return false; // unreachable: the RID is not held
        }
        self.rids.insert(rid);
        let x = self.push_node(iv, rid);
        self.relink(&path, x);
        // Rotate x up while it outranks its parent; then every remaining ancestor gains x.
        let mut rising = true;
        while let Some((p, went_left)) = path.pop() {
            if rising && self.nodes[x as usize].prio > self.nodes[p as usize].prio {
                let old = self.nodes[p as usize].cache.take(); // p's old set, without x
                let top = if went_left {
                    self.rotate_right(p)
                } else {
                    self.rotate_left(p)
                };
                self.nodes[p as usize].cache = self.fresh_cache(p);
                // x's subtree is p's old subtree plus x.
                self.nodes[x as usize].cache = match old {
                    Some(mut b) => {
                        b.insert(rid);
                        Some(b)
                    }
                    None => self.fresh_cache(x),
                };
                self.relink(&path, top);
            } else {
                rising = false;
                self.update(p);
                let size = self.nodes[p as usize].size;
                match &mut self.nodes[p as usize].cache {
                    Some(b) => {
                        b.insert(rid);
                    }
                    None if size >= self.cache_min => {
                        self.nodes[p as usize].cache = self.fresh_cache(p);
                    }
                    None => {}
                }
            }
        }
        true
    }

    /// Removes an entry. Returns whether it was held.
    pub fn remove(&mut self, iv: &Interval<K>, rid: u32) -> bool {
        let mut path = Vec::with_capacity(48);
        let Some(t) = self.find(iv, rid, &mut path) else {
            return false;
        };
        self.rids.remove(rid);
        let ancestors = path.len();
        // Rotate t down until it has at most one child, then splice it out. Each node rotated
        // above t ends up holding t's subtree of that moment, minus t.
        loop {
            let Link {
                left: l, right: r, ..
            } = self.links[t as usize];
            if l == NIL || r == NIL {
                self.relink(&path, if l == NIL { r } else { l });
                break;
            }
            let final_size = self.nodes[t as usize].size - 1;
            let set = match self.nodes[t as usize].cache.take() {
                Some(mut b) if final_size >= self.cache_min => {
                    b.remove(rid);
                    Some(b)
                }
                Some(_) => None,
                None if final_size >= self.cache_min => Some(Box::new(self.union_of([l, r], None))),
                None => None,
            };
            let (top, went_left) = if self.nodes[l as usize].prio > self.nodes[r as usize].prio {
                (self.rotate_right(t), false)
            } else {
                (self.rotate_left(t), true)
            };
            self.nodes[top as usize].cache = set;
            self.relink(&path, top);
            path.push((top, went_left));
        }
        for (i, &(p, _)) in path.iter().enumerate().rev() {
            self.update(p);
            if i < ancestors {
                let small = self.nodes[p as usize].size < self.cache_min;
                let node = &mut self.nodes[p as usize];
                if small {
                    node.cache = None;
                } else if let Some(b) = &mut node.cache {
                    b.remove(rid);
                }
            }
        }
        self.free_slot(t);
        true
    }

    /// Fills the slot of the unlinked node `t` with the last node, re-pointing the one link
    /// that named the last node's old slot. (Augmentation holds bounds and sets, not slots.)
    fn free_slot(&mut self, t: u32) {
        let last = (self.nodes.len() - 1) as u32;
        if t != last {
            let mut path = Vec::with_capacity(48);
            let moved = {
                let iv = &self.nodes[last as usize].iv;
                // The last node is in the tree, so it is found; its parent ends `path`.
                self.find(iv, self.links[last as usize].rid, &mut path)
            };
            debug_assert_eq!(moved, Some(last));
            self.relink(&path, t);
        }
        self.nodes.swap_remove(t as usize);
        self.links.swap_remove(t as usize);
    }

    /// Whether the entry is held.
    pub fn contains(&self, iv: &Interval<K>, rid: u32) -> bool {
        self.find(iv, rid, &mut Vec::new()).is_some()
    }

    /// The query walk. `reach(hi)`: an upper end reaches the window (monotone: true for every
    /// greater end); `start(lo)`: a lower end admits it (monotone: true for every lesser end).
    fn visit<'t, S: Sink<'t, K>>(
        &'t self,
        reach: impl Fn(&Bound<K>) -> bool,
        start: impl Fn(&Bound<K>) -> bool,
        sink: &mut S,
    ) {
        if self.root == NIL {
            return;
        }
        // (node, whether every lower end in its subtree is known to admit the window)
        let mut stack: Vec<(u32, bool)> = Vec::with_capacity(64);
        stack.push((self.root, false));
        while let Some((n, lo_ok)) = stack.pop() {
            let node = &self.nodes[n as usize];
            if !reach(&node.max_hi) {
                continue; // no upper end in this subtree reaches the window
            }
            if lo_ok && reach(&node.min_hi) {
                sink.all(self, n);
                continue;
            }
            let link = self.links[n as usize];
            let here = lo_ok || start(&node.iv.lo);
            if link.left != NIL {
                // Left lower ends are ≤ this one: they admit the window if this one does.
                stack.push((link.left, here));
            }
            if here {
                if reach(&node.iv.hi) {
                    sink.one(link.rid);
                }
                if link.right != NIL {
                    stack.push((link.right, lo_ok));
                }
            } // else every lower end on the right lies beyond the window too
        }
    }

    /// Calls `f` with the RID of every entry whose interval contains `k`.
    pub fn stab_with(&self, k: &K, f: impl FnMut(u32)) {
        let mut sink = EachRid(f, Vec::new());
        self.visit(|hi| hi_admits(hi, k), |lo| lo_admits(lo, k), &mut sink);
    }

    /// Calls `f` with the RID of every entry whose interval meets `w`.
    pub fn overlap_with(&self, w: &Interval<K>, f: impl FnMut(u32)) {
        if w.is_empty() {
            return;
        }
        let mut sink = EachRid(f, Vec::new());
        // Stored intervals are never empty, so an entry meets w exactly when its lower end
        // reaches w's upper end and its upper end reaches w's lower end.
        self.visit(|hi| spans(&w.lo, hi), |lo| spans(lo, &w.hi), &mut sink);
    }

    /// The RIDs of the entries whose interval contains `k`.
    pub fn stab(&self, k: &K) -> RoaringBitmap {
        let mut g = Gather::new();
        self.visit(|hi| hi_admits(hi, k), |lo| lo_admits(lo, k), &mut g);
        g.finish()
    }

    /// The RIDs of the entries whose interval meets `w`.
    pub fn overlap(&self, w: &Interval<K>) -> RoaringBitmap {
        if w.is_empty() {
            return RoaringBitmap::new();
        }
        let mut g = Gather::new();
        self.visit(|hi| spans(&w.lo, hi), |lo| spans(lo, &w.hi), &mut g);
        g.finish()
    }

    /// Builds a tree from entries in one pass (sorting, then a Cartesian-tree build in O(n)):
    /// the fast path for rebuilding an index on open. Empty intervals and repeated entries are
    /// dropped, as [`Self::insert`] would. Nodes land in key order, so subtrees are contiguous.
    pub fn from_entries(entries: Vec<(Interval<K>, u32)>) -> IntervalTree<K> {
        IntervalTree::from_entries_with(entries, CACHE_MIN)
    }

    /// [`Self::from_entries`] with a chosen cache threshold (see [`Self::with_cache_min`]).
    /// Of several entries with one RID, the first in key order is kept.
    pub fn from_entries_with(
        mut entries: Vec<(Interval<K>, u32)>,
        cache_min: u32,
    ) -> IntervalTree<K> {
        entries.retain(|(iv, _)| !iv.is_empty());
        entries.sort_unstable_by(|a, b| {
            cmp_lo(&a.0.lo, &b.0.lo)
                .then_with(|| cmp_hi(&a.0.hi, &b.0.hi))
                .then(a.1.cmp(&b.1))
        });
        entries.dedup_by(|a, b| a.1 == b.1 && a.0 == b.0);
        entries.truncate(NIL as usize);
        let mut t = IntervalTree::with_cache_min(cache_min);
        t.nodes.reserve_exact(entries.len());
        t.links.reserve_exact(entries.len());
        for (iv, rid) in entries {
            if t.rids.insert(rid) {
                t.push_node(iv, rid);
            }
        }
        // Cartesian tree over the sorted nodes: a stack of the right spine.
        let mut spine: Vec<u32> = Vec::new();
        for i in 0..t.nodes.len() as u32 {
            let mut last = NIL;
            while let Some(&top) = spine.last() {
                if t.nodes[top as usize].prio < t.nodes[i as usize].prio {
                    last = top;
                    spine.pop();
                } else {
                    break;
                }
            }
            t.links[i as usize].left = last;
            if let Some(&top) = spine.last() {
                t.links[top as usize].right = i;
            }
            spine.push(i);
        }
        t.root = spine.first().copied().unwrap_or(NIL);
        // Augment bottom-up: children before parents (reversed pre-order).
        let mut order = Vec::with_capacity(t.nodes.len());
        let mut stack = Vec::new();
        if t.root != NIL {
            stack.push(t.root);
        }
        while let Some(n) = stack.pop() {
            order.push(n);
            let l = t.links[n as usize];
            for c in [l.left, l.right] {
                if c != NIL {
                    stack.push(c);
                }
            }
        }
        for &n in order.iter().rev() {
            t.update(n);
            t.nodes[n as usize].cache = t.fresh_cache(n);
        }
        t
    }

    /// Checks every invariant (order, heap, augmentation, caches, arena); for tests.
    #[cfg(test)]
    fn check(&self) {
        assert_eq!(self.nodes.len(), self.links.len());
        let mut seen = 0;
        let mut stack = Vec::new();
        if self.root != NIL {
            stack.push(self.root);
        }
        while let Some(n) = stack.pop() {
            seen += 1;
            let node = &self.nodes[n as usize];
            let link = self.links[n as usize];
            let (mut max, mut min) = (&node.iv.hi, &node.iv.hi);
            for (c, want) in [(link.left, Ordering::Less), (link.right, Ordering::Greater)] {
                if c == NIL {
                    continue;
                }
                let child = &self.nodes[c as usize];
                assert_eq!(
                    self.cmp_entry(&child.iv, self.links[c as usize].rid, n),
                    want
                );
                assert!(child.prio <= node.prio);
                if cmp_hi(&child.max_hi, max) == Ordering::Greater {
                    max = &child.max_hi;
                }
                if cmp_hi(&child.min_hi, min) == Ordering::Less {
                    min = &child.min_hi;
                }
                stack.push(c);
            }
            assert_eq!(cmp_hi(&node.max_hi, max), Ordering::Equal);
            assert_eq!(cmp_hi(&node.min_hi, min), Ordering::Equal);
            let mut walked = RoaringBitmap::new();
            walk(&self.links, n, &mut Vec::new(), &mut |r| {
                walked.insert(r);
            });
            let count = {
                let mut c = 0;
                walk(&self.links, n, &mut Vec::new(), &mut |_| c += 1);
                c
            };
            assert_eq!(node.size, count, "size of {n}");
            match &node.cache {
                Some(b) => {
                    assert!(node.size >= self.cache_min, "cache on a small subtree");
                    assert_eq!(**b, walked, "stale cache at {n}");
                }
                None => assert!(node.size < self.cache_min, "missing cache at {n}"),
            }
        }
        assert_eq!(seen, self.nodes.len());
        assert_eq!(self.rids.len(), self.links.len() as u64);
        assert!(self.links.iter().all(|l| self.rids.contains(l.rid)));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interval::Bound::{self, Excluded as X, Included as I, Unbounded as U};
    use proptest::prelude::*;

    fn iv(lo: Bound<i32>, hi: Bound<i32>) -> Interval<i32> {
        Interval::new(lo, hi)
    }

    fn rids(b: RoaringBitmap) -> Vec<u32> {
        b.iter().collect()
    }

    fn sample() -> IntervalTree<i32> {
        let mut t = IntervalTree::new();
        let entries = [
            (iv(I(1), I(5)), 0),
            (iv(X(5), I(10)), 1),
            (iv(U, X(0)), 2),
            (iv(I(3), U), 3),
            (iv(I(7), I(7)), 4),
            (iv(U, U), 5),
            (iv(X(1), X(2)), 6),
        ];
        for (i, r) in entries {
            assert!(t.insert(i, r));
        }
        t.check();
        t
    }

    #[test]
    fn stabbing_table() {
        let t = sample();
        let cases: [(i32, &[u32]); 8] = [
            (-1, &[2, 5]),
            (0, &[5]),
            (1, &[0, 5]),
            (2, &[0, 5]), // (1, 2) is open at 2
            (5, &[0, 3, 5]),
            (6, &[1, 3, 5]),
            (7, &[1, 3, 4, 5]),
            (11, &[3, 5]),
        ];
        for (k, want) in cases {
            assert_eq!(rids(t.stab(&k)), want, "stab {k}");
        }
    }

    #[test]
    fn overlap_table() {
        let t = sample();
        let cases: [(Interval<i32>, &[u32]); 7] = [
            (iv(U, U), &[0, 1, 2, 3, 4, 5, 6]),
            (iv(I(5), I(5)), &[0, 3, 5]),
            (iv(X(5), X(6)), &[1, 3, 5]),
            (iv(U, I(0)), &[2, 5]),
            (iv(U, X(0)), &[2, 5]),
            (iv(X(10), U), &[3, 5]),
            (iv(I(3), I(1)), &[]), // an empty window meets nothing
        ];
        for (w, want) in cases {
            assert_eq!(rids(t.overlap(&w)), want, "overlap {w:?}");
        }
    }

    #[test]
    fn set_semantics_table() {
        let mut t = sample();
        let cases = [
            ("repeat insert", t.insert(iv(I(1), I(5)), 0), false),
            ("same interval, new rid", t.insert(iv(I(1), I(5)), 9), true),
            ("empty interval", t.insert(iv(I(2), X(2)), 10), false),
            ("held rid, new interval", t.insert(iv(I(0), I(1)), 9), false),
            ("remove absent", t.remove(&iv(I(1), I(6)), 0), false),
            ("remove held", t.remove(&iv(I(1), I(5)), 0), true),
            ("remove again", t.remove(&iv(I(1), I(5)), 0), false),
        ];
        for (what, got, want) in cases {
            assert_eq!(got, want, "{what}");
        }
        t.check();
        assert_eq!(t.len(), 7);
        assert_eq!(rids(t.stab(&1)), [5, 9]);
    }

    #[test]
    fn sequential_keys_stay_shallow() {
        let mut t = IntervalTree::new();
        for i in 0..100_000 {
            t.insert(iv(I(i), I(i + 10)), i as u32);
        }
        assert!(t.height() < 60, "height {}", t.height());
        for i in (0..100_000).step_by(2) {
            assert!(t.remove(&iv(I(i), I(i + 10)), i as u32));
        }
        assert!(t.height() < 60, "height {}", t.height());
        assert_eq!(t.len(), 50_000);
        assert_eq!(t.stab(&15).len(), 6); // the odd lows 5..=15
        let b = IntervalTree::from_entries(t.iter().map(|(i, r)| (i.clone(), r)).collect());
        assert!(b.height() < 60);
        assert_eq!(b.stab(&15), t.stab(&15));
    }

    fn bound() -> impl Strategy<Value = Bound<i32>> {
        prop_oneof![
            1 => Just(Bound::Unbounded),
            3 => (0..40).prop_map(Bound::Included),
            3 => (0..40).prop_map(Bound::Excluded),
        ]
    }

    fn interval() -> impl Strategy<Value = Interval<i32>> {
        (bound(), bound()).prop_map(|(lo, hi)| Interval::new(lo, hi))
    }

    #[derive(Clone, Debug)]
    enum Op {
        Insert(Interval<i32>, u32),
        Remove(usize),
        Stab(i32),
        Overlap(Interval<i32>),
        Rebuild,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            6 => (interval(), 0_u32..30).prop_map(|(i, r)| Op::Insert(i, r)),
            3 => any::<usize>().prop_map(Op::Remove),
            2 => (-2..42).prop_map(Op::Stab),
            2 => interval().prop_map(Op::Overlap),
            1 => Just(Op::Rebuild),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Inserts, removes, rebuilds and queries interleaved, with cached subtree bitmaps from
        /// every size up: every answer equals a scan's, every invariant holds throughout.
        #[test]
        fn agrees_with_a_scan(
            ops in proptest::collection::vec(op(), 1..200),
            cache_min in prop_oneof![Just(1_u32), Just(2), Just(3), Just(8), Just(CACHE_MIN)],
        ) {
            let mut t = IntervalTree::with_cache_min(cache_min);
            let mut scan: Vec<(Interval<i32>, u32)> = Vec::new();
            for (step, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Insert(i, r) => {
                        let fresh = !i.is_empty() && scan.iter().all(|(_, s)| *s != r);
                        prop_assert_eq!(t.insert(i.clone(), r), fresh);
                        if fresh {
                            scan.push((i, r));
                        }
                    }
                    Op::Remove(n) => {
                        if !scan.is_empty() {
                            let (i, r) = scan.swap_remove(n % scan.len());
                            prop_assert!(t.remove(&i, r));
                        }
                    }
                    Op::Stab(k) => {
                        let want: RoaringBitmap =
                            scan.iter().filter(|(i, _)| i.contains(&k)).map(|(_, r)| *r).collect();
                        let mut each = RoaringBitmap::new();
                        t.stab_with(&k, |r| {
                            each.insert(r);
                        });
                        prop_assert_eq!(&each, &want);
                        prop_assert_eq!(t.stab(&k), want);
                    }
                    Op::Overlap(w) => {
                        let want: RoaringBitmap =
                            scan.iter().filter(|(i, _)| i.overlaps(&w)).map(|(_, r)| *r).collect();
                        let mut each = RoaringBitmap::new();
                        t.overlap_with(&w, |r| {
                            each.insert(r);
                        });
                        prop_assert_eq!(&each, &want);
                        prop_assert_eq!(t.overlap(&w), want);
                    }
                    Op::Rebuild => t = IntervalTree::from_entries_with(scan.clone(), cache_min),
                }
                prop_assert_eq!(t.len(), scan.len());
                if step % 8 == 0 {
                    t.check();
                }
            }
            t.check();
        }
    }

    #[test]
    fn caches_stay_exact_through_churn() {
        let mut t = IntervalTree::with_cache_min(64);
        let mut rng = 1_u64;
        let mut held = Vec::new();
        for step in 0..30_000_u32 {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (rng >> 33) as i32;
            if step % 3 == 2 && !held.is_empty() {
                let (i, rid) = held.swap_remove(r as usize % held.len());
                assert!(t.remove(&i, rid));
            } else {
                let a = r % 1000;
                let i = iv(I(a), I(a + (r >> 10) % 50));
                assert!(t.insert(i.clone(), step));
                held.push((i, step));
            }
        }
        t.check();
        assert!(t.cache_bytes() > 0);
        let want: RoaringBitmap = held
            .iter()
            .filter(|(i, _)| i.contains(&500))
            .map(|(_, r)| *r)
            .collect();
        assert_eq!(t.stab(&500), want);
    }
}
