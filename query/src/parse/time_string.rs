//! Reading the text forms of times, as HTCondor's parser does for `absTime("…")` and
//! `relTime("…")` with a string literal argument (literals.cpp `MakeAbsTime(string)` and
//! `MakeRelTime(string)`).
//!
//! Both readers are deliberately as lenient (and as strict) as HTCondor's: an absolute time is
//! any text holding a 4-digit year followed by up to five 2-digit fields (month, day, hours,
//! minutes, seconds) separated by anything that is not a digit, and an optional zone suffix
//! `Z`, `+hhmm` or `+hh:mm`; a relative time is `[-][days(d|+)][hh(h|:)][mm(m|:)]ss[.fff][s]`,
//! read right to left, with spaces allowed between the parts.

use crate::calendar::timegm;
use crate::value::AbsTime;

/// C's `isspace` in the C locale.
fn is_c_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// C's `atoi` on `s`: leading digits after optional blanks and sign, wrapping like glibc's.
fn atoi(s: &[u8]) -> i64 {
    let mut i = 0;
    while i < s.len() && is_c_space(s[i]) {
        i += 1;
    }
    let negative = i < s.len() && s[i] == b'-';
    if i < s.len() && (s[i] == b'-' || s[i] == b'+') {
        i += 1;
    }
    let mut n: i64 = 0;
    while i < s.len() && s[i].is_ascii_digit() {
        n = n.wrapping_mul(10).wrapping_add(i64::from(s[i] - b'0'));
        i += 1;
    }
    if negative {
        n.wrapping_neg()
    } else {
        n
    }
}

/// Reads an absolute time, taking the local zone's offset from `local_offset(secs)` when the
/// text names no zone. `None` where HTCondor reports a parse error.
pub fn abs_time_from_string_with(text: &str, local_offset: impl Fn(i64) -> i32) -> Option<AbsTime> {
    let mut s: Vec<u8> = text.as_bytes().to_vec();
    let offset = take_zone(&mut s);

    // Year: the first four characters from the first digit on.
    let len = s.len();
    let mut i = next_digit(&s, 0);
    if i + 4 > len {
        return None;
    }
    let year = atoi(&s[i..i + 4]);
    i = next_digit(&s, i + 4);
    // Then month, day, hours, minutes, seconds: two characters each while two remain. Absent
    // fields stay as `memset` left them: month January (tm_mon 0), the others 0.
    let mut fields = [1i64, 0, 0, 0, 0];
    for f in fields.iter_mut() {
        if i + 2 <= len {
            *f = atoi(&s[i..i + 2]);
            i += 2;
        }
        i = next_digit(&s, i);
    }
    let [month, day, hour, min, sec] = fields;
    if i < len {
        // A digit remains after the seconds.
        return None;
    }
    let wall = timegm(year, month, day, hour, min, sec);
    // HTCondor converts with mktime, which answers -1 (its error value) for the local instant
    // one second before the epoch.
    let mktime = wall.wrapping_sub(i64::from(local_offset(wall)));
    if mktime == -1 {
        return None;
    }
    let offset = offset.unwrap_or_else(|| local_offset(mktime));
    Some(AbsTime {
        secs: wall.wrapping_sub(i64::from(offset)),
        offset,
    })
}

/// Reads an absolute time in the system's local zone (see `parse_abs_time_with`).
pub fn abs_time_from_string(text: &str) -> Option<AbsTime> {
    abs_time_from_string_with(text, system_offset)
}

/// The system's local offset from UTC (seconds east) at `secs`: parse-time times without a zone
/// are local, as HTCondor's parser reads them (it has no evaluation options to ask).
pub fn system_offset(secs: i64) -> i32 {
    use crate::eval::host::{Host, System};
    System.tz_offset(secs)
}

/// Index of the first digit at or after `i` (or the length).
fn next_digit(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && !s[i].is_ascii_digit() {
        i += 1;
    }
    i
}

/// Removes a trailing zone (`z`/`Z` after trailing blanks, or `±hhmm` / `±hh:mm` at the very
/// end) from `s`, returning its offset in seconds east.
fn take_zone(s: &mut Vec<u8>) -> Option<i32> {
    let len = s.len();
    let last = s.iter().rposition(|&b| !is_c_space(b));
    if let Some(i) = last {
        if i > 0 && (s[i] == b'z' || s[i] == b'Z') {
            s.remove(i);
            return Some(0);
        }
    }
    if len > 5 && (s[len - 5] == b'+' || s[len - 5] == b'-') {
        return take_numeric_zone(s);
    }
    if len > 6 && (s[len - 6] == b'+' || s[len - 6] == b'-') && s[len - 3] == b':' {
        s.remove(len - 3);
        return take_numeric_zone(s);
    }
    None
}

/// Removes a final `±hhmm` from `s` if it is exactly that.
fn take_numeric_zone(s: &mut Vec<u8>) -> Option<i32> {
    let len = s.len();
    let z = &s[len - 5..];
    if !(z[0] == b'+' || z[0] == b'-') || !z[1..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let hours = i32::from(z[1] - b'0') * 10 + i32::from(z[2] - b'0');
    let mins = i32::from(z[3] - b'0') * 10 + i32::from(z[4] - b'0');
    let sign = if z[0] == b'-' { -1 } else { 1 };
    s.truncate(len - 5);
    Some(sign * (hours * 3600 + mins * 60))
}

/// Reads a relative time in seconds. `None` where HTCondor reports a parse error.
pub fn rel_time_from_string(text: &str) -> Option<f64> {
    let s = text.as_bytes();
    // `i` is one past the character under examination, so 0 means "before the start".
    let mut i = s.len();
    let skip_spaces = |i: &mut usize| {
        while *i > 0 && is_c_space(s[*i - 1]) {
            *i -= 1;
        }
    };
    // Digits ending just before `i`, read leftwards.
    let take_digits = |i: &mut usize| -> usize {
        let end = *i;
        while *i > 0 && s[*i - 1].is_ascii_digit() {
            *i -= 1;
        }
        end
    };

    skip_spaces(&mut i);
    let mut secs = 0.0;
    if i > 0 && (matches!(s[i - 1], b's' | b'S') || s[i - 1].is_ascii_digit()) {
        if matches!(s[i - 1], b's' | b'S') {
            i -= 1;
        }
        skip_spaces(&mut i);
        let end = take_digits(&mut i);
        if i > 0 && s[i - 1] == b'.' {
            i -= 1;
            take_digits(&mut i);
        }
        secs = strtod(&s[i..end]);
    }
    let part = |i: &mut usize, units: [u8; 3]| -> i32 {
        skip_spaces(i);
        if *i > 0 && units.contains(&s[*i - 1]) {
            *i -= 1;
            skip_spaces(i);
            let end = take_digits(i);
            rev_int(&s[*i..end])
        } else {
            0
        }
    };
    let mins = part(&mut i, [b'm', b'M', b':']);
    let hours = part(&mut i, [b'h', b'H', b':']);
    let days = part(&mut i, [b'd', b'D', b'+']);
    skip_spaces(&mut i);
    let negative = i > 0 && s[i - 1] == b'-';
    if negative {
        i -= 1;
    }
    skip_spaces(&mut i);
    if i > 0 {
        return None;
    }
    // HTCondor sums the whole units in C `int` arithmetic, then adds the seconds.
    let whole = days
        .wrapping_mul(86_400)
        .wrapping_add(hours.wrapping_mul(3600))
        .wrapping_add(mins.wrapping_mul(60));
    let total = f64::from(whole) + secs;
    Some(if negative { -total } else { total })
}

/// `std::from_chars` into an `int`: 0 when empty or out of range.
fn rev_int(digits: &[u8]) -> i32 {
    std::str::from_utf8(digits)
        .ok()
        .and_then(|d| d.parse::<i32>().ok())
        .unwrap_or(0)
}

/// `strtod` on a run of digits with at most one `.`: 0 when there is no number.
fn strtod(text: &[u8]) -> f64 {
    match std::str::from_utf8(text) {
        Ok(t) if t.bytes().any(|b| b.is_ascii_digit()) => t.parse::<f64>().unwrap_or(0.0),
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn abs(text: &str) -> Option<(i64, i32)> {
        abs_time_from_string_with(text, |_| 0).map(|t| (t.secs, t.offset))
    }

    #[test]
    fn absolute_times() {
        // Expected values from HTCondor 25 (classad2) with TZ=UTC.
        let t = 1_704_164_645; // 2024-01-02T03:04:05Z
        for (text, want) in [
            ("2024-01-02T03:04:05", Some((t, 0))),
            ("2024-01-02T03:04:05Z", Some((t, 0))),
            ("2024-01-02T03:04:05z  ", Some((t, 0))),
            ("2024-01-02T03:04:05+0130", Some((t - 5400, 5400))),
            ("2024-01-02T03:04:05-01:30", Some((t + 5400, -5400))),
            ("2024-01-02T03:04:05 +01:00", Some((t - 3600, 3600))),
            ("20240102030405", Some((t, 0))),
            ("2024-01-02", Some((t - 3 * 3600 - 4 * 60 - 5, 0))),
            (" 2024-01-02 z", Some((t - 3 * 3600 - 4 * 60 - 5, 0))),
            // Month and day default to 0 (tm_mon 0 = January, day 0 = Dec 31 before).
            ("2024", Some((1_703_980_800, 0))),
            // Out-of-range fields are normalised: 2024-13-45 is 2025-02-14.
            ("2024-13-45", Some((1_739_491_200, 0))),
            ("1900-01-01T00:00:00Z", Some((-2_208_988_800, 0))),
            // A trailing blank hides the zone, whose digits are then one field too many.
            ("2024-01-02T03:04:05+01:00 ", None),
            ("2024-01-02T03:04:05.5Z", None),
            ("24", None),
            ("2024-1-2", None),
            ("2024-01-02T03:04:05-0a:00", None),
            ("0000-01-01T00:00:00Z", Some((-62_167_219_200, 0))),
            ("x", None),
            ("", None),
            // mktime's -1.
            ("1969-12-31T23:59:59Z", None),
        ] {
            assert_eq!(abs(text), want, "{text:?}");
        }
    }

    #[test]
    fn absolute_time_local_offset() {
        // With no zone in the text, the local offset at that instant is used.
        let t = abs_time_from_string_with("2024-01-02T03:04:05", |_| 3600);
        assert_eq!(
            t,
            Some(AbsTime {
                secs: 1_704_164_645 - 3600,
                offset: 3600
            })
        );
    }

    #[test]
    fn relative_times() {
        for (text, want) in [
            ("10", Some(10.0)),
            ("1:00", Some(60.0)),
            ("1.5", Some(1.5)),
            ("-1+00:00:01", Some(-86_401.0)),
            ("2+25:14:16", Some(263_656.0)),
            ("2+23:14:16.5", Some(256_456.5)),
            ("1d 2h 3m 4s", Some(93_784.0)),
            ("1d2h3m4.5s", Some(93_784.5)),
            (" 5 ", Some(5.0)),
            ("+5", Some(5.0)),
            ("", Some(0.0)),
            ("5.", None),
            (".5", Some(0.5)),
            ("99999999999", Some(99_999_999_999.0)),
            // Whole units are C ints: an overflowing field reads as 0, sums wrap.
            ("99999999999:00", Some(0.0)),
            ("24855d", Some(2_147_472_000.0)),
            ("24856d", Some(-2_147_408_896.0)),
            ("1 2", None),
            ("s", Some(0.0)),
            ("- 5", Some(-5.0)),
            ("x", None),
            ("1:2:3:4", None),
            ("5x", None),
            ("--5", None),
        ] {
            assert_eq!(rel_time_from_string(text), want, "{text:?}");
        }
    }
}
