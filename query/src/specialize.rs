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
//!
//! Evaluation's budgets are part of its value: an expression nested past
//! [`EvalOptions::max_depth`] (or costing past `max_work`) evaluates to `error` as a whole. A
//! part is probed at the depth evaluation would reach it (its nesting, plus the levels
//! evaluation may have entered before the expression), so a part folds only where evaluation
//! would have computed it too; and an expression nested within those levels of the limit (or
//! past 400), any of whose probes ran out of a budget, or whose probes spent a quarter of
//! `max_work`, is returned as written, which evaluates exactly as the original. A value the
//! other ad reads is trusted to [`import_depth`].

use crate::ast::{BinOp, Expr, UnOp};
use crate::classad::ClassAd;
use crate::eval::{Arena, EvalOptions, Evaluator};
use crate::name::{Key, Name};
use crate::value::{Scope, Val, Value};
use std::borrow::Cow;
use std::cell::Cell;

/// Deepest expression nesting specialized (a deeper expression is kept as written).
const MAX_DEPTH: u32 = 400;

/// The nesting evaluation may already have reached when it comes to an expression the analyses
/// take apart (none at the top level of a match; one through the gang environment's ports).
/// Probes start this much deeper than the part's own nesting, so they run out of depth no
/// later than evaluation would, and the index's profile form decides nothing in a constraint
/// nested within this much of the limit.
pub const BASE_DEPTH: u32 = 8;

/// The deepest nesting at which the analyses trust a value read from the other ad of a match
/// (`TARGET.x`, the index's imported values): such an attribute is specialized and folded as
/// if evaluation had entered this many levels before it ([`specialize_import`]), and a
/// constraint nested deeper than this is decided by evaluation alone. Half the depth limit:
/// well past any real ad, and room for both sides.
pub fn import_depth(opts: &EvalOptions) -> u32 {
    opts.max_depth / 2
}

/// Specializes `expr`, written at the top level of `ad`.
pub fn specialize(expr: &Expr, ad: &ClassAd, opts: &EvalOptions) -> Expr {
    Specializer::new(ad, opts, None, BASE_DEPTH).run(expr)
}

/// [`specialize_attr`] for a value the other ad of a match reads, at any depth up to
/// [`import_depth`]: probes start there, so what folds is what evaluation of the attribute
/// computes from any reference nested up to that deep.
pub fn specialize_import(ad: &ClassAd, name: &str, opts: &EvalOptions) -> Option<Expr> {
    let key = Key::find(name)?;
    let e = ad.get_key(key)?;
    Some(Specializer::new(ad, opts, Some(key), import_depth(opts)).run(e))
}

/// Specializes the expression of attribute `name` of `ad` (as evaluated when that attribute is
/// referenced); `None` when the ad lacks it.
pub fn specialize_attr(ad: &ClassAd, name: &str, opts: &EvalOptions) -> Option<Expr> {
    let key = Key::find(name)?;
    let e = ad.get_key(key)?;
    Some(Specializer::new(ad, opts, Some(key), BASE_DEPTH).run(e))
}

/// Specializes the expression of attribute `name` of `ad` as evaluated at the top level (as a
/// match reads `Requirements`, HTCondor's `EvaluateAttr`: the attribute itself not in
/// progress, see [`Evaluator::eval_attr_top`](crate::eval::Evaluator::eval_attr_top));
/// `None` when the ad lacks it.
pub fn specialize_attr_top(ad: &ClassAd, name: &str, opts: &EvalOptions) -> Option<Expr> {
    let e = ad.get_key(Key::find(name)?)?;
    Some(specialize(e, ad, opts))
}

/// A copy of `ad` with every attribute's expression specialized; the ad as it is when any of
/// them meets evaluation's budgets (an attribute folded to a literal would let another that
/// reads it evaluate where, as written, it runs out of depth).
pub fn specialize_ad(ad: &ClassAd, opts: &EvalOptions) -> ClassAd {
    let mut spent = false;
    let out = ad
        .iter()
        .map(|(name, e)| {
            let s = Specializer::new(ad, opts, Some(name.key()), BASE_DEPTH);
            let r = s.run(e);
            spent |= s.spent.get();
            (name, r)
        })
        .collect::<Vec<(Name, Expr)>>();
    if spent {
        ad.clone()
    } else {
        out.into_iter().collect()
    }
}

struct Specializer<'s> {
    ad: &'s ClassAd,
    opts: &'s EvalOptions,
    /// The attribute whose expression is being specialized (in progress while evaluating it).
    seed: Option<Key>,
    /// Set once a probe ran out of a budget or the expression nested past [`MAX_DEPTH`]: the
    /// expression is then returned as written.
    spent: Cell<bool>,
    /// The work all probes have spent so far.
    work: Cell<u64>,
    /// The nesting evaluation may have entered before the expression.
    base: u32,
}

impl<'s> Specializer<'s> {
    fn new(
        ad: &'s ClassAd,
        opts: &'s EvalOptions,
        seed: Option<Key>,
        base: u32,
    ) -> Specializer<'s> {
        Specializer {
            ad,
            opts,
            seed,
            spent: Cell::new(false),
            work: Cell::new(0),
            base,
        }
    }

    /// `e` specialized, or as written when specializing it met evaluation's budgets. An
    /// expression whose own nesting reaches the depth limit from the base is kept whole too:
    /// a rewrite that drops a level (`true && x` is `x`) would lift parts no probe reached
    /// (an argument of a call that reads the other ad).
    fn run(&self, e: &Expr) -> Expr {
        let limit = self.opts.max_depth.saturating_sub(self.base).min(MAX_DEPTH);
        if e.nesting(limit.saturating_add(1)) > limit {
            self.spent.set(true);
            return e.clone();
        }
        let s = self.spec(e, 0);
        if self.spent.get() {
            e.clone()
        } else {
            s
        }
    }
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
    /// Evaluates `e`, nested `depth` deep in the expression, in the ad alone; its value if that
    /// depended on nothing else.
    fn probe(&self, e: &Expr, depth: u32) -> Option<Expr> {
        if self.spent.get() {
            return None;
        }
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
        ev.depth = depth.saturating_add(self.base);
        let v = ev.eval(e, &scope);
        self.work.set(self.work.get().saturating_add(ev.work));
        if ev.aborted() || self.work.get() > self.opts.max_work / 4 {
            self.spent.set(true);
            return None;
        }
        if ev.touched.get() || !placeable(&v) {
            return None;
        }
        Some(lit(v.to_value()))
    }

    /// Folds a node, nested `depth` deep, whose operands are all literals by evaluating it.
    fn fold(&self, e: Expr, depth: u32) -> Expr {
        self.probe(&e, depth).unwrap_or(e)
    }

    fn spec(&self, e: &Expr, depth: u32) -> Expr {
        if depth > MAX_DEPTH {
            self.spent.set(true);
            return e.clone();
        }
        let d = depth + 1;
        match e {
            Expr::Lit(_) => e.clone(),
            Expr::Attr(_) | Expr::Root(_) | Expr::Select(..) | Expr::Call(..) | Expr::Ad(_) => {
                self.probe(e, depth).unwrap_or_else(|| e.clone())
            }
            Expr::Index(b) => match self.probe(e, depth) {
                Some(v) => v,
                None => {
                    let (base, index) = (self.spec(&b.0, d), self.spec(&b.1, d));
                    self.strict(Expr::Index(Box::new((base, index))), depth)
                }
            },
            Expr::List(items) => match self.probe(e, depth) {
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
                    Expr::Lit(_) => self.fold(Expr::Unary(*op, Box::new(s)), depth),
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
    /// literals, else kept. `depth`: the node's nesting.
    fn strict(&self, e: Expr, depth: u32) -> Expr {
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
            self.fold(e, depth)
        } else {
            e
        }
    }

    fn binary(&self, op: BinOp, l: &Expr, r: &Expr, d: u32) -> Expr {
        let sl = self.spec(l, d);
        self.step(op, sl, r, d)
    }

    /// `sl op r` with the left side already specialized (one step of a left fold); `d` is the
    /// operands' nesting, one below the node's.
    fn step(&self, op: BinOp, sl: Expr, r: &Expr, d: u32) -> Expr {
        let depth = d.saturating_sub(1);
        match op {
            BinOp::And | BinOp::Or => self.logical(op, sl, r, d),
            _ => {
                let sr = self.spec(r, d);
                let node = Expr::binary(op, sl, sr);
                if matches!(op, BinOp::Is | BinOp::Isnt) {
                    match &node {
                        Expr::Binary(_, b) if as_lit(&b.0).is_some() && as_lit(&b.1).is_some() => {
                            self.fold(node, depth)
                        }
                        _ => node,
                    }
                } else {
                    self.strict(node, depth)
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
            (Some(_), Some(_)) => self.fold(Expr::binary(op, sl, sr), d.saturating_sub(1)),
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
