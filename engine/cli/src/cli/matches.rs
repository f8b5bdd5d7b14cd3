//! `adjoin matches`: the match registrar's records, oldest first, as a listing or as JSON
//! lines.

use super::db_arg::DbPath;
use super::render::{utc_time, Table};
use adjoin::query::print::expr_to_old_string;
use adjoin::query::{Expr, Value};
use adjoin::storage::MatchRecord;
use anyhow::Result;
use clap::Args;
use serde::Serialize;
use serde_json::json;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `adjoin matches`.
#[derive(Args)]
pub struct MatchesArgs {
    /// Print one match per line as a JSON object.
    #[arg(long)]
    json: bool,
}

/// A rank as JSON: numbers and booleans as such, `undefined` as null, anything else as its
/// ClassAd text.
fn rank_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Int(i) => json!(i),
        Value::Real(r) if r.is_finite() => json!(r),
        Value::Bool(b) => json!(b),
        Value::Undefined => serde_json::Value::Null,
        other => json!(other.to_string()),
    }
}

/// A match as `--json` prints it (fields in this order).
#[derive(Serialize)]
struct JsonMatch<'m> {
    id: u64,
    time: i64,
    cycle: u64,
    members: Vec<JsonMember<'m>>,
}

/// A match member as `--json` prints it.
#[derive(Serialize)]
struct JsonMember<'m> {
    collection: &'m str,
    id: &'m str,
    rank: serde_json::Value,
    consumed: bool,
}

/// One match as a JSON object on one line.
pub fn to_json(m: &MatchRecord) -> String {
    let j = JsonMatch {
        id: m.id,
        time: m.time,
        cycle: m.cycle,
        members: m
            .members
            .iter()
            .map(|mem| JsonMember {
                collection: &mem.collection,
                id: &mem.id,
                rank: mem.rank.as_ref().map_or(serde_json::Value::Null, rank_json),
                consumed: mem.consumed,
            })
            .collect(),
    };
    // Serializing plain strings and numbers cannot fail.
    serde_json::to_string(&j).unwrap_or_default()
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
    let matches = db.matches()?;
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
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
    use adjoin::storage::MatchMember;

    fn record() -> MatchRecord {
        let member = |c: &str, id: &str, rank: Option<Value>, consumed| MatchMember {
            collection: c.into(),
            id: id.into(),
            rank,
            consumed,
        };
        MatchRecord {
            id: 7,
            time: 1_417_808_219,
            cycle: 2,
            members: vec![
                member("jobs", "s#1.0#5", Some(Value::Real(1.5)), false),
                member("machines", "slot1@h", None, true),
            ],
        }
    }

    #[test]
    fn listings() {
        assert_eq!(
            to_text(&record()),
            "match 7 (cycle 2, 2014-12-05T19:36:59Z)\n  \
             jobs      s#1.0#5  rank 1.5\n  \
             machines  slot1@h            consumed\n"
        );
        assert_eq!(
            to_json(&record()),
            r#"{"id":7,"time":1417808219,"cycle":2,"members":[{"collection":"jobs","id":"s#1.0#5","rank":1.5,"consumed":false},{"collection":"machines","id":"slot1@h","rank":null,"consumed":true}]}"#
        );
    }

    #[test]
    fn ranks_as_json() {
        for (v, want) in [
            (Value::Int(3), "3"),
            (Value::Real(0.25), "0.25"),
            (Value::Real(f64::NAN), "\"real(\\\"NaN\\\")\""),
            (Value::Bool(true), "true"),
            (Value::Undefined, "null"),
            (Value::str("x"), "\"\\\"x\\\"\""),
        ] {
            assert_eq!(rank_json(&v).to_string(), want, "{v:?}");
        }
    }
}
