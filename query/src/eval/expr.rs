//! The evaluation of each expression form. (Placeholder: being written.)

use super::Evaluator;
use crate::ast::Expr;
use crate::name::Key;
use crate::value::{Scope, Val};

impl<'a> Evaluator<'a> {
    /// Evaluates `e`, written in `scope`.
    pub fn eval(&mut self, e: &'a Expr, scope: &'a Scope<'a>) -> Val<'a> {
        let _ = (e, scope);
        Val::Error
    }

    /// Evaluates attribute `key` of `scope`'s ad (its own binding only; undefined if absent).
    pub fn eval_attr(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        match scope.ad.get_key(key) {
            Some(e) => self.eval(e, scope),
            None => Val::Undefined,
        }
    }
}
