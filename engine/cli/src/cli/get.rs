//! `adjoin get`: ads by id, in old syntax or as JSON lines; a missing id is reported (a
//! consumed one with the match that consumed it) and makes the exit status 1.

use super::db_arg::DbPath;
use super::query::require_collection;
use super::render::{utc_time, write_ad, AdStyle};
use adjoin::storage::Tombstone;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `adjoin get`.
#[derive(Args)]
pub struct GetArgs {
    /// The collection.
    #[arg(long, value_name = "COLL")]
    from: String,
    /// Print one ad per line in HTCondor's JSON form.
    #[arg(long)]
    json: bool,
    /// The ids.
    #[arg(required = true, value_name = "ID")]
    ids: Vec<String>,
}

/// What `get` says of a consumed id: which match consumed it, and when.
pub fn consumed_line(coll: &str, id: &str, ts: &Tombstone) -> String {
    let by = match ts.match_id {
        Some(m) => format!("by match {m} (`adjoin matches`)"),
        None => "without a match record".to_owned(),
    };
    format!(
        "ad {id} in {coll} was consumed {by} at {}; its next advertisement will be stored (one older than the consumed ad is refused as stale until {})",
        utc_time(ts.consumed_at),
        utc_time(ts.until)
    )
}

/// Runs `adjoin get`.
pub fn run(args: GetArgs, db: &DbPath) -> Result<ExitCode> {
    let db = db.open_existing()?;
    if let Err(e) = require_collection(&db, &args.from) {
        warn!("adjoin: {e}");
        return Ok(ExitCode::from(1));
    }
    let style = AdStyle::from_json_flag(args.json);
    let mut out = super::stdout_lines();
    let mut missing = 0usize;
    let mut buf = String::new();
    for id in &args.ids {
        match db.get(&args.from, id)? {
            Some(ad) => {
                buf.clear();
                write_ad(&mut buf, &ad.ad, style);
                out.write_all(buf.as_bytes())?;
            }
            None => {
                out.flush()?;
                match db.tombstone(&args.from, id)? {
                    Some(ts) => warn!("adjoin: {}", consumed_line(&args.from, id, &ts)),
                    None => warn!("adjoin: no ad {id} in {}", args.from),
                }
                missing += 1;
            }
        }
    }
    out.flush()?;
    Ok(if missing > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
