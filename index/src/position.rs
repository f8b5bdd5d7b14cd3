//! Positions: every mangled value, and every end of every interval, on one total order, so
//! that one sorted structure per attribute serves all four domains.
//!
//! `MangledValue`'s order puts the domains one after another (numbers, strings, absolute
//! times, relative times), each in its key order. A position is a value and a bias: a value
//! itself is `(v, 0)`; an excluded lower end `(v, +1)` sits just above it and an excluded upper
//! end `(v, -1)` just below. So a lower end admits `k` exactly when its position is at most
//! `(k, 0)`, an upper end exactly when its position is at least `(k, 0)`, and a point lies in
//! an interval exactly when its position lies between the interval's two. Unbounded ends
//! become the first and last positions of their domain, so no interval reaches into another
//! domain and a probe never crosses types.

use crate::interval::{Bound, Interval};
use crate::mangle::{Domain, MangledValue, NumKey, OrdF64, StrKey};
use crate::property::MangledInterval;
use std::cmp::Ordering;

/// A place in the order of all mangled values (see the module note).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Pos {
    value: MangledValue,
    bias: i8,
}

fn inf(negative: bool) -> OrdF64 {
    let x = if negative {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    // Infinities are not NaN; the fallback is never taken.
    OrdF64::new(x).unwrap_or_else(|| OrdF64::new(0.0).unwrap_or_else(|| unreachable!()))
}

impl Pos {
    /// A value's own position.
    pub fn point(value: MangledValue) -> Pos {
        Pos { value, bias: 0 }
    }

    /// The first position of `domain` (at or below its least value).
    pub fn floor(domain: Domain) -> Pos {
        let value = match domain {
            Domain::Number => MangledValue::Number(NumKey::below(inf(true))),
            Domain::String => MangledValue::String(StrKey::fold("")),
            Domain::AbsTime => MangledValue::AbsTime(i64::MIN),
            Domain::RelTime => MangledValue::RelTime(inf(true)),
        };
        Pos { value, bias: 0 }
    }

    /// The last position of `domain` (at or above its greatest value, below the next domain).
    pub fn ceiling(domain: Domain) -> Pos {
        match domain {
            Domain::Number => Pos::point(MangledValue::Number(NumKey::above(inf(false)))),
            Domain::String => Pos {
                bias: -1,
                ..Pos::floor(Domain::AbsTime)
            },
            Domain::AbsTime => Pos {
                bias: -1,
                ..Pos::floor(Domain::RelTime)
            },
            Domain::RelTime => Pos::point(MangledValue::RelTime(inf(false))),
        }
    }

    /// The lower end of an interval.
    pub fn lower(iv: &MangledInterval) -> Pos {
        ends(iv).0
    }

    /// The upper end of an interval.
    pub fn upper(iv: &MangledInterval) -> Pos {
        ends(iv).1
    }

    /// Compares a lower or upper end with a point `(k, 0)`.
    pub fn cmp_point(&self, k: &MangledValue) -> Ordering {
        self.value.cmp(k).then(self.bias.cmp(&0))
    }
}

/// The positions of an interval's two ends.
pub fn ends(iv: &MangledInterval) -> (Pos, Pos) {
    fn both<K: Clone>(i: &Interval<K>, d: Domain, wrap: fn(K) -> MangledValue) -> (Pos, Pos) {
        let lo = match &i.lo {
            Bound::Unbounded => Pos::floor(d),
            Bound::Included(k) => Pos::point(wrap(k.clone())),
            Bound::Excluded(k) => Pos {
                value: wrap(k.clone()),
                bias: 1,
            },
        };
        let hi = match &i.hi {
            Bound::Unbounded => Pos::ceiling(d),
            Bound::Included(k) => Pos::point(wrap(k.clone())),
            Bound::Excluded(k) => Pos {
                value: wrap(k.clone()),
                bias: -1,
            },
        };
        (lo, hi)
    }
    match iv {
        MangledInterval::Number(i) => both(i, Domain::Number, MangledValue::Number),
        MangledInterval::String(i) => both(i, Domain::String, MangledValue::String),
        MangledInterval::AbsTime(i) => both(i, Domain::AbsTime, MangledValue::AbsTime),
        MangledInterval::RelTime(i) => both(i, Domain::RelTime, MangledValue::RelTime),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mangle::{classify, Classified};
    use crate::property::{property, Property, Relation};
    use adjoin_query::{AbsTime, Value};

    fn key(v: &Value) -> Option<MangledValue> {
        match classify(v) {
            Classified::Key(k) => Some(k),
            _ => None,
        }
    }

    /// A point lies between an interval's end positions exactly when the interval contains
    /// it, for every sample value against every property of every sample constant — across
    /// domains too.
    #[test]
    fn positions_agree_with_containment() {
        let t = |secs| Value::AbsTime(AbsTime { secs, offset: 0 });
        let values = [
            Value::Int(i64::MIN),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(3),
            Value::Int(i64::MAX),
            Value::Real(f64::NEG_INFINITY),
            Value::Real(2.5),
            Value::Real(f64::INFINITY),
            Value::Bool(true),
            Value::str(""),
            Value::str("a"),
            Value::str("B"),
            Value::str("\u{10FFFF}"),
            t(i64::MIN),
            t(0),
            t(i64::MAX),
            Value::RelTime(f64::NEG_INFINITY),
            Value::RelTime(5.0),
            Value::RelTime(f64::INFINITY),
        ];
        let rels = [
            Relation::Lt,
            Relation::Le,
            Relation::Eq,
            Relation::Ne,
            Relation::Ge,
            Relation::Gt,
        ];
        for c in &values {
            for rel in rels {
                let Property::Intervals { parts, .. } = property(rel, c) else {
                    continue;
                };
                for iv in &parts {
                    let (lo, hi) = ends(iv);
                    for v in &values {
                        let Some(k) = key(v) else { continue };
                        let p = Pos::point(k.clone());
                        let between = lo <= p && p <= hi;
                        assert_eq!(between, iv.contains(&k), "{v:?} in {rel:?} {c:?}");
                        assert_eq!(lo.cmp_point(&k).is_le(), lo <= p);
                        assert_eq!(hi.cmp_point(&k).is_ge(), hi >= p);
                    }
                }
            }
        }
    }
}
