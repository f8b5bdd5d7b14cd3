//! `adjoin prune`: removes the oldest match records by age or count (the history's retention),
//! optionally appending each to a file as a JSON line first.

use super::db_arg::DbPath;
use adjoin::storage::Retention;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `adjoin prune`.
#[derive(Args)]
pub struct PruneArgs {
    /// Remove the records older than this many days.
    #[arg(long, value_name = "DAYS")]
    older_than_days: Option<f64>,
    /// Keep at most this many records (the newest).
    #[arg(long, value_name = "N")]
    keep: Option<u64>,
    /// Append every record removed to FILE first, one JSON line each (as `matches --json`).
    #[arg(long, value_name = "FILE")]
    export: Option<PathBuf>,
}

/// Runs `adjoin prune`.
pub fn run(args: PruneArgs, db: &DbPath) -> Result<ExitCode> {
    let max_age = match args.older_than_days {
        Some(d) if d.is_finite() && d >= 0.0 => Some((d * 86_400.0).round() as i64),
        Some(d) => bail!("--older-than-days must be a number of days, not {d}"),
        None => None,
    };
    if max_age.is_none() && args.keep.is_none() {
        bail!("say what to keep: --older-than-days DAYS and/or --keep N");
    }
    let retention = Retention {
        max_age,
        max_records: args.keep,
    };
    let db = db.open_existing()?;
    let report = match &args.export {
        Some(path) => {
            let file = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .with_context(|| format!("{}: cannot open for appending", path.display()))?;
            let mut w = std::io::BufWriter::new(file);
            db.prune_matches(&retention, u64::MAX, Some(&mut w as &mut dyn Write))?
        }
        None => db.prune_matches(&retention, u64::MAX, None)?,
    };
    say!(
        "pruned {} match records, {} kept",
        report.pruned,
        report.kept
    )?;
    Ok(ExitCode::SUCCESS)
}
