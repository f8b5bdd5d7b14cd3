//! Intervals over a totally ordered key type, with open, closed and unbounded ends.
//!
//! Emptiness is decided as in a *dense* order: `(a, b)` with `a < b` counts as non-empty even
//! when the key type has no value strictly between `a` and `b` (integers, strings). That only
//! ever keeps an interval the index could have dropped (a candidate too many), never loses one;
//! and a point `[p, p]` meets an interval exactly when the interval contains `p`, so every
//! point-against-interval probe (all of Algorithm 2's) is decided exactly.

use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
pub use std::ops::Bound;

/// An interval `lo .. hi` whose ends are each closed ([`Bound::Included`]), open
/// ([`Bound::Excluded`]) or absent ([`Bound::Unbounded`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Interval<K> {
    /// The lower end.
    pub lo: Bound<K>,
    /// The upper end.
    pub hi: Bound<K>,
}

/// Orders two lower ends by the sets they admit: a larger lower end admits fewer keys.
/// `Unbounded` is least; at the same key `Included` comes before `Excluded`.
pub fn cmp_lo<K: Ord>(a: &Bound<K>, b: &Bound<K>) -> Ordering {
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Ordering::Equal,
        (Bound::Unbounded, _) => Ordering::Less,
        (_, Bound::Unbounded) => Ordering::Greater,
        (Bound::Included(x), Bound::Included(y)) | (Bound::Excluded(x), Bound::Excluded(y)) => {
            x.cmp(y)
        }
        (Bound::Included(x), Bound::Excluded(y)) => x.cmp(y).then(Ordering::Less),
        (Bound::Excluded(x), Bound::Included(y)) => x.cmp(y).then(Ordering::Greater),
    }
}

/// Orders two upper ends by the sets they admit: a larger upper end admits more keys.
/// `Unbounded` is greatest; at the same key `Excluded` comes before `Included`.
pub fn cmp_hi<K: Ord>(a: &Bound<K>, b: &Bound<K>) -> Ordering {
    match (a, b) {
        (Bound::Unbounded, Bound::Unbounded) => Ordering::Equal,
        (Bound::Unbounded, _) => Ordering::Greater,
        (_, Bound::Unbounded) => Ordering::Less,
        (Bound::Included(x), Bound::Included(y)) | (Bound::Excluded(x), Bound::Excluded(y)) => {
            x.cmp(y)
        }
        (Bound::Included(x), Bound::Excluded(y)) => x.cmp(y).then(Ordering::Greater),
        (Bound::Excluded(x), Bound::Included(y)) => x.cmp(y).then(Ordering::Less),
    }
}

/// Whether the lower end `lo` admits `k` (`k` lies at or above it).
#[inline]
pub fn lo_admits<K: Ord>(lo: &Bound<K>, k: &K) -> bool {
    match lo {
        Bound::Unbounded => true,
        Bound::Included(x) => x <= k,
        Bound::Excluded(x) => x < k,
    }
}

/// Whether the upper end `hi` admits `k` (`k` lies at or below it).
#[inline]
pub fn hi_admits<K: Ord>(hi: &Bound<K>, k: &K) -> bool {
    match hi {
        Bound::Unbounded => true,
        Bound::Included(x) => k <= x,
        Bound::Excluded(x) => k < x,
    }
}

/// Whether the interval from lower end `lo` to upper end `hi` is non-empty (dense order).
#[inline]
pub fn spans<K: Ord>(lo: &Bound<K>, hi: &Bound<K>) -> bool {
    match (lo, hi) {
        (Bound::Unbounded, _) | (_, Bound::Unbounded) => true,
        (Bound::Included(a), Bound::Included(b)) => a <= b,
        (Bound::Included(a), Bound::Excluded(b))
        | (Bound::Excluded(a), Bound::Included(b))
        | (Bound::Excluded(a), Bound::Excluded(b)) => a < b,
    }
}

impl<K> Interval<K> {
    /// The interval from `lo` to `hi`.
    pub fn new(lo: Bound<K>, hi: Bound<K>) -> Interval<K> {
        Interval { lo, hi }
    }

    /// Every key.
    pub fn full() -> Interval<K> {
        Interval::new(Bound::Unbounded, Bound::Unbounded)
    }

    /// `[a, b]`.
    pub fn closed(a: K, b: K) -> Interval<K> {
        Interval::new(Bound::Included(a), Bound::Included(b))
    }

    /// `(a, b)`.
    pub fn open(a: K, b: K) -> Interval<K> {
        Interval::new(Bound::Excluded(a), Bound::Excluded(b))
    }

    /// `(-∞, k)`: the keys `< k`.
    pub fn less_than(k: K) -> Interval<K> {
        Interval::new(Bound::Unbounded, Bound::Excluded(k))
    }

    /// `(-∞, k]`: the keys `<= k`.
    pub fn at_most(k: K) -> Interval<K> {
        Interval::new(Bound::Unbounded, Bound::Included(k))
    }

    /// `(k, ∞)`: the keys `> k`.
    pub fn greater_than(k: K) -> Interval<K> {
        Interval::new(Bound::Excluded(k), Bound::Unbounded)
    }

    /// `[k, ∞)`: the keys `>= k`.
    pub fn at_least(k: K) -> Interval<K> {
        Interval::new(Bound::Included(k), Bound::Unbounded)
    }
}

impl<K: Clone> Interval<K> {
    /// The degenerate interval `[k, k]`.
    pub fn point(k: K) -> Interval<K> {
        Interval::closed(k.clone(), k)
    }

    /// The keys `!= k`, as the two intervals `(-∞, k)` and `(k, ∞)` (the dissertation's `!=`
    /// split: one property, two rectangles).
    pub fn split_ne(k: K) -> [Interval<K>; 2] {
        [Interval::less_than(k.clone()), Interval::greater_than(k)]
    }
}

impl<K: Ord> Interval<K> {
    /// Whether no key lies in the interval (dense order: see the module note).
    pub fn is_empty(&self) -> bool {
        !spans(&self.lo, &self.hi)
    }

    /// Whether `k` lies in the interval.
    #[inline]
    pub fn contains(&self, k: &K) -> bool {
        lo_admits(&self.lo, k) && hi_admits(&self.hi, k)
    }

    /// Whether the two intervals share a key (dense order).
    #[inline]
    pub fn overlaps(&self, other: &Interval<K>) -> bool {
        spans(&self.lo, &other.hi)
            && spans(&other.lo, &self.hi)
            && spans(&self.lo, &self.hi)
            && spans(&other.lo, &other.hi)
    }
}

impl<K: Ord + Clone> Interval<K> {
    /// The keys in both intervals (possibly empty: test with [`Interval::is_empty`]). Two
    /// bounds on one attribute within a profile merge this way into one interval.
    pub fn intersect(&self, other: &Interval<K>) -> Interval<K> {
        let lo = if cmp_lo(&self.lo, &other.lo) == Ordering::Less {
            &other.lo
        } else {
            &self.lo
        };
        let hi = if cmp_hi(&self.hi, &other.hi) == Ordering::Greater {
            &other.hi
        } else {
            &self.hi
        };
        Interval::new(lo.clone(), hi.clone())
    }

    /// The intersection, or `None` when it is empty (a value-consistency error in a profile).
    pub fn intersection(&self, other: &Interval<K>) -> Option<Interval<K>> {
        let i = self.intersect(other);
        (!i.is_empty()).then_some(i)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use Bound::{Excluded as X, Included as I, Unbounded as U};

    fn iv(lo: Bound<i32>, hi: Bound<i32>) -> Interval<i32> {
        Interval::new(lo, hi)
    }

    #[test]
    fn emptiness_table() {
        let cases = [
            (iv(I(1), I(1)), false),
            (iv(I(1), X(1)), true),
            (iv(X(1), I(1)), true),
            (iv(X(1), X(1)), true),
            (iv(X(1), X(2)), false), // dense: (1, 2) counts as non-empty
            (iv(I(2), I(1)), true),
            (iv(U, I(-5)), false),
            (iv(X(7), U), false),
            (iv(U, U), false),
        ];
        for (i, want) in cases {
            assert_eq!(i.is_empty(), want, "{i:?}");
        }
    }

    #[test]
    fn containment_table() {
        let cases = [
            (iv(I(1), I(3)), 1, true),
            (iv(I(1), I(3)), 3, true),
            (iv(X(1), I(3)), 1, false),
            (iv(I(1), X(3)), 3, false),
            (iv(U, X(3)), i32::MIN, true),
            (iv(X(3), U), i32::MAX, true),
            (iv(X(3), U), 3, false),
            (iv(I(3), I(3)), 3, true),
            (iv(I(3), I(2)), 3, false),
        ];
        for (i, k, want) in cases {
            assert_eq!(i.contains(&k), want, "{i:?} ∋ {k}");
        }
    }

    #[test]
    fn overlap_table() {
        let cases = [
            (iv(I(1), I(3)), iv(I(3), I(5)), true),
            (iv(I(1), X(3)), iv(I(3), I(5)), false),
            (iv(I(1), I(3)), iv(X(3), I(5)), false),
            (iv(U, U), iv(I(3), I(3)), true),
            (iv(U, X(0)), iv(X(0), U), false),
            (iv(U, I(0)), iv(I(0), U), true),
            (iv(X(0), X(1)), iv(X(0), X(1)), true),
            (iv(I(2), I(1)), iv(U, U), false), // an empty interval meets nothing
            (iv(I(0), I(10)), iv(I(4), I(5)), true),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.overlaps(&b), want, "{a:?} ∩ {b:?}");
            assert_eq!(b.overlaps(&a), want, "{b:?} ∩ {a:?}");
            assert_eq!(
                !a.intersect(&b).is_empty(),
                want,
                "{a:?} ∩ {b:?} by intersect"
            );
        }
    }

    #[test]
    fn intersection_table() {
        let cases = [
            (iv(U, X(10)), iv(X(12), U), None), // other.x < 10 && other.x > 12
            (iv(X(10), U), iv(U, X(50)), Some(iv(X(10), X(50)))),
            (iv(I(1), I(5)), iv(X(1), I(5)), Some(iv(X(1), I(5)))),
            (iv(I(1), I(5)), iv(I(1), X(5)), Some(iv(I(1), X(5)))),
            (iv(U, U), iv(I(3), I(3)), Some(iv(I(3), I(3)))),
            (iv(I(3), U), iv(U, X(3)), None),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.intersection(&b), want, "{a:?} ∩ {b:?}");
        }
    }

    #[test]
    fn bound_orders() {
        use Ordering::*;
        let lo = [
            (U, U, Equal),
            (U, I(0), Less),
            (I(0), X(0), Less),
            (X(0), I(1), Less),
            (X(1), I(1), Greater),
        ];
        for (a, b, want) in lo {
            assert_eq!(cmp_lo(&a, &b), want, "lo {a:?} {b:?}");
        }
        let hi = [
            (U, U, Equal),
            (U, I(0), Greater),
            (X(0), I(0), Less),
            (I(0), X(1), Less),
            (I(1), X(1), Greater),
        ];
        for (a, b, want) in hi {
            assert_eq!(cmp_hi(&a, &b), want, "hi {a:?} {b:?}");
        }
    }

    #[test]
    fn split_ne_excludes_only_the_point() {
        let [below, above] = Interval::split_ne(5);
        for k in [i32::MIN, 0, 4, 5, 6, i32::MAX] {
            assert_eq!(below.contains(&k) || above.contains(&k), k != 5, "{k}");
            assert!(!(below.contains(&k) && above.contains(&k)), "{k}");
        }
    }
}
