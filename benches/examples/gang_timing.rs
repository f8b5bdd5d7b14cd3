//! Times gang cycles on the dissertation's base workload (5.2.1) or the heuristic-failure
//! workload (5.7): the ads are generated, loaded into an in-memory database (collections
//! `jobs`, `machines`, `licenses`), and one dry-run gang cycle is run per algorithm, printing
//! requests, gangs, seconds, index probes and evaluations.
//!
//! `cargo run --release -p adjoin-workload --example gang_timing -- JOBS PERCENT SELECTIVITY
//! [ALGORITHM…] [--failure] [--serials] [--durable] [--seed N]` (algorithms default to all but
//! naive; `--failure` generates the heuristic-failure workload of JOBS machines and jobs instead;
//! `--serials` gives every license its own serial number, an attribute no constraint reads;
//! `--durable` also runs one consuming cycle of the first algorithm).

use adjoin::gang::{Algorithm, GangOptions};
use adjoin::Db;
use adjoin_workload::gangs::{base, heuristic_failure, with_serials};
use std::error::Error;

#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The process's CPU time in seconds (user + system, from /proc; 0 where there is none): on a
/// machine shared with other work, wall-clock figures vary, CPU time much less.
fn cpu_seconds() -> f64 {
    let Ok(stat) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the command name (which may hold spaces) in parentheses.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| f.get(i).and_then(|x| x.parse::<f64>().ok()).unwrap_or(0.0);
    // utime and stime are fields 14 and 15 of stat: 12 and 13 after the name.
    (ticks(11) + ticks(12)) / 100.0
}

fn main() -> Result<(), Box<dyn Error>> {
    let mut nums = Vec::new();
    let mut algs = Vec::new();
    let (mut failure, mut durable, mut serials, mut seed) = (false, false, false, 42u64);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--failure" => failure = true,
            "--durable" => durable = true,
            "--serials" => serials = true,
            "--seed" => seed = it.next().ok_or("--seed N")?.parse()?,
            x if x.chars().all(|c| c.is_ascii_digit() || c == '_') => {
                nums.push(x.replace('_', "").parse::<usize>()?)
            }
            x => algs.push(x.parse::<Algorithm>()?),
        }
    }
    let n = nums.first().copied().unwrap_or(1000);
    let percent = nums.get(1).copied().unwrap_or(100);
    let k = nums.get(2).copied().unwrap_or(1);
    if algs.is_empty() {
        algs = vec![
            Algorithm::Lr,
            Algorithm::Dyn,
            Algorithm::Dyns,
            Algorithm::Dynsr,
        ];
    }
    let mut w = if failure {
        heuristic_failure(n, seed)?
    } else {
        base(n, percent, k, seed)?
    };
    if serials {
        with_serials(&mut w);
    }
    let db = Db::open_in_memory()?;
    for (coll, ads) in [
        ("jobs", &w.jobs),
        ("machines", &w.machines),
        ("licenses", &w.licenses),
    ] {
        for ad in ads {
            db.put(coll, ad)?;
        }
    }
    let mut label = if failure {
        format!("failure/{n}")
    } else {
        format!("{n}/{percent}/{k}")
    };
    if serials {
        label.push_str("+serials");
    }
    println!(
        "workload {label}: {} jobs, {} machines, {} licenses",
        w.jobs.len(),
        w.machines.len(),
        w.licenses.len()
    );
    for alg in &algs {
        let mut o = GangOptions::new("jobs", &["machines", "licenses"]);
        o.algorithm = *alg;
        o.dry_run = true;
        let cpu = cpu_seconds();
        let r = db.gang_cycle(&o)?;
        let cpu = cpu_seconds() - cpu;
        println!(
            "{alg:>6} {label}: gangs {:>6} / {:>6}  {:>8.3} s ({cpu:.2} s CPU)  probes {:>9}  evaluations {:>10}  gave up {}  most work {}",
            r.matched, r.requests, r.seconds, r.probes, r.evaluations, r.gave_up.len(), r.most_work
        );
    }
    if durable {
        let mut o = GangOptions::new("jobs", &["machines", "licenses"]);
        o.algorithm = algs[0];
        let r = db.gang_cycle(&o)?;
        println!(
            "{:>6} {label} durable: gangs {:>6} / {:>6}  {:>8.3} s  probes {:>9}  evaluations {:>10}",
            o.algorithm, r.matched, r.requests, r.seconds, r.probes, r.evaluations
        );
    }
    Ok(())
}
