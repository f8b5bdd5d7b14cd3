//! HTCondor's JSON form of ads (jsonSink.cpp): objects indented by two spaces, literals as JSON
//! values (`undefined` is `null`; reals in `%.16G` style, made lossless), lists as arrays, nested
//! ads as objects, and any other expression as the string `"\/Expr(<new syntax>)\/"`.

use super::real::{write_abs_time, write_real, write_real_old};
use super::unparse::{Unparser, MAX_PRINT_DEPTH};
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::value::Value;
use std::fmt::Write;

/// A JSON writer: pretty (HTCondor's default) or on one line.
struct JsonOut<'o> {
    out: &'o mut String,
    oneline: bool,
    indent: usize,
    depth: u32,
}

impl JsonOut<'_> {
    fn newline(&mut self) {
        if !self.oneline {
            self.out.push('\n');
            for _ in 0..self.indent {
                self.out.push(' ');
            }
        }
    }

    fn ad(&mut self, ad: &ClassAd) {
        if self.too_deep() {
            return;
        }
        self.out.push('{');
        self.indent += 2;
        for (i, (n, e)) in ad.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline();
            self.out.push('"');
            escape_json(self.out, n.as_str());
            self.out.push_str("\": ");
            self.expr(e);
        }
        self.indent -= 2;
        self.newline();
        self.out.push('}');
        self.depth -= 1;
    }

    fn too_deep(&mut self) -> bool {
        self.depth += 1;
        if self.depth > MAX_PRINT_DEPTH {
            self.depth -= 1;
            self.out.push_str("\"\\/Expr(error)\\/\"");
            return true;
        }
        false
    }

    fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        if self.too_deep() {
            return;
        }
        self.out.push('[');
        self.indent += 2;
        for (i, x) in items.iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            self.newline();
            each(self, x);
        }
        self.indent -= 2;
        self.newline();
        self.out.push(']');
        self.depth -= 1;
    }

    fn expr(&mut self, e: &Expr) {
        match e {
            // A relative-time literal reads as a real (`Value::as_evaluated`), and HTCondor's
            // JSON printer writes the literal as its value reads: `relTime("01:00")` is `3600.0`.
            Expr::Lit(v) => self.value(&v.as_evaluated()),
            Expr::List(items) => self.list(items, |j, x| j.expr(x)),
            Expr::Ad(ad) => self.ad(ad),
            other => {
                let mut s = String::new();
                Unparser::new(&mut s).expr(other);
                self.quoted_expr(&s);
            }
        }
    }

    fn value(&mut self, v: &Value) {
        match v {
            Value::Undefined => self.out.push_str("null"),
            Value::Error => self.quoted_expr("error"),
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => {
                let _ = write!(self.out, "{i}");
            }
            Value::Real(r) if r.is_finite() => write_real_old(self.out, *r),
            Value::Real(r) => {
                let mut s = String::new();
                write_real(&mut s, *r);
                self.quoted_expr(&s);
            }
            Value::Str(s) => {
                self.out.push('"');
                escape_json(self.out, s);
                self.out.push('"');
            }
            Value::AbsTime(t) => {
                let mut s = String::from("absTime(\"");
                write_abs_time(&mut s, *t);
                s.push_str("\")");
                self.quoted_expr(&s);
            }
            Value::RelTime(_) => {
                let mut s = String::new();
                Unparser::new(&mut s).value(v);
                self.quoted_expr(&s);
            }
            Value::List(items) => self.list(items, |j, x| j.value(x)),
            Value::Ad(ad) => self.ad(ad),
        }
    }

    fn quoted_expr(&mut self, text: &str) {
        self.out.push_str("\"\\/Expr(");
        escape_json(self.out, text);
        self.out.push_str(")\\/\"");
    }
}

/// Escapes `s` for a JSON string as HTCondor does: `\"`, `\\`, `\b \f \n \r \t`, other control
/// characters as `\u00XX`; everything else (including non-ASCII) as is.
pub fn escape_json(out: &mut String, s: &str) {
    let mut run = 0;
    for (i, c) in s.char_indices() {
        let esc = match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\u{8}' => "\\b",
            '\u{c}' => "\\f",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            c if (c as u32) < 0x20 => "",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{:04X}", c as u32);
        } else {
            out.push_str(esc);
        }
        run = i + c.len_utf8();
    }
    out.push_str(&s[run..]);
}

/// Appends `ad` as a JSON object, pretty-printed like HTCondor's `printJson`, or on one line.
pub fn write_ad_json(out: &mut String, ad: &ClassAd, oneline: bool) {
    JsonOut {
        out,
        oneline,
        indent: 0,
        depth: 0,
    }
    .ad(ad);
}

/// `ad` as a pretty-printed JSON object.
pub fn ad_to_json(ad: &ClassAd) -> String {
    let mut s = String::new();
    write_ad_json(&mut s, ad, false);
    s
}

/// Several ads as a JSON array of objects (`[\n{…},\n{…}\n]\n`, as HTCondor's tools print them).
pub fn ads_to_json(ads: &[ClassAd]) -> String {
    let mut s = String::from("[\n");
    for (i, ad) in ads.iter().enumerate() {
        if i > 0 {
            s.push_str(",\n");
        }
        write_ad_json(&mut s, ad, false);
    }
    s.push_str("\n]\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn prints_like_print_json() {
        let ad = parse::classad(
            r#"[a = 1; b = 1.5; c = "x\"y\\z\n\t/"; d = true; e = undefined; f = error;
                g = {1, "a", {}}; h = [x = 1; y = []]; i = a + 1; l = -0.0; m = real("INF");
                o = 1e100; p = 0.1; s = (1); v = "\001"; w = "é"]"#,
        )
        .unwrap();
        let want = r#"{
  "a": 1,
  "b": 1.5,
  "c": "x\"y\\z\n\t/",
  "d": true,
  "e": null,
  "f": "\/Expr(error)\/",
  "g": [
    1,
    "a",
    [
    ]
  ],
  "h": {
    "x": 1,
    "y": {
    }
  },
  "i": "\/Expr(a + 1)\/",
  "l": -0.0,
  "m": "\/Expr(real(\"INF\"))\/",
  "o": 1E+100,
  "p": 0.1,
  "s": "\/Expr((1))\/",
  "v": "\u0001",
  "w": "é"
}"#;
        assert_eq!(ad_to_json(&ad), want);
        let back =
            parse::ads(&ads_to_json(&[ad.clone(), ad.clone()]), parse::Format::Json).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].to_string(), ad.to_string());
        let mut one = String::new();
        write_ad_json(
            &mut one,
            &parse::classad("[a = {1}; b = [c = 2]]").unwrap(),
            true,
        );
        assert_eq!(one, r#"{"a": [1],"b": {"c": 2}}"#);
    }

    #[test]
    fn relative_time_literals_print_as_reals() {
        // classad2's printJson: a literal `relTime("…")` is the real it evaluates to; a call
        // that stays a call is an expression.
        let ad = parse::classad(
            r#"[a = relTime("1+02:03:04"); b = {relTime("01:00:00")}; c = relTime(1.5)]"#,
        )
        .unwrap();
        let mut one = String::new();
        write_ad_json(&mut one, &ad, true);
        assert_eq!(
            one,
            r#"{"a": 93784.0,"b": [3600.0],"c": "\/Expr(relTime(1.500000000000000E+00))\/"}"#
        );
    }
}
