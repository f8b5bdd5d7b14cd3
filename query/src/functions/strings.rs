//! String functions: `strcat`, `join`, `toUpper`, `toLower`, `substr`, `strcmp`, `stricmp`.
//!
//! Non-string arguments are converted as `string()` does. Strings are byte strings in HTCondor:
//! lengths and offsets count bytes, case mapping is ASCII-only. A `substr` that cuts a
//! multi-byte character yields U+FFFD for the partial bytes (our strings are UTF-8).

use super::args::{arity, eval_all, eval_args, int_arg, str_arg, undefined_or_error};
use super::convert::to_string_val;
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};
use std::cmp::Ordering;

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("strcat", strcat),
    ("join", join),
    ("toUpper", to_upper),
    ("toLower", to_lower),
    ("substr", substr),
    ("strcmp", strcmp),
    ("stricmp", stricmp),
];

/// Charges the work of building `s` and hands it back as a value (`error` past the budget).
fn finish<'a>(ev: &mut Evaluator<'a>, s: &str) -> Val<'a> {
    if ev.charge(s.len() as u64) {
        Val::Str(ev.alloc_str(s))
    } else {
        Val::Error
    }
}

/// `strcat(…)`: the concatenation of every argument as a string; the first `undefined` or
/// `error` argument is the result.
fn strcat<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    let mut out = String::new();
    for arg in args {
        let v = ev.eval(arg, scope);
        match to_string_val(ev, v) {
            Val::Str(s) => {
                if !ev.charge(s.len() as u64) {
                    return Val::Error;
                }
                out.push_str(s);
            }
            other => return other,
        }
    }
    Val::Str(ev.alloc_str(&out))
}

/// `join(sep, x1, …)`, `join(sep, list)`, `join(list)`: the items as strings separated by
/// `sep`. Undefined items (and an undefined separator) are skipped — but when nothing is left
/// to join, an undefined one makes the result undefined; any error is the result.
fn join<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    let vals = eval_all(ev, scope, args);
    let (sep, items): (Val<'a>, &[Val<'a>]) = match vals.as_slice() {
        [Val::List(items)] => (Val::Str(""), items),
        [sep, Val::List(items)] => (*sep, items),
        [sep, rest @ ..] => (*sep, rest),
        [] => return Val::Str(""),
    };
    let mut undefined = false;
    let sep = match to_string_val(ev, sep) {
        Val::Str(s) => s,
        Val::Undefined => {
            undefined = true;
            ""
        }
        _ => return Val::Error,
    };
    let mut out = String::new();
    let mut first = true;
    for &item in items {
        let s = match to_string_val(ev, item) {
            Val::Str(s) => s,
            Val::Undefined => {
                undefined = true;
                continue;
            }
            _ => return Val::Error,
        };
        if !ev.charge((s.len() + sep.len()) as u64) {
            return Val::Error;
        }
        if !first {
            out.push_str(sep);
        }
        first = false;
        out.push_str(s);
    }
    if first && undefined {
        // Nothing joined, and something was undefined.
        return Val::Undefined;
    }
    Val::Str(ev.alloc_str(&out))
}

/// Converts the single argument to a string and maps its ASCII letters with `f`.
fn change_case<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    f: fn(&str) -> String,
) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let [v] = eval_args(ev, scope, args);
    match to_string_val(ev, v) {
        Val::Str(s) => finish(ev, &f(s)),
        other => other,
    }
}

fn to_upper<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    change_case(ev, scope, args, str::to_ascii_uppercase)
}

fn to_lower<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    change_case(ev, scope, args, str::to_ascii_lowercase)
}

/// The byte range `substr` selects from a string of `len` bytes: Perl-like, negative offsets
/// and lengths count from the end, everything clamped into the string. Offsets and lengths are
/// C `int`s in HTCondor, so they are taken modulo 2^32 first.
fn substr_range(len: usize, offset: i64, length: Option<i64>) -> (usize, usize) {
    let alen = len as i64;
    let mut off = i64::from(offset as i32);
    if off < 0 {
        off = (alen + off).max(0);
    } else if off > alen {
        off = alen;
    }
    let n = match length.map(|l| i64::from(l as i32)) {
        Some(0) => 0,
        Some(l) if l > 0 => l.min(alen - off),
        Some(l) => (alen - off + l).max(0),
        None => alen - off,
    };
    (off as usize, (off + n) as usize)
}

/// `substr(s, offset [, length])`.
fn substr<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 2, 3) {
        return Val::Error;
    }
    let vals = eval_all(ev, scope, args);
    if let Some(Val::Undefined) = undefined_or_error(&vals) {
        return Val::Undefined;
    }
    let (Some(s), Some(offset)) = (str_arg(vals[0]), int_arg(vals[1])) else {
        return Val::Error;
    };
    let length = match vals.get(2) {
        None => None,
        Some(&v) => match int_arg(v) {
            Some(l) => Some(l),
            None => return Val::Error,
        },
    };
    let (from, to) = substr_range(s.len(), offset, length);
    match s.get(from..to) {
        Some(sub) => Val::Str(sub),
        None => finish(ev, &String::from_utf8_lossy(&s.as_bytes()[from..to])),
    }
}

/// Orders two strings as C's `strcasecmp`: bytes compared after ASCII lower-casing.
fn cmp_ignore_ascii_case(a: &str, b: &str) -> Ordering {
    let lower = |s: &str| {
        s.bytes()
            .map(|c| c.to_ascii_lowercase())
            .collect::<Vec<_>>()
    };
    lower(a).cmp(&lower(b))
}

/// `strcmp`/`stricmp`: -1, 0 or 1; both arguments converted to strings; undefined wins.
fn compare<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    cmp: fn(&str, &str) -> Ordering,
) -> Val<'a> {
    if !arity(args, 2, 2) {
        return Val::Error;
    }
    let [a, b] = eval_args(ev, scope, args);
    if a.is_undefined() || b.is_undefined() {
        return Val::Undefined;
    }
    match (to_string_val(ev, a), to_string_val(ev, b)) {
        (Val::Str(a), Val::Str(b)) => {
            if !ev.charge((a.len().min(b.len())) as u64) {
                return Val::Error;
            }
            Val::Int(cmp(a, b) as i64)
        }
        _ => Val::Error,
    }
}

fn strcmp<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    compare(ev, scope, args, |a, b| a.as_bytes().cmp(b.as_bytes()))
}

fn stricmp<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    compare(ev, scope, args, cmp_ignore_ascii_case)
}

#[cfg(test)]
mod tests {
    use crate::functions::testutil::check;

    #[test]
    fn concatenation() {
        for (expr, want) in [
            ("strcat(\"a\", 1, 2.5)", "\"a12.500000000000000E+00\""),
            ("strcat()", "\"\""),
            ("strcat(\"a\", undefined)", "undefined"),
            ("strcat(\"a\", error)", "error"),
            ("strcat(undefined, error)", "undefined"),
            ("strcat(error, undefined)", "error"),
            ("strcat(\"a\", {1, 2})", "\"a{ 1,2 }\""),
            ("strcat(\"a\", [x = 1])", "\"a[ x = 1 ]\""),
            ("strcat(true, false)", "\"truefalse\""),
            ("strcat(absTime(0))", "\"1970-01-01T00:00:00-00:00\""),
            ("strcat(\"a\", x)", "undefined"),
            ("join()", "\"\""),
            ("join(\",\")", "\"\""),
            ("join(\",\", \"a\")", "\"a\""),
            ("join(\",\", \"a\", \"b\", 3)", "\"a,b,3\""),
            ("join(\",\", undefined, \"b\")", "\"b\""),
            ("join(\",\", \"a\", undefined, \"b\")", "\"a,b\""),
            ("join(undefined, \"a\", \"b\")", "\"ab\""),
            ("join({\"a\", \"b\"})", "\"ab\""),
            ("join(\",\", {\"a\", \"b\"})", "\"a,b\""),
            ("join(\",\", {\"a\", undefined, \"b\"})", "\"a,b\""),
            ("join(1, 2, 3)", "\"213\""),
            ("join(\",\", error)", "error"),
            ("join(error, \"a\")", "error"),
            ("join({})", "\"\""),
            ("join(undefined)", "undefined"),
            ("join(\",\", undefined)", "undefined"),
            ("join(\",\", {undefined, undefined})", "undefined"),
            ("join(undefined, {})", "undefined"),
            ("join(undefined, {\"a\"})", "\"a\""),
            ("join(\"x\", {})", "\"\""),
            ("join({\"a\"}, \"b\")", "\"b\""),
            ("join(\",\", \"a\", {\"b\"})", "\"a,{ \\\"b\\\" }\""),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn case_mapping() {
        for (expr, want) in [
            ("toUpper(\"abc\")", "\"ABC\""),
            ("toLower(\"ABC\")", "\"abc\""),
            ("toUpper(1)", "\"1\""),
            ("toUpper(1.5)", "\"1.500000000000000E+00\""),
            ("toUpper(undefined)", "undefined"),
            ("toUpper(error)", "error"),
            ("toUpper({\"a\"})", "\"{ \\\"A\\\" }\""),
            ("toUpper()", "error"),
            ("toLower(true)", "\"true\""),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn substrings() {
        for (expr, want) in [
            ("substr(\"abcdef\", 2)", "\"cdef\""),
            ("substr(\"abcdef\", 2, 2)", "\"cd\""),
            ("substr(\"abcdef\", -2)", "\"ef\""),
            ("substr(\"abcdef\", -2, 1)", "\"e\""),
            ("substr(\"abcdef\", 2, -1)", "\"cde\""),
            ("substr(\"abcdef\", 2, -10)", "\"\""),
            ("substr(\"abcdef\", 10)", "\"\""),
            ("substr(\"abcdef\", -10)", "\"abcdef\""),
            ("substr(\"abcdef\", -8, 3)", "\"abc\""),
            ("substr(\"abcdef\", -8, -5)", "\"a\""),
            ("substr(\"abcdef\", 3, -3)", "\"\""),
            ("substr(\"abcdef\", 2, 0)", "\"\""),
            ("substr(\"abcdef\", 0, 100)", "\"abcdef\""),
            ("substr(\"abcdef\", 9223372036854775807)", "\"f\""),
            ("substr(\"abcdef\", 4294967297)", "\"bcdef\""),
            ("substr(\"abcdef\", 1, 4294967296)", "\"\""),
            ("substr(\"abcdef\", 1.5)", "error"),
            ("substr(\"abcdef\", true)", "error"),
            ("substr(123, 1)", "error"),
            ("substr(undefined, 1)", "undefined"),
            ("substr(\"abc\", 1, undefined)", "undefined"),
            ("substr(\"abc\", error)", "error"),
            ("substr(error, undefined)", "undefined"),
            ("substr(\"abc\")", "error"),
            ("substr(\"abc\", 1, 2, 3)", "error"),
            ("substr(\"\", -1, 1)", "\"\""),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn comparisons() {
        for (expr, want) in [
            ("strcmp(\"a\", \"b\")", "-1"),
            ("strcmp(\"b\", \"a\")", "1"),
            ("strcmp(\"a\", \"a\")", "0"),
            ("strcmp(\"a\", \"A\")", "1"),
            ("strcmp(1, \"1\")", "0"),
            ("strcmp(2, 10)", "1"),
            ("strcmp(undefined, \"a\")", "undefined"),
            ("strcmp(\"a\", error)", "error"),
            ("strcmp(error, undefined)", "undefined"),
            ("strcmp(\"a\")", "error"),
            ("stricmp(\"a\", \"A\")", "0"),
            ("stricmp(\"a\", \"B\")", "-1"),
            ("stricmp(\"[\", \"a\")", "-1"),
            ("stricmp(\"_\", \"A\")", "-1"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn substr_ranges() {
        use super::substr_range;
        for (len, off, n, want) in [
            (6, 2, None, (2, 6)),
            (6, -2, Some(1), (4, 5)),
            (6, -10, None, (0, 6)),
            (6, 10, Some(2), (6, 6)),
            (6, 3, Some(-4), (3, 3)),
            (0, -1, Some(1), (0, 0)),
        ] {
            assert_eq!(substr_range(len, off, n), want, "{len} {off} {n:?}");
        }
    }
}
