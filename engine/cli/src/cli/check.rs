//! `adjoin check`: reads and verifies every record; exit status 1 and the damaged records
//! named (by tree, collection and id) when anything is wrong.

use super::db_arg::{is_damage, DbPath};
use super::render::{count, thousands};
use anyhow::Result;
use clap::Args;
use std::process::ExitCode;

/// Arguments of `adjoin check`.
#[derive(Args)]
pub struct CheckArgs {}

/// Runs `adjoin check`.
pub fn run(_args: CheckArgs, db: &DbPath) -> Result<ExitCode> {
    let db = match db.open_existing() {
        Ok(db) => db,
        // Damage that stops the open is what check is for: report it as found damage.
        Err(e) if is_damage(&e) => {
            warn!("damaged: {}", super::error_line(&e));
            warn!("adjoin: the database cannot be opened; damage found");
            return Ok(ExitCode::from(1));
        }
        Err(e) => return Err(e),
    };
    let report = db.check()?;
    let entries = if report.entries == 1 {
        "entry"
    } else {
        "entries"
    };
    let checked = format!(
        "{} {entries} read ({})",
        thousands(report.entries),
        count(report.ads, "ad")
    );
    if report.is_clean() {
        say!("ok: {checked}, no damage found")?;
        return Ok(ExitCode::SUCCESS);
    }
    for d in &report.damage {
        say!("damaged: {d}")?;
    }
    say!(
        "{checked}: {}",
        count(report.damage.len() as u64, "damaged record")
    )?;
    Ok(ExitCode::from(1))
}
