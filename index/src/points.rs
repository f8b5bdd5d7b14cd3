//! The points map: per key, the RIDs whose imported value has that key, in key order.
//!
//! Imported values are points; a sorted map from key to RID set answers "which rectangles have
//! a value in this window" (a one-sided query, or the exported side of Algorithm 2) by a range
//! scan that unions one bitmap per *distinct* value. With few distinct values (the workload's
//! domain size 10, or `OpSys`) that is a handful of bitmap unions whatever the number of ads.

use crate::collect::RidCollector;
use crate::interval::Interval;
use roaring::{MultiOps, RoaringBitmap};
use std::collections::BTreeMap;
use std::ops::Bound;

/// Sets up to this size are gathered RID by RID rather than united as bitmaps.
const SMALL_SET: u64 = 64;

/// Sorted points of one domain, each with the set of RIDs holding it.
#[derive(Clone, Debug)]
pub struct PointIndex<K> {
    points: BTreeMap<K, RoaringBitmap>,
    len: usize,
}

impl<K: Ord> Default for PointIndex<K> {
    fn default() -> Self {
        PointIndex::new()
    }
}

impl<K: Ord> PointIndex<K> {
    /// No points.
    pub fn new() -> PointIndex<K> {
        PointIndex {
            points: BTreeMap::new(),
            len: 0,
        }
    }

    /// The number of (key, RID) entries.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there is no entry.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of distinct keys.
    pub fn distinct(&self) -> usize {
        self.points.len()
    }

    /// Records that `rid` holds `key`; returns whether it was new.
    pub fn insert(&mut self, key: K, rid: u32) -> bool {
        let new = self.points.entry(key).or_default().insert(rid);
        self.len += usize::from(new);
        new
    }

    /// Forgets that `rid` holds `key`; returns whether it was recorded.
    pub fn remove(&mut self, key: &K, rid: u32) -> bool {
        let Some(set) = self.points.get_mut(key) else {
            return false;
        };
        let was = set.remove(rid);
        if set.is_empty() {
            self.points.remove(key);
        }
        self.len -= usize::from(was);
        was
    }

    /// The RIDs holding exactly `key`.
    pub fn get(&self, key: &K) -> Option<&RoaringBitmap> {
        self.points.get(key)
    }

    /// The RID sets of the keys in `w`, in key order.
    pub fn sets_in<'a>(&'a self, w: &'a Interval<K>) -> impl Iterator<Item = &'a RoaringBitmap> {
        // BTreeMap::range panics on an inverted range: an empty window asks for nothing.
        let range = if w.is_empty() {
            None
        } else {
            Some(self.points.range::<K, _>((as_ref(&w.lo), as_ref(&w.hi))))
        };
        range.into_iter().flatten().map(|(_, s)| s)
    }

    /// The RIDs holding a key in `w`. Small sets (the common case with many distinct values)
    /// are gathered RID by RID, large ones united as bitmaps.
    pub fn range(&self, w: &Interval<K>) -> RoaringBitmap {
        let mut small = RidCollector::new();
        let mut large = Vec::new();
        for set in self.sets_in(w) {
            if set.len() <= SMALL_SET {
                set.iter().for_each(|r| small.push(r));
            } else {
                large.push(set);
            }
        }
        let mut out = small.finish();
        if !large.is_empty() {
            out |= large.union();
        }
        out
    }

    /// The number of (key, RID) entries with a key in `w` (a selectivity estimate).
    pub fn count_in(&self, w: &Interval<K>) -> u64 {
        self.sets_in(w).map(RoaringBitmap::len).sum()
    }

    /// Every key with its RIDs, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &RoaringBitmap)> {
        self.points.iter()
    }
}

fn as_ref<K>(b: &Bound<K>) -> Bound<&K> {
    match b {
        Bound::Included(k) => Bound::Included(k),
        Bound::Excluded(k) => Bound::Excluded(k),
        Bound::Unbounded => Bound::Unbounded,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Bound::{Excluded as X, Included as I, Unbounded as U};

    fn sample() -> PointIndex<i32> {
        let mut p = PointIndex::new();
        for (k, r) in [(1, 0), (1, 1), (3, 2), (5, 3), (5, 4), (9, 5)] {
            assert!(p.insert(k, r));
        }
        p
    }

    #[test]
    fn range_table() {
        let p = sample();
        let cases: [(Interval<i32>, &[u32]); 9] = [
            (Interval::new(U, U), &[0, 1, 2, 3, 4, 5]),
            (Interval::new(I(1), I(1)), &[0, 1]),
            (Interval::new(X(1), X(5)), &[2]),
            (Interval::new(X(1), I(5)), &[2, 3, 4]),
            (Interval::new(U, X(1)), &[]),
            (Interval::new(X(9), U), &[]),
            (Interval::new(I(5), X(5)), &[]), // empty window: no panic
            (Interval::new(I(6), I(2)), &[]), // inverted window: no panic
            (Interval::new(X(4), X(4)), &[]),
        ];
        for (w, want) in cases {
            assert_eq!(p.range(&w).iter().collect::<Vec<_>>(), want, "{w:?}");
            assert_eq!(p.count_in(&w), want.len() as u64, "{w:?}");
        }
    }

    #[test]
    fn large_and_small_sets_unite() {
        let mut p = PointIndex::new();
        for r in 0..1000 {
            p.insert(r % 3, r); // three large sets
        }
        p.insert(5, 5000);
        let all = p.range(&Interval::new(U, U));
        assert_eq!(all.len(), 1001);
        assert!(all.contains(5000) && all.contains(999));
        assert_eq!(p.range(&Interval::new(X(1), U)).len(), 334);
    }

    #[test]
    fn insert_remove_table() {
        let mut p = sample();
        let steps = [
            ("repeat", p.insert(1, 0), false),
            ("remove", p.remove(&1, 0), true),
            ("remove again", p.remove(&1, 0), false),
            ("remove absent key", p.remove(&2, 0), false),
            ("remove last of key", p.remove(&3, 2), true),
        ];
        for (what, got, want) in steps {
            assert_eq!(got, want, "{what}");
        }
        assert_eq!((p.len(), p.distinct()), (4, 3));
        assert_eq!(p.get(&3), None);
        let keys: Vec<i32> = p.iter().map(|(k, _)| *k).collect();
        assert_eq!(keys, [1, 5, 9]);
    }
}
