//! Entry points: evaluate an expression in an ad, or in a match context of two ads.

use super::{Arena, EvalOptions, Evaluator};
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::name::{kw, Key};
use crate::value::{Scope, Val, Value};
use std::cell::Cell;

/// Two ads in a match context: each is the other's `TARGET`.
#[derive(Copy, Clone, Debug)]
pub struct MatchAds<'a> {
    /// The ad playing MY.
    pub my: &'a ClassAd,
    /// The ad playing TARGET.
    pub target: &'a ClassAd,
}

/// A top-level scope for `ad` (no parent, no other ad yet).
fn top(ad: &ClassAd) -> Scope<'_> {
    Scope {
        ad,
        parent: None,
        other: Cell::new(None),
    }
}

impl<'a> Evaluator<'a> {
    /// Scopes for a match context: `(my, target)`, each the other's `other`.
    pub fn match_scopes(
        &mut self,
        my: &'a ClassAd,
        target: &'a ClassAd,
    ) -> (&'a Scope<'a>, &'a Scope<'a>) {
        let m = self.scope(my, None);
        let t = self.scope(target, None);
        m.other.set(Some(t));
        t.other.set(Some(m));
        (m, t)
    }

    /// Evaluates `e` as a top-level expression of `scope` (counted as one evaluation).
    pub fn eval_top(&mut self, e: &'a Expr, scope: &'a Scope<'a>) -> Val<'a> {
        self.root = Some(scope);
        self.evals += 1;
        let v = self.eval(e, scope);
        self.finish(v)
    }

    /// Evaluates attribute `key` of `scope`'s ad as a top-level evaluation: `error` if a budget
    /// ran out, `undefined` if the ad lacks it.
    ///
    /// As HTCondor's `ClassAd::EvaluateAttr` (how its daemons read `Requirements` and `Rank`):
    /// the attribute's expression is evaluated as it stands, the attribute itself *not* in
    /// progress, so a reference that cycles back to it evaluates it once more (the cycle is cut
    /// one level further in). `[a = ifThenElse(isUndefined(b), 1, 10); b = a]` gives `a` = 10
    /// here, while the expression `a` (a reference, which marks `a`) gives 1.
    pub fn eval_attr_top(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        self.root = Some(scope);
        let v = match super::scope::get_key(scope.ad, key) {
            Some(e) => {
                self.evals += 1;
                self.eval(e, scope)
            }
            None => Val::Undefined,
        };
        self.finish(v)
    }
}

/// Evaluates `expr` with `my` as MY (and no TARGET), returning an owned value.
pub fn eval_expr(expr: &Expr, my: &ClassAd, opts: &EvalOptions) -> Value {
    eval_expr_nested(expr, my, opts, 0).unwrap_or(Value::Error)
}

/// [`eval_expr`] as if evaluation had already entered `depth` levels (the expression read
/// through references that deep): `None` when a budget runs out, where evaluation of the whole
/// would be `error` however the expression came out.
pub fn eval_expr_nested(
    expr: &Expr,
    my: &ClassAd,
    opts: &EvalOptions,
    depth: u32,
) -> Option<Value> {
    let arena = Arena::new();
    let scope = top(my);
    let mut ev = Evaluator::new(&arena, opts);
    ev.depth = depth;
    let v = ev.eval_top(expr, &scope).to_value();
    (!ev.aborted()).then_some(v)
}

/// Evaluates `expr` as written in `ads.my`, with `ads.target` as TARGET.
pub fn eval_in_match(expr: &Expr, ads: MatchAds<'_>, opts: &EvalOptions) -> Value {
    let arena = Arena::new();
    let (m, t) = (top(ads.my), top(ads.target));
    m.other.set(Some(&t));
    t.other.set(Some(&m));
    let mut ev = Evaluator::new(&arena, opts);
    ev.eval_top(expr, &m).to_value()
}

/// Evaluates attribute `name` of `ad` (no TARGET): `undefined` if the ad lacks it.
pub fn eval_attr_value(ad: &ClassAd, name: &str, opts: &EvalOptions) -> Value {
    let Some(key) = Key::find(name) else {
        return Value::Undefined;
    };
    let arena = Arena::new();
    let scope = top(ad);
    let mut ev = Evaluator::new(&arena, opts);
    ev.eval_attr_top(&scope, key).to_value()
}

/// Evaluates attribute `name` of `ads.my` with `ads.target` as TARGET.
pub fn eval_attr_in_match(name: &str, ads: MatchAds<'_>, opts: &EvalOptions) -> Value {
    let Some(key) = Key::find(name) else {
        return Value::Undefined;
    };
    eval_key_in_match(key, ads, opts)
}

/// [`eval_attr_in_match`] of the attribute whose key is `key` (no lookup of the name).
pub fn eval_key_in_match(key: Key, ads: MatchAds<'_>, opts: &EvalOptions) -> Value {
    let arena = Arena::new();
    let (m, t) = (top(ads.my), top(ads.target));
    m.other.set(Some(&t));
    t.other.set(Some(&m));
    let mut ev = Evaluator::new(&arena, opts);
    ev.eval_attr_top(&m, key).to_value()
}

/// The key under which `ad` states its requirements: `Requirements`, else the dissertation's
/// `Constraint`.
pub fn requirements_key(ad: &ClassAd) -> Option<Key> {
    [kw::REQUIREMENTS, kw::CONSTRAINT]
        .into_iter()
        .find(|&k| ad.get_key(k).is_some())
}

/// The requirements expression of `ad` and its key (see [`requirements_key`]).
fn requirements_of(ad: &ClassAd) -> Option<(&Expr, Key)> {
    [kw::REQUIREMENTS, kw::CONSTRAINT]
        .into_iter()
        .find_map(|k| super::scope::get_key(ad, k).map(|e| (e, k)))
}

/// The value of `scope`'s requirements in its match context (`undefined` without any),
/// evaluated as a top-level attribute ([`Evaluator::eval_attr_top`]: HTCondor's matchmaking
/// does not hold the Requirements themselves in progress, so a cycle back to them through the
/// other ad evaluates them once more).
fn requirements_value<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>) -> Val<'a> {
    match requirements_of(scope.ad) {
        Some((_, key)) => ev.eval_attr_top(scope, key),
        None => Val::Undefined,
    }
}

/// True when the requirements of `scope`'s ad evaluate to `true` (or a non-zero integer, as
/// HTCondor's `MatchClassAd::EvalMatchExpr` accepts) in its match context.
pub fn requirements_hold<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>) -> bool {
    match requirements_value(ev, scope) {
        Val::Bool(b) => b,
        Val::Int(i) => i != 0,
        _ => false,
    }
}

/// True when the requirements of `scope`'s ad are true under `&&`'s conversion (numbers count,
/// non-zero is true), as in HTCondor's `symmetricMatch = RIGHT.requirements && LEFT.requirements`.
fn requirements_true<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>) -> bool {
    let v = requirements_value(ev, scope);
    super::bool_equiv(&v) == Some(true)
}

/// True when `my`'s requirements hold with `target` as TARGET (one direction of a match).
pub fn matches(my: &ClassAd, target: &ClassAd, opts: &EvalOptions) -> bool {
    let arena = Arena::new();
    let (m, t) = (top(my), top(target));
    m.other.set(Some(&t));
    t.other.set(Some(&m));
    let mut ev = Evaluator::new(&arena, opts);
    requirements_hold(&mut ev, &m)
}

/// One side of [`symmetric_match`]: `my`'s Requirements (or Constraint) true with `target` as
/// TARGET, read as the symmetric match reads it (numbers count, non-zero is true).
pub fn one_side_match(my: &ClassAd, target: &ClassAd, opts: &EvalOptions) -> bool {
    let arena = Arena::new();
    let (m, t) = (top(my), top(target));
    m.other.set(Some(&t));
    t.other.set(Some(&m));
    let mut ev = Evaluator::new(&arena, opts);
    requirements_true(&mut ev, &m)
}

/// HTCondor's symmetric match: each ad's Requirements (or Constraint) is true with the other as
/// TARGET. Allocates nothing unless an expression builds a string, list or ad.
pub fn symmetric_match(a: &ClassAd, b: &ClassAd, opts: &EvalOptions) -> bool {
    let arena = Arena::new();
    let (ma, mb) = (top(a), top(b));
    ma.other.set(Some(&mb));
    mb.other.set(Some(&ma));
    let mut ev = Evaluator::new(&arena, opts);
    requirements_true(&mut ev, &ma) && requirements_true(&mut ev, &mb)
}
