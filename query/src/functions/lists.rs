//! List functions: `size`, the aggregates `sum`/`avg`/`min`/`max`, membership (`member`,
//! `identicalMember`) and quantified comparison (`anyCompare`, `allCompare`).
//!
//! Element comparisons and additions use the evaluator's operators, so promotion and
//! case-insensitivity are exactly those of `==`, `<`, `+`, ….

use super::args::{arity, eval_args};
use super::Builtin;
use crate::ast::{BinOp, Expr};
use crate::eval::ops::apply_binary;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("size", size),
    ("sum", sum),
    ("avg", avg),
    ("min", min),
    ("max", max),
    ("member", member),
    ("identicalMember", identical_member),
    ("anyCompare", any_compare),
    ("allCompare", all_compare),
];

/// `size(x)`: bytes of a string, elements of a list, attributes of an ad.
fn size<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    match eval_args(ev, scope, args) {
        [Val::Undefined] => Val::Undefined,
        [Val::List(l)] => Val::Int(l.len() as i64),
        [Val::Ad(s)] => Val::Int(s.ad.len() as i64),
        [Val::Str(s)] => Val::Int(s.len() as i64),
        _ => Val::Error,
    }
}

/// The defined elements of the single list argument, if they are all numbers (booleans count):
/// `Err(v)` is the function's result otherwise (`undefined` for an undefined list, else `error`).
fn numbers<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Result<Vec<Val<'a>>, Val<'a>> {
    if !arity(args, 1, 1) {
        return Err(Val::Error);
    }
    let items = match eval_args(ev, scope, args) {
        [Val::Undefined] => return Err(Val::Undefined),
        [Val::List(items)] => items,
        _ => return Err(Val::Error),
    };
    if !ev.charge(items.len() as u64) {
        return Err(Val::Error);
    }
    let mut out = Vec::with_capacity(items.len());
    for &v in items {
        match v {
            Val::Undefined => {}
            Val::Int(_) | Val::Real(_) | Val::Bool(_) => out.push(v),
            _ => return Err(Val::Error),
        }
    }
    Ok(out)
}

/// The sum of the defined numbers, left to right with `+` (`0` for none; one element is
/// returned as it is, so `sum({true})` is `true`).
fn total<'a>(nums: &[Val<'a>]) -> Val<'a> {
    let mut it = nums.iter().copied();
    match it.next() {
        None => Val::Int(0),
        Some(first) => it.fold(first, |acc, v| apply_binary(BinOp::Add, acc, v)),
    }
}

fn sum<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    numbers(ev, scope, args).map_or_else(|e| e, |n| total(&n))
}

/// The mean of the defined numbers as a real; `0` when there are none.
fn avg<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    match numbers(ev, scope, args) {
        Err(e) => e,
        Ok(n) if n.is_empty() => Val::Int(0),
        Ok(n) => apply_binary(BinOp::Div, total(&n), Val::Real(n.len() as f64)),
    }
}

/// The extreme of the defined numbers by `op` (`<` for min, `>` for max); `undefined` for
/// none. With several, the result is a real if any element is, else an integer.
fn bound<'a>(nums: &[Val<'a>], op: BinOp) -> Val<'a> {
    let Some((&first, rest)) = nums.split_first() else {
        return Val::Undefined;
    };
    let best = rest.iter().fold(first, |best, &v| {
        if matches!(apply_binary(op, v, best), Val::Bool(true)) {
            v
        } else {
            best
        }
    });
    if rest.is_empty() {
        return best;
    }
    let real = nums.iter().any(|v| matches!(v, Val::Real(_)));
    match best {
        Val::Bool(b) if real => Val::Real(f64::from(u8::from(b))),
        Val::Bool(b) => Val::Int(i64::from(b)),
        Val::Int(i) if real => Val::Real(i as f64),
        other => other,
    }
}

fn min<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    numbers(ev, scope, args).map_or_else(|e| e, |n| bound(&n, BinOp::Lt))
}

fn max<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    numbers(ev, scope, args).map_or_else(|e| e, |n| bound(&n, BinOp::Gt))
}

/// `member(x, list)` (compares with `==`) and `identicalMember(x, list)` (with `is`).
fn membership<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    identical: bool,
) -> Val<'a> {
    if !arity(args, 2, 2) {
        return Val::Error;
    }
    let [x, list] = eval_args(ev, scope, args);
    if list.is_undefined() || (!identical && x.is_undefined()) {
        return Val::Undefined;
    }
    let Val::List(items) = list else {
        return Val::Error;
    };
    if matches!(x, Val::List(_) | Val::Ad(_)) || (!identical && x.is_error()) {
        return Val::Error;
    }
    if !ev.charge(items.len() as u64) {
        return Val::Error;
    }
    let op = if identical { BinOp::Is } else { BinOp::Eq };
    let found = items
        .iter()
        .any(|&item| matches!(apply_binary(op, item, x), Val::Bool(true)));
    Val::Bool(found)
}

fn member<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    membership(ev, scope, args, false)
}

/// `identicalMember(x, list)`: membership by `is` (also the dissertation's `isMember`).
pub(crate) fn identical_member<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Val<'a> {
    membership(ev, scope, args, true)
}

/// `anyCompare(op, list, x)` / `allCompare(op, list, x)`: `op` is one of `<` `<=` `==` `!=`
/// `>` `>=` `is` `isnt` (exactly so). An element whose comparison is undefined ends the scan
/// with `false`; one whose comparison is anything else but a boolean ends it with `error`.
fn quantified<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    all: bool,
) -> Val<'a> {
    if !arity(args, 3, 3) {
        return Val::Error;
    }
    let [op, list, x] = eval_args(ev, scope, args);
    let op = match op {
        Val::Undefined => return Val::Undefined,
        Val::Str(s) => match s {
            "<" => BinOp::Lt,
            "<=" => BinOp::Le,
            "!=" => BinOp::Ne,
            "==" => BinOp::Eq,
            ">" => BinOp::Gt,
            ">=" => BinOp::Ge,
            "is" => BinOp::Is,
            "isnt" => BinOp::Isnt,
            _ => return Val::Error,
        },
        _ => return Val::Error,
    };
    let items = match list {
        Val::Undefined => return Val::Undefined,
        Val::List(items) => items,
        _ => return Val::Error,
    };
    if !ev.charge(items.len() as u64) {
        return Val::Error;
    }
    for &item in items {
        match apply_binary(op, item, x) {
            Val::Bool(b) if b != all => return Val::Bool(b),
            Val::Bool(_) => {}
            Val::Undefined => return Val::Bool(false),
            _ => return Val::Error,
        }
    }
    Val::Bool(all)
}

fn any_compare<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    quantified(ev, scope, args, false)
}

fn all_compare<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    quantified(ev, scope, args, true)
}

#[cfg(test)]
mod tests {
    use crate::functions::testutil::{check, check_in};

    #[test]
    fn sizes() {
        for (expr, want) in [
            ("size({})", "0"),
            ("size({1, 2})", "2"),
            ("size(\"abc\")", "3"),
            ("size(\"h\\303\\251llo\")", "6"),
            ("size([a = 1; b = 2])", "2"),
            ("size(undefined)", "undefined"),
            ("size(error)", "error"),
            ("size(5)", "error"),
            ("size()", "error"),
            ("size({1}, {2})", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn aggregates() {
        for (expr, want) in [
            ("sum({})", "0"),
            ("sum({1, 2, 3})", "6"),
            ("sum({1, 2.5})", "3.500000000000000E+00"),
            ("sum({1, undefined, 2})", "3"),
            ("sum({undefined})", "0"),
            ("sum({1, \"a\"})", "error"),
            ("sum({1, error})", "error"),
            ("sum({true, 1})", "2"),
            ("sum({true})", "true"),
            ("sum({true, false})", "1"),
            ("sum(undefined)", "undefined"),
            ("sum(error)", "error"),
            ("sum(1)", "error"),
            ("sum()", "error"),
            ("sum({relTime(5), 1})", "error"),
            ("sum({9223372036854775807, 1})", "-9223372036854775808"),
            ("avg({})", "0"),
            ("avg({1, 2})", "1.500000000000000E+00"),
            ("avg({1, undefined, 2})", "1.500000000000000E+00"),
            ("avg({undefined})", "0"),
            ("avg({5})", "5.000000000000000E+00"),
            ("avg({true})", "1.000000000000000E+00"),
            ("avg({1, \"a\"})", "error"),
            ("min({})", "undefined"),
            ("min({3, 1, 2})", "1"),
            ("min({3, 1, 2.0})", "1.000000000000000E+00"),
            ("min({undefined})", "undefined"),
            ("min({undefined, 2, 1})", "1"),
            ("min({true})", "true"),
            ("min({true, 5})", "1"),
            ("min({true, false})", "0"),
            ("max({true, true})", "1"),
            ("max({1, 2.5, 2})", "2.500000000000000E+00"),
            ("max({2.0, 1})", "2.000000000000000E+00"),
            ("max({real(\"NaN\"), 1})", "real(\"NaN\")"),
            ("max({1, real(\"NaN\")})", "1.000000000000000E+00"),
            ("min({absTime(5)})", "error"),
            ("min({[a = 1]})", "error"),
            ("min({1, error})", "error"),
        ] {
            check(expr, want);
        }
        check_in("[s = {1, 2, 3}]", "sum(s) + max(s)", "9");
    }

    #[test]
    fn membership() {
        for (expr, want) in [
            ("member(1, {1, 2})", "true"),
            ("member(3, {1, 2})", "false"),
            ("member(\"a\", {\"A\", \"b\"})", "true"),
            ("member(1, {1.0})", "true"),
            ("member(1, {\"1\"})", "false"),
            ("member(undefined, {1})", "undefined"),
            ("member(1, undefined)", "undefined"),
            ("member(error, {1})", "error"),
            ("member(1, error)", "error"),
            ("member({1}, {1})", "error"),
            ("member([a = 1], {1})", "error"),
            ("member(1, 1)", "error"),
            ("member(1, {undefined, 1})", "true"),
            ("member(1, {undefined})", "false"),
            ("member(1, {error, 1})", "true"),
            ("member(true, {1})", "true"),
            ("member(1)", "error"),
            ("identicalMember(1, {1, 2})", "true"),
            ("identicalMember(1, {1.0})", "false"),
            ("identicalMember(\"a\", {\"A\"})", "false"),
            ("identicalMember(undefined, {undefined})", "true"),
            ("identicalMember(undefined, {1})", "false"),
            ("identicalMember(error, {error})", "true"),
            ("identicalMember(1, undefined)", "undefined"),
            ("identicalMember({1}, {{1}})", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn quantified_comparisons() {
        for (expr, want) in [
            ("anyCompare(\"<\", {1, 2, 3}, 2)", "true"),
            ("anyCompare(\"<\", {3, 4}, 2)", "false"),
            ("allCompare(\"<\", {1, 2, 3}, 4)", "true"),
            ("allCompare(\"<\", {1, 2, 3}, 2)", "false"),
            ("anyCompare(\"==\", {\"a\", \"b\"}, \"B\")", "true"),
            ("anyCompare(\"is\", {\"a\", \"b\"}, \"B\")", "false"),
            ("anyCompare(\"isnt\", {\"a\", \"b\"}, \"b\")", "true"),
            ("anyCompare(\"!=\", {1, 1}, 1)", "false"),
            ("anyCompare(\"=?=\", {1}, 1)", "error"),
            ("anyCompare(\"IS\", {1}, 1)", "error"),
            ("anyCompare(\"<\", {}, 2)", "false"),
            ("allCompare(\"<\", {}, 2)", "true"),
            ("anyCompare(\"<\", {undefined, 1}, 2)", "false"),
            ("allCompare(\"<\", {1, undefined}, 2)", "false"),
            ("anyCompare(\"<\", {\"a\"}, 2)", "error"),
            ("anyCompare(\"<\", {1, \"a\"}, 2)", "true"),
            ("anyCompare(\"<\", {3, \"a\"}, 2)", "error"),
            ("anyCompare(undefined, {1}, 2)", "undefined"),
            ("anyCompare(\"<\", undefined, 2)", "undefined"),
            ("allCompare(\"<\", {1}, undefined)", "false"),
            ("anyCompare(\"<\", {1}, error)", "error"),
            ("anyCompare(1, {1}, 2)", "error"),
            ("anyCompare(\"<\", 1, 2)", "error"),
            ("anyCompare(\"<\", {1})", "error"),
            ("anyCompare(error, {1}, 2)", "error"),
        ] {
            check(expr, want);
        }
    }
}
