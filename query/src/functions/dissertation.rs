//! The functions of the dissertation's Appendix A that HTCondor's library lacks: `isMember`,
//! `makeDate`, `makeAbsTime`, `makeRelTime`, `inDays`, `inHours`, `inMinutes`, `inSeconds`.
//! (Its other names — `currentTime`, `getMonth`, `isClassad`, … — are HTCondor functions and
//! take HTCondor's meaning; see docs/language.md for where the two differ.)
//!
//! As the dissertation says of most functions, these are strict: an `error` argument makes the
//! result `error`, else an `undefined` one makes it `undefined`. `isMember` is the exception
//! (not strict on its first argument): it is HTCondor's `identicalMember`.

use super::args::{arity, error_or_undefined, eval_all};
use super::convert::real_to_int;
use super::lists::identical_member;
use super::Builtin;
use crate::ast::Expr;
use crate::calendar::{days_from_civil, timegm};
use crate::eval::Evaluator;
use crate::value::{AbsTime, Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("isMember", identical_member),
    ("makeDate", make_date),
    ("makeAbsTime", make_abs_time),
    ("makeRelTime", make_rel_time),
    ("inDays", in_days),
    ("inHours", in_hours),
    ("inMinutes", in_minutes),
    ("inSeconds", in_seconds),
];

/// Evaluates exactly `n` arguments, applying the dissertation's strictness; `Err` carries the
/// result when the arity is wrong or an argument is `error` / `undefined`.
fn strict_args<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    n: usize,
) -> Result<Vec<Val<'a>>, Val<'a>> {
    if !arity(args, n, n) {
        return Err(Val::Error);
    }
    let vals = eval_all(ev, scope, args);
    match error_or_undefined(&vals) {
        Some(v) => Err(v),
        None => Ok(vals),
    }
}

const MONTHS: [&str; 12] = [
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
];

/// A month given as 1–12 or by name (full or its first three letters, any case).
fn month_of(v: Val<'_>) -> Option<i64> {
    match v {
        Val::Int(m) if (1..=12).contains(&m) => Some(m),
        Val::Str(s) => {
            let s = s.to_ascii_lowercase();
            MONTHS
                .iter()
                .position(|m| s == *m || (s.len() == 3 && m.starts_with(s.as_str())))
                .map(|i| i as i64 + 1)
        }
        _ => None,
    }
}

/// Days in `month` of `year` (proleptic Gregorian).
fn days_in_month(year: i64, month: i64) -> i64 {
    days_from_civil(year, month + 1, 1) - days_from_civil(year, month, 1)
}

/// `makeDate(M, D, Y)`: local midnight at the start of day `D` of month `M` (1–12 or a name
/// such as `"jan"`) of year `Y`, as an absolute time. An impossible date is `error`.
fn make_date<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    let vals = match strict_args(ev, scope, args, 3) {
        Ok(v) => v,
        Err(v) => return v,
    };
    let (Some(month), Val::Int(day), Val::Int(year)) = (month_of(vals[0]), vals[1], vals[2]) else {
        return Val::Error;
    };
    if !(1..=9999).contains(&year) || !(1..=days_in_month(year, month)).contains(&day) {
        return Val::Error;
    }
    let wall = timegm(year, month, day, 0, 0, 0);
    // The local offset in force at that local midnight.
    let offset = ev.tz_offset(wall - i64::from(ev.tz_offset(wall)));
    Val::AbsTime(AbsTime {
        secs: wall - i64::from(offset),
        offset,
    })
}

/// `makeAbsTime(N)`: `N` seconds after the epoch (a real truncated), in the local zone.
fn make_abs_time<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    let vals = match strict_args(ev, scope, args, 1) {
        Ok(v) => v,
        Err(v) => return v,
    };
    let secs = match vals[0] {
        Val::Int(i) => i,
        Val::Real(r) => real_to_int(r),
        _ => return Val::Error,
    };
    Val::AbsTime(AbsTime {
        secs,
        offset: ev.tz_offset(secs),
    })
}

/// `makeRelTime(N)`: an interval of `N` seconds.
fn make_rel_time<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    let vals = match strict_args(ev, scope, args, 1) {
        Ok(v) => v,
        Err(v) => return v,
    };
    match vals[0] {
        Val::Int(i) => Val::RelTime(i as f64),
        Val::Real(r) => Val::RelTime(r),
        _ => Val::Error,
    }
}

/// A time value in the given unit, as a real: an interval's length, or an absolute time's
/// distance from the epoch.
fn in_units<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    unit: f64,
) -> Val<'a> {
    let vals = match strict_args(ev, scope, args, 1) {
        Ok(v) => v,
        Err(v) => return v,
    };
    match vals[0] {
        Val::AbsTime(t) => Val::Real(t.secs as f64 / unit),
        Val::RelTime(r) => Val::Real(r / unit),
        _ => Val::Error,
    }
}

/// `inDays(T)`.
fn in_days<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    in_units(ev, scope, args, 86_400.0)
}

/// `inHours(T)`.
fn in_hours<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    in_units(ev, scope, args, 3600.0)
}

/// `inMinutes(T)`.
fn in_minutes<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    in_units(ev, scope, args, 60.0)
}

/// `inSeconds(T)`.
fn in_seconds<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    in_units(ev, scope, args, 1.0)
}

#[cfg(test)]
mod tests {
    use super::super::testutil::check;

    // At the fixed clock 2024-01-02T03:04:05Z, UTC. (HTCondor has none of these: all `error`
    // there; the dissertation's Appendix A defines them.)

    #[test]
    fn membership() {
        for (expr, want) in [
            ("isMember(1, {1, 2})", "true"),
            ("isMember(1.0, {1, 2})", "false"),
            ("isMember(undefined, {1, undefined})", "true"),
            ("isMember(\"A\", {\"a\"})", "false"),
            ("IsMember(3, {1, 2})", "false"),
            ("isMember(1, 2)", "error"),
            ("isMember(1)", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn construction() {
        for (expr, want) in [
            (
                "makeDate(1, 2, 2024)",
                r#"absTime("2024-01-02T00:00:00-00:00")"#,
            ),
            (
                "makeDate(\"jan\", 2, 2024)",
                r#"absTime("2024-01-02T00:00:00-00:00")"#,
            ),
            (
                "makeDate(\"February\", 29, 2024)",
                r#"absTime("2024-02-29T00:00:00-00:00")"#,
            ),
            (
                "MakeDate(\"DEC\", 31, 1999)",
                r#"absTime("1999-12-31T00:00:00-00:00")"#,
            ),
            ("makeDate(2, 29, 2023)", "error"),
            ("makeDate(13, 1, 2024)", "error"),
            ("makeDate(\"ja\", 1, 2024)", "error"),
            ("makeDate(1, 0, 2024)", "error"),
            ("makeDate(1, 1)", "error"),
            ("makeDate(undefined, 1, 2024)", "undefined"),
            ("makeDate(undefined, error, 2024)", "error"),
            ("makeDate(1.5, 1, 2024)", "error"),
            ("makeAbsTime(0)", r#"absTime("1970-01-01T00:00:00-00:00")"#),
            (
                "makeAbsTime(1704164645.9)",
                r#"absTime("2024-01-02T03:04:05-00:00")"#,
            ),
            ("makeAbsTime(\"0\")", "error"),
            ("makeAbsTime(undefined)", "undefined"),
            ("makeAbsTime(true)", "error"),
            ("makeRelTime(90061)", r#"relTime("1+01:01:01")"#),
            ("isReltime(makeRelTime(1.5))", "true"),
            ("makeRelTime(error)", "error"),
            ("makeRelTime({1})", "error"),
            ("makeRelTime()", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn conversion() {
        for (expr, want) in [
            ("inDays(makeRelTime(129600))", "1.500000000000000E+00"),
            ("inHours(makeRelTime(5400))", "1.500000000000000E+00"),
            ("inMinutes(makeRelTime(90))", "1.500000000000000E+00"),
            ("inSeconds(makeRelTime(90))", "9.000000000000000E+01"),
            ("inDays(absTime(86400))", "1.000000000000000E+00"),
            ("inHours(5)", "error"),
            ("inMinutes(undefined)", "undefined"),
            ("inSeconds()", "error"),
        ] {
            check(expr, want);
        }
    }
}
