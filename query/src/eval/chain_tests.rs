//! Chains (`Expr::Chain`, runs of one operator such as `a || b || c`): evaluated exactly as the
//! left fold of binary nodes they stand for — same values, same terms evaluated, same work —
//! checked against a table of HTCondor's values and, by property, against the nested binary
//! tree built by hand.

use super::*;
use crate::{parse, BinOp, ClassAd};
use proptest::prelude::*;

fn opts() -> EvalOptions {
    EvalOptions {
        now: Some(1_704_164_645),
        tz_offset: Some(0),
        ..EvalOptions::default()
    }
}

const MY: &str = "[t = true; f = false; u = undefined; e = error; s = \"str\"; n = 5; z = 0; \
                  r = 2.5; Machine = \"host3\"]";

fn my() -> ClassAd {
    parse::classad(MY).expect("MY")
}

fn expr(text: &str) -> Expr {
    parse::expr(text).unwrap_or_else(|e| panic!("expr {text}: {e}"))
}

/// `((t0 op t1) op t2) …` as nested binary nodes, as the parser built runs before chains.
fn spine(op: BinOp, terms: &[Expr]) -> Expr {
    let mut it = terms.iter().cloned();
    let first = it.next().expect("a term");
    it.fold(first, |acc, t| Expr::Binary(op, Box::new((acc, t))))
}

/// The chain and the spine of `terms`, evaluated in `ad` under `o`, printed.
fn both(op: BinOp, terms: &[Expr], ad: &ClassAd, o: &EvalOptions) -> (String, String) {
    let chain = Expr::Chain(op, terms.to_vec());
    let nested = spine(op, terms);
    (
        eval_expr(&chain, ad, o).to_string(),
        eval_expr(&nested, ad, o).to_string(),
    )
}

#[test]
fn chain_values() {
    // Values as HTCondor's classad2 gives them (tests/golden/exprs.golden, section chains).
    let cases = [
        ("u || f || t", "true"),
        ("u || f || f", "undefined"),
        ("f || u || e", "error"),
        ("e || t || t", "error"),
        ("t || e || e", "true"),
        ("f || f || e", "error"),
        ("s || t || t", "error"),
        ("f || s || t", "error"),
        ("u || s || t", "error"),
        ("n || e || e", "true"),
        ("z || z || u", "undefined"),
        ("u && t && f", "false"),
        ("u && t && t", "undefined"),
        ("f && e && e", "false"),
        ("t && e && f", "error"),
        ("u && e && f", "error"),
        ("t && t && s", "error"),
        ("isError(f || e || t)", "true"),
        ("isUndefined(u || f || f)", "true"),
        ("1 + 2 + 3 + 4", "10"),
        ("n + u + e", "error"),
        ("n + e + u", "error"),
        ("u + n + n", "undefined"),
        ("1 + 2.5 + 1", "4.500000000000000E+00"),
        ("9223372036854775807 + 1 + 1", "-9223372036854775807"),
        ("n * 2 * 3", "30"),
        ("6 | 1 | 8", "15"),
        ("7 & 3 & 1", "1"),
        ("5 ^ 1 ^ 1", "5"),
        (
            "Machine == \"host1\" || Machine == \"host2\" || Machine == \"HOST3\"",
            "true",
        ),
        (
            "Machine == \"host1\" || Machine == \"host2\" || Machine == \"host4\"",
            "false",
        ),
        (
            "NoSuch == \"host1\" || NoSuch == \"host2\" || NoSuch == \"host3\"",
            "undefined",
        ),
        (
            "NoSuch == \"host1\" || Machine == \"host2\" || Machine == \"host3\"",
            "true",
        ),
    ];
    let ad = my();
    for (text, want) in cases {
        let e = expr(text);
        let got = eval_expr(&e, &ad, &opts()).to_string();
        assert_eq!(got, want, "{text}");
        // The same as the binary fold.
        if let Expr::Chain(op, terms) = e.unparen() {
            assert_eq!(both(*op, terms, &ad, &opts()), (got.clone(), got), "{text}");
        }
    }
}

#[test]
fn chains_cost_the_work_of_their_binary_folds() {
    // Under every work budget the chain and its spine give the same value: they spend the
    // same work at the same points (so the evaluation counters stay comparable).
    let ad = my();
    for text in [
        "f || u || f || n == 5 || e",
        "t && u && n > 1 && strcat(s, s) == \"strstr\" && t",
        "1 + n + r + size(s) + 7",
    ] {
        let Expr::Chain(op, terms) = expr(text) else {
            panic!("{text} is a chain");
        };
        for max_work in 0..40 {
            let o = EvalOptions { max_work, ..opts() };
            let (c, n) = both(op, &terms, &ad, &o);
            assert_eq!(c, n, "{text} with work budget {max_work}");
        }
    }
}

#[test]
fn long_chains_are_not_deep() {
    // 50,000 terms: the chain evaluates (each term one level below it) where the spine of the
    // same terms is past the depth budget, as in HTCondor.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let ad = my();
            let n = 50_000;
            let terms: Vec<Expr> = (0..n)
                .map(|i| expr(&format!("Machine == \"host{i}\"")))
                .collect();
            let chain = Expr::Chain(BinOp::Or, terms);
            assert_eq!(eval_expr(&chain, &ad, &opts()).to_string(), "true");
            let Expr::Chain(_, terms) = &chain else {
                unreachable!()
            };
            let short = spine(BinOp::Or, &terms[..1000]);
            assert_eq!(eval_expr(&short, &ad, &opts()).to_string(), "error");
            // Iterative drop of the spine (the derived drop recurses once per node).
            let mut e = short;
            while let Expr::Binary(_, pair) = e {
                e = pair.0;
            }
        })
        .expect("spawn")
        .join()
        .expect("no overflow");
}

/// Terms covering every class `&&`/`||` and the strict operators treat differently.
fn term() -> impl Strategy<Value = Expr> {
    prop::sample::select(vec![
        "t",
        "f",
        "u",
        "e",
        "s",
        "n",
        "z",
        "r",
        "true",
        "false",
        "undefined",
        "error",
        "0",
        "1",
        "-3",
        "2.5",
        "0.0",
        "\"x\"",
        "{1}",
        "[a = 1]",
        "NoSuch",
        "n == 5",
        "NoSuch == 1",
        "Machine == \"HOST3\"",
        "isError(e)",
        "isUndefined(u)",
        "(e || t)",
        "(u && f)",
        "(t || u || e)",
        "1 / 0",
        "n > r",
        "strcat(s, s)",
    ])
    .prop_map(expr)
}

fn chaining() -> impl Strategy<Value = BinOp> {
    prop::sample::select(vec![
        BinOp::Or,
        BinOp::And,
        BinOp::Add,
        BinOp::Mul,
        BinOp::BitOr,
        BinOp::BitXor,
        BinOp::BitAnd,
    ])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// A chain's value is the nested binary tree's, `isError`/`isUndefined` of it too, and so
    /// is the chain's as the parser builds it from the printed spine.
    #[test]
    fn chain_eval_equals_nested_binary(
        op in chaining(),
        terms in prop::collection::vec(term(), 3..9),
        max_work in prop::option::of(0u64..60),
    ) {
        let ad = my();
        let o = EvalOptions { max_work: max_work.unwrap_or(50_000_000), ..opts() };
        let (c, n) = both(op, &terms, &ad, &o);
        prop_assert_eq!(&c, &n);
        for f in ["isError", "isUndefined"] {
            let wrap = |e: Expr| Expr::Call(crate::Name::new(f), vec![e]);
            let c = eval_expr(&wrap(Expr::Chain(op, terms.clone())), &ad, &o).to_string();
            let n = eval_expr(&wrap(spine(op, &terms)), &ad, &o).to_string();
            prop_assert_eq!(c, n, "{}", f);
        }
        // Read back from its text (which may add parentheses, each one more unit of work:
        // compared without a work budget).
        let text = spine(op, &terms).to_string();
        let parsed = parse::expr(&text).expect("reads back");
        prop_assert!(matches!(parsed, Expr::Chain(..)), "{}", parsed);
        let unbounded = eval_expr(&spine(op, &terms), &ad, &opts()).to_string();
        prop_assert_eq!(eval_expr(&parsed, &ad, &opts()).to_string(), unbounded, "{}", text);
    }
}
