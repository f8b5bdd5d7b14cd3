//! Evaluation without an evaluator for the plainest expressions of a match: literals,
//! `MY.x` and `TARGET.x` (or `other.x`) bound to literals or absent, and the strict
//! operators over them — what most `Rank`s are (`TARGET.Memory`, `-TARGET.LoadAvg`,
//! `TARGET.Cpus * 100 + TARGET.Memory / 1024`, `(TARGET.Site == MY.Site) * 10`).
//!
//! The value is the one [`eval_key_in_match`](super::eval_key_in_match) gives, by the same
//! operator rules ([`apply_binary`], [`apply_unary`]: the evaluator's own fast paths only
//! shortcut them) and the same name resolution (a top-level ad of a match that does not bind
//! `MY` or `TARGET` itself names itself and the other ad by them). Anything else is `None`,
//! for the evaluator: unscoped names (old semantics look them up in two places), calls,
//! conditionals, `&&` and `||` (short-circuited there), lists, nested ads, an attribute bound
//! to an expression, a selected name that is a keyword, or options whose budgets the
//! expression might come near.

use super::expr::{literal_kind, Literal};
use super::ops::{apply_binary, apply_unary};
use super::{EvalOptions, MatchAds};
use crate::ast::{BinOp, Expr};
use crate::classad::ClassAd;
use crate::name::{kw, Key};
use crate::value::{Val, Value};

/// Deepest nesting evaluated here.
const DEPTH: u32 = 24;
/// Most nodes evaluated here.
const NODES: u32 = 128;

/// `ads.my`'s attribute `key` in the match, when it is plain enough to need no evaluator
/// (see the module's header); `None` otherwise, or when `key` is not bound.
pub fn quick_key_in_match(key: Key, ads: MatchAds<'_>, opts: &EvalOptions) -> Option<Value> {
    // Budgets far above what is evaluated here: the evaluator would not run out either.
    if opts.max_depth <= 4 * DEPTH || opts.max_work <= 16 * u64::from(NODES) {
        return None;
    }
    let e = ads.my.get_key(key)?;
    let mut q = Quick {
        my: ads.my,
        target: ads.target,
        nodes: 0,
    };
    q.eval(e, DEPTH).map(|v| v.to_value())
}

/// One quick evaluation.
struct Quick<'a> {
    my: &'a ClassAd,
    target: &'a ClassAd,
    nodes: u32,
}

impl<'a> Quick<'a> {
    fn eval(&mut self, e: &'a Expr, depth: u32) -> Option<Val<'a>> {
        self.nodes += 1;
        if depth == 0 || self.nodes > NODES {
            return None;
        }
        let d = depth - 1;
        Some(match e {
            Expr::Lit(v) => scalar(v)?,
            Expr::Paren(x) => self.eval(x, d)?,
            Expr::Unary(op, x) => apply_unary(*op, self.eval(x, d)?),
            Expr::Binary(op, b) if strict(*op) => {
                let l = self.eval(&b.0, d)?;
                let r = self.eval(&b.1, d)?;
                apply_binary(*op, l, r)
            }
            Expr::Chain(op, terms) if strict(*op) => {
                let (first, rest) = terms.split_first()?;
                let mut acc = self.eval(first, d)?;
                for t in rest {
                    let b = self.eval(t, d)?;
                    acc = apply_binary(*op, acc, b);
                }
                acc
            }
            Expr::Select(base, name) => {
                let Expr::Attr(b) = &**base else {
                    return None;
                };
                let ad = self.scope_of(b.key())?;
                let key = name.key();
                // A keyword selected (`TARGET.parent`) is resolved otherwise.
                if key.0 <= kw::CURRENT_TIME.0 {
                    return None;
                }
                match ad.get_key(key) {
                    None => Val::Undefined,
                    Some(Expr::Lit(v)) => scalar(v)?,
                    Some(_) => return None,
                }
            }
            _ => return None,
        })
    }

    /// The ad `MY` or `TARGET` (`other`) names at the top of a match, unless `MY` binds the
    /// name itself.
    fn scope_of(&self, k: Key) -> Option<&'a ClassAd> {
        if self.my.may_bind(k) {
            return None;
        }
        match k {
            kw::MY => Some(self.my),
            kw::TARGET | kw::OTHER => Some(self.target),
            _ => None,
        }
    }
}

/// Operators evaluated here: all but the short-circuiting ones.
fn strict(op: BinOp) -> bool {
    !matches!(op, BinOp::And | BinOp::Or)
}

/// A literal as the evaluator reads it, when it is a scalar (not a list or an ad).
fn scalar(v: &Value) -> Option<Val<'_>> {
    match literal_kind(v) {
        Literal::Scalar(x) => Some(x),
        Literal::List(_) | Literal::Ad(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::eval_key_in_match;
    use crate::parse;
    use proptest::prelude::*;

    fn ad(text: &str) -> ClassAd {
        parse::classad(text).expect("parses")
    }

    /// Values alike: equal, or both NaN.
    fn alike(a: &Value, b: &Value) -> bool {
        match (a, b) {
            (Value::Real(x), Value::Real(y)) => x.to_bits() == y.to_bits() || x == y,
            _ => a == b,
        }
    }

    /// `rank` of a request against an offer, quickly (when it may) and by the evaluator.
    fn both(rank: &str, request: &str, offer: &str) -> (Option<Value>, Value) {
        let my = ad(&format!("[{request} Rank = {rank}]"));
        let target = ad(offer);
        let ads = MatchAds {
            my: &my,
            target: &target,
        };
        let opts = EvalOptions::default();
        let key = Key::of("Rank");
        (
            quick_key_in_match(key, ads, &opts),
            eval_key_in_match(key, ads, &opts),
        )
    }

    #[test]
    fn table() {
        let offer = "[Memory = 2048; Cpus = 4; Site = \"WISC\"; LoadAvg = 0.5; HasGPU = true; \
                     Score = TARGET.Prio * 2; Name = \"slot1\"]";
        let request = "Site = \"wisc\"; Prio = 3;";
        for (rank, quick) in [
            ("TARGET.Memory", true),
            ("-TARGET.LoadAvg", true),
            ("TARGET.Cpus * 100 + TARGET.Memory / 1024", true),
            ("(TARGET.Site == MY.Site) * 10", true),
            ("TARGET.HasGPU", true),
            ("TARGET.Missing + 1", true),
            ("other.Memory - 1 - 2 - 3", true),
            ("TARGET.Name =?= \"slot1\"", true),
            ("TARGET.Memory > 1000 && TARGET.Cpus > 2", false),
            ("TARGET.Score", false),
            ("Memory", false),
            ("ifThenElse(TARGET.HasGPU, 1, 0)", false),
            ("TARGET.Memory ?: 0", false),
            ("{1, 2}", false),
        ] {
            let (q, full) = both(rank, request, offer);
            assert_eq!(q.is_some(), quick, "{rank}");
            if let Some(q) = q {
                assert!(alike(&q, &full), "{rank}: {q:?} against {full:?}");
            }
        }
        // A request binding TARGET itself is left to the evaluator.
        let my = ad("[TARGET = [Memory = 1]; Rank = TARGET.Memory]");
        let target = ad("[Memory = 2]");
        let ads = MatchAds {
            my: &my,
            target: &target,
        };
        let opts = EvalOptions::default();
        assert_eq!(quick_key_in_match(Key::of("Rank"), ads, &opts), None);
    }

    /// Expressions over literals, the offer's and the request's attributes, and operators.
    fn expr() -> impl Strategy<Value = String> {
        let leaf = prop_oneof![
            (-3i64..4).prop_map(|i| i.to_string()),
            prop_oneof![Just("0.5"), Just("-0.0"), Just("1e308"), Just("2.5")]
                .prop_map(str::to_owned),
            prop_oneof![Just("\"a\""), Just("\"A\""), Just("\"b\"")].prop_map(str::to_owned),
            prop_oneof![
                Just("true"),
                Just("false"),
                Just("undefined"),
                Just("error")
            ]
            .prop_map(str::to_owned),
            prop_oneof![
                Just("TARGET.I"),
                Just("TARGET.R"),
                Just("TARGET.S"),
                Just("TARGET.B"),
                Just("TARGET.E"),
                Just("TARGET.Gone"),
                Just("MY.I"),
                Just("MY.S"),
                Just("other.R"),
                Just("MY.Gone"),
            ]
            .prop_map(str::to_owned),
        ];
        leaf.prop_recursive(4, 24, 3, |inner| {
            let ops = prop_oneof![
                Just("+"),
                Just("-"),
                Just("*"),
                Just("/"),
                Just("%"),
                Just("<"),
                Just("<="),
                Just(">"),
                Just(">="),
                Just("=="),
                Just("!="),
                Just("=?="),
                Just("=!="),
                Just("&"),
                Just("|"),
                Just("^"),
                Just("<<"),
                Just(">>"),
                Just("&&"),
                Just("||"),
            ];
            prop_oneof![
                (inner.clone(), ops, inner.clone()).prop_map(|(a, o, b)| format!("{a} {o} {b}")),
                (
                    prop_oneof![Just("-"), Just("!"), Just("~"), Just("+")],
                    inner.clone()
                )
                    .prop_map(|(o, a)| format!("{o}({a})")),
                inner.prop_map(|a| format!("({a})")),
            ]
        })
    }

    proptest! {
        /// Whenever the quick path answers, it answers as the evaluator does.
        #[test]
        fn quick_values_are_the_evaluators(rank in expr()) {
            let offer = "[I = 7; R = -2.5; S = \"A\"; B = true; E = TARGET.I + 1]";
            let request = "I = -4; S = \"a\";";
            let (q, full) = both(&rank, request, offer);
            // Only the short-circuiting operators and the attribute bound to an expression
            // are left to the evaluator here.
            let plain = ["&&", "||", ".E"].iter().all(|s| !rank.contains(s));
            prop_assert_eq!(q.is_some(), plain, "{}", rank);
            if let Some(q) = q {
                prop_assert!(alike(&q, &full), "{}: {:?} against {:?}", rank, q, full);
            }
        }
    }
}
