//! `adjoin demo` through the binary: it builds a database of a generated pool, prints its
//! summary, leaves a database the other commands read, and never overwrites a database it was
//! not asked to create.

mod common;

use std::path::Path;

/// Runs `adjoin ARGS` with `TMPDIR` set to `tmp`; returns (stdout, stderr, exit status).
fn adjoin(args: &[&str], tmp: &Path) -> (String, String, i32) {
    let out = common::cli::run(args, tmp, "", &[("TMPDIR", tmp)]);
    (out.stdout, out.stderr, out.code)
}

/// A small pool, so that the test stays quick in a debug build.
const SMALL: [&str; 4] = ["--machines", "2000", "--jobs", "500"];

/// How many jobs the summary says were placed (`  19 of 20 jobs placed on …`).
fn placed(summary: &str) -> u64 {
    let line = summary
        .lines()
        .find(|l| l.contains(" jobs placed on "))
        .unwrap_or_else(|| panic!("no placement line in\n{summary}"));
    let n = line.split_whitespace().next().unwrap_or("");
    n.replace(',', "")
        .parse()
        .unwrap_or_else(|_| panic!("no number in {line:?}"))
}

#[test]
fn demo_builds_queries_and_summarises_a_pool() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let db = tmp.path().join("demo.db");
    let db_s = db.to_str().expect("utf8");
    let mut args = vec!["--db", db_s, "demo"];
    args.extend(SMALL);
    let (out, err, code) = adjoin(&args, tmp.path());
    assert_eq!(code, 0, "{err}");
    for want in [
        "adjoin demo: a generated pool of 2,000 machines and 500 jobs in ",
        "\nGenerated 2,000 slot ads (44 attributes each) and 500 job ads (24 attributes) in ",
        "\nLoad (one bulk load per collection, flushed once at its end)\n",
        "\n  machines  2,000 ads ",
        "\n  jobs        500 ads ",
        " ads/s\n",
        " bytes/ad\n",
        "\nQueries (through each collection's spatial index: probes, then the constraint evaluated with each candidate as MY to confirm)\n",
        " machines: State == \"Unclaimed\" && OpSys == \"LINUX\" && Memory >= 16384\n",
        "\n  jobs of raman ",
        "\n  one slot by id                     found ",
        " machines: get slot1@host0.pool.example\n",
        "\nMachines by Arch/OpSys (one scan, ",
        "\n  Arch     OpSys    slots  share  model\n",
        "\n  X86_64   LINUX ",
        " 31.9%\n",
        "\nMatchmaking cycle (",
        "\nAfter a restart\n  reopened in ",
        "\nDone in ",
        "adjoin --db ",
    ] {
        assert!(out.contains(want), "missing {want:?} in\n{out}");
    }
    // The summary agrees with the database it left.
    let matched = placed(&out);
    assert!(matched > 0 && matched <= 500, "{out}");
    assert!(
        out.contains(
            "re-advertising a matched machine: a stale update refused (stale update of ad "
        ) && out.contains("its next update (State = \"Claimed\") stored"),
        "a matched slot re-advertises:\n{out}"
    );
    let (count, _, code) = adjoin(
        &["--db", db_s, "query", "--count", "--from", "machines"],
        tmp.path(),
    );
    assert_eq!(code, 0);
    // The matched machines are consumed, but one re-advertised (its new ad stored).
    assert_eq!(
        count.trim().parse::<u64>().expect("count"),
        2000 - matched + 1
    );
    let (jobs, _, _) = adjoin(
        &["--db", db_s, "query", "--count", "--from", "jobs"],
        tmp.path(),
    );
    // A matched job is consumed with its machine.
    assert_eq!(jobs.trim().parse::<u64>().expect("count"), 500 - matched);
    // The gang cycle's gangs are match records too, one each.
    let gangs: u64 = out
        .lines()
        .find(|l| l.contains(" given gangs in "))
        .and_then(|l| l.split_whitespace().next())
        .and_then(|n| n.replace(',', "").parse().ok())
        .unwrap_or_else(|| panic!("no gang line in\n{out}"));
    assert!(gangs > 0, "{out}");
    let (matches, _, _) = adjoin(&["--db", db_s, "matches", "--json"], tmp.path());
    assert_eq!(matches.lines().count() as u64, matched + gangs);
    let (check, err, code) = adjoin(&["--db", db_s, "check"], tmp.path());
    assert_eq!(code, 0, "{check}{err}");
    // The Arch/OpSys table adds up to the slots generated.
    let table: u64 = out
        .split("\nMachines by Arch/OpSys")
        .nth(1)
        .and_then(|s| s.split("\n\n").next())
        .expect("table")
        .lines()
        .skip(2)
        .map(|l| {
            let cells: Vec<&str> = l.split_whitespace().collect();
            cells[2].replace(',', "").parse::<u64>().expect("slots")
        })
        .sum();
    assert_eq!(table, 2000, "{out}");

    // A second run on the same --db refuses rather than overwrite it.
    let (_, err, code) = adjoin(&args, tmp.path());
    assert_eq!(code, 2);
    assert!(err.contains("already exists"), "{err}");
}

#[test]
fn demo_without_db_uses_a_fresh_database_under_the_temp_dir() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let small = ["demo", "--machines", "200", "--jobs", "50"];
    for _ in 0..2 {
        // The second run replaces the first one's database.
        let (out, err, code) = adjoin(&small, tmp.path());
        assert_eq!(code, 0, "{err}");
        let db = tmp.path().join("adjoin-demo.db");
        assert!(out.contains(&format!(" in {}\n", db.display())), "{out}");
        assert!(db.is_dir());
        let (jobs, _, _) = adjoin(
            &[
                "--db",
                db.to_str().expect("utf8"),
                "query",
                "--count",
                "--from",
                "jobs",
            ],
            tmp.path(),
        );
        // A fresh pool each run: 50 jobs, less those the cycle consumed.
        assert_eq!(
            jobs.trim().parse::<u64>().expect("count"),
            50 - placed(&out)
        );
    }
    assert!(
        !tmp.path().join("adjoin.db").exists(),
        "the default database is untouched"
    );
}
