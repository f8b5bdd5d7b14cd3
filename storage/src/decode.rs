//! Expressions and ad bodies read straight off their encodings: the bincode layout of
//! `adjoin_query`'s `Expr`, `Value`, `Name` and `ClassAd` under the store's options (varint
//! integers, little-endian; `raw.rs` walks the same layout without building anything), read by
//! hand instead of through serde's derived visitors, whose dispatch and integer casts were about
//! a quarter of decoding an ad (the rest is allocating and checking UTF-8, which stay).
//!
//! **Contract:** what these functions return is what [`crate::codec::decode`] returns for the
//! same bytes. They accept less: anything they do not read exactly as the codec would (an
//! error of any kind, an integer out of range, nesting deeper than [`DEPTH`]) gives `None`, and
//! the caller asks the codec, which then decodes it or says what is wrong. So a stored ad
//! decodes, or fails with the same message, as before; only faster.

use crate::codec::MAX_PAYLOAD;
use adjoin_query::{AbsTime, BinOp, ClassAd, Expr, Name, UnOp, Value};
use std::sync::Arc;

/// Nesting read here at most (each level is a native call); deeper expressions are left to
/// the codec.
const DEPTH: u32 = 128;

/// Items made room for before they are read: a count is only a claim, and nested counts can
/// each claim the rest of the body, so what is reserved up front stays small at every level
/// (a longer sequence grows as it is read).
const ROOM: usize = 256;

/// The unary operators by their encoded index (their declaration order).
pub(crate) const UNARY: [UnOp; 4] = [UnOp::Neg, UnOp::Plus, UnOp::Not, UnOp::BitNot];

/// The binary operators by their encoded index (their declaration order).
pub(crate) const BINARY: [BinOp; 21] = [
    BinOp::Mul,
    BinOp::Div,
    BinOp::Mod,
    BinOp::Add,
    BinOp::Sub,
    BinOp::Shl,
    BinOp::Shr,
    BinOp::UShr,
    BinOp::Lt,
    BinOp::Le,
    BinOp::Gt,
    BinOp::Ge,
    BinOp::Eq,
    BinOp::Ne,
    BinOp::Is,
    BinOp::Isnt,
    BinOp::BitAnd,
    BinOp::BitXor,
    BinOp::BitOr,
    BinOp::And,
    BinOp::Or,
];

/// The expression `bytes` encode, all of them read; `None`: ask the codec.
pub(crate) fn expr(bytes: &[u8]) -> Option<Expr> {
    let mut r = Reader::new(bytes)?;
    let e = r.expr(DEPTH)?;
    r.end().then_some(e)
}

/// The `[(number, expression)]` body of a stored ad (`names.rs`); `None`: ask the codec.
pub(crate) fn pairs(bytes: &[u8]) -> Option<Vec<(u32, Expr)>> {
    let mut r = Reader::new(bytes)?;
    let n = r.count()?;
    let mut out = Vec::with_capacity(n.min(ROOM));
    for _ in 0..n {
        let number = r.u32()?;
        out.push((number, r.expr(DEPTH)?));
    }
    r.end().then_some(out)
}

/// The bytes left to read.
struct Reader<'a> {
    b: &'a [u8],
}

impl<'a> Reader<'a> {
    /// A reader of `bytes`, none larger than the codec's limit.
    fn new(bytes: &'a [u8]) -> Option<Reader<'a>> {
        (bytes.len() as u64 <= MAX_PAYLOAD).then_some(Reader { b: bytes })
    }

    /// Whether everything was read (the codec refuses trailing bytes).
    fn end(&self) -> bool {
        self.b.is_empty()
    }

    fn byte(&mut self) -> Option<u8> {
        let (&x, rest) = self.b.split_first()?;
        self.b = rest;
        Some(x)
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.b.len() < n {
            return None;
        }
        let (x, rest) = self.b.split_at(n);
        self.b = rest;
        Some(x)
    }

    /// A varint: a byte below 251, or 251, 252, 253 then 2, 4, 8 bytes (not necessarily the
    /// shortest form: the codec takes any). `raw.rs`'s walk reads them alike but says why it
    /// failed; reading through it cost a tenth of decoding an ad (`storage_scan/decoded`
    /// 63.6 → 70.2 ms), so this one says nothing.
    fn varint(&mut self) -> Option<u64> {
        let first = self.byte()?;
        let width = match first {
            0..=250 => return Some(u64::from(first)),
            251 => 2,
            252 => 4,
            253 => 8,
            _ => return None,
        };
        let mut le = [0u8; 8];
        le.get_mut(..width)?.copy_from_slice(self.take(width)?);
        Some(u64::from_le_bytes(le))
    }

    /// A `u32`, e.g. a variant's index.
    fn u32(&mut self) -> Option<u32> {
        u32::try_from(self.varint()?).ok()
    }

    /// A zigzag-encoded `i64`.
    fn i64(&mut self) -> Option<i64> {
        let z = self.varint()?;
        Some(((z >> 1) as i64) ^ -((z & 1) as i64))
    }

    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bool(&mut self) -> Option<bool> {
        match self.byte()? {
            0 => Some(false),
            1 => Some(true),
            _ => None,
        }
    }

    /// A count of items, each of which takes a byte at least: no more than the bytes left
    /// (room for at most [`ROOM`] is made up front).
    fn count(&mut self) -> Option<usize> {
        usize::try_from(self.varint()?)
            .ok()
            .filter(|&n| n <= self.b.len())
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = usize::try_from(self.varint()?).ok()?;
        std::str::from_utf8(self.take(n)?).ok()
    }

    fn name(&mut self) -> Option<Name> {
        self.str().map(Name::new)
    }

    fn unary(&mut self) -> Option<UnOp> {
        UNARY.get(usize::try_from(self.u32()?).ok()?).copied()
    }

    fn binary(&mut self) -> Option<BinOp> {
        BINARY.get(usize::try_from(self.u32()?).ok()?).copied()
    }

    /// A count, then that many expressions.
    fn exprs(&mut self, depth: u32) -> Option<Vec<Expr>> {
        let n = self.count()?;
        let mut out = Vec::with_capacity(n.min(ROOM));
        for _ in 0..n {
            out.push(self.expr(depth)?);
        }
        Some(out)
    }

    /// A nested ad: its `(name, expression)` pairs in order.
    fn ad(&mut self, depth: u32) -> Option<ClassAd> {
        let n = self.count()?;
        let mut ad = ClassAd::with_capacity(n.min(ROOM));
        for _ in 0..n {
            let name = self.name()?;
            ad.insert(name, self.expr(depth)?);
        }
        Some(ad)
    }

    /// An expression, its variants in declaration order (as `raw.rs` walks them).
    fn expr(&mut self, depth: u32) -> Option<Expr> {
        let d = depth.checked_sub(1)?;
        Some(match self.u32()? {
            0 => Expr::Lit(self.value(d)?),
            1 => Expr::Attr(self.name()?),
            2 => Expr::Root(self.name()?),
            3 => {
                let e = self.expr(d)?;
                Expr::Select(Box::new(e), self.name()?)
            }
            4 => {
                let pair = (self.expr(d)?, self.expr(d)?);
                Expr::Index(Box::new(pair))
            }
            5 => {
                let op = self.unary()?;
                Expr::Unary(op, Box::new(self.expr(d)?))
            }
            6 => {
                let op = self.binary()?;
                let pair = (self.expr(d)?, self.expr(d)?);
                Expr::Binary(op, Box::new(pair))
            }
            7 => {
                let three = (self.expr(d)?, self.expr(d)?, self.expr(d)?);
                Expr::Cond(Box::new(three))
            }
            8 => {
                let pair = (self.expr(d)?, self.expr(d)?);
                Expr::Elvis(Box::new(pair))
            }
            9 => {
                let name = self.name()?;
                Expr::Call(name, self.exprs(d)?)
            }
            10 => Expr::List(self.exprs(d)?),
            11 => Expr::Ad(Arc::new(self.ad(d)?)),
            12 => Expr::Paren(Box::new(self.expr(d)?)),
            13 => {
                let op = self.binary()?;
                Expr::Chain(op, self.exprs(d)?)
            }
            _ => return None,
        })
    }

    /// A value, its variants in declaration order.
    fn value(&mut self, depth: u32) -> Option<Value> {
        Some(match self.u32()? {
            0 => Value::Undefined,
            1 => Value::Error,
            2 => Value::Bool(self.bool()?),
            3 => Value::Int(self.i64()?),
            4 => Value::Real(self.f64()?),
            5 => Value::str(self.str()?),
            6 => {
                let secs = self.i64()?;
                let offset = i32::try_from(self.i64()?).ok()?;
                Value::AbsTime(AbsTime { secs, offset })
            }
            7 => Value::RelTime(self.f64()?),
            8 => {
                let d = depth.checked_sub(1)?;
                let n = self.count()?;
                let mut items = Vec::with_capacity(n.min(ROOM));
                for _ in 0..n {
                    items.push(self.value(d)?);
                }
                Value::List(items.into())
            }
            9 => Value::Ad(Arc::new(self.ad(depth.checked_sub(1)?)?)),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec;
    use crate::raw::tests::expr as any_expr;
    use proptest::prelude::*;

    /// The operator tables are the declaration order: each operator's index is its encoding.
    #[test]
    fn operator_tables_are_the_encodings() {
        for (i, op) in UNARY.iter().enumerate() {
            assert_eq!(codec::encode(op).expect("encode"), [i as u8], "{op:?}");
        }
        for (i, op) in BINARY.iter().enumerate() {
            assert_eq!(codec::encode(op).expect("encode"), [i as u8], "{op:?}");
        }
        // One past each table is no operator, for the codec too.
        assert!(codec::decode::<UnOp>(&[UNARY.len() as u8]).is_err());
        assert!(codec::decode::<BinOp>(&[BINARY.len() as u8]).is_err());
    }

    /// Table: encodings read here, or left to the codec (`None`), and what the codec says.
    #[test]
    fn what_is_read_and_what_is_left() {
        let cases: &[(&[u8], bool, bool)] = &[
            // (bytes, read here, the codec reads them)
            (&[0, 3, 4], true, true),                     // Lit(Int(2))
            (&[0, 3, 251, 4, 0], true, true),             // the same, not in its shortest form
            (&[0, 3, 254, 0], false, false),              // a 16-byte integer
            (&[0, 2, 2], false, false),                   // a boolean 2
            (&[0, 3, 4, 0], false, false),                // a trailing byte
            (&[1, 2, b'a'], false, false),                // a name cut short
            (&[1, 1, 0xff], false, false),                // a name not UTF-8
            (&[14], false, false),                        // no such expression
            (&[6, 21, 0, 0, 0, 0], false, false),         // no such operator
            (&[10, 252, 0, 0, 0, 1, 1, 0], false, false), // a forged count
            (&[0, 6, 2, 253, 0, 0, 0, 0, 1, 0, 0, 0], false, false), // an offset past i32
        ];
        for &(bytes, here, codec_reads) in cases {
            let mine = expr(bytes);
            let codec = codec::decode::<Expr>(bytes);
            assert_eq!(mine.is_some(), here, "{bytes:?}");
            assert_eq!(codec.is_ok(), codec_reads, "{bytes:?}");
            if let (Some(m), Ok(c)) = (&mine, &codec) {
                assert_eq!(codec::encode(m).ok(), codec::encode(c).ok(), "{bytes:?}");
            }
        }
    }

    /// Nesting deeper than [`DEPTH`] is left to the codec.
    #[test]
    fn deep_nesting_is_left_to_the_codec() {
        let mut bytes = vec![12; DEPTH as usize];
        bytes.extend([0, 0]);
        assert!(expr(&bytes).is_none());
        assert!(codec::decode::<Expr>(&bytes).is_ok());
        assert!(expr(&bytes[1..]).is_some());
    }

    /// Nested ads, lists of expressions and lists of values, each level claiming 65,536
    /// items of a body too short for them: refused as the codec refuses them, with at most
    /// [`ROOM`] items reserved a level on the way, not the claims.
    #[test]
    fn forged_nested_counts_are_refused() {
        let claim = [252, 0, 0, 1, 0];
        // (what opens the body, what each level is, what follows its count)
        let shapes: [(&[u8], &[u8], &[u8]); 3] = [
            (&[], &[11], &[1, b'a']), // Expr::Ad: then a pair named `a`
            (&[], &[10], &[]),        // Expr::List
            (&[0], &[8], &[]),        // Expr::Lit(Value::List)
        ];
        for (open, level, then) in shapes {
            let mut bytes = open.to_vec();
            for _ in 0..100 {
                bytes.extend(level);
                bytes.extend(claim);
                bytes.extend(then);
            }
            bytes.resize(bytes.len() + (1 << 17), 0);
            assert!(expr(&bytes).is_none(), "{level:?}");
            assert!(codec::decode::<Expr>(&bytes).is_err(), "{level:?}");
            let body = [&[1u8, 0][..], &bytes].concat();
            assert!(pairs(&body).is_none(), "{level:?}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every expression the codec writes is read here, as the codec reads it.
        #[test]
        fn reads_what_the_codec_wrote(e in any_expr()) {
            let bytes = codec::encode(&e).expect("encode");
            let mine = expr(&bytes).expect("read");
            prop_assert_eq!(codec::encode(&mine).expect("again"), bytes.clone());
            let body = codec::encode(&vec![(7u32, e.clone()), (300, e)]).expect("body");
            let read = pairs(&body).expect("pairs");
            prop_assert_eq!(codec::encode(&read).expect("again"), body);
        }

        /// Mangled encodings (a byte changed, cut short, or a byte more): whatever is read
        /// here is what the codec reads.
        #[test]
        fn mangled_reads_agree_with_the_codec(
            e in any_expr(),
            at in any::<prop::sample::Index>(),
            byte in any::<u8>(),
            how in 0u8..3,
        ) {
            let mut bytes = codec::encode(&e).expect("encode");
            let i = at.index(bytes.len());
            match how {
                0 => bytes[i] = byte,
                1 => bytes.truncate(i),
                _ => bytes.insert(i, byte),
            }
            if let Some(mine) = expr(&bytes) {
                let codec = codec::decode::<Expr>(&bytes).expect("the codec reads it too");
                prop_assert_eq!(codec::encode(&mine).ok(), codec::encode(&codec).ok());
            }
            let body = [&[1u8, 5][..], &bytes].concat();
            if let Some(mine) = pairs(&body) {
                let codec = codec::decode::<Vec<(u32, Expr)>>(&body).expect("the codec too");
                prop_assert_eq!(codec::encode(&mine).ok(), codec::encode(&codec).ok());
            }
        }
    }
}
