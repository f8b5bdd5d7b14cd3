//! Logic: `!`, the non-strict `&&` and `||` (short-circuiting, four-valued), the conditional
//! `c ? a : b` and the elvis operator `a ?: b`.
//!
//! HTCondor's rules: numbers count as booleans (non-zero is true, NaN too); any other
//! non-boolean operand (string, list, ad, time) makes the result `error`; `error` on the left wins
//! unless the left already decided the result.

use super::Evaluator;
use crate::ast::{BinOp, Expr};
use crate::value::{Scope, Val};

/// The boolean a value stands for: booleans themselves and numbers (non-zero is true).
#[inline]
pub fn bool_equiv(v: &Val<'_>) -> Option<bool> {
    match *v {
        Val::Bool(b) => Some(b),
        Val::Int(i) => Some(i != 0),
        Val::Real(r) => Some(r != 0.0),
        _ => None,
    }
}

/// Normalises an operand of a logical operator: `Some(Ok(b))` for boolean-equivalents,
/// `Some(Err(v))` for undefined/error, `None` for anything else (an error in context).
fn logical(v: Val<'_>) -> Option<Result<bool, Val<'_>>> {
    match v {
        Val::Undefined | Val::Error => Some(Err(v)),
        _ => bool_equiv(&v).map(Ok),
    }
}

/// `!v`.
pub fn not(v: Val<'_>) -> Val<'_> {
    match logical(v) {
        Some(Ok(b)) => Val::Bool(!b),
        Some(Err(e)) => e,
        None => Val::Error,
    }
}

/// `a && b` with both operands evaluated.
pub fn and<'a>(a: Val<'a>, b: Val<'a>) -> Val<'a> {
    let (Some(a), Some(b)) = (logical(a), logical(b)) else {
        return Val::Error;
    };
    match (a, b) {
        (Ok(false), _) => Val::Bool(false),
        (Err(Val::Error), _) => Val::Error,
        (Ok(true), Ok(b)) => Val::Bool(b),
        (_, Err(e)) => e,
        // left undefined
        (_, Ok(false)) => Val::Bool(false),
        (_, Ok(true)) => Val::Undefined,
    }
}

/// `a || b` with both operands evaluated.
pub fn or<'a>(a: Val<'a>, b: Val<'a>) -> Val<'a> {
    let (Some(a), Some(b)) = (logical(a), logical(b)) else {
        return Val::Error;
    };
    match (a, b) {
        (Ok(true), _) => Val::Bool(true),
        (Err(Val::Error), _) => Val::Error,
        (Ok(false), Ok(b)) => Val::Bool(b),
        (_, Err(e)) => e,
        // left undefined
        (_, Ok(true)) => Val::Bool(true),
        (_, Ok(false)) => Val::Undefined,
    }
}

impl<'a> Evaluator<'a> {
    /// `l && r` / `l || r`: the right operand is evaluated only when the left does not decide.
    pub(super) fn eval_logical(
        &mut self,
        op: BinOp,
        l: &'a Expr,
        r: &'a Expr,
        scope: &'a Scope<'a>,
    ) -> Val<'a> {
        let a = self.eval(l, scope);
        match self.logical_step(op, a) {
            Ok(decided) => decided,
            Err(a) => self.logical_join(op, a, r, scope),
        }
    }

    /// What a left operand `a` of `&&`/`||` decides alone: `Ok(value)` when the right operand
    /// cannot matter (a deciding boolean, `error`, a non-boolean), else `Err(a)` to go on.
    #[inline]
    pub(super) fn logical_step(&self, op: BinOp, a: Val<'a>) -> Result<Val<'a>, Val<'a>> {
        match logical(a) {
            // A non-boolean left operand makes the result an error whatever the right is.
            None | Some(Err(Val::Error)) => Ok(Val::Error),
            Some(Ok(b)) if b == (op == BinOp::Or) => Ok(Val::Bool(b)),
            _ => Err(a),
        }
    }

    /// `a op r` for an undecided left value `a`: evaluates `r` and combines.
    #[inline]
    pub(super) fn logical_join(
        &mut self,
        op: BinOp,
        a: Val<'a>,
        r: &'a Expr,
        scope: &'a Scope<'a>,
    ) -> Val<'a> {
        let b = self.eval(r, scope);
        if op == BinOp::And {
            and(a, b)
        } else {
            or(a, b)
        }
    }

    /// `c ? a : b`: undefined condition gives undefined; a non-boolean-equivalent one, error.
    pub(super) fn eval_cond(
        &mut self,
        c: &'a Expr,
        a: &'a Expr,
        b: &'a Expr,
        scope: &'a Scope<'a>,
    ) -> Val<'a> {
        let cv = self.eval(c, scope);
        match cv {
            Val::Undefined => Val::Undefined,
            _ => match bool_equiv(&cv) {
                Some(true) => self.eval(a, scope),
                Some(false) => self.eval(b, scope),
                None => Val::Error,
            },
        }
    }

    /// `a ?: b`: `a` unless it is undefined (an error stays an error).
    pub(super) fn eval_elvis(&mut self, a: &'a Expr, b: &'a Expr, scope: &'a Scope<'a>) -> Val<'a> {
        match self.eval(a, scope) {
            Val::Undefined => self.eval(b, scope),
            v => v,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const U: Val<'static> = Val::Undefined;
    const E: Val<'static> = Val::Error;
    const T: Val<'static> = Val::Bool(true);
    const F: Val<'static> = Val::Bool(false);

    #[test]
    fn and_or_table() {
        let s = Val::Str("a");
        let cases: &[(&str, Val<'static>, Val<'static>, &str)] = &[
            ("and", T, Val::Int(5), "Bool(true)"),
            ("and", T, Val::Int(0), "Bool(false)"),
            ("and", Val::Int(5), T, "Bool(true)"),
            ("and", s, F, "Error"),
            ("and", F, s, "Error"),
            ("and", U, s, "Error"),
            ("and", U, F, "Bool(false)"),
            ("and", U, T, "Undefined"),
            ("and", U, U, "Undefined"),
            ("and", U, E, "Error"),
            ("and", E, F, "Error"),
            ("and", T, E, "Error"),
            ("or", U, T, "Bool(true)"),
            ("or", U, F, "Undefined"),
            ("or", E, T, "Error"),
            ("or", Val::Real(1.5), F, "Bool(true)"),
            ("or", F, U, "Undefined"),
            ("or", Val::List(&[]), T, "Error"),
        ];
        for (op, a, b, want) in cases {
            let got = if *op == "and" {
                and(*a, *b)
            } else {
                or(*a, *b)
            };
            assert_eq!(format!("{got:?}"), *want, "{a:?} {op} {b:?}");
        }
    }

    #[test]
    fn not_table() {
        let cases: &[(Val<'static>, &str)] = &[
            (Val::Int(5), "Bool(false)"),
            (Val::Int(0), "Bool(true)"),
            (Val::Real(1.5), "Bool(false)"),
            (Val::Real(f64::NAN), "Bool(false)"),
            (Val::Str("a"), "Error"),
            (U, "Undefined"),
            (E, "Error"),
        ];
        for (v, want) in cases {
            assert_eq!(format!("{:?}", not(*v)), *want, "!{v:?}");
        }
    }
}
