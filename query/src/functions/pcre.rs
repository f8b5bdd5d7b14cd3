//! HTCondor's regular expressions (PCRE2, byte mode, no UTF) mapped onto the linear-time
//! `regex` crate, and a small cache of compiled patterns.
//!
//! The pattern is translated to `regex` syntax for a byte regex with Unicode off, so `.` is one
//! byte, `\w` is ASCII and a non-ASCII literal is its UTF-8 bytes — as PCRE without UTF. PCRE
//! features with no linear-time equivalent (backreferences, lookaround, atomic groups,
//! possessive quantifiers, recursion, conditionals, `\G`, verbs) make the pattern invalid, so
//! the calling function yields `error`. Compiled programs are bounded by size limits, so
//! `(a{1000}){1000}` is invalid too rather than slow.
//!
//! PCRE's `$` (without multiline) also matches before a final newline, which `regex` cannot
//! say. It is compiled twice: as `(?m:$)` — exact when the subject has no newline before its
//! last byte — and as `\z`, used otherwise.

use regex::bytes::{Regex, RegexBuilder};
use std::cell::RefCell;
use std::fmt::Write;
use std::rc::Rc;

/// Ignore case (`i`).
pub(crate) const CASELESS: u8 = 1;
/// `^` and `$` at line boundaries (`m`).
pub(crate) const MULTILINE: u8 = 2;
/// `.` matches newline too (`s`).
pub(crate) const DOTALL: u8 = 4;
/// Whitespace and `#` comments in the pattern are ignored (`x`).
pub(crate) const EXTENDED: u8 = 8;

/// Most compiled program bytes one pattern may use.
const SIZE_LIMIT: usize = 2 << 20;
/// Patterns kept compiled per thread.
const CACHE_SIZE: usize = 64;

/// A compiled pattern.
#[derive(Debug)]
pub(crate) struct Pattern {
    /// `$` as `(?m:$)`: exact for subjects without an inner newline.
    near_end: Regex,
    /// `$` as `\z`, when the pattern has a non-multiline `$` or `\Z` (else `near_end` serves).
    at_end: Option<Regex>,
}

impl Pattern {
    /// The program to run on `subject` (see the module notes on `$`).
    pub(crate) fn for_subject(&self, subject: &[u8]) -> &Regex {
        match &self.at_end {
            Some(re) if inner_newline(subject) => re,
            _ => &self.near_end,
        }
    }

    /// True when [`Pattern::for_subject`] reads `$` as the very end for `subject` (which then
    /// has a newline before its last byte).
    pub(crate) fn end_is_strict(&self, subject: &[u8]) -> bool {
        self.at_end.is_some() && inner_newline(subject)
    }

    /// True when the pattern matches somewhere in `subject`.
    pub(crate) fn is_match(&self, subject: &[u8]) -> bool {
        match &self.at_end {
            Some(re) if inner_newline(subject) => {
                re.is_match(subject)
                    || (subject.last() == Some(&b'\n')
                        && re.is_match(&subject[..subject.len() - 1]))
            }
            _ => self.near_end.is_match(subject),
        }
    }
}

fn inner_newline(s: &[u8]) -> bool {
    s.len() > 1 && s[..s.len() - 1].contains(&b'\n')
}

/// Option letters to flags: `i m s x` (and their capitals when `upper` is set, as HTCondor's
/// compatibility functions accept); every other letter is ignored.
pub(crate) fn parse_options(options: &str, upper: bool) -> u8 {
    options.chars().fold(0, |f, c| {
        let c = if upper { c.to_ascii_lowercase() } else { c };
        f | match c {
            'i' => CASELESS,
            'm' => MULTILINE,
            's' => DOTALL,
            'x' => EXTENDED,
            _ => 0,
        }
    })
}

type CacheEntry = (Box<str>, u8, Option<Rc<Pattern>>);

thread_local! {
    /// Most recently used first.
    static CACHE: RefCell<Vec<CacheEntry>> = const { RefCell::new(Vec::new()) };
}

/// The compiled form of `pattern` under `flags`, or `None` when it is invalid or unsupported.
pub(crate) fn compile(pattern: &str, flags: u8) -> Option<Rc<Pattern>> {
    CACHE.with(|cache| {
        let mut cache = cache.borrow_mut();
        if let Some(i) = cache
            .iter()
            .position(|(p, f, _)| *f == flags && &**p == pattern)
        {
            let entry = cache.remove(i);
            let out = entry.2.clone();
            cache.insert(0, entry);
            return out;
        }
        let compiled = build(pattern, flags).map(Rc::new);
        cache.insert(0, (pattern.into(), flags, compiled.clone()));
        cache.truncate(CACHE_SIZE);
        compiled
    })
}

fn build(pattern: &str, flags: u8) -> Option<Pattern> {
    let t = Translator::new(pattern, flags);
    let (near, uses_dollar) = t.translate(false)?;
    let near_end = regex(&near, flags)?;
    let at_end = if uses_dollar {
        let (far, _) = Translator::new(pattern, flags).translate(true)?;
        Some(regex(&far, flags)?)
    } else {
        None
    };
    Some(Pattern { near_end, at_end })
}

fn regex(translated: &str, flags: u8) -> Option<Regex> {
    RegexBuilder::new(translated)
        .unicode(false)
        .case_insensitive(flags & CASELESS != 0)
        .dot_matches_new_line(flags & DOTALL != 0)
        .size_limit(SIZE_LIMIT)
        .dfa_size_limit(SIZE_LIMIT)
        .build()
        .ok()
}

/// Number of capturing groups in a PCRE pattern (to tell `\12` the backreference from `\12`
/// the octal escape).
fn count_groups(p: &[u8]) -> usize {
    let mut n = 0;
    let mut i = 0;
    let mut in_class = false;
    while i < p.len() {
        match p[i] {
            b'\\' => i += 1,
            b'[' if !in_class => {
                in_class = true;
                if p.get(i + 1) == Some(&b'^') {
                    i += 1;
                }
                if p.get(i + 1) == Some(&b']') {
                    i += 1;
                }
            }
            b']' if in_class => in_class = false,
            b'(' if !in_class => {
                let rest = &p[i + 1..];
                let named = rest.starts_with(b"?P<")
                    || rest.starts_with(b"?'")
                    || (rest.starts_with(b"?<")
                        && !rest.starts_with(b"?<=")
                        && !rest.starts_with(b"?<!"));
                if named || !matches!(rest.first(), Some(b'?' | b'*')) {
                    n += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    n
}

/// Translates one PCRE pattern; state is the cursor and the flag scopes of open groups.
struct Translator<'p> {
    p: &'p [u8],
    i: usize,
    out: String,
    /// Flags in force in each open group (innermost last); only `m` and `x` are tracked here,
    /// `i`, `s`, `U` are passed through to `regex`.
    scopes: Vec<u8>,
    groups: usize,
    uses_dollar: bool,
}

impl<'p> Translator<'p> {
    fn new(pattern: &'p str, flags: u8) -> Translator<'p> {
        let p = pattern.as_bytes();
        Translator {
            p,
            i: 0,
            out: String::with_capacity(p.len() * 2),
            scopes: vec![flags & (MULTILINE | EXTENDED)],
            groups: count_groups(p),
            uses_dollar: false,
        }
    }

    fn flags(&self) -> u8 {
        self.scopes.last().copied().unwrap_or(0)
    }

    fn peek(&self) -> Option<u8> {
        self.p.get(self.i).copied()
    }

    fn rest(&self) -> &'p [u8] {
        &self.p[self.i.min(self.p.len())..]
    }

    fn byte(&mut self, b: u8) {
        let _ = write!(self.out, "\\x{b:02X}");
    }

    /// The translation, and whether it has a non-multiline `$`/`\Z`. With `far`, those become
    /// `\z`; otherwise `(?m:$)`.
    fn translate(mut self, far: bool) -> Option<(String, bool)> {
        let end = if far { "\\z" } else { "(?m:$)" };
        while let Some(c) = self.peek() {
            self.i += 1;
            match c {
                b'\\' => self.escape(end)?,
                b'[' => self.class()?,
                b'(' => self.open()?,
                b')' => {
                    if self.scopes.len() < 2 {
                        return None;
                    }
                    self.scopes.pop();
                    self.out.push(')');
                }
                b'^' if self.flags() & MULTILINE != 0 => self.out.push_str("(?m:^)"),
                b'$' if self.flags() & MULTILINE != 0 => self.out.push_str("(?m:$)"),
                b'$' => {
                    self.uses_dollar = true;
                    self.out.push_str(end);
                }
                b'{' => self.brace()?,
                b'*' | b'+' | b'?' => {
                    self.out.push(c as char);
                    self.quantifier_suffix()?;
                }
                b'^' | b'.' | b'|' => self.out.push(c as char),
                b'#' if self.flags() & EXTENDED != 0 => {
                    while let Some(d) = self.peek() {
                        self.i += 1;
                        if d == b'\n' {
                            break;
                        }
                    }
                }
                b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r' if self.flags() & EXTENDED != 0 => {}
                c if c.is_ascii_alphanumeric() => self.out.push(c as char),
                c => self.byte(c),
            }
        }
        if self.scopes.len() != 1 {
            return None;
        }
        Some((self.out, self.uses_dollar))
    }

    /// After a quantifier: `?` (lazy) passes, `+` (possessive) is unsupported.
    fn quantifier_suffix(&mut self) -> Option<()> {
        match self.peek() {
            Some(b'?') => {
                self.i += 1;
                self.out.push('?');
                Some(())
            }
            Some(b'+') => None,
            _ => Some(()),
        }
    }

    /// `{n}`, `{n,}`, `{n,m}` are quantifiers; any other `{` is a literal brace (PCRE's rule).
    fn brace(&mut self) -> Option<()> {
        let rest = self.rest();
        let digits = |s: &[u8]| s.iter().take_while(|c| c.is_ascii_digit()).count();
        let n = digits(rest);
        let mut len = n;
        if n > 0 && rest.get(len) == Some(&b',') {
            len += 1 + digits(&rest[len + 1..]);
        }
        if n > 0 && rest.get(len) == Some(&b'}') {
            self.out.push('{');
            self.out
                .push_str(std::str::from_utf8(&rest[..=len]).unwrap_or("}"));
            self.i += len + 1;
            self.quantifier_suffix()
        } else {
            self.byte(b'{');
            Some(())
        }
    }

    /// After `(`: groups, options, comments; unsupported constructs fail.
    fn open(&mut self) -> Option<()> {
        let rest = self.rest();
        if rest.first() == Some(&b'*') {
            return None; // verbs such as (*UTF)
        }
        if rest.first() != Some(&b'?') {
            self.scopes.push(self.flags());
            self.out.push('(');
            return Some(());
        }
        let after = &rest[1..];
        if after.first() == Some(&b'#') {
            let close = after.iter().position(|&c| c == b')')?;
            self.i += 1 + close + 1;
            return Some(());
        }
        if after.starts_with(b":") {
            self.i += 2;
            self.scopes.push(self.flags());
            self.out.push_str("(?:");
            return Some(());
        }
        let name = if after.starts_with(b"P<") {
            Some((2, b'>'))
        } else if after.starts_with(b"<") && !after.starts_with(b"<=") && !after.starts_with(b"<!")
        {
            Some((1, b'>'))
        } else if after.starts_with(b"'") {
            Some((1, b'\''))
        } else {
            None
        };
        if let Some((skip, close)) = name {
            let body = &after[skip..];
            let len = body.iter().position(|&c| c == close)?;
            let name = std::str::from_utf8(&body[..len]).ok()?;
            if name.is_empty() || !name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_') {
                return None;
            }
            self.i += 1 + skip + len + 1;
            self.scopes.push(self.flags());
            let _ = write!(self.out, "(?P<{name}>");
            return Some(());
        }
        self.option_group(after)
    }

    /// `(?flags)` or `(?flags:…)`: `m` and `x` are tracked here, `i`, `s`, `U` passed on; any
    /// other letter (and lookaround, atomic groups, …) is unsupported.
    fn option_group(&mut self, after: &[u8]) -> Option<()> {
        let mut on = true;
        let mut tracked = self.flags();
        let mut passed_on = String::new();
        let mut passed_off = String::new();
        for (k, &c) in after.iter().enumerate() {
            match c {
                b'-' if on => on = false,
                b'm' | b'x' => {
                    let bit = if c == b'm' { MULTILINE } else { EXTENDED };
                    tracked = if on { tracked | bit } else { tracked & !bit };
                }
                b'i' | b's' | b'U' => {
                    if on { &mut passed_on } else { &mut passed_off }.push(c as char);
                }
                b')' | b':' => {
                    let mut flags = passed_on;
                    if !passed_off.is_empty() {
                        flags.push('-');
                        flags.push_str(&passed_off);
                    }
                    self.i += 1 + k + 1;
                    if c == b')' {
                        if let Some(top) = self.scopes.last_mut() {
                            *top = tracked;
                        }
                        if !flags.is_empty() {
                            let _ = write!(self.out, "(?{flags})");
                        }
                    } else {
                        self.scopes.push(tracked);
                        let _ = write!(self.out, "(?{flags}:");
                    }
                    return Some(());
                }
                _ => return None,
            }
        }
        None
    }

    /// An escape outside a class.
    fn escape(&mut self, end: &str) -> Option<()> {
        let c = self.peek()?;
        self.i += 1;
        match c {
            b'Q' => {
                let body = self.rest();
                let len = body
                    .windows(2)
                    .position(|w| w == b"\\E")
                    .unwrap_or(body.len());
                for &b in &body[..len] {
                    self.byte(b);
                }
                self.i += (len + 2).min(body.len());
            }
            b'E' => {}
            b'A' | b'z' | b'b' | b'B' | b'd' | b'D' | b'w' | b'W' | b's' | b'S' | b'n' | b'r'
            | b't' => {
                self.out.push('\\');
                self.out.push(c as char);
            }
            b'Z' => {
                self.uses_dollar = true;
                self.out.push_str(end);
            }
            b'h' => self.out.push_str("[\\t\\x20\\xA0]"),
            b'H' => self.out.push_str("[^\\t\\x20\\xA0]"),
            b'v' => self.out.push_str("[\\n\\x0B\\x0C\\r\\x85]"),
            b'V' => self.out.push_str("[^\\n\\x0B\\x0C\\r\\x85]"),
            b'R' => self.out.push_str("(?:\\r\\n|[\\n\\x0B\\x0C\\r\\x85])"),
            b'N' => self.out.push_str("[^\\n]"),
            b'1'..=b'9' => {
                let b = self.numbered(c)?;
                self.byte(b);
            }
            _ => {
                let b = self.char_escape(c)?;
                self.byte(b);
            }
        }
        Some(())
    }

    /// `\N…` with a leading non-zero digit: a backreference (unsupported) or an octal escape.
    fn numbered(&mut self, first: u8) -> Option<u8> {
        let start = self.i - 1;
        let digits = self.p[start..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        let value: usize = std::str::from_utf8(&self.p[start..start + digits])
            .ok()?
            .parse()
            .unwrap_or(usize::MAX);
        if value < 10 || value <= self.groups || first > b'7' {
            return None; // backreference (or \8, \9 with no such group)
        }
        self.i = start;
        self.octal(3)
    }

    /// Up to `max` octal digits at the cursor, as one byte.
    fn octal(&mut self, max: usize) -> Option<u8> {
        let mut v: u32 = 0;
        let mut n = 0;
        while n < max {
            match self.peek() {
                Some(d @ b'0'..=b'7') => {
                    v = v * 8 + u32::from(d - b'0');
                    self.i += 1;
                    n += 1;
                }
                _ => break,
            }
        }
        u8::try_from(v).ok()
    }

    /// A single-character escape (valid both in and out of classes) as the byte it denotes.
    fn char_escape(&mut self, c: u8) -> Option<u8> {
        Some(match c {
            b'a' => 0x07,
            b'e' => 0x1b,
            b'f' => 0x0c,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'0' => self.octal(2)?,
            b'o' => {
                let body = self.rest();
                if body.first() != Some(&b'{') {
                    return None;
                }
                let len = body.iter().position(|&d| d == b'}')?;
                let v = u32::from_str_radix(std::str::from_utf8(&body[1..len]).ok()?, 8).ok()?;
                self.i += len + 1;
                u8::try_from(v).ok()?
            }
            b'x' => {
                let body = self.rest();
                if body.first() == Some(&b'{') {
                    let len = body.iter().position(|&d| d == b'}')?;
                    let v =
                        u32::from_str_radix(std::str::from_utf8(&body[1..len]).ok()?, 16).ok()?;
                    self.i += len + 1;
                    u8::try_from(v).ok()?
                } else {
                    let len = body
                        .iter()
                        .take(2)
                        .take_while(|d| d.is_ascii_hexdigit())
                        .count();
                    let v = u8::from_str_radix(std::str::from_utf8(&body[..len]).ok()?, 16)
                        .unwrap_or(0);
                    self.i += len;
                    v
                }
            }
            b'c' => {
                let x = self.peek()?;
                if !x.is_ascii() {
                    return None;
                }
                self.i += 1;
                x.to_ascii_uppercase() ^ 0x40
            }
            c if c.is_ascii_alphanumeric() => return None,
            c => c,
        })
    }

    /// A character class, from after `[` to its `]`.
    fn class(&mut self) -> Option<()> {
        self.out.push('[');
        if self.peek() == Some(b'^') {
            self.i += 1;
            self.out.push('^');
        }
        let mut first = true;
        loop {
            let c = self.peek()?;
            self.i += 1;
            if c == b']' && !first {
                break;
            }
            first = false;
            if c == b'[' && self.peek() == Some(b':') {
                let body = self.rest();
                if let Some(len) = body.windows(2).position(|w| w == b":]") {
                    let name = std::str::from_utf8(&body[..len + 2]).ok()?;
                    self.out.push('[');
                    self.out.push_str(name);
                    self.i += len + 2;
                    continue;
                }
            }
            let item = match c {
                b'\\' => self.class_escape()?,
                c => ClassItem::Bytes(vec![c]),
            };
            match item {
                ClassItem::Set(s) => {
                    if self.peek() == Some(b'-')
                        && self.p.get(self.i + 1).is_some_and(|&n| n != b']')
                    {
                        return None; // a range from a set, e.g. [\d-z]
                    }
                    self.out.push_str(s);
                }
                ClassItem::Bytes(bytes) => {
                    let is_range = self.peek() == Some(b'-')
                        && self.p.get(self.i + 1).is_some_and(|&n| n != b']');
                    if !is_range {
                        bytes.iter().for_each(|&b| self.byte(b));
                        continue;
                    }
                    self.i += 1; // the '-'
                    let hi = match self.peek()? {
                        b'\\' => {
                            self.i += 1;
                            match self.class_escape()? {
                                ClassItem::Bytes(b) => b,
                                ClassItem::Set(_) => return None, // e.g. [a-\d]
                            }
                        }
                        b'[' if self.p.get(self.i + 1) == Some(&b':') => return None,
                        _ => {
                            let n = utf8_len(self.p[self.i]);
                            let b = self.p.get(self.i..self.i + n)?.to_vec();
                            self.i += n;
                            b
                        }
                    };
                    let (&lo, lead) = bytes.split_last()?;
                    let (&hi_first, tail) = hi.split_first()?;
                    if lo > hi_first {
                        return None;
                    }
                    lead.iter().for_each(|&b| self.byte(b));
                    self.byte(lo);
                    self.out.push('-');
                    self.byte(hi_first);
                    tail.iter().for_each(|&b| self.byte(b));
                }
            }
        }
        self.out.push(']');
        Some(())
    }

    /// An escape inside a class (after the backslash).
    fn class_escape(&mut self) -> Option<ClassItem> {
        let c = self.peek()?;
        self.i += 1;
        Some(match c {
            b'd' => ClassItem::Set("\\d"),
            b'D' => ClassItem::Set("\\D"),
            b'w' => ClassItem::Set("\\w"),
            b'W' => ClassItem::Set("\\W"),
            b's' => ClassItem::Set("\\s"),
            b'S' => ClassItem::Set("\\S"),
            b'h' => ClassItem::Set("\\t\\x20\\xA0"),
            b'v' => ClassItem::Set("\\n\\x0B\\x0C\\r\\x85"),
            b'b' => ClassItem::Bytes(vec![0x08]),
            b'1'..=b'7' => {
                self.i -= 1;
                ClassItem::Bytes(vec![self.octal(3)?])
            }
            b'Q' => {
                let body = self.rest();
                let len = body
                    .windows(2)
                    .position(|w| w == b"\\E")
                    .unwrap_or(body.len());
                let bytes = body[..len].to_vec();
                self.i += (len + 2).min(body.len());
                ClassItem::Bytes(bytes)
            }
            b'E' => ClassItem::Bytes(Vec::new()),
            c => ClassItem::Bytes(vec![self.char_escape(c)?]),
        })
    }
}

/// One element of a class: literal bytes (a multi-byte character is several single bytes) or
/// a predefined set in `regex` class syntax.
enum ClassItem {
    Bytes(Vec<u8>),
    Set(&'static str),
}

/// The length of the UTF-8 sequence that starts with `b`.
fn utf8_len(b: u8) -> usize {
    match b {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(pattern: &str, flags: u8, subject: &str) -> Option<bool> {
        compile(pattern, flags).map(|p| p.is_match(subject.as_bytes()))
    }

    #[test]
    fn matching_like_pcre() {
        let cases: &[(&str, u8, &str, Option<bool>)] = &[
            ("a.c", 0, "xabcx", Some(true)),
            ("^a.c$", 0, "xabcx", Some(false)),
            ("A", 0, "a", Some(false)),
            ("A", CASELESS, "a", Some(true)),
            ("(", 0, "a", None),
            ("^b$", 0, "a\nb", Some(false)),
            ("^b$", MULTILINE, "a\nb", Some(true)),
            ("a.b", 0, "a\nb", Some(false)),
            ("a.b", DOTALL, "a\nb", Some(true)),
            ("a b # c", EXTENDED, "ab", Some(true)),
            ("[a b]", EXTENDED, " ", Some(true)),
            ("(?x) a b", 0, "ab", Some(true)),
            ("(a)\\1", 0, "aa", None),
            ("(?=a)a", 0, "a", None),
            ("(?<=a)b", 0, "ab", None),
            ("(?>a+)b", 0, "aab", None),
            ("a++", 0, "aaa", None),
            ("a{1,3}+", 0, "aaa", None),
            ("\\Ga", 0, "a", None),
            ("\\d+", 0, "123", Some(true)),
            ("[[:alpha:]]+", 0, "abc", Some(true)),
            ("^.$", 0, "é", Some(false)),
            ("^..$", 0, "é", Some(true)),
            ("(?i)A", 0, "a", Some(true)),
            ("\\Qa.b\\E", 0, "a.b", Some(true)),
            ("\\Qa.b\\E", 0, "axb", Some(false)),
            ("\\Aabc\\z", 0, "abc", Some(true)),
            ("abc\\Z", 0, "abc\n", Some(true)),
            ("abc$", 0, "abc\n", Some(true)),
            ("b$", 0, "a\nb\n", Some(true)),
            ("a$", 0, "a\nb\n", Some(false)),
            ("(a{1000}){1000}", 0, "a", None),
            ("a{,3}", 0, "a{,3}", Some(true)),
            ("a{,3}", 0, "aa", Some(false)),
            ("x{2", 0, "ax{2b", Some(true)),
            ("]", 0, "a]b", Some(true)),
            ("}", 0, "a}b", Some(true)),
            ("\\x41", 0, "A", Some(true)),
            ("\\x{41}", 0, "A", Some(true)),
            ("\\x{100}", 0, "A", None),
            ("\\101", 0, "A", Some(true)),
            ("(a)\\11", 0, "a\t", Some(true)),
            ("\\012", 0, "\n", Some(true)),
            ("\\8", 0, "8", None),
            ("(?P<n>a)", 0, "a", Some(true)),
            ("(?<n>a)", 0, "a", Some(true)),
            ("(?'n'a)", 0, "a", Some(true)),
            ("a(?#comment)b", 0, "ab", Some(true)),
            ("\\h", 0, " ", Some(true)),
            ("\\R", 0, "\n", Some(true)),
            ("[a-\\d]", 0, "-", None),
            ("[\\d-z]", 0, "-", None),
            ("[]a]", 0, "]", Some(true)),
            ("[^]a]", 0, "]", Some(false)),
            ("[\\]]", 0, "]", Some(true)),
            ("[a-]", 0, "-", Some(true)),
            ("[[]", 0, "[", Some(true)),
            ("[a&&b]", 0, "&", Some(true)),
            ("[é]", 0, "\u{e9}", Some(true)),
            ("é+", 0, "é", Some(true)),
            ("\\w", 0, "é", Some(false)),
            ("$", 0, "", Some(true)),
            ("", 0, "", Some(true)),
            ("(?m)^b", 0, "a\nb", Some(true)),
            ("(?-i:a)", CASELESS, "A", Some(false)),
            ("(?J)a", 0, "a", None),
            ("(*UTF)a", 0, "a", None),
            ("a)", 0, "a", None),
            ("\\", 0, "a", None),
            ("\\i", 0, "i", None),
            ("\\.", 0, ".", Some(true)),
            ("\\.", 0, "a", Some(false)),
        ];
        for (pattern, flags, subject, want) in cases {
            assert_eq!(
                m(pattern, *flags, subject),
                *want,
                "{pattern:?} {flags} {subject:?}"
            );
        }
    }

    #[test]
    fn options() {
        assert_eq!(
            parse_options("imsxfgq", false),
            CASELESS | MULTILINE | DOTALL | EXTENDED
        );
        assert_eq!(parse_options("I", false), 0);
        assert_eq!(parse_options("IM", true), CASELESS | MULTILINE);
    }

    #[test]
    fn cache_returns_the_same_program() {
        let a = compile("ab+c", 0);
        let b = compile("ab+c", 0);
        assert!(matches!((a, b), (Some(a), Some(b)) if Rc::ptr_eq(&a, &b)));
        assert!(compile("ab+c", CASELESS).is_some());
        for i in 0..CACHE_SIZE * 2 {
            assert!(compile(&format!("x{i}"), 0).is_some());
        }
        assert!(compile("(", 0).is_none());
    }
}
