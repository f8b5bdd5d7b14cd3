//! Taking times apart: the `get…` field extractors and `splitTime` (fnCall.cpp `getField`,
//! `splitTime`, `absTimeToClassAd`, `relTimeToClassAd`).
//!
//! HTCondor's extractors read an absolute time in the *local* zone (not the zone the value
//! carries), while `splitTime` uses the value's own offset. Relative times are read as a C
//! `time_t` (truncated) by the extractors and as a C `int` plus the fraction by `splitTime`.

use super::args::{arity, eval_args};
use super::convert::real_to_int;
use super::time::local_tm;
use super::Builtin;
use crate::ast::Expr;
use crate::calendar::{c_double_to_int, gmtime};
use crate::classad::ClassAd;
use crate::eval::Evaluator;
use crate::value::{AbsTime, Scope, Val, Value};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[
    ("getYear", get_year),
    ("getMonth", get_month),
    ("getDayOfYear", get_day_of_year),
    ("getDayOfMonth", get_day_of_month),
    ("getDayOfWeek", get_day_of_week),
    ("getDays", get_days),
    ("getHours", get_hours),
    ("getMinutes", get_minutes),
    ("getSeconds", get_seconds),
    ("splitTime", split_time),
];

/// The field a `get…` function extracts.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Field {
    Year,
    Month,
    DayOfYear,
    DayOfMonth,
    DayOfWeek,
    Days,
    Hours,
    Minutes,
    Seconds,
}

/// HTCondor's `getField`: one argument, an absolute time (read in the local zone) or a relative
/// time; anything else, `undefined` included, is `error`.
fn get_field<'a>(
    ev: &mut Evaluator<'a>,
    scope: &'a Scope<'a>,
    args: &'a [Expr],
    field: Field,
) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let [v] = eval_args(ev, scope, args);
    match v {
        Val::AbsTime(t) => {
            let tm = local_tm(ev, t.secs);
            Val::Int(match field {
                Field::Year => tm.year,
                Field::Month => tm.month,
                Field::DayOfYear => tm.yday,
                Field::DayOfMonth => tm.day,
                Field::DayOfWeek => tm.wday,
                Field::Hours => tm.hour,
                Field::Minutes => tm.min,
                Field::Seconds => tm.sec,
                Field::Days => return Val::Error,
            })
        }
        Val::RelTime(r) => {
            // Read as a C `time_t`; C's `/` and `%` truncate toward zero, as Rust's do.
            let secs = real_to_int(r);
            Val::Int(match field {
                Field::Days => secs / 86_400,
                Field::Hours => secs % 86_400 / 3600,
                Field::Minutes => secs % 3600 / 60,
                Field::Seconds => secs % 60,
                _ => return Val::Error,
            })
        }
        _ => Val::Error,
    }
}

macro_rules! field_fns {
    ($($name:ident => $field:ident),* $(,)?) => {$(
        #[doc = concat!("`", stringify!($name), "(t)`.")]
        fn $name<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
            get_field(ev, scope, args, Field::$field)
        }
    )*};
}

field_fns! {
    get_year => Year,
    get_month => Month,
    get_day_of_year => DayOfYear,
    get_day_of_month => DayOfMonth,
    get_day_of_week => DayOfWeek,
    get_days => Days,
    get_hours => Hours,
    get_minutes => Minutes,
    get_seconds => Seconds,
}

/// `splitTime(t)`: the parts of a time as an ad.
fn split_time<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 1) {
        return Val::Error;
    }
    let [v] = eval_args(ev, scope, args);
    match v {
        Val::Undefined => Val::Undefined,
        Val::Ad(_) => Val::Error,
        _ => match split(ev, v) {
            Some(ad) => Val::Ad(ev.scope(ev.alloc_ad(ad), None)),
            None => Val::Error,
        },
    }
}

/// HTCondor's `doSplitTime` for everything but ads: a number is an absolute time in the local
/// zone (a real read as a C `int`).
pub(super) fn split(ev: &Evaluator<'_>, v: Val<'_>) -> Option<ClassAd> {
    let local = |secs: i64| AbsTime {
        secs,
        offset: ev.tz_offset(secs),
    };
    match v {
        Val::Int(i) => Some(abs_time_ad(local(i))),
        Val::Real(r) => Some(abs_time_ad(local(i64::from(c_double_to_int(r))))),
        Val::AbsTime(t) => Some(abs_time_ad(t)),
        Val::RelTime(r) => Some(rel_time_ad(r)),
        _ => None,
    }
}

/// Binds `name` to the literal `v` in `ad`.
fn put(ad: &mut ClassAd, name: &str, v: Value) {
    ad.set(name, Expr::Lit(v));
}

/// HTCondor's `absTimeToClassAd`: the fields in the time's own zone.
fn abs_time_ad(t: AbsTime) -> ClassAd {
    let tm = gmtime(t.secs.wrapping_add(i64::from(t.offset)));
    let mut ad = ClassAd::new();
    put(&mut ad, "Type", Value::str("AbsoluteTime"));
    put(&mut ad, "Year", Value::Int(tm.year));
    put(&mut ad, "Month", Value::Int(tm.month));
    put(&mut ad, "Day", Value::Int(tm.day));
    put(&mut ad, "Hours", Value::Int(tm.hour));
    put(&mut ad, "Minutes", Value::Int(tm.min));
    put(&mut ad, "Seconds", Value::Int(tm.sec));
    put(&mut ad, "Offset", Value::Int(i64::from(t.offset)));
    ad
}

/// HTCondor's `relTimeToClassAd`: whole units in C `int` arithmetic, the sign on the largest
/// non-zero unit, the fraction kept on the (real) seconds.
fn rel_time_ad(r: f64) -> ClassAd {
    let negative = r < 0.0;
    let r = r.abs();
    let whole = c_double_to_int(r);
    let (days, rem) = (whole / 86_400, whole % 86_400);
    let (mut days, mut hours, mut mins) = (days, rem / 3600, rem % 3600 / 60);
    let mut secs = f64::from(rem % 3600 % 60) + (r - r.floor());
    if negative {
        if days > 0 {
            days = -days;
        } else if hours > 0 {
            hours = -hours;
        } else if mins > 0 {
            mins = -mins;
        } else {
            secs = -secs;
        }
    }
    let mut ad = ClassAd::new();
    put(&mut ad, "Type", Value::str("RelativeTime"));
    put(&mut ad, "Days", Value::Int(days.into()));
    put(&mut ad, "Hours", Value::Int(hours.into()));
    put(&mut ad, "Minutes", Value::Int(mins.into()));
    put(&mut ad, "Seconds", Value::Real(secs));
    ad
}

#[cfg(test)]
mod tests {
    use super::super::testutil::check;

    // Expected values are HTCondor 25's (classad2), at the fixed clock, UTC.

    #[test]
    fn fields_of_times() {
        for (expr, want) in [
            ("GetYear(absTime(\"2024-12-31T23:30:00+05:00\"))", "2024"),
            // Absolute times are read in the local zone, not their own.
            ("GetHours(absTime(\"2024-12-31T23:30:00+05:00\"))", "18"),
            ("GetHours(absTime(\"2024-12-31T23:30:00-05:00\"))", "4"),
            ("GetDayOfYear(absTime(\"2024-01-01T00:00:00\"))", "0"),
            ("GetDayOfYear(absTime(\"2024-12-31T00:00:00\"))", "365"),
            ("GetMonth(absTime(\"2024-01-01T00:00:00\"))", "1"),
            ("GetDayOfMonth(absTime(\"2024-02-29T00:00:00\"))", "29"),
            ("GetDayOfWeek(absTime(\"2024-01-01T00:00:00\"))", "1"),
            ("GetMinutes(absTime(\"2024-01-01T01:02:03\"))", "2"),
            ("GetSeconds(absTime(\"2024-01-01T01:02:03\"))", "3"),
            ("GetDays(relTime(100000))", "1"),
            ("GetHours(relTime(100000))", "3"),
            ("GetMinutes(relTime(100000))", "46"),
            ("GetSeconds(relTime(100000.5))", "40"),
            ("GetDays(relTime(-100000))", "-1"),
            ("GetHours(relTime(-100000))", "-3"),
            ("GetSeconds(relTime(-100000))", "-40"),
            ("GetYear(relTime(5))", "error"),
            ("GetDays(absTime(0))", "error"),
            ("GetYear(0)", "error"),
            ("GetYear(undefined)", "error"),
            ("GetYear(error)", "error"),
            ("GetYear()", "error"),
            ("GetYear(absTime(0), 1)", "error"),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn split_times() {
        for (expr, want) in [
            (
                "splitTime(5)",
                r#"[ Type = "AbsoluteTime"; Year = 1970; Month = 1; Day = 1; Hours = 0; Minutes = 0; Seconds = 5; Offset = 0 ]"#,
            ),
            (
                "splitTime(absTime(\"2024-06-30T23:59:59+05:30\"))",
                r#"[ Type = "AbsoluteTime"; Year = 2024; Month = 6; Day = 30; Hours = 23; Minutes = 59; Seconds = 59; Offset = 19800 ]"#,
            ),
            (
                "splitTime(1e20)",
                r#"[ Type = "AbsoluteTime"; Year = 1901; Month = 12; Day = 13; Hours = 20; Minutes = 45; Seconds = 52; Offset = 0 ]"#,
            ),
            (
                "splitTime(2147483648)",
                r#"[ Type = "AbsoluteTime"; Year = 2038; Month = 1; Day = 19; Hours = 3; Minutes = 14; Seconds = 8; Offset = 0 ]"#,
            ),
            (
                "splitTime(relTime(-3.5))",
                r#"[ Type = "RelativeTime"; Days = 0; Hours = 0; Minutes = 0; Seconds = -3.500000000000000E+00 ]"#,
            ),
            (
                "splitTime(relTime(1e20))",
                r#"[ Type = "RelativeTime"; Days = -24855; Hours = -3; Minutes = -14; Seconds = -8.000000000000000E+00 ]"#,
            ),
            (
                "splitTime(relTime(-86400.25))",
                r#"[ Type = "RelativeTime"; Days = -1; Hours = 0; Minutes = 0; Seconds = 2.500000000000000E-01 ]"#,
            ),
            (
                "splitTime(relTime(-3600))",
                r#"[ Type = "RelativeTime"; Days = 0; Hours = -1; Minutes = 0; Seconds = 0.0 ]"#,
            ),
            (
                "splitTime(relTime(-60.5))",
                r#"[ Type = "RelativeTime"; Days = 0; Hours = 0; Minutes = -1; Seconds = 5.000000000000000E-01 ]"#,
            ),
            ("splitTime(\"x\")", "error"),
            ("splitTime(undefined)", "undefined"),
            ("splitTime([a = 1])", "error"),
            ("splitTime(true)", "error"),
            ("splitTime()", "error"),
            ("splitTime(1, 2)", "error"),
            ("splitTime(relTime(90061)).Hours", "1"),
        ] {
            check(expr, want);
        }
    }
}
