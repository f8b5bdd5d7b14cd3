//! Printing ads, expressions and values: canonical new syntax (the `Display` impls), old syntax,
//! JSON and XML.
//!
//! `Display` prints HTCondor's compact unparse: `a + b * 2`, `[ a = 1; b = "x" ]`, `{ 1,2 }`,
//! ` -a` (unary operators carry a leading space, as in HTCondor), reals as
//! `1.500000000000000E+00` (17 digits when 16 would not read back exactly).

pub mod json;
pub mod old;
pub mod real;
pub mod unparse;
pub mod xml;

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::value::{Val, Value};
pub use json::{ad_to_json, ads_to_json, write_ad_json};
pub use old::{ad_to_old, ads_to_old, write_ad_old};
use std::fmt;
pub use unparse::{is_plain_name, write_name, write_string, Unparser};
pub use xml::{ads_to_xml, write_ad_xml};

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Unparser::new(&mut s).expr(self);
        f.write_str(&s)
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Unparser::new(&mut s).value(self);
        f.write_str(&s)
    }
}

impl fmt::Display for ClassAd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Unparser::new(&mut s).ad(self);
        f.write_str(&s)
    }
}

impl fmt::Display for Val<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        Unparser::new(&mut s).val(self);
        f.write_str(&s)
    }
}

/// The text `string()` and `strcat()` make of a value, as HTCondor converts: a string's own
/// characters (no quotes, no escapes); an absolute time as its bare text
/// (`2004-01-01T00:00:00-06:00`); a relative time as its bare text truncated to whole seconds
/// (`01:01` for 61.25 s); any other value unparsed in new syntax (`1`,
/// `1.500000000000000E+00`, `true`, `undefined`, `{ 1,"a" }`, `[ a = 1 ]`).
pub fn value_to_string(v: &Val<'_>) -> String {
    let mut s = String::new();
    write_value_str(&mut s, v);
    s
}

/// Appends what [`value_to_string`] returns.
pub fn write_value_str(out: &mut String, v: &Val<'_>) {
    match *v {
        Val::Str(s) => out.push_str(s),
        Val::AbsTime(t) => real::write_abs_time(out, t),
        Val::RelTime(t) => match real::rel_time_text(t.trunc()) {
            Some(s) => out.push_str(&s),
            None => real::write_real(out, t),
        },
        // Text made by string()/strcat() is data: HTCondor's text exactly (`%.15E` reals, here
        // and inside lists and ads), not the lossless form expressions print with.
        other => Unparser::htcondor(out).val(&other),
    }
}

/// An evaluation's result as HTCondor prints one (`ClassAdUnParser` of the value, what
/// `classad_eval`, `condor_status -af` and classad2's `repr` show): the compact new syntax with
/// reals as `%.15E` and a relative time in whole seconds (`relTime("12")` for 12.5 s). Text for
/// people and tools comparing with HTCondor; an ad's expressions print losslessly elsewhere.
pub fn result_to_htcondor(v: &Value) -> String {
    let mut s = String::new();
    match v {
        Value::RelTime(t) => Unparser::htcondor(&mut s).value(&Value::RelTime(t.trunc())),
        v => Unparser::htcondor(&mut s).value(v),
    }
    s
}

/// An expression in old syntax's spelling (`=?=`/`=!=`, `%.16G` reals, strings unescaped but
/// for `\"`).
pub fn expr_to_old_string(e: &Expr) -> String {
    let mut s = String::new();
    Unparser::old(&mut s).expr(e);
    s
}

#[cfg(test)]
mod tests;
