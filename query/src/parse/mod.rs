//! Reading ads and expressions: new syntax, old syntax, JSON and XML, detected automatically.
//!
//! New syntax follows HTCondor's `ClassAdParser` exactly (precedence, negative literals,
//! adjacent-string joining, parse-time `absTime("…")`/`relTime("…")`), plus the dissertation's
//! literals: quoted times `'3d19:49:15'` and scale suffixes `2K`. Every error carries
//! `line:col` and what was expected. Nesting is bounded by [`MAX_DEPTH`].

mod ad;
mod detect;
mod escape;
mod expr;
mod json;
pub mod lexer;
mod old;
pub mod reader;
pub mod time_literal;
pub mod time_string;
mod token;
mod xml;

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::error::ParseError;
use expr::Parser;
use lexer::Lexer;

pub use detect::detect;
pub use expr::{precedence, rel_time_call, MAX_DEPTH, MAX_NESTING};
pub use lexer::{lex_one, TokenKind};

/// The text formats ads come in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Decide from the text (see [`detect`]).
    Auto,
    /// New syntax: `[a = 1; b = 2]`, several in sequence.
    New,
    /// Old syntax: `a = 1` per line, ads separated by blank lines.
    Old,
    /// HTCondor's JSON: an object or an array of objects.
    Json,
    /// HTCondor's XML.
    Xml,
}

/// Parses one expression (new syntax, with the dissertation's literals); the whole text must
/// be that expression.
pub fn expr(text: &str) -> Result<Expr, ParseError> {
    let mut p = Parser::new(Lexer::new(text, 0))?;
    let (e, _) = p.expr()?;
    if p.peek().kind != TokenKind::End {
        return Err(p.expected("end of input after expression"));
    }
    Ok(e)
}

/// Parses one ad in new syntax; the whole text must be that ad.
pub fn classad(text: &str) -> Result<ClassAd, ParseError> {
    let mut p = Parser::new(Lexer::new(text, 0))?;
    let (ad, _) = p.classad()?;
    if p.peek().kind != TokenKind::End {
        return Err(p.expected("end of input after ClassAd"));
    }
    Ok(ad)
}

/// Parses every ad in `text` in `format`. A byte-order mark (U+FEFF) opening the text is
/// passed over, as editors on some systems write one.
pub fn ads(text: &str, format: Format) -> Result<Vec<ClassAd>, ParseError> {
    let text = without_bom(text);
    match format {
        Format::Auto => ads(text, detect(text)),
        Format::New => new_ads(text),
        Format::Old => old::old_ads(text),
        Format::Json => json::json_ads(text),
        Format::Xml => xml::xml_ads(text),
    }
}

/// `text` without the byte-order mark (U+FEFF) that opens it, if one does.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// Exactly one ad in `text` in `format` (an error names how many there were otherwise).
pub fn one_ad(text: &str, format: Format) -> Result<ClassAd, ParseError> {
    let mut v = ads(text, format)?;
    if v.len() == 1 {
        Ok(v.remove(0))
    } else {
        Err(ParseError::new(
            1,
            1,
            format!("expected exactly one ClassAd, found {}", v.len()),
        ))
    }
}

/// Every new-syntax ad in `text`, in sequence (white space and comments between them).
fn new_ads(text: &str) -> Result<Vec<ClassAd>, ParseError> {
    let mut p = Parser::new(Lexer::new(text, 0))?;
    let mut out = Vec::new();
    while p.peek().kind != TokenKind::End {
        if p.peek().kind != TokenKind::OpenBox {
            return Err(p.expected("'[' to open a ClassAd"));
        }
        out.push(p.classad()?.0);
    }
    Ok(out)
}

/// Test helper: ads printed and joined with ` | `, or `ERR message`.
#[cfg(test)]
fn show_ads(result: Result<Vec<ClassAd>, ParseError>) -> String {
    match result {
        Ok(ads) => ads
            .iter()
            .map(|a| a.to_string())
            .collect::<Vec<_>>()
            .join(" | "),
        Err(e) => format!("ERR {e}"),
    }
}

#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
