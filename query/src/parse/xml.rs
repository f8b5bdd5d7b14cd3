//! HTCondor's XML form of ads (xmlSource.cpp, xmlLexer.cpp): `<classads>` holding `<c>` ads of
//! `<a n="name">` attributes, each holding one of `<i> <r> <s> <b v="t|f"/> <un/> <er/> <at> <rt>
//! <e> <l> <c>`. The entities `&amp; &lt; &gt;` are decoded (only those, as HTCondor: `&quot;`,
//! `&apos;` and `&#65;` stay as written); string contents
//! and attribute names then go through ClassAd escapes, as HTCondor does. The `<?xml?>`,
//! `<!DOCTYPE>` and `<classads>` wrappers are optional.

use super::ad::insert_keeping_spelling;
use super::expr::{Parser, MAX_DEPTH, MAX_NESTING};
use super::lexer::{convert_escapes, error_at, Lexer, TokenKind};
use super::time_string::{abs_time_from_string, rel_time_from_string};
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::error::ParseError;
use crate::functions::convert::strtod;
use crate::name::Name;
use crate::value::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// Every `<c>` ad in `text`.
pub fn xml_ads(text: &str) -> Result<Vec<ClassAd>, ParseError> {
    let mut x = Xml {
        src: text,
        pos: 0,
        nest: 0,
    };
    let mut out = Vec::new();
    loop {
        x.skip_ws();
        if x.pos >= text.len() {
            return Ok(out);
        }
        let tag = x.tag()?;
        match (tag.name, tag.kind) {
            ("c", Kind::Start) => out.push(x.ad_body(tag.at)?.0),
            ("c", Kind::Empty) => out.push(ClassAd::new()),
            ("classads", _)
            | ("?xml", _)
            | ("?xml-stylesheet", _)
            | ("!DOCTYPE", _)
            | ("!--", _) => {}
            (name, _) => {
                return Err(error_at(
                    text,
                    tag.at,
                    format!("expected <c>, found <{name}>"),
                ));
            }
        }
    }
}

/// Whether a tag opens, closes, or is an empty element.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(super) enum Kind {
    Start,
    End,
    Empty,
}

/// The name, kind and attribute text of the tag whose text between `<` and `>` is `inner`
/// (`c`, `/c`, `c/`, `a n="x"`, white space anywhere around them). The recovering reader
/// ([`super::reader`]) finds ads' `<c>` elements with it, as the parser reads them.
pub(super) fn classify_tag(inner: &str) -> (&str, Kind, &str) {
    let mut inner = inner.trim();
    let mut kind = Kind::Start;
    if let Some(r) = inner.strip_prefix('/') {
        kind = Kind::End;
        inner = r.trim_start();
    } else if let Some(r) = inner.strip_suffix('/') {
        kind = Kind::Empty;
        inner = r;
    }
    let name_end = inner
        .find(|c: char| c.is_ascii_whitespace())
        .unwrap_or(inner.len());
    (&inner[..name_end], kind, &inner[name_end..])
}

struct Tag<'s> {
    name: &'s str,
    kind: Kind,
    /// The raw attribute text (after the name).
    attrs: &'s str,
    at: usize,
}

struct Xml<'s> {
    src: &'s str,
    pos: usize,
    nest: u32,
}

type Parsed = Result<(Expr, u32), ParseError>;

impl<'s> Xml<'s> {
    fn err(&self, at: usize, msg: impl Into<String>) -> ParseError {
        error_at(self.src, at, msg)
    }

    fn skip_ws(&mut self) {
        let rest = &self.src[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    /// The tag at the cursor (after white space). Comments `<!-- … -->` come back as `!--`.
    fn tag(&mut self) -> Result<Tag<'s>, ParseError> {
        self.skip_ws();
        let at = self.pos;
        let rest = &self.src[at..];
        if !rest.starts_with('<') {
            let what = rest
                .chars()
                .next()
                .map_or("end of input".into(), |c| format!("'{c}'"));
            return Err(self.err(at, format!("expected a tag, found {what}")));
        }
        if let Some(body) = rest.strip_prefix("<!--") {
            let end = body
                .find("-->")
                .ok_or_else(|| self.err(at, "unterminated comment"))?;
            self.pos = at + 4 + end + 3;
            return Ok(Tag {
                name: "!--",
                kind: Kind::Empty,
                attrs: "",
                at,
            });
        }
        let close = rest
            .find('>')
            .ok_or_else(|| self.err(at, "unterminated tag"))?;
        self.pos = at + close + 1;
        let (name, kind, attrs) = classify_tag(&rest[1..close]);
        Ok(Tag {
            name,
            kind,
            attrs,
            at,
        })
    }

    fn enter(&mut self, at: usize) -> Result<(), ParseError> {
        if self.nest >= MAX_NESTING {
            return Err(self.err(at, format!("XML nested too deeply (limit {MAX_NESTING})")));
        }
        self.nest += 1;
        Ok(())
    }

    fn check(&self, d: u32, at: usize) -> Result<u32, ParseError> {
        if d > MAX_DEPTH {
            Err(self.err(
                at,
                format!("expression nested too deeply (limit {MAX_DEPTH})"),
            ))
        } else {
            Ok(d)
        }
    }

    /// The attributes of an ad whose `<c>` was just read, through its `</c>`.
    fn ad_body(&mut self, at: usize) -> Result<(ClassAd, u32), ParseError> {
        self.enter(at)?;
        let mut ad = ClassAd::new();
        let mut d = 0;
        loop {
            let tag = self.tag()?;
            match (tag.name, tag.kind) {
                ("c", Kind::End) => break,
                ("a", Kind::Start) => {
                    let name = attr_value(tag.attrs, "n")
                        .filter(|n| !n.is_empty())
                        .ok_or_else(|| self.err(tag.at, "<a> without a name n=\"…\""))?;
                    let name = decode_name(&name)
                        .filter(|n| !n.contains('\0'))
                        .ok_or_else(|| self.err(tag.at, "invalid escape in attribute name"))?;
                    let (e, de) = self.thing()?;
                    self.end_tag("a")?;
                    d = d.max(de);
                    insert_keeping_spelling(&mut ad, Name::new(&name), e);
                }
                ("!--", _) => {}
                (name, _) => {
                    return Err(self.err(tag.at, format!("expected <a> or </c>, found <{name}>")));
                }
            }
        }
        self.nest -= 1;
        Ok((ad, self.check(d + 1, at)?))
    }

    fn end_tag(&mut self, name: &str) -> Result<(), ParseError> {
        let tag = self.tag()?;
        if tag.kind == Kind::End && tag.name == name {
            Ok(())
        } else {
            Err(self.err(
                tag.at,
                format!(
                    "expected </{name}>, found <{}{}>",
                    if tag.kind == Kind::End { "/" } else { "" },
                    tag.name
                ),
            ))
        }
    }

    /// Text up to the next `<`, entities decoded.
    fn text(&mut self) -> Cow<'s, str> {
        let rest = &self.src[self.pos..];
        let end = rest.find('<').unwrap_or(rest.len());
        self.pos += end;
        decode_entities(&rest[..end])
    }

    /// One value element.
    fn thing(&mut self) -> Parsed {
        let tag = self.tag()?;
        let lit = |v: Value| Ok((Expr::Lit(v), 1));
        let empty = tag.kind == Kind::Empty;
        if tag.kind == Kind::End {
            return Err(self.err(tag.at, format!("expected a value, found </{}>", tag.name)));
        }
        match tag.name {
            "un" | "er" | "b" => {
                let v = match tag.name {
                    "un" => Value::Undefined,
                    "er" => Value::Error,
                    _ => Value::Bool(matches!(
                        attr_value(tag.attrs, "v").as_deref(),
                        Some("t" | "T")
                    )),
                };
                if !empty {
                    self.end_tag(tag.name)?;
                }
                lit(v)
            }
            "c" if empty => Ok((Expr::Ad(Arc::new(ClassAd::new())), 1)),
            "c" => {
                let (ad, d) = self.ad_body(tag.at)?;
                Ok((Expr::Ad(Arc::new(ad)), d))
            }
            "l" if empty => Ok((Expr::List(Vec::new()), 1)),
            "l" => self.list(tag.at),
            "s" | "i" | "r" | "at" | "rt" | "e" => {
                let text_at = self.pos;
                let text = if empty {
                    Cow::Borrowed("")
                } else {
                    self.text()
                };
                if !empty {
                    self.end_tag(tag.name)?;
                }
                self.scalar(tag.name, &text, text_at)
            }
            other => Err(self.err(tag.at, format!("expected a value element, found <{other}>"))),
        }
    }

    fn scalar(&self, kind: &str, text: &str, at: usize) -> Parsed {
        let lit = |v: Value| Ok((Expr::Lit(v), 1));
        let t = text.trim();
        match kind {
            "s" => {
                let s = convert_escapes(Cow::Borrowed(text))
                    .ok_or_else(|| self.err(at, "string contains the escape \\0"))?;
                if s.contains('\0') {
                    return Err(self.err(at, "NUL character in string"));
                }
                lit(Value::Str(Arc::from(&*s)))
            }
            // HTCondor reads a malformed number as `error`.
            "i" => lit(leading_int(t).map_or(Value::Error, Value::Int)),
            // C's `strtod`, as HTCondor reads `<r>`: the longest numeric prefix (`1.5x` is 1.5,
            // `0x10` is 16); error when none.
            "r" => lit(strtod(t).map_or(Value::Error, Value::Real)),
            "at" => abs_time_from_string(t)
                .map(|v| (Expr::Lit(Value::AbsTime(v)), 1))
                .ok_or_else(|| self.err(at, format!("invalid absolute time \"{t}\""))),
            "rt" => rel_time_from_string(t)
                .map(|v| (Expr::Lit(Value::RelTime(v)), 1))
                .ok_or_else(|| self.err(at, format!("invalid relative time \"{t}\""))),
            _ => {
                let mut p = Parser::new(Lexer::new(text, 0)).map_err(|e| self.inner(at, e))?;
                let (e, d) = p.expr().map_err(|e| self.inner(at, e))?;
                if p.peek().kind != TokenKind::End {
                    return Err(self.inner(at, p.expected("end of expression")));
                }
                Ok((e, self.check(d, at)?))
            }
        }
    }

    fn inner(&self, at: usize, e: ParseError) -> ParseError {
        self.err(at, format!("in <e> at {}:{}: {}", e.line, e.col, e.message))
    }

    fn list(&mut self, at: usize) -> Parsed {
        self.enter(at)?;
        let mut items = Vec::new();
        let mut d = 0;
        loop {
            self.skip_ws();
            if self.src[self.pos..].starts_with("</") {
                self.end_tag("l")?;
                break;
            }
            let (e, de) = self.thing()?;
            d = d.max(de);
            items.push(e);
        }
        self.nest -= 1;
        Ok((Expr::List(items), self.check(d + 1, at)?))
    }
}

/// `strtoll(text, 10)`: optional sign and leading digits; `None` when there are none.
fn leading_int(t: &str) -> Option<i64> {
    let b = t.as_bytes();
    // As HTCondor: a leading `-` only (`+3` is error), and a value beyond 64 bits is error.
    let sign = usize::from(b.first() == Some(&b'-'));
    let n = b[sign..].iter().take_while(|c| c.is_ascii_digit()).count();
    if n == 0 {
        return None;
    }
    t[..sign + n].parse().ok()
}

/// The value of attribute `name="…"` in a tag's attribute text (backslash-quoted `\"` allowed,
/// as HTCondor writes it), entities decoded but escapes not yet resolved.
fn attr_value(attrs: &str, name: &str) -> Option<String> {
    let mut rest = attrs;
    loop {
        rest = rest.trim_start();
        if rest.is_empty() {
            return None;
        }
        let key_end = rest.find(|c: char| c == '=' || c.is_ascii_whitespace())?;
        let key = &rest[..key_end];
        rest = rest[key_end..].trim_start_matches(|c: char| c == '=' || c.is_ascii_whitespace());
        let body = rest.strip_prefix('"')?;
        let b = body.as_bytes();
        let mut i = 0;
        while i < b.len() && b[i] != b'"' {
            i += if b[i] == b'\\' { 2 } else { 1 };
        }
        let i = i.min(b.len());
        if key == name {
            return Some(decode_entities(&body[..i]).into_owned());
        }
        rest = body.get(i + 1..).unwrap_or("");
    }
}

/// An attribute name from `n="…"`: ClassAd escapes resolved (HTCondor writes `\"` for `"`).
fn decode_name(raw: &str) -> Option<String> {
    convert_escapes(Cow::Borrowed(raw)).map(Cow::into_owned)
}

/// Replaces `&amp; &lt; &gt;`; other `&…` text (`&quot;`, `&apos;`, `&#65;`) stays as written,
/// as HTCondor's XML lexer leaves it (it writes only these three).
fn decode_entities(s: &str) -> Cow<'_, str> {
    if !s.contains('&') {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let mut done = false;
        for (ent, rep) in [("&amp;", "&"), ("&lt;", "<"), ("&gt;", ">")] {
            if let Some(r) = rest.strip_prefix(ent) {
                out.push_str(rep);
                rest = r;
                done = true;
                break;
            }
        }
        if !done {
            out.push('&');
            rest = &rest[1..];
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        super::super::show_ads(xml_ads(text))
    }

    #[test]
    fn reads_xml() {
        let head =
            "<?xml version=\"1.0\"?>\n<!DOCTYPE classads SYSTEM \"classads.dtd\">\n<classads>\n";
        let cases: Vec<(String, &str)> = vec![
            (format!("{head}<c><a n=\"a\"><i>1</i></a><a n=\"b\"><r>1.5E+00</r></a></c>\n</classads>"),
             "[ a = 1; b = 1.500000000000000E+00 ]"),
            ("<c>\n    <a n=\"s\"><s> x &amp;&lt;\\n\\\"y</s></a>\n</c><c></c>".into(), "[ s = \" x &<\\n\\\"y\" ] | [  ]"),
            ("<c><a n=\"t\"><b v=\"t\"/></a><a n=\"f\"><b v=\"f\"/></a><a n=\"u\"><un/></a><a n=\"e\"><er/></a></c>".into(),
             "[ t = true; f = false; u = undefined; e = error ]"),
            ("<c><a n=\"l\"><l><i>1</i><s>a</s><l></l></l></a><a n=\"c\"><c><a n=\"x\"><i>2</i></a></c></a></c>".into(),
             "[ l = { 1,\"a\",{  } }; c = [ x = 2 ] ]"),
            ("<c><a n=\"e\"><e>a &amp;&amp; b &lt; 3</e></a></c>".into(), "[ e = a && b < 3 ]"),
            ("<c><a n=\"t\"><at>2004-01-01T00:00:00-06:00</at></a><a n=\"r\"><rt>01:00</rt></a></c>".into(),
             "[ t = absTime(\"2004-01-01T00:00:00-06:00\"); r = relTime(\"01:00\") ]"),
            ("<c><a n=\"s\"><s></s></a><a n=\"q\\\"\"><s/></a></c>".into(), "[ s = \"\"; 'q\"' = \"\" ]"),
            // Only `&amp; &lt; &gt;` are entities, as in HTCondor (found by the formats
            // differential run against classad2: adjoin decoded `&quot;` and `&apos;`).
            ("<c><a n=\"s\"><s>&quot;&apos;&#65;&amp;quot;</s></a><a n=\"q\\&quot;\"><s/></a></c>".into(),
             "[ s = \"&quot;&apos;&#65;&quot;\"; 'q&quot;' = \"\" ]"),
            ("<c><a n=\"a&apos;b\"><e>\"a&quot;b\"</e></a></c>".into(), "[ 'a&apos;b' = \"a&quot;b\" ]"),
            ("<c><a n=\"i\"><i>x</i></a><a n=\"r\"><r>INF</r></a></c>".into(), "[ i = error; r = real(\"INF\") ]"),
            ("<c><a n=\"a\"><i>1</i></c>".into(), "ERR 1:21: expected </a>, found </c>"),
            ("<c><a><i>1</i></a></c>".into(), "ERR 1:4: <a> without a name n=\"…\""),
            ("<c><a n=\"e\"><e>1 +</e></a></c>".into(), "ERR 1:16: in <e> at 1:4: expected an expression, found end of input"),
            ("<c><a n=\"x\"><zz/></a></c>".into(), "ERR 1:13: expected a value element, found <zz>"),
            ("<c><a n=\"x\"><i>1</i></a>".into(), "ERR 1:25: expected a tag, found end of input"),
        ];
        for (text, want) in &cases {
            assert_eq!(show(text), *want, "input {text}");
        }
    }

    /// `<i>` and `<r>` read as HTCondor reads them (found by the formats differential run
    /// against classad2: adjoin read `<i>+3</i>` as 3, an overflowing `<i>` as 0, and
    /// `<r>0x10</r>`, `<r>1.5x</r>` as error).
    #[test]
    fn numbers_read_like_htcondor() {
        let cases: &[(&str, &str)] = &[
            ("<i>+3</i>", "error"),
            ("<i> 5 </i>", "5"),
            ("<i>9223372036854775808</i>", "error"),
            ("<i>-9223372036854775808</i>", "-9223372036854775808"),
            ("<i>-9223372036854775809</i>", "error"),
            ("<i>007</i>", "7"),
            ("<i>0x10</i>", "0"),
            ("<i>1.5</i>", "1"),
            ("<i>12abc</i>", "12"),
            ("<i>-</i>", "error"),
            ("<r>+1.5</r>", "1.500000000000000E+00"),
            ("<r> 2.5</r>", "2.500000000000000E+00"),
            ("<r>1e400</r>", "real(\"INF\")"),
            ("<r>0x10</r>", "1.600000000000000E+01"),
            ("<r>0x1p3</r>", "8.000000000000000E+00"),
            ("<r>1.5x</r>", "1.500000000000000E+00"),
            ("<r>1e</r>", "1.000000000000000E+00"),
            ("<r>-INF</r>", "real(\"-INF\")"),
            ("<r>nan</r>", "real(\"NaN\")"),
            ("<r>-</r>", "error"),
            ("<r>x</r>", "error"),
            ("<r>.5</r>", "5.000000000000000E-01"),
        ];
        for (v, want) in cases {
            let text = format!("<c><a n=\"b\">{v}</a></c>");
            assert_eq!(show(&text), format!("[ b = {want} ]"), "{v}");
        }
    }

    #[test]
    fn deep_xml_is_an_error() {
        let deep = format!(
            "<c><a n=\"a\">{}<i>1</i>{}</a></c>",
            "<l>".repeat(100_000),
            "</l>".repeat(100_000)
        );
        assert!(xml_ads(&deep).unwrap_err().message.contains("too deeply"));
    }
}
