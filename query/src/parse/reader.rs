//! A recovering reader of ad files: a text is split into one chunk per ad, with the line and
//! column where each starts, so that each ad is parsed on its own and a bad one is reported at
//! its position in the whole text while the others are read.
//!
//! Splitting understands just enough of each format to find ad boundaries: strings and comments
//! (new syntax, JSON), bracket depth, blank lines and the comments closing a document (old
//! syntax), `<c>` elements (XML). An ad that
//! never closes would swallow the rest of the text, so a line that starts with `[` (new syntax)
//! or `{` (JSON) in column 1 while an ad is open starts a new ad: pretty-printed ads indent what
//! they nest, so such a line is taken to begin the next ad. Chunks are independent, so callers
//! may parse them on several threads ([`parse_chunk`]) or read them in order ([`read_ads`]).

use super::lexer::{is_space, skip_blank_at};
use super::{ads, classad, Format};
use crate::{ClassAd, ParseError};

/// A piece of a text that holds one ad (or, for old syntax, one blank-line separated block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Chunk<'t> {
    /// The text of the piece.
    pub text: &'t str,
    /// The 1-based line it starts on.
    pub line: u32,
    /// The 1-based column (in characters) it starts at.
    pub col: u32,
}

/// Tracks line and column while scanning bytes.
struct Pos {
    line: u32,
    line_start: usize,
}

impl Pos {
    fn new() -> Pos {
        Pos {
            line: 1,
            line_start: 0,
        }
    }

    fn newline(&mut self, at: usize) {
        self.line += 1;
        self.line_start = at + 1;
    }

    fn col(&self, text: &str, at: usize) -> u32 {
        text.get(self.line_start..at)
            .map_or(1, |s| s.chars().count() as u32 + 1)
    }
}

/// Splits `text` into chunks of one ad each in `format` (`Auto` decides from the text, as
/// [`crate::parse::detect`] does), returning the format used.
pub fn split(text: &str, format: Format) -> (Format, Vec<Chunk<'_>>) {
    let format = match format {
        Format::Auto => super::detect(text),
        f => f,
    };
    let chunks = match format {
        Format::New => settled(format, Lexing::NEW, |l| {
            split_bracketed(text, b'[', b']', l)
        }),
        Format::Json => settled(format, Lexing::JSON, |l| split_json(text, l)),
        Format::Xml => split_xml(text),
        Format::Old | Format::Auto => split_old(text),
    };
    (format, chunks)
}

/// The chunks `split` makes with `lexing`. A line opening an ad inside a string or an open ad
/// may belong to it (a string holding a line break): when the text split without
/// resynchronising parses chunk by chunk, that is how it reads, as the whole-text reader reads
/// it (parsed here only when a resynchronisation happened).
fn settled<'t>(
    format: Format,
    lexing: Lexing,
    split: impl Fn(Lexing) -> Split<'t>,
) -> Vec<Chunk<'t>> {
    match split(lexing) {
        (chunks, false) => chunks,
        (chunks, true) => {
            let (whole, _) = split(lexing.without_resync());
            if whole.iter().all(|&c| parse_chunk(c, format).is_ok()) {
                whole
            } else {
                chunks
            }
        }
    }
}

/// Old syntax: runs of non-blank lines, up to the comments that close the document (which
/// [`super::old::old_ads`] ignores).
fn split_old(text: &str) -> Vec<Chunk<'_>> {
    let mut out = Vec::new();
    let mut start: Option<(usize, u32)> = None;
    let mut at = 0;
    let mut line = 1u32;
    while at < text.len() {
        let end = text[at..].find('\n').map_or(text.len(), |i| at + i);
        let trimmed = text[at..end].trim();
        if super::old::closing_comments(trimmed, &text[at..]) {
            if let Some((s, l)) = start.take() {
                out.push(Chunk {
                    text: &text[s..at],
                    line: l,
                    col: 1,
                });
            }
            break;
        }
        let blank = trimmed.is_empty();
        match (blank, start) {
            (false, None) => start = Some((at, line)),
            (true, Some((s, l))) => {
                out.push(Chunk {
                    text: &text[s..at],
                    line: l,
                    col: 1,
                });
                start = None;
            }
            _ => {}
        }
        at = end + 1;
        line += 1;
    }
    if let Some((s, l)) = start {
        out.push(Chunk {
            text: &text[s..],
            line: l,
            col: 1,
        });
    }
    out
}

/// JSON: the objects of a top-level array, or top-level objects in sequence.
fn split_json(text: &str, lexing: Lexing) -> Split<'_> {
    let open = skip_blank_at(text.as_bytes(), 0);
    if text.as_bytes().get(open) == Some(&b'[') {
        // Blank out the array's own brackets and commas: the objects are then top-level.
        let close = json_array_end(text.as_bytes(), open);
        let (mut chunks, resynced) = split_bracketed_range(
            text,
            open + 1,
            close.unwrap_or(text.len()),
            b'{',
            b'}',
            lexing,
        );
        chunks.retain(|c| c.text.trim() != ",");
        let chunks = chunks
            .into_iter()
            .map(|c| {
                let t = c.text.trim_start_matches(',').trim_start();
                let cut = c.text.len() - t.len();
                let (line, col) = advance(c, cut);
                Chunk { text: t, line, col }
            })
            .filter(|c| !c.text.trim().is_empty())
            .collect();
        (chunks, resynced)
    } else {
        split_bracketed(text, b'{', b'}', lexing)
    }
}

/// The `]` closing the array opened at `open`, past strings and comments; `None` when it
/// never closes.
fn json_array_end(b: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                while i < b.len() && b[i] != b'"' {
                    i += if b[i] == b'\\' { 2 } else { 1 };
                }
            }
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                match skip_blank_at(b, i) {
                    // An unterminated `/*`: the rest is comment.
                    stuck if stuck == i => return None,
                    past => i = past,
                }
                continue;
            }
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The position `cut` bytes into chunk `c`.
fn advance(c: Chunk<'_>, cut: usize) -> (u32, u32) {
    let skipped = &c.text[..cut];
    match skipped.rfind('\n') {
        Some(nl) => (
            c.line + skipped.matches('\n').count() as u32,
            skipped[nl + 1..].chars().count() as u32 + 1,
        ),
        None => (c.line, c.col + skipped.chars().count() as u32),
    }
}

/// What a format's splitter must skip besides `"…"` strings.
#[derive(Clone, Copy)]
struct Lexing {
    /// `//` and `/* */` comments (new syntax, and JSON as HTCondor's lexer reads it).
    comments: bool,
    /// `'…'` quoted names (new syntax).
    quoted_names: bool,
    /// Whether an ad opening in column 1 ends an unterminated one before it.
    resync: bool,
}

impl Lexing {
    const NEW: Lexing = Lexing {
        comments: true,
        quoted_names: true,
        resync: true,
    };
    const JSON: Lexing = Lexing {
        comments: true,
        quoted_names: false,
        resync: true,
    };

    fn without_resync(self) -> Lexing {
        Lexing {
            resync: false,
            ..self
        }
    }
}

/// Chunks, and whether any of them was cut by a resynchronisation.
type Split<'t> = (Vec<Chunk<'t>>, bool);

fn split_bracketed(text: &str, open: u8, close: u8, lexing: Lexing) -> Split<'_> {
    split_bracketed_range(text, 0, text.len(), open, close, lexing)
}

/// Top-level `open … close` groups of `text[from..to]`, skipping strings and comments as
/// `lexing` says; anything else at the top level becomes a chunk of its own so that it is
/// reported.
fn split_bracketed_range<'t>(
    text: &'t str,
    from: usize,
    to: usize,
    open: u8,
    close: u8,
    lexing: Lexing,
) -> Split<'t> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut resynced = false;
    let mut pos = Pos::new();
    for (i, &c) in b[..from].iter().enumerate() {
        if c == b'\n' {
            pos.newline(i);
        }
    }
    let mut depth = 0usize;
    let mut start: Option<(usize, u32, u32)> = None;
    let mut in_str: Option<u8> = None;
    let mut i = from;
    // Just past the last byte that is neither white space nor comment: an ad cut short ends
    // there, not after the comments that follow it.
    let mut content_end = from;
    // Trailing white space is left out, so that an ad cut short ends on its own last line.
    let emit = |out: &mut Vec<Chunk<'t>>, s: (usize, u32, u32), end: usize| {
        let t = text[s.0..end].trim_end();
        if !t.is_empty() {
            out.push(Chunk {
                text: t,
                line: s.1,
                col: s.2,
            });
        }
    };
    while i < to {
        let c = b[i];
        let line_start = i == pos.line_start;
        if lexing.resync
            && line_start
            && c == open
            && start.is_some()
            && (depth > 0 || in_str.is_some())
        {
            // Resynchronise: an ad opening in column 1 ends the unterminated one before it.
            resynced = true;
            if let Some(s) = start.take() {
                emit(&mut out, s, content_end.max(s.0 + 1));
            }
            depth = 0;
            in_str = None;
        }
        if let Some(d) = in_str {
            if c == b'\\' {
                i += 1;
                if b.get(i) == Some(&b'\n') {
                    pos.newline(i);
                }
            } else if c == d {
                in_str = None;
            } else if c == b'\n' {
                pos.newline(i);
            }
            i += 1;
            content_end = i;
            continue;
        }
        match c {
            b'\n' => pos.newline(i),
            b'/' if lexing.comments && b.get(i + 1) == Some(&b'/') => {
                while i < to && b[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if lexing.comments && b.get(i + 1) == Some(&b'*') => {
                let end = text[i + 2..to].find("*/").map_or(to, |k| i + 2 + k + 2);
                for (k, &ch) in b[i..end].iter().enumerate() {
                    if ch == b'\n' {
                        pos.newline(i + k);
                    }
                }
                i = end;
                continue;
            }
            b'"' => in_str = Some(b'"'),
            b'\'' if lexing.quoted_names => in_str = Some(b'\''),
            _ if c == open => {
                if depth == 0 {
                    if let Some(s) = start.take() {
                        emit(&mut out, s, content_end.max(s.0 + 1));
                    }
                    start = Some((i, pos.line, pos.col(text, i)));
                }
                depth += 1;
            }
            _ if c == close && depth > 0 => {
                depth -= 1;
                if depth == 0 {
                    if let Some(s) = start.take() {
                        emit(&mut out, s, i + 1);
                    }
                }
            }
            _ if is_space(c) => {}
            _ => {
                if start.is_none() {
                    start = Some((i, pos.line, pos.col(text, i)));
                }
            }
        }
        if !is_space(c) {
            content_end = i + 1;
        }
        i += 1;
    }
    if let Some(s) = start {
        emit(&mut out, s, content_end.max(s.0 + 1));
    }
    (out, resynced)
}

/// XML: each top-level `<c>` … `</c>` element (nested `<c>` elements are counted; comments
/// skipped; tags recognised as the parser recognises them, [`super::xml::classify_tag`]).
fn split_xml(text: &str) -> Vec<Chunk<'_>> {
    use super::xml::{classify_tag, Kind};
    let mut out = Vec::new();
    let mut pos = Pos::new();
    let mut depth = 0usize;
    let mut start: Option<(usize, u32, u32)> = None;
    let b = text.as_bytes();
    let mut i = 0;
    // Moves `pos` over the lines of `text[from..to]`.
    let lines = |pos: &mut Pos, from: usize, to: usize| {
        for (k, &ch) in b[from..to].iter().enumerate() {
            if ch == b'\n' {
                pos.newline(from + k);
            }
        }
    };
    while i < b.len() {
        match b[i] {
            b'\n' => pos.newline(i),
            b'<' => {
                let rest = &text[i..];
                let end = if let Some(body) = rest.strip_prefix("<!--") {
                    body.find("-->").map_or(b.len(), |k| i + 4 + k + 3)
                } else if let Some(close) = rest.find('>') {
                    let (name, kind, _) = classify_tag(&rest[1..close]);
                    let tag_end = i + close + 1;
                    if name == "c" {
                        match kind {
                            Kind::Empty if depth == 0 => out.push(Chunk {
                                text: &text[i..tag_end],
                                line: pos.line,
                                col: pos.col(text, i),
                            }),
                            Kind::Start => {
                                if depth == 0 {
                                    start = Some((i, pos.line, pos.col(text, i)));
                                }
                                depth += 1;
                            }
                            Kind::End if depth > 0 => {
                                depth -= 1;
                                if depth == 0 {
                                    if let Some((s, l, c)) = start.take() {
                                        out.push(Chunk {
                                            text: &text[s..tag_end],
                                            line: l,
                                            col: c,
                                        });
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    tag_end
                } else {
                    b.len()
                };
                lines(&mut pos, i, end);
                i = end;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    if let Some((s, l, c)) = start {
        out.push(Chunk {
            text: &text[s..],
            line: l,
            col: c,
        });
    }
    out
}

/// The prefix and suffix an XML chunk is wrapped in to be parsed alone.
const XML_OPEN: &str = "<classads>";
const XML_CLOSE: &str = "</classads>";

/// Parses one chunk in `format`, placing an error at its position in the whole text.
pub fn parse_chunk(chunk: Chunk<'_>, format: Format) -> Result<Vec<ClassAd>, ParseError> {
    let (result, shift) = match format {
        Format::New => (classad(chunk.text).map(|a| vec![a]), 0),
        Format::Xml => {
            let wrapped = format!("{XML_OPEN}{}{XML_CLOSE}", chunk.text);
            (ads(&wrapped, Format::Xml), XML_OPEN.len() as u32)
        }
        Format::Old => (super::old::old_block(chunk.text), 0),
        f => (ads(chunk.text, f), 0),
    };
    result.map_err(|e: ParseError| {
        let line = chunk.line + e.line.saturating_sub(1);
        let col = if e.line <= 1 {
            (chunk.col + e.col.saturating_sub(1))
                .saturating_sub(shift)
                .max(1)
        } else {
            e.col
        };
        ParseError::new(line, col, e.message)
    })
}

/// Every ad of `text` with the line it starts on, or the error of the chunk that failed (placed
/// in the whole text), in order: a bad ad is reported and the reading goes on after it.
pub fn read_ads(
    text: &str,
    format: Format,
) -> impl Iterator<Item = Result<(u32, ClassAd), ParseError>> + '_ {
    let (format, chunks) = split(text, format);
    chunks.into_iter().flat_map(move |chunk| {
        let items: Vec<Result<(u32, ClassAd), ParseError>> = match parse_chunk(chunk, format) {
            Ok(ads) => ads.into_iter().map(|a| Ok((chunk.line, a))).collect(),
            Err(e) => vec![Err(e)],
        };
        items
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(line, col, how the text starts)` of each chunk.
    fn chunks_are(text: &str, format: Format, want: &[(u32, u32, &str)]) {
        let (_, got) = split(text, format);
        assert_eq!(got.len(), want.len(), "{text:?}: {got:?}");
        for (g, w) in got.iter().zip(want) {
            assert!(
                g.line == w.0 && g.col == w.1 && g.text.starts_with(w.2),
                "{text:?}: got {g:?}, want {w:?}"
            );
        }
    }

    #[test]
    fn new_syntax_chunks() {
        chunks_are(
            "[a=1] [b=2]\n[c=3]",
            Format::New,
            &[(1, 1, "[a=1]"), (1, 7, "[b=2]"), (2, 1, "[c=3]")],
        );
        chunks_are(
            "[a=\"]\"; b=[c=1]]\n// [x]\n[d=']']",
            Format::New,
            &[(1, 1, "[a=\"]\""), (3, 1, "[d=']']")],
        );
        chunks_are("/* [\n] */ [a=1]", Format::New, &[(2, 6, "[a=1]")]);
        chunks_are(
            "[a=1\n[b=2]",
            Format::New,
            &[(1, 1, "[a=1"), (2, 1, "[b=2]")],
        );
        chunks_are(
            "[a=\"open\n[b=2]",
            Format::New,
            &[(1, 1, "[a=\"open"), (2, 1, "[b=2]")],
        );
        chunks_are(
            "junk [a=1] ]",
            Format::New,
            &[(1, 1, "junk"), (1, 6, "[a=1]"), (1, 12, "]")],
        );
        chunks_are(
            "[ü=\"é\"] [x=1]",
            Format::New,
            &[(1, 1, "[ü"), (1, 9, "[x")],
        );
    }

    #[test]
    fn old_syntax_chunks() {
        chunks_are(
            "a = 1\nb = 2\n\n\nc = 3\n  \nd = 4",
            Format::Old,
            &[(1, 1, "a"), (5, 1, "c"), (7, 1, "d")],
        );
    }

    #[test]
    fn json_chunks() {
        chunks_are(
            "[\n{\"a\": 1},\n  {\"b\": \"}\"}\n]",
            Format::Json,
            &[(2, 1, "{\"a\""), (3, 3, "{\"b\"")],
        );
        chunks_are(
            "{\"a\": 1}\n{\"b\": 2}",
            Format::Json,
            &[(1, 1, "{\"a\""), (2, 1, "{\"b\"")],
        );
        chunks_are(
            "[\n{\"a\": 1\n{\"b\": 2}\n]",
            Format::Json,
            &[(2, 1, "{\"a\": 1"), (3, 1, "{\"b\"")],
        );
    }

    /// The recovering reader reads what [`ads`] reads, and fails where it fails.
    #[test]
    fn reads_as_the_whole_text_reads() {
        let docs: &[(&str, Format)] = &[
            ("{\"a\": 1 /* } */, \"b\": 2}\n{\"c\": 3}", Format::Json),
            ("// header\n[{\"a\":1},{\"b\":2}]", Format::Json),
            ("[{\"a\":1},{\"b\":2}] // done]", Format::Json),
            ("{\"a\": 1} /* { */ {\"b\": 2}", Format::Json),
            ("[{\"a\": \"]\"}, /* ] */ {\"b\": 2}]", Format::Json),
            ("{\"a\": 1}\n{\"b\": 2", Format::Json),
            ("a = 1\n\n/* c */", Format::Old),
            ("a = 1\n/* c */\n// d\n", Format::Old),
            ("a = 1\n\n/* c */\n\nb = 2", Format::Old),
            ("a = 1\n// c\n\nb = 2", Format::Old),
            ("/* c */\na = 1", Format::Old),
            (
                "a = 1\n\nb = 2\n\n/* one\n two */ // three\n\n",
                Format::Old,
            ),
            // Found by the `parse` fuzz target: tags as the XML parser reads them; a string
            // holding a line break before a bracket in column 1.
            ("<c/><c\r></c\r\u{c}>", Format::Xml),
            (
                "<classads><!-- <c> --><c ><a n=\"x\"><i>1</i></a></ c></classads>",
                Format::Xml,
            ),
            ("[a = \"x\n[b = 1]\"]\n[c = 2]", Format::New),
            ("{\"~\":{\"}}\n\n{\"}}\n{\"a\": 1}", Format::Json),
            ("[a = \"open\n[b = 2]", Format::New),
            ("\u{b}/**/\u{b}[l={S0,S}]", Format::New),
        ];
        for &(text, format) in docs {
            let whole = ads(text, format);
            let read: Vec<Result<(u32, ClassAd), ParseError>> = read_ads(text, format).collect();
            match whole {
                Ok(want) => {
                    let got: Vec<ClassAd> = read
                        .into_iter()
                        .map(|r| r.map(|(_, a)| a))
                        .collect::<Result<_, _>>()
                        .unwrap_or_else(|e| panic!("{text:?}: the reader fails: {e}"));
                    assert_eq!(got, want, "{text:?}");
                }
                Err(_) => assert!(read.iter().any(Result::is_err), "{text:?}: {read:?}"),
            }
        }
    }

    #[test]
    fn xml_chunks() {
        let t = "<?xml version=\"1.0\"?>\n<classads>\n<c><a n=\"x\"><c><a n=\"y\"><i>1</i></a></c></a></c>\n<c/>\n</classads>";
        chunks_are(t, Format::Xml, &[(3, 1, "<c><a"), (4, 1, "<c/>")]);
    }

    fn reads(text: &str, format: Format, want: &[Result<u32, (u32, u32)>]) {
        let got: Vec<Result<u32, (u32, u32)>> = read_ads(text, format)
            .map(|r| r.map(|(l, _)| l).map_err(|e| (e.line, e.col)))
            .collect();
        assert_eq!(got, want, "{text:?}");
    }

    #[test]
    fn errors_are_placed_in_the_file() {
        reads(
            "[a = 1]\n[b = ]\n[c = 3]",
            Format::New,
            &[Ok(1), Err((2, 6)), Ok(3)],
        );
        reads(
            "[a = 1]\n[b = 1;\n c = (]\n[d = 1]",
            Format::New,
            &[Ok(1), Err((3, 7)), Ok(4)],
        );
        reads(
            "a = 1\n\nb = \nc = 2\n\nd = 4",
            Format::Old,
            &[Ok(1), Err((3, 5)), Ok(6)],
        );
        reads(
            "[{\"a\": 1},\n {\"b\": tru},\n {\"c\": 2}]",
            Format::Json,
            &[Ok(1), Err((2, 8)), Ok(3)],
        );
    }
}
