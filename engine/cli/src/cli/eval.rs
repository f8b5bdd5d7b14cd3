//! `adjoin eval`: evaluate expressions against optional MY and TARGET ads.

use adjoin::query::eval::{eval_expr, eval_in_match, EvalOptions, MatchAds};
use adjoin::query::parse::{self, Format};
use adjoin::query::print::result_to_htcondor;
use adjoin::query::{ClassAd, Value};
use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `adjoin eval`.
#[derive(Args)]
pub struct EvalArgs {
    /// The ad playing MY (a file in any supported format, `-` for stdin; the first of its
    /// ads, all of which must parse).
    #[arg(long, value_name = "FILE")]
    ad: Option<PathBuf>,
    /// The ad playing TARGET (read as `--ad` is).
    #[arg(long, value_name = "FILE")]
    target: Option<PathBuf>,
    /// Do not look up unscoped names in TARGET when MY lacks them.
    #[arg(long)]
    no_target_fallback: bool,
    /// The expression, or `-` to read one expression per line from stdin. It may begin with a
    /// minus (`adjoin eval -TARGET.LoadAvg`).
    #[arg(allow_hyphen_values = true)]
    expr: String,
}

/// Reads the first ad of `path` (`-` for stdin).
pub fn read_first_ad(path: &Path) -> Result<ClassAd> {
    let text = super::candidates::read_text(path)?;
    let mut ads =
        parse::ads(&text, Format::Auto).map_err(|e| anyhow::anyhow!("{}:{e}", path.display()))?;
    if ads.is_empty() {
        bail!("{}: no ad found", path.display());
    }
    Ok(ads.swap_remove(0))
}

/// Runs `adjoin eval`.
pub fn run(args: EvalArgs) -> Result<ExitCode> {
    let stdin = [args.ad.as_deref(), args.target.as_deref()]
        .into_iter()
        .flatten()
        .filter(|p| p.as_os_str() == "-")
        .count()
        + usize::from(args.expr == "-");
    if stdin > 1 {
        bail!("standard input (`-`) can be read once: for the ad, the target or the expressions");
    }
    let my = match &args.ad {
        Some(p) => read_first_ad(p)?,
        None => ClassAd::new(),
    };
    let target = args.target.as_deref().map(read_first_ad).transpose()?;
    let opts = EvalOptions {
        target_fallback: !args.no_target_fallback,
        ..EvalOptions::default()
    };
    let eval_one = |text: &str| -> std::result::Result<Value, String> {
        let e = parse::expr(text).map_err(|e| e.to_string())?;
        Ok(match &target {
            Some(t) => eval_in_match(&e, MatchAds { my: &my, target: t }, &opts),
            None => eval_expr(&e, &my, &opts),
        })
    };
    let mut out = super::stdout_lines();
    if args.expr == "-" {
        // One answer line per input line. A line that is not UTF-8 is refused, as `load`
        // refuses such an ad (never read with replacement characters), and the exit status
        // is then 1.
        let mut refused = false;
        for (n, line) in std::io::stdin().lock().split(b'\n').enumerate() {
            let mut line = line.context("reading stdin")?;
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            match String::from_utf8(line) {
                // A byte-order mark opening the input is not part of its first expression.
                Ok(text) => match eval_one(if n == 0 {
                    parse::without_bom(&text)
                } else {
                    &text
                }) {
                    Ok(v) => writeln!(out, "{}", result_to_htcondor(&v))?,
                    Err(e) => writeln!(out, "parse error: {e}")?,
                },
                Err(e) => {
                    refused = true;
                    let col = e.utf8_error().valid_up_to() + 1;
                    writeln!(
                        out,
                        "parse error: line {}, column {col}: bytes that are not UTF-8 (the \
                         line is skipped; expressions must be UTF-8)",
                        n + 1
                    )?;
                }
            }
        }
        Ok(if refused {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        })
    } else {
        match eval_one(&args.expr) {
            Ok(v) => {
                writeln!(out, "{}", result_to_htcondor(&v))?;
                Ok(ExitCode::SUCCESS)
            }
            Err(e) => {
                warn!("parse error: {e}");
                Ok(ExitCode::from(1))
            }
        }
    }
}
