//! Times a flat chain (issue 16) of N terms, the machine list of real pool policies
//! (`TARGET.Machine == "host00000.example.org" || …`): parse, print, evaluate (the last
//! machine: every term read; an absent one: false; no Machine: undefined), encode and decode
//! through the storage codec, specialize, and convert to the index's profile form.
//!
//! ```sh
//! cargo run --release -p adjoin-workload --example chain_timing -- 50000
//! ```

use adjoin::index::profile::{constraint_dpf, PROFILE_CAP};
use adjoin::query::eval::{eval_in_match, EvalOptions, MatchAds};
use adjoin::query::specialize::specialize;
use adjoin::query::{parse, ClassAd, Expr};
use adjoin::storage::codec;
use std::hint::black_box;
use std::process::ExitCode;
use std::time::Instant;

/// Runs `f` `reps` times; the best time in milliseconds and the last result.
fn best<T>(reps: u32, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t = Instant::now();
        let r = black_box(f());
        best = best.min(t.elapsed().as_secs_f64() * 1e3);
        out = Some(r);
    }
    match out {
        Some(r) => (best, r),
        None => (best, f()),
    }
}

fn main() -> ExitCode {
    let n: usize = match std::env::args().nth(1).map(|a| a.parse()) {
        Some(Ok(n)) if n >= 1 => n,
        None => 50_000,
        _ => {
            eprintln!("usage: chain_timing [TERMS]");
            return ExitCode::from(2);
        }
    };
    let text: String = (0..n)
        .map(|i| format!("TARGET.Machine == \"host{i:05}.example.org\""))
        .collect::<Vec<_>>()
        .join(" || ");
    let reps = 5;
    let (t_parse, parsed) = best(reps, || parse::expr(&text));
    let e = match parsed {
        Ok(e) => e,
        Err(err) => {
            println!(
                "{n} terms ({} bytes): parse refused after {t_parse:.2} ms: {err}",
                text.len()
            );
            return ExitCode::from(1);
        }
    };
    let (t_print, printed) = best(reps, || e.to_string());
    assert_eq!(printed.len(), text.len());
    let opts = EvalOptions::default();
    let job = ClassAd::new();
    let slot = |m: &str| parse::classad(m).unwrap_or_default();
    let last = slot(&format!("[Machine = \"host{:05}.example.org\"]", n - 1));
    let none = slot("[Machine = \"elsewhere\"]");
    let absent = slot("[Cpus = 1]");
    let eval = |target: &ClassAd| {
        best(reps, || {
            eval_in_match(&e, MatchAds { my: &job, target }, &opts).to_string()
        })
    };
    let (t_last, v_last) = eval(&last);
    let (t_none, v_none) = eval(&none);
    let (t_absent, v_absent) = eval(&absent);
    let (t_enc, sealed) = best(reps, || codec::seal(b"k", &e));
    let sealed = match sealed {
        Ok(s) => s,
        Err(err) => {
            eprintln!("encode: {err}");
            return ExitCode::from(1);
        }
    };
    let (t_dec, back) = best(reps, || codec::open::<Expr>(b"k", &sealed));
    assert!(back.as_ref().is_ok_and(|b| *b == e));
    let (t_spec, _) = best(reps, || specialize(&e, &job, &opts));
    let mut ad = ClassAd::new();
    ad.set("Requirements", e.clone());
    let (t_dpf, d) = best(reps, || constraint_dpf(&ad, &opts, PROFILE_CAP));
    println!(
        "{n} terms ({} bytes of text, {} bytes encoded), best of {reps}:",
        text.len(),
        sealed.len()
    );
    println!("  parse      {t_parse:9.2} ms");
    println!("  print      {t_print:9.2} ms");
    println!("  eval last  {t_last:9.2} ms  -> {v_last}");
    println!("  eval none  {t_none:9.2} ms  -> {v_none}");
    println!("  eval undef {t_absent:9.2} ms  -> {v_absent}");
    println!("  encode     {t_enc:9.2} ms");
    println!("  decode     {t_dec:9.2} ms");
    println!("  specialize {t_spec:9.2} ms");
    println!(
        "  profiles   {t_dpf:9.2} ms  -> {} profiles, capped {}",
        d.profiles.len(),
        d.capped
    );
    ExitCode::SUCCESS
}
