//! The dissertation's quoted time literals, `'3d19:49:15'` and
//! `'Mon Jan 11 10:53:31 1999 (CST) -06:00'`. (The strings `absTime("…")` / `relTime("…")`
//! accept are read by `time_string`.)

use crate::value::{AbsTime, Value};

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
    let digits = |w: &str, n: std::ops::RangeInclusive<usize>| -> Option<i64> {
        (n.contains(&w.len()) && w.bytes().all(|b| b.is_ascii_digit()))
            .then(|| w.parse().ok())
            .flatten()
    };
    let mday = digits(words[1], 1..=2).filter(|d| (1..=31).contains(d))?;
    let hms: Vec<i64> = words[2]
        .split(':')
        .map(|p| digits(p, 2..=2))
        .collect::<Option<_>>()?;
    let [h, mi, s] = hms[..] else { return None };
    if h > 23 || mi > 59 || s > 60 {
        return None;
    }
    let year = digits(words[3], 4..=4)?;
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
    let wall = crate::calendar::timegm(year, mon + 1, mday, h, mi, s);
    let offset = offset.unwrap_or_else(|| super::time_string::system_offset(wall));
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
}
