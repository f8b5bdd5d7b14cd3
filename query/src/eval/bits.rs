//! Bitwise operators and shifts, defined on integers only (booleans are errors). Shift counts
//! behave as HTCondor's C++ on x86-64: the count is taken modulo 64, except that `>>` of a
//! negative number shifts one place at a time up to 64 times, and `>>>` shifts once, clears the
//! sign bit, then shifts `count - 1` (mod 64) more.

use crate::ast::BinOp;
use crate::value::Val;

/// `~x`.
pub fn bit_not(v: Val<'_>) -> Val<'_> {
    match v {
        Val::Undefined | Val::Error => v,
        Val::Int(i) => Val::Int(!i),
        _ => Val::Error,
    }
}

/// A binary bitwise or shift operator on non-exceptional operands.
pub fn bitwise<'a>(op: BinOp, a: Val<'a>, b: Val<'a>) -> Val<'a> {
    let (Val::Int(x), Val::Int(y)) = (a, b) else {
        return Val::Error;
    };
    Val::Int(match op {
        BinOp::BitAnd => x & y,
        BinOp::BitOr => x | y,
        BinOp::BitXor => x ^ y,
        BinOp::Shl => x.wrapping_shl(y as u32),
        BinOp::Shr if x >= 0 => x.wrapping_shr(y as u32),
        // Sign-filling, one place per step, at most 64 steps (none for a negative count).
        BinOp::Shr => {
            if y >= 64 {
                -1
            } else if y <= 0 {
                x
            } else {
                x >> y
            }
        }
        BinOp::UShr if x >= 0 => x.wrapping_shr(y as u32),
        BinOp::UShr => ((x >> 1) & i64::MAX).wrapping_shr(y.wrapping_sub(1) as u32),
        _ => return Val::Error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use BinOp::*;

    #[test]
    fn bitwise_table() {
        let cases: &[(BinOp, i64, i64, i64)] = &[
            (BitAnd, 5, 3, 1),
            (BitOr, 5, 3, 7),
            (BitXor, 5, 3, 6),
            (Shl, 1, 3, 8),
            (Shl, 1, 64, 1),
            (Shl, 1, 65, 2),
            (Shl, 1, -1, i64::MIN),
            (Shr, -8, 1, -4),
            (Shr, -8, 64, -1),
            (Shr, -8, 65, -1),
            (Shr, -8, -1, -8),
            (Shr, 8, 65, 4),
            (Shr, 8, 64, 8),
            (UShr, -8, 1, 9223372036854775804),
            (UShr, -8, 0, 0),
            (UShr, -8, 64, 0),
            (UShr, -8, 63, 1),
            (UShr, 8, 1, 4),
        ];
        for &(op, x, y, want) in cases {
            assert_eq!(
                format!("{:?}", bitwise(op, Val::Int(x), Val::Int(y))),
                format!("Int({want})"),
                "{op:?} {x} {y}"
            );
        }
        assert!(bitwise(Shl, Val::Bool(true), Val::Int(1)).is_error());
        assert!(bitwise(BitAnd, Val::Real(1.5), Val::Int(3)).is_error());
        assert!(bit_not(Val::Bool(true)).is_error());
        assert_eq!(format!("{:?}", bit_not(Val::Int(-1))), "Int(0)");
    }
}
