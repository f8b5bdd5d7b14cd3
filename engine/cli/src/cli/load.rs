//! `adjoin load`: stores the ads of files (or stdin) in a collection, reporting each bad ad as
//! `file:line:col: message` and skipping it, or with `--strict` refusing the whole load.

use super::db_arg::DbPath;
use super::render::{count, thousands};
use adjoin::query::parse::Format;
use adjoin::storage::{Durability, Expiry, IdRule, PutOptions};
use adjoin::{DbError, LoadOptions, LoadReport};
use anyhow::Result;
use clap::{Args, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Inputs at least this large (bytes in all) get a progress bar.
const PROGRESS_MIN_BYTES: u64 = 4 << 20;

/// Loads taking at least this long (seconds) report their rate.
const RATE_MIN_SECS: f64 = 0.5;

/// The input formats `--format` names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    /// Decide per file from its first characters.
    Auto,
    /// New syntax: `[a = 1; b = 2]`.
    New,
    /// Old syntax: `a = 1` lines, ads separated by blank lines.
    Old,
    /// HTCondor's JSON form.
    Json,
    /// HTCondor's XML form.
    Xml,
}

impl From<FormatArg> for Format {
    fn from(f: FormatArg) -> Format {
        match f {
            FormatArg::Auto => Format::Auto,
            FormatArg::New => Format::New,
            FormatArg::Old => Format::Old,
            FormatArg::Json => Format::Json,
            FormatArg::Xml => Format::Xml,
        }
    }
}

/// Arguments of `adjoin load`.
#[derive(Args)]
pub struct LoadArgs {
    /// The collection to store the ads in (created if new).
    #[arg(long, value_name = "COLL")]
    into: String,
    /// The attribute(s) an ad's id is taken from, first present wins [default: Name,GlobalJobId].
    #[arg(long, value_name = "A", value_delimiter = ',')]
    id_attr: Vec<String>,
    /// The input format.
    #[arg(long, value_enum, default_value_t = FormatArg::Auto)]
    format: FormatArg,
    /// Refuse the whole load if any ad is bad: nothing is stored.
    #[arg(long)]
    strict: bool,
    /// Take each ad's expiry from this attribute (an absolute time, or seconds from now).
    #[arg(long, value_name = "A", conflicts_with = "lifetime")]
    expiry_attr: Option<String>,
    /// Every ad expires this many seconds after it is stored.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(i64).range(0..))]
    lifetime: Option<i64>,
    /// The files to load; `-` reads standard input.
    #[arg(required = true, value_name = "FILE")]
    files: Vec<PathBuf>,
}

impl LoadArgs {
    fn options(&self) -> LoadOptions {
        let id = if self.id_attr.is_empty() {
            IdRule::default()
        } else {
            IdRule::new(self.id_attr.iter().cloned())
        };
        let expiry = match (&self.expiry_attr, self.lifetime) {
            (Some(a), _) => Expiry::Attr(a.clone()),
            (None, Some(s)) => Expiry::After(s),
            (None, None) => Expiry::Never,
        };
        LoadOptions {
            format: self.format.into(),
            put: PutOptions {
                id,
                expiry,
                durability: Durability::Buffered,
            },
            strict: self.strict,
        }
    }
}

/// The size of the inputs when all are files (stdin's is unknown).
fn input_bytes(files: &[PathBuf]) -> Option<u64> {
    files
        .iter()
        .map(|f| {
            if f.as_os_str() == "-" {
                None
            } else {
                std::fs::metadata(f).ok().map(|m| m.len())
            }
        })
        .sum()
}

/// A progress bar on stderr for large inputs; hidden when stderr is not a terminal.
fn progress_bar(files: &[PathBuf]) -> ProgressBar {
    let total = input_bytes(files);
    let large = total.is_none_or(|t| t >= PROGRESS_MIN_BYTES);
    if !large {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::stderr());
    let template = if total.is_some() {
        "{spinner} loading [{bar:30}] {bytes}/{total_bytes} {msg} ({eta})"
    } else {
        "{spinner} loading {bytes} {msg}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar
}

/// Runs `adjoin load`.
pub fn run(args: LoadArgs, db: &DbPath) -> Result<ExitCode> {
    // The files first: a load of nothing readable makes no database.
    adjoin::db::check_files(&args.files)?;
    let db = db.open_or_create()?;
    let opts = args.options();
    let bar = progress_bar(&args.files);
    let started = Instant::now();
    let result = db.load_files(&args.into, &args.files, &opts, &mut |p| {
        if let Some(total) = bar.length() {
            if total < p.bytes_total {
                bar.set_length(p.bytes_total);
            }
        }
        bar.set_position(p.bytes_done);
        bar.set_message(format!("{} ads", thousands(p.stored)));
    });
    bar.finish_and_clear();
    let elapsed = started.elapsed();
    match result {
        Ok(report) => print_report(&args, &report, elapsed),
        Err(DbError::Refused { bad }) => {
            let mut err = std::io::stderr().lock();
            // Standard error that cannot be written is passed over (there is nowhere to say so).
            for b in &bad {
                let _ = writeln!(err, "{b}");
            }
            let _ = writeln!(
                err,
                "adjoin: load refused (--strict): {}; nothing was stored in {}",
                count(bad.len() as u64, "bad ad"),
                args.into
            );
            Ok(ExitCode::from(1))
        }
        Err(e) => Err(e.into()),
    }
}

/// Bad ads to stderr; the summary and the generated ids to stdout. Exit 1 when an ad was
/// skipped, so that scripts notice.
fn print_report(
    args: &LoadArgs,
    report: &LoadReport,
    elapsed: std::time::Duration,
) -> Result<ExitCode> {
    {
        let mut err = std::io::stderr().lock();
        for b in report.bad.iter().chain(&report.stale) {
            let _ = writeln!(err, "{b}");
        }
    }
    let stored = report.stored.len() as u64;
    let replaced = report.stored.iter().filter(|a| a.put.replaced).count();
    let generated: Vec<_> = report.stored.iter().filter(|a| a.put.generated).collect();
    let mut out = super::stdout_lines();
    let files = match args.files.as_slice() {
        [one] => display_name(one),
        many => format!("{} files", many.len()),
    };
    // Rates of tiny loads are noise; say how fast only when it took a while.
    let secs = elapsed.as_secs_f64();
    let rate = if secs >= RATE_MIN_SECS && stored > 0 {
        format!(
            " in {secs:.2} s ({} ads/s)",
            thousands((stored as f64 / secs) as u64)
        )
    } else {
        String::new()
    };
    // Stale updates are dropped as a collector drops them: counted, not errors.
    let stale = match report.stale.len() as u64 {
        0 => String::new(),
        n => format!(", {} refused", count(n, "stale update")),
    };
    writeln!(
        out,
        "loaded {} into {} from {files}{rate}: {} replaced, {} skipped, {}{stale}",
        count(stored, "ad"),
        args.into,
        thousands(replaced as u64),
        thousands(report.bad.len() as u64),
        count(generated.len() as u64, "generated id")
    )?;
    for g in &generated {
        writeln!(out, "{}:{}: generated id {}", g.file, g.line, g.put.id)?;
    }
    Ok(if report.bad.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A file as messages name it (`-` for stdin).
fn display_name(p: &Path) -> String {
    p.display().to_string()
}
