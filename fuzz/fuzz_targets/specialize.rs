//! Fuzz target: specialization's promise. For any expression that parses, written in a fixed
//! MY ad, the specialized expression evaluates to the identical value as the original with
//! every TARGET tried (two that bind MY's names differently, an empty one) and with none,
//! under both semantics. `random()` is left out: two evaluations of it differ by nature.
#![no_main]

use adjoin_query::eval::{eval_expr, eval_in_match, EvalOptions, MatchAds};
use adjoin_query::parse;
use adjoin_query::specialize::specialize;
use adjoin_query::{ClassAd, Value};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if text.to_ascii_lowercase().contains("random") {
        return;
    }
    let Ok(expr) = parse::expr(text) else {
        return;
    };
    let my = parse::classad(
        r#"[a = 1; b = a + 1; s = "Str"; l = {1, 2.5, "x"}; n = [c = a; d = parent.b];
            r = r; t = TARGET.a; g = [cap = 5]; gl = {g, [cap = 2]}; rt = relTime("1:00");
            req = cap >= a]"#,
    )
    .expect("fixed ad parses");
    let targets = [
        parse::classad(r#"[a = 2; Memory = 2048; Requirements = other.a < a; x = MY.b]"#)
            .expect("fixed ad parses"),
        parse::classad(r#"[z = 3; s = 7; cap = 9; gpus = {[cap = 4]}; q = TARGET.t]"#)
            .expect("fixed ad parses"),
        ClassAd::new(),
    ];
    for target_fallback in [true, false] {
        let opts = EvalOptions {
            target_fallback,
            now: Some(1_704_164_645),
            tz_offset: Some(0),
            max_work: 200_000,
            ..EvalOptions::default()
        };
        // The original may run out of the work or depth budget where the specialized one, with
        // less to do, does not: such a case (an error that larger budgets remove) is not
        // compared.
        let roomy = EvalOptions {
            max_work: 2_000_000,
            max_depth: 1_500,
            ..opts.clone()
        };
        let spec = specialize(&expr, &my, &opts);
        let alone = (eval_expr(&expr, &my, &opts), eval_expr(&spec, &my, &opts));
        if alone.0.to_string() != alone.1.to_string()
            && !(is_error(&alone.0) && !is_error(&eval_expr(&expr, &my, &roomy)))
        {
            panic!("{text} alone (fallback {target_fallback}): specialized to {spec}: {alone:?}");
        }
        for target in &targets {
            let ads = MatchAds { my: &my, target };
            let (want, got) = (
                eval_in_match(&expr, ads, &opts),
                eval_in_match(&spec, ads, &opts),
            );
            if want.to_string() != got.to_string()
                && !(is_error(&want) && !is_error(&eval_in_match(&expr, ads, &roomy)))
            {
                panic!(
                    "{text} against {target} (fallback {target_fallback}): specialized to \
                     {spec}: {want} but {got}"
                );
            }
        }
    }
});

fn is_error(v: &Value) -> bool {
    matches!(v, Value::Error)
}
