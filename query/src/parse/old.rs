//! Old ClassAd syntax (`condor_status -long`): one `Name = expression` per line, ads separated
//! by blank lines, `#` comment lines (and `//`, `/* */` comments closing the document). Each
//! right-hand side is an expression of the new grammar read with old-syntax strings (backslash
//! is literal except in `\"` mid-line), as HTCondor reads it.

use super::ad::insert_keeping_spelling;
use super::expr::Parser;
use super::lexer::{error_at, skip_blank_at, Lexer, TokenKind};
use crate::classad::ClassAd;
use crate::error::ParseError;
use crate::name::Name;

/// Every old-syntax ad in `text`. An ad ends at a blank line or the end of the text; empty ads
/// (runs of blank lines) are not reported.
pub fn old_ads(text: &str) -> Result<Vec<ClassAd>, ParseError> {
    read(text, true)
}

/// The ads of one blank-line separated block of a larger text (the recovering reader's chunk,
/// [`super::reader`]), which is not where the document ends: a comment line is not an attribute
/// there.
pub(super) fn old_block(text: &str) -> Result<Vec<ClassAd>, ParseError> {
    read(text, false)
}

/// [`old_ads`], with comments closing `text` ignored only when `text` ends the document.
fn read(text: &str, ends_document: bool) -> Result<Vec<ClassAd>, ParseError> {
    let mut out = Vec::new();
    let mut ad = ClassAd::new();
    let mut start = 0;
    while start < text.len() {
        let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
        let line_end = if end > start && text.as_bytes()[end - 1] == b'\r' {
            end - 1
        } else {
            end
        };
        let line = &text[start..line_end];
        let trimmed = line.trim();
        if trimmed.is_empty() {
            if !ad.is_empty() {
                out.push(std::mem::take(&mut ad));
            }
        } else if ends_document && closing_comments(trimmed, &text[start..]) {
            // Comments closing the document (HTCondor's own test of `parseAds` ends an
            // old-syntax file with `/* this is a comment */`) are ignored, as HTCondor ignores
            // them; anywhere else such a line is read as HTCondor reads it: an error, or, with
            // an `=`, a name holding the comment (`/* c */ b = 2` names `'/* c */ b'`).
            break;
        } else if !trimmed.starts_with('#') {
            let (name, e) = attribute(text, start, line_end)?;
            insert_keeping_spelling(&mut ad, name, e);
        }
        start = end + 1;
    }
    if !ad.is_empty() {
        out.push(ad);
    }
    Ok(out)
}

/// True when the line `trimmed`, which starts `rest`, begins the comments that close a document:
/// it opens a `//` or `/* */` comment and nothing but comments follow.
pub(super) fn closing_comments(trimmed: &str, rest: &str) -> bool {
    (trimmed.starts_with("/*") || trimmed.starts_with("//")) && only_comments(rest)
}

/// True when `rest` holds nothing but white space and comments (`// …` and `# …` to the end of
/// the line, `/* … */`).
fn only_comments(rest: &str) -> bool {
    let b = rest.as_bytes();
    let mut i = 0;
    loop {
        i = skip_blank_at(b, i);
        if b.get(i) != Some(&b'#') {
            return i == b.len();
        }
        i += b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .unwrap_or(b.len() - i);
    }
}

/// Parses the line `text[start..end]` as `Name = expression [;]`.
fn attribute(text: &str, start: usize, end: usize) -> Result<(Name, crate::ast::Expr), ParseError> {
    let line = &text[start..end];
    let Some(eq) = line.find('=') else {
        let at = start + (line.len() - line.trim_start().len());
        return Err(error_at(text, at, "expected 'Name = expression'"));
    };
    let name = line[..eq].trim();
    if name.is_empty() {
        return Err(error_at(
            text,
            start + eq,
            "expected an attribute name before '='",
        ));
    }
    if name.contains('\0') {
        return Err(error_at(text, start, "NUL character in attribute name"));
    }
    let mut lex = Lexer::new(&text[..end], start + eq + 1);
    lex.set_old_syntax(true);
    let mut p = Parser::new(lex)?;
    let (e, _) = p.expr()?;
    while p.peek().kind == TokenKind::Semicolon {
        p.advance()?;
    }
    if p.peek().kind != TokenKind::End {
        return Err(p.expected("end of line after expression"));
    }
    Ok((Name::new(name), e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(text: &str) -> String {
        super::super::show_ads(old_ads(text))
    }

    #[test]
    fn reads_old_syntax() {
        let cases: &[(&str, &str)] = &[
            ("a = 1\nb = 2\n\nc = 3\n", "[ a = 1; b = 2 ] | [ c = 3 ]"),
            ("# comment\na = 1\n  b = 2\n", "[ a = 1; b = 2 ]"),
            ("a=1\nb =\"x\\\"y\"\n", "[ a = 1; b = \"x\\\"y\" ]"),
            ("a = 1\n\n\n\nb=2", "[ a = 1 ] | [ b = 2 ]"),
            (
                "a = [x=1; y=2]\nb = {1,2}",
                "[ a = [ x = 1; y = 2 ]; b = { 1,2 } ]",
            ),
            (
                "a = \"C:\\dir\\\"\nb = 2\n",
                "[ a = \"C:\\\\dir\\\\\"; b = 2 ]",
            ),
            ("a = \"x\\ny\"\n", "[ a = \"x\\\\ny\" ]"),
            ("\n\na = 1\n", "[ a = 1 ]"),
            ("a = 1;\n", "[ a = 1 ]"),
            ("a = 1\r\nb = 2\r\n", "[ a = 1; b = 2 ]"),
            ("a = 1\na = 2\n", "[ a = 2 ]"),
            (
                "MyType = \"Job\"\nTargetType = \"Machine\"",
                "[ MyType = \"Job\"; TargetType = \"Machine\" ]",
            ),
            ("a = x =?= y", "[ a = x is y ]"),
            ("", ""),
            (
                "a = 1\nbogus line\nc = 3\n",
                "ERR 2:1: expected 'Name = expression'",
            ),
            (
                "a = 1 +\n  2\n",
                "ERR 1:8: expected an expression, found end of input",
            ),
            (
                "a = 1 2",
                "ERR 1:7: expected end of line after expression, found '2'",
            ),
            (" = 1", "ERR 1:2: expected an attribute name before '='"),
            // No scale suffixes in old syntax: HTCondor reads `a = 5K` as 5 (it drops the rest
            // of the line), so 5120 would be a silently different value; it is an error, as
            // other trailing text is (found by the formats differential run against classad2).
            (
                "a = 5K\nb = 2",
                "ERR 1:6: expected end of line after expression, found 'K'",
            ),
            (
                "a = [b = 1.5G]",
                "ERR 1:13: expected ']' or ';' after attribute, found 'G'",
            ),
            ("a = 5 * K\n", "[ a = 5 * K ]"),
            // No octal or hexadecimal integers under old semantics (HTCondor's lexer refuses an
            // integer that begins with 0 and is longer than one character; the ad is dropped).
            (
                "a = 012\nb = 2",
                "ERR 1:5: malformed number: no octal or hexadecimal integers in old syntax",
            ),
            (
                "a = 1 + 0x1F",
                "ERR 1:9: malformed number: no octal or hexadecimal integers in old syntax",
            ),
            (
                "a = [b = 00]",
                "ERR 1:10: malformed number: no octal or hexadecimal integers in old syntax",
            ),
            (
                "a = 0\nb = 00.5\nc = 0x10.5\nd = -0\ne = 0e1\nf = -012\ng = \"012\"",
                "[ a = 0; b = 5.000000000000000E-01; c = 1.631250000000000E+01; d = 0; e = 0.0; f = -12; g = \"012\" ]",
            ),
            ("a = 'x\\y' + 'é'\n", "[ a = 'x\\\\y' + '\\303\\251' ]"),
            // Comments closing the document are ignored (HTCondor's test_python_bindings_classad
            // reads two ads from this); a comment line anywhere else is not an attribute.
            (
                "foo = \"bar\"\n\nfoo = \"wiz\"\n\n/* this is a comment */",
                "[ foo = \"bar\" ] | [ foo = \"wiz\" ]",
            ),
            ("a = 1\n// one\n  /* two\n three */ # four\n\n", "[ a = 1 ]"),
            ("a = 1\n\n/* c */\n\nb = 2", "ERR 3:1: expected 'Name = expression'"),
            ("a = 1\n/* open", "ERR 2:1: expected 'Name = expression'"),
            ("/* c */\na = 1", "ERR 1:1: expected 'Name = expression'"),
        ];
        for (text, want) in cases {
            assert_eq!(show(text), *want, "input {text:?}");
        }
    }

    #[test]
    fn reads_real_ads() {
        let dir = crate::parse::golden_tests::conformance_dir().join("real-ads");
        let cases: &[(&str, usize)] = &[
            ("python_bindings-test.old.ad", 1),
            ("python_bindings-test_multiple.old.ad", 2),
            ("StatusAds-small1slot", 1),
            ("StatusAds-basic4slot", 4),
            ("StatusAds-partionable8core", 5),
            ("cmd_status-af_orig_first_test.ads", 8),
        ];
        for (file, n) in cases {
            let text =
                std::fs::read_to_string(dir.join(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
            let ads = old_ads(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
            assert_eq!(ads.len(), *n, "{file}");
        }
    }
}
