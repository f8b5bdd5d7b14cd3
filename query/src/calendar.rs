//! Calendar arithmetic for the time functions: proleptic Gregorian dates, broken-down times (the
//! `struct tm` HTCondor's C code works with), and the C conversions whose edge cases HTCondor's
//! results depend on.
//!
//! Everything works on `i64` seconds and never overflows or panics: out-of-range inputs give
//! out-of-range (but defined) dates.

/// A broken-down time, as C's `struct tm` but with the year in full and the month 1-based.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tm {
    /// The year (e.g. 2024).
    pub year: i64,
    /// Month of the year, 1–12.
    pub month: i64,
    /// Day of the month, 1–31.
    pub day: i64,
    /// Hours, 0–23.
    pub hour: i64,
    /// Minutes, 0–59.
    pub min: i64,
    /// Seconds, 0–59.
    pub sec: i64,
    /// Day of the week, 0 = Sunday.
    pub wday: i64,
    /// Day of the year, 0-based.
    pub yday: i64,
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (month 1–12, any day: the day is
/// simply added, so day 0 is the last day of the previous month).
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    // Normalise the month into 1..=12, carrying whole years.
    let m0 = month.wrapping_sub(1);
    let year = year.wrapping_add(m0.div_euclid(12));
    let month = m0.rem_euclid(12) + 1;
    let y = if month <= 2 {
        year.wrapping_sub(1)
    } else {
        year
    };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era.wrapping_mul(146_097)
        .wrapping_add(doe)
        .wrapping_sub(719_468)
        .wrapping_add(day.wrapping_sub(1))
}

/// The date `days` after 1970-01-01: `(year, month 1–12, day 1–31)`.
pub(crate) fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days.wrapping_add(719_468);
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe.wrapping_add(era.wrapping_mul(400)) + i64::from(month <= 2);
    (year, month, day)
}

/// C's `gmtime`: the broken-down UTC time of `secs` seconds after the epoch.
pub(crate) fn gmtime(secs: i64) -> Tm {
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = civil_from_days(days);
    Tm {
        year,
        month,
        day,
        hour: rem / 3600,
        min: rem % 3600 / 60,
        sec: rem % 60,
        // 1970-01-01 was a Thursday.
        wday: (days.rem_euclid(7) + 4) % 7,
        yday: days - days_from_civil(year, 1, 1),
    }
}

/// C's `timegm` on unnormalised fields: seconds after the epoch of the given UTC date and time,
/// every field allowed out of its range (month 0 is December of the year before, and so on).
pub(crate) fn timegm(year: i64, month: i64, day: i64, hour: i64, min: i64, sec: i64) -> i64 {
    days_from_civil(year, month, day)
        .wrapping_mul(86_400)
        .wrapping_add(hour.wrapping_mul(3600))
        .wrapping_add(min.wrapping_mul(60))
        .wrapping_add(sec)
}

/// C's `mktime` on `struct tm` fields (`year` from 1900, `mon` 0-based, any field out of
/// range), read as local time whose offset east of UTC at an instant is `local_offset`. `-1`
/// (mktime's failure) when the normalised year no longer fits a C `int`.
pub(crate) fn mktime(tm: [i32; 6], local_offset: impl Fn(i64) -> i32) -> i64 {
    let [sec, min, hour, mday, mon, year] = tm.map(i64::from);
    let wall = timegm(year + 1900, mon + 1, mday, hour, min, sec);
    let (y, _, _) = civil_from_days(wall.div_euclid(86_400));
    // (glibc's exact limits near year ±2^31 differ slightly; only absurd inputs reach them.)
    if i32::try_from(y - 1900).is_err() {
        return -1;
    }
    wall - i64::from(local_offset(wall))
}

/// HTCondor's own day numbering for `formatTime` (util.cpp `day_numbers`): weekday and 0-based
/// day of the year of an unnormalised (year, month, day), computed with C's truncating `int`
/// arithmetic, so nonsense dates give HTCondor's nonsense.
pub(crate) fn day_numbers(year: i32, month: i32, day: i32) -> (i32, i32) {
    let fixed = fixed_from_gregorian(year, month, day);
    let jan1 = fixed_from_gregorian(year, 1, 1);
    (fixed.wrapping_rem(7), fixed.wrapping_sub(jan1))
}

/// Rata Die day number (util.cpp `fixed_from_gregorian`), in C `int` arithmetic.
fn fixed_from_gregorian(year: i32, month: i32, day: i32) -> i32 {
    let adjustment = if month <= 2 {
        0
    } else if c_is_leap(year) {
        -1
    } else {
        -2
    };
    let y1 = year.wrapping_sub(1);
    365i32
        .wrapping_mul(y1)
        .wrapping_add(y1 / 4)
        .wrapping_sub(y1 / 100)
        .wrapping_add(y1 / 400)
        .wrapping_add(367i32.wrapping_mul(month).wrapping_sub(362) / 12)
        .wrapping_add(adjustment)
        .wrapping_add(day)
}

/// util.cpp `is_leap_year`, with C's signed remainders.
fn c_is_leap(year: i32) -> bool {
    let m400 = year % 400;
    year % 4 == 0 && m400 != 100 && m400 != 200 && m400 != 300
}

/// C's `(int)` cast of a double as x86-64 performs it: truncation toward zero, and the
/// "integer indefinite" `INT_MIN` for NaN and values out of range.
pub(crate) fn c_double_to_int(x: f64) -> i32 {
    if x.is_nan() || x <= f64::from(i32::MIN) - 1.0 || x >= f64::from(i32::MAX) + 1.0 {
        i32::MIN
    } else {
        x as i32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_round_trip() {
        for d in [-800_000i64, -1, 0, 1, 11_016, 2_932_896] {
            let (y, m, dd) = civil_from_days(d);
            assert_eq!(days_from_civil(y, m, dd), d);
        }
    }

    #[test]
    fn civil_round_trips() {
        for (days, date) in [
            (0, (1970, 1, 1)),
            (-1, (1969, 12, 31)),
            (19_723, (2024, 1, 1)),
            (19_782, (2024, 2, 29)),
            (-719_468, (0, 3, 1)),
            (2_932_896, (9999, 12, 31)),
        ] {
            assert_eq!(civil_from_days(days), date, "{days}");
            assert_eq!(days_from_civil(date.0, date.1, date.2), days, "{date:?}");
        }
    }

    #[test]
    fn unnormalised_fields() {
        // Month 13 of 2023 is January 2024; day 0 is the last of the month before.
        assert_eq!(days_from_civil(2023, 13, 1), days_from_civil(2024, 1, 1));
        assert_eq!(days_from_civil(2024, 1, 0), days_from_civil(2023, 12, 31));
        assert_eq!(days_from_civil(2024, 0, 1), days_from_civil(2023, 12, 1));
        assert_eq!(timegm(2024, 1, 2, 3, 4, 5), 1_704_164_645);
        // 2024-01-02T00:00:00Z plus 27 h, -1 min, 65 s.
        assert_eq!(
            timegm(2024, 1, 2, 27, -1, 65),
            1_704_153_600 + 27 * 3600 - 60 + 65
        );
    }

    #[test]
    fn gmtime_fields() {
        let t = gmtime(1_704_164_645);
        assert_eq!(
            t,
            Tm {
                year: 2024,
                month: 1,
                day: 2,
                hour: 3,
                min: 4,
                sec: 5,
                wday: 2,
                yday: 1
            }
        );
        let t = gmtime(-1);
        assert_eq!(
            (t.year, t.month, t.day, t.hour, t.min, t.sec, t.wday, t.yday),
            (1969, 12, 31, 23, 59, 59, 3, 364)
        );
    }

    #[test]
    fn c_mktime() {
        assert_eq!(mktime([5, 4, 3, 2, 0, 124], |_| 0), 1_704_164_645);
        assert_eq!(mktime([5, 4, 3, 2, 0, 124], |_| 3600), 1_704_164_645 - 3600);
        assert_eq!(mktime([0, 0, 0, i32::MAX, 0, i32::MAX], |_| 0), -1);
    }

    #[test]
    fn htcondor_day_numbers() {
        // (year, month, day) -> (weekday, yearday), as formatTime shows them.
        for (ymd, want) in [
            ((2020, 2, 29), (6, 59)),
            ((2020, 1, 0), (2, -1)),
            ((1900, 1, 0), (0, -1)),
            ((2020, 13, 0), (4, 365)),
            ((1970, 1, 1), (4, 0)),
        ] {
            assert_eq!(day_numbers(ymd.0, ymd.1, ymd.2), want, "{ymd:?}");
        }
    }

    #[test]
    fn c_casts() {
        for (x, want) in [
            (1.9, 1),
            (-1.9, -1),
            (1e20, i32::MIN),
            (-1e20, i32::MIN),
            (f64::NAN, i32::MIN),
            (2147483647.5, 2147483647),
        ] {
            assert_eq!(c_double_to_int(x), want, "{x}");
        }
    }
}
