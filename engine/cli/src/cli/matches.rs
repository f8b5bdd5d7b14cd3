//! `adjoin matches`: the match registrar's records, oldest first, as a listing or as JSON
//! lines — all of them, the last N, one cycle's, or one ad's (the last three without reading
//! the rest of the history).

use super::db_arg::DbPath;
use super::render::{utc_time, Table};
use adjoin::query::print::expr_to_old_string;
use adjoin::query::Expr;
use adjoin::storage::MatchRecord;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `adjoin matches`.
#[derive(Args)]
pub struct MatchesArgs {
    /// Print one match per line as a JSON object.
    #[arg(long)]
    json: bool,
    /// Only the last N matches recorded.
    #[arg(long, value_name = "N", conflicts_with_all = ["cycle", "ad"])]
    last: Option<u64>,
    /// Only the matches of cycle N.
    #[arg(long, value_name = "N", conflicts_with = "ad")]
    cycle: Option<u64>,
    /// Only the matches ad ID of COLLECTION took part in.
    #[arg(long, num_args = 2, value_names = ["COLLECTION", "ID"])]
    ad: Option<Vec<String>>,
}

/// One match as a JSON object on one line (the library's format, also that of exports).
pub fn to_json(m: &MatchRecord) -> String {
    adjoin::db::match_json(m)
}

/// One match as a heading line and a line per member.
pub fn to_text(m: &MatchRecord) -> String {
    let mut out = format!("match {} (cycle {}, {})\n", m.id, m.cycle, utc_time(m.time));
    let mut t = Table::aligned("llll");
    for mem in &m.members {
        let rank = mem
            .rank
            .as_ref()
            .map(|r| format!("rank {}", expr_to_old_string(&Expr::lit(r.clone()))))
            .unwrap_or_default();
        let consumed = if mem.consumed { "consumed" } else { "" };
        t.row([mem.collection.as_str(), mem.id.as_str(), &rank, consumed]);
    }
    out.push_str(&t.render(2));
    out
}

/// Runs `adjoin matches`.
pub fn run(args: MatchesArgs, db: &DbPath) -> Result<ExitCode> {
    let db = db.open_existing()?;
    let matches = match (&args.last, &args.cycle, args.ad.as_deref()) {
        (Some(n), _, _) => db.recent_matches(*n)?,
        (_, Some(c), _) => db.matches_of_cycle(*c)?,
        (_, _, Some([coll, id])) => db.matches_of_ad(coll, id)?,
        _ => db.matches()?,
    };
    if let (true, Some([coll, _])) = (matches.is_empty(), args.ad.as_deref()) {
        // Nothing recorded for an ad of a collection the database never had: a typo, said as
        // `query` says it (a collection emptied since still has its records shown).
        if let Err(e) = super::query::require_collection(&db, coll) {
            warn!("adjoin: {e}");
            return Ok(ExitCode::from(1));
        }
    }
    let mut out = super::stdout();
    if matches.is_empty() && !args.json {
        writeln!(out, "no matches recorded")?;
    }
    for m in &matches {
        if args.json {
            writeln!(out, "{}", to_json(m))?;
        } else {
            write!(out, "{}", to_text(m))?;
        }
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin::query::Value;
    use adjoin::storage::MatchMember;

    /// A gang's record: a job, its machine and license, the job ranked.
    fn gang() -> MatchRecord {
        let members = [
            ("jobs", "s#1.0#5", Some(Value::Real(1.5))),
            ("machines", "slot1@h", None),
            ("licenses", "lic-7", Some(Value::Int(2))),
        ];
        MatchRecord {
            id: 7,
            time: 1_417_808_219,
            cycle: 2,
            members: members
                .into_iter()
                .map(|(c, id, rank)| MatchMember {
                    collection: c.into(),
                    id: id.into(),
                    rank,
                    consumed: c != "jobs",
                })
                .collect(),
        }
    }

    #[test]
    fn listings() {
        assert_eq!(
            to_text(&gang()),
            "match 7 (cycle 2, 2014-12-05T19:36:59Z)\n  \
             jobs      s#1.0#5  rank 1.5\n  \
             machines  slot1@h            consumed\n  \
             licenses  lic-7    rank 2    consumed\n"
        );
    }
}
