//! Mathematical functions: `floor`, `ceil`/`ceiling`, `round`, `pow`, `quantize`, `random`.
//!
//! Non-integer arguments go through HTCondor's real conversion (strings are parsed, `undefined`
//! does not convert and gives `error`); results become integers with C's cast on x86
//! ([`real_to_int`]): NaN and out-of-range values give `i64::MIN`, as HTCondor does.

use super::args::{arity, eval_args};
use super::convert::{real_to_int, to_real_f64};
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("floor", floor),
    ("ceil", ceiling),
    ("ceiling", ceiling),
    ("round", round),
    ("pow", pow),
    ("quantize", quantize),
    ("random", random),
];

/// An integer stays as it is; anything else converts to real, is rounded by `f` and cast.
fn rounding<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    f: fn(f64) -> f64,
) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    match eval_args(ev, scope, args) {
        [Val::Int(i)] => Val::Int(i),
        [v] => to_real_f64(v).map_or(Val::Error, |r| Val::Int(real_to_int(f(r)))),
    }
}

fn floor<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    rounding(ev, scope, args, f64::floor)
}

fn ceiling<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    rounding(ev, scope, args, f64::ceil)
}

/// C's `rint` in the default rounding mode: halves go to the even neighbour.
fn round<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    rounding(ev, scope, args, f64::round_ties_even)
}

/// `pow(base, exp)`: integer when both are integers and `exp >= 0` (computed in double and
/// rounded by adding 0.5 and truncating, exactly as HTCondor — so `pow(-2, 3)` is `-7`), else
/// real.
fn pow<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 2, 2) {
        return Val::Error;
    }
    match eval_args(ev, scope, args) {
        [Val::Int(b), Val::Int(e)] if e >= 0 => {
            Val::Int(real_to_int((b as f64).powf(e as f64) + 0.5))
        }
        [b, e] => match (to_real_f64(b), to_real_f64(e)) {
            (Some(b), Some(e)) => Val::Real(b.powf(e)),
            _ => Val::Error,
        },
    }
}

/// `quantize(a, b)`: the smallest multiple of `b` at least `a`; with a list `b`, the first
/// element at least `a`, else a multiple of the last element.
fn quantize<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 2, 2) {
        return Val::Error;
    }
    let [a, b] = eval_args(ev, scope, args);
    let Some(ra) = to_real_f64(a) else {
        return Val::Error;
    };
    // The base to quantize on, and its real value. An empty list means "don't quantize".
    let (base, rbase) = match b {
        Val::List(items) => {
            if !ev.charge(items.len() as u64) {
                return Val::Error;
            }
            let mut last = (Val::Real(0.0), 0.0);
            for &item in items {
                match to_real_f64(item) {
                    Some(r) if r >= ra => return item,
                    Some(r) => last = (item, r),
                    None => return Val::Error,
                }
            }
            last
        }
        _ => match to_real_f64(b) {
            Some(r) => (b, r),
            None => return Val::Error,
        },
    };
    match base {
        Val::Int(0) => a,
        Val::Int(ib) => match a {
            Val::Int(ia) => Val::Int(
                ia.wrapping_add(ib)
                    .wrapping_sub(1)
                    .wrapping_div(ib)
                    .wrapping_mul(ib),
            ),
            _ => Val::Real((ra / ib as f64).ceil() * ib as f64),
        },
        _ if rbase.abs() <= 1e-8 => a,
        _ => Val::Real((ra / rbase).ceil() * rbase),
    }
}

/// `random([max])`: an integer in `[0, max)` for an integer `max`, a real in `[0, max)` for a
/// real one (default `1.0`). A bound that is not positive is `error` (HTCondor fails there).
fn random<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 0, 1) {
        return Val::Error;
    }
    let bound = match args.first() {
        None => Val::Real(1.0),
        Some(a) => ev.eval(a, scope),
    };
    match bound {
        Val::Int(max) if max > 0 => Val::Int((ev.next_random() % max as u64) as i64),
        Val::Real(max) if max > 0.0 => {
            // 53 random bits: uniform in [0, 1).
            let unit = (ev.next_random() >> 11) as f64 / (1u64 << 53) as f64;
            Val::Real(max * unit)
        }
        _ => Val::Error,
    }
}

#[cfg(test)]
mod tests {
    use crate::functions::testutil::check;

    #[test]
    fn rounding() {
        for (expr, want) in [
            ("floor(1.5)", "1"),
            ("floor(-1.5)", "-2"),
            ("floor(3)", "3"),
            ("floor(\"2.7\")", "2"),
            ("floor(\"abc\")", "error"),
            ("floor(true)", "1"),
            ("floor(undefined)", "error"),
            ("floor(error)", "error"),
            ("floor({1})", "error"),
            ("floor(1e30)", "-9223372036854775808"),
            ("floor(1, 2)", "error"),
            ("ceiling(1.2)", "2"),
            ("ceil(-1.2)", "-1"),
            ("round(2.5)", "2"),
            ("round(3.5)", "4"),
            ("round(-2.5)", "-2"),
            ("round(2.4999)", "2"),
            ("round(\"2.5\")", "2"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn powers() {
        for (expr, want) in [
            ("pow(2, 10)", "1024"),
            ("pow(2, -1)", "5.000000000000000E-01"),
            ("pow(2.0, 3)", "8.000000000000000E+00"),
            ("pow(0, 0)", "1"),
            ("pow(-2, 3)", "-7"),
            ("pow(2, 63)", "-9223372036854775808"),
            ("pow(10, 18)", "1000000000000000000"),
            ("pow(\"2\", 3)", "8.000000000000000E+00"),
            ("pow(true, 3)", "1.000000000000000E+00"),
            ("pow(undefined, 2)", "error"),
            ("pow(2)", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn quantizing() {
        for (expr, want) in [
            ("quantize(3, 8)", "8"),
            ("quantize(3, 2)", "4"),
            ("quantize(0, 4)", "0"),
            ("quantize(1.5, 6.8)", "6.800000000000000E+00"),
            ("quantize(6.8, 1.2)", "7.199999999999999E+00"),
            ("quantize(10, 5.1)", "1.020000000000000E+01"),
            ("quantize(0, {4})", "4"),
            ("quantize(2, {1, 2, \"A\"})", "2"),
            ("quantize(3, {1, 2, 0.5})", "3.000000000000000E+00"),
            ("quantize(2.7, {1, 2, 0.5})", "3.000000000000000E+00"),
            ("quantize(3, {1, 2, \"A\"})", "error"),
            ("quantize(3, {})", "3"),
            ("quantize(3.5, 0)", "3.500000000000000E+00"),
            ("quantize(-3, 2)", "-2"),
            ("quantize(-3, -2)", "-6"),
            ("quantize(3, -2)", "0"),
            ("quantize(\"3\", 2)", "4.000000000000000E+00"),
            ("quantize(true, 2)", "2.000000000000000E+00"),
            ("quantize(3, true)", "3.000000000000000E+00"),
            ("quantize(3, {undefined, 4})", "error"),
            ("quantize(5, {1, 2})", "6"),
            ("quantize(undefined, 2)", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn randoms() {
        for (expr, want) in [
            ("isInteger(random(10))", "true"),
            ("random(10) >= 0 && random(10) < 10", "true"),
            ("isReal(random())", "true"),
            ("random(2.5) < 2.5", "true"),
            ("random(0)", "error"),
            ("random(-5)", "error"),
            ("random(0.0)", "error"),
            ("random(\"a\")", "error"),
            ("random(true)", "error"),
            ("random(undefined)", "error"),
            ("random(1, 2)", "error"),
        ] {
            check(expr, want);
        }
    }
}
