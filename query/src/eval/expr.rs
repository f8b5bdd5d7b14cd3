//! The evaluation of each expression form: the dispatcher, literals, lists, nested ads and calls.
//! Budgets are enforced here: every node costs one unit of work and one level of depth while
//! it is being evaluated.

use super::ops::{apply_binary, apply_unary, is_strict};
use super::scope::scalar_literal;
use super::Evaluator;
use crate::ast::{BinOp, Expr};
use crate::classad::ClassAd;
use crate::functions;
use crate::name::Key;
use crate::value::{Scope, Val, Value};
use bumpalo::collections::Vec as BumpVec;
use std::sync::OnceLock;

/// The key of `random`, the one built-in whose result is not a function of its arguments and
/// the clock.
fn random_key() -> Key {
    static K: OnceLock<Key> = OnceLock::new();
    *K.get_or_init(|| Key::of("random"))
}

impl<'a> Evaluator<'a> {
    /// Evaluates `e`, written in `scope`.
    ///
    /// Once a budget is exceeded ([`Evaluator::aborted`]) values computed below are meaningless
    /// and the entry points return `error`; callers holding an evaluator check `aborted()`.
    #[inline]
    pub fn eval(&mut self, e: &'a Expr, scope: &'a Scope<'a>) -> Val<'a> {
        if !self.enter() {
            return Val::Error;
        }
        let v = self.eval_node(e, scope);
        self.leave();
        v
    }

    /// Evaluates an operand, taking scalar literals without a full evaluation step.
    #[inline]
    fn eval_operand(&mut self, e: &'a Expr, scope: &'a Scope<'a>) -> Val<'a> {
        match scalar_literal(e) {
            Some(v) => {
                self.work += 1;
                v
            }
            None => self.eval(e, scope),
        }
    }

    /// Enters one level of nesting, spending one unit of work; false (and the evaluation is
    /// aborted) when a budget is exhausted.
    #[inline]
    pub fn enter(&mut self) -> bool {
        self.work += 1;
        if self.work > self.max_work || self.depth >= self.max_depth {
            self.abort();
            return false;
        }
        self.depth += 1;
        true
    }

    /// Leaves a level entered with [`Evaluator::enter`].
    #[inline]
    pub fn leave(&mut self) {
        self.depth -= 1;
    }

    fn eval_node(&mut self, e: &'a Expr, scope: &'a Scope<'a>) -> Val<'a> {
        match e {
            Expr::Lit(v) => match v {
                Value::Int(i) => Val::Int(*i),
                Value::Str(s) => Val::Str(s),
                _ => self.literal(v, scope),
            },
            Expr::Attr(name) => self.eval_name(scope, name.key()),
            Expr::Root(name) => self.eval_absolute(scope, name.key()),
            Expr::Select(base, name) => self.eval_select(base, name.key(), scope),
            Expr::Index(b) => self.eval_index(&b.0, &b.1, scope),
            Expr::Unary(op, x) => {
                let v = self.eval(x, scope);
                apply_unary(*op, v)
            }
            Expr::Binary(op, b) => self.eval_binary(*op, &b.0, &b.1, scope),
            Expr::Cond(b) => self.eval_cond(&b.0, &b.1, &b.2, scope),
            Expr::Elvis(b) => self.eval_elvis(&b.0, &b.1, scope),
            Expr::Call(name, args) => self.call(name.key(), args, scope),
            Expr::List(items) => self.eval_list(items, scope),
            Expr::Ad(ad) => self.eval_ad(ad, scope),
            Expr::Paren(x) => self.eval(x, scope),
            Expr::Chain(op, terms) => self.eval_chain(*op, terms, scope),
        }
    }

    /// A chain `t0 op t1 op …`: exactly the left fold of `eval_binary`/`eval_logical` over its
    /// terms, left to right — the same values, the same terms evaluated (a decided `&&`/`||`
    /// evaluates nothing further; a strict operator skips the rest once the value is `error`),
    /// and the same work, one unit per operator as the binary nodes would cost. Only depth
    /// differs: every term is evaluated one level below the chain, not one level deeper than
    /// the term before it.
    #[inline(never)]
    fn eval_chain(&mut self, op: BinOp, terms: &'a [Expr], scope: &'a Scope<'a>) -> Val<'a> {
        let Some((first, rest)) = terms.split_first() else {
            return Val::Error;
        };
        // Entering this node paid for the first operator; the others are paid here.
        if !self.charge(rest.len().saturating_sub(1) as u64) {
            return Val::Error;
        }
        if matches!(op, BinOp::And | BinOp::Or) {
            let mut acc = self.eval(first, scope);
            for t in rest {
                acc = match self.logical_step(op, acc) {
                    Ok(decided) => return decided,
                    Err(a) => self.logical_join(op, a, t, scope),
                };
            }
            return acc;
        }
        let mut acc = self.eval_operand(first, scope);
        for t in rest {
            if acc.is_error() && is_strict(op) {
                return Val::Error;
            }
            let b = self.eval_operand(t, scope);
            acc = self.combine(op, acc, b);
        }
        acc
    }

    #[inline(never)]
    fn eval_binary(
        &mut self,
        op: BinOp,
        l: &'a Expr,
        r: &'a Expr,
        scope: &'a Scope<'a>,
    ) -> Val<'a> {
        if matches!(op, BinOp::And | BinOp::Or) {
            return self.eval_logical(op, l, r, scope);
        }
        let a = self.eval_operand(l, scope);
        // A strict operator's result is already known; the right side cannot change it.
        if a.is_error() && is_strict(op) {
            return Val::Error;
        }
        let b = self.eval_operand(r, scope);
        self.combine(op, a, b)
    }

    /// `a op b` for a strict (non-logical) operator with both operands evaluated.
    #[inline]
    fn combine(&self, op: BinOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
        // Integer comparisons and +/-: the common case in requirements, decided inline.
        if let (Val::Int(x), Val::Int(y)) = (a, b) {
            match op {
                BinOp::Lt => return Val::Bool(x < y),
                BinOp::Le => return Val::Bool(x <= y),
                BinOp::Gt => return Val::Bool(x > y),
                BinOp::Ge => return Val::Bool(x >= y),
                BinOp::Eq => return Val::Bool(x == y),
                BinOp::Ne => return Val::Bool(x != y),
                BinOp::Add => return Val::Int(x.wrapping_add(y)),
                BinOp::Sub => return Val::Int(x.wrapping_sub(y)),
                _ => {}
            }
        }
        // Comparisons involving a real (promoting an integer operand).
        if matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge) {
            let pair = match (a, b) {
                (Val::Real(x), Val::Real(y)) => Some((x, y)),
                (Val::Int(x), Val::Real(y)) => Some((x as f64, y)),
                (Val::Real(x), Val::Int(y)) => Some((x, y as f64)),
                _ => None,
            };
            if let Some((x, y)) = pair {
                return Val::Bool(match op {
                    BinOp::Lt => x < y,
                    BinOp::Le => x <= y,
                    BinOp::Gt => x > y,
                    _ => x >= y,
                });
            }
        }
        apply_binary(op, a, b)
    }

    /// Calls built-in `key` on unevaluated `args`; an unknown function is an error.
    #[inline(never)]
    pub fn call(&mut self, key: Key, args: &'a [Expr], scope: &'a Scope<'a>) -> Val<'a> {
        if self.probe && key == random_key() {
            self.touch();
        }
        match functions::lookup(key) {
            Some(f) => f(self, scope, args),
            None => Val::Error,
        }
    }

    #[inline(never)]
    fn eval_ad(&mut self, ad: &'a ClassAd, scope: &'a Scope<'a>) -> Val<'a> {
        Val::Ad(self.scope(ad, Some(scope)))
    }

    #[inline(never)]
    fn eval_list(&mut self, items: &'a [Expr], scope: &'a Scope<'a>) -> Val<'a> {
        let mut out = BumpVec::with_capacity_in(items.len(), self.bump());
        for item in items {
            out.push(self.eval(item, scope));
            if self.aborted {
                return Val::Error;
            }
        }
        Val::List(out.into_bump_slice())
    }

    /// The value of a literal written in `scope` (a literal ad gets `scope` as its parent).
    #[inline(never)]
    pub fn literal(&mut self, v: &'a Value, scope: &'a Scope<'a>) -> Val<'a> {
        match literal_kind(v) {
            Literal::Scalar(x) => x,
            Literal::Ad(ad) => Val::Ad(self.scope(ad, Some(scope))),
            Literal::List(items) => {
                if !self.enter() {
                    return Val::Error;
                }
                let mut out = BumpVec::with_capacity_in(items.len(), self.bump());
                for item in items.iter() {
                    out.push(self.literal(item, scope));
                }
                self.leave();
                Val::List(out.into_bump_slice())
            }
        }
    }
}

/// A literal as the evaluator reads it: a scalar value, or what it builds in a scope.
pub(crate) enum Literal<'a> {
    /// Read as it is.
    Scalar(Val<'a>),
    /// A list, its items read in turn.
    List(&'a [Value]),
    /// A nested ad, given the scope it is written in.
    Ad(&'a ClassAd),
}

/// How the evaluator reads literal `v`.
pub(crate) fn literal_kind(v: &Value) -> Literal<'_> {
    Literal::Scalar(match v {
        Value::Undefined => Val::Undefined,
        Value::Error => Val::Error,
        Value::Bool(b) => Val::Bool(*b),
        Value::Int(i) => Val::Int(*i),
        Value::Real(r) => Val::Real(*r),
        Value::Str(s) => Val::Str(s),
        Value::AbsTime(t) => Val::AbsTime(*t),
        // HTCondor's quirk, kept: a relative-time *literal* (`relTime("1:30")`, folded at
        // parse time) evaluates to a real; `relTime(90)`, a call, yields a reltime.
        Value::RelTime(t) => Val::Real(*t),
        Value::Ad(ad) => return Literal::Ad(ad),
        Value::List(items) => return Literal::List(items),
    })
}
