//! Fuzz target: evaluating any expression that parses, alone and in a match context of two
//! fixed ads, returns a value within the budgets: no panic, no stack overflow, no hang.
#![no_main]

use adjoin_query::eval::{eval_expr, eval_in_match, EvalOptions, MatchAds};
use adjoin_query::parse;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(expr) = parse::expr(text) else {
        return;
    };
    let opts = EvalOptions {
        now: Some(1_704_164_645),
        tz_offset: Some(0),
        max_work: 200_000,
        ..EvalOptions::default()
    };
    let my = parse::classad(
        r#"[a = 1; b = a + 1; s = "Str"; l = {1, 2.5, "x"}; n = [c = a; d = parent.b]; r = r]"#,
    )
    .expect("fixed ad parses");
    let target = parse::classad(r#"[a = 2; Memory = 2048; Requirements = other.a < a]"#)
        .expect("fixed ad parses");
    let _ = eval_expr(&expr, &my, &opts);
    let _ = eval_in_match(
        &expr,
        MatchAds {
            my: &my,
            target: &target,
        },
        &opts,
    );
});
