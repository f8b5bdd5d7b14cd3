//! Making and reading values and ads from Rust without spelling out the tree: `From`
//! conversions into [`Value`] and [`Expr`], typed accessors on [`Value`],
//! [`ClassAd::eval_attr`], and [`AdBuilder`].
//!
//! ```
//! use adjoin_query::{ClassAd, Value};
//! let slot = ClassAd::builder()
//!     .attr("Name", "slot1@host")
//!     .attr("Memory", 2048)
//!     .attr("LoadAvg", 0.25)
//!     .expr("Requirements", "TARGET.RequestMemory <= MY.Memory")
//!     .expr("MemoryGB", "Memory / 1024")
//!     .build()?;
//! assert_eq!(slot.eval_attr("MemoryGB").as_i64(), Some(2));
//! assert_eq!(slot.eval_attr("Name").as_str(), Some("slot1@host"));
//! assert_eq!(slot.eval_attr("LoadAvg").as_f64(), Some(0.25));
//! assert!(slot.eval_attr("Missing").is_undefined());
//! # Ok::<(), adjoin_query::ParseError>(())
//! ```

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::error::ParseError;
use crate::eval::{eval_attr_value, EvalOptions};
use crate::value::Value;
use std::sync::Arc;

impl Value {
    /// The integer, for an integer value.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    /// The number, for an integer or real value (an integer converted).
    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Real(r) => Some(*r),
            _ => None,
        }
    }

    /// The text, for a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, for a boolean value (no promotion of numbers).
    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    /// The elements, for a list value.
    pub fn as_list(&self) -> Option<&[Value]> {
        match self {
            Value::List(l) => Some(l),
            _ => None,
        }
    }

    /// The ad, for a nested ClassAd value.
    pub fn as_ad(&self) -> Option<&ClassAd> {
        match self {
            Value::Ad(a) => Some(a),
            _ => None,
        }
    }

    /// True for `undefined`.
    pub fn is_undefined(&self) -> bool {
        matches!(self, Value::Undefined)
    }

    /// True for `error`.
    pub fn is_error(&self) -> bool {
        matches!(self, Value::Error)
    }
}

impl From<i64> for Value {
    fn from(v: i64) -> Value {
        Value::Int(v)
    }
}

impl From<i32> for Value {
    fn from(v: i32) -> Value {
        Value::Int(i64::from(v))
    }
}

impl From<u32> for Value {
    fn from(v: u32) -> Value {
        Value::Int(i64::from(v))
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::Real(v)
    }
}

impl From<bool> for Value {
    fn from(v: bool) -> Value {
        Value::Bool(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::str(v)
    }
}

impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Str(Arc::from(v))
    }
}

impl From<ClassAd> for Value {
    fn from(v: ClassAd) -> Value {
        Value::Ad(Arc::new(v))
    }
}

impl<T: Into<Value>> From<Vec<T>> for Value {
    fn from(v: Vec<T>) -> Value {
        Value::List(v.into_iter().map(Into::into).collect::<Vec<_>>().into())
    }
}

/// A value as a literal expression: `Expr::from(2048)`, `Expr::from("slot1")`.
impl<T: Into<Value>> From<T> for Expr {
    fn from(v: T) -> Expr {
        Expr::lit(v.into())
    }
}

impl AsRef<ClassAd> for ClassAd {
    fn as_ref(&self) -> &ClassAd {
        self
    }
}

impl ClassAd {
    /// The value attribute `name` evaluates to in this ad (as MY, with default options):
    /// `undefined` when the ad lacks it.
    pub fn eval_attr(&self, name: &str) -> Value {
        eval_attr_value(self, name, &EvalOptions::default())
    }

    /// Binds `name` to the literal `v` (replacing any binding of the name): `ad.set_value(
    /// "Memory", 2048)`.
    pub fn set_value(&mut self, name: &str, v: impl Into<Value>) {
        self.set(name, Expr::lit(v.into()));
    }

    /// A builder for an ad of literal and parsed attributes.
    pub fn builder() -> AdBuilder {
        AdBuilder::default()
    }
}

/// Builds a [`ClassAd`] attribute by attribute: literals with [`AdBuilder::attr`],
/// expressions from text with [`AdBuilder::expr`] (the first that does not parse is
/// [`AdBuilder::build`]'s error).
#[derive(Clone, Debug, Default)]
pub struct AdBuilder {
    ad: ClassAd,
    error: Option<ParseError>,
}

impl AdBuilder {
    /// Binds `name` to the literal `v`.
    pub fn attr(mut self, name: &str, v: impl Into<Value>) -> AdBuilder {
        self.ad.set_value(name, v);
        self
    }

    /// Binds `name` to the expression `text` parses to.
    pub fn expr(mut self, name: &str, text: &str) -> AdBuilder {
        match crate::parse::expr(text) {
            Ok(e) => self.ad.set(name, e),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    /// The ad, or the first expression that did not parse.
    pub fn build(self) -> Result<ClassAd, ParseError> {
        match self.error {
            Some(e) => Err(e),
            None => Ok(self.ad),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accessors() {
        let ad = crate::parse::classad("[l = {1, 2}; a = [x = 1]]").expect("ad");
        // (value, as_i64, as_f64, as_str, as_bool)
        for (v, i, f, s, b) in [
            (Value::Int(3), Some(3), Some(3.0), None, None),
            (Value::Real(0.5), None, Some(0.5), None, None),
            (Value::str("x"), None, None, Some("x"), None),
            (Value::Bool(true), None, None, None, Some(true)),
            (Value::Undefined, None, None, None, None),
        ] {
            assert_eq!(
                (v.as_i64(), v.as_f64(), v.as_str(), v.as_bool()),
                (i, f, s, b),
                "{v:?}"
            );
        }
        assert_eq!(ad.eval_attr("l").as_list().map(<[Value]>::len), Some(2));
        assert!(ad.eval_attr("a").as_ad().is_some());
        assert!(Value::Error.is_error() && Value::Undefined.is_undefined());
    }

    #[test]
    fn conversions_and_builder() {
        assert_eq!(Value::from(2), Value::Int(2));
        assert_eq!(Value::from("a"), Value::str("a"));
        assert_eq!(Value::from(vec![1, 2]).to_string(), "{ 1,2 }");
        assert_eq!(Expr::from(true).to_string(), "true");
        let ad = ClassAd::builder()
            .attr("A", 1)
            .expr("B", "A + 1")
            .build()
            .expect("ad");
        assert_eq!(ad.eval_attr("b").as_i64(), Some(2));
        let err = ClassAd::builder().expr("B", "A +").expr("C", "(").build();
        assert_eq!(err.expect_err("bad").col, 4);
    }
}
