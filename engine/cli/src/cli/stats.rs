//! `adjoin stats`: ads, expired ads and tombstones per collection, matches recorded, what
//! maintenance would remove (lapsed tombstones, dead records), and the bytes the database
//! occupies.

use super::db_arg::DbPath;
use super::render::{human_bytes, thousands, Table};
use adjoin::storage::Stats;
use anyhow::Result;
use clap::Args;
use std::io::Write;
use std::process::ExitCode;

/// Arguments of `adjoin stats`.
#[derive(Args)]
pub struct StatsArgs {}

/// The report `adjoin stats` prints.
pub fn render(s: &Stats) -> String {
    let mut t = Table::default();
    t.row(["collection", "ads", "expired", "tombstones"]);
    let (mut ads, mut expired, mut tombs) = (0, 0, 0);
    for c in &s.collections {
        t.row([
            c.name.clone(),
            thousands(c.ads),
            thousands(c.expired),
            thousands(c.tombstones),
        ]);
        ads += c.ads;
        expired += c.expired;
        tombs += c.tombstones;
    }
    if s.collections.len() > 1 {
        t.row([
            "(all)".to_owned(),
            thousands(ads),
            thousands(expired),
            thousands(tombs),
        ]);
    }
    let mut out = format!("database: {} (format {})\n", s.backend, s.format);
    if s.collections.is_empty() {
        out.push_str("no collections\n");
    } else {
        out.push_str(&t.render(0));
    }
    out.push_str(&format!("matches: {}\n", thousands(s.matches)));
    let dead: u64 = s.collections.iter().map(|c| c.dead).sum();
    let dead_bytes: u64 = s.collections.iter().map(|c| c.dead_bytes).sum();
    if dead > 0 || s.lapsed_tombstones > 0 {
        // Lapsed tombstones are due now; dead records go with their tombstones, when those
        // lapse.
        out.push_str(&format!(
            "for maintenance: {} lapsed tombstones (due now); {} dead records, {} ({} bytes), \
             removed with their tombstones\n",
            thousands(s.lapsed_tombstones),
            thousands(dead),
            human_bytes(dead_bytes),
            dead_bytes
        ));
    }
    out.push_str(&format!(
        "bytes on disk: {} ({} bytes)\n",
        human_bytes(s.bytes),
        s.bytes
    ));
    out.push_str(SOURCE);
    out
}

/// Where the numbers come from: on a damaged store they are what was written, not what can
/// be read.
const SOURCE: &str = "counts from the catalog and the index every write keeps (no ad is read; \
                      `adjoin check` reads them all)\n";

/// Runs `adjoin stats`.
pub fn run(_args: StatsArgs, db: &DbPath) -> Result<ExitCode> {
    let db = db.open_existing()?;
    let mut out = super::stdout();
    out.write_all(render(&db.stats()?).as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin::storage::CollectionStats;

    fn coll(name: &str, ads: u64, expired: u64, tombstones: u64) -> CollectionStats {
        CollectionStats {
            name: name.into(),
            ads,
            expired,
            tombstones,
            dead: tombstones / 2,
            dead_bytes: tombstones * 100,
        }
    }

    #[test]
    fn reports() {
        let stats = |collections| Stats {
            collections,
            matches: 3,
            lapsed_tombstones: 0,
            bytes: 2048,
            backend: "sled at x.db".into(),
            format: 1,
        };
        for (s, want) in [
            (
                stats(vec![]),
                format!("database: sled at x.db (format 1)\nno collections\nmatches: 3\nbytes on disk: 2.0 KiB (2048 bytes)\n{SOURCE}"
                ),
            ),
            (
                stats(vec![coll("jobs", 5000, 0, 2), coll("machines", 20000, 1, 0)]),
                format!(
                    "database: sled at x.db (format 1)\n\
                 collection     ads  expired  tombstones\n\
                 jobs         5,000        0           2\n\
                 machines    20,000        1           0\n\
                 (all)       25,000        1           2\n\
                 matches: 3\nfor maintenance: 0 lapsed tombstones (due now); 1 dead records, 200 B (200 bytes), removed with their tombstones\n\
                 bytes on disk: 2.0 KiB (2048 bytes)\n{SOURCE}"
                ),
            ),
        ] {
            assert_eq!(render(&s), want);
        }
    }
}
