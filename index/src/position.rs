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

/// A place in the order of all mangled values (see the module note). Numbers and times are
/// packed into one integer each (order-preserving), so comparing two is one integer
/// comparison; the variants are in domain order.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub enum Pos {
    /// A number position: ordered bits of the double, the tie, the bias.
    Num(u128),
    /// A string position: the folded string and the bias.
    Str(StrKey, i8),
    /// An absolute-time position: ordered seconds and the bias.
    Abs(u128),
    /// A relative-time position: ordered bits of the seconds and the bias.
    Rel(u128),
}

/// The bits of a double, as an unsigned integer in the same order as `total_cmp`.
fn ordered(x: f64) -> u64 {
    let b = x.to_bits();
    if b >> 63 == 1 {
        !b
    } else {
        b | 1 << 63
    }
}

fn bias_bits(bias: i8) -> u128 {
    u128::from((bias as u8) ^ 0x80)
}

fn inf(negative: bool) -> OrdF64 {
    if negative {
        OrdF64::NEG_INFINITY
    } else {
        OrdF64::INFINITY
    }
}

impl Pos {
    fn at(value: &MangledValue, bias: i8) -> Pos {
        match value {
            MangledValue::Number(k) => {
                let tie = u128::from((k.tie as u32) ^ 0x8000_0000);
                Pos::Num(u128::from(ordered(k.approx.get())) << 40 | tie << 8 | bias_bits(bias))
            }
            MangledValue::String(k) => Pos::Str(k.clone(), bias),
            MangledValue::AbsTime(t) => {
                Pos::Abs(u128::from((*t as u64) ^ 1 << 63) << 8 | bias_bits(bias))
            }
            MangledValue::RelTime(r) => {
                Pos::Rel(u128::from(ordered(r.get())) << 8 | bias_bits(bias))
            }
        }
    }

    /// A value's own position.
    pub fn point(value: MangledValue) -> Pos {
        Pos::at(&value, 0)
    }

    fn domain_min(domain: Domain) -> MangledValue {
        match domain {
            Domain::Number => MangledValue::Number(NumKey::below(inf(true))),
            Domain::String => MangledValue::String(StrKey::fold("")),
            Domain::AbsTime => MangledValue::AbsTime(i64::MIN),
            Domain::RelTime => MangledValue::RelTime(inf(true)),
        }
    }

    /// The first position of `domain` (at or below its least value).
    pub fn floor(domain: Domain) -> Pos {
        Pos::at(&Pos::domain_min(domain), 0)
    }

    /// The last position of `domain` (at or above its greatest value, below the next domain).
    pub fn ceiling(domain: Domain) -> Pos {
        match domain {
            Domain::Number => Pos::point(MangledValue::Number(NumKey::above(inf(false)))),
            Domain::String => Pos::at(&Pos::domain_min(Domain::AbsTime), -1),
            Domain::AbsTime => Pos::at(&Pos::domain_min(Domain::RelTime), -1),
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
}

/// The positions of an interval's two ends.
pub fn ends(iv: &MangledInterval) -> (Pos, Pos) {
    fn both<K: Clone>(i: &Interval<K>, d: Domain, wrap: fn(K) -> MangledValue) -> (Pos, Pos) {
        let lo = match &i.lo {
            Bound::Unbounded => Pos::floor(d),
            Bound::Included(k) => Pos::at(&wrap(k.clone()), 0),
            Bound::Excluded(k) => Pos::at(&wrap(k.clone()), 1),
        };
        let hi = match &i.hi {
            Bound::Unbounded => Pos::ceiling(d),
            Bound::Included(k) => Pos::at(&wrap(k.clone()), 0),
            Bound::Excluded(k) => Pos::at(&wrap(k.clone()), -1),
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
    /// domains too; and points order as their keys do.
    #[test]
    fn positions_agree_with_containment() {
        let t = |secs| Value::AbsTime(AbsTime { secs, offset: 0 });
        let values = [
            Value::Int(i64::MIN),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(3),
            Value::Int(i64::MAX),
            Value::Int(9_007_199_254_740_992),
            Value::Int(9_007_199_254_740_993),
            Value::Int(-9_007_199_254_740_993),
            Value::Real(9_007_199_254_740_992.0),
            Value::Real(-0.5),
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
        for a in &values {
            for b in &values {
                if let (Some(x), Some(y)) = (key(a), key(b)) {
                    assert_eq!(
                        Pos::point(x.clone()).cmp(&Pos::point(y.clone())),
                        x.cmp(&y),
                        "{a:?} {b:?}"
                    );
                }
            }
        }
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
                    }
                }
            }
        }
    }
}
