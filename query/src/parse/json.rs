//! HTCondor's JSON form of ads (jsonSource.cpp): an ad is an object, a file is an object, a
//! sequence of objects, or an array of objects. Strings, numbers (real when written with `.` or
//! an exponent), `true`/`false`, `null` (= `undefined`), arrays (lists) and objects (nested ads);
//! a string written `"\/Expr(<expression>)\/"` carries any other expression in new syntax.
//! Tokens are read as HTCondor's lexer reads them in JSON mode: numbers as ClassAds write them
//! (`.5`, `01.5`), comments skipped, strings separated by white space joined.
//!
//! Hand-written rather than serde_json because the expression marker is recognised by its raw
//! spelling (`\/` rather than `/`), which a JSON library erases.

use super::ad::insert_keeping_spelling;
use super::expr::{Parser, MAX_DEPTH, MAX_NESTING};
use super::lexer::{error_at, is_space, skip_blank_at, Lexer, TokenKind};
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::error::ParseError;
use crate::name::Name;
use crate::value::Value;
use std::borrow::Cow;
use std::sync::Arc;

/// Every ad in `text`: objects in sequence, or one array of objects.
pub fn json_ads(text: &str) -> Result<Vec<ClassAd>, ParseError> {
    let mut j = Json {
        src: text,
        b: text.as_bytes(),
        pos: 0,
        nest: 0,
    };
    let mut out = Vec::new();
    j.ws();
    if j.peek() == b'[' {
        j.pos += 1;
        j.ws();
        if j.peek() == b']' {
            j.pos += 1;
        } else {
            loop {
                j.ws();
                out.push(j.object()?.0);
                j.ws();
                match j.peek() {
                    b',' => j.pos += 1,
                    b']' => {
                        j.pos += 1;
                        break;
                    }
                    _ => return Err(j.expected("',' or ']' after an ad")),
                }
            }
        }
        j.ws();
        if j.pos < j.b.len() {
            return Err(j.expected("end of input after the array of ads"));
        }
        return Ok(out);
    }
    while j.pos < j.b.len() {
        out.push(j.object()?.0);
        j.ws();
    }
    Ok(out)
}

struct Json<'s> {
    src: &'s str,
    b: &'s [u8],
    pos: usize,
    nest: u32,
}

type Parsed = Result<(Expr, u32), ParseError>;

impl<'s> Json<'s> {
    fn peek(&self) -> u8 {
        self.b.get(self.pos).copied().unwrap_or(0)
    }

    /// Skips white space and comments (`// …` to the end of the line, `/* … */`), which
    /// HTCondor's lexer skips in JSON as in ClassAds; an unterminated `/*` is left for the
    /// caller to refuse.
    fn ws(&mut self) {
        self.pos = skip_blank_at(self.b, self.pos);
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> ParseError {
        error_at(self.src, at, msg)
    }

    #[cold]
    fn expected(&self, what: &str) -> ParseError {
        let found = match self.src[self.pos..].chars().next() {
            None => "end of input".to_string(),
            Some(c) => format!("'{c}'"),
        };
        self.err(self.pos, format!("expected {what}, found {found}"))
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        if self.nest >= MAX_NESTING {
            return Err(self.err(
                self.pos,
                format!("JSON nested too deeply (limit {MAX_NESTING})"),
            ));
        }
        self.nest += 1;
        Ok(())
    }

    fn check(&self, d: u32) -> Result<u32, ParseError> {
        if d > MAX_DEPTH {
            Err(self.err(
                self.pos,
                format!("expression nested too deeply (limit {MAX_DEPTH})"),
            ))
        } else {
            Ok(d)
        }
    }

    fn value(&mut self) -> Parsed {
        self.ws();
        let lit = |v: Value| Ok((Expr::Lit(v), 1));
        match self.peek() {
            b'{' => {
                let (ad, d) = self.object()?;
                Ok((Expr::Ad(Arc::new(ad)), d))
            }
            b'[' => self.array(),
            b'"' => self.string_value(),
            b'-' | b'.' | b'0'..=b'9' => self.number(),
            c if c.is_ascii_alphabetic() => {
                let start = self.pos;
                while self.peek().is_ascii_alphanumeric() || self.peek() == b'_' {
                    self.pos += 1;
                }
                let w = &self.src[start..self.pos];
                if w.eq_ignore_ascii_case("true") {
                    lit(Value::Bool(true))
                } else if w.eq_ignore_ascii_case("false") {
                    lit(Value::Bool(false))
                } else if w.eq_ignore_ascii_case("null") {
                    lit(Value::Undefined)
                } else {
                    Err(self.err(start, format!("expected a JSON value, found '{w}'")))
                }
            }
            _ => Err(self.expected("a JSON value")),
        }
    }

    /// `{ "name": value, … }`; stray commas are tolerated, as in HTCondor.
    fn object(&mut self) -> Result<(ClassAd, u32), ParseError> {
        self.ws();
        if self.peek() != b'{' {
            return Err(self.expected("'{' to open an ad"));
        }
        self.enter()?;
        self.pos += 1;
        let mut ad = ClassAd::new();
        let mut d = 0;
        loop {
            self.ws();
            match self.peek() {
                b'}' => break,
                b',' => {
                    self.pos += 1;
                    continue;
                }
                b'"' => {}
                _ => return Err(self.expected("an attribute name (a string) or '}'")),
            }
            let name_at = self.pos;
            let (name, _) = self.string_raw()?;
            if name.contains('\0') {
                return Err(self.expected("an attribute name without a NUL character"));
            }
            if name.is_empty() {
                // HTCondor refuses to insert an attribute of the empty name: the ad fails.
                return Err(self.err(
                    name_at,
                    "an attribute name must not be empty (HTCondor refuses \"\")",
                ));
            }
            self.ws();
            if self.peek() != b':' {
                return Err(self.expected("':' after attribute name"));
            }
            self.pos += 1;
            let (e, de) = self.value()?;
            d = d.max(de);
            insert_keeping_spelling(&mut ad, Name::new(&name), e);
            self.ws();
            if !matches!(self.peek(), b',' | b'}') {
                return Err(self.expected("',' or '}' after attribute"));
            }
        }
        self.pos += 1;
        self.nest -= 1;
        Ok((ad, self.check(d + 1)?))
    }

    /// `[ value, … ]`.
    fn array(&mut self) -> Parsed {
        self.enter()?;
        self.pos += 1;
        let mut items = Vec::new();
        let mut d = 0;
        self.ws();
        if self.peek() != b']' {
            loop {
                let (e, de) = self.value()?;
                d = d.max(de);
                items.push(e);
                self.ws();
                match self.peek() {
                    b',' => self.pos += 1,
                    b']' => break,
                    _ => return Err(self.expected("',' or ']' in array")),
                }
            }
        }
        self.pos += 1;
        self.nest -= 1;
        Ok((Expr::List(items), self.check(d + 1)?))
    }

    /// A string value, or the expression a `"\/Expr(…)\/"` string carries.
    fn string_value(&mut self) -> Parsed {
        let start = self.pos;
        let (s, quoted_expr) = self.string_raw()?;
        if quoted_expr
            && s.len() >= 8
            && s.is_char_boundary(6)
            && s[..6].eq_ignore_ascii_case("/Expr(")
            && s.ends_with(")/")
        {
            let inner = &s[6..s.len() - 2];
            let mut p = Parser::new(Lexer::new(inner, 0)).map_err(|e| self.inner_err(start, e))?;
            let (e, d) = p.expr().map_err(|e| self.inner_err(start, e))?;
            if p.peek().kind != TokenKind::End {
                let e = p.expected("end of expression");
                return Err(self.inner_err(start, e));
            }
            return Ok((e, self.check(d)?));
        }
        Ok((Expr::Lit(Value::Str(Arc::from(&*s))), 1))
    }

    fn inner_err(&self, at: usize, e: ParseError) -> ParseError {
        self.err(
            at,
            format!("in \\/Expr(…)\\/ at {}:{}: {}", e.line, e.col, e.message),
        )
    }

    /// A JSON string at the cursor, unescaped; also whether its raw text starts and ends with
    /// `\/` (HTCondor's marker of an expression).
    fn string_raw(&mut self) -> Result<(Cow<'s, str>, bool), ParseError> {
        let start = self.pos;
        let mut raw = Cow::Borrowed(self.segment(start)?);
        // Strings separated by white space alone are one string, as HTCondor's lexer joins
        // them (before escapes are read: `"\/Expr(1" "+2)\/"` is the expression `1+2`).
        loop {
            let after = self.pos;
            while is_space(self.peek()) {
                self.pos += 1;
            }
            if self.peek() != b'"' {
                self.pos = after;
                break;
            }
            let more = self.segment(self.pos)?;
            raw.to_mut().push_str(more);
        }
        if raw.contains('\0') {
            return Err(self.err(start, "NUL character in string"));
        }
        let quoted = raw.len() >= 4 && raw.starts_with("\\/") && raw.ends_with("\\/");
        if !raw.contains('\\') {
            return Ok((raw, quoted));
        }
        let s = unescape(&raw).ok_or_else(|| {
            self.err(
                start,
                "malformed escape in string, or \\u0000 (a NUL, which ClassAd strings cannot hold)",
            )
        })?;
        Ok((Cow::Owned(s), quoted))
    }

    /// The raw text of the string whose opening quote is at `start`; the cursor moves past its
    /// closing quote.
    fn segment(&mut self, start: usize) -> Result<&'s str, ParseError> {
        self.pos = start + 1;
        loop {
            match self.b[self.pos..]
                .iter()
                .position(|&c| c == b'"' || c == b'\\')
            {
                None => return Err(self.err(start, "unterminated string")),
                Some(k) => {
                    self.pos += k;
                    if self.b[self.pos] == b'"' {
                        break;
                    }
                    self.pos += 2;
                    if self.pos > self.b.len() {
                        return Err(self.err(start, "unterminated string"));
                    }
                }
            }
        }
        self.pos += 1;
        Ok(&self.src[start + 1..self.pos - 1])
    }

    /// A number as HTCondor's lexer reads one in JSON: an integer, or a real when written with
    /// `.` or an exponent (`.5`, `-.5`, `01.5`, `0e1` are reals; `1.` is refused); an integer
    /// with a leading zero is refused, unless negative, where its digits (octal ones only, as
    /// the lexer scans them) read in base 10 (`-07` is -7, `-0x1` is 0); a hexadecimal number
    /// with a fraction is strtod's hexadecimal float (`0x10.5` is 16.3125).
    fn number(&mut self) -> Parsed {
        let start = self.pos;
        let bad = |j: &Json<'_>, why: &str| j.err(start, format!("malformed number{why}"));
        let neg = self.peek() == b'-';
        if neg {
            self.pos += 1;
        }
        let digits = |j: &mut Json<'_>| {
            let s = j.pos;
            while j.peek().is_ascii_digit() {
                j.pos += 1;
            }
            j.pos - s
        };
        let next_is_digit = |j: &Json<'_>| j.b.get(j.pos + 1).is_some_and(u8::is_ascii_digit);
        let (mut real, mut hex) = (false, false);
        match self.peek() {
            b'.' if next_is_digit(self) => {}
            b'0' => {
                self.pos += 1;
                if matches!(self.peek(), b'x' | b'X') {
                    // Hexadecimal: an integer is refused, but after a minus the lexer's base-10
                    // reading stops at the `x` (0); with a fraction it is a real, which strtod
                    // reads as a hexadecimal float (`0x10.5` is 16.3125).
                    self.pos += 1;
                    if !self.peek().is_ascii_hexdigit() {
                        return Err(bad(self, ": hexadecimal"));
                    }
                    while self.peek().is_ascii_hexdigit() {
                        self.pos += 1;
                    }
                    if self.peek() == b'.' && next_is_digit(self) {
                        hex = true;
                    } else if !neg || self.peek() == b'.' {
                        return Err(bad(self, ": hexadecimal"));
                    } else {
                        return Ok((Expr::Lit(Value::Int(0)), 1));
                    }
                } else {
                    let run = self.pos;
                    let n = digits(self);
                    real = matches!(self.peek(), b'.' | b'e' | b'E');
                    if n > 0 && !real && (!neg || self.b[run..self.pos].iter().any(|&c| c > b'7')) {
                        return Err(bad(self, ": leading zero"));
                    }
                }
            }
            c if c.is_ascii_digit() => {
                digits(self);
            }
            _ => return Err(bad(self, "")),
        }
        if self.peek() == b'.' {
            self.pos += 1;
            real = true;
            if digits(self) == 0 {
                return Err(bad(self, ": expected a digit after '.'"));
            }
        }
        if matches!(self.peek(), b'e' | b'E') {
            self.pos += 1;
            real = true;
            if matches!(self.peek(), b'+' | b'-') {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return Err(bad(self, ": expected exponent digits"));
            }
        }
        let text = &self.src[start..self.pos];
        let v = if hex {
            // strtod reads what it can as a hexadecimal float (an `e` is a hex digit there).
            Value::Real(crate::functions::convert::strtod(text).ok_or_else(|| bad(self, ""))?)
        } else if real {
            Value::Real(text.parse().map_err(|_| bad(self, ""))?)
        } else {
            // Out of range reads as 0, as HTCondor's lexer does.
            Value::Int(text.parse().unwrap_or(0))
        };
        Ok((Expr::Lit(v), 1))
    }
}

/// Resolves JSON escapes in `raw` (`\uXXXX` with surrogate pairs; an unknown `\c` is `c`, as in
/// HTCondor). `None` for a malformed `\u` escape or one yielding NUL.
fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(e) = chars.next() else {
            out.push('\\');
            break;
        };
        match e {
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let hex = |chars: &mut std::str::Chars<'_>| -> Option<u32> {
                    let h: String = chars.by_ref().take(4).collect();
                    if h.len() != 4 {
                        return None;
                    }
                    u32::from_str_radix(&h, 16).ok()
                };
                let mut u = hex(&mut chars)?;
                if (0xD800..0xDC00).contains(&u) {
                    let rest = chars.as_str();
                    if let Some(r) = rest.strip_prefix("\\u") {
                        let mut c2 = r.chars();
                        if let Some(lo) = hex(&mut c2).filter(|l| (0xDC00..0xE000).contains(l)) {
                            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                            chars = c2;
                        }
                    }
                }
                if u == 0 {
                    return None;
                }
                out.push(char::from_u32(u).unwrap_or('\u{FFFD}'));
            }
            other => out.push(other),
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        super::super::show_ads(json_ads(text))
    }

    #[test]
    fn reads_json() {
        let cases: &[(&str, &str)] = &[
            (
                r#"{"a": 1, "b": 1.5, "c": "x"}"#,
                r#"[ a = 1; b = 1.500000000000000E+00; c = "x" ]"#,
            ),
            (r#"[{"a": 1}, {"b": 2}]"#, "[ a = 1 ] | [ b = 2 ]"),
            (r#"{"a": 1}{"b": 2}"#, "[ a = 1 ] | [ b = 2 ]"),
            ("[]", ""),
            ("", ""),
            (
                r#"{"a": true, "b": null, "c": [1, "x", []], "d": {"e": {}}}"#,
                r#"[ a = true; b = undefined; c = { 1,"x",{  } }; d = [ e = [  ] ] ]"#,
            ),
            (r#"{"a": "\/Expr(b + 1)\/"}"#, "[ a = b + 1 ]"),
            (r#"{"a": "\/expr(error)\/"}"#, "[ a = error ]"),
            (r#"{"a": "/Expr(1)/"}"#, r#"[ a = "/Expr(1)/" ]"#),
            (
                r#"{"a": "x\"y\\z\n\u00e9\ud83d\ude00\/"}"#,
                "[ a = \"x\\\"y\\\\z\\n\\303\\251\\360\\237\\230\\200/\" ]",
            ),
            (
                r#"{"a": 1e3, "b": -2, "c": 1E+100, "d": -0.0}"#,
                "[ a = 1.000000000000000E+03; b = -2; c = 1.000000000000000E+100; d = -0.0 ]",
            ),
            (r#"{,"a": 1,, "b": 2,}"#, "[ a = 1; b = 2 ]"),
            (r#"{"a b": 1}"#, "[ 'a b' = 1 ]"),
            (
                r#"{"a": 1"#,
                "ERR 1:8: expected ',' or '}' after attribute, found end of input",
            ),
            (
                r#"{"a" 1}"#,
                "ERR 1:6: expected ':' after attribute name, found '1'",
            ),
            (
                r#"{"a": [1,]}"#,
                "ERR 1:10: expected a JSON value, found ']'",
            ),
            (
                r#"{"a": "\/Expr(1 +)\/"}"#,
                "ERR 1:7: in \\/Expr(…)\\/ at 1:4: expected an expression, found end of input",
            ),
            (
                r#"{"a": nope}"#,
                "ERR 1:7: expected a JSON value, found 'nope'",
            ),
            ("[1]", "ERR 1:2: expected '{' to open an ad, found '1'"),
            // HTCondor's lexer: numbers as ClassAds write them, comments, joined strings
            (
                r#"{"a": .5, "b": -.5, "c": 01.5, "d": 0e1, "e": -07, "f": -00, "g": -0x1F}"#,
                "[ a = 5.000000000000000E-01; b = -5.000000000000000E-01; \
                 c = 1.500000000000000E+00; d = 0.0; e = -7; f = 0; g = 0 ]",
            ),
            (r#"{"a": 07}"#, "ERR 1:7: malformed number: leading zero"),
            (r#"{"a": -08}"#, "ERR 1:7: malformed number: leading zero"),
            (r#"{"a": 0x1F}"#, "ERR 1:7: malformed number: hexadecimal"),
            (
                r#"{"a": 0x10.5, "b": -0x1F.5}"#,
                "[ a = 1.631250000000000E+01; b = -3.131250000000000E+01 ]",
            ),
            (r#"{"a": 0x1F.}"#, "ERR 1:7: malformed number: hexadecimal"),
            (r#"{"a": 0x1.8e3}"#, "[ a = 1.555419921875000E+00 ]"),
            (
                r#"{"a": 1.}"#,
                "ERR 1:7: malformed number: expected a digit after '.'",
            ),
            (
                r#"{"a": 1.e5}"#,
                "ERR 1:7: malformed number: expected a digit after '.'",
            ),
            (r#"{"a": -}"#, "ERR 1:7: malformed number"),
            (
                "{\"a\": 1 /* one */, // two\n \"b\":\x0b2}",
                "[ a = 1; b = 2 ]",
            ),
            (
                r#"{"a": 1 /* open"#,
                "ERR 1:9: expected ',' or '}' after attribute, found '/'",
            ),
            (
                "{\"a\" \"b\": \"x\"\n\t\"y\", \"c\": \"\\/Expr(1\" \"+2)\\/\"}",
                r#"[ ab = "xy"; c = 1 + 2 ]"#,
            ),
            (
                r#"{"a": "x" /* no */ "y"}"#,
                "ERR 1:20: expected ',' or '}' after attribute, found '\"'",
            ),
        ];
        for (text, want) in cases {
            assert_eq!(show(text), *want, "input {text}");
        }
    }

    #[test]
    fn deep_json_is_an_error() {
        let deep = format!("{{\"a\": {}1{}}}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(json_ads(&deep).unwrap_err().message.contains("too deeply"));
    }
}
