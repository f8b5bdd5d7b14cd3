//! The type-mangled key domains (dissertation 4.4.4): one totally ordered key type per comparable
//! family of ClassAd values, so that an index probe never crosses types.
//!
//! HTCondor's `<`, `<=`, `==`, `!=`, `>=`, `>` compare a string only with a string, an absolute
//! time only with an absolute time, a relative time only with a relative time, and numbers
//! (integers, reals and booleans, which promote to 0 and 1) with each other; every other pairing
//! is an error, never true. Hence four disjoint [`Domain`]s, each with its own key type:
//!
//! - [`NumKey`] for integers, reals and booleans. The evaluator compares two integers exactly as
//!   `i64`, but an integer with a real as `(double) i` against the real. A key is the pair
//!   `(i as f64, i - (i as f64))`: its first part orders every number as the evaluator does when
//!   a real is involved, and the exact residue (|r| ≤ 1024) breaks ties among integers beyond
//!   2^53 that round to the same double, so integers keep their exact order too. Reals have
//!   residue 0. See `property.rs` for how bounds are placed so that both comparisons hold.
//! - [`StrKey`]: the string with ASCII letters lower-cased; byte order on it is exactly C's
//!   `strcasecmp`, which `==` and `<` use (`=?=` is case-sensitive: left to evaluation).
//! - [`AbsKey`]: seconds since the epoch (comparisons ignore the time-zone offset).
//! - [`RelKey`]: seconds as a non-NaN double.
//!
//! NaN (a real or a relative time) compares unequal to everything, itself included: no position
//! in a total order says that, so a NaN value is [`Classified::Deviant`] and always a candidate.

use adjoin_query::{Val, Value};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::sync::Arc;

/// A double that is never NaN and never `-0.0` (normalised to `0.0`, which `==` equates with
/// it), so that its total order is the evaluator's `<`.
#[derive(Copy, Clone, Serialize, Deserialize)]
pub struct OrdF64(f64);

impl OrdF64 {
    /// +∞.
    pub const INFINITY: OrdF64 = OrdF64(f64::INFINITY);
    /// −∞.
    pub const NEG_INFINITY: OrdF64 = OrdF64(f64::NEG_INFINITY);

    /// `x`, or `None` for NaN.
    pub fn new(x: f64) -> Option<OrdF64> {
        if x.is_nan() {
            None
        } else if x == 0.0 {
            Some(OrdF64(0.0))
        } else {
            Some(OrdF64(x))
        }
    }

    /// The double.
    pub fn get(self) -> f64 {
        self.0
    }
}

impl PartialEq for OrdF64 {
    fn eq(&self, other: &OrdF64) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}
impl Eq for OrdF64 {}
impl PartialOrd for OrdF64 {
    fn partial_cmp(&self, other: &OrdF64) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OrdF64 {
    fn cmp(&self, other: &OrdF64) -> Ordering {
        self.0.total_cmp(&other.0)
    }
}
impl Hash for OrdF64 {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.0.to_bits().hash(state);
    }
}
impl fmt::Debug for OrdF64 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.0, f)
    }
}

/// A number's key: `approx` orders as the evaluator's real comparison; `tie` is the exact
/// integer residue, or one of the two sentinels that place a bound below or above every value
/// sharing `approx`. Ordered lexicographically.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub struct NumKey {
    /// The number as a double (an integer converted as the evaluator converts it).
    pub approx: OrdF64,
    /// The exact residue `i - approx` of an integer, 0 for a real, or a sentinel.
    pub tie: i32,
}

impl NumKey {
    /// A tie below every value's (bounds only: no value has it).
    pub const TIE_BELOW: i32 = i32::MIN;
    /// A tie above every value's (bounds only: no value has it).
    pub const TIE_ABOVE: i32 = i32::MAX;

    /// An integer's key.
    pub fn from_int(i: i64) -> NumKey {
        let approx = i as f64;
        // `approx` is integral and within ±2^63, so the i128 difference is exact and |r| ≤ 2^10.
        let residue = i128::from(i) - approx as i128;
        NumKey {
            approx: OrdF64(approx),
            tie: residue as i32,
        }
    }

    /// A real's key, or `None` for NaN.
    pub fn from_real(r: f64) -> Option<NumKey> {
        OrdF64::new(r).map(|approx| NumKey { approx, tie: 0 })
    }

    /// A boolean's key: HTCondor promotes `false`/`true` to 0/1 in comparisons.
    pub fn from_bool(b: bool) -> NumKey {
        NumKey::from_int(i64::from(b))
    }

    /// The bound just below every number whose double is `r`.
    pub fn below(r: OrdF64) -> NumKey {
        NumKey {
            approx: r,
            tie: NumKey::TIE_BELOW,
        }
    }

    /// The bound just above every number whose double is `r`.
    pub fn above(r: OrdF64) -> NumKey {
        NumKey {
            approx: r,
            tie: NumKey::TIE_ABOVE,
        }
    }

    /// The key of the real with this key's double (`approx`, residue 0).
    pub fn as_real(self) -> NumKey {
        NumKey {
            approx: self.approx,
            tie: 0,
        }
    }
}

/// A string's key: ASCII letters lower-cased (as `strcasecmp` folds), compared byte-wise.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub struct StrKey(Arc<str>);

impl StrKey {
    /// The key of `s`.
    pub fn fold(s: &str) -> StrKey {
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            StrKey(Arc::from(s.to_ascii_lowercase()))
        } else {
            StrKey(Arc::from(s))
        }
    }

    /// The folded string.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An absolute time's key: seconds since the epoch; the offset plays no part in comparison.
pub type AbsKey = i64;

/// A relative time's key: seconds.
pub type RelKey = OrdF64;

/// A comparable family of values: the type half of a mangled dimension name.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub enum Domain {
    /// Integers, reals and booleans.
    Number,
    /// Strings (case-folded).
    String,
    /// Absolute times.
    AbsTime,
    /// Relative times.
    RelTime,
}

impl Domain {
    /// Every domain, in order.
    pub const ALL: [Domain; 4] = [
        Domain::Number,
        Domain::String,
        Domain::AbsTime,
        Domain::RelTime,
    ];

    /// The suffix that mangles an attribute name into a dimension name (`Memory#num`).
    pub fn tag(self) -> &'static str {
        match self {
            Domain::Number => "num",
            Domain::String => "str",
            Domain::AbsTime => "abstime",
            Domain::RelTime => "reltime",
        }
    }
}

/// A value's mangled key: its domain and its key there.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub enum MangledValue {
    /// A number (integer, real or boolean).
    Number(NumKey),
    /// A string.
    String(StrKey),
    /// An absolute time.
    AbsTime(AbsKey),
    /// A relative time.
    RelTime(RelKey),
}

impl MangledValue {
    /// The domain.
    pub fn domain(&self) -> Domain {
        match self {
            MangledValue::Number(_) => Domain::Number,
            MangledValue::String(_) => Domain::String,
            MangledValue::AbsTime(_) => Domain::AbsTime,
            MangledValue::RelTime(_) => Domain::RelTime,
        }
    }

    /// A value with this key: an integer for an integer's key (a whole double with its
    /// residue), a real for any other number (a bound's sentinel tie: the real it was placed
    /// around), the folded string, the time (offset 0). Comparisons see it as they see every
    /// value of this key; its type and spelling may differ from the constant read.
    pub fn to_value(&self) -> Value {
        match self {
            MangledValue::Number(k) => {
                let x = k.approx.get();
                let sentinel = k.tie == NumKey::TIE_BELOW || k.tie == NumKey::TIE_ABOVE;
                let whole = x.is_finite() && x.fract() == 0.0 && x.abs() <= 9.3e18;
                match whole && !sentinel {
                    true => i64::try_from(x as i128 + i128::from(k.tie))
                        .map_or(Value::Real(x), Value::Int),
                    false => Value::Real(x),
                }
            }
            MangledValue::String(k) => Value::str(k.as_str()),
            MangledValue::AbsTime(t) => Value::AbsTime(adjoin_query::AbsTime {
                secs: *t,
                offset: 0,
            }),
            MangledValue::RelTime(r) => Value::RelTime(r.get()),
        }
    }
}

/// What an attribute's constant value is to the index.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Classified {
    /// Indexable: the value's key.
    Key(MangledValue),
    /// No property `attr REL constant` can be true of it (`undefined`, `error`, a list, an ad:
    /// every comparison with them is undefined or an error). For the index it is as good as
    /// absent, exactly.
    NoMatch,
    /// It satisfies some properties but has no place in a total order (NaN: `!=` is true of it,
    /// everything else false). Treat as deviant: always a candidate, evaluation decides.
    Deviant,
}

/// Classifies an owned value.
pub fn classify(v: &Value) -> Classified {
    match v {
        Value::Bool(b) => Classified::Key(MangledValue::Number(NumKey::from_bool(*b))),
        Value::Int(i) => Classified::Key(MangledValue::Number(NumKey::from_int(*i))),
        Value::Real(r) => real(*r),
        Value::Str(s) => Classified::Key(MangledValue::String(StrKey::fold(s))),
        Value::AbsTime(t) => Classified::Key(MangledValue::AbsTime(t.secs)),
        Value::RelTime(r) => rel(*r),
        Value::Undefined | Value::Error | Value::List(_) | Value::Ad(_) => Classified::NoMatch,
    }
}

/// Classifies an evaluation-time value (as [`classify`]).
pub fn classify_val(v: &Val<'_>) -> Classified {
    match v {
        Val::Bool(b) => Classified::Key(MangledValue::Number(NumKey::from_bool(*b))),
        Val::Int(i) => Classified::Key(MangledValue::Number(NumKey::from_int(*i))),
        Val::Real(r) => real(*r),
        Val::Str(s) => Classified::Key(MangledValue::String(StrKey::fold(s))),
        Val::AbsTime(t) => Classified::Key(MangledValue::AbsTime(t.secs)),
        Val::RelTime(r) => rel(*r),
        Val::Undefined | Val::Error | Val::List(_) | Val::Ad(_) => Classified::NoMatch,
    }
}

fn real(r: f64) -> Classified {
    NumKey::from_real(r).map_or(Classified::Deviant, |k| {
        Classified::Key(MangledValue::Number(k))
    })
}

fn rel(r: f64) -> Classified {
    OrdF64::new(r).map_or(Classified::Deviant, |k| {
        Classified::Key(MangledValue::RelTime(k))
    })
}

/// Test helper: the key of a value that has one (panics otherwise).
#[cfg(test)]
pub(crate) fn test_key(v: &Value) -> MangledValue {
    match classify(v) {
        Classified::Key(k) => k,
        other => panic!("{v:?}: {other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::AbsTime;

    fn num(v: Value) -> NumKey {
        match classify(&v) {
            Classified::Key(MangledValue::Number(k)) => k,
            other => panic!("{v:?} is {other:?}"),
        }
    }

    /// The key order agrees with the evaluator wherever the evaluator is itself exact: among
    /// integers (exact i64 order) and among reals, booleans promoted.
    /// A key read back as a value keeps its key (the value's type and spelling may differ:
    /// `true` is 1, strings are folded); a bound's sentinel reads back as the real it was
    /// placed around.
    #[test]
    fn to_value_keeps_the_key() {
        let values = [
            Value::Int(5),
            Value::Int(-3),
            Value::Int(i64::MAX),
            Value::Int(i64::MIN),
            Value::Int(9_007_199_254_740_993),
            Value::Real(2.5),
            Value::Real(-0.0),
            Value::Real(f64::INFINITY),
            Value::Bool(true),
            Value::str("MiXed"),
            Value::RelTime(90.0),
            Value::AbsTime(adjoin_query::AbsTime {
                secs: 1_000_000,
                offset: 3600,
            }),
        ];
        for v in values {
            let k = test_key(&v);
            assert_eq!(test_key(&k.to_value()), k, "{v:?}");
        }
        let r = OrdF64::new(2.5).expect("real");
        for k in [NumKey::below(r), NumKey::above(r)] {
            assert_eq!(MangledValue::Number(k).to_value(), Value::Real(2.5));
        }
        assert_eq!(test_key(&Value::Bool(true)).to_value(), Value::Int(1));
        assert_eq!(
            test_key(&Value::str("MiXed")).to_value(),
            Value::str("mixed")
        );
    }

    #[test]
    fn numeric_key_order_table() {
        use Ordering::*;
        let big = 9_007_199_254_740_993_i64; // 2^53 + 1: rounds to 2^53 as a double
        let cases = [
            (Value::Int(1), Value::Int(2), Less),
            (Value::Int(-1), Value::Real(-0.5), Less),
            (Value::Real(-0.0), Value::Int(0), Equal),
            (Value::Real(0.0), Value::Bool(false), Equal),
            (Value::Bool(true), Value::Int(1), Equal),
            (Value::Bool(true), Value::Real(1.5), Less),
            (Value::Int(big), Value::Int(big - 1), Greater),
            (Value::Int(big), Value::Int(big + 1), Less),
            (Value::Int(i64::MAX), Value::Int(i64::MAX - 1), Greater),
            (Value::Int(i64::MIN), Value::Int(i64::MIN + 1), Less),
            (Value::Int(i64::MAX), Value::Real(f64::INFINITY), Less),
            (Value::Real(f64::NEG_INFINITY), Value::Int(i64::MIN), Less),
            (Value::Real(1e300), Value::Int(i64::MAX), Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(num(a.clone()).cmp(&num(b.clone())), want, "{a:?} vs {b:?}");
        }
    }

    #[test]
    fn integer_keys_order_exactly_near_the_double_gaps() {
        let anchors = [
            0_i64,
            1 << 53,
            1 << 60,
            i64::MAX - 3000,
            i64::MIN + 3000,
            -(1 << 62),
        ];
        for a in anchors {
            let mut prev = NumKey::from_int(a - 2100);
            for i in a - 2099..a + 2100 {
                let k = NumKey::from_int(i);
                assert!(prev < k, "{} !< {i}", i - 1);
                assert!(k.tie != NumKey::TIE_BELOW && k.tie != NumKey::TIE_ABOVE);
                prev = k;
            }
        }
    }

    #[test]
    fn classification_table() {
        let t = AbsTime {
            secs: 100,
            offset: 3600,
        };
        let cases: Vec<(Value, Classified)> = vec![
            (Value::Undefined, Classified::NoMatch),
            (Value::Error, Classified::NoMatch),
            (Value::List(Arc::from(vec![])), Classified::NoMatch),
            (Value::Real(f64::NAN), Classified::Deviant),
            (Value::RelTime(f64::NAN), Classified::Deviant),
            (
                Value::str("MiXeD"),
                Classified::Key(MangledValue::String(StrKey::fold("mixed"))),
            ),
            (
                Value::AbsTime(t),
                Classified::Key(MangledValue::AbsTime(100)),
            ),
            (
                Value::RelTime(-0.0),
                Classified::Key(MangledValue::RelTime(OrdF64(0.0))),
            ),
        ];
        for (v, want) in cases {
            assert_eq!(classify(&v), want, "{v:?}");
        }
        assert_eq!(
            classify_val(&Val::Str("ABC")),
            Classified::Key(MangledValue::String(StrKey::fold("abc")))
        );
    }

    /// Folding is `strcasecmp`'s: ASCII only, so `é` and `É` stay distinct, and `_` sorts before
    /// every letter (letters fold to lower case), as in the evaluator.
    #[test]
    fn string_keys_order_as_strcasecmp() {
        use Ordering::*;
        let cases = [
            ("abc", "ABC", Equal),
            ("a", "B", Less),
            ("_", "A", Less),
            ("Z", "_", Greater),
            ("ab", "ABC", Less),
            ("é", "É", Greater),
        ];
        for (a, b, want) in cases {
            assert_eq!(StrKey::fold(a).cmp(&StrKey::fold(b)), want, "{a} vs {b}");
            assert_eq!(
                adjoin_query::eval::cmp_ignore_case(a, b),
                want,
                "evaluator {a} vs {b}"
            );
        }
    }
}
