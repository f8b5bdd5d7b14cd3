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

/// A component's exact value, where its double may not be: an integer as itself, an integral
/// real as the integer it is, anything else 0 (such a value ties as a double with no number
/// whose exact value differs).
fn exact(v: &Value) -> i128 {
    match v {
        Value::Int(i) => i128::from(*i),
        // Saturating: a real beyond i128 ties as a double with no integer.
        Value::Real(r) if r.is_finite() && r.fract() == 0.0 => *r as i128,
        _ => 0,
    }
}

/// Compares two vectors lexicographically, componentwise as numbers: as doubles, and where
/// the doubles are equal by exact value, so that integers beyond 2^53 compare exactly with
/// each other and with reals, and the order is total (sorting by it cannot go wrong).
pub fn cmp_vectors(a: &[Value], b: &[Value]) -> Ordering {
    for (x, y) in a.iter().zip(b) {
        let o = match (x, y) {
            // What the general rule gives, without a double.
            (Value::Int(i), Value::Int(j)) => i.cmp(j),
            _ => number(x)
                .total_cmp(&number(y))
                .then_with(|| exact(x).cmp(&exact(y))),
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
            // Beyond 2^53: the doubles tie, the exact values do not.
            (
                vec![Value::Int((1 << 53) + 1)],
                vec![Value::Real(9_007_199_254_740_992.0)],
                Ordering::Greater,
            ),
            (
                vec![Value::Int(1 << 53)],
                vec![Value::Real(9_007_199_254_740_992.0)],
                Ordering::Equal,
            ),
        ] {
            assert_eq!(cmp_vectors(&a, &b), want, "{a:?} {b:?}");
        }
    }

    /// Components near where doubles stop holding every integer, and the odd ones.
    fn awkward() -> Vec<Value> {
        let two53 = 1i64 << 53;
        let mut vs: Vec<Value> = [
            two53 - 1,
            two53,
            two53 + 1,
            two53 + 2,
            i64::MAX,
            i64::MIN,
            0,
            1,
        ]
        .map(Value::Int)
        .to_vec();
        vs.extend(
            [
                two53 as f64,
                (two53 + 2) as f64,
                i64::MAX as f64,
                i64::MIN as f64,
                0.0,
                -0.0,
                0.5,
                f64::NAN,
                f64::INFINITY,
                1e300,
            ]
            .map(Value::Real),
        );
        vs.push(Value::Bool(true));
        vs
    }

    #[test]
    fn the_order_is_total() {
        let vs = awkward();
        let cmp =
            |a: &Value, b: &Value| cmp_vectors(std::slice::from_ref(a), std::slice::from_ref(b));
        for a in &vs {
            for b in &vs {
                assert_eq!(cmp(a, b), cmp(b, a).reverse(), "{a:?} {b:?}");
                for c in &vs {
                    if cmp(a, b).is_le() && cmp(b, c).is_le() {
                        assert!(cmp(a, c).is_le(), "{a:?} <= {b:?} <= {c:?}");
                    }
                }
            }
        }
        // Sorted, every neighbour in order (the old rule made 2^53 + 1 equal to the real
        // 2^53, and that real equal to 2^53, yet 2^53 + 1 above 2^53).
        let mut many: Vec<Value> = (0..40).flat_map(|_| awkward()).collect();
        many.reverse();
        many.sort_by(cmp);
        assert!(many.windows(2).all(|w| cmp(&w[0], &w[1]).is_le()));
    }
}
