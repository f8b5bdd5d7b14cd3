//! Evaluation that reports whether its value depended on anything outside the ad it was
//! evaluated in: a `TARGET`/`other`/`MY` found bound nowhere, the clock, `random()`. Callers
//! that evaluate in an environment still being built (the gangmatcher's Figure-32 environment
//! with ports not yet docked, whose labels resolve to an unbound `TARGET`) learn from it whether
//! the value is final or may change once the environment is complete.

use super::{Arena, EvalOptions, Evaluator};
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::value::{Scope, Value};
use std::cell::Cell;

/// Evaluates `expr` at the top level of `ad` (no TARGET): its value, and whether evaluating it
/// reached outside `ad` (an unbound `TARGET`, `other` or `MY`, the TARGET fallback of a
/// top-level name found nowhere, the clock, randomness).
pub fn eval_tracked(expr: &Expr, ad: &ClassAd, opts: &EvalOptions) -> (Value, bool) {
    let arena = Arena::new();
    let scope = Scope {
        ad,
        parent: None,
        other: Cell::new(None),
    };
    let mut ev = Evaluator::new(&arena, opts);
    ev.probe = true;
    let v = ev.eval_top(expr, &scope).to_value();
    (v, ev.touched.get())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    #[test]
    fn reports_reaching_outside() {
        let ad = parse::classad("[a = 1; b = TARGET.x; c = [d = TARGET]; e = c.d.y]").expect("ad");
        for (e, want, touched) in [
            ("a + 1", Value::Int(2), false),
            ("b", Value::Undefined, true),
            ("e", Value::Undefined, true),
            ("a > 0 || b", Value::Bool(true), false),
            // Under the old semantics a top-level name found nowhere would be looked up in
            // TARGET.
            ("nope", Value::Undefined, true),
            ("c.nope", Value::Undefined, false),
        ] {
            let x = parse::expr(e).expect("expr");
            let (v, t) = eval_tracked(&x, &ad, &EvalOptions::default());
            assert!(v.same_as(&want) && t == touched, "{e}: {v:?} {t}");
        }
    }
}
