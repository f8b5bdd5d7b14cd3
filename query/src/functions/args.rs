//! Shared helpers for built-in functions: arity checks, evaluating arguments, strictness.
//!
//! HTCondor's functions check the argument count first (a wrong count is `error`, nothing is
//! evaluated), then evaluate every argument, then decide on `error` / `undefined`, then on types.
//! The order in which error and undefined win differs between functions, hence two helpers.

use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// True when `args` has between `min` and `max` elements (inclusive).
#[inline]
pub(crate) fn arity(args: &[Expr], min: usize, max: usize) -> bool {
    (min..=max).contains(&args.len())
}

/// Evaluates the first `N` arguments (the caller has checked there are at least `N`).
pub(crate) fn eval_args<'a, const N: usize>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> [Val<'a>; N] {
    let mut out = [Val::Undefined; N];
    for (slot, arg) in out.iter_mut().zip(args) {
        *slot = ev.eval(arg, scope);
    }
    out
}

/// Evaluates every argument, in order.
pub(crate) fn eval_all<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Vec<Val<'a>> {
    args.iter().map(|a| ev.eval(a, scope)).collect()
}

/// `Some(error)` if any value is `error`, else `Some(undefined)` if any is `undefined`, else
/// `None`: the usual strictness where error wins.
pub(crate) fn error_or_undefined<'a>(vals: &[Val<'a>]) -> Option<Val<'a>> {
    if vals.iter().any(Val::is_error) {
        Some(Val::Error)
    } else if vals.iter().any(Val::is_undefined) {
        Some(Val::Undefined)
    } else {
        None
    }
}

/// `Some(undefined)` if any value is `undefined`, else `Some(error)` if any is `error`, else
/// `None`: the strictness of functions that test for undefined first (`substr`, `strcmp`, …).
pub(crate) fn undefined_or_error<'a>(vals: &[Val<'a>]) -> Option<Val<'a>> {
    if vals.iter().any(Val::is_undefined) {
        Some(Val::Undefined)
    } else if vals.iter().any(Val::is_error) {
        Some(Val::Error)
    } else {
        None
    }
}

/// The string in `v`, if it is one.
#[inline]
pub(crate) fn str_arg<'a>(v: Val<'a>) -> Option<&'a str> {
    match v {
        Val::Str(s) => Some(s),
        _ => None,
    }
}

/// The integer in `v`, if it is one (no promotion of booleans or reals, as HTCondor's
/// `IsIntegerValue`).
#[inline]
pub(crate) fn int_arg(v: Val<'_>) -> Option<i64> {
    match v {
        Val::Int(i) => Some(i),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strictness_orders() {
        let cases: &[(&[Val], Option<&str>, Option<&str>)] = &[
            (&[Val::Int(1)], None, None),
            (
                &[Val::Undefined, Val::Error],
                Some("error"),
                Some("undefined"),
            ),
            (
                &[Val::Error, Val::Undefined],
                Some("error"),
                Some("undefined"),
            ),
            (&[Val::Undefined], Some("undefined"), Some("undefined")),
            (&[Val::Error], Some("error"), Some("error")),
        ];
        let name = |v: Option<Val>| v.map(|v| if v.is_error() { "error" } else { "undefined" });
        for (vals, e_first, u_first) in cases {
            assert_eq!(name(error_or_undefined(vals)), *e_first, "{vals:?}");
            assert_eq!(name(undefined_or_error(vals)), *u_first, "{vals:?}");
        }
    }

    #[test]
    fn arity_bounds() {
        let two = [Expr::attr("a"), Expr::attr("b")];
        assert!(arity(&two, 2, 2));
        assert!(arity(&two, 1, 3));
        assert!(!arity(&two, 3, 4));
        assert!(!arity(&two[..0], 1, 1));
    }
}
