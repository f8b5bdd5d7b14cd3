//! The expression tree.
//!
//! The tree keeps what was written: parentheses stay as [`Expr::Paren`] and scope keywords stay
//! ordinary names (`TARGET.Memory` is `Select(Attr(TARGET), Memory)`), so printing reproduces the
//! source's structure. The evaluator recognises the keyword forms by their interned keys.

use crate::classad::ClassAd;
use crate::name::Name;
use crate::value::Value;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A unary operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnOp {
    /// `-x`
    Neg,
    /// `+x`
    Plus,
    /// `!x`
    Not,
    /// `~x`
    BitNot,
}

/// A binary operator.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum BinOp {
    /// `*`
    Mul,
    /// `/`
    Div,
    /// `%`
    Mod,
    /// `+`
    Add,
    /// `-`
    Sub,
    /// `<<`
    Shl,
    /// `>>` (arithmetic)
    Shr,
    /// `>>>` (logical)
    UShr,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `==` (case-insensitive on strings; strict)
    Eq,
    /// `!=`
    Ne,
    /// `=?=` / `is` (identity; never undefined)
    Is,
    /// `=!=` / `isnt`
    Isnt,
    /// `&`
    BitAnd,
    /// `^`
    BitXor,
    /// `|`
    BitOr,
    /// `&&` (non-strict)
    And,
    /// `||` (non-strict)
    Or,
}

/// An expression. Equality is structural (parentheses included; reals bit for bit).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Expr {
    /// A literal value.
    Lit(Value),
    /// An unscoped attribute reference `a` (looked up in the lexical scopes).
    Attr(Name),
    /// An absolute attribute reference `.a` (looked up from the root scope).
    Root(Name),
    /// Selection `e.a`: attribute `a` of the ad `e` evaluates to (or of each ad of a list).
    Select(Box<Expr>, Name),
    /// Subscript `e[i]`: list element or ad attribute.
    Index(Box<(Expr, Expr)>),
    /// A unary operation.
    Unary(UnOp, Box<Expr>),
    /// A binary operation.
    Binary(BinOp, Box<(Expr, Expr)>),
    /// `c ? a : b`.
    Cond(Box<(Expr, Expr, Expr)>),
    /// `a ?: b` (elvis: `a` unless it is undefined, then `b`).
    Elvis(Box<(Expr, Expr)>),
    /// A function call; names are case-insensitive.
    Call(Name, Vec<Expr>),
    /// A list `{e1, e2, …}`.
    List(Vec<Expr>),
    /// A nested ClassAd `[a = …; …]`.
    Ad(Arc<ClassAd>),
    /// Parentheses as written.
    Paren(Box<Expr>),
}

impl Expr {
    /// A literal.
    pub fn lit(v: Value) -> Expr {
        Expr::Lit(v)
    }

    /// A binary node.
    pub fn binary(op: BinOp, l: Expr, r: Expr) -> Expr {
        Expr::Binary(op, Box::new((l, r)))
    }

    /// An unscoped reference to `name`.
    pub fn attr(name: &str) -> Expr {
        Expr::Attr(Name::new(name))
    }

    /// `base.name`.
    pub fn select(base: Expr, name: &str) -> Expr {
        Expr::Select(Box::new(base), Name::new(name))
    }

    /// The expression without any enclosing parentheses.
    pub fn unparen(&self) -> &Expr {
        let mut e = self;
        while let Expr::Paren(inner) = e {
            e = inner;
        }
        e
    }
}
