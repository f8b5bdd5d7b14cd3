//! Values: the owned [`Value`] (literals in expressions, results handed to callers) and the
//! arena-borrowed [`Val`] the evaluator computes with.
//!
//! `Val<'a>` is `Copy`: strings, lists and ads it refers to live either in the expressions and
//! ads being evaluated or in the evaluation's bump arena, both of which outlive `'a`. Nothing is
//! reference-counted on the evaluation path.

use crate::classad::ClassAd;
use serde::{Deserialize, Serialize};
use std::borrow::Cow;
use std::cell::Cell;
use std::sync::Arc;

/// An absolute time: seconds since the Unix epoch (UTC) plus the time-zone offset, in seconds
/// east of UTC, in which it is to be shown.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct AbsTime {
    /// Seconds since 1970-01-01T00:00:00Z.
    pub secs: i64,
    /// Offset of the local time zone from UTC, seconds east.
    pub offset: i32,
}

/// An owned ClassAd value.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub enum Value {
    /// `undefined`: a missing attribute, or an operation on one.
    Undefined,
    /// `error`: a type error or a failed operation.
    Error,
    /// `true` / `false`.
    Bool(bool),
    /// A 64-bit signed integer (arithmetic wraps).
    Int(i64),
    /// A 64-bit IEEE real.
    Real(f64),
    /// A string.
    Str(#[serde(deserialize_with = "arc_str")] Arc<str>),
    /// An absolute time.
    AbsTime(AbsTime),
    /// A relative time (a duration), in seconds.
    RelTime(f64),
    /// A list of values.
    List(Arc<[Value]>),
    /// A nested ClassAd (its attributes unevaluated).
    Ad(Arc<ClassAd>),
}

/// A string value's text decoded into one allocation (serde's own `Arc<str>` builds a
/// `String` first and copies it).
fn arc_str<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Arc<str>, D::Error> {
    crate::text::deserialize_with(d, "a string", |s| Arc::from(s))
}

impl Value {
    /// The value a literal holding `self` evaluates to: itself, except that a relative time
    /// written as a literal (`relTime("1:30")`, folded at parse time) reads as a real —
    /// HTCondor's quirk, see [`Evaluator::literal`](crate::eval::Evaluator::literal) — and a
    /// list likewise item by item. Whatever reads a literal without evaluating it (the index,
    /// the specializer, constant ranks) reads this.
    pub fn as_evaluated(&self) -> Cow<'_, Value> {
        // (Lists are copied only when they hold a relative time, whose reading differs.)
        match self {
            Value::RelTime(t) => Cow::Owned(Value::Real(*t)),
            Value::List(items) if self.holds_rel_time() => Cow::Owned(Value::List(
                items
                    .iter()
                    .map(|i| i.as_evaluated().into_owned())
                    .collect(),
            )),
            v => Cow::Borrowed(v),
        }
    }

    /// Whether `self` is or holds (in a list, at any depth) a relative time.
    pub fn holds_rel_time(&self) -> bool {
        match self {
            Value::RelTime(_) => true,
            Value::List(items) => items.iter().any(Value::holds_rel_time),
            _ => false,
        }
    }

    /// A string value.
    pub fn str(s: &str) -> Value {
        Value::Str(Arc::from(s))
    }

    /// The name of this value's type as `typeof`-style text (`"integer"`, `"string"`, …).
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Undefined => "undefined",
            Value::Error => "error",
            Value::Bool(_) => "boolean",
            Value::Int(_) => "integer",
            Value::Real(_) => "real",
            Value::Str(_) => "string",
            Value::AbsTime(_) => "abstime",
            Value::RelTime(_) => "reltime",
            Value::List(_) => "list",
            Value::Ad(_) => "classad",
        }
    }

    /// True only for `Bool(true)` (HTCondor's boolean promotion is the evaluator's business).
    pub fn is_true(&self) -> bool {
        matches!(self, Value::Bool(true))
    }

    /// HTCondor's `SameAs`: identical type and value; strings case-sensitively, reals by `==`
    /// (so `0.0` is `-0.0` and NaN is not NaN), lists element-wise, ads attribute-wise by
    /// expression structure.
    pub fn same_as(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Undefined, Value::Undefined) | (Value::Error, Value::Error) => true,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Real(a), Value::Real(b)) => a == b,
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::AbsTime(a), Value::AbsTime(b)) => a.secs == b.secs && a.offset == b.offset,
            (Value::RelTime(a), Value::RelTime(b)) => a == b,
            (Value::List(a), Value::List(b)) => {
                a.len() == b.len() && a.iter().zip(b.iter()).all(|(x, y)| x.same_as(y))
            }
            (Value::Ad(a), Value::Ad(b)) => a == b,
            _ => false,
        }
    }
}

/// Structural equality, reals compared bit for bit: `parse(print(x)) == x` is the round-trip
/// property. For HTCondor's value identity use [`Value::same_as`].
impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Real(a), Value::Real(b)) => a.to_bits() == b.to_bits(),
            (Value::RelTime(a), Value::RelTime(b)) => a.to_bits() == b.to_bits(),
            (Value::List(a), Value::List(b)) => a == b,
            _ => self.same_as(other),
        }
    }
}

/// A value during evaluation, borrowing from the evaluated expressions and the evaluation arena.
#[derive(Copy, Clone, Debug)]
pub enum Val<'a> {
    /// `undefined`.
    Undefined,
    /// `error`.
    Error,
    /// A boolean.
    Bool(bool),
    /// An integer.
    Int(i64),
    /// A real.
    Real(f64),
    /// A string.
    Str(&'a str),
    /// An absolute time.
    AbsTime(AbsTime),
    /// A relative time in seconds.
    RelTime(f64),
    /// A list of evaluated elements.
    List(&'a [Val<'a>]),
    /// A ClassAd together with the lexical scope it sits in.
    Ad(&'a Scope<'a>),
}

/// A ClassAd in its evaluation context: its lexical parent (the ad whose expression contains it)
/// and, for the top-level ads of a match, the other ad of the pair.
#[derive(Debug)]
pub struct Scope<'a> {
    /// The ad itself.
    pub ad: &'a ClassAd,
    /// The lexically enclosing ad, if any.
    pub parent: Option<&'a Scope<'a>>,
    /// The other ad of a match context (`TARGET`/`other`), set on top-level ads only — and on
    /// the scope an ad of a list gets when `countMatches`/`evalInEachContext` evaluate in it
    /// during a match: there it is HTCondor's alternate scope, where unscoped names found
    /// nowhere else are sought (the other ad of the match than the one holding the list's ad).
    /// A cell, because the two ads of a match refer to each other.
    pub other: Cell<Option<&'a Scope<'a>>>,
}

impl<'a> Scope<'a> {
    /// The outermost lexical ancestor (this scope if it has no parent).
    pub fn root(&'a self) -> &'a Scope<'a> {
        let mut s = self;
        while let Some(p) = s.parent {
            s = p;
        }
        s
    }
}

impl<'a> Val<'a> {
    /// True for `undefined`.
    pub fn is_undefined(&self) -> bool {
        matches!(self, Val::Undefined)
    }

    /// True for `error`.
    pub fn is_error(&self) -> bool {
        matches!(self, Val::Error)
    }

    /// The value as a number, promoting booleans (HTCondor's rule): `Some(Int)` or `Some(Real)`.
    pub fn as_number(&self) -> Option<Val<'a>> {
        match *self {
            Val::Int(_) | Val::Real(_) => Some(*self),
            Val::Bool(b) => Some(Val::Int(b as i64)),
            _ => None,
        }
    }

    /// Converts to an owned [`Value`], cloning what it refers to.
    pub fn to_value(&self) -> Value {
        match *self {
            Val::Undefined => Value::Undefined,
            Val::Error => Value::Error,
            Val::Bool(b) => Value::Bool(b),
            Val::Int(i) => Value::Int(i),
            Val::Real(r) => Value::Real(r),
            Val::Str(s) => Value::str(s),
            Val::AbsTime(t) => Value::AbsTime(t),
            Val::RelTime(t) => Value::RelTime(t),
            Val::List(l) => Value::List(l.iter().map(Val::to_value).collect()),
            Val::Ad(s) => Value::Ad(Arc::new(s.ad.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_deserialize_borrowed_escaped_or_read() {
        let borrowed: Value = serde_json::from_str(r#"{"Str":"ab"}"#).expect("borrowed");
        assert!(matches!(&borrowed, Value::Str(s) if &**s == "ab"));
        let plain: Value = serde_json::from_str(r#"{"Str":"a\"b"}"#).expect("escaped");
        let read: Value = serde_json::from_reader(r#"{"Str":"ab"}"#.as_bytes()).expect("read");
        assert!(matches!(&plain, Value::Str(s) if &**s == "a\"b"));
        assert!(matches!(&read, Value::Str(s) if &**s == "ab"));
        let back: Value =
            serde_json::from_str(&serde_json::to_string(&plain).expect("ser")).expect("back");
        assert!(back.same_as(&plain));
        assert!(serde_json::from_str::<Value>(r#"{"Str":7}"#).is_err());
    }
}
