//! Guessing the format of a text of ads from its first significant characters.

use super::lexer::skip_blank_at;
use super::Format;

/// The format `text` is most likely in: XML if it starts with `<`; JSON if it starts with `{`,
/// or with `[` followed by `{` or `]` (an array of objects); new syntax if it starts with `[`
/// otherwise; old syntax for anything else. Leading white space is skipped, and so are `#`
/// comment lines (old syntax) and `//` / `/* */` comments (new syntax).
pub fn detect(text: &str) -> Format {
    let rest = skip_blank(text);
    match rest.as_bytes().first() {
        Some(b'<') => Format::Xml,
        Some(b'{') => Format::Json,
        Some(b'[') => {
            let inner = skip_blank(&rest[1..]);
            match inner.as_bytes().first() {
                Some(b'{') => Format::Json,
                Some(b']') if skip_blank(&inner[1..]).is_empty() => Format::Json,
                _ => Format::New,
            }
        }
        Some(b'#') => Format::Old,
        _ => Format::Old,
    }
}

/// `text` without leading white space and `//`, `/* */` comments (nothing after an unterminated
/// `/*`).
fn skip_blank(text: &str) -> &str {
    let rest = &text[skip_blank_at(text.as_bytes(), 0)..];
    if rest.starts_with("/*") {
        ""
    } else {
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects() {
        let cases: &[(&str, Format)] = &[
            ("<?xml version=\"1.0\"?><classads/>", Format::Xml),
            ("  {\"a\": 1}", Format::Json),
            ("[{\"a\": 1}]", Format::Json),
            ("[\n  {\n", Format::Json),
            ("[]", Format::Json),
            ("[a = 1]", Format::New),
            ("[ ]", Format::Json),
            ("// c\n[a=1]", Format::New),
            ("[]\n[]", Format::New),
            ("a = 1\nb = 2", Format::Old),
            ("# comment\na = 1", Format::Old),
            ("", Format::Old),
        ];
        for (t, want) in cases {
            assert_eq!(detect(t), *want, "{t:?}");
        }
    }
}
