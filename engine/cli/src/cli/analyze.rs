//! `adjoin analyze`: why a request matches nothing and what would make it match (issue 11):
//! one request against an offer collection, `--reverse` an offer against a request
//! collection, or `--unmatched` every unmatched request of a collection, grouped.

use super::candidates::read_ad;
use super::db_arg::DbPath;
use super::query::require_collection;
use adjoin::analyze::{render_text, AnalyzeOptions, Unmatched};
use adjoin::Db;
use anyhow::{bail, Result};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `adjoin analyze`.
#[derive(Args)]
pub struct AnalyzeArgs {
    /// The offer collection analysed against (with `--unmatched`: the offers).
    #[arg(long, value_name = "COLL")]
    offers: Option<String>,
    /// The request collection (`--reverse`, `--unmatched`).
    #[arg(long, value_name = "COLL")]
    requests: Option<String>,
    /// A file holding the ad to analyse (new or old syntax, JSON, XML; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    ad: Option<PathBuf>,
    /// The id of a stored request to analyse (with `--from`).
    #[arg(long, value_name = "ID")]
    request: Option<String>,
    /// The id of a stored offer to analyse (`--reverse`, with `--from`).
    #[arg(long, value_name = "ID")]
    offer: Option<String>,
    /// The collection holding `--request` / `--offer`.
    #[arg(long, value_name = "COLL")]
    from: Option<String>,
    /// Analyse an offer against a request collection ("why does this slot run nothing").
    #[arg(long, conflicts_with = "unmatched")]
    reverse: bool,
    /// Every request of `--requests` matching no offer of `--offers`, grouped by reason.
    #[arg(long)]
    unmatched: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// Where the analysed ad comes from.
enum Subject {
    File(PathBuf),
    Stored { id: String, from: String },
}

/// The analysed ad: `--ad`, or the stored id with `--from`.
fn subject(
    ad: Option<PathBuf>,
    id: Option<String>,
    from: Option<String>,
    flag: &str,
) -> Result<Subject> {
    match (ad, id, from) {
        (Some(path), None, None) => Ok(Subject::File(path)),
        (None, Some(id), Some(from)) => Ok(Subject::Stored { id, from }),
        (None, Some(_), None) => bail!("--{flag} needs --from COLL"),
        (None, None, _) => bail!("give the ad to analyse: --ad FILE or --{flag} ID --from COLL"),
        _ => bail!("give either --ad FILE or --{flag} ID --from COLL, not both"),
    }
}

/// The flags of `flags` that were given.
fn given(flags: [(bool, &'static str); 2]) -> Vec<&'static str> {
    flags
        .into_iter()
        .filter_map(|(given, flag)| given.then_some(flag))
        .collect()
}

/// Runs `adjoin analyze`.
pub fn run(args: AnalyzeArgs, db: &DbPath) -> Result<ExitCode> {
    let opts = AnalyzeOptions::default();
    let mut out = super::stdout();
    if args.unmatched {
        let (Some(requests), Some(offers)) = (&args.requests, &args.offers) else {
            bail!("--unmatched needs --requests COLL and --offers COLL");
        };
        if args.ad.is_some() || args.request.is_some() || args.offer.is_some() {
            bail!("--unmatched analyses a whole collection: no --ad, --request or --offer");
        }
        let db = db.open_existing()?;
        for c in [requests, offers] {
            if let Err(e) = require_collection(&db, c) {
                warn!("adjoin: {e}");
                return Ok(ExitCode::from(1));
            }
        }
        let u = db.analyze_unmatched(requests, offers, &opts)?;
        if args.json {
            writeln!(out, "{}", adjoin::json::to_string(&u)?)?;
        } else {
            write_unmatched(&mut out, &u)?;
        }
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let (against, subject, names) = if args.reverse {
        let extra = given([
            (args.request.is_some(), "--request"),
            (args.offers.is_some(), "--offers"),
        ]);
        if !extra.is_empty() {
            bail!(
                "--reverse analyses an offer: --requests COLL (--ad FILE | --offer ID --from \
                 COLL), without {}",
                extra.join(" or ")
            );
        }
        let Some(requests) = args.requests.clone() else {
            bail!("--reverse needs --requests COLL");
        };
        (
            requests,
            subject(args.ad, args.offer, args.from, "offer")?,
            ("jobs", "slot"),
        )
    } else {
        let extra = given([
            (args.offer.is_some(), "--offer"),
            (args.requests.is_some(), "--requests"),
        ]);
        if !extra.is_empty() {
            bail!(
                "analyze takes --offers COLL (--ad FILE | --request ID --from COLL); {} {} \
                 with --reverse or --unmatched",
                extra.join(" and "),
                if extra.len() > 1 { "go" } else { "goes" }
            );
        }
        let Some(offers) = args.offers.clone() else {
            bail!("analyze needs --offers COLL");
        };
        (
            offers,
            subject(args.ad, args.request, args.from, "request")?,
            ("slots", "job"),
        )
    };
    let db: Db = db.open_existing()?;
    if let Err(e) = require_collection(&db, &against) {
        warn!("adjoin: {e}");
        return Ok(ExitCode::from(1));
    }
    let analysis = match subject {
        Subject::File(path) => {
            let ad = read_ad(&path)?;
            match db.analyze(&ad, &against, &opts) {
                Ok(a) => a,
                // The ad may have no name to be known by: say which file it came from.
                Err(e) => return Err(anyhow::Error::new(e).context(format!("{}", path.display()))),
            }
        }
        Subject::Stored { id, from } => {
            if let Err(e) = require_collection(&db, &from) {
                warn!("adjoin: {e}");
                return Ok(ExitCode::from(1));
            }
            match db.analyze_stored(&from, &id, &against, &opts) {
                Ok(a) => a,
                // A missing id is a negative result (exit status 1), as for `get`.
                Err(e @ adjoin::analyze::AnalyzeError::NotFound { .. }) => {
                    warn!("adjoin: {e}");
                    return Ok(ExitCode::from(1));
                }
                Err(e) => return Err(e.into()),
            }
        }
    };
    if args.json {
        writeln!(out, "{}", adjoin::json::to_string(&analysis)?)?;
    } else {
        out.write_all(render_text(&analysis, names.0, names.1).as_bytes())?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The text form of `--unmatched`.
fn write_unmatched(out: &mut impl Write, u: &Unmatched) -> Result<()> {
    writeln!(
        out,
        "Of {} requests ({} clusters), {} match none of {} offers.",
        u.requests, u.clusters, u.unmatched, u.offers
    )?;
    if u.groups.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(
        out,
        "{:>9}  {:>8}  {:<10}  Reason (example)",
        "Requests", "Clusters", "Kind"
    )?;
    for g in &u.groups {
        writeln!(
            out,
            "{:>9}  {:>8}  {:<10}  {} ({})",
            g.requests, g.clusters, g.kind, g.reason, g.example
        )?;
    }
    Ok(())
}
