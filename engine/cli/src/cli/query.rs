//! `adjoin query`: the live ads of a collection for which a constraint, evaluated with the
//! stored ad as MY, is true (like `condor_status -constraint`), printed long, as JSON lines,
//! projected (`--attrs`, `--af`), sorted, limited, totalled or counted; answered through the collection's spatial index (`--explain` tells
//! what it did).

use super::db_arg::DbPath;
use super::listing;
use super::render::{self, project, write_ad, AdStyle};
use adjoin::query::eval::EvalOptions;
use adjoin::query::print::json::write_ad_json;
use adjoin::query::{parse, ClassAd, Expr, Value};
use adjoin::Db;
use anyhow::{bail, Result};
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// How `--json` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum JsonForm {
    /// One ad per line.
    Lines,
    /// One JSON array of pretty-printed ads, as `condor_status -json` prints.
    Array,
}

/// Arguments of `adjoin query`.
#[derive(Args)]
pub struct QueryArgs {
    /// The collection to query.
    #[arg(long, value_name = "COLL")]
    from: String,
    /// Print only the number of ads selected (at most `--limit`). The number comes from the
    /// collection's index (restored from its snapshot when current), which reads only the
    /// ads it must evaluate: on a damaged store it can count ads that `adjoin check` cannot
    /// read.
    #[arg(long, conflicts_with_all = ["json", "attrs", "af", "total"])]
    count: bool,
    /// Print the ads in HTCondor's JSON form: one ad per line (`--json`, `--json=lines`), or
    /// one JSON array as `condor_status -json` prints (`--json=array`).
    #[arg(long, value_name = "FORM", num_args = 0..=1, require_equals = true,
          default_missing_value = "lines")]
    json: Option<JsonForm>,
    /// Print each ad in new syntax on one line (`[ Name = "slot1"; Memory = 1024 ]`), as
    /// `adjoin load` and HTCondor's new-syntax readers read it back.
    #[arg(long, conflicts_with_all = ["json", "af", "total", "count"])]
    new: bool,
    /// Print only these attributes of each ad, evaluated in it, in this order (`Name,Memory`
    /// or `'Name, Memory'`); an ad with none of them is not printed, and a name no ad
    /// printed has is warned about on stderr.
    #[arg(long, value_name = "A,B")]
    attrs: Vec<String>,
    /// Print one line per ad: these expressions (usually attribute names) evaluated in the
    /// ad, separated by one space, strings unquoted, `undefined` for a missing attribute (as
    /// `condor_status -af`). Takes every argument after it: put the constraint before.
    #[arg(long = "af", value_name = "EXPR", num_args = 1.., conflicts_with_all = ["json", "attrs", "total"])]
    af: Vec<String>,
    /// Order the ads by this expression evaluated in each, ascending (numbers by value,
    /// strings ignoring case, `undefined` last; ties keep load order). Repeat for
    /// further keys.
    #[arg(long, value_name = "EXPR", allow_hyphen_values = true)]
    sort: Vec<String>,
    /// Print at most N ads (the first N after `--sort`).
    #[arg(long, value_name = "N")]
    limit: Option<usize>,
    /// Print counts instead of ads, as `condor_status -total`: one row per `Arch/OpSys`, the
    /// ads per `State` (Owner, Claimed, Unclaimed, Matched, Preempting, Backfill, Drained;
    /// an ad in no such state counts in Total only), and a row of totals.
    #[arg(long, conflicts_with_all = ["json", "attrs"])]
    total: bool,
    /// Print what the spatial index did (dimensions probed, candidates, how many evaluation
    /// confirmed) to stderr after the results.
    #[arg(long)]
    explain: bool,
    /// The constraint; an ad is selected when it evaluates to true [default: true]. It may
    /// begin with a minus.
    #[arg(allow_hyphen_values = true)]
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

/// Parses each of `texts` as an expression (`what` names them in errors).
fn parse_all(what: &str, texts: &[String]) -> Result<Vec<Expr>> {
    texts
        .iter()
        .map(|t| parse::expr(t).map_err(|e| anyhow::anyhow!(render::parse_error(what, t, &e))))
        .collect()
}

/// Runs `adjoin query`.
pub fn run(args: QueryArgs, db: &DbPath) -> Result<ExitCode> {
    let constraint = parse_constraint(args.constraint.as_deref())?;
    let af = parse_all("--af expression", &args.af)?;
    let sort = parse_all("--sort expression", &args.sort)?;
    let attrs = listing::attr_names(&args.attrs);
    if attrs.is_empty() && !args.attrs.is_empty() {
        bail!("--attrs: no attribute names given (a comma-separated list, e.g. Name,Memory)");
    }
    let eval = EvalOptions::default();
    let db = db.open_existing()?;
    if let Err(e) = require_collection(&db, &args.from) {
        warn!("adjoin: {e}");
        return Ok(ExitCode::from(1));
    }
    let answer = db.indexed_query(&args.from, &constraint)?;
    for e in &answer.damaged {
        warn!("adjoin: {e}");
    }
    let mut damaged = answer.damaged.len() as u64;
    let explain = args.explain.then_some(answer.explain);
    let mut ids = answer.ids;
    let mut out = super::stdout();
    if sort.is_empty() {
        // Load order: the first N ids are the ads to print.
        if let Some(n) = args.limit {
            ids.truncate(n);
        }
    }
    if args.count {
        writeln!(out, "{}", ids.len())?;
    } else {
        let mut ads = Vec::new();
        for ad in db.read_ids(&args.from, ids) {
            match ad {
                Ok(ad) => ads.push(ad.ad),
                Err(e) => {
                    warn!("adjoin: {e}");
                    damaged += 1;
                }
            }
        }
        listing::sort_ads(&mut ads, &sort, &eval);
        if let Some(n) = args.limit {
            ads.truncate(n);
        }
        let printer = Printer {
            af: &af,
            attrs: &attrs,
            json: args.json,
            new: args.new,
            total: args.total,
            eval: &eval,
        };
        printer.print(&mut out, &ads)?;
    }
    out.flush()?;
    if let Some(ex) = explain {
        warn!("{ex}");
    }
    Ok(if damaged > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// How the selected ads are printed.
struct Printer<'a> {
    af: &'a [Expr],
    attrs: &'a [String],
    json: Option<JsonForm>,
    new: bool,
    total: bool,
    eval: &'a EvalOptions,
}

impl Printer<'_> {
    /// Prints `ads` to `out`; `--attrs` names no printed ad has are warned about on stderr.
    fn print(&self, out: &mut impl Write, ads: &[ClassAd]) -> Result<()> {
        if self.total {
            let mut t = listing::Totals::default();
            for ad in ads {
                t.add(ad, self.eval);
            }
            out.write_all(t.render().as_bytes())?;
            return Ok(());
        }
        let mut seen = vec![false; self.attrs.len()];
        let mut buf = String::new();
        if self.json == Some(JsonForm::Array) {
            out.write_all(b"[\n")?;
        }
        for (i, ad) in ads.iter().enumerate() {
            buf.clear();
            for (s, a) in seen.iter_mut().zip(self.attrs) {
                *s |= ad.contains(a);
            }
            if !self.af.is_empty() {
                buf.push_str(&listing::af_line(ad, self.af, self.eval));
                buf.push('\n');
            } else if self.json.is_some() || self.new {
                let shown;
                let ad = if self.attrs.is_empty() {
                    ad
                } else {
                    shown = project(ad, self.attrs);
                    &shown
                };
                match self.json {
                    Some(JsonForm::Lines) => write_ad(&mut buf, ad, AdStyle::JsonLine),
                    Some(JsonForm::Array) => {
                        if i > 0 {
                            buf.push_str(",\n");
                        }
                        write_ad_json(&mut buf, ad, false);
                    }
                    None => write_ad(&mut buf, ad, AdStyle::NewLine),
                }
            } else if !self.attrs.is_empty() {
                let block = listing::attrs_block(ad, self.attrs, self.eval);
                if !block.is_empty() {
                    buf.push_str(&block);
                    buf.push('\n');
                }
            } else {
                write_ad(&mut buf, ad, AdStyle::Old);
            }
            out.write_all(buf.as_bytes())?;
        }
        if self.json == Some(JsonForm::Array) {
            out.write_all(if ads.is_empty() { b"]\n" } else { b"\n]\n" })?;
        }
        for (s, a) in seen.iter().zip(self.attrs) {
            if !s && !ads.is_empty() {
                warn!("adjoin: warning: no ad printed has an attribute {a}");
            }
        }
        Ok(())
    }
}
