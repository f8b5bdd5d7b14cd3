//! `adjoin candidates`: the stored ads of a collection that match a given ad both ways (each
//! one's requirements true with the other as TARGET), through the spatial index or, with
//! `--naive`, by evaluating every pair. With `--ranked`, best first: by the ad's preference
//! order when it has `Preferences` (walked on the index, issue 12), then `[request Rank, offer
//! Rank]`, then load order.

use super::db_arg::DbPath;
use super::query::require_collection;
use super::render::{self, write_ad, AdStyle};
use adjoin::collection::Collection;
use adjoin::index::IndexOptions;
use adjoin::prefer::{rank_candidates, Preferences};
use adjoin::query::parse::{self, Format};
use adjoin::query::ClassAd;
use anyhow::{Context, Result};
use clap::Args;
use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

/// Arguments of `adjoin candidates`.
#[derive(Args)]
pub struct CandidatesArgs {
    /// The collection to match against.
    #[arg(long, value_name = "COLL")]
    from: String,
    /// A file holding the ad to match (new or old syntax, JSON, XML; `-` for stdin).
    #[arg(long, value_name = "FILE")]
    ad: PathBuf,
    /// Evaluate every pair instead of using the index.
    #[arg(long)]
    naive: bool,
    /// Print the matching ads, one per line in HTCondor's JSON form, instead of their ids.
    #[arg(long)]
    json: bool,
    /// Best first: by the ad's Preferences (with its PreferenceKeep), then the ranks, then
    /// load order.
    #[arg(long)]
    ranked: bool,
}

/// The text of the ad file `path` (`-` for stdin).
pub(crate) fn read_text(path: &std::path::Path) -> Result<String> {
    let shown = path.display().to_string();
    Ok(if shown == "-" {
        let mut t = String::new();
        std::io::stdin()
            .read_to_string(&mut t)
            .context("reading the ad from stdin")?;
        t
    } else {
        std::fs::read_to_string(path).with_context(|| format!("reading {shown}"))?
    })
}

/// Reads the one ad in `path` (`-` for stdin), in any format `load` reads.
pub(crate) fn read_ad(path: &std::path::Path) -> Result<adjoin::query::ClassAd> {
    let shown = path.display().to_string();
    let text = read_text(path)?;
    parse::one_ad(&text, Format::Auto)
        .map_err(|e| anyhow::anyhow!(render::parse_error(&format!("ad {shown}"), &text, &e)))
}

/// Runs `adjoin candidates`.
pub fn run(args: CandidatesArgs, db: &DbPath) -> Result<ExitCode> {
    let probe = Arc::new(read_ad(&args.ad)?);
    let db = db.open_existing()?;
    if let Err(e) = require_collection(&db, &args.from) {
        warn!("adjoin: {e}");
        return Ok(ExitCode::from(1));
    }
    let mut out = super::stdout();
    let mut buf = String::new();
    let mut damaged = 0usize;
    if args.ranked {
        let label = args.ad.display().to_string();
        // The candidates best first, each with its ad as read for its ranks.
        let ranked: Vec<(String, Arc<ClassAd>)> = if args.naive {
            let coll = Collection::scan(&db, &args.from)?;
            for e in &coll.damaged {
                warn!("adjoin: {e}");
            }
            damaged += coll.damaged.len();
            let opts = IndexOptions::default();
            let prefs = Preferences::from_ad(&probe, &label, &opts.eval)?;
            let matched = coll
                .naive_join(std::slice::from_ref(&probe), &opts.eval)
                .pop()
                .unwrap_or_default();
            rank_candidates(
                prefs.as_ref(),
                &probe,
                matched.iter(),
                &coll.ads,
                &opts.eval,
            )
            .into_iter()
            .filter_map(|(_, n)| {
                let ad = coll.ads.get(n as usize)?;
                Some((coll.id(n)?.to_owned(), Arc::clone(ad)))
            })
            .collect()
        } else {
            let answer = db.ranked_candidates(&args.from, &probe, &label)?;
            for e in &answer.damaged {
                warn!("adjoin: {e}");
            }
            damaged += answer.damaged.len();
            (answer.ids.into_iter())
                .zip(answer.ads.into_iter().map(Arc::new))
                .collect()
        };
        for (id, ad) in &ranked {
            if args.json {
                buf.clear();
                write_ad(&mut buf, ad, AdStyle::JsonLine);
                out.write_all(buf.as_bytes())?;
            } else {
                writeln!(out, "{id}")?;
            }
        }
    } else if args.naive {
        let coll = Collection::scan(&db, &args.from)?;
        for e in &coll.damaged {
            warn!("adjoin: {e}");
        }
        damaged += coll.damaged.len();
        let opts = IndexOptions::default();
        let matched = coll
            .naive_join(&[probe], &opts.eval)
            .pop()
            .unwrap_or_default();
        for id in &matched {
            buf.clear();
            if args.json {
                if let Some(ad) = coll.ad(id) {
                    write_ad(&mut buf, ad, AdStyle::JsonLine);
                }
            } else if let Some(name) = coll.id(id) {
                buf.push_str(name);
                buf.push('\n');
            }
            out.write_all(buf.as_bytes())?;
        }
    } else {
        // Through the collection's held index (restored from its snapshot when current).
        let answer = db.candidates(&args.from, &probe)?;
        for e in &answer.damaged {
            warn!("adjoin: {e}");
        }
        damaged += answer.damaged.len();
        if args.json {
            for ad in db.read_ids(&args.from, answer.ids) {
                match ad {
                    Ok(ad) => {
                        buf.clear();
                        write_ad(&mut buf, &ad.ad, AdStyle::JsonLine);
                        out.write_all(buf.as_bytes())?;
                    }
                    Err(e) => {
                        warn!("adjoin: {e}");
                        damaged += 1;
                    }
                }
            }
        } else {
            for id in &answer.ids {
                writeln!(out, "{id}")?;
            }
        }
    }
    out.flush()?;
    Ok(if damaged == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
