//! `adjoin demo`: builds a fresh database holding a generated pool (slot ads after the
//! dissertation's machine model with the attribute set of real slot ads, job ads shaped like
//! the real job ad), loads it, runs a few queries and a matchmaking cycle (which records
//! matches and consumes the matched ads), reopens the database, and prints what each step took.

use super::db_arg::{empty_dir, DbPath};
use super::query::parse_constraint;
use super::render::{count, duration, human_bytes, thousands, Table};
use adjoin::cycle::CycleOptions;
use adjoin::query::eval::eval_attr_value;
use adjoin::query::{ClassAd, EvalOptions, Expr, Value};
use adjoin::storage::{AdError, Durability, PutOptions, StoredAd};
use adjoin::{Db, DbError};
use adjoin_workload::Workload;
use anyhow::{bail, Context, Result};
use clap::Args;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The demo's database when `--db` is not given (replaced on every run).
const DEFAULT_NAME: &str = "adjoin-demo.db";

/// The most ads of each kind the demo generates: it holds them all in memory (a slot ad is
/// some 2 KB) before loading them.
const MOST: u64 = 2_000_000;

/// Arguments of `adjoin demo`.
#[derive(Args)]
pub struct DemoArgs {
    /// Slot ads to generate (1 to 2,000,000).
    #[arg(long, default_value_t = 20_000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=MOST))]
    machines: u64,
    /// Job ads to generate (1 to 2,000,000).
    #[arg(long, default_value_t = 5_000, value_name = "N",
          value_parser = clap::value_parser!(u64).range(1..=MOST))]
    jobs: u64,
    /// The generator's seed (the same seed gives the same pool).
    #[arg(long, default_value_t = 1)]
    seed: u64,
}

/// The database the demo builds: `--db PATH` (which must not exist yet, or be empty), else
/// `adjoin-demo.db` under the system temp directory, replaced if it exists. `$ADJOIN_DB` is
/// not used: the demo never overwrites a database it was not asked to create.
fn demo_path(flag: Option<&Path>) -> Result<PathBuf> {
    if let Some(p) = flag {
        if p.exists() && !empty_dir(p)? {
            bail!(
                "{} already exists; the demo builds a new database: remove it or choose another --db",
                p.display()
            );
        }
        return Ok(p.to_owned());
    }
    let p = std::env::temp_dir().join(DEFAULT_NAME);
    if p.is_dir() {
        // Refuse (rather than pull the files from under it) when another demo holds it, or
        // when it is not a database.
        if !empty_dir(&p)? {
            drop(DbPath::from_flag(Some(&p)).open_existing()?);
        }
        std::fs::remove_dir_all(&p).with_context(|| format!("removing {}", p.display()))?;
    } else if p.exists() {
        bail!("{} exists and is not a database directory", p.display());
    }
    Ok(p)
}

/// The report being built: sections of aligned lines.
struct Report {
    text: String,
}

impl Report {
    /// Adds a titled table.
    fn section(&mut self, title: &str, table: &Table) {
        let _ = writeln!(self.text, "\n{title}");
        self.text.push_str(&table.render(2));
    }
}

/// Stores `ads` in `coll` as one bulk load flushed once at the end; returns the time taken.
fn bulk_load(db: &Db, coll: &str, ads: &[ClassAd]) -> Result<Duration> {
    let start = Instant::now();
    let opts = PutOptions {
        durability: Durability::Buffered,
        ..PutOptions::default()
    };
    let mut loader = db.store().loader(coll, opts);
    for ad in ads {
        loader.push(ad)?;
    }
    let report = loader.finish()?;
    if let Some(Err(e)) = report.results.iter().find(|r| r.is_err()) {
        bail!("loading the demo's {coll}: {e}");
    }
    Ok(start.elapsed())
}

fn rate(n: u64, d: Duration) -> String {
    let secs = d.as_secs_f64().max(1e-9);
    format!("{} ads/s", thousands((n as f64 / secs) as u64))
}

/// Runs `constraint` over `coll`, returning the ads selected and the time taken.
fn timed_query(db: &Db, coll: &str, constraint: &str) -> Result<(Vec<StoredAd>, Duration)> {
    let e = parse_constraint(Some(constraint))?;
    let start = Instant::now();
    let ads = db.query(coll, &e)?.collect::<Result<Vec<_>, DbError>>()?;
    Ok((ads, start.elapsed()))
}

/// A string attribute of `ad` (evaluated), or `?`.
fn text_attr(ad: &ClassAd, name: &str, opts: &EvalOptions) -> String {
    match eval_attr_value(ad, name, opts) {
        Value::Str(s) => s.to_string(),
        v => v.to_string(),
    }
}

/// Runs `adjoin demo`.
pub fn run(args: DemoArgs, db_flag: Option<&Path>) -> Result<ExitCode> {
    let total = Instant::now();
    let path = demo_path(db_flag)?;
    let opts = EvalOptions::default();
    let mut report = Report {
        text: format!(
            "adjoin demo: a generated pool of {} and {} in {}\n",
            count(args.machines, "machine"),
            count(args.jobs, "job"),
            path.display()
        ),
    };

    // Generate.
    let start = Instant::now();
    let mut w = Workload::today(args.seed).context("building the workload generator")?;
    let machines: Vec<ClassAd> = (0..args.machines).map(|n| w.slot_ad(n)).collect();
    let jobs: Vec<ClassAd> = (0..args.jobs).map(|n| w.job_ad(n)).collect();
    let generated = start.elapsed();
    let attrs = |ads: &[ClassAd]| ads.first().map_or(0, ClassAd::len) as u64;

    // Load.
    let db = DbPath::from_flag(Some(&path)).open_or_create()?;
    let load_m = bulk_load(&db, "machines", &machines)?;
    let load_j = bulk_load(&db, "jobs", &jobs)?;
    let stats = db.stats()?;
    let n_ads = args.machines + args.jobs;
    let _ = writeln!(
        report.text,
        "\nGenerated {} ({} attributes each) and {} ({} attributes) in {}",
        count(args.machines, "slot ad"),
        attrs(&machines),
        count(args.jobs, "job ad"),
        attrs(&jobs),
        duration(generated)
    );
    let mut t = Table::aligned("lrrr");
    for (coll, n, took) in [
        ("machines", args.machines, load_m),
        ("jobs", args.jobs, load_j),
    ] {
        t.row([
            coll.to_owned(),
            count(n, "ad"),
            duration(took),
            rate(n, took),
        ]);
    }
    t.row([
        "on disk".to_owned(),
        human_bytes(stats.bytes),
        String::new(),
        format!("{} bytes/ad", thousands(stats.bytes / n_ads.max(1))),
    ]);
    report.section(
        "Load (one bulk load per collection, flushed once at its end)",
        &t,
    );

    // Queries.
    let mut t = Table::aligned("lrrl");
    let queries = [
        (
            "idle LINUX slots with >= 16 GB",
            "machines",
            r#"State == "Unclaimed" && OpSys == "LINUX" && Memory >= 16384"#,
        ),
        (
            "idle slots willing to start now",
            "machines",
            r#"State == "Unclaimed" && Start"#,
        ),
        ("jobs of raman", "jobs", r#"Owner == "raman""#),
        (
            "big jobs (> 100 MB image)",
            "jobs",
            "ImageSize > 100000 && RequestMemory >= 4096",
        ),
    ];
    for (what, coll, constraint) in queries {
        let (ads, took) = timed_query(&db, coll, constraint)?;
        t.row([
            what.to_owned(),
            count(ads.len() as u64, "ad"),
            duration(took),
            format!("{coll}: {constraint}"),
        ]);
    }
    let probe = "slot1@host0.pool.example";
    let start = Instant::now();
    let found = db.get("machines", probe)?.is_some();
    t.row([
        "one slot by id".to_owned(),
        if found { "found" } else { "not found" }.to_owned(),
        duration(start.elapsed()),
        format!("machines: get {probe}"),
    ]);
    report.section(
        "Queries (through each collection's spatial index: probes, then the constraint evaluated with each candidate as MY to confirm)",
        &t,
    );

    // Count by Arch/OpSys, against the model's shares.
    let start = Instant::now();
    let mut by: BTreeMap<(String, String), u64> = BTreeMap::new();
    for ad in db.scan("machines")? {
        let ad = ad?;
        let key = (
            text_attr(&ad.ad, "Arch", &opts),
            text_attr(&ad.ad, "OpSys", &opts),
        );
        *by.entry(key).or_default() += 1;
    }
    let took = start.elapsed();
    let mut t = Table::aligned("llrrr");
    t.row(["Arch", "OpSys", "slots", "share", "model"].map(String::from));
    let total_slots: u64 = by.values().sum();
    let mut rows: Vec<_> = by.into_iter().collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    for ((arch, os), n) in rows {
        let model = w
            .arch_os()
            .iter()
            .find(|m| m.0 == arch && m.1 == os)
            .map_or(String::from("-"), |m| format!("{:.1}%", m.2 * 100.0));
        let share = 100.0 * n as f64 / total_slots.max(1) as f64;
        t.row([arch, os, thousands(n), format!("{share:.1}%"), model]);
    }
    report.section(
        &format!(
            "Machines by Arch/OpSys (one scan, {}; model: dissertation Figure 26's shares on today's platforms)",
            duration(took)
        ),
        &t,
    );

    // Matchmaking: one cycle, jobs in load order against every machine.
    let cycle = adjoin::cycle::run(&db, &CycleOptions::new("jobs", "machines"))?;
    let _ = writeln!(
        report.text,
        "\nMatchmaking cycle (jobs in load order; each takes the compatible machine its docking \
         vector [job Rank, machine Rank] prefers; matched ads consumed, each match recorded)\n  \
         {} of {} placed on {} in {}; {} index probes, {} evaluations",
        thousands(cycle.matched as u64),
        count(cycle.requests as u64, "job"),
        count(total_slots, "machine"),
        duration(Duration::from_secs_f64(cycle.seconds)),
        thousands(cycle.probes),
        thousands(cycle.evaluations)
    );
    if let Some(m) = cycle.matches.first() {
        // The matched slot re-advertises, as a startd does: an update older than the one
        // matched is stale, the next one (now Claimed) is stored; the match record stays.
        let update = |seq: i64, state: &str| {
            let mut ad = ClassAd::new();
            ad.set("Name", Expr::lit(Value::str(&m.offer)));
            ad.set("State", Expr::lit(Value::str(state)));
            ad.set("UpdateSequenceNumber", Expr::lit(Value::Int(seq)));
            ad
        };
        let stale = match db.put("machines", &update(0, "Unclaimed")) {
            Err(DbError::Ad(e @ AdError::Stale { .. })) => format!("refused ({e})"),
            Ok(_) => "stored (unexpected: it was stale)".to_owned(),
            Err(e) => e.to_string(),
        };
        let fresh = match db.put("machines", &update(i64::from(u16::MAX), "Claimed")) {
            Ok(_) => "stored".to_owned(),
            Err(e) => format!("refused ({e})"),
        };
        let _ = writeln!(
            report.text,
            "  re-advertising a matched machine: a stale update {stale}; its next update (State = \"Claimed\") {fresh}"
        );
    }

    // Gangmatching: jobs needing a machine and a license (the dissertation's base workload).
    let w = adjoin_workload::gangs::base(1_000, 50, 4, args.seed)?;
    for (coll, ads) in [
        ("gang_jobs", &w.jobs),
        ("gang_machines", &w.machines),
        ("gang_licenses", &w.licenses),
    ] {
        bulk_load(&db, coll, ads)?;
    }
    let gangs = db.gang_cycle(&adjoin::gang::GangOptions::new(
        "gang_jobs",
        &["gang_machines", "gang_licenses"],
    ))?;
    let _ = writeln!(
        report.text,
        "\nGang cycle (the dissertation's base workload: {} needing a machine and a license; {}, \
         {} valid on a quarter of the machines each; algorithm {})\n  \
         {} given gangs in {}; {} index probes, {} evaluations",
        count(w.jobs.len() as u64, "job"),
        count(w.machines.len() as u64, "machine"),
        count(w.licenses.len() as u64, "license"),
        gangs.algorithm,
        thousands(gangs.matched as u64),
        duration(Duration::from_secs_f64(gangs.seconds)),
        thousands(gangs.probes),
        thousands(gangs.evaluations)
    );
    if let Some(g) = gangs.gangs.first() {
        let parts: Vec<String> = g
            .members
            .iter()
            .map(|m| format!("{} = {}", m.path, m.offer))
            .collect();
        let _ = writeln!(
            report.text,
            "  first gang: {} <- {}",
            g.request,
            parts.join(", ")
        );
    }

    // Restart: close, reopen, first answer.
    drop(db);
    let start = Instant::now();
    let db = DbPath::from_flag(Some(&path)).open_existing()?;
    let reopened = start.elapsed();
    let e = parse_constraint(Some(r#"OpSys == "LINUX""#))?;
    let n_linux = db.count("machines", Some(&e))?;
    let first = start.elapsed();
    let stats = db.stats()?;
    let _ = writeln!(
        report.text,
        "\nAfter a restart\n  reopened in {}; first answer after {} (machines: OpSys == \"LINUX\" -> {})",
        duration(reopened),
        duration(first),
        count(n_linux, "ad")
    );
    let mut t = Table::aligned("lrr");
    for c in &stats.collections {
        t.row([
            c.name.clone(),
            count(c.ads, "ad"),
            count(c.tombstones, "tombstone"),
        ]);
    }
    t.row([
        "matches".to_owned(),
        thousands(stats.matches),
        String::new(),
    ]);
    report.text.push_str(&t.render(2));

    let db_arg = shell_word(&path.display().to_string());
    let _ = write!(
        report.text,
        "\nDone in {}. Explore the database:\n  \
         adjoin --db {db_arg} stats\n  \
         adjoin --db {db_arg} query --from machines --attrs Name,Arch,OpSys,Memory 'OpSys == \"LINUX\" && Memory >= 16384'\n  \
         adjoin --db {db_arg} query --from jobs --count 'Owner == \"raman\"'\n  \
         adjoin --db {db_arg} matches\n",
        duration(total.elapsed())
    );
    let mut out = super::stdout();
    std::io::Write::write_all(&mut out, report.text.as_bytes())?;
    std::io::Write::flush(&mut out)?;
    Ok(ExitCode::SUCCESS)
}

/// `s` quoted for a POSIX shell when it needs it.
fn shell_word(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shell_words() {
        for (s, want) in [
            ("/tmp/adjoin-demo.db", "/tmp/adjoin-demo.db"),
            ("a b", "'a b'"),
            ("it's", r"'it'\''s'"),
            ("", "''"),
        ] {
            assert_eq!(shell_word(s), want);
        }
    }

    #[test]
    fn an_existing_database_is_not_overwritten() {
        let dir = tempfile::tempdir().expect("tempdir");
        let full = dir.path().join("full.db");
        std::fs::create_dir(&full).expect("mkdir");
        std::fs::write(full.join("x"), "x").expect("write");
        let empty = dir.path().join("empty.db");
        std::fs::create_dir(&empty).expect("mkdir");
        let fresh = dir.path().join("fresh.db");
        assert!(demo_path(Some(&full)).is_err());
        assert_eq!(demo_path(Some(&empty)).expect("empty"), empty);
        assert_eq!(demo_path(Some(&fresh)).expect("fresh"), fresh);
    }
}
