//! `adjoin prefer`: a request's preferences (its `Preferences` CP-net, issue 12) asked about
//! without a database — the optimum (`--best`), or whether one offer's outcome dominates
//! another's (`--dominates A.ad B.ad`), with the improving flips as witness.

use super::candidates::read_ad;
use adjoin::prefer::{Class, Dominance, Flip, Preferences};
use adjoin::query::eval::EvalOptions;
use adjoin::query::Value;
use anyhow::{anyhow, Result};
use clap::Args;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `adjoin prefer`.
#[derive(Args)]
#[command(group(clap::ArgGroup::new("question").required(true).args(["best", "dominates"])))]
pub struct PreferArgs {
    /// The request ad holding `Preferences` (new or old syntax, JSON, XML; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    ad: PathBuf,
    /// Print the most preferred outcome (the forward sweep).
    #[arg(long)]
    best: bool,
    /// Whether offer A's outcome dominates offer B's (exit status 1 when not).
    #[arg(long, num_args = 2, value_names = ["A.ad", "B.ad"])]
    dominates: Option<Vec<PathBuf>>,
    /// Print JSON: `{"best": {…}}` or `{"dominates": …, "flips": […]}`.
    #[arg(long)]
    json: bool,
}

/// A variable's value as JSON: the listed value (strings, booleans, numbers), `null` for
/// `other` or what JSON cannot hold.
fn value_json(p: &Preferences, i: usize, c: Class) -> serde_json::Value {
    let Some(v) = p.vars.get(i).and_then(|v| v.domain.get(c as usize)) else {
        return serde_json::Value::Null;
    };
    match v {
        Value::Str(s) => serde_json::json!(s.as_ref()),
        Value::Bool(b) => serde_json::json!(b),
        Value::Int(n) => serde_json::json!(n),
        Value::Real(r) if r.is_finite() => serde_json::json!(r),
        other => serde_json::json!(other.to_string()),
    }
}

/// The value as text: the listed value in the language's syntax, or `other`.
fn value_text(p: &Preferences, i: usize, c: Class) -> String {
    p.vars.get(i).map_or_else(|| "other".into(), |v| v.show(c))
}

/// The name of variable `i`.
fn name(p: &Preferences, i: usize) -> &str {
    p.vars.get(i).map_or("?", |v| v.name.as_str())
}

/// A flip as JSON, its fields in this order: `{"variable": …, "from": …, "to": …}`.
#[derive(serde::Serialize)]
struct FlipJson<'a> {
    variable: &'a str,
    from: serde_json::Value,
    to: serde_json::Value,
}

/// Flip `f` of `p` as JSON.
fn flip_json<'a>(p: &'a Preferences, f: &Flip) -> FlipJson<'a> {
    FlipJson {
        variable: name(p, f.variable),
        from: value_json(p, f.variable, f.from),
        to: value_json(p, f.variable, f.to),
    }
}

/// The answer of `--dominates --json`, its fields in the order.
#[derive(serde::Serialize)]
struct DominatesJson<'a> {
    dominates: bool,
    flips: Vec<FlipJson<'a>>,
}

/// Runs `adjoin prefer`.
pub fn run(args: PreferArgs) -> Result<ExitCode> {
    let shown = args.ad.display().to_string();
    let request = read_ad(&args.ad)?;
    let opts = EvalOptions::default();
    let p = Preferences::from_ad(&request, &shown, &opts)?
        .ok_or_else(|| anyhow!("ad {shown} has no Preferences"))?;
    if let Some(files) = &args.dominates {
        let [a, b] = files.as_slice() else {
            return Err(anyhow!("--dominates takes two offer files"));
        };
        let (oa, ob) = (read_ad(a)?, read_ad(b)?);
        let (ca, cb) = (
            p.outcome(&request, &oa, &opts),
            p.outcome(&request, &ob, &opts),
        );
        let answer = p.dominates(&ca, &cb)?;
        let flips = match &answer {
            Dominance::Dominates(f) => f.as_slice(),
            Dominance::No => &[],
        };
        let yes = matches!(answer, Dominance::Dominates(_));
        if args.json {
            let line = DominatesJson {
                dominates: yes,
                flips: flips.iter().map(|f| flip_json(&p, f)).collect(),
            };
            say!("{}", adjoin::json::to_string(&line)?)?;
        } else {
            let (a, b) = (a.display(), b.display());
            if yes {
                say!("{a} dominates {b}:")?;
                for f in flips {
                    say!(
                        "  {}: {} -> {}",
                        name(&p, f.variable),
                        value_text(&p, f.variable, f.from),
                        value_text(&p, f.variable, f.to)
                    )?;
                }
            } else {
                say!("{a} does not dominate {b}")?;
            }
        }
        return Ok(if yes {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let best = p.optimum();
    if args.json {
        // Written by hand to keep the declaration order.
        let fields: Vec<String> = best
            .iter()
            .enumerate()
            .map(|(i, &c)| {
                let key = serde_json::Value::from(name(&p, i));
                format!("{key}: {}", value_json(&p, i, c))
            })
            .collect();
        say!("{{\"best\": {{{}}}}}", fields.join(", "))?;
    } else {
        for (i, &c) in best.iter().enumerate() {
            say!("{} = {}", name(&p, i), value_text(&p, i, c))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
