//! An incremental interval tree of `(interval, RID)` entries: stabbing and overlap queries.
//!
//! A treap in an arena: nodes ordered by (lower end, upper end, RID), heap-ordered by random
//! priorities (so its depth is O(log n) with high probability whatever order keys arrive in),
//! each augmented with the node of its subtree whose upper end is greatest. A query skips every
//! subtree whose greatest upper end falls short of the window, and every right subtree whose
//! lower ends all lie beyond it. Every operation is iterative: nothing recurses.
//!
//! Nodes live densely in a `Vec` (a removed node's slot is refilled by the last node), so bulk
//! iteration is a slice walk and memory is 1 node per entry.

use crate::collect::RidCollector;
use crate::interval::{cmp_hi, cmp_lo, hi_admits, lo_admits, spans, Interval};
use roaring::RoaringBitmap;
use std::cmp::Ordering;

const NIL: u32 = u32::MAX;

#[derive(Clone, Debug)]
struct Node<K> {
    iv: Interval<K>,
    rid: u32,
    prio: u32,
    left: u32,
    right: u32,
    /// The node of this subtree with the greatest upper end.
    max: u32,
}

/// An interval tree holding `(interval, RID)` entries (a set: an entry is held at most once).
#[derive(Clone, Debug)]
pub struct IntervalTree<K> {
    nodes: Vec<Node<K>>,
    root: u32,
    rng: u64,
}

impl<K: Ord> Default for IntervalTree<K> {
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

impl<K: Ord> IntervalTree<K> {
    /// An empty tree.
    pub fn new() -> IntervalTree<K> {
        IntervalTree {
            nodes: Vec::new(),
            root: NIL,
            rng: 0x5EED,
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

    /// Every entry, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (&Interval<K>, u32)> {
        self.nodes.iter().map(|n| (&n.iv, n.rid))
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
            let node = &self.nodes[n as usize];
            for c in [node.left, node.right] {
                if c != NIL {
                    stack.push((c, d + 1));
                }
            }
        }
        best
    }

    fn cmp_entry(iv: &Interval<K>, rid: u32, n: &Node<K>) -> Ordering {
        cmp_lo(&iv.lo, &n.iv.lo)
            .then_with(|| cmp_hi(&iv.hi, &n.iv.hi))
            .then(rid.cmp(&n.rid))
    }

    fn hi_of(&self, n: u32) -> &crate::interval::Bound<K> {
        &self.nodes[n as usize].iv.hi
    }

    /// Recomputes `n`'s augmentation from its children's.
    fn update(&mut self, n: u32) {
        let node = &self.nodes[n as usize];
        let (l, r) = (node.left, node.right);
        let mut max = n;
        for c in [l, r] {
            if c != NIL {
                let cm = self.nodes[c as usize].max;
                if cmp_hi(self.hi_of(cm), self.hi_of(max)) == Ordering::Greater {
                    max = cm;
                }
            }
        }
        self.nodes[n as usize].max = max;
    }

    /// Rotates `p`'s left child up; returns it.
    fn rotate_right(&mut self, p: u32) -> u32 {
        let l = self.nodes[p as usize].left;
        self.nodes[p as usize].left = self.nodes[l as usize].right;
        self.nodes[l as usize].right = p;
        self.update(p);
        self.update(l);
        l
    }

    /// Rotates `p`'s right child up; returns it.
    fn rotate_left(&mut self, p: u32) -> u32 {
        let r = self.nodes[p as usize].right;
        self.nodes[p as usize].right = self.nodes[r as usize].left;
        self.nodes[r as usize].left = p;
        self.update(p);
        self.update(r);
        r
    }

    /// Points the link that led to a subtree (the last step of `path`, or the root) at `to`.
    fn relink(&mut self, path: &[(u32, bool)], to: u32) {
        match path.last() {
            Some(&(p, true)) => self.nodes[p as usize].left = to,
            Some(&(p, false)) => self.nodes[p as usize].right = to,
            None => self.root = to,
        }
    }

    /// Finds an entry: its node and the path to it (each ancestor, and whether the path went
    /// left there).
    fn find(&self, iv: &Interval<K>, rid: u32, path: &mut Vec<(u32, bool)>) -> Option<u32> {
        let mut cur = self.root;
        while cur != NIL {
            let node = &self.nodes[cur as usize];
            match Self::cmp_entry(iv, rid, node) {
                Ordering::Equal => return Some(cur),
                Ordering::Less => {
                    path.push((cur, true));
                    cur = node.left;
                }
                Ordering::Greater => {
                    path.push((cur, false));
                    cur = node.right;
                }
            }
        }
        None
    }

    /// Adds an entry. Returns false (and stores nothing) when the interval is empty or the
    /// entry is already held.
    pub fn insert(&mut self, iv: Interval<K>, rid: u32) -> bool {
        if iv.is_empty() || self.nodes.len() >= NIL as usize {
            return false;
        }
        let mut path = Vec::with_capacity(48);
        if self.find(&iv, rid, &mut path).is_some() {
            return false;
        }
        let new = self.nodes.len() as u32;
        let prio = next_prio(&mut self.rng);
        self.nodes.push(Node {
            iv,
            rid,
            prio,
            left: NIL,
            right: NIL,
            max: new,
        });
        self.relink(&path, new);
        // Rotate the new node up while it outranks its parent, then refresh the ancestors.
        let mut child = new;
        while let Some((p, went_left)) = path.pop() {
            if self.nodes[child as usize].prio > self.nodes[p as usize].prio {
                let top = if went_left {
                    self.rotate_right(p)
                } else {
                    self.rotate_left(p)
                };
                self.relink(&path, top);
                child = top;
            } else {
                self.update(p);
                child = p;
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
        // Rotate the node down until it has at most one child, then splice it out.
        loop {
            let (l, r) = {
                let n = &self.nodes[t as usize];
                (n.left, n.right)
            };
            if l == NIL || r == NIL {
                self.relink(&path, if l == NIL { r } else { l });
                break;
            }
            if self.nodes[l as usize].prio > self.nodes[r as usize].prio {
                let top = self.rotate_right(t);
                self.relink(&path, top);
                path.push((top, false));
            } else {
                let top = self.rotate_left(t);
                self.relink(&path, top);
                path.push((top, true));
            }
        }
        for &(p, _) in path.iter().rev() {
            self.update(p);
        }
        self.free_slot(t);
        true
    }

    /// Fills the slot of the unlinked node `t` with the last node, fixing the links and
    /// augmentations that named the last node's old slot.
    fn free_slot(&mut self, t: u32) {
        let last = (self.nodes.len() - 1) as u32;
        if t != last {
            let mut path = Vec::with_capacity(48);
            let moved = {
                let n = &self.nodes[last as usize];
                // The last node is in the tree, so it is found; its ancestors are on `path`.
                self.find(&n.iv, n.rid, &mut path)
            };
            debug_assert_eq!(moved, Some(last));
            self.relink(&path, t);
            for &(p, _) in &path {
                if self.nodes[p as usize].max == last {
                    self.nodes[p as usize].max = t;
                }
            }
            if self.nodes[last as usize].max == last {
                self.nodes[last as usize].max = t;
            }
        }
        self.nodes.swap_remove(t as usize);
    }

    /// Whether the entry is held.
    pub fn contains(&self, iv: &Interval<K>, rid: u32) -> bool {
        self.find(iv, rid, &mut Vec::new()).is_some()
    }

    /// Calls `f` with the RID of every entry whose interval contains `k`.
    pub fn stab_with(&self, k: &K, mut f: impl FnMut(u32)) {
        if self.root == NIL {
            return;
        }
        let nodes = &self.nodes[..];
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(self.root);
        while let Some(n) = stack.pop() {
            let node = &nodes[n as usize];
            if !hi_admits(&nodes[node.max as usize].iv.hi, k) {
                continue; // no upper end in this subtree reaches k
            }
            if node.left != NIL {
                stack.push(node.left);
            }
            if lo_admits(&node.iv.lo, k) {
                if hi_admits(&node.iv.hi, k) {
                    f(node.rid);
                }
                if node.right != NIL {
                    stack.push(node.right);
                }
            } // else every lower end on the right lies beyond k too
        }
    }

    /// Calls `f` with the RID of every entry whose interval meets `w`.
    pub fn overlap_with(&self, w: &Interval<K>, mut f: impl FnMut(u32)) {
        if self.root == NIL || w.is_empty() {
            return;
        }
        let nodes = &self.nodes[..];
        let mut stack: Vec<u32> = Vec::with_capacity(64);
        stack.push(self.root);
        while let Some(n) = stack.pop() {
            let node = &nodes[n as usize];
            if !spans(&w.lo, &nodes[node.max as usize].iv.hi) {
                continue;
            }
            if node.left != NIL {
                stack.push(node.left);
            }
            if spans(&node.iv.lo, &w.hi) {
                // Stored intervals are never empty, so these two tests decide the overlap.
                if spans(&w.lo, &node.iv.hi) {
                    f(node.rid);
                }
                if node.right != NIL {
                    stack.push(node.right);
                }
            }
        }
    }

    /// The RIDs of the entries whose interval contains `k`.
    pub fn stab(&self, k: &K) -> RoaringBitmap {
        let mut c = RidCollector::new();
        self.stab_with(k, |r| c.push(r));
        c.finish()
    }

    /// The RIDs of the entries whose interval meets `w`.
    pub fn overlap(&self, w: &Interval<K>) -> RoaringBitmap {
        let mut c = RidCollector::new();
        self.overlap_with(w, |r| c.push(r));
        c.finish()
    }

    /// Builds a tree from entries in one pass (sorting, then a Cartesian-tree build in O(n)):
    /// the fast path for rebuilding an index on open. Empty intervals and repeated entries are
    /// dropped, as [`Self::insert`] would.
    pub fn from_entries(mut entries: Vec<(Interval<K>, u32)>) -> IntervalTree<K> {
        entries.retain(|(iv, _)| !iv.is_empty());
        entries.sort_unstable_by(|a, b| {
            cmp_lo(&a.0.lo, &b.0.lo)
                .then_with(|| cmp_hi(&a.0.hi, &b.0.hi))
                .then(a.1.cmp(&b.1))
        });
        entries.dedup_by(|a, b| a.1 == b.1 && a.0 == b.0);
        entries.truncate(NIL as usize);
        let mut t = IntervalTree::new();
        t.nodes.reserve_exact(entries.len());
        for (i, (iv, rid)) in entries.into_iter().enumerate() {
            let prio = next_prio(&mut t.rng);
            t.nodes.push(Node {
                iv,
                rid,
                prio,
                left: NIL,
                right: NIL,
                max: i as u32,
            });
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
            t.nodes[i as usize].left = last;
            if let Some(&top) = spine.last() {
                t.nodes[top as usize].right = i;
            }
            spine.push(i);
        }
        t.root = spine.first().copied().unwrap_or(NIL);
        // Augment bottom-up: children before parents (iterative post-order).
        let mut order = Vec::with_capacity(t.nodes.len());
        let mut stack = Vec::new();
        if t.root != NIL {
            stack.push(t.root);
        }
        while let Some(n) = stack.pop() {
            order.push(n);
            let node = &t.nodes[n as usize];
            for c in [node.left, node.right] {
                if c != NIL {
                    stack.push(c);
                }
            }
        }
        for &n in order.iter().rev() {
            t.update(n);
        }
        t
    }

    /// Checks every invariant (order, heap, augmentation, arena); for tests.
    #[cfg(test)]
    fn check(&self) {
        let mut seen = 0;
        let mut stack = Vec::new();
        if self.root != NIL {
            stack.push(self.root);
        }
        while let Some(n) = stack.pop() {
            seen += 1;
            let node = &self.nodes[n as usize];
            let mut max = n;
            for (c, want) in [(node.left, Ordering::Less), (node.right, Ordering::Greater)] {
                if c == NIL {
                    continue;
                }
                let child = &self.nodes[c as usize];
                assert_eq!(Self::cmp_entry(&child.iv, child.rid, node), want);
                assert!(child.prio <= node.prio);
                if cmp_hi(self.hi_of(child.max), self.hi_of(max)) == Ordering::Greater {
                    max = child.max;
                }
                stack.push(c);
            }
            assert_eq!(
                cmp_hi(self.hi_of(node.max), self.hi_of(max)),
                Ordering::Equal
            );
        }
        assert_eq!(seen, self.nodes.len());
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
        /// Inserts, removes, rebuilds and queries interleaved: every answer equals a scan's.
        #[test]
        fn agrees_with_a_scan(ops in proptest::collection::vec(op(), 1..200)) {
            let mut t = IntervalTree::new();
            let mut scan: Vec<(Interval<i32>, u32)> = Vec::new();
            for op in ops {
                match op {
                    Op::Insert(i, r) => {
                        let fresh = !i.is_empty() && !scan.contains(&(i.clone(), r));
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
                        prop_assert_eq!(t.stab(&k), want);
                    }
                    Op::Overlap(w) => {
                        let want: RoaringBitmap =
                            scan.iter().filter(|(i, _)| i.overlaps(&w)).map(|(_, r)| *r).collect();
                        prop_assert_eq!(t.overlap(&w), want);
                    }
                    Op::Rebuild => t = IntervalTree::from_entries(scan.clone()),
                }
                prop_assert_eq!(t.len(), scan.len());
            }
            t.check();
        }
    }
}
