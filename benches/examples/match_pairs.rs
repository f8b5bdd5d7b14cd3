//! Runs N symmetric matches of one job/machine pair of the dissertation's base workload, for
//! counting instructions per pair under callgrind (repeatable, unlike wall time):
//!
//! ```sh
//! cargo build --release -p adjoin-workload --example match_pairs
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.1 target/release/examples/match_pairs 1
//! valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.N target/release/examples/match_pairs 1000001
//! ```
//! Instructions per pair = (total(N) − total(1)) / (N − 1).

use adjoin::query::eval::{symmetric_match, EvalOptions};
use adjoin::query::parse;
use std::hint::black_box;

fn main() -> std::process::ExitCode {
    let n: u64 = match std::env::args().nth(1).map(|a| a.parse()) {
        Some(Ok(n)) => n,
        None => 1_000_000,
        Some(Err(e)) => {
            eprintln!("usage: match_pairs [N]: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let parsed = parse::classad(
        r#"[Arch = "INTEL"; OpSys = "LINUX"; Memory = 128; VirtualMemory = 211.5;
            Requirements = TARGET.MemoryReqs < Memory - 15]"#,
    )
    .and_then(|m| {
        parse::classad(
            r#"[ImageSize = 60.25; MemoryReqs = 20.5; Requirements = TARGET.Arch == "INTEL"
                && TARGET.OpSys == "LINUX" && TARGET.VirtualMemory > ImageSize]"#,
        )
        .map(|j| (m, j))
    });
    let (machine, job) = match parsed {
        Ok(p) => p,
        Err(e) => {
            eprintln!("match_pairs: {e}");
            return std::process::ExitCode::from(1);
        }
    };
    let opts = EvalOptions::default();
    let mut matched = 0u64;
    for _ in 0..n {
        matched += u64::from(symmetric_match(black_box(&job), black_box(&machine), &opts));
    }
    println!("{matched} of {n} pairs matched");
    std::process::ExitCode::SUCCESS
}
