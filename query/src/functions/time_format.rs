//! `formatTime([t [, format]])`: a time formatted as C's `strftime` does (fnCall.cpp
//! `formatTime`; the formatting itself is in [`super::strftime`]).
//!
//! HTCondor splits the time into an ad (as `splitTime` does; an ad argument is used as given),
//! reads `Year`, `Month`, `Day`, `Hours`, `Minutes` and `Seconds` from it as integers (0 when
//! absent or not an integer), computes the weekday and day of the year itself, and hands those
//! fields to `strftime`. So an absolute time is shown in its own zone, and nonsense fields are
//! formatted as they are. With no argument, the current local time is formatted with `%c`.

use super::args::arity;
use super::strftime::{strftime, CTm};
use super::time_fields::split;
use super::Builtin;
use crate::ast::Expr;
use crate::calendar::{day_numbers, gmtime, mktime};
use crate::eval::Evaluator;
use crate::name::Key;
use crate::value::{Scope, Val};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[("formatTime", format_time)];

/// `formatTime([t [, format]])`.
fn format_time<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if args.is_empty() {
        return format_now(ev);
    }
    if !arity(args, 1, 2) {
        return Val::Error;
    }
    let t = ev.eval(&args[0], scope);
    let fields = match t {
        Val::RelTime(_) => return Val::Error,
        // An ad keeps its place (its attributes may refer outwards).
        Val::Ad(s) => s,
        _ => match split(ev, t) {
            Some(ad) => ev.scope(ev.alloc_ad(ad), None),
            None => return Val::Error,
        },
    };
    let mut field = |name: &str| match ev.eval_attr(fields, Key::of(name)) {
        // Read into a C `int`.
        Val::Int(i) => Some(i as i32),
        _ => None,
    };
    let sec = field("Seconds").unwrap_or(0);
    let min = field("Minutes").unwrap_or(0);
    let hour = field("Hours").unwrap_or(0);
    let mday = field("Day").unwrap_or(0);
    let mon = field("Month").map_or(0, |m| m.wrapping_sub(1));
    let year = field("Year").map_or(0, |y| y.wrapping_sub(1900));
    let (wday, yday) = day_numbers(year.wrapping_add(1900), mon.wrapping_add(1), mday);
    let format = match args.get(1) {
        None => "%c",
        Some(f) => match ev.eval(f, scope) {
            Val::Str(s) => s,
            _ => return Val::Error,
        },
    };
    let zone = zone_name(ev.tz_offset(ev.now()));
    let tm = CTm {
        sec,
        min,
        hour,
        mday,
        mon,
        year,
        wday,
        yday,
        // HTCondor's struct tm is zeroed: no offset, and `%Z` falls back to the local zone's name.
        gmtoff: 0,
        zone: &zone,
        epoch: mktime([sec, min, hour, mday, mon, year], |w| ev.tz_offset(w)),
    };
    Val::Str(ev.alloc_str(&strftime(format, &tm)))
}

/// `formatTime()`: the current local time as `%c`.
fn format_now<'a>(ev: &mut Evaluator<'a>) -> Val<'a> {
    let now = ev.now();
    let offset = ev.tz_offset(now);
    let t = gmtime(now.wrapping_add(i64::from(offset)));
    let zone = zone_name(offset);
    // Fields of a real date fit a C int.
    let int = |x: i64| x as i32;
    let tm = CTm {
        sec: int(t.sec),
        min: int(t.min),
        hour: int(t.hour),
        mday: int(t.day),
        mon: int(t.month - 1),
        year: int(t.year - 1900),
        wday: int(t.wday),
        yday: int(t.yday),
        gmtoff: offset.into(),
        zone: &zone,
        epoch: now,
    };
    Val::Str(ev.alloc_str(&strftime("%c", &tm)))
}

/// The abbreviation `%Z` shows for the local zone. Only offsets are known here, so a zone that
/// is UTC is `UTC` and any other is named by its offset as tzdata names zones without an
/// abbreviation (`+0530`, `-03`).
fn zone_name(offset: i32) -> String {
    if offset == 0 {
        return "UTC".to_string();
    }
    let sign = if offset < 0 { '-' } else { '+' };
    let mins = offset.unsigned_abs() / 60;
    let (h, m) = (mins / 60, mins % 60);
    if m == 0 {
        format!("{sign}{h:02}")
    } else {
        format!("{sign}{h:02}{m:02}")
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::check;
    use super::zone_name;

    // Expected values are HTCondor 25's (classad2), at the fixed clock 2024-01-02T03:04:05Z, UTC.

    #[test]
    fn formats() {
        for (expr, want) in [
            ("formatTime()", r#""Tue Jan  2 03:04:05 2024""#),
            ("formatTime(0)", r#""Thu Jan  1 00:00:00 1970""#),
            (
                "formatTime(0, \"%Y-%m-%d %H:%M:%S\")",
                r#""1970-01-01 00:00:00""#,
            ),
            ("formatTime(0, \"\")", r#""""#),
            ("formatTime(0, \"%%%H%%\")", r#""%00%""#),
            ("formatTime(0, \"%Z%z\")", r#""UTC+0000""#),
            // An absolute time is shown in its own zone, but %z and %s know nothing of it.
            (
                "formatTime(absTime(\"2024-01-02T03:04:05+05:30\"), \"%H:%M %z %Z\")",
                r#""03:04 +0000 UTC""#,
            ),
            (
                "formatTime(absTime(\"2024-06-30T23:59:59+05:30\"), \"%s\")",
                r#""1719791999""#,
            ),
            ("formatTime(1704164645.7, \"%s\")", r#""1704164645""#),
            ("formatTime(-1, \"%c\")", r#""Wed Dec 31 23:59:59 1969""#),
            (
                "formatTime(253402300800, \"%c\")",
                r#""Sat Jan  1 00:00:00 10000""#,
            ),
            ("formatTime(1e20, \"%c\")", r#""Fri Dec 13 20:45:52 1901""#),
            (
                "formatTime(2147483648, \"%c\")",
                r#""Tue Jan 19 03:14:08 2038""#,
            ),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn fields_from_ads() {
        for (expr, want) in [
            (
                "formatTime([Year=2020; Month=2; Day=29], \"%c %j %a %U %W\")",
                r#""Sat Feb 29 00:00:00 2020 060 Sat 08 08""#,
            ),
            (
                "formatTime([Year=2020; Month=13; Day=0], \"%b %B %a %d %j %m\")",
                r#""? ? Thu 00 366 13""#,
            ),
            (
                "formatTime([Year=2020], \"%c\")",
                r#""Tue Jan  0 00:00:00 2020""#,
            ),
            (
                "formatTime([], \"%c|%Y|%y\")",
                r#""Sun Jan  0 00:00:00 1900|1900|00""#,
            ),
            (
                "formatTime([Hours=25; Minutes=-1; Seconds=61], \"%H %M %S %I %p\")",
                r#""25 -1 61 13 PM""#,
            ),
            (
                "formatTime([Year=\"x\"; Day=3.7], \"%Y %d\")",
                r#""1900 00""#,
            ),
            ("formatTime([Day=true], \"%d\")", r#""00""#),
            ("formatTime([Day=4294967297], \"%d\")", r#""01""#),
            (
                "formatTime([Year=2024; Month=2; Day=30], \"%F %a\")",
                r#""2024-02-30 Fri""#,
            ),
            ("[x = 5; r = formatTime([Day = x], \"%d\")].r", r#""05""#),
            (
                "[r = formatTime([Day = 3; Month = Day + 1], \"%d %m\")].r",
                r#""03 04""#,
            ),
            (
                "formatTime(splitTime(relTime(5)))",
                r#""Sun Jan  0 00:00:00 1900""#,
            ),
        ] {
            check(expr, want);
        }
    }

    #[test]
    fn errors() {
        for expr in [
            "formatTime(relTime(5))",
            "formatTime(\"x\")",
            "formatTime(0, 5)",
            "formatTime(undefined)",
            "formatTime(0, undefined)",
            "formatTime(1, 2, 3)",
            "formatTime(true)",
            "formatTime({1})",
            "formatTime(error)",
            "formatTime([Day = 3], 5)",
        ] {
            check(expr, "error");
        }
    }

    #[test]
    fn zone_names() {
        for (offset, want) in [(0, "UTC"), (3600, "+01"), (-10800, "-03"), (19800, "+0530")] {
            assert_eq!(zone_name(offset), want);
        }
    }
}
