//! Time literals: the strings `absTime("…")` / `relTime("…")` accept (HTCondor's `MakeAbsTime`
//! and `MakeRelTime`), and the dissertation's quoted forms `'3d19:49:15'` and
//! `'Mon Jan 11 10:53:31 1999 (CST) -06:00'`. Also the calendar arithmetic the printer shares.

use crate::value::{AbsTime, Value};

/// Days from 1970-01-01 to the proleptic Gregorian date `y-m-d` (`m` in 1..=12; `d` may run
/// past the month, as `mktime` allows).
pub fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date `(year, month 1..=12, day 1..=31)` of `days` since 1970-01-01.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// Seconds since the epoch of the broken-down UTC time, normalising out-of-range fields as
/// `mktime` does (`mon` is 0-based).
fn timegm(year: i64, mon: i64, mday: i64, hour: i64, min: i64, sec: i64) -> i64 {
    let y = year + mon.div_euclid(12);
    let m = mon.rem_euclid(12) + 1;
    let days = days_from_civil(y, m, 1) + (mday - 1);
    days * 86_400 + hour * 3600 + min * 60 + sec
}

/// The local time zone's offset (seconds east) for the local wall-clock time `wall` (seconds
/// since the epoch as if it were UTC).
fn local_offset_for_wall(wall: i64) -> i32 {
    use chrono::{Local, Offset, TimeZone};
    let Some(naive) = chrono::DateTime::from_timestamp(wall, 0).map(|d| d.naive_utc()) else {
        return 0;
    };
    match Local.from_local_datetime(&naive) {
        chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
            t.offset().fix().local_minus_utc()
        }
        chrono::LocalResult::None => match Local.timestamp_opt(wall, 0) {
            chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
                t.offset().fix().local_minus_utc()
            }
            chrono::LocalResult::None => 0,
        },
    }
}

/// `atoi` of at most `n` bytes of `b` starting at `i`.
fn atoi_n(b: &[u8], i: usize, n: usize) -> i64 {
    b[i..(i + n).min(b.len())]
        .iter()
        .take_while(|c| c.is_ascii_digit())
        .fold(0i64, |v, &c| v * 10 + i64::from(c - b'0'))
}

/// Parses an absolute time as HTCondor's `absTime("…")` does: digit groups
/// `YYYY [MM [DD [hh [mm [ss]]]]]` separated by any non-digits, then an optional zone `Z`,
/// `±hhmm` or `±hh:mm`; without a zone the local zone is assumed.
pub fn abs_time_from_string(s: &str) -> Option<AbsTime> {
    let mut t: Vec<u8> = s.as_bytes().to_vec();
    let mut zone: Option<i32> = None;
    let mut last = t.len();
    while last > 0 && super::lexer::is_space(t[last - 1]) {
        last -= 1;
    }
    let len = t.len();
    if last >= 2 && matches!(t[last - 1], b'z' | b'Z') {
        t.remove(last - 1);
        zone = Some(0);
    } else if len > 5 && matches!(t[len - 5], b'+' | b'-') {
        zone = Some(extract_zone(&mut t)?);
    } else if len > 6 && matches!(t[len - 6], b'+' | b'-') && t[len - 3] == b':' {
        t.remove(len - 3);
        zone = Some(extract_zone(&mut t)?);
    }
    let b = &t[..];
    let len = b.len();
    let mut i = 0;
    let skip = |i: &mut usize| {
        while *i < len && !b[*i].is_ascii_digit() {
            *i += 1;
        }
    };
    skip(&mut i);
    if i + 4 > len {
        return None;
    }
    let year = atoi_n(b, i, 4);
    i += 4;
    let mut fields = [0i64, 0, 0, 0, 0];
    for f in fields.iter_mut() {
        skip(&mut i);
        if i + 2 <= len {
            *f = atoi_n(b, i, 2);
            i += 2;
        }
    }
    skip(&mut i);
    if i < len && b[i].is_ascii_digit() {
        return None;
    }
    let [mon, mday, hour, min, sec] = fields;
    let wall = timegm(year, mon - 1, mday, hour, min, sec);
    let offset = zone.unwrap_or_else(|| local_offset_for_wall(wall));
    Some(AbsTime {
        secs: wall - i64::from(offset),
        offset,
    })
}

/// Removes a trailing `±hhmm` from `t` and returns it in seconds east of UTC.
fn extract_zone(t: &mut Vec<u8>) -> Option<i32> {
    let n = t.len();
    let tail = &t[n - 5..];
    if !tail[1..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let hh = i32::from(tail[1] - b'0') * 10 + i32::from(tail[2] - b'0');
    let mm = i32::from(tail[3] - b'0') * 10 + i32::from(tail[4] - b'0');
    let secs = hh * 3600 + mm * 60;
    let secs = if tail[0] == b'-' { -secs } else { secs };
    t.truncate(n - 5);
    Some(secs)
}

/// Parses a relative time as HTCondor's `relTime("…")` does, reading from the end:
/// `[-] [days (d|+)] [hours (h|:)] [minutes (m|:)] [seconds[.frac] [s]]`.
pub fn rel_time_from_string(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = b.len() as isize - 1;
    let at = |i: isize| if i >= 0 { b[i as usize] } else { 0 };
    let back_space = |i: &mut isize| {
        while *i >= 0 && super::lexer::is_space(b[*i as usize]) {
            *i -= 1;
        }
    };
    let digits_back = |i: &mut isize| -> (usize, usize) {
        let end = (*i + 1) as usize;
        while *i >= 0 && b[*i as usize].is_ascii_digit() {
            *i -= 1;
        }
        ((*i + 1) as usize, end)
    };
    let int_of = |(a, e): (usize, usize)| -> f64 {
        b[a..e]
            .iter()
            .fold(0.0, |v, &c| v * 10.0 + f64::from(c - b'0'))
    };
    let mut secs = 0.0;
    back_space(&mut i);
    let c = at(i);
    if i >= 0 && (c == b's' || c == b'S' || c.is_ascii_digit()) {
        if !c.is_ascii_digit() {
            i -= 1;
        }
        back_space(&mut i);
        let (mut a, e) = digits_back(&mut i);
        if at(i) == b'.' && i >= 0 {
            i -= 1;
            a = digits_back(&mut i).0;
        }
        let text = &s[a..e];
        secs = if text.is_empty() || text == "." {
            0.0
        } else {
            format!("0{text}").parse().ok()?
        };
    }
    let unit = |i: &mut isize, letters: [u8; 3]| -> f64 {
        back_space(i);
        let c = at(*i);
        if *i >= 0 && letters.contains(&c) {
            *i -= 1;
            back_space(i);
            int_of(digits_back(i))
        } else {
            0.0
        }
    };
    let mins = unit(&mut i, [b'm', b'M', b':']);
    let hrs = unit(&mut i, [b'h', b'H', b':']);
    let days = unit(&mut i, [b'd', b'D', b'+']);
    back_space(&mut i);
    let negative = i >= 0 && at(i) == b'-';
    if negative {
        i -= 1;
    }
    back_space(&mut i);
    if i >= 0 {
        return None;
    }
    let total = days * 86_400.0 + hrs * 3600.0 + mins * 60.0 + secs;
    Some(if negative { -total } else { total })
}

/// The dissertation's quoted time literal in `text` (the contents of `'…'`), if it is one:
/// relative `[-][D(d|+)]hh:mm[:ss[.f]]` (two fields are hours and minutes: `'20:00'` is 8 pm in
/// the dissertation's `DayTime() > '20:00'`) or absolute
/// `[Weekday] Month DD hh:mm:ss YYYY [(ZONE)] [±hh:mm]`.
pub fn quoted(text: &str) -> Option<Value> {
    let t = text.trim();
    if let Some(secs) = quoted_rel(t) {
        return Some(Value::RelTime(secs));
    }
    quoted_abs(t).map(Value::AbsTime)
}

/// `[-][D(d|+)]h:m[:s[.f]]` in seconds.
fn quoted_rel(t: &str) -> Option<f64> {
    let (neg, t) = match t.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, t),
    };
    let (days, clock) = match t.find(['d', 'D', '+']) {
        Some(i) => (&t[..i], &t[i + 1..]),
        None => ("", t),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|c| c.is_ascii_digit());
    if !days.is_empty() && !all_digits(days) {
        return None;
    }
    let parts: Vec<&str> = clock.split(':').collect();
    if !(2..=3).contains(&parts.len()) || !parts[..2].iter().all(|p| all_digits(p)) {
        return None;
    }
    let secs = match parts.get(2) {
        None => 0.0,
        Some(s) => {
            let (whole, frac) = s.split_once('.').unwrap_or((s, "0"));
            if !all_digits(whole) || !all_digits(frac) {
                return None;
            }
            s.parse::<f64>().ok()?
        }
    };
    let num = |s: &str| s.parse::<f64>().ok();
    let d = if days.is_empty() { 0.0 } else { num(days)? };
    let total = d * 86_400.0 + num(parts[0])? * 3600.0 + num(parts[1])? * 60.0 + secs;
    Some(if neg { -total } else { total })
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];
const WEEKDAYS: [&str; 7] = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

fn quoted_abs(t: &str) -> Option<AbsTime> {
    let mut words: Vec<&str> = t.split_ascii_whitespace().collect();
    if words
        .first()
        .is_some_and(|w| WEEKDAYS.iter().any(|d| w.eq_ignore_ascii_case(d)))
    {
        words.remove(0);
    }
    if words.len() < 4 || words.len() > 6 {
        return None;
    }
    let mon = MONTHS
        .iter()
        .position(|m| words[0].eq_ignore_ascii_case(m))? as i64;
    let mday: i64 = words[1].parse().ok().filter(|d| (1..=31).contains(d))?;
    let hms: Vec<i64> = words[2]
        .split(':')
        .map(|p| p.parse().ok().filter(|_| p.len() == 2))
        .collect::<Option<_>>()?;
    let [h, mi, s] = hms[..] else { return None };
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let year: i64 = words[3].parse().ok().filter(|_| words[3].len() == 4)?;
    let mut rest = &words[4..];
    if let Some(z) = rest.first() {
        if z.starts_with('(') && z.ends_with(')') {
            rest = &rest[1..];
        }
    }
    let offset = match rest {
        [] => None,
        [z] => Some(parse_offset(z)?),
        _ => return None,
    };
    let wall = timegm(year, mon, mday, h, mi, s);
    let offset = offset.unwrap_or_else(|| local_offset_for_wall(wall));
    Some(AbsTime {
        secs: wall - i64::from(offset),
        offset,
    })
}

/// `±hh:mm` or `±hhmm` in seconds east of UTC.
fn parse_offset(z: &str) -> Option<i32> {
    let b = z.as_bytes();
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: Vec<u8> = b[1..].iter().copied().filter(|&c| c != b':').collect();
    let colon_ok = b.len() == 5 || (b.len() == 6 && b[3] == b':');
    if digits.len() != 4 || !colon_ok || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = |k: usize| i32::from(digits[k] - b'0');
    Some(sign * ((n(0) * 10 + n(1)) * 3600 + (n(2) * 10 + n(3)) * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abs(s: &str) -> Option<(i64, i32)> {
        abs_time_from_string(s).map(|t| (t.secs, t.offset))
    }

    #[test]
    fn abs_times() {
        let cases: &[(&str, Option<(i64, i32)>)] = &[
            ("2004-01-01T00:00:00Z", Some((1_072_915_200, 0))),
            ("2004-01-01T00:00:00-06:00", Some((1_072_936_800, -21600))),
            ("2004-01-01T00:00:00+0530", Some((1_072_895_400, 19800))),
            ("20040101T000000Z", Some((1_072_915_200, 0))),
            ("1970-01-01T00:00:00+00:00", Some((0, 0))),
            ("x", None),
            ("2004-01-01T00:00:00:12Z", None),
        ];
        for (s, want) in cases {
            assert_eq!(abs(s), *want, "{s}");
        }
    }

    #[test]
    fn rel_times() {
        let cases: &[(&str, Option<f64>)] = &[
            ("2+01:14:16.123", Some(177_256.123)),
            ("1:00", Some(60.0)),
            ("-1:00", Some(-60.0)),
            ("5", Some(5.0)),
            ("1d", Some(86400.0)),
            ("1d2h3m4s", Some(93784.0)),
            ("01:02:03", Some(3723.0)),
            ("x", None),
            ("", Some(0.0)),
        ];
        for (s, want) in cases {
            assert_eq!(rel_time_from_string(s), *want, "{s}");
        }
    }

    #[test]
    fn quoted_literals() {
        let rel: &[(&str, f64)] = &[
            ("00:23:12", 1392.0),
            (
                "3d19:49:15",
                3.0 * 86400.0 + 19.0 * 3600.0 + 49.0 * 60.0 + 15.0,
            ),
            ("18:21:32", 66092.0),
            ("-1+00:00:01", -86401.0),
            ("20:00", 72000.0),
            ("8:00", 28800.0),
            ("00:15", 900.0),
            ("1:02:03.5", 3723.5),
        ];
        for (s, want) in rel {
            assert!(
                matches!(quoted(s), Some(Value::RelTime(v)) if v == *want),
                "{s}"
            );
        }
        let abs_cases: &[(&str, i64, i32)] = &[
            ("Mon Jan 11 10:53:31 1999 (CST) -06:00", 916_073_611, -21600),
            ("Thu Aug 17 18:21:07 2000 (CDT) -05:00", 966_554_467, -18000),
            ("Jan 1 00:00:00 1970 +00:00", 0, 0),
        ];
        for (s, secs, off) in abs_cases {
            match quoted(s) {
                Some(Value::AbsTime(t)) => assert_eq!((t.secs, t.offset), (*secs, *off), "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
        for s in ["abc", "a b", "1", "12", "Memory", "1:2:3:4", "Jan"] {
            assert!(quoted(s).is_none(), "{s}");
        }
    }

    #[test]
    fn civil_round_trip() {
        for d in [-800_000i64, -1, 0, 1, 11_016, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, i64::from(m), i64::from(dd)), d);
        }
    }
}
