//! Type predicates: `isUndefined`, `isError`, `isString`, … — exactly one argument (else
//! `error`), never strict: they look at whatever the argument evaluates to.

use super::args::{arity, eval_args};
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("isUndefined", is_undefined),
    ("isError", is_error),
    ("isString", is_string),
    ("isInteger", is_integer),
    ("isReal", is_real),
    ("isList", is_list),
    ("isClassAd", is_classad),
    ("isBoolean", is_boolean),
    ("isAbsTime", is_abs_time),
    ("isRelTime", is_rel_time),
];

/// Evaluates the single argument and applies `test`; `error` unless there is exactly one.
fn predicate<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    test: fn(&Val<'a>) -> bool,
) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let [v] = eval_args(ev, scope, args);
    Val::Bool(test(&v))
}

macro_rules! predicates {
    ($($name:ident => $pat:pat),* $(,)?) => {
        $(
            fn $name<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
                predicate(ev, scope, args, |v| matches!(v, $pat))
            }
        )*
    };
}

predicates! {
    is_undefined => Val::Undefined,
    is_error => Val::Error,
    is_string => Val::Str(_),
    is_integer => Val::Int(_),
    is_real => Val::Real(_),
    is_list => Val::List(_),
    is_classad => Val::Ad(_),
    is_boolean => Val::Bool(_),
    is_abs_time => Val::AbsTime(_),
    is_rel_time => Val::RelTime(_),
}

#[cfg(test)]
mod tests {
    use crate::functions::testutil::check;

    #[test]
    fn predicates() {
        for (expr, want) in [
            ("isUndefined(x)", "true"),
            ("isUndefined(1)", "false"),
            ("isUndefined()", "error"),
            ("isUndefined(1, 2)", "error"),
            ("isError(error)", "true"),
            ("isError(1/0)", "true"),
            ("isError(undefined)", "false"),
            ("isString(\"\")", "true"),
            ("isString(1)", "false"),
            ("isInteger(1)", "true"),
            ("isInteger(true)", "false"),
            ("isInteger(1.0)", "false"),
            ("isReal(1.0)", "true"),
            ("isReal(1)", "false"),
            ("isList({})", "true"),
            ("isList(\"a\")", "false"),
            ("isClassAd([a = 1])", "true"),
            ("isClassAd({})", "false"),
            ("isBoolean(true)", "true"),
            ("isBoolean(1)", "false"),
            ("isAbsTime(absTime(0))", "true"),
            ("isAbsTime(0)", "false"),
            ("isRelTime(relTime(5))", "true"),
            ("ISSTRING(\"a\")", "true"),
        ] {
            check(expr, want);
        }
    }
}
