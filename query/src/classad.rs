//! The ClassAd record: attribute names bound to expressions, in insertion order, looked up by
//! interned case-folded key.

use crate::ast::Expr;
use crate::name::{Key, Name};
use indexmap::IndexMap;
use rustc_hash::FxBuildHasher;
use serde::de::{SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A ClassAd: a set of attribute bindings, case-insensitive in names, order-preserving.
#[derive(Clone, Default)]
pub struct ClassAd {
    attrs: IndexMap<Key, (Name, Expr), FxBuildHasher>,
    /// Bit k set when key k < 16 (the evaluator's keywords, `crate::name::kw`) is bound, so a
    /// keyword lookup that misses (`TARGET.x` in an ad without a `target` attribute) costs one
    /// bit test.
    low_keys: u16,
}

impl ClassAd {
    /// An empty ad.
    pub fn new() -> ClassAd {
        ClassAd::default()
    }

    /// An empty ad with room for `n` attributes.
    pub fn with_capacity(n: usize) -> ClassAd {
        ClassAd {
            attrs: IndexMap::with_capacity_and_hasher(n, FxBuildHasher),
            low_keys: 0,
        }
    }

    /// Binds `name` to `expr`, replacing (in place) any binding of the same name in any case.
    pub fn insert(&mut self, name: Name, expr: Expr) {
        if name.key().0 < 16 {
            self.low_keys |= 1 << name.key().0;
        }
        // One lookup: an existing key keeps its place, its binding replaced.
        self.attrs.insert(name.key(), (name, expr));
    }

    /// Binds `name` (interned here) to `expr`.
    pub fn set(&mut self, name: &str, expr: Expr) {
        self.insert(Name::new(name), expr)
    }

    /// The expression bound to `key`.
    #[inline]
    pub fn get_key(&self, key: Key) -> Option<&Expr> {
        if !self.may_bind(key) {
            return None;
        }
        self.attrs.get(&key).map(|(_, e)| e)
    }

    /// False when `key` is certainly not bound (decided without hashing for keyword keys).
    #[inline]
    pub fn may_bind(&self, key: Key) -> bool {
        key.0 >= 16 || self.low_keys & (1 << key.0) != 0
    }

    /// The expression bound to `name`, ignoring case.
    pub fn get(&self, name: &str) -> Option<&Expr> {
        self.get_key(Key::of(name))
    }

    /// The binding of `key` with its name as written.
    pub fn entry(&self, key: Key) -> Option<(Name, &Expr)> {
        self.attrs.get(&key).map(|(n, e)| (*n, e))
    }

    /// Removes the binding of `name`, returning its expression.
    pub fn remove(&mut self, name: &str) -> Option<Expr> {
        let key = Key::of(name);
        if key.0 < 16 {
            self.low_keys &= !(1 << key.0);
        }
        self.attrs.shift_remove(&key).map(|(_, e)| e)
    }

    /// True when `name` is bound.
    pub fn contains(&self, name: &str) -> bool {
        self.attrs.contains_key(&Key::of(name))
    }

    /// The bindings in insertion order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Name, &Expr)> + '_ {
        self.attrs.values().map(|(n, e)| (*n, e))
    }

    /// The bindings in HTCondor's order: shorter names first, names of one length by their bytes
    /// with ASCII letters folded to lower case. HTCondor keeps an ad's attributes in a vector
    /// sorted so (`ClassAdFlatMap`, ordered by `ClassAdFlatMapOrder`: length, then `strcasecmp`),
    /// and its printers (`unparse()`, `string()` of an ad, `repr`, `printJson`) walk it in that
    /// order: `[b = 2; aa = 1; A = 3]` prints `[ A = 3; b = 2; aa = 1 ]`.
    pub fn iter_htcondor(&self) -> Vec<(Name, &Expr)> {
        let mut attrs: Vec<(Name, &Expr)> = self.iter().collect();
        attrs.sort_by(|(a, _), (b, _)| {
            let (a, b) = (a.as_str().as_bytes(), b.as_str().as_bytes());
            a.len().cmp(&b.len()).then_with(|| {
                a.iter()
                    .map(u8::to_ascii_lowercase)
                    .cmp(b.iter().map(u8::to_ascii_lowercase))
            })
        });
        attrs
    }

    /// The number of attributes.
    pub fn len(&self) -> usize {
        self.attrs.len()
    }

    /// True when the ad has no attributes.
    pub fn is_empty(&self) -> bool {
        self.attrs.is_empty()
    }

    /// Adds every binding of `other`, replacing same-named ones (HTCondor's `Update`).
    pub fn update(&mut self, other: &ClassAd) {
        for (n, e) in other.iter() {
            self.insert(n, e.clone());
        }
    }
}

/// Ads are equal when they bind the same names (ignoring case and order) to structurally equal
/// expressions.
impl PartialEq for ClassAd {
    fn eq(&self, other: &ClassAd) -> bool {
        self.len() == other.len()
            && self
                .attrs
                .iter()
                .all(|(k, (_, e))| other.get_key(*k) == Some(e))
    }
}

impl fmt::Debug for ClassAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl FromIterator<(Name, Expr)> for ClassAd {
    fn from_iter<I: IntoIterator<Item = (Name, Expr)>>(it: I) -> ClassAd {
        let mut ad = ClassAd::new();
        for (n, e) in it {
            ad.insert(n, e);
        }
        ad
    }
}

/// Serialized as a sequence of `(name, expression)` pairs in order.
impl Serialize for ClassAd {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len()))?;
        for (n, e) in self.iter() {
            seq.serialize_element(&(n, e))?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for ClassAd {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<ClassAd, D::Error> {
        struct AdVisitor;
        impl<'de> Visitor<'de> for AdVisitor {
            type Value = ClassAd;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence of (name, expression) pairs")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ClassAd, A::Error> {
                // Room for the pairs announced, bounded: a length is only a claim.
                let mut ad = ClassAd::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
                while let Some((n, e)) = seq.next_element::<(Name, Expr)>()? {
                    ad.insert(n, e);
                }
                Ok(ad)
            }
        }
        d.deserialize_seq(AdVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::Value;

    /// Binding a name again, in any case, replaces its binding in place: the order of first
    /// bindings is kept, the spelling and expression are the last ones.
    #[test]
    fn rebinding_replaces_in_place() {
        let mut ad = ClassAd::new();
        ad.set("Memory", Expr::Lit(Value::Int(1)));
        ad.set("Cpus", Expr::Lit(Value::Int(2)));
        ad.set("MEMORY", Expr::Lit(Value::Int(3)));
        let got: Vec<(&str, String)> = ad
            .iter()
            .map(|(n, e)| (n.as_str(), e.to_string()))
            .collect();
        assert_eq!(
            got,
            [("MEMORY", "3".to_string()), ("Cpus", "2".to_string())]
        );
        assert_eq!(ad.len(), 2);
        // A keyword's key is noted once bound, and stays noted when rebound.
        assert!(!ad.may_bind(Key::of("target")));
        ad.set("Target", Expr::Lit(Value::Int(4)));
        ad.set("TARGET", Expr::Lit(Value::Int(5)));
        assert!(ad.may_bind(Key::of("target")));
        assert_eq!(
            ad.get("target").map(|e| e.to_string()),
            Some("5".to_string())
        );
        assert_eq!(ad.len(), 3);
    }
}
