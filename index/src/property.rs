//! Properties (`attribute REL constant`) as mangled intervals: the bridge from the evaluator's
//! comparison semantics to the index's key order.
//!
//! [`property`] turns a relation and a constant into the set of keys whose values satisfy it, as
//! one interval (two for `!=`) of the constant's [`Domain`]. The set never misses a satisfying
//! value. It is *exact* (contains no other value) except in two cases, flagged by
//! `exact: false`, where evaluation must confirm:
//!
//! - `is` (`=?=`): the index holds `==`'s interval; `is` also demands the same type (an integer
//!   is not `is` a real or a boolean), exact case, and for absolute times the same offset.
//! - An integer constant `c` beyond ±2^53 that is not exactly a double: the evaluator compares
//!   an integer value with it exactly but a real value with `(double) c`. Bounds stay exact for
//!   integers and are widened to admit the real `(double) c` where it satisfies the relation.
//!
//! Bounds from a real constant `c` sit on the sentinels below or above every number whose double
//! is `c`, which is exactly the evaluator's rule for a real against anything.

use crate::interval::{Bound, Interval};
use crate::mangle::{
    classify, AbsKey, Classified, Domain, MangledValue, NumKey, OrdF64, RelKey, StrKey,
};
use adjoin_query::{BinOp, Value};
use serde::{Deserialize, Serialize};

/// The relation of a property.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum Relation {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>=`
    Ge,
    /// `>`
    Gt,
    /// `=?=` / `is` (`=!=` is true of absent and mistyped values: not a property).
    Is,
}

impl Relation {
    /// The relation of a binary operator, if it makes a property.
    pub fn from_binop(op: BinOp) -> Option<Relation> {
        Some(match op {
            BinOp::Lt => Relation::Lt,
            BinOp::Le => Relation::Le,
            BinOp::Eq => Relation::Eq,
            BinOp::Ne => Relation::Ne,
            BinOp::Ge => Relation::Ge,
            BinOp::Gt => Relation::Gt,
            BinOp::Is => Relation::Is,
            _ => return None,
        })
    }

    /// The operator.
    pub fn binop(self) -> BinOp {
        match self {
            Relation::Lt => BinOp::Lt,
            Relation::Le => BinOp::Le,
            Relation::Eq => BinOp::Eq,
            Relation::Ne => BinOp::Ne,
            Relation::Ge => BinOp::Ge,
            Relation::Gt => BinOp::Gt,
            Relation::Is => BinOp::Is,
        }
    }

    /// The relation with its operands swapped: `c < x` is `x > c`.
    pub fn flipped(self) -> Relation {
        match self {
            Relation::Lt => Relation::Gt,
            Relation::Le => Relation::Ge,
            Relation::Ge => Relation::Le,
            Relation::Gt => Relation::Lt,
            r => r,
        }
    }
}

/// An interval in one domain's key space: a window along a mangled dimension.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum MangledInterval {
    /// Numbers.
    Number(Interval<NumKey>),
    /// Strings.
    String(Interval<StrKey>),
    /// Absolute times.
    AbsTime(Interval<AbsKey>),
    /// Relative times.
    RelTime(Interval<RelKey>),
}

/// Why two intervals on one attribute cannot hold together in a profile (dissertation 4.2.2).
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Inconsistency {
    /// Different domains: no value is of both types.
    Type,
    /// Same domain, empty intersection (`x < 10 && x > 12`).
    Value,
}

impl MangledInterval {
    /// The domain.
    pub fn domain(&self) -> Domain {
        match self {
            MangledInterval::Number(_) => Domain::Number,
            MangledInterval::String(_) => Domain::String,
            MangledInterval::AbsTime(_) => Domain::AbsTime,
            MangledInterval::RelTime(_) => Domain::RelTime,
        }
    }

    /// The two ends (lower, upper) as bounds on mangled values.
    pub fn value_ends(&self) -> (Bound<MangledValue>, Bound<MangledValue>) {
        fn each<K: Clone>(
            i: &Interval<K>,
            wrap: fn(K) -> MangledValue,
        ) -> (Bound<MangledValue>, Bound<MangledValue>) {
            (i.lo.clone().map(wrap), i.hi.clone().map(wrap))
        }
        match self {
            MangledInterval::Number(i) => each(i, MangledValue::Number),
            MangledInterval::String(i) => each(i, MangledValue::String),
            MangledInterval::AbsTime(i) => each(i, MangledValue::AbsTime),
            MangledInterval::RelTime(i) => each(i, MangledValue::RelTime),
        }
    }

    /// Every key of `domain`.
    pub fn full(domain: Domain) -> MangledInterval {
        match domain {
            Domain::Number => MangledInterval::Number(Interval::full()),
            Domain::String => MangledInterval::String(Interval::full()),
            Domain::AbsTime => MangledInterval::AbsTime(Interval::full()),
            Domain::RelTime => MangledInterval::RelTime(Interval::full()),
        }
    }

    /// The degenerate interval holding one value's key (an imported point).
    pub fn point(v: &MangledValue) -> MangledInterval {
        match v {
            MangledValue::Number(k) => MangledInterval::Number(Interval::point(*k)),
            MangledValue::String(k) => MangledInterval::String(Interval::point(k.clone())),
            MangledValue::AbsTime(k) => MangledInterval::AbsTime(Interval::point(*k)),
            MangledValue::RelTime(k) => MangledInterval::RelTime(Interval::point(*k)),
        }
    }

    /// Whether the value's key lies in the interval (never across domains).
    pub fn contains(&self, v: &MangledValue) -> bool {
        match (self, v) {
            (MangledInterval::Number(i), MangledValue::Number(k)) => i.contains(k),
            (MangledInterval::String(i), MangledValue::String(k)) => i.contains(k),
            (MangledInterval::AbsTime(i), MangledValue::AbsTime(k)) => i.contains(k),
            (MangledInterval::RelTime(i), MangledValue::RelTime(k)) => i.contains(k),
            _ => false,
        }
    }

    /// Whether no key lies in the interval.
    pub fn is_empty(&self) -> bool {
        match self {
            MangledInterval::Number(i) => i.is_empty(),
            MangledInterval::String(i) => i.is_empty(),
            MangledInterval::AbsTime(i) => i.is_empty(),
            MangledInterval::RelTime(i) => i.is_empty(),
        }
    }

    /// Merges two bounds on one attribute within a profile: their intersection, or the
    /// consistency error that makes the profile unsatisfiable.
    pub fn merge(&self, other: &MangledInterval) -> Result<MangledInterval, Inconsistency> {
        let merged = match (self, other) {
            (MangledInterval::Number(a), MangledInterval::Number(b)) => {
                a.intersection(b).map(MangledInterval::Number)
            }
            (MangledInterval::String(a), MangledInterval::String(b)) => {
                a.intersection(b).map(MangledInterval::String)
            }
            (MangledInterval::AbsTime(a), MangledInterval::AbsTime(b)) => {
                a.intersection(b).map(MangledInterval::AbsTime)
            }
            (MangledInterval::RelTime(a), MangledInterval::RelTime(b)) => {
                a.intersection(b).map(MangledInterval::RelTime)
            }
            _ => return Err(Inconsistency::Type),
        };
        merged.ok_or(Inconsistency::Value)
    }
}

/// What a property is to the index.
#[derive(Clone, PartialEq, Debug)]
pub enum Property {
    /// Every satisfying value's key lies in one of `parts` (one interval; two for `!=`), all in
    /// one domain. With `exact`, every value whose key lies there satisfies it too.
    Intervals {
        /// The intervals (disjoint).
        parts: Vec<MangledInterval>,
        /// Whether the parts hold satisfying values only.
        exact: bool,
    },
    /// No value satisfies it (a comparison with `undefined`, `error`, a list, an ad or NaN).
    Never,
    /// Not expressible as intervals (`is undefined`, `is error`, true of absent attributes):
    /// a deviant sub-expression.
    Deviant,
}

/// Where a constant's equality class sits in its domain's key order.
struct Anchors<K> {
    /// Strict bounds (`<`, `>`, `!=`) sit here.
    lo_strict: K,
    hi_strict: K,
    /// Non-strict bounds (`<=`, `>=`, `==`) sit here.
    lo_wide: K,
    hi_wide: K,
    /// The key of the constant itself (for `is`).
    own: K,
    exact: bool,
}

impl<K: Clone> Anchors<K> {
    fn single(k: K) -> Anchors<K> {
        Anchors {
            lo_strict: k.clone(),
            hi_strict: k.clone(),
            lo_wide: k.clone(),
            hi_wide: k.clone(),
            own: k,
            exact: true,
        }
    }

    fn parts(self, rel: Relation) -> (Vec<Interval<K>>, bool) {
        use Bound::{Excluded, Included};
        let parts = match rel {
            Relation::Lt => vec![Interval::less_than(self.lo_strict)],
            Relation::Le => vec![Interval::at_most(self.hi_wide)],
            Relation::Gt => vec![Interval::greater_than(self.hi_strict)],
            Relation::Ge => vec![Interval::at_least(self.lo_wide)],
            Relation::Eq => vec![Interval::new(
                Included(self.lo_wide),
                Included(self.hi_wide),
            )],
            Relation::Ne => vec![
                Interval::new(Bound::Unbounded, Excluded(self.lo_strict)),
                Interval::new(Excluded(self.hi_strict), Bound::Unbounded),
            ],
            Relation::Is => vec![Interval::point(self.own)],
        };
        (parts, self.exact && rel != Relation::Is)
    }
}

fn wrap<K>(rel: Relation, anchors: Anchors<K>, f: fn(Interval<K>) -> MangledInterval) -> Property
where
    K: Clone,
{
    let (parts, exact) = anchors.parts(rel);
    Property::Intervals {
        parts: parts.into_iter().map(f).collect(),
        exact,
    }
}

fn number_anchors(c: &Value) -> Option<Anchors<NumKey>> {
    match *c {
        Value::Int(i) => {
            let k = NumKey::from_int(i);
            let r = k.as_real();
            Some(Anchors {
                lo_strict: k,
                hi_strict: k,
                lo_wide: k.min(r),
                hi_wide: k.max(r),
                own: k,
                exact: k == r,
            })
        }
        Value::Bool(b) => Some(Anchors::single(NumKey::from_bool(b))),
        Value::Real(x) => OrdF64::new(x).map(|d| Anchors {
            lo_strict: NumKey::below(d),
            hi_strict: NumKey::above(d),
            lo_wide: NumKey::below(d),
            hi_wide: NumKey::above(d),
            own: NumKey { approx: d, tie: 0 },
            exact: true,
        }),
        _ => None,
    }
}

/// The keys of the values `v` with `v REL c` true.
pub fn property(rel: Relation, c: &Value) -> Property {
    match c {
        Value::Undefined | Value::Error if rel == Relation::Is => Property::Deviant,
        Value::Undefined | Value::Error | Value::List(_) | Value::Ad(_) => Property::Never,
        Value::Int(_) | Value::Bool(_) | Value::Real(_) => match number_anchors(c) {
            Some(a) => wrap(rel, a, MangledInterval::Number),
            None => nan(rel, Domain::Number),
        },
        Value::RelTime(x) => match OrdF64::new(*x) {
            Some(k) => wrap(rel, Anchors::single(k), MangledInterval::RelTime),
            None => nan(rel, Domain::RelTime),
        },
        Value::Str(_) | Value::AbsTime(_) => match classify(c) {
            Classified::Key(MangledValue::String(k)) => {
                wrap(rel, Anchors::single(k), MangledInterval::String)
            }
            Classified::Key(MangledValue::AbsTime(k)) => {
                wrap(rel, Anchors::single(k), MangledInterval::AbsTime)
            }
            _ => Property::Never,
        },
    }
}

/// NaN: only `!=` holds, and of every value of its domain (NaN values are deviant anyway).
fn nan(rel: Relation, domain: Domain) -> Property {
    if rel == Relation::Ne {
        Property::Intervals {
            parts: vec![MangledInterval::full(domain)],
            exact: true,
        }
    } else {
        Property::Never
    }
}

/// A bare attribute as a conjunct (`other.HasJava`): true of non-zero numbers, booleans
/// promoted (`&&` and `||` take numbers as booleans; a string is an error). Exact.
pub fn truthy() -> Property {
    property(Relation::Ne, &Value::Real(0.0))
}

/// A negated bare attribute (`!other.HasJava`): true of zero, `false` and `-0.0`. Exact.
pub fn falsy() -> Property {
    property(Relation::Eq, &Value::Real(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::eval::apply_binary;
    use adjoin_query::{AbsTime, Val};
    use proptest::prelude::*;

    const BIG: i64 = 9_007_199_254_740_993; // 2^53 + 1, not a double

    fn val(v: &Value) -> Val<'_> {
        match v {
            Value::Undefined => Val::Undefined,
            Value::Error => Val::Error,
            Value::Bool(b) => Val::Bool(*b),
            Value::Int(i) => Val::Int(*i),
            Value::Real(r) => Val::Real(*r),
            Value::Str(s) => Val::Str(s),
            Value::AbsTime(t) => Val::AbsTime(*t),
            Value::RelTime(r) => Val::RelTime(*r),
            Value::List(_) => Val::List(&[]),
            Value::Ad(_) => Val::Error,
        }
    }

    fn holds(v: &Value, rel: Relation, c: &Value) -> bool {
        matches!(apply_binary(rel.binop(), val(v), val(c)), Val::Bool(true))
    }

    /// Checks the index's promise for one (value, relation, constant): never miss; no extras
    /// when exact.
    fn check(v: &Value, rel: Relation, c: &Value) -> Result<(), String> {
        let truth = holds(v, rel, c);
        let p = property(rel, c);
        let key = classify(v);
        let found = match (&p, &key) {
            (Property::Deviant, _) | (_, Classified::Deviant) => return Ok(()),
            (Property::Never, _) | (_, Classified::NoMatch) => false,
            (Property::Intervals { parts, .. }, Classified::Key(k)) => {
                parts.iter().any(|i| i.contains(k))
            }
        };
        let exact = matches!(p, Property::Intervals { exact: true, .. } | Property::Never);
        if truth && !found {
            return Err(format!("missed: {v:?} {rel:?} {c:?} ({p:?})"));
        }
        if exact && found && !truth {
            return Err(format!("inexact: {v:?} {rel:?} {c:?} ({p:?})"));
        }
        Ok(())
    }

    const RELS: [Relation; 7] = [
        Relation::Lt,
        Relation::Le,
        Relation::Eq,
        Relation::Ne,
        Relation::Ge,
        Relation::Gt,
        Relation::Is,
    ];

    fn sample_values() -> Vec<Value> {
        let t = |secs, offset| Value::AbsTime(AbsTime { secs, offset });
        vec![
            Value::Undefined,
            Value::Error,
            Value::List(std::sync::Arc::from(vec![])),
            Value::Bool(false),
            Value::Bool(true),
            Value::Int(-1),
            Value::Int(0),
            Value::Int(1),
            Value::Int(2),
            Value::Int(BIG - 1),
            Value::Int(BIG),
            Value::Int(BIG + 1),
            Value::Int(i64::MAX),
            Value::Int(i64::MIN),
            Value::Real(-0.0),
            Value::Real(0.0),
            Value::Real(0.5),
            Value::Real(1.0),
            Value::Real(9_007_199_254_740_992.0),
            Value::Real(9_007_199_254_740_994.0),
            Value::Real((1_u64 << 63) as f64),
            Value::Real(f64::INFINITY),
            Value::Real(f64::NEG_INFINITY),
            Value::Real(f64::NAN),
            Value::str("abc"),
            Value::str("ABC"),
            Value::str("abd"),
            Value::str("_"),
            Value::str(""),
            t(0, 0),
            t(0, 3600),
            t(60, 0),
            Value::RelTime(0.0),
            Value::RelTime(-0.0),
            Value::RelTime(90.0),
            Value::RelTime(f64::NAN),
        ]
    }

    /// Every pair of sample values under every relation: the exhaustive table.
    #[test]
    fn agrees_with_the_evaluator_on_every_sample_pair() {
        let vals = sample_values();
        let mut failures = Vec::new();
        for v in &vals {
            for c in &vals {
                for rel in RELS {
                    if let Err(e) = check(v, rel, c) {
                        failures.push(e);
                    }
                }
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    #[rustfmt::skip]
    fn shape_table() {
        let n = |i| MangledInterval::Number(i);
        let k = NumKey::from_int;
        let d = |x| OrdF64::new(x).expect("not NaN");
        let cases: Vec<(Relation, Value, Property)> = vec![
            (Relation::Lt, Value::Int(5), Property::Intervals { parts: vec![n(Interval::less_than(k(5)))], exact: true }),
            (Relation::Ge, Value::Real(2.5), Property::Intervals { parts: vec![n(Interval::at_least(NumKey::below(d(2.5))))], exact: true }),
            (Relation::Eq, Value::Bool(true), Property::Intervals { parts: vec![n(Interval::point(k(1)))], exact: true }),
            (Relation::Ne, Value::Int(3), Property::Intervals { parts: Interval::split_ne(k(3)).into_iter().map(n).collect(), exact: true }),
            (Relation::Is, Value::Int(3), Property::Intervals { parts: vec![n(Interval::point(k(3)))], exact: false }),
            (Relation::Le, Value::Int(BIG), Property::Intervals { parts: vec![n(Interval::at_most(k(BIG)))], exact: false }),
            (Relation::Ge, Value::Int(BIG), Property::Intervals { parts: vec![n(Interval::at_least(k(BIG).as_real()))], exact: false }),
            (Relation::Eq, Value::str("ABC"), Property::Intervals { parts: vec![MangledInterval::String(Interval::point(StrKey::fold("abc")))], exact: true }),
            (Relation::Lt, Value::Real(f64::NAN), Property::Never),
            (Relation::Ne, Value::Real(f64::NAN), Property::Intervals { parts: vec![MangledInterval::full(Domain::Number)], exact: true }),
            (Relation::Eq, Value::Undefined, Property::Never),
            (Relation::Is, Value::Undefined, Property::Deviant),
            (Relation::Is, Value::Error, Property::Deviant),
            (Relation::Eq, Value::List(std::sync::Arc::from(vec![])), Property::Never),
        ];
        for (rel, c, want) in cases {
            assert_eq!(property(rel, &c), want, "{rel:?} {c:?}");
        }
    }

    #[test]
    fn truthiness_table() {
        let cases = [
            (Value::Int(0), false),
            (Value::Real(-0.0), false),
            (Value::Bool(false), false),
            (Value::Bool(true), true),
            (Value::Int(-3), true),
            (Value::Real(0.001), true),
            (Value::Real(f64::INFINITY), true),
            (Value::str("a"), false),
        ];
        for (v, want) in cases {
            let hit = |p: &Property| match (p, classify(&v)) {
                (Property::Intervals { parts, .. }, Classified::Key(k)) => {
                    parts.iter().any(|i| i.contains(&k))
                }
                _ => false,
            };
            assert_eq!(hit(&truthy()), want, "truthy {v:?}");
            assert_eq!(
                hit(&falsy()),
                !want && matches!(v, Value::Int(_) | Value::Real(_) | Value::Bool(_)),
                "falsy {v:?}"
            );
        }
    }

    #[test]
    #[rustfmt::skip]
    fn merge_table() {
        let p = |rel, c: Value| match property(rel, &c) {
            Property::Intervals { mut parts, .. } => parts.remove(0),
            other => panic!("{other:?}"),
        };
        let cases = [
            (p(Relation::Lt, Value::Int(10)), p(Relation::Gt, Value::Int(12)), Err(Inconsistency::Value)),
            (p(Relation::Gt, Value::Int(10)), p(Relation::Lt, Value::Int(50)), Ok(MangledInterval::Number(Interval::open(NumKey::from_int(10), NumKey::from_int(50))))),
            (p(Relation::Eq, Value::str("a")), p(Relation::Gt, Value::Int(1)), Err(Inconsistency::Type)),
            (p(Relation::Ge, Value::Int(3)), p(Relation::Le, Value::Real(3.0)), Ok(MangledInterval::Number(Interval::closed(NumKey::from_int(3), NumKey::above(OrdF64::new(3.0).expect("not NaN")))))),
        ];
        for (a, b, want) in cases {
            assert_eq!(a.merge(&b), want, "{a:?} & {b:?}");
        }
    }

    #[test]
    fn flipped_table() {
        let cases = [
            (Relation::Lt, Relation::Gt),
            (Relation::Le, Relation::Ge),
            (Relation::Eq, Relation::Eq),
            (Relation::Ne, Relation::Ne),
            (Relation::Is, Relation::Is),
        ];
        for (r, want) in cases {
            assert_eq!(r.flipped(), want);
            assert_eq!(want.flipped(), r);
        }
        assert_eq!(Relation::from_binop(BinOp::Isnt), None);
        assert_eq!(Relation::from_binop(BinOp::Le), Some(Relation::Le));
    }

    fn any_value() -> impl Strategy<Value = Value> {
        let big = prop_oneof![
            Just(1_i64 << 53),
            Just(1_i64 << 60),
            Just(i64::MAX - 2048),
            Just(i64::MIN + 2048)
        ];
        prop_oneof![
            any::<bool>().prop_map(Value::Bool),
            (-5_i64..5).prop_map(Value::Int),
            (big.clone(), -1500_i64..1500).prop_map(|(b, d)| Value::Int(b + d)),
            (-5_i64..5).prop_map(|i| Value::Real(i as f64 / 2.0)),
            (big, -1500_i64..1500).prop_map(|(b, d)| Value::Real((b + d) as f64)),
            Just(Value::Real(f64::NAN)),
            "[aAbB_]{0,3}".prop_map(|s| Value::str(&s)),
            ((-3_i64..3), (-1_i32..2)).prop_map(|(s, o)| Value::AbsTime(AbsTime {
                secs: s,
                offset: o * 3600
            })),
            (-3_i64..3).prop_map(|s| Value::RelTime(s as f64)),
            Just(Value::Undefined),
        ]
    }

    proptest! {
        #[test]
        fn agrees_with_the_evaluator(v in any_value(), c in any_value(), r in 0_usize..7) {
            if let Err(e) = check(&v, RELS[r], &c) {
                return Err(TestCaseError::fail(e));
            }
        }
    }
}
