//! Operators on values: strictness (error before undefined) and dispatch to the operator
//! families. These are the value-level rules; the evaluator adds short-circuiting on top.

use super::{arith, bits, compare, logic};
use crate::ast::{BinOp, UnOp};
use crate::value::Val;

/// True for the operators HTCondor evaluates strictly (any `error` operand gives `error`, else any
/// `undefined` operand gives `undefined`): all but `&&`, `||`, `is` and `isnt`.
#[inline]
pub fn is_strict(op: BinOp) -> bool {
    !matches!(op, BinOp::And | BinOp::Or | BinOp::Is | BinOp::Isnt)
}

/// Applies binary operator `op` to two evaluated operands with HTCondor's rules.
///
/// For `&&`/`||` this is the value-level rule (both operands already evaluated); the evaluator
/// short-circuits before calling it.
pub fn apply_binary<'a>(op: BinOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    if is_strict(op) {
        match (a, b) {
            (Val::Error, _) | (_, Val::Error) => return Val::Error,
            (Val::Undefined, _) | (_, Val::Undefined) => return Val::Undefined,
            _ => {}
        }
    }
    match op {
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Mod => {
            arith::arithmetic(op, a, b)
        }
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne => {
            compare::compare(op, a, b)
        }
        BinOp::Is => compare::identical(a, b),
        BinOp::Isnt => compare::not_identical(a, b),
        BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor | BinOp::Shl | BinOp::Shr | BinOp::UShr => {
            bits::bitwise(op, a, b)
        }
        BinOp::And => logic::and(a, b),
        BinOp::Or => logic::or(a, b),
    }
}

/// Applies unary operator `op` to an evaluated operand with HTCondor's rules.
pub fn apply_unary(op: UnOp, v: Val<'_>) -> Val<'_> {
    match op {
        UnOp::Plus => arith::plus(v),
        UnOp::Neg => arith::negate(v),
        UnOp::Not => logic::not(v),
        UnOp::BitNot => bits::bit_not(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn i(n: i64) -> Val<'static> {
        Val::Int(n)
    }

    fn show(v: Val<'_>) -> String {
        match v {
            Val::Undefined => "undefined".into(),
            Val::Error => "error".into(),
            Val::Bool(b) => b.to_string(),
            Val::Int(n) => n.to_string(),
            Val::Real(r) => format!("{r:?}"),
            Val::Str(s) => format!("{s:?}"),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn strictness_table() {
        let cases: &[(BinOp, Val<'static>, Val<'static>, &str)] = &[
            (BinOp::Add, Val::Undefined, Val::Error, "error"),
            (BinOp::Add, Val::Error, Val::Undefined, "error"),
            (BinOp::Add, Val::Undefined, i(1), "undefined"),
            (BinOp::Eq, Val::Str("a"), Val::Undefined, "undefined"),
            (BinOp::Mul, Val::Str("a"), Val::Undefined, "undefined"),
            (BinOp::Is, Val::Undefined, Val::Undefined, "true"),
            (BinOp::Is, Val::Undefined, Val::Error, "false"),
            (BinOp::Isnt, Val::Error, i(1), "true"),
            (BinOp::And, Val::Undefined, Val::Bool(false), "false"),
            (BinOp::Or, Val::Undefined, Val::Bool(true), "true"),
            (BinOp::BitAnd, Val::Error, Val::Undefined, "error"),
        ];
        for (op, a, b, want) in cases {
            assert_eq!(show(apply_binary(*op, *a, *b)), *want, "{op:?} {a:?} {b:?}");
        }
    }

    #[test]
    fn unary_table() {
        let cases: &[(UnOp, Val<'static>, &str)] = &[
            (UnOp::Neg, Val::Undefined, "undefined"),
            (UnOp::Neg, Val::Error, "error"),
            (UnOp::Plus, Val::Undefined, "undefined"),
            (UnOp::Not, Val::Undefined, "undefined"),
            (UnOp::BitNot, Val::Undefined, "undefined"),
            (UnOp::BitNot, i(5), "-6"),
            (UnOp::Not, i(5), "false"),
        ];
        for (op, v, want) in cases {
            assert_eq!(show(apply_unary(*op, *v)), *want, "{op:?} {v:?}");
        }
    }
}
