//! Stored ads read without decoding them: a record's body ([`RawAd`]) is walked attribute by
//! attribute, each attribute's expression left as the bytes it is stored as, so that a reader
//! that needs a few attributes of many ads (a matchmaking cycle shaping a million requests)
//! decodes only those, and can compare and hash expressions as bytes (equal encodings are
//! equal expressions: the encoding is deterministic).
//!
//! A body is bincode `[(number, expression)]` (`names.rs`); bincode is not self-describing, so
//! the end of an expression is found by walking its encoding ([`skip_expr`]), which follows
//! the serde layout of `adjoin_query`'s `Expr`, `Value`, `Name` and `ClassAd` under the
//! store's options (varint integers, little-endian). The walk keeps an explicit stack, so a
//! deeply nested expression costs memory in proportion, not native stack, and is bounded by
//! the body's length.

use crate::codec::{self, CodecError};
use crate::names::Names;
use adjoin_query::{AbsTime, BinOp, ClassAd, Expr, Name, UnOp};

/// A stored ad's encoded body, readable attribute by attribute.
#[derive(Clone, Copy)]
pub struct RawAd<'a> {
    body: &'a [u8],
    names: &'a Names,
    revision: u64,
}

impl std::fmt::Debug for RawAd<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawAd")
            .field("bytes", &self.body.len())
            .finish()
    }
}

impl<'a> RawAd<'a> {
    pub(crate) fn new(body: &'a [u8], names: &'a Names) -> RawAd<'a> {
        RawAd {
            body,
            names,
            revision: 0,
        }
    }

    /// The same body, from a record of [`revision`](crate::record::revision) `revision`.
    pub fn with_revision(self, revision: u64) -> RawAd<'a> {
        RawAd { revision, ..self }
    }

    /// The [`revision`](crate::record::revision) of the record a scan found it in (0 for a body
    /// given back to [`AdStore::raw_ad`](crate::AdStore::raw_ad)).
    pub fn revision(&self) -> u64 {
        self.revision
    }

    /// The encoded body, as [`AdStore::raw_ad`](crate::AdStore::raw_ad) takes it back (to be
    /// read after the scan that found it has moved on).
    pub fn bytes(&self) -> &'a [u8] {
        self.body
    }

    /// The whole ad, decoded.
    pub fn decode(&self) -> Result<ClassAd, CodecError> {
        self.names.decode(self.body)
    }

    /// Calls `f` with each attribute's name and encoded expression ([`decode_expr`] reads
    /// one), in the ad's order; stops at the first malformed attribute, with its error.
    pub fn for_each_attr(&self, mut f: impl FnMut(Name, &'a [u8])) -> Result<(), CodecError> {
        let mut rest = self.body;
        let count = varint(&mut rest)?;
        let names = self.names.read();
        for _ in 0..count {
            let code = varint(&mut rest)?;
            let name = u32::try_from(code)
                .ok()
                .and_then(|c| names.get(c))
                .ok_or_else(|| {
                    CodecError::Decode(format!("unknown attribute name number {code}"))
                })?;
            let start = rest;
            skip_expr(&mut rest)?;
            let used = start.len() - rest.len();
            f(name, &start[..used]);
        }
        if rest.is_empty() {
            Ok(())
        } else {
            Err(CodecError::Decode(format!(
                "{} bytes after the last attribute",
                rest.len()
            )))
        }
    }
}

/// Decodes one expression as [`RawAd::for_each_attr`] gives it: read straight off its
/// encoding (`decode.rs`), or by the codec when that leaves it (the codec then also says what
/// is wrong).
pub fn decode_expr(bytes: &[u8]) -> Result<Expr, CodecError> {
    match crate::decode::expr(bytes) {
        Some(e) => Ok(e),
        None => codec::decode(bytes),
    }
}

/// Whether the encoded expression `bytes` is a literal that is neither a list nor an ad
/// (its value is all it is: it mentions no attribute).
pub fn is_plain_literal(bytes: &[u8]) -> bool {
    // `Expr::Lit` is variant 0, `Value::List` and `Value::Ad` variants 8 and 9; indexes below
    // 251 take one byte.
    matches!(bytes, [0, v, ..] if *v < 8)
}

fn short() -> CodecError {
    CodecError::Decode("an expression ends early".into())
}

/// Reads a bincode varint (a byte below 251, or a marker then 2, 4 or 8 bytes; a 16-byte
/// one is no count, name or length, and the codec refuses it too).
fn varint(b: &mut &[u8]) -> Result<u64, CodecError> {
    let (&first, rest) = b.split_first().ok_or_else(short)?;
    *b = rest;
    let width = match first {
        0..=250 => return Ok(u64::from(first)),
        251 => 2,
        252 => 4,
        253 => 8,
        _ => return Err(CodecError::Decode("a malformed integer".into())),
    };
    let bytes = take(b, width)?;
    let mut v = 0u64;
    for (i, &x) in bytes.iter().enumerate() {
        v |= u64::from(x) << (8 * i);
    }
    Ok(v)
}

fn take<'b>(b: &mut &'b [u8], n: usize) -> Result<&'b [u8], CodecError> {
    if b.len() < n {
        return Err(short());
    }
    let (x, rest) = b.split_at(n);
    *b = rest;
    Ok(x)
}

/// A count of items read from the input, checked against what is left: each item, and each
/// of the `owed` items still to be walked, takes a byte at least, so that a forged count
/// cannot make the walk plan more than the body holds.
fn length(b: &mut &[u8], owed: usize) -> Result<usize, CodecError> {
    let n = varint(b)?;
    usize::try_from(n)
        .ok()
        .filter(|&n| n.saturating_add(owed) <= b.len())
        .ok_or_else(short)
}

/// Decodes a small fixed-layout value (an operator, a time) from the front of `b`: checked as
/// a full decode would check it, with nothing allocated.
fn check<T: serde::de::DeserializeOwned>(b: &mut &[u8]) -> Result<(), CodecError> {
    codec::decode_front::<T>(b).map(|_| ())
}

/// What is still to be skipped.
#[derive(Clone, Copy)]
enum Item {
    Expr,
    Value,
    Str,
    /// A `(name, expression)` pair of a nested ad.
    Pair,
}

/// Advances `b` past one encoded `Expr`, checking it as decoding would (variants, operators,
/// booleans, UTF-8 of names and strings, integer widths) without building it.
pub fn skip_expr(b: &mut &[u8]) -> Result<(), CodecError> {
    if let Some(n) = plain_len(b) {
        // Most attributes' values: no plan needed.
        *b = b.get(n..).ok_or_else(short)?;
        return Ok(());
    }
    skip_planned(b)
}

/// [`skip_expr`] item by item, whatever the expression.
fn skip_planned(b: &mut &[u8]) -> Result<(), CodecError> {
    let mut todo = vec![Item::Expr];
    while let Some(item) = todo.pop() {
        let owed = todo.len();
        match item {
            Item::Str => skip_str(b, owed)?,
            Item::Pair => todo.extend([Item::Expr, Item::Str]),
            Item::Expr => match varint(b)? {
                // Lit(Value)
                0 => todo.push(Item::Value),
                // Attr(Name), Root(Name)
                1 | 2 => todo.push(Item::Str),
                // Select(Box<Expr>, Name): the expression first.
                3 => todo.extend([Item::Str, Item::Expr]),
                // Index, Elvis: Box<(Expr, Expr)>
                4 | 8 => todo.extend([Item::Expr, Item::Expr]),
                // Unary(UnOp, Box<Expr>)
                5 => {
                    check::<UnOp>(b)?;
                    todo.push(Item::Expr);
                }
                // Binary(BinOp, Box<(Expr, Expr)>)
                6 => {
                    check::<BinOp>(b)?;
                    todo.extend([Item::Expr, Item::Expr]);
                }
                // Cond(Box<(Expr, Expr, Expr)>)
                7 => todo.extend([Item::Expr, Item::Expr, Item::Expr]),
                // Call(Name, Vec<Expr>): the name first.
                9 => {
                    skip_str(b, owed)?;
                    plan(&mut todo, b, owed, Item::Expr)?;
                }
                // List(Vec<Expr>)
                10 => {
                    plan(&mut todo, b, owed, Item::Expr)?;
                }
                // Ad(ClassAd): [(Name, Expr)]
                11 => {
                    plan(&mut todo, b, owed, Item::Pair)?;
                }
                // Paren(Box<Expr>)
                12 => todo.push(Item::Expr),
                // Chain(BinOp, Vec<Expr>)
                13 => {
                    check::<BinOp>(b)?;
                    plan(&mut todo, b, owed, Item::Expr)?;
                }
                v => return Err(CodecError::Decode(format!("expression variant {v}"))),
            },
            Item::Value => match varint(b)? {
                // Undefined, Error
                0 | 1 => {}
                // Bool
                2 => check::<bool>(b)?,
                // Int (zigzag varint)
                3 => check::<i64>(b)?,
                // Real, RelTime (f64)
                4 | 7 => {
                    take(b, 8)?;
                }
                5 => todo.push(Item::Str),
                6 => check::<AbsTime>(b)?,
                // List(Arc<[Value]>)
                8 => {
                    plan(&mut todo, b, owed, Item::Value)?;
                }
                // Ad(Arc<ClassAd>)
                9 => {
                    plan(&mut todo, b, owed, Item::Pair)?;
                }
                v => return Err(CodecError::Decode(format!("value variant {v}"))),
            },
        }
    }
    Ok(())
}

/// The length of the plain literal `b` begins with, of the commonest kinds (undefined, error, a
/// boolean, an integer, a real, or a string, its text checked to be UTF-8); `None` for anything
/// else, or anything malformed (the full walk then says what).
fn plain_len(b: &[u8]) -> Option<usize> {
    let ([0, variant], rest) = b.split_first_chunk::<2>()? else {
        return None;
    };
    let n = match *variant {
        0 | 1 => 0,
        2 => matches!(rest.first(), Some(0 | 1)).then_some(1)?,
        3 => varint_len(rest)?,
        4 => 8,
        5 => {
            let head = varint_len(rest)?;
            let mut r = rest;
            let n = varint(&mut r).ok().filter(|&n| n <= codec::MAX_PAYLOAD)?;
            let n = usize::try_from(n).ok()?;
            std::str::from_utf8(r.get(..n)?).ok()?;
            head.checked_add(n)?
        }
        _ => return None,
    };
    (rest.len() >= n).then_some(2 + n)
}

/// The length of the varint `b` begins with (widths of 16 bytes left to the full walk).
fn varint_len(b: &[u8]) -> Option<usize> {
    let n = match *b.first()? {
        0..=250 => 1,
        251 => 3,
        252 => 5,
        253 => 9,
        _ => return None,
    };
    (b.len() >= n).then_some(n)
}

/// Reads a count from `b` and plans that many `item`s.
fn plan(todo: &mut Vec<Item>, b: &mut &[u8], owed: usize, item: Item) -> Result<(), CodecError> {
    let n = length(b, owed)?;
    todo.extend(std::iter::repeat_n(item, n));
    Ok(())
}

/// Advances `b` past one encoded string, checking it is UTF-8.
fn skip_str(b: &mut &[u8], owed: usize) -> Result<(), CodecError> {
    let n = length(b, owed)?;
    let s = take(b, n)?;
    std::str::from_utf8(s)
        .map(|_| ())
        .map_err(|e| CodecError::Decode(format!("a string that is not UTF-8: {e}")))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use adjoin_query::{parse, Value};
    use proptest::prelude::*;

    /// Every attribute of `ad` as the raw walk gives it: decodes back to the same expression.
    fn check_ad(ad: &ClassAd) {
        let s = crate::backend::MemStore::new();
        let names = Names::load(&s).expect("names");
        let body = names.encode(&s, ad).expect("encode");
        let raw = RawAd::new(&body, &names);
        let mut seen = Vec::new();
        raw.for_each_attr(|n, bytes| {
            let e = decode_expr(bytes).expect("decode");
            assert_eq!(
                is_plain_literal(bytes),
                matches!(&e, Expr::Lit(v) if !matches!(v, Value::List(_) | Value::Ad(_))),
                "{e:?}"
            );
            seen.push((n, e));
        })
        .expect("walk");
        let want: Vec<(Name, Expr)> = ad.iter().map(|(n, e)| (n, e.clone())).collect();
        assert_eq!(format!("{seen:?}"), format!("{want:?}"));
        assert_eq!(raw.decode().expect("whole").to_string(), ad.to_string());
    }

    #[test]
    fn every_variant_walks() {
        let ad = parse::classad(
            r#"[ a = undefined; b = error; c = true; d = -123456789012; e = 3.25; f = "x\ty€";
                g = absTime("2024-01-02T03:04:05+01:00"); h = relTime(3725.5);
                i = { 1, "two", { 3 }, [ q = 1 ] }; j = [ x = 1; y = [ z = other.w ] ];
                k = MY.a + TARGET.b * -c; l = .rootattr; m = a[0]; n = a ?: b;
                o = a ? b : c; p = strcat("a", b, { c }); q = (a); r = !a && ~b || a is b;
                s = 250; t = 251; u = 65536; v = 4294967296; w = -251; x = a.b.c ]"#,
        )
        .expect("ad");
        check_ad(&ad);
    }

    #[test]
    fn malformed_bodies_are_errors_not_panics() {
        let ad = parse::classad("[a = { 1, 2, \"three\" } ; b = x.y + 7]").expect("ad");
        let s = crate::backend::MemStore::new();
        let names = Names::load(&s).expect("names");
        let body = names.encode(&s, &ad).expect("encode");
        for cut in 0..body.len() {
            let raw = RawAd::new(&body[..cut], &names);
            assert!(raw.for_each_attr(|_, _| {}).is_err(), "cut at {cut}");
        }
        let mut longer = body.clone();
        longer.push(0);
        assert!(RawAd::new(&longer, &names)
            .for_each_attr(|_, _| {})
            .is_err());
        // A forged huge length is refused at once.
        let mut b: &[u8] = &[10, 253, 255, 255, 255, 255, 0, 0, 0, 0];
        assert!(skip_expr(&mut b).is_err());
        // What decoding refuses, the walk refuses: a boolean 2, an operator beyond the last,
        // a string that is not UTF-8, an unknown variant.
        for bad in [
            &[0u8, 2, 2][..],
            &[5, 200, 1, 1, 120],
            &[1, 2, 0xff, 0xfe],
            &[14],
            &[13],
            &[0, 10],
        ] {
            let mut b = bad;
            assert!(skip_expr(&mut b).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn deep_nesting_takes_no_native_stack() {
        // A million nested parentheses around `x`, written as their encoding (encoding such
        // an expression through serde would itself recurse a million deep).
        let mut bytes = vec![12u8; 1_000_000];
        bytes.extend(codec::encode(&Expr::attr("x")).expect("encode"));
        let mut b = bytes.as_slice();
        skip_expr(&mut b).expect("skip");
        assert!(b.is_empty());
        // Lists: a forged count beyond the input is refused before anything is planned; so
        // are lists nested in lists each claiming the rest of the body (the walk's plan never
        // exceeds the bytes left).
        let mut b: &[u8] = &[10, 252, 0, 0, 0, 1, 1, 0];
        assert!(skip_expr(&mut b).is_err());
        let mut nested = Vec::new();
        for i in 0..2000usize {
            nested.push(10);
            let rest = 3 * (2000 - i);
            nested.extend([251, rest as u8, (rest >> 8) as u8]);
        }
        let mut b = nested.as_slice();
        assert!(skip_expr(&mut b).is_err());
    }

    fn name() -> impl Strategy<Value = String> {
        "[A-Za-z_][A-Za-z0-9_]{0,6}"
    }

    fn value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Undefined),
            Just(Value::Error),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::Int),
            any::<f64>().prop_map(Value::Real),
            ".{0,300}".prop_map(|s| Value::str(&s)),
            (any::<i64>(), any::<i32>())
                .prop_map(|(secs, offset)| Value::AbsTime(adjoin_query::AbsTime { secs, offset })),
            any::<f64>().prop_map(Value::RelTime),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(|v| Value::List(v.into())),
                prop::collection::vec((name(), inner), 0..3).prop_map(|ps| {
                    let mut ad = ClassAd::new();
                    for (n, v) in ps {
                        ad.insert(Name::new(&n), Expr::Lit(v));
                    }
                    Value::Ad(std::sync::Arc::new(ad))
                }),
            ]
        })
    }

    fn unary() -> impl Strategy<Value = adjoin_query::UnOp> {
        prop::sample::select(crate::decode::UNARY.to_vec())
    }

    fn binary() -> impl Strategy<Value = adjoin_query::BinOp> {
        prop::sample::select(crate::decode::BINARY.to_vec())
    }

    /// Expressions of every kind, nested a few levels (shared with `decode.rs`).
    pub(crate) fn expr() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            value().prop_map(Expr::Lit),
            name().prop_map(|n| Expr::attr(&n)),
            name().prop_map(|n| Expr::Root(Name::new(&n))),
        ];
        leaf.prop_recursive(5, 64, 4, |inner| {
            let two = (inner.clone(), inner.clone());
            prop_oneof![
                (inner.clone(), name()).prop_map(|(e, n)| Expr::Select(Box::new(e), Name::new(&n))),
                two.clone().prop_map(|p| Expr::Index(Box::new(p))),
                (unary(), inner.clone()).prop_map(|(op, e)| Expr::Unary(op, Box::new(e))),
                (binary(), two.clone()).prop_map(|(op, p)| Expr::Binary(op, Box::new(p))),
                (binary(), prop::collection::vec(inner.clone(), 3..6))
                    .prop_map(|(op, xs)| Expr::Chain(op, xs)),
                (inner.clone(), inner.clone(), inner.clone()).prop_map(|p| Expr::Cond(Box::new(p))),
                two.prop_map(|p| Expr::Elvis(Box::new(p))),
                (name(), prop::collection::vec(inner.clone(), 0..4))
                    .prop_map(|(n, xs)| Expr::Call(Name::new(&n), xs)),
                prop::collection::vec(inner.clone(), 0..4).prop_map(Expr::List),
                prop::collection::vec((name(), inner.clone()), 0..4).prop_map(|ps| {
                    let mut ad = ClassAd::new();
                    for (n, e) in ps {
                        ad.insert(Name::new(&n), e);
                    }
                    Expr::Ad(std::sync::Arc::new(ad))
                }),
                inner.prop_map(|e| Expr::Paren(Box::new(e))),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Literals' encodings, whole or mangled (and followed by more): read straight off
        /// as the codec reads them, skipped at once as the item-by-item walk skips them —
        /// the same verdicts, expressions and ends.
        #[test]
        fn literals_read_and_skip_as_the_codec_and_the_walk_do(
            variant in 0u8..7,
            tail in prop::collection::vec(any::<u8>(), 0..12),
            v in value(),
        ) {
            let mut mangled = vec![0, variant];
            mangled.extend(&tail);
            let whole = codec::encode(&Expr::Lit(v)).expect("encode");
            let mut followed = whole.clone();
            followed.extend(&tail);
            for bytes in [mangled, whole, followed] {
                let mine = decode_expr(&bytes).map(|e| codec::encode(&e).expect("encode"));
                let codec = codec::decode::<Expr>(&bytes).map(|e| codec::encode(&e).expect("encode"));
                prop_assert_eq!(mine.ok(), codec.ok(), "{:?}", bytes);
                let (mut fast, mut walked) = (bytes.as_slice(), bytes.as_slice());
                let verdicts = (skip_expr(&mut fast).is_ok(), skip_planned(&mut walked).is_ok());
                prop_assert_eq!(verdicts.0, verdicts.1, "{:?}", bytes);
                if verdicts.0 {
                    prop_assert_eq!(fast.len(), walked.len(), "{:?}", bytes);
                }
            }
        }

        /// The walk ends exactly where the encoding does, for any expression.
        #[test]
        fn skip_ends_where_the_encoding_does(e in expr(), tail in prop::collection::vec(any::<u8>(), 0..4)) {
            let mut bytes = codec::encode(&e).expect("encode");
            let len = bytes.len();
            bytes.extend_from_slice(&tail);
            let mut b = bytes.as_slice();
            skip_expr(&mut b).expect("skip");
            prop_assert_eq!(bytes.len() - b.len(), len);
        }
    }
}
