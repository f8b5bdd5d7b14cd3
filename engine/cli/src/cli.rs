//! Command-line parsing and dispatch; one module per command.

/// Prints a line to standard output, as `println!` does, but as a result: a closed or full
/// standard output is an error the command returns (a closed pipe ends it quietly), not a
/// panic.
macro_rules! say {
    ($($t:tt)*) => {
        anyhow::Context::context(
            std::io::Write::write_fmt(&mut std::io::stdout().lock(), format_args!("{}\n", format_args!($($t)*))),
            "writing to standard output",
        )
    };
}

/// Prints a line to standard error, as `eprintln!` does, but never panics: when standard
/// error cannot be written (closed, full) there is nowhere left to say so.
macro_rules! warn {
    ($($t:tt)*) => {{
        let _ = std::io::Write::write_fmt(&mut std::io::stderr().lock(), format_args!("{}\n", format_args!($($t)*)));
    }};
}

mod analyze;
mod candidates;
mod check;
mod db_arg;
mod demo;
mod eval;
mod gang;
mod get;
mod join;
mod listing;
mod load;
mod maintain;
mod match_cmd;
mod matches;
mod prefer;
mod prune;
mod query;
mod render;
mod rm;
mod stats;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// adjoin: ClassAd matchmaking as a database.
///
/// Exit status: 0 success; 1 a negative or failed result (a missing id, a skipped or refused
/// ad, damage found; a stale update a load drops, as a collector does, is counted, not
/// refused); 2 a usage, I/O or database error.
#[derive(Parser)]
#[command(name = "adjoin", version, about, long_about)]
struct Cli {
    /// The database directory [default: $ADJOIN_DB when set, else ./adjoin.db]. `demo`
    /// builds a fresh one (under the temp directory unless given).
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Wait up to SECONDS for another process to release the database (a load still
    /// running) instead of failing at once with "database in use".
    #[arg(long, global = true, value_name = "SECONDS")]
    wait: Option<f64>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a ClassAd expression (or, with `-`, one expression per line of stdin).
    Eval(eval::EvalArgs),
    /// Load ad files (new or old syntax, JSON, XML; `-` for stdin) into a collection.
    Load(load::LoadArgs),
    /// Print the ads of a collection satisfying a constraint (like condor_status -constraint).
    Query(query::QueryArgs),
    /// Print the stored ads matching a given ad both ways (through the spatial index).
    Candidates(candidates::CandidatesArgs),
    /// Match every ad of one collection against another, both ways, consuming nothing.
    Join(join::JoinArgs),
    /// Print ads by id.
    Get(get::GetArgs),
    /// Remove ads by id.
    Rm(rm::RmArgs),
    /// Count ads per collection, tombstones, matches and bytes on disk.
    Stats(stats::StatsArgs),
    /// Read and verify every record; exit status 1 if anything is damaged.
    Check(check::CheckArgs),
    /// Run a matchmaking cycle: match requests to offers, consume them and record the matches.
    Match(match_cmd::MatchArgs),
    /// List the recorded matches (all, the last N, one cycle's or one ad's).
    Matches(matches::MatchesArgs),
    /// Remove the oldest match records by age or count, optionally exporting them first.
    Prune(prune::PruneArgs),
    /// Remove expired ads and lapsed tombstones (with consumed ads' dead records), in steps.
    Maintain(maintain::MaintainArgs),
    /// Ask a request's Preferences (a CP-net): its best outcome, or whether one offer
    /// dominates another.
    Prefer(prefer::PreferArgs),
    /// Explain why a request matches nothing and what would make it match (like condor_q
    /// -better-analyze): counts, conditions, conflicts, checked suggestions, the offer side.
    Analyze(analyze::AnalyzeArgs),
    /// Run a gang cycle: give each request a gang of offers (all or nothing), consume each
    /// gang whole with one match record; or, with --ad, show the gang one request would get.
    Gang(gang::GangArgs),
    /// Build a demo database of a generated pool, query it, and print a summary with timings.
    Demo(demo::DemoArgs),
}

/// Standard output, whose errors name it ("writing to standard output: No space left on
/// device"), keeping their kind (a closed pipe stays one, ending the command quietly).
pub(crate) enum Stdout {
    /// Buffered: the command flushes it at its end.
    Buffered(std::io::BufWriter<std::io::StdoutLock<'static>>),
    /// Line by line, as the standard library writes it (answers a reader waits for).
    Lines(std::io::StdoutLock<'static>),
}

/// [`Stdout`], buffered, locked for the command.
pub(crate) fn stdout() -> Stdout {
    Stdout::Buffered(std::io::BufWriter::new(std::io::stdout().lock()))
}

/// [`Stdout`], written line by line, locked for the command.
pub(crate) fn stdout_lines() -> Stdout {
    Stdout::Lines(std::io::stdout().lock())
}

impl Stdout {
    fn inner(&mut self) -> &mut dyn std::io::Write {
        match self {
            Stdout::Buffered(b) => b,
            Stdout::Lines(l) => l,
        }
    }
}

/// `e` as an error writing standard output.
fn named(e: std::io::Error) -> std::io::Error {
    std::io::Error::new(e.kind(), format!("writing to standard output: {e}"))
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.inner().write(buf).map_err(named)
    }

    fn write_all(&mut self, buf: &[u8]) -> std::io::Result<()> {
        self.inner().write_all(buf).map_err(named)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner().flush().map_err(named)
    }
}

/// True when `e` is a write to a closed pipe (`adjoin query | head`): not worth a message.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// `e` and its causes as one line, `outer: inner`, leaving out a cause whose text the message
/// before it already holds (errors that print their source as part of their own message).
pub(crate) fn error_line(e: &anyhow::Error) -> String {
    let mut line = String::new();
    for cause in e.chain() {
        let text = cause.to_string();
        if line.contains(&text) {
            continue;
        }
        if !line.is_empty() {
            line.push_str(": ");
        }
        line.push_str(&text);
    }
    line
}

/// Parses the command line, runs the command, and maps errors to an exit code.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let wait = match cli.wait.map(std::time::Duration::try_from_secs_f64) {
        Some(Err(e)) => {
            warn!("adjoin: --wait: {e}");
            return ExitCode::from(2);
        }
        Some(Ok(w)) => Some(w),
        None => None,
    };
    let db = db_arg::DbPath::from_flag(cli.db.as_deref()).waiting(wait);
    let result = match cli.command {
        Command::Eval(args) => eval::run(args),
        Command::Load(args) => load::run(args, &db),
        Command::Query(args) => query::run(args, &db),
        Command::Candidates(args) => candidates::run(args, &db),
        Command::Join(args) => join::run(args, &db),
        Command::Get(args) => get::run(args, &db),
        Command::Rm(args) => rm::run(args, &db),
        Command::Stats(args) => stats::run(args, &db),
        Command::Check(args) => check::run(args, &db),
        Command::Match(args) => match_cmd::run(args, &db),
        Command::Matches(args) => matches::run(args, &db),
        Command::Prune(args) => prune::run(args, &db),
        Command::Maintain(args) => maintain::run(args, &db),
        Command::Prefer(args) => prefer::run(args),
        Command::Analyze(args) => analyze::run(args, &db),
        Command::Gang(args) => gang::run(args, &db),
        Command::Demo(args) => demo::run(args, cli.db.as_deref()),
    };
    match result {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            warn!("adjoin: {}", error_line(&e));
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines_do_not_repeat_causes() {
        let io = || std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        #[derive(Debug, thiserror::Error)]
        #[error("f.ads: {0}")]
        struct Echoing(#[source] std::io::Error);
        for (e, want) in [
            (
                anyhow::Error::new(io()).context("reading f"),
                "reading f: no such file",
            ),
            (anyhow::Error::new(Echoing(io())), "f.ads: no such file"),
            (anyhow::anyhow!("plain"), "plain"),
        ] {
            assert_eq!(error_line(&e), want);
        }
    }
}
