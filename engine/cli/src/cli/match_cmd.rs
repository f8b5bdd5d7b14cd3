//! `adjoin match`: one matchmaking cycle (requests against offers, by priority and docking
//! vector), consuming the matched ads and recording the matches unless `--dry-run`.

use super::db_arg::DbPath;
use super::query::require_collection;
use super::render;
use adjoin::cycle::{self, CycleMatch, CycleOptions, CycleReport};
use adjoin::query::{parse, Expr, Value};
use anyhow::{anyhow, bail, Result};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `adjoin match`.
#[derive(Args)]
pub struct MatchArgs {
    /// The collection of requests (e.g. jobs).
    #[arg(long, value_name = "COLL")]
    requests: String,
    /// The collection of offers (e.g. machines).
    #[arg(long, value_name = "COLL")]
    offers: String,
    /// Serve requests in descending order of this expression, evaluated in each request
    /// (non-numbers last, ties in load order) [default: load order].
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    order_by: Option<String>,
    /// A component of the docking vector, reading `request.X` and `offer.X` (repeatable;
    /// replaces the default [request Rank, offer Rank]).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    dock: Vec<String>,
    /// Decide the matches but consume and record nothing.
    #[arg(long)]
    dry_run: bool,
    /// Evaluate every pair instead of using the index.
    #[arg(long)]
    naive: bool,
    /// Consume partitionable offers (`PartitionableSlot = true`) whole, as static ones,
    /// instead of carving each match's share (`RequestCpus`, `RequestMemory`,
    /// `RequestDisk`, or the offer's `ConsumptionCpus`… policy) out of them.
    #[arg(long)]
    whole_slots: bool,
    /// One JSON object per match, then a summary object.
    #[arg(long)]
    json: bool,
}

/// Parses an expression given on the command line as `what`.
pub(super) fn expr(what: &str, text: &str) -> Result<Expr> {
    parse::expr(text).map_err(|e| anyhow!(render::parse_error(what, text, &e)))
}

/// A vector component as JSON (components are numbers).
fn number_json(v: &Value) -> serde_json::Value {
    match v {
        Value::Int(i) => serde_json::json!(i),
        Value::Real(r) if r.is_finite() => serde_json::json!(r),
        _ => serde_json::Value::Null,
    }
}

/// A vector as text, `[a, b]`.
fn vector_text(v: &[Value]) -> String {
    let parts: Vec<String> = v.iter().map(|c| number_json(c).to_string()).collect();
    format!("[{}]", parts.join(", "))
}

/// One match's line: `{"request": …, "offer": …, "vector": […]}` with `json`, else
/// `request -> offer [vector]`.
fn match_line(m: &CycleMatch, json: bool) -> Result<String> {
    if json {
        return Ok(format!(
            "{{\"request\": {}, \"offer\": {}, \"vector\": {}}}\n",
            serde_json::to_string(&m.request)?,
            serde_json::to_string(&m.offer)?,
            vector_text(&m.vector)
        ));
    }
    Ok(format!(
        "{} -> {} {}\n",
        m.request,
        m.offer,
        vector_text(&m.vector)
    ))
}

/// How a summary ends: the cycle's number, or that a dry run wrote nothing.
pub(super) fn cycle_note(dry_run: bool, cycle: u64) -> String {
    if dry_run {
        "dry run, nothing written".to_owned()
    } else {
        format!("cycle {cycle}")
    }
}

/// The JSON summary object of a cycle (bilateral or gang): `requests`, `matched`, `seconds`,
/// `probes`, `evaluations` in the issues' order and spacing, then the cycle's own `last` field.
pub(super) fn summary_json(
    [requests, matched]: [u64; 2],
    seconds: f64,
    [probes, evaluations]: [u64; 2],
    last: &str,
) -> String {
    format!(
        "{{\"summary\": {{\"requests\": {requests}, \"matched\": {matched}, \"seconds\": {}, \"probes\": {probes}, \"evaluations\": {evaluations}, {last}}}}}\n",
        serde_json::json!(seconds),
    )
}

/// The summary line, as JSON or text.
fn summary_line(r: &CycleReport, json: bool, dry_run: bool) -> String {
    if json {
        let counts = [r.requests, r.matched].map(|n| n as u64);
        return summary_json(
            counts,
            r.seconds,
            [r.probes, r.evaluations],
            &format!("\"clusters\": {}", r.clusters),
        );
    }
    let what = cycle_note(dry_run, r.cycle);
    format!(
        "{} requests, {} matched ({} matches) in {:.3} s; {} probes, {} evaluations, {} clusters; {}\n",
        r.requests,
        r.matched,
        r.matches.len(),
        r.seconds,
        r.probes,
        r.evaluations,
        r.clusters,
        what
    )
}

/// A cycle's `--order-by` and `--dock` expressions, parsed (errors name the flag).
pub(super) fn ordering(
    order_by: Option<&str>,
    dock: &[String],
) -> Result<(Option<Expr>, Vec<Expr>)> {
    let order_by = order_by.map(|t| expr("--order-by", t)).transpose()?;
    let dock = dock
        .iter()
        .map(|t| expr("--dock", t))
        .collect::<Result<Vec<_>>>()?;
    Ok((order_by, dock))
}

/// Runs `adjoin match`.
pub fn run(args: MatchArgs, db: &DbPath) -> Result<ExitCode> {
    let (order_by, dock) = ordering(args.order_by.as_deref(), &args.dock)?;
    for (text, e) in args.dock.iter().zip(&dock) {
        // A name nothing binds is undefined in every vector: the cycle would discard every
        // candidate and report "0 matched" for a typo.
        let unknown = adjoin::cycle::unknown_dock_names(e);
        if !unknown.is_empty() {
            bail!(
                "--dock {text}: reads {}, which is neither request.X nor offer.X (nothing \
                 else is bound in a docking vector)",
                unknown.join(", ")
            );
        }
    }
    let db = db.open_existing()?;
    for c in [&args.requests, &args.offers] {
        if let Err(e) = require_collection(&db, c) {
            warn!("adjoin: {e}");
            return Ok(ExitCode::from(1));
        }
    }
    let opts = CycleOptions {
        requests: args.requests,
        offers: args.offers,
        order_by,
        dock,
        dry_run: args.dry_run,
        naive: args.naive,
        whole_slots: args.whole_slots,
        ..CycleOptions::default()
    };
    let report = cycle::run(&db, &opts)?;
    for e in &report.damaged {
        warn!("adjoin: {e}");
    }
    // A request whose Preferences are malformed is left unmatched: say which and why.
    for e in &report.bad_preferences {
        warn!("adjoin: {e}");
    }
    let mut out = super::stdout();
    for m in &report.matches {
        out.write_all(match_line(m, args.json)?.as_bytes())?;
    }
    out.write_all(summary_line(&report, args.json, args.dry_run).as_bytes())?;
    out.flush()?;
    Ok(
        if report.damaged.is_empty() && report.bad_preferences.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(request: &str, offer: &str, vector: Vec<Value>) -> CycleMatch {
        CycleMatch {
            request: request.into(),
            offer: offer.into(),
            vector,
            record: None,
        }
    }

    #[test]
    fn match_lines() {
        for (mm, json, want) in [
            (
                m("j1", "m\"2", vec![Value::Int(3), Value::Real(0.5)]),
                true,
                "{\"request\": \"j1\", \"offer\": \"m\\\"2\", \"vector\": [3, 0.5]}\n",
            ),
            (m("j1", "m2", vec![]), false, "j1 -> m2 []\n"),
            (m("j", "m", vec![Value::Int(-1)]), false, "j -> m [-1]\n"),
        ] {
            assert_eq!(match_line(&mm, json).expect("line"), want);
        }
    }

    #[test]
    fn summaries() {
        let r = CycleReport {
            cycle: 4,
            requests: 10,
            matched: 7,
            seconds: 0.25,
            probes: 30,
            evaluations: 12,
            clusters: 10,
            matches: vec![m("a", "b", vec![])],
            ..CycleReport::default()
        };
        for (json, dry, want) in [
            (
                true,
                false,
                "{\"summary\": {\"requests\": 10, \"matched\": 7, \"seconds\": 0.25, \"probes\": 30, \"evaluations\": 12, \"clusters\": 10}}\n",
            ),
            (
                false,
                false,
                "10 requests, 7 matched (1 matches) in 0.250 s; 30 probes, 12 evaluations, 10 clusters; cycle 4\n",
            ),
            (
                false,
                true,
                "10 requests, 7 matched (1 matches) in 0.250 s; 30 probes, 12 evaluations, 10 clusters; dry run, nothing written\n",
            ),
        ] {
            assert_eq!(summary_line(&r, json, dry), want);
        }
    }
}
