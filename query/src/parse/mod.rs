//! Reading ads and expressions: new syntax, old syntax, JSON and XML, detected automatically.
//! (Placeholder API: being written.)

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::error::ParseError;

/// The text formats ads come in.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Format {
    /// Decide from the text.
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

/// Parses one expression (new syntax, with the dissertation's literals).
pub fn expr(text: &str) -> Result<Expr, ParseError> {
    let _ = text;
    Err(ParseError::new(1, 1, "parser not yet written"))
}

/// Parses one ad in new syntax.
pub fn classad(text: &str) -> Result<ClassAd, ParseError> {
    let _ = text;
    Err(ParseError::new(1, 1, "parser not yet written"))
}

/// Parses every ad in `text` in `format`.
pub fn ads(text: &str, format: Format) -> Result<Vec<ClassAd>, ParseError> {
    let _ = (text, format);
    Err(ParseError::new(1, 1, "parser not yet written"))
}
