//! Printing reals and times losslessly in HTCondor's shapes.
//!
//! HTCondor prints reals with `%1.15E` (new syntax) or `%.16G` (old syntax): 16 significant
//! digits, which loses the last digit of some doubles. We print the same shape with 16
//! significant digits when that reads back to the identical double, and with 17 otherwise, so
//! every real round-trips.

use crate::calendar::civil_from_days;
use crate::parse::time_string::rel_time_from_string;
use crate::value::AbsTime;
use std::fmt::Write;

/// `x` in C's `%.{prec}E` form: `d.ddd…E±XX` (at least two exponent digits).
pub fn fmt_e(x: f64, prec: usize) -> String {
    let s = format!("{x:.prec$e}");
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mant}E{sign}{:02}", exp.unsigned_abs())
}

/// `x` in C's `%.{prec}G` form (`prec` ≥ 1): fixed or exponent notation by the exponent, with
/// trailing zeros removed.
pub fn fmt_g(x: f64, prec: usize) -> String {
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.to_string();
    }
    let prec = prec.max(1);
    let e = format!("{x:.p$e}", p = prec - 1);
    let (mant, exp) = e.split_once('e').unwrap_or((&e, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    if exp < -4 || exp >= prec as i32 {
        let mant = strip_zeros(mant);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{mant}E{sign}{:02}", exp.unsigned_abs())
    } else {
        let decimals = (prec as i32 - 1 - exp).max(0) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

/// Removes trailing zeros after a decimal point, and the point if nothing follows it.
fn strip_zeros(s: &str) -> &str {
    if !s.contains('.') {
        return s;
    }
    s.trim_end_matches('0').trim_end_matches('.')
}

fn reads_back(s: &str, x: f64) -> bool {
    s.parse::<f64>().is_ok_and(|y| y.to_bits() == x.to_bits())
}

/// Non-finite reals as HTCondor spells them, `None` for finite ones.
pub fn non_finite(x: f64) -> Option<&'static str> {
    if x.is_nan() {
        Some("real(\"NaN\")")
    } else if x == f64::INFINITY {
        Some("real(\"INF\")")
    } else if x == f64::NEG_INFINITY {
        Some("real(\"-INF\")")
    } else {
        None
    }
}

/// Appends a real in new syntax: `1.500000000000000E+00`, `0.0`, `-0.0`, `real("INF")`.
pub fn write_real(out: &mut String, x: f64) {
    let start = out.len();
    write_real_htcondor(out, x);
    if x.is_finite() && x != 0.0 && !reads_back(&out[start..], x) {
        out.truncate(start);
        out.push_str(&fmt_e(x, 16));
    }
}

/// Appends a real exactly as HTCondor prints one in new syntax: `%.15E` (16 significant
/// digits, which may not read back as the same double), `0.0`, `-0.0`, `real("INF")`, ….
pub fn write_real_htcondor(out: &mut String, x: f64) {
    match non_finite(x) {
        Some(s) => out.push_str(s),
        None if x == 0.0 => out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" }),
        None => out.push_str(&fmt_e(x, 15)),
    }
}

/// Appends a real in old syntax: `%.16G`, with `.0` added when that looks like an integer.
pub fn write_real_old(out: &mut String, x: f64) {
    if let Some(s) = non_finite(x) {
        out.push_str(s);
    } else if x == 0.0 {
        out.push_str(if x.is_sign_negative() { "-0.0" } else { "0.0" });
    } else {
        let mut s = fmt_g(x, 16);
        if !reads_back(&s, x) {
            s = fmt_g(x, 17);
        }
        if !s.contains(['.', 'E', 'e']) {
            s.push_str(".0");
        }
        out.push_str(&s);
    }
}

/// Appends HTCondor's text for an absolute time, `2004-01-01T00:00:00-06:00` (the wall-clock
/// time at its own offset; a zero offset prints as `-00:00`). Years below 1000 are zero-padded
/// (`0011-12-31T…`) so the text reads back; HTCondor prints `11-12-31T…`, which it cannot read.
pub fn write_abs_time(out: &mut String, t: AbsTime) {
    let local = t.secs.saturating_add(i64::from(t.offset));
    let days = local.div_euclid(86_400);
    let sod = local.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    let _ = write!(
        out,
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}",
        sod / 3600,
        sod / 60 % 60,
        sod % 60
    );
    let sign = if t.offset > 0 { '+' } else { '-' };
    let off = t.offset.unsigned_abs();
    let _ = write!(out, "{sign}{:02}:{:02}", off / 3600, off / 60 % 60);
}

/// HTCondor's text for a relative time, `[-][D+]hh:mm:ss` with leading zero fields dropped
/// (`2+01:14:16.123`, `01:00`, `05`). Fractional seconds get as many digits as the value needs
/// to read back exactly. A value that form cannot carry (from 2^31 seconds on, where the
/// reading of days overflows as HTCondor's does) is written as plain seconds
/// (`10000000000`), which read back exactly; `None` only for non-finite values.
pub fn rel_time_text(secs: f64) -> Option<String> {
    if !secs.is_finite() {
        return None;
    }
    let reads_back =
        |s: &str| rel_time_from_string(s).is_some_and(|v| v.to_bits() == secs.to_bits());
    if secs.abs() < 9.0e15 {
        for prec in 6..=17 {
            let s = rel_time_with(secs, prec);
            if reads_back(&s) {
                return Some(s);
            }
            if secs.fract() == 0.0 && secs != 0.0 {
                break;
            }
        }
        if secs == 0.0 {
            return Some("00".to_string());
        }
    }
    Some(format!("{secs}")).filter(|s| reads_back(s))
}

fn rel_time_with(secs: f64, prec: usize) -> String {
    let mut out = String::new();
    let mut r = secs;
    if r < 0.0 {
        out.push('-');
        r = -r;
    }
    let frac = r - r.floor();
    let whole = r.floor() as i64;
    let days = whole / 86_400;
    let hrs = whole % 86_400 / 3600;
    let mins = whole % 3600 / 60;
    let s_int = whole % 60;
    let secs_txt = if frac == 0.0 {
        format!("{s_int:02}")
    } else {
        let g = fmt_g(s_int as f64 + frac, prec);
        if g.len() < 2 {
            format!("0{g}")
        } else {
            g
        }
    };
    if days != 0 {
        let _ = write!(out, "{days}+{hrs:02}:{mins:02}:{secs_txt}");
    } else if hrs != 0 {
        let _ = write!(out, "{hrs:02}:{mins:02}:{secs_txt}");
    } else if mins != 0 {
        let _ = write!(out, "{mins:02}:{secs_txt}");
    } else {
        out.push_str(&secs_txt);
    }
    out
}

/// Appends a relative time in new syntax: `relTime("…")`, or `relTime(<real>)` when no string
/// form reads back exactly.
pub fn write_rel_time(out: &mut String, secs: f64) {
    match rel_time_text(secs) {
        Some(s) => {
            out.push_str("relTime(\"");
            out.push_str(&s);
            out.push_str("\")");
        }
        None => {
            out.push_str("relTime(");
            write_real(out, secs);
            out.push(')');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new(x: f64) -> String {
        let mut s = String::new();
        write_real(&mut s, x);
        s
    }

    fn old(x: f64) -> String {
        let mut s = String::new();
        write_real_old(&mut s, x);
        s
    }

    #[test]
    fn reals_new_syntax() {
        let cases: &[(f64, &str)] = &[
            (1.5, "1.500000000000000E+00"),
            (1e10, "1.000000000000000E+10"),
            (0.1, "1.000000000000000E-01"),
            (1e100, "1.000000000000000E+100"),
            (-1500.0, "-1.500000000000000E+03"),
            (0.0, "0.0"),
            (-0.0, "-0.0"),
            (0.30000000000000004, "3.0000000000000004E-01"),
            (123456789.12345679, "1.2345678912345679E+08"),
            (5e-324, "4.940656458412465E-324"),
            (f64::INFINITY, "real(\"INF\")"),
            (f64::NEG_INFINITY, "real(\"-INF\")"),
            (f64::NAN, "real(\"NaN\")"),
        ];
        for (x, want) in cases {
            assert_eq!(new(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn reals_old_syntax() {
        let cases: &[(f64, &str)] = &[
            (1.5, "1.5"),
            (1.0, "1.0"),
            (1e20, "1E+20"),
            (0.0001, "0.0001"),
            (0.00001, "1E-05"),
            (1.0 / 3.0, "0.3333333333333333"),
            (0.1, "0.1"),
            (0.30000000000000004, "0.30000000000000004"),
            (1e15, "1000000000000000.0"),
            (1e16, "1E+16"),
        ];
        for (x, want) in cases {
            assert_eq!(old(*x), *want, "{x:e}");
        }
    }

    #[test]
    fn times() {
        let mut s = String::new();
        write_abs_time(
            &mut s,
            AbsTime {
                secs: 1_072_936_800,
                offset: -21600,
            },
        );
        assert_eq!(s, "2004-01-01T00:00:00-06:00");
        let mut s = String::new();
        write_abs_time(&mut s, AbsTime { secs: 0, offset: 0 });
        assert_eq!(s, "1970-01-01T00:00:00-00:00");
        let mut s = String::new();
        write_abs_time(
            &mut s,
            AbsTime {
                secs: 0,
                offset: 19800,
            },
        );
        assert_eq!(s, "1970-01-01T05:30:00+05:30");
        let rel: &[(f64, &str)] = &[
            (177_256.123, "2+01:14:16.123"),
            (60.0, "01:00"),
            (-60.0, "-01:00"),
            (5.0, "05"),
            (0.0, "00"),
            (86400.0, "1+00:00:00"),
            (3723.0, "01:02:03"),
            (0.5, "0.5"),
            (61.25, "01:1.25"),
        ];
        for (x, want) in rel {
            assert_eq!(rel_time_text(*x).as_deref(), Some(*want), "{x}");
        }
        for x in [0.1, 1.0 / 3.0, 86_399.999_999_9, 123_456_789.000_1] {
            let t = rel_time_text(x).unwrap();
            assert_eq!(rel_time_from_string(&t), Some(x), "{t}");
        }
    }
}
