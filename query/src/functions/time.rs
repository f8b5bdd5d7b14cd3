//! The clock and time conversions: `time`, `currentTime`, `timeZoneOffset`, `dayTime`,
//! `absTime`, `relTime` and `interval`, with HTCondor's semantics (fnCall.cpp `epochTime`,
//! `currentTime`, `timeZoneOffset`, `dayTime`, `convTime`, `interval`).
//!
//! "Local" always means the evaluation's time zone, [`Evaluator::tz_offset`]. Where HTCondor
//! reads a number through a C `int` or `time_t`, the same truncation happens here (so
//! `absTime(2^63-1)` is the second before the epoch, as in HTCondor).

use super::args::{arity, eval_args};
use super::convert::{real_to_int, to_int};
use super::Builtin;
use crate::ast::Expr;
use crate::calendar::{c_double_to_int, gmtime, Tm};
use crate::eval::Evaluator;
use crate::value::{AbsTime, Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("time", time_fn),
    ("currentTime", current_time),
    ("timeZoneOffset", time_zone_offset),
    ("dayTime", day_time),
    ("absTime", abs_time),
    ("relTime", rel_time),
    ("interval", interval),
];

/// The current time as an absolute time in the local zone.
pub(super) fn now_abs(ev: &Evaluator<'_>) -> AbsTime {
    let secs = ev.now();
    AbsTime {
        secs,
        offset: ev.tz_offset(secs),
    }
}

/// The local broken-down time of `secs` (C's `localtime`).
pub(super) fn local_tm(ev: &Evaluator<'_>, secs: i64) -> Tm {
    gmtime(secs.wrapping_add(i64::from(ev.tz_offset(secs))))
}

/// `time()`: seconds since the epoch, an integer.
fn time_fn<'a>(ev: &mut Evaluator<'a>, _: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    Val::Int(ev.now())
}

/// `currentTime()`: now, as an absolute time in the local zone.
fn current_time<'a>(ev: &mut Evaluator<'a>, _: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    Val::AbsTime(now_abs(ev))
}

/// `timeZoneOffset()`: the local zone's offset now, as a relative time.
fn time_zone_offset<'a>(ev: &mut Evaluator<'a>, _: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    Val::RelTime(f64::from(ev.tz_offset(ev.now())))
}

/// `dayTime()`: the time since local midnight, as a relative time.
fn day_time<'a>(ev: &mut Evaluator<'a>, _: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !args.is_empty() {
        return Val::Error;
    }
    let t = local_tm(ev, ev.now());
    Val::RelTime((t.hour * 3600 + t.min * 60 + t.sec) as f64)
}

/// `absTime([t [, offset]])`.
fn abs_time<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if args.is_empty() {
        return Val::AbsTime(now_abs(ev));
    }
    conv_time(ev, scope, args, false)
}

/// `relTime(t)`.
fn rel_time<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    conv_time(ev, scope, args, true)
}

/// HTCondor's `convTime`, shared by `absTime` and `relTime`. (A string argument written as a
/// literal never gets here: the parser turns `absTime("…")` into a literal. A string computed
/// at run time falls through HTCondor's switch: `absTime` returns it unchanged, `relTime` gives
/// zero.)
fn conv_time<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    relative: bool,
) -> Val<'a> {
    if !arity(args, 1, 2) {
        return Val::Error;
    }
    let arg = ev.eval(&args[0], scope);
    let mut offset = None;
    if let Some(second) = args.get(1) {
        let v = ev.eval(second, scope);
        if relative {
            return Val::Error;
        }
        // Read into a C `int`.
        offset = Some(match v {
            Val::Int(i) => i as i32,
            Val::Real(r) => c_double_to_int(r),
            Val::RelTime(r) => real_to_int(r) as i32,
            _ => return Val::Error,
        });
    }
    let abs = |secs: i64| {
        Val::AbsTime(AbsTime {
            secs,
            offset: offset.unwrap_or_else(|| ev.tz_offset(secs)),
        })
    };
    match arg {
        Val::Undefined => Val::Undefined,
        Val::Error | Val::Ad(_) | Val::List(_) | Val::Bool(_) => Val::Error,
        // Read into a C `int` first.
        Val::Int(i) if relative => Val::RelTime(f64::from(i as i32)),
        // HTCondor's integer case takes an offset of -1 for a time zone it could not find: its
        // evaluation fails.
        Val::Int(_) if offset == Some(-1) => Val::Error,
        Val::Int(i) => abs(i64::from(i as i32)),
        Val::Real(r) if relative => Val::RelTime(r),
        Val::Real(r) => abs(i64::from(c_double_to_int(r))),
        Val::Str(_) if relative => Val::RelTime(0.0),
        Val::AbsTime(t) if relative => Val::RelTime(t.secs as f64),
        Val::Str(_) | Val::AbsTime(_) => arg,
        Val::RelTime(_) if relative => arg,
        Val::RelTime(r) => abs(real_to_int(r)),
    }
}

/// `interval(secs)`: `[-]days+hh:mm:ss`, leading zero units left out (`1:07`, `17+01:02:03`).
fn interval<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let [v] = eval_args(ev, scope, args);
    // Converted as int() does, then read into a C `int`.
    let total = match to_int(v) {
        Val::Int(i) => i as i32,
        _ => return Val::Error,
    };
    let days = total / 86_400;
    let rem = total % 86_400;
    let (hours, mins, secs) = (rem / 3600, rem % 3600 / 60, rem % 60);
    let (h, m, s) = (
        hours.wrapping_abs(),
        mins.wrapping_abs(),
        secs.wrapping_abs(),
    );
    let text = if days != 0 {
        format!("{days}+{h:02}:{m:02}:{s:02}")
    } else if hours != 0 {
        format!("{hours}:{m:02}:{s:02}")
    } else if mins != 0 {
        format!("{mins}:{s:02}")
    } else {
        format!("{secs}")
    };
    Val::Str(ev.alloc_str(&text))
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{self, check, check_in};
    use crate::eval::{eval_expr, EvalOptions};
    use crate::{parse, ClassAd};

    // Expected values are HTCondor 25's (classad2), at the fixed clock 2024-01-02T03:04:05Z, UTC.

    #[test]
    fn clock() {
        for (expr, want) in [
            ("time()", "1704164645"),
            ("time(1)", "error"),
            ("currentTime()", r#"absTime("2024-01-02T03:04:05-00:00")"#),
            ("CurrentTime(1)", "error"),
            ("absTime()", r#"absTime("2024-01-02T03:04:05-00:00")"#),
            ("timeZoneOffset()", r#"relTime("00")"#),
            ("timeZoneOffset(0)", "error"),
            ("dayTime()", r#"relTime("03:04:05")"#),
            ("DayTime(1)", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn abs_time_conversions() {
        for (expr, want) in [
            ("absTime(0)", r#"absTime("1970-01-01T00:00:00-00:00")"#),
            (
                "absTime(0, 3600)",
                r#"absTime("1970-01-01T01:00:00+01:00")"#,
            ),
            ("absTime(1.9)", r#"absTime("1970-01-01T00:00:01-00:00")"#),
            (
                "absTime(1.9, 1.9)",
                r#"absTime("1970-01-01T00:00:02+00:00")"#,
            ),
            (
                "absTime(100, relTime(60))",
                r#"absTime("1970-01-01T00:02:40+00:01")"#,
            ),
            ("absTime(100, \"x\")", "error"),
            (
                "absTime(relTime(100))",
                r#"absTime("1970-01-01T00:01:40-00:00")"#,
            ),
            (
                "absTime(absTime(100, 60))",
                r#"absTime("1970-01-01T00:02:40+00:01")"#,
            ),
            ("absTime(undefined)", "undefined"),
            ("absTime(undefined, 5)", "undefined"),
            ("absTime(5, undefined)", "error"),
            ("absTime(true)", "error"),
            ("absTime({1})", "error"),
            ("absTime(-5)", r#"absTime("1969-12-31T23:59:55-00:00")"#),
            ("absTime(1e20)", r#"absTime("1901-12-13T20:45:52-00:00")"#),
            (
                "absTime(9223372036854775807)",
                r#"absTime("1969-12-31T23:59:59-00:00")"#,
            ),
            ("absTime(1, 2, 3)", "error"),
            // An offset of -1 fails HTCondor's evaluation, for an integer time only.
            ("absTime(3, -1)", "error"),
            ("absTime(3, -1.5)", "error"),
            ("absTime(3, relTime(-1))", "error"),
            ("absTime(3, 4294967295)", "error"),
            (
                "absTime(1.5, -1)",
                r#"absTime("1970-01-01T00:00:00-00:00")"#,
            ),
            (
                "absTime(relTime(5), -1)",
                r#"absTime("1970-01-01T00:00:04-00:00")"#,
            ),
            ("absTime(3, -2)", r#"absTime("1970-01-01T00:00:01-00:00")"#),
            ("absTime(strcat(\"2024\", \"\"))", r#""2024""#),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn rel_time_conversions() {
        for (expr, want) in [
            ("relTime(5)", r#"relTime("05")"#),
            ("relTime(-100000)", r#"relTime("-1+03:46:40")"#),
            ("relTime(absTime(100))", r#"relTime("01:40")"#),
            ("relTime(strcat(\"1\", \"0\"))", r#"relTime("00")"#),
            ("relTime(true)", "error"),
            ("relTime(undefined)", "undefined"),
            ("relTime(1, 2)", "error"),
            ("relTime()", "error"),
            ("relTime(9223372036854775807)", r#"relTime("-01")"#),
            ("relTime(1.5) == relTime(1)", "false"),
            ("relTime(relTime(7))", r#"relTime("07")"#),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn intervals() {
        for (expr, want) in [
            ("interval(0)", r#""0""#),
            ("interval(59)", r#""59""#),
            ("interval(60)", r#""1:00""#),
            ("interval(3599)", r#""59:59""#),
            ("interval(3600)", r#""1:00:00""#),
            ("interval(86399)", r#""23:59:59""#),
            ("interval(86400)", r#""1+00:00:00""#),
            ("interval(-1)", r#""-1""#),
            ("interval(-61)", r#""-1:01""#),
            ("interval(-3601)", r#""-1:00:01""#),
            ("interval(-86401)", r#""-1+00:00:01""#),
            ("interval(-90061)", r#""-1+01:01:01""#),
            ("interval(1472523)", r#""17+01:02:03""#),
            ("interval(1.9)", r#""1""#),
            ("interval(\"1e3\")", r#""16:40""#),
            ("interval(\"abc\")", "error"),
            ("interval(true)", r#""1""#),
            ("interval(undefined)", "error"),
            ("interval(relTime(100))", r#""1:40""#),
            ("interval(absTime(100))", r#""1:40""#),
            ("interval(4294967396)", r#""1:40""#),
            ("interval(absTime(1e10))", r#""-24855+03:14:08""#),
            ("interval({1})", "error"),
            ("interval()", "error"),
            ("interval(1, 2)", "error"),
        ] {
            check(expr, want);
        }
    }

    /// The printed value of `expr` in an empty ad, the local zone one hour east of UTC.
    fn in_zone_plus_one(expr: &str) -> String {
        let opts = EvalOptions {
            tz_offset: Some(3600),
            ..testutil::opts()
        };
        let e = parse::expr(expr).unwrap_or_else(|e| panic!("{expr}: {e}"));
        format!("{}", eval_expr(&e, &ClassAd::new(), &opts))
    }

    #[test]
    fn local_zone() {
        for (expr, want) in [
            ("absTime(0)", r#"absTime("1970-01-01T01:00:00+01:00")"#),
            ("currentTime()", r#"absTime("2024-01-02T04:04:05+01:00")"#),
            ("dayTime()", r#"relTime("04:04:05")"#),
            ("timeZoneOffset()", r#"relTime("01:00:00")"#),
        ] {
            assert_eq!(in_zone_plus_one(expr), want, "{expr}");
        }
        check_in(
            "[t = absTime(0)]",
            "t",
            r#"absTime("1970-01-01T00:00:00-00:00")"#,
        );
    }
}
