//! `adjoin gang`: one gang cycle (each request given a gang of offers from one or more
//! collections, all or nothing, consumed whole with one match record unless `--dry-run`), or,
//! with `--ad FILE`, the gang one request would get now (nothing consumed).

use super::candidates::read_ad;
use super::db_arg::DbPath;
use super::match_cmd::{cycle_note, ordering, summary_json};
use super::query::require_collection;
use adjoin::gang::{Algorithm, Gang, GangOptions, GangReport};
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `adjoin gang`.
#[derive(Args)]
pub struct GangArgs {
    /// The collection of requests (the gangs' roots).
    #[arg(
        long,
        value_name = "COLL",
        required_unless_present = "ad",
        conflicts_with = "ad"
    )]
    requests: Option<String>,
    /// A file holding one request to find a gang for, consuming nothing (`-` for stdin).
    #[arg(long, value_name = "FILE")]
    ad: Option<PathBuf>,
    /// An offer collection (repeatable; candidates in this order, then load order).
    #[arg(long, value_name = "COLL", required = true)]
    offers: Vec<String>,
    /// The gangmatching algorithm.
    #[arg(long, value_name = "ALG", default_value = "dyn", value_parser = ["naive", "lr", "dyn", "dyns", "dynsr"])]
    algorithm: String,
    /// Serve requests in descending order of this expression, evaluated in each request
    /// (non-numbers last, ties in load order) [default: load order].
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    order_by: Option<String>,
    /// A component of the docking vector ranking each port's candidates, reading `request.X`
    /// (the port's record) and `offer.X` (the candidate port's) in the gang with the candidate
    /// docked (repeatable; replaces the ports' Ranks).
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    dock: Vec<String>,
    /// Decide the gangs but consume and record nothing.
    #[arg(long)]
    dry_run: bool,
    /// Work units the search may spend per request (one per candidate tried, per expression
    /// node evaluated, and per probe a cost growing with its window); a request that reaches
    /// it is reported as given up (on stderr and in the summary), never as gangless [default:
    /// 100000000, a few seconds at most].
    #[arg(long, value_name = "N")]
    search_bound: Option<u64>,
    /// One JSON object per gang, then a summary object.
    #[arg(long)]
    json: bool,
}

/// One gang as a JSON line: `{"request": …, "gang": [{"path", "collection", "offer",
/// "port"}, …]}`.
fn gang_json(g: &Gang) -> String {
    let q = |s: &str| serde_json::Value::from(s).to_string();
    let members: Vec<String> = g
        .members
        .iter()
        .map(|m| {
            format!(
                "{{\"path\": {}, \"collection\": {}, \"offer\": {}, \"port\": {}}}",
                q(&m.path),
                q(&m.collection),
                q(&m.offer),
                m.port
            )
        })
        .collect();
    format!(
        "{{\"request\": {}, \"gang\": [{}]}}\n",
        q(&g.request),
        members.join(", ")
    )
}

/// One gang as an indented tree: the request, then each offer under the port it fills.
fn gang_text(g: &Gang) -> String {
    let mut s = format!("{}\n", g.request);
    for m in &g.members {
        let depth = m.path.matches('/').count() + 1;
        let label = m.path.rsplit('/').next().unwrap_or("");
        s.push_str(&format!(
            "{}{label}: {}/{} (port {})\n",
            "  ".repeat(depth),
            m.collection,
            m.offer,
            m.port
        ));
    }
    s
}

/// The summary, as JSON or text.
fn summary(r: &GangReport, json: bool, dry_run: bool) -> String {
    if json {
        let counts = [r.requests, r.matched].map(|n| n as u64);
        let algorithm = format!("\"algorithm\": \"{}\"", r.algorithm);
        return summary_json(counts, r.seconds, [r.probes, r.evaluations], &algorithm);
    }
    let what = cycle_note(dry_run, r.cycle);
    let gave_up = if r.gave_up.is_empty() {
        String::new()
    } else {
        format!(", {} gave up", r.gave_up.len())
    };
    format!(
        "{} requests, {} given gangs{gave_up} in {:.3} s ({}); {} probes, {} evaluations; {}\n",
        r.requests, r.matched, r.seconds, r.algorithm, r.probes, r.evaluations, what
    )
}

/// Runs `adjoin gang`.
pub fn run(args: GangArgs, db: &DbPath) -> Result<ExitCode> {
    let (order_by, dock) = ordering(args.order_by.as_deref(), &args.dock)?;
    let algorithm: Algorithm = args.algorithm.parse().map_err(anyhow::Error::msg)?;
    let request = args.ad.as_deref().map(read_ad).transpose()?;
    let db = db.open_existing()?;
    for c in args.requests.iter().chain(&args.offers) {
        if let Err(e) = require_collection(&db, c) {
            warn!("adjoin: {e}");
            return Ok(ExitCode::from(1));
        }
    }
    let opts = GangOptions {
        requests: args.requests.clone().unwrap_or_default(),
        offers: args.offers.clone(),
        algorithm,
        order_by,
        dock,
        dry_run: args.dry_run || request.is_some(),
        search_bound: args.search_bound,
        ..GangOptions::default()
    };
    let mut report = match &request {
        Some(ad) => db.gang_query(ad, &opts)?,
        None => db.gang_cycle(&opts)?,
    };
    // A request read from a file is named as `analyze --ad` names it: its `Name` or
    // `GlobalJobId`, else the file.
    if let (Some(path), Some(ad)) = (&args.ad, &request) {
        let id = match adjoin::analyze::ad_id(ad) {
            id if id == "-" => path.display().to_string(),
            id => id,
        };
        for g in &mut report.gangs {
            g.request = id.clone();
        }
    }
    for e in &report.damaged {
        warn!("adjoin: {e}");
    }
    for (coll, id, e) in &report.bad {
        warn!("adjoin: {coll}/{id}: {e}");
    }
    for id in &report.gave_up {
        warn!(
            "adjoin: {id}: gave up at the search bound; it may have a gang (not proven without one)"
        );
    }
    let mut out = super::stdout();
    for g in &report.gangs {
        let line = if args.json {
            gang_json(g)
        } else {
            gang_text(g)
        };
        out.write_all(line.as_bytes())?;
    }
    out.write_all(summary(&report, args.json, opts.dry_run).as_bytes())?;
    out.flush()?;
    Ok(if report.damaged.is_empty() && report.bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin::gang::GangMember;

    fn gang() -> Gang {
        let m = |path: &str, c: &str, o: &str, port| GangMember {
            path: path.into(),
            collection: c.into(),
            offer: o.into(),
            port,
        };
        Gang {
            request: "job\"1".into(),
            members: vec![
                m("cpu", "machines", "m1", 0),
                m("cpu/lic", "licenses", "l2", 1),
                m("disk", "disks", "d", 0),
            ],
            record: None,
        }
    }

    #[test]
    fn lines() {
        assert_eq!(
            gang_json(&gang()),
            "{\"request\": \"job\\\"1\", \"gang\": [{\"path\": \"cpu\", \"collection\": \"machines\", \"offer\": \"m1\", \"port\": 0}, \
             {\"path\": \"cpu/lic\", \"collection\": \"licenses\", \"offer\": \"l2\", \"port\": 1}, \
             {\"path\": \"disk\", \"collection\": \"disks\", \"offer\": \"d\", \"port\": 0}]}\n"
        );
        assert_eq!(
            gang_text(&gang()),
            "job\"1\n  cpu: machines/m1 (port 0)\n    lic: licenses/l2 (port 1)\n  disk: disks/d (port 0)\n"
        );
        let r = GangReport {
            requests: 3,
            matched: 2,
            seconds: 0.5,
            probes: 7,
            evaluations: 9,
            cycle: 2,
            ..GangReport::default()
        };
        assert_eq!(
            summary(&r, true, false),
            "{\"summary\": {\"requests\": 3, \"matched\": 2, \"seconds\": 0.5, \"probes\": 7, \"evaluations\": 9, \"algorithm\": \"dyn\"}}\n"
        );
        assert_eq!(
            summary(&r, false, false),
            "3 requests, 2 given gangs in 0.500 s (dyn); 7 probes, 9 evaluations; cycle 2\n"
        );
        let r = GangReport {
            gave_up: vec!["job9".into()],
            ..r
        };
        assert_eq!(
            summary(&r, false, false),
            "3 requests, 2 given gangs, 1 gave up in 0.500 s (dyn); 7 probes, 9 evaluations; cycle 2\n"
        );
    }
}
