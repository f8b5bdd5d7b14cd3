//! C's `strftime` in the C locale, as GNU libc implements it — the engine behind HTCondor's
//! `formatTime`. Written out rather than taken from chrono because HTCondor hands `strftime`
//! unnormalised fields (day 0, month 13, negative hours) and glibc's answers for those, its
//! flags (`_ - 0 ^ #`), field widths, `E`/`O` modifiers and its handling of unknown directives
//! all show through; chrono validates and differs on every one of these.
//!
//! The output is limited as HTCondor limits it (a 1023-byte `strftime` buffer): a directive
//! that does not fit stops the output there, and what was written so far is the result.

/// The broken-down time `strftime` reads: C `struct tm` fields (`year` counts from 1900,
/// `mon` from 0) plus what `%z`, `%Z` and `%s` need.
#[derive(Clone, Debug)]
pub(crate) struct CTm<'z> {
    /// Seconds.
    pub sec: i32,
    /// Minutes.
    pub min: i32,
    /// Hours.
    pub hour: i32,
    /// Day of the month.
    pub mday: i32,
    /// Month, 0-based.
    pub mon: i32,
    /// Years since 1900.
    pub year: i32,
    /// Day of the week, 0 = Sunday.
    pub wday: i32,
    /// Day of the year, 0-based.
    pub yday: i32,
    /// `tm_gmtoff`: seconds east of UTC, for `%z`.
    pub gmtoff: i64,
    /// Time zone abbreviation for `%Z`.
    pub zone: &'z str,
    /// What `mktime` makes of these fields, for `%s`.
    pub epoch: i64,
}

/// HTCondor formats into `char output[1024]` with `strftime(output, 1023, …)`.
const MAX_SIZE: usize = 1023;

const WEEKDAYS: [&str; 7] = [
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
];
const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// Formats `tm` by `format` as glibc's `strftime` would into HTCondor's buffer.
pub(crate) fn strftime(format: &str, tm: &CTm<'_>) -> String {
    let mut out = Out {
        buf: Vec::new(),
        limit: MAX_SIZE,
    };
    // A `None` means the buffer filled: the output is what had been written.
    let _ = format_into(&mut out, format.as_bytes(), tm, false);
    String::from_utf8_lossy(&out.buf).into_owned()
}

/// The output buffer: bytes written and the `maxsize` they must stay under.
struct Out {
    buf: Vec<u8>,
    limit: usize,
}

/// The state of one directive: its flags and width.
#[derive(Copy, Clone)]
struct Spec {
    /// `_`, `-`, `0` or 0 (none).
    pad: u8,
    /// Field width, or -1 when none was given.
    width: i64,
    upper: bool,
    lower: bool,
}

impl Out {
    /// Room left for `n` more bytes (glibc's `n >= maxsize - i` test fails otherwise).
    fn fits(&self, n: usize) -> bool {
        n < self.limit - self.buf.len()
    }

    /// glibc's `add`: `text` right-aligned in the field width, padded with zeros for the `0`
    /// flag and blanks otherwise, case-mapped by the flags. Atomic: all or nothing.
    fn add(&mut self, spec: Spec, text: &[u8]) -> Option<()> {
        let n = text.len();
        let w = usize::try_from(spec.width).unwrap_or(0);
        let total = n.max(w);
        if !self.fits(total) {
            return None;
        }
        let fill = if spec.pad == b'0' { b'0' } else { b' ' };
        self.buf.resize(self.buf.len() + (total - n), fill);
        self.buf.extend(text.iter().map(|&b| {
            if spec.lower {
                b.to_ascii_lowercase()
            } else if spec.upper {
                b.to_ascii_uppercase()
            } else {
                b
            }
        }));
        Some(())
    }

    /// glibc's number formatting: `digits` is the minimum width the number is padded to (blanks
    /// for `_`, zeros after the sign otherwise, none for `-`), then the remaining field width
    /// applies as for text.
    fn number(&mut self, mut spec: Spec, digits: i64, value: i64) -> Option<()> {
        let text = value.unsigned_abs().to_string();
        let negative = value < 0;
        let len = text.len() + usize::from(negative);
        let mut body: Vec<u8> = Vec::with_capacity(len);
        if spec.pad != b'-' {
            let padding = usize::try_from(digits).unwrap_or(0).saturating_sub(len);
            if padding > 0 {
                if spec.pad == b'_' {
                    if !self.fits(padding) {
                        return None;
                    }
                    self.buf.resize(self.buf.len() + padding, b' ');
                    spec.width = (spec.width - padding as i64).max(0);
                } else {
                    if !self.fits(usize::try_from(digits).unwrap_or(usize::MAX)) {
                        return None;
                    }
                    if negative {
                        self.buf.push(b'-');
                    }
                    self.buf.resize(self.buf.len() + padding, b'0');
                    spec.width = 0;
                    return self.add(spec, text.as_bytes());
                }
            }
        }
        if negative {
            body.push(b'-');
        }
        body.extend_from_slice(text.as_bytes());
        self.add(spec, &body)
    }
}

/// Writes `format` into `out`; `None` once the buffer is full.
fn format_into(out: &mut Out, f: &[u8], tm: &CTm<'_>, upcase: bool) -> Option<()> {
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            out.add(
                Spec {
                    pad: 0,
                    width: -1,
                    upper: false,
                    lower: false,
                },
                &f[i..=i],
            )?;
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        let mut spec = Spec {
            pad: 0,
            width: -1,
            upper: upcase,
            lower: false,
        };
        let mut change_case = false;
        while i < f.len() {
            match f[i] {
                b'_' | b'-' | b'0' => spec.pad = f[i],
                b'^' => spec.upper = true,
                b'#' => change_case = true,
                _ => break,
            }
            i += 1;
        }
        if i < f.len() && f[i].is_ascii_digit() {
            let mut w: i64 = 0;
            while i < f.len() && f[i].is_ascii_digit() {
                w = (w * 10 + i64::from(f[i] - b'0')).min(i64::from(i32::MAX));
                i += 1;
            }
            spec.width = w;
        }
        let modifier = match f.get(i) {
            Some(&m @ (b'E' | b'O')) => {
                i += 1;
                m
            }
            _ => 0,
        };
        let conv = f.get(i).copied().unwrap_or(0);
        // The directive as written, for unknown ones (a trailing `%` is just `%`).
        let end = if conv == 0 { i } else { i + 1 };
        let written = &f[start..end];
        i = end;
        directive(out, spec, change_case, modifier, conv, written, tm)?;
    }
    Some(())
}

/// One directive `%[flags][width][modifier]conv`.
fn directive(
    out: &mut Out,
    mut spec: Spec,
    change_case: bool,
    modifier: u8,
    conv: u8,
    written: &[u8],
    tm: &CTm<'_>,
) -> Option<()> {
    let upper_names = |spec: &mut Spec| {
        if change_case {
            spec.upper = true;
            spec.lower = false;
        }
    };
    // C `int` arithmetic throughout, wrapping as the machine does.
    let hour12 = if tm.hour > 12 {
        tm.hour.wrapping_sub(12)
    } else if tm.hour == 0 {
        12
    } else {
        tm.hour
    };
    let year = tm.year.wrapping_add(1900);
    let width = spec.width;
    let num = |d: i64| d.max(width);
    if matches!(conv, b'b' | b'h') {
        // glibc applies `#` to these before rejecting a modifier.
        upper_names(&mut spec);
    }
    if modifier_forbidden(modifier, conv) {
        return out.add(spec, written);
    }
    match conv {
        b'%' => out.add(spec, b"%"),
        b'a' => {
            upper_names(&mut spec);
            out.add(spec, name(&WEEKDAYS, tm.wday, 3))
        }
        b'A' => {
            upper_names(&mut spec);
            out.add(spec, name(&WEEKDAYS, tm.wday, usize::MAX))
        }
        b'b' | b'h' => {
            upper_names(&mut spec);
            out.add(spec, name(&MONTHS, tm.mon, 3))
        }
        b'B' => {
            upper_names(&mut spec);
            out.add(spec, name(&MONTHS, tm.mon, usize::MAX))
        }
        b'c' => subformat(out, spec, b"%a %b %e %H:%M:%S %Y", tm),
        b'x' | b'D' => subformat(out, spec, b"%m/%d/%y", tm),
        b'X' | b'T' => subformat(out, spec, b"%H:%M:%S", tm),
        b'F' => subformat(out, spec, b"%Y-%m-%d", tm),
        b'R' => subformat(out, spec, b"%H:%M", tm),
        b'r' => subformat(out, spec, b"%I:%M:%S %p", tm),
        b'C' => {
            let century = year / 100 - i32::from(year % 100 < 0);
            out.number(spec, num(1), century.into())
        }
        b'y' => out.number(spec, num(2), ((tm.year % 100 + 100) % 100).into()),
        b'Y' => out.number(spec, num(1), year.into()),
        b'd' => out.number(spec, num(2), tm.mday.into()),
        b'e' => out.number(space_pad(spec), num(2), tm.mday.into()),
        b'H' => out.number(spec, num(2), tm.hour.into()),
        b'I' => out.number(spec, num(2), hour12.into()),
        b'k' => out.number(space_pad(spec), num(2), tm.hour.into()),
        b'l' => out.number(space_pad(spec), num(2), hour12.into()),
        b'j' => out.number(spec, num(3), tm.yday.wrapping_add(1).into()),
        b'm' => out.number(spec, num(2), tm.mon.wrapping_add(1).into()),
        b'M' => out.number(spec, num(2), tm.min.into()),
        b'S' => out.number(spec, num(2), tm.sec.into()),
        b'u' => {
            let u = (tm.wday.wrapping_sub(1).wrapping_add(7) % 7).wrapping_add(1);
            out.number(spec, num(1), u.into())
        }
        b'w' => out.number(spec, num(1), tm.wday.into()),
        b'U' => {
            let u = tm.yday.wrapping_sub(tm.wday).wrapping_add(7) / 7;
            out.number(spec, num(2), u.into())
        }
        b'W' => {
            let monday_based = tm.wday.wrapping_sub(1).wrapping_add(7) % 7;
            let w = tm.yday.wrapping_sub(monday_based).wrapping_add(7) / 7;
            out.number(spec, num(2), w.into())
        }
        b'G' | b'g' | b'V' => {
            let (year, days) = iso_week(tm);
            match conv {
                b'G' => out.number(spec, num(1), year.into()),
                b'g' => out.number(spec, num(2), ((year % 100 + 100) % 100).into()),
                _ => out.number(spec, num(2), (days / 7).wrapping_add(1).into()),
            }
        }
        b'n' => out.add(spec, b"\n"),
        b't' => out.add(spec, b"\t"),
        b'p' | b'P' => {
            if conv == b'P' {
                spec.lower = true;
            }
            if change_case {
                spec.upper = false;
                spec.lower = true;
            }
            out.add(spec, if tm.hour > 11 { b"PM" } else { b"AM" })
        }
        b's' => out.number(spec, 1, tm.epoch),
        b'z' => {
            let mut diff = tm.gmtoff;
            let sign: &[u8] = if diff < 0 { b"-" } else { b"+" };
            diff = diff.abs();
            out.add(spec, sign)?;
            let mins = diff / 60;
            out.number(spec, num(4), mins / 60 * 100 + mins % 60)
        }
        b'Z' => {
            if change_case {
                spec.upper = false;
                spec.lower = true;
            }
            out.add(spec, tm.zone.as_bytes())
        }
        _ => out.add(spec, written),
    }
}

/// Which modifier/conversion pairs glibc rejects (printing the directive as written); found by
/// trying every pair against glibc.
fn modifier_forbidden(modifier: u8, conv: u8) -> bool {
    match modifier {
        b'E' => b"abdeghjklmwABDFGHIMSUVW".contains(&conv),
        b'O' => b"acxADFXY".contains(&conv),
        _ => false,
    }
}

/// `%e`, `%k`, `%l`: blank-padded unless `0` or `-` was asked for.
fn space_pad(mut spec: Spec) -> Spec {
    if spec.pad != b'0' && spec.pad != b'-' {
        spec.pad = b'_';
    }
    spec
}

/// A weekday or month name (`len` bytes of it), `?` when the field is out of range.
fn name(names: &[&'static str], index: i32, len: usize) -> &'static [u8] {
    match usize::try_from(index).ok().and_then(|i| names.get(i)) {
        Some(n) => &n.as_bytes()[..len.min(n.len())],
        None => b"?",
    }
}

/// A composite directive (`%c`, `%x`, …): formatted on its own, then added as one field.
fn subformat(out: &mut Out, spec: Spec, sub: &[u8], tm: &CTm<'_>) -> Option<()> {
    let mut inner = Out {
        buf: Vec::new(),
        limit: usize::MAX,
    };
    format_into(&mut inner, sub, tm, spec.upper)?;
    let text = if spec.upper {
        inner.buf.to_ascii_uppercase()
    } else {
        inner.buf
    };
    out.add(
        Spec {
            upper: false,
            lower: false,
            ..spec
        },
        &text,
    )
}

/// The ISO 8601 week-based year and the day within its week 1 (glibc's `iso_week_days`), in C
/// `int` arithmetic.
fn iso_week(tm: &CTm<'_>) -> (i32, i32) {
    fn iso_week_days(yday: i32, wday: i32) -> i32 {
        // Enough to make the left operand of % non-negative for any yday >= -366.
        let big = (366 / 7 + 2) * 7;
        let shift = yday.wrapping_sub(wday).wrapping_add(4).wrapping_add(big) % 7;
        yday.wrapping_sub(shift).wrapping_add(4 - 1)
    }
    fn year_days(year: i32) -> i32 {
        365 + i32::from(year % 4 == 0 && (year % 100 != 0 || year % 400 == 0))
    }
    let mut year = tm.year.wrapping_add(1900);
    let mut days = iso_week_days(tm.yday, tm.wday);
    if days < 0 {
        year = year.wrapping_sub(1);
        days = iso_week_days(tm.yday.wrapping_add(year_days(year)), tm.wday);
    } else {
        let d = iso_week_days(tm.yday.wrapping_sub(year_days(year)), tm.wday);
        if d >= 0 {
            year = year.wrapping_add(1);
            days = d;
        }
    }
    (year, days)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(sec, min, hour, mday, mon, year, wday, yday)` as C's struct tm.
    fn tm(f: [i32; 8]) -> CTm<'static> {
        CTm {
            sec: f[0],
            min: f[1],
            hour: f[2],
            mday: f[3],
            mon: f[4],
            year: f[5],
            wday: f[6],
            yday: f[7],
            gmtoff: 0,
            zone: "UTC",
            epoch: 0,
        }
    }

    const EPOCH: [i32; 8] = [0, 0, 0, 1, 0, 70, 4, 0];
    const ODD: [i32; 8] = [5, -1, 25, -5, 0, -1901, 3, -6];

    #[test]
    fn matches_glibc() {
        // Expected outputs from glibc 2.36's strftime (the oracle's libc) on the same fields.
        for (fields, format, want) in [
            (EPOCH, "%Y-%m-%d %H:%M:%S", "1970-01-01 00:00:00"),
            (EPOCH, "%c", "Thu Jan  1 00:00:00 1970"),
            (EPOCH, "%Q|%|%5Y|%-d|%_d|%e|%^a|%#b|%10A|%EY|%Oy|%", "%Q|%|01970|1| 1| 1|THU|JAN|  Thursday|1970|70|%"),
            (
                EPOCH,
                "%C %g %G %V %u %h %P %p %r %R %T %D %F %k %l %I %n|%t|%x %X %z %Z %s %+",
                "19 70 1970 01 4 Jan am AM 12:00:00 AM 00:00 00:00:00 01/01/70 1970-01-01  0 12 12 \n|\t|01/01/70 00:00:00 +0000 UTC 0 %+",
            ),
            (EPOCH, "%010z|%_10z|%-z|%^c|%#c|%^x|%#P|%^P", "000000000+0000000000|         +         0|+0|THU JAN  1 00:00:00 1970|Thu Jan  1 00:00:00 1970|01/01/70|am|am"),
            (EPOCH, "%10d|%-10d|%_10d|%010d|%^10B|%#10B|%#A|%#p|%#Z|%^p|%10p|%-p|%_p|%3a", "0000000001|         1|         1|0000000001|   JANUARY|   JANUARY|THURSDAY|am|utc|AM|        AM|AM|AM|Thu"),
            (EPOCH, "%Ec|%EC|%Ex|%EX|%Ey|%EY|%Od|%Oe|%OH|%OI|%Om|%OM|%OS|%Ou|%OU|%OV|%Ow|%OW|%Oy|%Ea|%Oa|%E%", "Thu Jan  1 00:00:00 1970|19|01/01/70|00:00:00|70|1970|01| 1|00|12|01|00|00|4|00|01|4|00|70|%Ea|%Oa|%"),
            (EPOCH, "%5%|%-%|%_%|%0%|%^%", "    %|%|%|%|%"),
            (EPOCH, "%5n|%5t|%5s|%-s|%010s", "    \n|    \t|    0|0|0000000000"),
            (ODD, "%d|%j|%Y|%G|%g|%C|%y|%V|%U|%W|%e|%-e|%_H|%3j|%-j|%_j", "-5|-05|-1|-2|98|-1|99|52|00|00|-5|-5|25|-05|-5| -5"),
            ([0, 0, 0, 0, 12, 120, 4, 365], "%b %B %a %d %j %m", "? ? Thu 00 366 13"),
            ([61, -1, 25, 0, 0, 0, 0, -1], "%H %M %S %I %p", "25 -1 61 13 PM"),
            ([0, 0, 0, 0, 0, 10445, 0, -1], "%Y|%y|%C|%F|%D", "12345|45|123|12345-01-00|01/00/45"),
            ([0, 0, 0, 0, 0, -1999, 0, -1], "%Y|%y|%C|%4Y|%_5Y|%-y", "-99|01|-1|-099|  -99|1"),
        ] {
            assert_eq!(strftime(format, &tm(fields)), want, "{format:?}");
        }
    }

    #[test]
    fn iso_weeks() {
        // 2024-01-02 (Tue), 2021-01-03 (Sun), 2020-12-31 (Thu), 2024-12-30 (Mon).
        for (fields, want) in [
            ([0, 0, 0, 2, 0, 124, 2, 1], "2024-W01-2 24 00 01 002"),
            ([0, 0, 0, 3, 0, 121, 0, 2], "2020-W53-7 20 01 00 003"),
            ([0, 0, 0, 31, 11, 120, 4, 365], "2020-W53-4 20 52 52 366"),
            ([0, 0, 0, 30, 11, 124, 1, 364], "2025-W01-1 25 52 53 365"),
        ] {
            assert_eq!(strftime("%G-W%V-%u %g %U %W %j", &tm(fields)), want);
        }
    }

    #[test]
    fn buffer_limit() {
        let t = tm(EPOCH);
        // 1022 bytes fit; a 1023rd does not, nor does a field that would cross the limit.
        let fits = "x".repeat(1022);
        assert_eq!(strftime(&fits, &t), fits);
        assert_eq!(strftime(&"x".repeat(1030), &t), "x".repeat(1022));
        assert_eq!(
            strftime(&format!("{}%Y", "x".repeat(1020)), &t),
            "x".repeat(1020)
        );
        assert_eq!(strftime("%2000d", &t), "");
    }
}
