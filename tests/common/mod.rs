//! Helpers shared by the golden-file tests: reading HTCondor's printed values and comparing them
//! with ours at the precision HTCondor prints (15 significant digits).
#![allow(dead_code)] // each test binary uses the part it needs

pub mod analysis;
pub mod chains;
pub mod child;
pub mod cli;
pub mod cycles;

use adjoin::query::eval::{eval_expr, EvalOptions};
use adjoin::query::{parse, ClassAd, Expr, Value};
use std::path::PathBuf;
use std::sync::Arc;

/// The fixed clock the golden files were made at: 2024-01-02T03:04:05Z, TZ=UTC.
pub const GOLDEN_NOW: i64 = 1_704_164_645;

/// Evaluation options at the golden clock, with or without the TARGET fallback.
pub fn golden_opts(target_fallback: bool) -> EvalOptions {
    EvalOptions {
        target_fallback,
        now: Some(GOLDEN_NOW),
        tz_offset: Some(0),
        ..EvalOptions::default()
    }
}

/// The `Name` of a golden ad.
pub fn ad_name(ad: &ClassAd) -> String {
    ad.eval_attr("Name")
        .as_str()
        .expect("every golden ad has a Name")
        .to_owned()
}

/// A path under the workspace's top.
pub fn top(rel: &str) -> PathBuf {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let top = here
        .ancestors()
        .find(|dir| dir.join("Cargo.lock").exists())
        .unwrap_or(&here);
    let path = top.join(rel);
    // The project's shared sources beside the repository, or else the copy the repository
    // carries of the files the tests read (`tests/shared`).
    match rel.strip_prefix("../shared/") {
        Some(rest) if !path.exists() => top.join("tests/shared").join(rest),
        _ => path,
    }
}

/// Reads a file under the workspace's top.
pub fn read(rel: &str) -> String {
    std::fs::read_to_string(top(rel)).unwrap_or_else(|e| panic!("reading {rel}: {e}"))
}

/// A real rounded to the 15 significant digits HTCondor prints; NaNs made canonical.
fn round15(x: f64) -> f64 {
    if x.is_nan() {
        return f64::NAN;
    }
    if !x.is_finite() || x == 0.0 {
        return x;
    }
    format!("{x:.14e}").parse().unwrap_or(x)
}

/// `e` with every real literal rounded as HTCondor prints it.
fn round_expr(e: &Expr) -> Expr {
    let r = |e: &Expr| Box::new(round_expr(e));
    match e {
        Expr::Lit(v) => Expr::Lit(round_value(v)),
        Expr::Select(b, n) => Expr::Select(r(b), *n),
        Expr::Index(p) => Expr::Index(Box::new((round_expr(&p.0), round_expr(&p.1)))),
        Expr::Unary(op, x) => Expr::Unary(*op, r(x)),
        Expr::Binary(op, p) => Expr::Binary(*op, Box::new((round_expr(&p.0), round_expr(&p.1)))),
        Expr::Cond(p) => Expr::Cond(Box::new((
            round_expr(&p.0),
            round_expr(&p.1),
            round_expr(&p.2),
        ))),
        Expr::Elvis(p) => Expr::Elvis(Box::new((round_expr(&p.0), round_expr(&p.1)))),
        Expr::Call(n, args) => Expr::Call(*n, args.iter().map(round_expr).collect()),
        Expr::List(items) => Expr::List(items.iter().map(round_expr).collect()),
        Expr::Chain(op, items) => Expr::Chain(*op, items.iter().map(round_expr).collect()),
        Expr::Ad(ad) => Expr::Ad(Arc::new(round_ad(ad))),
        Expr::Paren(x) => Expr::Paren(r(x)),
        Expr::Attr(_) | Expr::Root(_) => e.clone(),
    }
}

fn round_ad(ad: &ClassAd) -> ClassAd {
    ad.iter().map(|(n, e)| (n, round_expr(e))).collect()
}

/// `v` with every real rounded as HTCondor prints it.
pub fn round_value(v: &Value) -> Value {
    match v {
        Value::Real(x) => Value::Real(round15(*x)),
        Value::RelTime(x) => Value::RelTime(round15(*x)),
        Value::List(items) => Value::List(items.iter().map(round_value).collect()),
        Value::Ad(ad) => Value::Ad(Arc::new(round_ad(ad))),
        other => other.clone(),
    }
}

/// The value HTCondor printed as `text`, read back by evaluating it.
pub fn golden_value(text: &str) -> Result<Value, String> {
    let e = parse::expr(text).map_err(|e| format!("golden value {text:?} does not parse: {e}"))?;
    Ok(eval_expr(&e, &ClassAd::new(), &golden_opts(false)))
}

/// True when `ours` is the value HTCondor printed as `text`: printed the same, or, read back, the
/// same value with reals to 15 digits (adjoin prints an ad read back in its written order, HTCondor in its own).
pub fn agrees(ours: &Value, text: &str) -> Result<bool, String> {
    // HTCondor's evaluation itself failed (it returned no value at all, e.g. `random(0)`):
    // the nearest thing a value can say is `error`.
    if text.starts_with("evaluation failed") {
        return Ok(matches!(ours, Value::Error));
    }
    if ours.to_string() == text {
        return Ok(true);
    }
    // HTCondor prints a relative-time *value* truncated to whole seconds (`relTime("12")` for
    // 12.5 s); adjoin prints it exactly (docs/language.md). Compare the whole seconds. (Read as
    // an expression, `relTime("12")` would be HTCondor's reltime literal, which is a real.)
    if let (Value::RelTime(x), Some(inner)) = (ours, text.strip_prefix("relTime(\"")) {
        let inner = inner.strip_suffix("\")").unwrap_or(inner);
        return Ok(
            adjoin::query::parse::time_string::rel_time_from_string(inner)
                .is_some_and(|t| t == x.trunc()),
        );
    }
    let theirs = golden_value(text)?;
    Ok(approx_eq(ours, &theirs))
}

/// Reals equal to the 16 significant digits HTCondor prints (`%.15E`), NaN equal to NaN.
fn close(a: f64, b: f64) -> bool {
    a == b || (a.is_nan() && b.is_nan()) || (a - b).abs() <= 2e-15 * a.abs().max(b.abs())
}

/// Value equality at HTCondor's printed precision.
fn approx_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Real(x), Value::Real(y)) | (Value::RelTime(x), Value::RelTime(y)) => close(*x, *y),
        (Value::List(x), Value::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| approx_eq(p, q))
        }
        (Value::Ad(_), Value::Ad(_)) => round_value(a) == round_value(b),
        _ => a == b,
    }
}

/// Reads a file of ads in any format.
pub fn read_ads(rel: &str) -> Vec<ClassAd> {
    let text = read(rel);
    parse::ads(&text, parse::Format::Auto).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// The `## NAME` sections of a golden file, each with its lines (comments `# …` and blank
/// lines left out), in order; lines before the first header are ignored.
pub fn sections(text: &str) -> Vec<(&str, Vec<&str>)> {
    let mut out: Vec<(&str, Vec<&str>)> = Vec::new();
    for line in text.lines() {
        if line.is_empty() || line.starts_with("# ") {
            continue;
        }
        match (line.strip_prefix("## "), out.last_mut()) {
            (Some(name), _) => out.push((name, Vec::new())),
            (None, Some((_, lines))) => lines.push(line),
            (None, None) => {}
        }
    }
    out
}

/// One `## pool NAME` block of a random-pool golden file: its machines and jobs (new-syntax
/// ads, one a line) and its other sections with their lines.
#[derive(Default)]
pub struct GoldenPool {
    pub name: String,
    pub machines: Vec<ClassAd>,
    pub jobs: Vec<ClassAd>,
    pub other: Vec<(String, Vec<String>)>,
}

/// The `## pool` blocks of the golden file `rel` (`random-pools.golden`, `random-cycles.golden`).
pub fn golden_pools(rel: &str) -> Vec<GoldenPool> {
    let text = read(rel);
    let mut pools: Vec<GoldenPool> = Vec::new();
    for (section, lines) in sections(&text) {
        if let Some(name) = section.strip_prefix("pool ") {
            pools.push(GoldenPool {
                name: name.to_owned(),
                ..GoldenPool::default()
            });
            continue;
        }
        let pool = pools.last_mut().expect("a ## pool section first");
        let ads = || {
            lines
                .iter()
                .map(|l| parse::classad(l).expect("golden ads parse"))
        };
        match section {
            "machines" => pool.machines.extend(ads()),
            "jobs" => pool.jobs.extend(ads()),
            other => pool.other.push((
                other.to_owned(),
                lines.iter().map(|l| (*l).to_owned()).collect(),
            )),
        }
    }
    pools
}
