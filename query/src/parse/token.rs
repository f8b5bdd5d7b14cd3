//! Tokens: their kinds (with HTCondor's `LEX_*` names) and the values they carry.

use crate::value::Value;
use std::borrow::Cow;

/// The kinds of token, named after HTCondor's `LEX_*` token types by [`TokenKind::name`].
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TokenKind {
    /// End of the text.
    End,
    /// Text that is no token.
    Error,
    /// An integer literal.
    Int,
    /// A real literal.
    Real,
    /// `true` / `false`.
    Bool,
    /// A string literal.
    Str,
    /// `undefined`.
    Undefined,
    /// `error`.
    ErrorValue,
    /// A name, bare or `'quoted'`.
    Ident,
    /// A quoted time literal (`'3d19:49:15'`, `'Mon Jan 11 10:53:31 1999 (CST) -06:00'`): an
    /// extension from the dissertation.
    Time,
    /// `.`
    Selection,
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `+`
    Plus,
    /// `-`
    Minus,
    /// `&`
    BitAnd,
    /// `|`
    BitOr,
    /// `~`
    BitNot,
    /// `^`
    BitXor,
    /// `<<`
    Shl,
    /// `>>`
    Shr,
    /// `>>>`
    UShr,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `!`
    Not,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `=?=` or `is`
    MetaEq,
    /// `=!=` or `isnt`
    MetaNe,
    /// `=`
    BoundTo,
    /// `?`
    QMark,
    /// `?:`, also with white space between (HTCondor's `LEX_ELVIS`)
    Elvis,
    /// `:`
    Colon,
    /// `;`
    Semicolon,
    /// `,`
    Comma,
    /// `[`
    OpenBox,
    /// `]`
    CloseBox,
    /// `(`
    OpenParen,
    /// `)`
    CloseParen,
    /// `{`
    OpenBrace,
    /// `}`
    CloseBrace,
}

impl TokenKind {
    /// HTCondor's name for this token type (`LEX_INTEGER_VALUE`, `LEX_SELECTION`, …).
    pub fn name(self) -> &'static str {
        use TokenKind::*;
        match self {
            End => "LEX_END_OF_INPUT",
            Error => "LEX_TOKEN_ERROR",
            Int => "LEX_INTEGER_VALUE",
            Real => "LEX_REAL_VALUE",
            Bool => "LEX_BOOLEAN_VALUE",
            Str => "LEX_STRING_VALUE",
            Undefined => "LEX_UNDEFINED_VALUE",
            ErrorValue => "LEX_ERROR_VALUE",
            Ident => "LEX_IDENTIFIER",
            Time => "LEX_TIME_VALUE",
            Selection => "LEX_SELECTION",
            Mul => "LEX_MULTIPLY",
            Div => "LEX_DIVIDE",
            Mod => "LEX_MODULUS",
            Plus => "LEX_PLUS",
            Minus => "LEX_MINUS",
            BitAnd => "LEX_BITWISE_AND",
            BitOr => "LEX_BITWISE_OR",
            BitNot => "LEX_BITWISE_NOT",
            BitXor => "LEX_BITWISE_XOR",
            Shl => "LEX_LEFT_SHIFT",
            Shr => "LEX_RIGHT_SHIFT",
            UShr => "LEX_URIGHT_SHIFT",
            And => "LEX_LOGICAL_AND",
            Or => "LEX_LOGICAL_OR",
            Not => "LEX_LOGICAL_NOT",
            Lt => "LEX_LESS_THAN",
            Le => "LEX_LESS_OR_EQUAL",
            Gt => "LEX_GREATER_THAN",
            Ge => "LEX_GREATER_OR_EQUAL",
            Eq => "LEX_EQUAL",
            Ne => "LEX_NOT_EQUAL",
            MetaEq => "LEX_META_EQUAL",
            MetaNe => "LEX_META_NOT_EQUAL",
            BoundTo => "LEX_BOUND_TO",
            QMark => "LEX_QMARK",
            Elvis => "LEX_ELVIS",
            Colon => "LEX_COLON",
            Semicolon => "LEX_SEMICOLON",
            Comma => "LEX_COMMA",
            OpenBox => "LEX_OPEN_BOX",
            CloseBox => "LEX_CLOSE_BOX",
            OpenParen => "LEX_OPEN_PAREN",
            CloseParen => "LEX_CLOSE_PAREN",
            OpenBrace => "LEX_OPEN_BRACE",
            CloseBrace => "LEX_CLOSE_BRACE",
        }
    }

    /// True for tokens after which `-` is the minus operator rather than a number's sign
    /// (HTCondor's rule).
    pub(crate) fn ends_operand(self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            Int | Real
                | Bool
                | Str
                | Undefined
                | ErrorValue
                | Ident
                | Time
                | Selection
                | CloseBox
                | CloseParen
                | CloseBrace
        )
    }
}

/// What a token carries besides its kind.
#[derive(Clone, Debug)]
pub enum TokVal<'s> {
    /// Nothing (operators, punctuation, `undefined`, `error`).
    None,
    /// An integer literal's value.
    Int(i64),
    /// A real literal's value.
    Real(f64),
    /// A boolean literal's value.
    Bool(bool),
    /// A string literal's value or an identifier's spelling, escapes resolved.
    Text(Cow<'s, str>),
    /// A quoted time literal's value.
    Time(Value),
}

/// A token: its kind, where it lies in the source (byte offsets), and its value.
#[derive(Clone, Debug)]
pub struct Token<'s> {
    /// The kind.
    pub kind: TokenKind,
    /// Byte offset of its first character.
    pub start: usize,
    /// Byte offset just past it.
    pub end: usize,
    /// Its value.
    pub val: TokVal<'s>,
}

impl<'s> Token<'s> {
    /// The text of an identifier or string token (empty for others).
    pub fn text(&self) -> &str {
        match &self.val {
            TokVal::Text(t) => t,
            _ => "",
        }
    }
}
