//! Arithmetic on absolute and relative times: abstime ± reltime, abstime − abstime, reltime ± reltime,
//! reltime × or ÷ a number. Everything else involving a time is an error (booleans included).

use crate::ast::BinOp;
use crate::value::{AbsTime, Val};

/// HTCondor adds `(int) reltime` to an abstime: a C truncation to 32 bits, which on overflow (or
/// NaN) yields `INT_MIN` on the machines it runs on.
fn c_int(r: f64) -> i64 {
    if r.is_nan() || r >= 2_147_483_648.0 || r <= -2_147_483_649.0 {
        i64::from(i32::MIN)
    } else {
        r.trunc() as i64
    }
}

fn shift<'a>(t: AbsTime, by: i64) -> Val<'a> {
    Val::AbsTime(AbsTime {
        secs: t.secs.wrapping_add(by),
        offset: t.offset,
    })
}

/// A binary arithmetic operator where at least one operand is a time (strictness applied).
pub fn arithmetic<'a>(op: BinOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    use Val::{AbsTime as A, Int, Real, RelTime as R};
    match (op, a, b) {
        (BinOp::Add, A(t), R(r)) | (BinOp::Add, R(r), A(t)) => shift(t, c_int(r)),
        (BinOp::Add, R(x), R(y)) => R(x + y),
        (BinOp::Sub, A(x), A(y)) => R(x.secs.wrapping_sub(y.secs) as f64),
        (BinOp::Sub, A(t), R(r)) => shift(t, c_int(r).wrapping_neg()),
        (BinOp::Sub, R(x), R(y)) => R(x - y),
        (BinOp::Mul, R(x), Int(n)) | (BinOp::Mul, Int(n), R(x)) => R(x * n as f64),
        (BinOp::Mul, R(x), Real(n)) | (BinOp::Mul, Real(n), R(x)) => R(x * n),
        (BinOp::Div, R(x), Int(n)) => R(x / n as f64),
        (BinOp::Div, R(x), Real(n)) => R(x / n),
        _ => Val::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinOp::*;

    const T: AbsTime = AbsTime {
        secs: 1_577_836_800,
        offset: 0,
    };

    #[test]
    fn time_arithmetic_table() {
        let cases: &[(BinOp, Val<'static>, Val<'static>, &str)] = &[
            (
                Add,
                Val::AbsTime(T),
                Val::RelTime(60.0),
                "AbsTime(AbsTime { secs: 1577836860, offset: 0 })",
            ),
            (
                Add,
                Val::RelTime(60.0),
                Val::AbsTime(T),
                "AbsTime(AbsTime { secs: 1577836860, offset: 0 })",
            ),
            (
                Sub,
                Val::AbsTime(T),
                Val::RelTime(60.5),
                "AbsTime(AbsTime { secs: 1577836740, offset: 0 })",
            ),
            (
                Sub,
                Val::AbsTime(T),
                Val::AbsTime(AbsTime {
                    secs: 1_546_300_800,
                    offset: 3600,
                }),
                "RelTime(31536000.0)",
            ),
            (Add, Val::RelTime(10.0), Val::RelTime(5.0), "RelTime(15.0)"),
            (Sub, Val::RelTime(10.0), Val::RelTime(5.0), "RelTime(5.0)"),
            (Mul, Val::RelTime(10.0), Val::Int(2), "RelTime(20.0)"),
            (Mul, Val::Int(2), Val::RelTime(10.0), "RelTime(20.0)"),
            (Mul, Val::Real(2.5), Val::RelTime(10.0), "RelTime(25.0)"),
            (Div, Val::RelTime(10.0), Val::Int(4), "RelTime(2.5)"),
            (Div, Val::RelTime(10.0), Val::Int(0), "RelTime(inf)"),
            (Div, Val::Int(10), Val::RelTime(2.0), "Error"),
            (Add, Val::RelTime(10.0), Val::Int(1), "Error"),
            (Add, Val::AbsTime(T), Val::Int(1), "Error"),
            (Add, Val::AbsTime(T), Val::AbsTime(T), "Error"),
            (Mul, Val::RelTime(5.0), Val::Bool(true), "Error"),
            (Mul, Val::AbsTime(T), Val::Int(2), "Error"),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(
                format!("{:?}", arithmetic(*op, *a, *b)),
                *want,
                "{op:?} {a:?} {b:?}"
            );
        }
    }
}
