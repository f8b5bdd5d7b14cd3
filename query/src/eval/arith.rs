//! Arithmetic: `+ - * / %` and unary `+ -`, with HTCondor's promotions (booleans to integers,
//! integers to reals), 64-bit wrapping integers, and its real-number error rules.

use super::time_ops;
use crate::ast::BinOp;
use crate::value::Val;

/// Operands after HTCondor's numeric coercion.
enum Num {
    Int(i64, i64),
    Real(f64, f64),
}

/// Coerces two numeric operands (booleans count as integers) to a common type.
fn coerce(a: Val<'_>, b: Val<'_>) -> Option<Num> {
    let a = a.as_number()?;
    let b = b.as_number()?;
    Some(match (a, b) {
        (Val::Int(x), Val::Int(y)) => Num::Int(x, y),
        (Val::Int(x), Val::Real(y)) => Num::Real(x as f64, y),
        (Val::Real(x), Val::Int(y)) => Num::Real(x, y as f64),
        (Val::Real(x), Val::Real(y)) => Num::Real(x, y),
        _ => return None,
    })
}

/// A binary arithmetic operator on non-exceptional operands (strictness already applied).
pub fn arithmetic<'a>(op: BinOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    if matches!(a, Val::AbsTime(_) | Val::RelTime(_))
        || matches!(b, Val::AbsTime(_) | Val::RelTime(_))
    {
        // Times are coerced before booleans are promoted, so `reltime * true` is an error.
        return time_ops::arithmetic(op, a, b);
    }
    match coerce(a, b) {
        Some(Num::Int(x, y)) => int_op(op, x, y),
        Some(Num::Real(x, y)) => real_op(op, x, y),
        None => Val::Error,
    }
}

fn int_op<'a>(op: BinOp, x: i64, y: i64) -> Val<'a> {
    match op {
        BinOp::Add => Val::Int(x.wrapping_add(y)),
        BinOp::Sub => Val::Int(x.wrapping_sub(y)),
        BinOp::Mul => Val::Int(x.wrapping_mul(y)),
        // HTCondor answers i64::MIN / -1 with i64::MAX ("off by one") rather than trapping.
        BinOp::Div if x == i64::MIN && y == -1 => Val::Int(i64::MAX),
        BinOp::Mod if x == i64::MIN && y == -1 => Val::Int(0),
        BinOp::Div | BinOp::Mod if y == 0 => Val::Error,
        BinOp::Div => Val::Int(x / y),
        BinOp::Mod => Val::Int(x % y),
        _ => Val::Error,
    }
}

fn real_op<'a>(op: BinOp, x: f64, y: f64) -> Val<'a> {
    let r = match op {
        BinOp::Add => x + y,
        BinOp::Sub => x - y,
        BinOp::Mul => x * y,
        BinOp::Div => x / y,
        // `%` on reals is always an error in HTCondor.
        _ => return Val::Error,
    };
    // HTCondor treats a result of +HUGE_VAL (positive infinity) as an error; -inf and NaN pass.
    if r == f64::INFINITY {
        Val::Error
    } else {
        Val::Real(r)
    }
}

/// Unary `+`: numbers, relative times and exceptional values pass; everything else is an error.
pub fn plus(v: Val<'_>) -> Val<'_> {
    match v {
        Val::Undefined | Val::Error | Val::Int(_) | Val::Real(_) | Val::RelTime(_) => v,
        _ => Val::Error,
    }
}

/// Unary `-`: integers wrap (`-i64::MIN` is `i64::MIN`); booleans and absolute times are errors.
pub fn negate(v: Val<'_>) -> Val<'_> {
    match v {
        Val::Undefined | Val::Error => v,
        Val::Int(i) => Val::Int(i.wrapping_neg()),
        Val::Real(r) => Val::Real(-r),
        Val::RelTime(t) => Val::RelTime(-t),
        _ => Val::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinOp::*;

    fn show(v: Val<'_>) -> String {
        match v {
            Val::Error => "error".into(),
            Val::Int(n) => n.to_string(),
            Val::Real(r) => format!("{r:?}"),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn arithmetic_table() {
        let cases: &[(BinOp, Val<'static>, Val<'static>, &str)] = &[
            (Add, Val::Int(1), Val::Int(2), "3"),
            (Add, Val::Bool(true), Val::Int(1), "2"),
            (Mul, Val::Bool(true), Val::Real(2.5), "2.5"),
            (Add, Val::Int(i64::MAX), Val::Int(1), "-9223372036854775808"),
            (Mul, Val::Int(i64::MAX), Val::Int(2), "-2"),
            (Div, Val::Int(i64::MIN), Val::Int(-1), "9223372036854775807"),
            (Mod, Val::Int(i64::MIN), Val::Int(-1), "0"),
            (Div, Val::Int(1), Val::Int(0), "error"),
            (Mod, Val::Int(1), Val::Int(0), "error"),
            (Div, Val::Int(7), Val::Int(2), "3"),
            (Div, Val::Int(-7), Val::Int(2), "-3"),
            (Mod, Val::Int(-5), Val::Int(3), "-2"),
            (Mod, Val::Int(5), Val::Int(-3), "2"),
            (Div, Val::Real(7.0), Val::Int(2), "3.5"),
            (Div, Val::Real(1.0), Val::Int(0), "error"),
            (Div, Val::Int(-1), Val::Real(0.0), "-inf"),
            (Div, Val::Int(0), Val::Real(0.0), "NaN"),
            (Mul, Val::Real(1e308), Val::Int(10), "error"),
            (Mul, Val::Real(-1e308), Val::Int(10), "-inf"),
            (Mod, Val::Real(5.5), Val::Int(2), "error"),
            (Mod, Val::Int(3), Val::Real(2.0), "error"),
            (Add, Val::Str("a"), Val::Str("b"), "error"),
            (Add, Val::Str("a"), Val::Int(1), "error"),
            (Sub, Val::Int(1), Val::List(&[]), "error"),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(show(arithmetic(*op, *a, *b)), *want, "{op:?} {a:?} {b:?}");
        }
    }

    #[test]
    fn unary_table() {
        assert_eq!(show(negate(Val::Int(i64::MIN))), "-9223372036854775808");
        assert_eq!(show(negate(Val::Bool(true))), "error");
        assert_eq!(show(negate(Val::Str("a"))), "error");
        assert_eq!(show(negate(Val::RelTime(5.0))), "RelTime(-5.0)");
        assert_eq!(show(plus(Val::Bool(true))), "error");
        assert_eq!(show(plus(Val::Str("a"))), "error");
        assert_eq!(show(plus(Val::RelTime(5.0))), "RelTime(5.0)");
        assert_eq!(show(plus(Val::Int(3))), "3");
    }
}
