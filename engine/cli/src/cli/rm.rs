//! `adjoin rm`: removes ads by id, durably; a missing id is reported and makes the exit status
//! 1 (the others are still removed).

use super::db_arg::DbPath;
use super::query::require_collection;
use super::render::count;
use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

/// Arguments of `adjoin rm`.
#[derive(Args)]
pub struct RmArgs {
    /// The collection.
    #[arg(long, value_name = "COLL")]
    from: String,
    /// The ids.
    #[arg(required = true, value_name = "ID")]
    ids: Vec<String>,
}

/// Runs `adjoin rm`.
pub fn run(args: RmArgs, db: &DbPath) -> Result<ExitCode> {
    let db = db.open_existing()?;
    if let Err(e) = require_collection(&db, &args.from) {
        warn!("adjoin: {e}");
        return Ok(ExitCode::from(1));
    }
    let mut removed = 0u64;
    let mut missing = 0u64;
    for id in &args.ids {
        if db.remove(&args.from, id)? {
            removed += 1;
        } else {
            warn!("adjoin: no ad {id} in {}", args.from);
            missing += 1;
        }
    }
    say!("removed {} from {}", count(removed, "ad"), args.from)?;
    Ok(if missing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
