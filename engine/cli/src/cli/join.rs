//! `adjoin join`: every ad of a requests collection against an offers collection, both ways,
//! through the spatial index or, with `--naive`, by nested loops; nothing is consumed.

use super::db_arg::DbPath;
use super::query::require_collection;
use adjoin::collection::Collection;
use adjoin::index::IndexOptions;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `adjoin join`.
#[derive(Args)]
pub struct JoinArgs {
    /// The collection of requests (e.g. jobs).
    #[arg(long, value_name = "COLL")]
    requests: String,
    /// The collection of offers (e.g. machines), the one indexed.
    #[arg(long, value_name = "COLL")]
    offers: String,
    /// Evaluate every pair instead of using the index.
    #[arg(long)]
    naive: bool,
    /// One JSON object per request: `{"request": ID, "offers": [ID, …]}`.
    #[arg(long)]
    json: bool,
}

/// One request's line: `{"request": …, "offers": […]}` with `json` (keys in that order, spaced
/// as the issue shows them; strings escaped by serde_json), else `id: id id …`.
fn line(request: &str, offers: &[&str], json: bool) -> Result<String> {
    if json {
        let mut s = format!(
            "{{\"request\": {}, \"offers\": [",
            serde_json::to_string(request)?
        );
        for (i, o) in offers.iter().enumerate() {
            if i > 0 {
                s.push_str(", ");
            }
            s.push_str(&serde_json::to_string(o)?);
        }
        s.push_str("]}\n");
        return Ok(s);
    }
    let mut s = format!("{request}:");
    for o in offers {
        s.push(' ');
        s.push_str(o);
    }
    s.push('\n');
    Ok(s)
}

/// Runs `adjoin join`.
pub fn run(args: JoinArgs, db: &DbPath) -> Result<ExitCode> {
    let db = db.open_existing()?;
    for c in [&args.requests, &args.offers] {
        if let Err(e) = require_collection(&db, c) {
            warn!("adjoin: {e}");
            return Ok(ExitCode::from(1));
        }
    }
    let mut out = super::stdout();
    if !args.naive {
        // Through the offers' held index (restored from its checkpoint, not built per run).
        let joined = db.join(&args.requests, &args.offers)?;
        for e in &joined.damaged {
            warn!("adjoin: {e}");
        }
        for (request, names) in &joined.rows {
            let names: Vec<&str> = names.iter().map(String::as_str).collect();
            out.write_all(line(request, &names, args.json)?.as_bytes())?;
        }
        out.flush()?;
        return Ok(if joined.damaged.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        });
    }
    let requests = Collection::scan(&db, &args.requests)?;
    let offers = Collection::scan(&db, &args.offers)?;
    for e in requests.damaged.iter().chain(&offers.damaged) {
        warn!("adjoin: {e}");
    }
    let opts = IndexOptions::default();
    let matched = offers.naive_join(&requests.ads, &opts.eval);
    let mut names = Vec::new();
    for (request, ids) in requests.ids.iter().zip(&matched) {
        names.clear();
        names.extend(ids.iter().filter_map(|id| offers.id(id)));
        out.write_all(line(request, &names, args.json)?.as_bytes())?;
    }
    out.flush()?;
    Ok(
        if requests.damaged.is_empty() && offers.damaged.is_empty() {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_in_each_form() {
        for (request, offers, json, want) in [
            ("j1", &["m1", "m2"][..], false, "j1: m1 m2\n"),
            ("j1", &[][..], false, "j1:\n"),
            (
                "j\"1",
                &["m1", "m\u{1}"][..],
                true,
                "{\"request\": \"j\\\"1\", \"offers\": [\"m1\", \"m\\u0001\"]}\n",
            ),
            ("j", &[][..], true, "{\"request\": \"j\", \"offers\": []}\n"),
        ] {
            assert_eq!(line(request, offers, json).expect("line"), want);
        }
    }
}
