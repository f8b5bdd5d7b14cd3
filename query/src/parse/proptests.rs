//! Property tests: random expressions and ads survive printing and reading back in every format.
//!
//! Generated trees are the ones a parser can produce (parentheses where precedence needs them, no
//! `absTime("…")` calls, which the parser turns into literals), so the round trip is checked as
//! exact structural equality, reals to the bit.

use super::tests::{same_ad, same_expr};
use super::*;
use crate::ast::{BinOp, Expr, UnOp};
use crate::name::Name;
use crate::print::unparse::strength;
use crate::value::{AbsTime, Value};
use proptest::prelude::*;
use std::sync::Arc;

/// `e`, parenthesised when it binds looser than `min`.
fn wrap(e: Expr, min: u8) -> Expr {
    if strength(&e) < min {
        Expr::Paren(Box::new(e))
    } else {
        e
    }
}

/// Text that prints with no quoting trouble in old syntax: no newlines, no backslashes.
fn old_safe_text() -> impl Strategy<Value = String> {
    "[ -\\[\\]-~é€😀]{0,12}"
}

fn any_text() -> impl Strategy<Value = String> {
    "[\\x01-\\x7f é€😀\u{80}-\u{ff}]{0,12}"
}

fn plain_name() -> impl Strategy<Value = String> {
    "[A-Za-z_][A-Za-z0-9_]{0,8}".prop_filter("not reserved", |s| crate::print::is_plain_name(s))
}

fn name(old: bool) -> BoxedStrategy<Name> {
    if old {
        plain_name().prop_map(|s| Name::new(&s)).boxed()
    } else {
        // Non-empty: HTCondor's XML cannot carry an empty name (`<a n="">` is rejected).
        let odd = any_text().prop_filter("non-empty", |s| !s.is_empty());
        prop_oneof![3 => plain_name(), 1 => odd, 1 => Just("10:00".to_string())]
            .prop_map(|s| Name::new(&s))
            .boxed()
    }
}

fn real() -> impl Strategy<Value = f64> {
    prop_oneof![
        any::<f64>().prop_filter("finite", |r| r.is_finite()),
        Just(0.0),
        Just(-0.0),
        Just(0.30000000000000004),
        (-1e6f64..1e6),
    ]
}

fn scalar(old: bool) -> BoxedStrategy<Value> {
    let text = if old {
        old_safe_text().boxed()
    } else {
        any_text().boxed()
    };
    prop_oneof![
        Just(Value::Undefined),
        Just(Value::Error),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::Int),
        real().prop_map(Value::Real),
        text.prop_map(|s| Value::str(&s)),
        // Years 1000–9999 (the reader wants four year digits), offsets in whole minutes.
        (-30_610_224_000i64..253_402_300_799, -840i32..840).prop_map(|(secs, m)| Value::AbsTime(
            AbsTime {
                secs,
                offset: m * 60
            }
        )),
        (-1e9f64..1e9).prop_map(Value::RelTime),
        (-100_000i64..100_000).prop_map(|s| Value::RelTime(s as f64)),
    ]
    .boxed()
}

/// Expressions as the parser builds them.
fn expr(old: bool) -> impl Strategy<Value = Expr> {
    let leaf = prop_oneof![
        4 => scalar(old).prop_map(Expr::Lit),
        2 => name(old).prop_map(Expr::Attr),
        1 => name(old).prop_map(Expr::Root),
    ];
    leaf.prop_recursive(5, 48, 4, move |inner| {
        let unop = prop_oneof![
            Just(UnOp::Neg),
            Just(UnOp::Plus),
            Just(UnOp::Not),
            Just(UnOp::BitNot)
        ];
        let binop = prop_oneof![
            Just(BinOp::Mul),
            Just(BinOp::Div),
            Just(BinOp::Mod),
            Just(BinOp::Add),
            Just(BinOp::Sub),
            Just(BinOp::Shl),
            Just(BinOp::Shr),
            Just(BinOp::UShr),
            Just(BinOp::Lt),
            Just(BinOp::Le),
            Just(BinOp::Gt),
            Just(BinOp::Ge),
            Just(BinOp::Eq),
            Just(BinOp::Ne),
            Just(BinOp::Is),
            Just(BinOp::Isnt),
            Just(BinOp::BitAnd),
            Just(BinOp::BitXor),
            Just(BinOp::BitOr),
            Just(BinOp::And),
            Just(BinOp::Or),
        ];
        let chaining = prop_oneof![
            Just(BinOp::Or),
            Just(BinOp::And),
            Just(BinOp::Add),
            Just(BinOp::Mul),
            Just(BinOp::BitOr),
            Just(BinOp::BitXor),
            Just(BinOp::BitAnd),
        ];
        let fname = plain_name().prop_filter("not a time constructor", |n| {
            !n.eq_ignore_ascii_case("absTime") && !n.eq_ignore_ascii_case("relTime")
        });
        prop_oneof![
            (inner.clone(), name(old)).prop_map(|(b, n)| {
                // `1.a` lexes as a malformed real, so an integer base needs parentheses.
                let b = if matches!(b, Expr::Lit(Value::Int(_))) {
                    Expr::Paren(Box::new(b))
                } else {
                    wrap(b, 13)
                };
                Expr::Select(Box::new(b), n)
            }),
            (inner.clone(), inner.clone())
                .prop_map(|(b, i)| Expr::Index(Box::new((wrap(b, 13), i)))),
            (unop, inner.clone()).prop_map(|(op, x)| {
                let mut x = wrap(x, 11);
                // `- 1` reads back as the literal -1: keep such operands in parentheses.
                let text = x.to_string();
                if op == UnOp::Neg && text.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
                    x = Expr::Paren(Box::new(x));
                }
                Expr::Unary(op, Box::new(x))
            }),
            (binop, inner.clone(), inner.clone()).prop_map(|(op, l, r)| {
                let p = precedence(op);
                // Canonical: a chaining `op` on the left joins one chain.
                Expr::binary(op, wrap(l, p), wrap(r, p + 1))
            }),
            (chaining, prop::collection::vec(inner.clone(), 3..7)).prop_map(|(op, terms)| {
                let p = precedence(op);
                let mut terms = terms.into_iter();
                let first = terms
                    .next()
                    .map_or(Expr::Lit(Value::Int(1)), |t| wrap(t, p));
                Expr::fold(op, first, terms.map(|t| wrap(t, p + 1)))
            }),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, m, r)| Expr::Cond(Box::new((wrap(c, 1), m, r)))),
            (inner.clone(), inner.clone())
                .prop_map(|(l, r)| Expr::Elvis(Box::new((wrap(l, 13), wrap(r, 12))))),
            (fname, prop::collection::vec(inner.clone(), 0..4))
                .prop_map(|(f, a)| Expr::Call(Name::new(&f), a)),
            prop::collection::vec(inner.clone(), 0..4).prop_map(Expr::List),
            prop::collection::vec((name(old), inner.clone()), 0..4)
                .prop_map(|kv| Expr::Ad(Arc::new(kv.into_iter().collect()))),
            inner.prop_map(|x| Expr::Paren(Box::new(x))),
        ]
    })
}

/// `ad` as its JSON or XML printing reads back: a relative-time literal written where those
/// hold values (not inside an expression) is the real it evaluates to, as in HTCondor.
fn as_evaluated_literals(ad: &ClassAd) -> ClassAd {
    fn expr(e: &Expr) -> Expr {
        match e {
            Expr::Lit(v) => Expr::Lit(v.as_evaluated().into_owned()),
            Expr::List(items) => Expr::List(items.iter().map(expr).collect()),
            Expr::Ad(ad) => Expr::Ad(Arc::new(as_evaluated_literals(ad))),
            e => e.clone(),
        }
    }
    ad.iter().map(|(k, e)| (k, expr(e))).collect()
}

fn classad(old: bool) -> impl Strategy<Value = ClassAd> {
    prop::collection::vec((name(old), expr(old)), 0..6).prop_map(|kv| kv.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn expressions_round_trip(e in expr(false)) {
        let text = e.to_string();
        let back = super::expr(&text).map_err(|err| TestCaseError::fail(format!("{text}: {err}")))?;
        prop_assert!(same_expr(&e, &back, false), "{} read back as {}", text, back);
        prop_assert_eq!(back.to_string(), text);
    }

    #[test]
    fn values_round_trip(v in scalar(false)) {
        let text = v.to_string();
        let back = super::expr(&text).map_err(|err| TestCaseError::fail(format!("{text}: {err}")))?;
        prop_assert!(same_expr(&Expr::Lit(v), &back, false), "{} read back as {:?}", text, back);
    }

    #[test]
    fn ads_round_trip_new_json_xml(ads in prop::collection::vec(classad(false), 1..3)) {
        let non_empty: Vec<ClassAd> = ads.into_iter().filter(|a| !a.is_empty()).collect();
        let new_text: String = non_empty.iter().map(|a| format!("{a}\n")).collect();
        let json = crate::print::ads_to_json(&non_empty);
        let xml = crate::print::ads_to_xml(&non_empty);
        for (fmt, text) in [(Format::New, &new_text), (Format::Json, &json), (Format::Xml, &xml)] {
            let back = super::ads(text, fmt).map_err(|err| TestCaseError::fail(format!("{fmt:?} {text}: {err}")))?;
            prop_assert_eq!(back.len(), non_empty.len(), "{:?}", fmt);
            for (a, b) in non_empty.iter().zip(&back) {
                let a = if fmt == Format::New { a.clone() } else { as_evaluated_literals(a) };
                prop_assert!(same_ad(&a, b, false), "{:?}: {} read back as {}\n{}", fmt, a, b, text);
            }
            if !non_empty.is_empty() {
                prop_assert_eq!(super::detect(text), fmt);
            }
        }
    }

    #[test]
    fn ads_round_trip_old(ads in prop::collection::vec(classad(true), 1..3)) {
        let non_empty: Vec<ClassAd> = ads.into_iter().filter(|a| !a.is_empty()).collect();
        let text = crate::print::ads_to_old(&non_empty);
        let back = super::ads(&text, Format::Old).map_err(|err| TestCaseError::fail(format!("{text}: {err}")))?;
        prop_assert_eq!(back.len(), non_empty.len());
        for (a, b) in non_empty.iter().zip(&back) {
            prop_assert!(same_ad(a, b, false), "{} read back as {}\n{}", a, b, text);
        }
    }
}
