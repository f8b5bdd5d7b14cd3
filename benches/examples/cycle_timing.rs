//! Times one matchmaking cycle at scale: OFFERS generated slot ads (the dissertation's machine
//! model with the real slot ads' attributes) against REQUESTS job ads drawn from CLUSTERS
//! templates (`adjoin_workload::templates`), loaded into a database, then one dry-run cycle,
//! with its figures and where its time went; optionally, in the same run, the `--naive` cycle
//! (every pair evaluated: the ratio is measured here), the uncached cycle, and a durable one.
//!
//! `cargo run --release -p adjoin-workload --example cycle_timing -- OFFERS REQUESTS CLUSTERS
//! [--naive] [--uncached] [--durable] [--db PATH] [--seed N] [--hetero]`
//! (numbers may be written `200_000`; `--db` puts the database on disk at PATH, which must not
//! exist yet; by default it is in memory). `--hetero` generates the heterogeneous pool instead
//! (`adjoin_workload::hetero`: every request distinct, ranks on both sides; CLUSTERS ignored).
//!
//! `--again` runs the dry run a second time, the Db's held index of the offers kept from the
//! first (which made it from the offers it read, or restored it from a checkpoint).
//!
//! `--repeat N` runs the indexed dry run (and, with `--naive`, the naive one) N times in all,
//! alternating, and prints the minimum and median of each and their ratios: one run's figure
//! moves by half or more on a busy machine. The runs after the first keep the Db's held index,
//! as `--again` does.
//!
//! `cycle_timing --open PATH [--naive] [--uncached] [--durable] [--only-durable]` times the
//! cycles on a database made before (collections `jobs` and `machines`), generating nothing;
//! `--only-durable` runs the durable cycle alone (no dry run before it).

use adjoin::cycle::{run, CycleOptions, CycleReport};
use adjoin::storage::{Durability, PutOptions};
use adjoin::Db;
use adjoin_workload::hetero::Heterogeneous;
use adjoin_workload::templates::JobTemplates;
use adjoin_workload::Workload;
use std::error::Error;
use std::time::Instant;

/// The allocator the `adjoin` binary uses, so that figures match the command line's.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// The command line.
#[derive(Debug, Default)]
struct Args {
    offers: u64,
    requests: u64,
    clusters: usize,
    naive: bool,
    uncached: bool,
    durable: bool,
    only_durable: bool,
    again: bool,
    repeat: usize,
    db: Option<String>,
    open: Option<String>,
    seed: u64,
    hetero: bool,
}

fn number<T: std::str::FromStr>(s: &str) -> Result<T, String> {
    s.replace(['_', ','], "")
        .parse()
        .map_err(|_| format!("not a number: {s}"))
}

fn args() -> Result<Args, String> {
    let mut a = Args {
        seed: 42,
        ..Args::default()
    };
    let mut positional = Vec::new();
    let mut it = std::env::args().skip(1);
    while let Some(x) = it.next() {
        match x.as_str() {
            "--naive" => a.naive = true,
            "--hetero" => a.hetero = true,
            "--uncached" => a.uncached = true,
            "--durable" => a.durable = true,
            "--only-durable" => a.only_durable = true,
            "--again" => a.again = true,
            "--repeat" => a.repeat = number(&it.next().ok_or("--repeat needs a number")?)?,
            "--db" => a.db = Some(it.next().ok_or("--db needs a path")?),
            "--open" => a.open = Some(it.next().ok_or("--open needs a path")?),
            "--seed" => a.seed = number(&it.next().ok_or("--seed needs a number")?)?,
            _ => positional.push(x),
        }
    }
    if a.open.is_some() && positional.is_empty() {
        return Ok(a);
    }
    let [o, r, k] = positional.as_slice() else {
        return Err(
            "usage: cycle_timing (OFFERS REQUESTS CLUSTERS [--db PATH] [--seed N] [--hetero] | --open PATH) \
                    [--naive] [--uncached] [--durable] [--only-durable] [--again] [--repeat N]"
                .into(),
        );
    };
    (a.offers, a.requests, a.clusters) = (number(o)?, number(r)?, number(k)?);
    Ok(a)
}

/// Loads `ads` into `coll` with one bulk load (one flush at its end).
fn load(
    db: &Db,
    coll: &str,
    ads: impl Iterator<Item = adjoin::query::ClassAd>,
) -> Result<usize, Box<dyn Error>> {
    let mut loader = db.store().loader(
        coll,
        PutOptions {
            durability: Durability::Buffered,
            ..PutOptions::default()
        },
    );
    for ad in ads {
        loader.push(&ad)?;
    }
    let report = loader.finish()?;
    if report.rejected() > 0 {
        return Err(format!("{coll}: {} ads refused", report.rejected()).into());
    }
    Ok(report.stored())
}

fn print(label: &str, r: &CycleReport) {
    let p = &r.phases;
    println!(
        "{label}: {} requests, {} matched ({} matches), {} clusters, {} probes, {} evaluations, {:.3} s",
        r.requests,
        r.matched,
        r.matches.len(),
        r.clusters,
        r.probes,
        r.evaluations,
        r.seconds
    );
    println!(
        "  scan requests {:.3} s | beside it: scan offers {:.3} s, index {:.3} s | cluster {:.3} s, order {:.3} s, matching {:.3} s",
        p.scan_requests, p.scan_offers, p.index, p.cluster, p.order, p.matching
    );
}

/// Opens the database at `path` (`ADJOIN_CACHE_MB` sets sled's page cache, 1 GiB by
/// default).
fn open(path: &str) -> Result<Db, Box<dyn Error>> {
    let mut opts = adjoin::DbOptions::default();
    if let Some(mb) = std::env::var("ADJOIN_CACHE_MB")
        .ok()
        .and_then(|v| v.parse::<u64>().ok())
    {
        opts.cache_capacity = mb << 20;
    }
    Ok(Db::open_with(path, &opts)?)
}

fn main() -> Result<(), Box<dyn Error>> {
    let a = args()?;
    let db = match (&a.open, &a.db) {
        (Some(path), _) => open(path)?,
        (None, Some(path)) => {
            if std::path::Path::new(path).exists() {
                return Err(format!("{path} exists; give a fresh path").into());
            }
            open(path)?
        }
        (None, None) => Db::open_in_memory()?,
    };
    if a.open.is_none() {
        generate(&db, &a)?;
    }
    cycles(&db, &a)
}

/// Generates the pool into `db`.
fn generate(db: &Db, a: &Args) -> Result<(), Box<dyn Error>> {
    let t = Instant::now();
    if a.hetero {
        let mut h = Heterogeneous::new(a.seed);
        let offers: Vec<_> = (0..a.offers)
            .map(|n| h.offer(n))
            .collect::<Result<_, _>>()?;
        let requests: Vec<_> = (0..a.requests)
            .map(|n| h.request(n))
            .collect::<Result<_, _>>()?;
        let stored_offers = load(db, "machines", offers.into_iter())?;
        let stored_requests = load(db, "jobs", requests.into_iter())?;
        println!(
            "heterogeneous pool: {stored_offers} offers, {stored_requests} distinct requests; generated and loaded in {:.1} s",
            t.elapsed().as_secs_f64()
        );
        return Ok(());
    }
    let mut w = Workload::new(a.seed)?;
    let stored_offers = load(db, "machines", (0..a.offers).map(|n| w.slot_ad(n)))?;
    let templates = JobTemplates::new(w.rng(), a.clusters)?;
    let mut g = w.rng().clone();
    let stored_requests = load(db, "jobs", templates.jobs(&mut g, a.requests))?;
    println!(
        "pool: {stored_offers} offers, {stored_requests} requests from {} templates; generated and loaded in {:.1} s",
        templates.len(),
        t.elapsed().as_secs_f64()
    );
    Ok(())
}

/// Runs the cycles `a` asks for over `db`, printing their figures.
fn cycles(db: &Db, a: &Args) -> Result<(), Box<dyn Error>> {
    let opts = |f: &dyn Fn(&mut CycleOptions)| {
        let mut o = CycleOptions {
            dry_run: true,
            ..CycleOptions::new("jobs", "machines")
        };
        f(&mut o);
        o
    };
    if a.only_durable {
        let r = run(db, &opts(&|o| o.dry_run = false))?;
        print("indexed, autoclustered, durable", &r);
        return Ok(());
    }
    let t = Instant::now();
    let indexed = run(db, &opts(&|_| {}))?;
    let returned = t.elapsed().as_secs_f64();
    print("indexed, autoclustered, dry run", &indexed);
    println!("  run() returned after {returned:.3} s");
    if a.again {
        let r = run(db, &opts(&|_| {}))?;
        print("indexed, autoclustered, dry run again", &r);
        println!("  same matches: {}", r.matches == indexed.matches);
    }
    if a.uncached {
        let r = run(db, &opts(&|o| o.no_clusters = true))?;
        print("indexed, uncached, dry run", &r);
        println!(
            "  same matches as autoclustered: {}",
            r.matches == indexed.matches
        );
    }
    if a.naive {
        let r = run(db, &opts(&|o| o.naive = true))?;
        print("naive, dry run", &r);
        println!(
            "  same matches as indexed: {}; naive / indexed = {:.0}×",
            r.matches == indexed.matches,
            r.seconds / indexed.seconds
        );
    }
    if a.repeat > 1 {
        repeated(db, a, &opts(&|_| {}), &indexed)?;
    }
    if a.durable {
        let r = run(db, &opts(&|o| o.dry_run = false))?;
        print("indexed, autoclustered, durable", &r);
        println!(
            "  same matches as the dry run: {}; {} match records",
            r.matches.len() == indexed.matches.len()
                && r.matches
                    .iter()
                    .zip(&indexed.matches)
                    .all(|(x, y)| (&x.request, &x.offer) == (&y.request, &y.offer)),
            db.matches()?.len()
        );
    }
    Ok(())
}

/// `--repeat`: the indexed dry run (`opts`) and, with `--naive`, the naive one, `a.repeat` times
/// in all (the first indexed run is `first`), alternating; their minimum and median seconds and
/// ratios. Every run must give `first`'s matches.
fn repeated(
    db: &Db,
    a: &Args,
    opts: &CycleOptions,
    first: &CycleReport,
) -> Result<(), Box<dyn Error>> {
    let naive_opts = CycleOptions {
        naive: true,
        ..opts.clone()
    };
    let (mut indexed, mut naive) = (vec![first.seconds], Vec::new());
    for i in 0..a.repeat {
        if i > 0 {
            let r = run(db, opts)?;
            if r.matches != first.matches {
                return Err("an indexed run gave other matches".into());
            }
            indexed.push(r.seconds);
        }
        if a.naive {
            let r = run(db, &naive_opts)?;
            if r.matches != first.matches {
                return Err("a naive run gave other matches than the indexed".into());
            }
            naive.push(r.seconds);
        }
    }
    let summary = |xs: &mut Vec<f64>| {
        xs.sort_by(f64::total_cmp);
        let median = xs.get(xs.len() / 2).copied().unwrap_or(f64::NAN);
        (xs.first().copied().unwrap_or(f64::NAN), median)
    };
    let (imin, imed) = summary(&mut indexed);
    println!(
        "over {} runs: indexed min {imin:.3} s, median {imed:.3} s",
        indexed.len()
    );
    if a.naive {
        let (nmin, nmed) = summary(&mut naive);
        println!(
            "  naive min {nmin:.3} s, median {nmed:.3} s; naive / indexed = {:.0}× (medians), {:.0}× (minimums); same matches every run",
            nmed / imed,
            nmin / imin
        );
    }
    Ok(())
}
