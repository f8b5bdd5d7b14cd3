//! Entry points: evaluate an expression in an ad, or in a match context of two ads.

use super::{Arena, EvalOptions, Evaluator};
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::name::{kw, Key};
use crate::value::{Scope, Val, Value};

/// Two ads in a match context: each is the other's `TARGET`.
#[derive(Copy, Clone, Debug)]
pub struct MatchAds<'a> {
    /// The ad playing MY.
    pub my: &'a ClassAd,
    /// The ad playing TARGET.
    pub target: &'a ClassAd,
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
}

/// Evaluates `expr` with `my` as MY (and no TARGET), returning an owned value.
pub fn eval_expr(expr: &Expr, my: &ClassAd, opts: &EvalOptions) -> Value {
    let arena = Arena::new();
    let mut ev = Evaluator::new(&arena, opts);
    let scope = ev.scope(my, None);
    ev.root = Some(scope);
    ev.eval(expr, scope).to_value()
}

/// Evaluates `expr` as written in `ads.my`, with `ads.target` as TARGET.
pub fn eval_in_match(expr: &Expr, ads: MatchAds<'_>, opts: &EvalOptions) -> Value {
    let arena = Arena::new();
    let mut ev = Evaluator::new(&arena, opts);
    let (m, _) = ev.match_scopes(ads.my, ads.target);
    ev.root = Some(m);
    ev.eval(expr, m).to_value()
}

/// The key under which `ad` states its requirements: `Requirements`, else the dissertation's
/// `Constraint`.
pub fn requirements_key(ad: &ClassAd) -> Option<Key> {
    [kw::REQUIREMENTS, kw::CONSTRAINT]
        .into_iter()
        .find(|&k| ad.get_key(k).is_some())
}

/// True when the requirements of `scope`'s ad evaluate to `true` in its match context.
pub fn requirements_hold<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>) -> bool {
    ev.root = Some(scope);
    match requirements_key(scope.ad) {
        Some(key) => matches!(ev.eval_attr(scope, key), Val::Bool(true)),
        None => false,
    }
}

/// HTCondor's symmetric match: each ad's Requirements (or Constraint) is true with the other as
/// TARGET.
pub fn symmetric_match(a: &ClassAd, b: &ClassAd, opts: &EvalOptions) -> bool {
    let arena = Arena::new();
    let mut ev = Evaluator::new(&arena, opts);
    let (ma, mb) = ev.match_scopes(a, b);
    requirements_hold(&mut ev, ma) && requirements_hold(&mut ev, mb)
}
