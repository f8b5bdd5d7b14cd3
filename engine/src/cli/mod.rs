//! Command-line parsing and dispatch; one module per command.

mod eval;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// adjoin: ClassAd matchmaking as a database.
#[derive(Parser)]
#[command(name = "adjoin", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Evaluate a ClassAd expression (or, with `-`, one expression per line of stdin).
    Eval(eval::EvalArgs),
}

/// Parses the command line, runs the command, and maps errors to an exit code.
pub fn run() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Eval(args) => eval::run(args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("adjoin: {e:#}");
            ExitCode::from(2)
        }
    }
}
