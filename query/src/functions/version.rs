//! Version comparison: `versioncmp`, `versionLT`/`LE`/`GT`/`GE`/`EQ`, `version_in_range`.
//!
//! The order is HTCondor's "natural" comparison (as `strverscmp(3)`): lexicographic, except
//! that runs of digits compare by value, and more leading zeros sort first. `versioncmp`
//! returns HTCondor's raw difference (e.g. `-48`), not just the sign.

use super::args::{arity, eval_args};
use super::convert::to_string_val;
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("versioncmp", versioncmp),
    ("versionLT", version_lt),
    ("versionLE", version_le),
    ("versionGT", version_gt),
    ("versionGE", version_ge),
    ("versionEQ", version_eq),
    ("version_in_range", version_in_range),
];

/// The natural comparison of `a` and `b`: negative, zero or positive, with HTCondor's exact
/// magnitudes. Bytes past the end of a string read as NUL, as in C, and bytes differ as C's
/// (signed) `char`s do: a byte of 0x80 or more is negative, so `versioncmp("ß", "n")` is
/// -171 (0xC3 as -61, less 110), as HTCondor answers.
pub(crate) fn natural_cmp(a: &str, b: &str) -> i64 {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    let at = |s: &[u8], i: usize| s.get(i).copied().unwrap_or(0);
    let digit = |s: &[u8], i: usize| at(s, i).is_ascii_digit();
    // First mismatch.
    let mut m = 0;
    while m < a.len() && at(a, m) == at(b, m) {
        m += 1;
    }
    if at(a, m) == at(b, m) {
        return 0;
    }
    let signed = |c: u8| i64::from(i8::from_ne_bytes([c]));
    let diff = signed(at(a, m)) - signed(at(b, m));
    // Start of the digit run that leads up to the mismatch (same offset in both).
    let mut start = m;
    while start > 0 && a[start - 1].is_ascii_digit() {
        start -= 1;
    }
    if start == m && (!digit(a, m) || !digit(b, m)) {
        return diff;
    }
    // Leading zeros of each number; a final zero that ends the number is not "leading".
    let zeros_end = |s: &[u8]| {
        let mut z = start;
        while at(s, z) == b'0' {
            z += 1;
        }
        if z > start && !digit(s, z) {
            z -= 1;
        }
        z
    };
    let (za, zb) = (zeros_end(a), zeros_end(b));
    if za != zb {
        // Fewer leading zeros sorts later.
        return zb as i64 - za as i64;
    }
    if za > start {
        return diff;
    }
    let digits_end = |s: &[u8]| {
        let mut e = za;
        while digit(s, e) {
            e += 1;
        }
        e
    };
    let (ea, eb) = (digits_end(a), digits_end(b));
    if ea != eb {
        ea as i64 - eb as i64
    } else {
        diff
    }
}

/// Evaluates exactly `N` arguments and converts them to strings. An undefined argument at
/// index `undefined_from` or later gives `undefined`; any other value that does not convert
/// (including an earlier undefined) gives `error`.
fn strings<'a, const N: usize>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    undefined_from: usize,
) -> Result<[&'a str; N], Val<'a>> {
    if !arity(args, N, N) {
        return Err(Val::Error);
    }
    let vals: [Val<'a>; N] = eval_args(ev, scope, args);
    if vals[undefined_from..].iter().any(Val::is_undefined) {
        return Err(Val::Undefined);
    }
    let mut out = [""; N];
    for (slot, v) in out.iter_mut().zip(vals) {
        match to_string_val(ev, v) {
            Val::Str(s) => *slot = s,
            _ => return Err(Val::Error),
        }
    }
    let work: usize = out.iter().map(|s| s.len()).sum();
    if !ev.charge(work as u64) {
        return Err(Val::Error);
    }
    Ok(out)
}

/// The natural comparison of the two arguments, or the function's result if there is none.
fn compared<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
) -> Result<i64, Val<'a>> {
    let [a, b] = strings::<2>(ev, scope, args, 0)?;
    Ok(natural_cmp(a, b))
}

fn versioncmp<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    compared(ev, scope, args).map_or_else(|e| e, Val::Int)
}

macro_rules! version_tests {
    ($($name:ident => $test:expr),* $(,)?) => {
        $(
            fn $name<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
                let test: fn(i64) -> bool = $test;
                compared(ev, scope, args).map_or_else(|e| e, |r| Val::Bool(test(r)))
            }
        )*
    };
}

version_tests! {
    version_lt => |r| r < 0,
    version_le => |r| r <= 0,
    version_gt => |r| r > 0,
    version_ge => |r| r >= 0,
    version_eq => |r| r == 0,
}

/// `version_in_range(v, min, max)`: `min <= v <= max` naturally. An undefined bound gives
/// undefined; an undefined `v` is an error (it does not convert to a string).
fn version_in_range<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    match strings::<3>(ev, scope, args, 1) {
        Ok([v, lo, hi]) => Val::Bool(natural_cmp(lo, v) <= 0 && natural_cmp(v, hi) <= 0),
        Err(e) => e,
    }
}

#[cfg(test)]
mod tests {
    use super::natural_cmp;
    use crate::functions::testutil::check;

    #[test]
    fn natural_order() {
        for (a, b, want) in [
            ("7.9", "7.10", -1),
            ("7.10", "7.9", 1),
            ("a", "a", 0),
            ("000", "00", -1),
            ("01", "010", -48),
            ("09", "0", -1),
            ("0", "1", -1),
            ("abc", "abd", -1),
            ("1.2.3", "1.2", 46),
            ("1.2", "1.2.3", -46),
            ("", "a", -97),
            ("a", "", 97),
            ("x9", "x10", -1),
            ("x009", "x01", -1),
            ("1.500000000000000E+00", "1.5", 14),
            // Bytes differ as signed chars (HTCondor on x86-64).
            ("\u{df}", "nan", -171),
            ("nan", "\u{df}", 171),
            ("a\u{e9}", "a1", -110),
            ("\u{e9}", "", -61),
            ("9", "\u{e9}", 118),
        ] {
            assert_eq!(natural_cmp(a, b), want, "{a} vs {b}");
        }
    }

    #[test]
    fn version_functions() {
        for (expr, want) in [
            ("versioncmp(\"7.9\", \"7.10\")", "-1"),
            ("versioncmp(1, 2)", "-1"),
            ("versioncmp(1.5, \"1.5\")", "14"),
            ("versioncmp(undefined, \"1\")", "undefined"),
            ("versioncmp(\"1\", error)", "error"),
            ("versioncmp(\"1\")", "error"),
            ("versionGT(\"8.0\", \"7.9\")", "true"),
            ("versionLT(\"8.0\", \"7.9\")", "false"),
            ("versionGE(\"8.0\", \"8.0\")", "true"),
            ("versionLE(\"8.0\", \"8.0\")", "true"),
            ("versionEQ(\"8.0\", \"8.0\")", "true"),
            ("VERSIONgt(\"8.0\", \"7.9\")", "true"),
            ("version_in_range(\"8.1\", \"8.0\", \"8.2\")", "true"),
            ("version_in_range(\"8.3\", \"8.0\", \"8.2\")", "false"),
            ("version_in_range(undefined, \"8.0\", \"8.2\")", "error"),
            ("version_in_range(\"8.1\", undefined, \"8.2\")", "undefined"),
            ("version_in_range(\"8.1\", \"8.0\")", "error"),
            ("version_in_range(8, 7, 9)", "true"),
        ] {
            check(expr, want);
        }
    }
}
