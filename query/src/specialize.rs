//! Specialization (dissertation 2.6.1): partial evaluation of an expression against what is
//! known — the ad's own attributes and, when [`EvalOptions::now`] fixes it, the clock — leaving
//! only what depends on the other ad of a match.
//!
//! Soundness is the invariant: for every possible TARGET (and none), evaluating the result in
//! the ad gives the identical value (`is`) to evaluating the original. So:
//! - a subexpression is replaced by its value only when evaluating it consulted nothing but
//!   the ad (no `TARGET`/`other`, no TARGET fallback, no unfixed clock, no `random()`), within
//!   budget, and the value holds no ad (an ad value depends on where it is written);
//! - references to the ad's attributes whose values depend on TARGET stay references: inlining
//!   their expressions could change where a cycle through TARGET is cut;
//! - operators fold with the four-valued logic only when the unknown side cannot matter:
//!   `false && x` is `false`, `true && x` is `x` only when `x` always yields a boolean (or
//!   undefined/error), `x || true` stays (it is `error` when `x` is), any strict operator with
//!   an `error` operand is `error`; constants are not re-associated (`3 + a + 7` stays, since
//!   with a real `a` rounding differs).
//!
//! Function calls with unknown arguments are kept whole (some inspect their arguments' form).

use crate::ast::{BinOp, Expr, UnOp};
use crate::classad::ClassAd;
use crate::eval::{Arena, EvalOptions, Evaluator};
use crate::name::{Key, Name};
use crate::value::{Scope, Val, Value};
use std::borrow::Cow;
use std::cell::Cell;

/// Deepest expression nesting specialized (deeper parts are kept as written).
const MAX_DEPTH: u32 = 400;

/// Specializes `expr`, written at the top level of `ad`.
pub fn specialize(expr: &Expr, ad: &ClassAd, opts: &EvalOptions) -> Expr {
    Specializer {
        ad,
        opts,
        seed: None,
    }
    .spec(expr, 0)
}

/// Specializes the expression of attribute `name` of `ad` (as evaluated when that attribute is
/// referenced); `None` when the ad lacks it.
pub fn specialize_attr(ad: &ClassAd, name: &str, opts: &EvalOptions) -> Option<Expr> {
    let key = Key::find(name)?;
    let e = ad.get_key(key)?;
    Some(
        Specializer {
            ad,
            opts,
            seed: Some(key),
        }
        .spec(e, 0),
    )
}

/// Specializes the expression of attribute `name` of `ad` as evaluated at the top level (as a
/// match reads `Requirements`, HTCondor's `EvaluateAttr`: the attribute itself not in
/// progress, see [`Evaluator::eval_attr_top`](crate::eval::Evaluator::eval_attr_top));
/// `None` when the ad lacks it.
pub fn specialize_attr_top(ad: &ClassAd, name: &str, opts: &EvalOptions) -> Option<Expr> {
    let e = ad.get_key(Key::find(name)?)?;
    Some(specialize(e, ad, opts))
}

/// A copy of `ad` with every attribute's expression specialized.
pub fn specialize_ad(ad: &ClassAd, opts: &EvalOptions) -> ClassAd {
    ad.iter()
        .map(|(name, e)| {
            let s = Specializer {
                ad,
                opts,
                seed: Some(name.key()),
            };
            (name, s.spec(e, 0))
        })
        .collect::<Vec<(Name, Expr)>>()
        .into_iter()
        .collect()
}

struct Specializer<'s> {
    ad: &'s ClassAd,
    opts: &'s EvalOptions,
    /// The attribute whose expression is being specialized (in progress while evaluating it).
    seed: Option<Key>,
}

/// True when `v` can be written as a literal anywhere in the ad (it holds no ad).
fn placeable(v: &Val<'_>) -> bool {
    match v {
        Val::Ad(_) => false,
        Val::List(items) => items.iter().all(placeable),
        _ => true,
    }
}

/// True when `e` always yields a boolean, `undefined` or `error`.
pub fn boolish(e: &Expr) -> bool {
    match e.unparen() {
        Expr::Lit(Value::Bool(_)) | Expr::Unary(UnOp::Not, _) => true,
        Expr::Binary(op, _) | Expr::Chain(op, _) => matches!(
            op,
            BinOp::Lt
                | BinOp::Le
                | BinOp::Gt
                | BinOp::Ge
                | BinOp::Eq
                | BinOp::Ne
                | BinOp::Is
                | BinOp::Isnt
                | BinOp::And
                | BinOp::Or
        ),
        _ => false,
    }
}

/// The expression for a known value. A relative time becomes `relTime(secs)`, since a reltime
/// literal evaluates to a real (HTCondor's rule, see `Evaluator::literal`).
fn lit(v: Value) -> Expr {
    match v {
        Value::RelTime(secs) => crate::parse::rel_time_call(secs),
        // A list literal's relative times would read as reals too: the list is written out.
        Value::List(ref items) if v.holds_rel_time() => {
            Expr::List(items.iter().cloned().map(lit).collect())
        }
        v => Expr::Lit(v),
    }
}

/// The value of a literal expression, as evaluation reads it ([`Value::as_evaluated`]).
fn as_lit(e: &Expr) -> Option<Cow<'_, Value>> {
    match e {
        Expr::Lit(v) => Some(v.as_evaluated()),
        _ => None,
    }
}

/// The boolean-equivalence of a literal, as `&&`/`||`/`?:` see it: `Ok(b)`, or `Err` with
/// the literal's class (`undefined`, or anything else, which those operators treat as error).
fn logical(v: &Value) -> Result<bool, bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Int(i) => Ok(*i != 0),
        Value::Real(r) => Ok(*r != 0.0),
        Value::Undefined => Err(true),
        _ => Err(false),
    }
}

impl Specializer<'_> {
    /// Evaluates `e` in the ad alone; its value if that depended on nothing else.
    fn probe(&self, e: &Expr) -> Option<Expr> {
        let arena = Arena::new();
        let scope = Scope {
            ad: self.ad,
            parent: None,
            other: Cell::new(None),
        };
        let mut ev = Evaluator::new(&arena, self.opts);
        ev.probe = true;
        if let Some(k) = self.seed {
            // The result will be evaluated with other attributes in progress too.
            ev.seed_in_progress(&scope, k);
            ev.probe_cycles = true;
        }
        ev.root = Some(&scope);
        let v = ev.eval(e, &scope);
        if ev.aborted() || ev.touched.get() || !placeable(&v) {
            return None;
        }
        Some(lit(v.to_value()))
    }

    /// Folds a node whose operands are all literals by evaluating it.
    fn fold(&self, e: Expr) -> Expr {
        self.probe(&e).unwrap_or(e)
    }

    fn spec(&self, e: &Expr, depth: u32) -> Expr {
        if depth > MAX_DEPTH {
            return e.clone();
        }
        let d = depth + 1;
        match e {
            Expr::Lit(_) => e.clone(),
            Expr::Attr(_) | Expr::Root(_) | Expr::Select(..) | Expr::Call(..) | Expr::Ad(_) => {
                self.probe(e).unwrap_or_else(|| e.clone())
            }
            Expr::Index(b) => match self.probe(e) {
                Some(v) => v,
                None => {
                    let (base, index) = (self.spec(&b.0, d), self.spec(&b.1, d));
                    self.strict(Expr::Index(Box::new((base, index))))
                }
            },
            Expr::List(items) => match self.probe(e) {
                Some(v) => v,
                None => Expr::List(items.iter().map(|i| self.spec(i, d)).collect()),
            },
            Expr::Paren(x) => match self.spec(x, d) {
                l @ Expr::Lit(_) => l,
                s => Expr::Paren(Box::new(s)),
            },
            Expr::Unary(op, x) => {
                let s = self.spec(x, d);
                match s {
                    Expr::Lit(Value::Error) => lit(Value::Error),
                    Expr::Lit(_) => self.fold(Expr::Unary(*op, Box::new(s))),
                    s => Expr::Unary(*op, Box::new(s)),
                }
            }
            Expr::Binary(op, b) => self.binary(*op, &b.0, &b.1, d),
            // The left fold, step by step as the binary nodes it stands for are specialized.
            Expr::Chain(op, terms) => match terms.split_first() {
                Some((first, rest)) => rest
                    .iter()
                    .fold(self.spec(first, d), |acc, t| self.step(*op, acc, t, d)),
                None => e.clone(),
            },
            Expr::Cond(b) => {
                let c = self.spec(&b.0, d);
                match as_lit(&c).map(|v| logical(&v)) {
                    Some(Ok(true)) => self.spec(&b.1, d),
                    Some(Ok(false)) => self.spec(&b.2, d),
                    Some(Err(true)) => lit(Value::Undefined),
                    Some(Err(false)) => lit(Value::Error),
                    None => Expr::Cond(Box::new((c, self.spec(&b.1, d), self.spec(&b.2, d)))),
                }
            }
            Expr::Elvis(b) => {
                let a = self.spec(&b.0, d);
                match a {
                    Expr::Lit(Value::Undefined) => self.spec(&b.1, d),
                    Expr::Lit(_) => a,
                    a => Expr::Elvis(Box::new((a, self.spec(&b.1, d)))),
                }
            }
        }
    }

    /// A strict node with specialized operands: `error` if any operand is, folded if all are
    /// literals, else kept.
    fn strict(&self, e: Expr) -> Expr {
        let (all_lit, any_error) = match &e {
            Expr::Index(b) | Expr::Binary(_, b) => (
                as_lit(&b.0).is_some() && as_lit(&b.1).is_some(),
                matches!(b.0, Expr::Lit(Value::Error)) || matches!(b.1, Expr::Lit(Value::Error)),
            ),
            // A chain made by a step: its left part is no literal (or it would have folded), so
            // only the operand just added can be `error`.
            Expr::Chain(_, terms) => (false, matches!(terms.last(), Some(Expr::Lit(Value::Error)))),
            _ => (false, false),
        };
        if any_error {
            lit(Value::Error)
        } else if all_lit {
            self.fold(e)
        } else {
            e
        }
    }

    fn binary(&self, op: BinOp, l: &Expr, r: &Expr, d: u32) -> Expr {
        let sl = self.spec(l, d);
        self.step(op, sl, r, d)
    }

    /// `sl op r` with the left side already specialized (one step of a left fold).
    fn step(&self, op: BinOp, sl: Expr, r: &Expr, d: u32) -> Expr {
        match op {
            BinOp::And | BinOp::Or => self.logical(op, sl, r, d),
            _ => {
                let sr = self.spec(r, d);
                let node = Expr::binary(op, sl, sr);
                if matches!(op, BinOp::Is | BinOp::Isnt) {
                    match &node {
                        Expr::Binary(_, b) if as_lit(&b.0).is_some() && as_lit(&b.1).is_some() => {
                            self.fold(node)
                        }
                        _ => node,
                    }
                } else {
                    self.strict(node)
                }
            }
        }
    }

    /// `&&` / `||` with the four-valued logic.
    fn logical(&self, op: BinOp, sl: Expr, r: &Expr, d: u32) -> Expr {
        let or = op == BinOp::Or;
        if let Some(v) = as_lit(&sl) {
            match logical(&v) {
                // `false && x`, `true || x`: decided without the right side.
                Ok(b) if b == or => return lit(Value::Bool(or)),
                // `"s" && x`, `error && x`: error whatever the right side is.
                Err(false) => return lit(Value::Error),
                _ => {}
            }
        }
        let sr = self.spec(r, d);
        match (as_lit(&sl), as_lit(&sr)) {
            (Some(_), Some(_)) => self.fold(Expr::binary(op, sl, sr)),
            // `true && x` / `false || x` is x converted to a boolean: x itself if it is one.
            (Some(v), None) if logical(&v) == Ok(!or) && boolish(&sr) => sr,
            // `x && true` / `x || false` likewise.
            (None, Some(v)) if logical(&v) == Ok(!or) && boolish(&sl) => sl,
            _ => Expr::binary(op, sl, sr),
        }
    }
}

#[cfg(test)]
mod tests;
