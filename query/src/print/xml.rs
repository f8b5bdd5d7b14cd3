//! HTCondor's XML form of ads (xmlSink.cpp): `<c>` ads of `<a n="name">` attributes holding
//! `<i> <r> <s> <b v="t|f"/> <un/> <er/> <at> <rt> <l> <c>`, and `<e>` for any other expression
//! (its new-syntax text with `& < >` as entities).

use super::real::{fmt_e, rel_time_text, write_abs_time};
use super::unparse::{Unparser, MAX_PRINT_DEPTH};
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::value::Value;
use std::fmt::Write;

/// The document header HTCondor's tools print before the ads.
pub const XML_HEADER: &str =
    "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";
/// The document footer.
pub const XML_FOOTER: &str = "</classads>\n";

struct XmlOut<'o> {
    out: &'o mut String,
    /// Attributes on their own indented lines (HTCondor's non-compact spacing).
    spaced: bool,
    depth: u32,
}

impl XmlOut<'_> {
    fn ad(&mut self, ad: &ClassAd, indent: usize) {
        self.depth += 1;
        if self.depth > MAX_PRINT_DEPTH {
            self.out.push_str("<er/>");
            self.depth -= 1;
            return;
        }
        self.out.push_str("<c>");
        if self.spaced {
            self.out.push('\n');
        }
        for (n, e) in ad.iter() {
            if self.spaced {
                self.pad(indent + 4);
            }
            self.out.push_str("<a n=\"");
            let mut name = String::new();
            super::unparse::write_string(&mut name, n.as_str());
            escape_xml(self.out, &name[1..name.len() - 1]);
            self.out.push_str("\">");
            self.expr(e, indent + 4);
            self.out.push_str("</a>");
            if self.spaced {
                self.out.push('\n');
            }
        }
        if self.spaced {
            self.pad(indent);
        }
        self.out.push_str("</c>");
        if self.spaced && indent == 0 {
            self.out.push('\n');
        }
        self.depth -= 1;
    }

    fn pad(&mut self, n: usize) {
        for _ in 0..n {
            self.out.push(' ');
        }
    }

    fn list<T>(&mut self, items: &[T], mut each: impl FnMut(&mut Self, &T)) {
        self.depth += 1;
        if self.depth > MAX_PRINT_DEPTH {
            self.out.push_str("<er/>");
            self.depth -= 1;
            return;
        }
        self.out.push_str("<l>");
        for x in items {
            each(self, x);
        }
        self.out.push_str("</l>");
        self.depth -= 1;
    }

    fn expr(&mut self, e: &Expr, indent: usize) {
        match e {
            // A relative-time literal reads as a real (`Value::as_evaluated`), and HTCondor's
            // XML printer writes the literal as its value reads: `<r>`, not `<rt>`.
            Expr::Lit(v) => self.value(&v.as_evaluated(), indent),
            Expr::List(items) => self.list(items, |x, e| x.expr(e, indent)),
            Expr::Ad(ad) => self.ad(ad, indent),
            other => {
                let mut s = String::new();
                Unparser::new(&mut s).expr(other);
                self.out.push_str("<e>");
                escape_xml(self.out, &s);
                self.out.push_str("</e>");
            }
        }
    }

    fn value(&mut self, v: &Value, indent: usize) {
        match v {
            Value::Undefined => self.out.push_str("<un/>"),
            Value::Error => self.out.push_str("<er/>"),
            Value::Bool(b) => self
                .out
                .push_str(if *b { "<b v=\"t\"/>" } else { "<b v=\"f\"/>" }),
            Value::Int(i) => {
                let _ = write!(self.out, "<i>{i}</i>");
            }
            Value::Real(r) => {
                self.out.push_str("<r>");
                self.out.push_str(&xml_real(*r));
                self.out.push_str("</r>");
            }
            Value::Str(s) => {
                let mut lit = String::new();
                super::unparse::write_string(&mut lit, s);
                // HTCondor writes strings with no delimiter, so quotes stay unescaped.
                let body = lit[1..lit.len() - 1].replace("\\\"", "\"");
                self.out.push_str("<s>");
                escape_xml(self.out, &body);
                self.out.push_str("</s>");
            }
            Value::AbsTime(t) => {
                self.out.push_str("<at>");
                write_abs_time(self.out, *t);
                self.out.push_str("</at>");
            }
            Value::RelTime(t) => match rel_time_text(*t) {
                Some(s) => {
                    let _ = write!(self.out, "<rt>{s}</rt>");
                }
                None => {
                    let mut s = String::new();
                    Unparser::new(&mut s).value(v);
                    self.out.push_str("<e>");
                    escape_xml(self.out, &s);
                    self.out.push_str("</e>");
                }
            },
            Value::List(items) => self.list(items, |x, v| x.value(v, indent)),
            Value::Ad(ad) => self.ad(ad, indent),
        }
    }
}

/// A real as HTCondor's XML writes it (`%1.15E`, `NaN`, `INF`, `-INF`), made lossless.
fn xml_real(r: f64) -> String {
    if r.is_nan() {
        "NaN".into()
    } else if r.is_infinite() {
        if r > 0.0 { "INF" } else { "-INF" }.into()
    } else if r == 0.0 {
        if r.is_sign_negative() { "-0.0" } else { "0.0" }.into()
    } else {
        let s = fmt_e(r, 15);
        if s.parse::<f64>().is_ok_and(|y| y.to_bits() == r.to_bits()) {
            s
        } else {
            fmt_e(r, 16)
        }
    }
}

/// Escapes `& < >` as entities (the only ones HTCondor writes).
pub fn escape_xml(out: &mut String, s: &str) {
    let mut run = 0;
    for (i, c) in s.char_indices() {
        let rep = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            _ => continue,
        };
        out.push_str(&s[run..i]);
        out.push_str(rep);
        run = i + 1;
    }
    out.push_str(&s[run..]);
}

/// Appends `ad` as one `<c>` element; `spaced` puts each attribute on its own indented line as
/// HTCondor's tools do, otherwise everything is on one line (HTCondor's compact spacing).
pub fn write_ad_xml(out: &mut String, ad: &ClassAd, spaced: bool) {
    XmlOut {
        out,
        spaced,
        depth: 0,
    }
    .ad(ad, 0);
}

/// Several ads as a complete XML document (header, `<classads>`, spaced ads, footer).
pub fn ads_to_xml(ads: &[ClassAd]) -> String {
    let mut s = String::from(XML_HEADER);
    for ad in ads {
        write_ad_xml(&mut s, ad, true);
    }
    s.push_str(XML_FOOTER);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn writes_xml() {
        let ad = parse::classad(
            r#"[a = 1; b = 1.5; s = "x&<>\"'\n"; t = true; u = undefined; e = error;
                l = {1, "a"}; c = [x = 2]; x = a && b < 3; at = absTime("2004-01-01T00:00:00-06:00");
                rt = relTime("1:00"); 'n"m' = -0.0]"#,
        )
        .unwrap();
        let mut s = String::new();
        write_ad_xml(&mut s, &ad, false);
        let want = "<c><a n=\"a\"><i>1</i></a><a n=\"b\"><r>1.500000000000000E+00</r></a>\
            <a n=\"s\"><s>x&amp;&lt;&gt;\"'\\n</s></a><a n=\"t\"><b v=\"t\"/></a><a n=\"u\"><un/></a>\
            <a n=\"e\"><er/></a><a n=\"l\"><l><i>1</i><s>a</s></l></a><a n=\"c\"><c><a n=\"x\"><i>2</i></a></c></a>\
            <a n=\"x\"><e>a &amp;&amp; b &lt; 3</e></a><a n=\"at\"><at>2004-01-01T00:00:00-06:00</at></a>\
            <a n=\"rt\"><r>6.000000000000000E+01</r></a><a n=\"n\\\"m\"><r>-0.0</r></a></c>";
        assert_eq!(s, want);
        let doc = ads_to_xml(&[ad.clone(), ad.clone()]);
        assert!(doc.starts_with(XML_HEADER) && doc.ends_with(XML_FOOTER));
        assert!(doc.contains("<c>\n    <a n=\"a\"><i>1</i></a>\n"));
        let back = parse::ads(&doc, parse::Format::Xml).unwrap();
        assert_eq!(back.len(), 2);
        // The relative-time literal comes back as the real it reads as.
        let rt_read = ad
            .to_string()
            .replace("relTime(\"01:00\")", "6.000000000000000E+01");
        assert_eq!(back[1].to_string(), rt_read);
    }
}
