//! Parsing HTCondor's real slot ads (about 145 attributes each, old syntax) — ads per second —
//! and, in the same run, the same files through HTCondor's own library when its Python module is
//! available (`ADJOIN_ORACLE_PYTHON`, default `/work/oracle-venv/bin/python`).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::query::parse::{self, Format};
use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use std::path::PathBuf;
use std::process::Command;

const FILES: &[&str] = &[
    "StatusAds-basic4slot",
    "StatusAds-partionable8core",
    "StatusAds-small1slot",
];

fn real_ads_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared/conformance/real-ads")
}

fn bench(c: &mut Criterion) {
    let texts: Vec<String> = FILES
        .iter()
        .map(|f| std::fs::read_to_string(real_ads_dir().join(f)).expect("real ads beside the repo"))
        .collect();
    let ads: usize = texts
        .iter()
        .map(|t| parse::ads(t, Format::Old).expect("real ads parse").len())
        .sum();
    let mut group = c.benchmark_group("parse_real_slot_ads");
    group.throughput(Throughput::Elements(ads as u64));
    group.bench_function("adjoin_old_syntax", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(parse::ads(black_box(t), Format::Old).expect("parses"));
            }
        })
    });
    group.finish();
    htcondor_same_run();
}

/// Times HTCondor's parser on the same files, if its Python module is installed.
fn htcondor_same_run() {
    let python = std::env::var("ADJOIN_ORACLE_PYTHON")
        .unwrap_or_else(|_| "/work/oracle-venv/bin/python".to_string());
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../benches/htcondor_parse.py");
    let files: Vec<PathBuf> = FILES.iter().map(|f| real_ads_dir().join(f)).collect();
    match Command::new(&python).arg(&script).args(&files).output() {
        Ok(out) if out.status.success() => {
            print!("{}", String::from_utf8_lossy(&out.stdout));
        }
        _ => println!("HTCondor's library not available at {python}; set ADJOIN_ORACLE_PYTHON"),
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
