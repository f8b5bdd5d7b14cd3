//! The command line against a hostile user (findings of an adversarial audit): unwritable
//! output never panics, paths that are not databases are refused untouched, a byte-order mark
//! is passed over, and mistakes that would answer "nothing" say what is wrong instead.

mod common;

use common::cli;
use std::path::Path;
use std::process::{Command, Stdio};

/// The `adjoin` binary (these tests are adjoin-cli's).
const BIN: &str = env!("CARGO_BIN_EXE_adjoin");

/// A directory with a small database `adjoin.db` (two machines, one job, one match).
fn loaded() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let p = dir.path();
    std::fs::write(
        p.join("m.ads"),
        "[Name = \"m1\"; Memory = 2048; Requirements = true]\n\
         [Name = \"m2\"; Memory = 4096; Requirements = true]\n",
    )
    .expect("write");
    std::fs::write(
        p.join("j.ads"),
        "[Name = \"j1\"; Requirements = TARGET.Memory >= 1024]\n",
    )
    .expect("write");
    for args in [
        &["load", "--into", "machines", "m.ads"][..],
        &["load", "--into", "jobs", "j.ads"],
        &["match", "--requests", "jobs", "--offers", "machines"],
    ] {
        let out = cli::run_when_free(args, p);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
    }
    dir
}

#[test]
fn unwritable_output_is_an_error_not_a_panic() {
    let dir = loaded();
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    // Standard output full, then standard error full: each command ends with a status of its
    // own (2 for output it could not write), never 101 (a panic).
    for args in [
        &["stats"][..],
        &["check"],
        &["matches"],
        &["query", "--from", "machines"],
        &["query", "--from", "nope"],
        &["rm", "--from", "jobs", "nope"],
        &["prune", "--keep", "10"],
        &["maintain"],
    ] {
        for to_stderr in [false, false, true] {
            let file = || {
                std::fs::File::options()
                    .write(true)
                    .open(full)
                    .expect("full")
            };
            let mut cmd = Command::new(BIN);
            cmd.args(args)
                .current_dir(dir.path())
                .env_remove("ADJOIN_DB");
            cmd.stdin(Stdio::null());
            match to_stderr {
                false => cmd.stdout(file()).stderr(Stdio::piped()),
                true => cmd.stdout(Stdio::null()).stderr(file()),
            };
            let out = cmd.output().expect("run");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_ne!(out.status.code(), Some(101), "{args:?}: {stderr}");
            assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
            if !to_stderr && out.status.code() == Some(2) {
                assert!(stderr.contains("standard output"), "{args:?}: {stderr}");
            }
        }
    }
    // Nothing was lost on the way: the machine the match took stays taken, the other is
    // there, and the match is recorded.
    let out = cli::run(
        &["query", "--from", "machines", "--count"],
        dir.path(),
        "",
        &[],
    );
    assert_eq!(out.stdout, "1\n", "{out:?}");
    let out = cli::run(&["matches", "--json"], dir.path(), "", &[]);
    assert_eq!(out.stdout.lines().count(), 1, "one match: {out:?}");
}

#[test]
fn mistakes_are_said_not_answered_with_nothing() {
    let dir = loaded();
    let p = dir.path();
    std::fs::create_dir(p.join("notes")).expect("mkdir");
    std::fs::write(p.join("notes/a.txt"), "mine").expect("write");
    std::fs::create_dir(p.join("empty")).expect("mkdir");
    std::fs::write(p.join("bom.ad"), "\u{feff}Name = \"b1\"\nA = 1\n").expect("write");
    std::fs::write(p.join("bom.json"), "\u{feff}[{\"Name\": \"b2\", \"A\": 2}]").expect("write");
    std::fs::write(p.join("noname.json"), "[{\"\": 4, \"A\": 1}]").expect("write");
    // (args, exit status, what standard output or error holds)
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["--db", "notes", "stats"],
            2,
            "notes is not an adjoin database",
        ),
        (
            &["--db", "notes", "load", "--into", "c", "bom.ad"],
            2,
            "is not an adjoin database",
        ),
        (
            &["--db", "empty", "query", "--from", "c"],
            2,
            "no database at empty",
        ),
        (
            &["--db", "no/such.db", "load", "--into", "c", "bom.ad"],
            2,
            "cannot create a database",
        ),
        (&["demo", "--machines", "0", "--db", "d"], 2, "--machines"),
        (
            &["demo", "--jobs", "18446744073709551615", "--db", "d"],
            2,
            "--jobs",
        ),
        (&["load", "--into", "bom", "bom.ad"], 0, "loaded 1 ad"),
        (
            &["load", "--into", "bom", "--format", "json", "bom.json"],
            0,
            "loaded 1 ad",
        ),
        (
            &["query", "--from", "bom", "--af", "Name", "A"],
            0,
            "b1 1\nb2 2\n",
        ),
        (&["eval", "--ad", "bom.ad", "Name"], 0, "\"b1\""),
        (
            &["load", "--into", "x", "noname.json"],
            1,
            "must not be empty",
        ),
        (&["eval", "[ a = [ '' = 1 ] ]"], 1, "must not be empty"),
        (
            &["load", "--into", "x", "notes"],
            2,
            "a directory, not a file",
        ),
        (
            &["--db", "fresh.db", "load", "--into", "x", "notes"],
            2,
            "a directory, not a file",
        ),
        (
            &["eval", "--ad", "-", "-"],
            2,
            "standard input (`-`) can be read once",
        ),
        (&["load", "--into", "more", "j.ads"], 0, "loaded 1 ad"),
        (
            &[
                "match",
                "--dry-run",
                "--requests",
                "more",
                "--offers",
                "machines",
                "--dock",
                "offer.Memory - CurrentTime",
            ],
            0,
            "1 matched",
        ),
        (
            &[
                "match",
                "--dry-run",
                "--requests",
                "jobs",
                "--offers",
                "machines",
                "--dock",
                "reqest.Rank",
            ],
            2,
            "reads reqest, which is neither request.X nor offer.X",
        ),
        (&["matches", "--ad", "nope", "x"], 1, "no collection nope"),
        (
            &[
                "analyze",
                "--reverse",
                "--requests",
                "jobs",
                "--offer",
                "m1",
                "--from",
                "machines",
                "--offers",
                "machines",
            ],
            2,
            "without --offers",
        ),
        (
            &["query", "--from", "machines", "--attrs", ",,,"],
            2,
            "no attribute names",
        ),
    ];
    for &(args, code, want) in cases {
        let out = cli::run_when_free(args, p);
        assert_eq!(out.code, code, "{args:?}: {out:?}");
        assert!(
            out.stdout.contains(want) || out.stderr.contains(want),
            "{args:?}: {out:?}"
        );
    }
    // The refusals wrote nothing where they were refused.
    assert_eq!(std::fs::read_dir(p.join("notes")).expect("ls").count(), 1);
    assert_eq!(std::fs::read_dir(p.join("empty")).expect("ls").count(), 0);
    assert!(!p.join("no").exists() && !p.join("d").exists() && !p.join("fresh.db").exists());
    // A byte-order mark opening the expressions read from standard input is passed over.
    let out = cli::run(&["eval", "-"], p, "\u{feff}1 + 1\n2 * 3\n", &[]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "2\n6\n"), "{out:?}");
}
