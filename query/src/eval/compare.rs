//! Comparison: `< <= > >= == !=` (strict, case-insensitive on strings, numbers promoted) and the
//! identity operators `is`/`isnt` (`=?=`/`=!=`: no promotion, case-sensitive, never undefined).

use crate::ast::BinOp;
use crate::value::Val;
use std::cmp::Ordering;

/// Orders two strings as C's `strcasecmp` does: byte-wise after ASCII lower-casing.
pub fn cmp_ignore_case(a: &str, b: &str) -> Ordering {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (x.to_ascii_lowercase(), y.to_ascii_lowercase());
        if x != y {
            return x.cmp(&y);
        }
    }
    a.len().cmp(&b.len())
}

fn holds(op: BinOp, ord: Option<Ordering>) -> bool {
    // `None` (a NaN operand) makes every comparison false except `!=`.
    match (op, ord) {
        (BinOp::Ne, None) => true,
        (_, None) => false,
        (BinOp::Lt, Some(o)) => o == Ordering::Less,
        (BinOp::Le, Some(o)) => o != Ordering::Greater,
        (BinOp::Gt, Some(o)) => o == Ordering::Greater,
        (BinOp::Ge, Some(o)) => o != Ordering::Less,
        (BinOp::Eq, Some(o)) => o == Ordering::Equal,
        (BinOp::Ne, Some(o)) => o != Ordering::Equal,
        _ => false,
    }
}

/// A relational or equality operator on non-exceptional operands (strictness already applied).
///
/// HTCondor's coercion order: an ad or list operand is an error; a string must meet a string;
/// an absolute (relative) time must meet an absolute (relative) time; booleans become integers;
/// an integer meeting a real becomes a real.
pub fn compare<'a>(op: BinOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    // The common cases first: integers, and string equality (a length check decides most).
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => return Val::Bool(holds(op, Some(x.cmp(&y)))),
        (Val::Str(x), Val::Str(y)) if matches!(op, BinOp::Eq | BinOp::Ne) => {
            let eq = x == y || x.eq_ignore_ascii_case(y);
            return Val::Bool(eq == (op == BinOp::Eq));
        }
        _ => {}
    }
    let ord = match (a, b) {
        (Val::Ad(_) | Val::List(_), _) | (_, Val::Ad(_) | Val::List(_)) => return Val::Error,
        (Val::Str(x), Val::Str(y)) => Some(cmp_ignore_case(x, y)),
        (Val::Str(_), _) | (_, Val::Str(_)) => return Val::Error,
        (Val::AbsTime(x), Val::AbsTime(y)) => Some(x.secs.cmp(&y.secs)),
        (Val::AbsTime(_), _) | (_, Val::AbsTime(_)) => return Val::Error,
        (Val::RelTime(x), Val::RelTime(y)) => x.partial_cmp(&y),
        (Val::RelTime(_), _) | (_, Val::RelTime(_)) => return Val::Error,
        _ => match (a.as_number(), b.as_number()) {
            (Some(Val::Int(x)), Some(Val::Int(y))) => Some(x.cmp(&y)),
            (Some(x), Some(y)) => real_of(x).partial_cmp(&real_of(y)),
            _ => return Val::Error,
        },
    };
    Val::Bool(holds(op, ord))
}

fn real_of(v: Val<'_>) -> f64 {
    match v {
        Val::Int(i) => i as f64,
        Val::Real(r) => r,
        _ => f64::NAN,
    }
}

/// `a is b` (`=?=`): same type and same value; strings case-sensitive; `undefined is undefined` and
/// `error is error` are true; lists and ads (of the same type) are an error, as in HTCondor.
pub fn identical<'a>(a: Val<'a>, b: Val<'a>) -> Val<'a> {
    Val::Bool(match (a, b) {
        (Val::Undefined, Val::Undefined) | (Val::Error, Val::Error) => true,
        (Val::Bool(x), Val::Bool(y)) => x == y,
        (Val::Int(x), Val::Int(y)) => x == y,
        (Val::Real(x), Val::Real(y)) => x == y,
        (Val::Str(x), Val::Str(y)) => x == y,
        (Val::AbsTime(x), Val::AbsTime(y)) => x.secs == y.secs && x.offset == y.offset,
        (Val::RelTime(x), Val::RelTime(y)) => x == y,
        (Val::List(_), Val::List(_)) | (Val::Ad(_), Val::Ad(_)) => return Val::Error,
        _ => false,
    })
}

/// `a isnt b` (`=!=`): the negation of [`identical`] (still an error on two lists or two ads).
pub fn not_identical<'a>(a: Val<'a>, b: Val<'a>) -> Val<'a> {
    match identical(a, b) {
        Val::Bool(x) => Val::Bool(!x),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::AbsTime;
    use BinOp::*;

    fn t(secs: i64, offset: i32) -> Val<'static> {
        Val::AbsTime(AbsTime { secs, offset })
    }

    #[test]
    fn compare_table() {
        let cases: &[(BinOp, Val<'static>, Val<'static>, &str)] = &[
            (Eq, Val::Str("abc"), Val::Str("ABC"), "Bool(true)"),
            (Lt, Val::Str("a"), Val::Str("B"), "Bool(true)"),
            (Lt, Val::Str("B"), Val::Str("a"), "Bool(false)"),
            (Lt, Val::Str("_"), Val::Str("A"), "Bool(true)"),
            (Lt, Val::Str("Z"), Val::Str("_"), "Bool(false)"),
            (Lt, Val::Str("ab"), Val::Str("abc"), "Bool(true)"),
            (Eq, Val::Int(1), Val::Str("1"), "Error"),
            (Lt, Val::Int(1), Val::Str("a"), "Error"),
            (Eq, Val::Bool(true), Val::Int(1), "Bool(true)"),
            (Lt, Val::Bool(true), Val::Int(2), "Bool(true)"),
            (Lt, Val::Int(1), Val::Bool(true), "Bool(false)"),
            (Eq, Val::Real(1.0), Val::Bool(true), "Bool(true)"),
            (Lt, Val::Bool(false), Val::Bool(true), "Bool(true)"),
            (Eq, Val::Int(1), Val::Real(1.0), "Bool(true)"),
            (Eq, Val::Real(f64::NAN), Val::Real(f64::NAN), "Bool(false)"),
            (Ne, Val::Real(f64::NAN), Val::Real(f64::NAN), "Bool(true)"),
            (Eq, Val::List(&[]), Val::List(&[]), "Error"),
            (Eq, Val::List(&[]), Val::Int(1), "Error"),
            (Eq, t(0, 3600), t(0, 0), "Bool(true)"),
            (Lt, t(0, 0), t(1, 0), "Bool(true)"),
            (Eq, t(0, 0), Val::Int(5), "Error"),
            (Lt, Val::RelTime(5.0), Val::RelTime(6.0), "Bool(true)"),
            (Eq, Val::RelTime(5.0), Val::Int(5), "Error"),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(
                format!("{:?}", compare(*op, *a, *b)),
                *want,
                "{op:?} {a:?} {b:?}"
            );
        }
    }

    #[test]
    fn identity_table() {
        let cases: &[(Val<'static>, Val<'static>, &str)] = &[
            (Val::Str("abc"), Val::Str("ABC"), "Bool(false)"),
            (Val::Str("abc"), Val::Str("abc"), "Bool(true)"),
            (Val::Int(1), Val::Real(1.0), "Bool(false)"),
            (Val::Bool(true), Val::Int(1), "Bool(false)"),
            (Val::Undefined, Val::Undefined, "Bool(true)"),
            (Val::Error, Val::Error, "Bool(true)"),
            (Val::Undefined, Val::Error, "Bool(false)"),
            (Val::Real(f64::NAN), Val::Real(f64::NAN), "Bool(false)"),
            (Val::Real(0.0), Val::Real(-0.0), "Bool(true)"),
            (Val::List(&[]), Val::Int(1), "Bool(false)"),
            (Val::List(&[]), Val::List(&[]), "Error"),
            (t(0, 3600), t(3600, 7200), "Bool(false)"),
            (t(0, 3600), t(0, 3600), "Bool(true)"),
            (Val::RelTime(5.0), Val::RelTime(5.0), "Bool(true)"),
        ];
        for (a, b, want) in cases {
            assert_eq!(format!("{:?}", identical(*a, *b)), *want, "{a:?} {b:?}");
        }
        assert_eq!(
            format!("{:?}", not_identical(Val::Int(1), Val::Real(1.0))),
            "Bool(true)"
        );
        assert_eq!(
            format!("{:?}", not_identical(Val::List(&[]), Val::List(&[]))),
            "Error"
        );
    }
}
