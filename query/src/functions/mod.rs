//! Built-in functions: HTCondor's library's set, the compatibility functions its daemons add, and
//! the dissertation's Appendix A names. Looked up case-insensitively by interned key.
//!
//! Each submodule lists its functions in a `FUNCTIONS` table; [`lookup`] merges the tables once.
//! A function receives its arguments unevaluated (some, like `ifThenElse`, are not strict) and
//! the scope the call is written in.

// functions-time
mod argv;
mod compat;
mod control;
mod dissertation;
mod pretty;
mod strftime;
mod time;
mod time_fields;
mod time_format;
mod unresolved;
// functions-core
pub(crate) mod args;
pub(crate) mod convert;
mod lists;
mod math;
mod pcre;
mod regex;
mod stringlist;
mod strings;
#[cfg(test)]
pub(crate) mod testutil;
mod types;
mod version;

use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::name::Key;
use crate::value::{Scope, Val};
use rustc_hash::FxHashMap;
use std::sync::OnceLock;

/// A built-in function.
pub type Builtin = for<'a> fn(&mut Evaluator<'a>, &'a Scope<'a>, &'a [Expr]) -> Val<'a>;

/// Every function table, in the order their names are registered.
const TABLES: &[&[(&str, Builtin)]] = &[
    types::FUNCTIONS,
    convert::FUNCTIONS,
    math::FUNCTIONS,
    lists::FUNCTIONS,
    strings::FUNCTIONS,
    version::FUNCTIONS,
    regex::FUNCTIONS,
    stringlist::FUNCTIONS,
    time::FUNCTIONS,
    time_fields::FUNCTIONS,
    time_format::FUNCTIONS,
    control::FUNCTIONS,
    unresolved::FUNCTIONS,
    compat::FUNCTIONS,
    dissertation::FUNCTIONS,
];

fn table() -> &'static FxHashMap<Key, Builtin> {
    static TABLE: OnceLock<FxHashMap<Key, Builtin>> = OnceLock::new();
    TABLE.get_or_init(|| {
        TABLES
            .iter()
            .flat_map(|t| t.iter())
            .map(|&(name, f)| (Key::of(name), f))
            .collect()
    })
}

/// The built-in function named `key` (case-insensitive), if any.
pub fn lookup(key: Key) -> Option<Builtin> {
    table().get(&key).copied()
}

/// True when `name` names a built-in function.
pub fn exists(name: &str) -> bool {
    lookup(Key::of(name)).is_some()
}

/// The names of every built-in function, as registered.
pub fn names() -> impl Iterator<Item = &'static str> {
    TABLES.iter().flat_map(|t| t.iter()).map(|&(name, _)| name)
}

#[cfg(test)]
mod tests {
    /// docs/language.md lists every function (a new function without documentation fails here).
    #[test]
    fn every_function_is_documented() {
        let doc = include_str!("../../../docs/language.md");
        let missing: Vec<&str> = super::names()
            .filter(|n| {
                !doc.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .any(|w| w == *n)
            })
            .collect();
        assert!(missing.is_empty(), "not in docs/language.md: {missing:?}");
    }

    /// No name is registered twice (a later table would silently win).
    #[test]
    fn names_are_unique() {
        let mut seen = std::collections::HashSet::new();
        for n in super::names() {
            assert!(seen.insert(n.to_ascii_lowercase()), "{n} registered twice");
        }
    }
}
