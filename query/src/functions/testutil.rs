//! Test helpers for the function modules: evaluate an expression's text and compare its printed
//! value with HTCondor's (as `classad2`'s compact unparse shows it).

use crate::eval::{eval_expr, eval_in_match, EvalOptions, MatchAds};
use crate::{parse, ClassAd};

/// Options with a fixed clock and UTC, so results do not depend on the machine.
pub(crate) fn opts() -> EvalOptions {
    EvalOptions {
        now: Some(1_704_164_645),
        tz_offset: Some(0),
        ..EvalOptions::default()
    }
}

/// The printed value of `expr` evaluated in the ad `ad` (new syntax).
pub(crate) fn eval_in(ad: &str, expr: &str) -> String {
    let ad: ClassAd = parse::classad(ad).unwrap_or_else(|e| panic!("ad {ad}: {e}"));
    let e = parse::expr(expr).unwrap_or_else(|e| panic!("expr {expr}: {e}"));
    format!("{}", eval_expr(&e, &ad, &opts()))
}

/// The printed value of `expr` evaluated in an empty ad with a work budget of `max_work`.
pub(crate) fn eval_with_budget(expr: &str, max_work: u64) -> String {
    let e = parse::expr(expr).unwrap_or_else(|e| panic!("expr {expr}: {e}"));
    let opts = EvalOptions { max_work, ..opts() };
    format!("{}", eval_expr(&e, &ClassAd::new(), &opts))
}

/// Asserts that `expr`, evaluated in an empty ad, prints as `want`.
pub(crate) fn check(expr: &str, want: &str) {
    assert_eq!(eval_in("[]", expr), want, "{expr}");
}

/// Asserts that `expr`, evaluated in the ad `ad`, prints as `want`.
pub(crate) fn check_in(ad: &str, expr: &str, want: &str) {
    assert_eq!(eval_in(ad, expr), want, "{expr} in {ad}");
}

/// Asserts that `expr`, written in the ad `my` matched with the ad `target` (new syntax, no
/// TARGET fallback), prints as `want`.
pub(crate) fn check_in_match(my: &str, target: &str, expr: &str, want: &str) {
    let opts = EvalOptions {
        target_fallback: false,
        ..opts()
    };
    assert_eq!(
        eval_matched(my, target, expr, &opts),
        want,
        "{expr} in a match"
    );
}

/// Asserts that `expr`, written in the ad `my` matched with the ad `target` under the old
/// semantics (unscoped names missing from an ad sought in the other), prints as `want`.
pub(crate) fn check_in_old_match(my: &str, target: &str, expr: &str, want: &str) {
    let got = eval_matched(my, target, expr, &opts());
    assert_eq!(got, want, "{expr} in an old-semantics match");
}

/// The printed value of `expr` written in the ad `my` matched with the ad `target`.
fn eval_matched(my: &str, target: &str, expr: &str, opts: &EvalOptions) -> String {
    let my: ClassAd = parse::classad(my).unwrap_or_else(|e| panic!("ad {my}: {e}"));
    let target: ClassAd = parse::classad(target).unwrap_or_else(|e| panic!("ad {target}: {e}"));
    let e = parse::expr(expr).unwrap_or_else(|e| panic!("expr {expr}: {e}"));
    let ads = MatchAds {
        my: &my,
        target: &target,
    };
    format!("{}", eval_in_match(&e, ads, opts))
}
