//! `adjoin query`'s condor_status-style outputs against golden files
//! (`tests/golden/cli-query/NAME.out`): `--af`, `--sort`, `--limit`, `--total`,
//! `--json=array` and `--attrs`, on the real slot ads of the README's tour (`docs/tour/`);
//! and `--wait` for a database another process holds. `ADJOIN_BLESS=1` rewrites the golden
//! files from the binary's output (then review the diff).

mod common;

use adjoin::{Db, DbOptions};
use common::cli;
use std::path::{Path, PathBuf};

/// The repository's root (this package is engine/cli).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// A temporary directory whose `adjoin.db` holds the tour's slot ads in `slots`.
fn loaded() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let tour = root().join("docs/tour");
    let files: Vec<String> = ["basic4slot", "partionable8core", "small1slot"]
        .iter()
        .map(|f| tour.join(format!("StatusAds-{f}")).display().to_string())
        .collect();
    let mut args = vec!["load", "--into", "slots"];
    args.extend(files.iter().map(String::as_str));
    let out = cli::run(&args, dir.path(), "", &[]);
    assert_eq!(out.code, 0, "{out:?}");
    dir
}

/// Compares `got` with golden file `name`, or writes it when blessing.
fn golden(name: &str, got: &str) {
    let path = root()
        .join("tests/golden/cli-query")
        .join(format!("{name}.out"));
    if std::env::var_os("ADJOIN_BLESS").is_some() {
        std::fs::write(&path, got).expect("bless");
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (ADJOIN_BLESS=1 writes it)", path.display()));
    assert_eq!(got, want, "golden {name}");
}

#[test]
fn condor_status_outputs() {
    let dir = loaded();
    // (golden file, arguments after `query --from slots`)
    let cases: &[(&str, &[&str])] = &[
        ("af", &["Memory > 1024", "--af", "Name", "Cpus", "Memory"]),
        (
            "af-missing-and-exprs",
            &[
                "--af",
                "Name",
                "NoSuchAttr",
                "Memory / 1024",
                "State == \"Claimed\"",
            ],
        ),
        ("sort", &["--sort", "Memory", "--af", "Name", "Memory"]),
        (
            "sort-two-keys",
            &["--sort", "State", "--sort", "Name", "--af", "State", "Name"],
        ),
        ("limit", &["--limit", "2", "--af", "Name"]),
        (
            "sort-limit",
            &[
                "--sort", "-Memory", "--limit", "3", "--af", "Name", "Memory",
            ],
        ),
        ("limit-count", &["--count", "--limit", "4"]),
        ("total", &["--total"]),
        ("total-constraint", &["--total", "State == \"Claimed\""]),
        (
            "json-array",
            &["--json=array", "--attrs", "Name,Cpus", "--limit", "2"],
        ),
        ("json-array-empty", &["--json=array", "false"]),
        (
            "attrs",
            &["--attrs", "Name, Memory, NoSuchAttr", "Cpus > 1"],
        ),
        (
            "new-attrs",
            &["--new", "--attrs", "Name,Memory,Cpus", "--sort", "Name"],
        ),
    ];
    for (name, args) in cases {
        let mut all = vec!["query", "--from", "slots"];
        all.extend_from_slice(args);
        let out = cli::run(&all, dir.path(), "", &[]);
        assert_eq!(out.code, 0, "{name}: {out:?}");
        golden(name, &out.stdout);
    }
}

/// `--new` prints one ad a line in new syntax, which loads back into the same ads.
#[test]
fn new_syntax_lines_load_back() {
    let dir = loaded();
    let out = cli::run(&["query", "--from", "slots", "--new"], dir.path(), "", &[]);
    assert_eq!(out.code, 0, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(lines.len() > 3, "{out:?}");
    assert!(lines
        .iter()
        .all(|l| l.starts_with("[ ") && l.ends_with(" ]")));
    let file = dir.path().join("slots.new");
    std::fs::write(&file, &out.stdout).expect("write");
    let file = file.display().to_string();
    let load = cli::run(&["load", "--into", "again", &file], dir.path(), "", &[]);
    assert_eq!(load.code, 0, "{load:?}");
    let db = Db::open(dir.path().join("adjoin.db")).expect("open");
    let ads = |c: &str| -> Vec<(String, adjoin::query::ClassAd)> {
        db.scan(c)
            .expect("scan")
            .map(|a| {
                let a = a.expect("readable");
                (a.id().to_owned(), a.ad)
            })
            .collect()
    };
    assert_eq!(
        ads("slots"),
        ads("again"),
        "the same ads, in the same order"
    );
}

#[test]
fn attrs_warn_of_names_no_ad_has() {
    let dir = loaded();
    let out = cli::run(
        &[
            "query",
            "--from",
            "slots",
            "--attrs",
            "Name, Bogus",
            "--limit",
            "1",
        ],
        dir.path(),
        "",
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.stdout, "Name = \"slot1@ingwe.cs.wisc.edu\"\n\n");
    assert_eq!(
        out.stderr,
        "adjoin: warning: no ad printed has an attribute Bogus\n"
    );
}

#[test]
fn bad_sort_and_af_expressions_are_placed() {
    let dir = loaded();
    for (args, want) in [
        (
            &["--sort", "Memory +"][..],
            "adjoin: --sort expression does not parse: 1:9",
        ),
        (
            &["--af", "Name", "("][..],
            "adjoin: --af expression does not parse: 1:2",
        ),
    ] {
        let mut all = vec!["query", "--from", "slots"];
        all.extend_from_slice(args);
        let out = cli::run(&all, dir.path(), "", &[]);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(out.stderr.starts_with(want), "{args:?}: {}", out.stderr);
    }
}

#[test]
fn wait_for_a_database_another_process_holds() {
    let dir = loaded();
    let db_path = dir.path().join("adjoin.db");
    // This test's process holds the database, as a long load would.
    let held = Db::open_with(&db_path, &DbOptions::default()).expect("hold");
    let at_once = cli::run(
        &["query", "--from", "slots", "--count"],
        dir.path(),
        "",
        &[],
    );
    assert_eq!(at_once.code, 2, "{at_once:?}");
    assert!(
        at_once.stderr.contains("database in use"),
        "{}",
        at_once.stderr
    );
    // With --wait the query waits for the holder to let go (here: after half a second).
    let releaser = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(500));
        held.close().expect("close");
    });
    let waited = cli::run(
        &["--wait", "30", "query", "--from", "slots", "--count"],
        dir.path(),
        "",
        &[],
    );
    releaser.join().expect("releaser");
    assert_eq!(waited.code, 0, "{waited:?}");
    assert_eq!(waited.stdout, "9\n");
    let bad = cli::run(&["--wait", "-1", "stats"], dir.path(), "", &[]);
    assert_eq!(bad.code, 2, "{bad:?}");
}
