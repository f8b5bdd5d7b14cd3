//! `adjoin maintain`: removes what a steady load leaves behind — expired ads, lapsed tombstones
//! with the dead records of consumed ads — in small steps (the match history's retention is
//! `adjoin prune`).

use super::db_arg::DbPath;
use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

/// Arguments of `adjoin maintain`.
#[derive(Args)]
pub struct MaintainArgs {
    /// Remove at most this many entries (run again to go on).
    #[arg(long, value_name = "N", default_value_t = u64::MAX)]
    budget: u64,
}

/// Runs `adjoin maintain`.
pub fn run(args: MaintainArgs, db: &DbPath) -> Result<ExitCode> {
    let db = db.open_existing()?;
    let r = db.maintain(args.budget)?;
    say!(
        "purged {} expired ads and {} lapsed tombstones{}",
        r.ads,
        r.tombstones,
        if r.done { "" } else { " (more due: run again)" }
    )?;
    Ok(ExitCode::SUCCESS)
}
