//! Conversions between value types (`int`, `real`, `string`, `bool`) and the conversion rules
//! other functions share (HTCondor's `convertValueToIntegerValue` / `…RealValue` /
//! `…StringValue`).
//!
//! HTCondor parses numbers in strings with C's `strtod` (longest numeric prefix, hex and
//! `inf`/`nan` accepted), and casts reals to integers the way x86 does: NaN and values outside
//! the 64-bit range become `i64::MIN`. Both are reproduced here.

use super::args::{arity, eval_args};
use super::Builtin;
use crate::ast::Expr;
use crate::eval::Evaluator;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("int", int_fn),
    ("real", real_fn),
    ("string", string_fn),
    ("bool", bool_fn),
];

/// C's cast of a double to a 64-bit integer on x86: truncation, and `i64::MIN` for NaN and for
/// values outside the range.
pub(crate) fn real_to_int(f: f64) -> i64 {
    // 2^63 is exactly representable; anything at or above it (or below -2^63) overflows.
    const LIMIT: f64 = 9_223_372_036_854_775_808.0;
    if !(-LIMIT..LIMIT).contains(&f) {
        i64::MIN
    } else {
        f as i64
    }
}

/// Whitespace as C's `isspace` in the "C" locale.
#[inline]
pub(crate) fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `strtod`: skips leading whitespace and converts the longest numeric prefix (decimal,
/// hexadecimal with optional binary exponent, `inf`, `infinity`, `nan`). `None` when no prefix
/// converts.
pub(crate) fn strtod(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() && is_c_space(b[i]) {
        i += 1;
    }
    let neg = match b.get(i) {
        Some(b'-') => {
            i += 1;
            true
        }
        Some(b'+') => {
            i += 1;
            false
        }
        _ => false,
    };
    let rest = &b[i..];
    let starts =
        |word: &[u8]| rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word);
    let magnitude = if starts(b"inf") {
        f64::INFINITY
    } else if starts(b"nan") {
        f64::NAN
    } else if rest.len() > 2
        && rest[0] == b'0'
        && (rest[1] | 0x20) == b'x'
        && (rest[2].is_ascii_hexdigit()
            || (rest[2] == b'.' && rest.get(3).is_some_and(u8::is_ascii_hexdigit)))
    {
        hex_float(&rest[2..])
    } else {
        decimal_prefix(rest)?
    };
    Some(if neg { -magnitude } else { magnitude })
}

/// The value of the decimal number at the start of `b` (digits, optional fraction, optional
/// exponent), or `None` if `b` does not start with one.
fn decimal_prefix(b: &[u8]) -> Option<f64> {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let int_digits = digits(0);
    let mut end = int_digits;
    let mut frac_digits = 0;
    if b.get(end) == Some(&b'.') {
        frac_digits = digits(end + 1);
        end += 1 + frac_digits;
    }
    if int_digits + frac_digits == 0 {
        return None;
    }
    if matches!(b.get(end), Some(b'e' | b'E')) {
        let mut j = end + 1;
        if matches!(b.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        let exp_digits = digits(j);
        if exp_digits > 0 {
            end = j + exp_digits;
        }
    }
    // The prefix is ASCII digits, '.', 'e' and a sign: valid UTF-8 and valid Rust float syntax.
    std::str::from_utf8(&b[..end]).ok()?.parse().ok()
}

/// The value of the hexadecimal float whose digits start `b` (after `0x`): hex digits, optional
/// `.` and fraction digits, optional `p` exponent. Rounded once, to nearest.
fn hex_float(b: &[u8]) -> f64 {
    let mut mantissa: u64 = 0;
    let mut exp: i64 = 0; // binary exponent applied to `mantissa`
    let mut sticky = false;
    let mut i = 0;
    let mut seen_point = false;
    while i < b.len() {
        let c = b[i];
        if c == b'.' && !seen_point {
            seen_point = true;
        } else if let Some(d) = (c as char).to_digit(16) {
            if mantissa >> 60 == 0 {
                mantissa = mantissa << 4 | u64::from(d);
                if seen_point {
                    exp -= 4;
                }
            } else {
                // Out of precision: keep only whether anything non-zero was dropped.
                sticky |= d != 0;
                if !seen_point {
                    exp += 4;
                }
            }
        } else {
            break;
        }
        i += 1;
    }
    if matches!(b.get(i), Some(b'p' | b'P')) {
        let mut j = i + 1;
        let neg = match b.get(j) {
            Some(b'-') => {
                j += 1;
                true
            }
            Some(b'+') => {
                j += 1;
                false
            }
            _ => false,
        };
        let start = j;
        let mut e: i64 = 0;
        while let Some(d) = b.get(j).filter(|c| c.is_ascii_digit()) {
            e = (e * 10 + i64::from(d - b'0')).min(100_000);
            j += 1;
        }
        if j > start {
            exp += if neg { -e } else { e };
        }
    }
    if sticky {
        mantissa |= 1;
    }
    scale_by_power_of_two(mantissa as f64, exp)
}

/// `x * 2^exp` without intermediate overflow for large `|exp|`.
fn scale_by_power_of_two(mut x: f64, mut exp: i64) -> f64 {
    while exp > 1000 {
        x *= 2f64.powi(1000);
        exp -= 1000;
    }
    while exp < -1000 {
        x *= 2f64.powi(-1000);
        exp += 1000;
    }
    x * 2f64.powi(exp as i32)
}

/// HTCondor's conversion to integer: `Int`, or `Undefined` / `Error` when not convertible.
pub(crate) fn to_int<'a>(v: Val<'_>) -> Val<'a> {
    match v {
        Val::Int(i) => Val::Int(i),
        Val::Real(r) => Val::Int(real_to_int(r)),
        Val::Bool(b) => Val::Int(i64::from(b)),
        Val::Str(s) => strtod(s).map_or(Val::Error, |f| Val::Int(real_to_int(f))),
        Val::AbsTime(t) => Val::Int(t.secs),
        Val::RelTime(r) => Val::Int(real_to_int(r)),
        Val::Undefined => Val::Undefined,
        Val::Error | Val::List(_) | Val::Ad(_) => Val::Error,
    }
}

/// HTCondor's conversion to real: `Real`, or `Undefined` / `Error` when not convertible.
/// Relative times convert to whole seconds (HTCondor reads them as `time_t`).
pub(crate) fn to_real<'a>(v: Val<'_>) -> Val<'a> {
    match v {
        Val::Int(i) => Val::Real(i as f64),
        Val::Real(r) => Val::Real(r),
        Val::Bool(b) => Val::Real(f64::from(u8::from(b))),
        Val::Str(s) => strtod(s).map_or(Val::Error, Val::Real),
        Val::AbsTime(t) => Val::Real(t.secs as f64),
        Val::RelTime(r) => Val::Real(r.trunc()),
        Val::Undefined => Val::Undefined,
        Val::Error | Val::List(_) | Val::Ad(_) => Val::Error,
    }
}

/// [`to_real`] as a plain number; `None` when the value does not convert (including undefined).
pub(crate) fn to_real_f64(v: Val<'_>) -> Option<f64> {
    match to_real(v) {
        Val::Real(r) => Some(r),
        _ => None,
    }
}

/// HTCondor's conversion to string (`string()`): a string stays as it is, `undefined` and
/// `error` stay themselves, every other value is unparsed.
pub(crate) fn to_string_val<'a>(ev: &Evaluator<'a>, v: Val<'a>) -> Val<'a> {
    match v {
        Val::Str(_) | Val::Undefined | Val::Error => v,
        _ => Val::Str(ev.alloc_str(&value_text(&v))),
    }
}

/// The text of a non-string value as `string()` produces it.
pub(crate) fn value_text(v: &Val<'_>) -> String {
    crate::print::value_to_string(v)
}

fn one_arg<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Option<Val<'a>> {
    if !arity(args, 1, 1) {
        return None;
    }
    let [v] = eval_args(ev, scope, args);
    Some(v)
}

fn int_fn<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    one_arg(ev, scope, args).map_or(Val::Error, to_int)
}

fn real_fn<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    one_arg(ev, scope, args).map_or(Val::Error, to_real)
}

fn string_fn<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    match one_arg(ev, scope, args) {
        Some(v) => {
            let out = to_string_val(ev, v);
            if let Val::Str(s) = out {
                if !ev.charge(s.len() as u64) {
                    return Val::Error;
                }
            }
            out
        }
        None => Val::Error,
    }
}

/// `bool()`: numbers by non-zero, strings only "true"/"false" (any case; others undefined).
fn bool_fn<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    match one_arg(ev, scope, args) {
        None => Val::Error,
        Some(v) => match v {
            Val::Undefined => Val::Undefined,
            Val::Bool(b) => Val::Bool(b),
            Val::Int(i) => Val::Bool(i != 0),
            Val::Real(r) => Val::Bool(r != 0.0),
            Val::RelTime(r) => Val::Bool(r.trunc() != 0.0),
            Val::Str(s) if s.eq_ignore_ascii_case("true") => Val::Bool(true),
            Val::Str(s) if s.eq_ignore_ascii_case("false") => Val::Bool(false),
            Val::Str(_) => Val::Undefined,
            Val::Error | Val::List(_) | Val::Ad(_) | Val::AbsTime(_) => Val::Error,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strtod_prefixes() {
        let cases: &[(&str, Option<f64>)] = &[
            ("12abc", Some(12.0)),
            ("  12", Some(12.0)),
            ("\t\n7", Some(7.0)),
            ("-12.7e1", Some(-127.0)),
            ("1e", Some(1.0)),
            ("1e+", Some(1.0)),
            ("1.", Some(1.0)),
            (".5", Some(0.5)),
            ("+5", Some(5.0)),
            ("0x10", Some(16.0)),
            ("0x", Some(0.0)),
            ("0x1p3", Some(8.0)),
            ("0x.8", Some(0.5)),
            ("0X1.8P1", Some(3.0)),
            ("1e400", Some(f64::INFINITY)),
            ("1e-400", Some(0.0)),
            ("INF", Some(f64::INFINITY)),
            ("-infinity", Some(f64::NEG_INFINITY)),
            ("abc", None),
            ("", None),
            (" ", None),
            (".", None),
            ("-", None),
            ("e5", None),
        ];
        for (s, want) in cases {
            assert_eq!(strtod(s), *want, "strtod({s:?})");
        }
        assert!(strtod("nan").is_some_and(f64::is_nan));
        assert!(strtod("-NaN(123)").is_some_and(f64::is_nan));
    }

    #[test]
    fn real_to_int_is_x86_cast() {
        let cases: &[(f64, i64)] = &[
            (3.7, 3),
            (-3.7, -3),
            (9.2e18, 9_200_000_000_000_000_000),
            (9_223_372_036_854_775_807.0, i64::MIN),
            (-9_223_372_036_854_775_808.0, i64::MIN),
            (1e30, i64::MIN),
            (-1e30, i64::MIN),
            (f64::NAN, i64::MIN),
            (f64::INFINITY, i64::MIN),
        ];
        for (f, want) in cases {
            assert_eq!(real_to_int(*f), *want, "{f}");
        }
    }

    #[test]
    fn conversions_of_values() {
        let t = crate::value::AbsTime {
            secs: 100,
            offset: 0,
        };
        let cases: &[(Val, &str, &str)] = &[
            (Val::Str("12abc"), "Int(12)", "Real(12.0)"),
            (Val::Str("abc"), "Error", "Error"),
            (
                Val::Str("9007199254740993"),
                "Int(9007199254740992)",
                "Real(9007199254740992.0)",
            ),
            (Val::Bool(true), "Int(1)", "Real(1.0)"),
            (Val::Undefined, "Undefined", "Undefined"),
            (Val::Error, "Error", "Error"),
            (Val::AbsTime(t), "Int(100)", "Real(100.0)"),
            (Val::RelTime(100.7), "Int(100)", "Real(100.0)"),
            (Val::RelTime(-1.5), "Int(-1)", "Real(-1.0)"),
            (Val::List(&[]), "Error", "Error"),
        ];
        for (v, i, r) in cases {
            assert_eq!(format!("{:?}", to_int(*v)), *i, "int({v:?})");
            assert_eq!(format!("{:?}", to_real(*v)), *r, "real({v:?})");
        }
    }
}
