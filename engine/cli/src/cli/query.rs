//! `adjoin query`: the live ads of a collection for which a constraint, evaluated with the
//! stored ad as MY, is true (like `condor_status -constraint`), printed long, as JSON lines,
//! projected, or counted; answered through the collection's spatial index (`--explain` tells
//! what it did).

use super::db_arg::DbPath;
use super::render::{self, project, write_ad, AdStyle};
use adjoin::query::{parse, Expr, Value};
use adjoin::Db;
use anyhow::{bail, Result};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `adjoin query`.
#[derive(Args)]
pub struct QueryArgs {
    /// The collection to query.
    #[arg(long, value_name = "COLL")]
    from: String,
    /// Print only the number of ads selected. The number comes from the collection's index
    /// (restored from its snapshot when current), which reads only the ads it must evaluate:
    /// on a damaged store it can count ads that `adjoin check` cannot read.
    #[arg(long, conflicts_with_all = ["json", "attrs"])]
    count: bool,
    /// Print one ad per line in HTCondor's JSON form.
    #[arg(long)]
    json: bool,
    /// Print only these attributes of each ad (in this order).
    #[arg(long, value_name = "A,B", value_delimiter = ',')]
    attrs: Vec<String>,
    /// Print what the spatial index did (dimensions probed, candidates, how many evaluation
    /// confirmed) to stderr after the results.
    #[arg(long)]
    explain: bool,
    /// The constraint; an ad is selected when it evaluates to true [default: true].
    constraint: Option<String>,
}

/// Parses a constraint, rendering a failure with its position and a caret.
pub fn parse_constraint(text: Option<&str>) -> Result<Expr> {
    match text {
        None => Ok(Expr::lit(Value::Bool(true))),
        Some(t) => {
            parse::expr(t).map_err(|e| anyhow::anyhow!(render::parse_error("constraint", t, &e)))
        }
    }
}

/// Fails unless `coll` exists in `db`, listing the ones that do (a typo should not read as
/// "nothing matched").
pub fn require_collection(db: &Db, coll: &str) -> Result<()> {
    let all = db.collections();
    if all.iter().any(|c| c == coll) {
        return Ok(());
    }
    let known = if all.is_empty() {
        "it has none".to_owned()
    } else {
        format!("it has: {}", all.join(", "))
    };
    let at = db
        .path()
        .map_or_else(|| "this database".to_owned(), |p| p.display().to_string());
    bail!("no collection {coll} in {at} ({known})")
}

/// Runs `adjoin query`.
pub fn run(args: QueryArgs, db: &DbPath) -> Result<ExitCode> {
    let constraint = parse_constraint(args.constraint.as_deref())?;
    let db = db.open_existing()?;
    if let Err(e) = require_collection(&db, &args.from) {
        eprintln!("adjoin: {e}");
        return Ok(ExitCode::from(1));
    }
    let style = AdStyle::from_json_flag(args.json);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut n = 0u64;
    let mut damaged = 0u64;
    let mut buf = String::new();
    let mut emit = |ad: &adjoin::query::ClassAd| -> Result<()> {
        n += 1;
        if args.count {
            return Ok(());
        }
        buf.clear();
        if args.attrs.is_empty() {
            write_ad(&mut buf, ad, style);
        } else {
            write_ad(&mut buf, &project(ad, &args.attrs), style);
        }
        out.write_all(buf.as_bytes())?;
        Ok(())
    };
    let answer = db.indexed_query(&args.from, &constraint)?;
    for e in &answer.damaged {
        eprintln!("adjoin: {e}");
    }
    damaged += answer.damaged.len() as u64;
    if args.count {
        n = answer.ids.len() as u64;
    } else {
        for ad in db.read_ids(&args.from, answer.ids) {
            match ad {
                Ok(ad) => emit(&ad.ad)?,
                Err(e) => {
                    eprintln!("adjoin: {e}");
                    damaged += 1;
                }
            }
        }
    }
    let explain = args.explain.then_some(answer.explain);
    if args.count {
        writeln!(out, "{n}")?;
    }
    out.flush()?;
    if let Some(ex) = explain {
        eprintln!("{ex}");
    }
    Ok(if damaged > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
