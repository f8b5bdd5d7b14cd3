//! Errors of the language crate.

use thiserror::Error;

/// A parse failure, with the 1-based line and column where it was found.
#[derive(Debug, Clone, PartialEq, Error)]
#[error("{line}:{col}: {message}")]
#[non_exhaustive]
pub struct ParseError {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (in characters).
    pub col: u32,
    /// What went wrong, including what was expected (e.g. "expected `]`, found `;`").
    pub message: String,
}

impl ParseError {
    /// A parse error at `line`:`col`.
    pub fn new(line: u32, col: u32, message: impl Into<String>) -> ParseError {
        ParseError {
            line,
            col,
            message: message.into(),
        }
    }
}
