//! Specialization tests: a table of expected residuals, and a property test that the residual
//! evaluates identically to the original for random ads on both sides.

use super::*;
use crate::eval::{eval_expr, eval_in_match, MatchAds};
use crate::parse;
use proptest::prelude::*;

fn opts(fallback: bool, now: Option<i64>) -> EvalOptions {
    EvalOptions {
        target_fallback: fallback,
        now,
        tz_offset: Some(0),
        ..EvalOptions::default()
    }
}

/// `(ad, expression, residual as printed)`, new semantics, clock fixed.
#[test]
fn residual_table() {
    let cases = [
        ("[]", "1 + 2", "3"),
        (
            "[Memory = 64]",
            "TARGET.MemoryReqs < Memory - 15",
            "TARGET.MemoryReqs < 49",
        ),
        ("[]", "false && other.x > 10", "false"),
        ("[]", "true && other.x > 10", "other.x > 10"),
        ("[]", "true && other.x", "true && other.x"),
        ("[]", "other.x > 10 || true", "other.x > 10 || true"),
        ("[]", "other.x > 10 && true", "other.x > 10"),
        ("[]", "\"s\" && other.x", "error"),
        ("[]", "error + other.x", "error"),
        ("[]", "undefined + other.x", "undefined + other.x"),
        ("[a = 1]", "a > 0 ? other.x : other.y", "other.x"),
        ("[a = 1]", "undefined ? other.x : 2", "undefined"),
        ("[]", "undefined ?: other.y", "other.y"),
        ("[x = TARGET.a; y = x + 1]", "y", "y"),
        ("[a = b; b = a]", "a", "undefined"),
        ("[]", "time() > other.t", "1704164645 > other.t"),
        ("[]", "3 + other.a + 7", "3 + other.a + 7"),
        ("[n = [q = 1]]", "n.q + other.z", "1 + other.z"),
        ("[n = [q = 1]]", "n", "n"),
        ("[l = {1, 2}]", "member(other.x, l)", "member(other.x,l)"),
        // Chains specialize as the left folds they stand for.
        (
            "[a = 1]",
            "other.x > 1 || a == 2 || other.y",
            "other.x > 1 || other.y",
        ),
        (
            "[a = 1]",
            "a == 1 && other.x > 1 && a < 5 && other.y",
            "other.x > 1 && other.y",
        ),
        (
            "[]",
            "other.x || other.y || other.z || false",
            "other.x || other.y || other.z",
        ),
        (
            "[]",
            "other.x || true || other.z",
            "other.x || true || other.z",
        ),
        ("[]", "false && other.x && other.y", "false"),
        ("[]", "other.a + 1 + 2 + error", "error"),
        ("[]", "1 + 2 + other.a + 3", "3 + other.a + 3"),
    ];
    for (ad, e, want) in cases {
        let ad = parse::classad(ad).expect("ad");
        let e = parse::expr(e).expect("expr");
        let got = specialize(&e, &ad, &opts(false, Some(1_704_164_645))).to_string();
        assert_eq!(got, want, "{e}");
    }
}

#[test]
fn clock_folds_only_when_fixed() {
    let ad = ClassAd::new();
    let e = parse::expr("time() > other.t").expect("expr");
    assert_eq!(
        specialize(&e, &ad, &opts(false, None)).to_string(),
        "time() > other.t"
    );
}

#[test]
fn fallback_names_stay() {
    let ad = parse::classad("[Memory = 64]").expect("ad");
    let e = parse::expr("Disk > Memory").expect("expr");
    assert_eq!(
        specialize(&e, &ad, &opts(true, None)).to_string(),
        "Disk > 64"
    );
    assert_eq!(
        specialize(&e, &ad, &opts(false, None)).to_string(),
        "undefined"
    );
}

/// Expressions whose value in a match differs from their value in the ad alone, through a
/// route other than a TARGET reference: each must stay unfolded where it would change the value
/// (found by a differential fuzz of specialization). Checked against a TARGET that binds the
/// names and without one, under both semantics.
#[test]
fn match_dependent_forms_stay() {
    let my = "[ a = 1; x = 2; MinCap = 4; Ex = x > 1; RequireGPUs = Capability >= MinCap; \
              G = [ Capability = 5 ]; L = { G, [ Capability = 9 ] } ]";
    let target = "[ b = 5; Requirements = TARGET.a == 1; Arch = \"x86\"; MinCap = 10; \
                  Capability = 1; AvailableGPUs = { GPUs_a }; GPUs_a = [ Capability = 6 ] ]";
    let my = parse::classad(my).expect("ad");
    let target = parse::classad(target).expect("ad");
    let empty = ClassAd::new();
    for text in [
        ".x",
        ".e",
        "root.a",
        "toplevel.x + 1",
        "(3 && .a) + 1",
        "unresolved(Requirements)",
        "unresolved(Requirements, \"^a\")",
        "-unresolved(Arch)",
        "unresolved(.x)",
        "countMatches(.Ex, L)",
        "evalInEachContext(.Ex, L)",
        "countMatches(RequireGPUs, L)",
        "countMatches(RequireGPUs, AvailableGPUs)",
        "evalInEachContext(MinCap, L)",
        "evalInEachContext(parent.b, L)",
        "parent.target.b",
        "parent.my.a",
        "isUndefined(parent.other)",
        // A relative-time literal reads as a real; a relTime call of a huge value keeps it.
        "relTime(\"12\") && x > 1",
        "relTime(\"0\") || TARGET.b",
        "relTime(\"5\") ? TARGET.b : 2",
        "relTime(1e10)",
        "relTime(x * 1e10)",
        "{ '8:8', { relTime(5) }, 1 }",
    ] {
        let e = parse::expr(text).expect("expr");
        for fallback in [true, false] {
            let o = opts(fallback, Some(0));
            let spec = specialize(&e, &my, &o);
            for t in [&target, &empty] {
                let ads = MatchAds { my: &my, target: t };
                let (want, got) = (eval_in_match(&e, ads, &o), eval_in_match(&spec, ads, &o));
                assert!(
                    got.same_as(&want),
                    "{text} (fallback {fallback}): {want} but specialized {spec} gives {got}"
                );
            }
            let (want, got) = (eval_expr(&e, &my, &o), eval_expr(&spec, &my, &o));
            assert!(
                got.same_as(&want),
                "{text} alone: {want} but {spec} gives {got}"
            );
        }
    }
}

#[test]
fn whole_ad_and_attr() {
    let ad =
        parse::classad("[Memory = 64; Requirements = TARGET.ImageSize < Memory * 2]").expect("ad");
    let o = opts(false, None);
    let s = specialize_ad(&ad, &o);
    assert_eq!(
        s.to_string(),
        "[ Memory = 64; Requirements = TARGET.ImageSize < 128 ]"
    );
    let r = specialize_attr(&ad, "requirements", &o).map(|e| e.to_string());
    assert_eq!(r.as_deref(), Some("TARGET.ImageSize < 128"));
    assert!(specialize_attr(&ad, "NoSuchAttributeHere", &o).is_none());
}

/// Near evaluation's depth limit the specialized form evaluates as the original: `error` where
/// the original nests too deep (a constant folded alone, less deep, once made it `true`; found
/// by the `query` fuzz target), its value where it does not.
#[test]
fn depth_limit_is_kept() {
    let my = parse::classad("[Memory = 64; Deep = ----------1]").expect("ad");
    let target = parse::classad("[Memory = 4096]").expect("ad");
    let o = opts(false, None);
    for n in (380..=405).chain([8, 9, 10]) {
        let m = "-".repeat(n);
        let deep_my = format!("{}Deep", "-".repeat(n.saturating_sub(12)));
        for text in [
            format!("!{m}2 || TARGET.Memory > 2000"),
            format!("TARGET.Memory > {m}2000"),
            format!("TARGET.Memory > 2000 && {m}1 == 1"),
            format!("{m}1 == 1 && TARGET.Memory > 2000"),
            format!("true && ({m}1 == 1) && TARGET.Memory > 1"),
            format!("{deep_my} == 1 || TARGET.Memory > 1"),
            format!("({m}1 == 1) ? TARGET.Memory : 0"),
            // A branch no probe reaches (the call reads TARGET), lifted by a decided `?:`.
            format!("true ? (ifThenElse(TARGET.Memory > 1, {m}1, 0) == -1) : false"),
            format!("true && (ifThenElse(TARGET.Memory > 1, {m}1, 0) == -1)"),
        ] {
            let Ok(e) = parse::expr(&text) else { continue };
            let s = specialize(&e, &my, &o);
            let ads = MatchAds {
                my: &my,
                target: &target,
            };
            let (want, got) = (eval_in_match(&e, ads, &o), eval_in_match(&s, ads, &o));
            assert!(
                got.same_as(&want),
                "{n}: {text}: {got} (specialized), {want}"
            );
        }
    }
}

/// A relative time of negative zero folds to a literal that keeps the sign (`relTime(0)`
/// lost it; found by the `specialize` fuzz target).
#[test]
fn negative_zero_relative_time_folds_exactly() {
    let my = parse::classad("[r = relTime(0); s = relTime(-0.0)]").expect("ad");
    let o = opts(false, None);
    for text in ["-r", "{-r, r}", "s", "-s", "-relTime(\"-0\")"] {
        let e = parse::expr(text).expect("expr");
        let s = specialize(&e, &my, &o);
        let (want, got) = (eval_expr(&e, &my, &o), eval_expr(&s, &my, &o));
        assert_eq!(
            got.to_string(),
            want.to_string(),
            "{text}: specialized to {s}"
        );
    }
}

/// An ad specialized whole: one attribute folded to a literal would let another that reads it
/// evaluate where, as written, it runs out of depth; such an ad stays as it is.
#[test]
fn whole_ad_keeps_the_depth_limit() {
    let o = opts(false, None);
    for (a, b) in [(200, 250), (150, 240), (10, 20)] {
        let text = format!("[A = {}1; B = {}A]", "-".repeat(a), "-".repeat(b));
        let ad = parse::classad(&text).expect("ad");
        let s = specialize_ad(&ad, &o);
        for name in ["A", "B"] {
            let e = parse::expr(name).expect("name");
            let (want, got) = (eval_expr(&e, &ad, &o), eval_expr(&e, &s, &o));
            assert!(
                got.same_as(&want),
                "{a} {b} {name}: {got} (specialized), {want}"
            );
        }
    }
}

// ---- property: eval(specialize(e)) is eval(e), for any TARGET ----

const NAMES: [&str; 3] = ["a", "b", "c"];

fn leaf() -> impl Strategy<Value = Expr> {
    prop_oneof![
        (-3i64..4).prop_map(|i| Expr::Lit(Value::Int(i))),
        any::<bool>().prop_map(|b| Expr::Lit(Value::Bool(b))),
        Just(Expr::Lit(Value::Real(0.5))),
        Just(Expr::Lit(Value::Undefined)),
        Just(Expr::Lit(Value::Error)),
        Just(Expr::Lit(Value::str("x"))),
        (0..3usize).prop_map(|i| Expr::attr(NAMES[i])),
        (0..3usize, 0..3usize)
            .prop_map(|(s, i)| Expr::select(Expr::attr(["TARGET", "my", "other"][s]), NAMES[i])),
    ]
}

fn expr() -> impl Strategy<Value = Expr> {
    let ops = [
        BinOp::Add,
        BinOp::Sub,
        BinOp::Mul,
        BinOp::Div,
        BinOp::Lt,
        BinOp::Eq,
        BinOp::Ne,
        BinOp::Is,
        BinOp::Isnt,
        BinOp::And,
        BinOp::Or,
        BinOp::BitAnd,
    ];
    leaf().prop_recursive(4, 24, 3, move |inner| {
        prop_oneof![
            (0..ops.len(), inner.clone(), inner.clone())
                .prop_map(move |(o, l, r)| Expr::binary(ops[o], l, r)),
            inner
                .clone()
                .prop_map(|x| Expr::Unary(UnOp::Not, Box::new(x))),
            inner
                .clone()
                .prop_map(|x| Expr::Unary(UnOp::Neg, Box::new(x))),
            (inner.clone(), inner.clone(), inner.clone())
                .prop_map(|(c, a, b)| Expr::Cond(Box::new((c, a, b)))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| Expr::Elvis(Box::new((a, b)))),
            inner.clone().prop_map(|x| Expr::Paren(Box::new(x))),
            prop::collection::vec(inner.clone(), 0..3).prop_map(Expr::List),
            inner
                .clone()
                .prop_map(|x| Expr::Call(Name::new("isUndefined"), vec![x])),
            (0..ops.len(), prop::collection::vec(inner, 3..6)).prop_map(move |(o, terms)| {
                let mut terms = terms.into_iter();
                let first = terms.next().unwrap_or(Expr::Lit(Value::Int(1)));
                Expr::fold(ops[o], first, terms)
            }),
        ]
    })
}

/// `e` with every chain written out as its left spine of binary nodes.
fn spine(e: &Expr) -> Expr {
    match e {
        Expr::Chain(op, terms) => {
            let mut it = terms.iter().map(spine);
            let first = it.next().unwrap_or(Expr::Lit(Value::Undefined));
            it.fold(first, |acc, t| Expr::Binary(*op, Box::new((acc, t))))
        }
        Expr::Binary(op, p) => Expr::Binary(*op, Box::new((spine(&p.0), spine(&p.1)))),
        Expr::Unary(op, x) => Expr::Unary(*op, Box::new(spine(x))),
        Expr::Paren(x) => Expr::Paren(Box::new(spine(x))),
        Expr::Cond(p) => Expr::Cond(Box::new((spine(&p.0), spine(&p.1), spine(&p.2)))),
        Expr::Elvis(p) => Expr::Elvis(Box::new((spine(&p.0), spine(&p.1)))),
        Expr::List(xs) => Expr::List(xs.iter().map(spine).collect()),
        Expr::Call(n, xs) => Expr::Call(*n, xs.iter().map(spine).collect()),
        _ => e.clone(),
    }
}

fn ad_of() -> impl Strategy<Value = ClassAd> {
    prop::collection::vec(prop::option::of(expr()), 3).prop_map(|es| {
        let mut ad = ClassAd::new();
        for (name, e) in NAMES.iter().zip(es) {
            if let Some(e) = e {
                ad.set(name, e);
            }
        }
        ad
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]
    #[test]
    fn specialization_preserves_values(e in expr(), my in ad_of(), target in ad_of(), fallback in any::<bool>()) {
        let o = opts(fallback, Some(1_704_164_645));
        let s = specialize(&e, &my, &o);
        let ads = MatchAds { my: &my, target: &target };
        let before = eval_in_match(&e, ads, &o);
        let after = eval_in_match(&s, ads, &o);
        prop_assert!(before == after, "{e} => {s}: {before} vs {after}");
        // A chain specializes exactly as its binary spine does.
        let from_spine = specialize(&spine(&e), &my, &o);
        prop_assert!(from_spine.to_string() == s.to_string(), "{e} => {s}, its spine => {from_spine}");
        let alone_before = eval_expr(&e, &my, &o);
        let alone_after = eval_expr(&s, &my, &o);
        prop_assert!(alone_before == alone_after, "{e} => {s} (no target): {alone_before} vs {alone_after}");
        // Specializing an attribute preserves its value when referenced.
        let whole = specialize_ad(&my, &o);
        for name in NAMES {
            let r = Expr::attr(name);
            let a = eval_in_match(&r, ads, &o);
            let b = eval_in_match(&r, MatchAds { my: &whole, target: &target }, &o);
            prop_assert!(a == b, "attr {name} of {my} => {whole}: {a} vs {b}");
        }
    }
}
