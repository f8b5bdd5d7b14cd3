//! The expression tree.
//!
//! The tree keeps what was written: parentheses stay as [`Expr::Paren`] and scope keywords stay
//! ordinary names (`TARGET.Memory` is `Select(Attr(TARGET), Memory)`), so printing reproduces the
//! source's structure. The evaluator recognises the keyword forms by their interned keys.
//!
//! A run of one chaining operator (`a || b || c`, see [`BinOp::chains`]) with three or more
//! operands is one [`Expr::Chain`] node holding the operands in a vector, not a left spine of
//! binary nodes: a policy listing 50,000 machines is a long flat chain, not a deep tree, and
//! every walk over it (drop, serde, printing, evaluation, hashing) stays iterative over the
//! vector. A chain stands for the left fold `((t0 op t1) op t2) …` and is evaluated, printed and
//! specialized exactly as that fold; it is never re-associated. [`Expr::binary`] keeps the
//! representation canonical: two operands are a [`Expr::Binary`], more are a chain.

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

impl BinOp {
    /// True for the operators whose runs are held as one [`Expr::Chain`]: `||`, `&&`, `+`, `*`,
    /// `|`, `^`, `&` (the associative ones, so that a chain also reads naturally as a list;
    /// it is still evaluated as the left fold). Comparisons, `-`, `/`, `%` and shifts stay
    /// binary.
    pub fn chains(self) -> bool {
        matches!(
            self,
            BinOp::Or
                | BinOp::And
                | BinOp::Add
                | BinOp::Mul
                | BinOp::BitOr
                | BinOp::BitXor
                | BinOp::BitAnd
        )
    }
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
    /// A left-associative run `t0 op t1 op t2 …` of one chaining operator ([`BinOp::chains`])
    /// with at least three operands, standing for the left fold `((t0 op t1) op t2) …`. The
    /// first operand is never itself an unparenthesized `op` node (build chains with
    /// [`Expr::binary`] or [`Expr::fold`] to keep that so). Added last: stored encodings of the
    /// other variants keep their tags.
    Chain(BinOp, Vec<Expr>),
}

/// The operands of a binary or chain node, left to right ([`Expr::operands`]).
#[derive(Clone, Debug)]
pub enum Operands<'e> {
    /// Both sides of a [`Expr::Binary`].
    Pair(std::array::IntoIter<&'e Expr, 2>),
    /// The terms of an [`Expr::Chain`].
    Chain(std::slice::Iter<'e, Expr>),
}

impl<'e> Iterator for Operands<'e> {
    type Item = &'e Expr;

    fn next(&mut self) -> Option<&'e Expr> {
        match self {
            Operands::Pair(it) => it.next(),
            Operands::Chain(it) => it.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Operands::Pair(it) => it.size_hint(),
            Operands::Chain(it) => it.size_hint(),
        }
    }
}

impl DoubleEndedIterator for Operands<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        match self {
            Operands::Pair(it) => it.next_back(),
            Operands::Chain(it) => it.next_back(),
        }
    }
}

impl ExactSizeIterator for Operands<'_> {}

impl Expr {
    /// A literal.
    pub fn lit(v: Value) -> Expr {
        Expr::Lit(v)
    }

    /// `l op r`, kept canonical: when `op` chains ([`BinOp::chains`]) and `l` is already an
    /// unparenthesized `op` node, `r` joins it as one more operand of a [`Expr::Chain`]
    /// (amortized constant time), which denotes the same left fold.
    pub fn binary(op: BinOp, l: Expr, r: Expr) -> Expr {
        if !op.chains() {
            return Expr::Binary(op, Box::new((l, r)));
        }
        match l {
            Expr::Chain(o, mut terms) if o == op => {
                terms.push(r);
                Expr::Chain(o, terms)
            }
            Expr::Binary(o, pair) if o == op => {
                let (a, b) = *pair;
                Expr::Chain(op, vec![a, b, r])
            }
            l => Expr::Binary(op, Box::new((l, r))),
        }
    }

    /// The left fold `((first op t1) op t2) …` of `first` and `rest`, canonical as
    /// [`Expr::binary`] builds it (one chain node when `op` chains, else nested binary nodes).
    pub fn fold(op: BinOp, first: Expr, rest: impl IntoIterator<Item = Expr>) -> Expr {
        rest.into_iter()
            .fold(first, |acc, t| Expr::binary(op, acc, t))
    }

    /// The left fold of `terms` ([`Expr::fold`]); `None` when there are none.
    pub fn chain(op: BinOp, terms: Vec<Expr>) -> Option<Expr> {
        let mut terms = terms.into_iter();
        let first = terms.next()?;
        Some(Expr::fold(op, first, terms))
    }

    /// The operator and operands (left to right) of a [`Expr::Binary`] or [`Expr::Chain`]
    /// node; `None` for anything else. Operands are not split further: an operand that is
    /// itself an `op` node is parenthesized or on the right, and callers recurse into it.
    pub fn operands(&self) -> Option<(BinOp, Operands<'_>)> {
        match self {
            Expr::Binary(op, pair) => Some((*op, Operands::Pair([&pair.0, &pair.1].into_iter()))),
            Expr::Chain(op, terms) => Some((*op, Operands::Chain(terms.iter()))),
            _ => None,
        }
    }

    /// The operands of this node when it is an `op` node ([`Expr::operands`]).
    pub fn operands_of(&self, op: BinOp) -> Option<Operands<'_>> {
        match self.operands() {
            Some((o, terms)) if o == op => Some(terms),
            _ => None,
        }
    }

    /// An unscoped reference to `name`.
    pub fn attr(name: &str) -> Expr {
        Expr::Attr(Name::new(name))
    }

    /// `base.name`.
    pub fn select(base: Expr, name: &str) -> Expr {
        Expr::Select(Box::new(base), Name::new(name))
    }

    /// How deep evaluation nests to evaluate this tree as written, at most `cap`: one level per
    /// node (parentheses included), a chain's terms one level below it, a nested ad's
    /// expressions one below the ad (where a selection would reach them). References are not
    /// followed; a selection's base and a literal operand count a level evaluation may not
    /// enter (an over-count, never an under-count, for trees the parser makes). Evaluation
    /// past [`EvalOptions::max_depth`](crate::eval::EvalOptions::max_depth) is `error`, so
    /// analyses that evaluate parts of a tree on their own (at a shallower depth) first check
    /// the whole tree is well within it. Recursion stops at `cap` levels.
    pub fn nesting(&self, cap: u32) -> u32 {
        if cap == 0 {
            return 0;
        }
        let below = cap - 1;
        let inner = match self {
            Expr::Lit(_) | Expr::Attr(_) | Expr::Root(_) => 0,
            Expr::Select(x, _) | Expr::Unary(_, x) | Expr::Paren(x) => x.nesting(below),
            Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => {
                b.0.nesting(below).max(b.1.nesting(below))
            }
            Expr::Cond(b) => {
                b.0.nesting(below)
                    .max(b.1.nesting(below))
                    .max(b.2.nesting(below))
            }
            Expr::Call(_, items) | Expr::List(items) | Expr::Chain(_, items) => {
                items.iter().map(|i| i.nesting(below)).max().unwrap_or(0)
            }
            Expr::Ad(ad) => ad.iter().map(|(_, e)| e.nesting(below)).max().unwrap_or(0),
        };
        1 + inner
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

#[cfg(test)]
mod tests {
    use super::*;

    fn a(n: &str) -> Expr {
        Expr::attr(n)
    }

    #[test]
    fn binary_keeps_runs_canonical() {
        let or = |l, r| Expr::binary(BinOp::Or, l, r);
        let sub = |l, r| Expr::binary(BinOp::Sub, l, r);
        // (what was built, the node's variant and operand count)
        let cases: Vec<(Expr, &str, usize)> = vec![
            (or(a("x"), a("y")), "Binary", 2),
            (or(or(a("x"), a("y")), a("z")), "Chain", 3),
            (or(or(or(a("x"), a("y")), a("z")), a("w")), "Chain", 4),
            // A run on the right, or in parentheses, is an operand of its own.
            (or(a("x"), or(a("y"), a("z"))), "Binary", 2),
            (
                or(Expr::Paren(Box::new(or(a("x"), a("y")))), a("z")),
                "Binary",
                2,
            ),
            // Another operator, or one that does not chain, starts no run.
            (
                or(Expr::binary(BinOp::And, a("x"), a("y")), a("z")),
                "Binary",
                2,
            ),
            (sub(sub(a("x"), a("y")), a("z")), "Binary", 2),
            (
                Expr::fold(BinOp::Add, a("x"), [a("y"), a("z"), a("w")]),
                "Chain",
                4,
            ),
            (Expr::fold(BinOp::Add, a("x"), []), "Attr", 0),
        ];
        for (e, variant, n) in cases {
            let got = format!("{e:?}");
            assert!(got.starts_with(variant), "{e}: {got}");
            assert_eq!(e.operands().map_or(0, |(_, t)| t.len()), n, "{e}");
        }
        assert_eq!(Expr::chain(BinOp::Or, Vec::new()), None);
        let c = Expr::chain(BinOp::Or, vec![a("x"), a("y"), a("z")]).expect("chain");
        assert_eq!(c.to_string(), "x || y || z");
        let terms: Vec<String> = c
            .operands_of(BinOp::Or)
            .expect("an || node")
            .rev()
            .map(|t| t.to_string())
            .collect();
        assert_eq!(terms, ["z", "y", "x"]);
        assert!(c.operands_of(BinOp::And).is_none());
    }
}
