//! The ClassAd lexer: bytes to tokens, following HTCondor's `Lexer` (lexer.cpp) token for token.
//!
//! Positions are byte offsets; [`line_col`] turns one into `line:col` only when an error is
//! reported, so lexing keeps no per-character bookkeeping. Identifiers and strings without escapes
//! borrow from the source.

pub use super::escape::convert_escapes;
use super::time_literal;
pub use super::token::{TokVal, Token, TokenKind};
use crate::error::ParseError;
use crate::functions::convert::strtod;
use std::borrow::Cow;

/// The 1-based line and column (in characters) of byte offset `pos` in `src`.
pub fn line_col(src: &str, pos: usize) -> (u32, u32) {
    let mut pos = pos.min(src.len());
    while !src.is_char_boundary(pos) {
        pos -= 1;
    }
    let before = &src[..pos];
    let line = before.bytes().filter(|&b| b == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let col = before[line_start..].chars().count() + 1;
    (line as u32, col as u32)
}

/// A [`ParseError`] at byte offset `pos` of `src`.
pub fn error_at(src: &str, pos: usize, msg: impl Into<String>) -> ParseError {
    let (l, c) = line_col(src, pos);
    ParseError::new(l, c, msg)
}

/// C's `isspace`.
#[inline]
pub fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c)
}

/// The first byte of `b` at or after `i` past white space (C's `isspace`) and `// …`, `/* … */`
/// comments, as HTCondor's lexer skips them (in ClassAds and in JSON alike); an unterminated
/// `/*` is not skipped: the result is where it starts.
#[inline]
pub fn skip_blank_at(b: &[u8], mut i: usize) -> usize {
    loop {
        while b.get(i).is_some_and(|&c| is_space(c)) {
            i += 1;
        }
        match (b.get(i), b.get(i + 1)) {
            (Some(b'/'), Some(b'/')) => {
                i += b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .unwrap_or(b.len() - i);
            }
            (Some(b'/'), Some(b'*')) => match b[i + 2..].windows(2).position(|w| w == b"*/") {
                Some(k) => i += k + 4,
                None => return i,
            },
            _ => return i,
        }
    }
}

#[inline]
fn is_ident_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The tokenizer over one text.
pub struct Lexer<'s> {
    src: &'s str,
    b: &'s [u8],
    pos: usize,
    prev: TokenKind,
    /// Old-syntax lexing ([`Lexer::set_old_syntax`]).
    old: bool,
}

type LexResult<'s> = Result<Token<'s>, ParseError>;

impl<'s> Lexer<'s> {
    /// A lexer for new syntax starting at byte `pos` of `src`.
    pub fn new(src: &'s str, pos: usize) -> Lexer<'s> {
        Lexer {
            src,
            b: src.as_bytes(),
            pos,
            prev: TokenKind::End,
            old: false,
        }
    }

    /// Lexes by old syntax's rules, as HTCondor reads old ads: string literals take no escapes
    /// but `\"` mid-line; no dissertation scale suffixes (HTCondor reads `Memory = 5K` as 5, so
    /// a suffix must not silently read as 5120); and no octal or hexadecimal integers (its
    /// lexer under old ClassAd semantics refuses an integer that begins with `0` and is longer
    /// than one character: `012`, `00`, `0x1F`; reals such as `00.5`, `0x10.5` still read).
    pub fn set_old_syntax(&mut self, old: bool) {
        self.old = old;
    }

    /// The source text.
    pub fn src(&self) -> &'s str {
        self.src
    }

    /// The byte offset the next token will be read from (after skipping nothing).
    pub fn pos(&self) -> usize {
        self.pos
    }

    fn err(&self, pos: usize, msg: impl Into<String>) -> ParseError {
        error_at(self.src, pos, msg)
    }

    #[inline]
    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn tok(&mut self, kind: TokenKind, start: usize, val: TokVal<'s>) -> LexResult<'s> {
        self.prev = kind;
        Ok(Token {
            kind,
            start,
            end: self.pos,
            val,
        })
    }

    /// Skips white space and comments.
    fn skip_blank(&mut self) -> Result<(), ParseError> {
        self.pos = skip_blank_at(self.b, self.pos);
        if self.b[self.pos.min(self.b.len())..].starts_with(b"/*") {
            return Err(self.err(self.pos, "unterminated comment '/*'"));
        }
        Ok(())
    }

    /// The next token. Errors carry the position and what is wrong.
    pub fn next_token(&mut self) -> LexResult<'s> {
        self.skip_blank()?;
        let start = self.pos;
        let c = self.at(start);
        if start >= self.b.len() {
            return self.tok(TokenKind::End, start, TokVal::None);
        }
        if c == 0 {
            return Err(self.err(start, "NUL character in input"));
        }
        match c {
            b'-' if !self.prev.ends_operand() => {
                let n = self.at(start + 1);
                if n.is_ascii_digit() || (n == b'.' && self.at(start + 2).is_ascii_digit()) {
                    self.number(start)
                } else {
                    self.pos += 1;
                    self.tok(TokenKind::Minus, start, TokVal::None)
                }
            }
            b'0'..=b'9' => self.number(start),
            b'.' => {
                if self.at(start + 1).is_ascii_digit() {
                    self.number(start)
                } else if self.at(start + 1) == b'.' && self.at(start + 2).is_ascii_digit() {
                    // HTCondor's lexer reads `..5` as a real whose text `strtod` rejects: 0.
                    self.pos = start + 2;
                    while self.at(self.pos).is_ascii_digit() {
                        self.pos += 1;
                    }
                    self.tok(TokenKind::Real, start, TokVal::Real(0.0))
                } else {
                    // HTCondor's lexer swallows a second dot: `..a` is `.a`.
                    self.pos += if self.at(start + 1) == b'.' { 2 } else { 1 };
                    self.tok(TokenKind::Selection, start, TokVal::None)
                }
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => self.word(start),
            b'"' => self.string(start, b'"'),
            b'\'' => self.string(start, b'\''),
            _ => self.punct(start),
        }
    }

    /// Numbers, as HTCondor's `tokenizeNumber`: `[-]digits`, `[-]digits.digits[e[+-]digits]`,
    /// `[-].digits…`; a leading `0` allows only octal digits unless the number is real; `0x…`
    /// is lexed but, as in HTCondor today, converted in base 10 (so its value is 0).
    fn number(&mut self, start: usize) -> LexResult<'s> {
        let mut i = start;
        if self.at(i) == b'-' {
            i += 1;
        }
        let mut real = false;
        let first = self.at(i);
        let hex = first == b'0' && (self.at(i + 1) | 0x20) == b'x';
        if hex {
            i += 2;
            if !self.at(i).is_ascii_hexdigit() {
                return Err(self.err(start, "malformed hexadecimal number"));
            }
            while self.at(i).is_ascii_hexdigit() {
                i += 1;
            }
        } else if first == b'0' {
            i += 1;
            let mut non_octal = false;
            while self.at(i).is_ascii_digit() {
                non_octal |= self.at(i) > b'7';
                i += 1;
            }
            let c = self.at(i);
            if c == b'.' || (c | 0x20) == b'e' {
                real = true;
            } else if non_octal {
                return Err(self.err(start, "malformed number: digits 8 or 9 after a leading 0"));
            }
        } else {
            while self.at(i).is_ascii_digit() {
                i += 1;
            }
            let c = self.at(i);
            real = c == b'.' || (c | 0x20) == b'e';
        }
        if self.at(i) == b'.' {
            i += 1;
            if !self.at(i).is_ascii_digit() {
                return Err(self.err(start, "malformed number: expected a digit after '.'"));
            }
            while self.at(i).is_ascii_digit() {
                i += 1;
            }
            real = true;
        }
        if real && (self.at(i) | 0x20) == b'e' {
            i += 1;
            if matches!(self.at(i), b'+' | b'-') {
                i += 1;
            }
            if !self.at(i).is_ascii_digit() {
                return Err(self.err(start, "malformed number: expected exponent digits"));
            }
            while self.at(i).is_ascii_digit() {
                i += 1;
            }
        }
        let text = &self.src[start..i];
        // The dissertation's scale suffixes B, K, M, G, T (powers of 1024) make a real.
        let factor = match self.at(i) | 0x20 {
            b'b' => Some(1.0),
            b'k' => Some(1024.0),
            b'm' => Some(1024.0 * 1024.0),
            b'g' => Some(1024.0 * 1024.0 * 1024.0),
            b't' => Some(1024.0 * 1024.0 * 1024.0 * 1024.0),
            _ => None,
        };
        let factor = factor.filter(|_| !self.old && !is_ident_char(self.at(i + 1)));
        if factor.is_some() {
            i += 1;
        }
        self.pos = i;
        if real || factor.is_some() {
            let r: f64 = if real && hex {
                // HTCondor converts the token with strtod, which reads it as a hexadecimal
                // float as far as it can: `0x10.5` is 16.3125, `0x1.8e-1` 1.5546875 (the
                // `e` a hex digit, the `-1` ignored).
                strtod(text).ok_or_else(|| self.err(start, "malformed real number"))?
            } else if real {
                text.parse()
                    .map_err(|_| self.err(start, "malformed real number"))?
            } else {
                decimal_prefix(text) as f64
            };
            self.tok(
                TokenKind::Real,
                start,
                TokVal::Real(r * factor.unwrap_or(1.0)),
            )
        } else {
            // HTCondor tests the token as lexed: a minus lexed with it (`-012`) passes.
            if self.old && text.len() > 1 && text.starts_with('0') {
                return Err(self.err(
                    start,
                    "malformed number: no octal or hexadecimal integers in old syntax",
                ));
            }
            self.tok(TokenKind::Int, start, TokVal::Int(decimal_prefix(text)))
        }
    }

    /// Identifiers and the reserved words `true false undefined error is isnt`.
    fn word(&mut self, start: usize) -> LexResult<'s> {
        let mut i = start;
        while is_ident_char(self.at(i)) {
            i += 1;
        }
        self.pos = i;
        let w = &self.src[start..i];
        let kind = if w.len() <= 9 {
            if w.eq_ignore_ascii_case("true") {
                return self.tok(TokenKind::Bool, start, TokVal::Bool(true));
            } else if w.eq_ignore_ascii_case("false") {
                return self.tok(TokenKind::Bool, start, TokVal::Bool(false));
            } else if w.eq_ignore_ascii_case("undefined") {
                TokenKind::Undefined
            } else if w.eq_ignore_ascii_case("error") {
                TokenKind::ErrorValue
            } else if w.eq_ignore_ascii_case("is") {
                TokenKind::MetaEq
            } else if w.eq_ignore_ascii_case("isnt") {
                TokenKind::MetaNe
            } else {
                TokenKind::Ident
            }
        } else {
            TokenKind::Ident
        };
        if kind == TokenKind::Ident {
            self.tok(kind, start, TokVal::Text(Cow::Borrowed(w)))
        } else {
            self.tok(kind, start, TokVal::None)
        }
    }

    /// `"string"` literals and `'quoted names'`; adjacent literals separated only by white
    /// space are joined (HTCondor joins the raw text, then resolves escapes).
    fn string(&mut self, start: usize, delim: u8) -> LexResult<'s> {
        if self.old {
            return self.string_old(start, delim);
        }
        let mut raw: Option<String> = None;
        let mut seg_start = start + 1;
        let mut i = seg_start;
        let first_seg;
        loop {
            // Scan to the closing delimiter not escaped by an odd run of backslashes.
            loop {
                match memchr2(delim, b'\\', &self.b[i..]) {
                    None => return Err(self.err(start, "unterminated string literal")),
                    Some(k) => {
                        i += k;
                        if self.b[i] == b'\\' {
                            i += 2;
                            if i > self.b.len() {
                                return Err(self.err(start, "unterminated string literal"));
                            }
                        } else {
                            break;
                        }
                    }
                }
            }
            let seg = &self.src[seg_start..i];
            i += 1;
            let mut j = i;
            while is_space(self.at(j)) {
                j += 1;
            }
            if self.at(j) == delim && j < self.b.len() {
                raw.get_or_insert_with(String::new).push_str(seg);
                seg_start = j + 1;
                i = seg_start;
                continue;
            }
            first_seg = seg;
            break;
        }
        self.pos = i;
        let raw_text: Cow<'s, str> = match raw {
            None => Cow::Borrowed(first_seg),
            Some(mut s) => {
                s.push_str(first_seg);
                Cow::Owned(s)
            }
        };
        if raw_text.as_bytes().contains(&0) {
            return Err(self.err(start, "NUL character in string literal"));
        }
        // A quoted name written with any escape is never a time literal (so `'10\:00'` names
        // the attribute `10:00`).
        let escaped = raw_text.contains('\\');
        let text = convert_escapes(raw_text)
            .ok_or_else(|| self.err(start, "string literal contains the escape \\0"))?;
        if delim == b'"' {
            self.tok(TokenKind::Str, start, TokVal::Text(text))
        } else if let Some(v) = time_literal::quoted(&text).filter(|_| !escaped) {
            self.tok(TokenKind::Time, start, TokVal::Time(v))
        } else {
            self.tok(TokenKind::Ident, start, TokVal::Text(text))
        }
    }

    /// Old-syntax strings: a backslash is literal unless it precedes the delimiter with more
    /// text following on the same line, in which case the delimiter is part of the string.
    fn string_old(&mut self, start: usize, delim: u8) -> LexResult<'s> {
        let mut out: Option<String> = None;
        let mut seg_start = start + 1;
        let mut i = seg_start;
        loop {
            let Some(k) = self.b[i..].iter().position(|&c| c == delim) else {
                return Err(self.err(start, "unterminated string literal"));
            };
            i += k;
            let escaped = i > seg_start && self.b[i - 1] == b'\\';
            let next = self.at(i + 1);
            if escaped && i + 1 < self.b.len() && next != b'\n' {
                let o = out.get_or_insert_with(String::new);
                o.push_str(&self.src[seg_start..i - 1]);
                o.push(delim as char);
                i += 1;
                seg_start = i;
                continue;
            }
            break;
        }
        let text: Cow<'s, str> = match out {
            None => Cow::Borrowed(&self.src[seg_start..i]),
            Some(mut o) => {
                o.push_str(&self.src[seg_start..i]);
                Cow::Owned(o)
            }
        };
        self.pos = i + 1;
        if text.as_bytes().contains(&0) {
            return Err(self.err(start, "NUL character in string literal"));
        }
        let kind = if delim == b'"' {
            TokenKind::Str
        } else {
            TokenKind::Ident
        };
        self.tok(kind, start, TokVal::Text(text))
    }

    fn punct(&mut self, start: usize) -> LexResult<'s> {
        use TokenKind::*;
        let c = self.at(start);
        let n = self.at(start + 1);
        let (kind, len) = match c {
            b'.' => (Selection, 1),
            b'*' => (Mul, 1),
            b'/' => (Div, 1),
            b'%' => (Mod, 1),
            b'+' => (Plus, 1),
            b'-' => (Minus, 1),
            b'~' => (BitNot, 1),
            b'^' => (BitXor, 1),
            // HTCondor's lexer reads `?`, white space (not comments) and `:` as one token.
            b'?' => {
                let mut i = start + 1;
                while is_space(self.at(i)) {
                    i += 1;
                }
                if self.at(i) == b':' {
                    (Elvis, i + 1 - start)
                } else {
                    (QMark, 1)
                }
            }
            b':' => (Colon, 1),
            b';' => (Semicolon, 1),
            b',' => (Comma, 1),
            b'[' => (OpenBox, 1),
            b']' => (CloseBox, 1),
            b'(' => (OpenParen, 1),
            b')' => (CloseParen, 1),
            b'{' => (OpenBrace, 1),
            b'}' => (CloseBrace, 1),
            b'&' if n == b'&' => (And, 2),
            b'&' => (BitAnd, 1),
            b'|' if n == b'|' => (Or, 2),
            b'|' => (BitOr, 1),
            b'<' if n == b'=' => (Le, 2),
            b'<' if n == b'<' => (Shl, 2),
            b'<' => (Lt, 1),
            b'>' if n == b'=' => (Ge, 2),
            b'>' if n == b'>' && self.at(start + 2) == b'>' => (UShr, 3),
            b'>' if n == b'>' => (Shr, 2),
            b'>' => (Gt, 1),
            b'=' if n == b'=' => (Eq, 2),
            b'=' if n == b'?' => {
                if self.at(start + 2) != b'=' {
                    return Err(self.err(start, "malformed operator: expected '=?='"));
                }
                (MetaEq, 3)
            }
            b'=' if n == b'!' && self.at(start + 2) == b'=' => (MetaNe, 3),
            b'=' => (BoundTo, 1),
            b'!' if n == b'=' => (Ne, 2),
            b'!' => (Not, 1),
            _ => {
                let ch = self.src[start..].chars().next().unwrap_or('?');
                return Err(self.err(start, format!("unexpected character '{ch}'")));
            }
        };
        self.pos = start + len;
        self.tok(kind, start, TokVal::None)
    }
}

/// `strtoll(text, 10)` as HTCondor applies it: the optional sign and leading decimal digits;
/// a value out of range gives 0 (what HTCondor's current library yields).
fn decimal_prefix(text: &str) -> i64 {
    let b = text.as_bytes();
    let (neg, digits) = match b.first() {
        Some(b'-') => (true, &b[1..]),
        _ => (false, b),
    };
    let mut v: i64 = 0;
    for &d in digits.iter().take_while(|d| d.is_ascii_digit()) {
        let digit = i64::from(d - b'0');
        let next = v.checked_mul(10).and_then(|x| {
            if neg {
                x.checked_sub(digit)
            } else {
                x.checked_add(digit)
            }
        });
        match next {
            Some(x) => v = x,
            None => return 0,
        }
    }
    v
}

/// Position of the first `a` or `b` in `hay`.
#[inline]
fn memchr2(a: u8, b: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().position(|&c| c == a || c == b)
}

/// Lexes `text` as exactly one token and names its kind; [`TokenKind::Error`] when it is not
/// a token or is followed by more text (HTCondor's `test-lexer-one-token`).
pub fn lex_one(text: &str) -> TokenKind {
    let mut lx = Lexer::new(text, 0);
    match lx.next_token() {
        Ok(t) => match lx.next_token() {
            Ok(e) if e.kind == TokenKind::End => t.kind,
            _ => TokenKind::Error,
        },
        Err(_) => TokenKind::Error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<&'static str> {
        let mut lx = Lexer::new(s, 0);
        let mut v = Vec::new();
        loop {
            match lx.next_token() {
                Ok(t) if t.kind == TokenKind::End => return v,
                Ok(t) => v.push(t.kind.name()),
                Err(_) => {
                    v.push("ERR");
                    return v;
                }
            }
        }
    }

    fn one(s: &str) -> TokVal<'_> {
        let mut lx = Lexer::new(s, 0);
        lx.next_token().map(|t| t.val).unwrap_or(TokVal::None)
    }

    #[test]
    fn conformance_one_token() {
        let path = crate::parse::golden_tests::conformance_dir().join("htcondor-tests.txt");
        let text = std::fs::read_to_string(&path).expect("shared/conformance/htcondor-tests.txt");
        let mut n = 0;
        for line in text.lines() {
            let Some(rest) = line.strip_prefix("test-lexer-one-token") else {
                continue;
            };
            let want = rest.split_whitespace().last().unwrap();
            let input = rest.trim().strip_suffix(want).unwrap().trim();
            assert_eq!(lex_one(input).name(), want, "input {input:?}");
            n += 1;
        }
        assert!(n > 40);
    }

    #[test]
    fn token_sequences() {
        let cases: &[(&str, &[&str])] = &[
            ("a-1", &["LEX_IDENTIFIER", "LEX_MINUS", "LEX_INTEGER_VALUE"]),
            (
                "a*-1",
                &["LEX_IDENTIFIER", "LEX_MULTIPLY", "LEX_INTEGER_VALUE"],
            ),
            ("-.5", &["LEX_REAL_VALUE"]),
            ("-.a", &["LEX_MINUS", "LEX_SELECTION", "LEX_IDENTIFIER"]),
            ("=!=", &["LEX_META_NOT_EQUAL"]),
            (
                "=!x",
                &["LEX_BOUND_TO", "LEX_LOGICAL_NOT", "LEX_IDENTIFIER"],
            ),
            ("=?x", &["ERR"]),
            (">>>=", &["LEX_URIGHT_SHIFT", "LEX_BOUND_TO"]),
            (
                "1/*c*/+2//x",
                &["LEX_INTEGER_VALUE", "LEX_PLUS", "LEX_INTEGER_VALUE"],
            ),
            ("/*x", &["ERR"]),
            ("1.", &["ERR"]),
            ("1e", &["ERR"]),
            ("08", &["ERR"]),
            ("09.5", &["LEX_REAL_VALUE"]),
            (
                "a.b",
                &["LEX_IDENTIFIER", "LEX_SELECTION", "LEX_IDENTIFIER"],
            ),
            ("IS Isnt", &["LEX_META_EQUAL", "LEX_META_NOT_EQUAL"]),
            ("'a b'", &["LEX_IDENTIFIER"]),
            ("\"a\" \"b\"", &["LEX_STRING_VALUE"]),
            ("\"abc", &["ERR"]),
            ("\\", &["ERR"]),
            ("'3d19:49:15'", &["LEX_TIME_VALUE"]),
        ];
        for (s, want) in cases {
            assert_eq!(kinds(s), *want, "input {s:?}");
        }
    }

    #[test]
    fn number_values() {
        let ints: &[(&str, i64)] = &[
            ("123", 123),
            ("-5", -5),
            ("017", 17),
            ("0x1f", 0),
            ("9223372036854775807", i64::MAX),
            ("-9223372036854775808", i64::MIN),
            ("9223372036854775808", 0),
        ];
        for (s, want) in ints {
            assert!(matches!(one(s), TokVal::Int(v) if v == *want), "{s}");
        }
        let reals: &[(&str, f64)] = &[
            ("1.5", 1.5),
            (".5", 0.5),
            ("1e10", 1e10),
            ("-1.5e3", -1500.0),
            ("1E+3", 1000.0),
            ("2K", 2048.0),
            ("1.5k", 1536.0),
            ("3M", 3.0 * 1048576.0),
            ("1G", 1073741824.0),
            ("1T", 1099511627776.0),
            ("7B", 7.0),
            // Hexadecimal with a fraction: strtod's hexadecimal float, as HTCondor reads it.
            ("0x10.5", 16.3125),
            ("0X1.8", 1.5),
            ("0xA.5e3", 10.367919921875),
            ("0x1.8e-1", 1.5546875),
            ("0x10.5E+2", 16.3671875),
            ("0xFFFFFFFFFFFFFFFFF.5", 295147905179352825856.0),
        ];
        for (s, want) in reals {
            assert!(matches!(one(s), TokVal::Real(v) if v == *want), "{s}");
        }
    }

    #[test]
    fn string_escapes() {
        let cases: &[(&str, &str)] = &[
            (r#""a\nb""#, "a\nb"),
            (r#""a\"b""#, "a\"b"),
            (r#""\\q""#, "\\q"),
            (r#""\q""#, "q"),
            (r#""\7""#, "\x07"),
            (r#""\77x""#, "?x"),
            (r#""\400""#, " 0"),
            (r#""\1234""#, "S4"),
            (r#""\303\251""#, "é"),
            (r#""a" "b""#, "ab"),
            ("\"a\"\n\t\"b\"", "ab"),
            (r#""é""#, "é"),
        ];
        for (s, want) in cases {
            match one(s) {
                TokVal::Text(t) => assert_eq!(t, *want, "{s}"),
                other => panic!("{s}: {other:?}"),
            }
        }
        assert_eq!(kinds(r#""a\0b""#), ["ERR"]);
    }

    #[test]
    fn old_strings() {
        let cases: &[(&str, &str)] = &[
            (r#""C:\dir\""#, "C:\\dir\\"),
            (r#""a\"b""#, "a\"b"),
            (r#""a\nb""#, "a\\nb"),
        ];
        for (s, want) in cases {
            let mut lx = Lexer::new(s, 0);
            lx.set_old_syntax(true);
            let t = lx.next_token().unwrap();
            assert_eq!(t.text(), *want, "{s}");
        }
    }

    #[test]
    fn positions() {
        assert_eq!(line_col("ab\ncdé f", 8), (2, 5));
        assert_eq!(line_col("", 0), (1, 1));
        let e = Lexer::new("\n  $", 0).next_token().unwrap_err();
        assert_eq!((e.line, e.col), (2, 3));
    }
}
