//! Docking vectors as values: a rank as a vector component, and the lexicographic comparison of
//! vectors. A leaf: `dock`, `matchlist` and `ranks` all build on it, and it on none of them.

use adjoin_query::eval::{eval_key_in_match, quick_key_in_match, EvalOptions, MatchAds};
use adjoin_query::{Key, Value};
use std::cmp::Ordering;

/// `ads.my`'s Rank (key `rank`) against `ads.target` as a component; an ad without one ranks 0 without
/// evaluating (the common first-fit case).
pub(crate) fn rank_of(rank: Key, ads: MatchAds<'_>, opts: &EvalOptions) -> Value {
    if ads.my.get_key(rank).is_none() {
        return Value::Int(0);
    }
    // Most ranks are plain enough to need no evaluator.
    let v =
        quick_key_in_match(rank, ads, opts).unwrap_or_else(|| eval_key_in_match(rank, ads, opts));
    rank_number(&v)
}

/// A rank as a vector component: numbers as they are (`-0.0` as `0.0`: HTCondor compares ranks
/// as doubles, where they are equal), booleans 1 and 0, anything else 0 (NaN too, which orders
/// with nothing).
pub fn rank_number(v: &Value) -> Value {
    match v {
        Value::Int(_) => v.clone(),
        // Adding +0.0 turns -0.0 into +0.0 and changes no other real.
        Value::Real(r) if !r.is_nan() => Value::Real(r + 0.0),
        Value::Bool(b) => Value::Int(i64::from(*b)),
        _ => Value::Int(0),
    }
}

/// A dock expression's value as a component: `None` for undefined and error (the candidate is
/// discarded), else as [`rank_number`].
pub(crate) fn component(v: Value) -> Option<Value> {
    match v {
        Value::Undefined | Value::Error => None,
        v => Some(rank_number(&v)),
    }
}

/// A component as a number (components are always numbers, see [`rank_number`]).
fn number(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Real(r) => *r,
        _ => 0.0,
    }
}

/// Compares two vectors lexicographically, componentwise as numbers (integers beyond 2^53
/// compare exactly when both are integers).
pub fn cmp_vectors(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            (Value::Int(i), Value::Int(j)) => i.cmp(j),
            _ => number(x).total_cmp(&number(y)),
        };
        if o != Ordering::Equal {
            return o;
        }
    }
    a.len().cmp(&b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comparisons() {
        let v = |xs: &[f64]| xs.iter().map(|&x| Value::Real(x)).collect::<Vec<_>>();
        for (a, b, want) in [
            (v(&[1.0, 2.0]), v(&[1.0, 3.0]), Ordering::Less),
            (v(&[2.0, 0.0]), v(&[1.0, 9.0]), Ordering::Greater),
            (v(&[1.0]), v(&[1.0]), Ordering::Equal),
            (
                vec![Value::Int(2)],
                vec![Value::Real(1.5)],
                Ordering::Greater,
            ),
            (
                vec![Value::Int(i64::MAX)],
                vec![Value::Int(i64::MAX - 1)],
                Ordering::Greater,
            ),
            (
                vec![rank_number(&Value::Real(-0.0))],
                vec![rank_number(&Value::Int(0))],
                Ordering::Equal,
            ),
            (
                vec![rank_number(&Value::Real(-0.0))],
                vec![rank_number(&Value::Real(0.0))],
                Ordering::Equal,
            ),
        ] {
            assert_eq!(cmp_vectors(&a, &b), want, "{a:?} {b:?}");
        }
    }
}
