//! The spatial index through the binary (`adjoin join`, `adjoin candidates`, `adjoin query
//! --explain`) on the dissertation's job/machine model (`shared/workloads/ads_1000.txt`: 1,000
//! machines then 1,000 jobs), loaded once into a temporary database shared by the tests.

mod common;

use common::cli::{self, Out};
use std::sync::{Mutex, MutexGuard, OnceLock};

/// A temporary directory holding the database (`adjoin.db`) with collections `machines` and
/// `jobs`; one process at a time may open it, so tests take turns through a mutex.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    /// Runs `adjoin ARGS` in the sandbox, retrying while the previous process's database
    /// lock lingers.
    fn run(&self, args: &[&str]) -> Out {
        cli::run_when_free(args, self.dir.path())
    }

    /// Runs and expects exit status 0.
    fn ok(&self, args: &[&str]) -> Out {
        let out = self.run(args);
        assert_eq!(out.code, 0, "adjoin {args:?}: {out:?}");
        out
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.dir.path().join(name), text).expect("write");
    }
}

/// The shared sandbox, loaded on first use: machines (lines 1–1,000) and jobs (the rest), each
/// keyed by `Key`.
fn sandbox() -> MutexGuard<'static, Sandbox> {
    static SB: OnceLock<Mutex<Sandbox>> = OnceLock::new();
    let m = SB.get_or_init(|| {
        let sb = Sandbox {
            dir: tempfile::tempdir().expect("tempdir"),
        };
        let text = common::read("../shared/workloads/ads_1000.txt");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines.len(),
            2000,
            "ads_1000.txt: 1,000 machines then 1,000 jobs"
        );
        sb.write("machines.ads", &(lines[..1000].join("\n") + "\n"));
        sb.write("jobs.ads", &(lines[1000..].join("\n") + "\n"));
        for (coll, file) in [("machines", "machines.ads"), ("jobs", "jobs.ads")] {
            sb.ok(&["load", "--into", coll, "--id-attr", "Key", file]);
        }
        Mutex::new(sb)
    });
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The offer ids of each line of `join --json`, with the request id.
fn parse_join(stdout: &str) -> Vec<(String, Vec<String>)> {
    stdout
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).expect("a JSON line");
            let id = v["request"].as_str().expect("request id").to_owned();
            let offers = v["offers"].as_array().expect("offers");
            let offers = offers.iter().map(|o| o.as_str().expect("id").to_owned());
            (id, offers.collect())
        })
        .collect()
}

#[test]
fn indexed_and_naive_joins_agree_with_htcondor() {
    let sb = sandbox();
    let join = [
        "join",
        "--requests",
        "jobs",
        "--offers",
        "machines",
        "--json",
    ];
    let indexed = sb.ok(&join).stdout;
    let naive = sb.ok(&[&join[..], &["--naive"]].concat()).stdout;
    assert_eq!(indexed, naive);
    let rows = parse_join(&indexed);
    assert_eq!(rows.len(), 1000);
    let total: usize = rows.iter().map(|(_, o)| o.len()).sum();
    assert_eq!(total, 109_616, "HTCondor's count of matching pairs");
    // Keys were loaded in ascending order, so load order is numeric order.
    for (id, offers) in &rows {
        let keys: Vec<u32> = offers.iter().map(|o| o.parse().expect("key")).collect();
        assert!(
            keys.windows(2).all(|w| w[0] < w[1]),
            "request {id}: {keys:?}"
        );
    }
    // The text form says the same.
    let text = sb.ok(&join[..5]).stdout;
    for (line, (id, offers)) in text.lines().zip(&rows) {
        let want = std::iter::once(format!("{id}:"))
            .chain(offers.iter().cloned())
            .collect::<Vec<_>>()
            .join(" ");
        assert_eq!(line, want);
    }
}

#[test]
fn candidates_equal_naive_and_the_join() {
    let sb = sandbox();
    let text = common::read("../shared/workloads/ads_1000.txt");
    let jobs: Vec<&str> = text.lines().skip(1000).collect();
    let joined = parse_join(
        &sb.ok(&[
            "join",
            "--requests",
            "jobs",
            "--offers",
            "machines",
            "--json",
        ])
        .stdout,
    );
    for j in [0, 1, 2, 500, 999] {
        sb.write("job.ad", jobs[j]);
        let args = ["candidates", "--from", "machines", "--ad", "job.ad"];
        let indexed = sb.ok(&args).stdout;
        assert_eq!(indexed, sb.ok(&[&args[..], &["--naive"]].concat()).stdout);
        let ids: Vec<&str> = indexed.lines().collect();
        assert_eq!(ids, joined[j].1, "job {j}");
        let json = sb.ok(&[&args[..], &["--json"]].concat()).stdout;
        let keys: Vec<String> = json
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("JSON ad");
                v["Key"].to_string()
            })
            .collect();
        assert_eq!(keys, ids, "job {j} --json");
    }
}

#[test]
fn explain_changes_only_stderr() {
    let sb = sandbox();
    for (coll, constraint, flags) in [
        ("machines", "Memory >= 128 && Arch == \"INTEL\"", &[][..]),
        (
            "machines",
            "OpSys == \"LINUX\" || Memory < 64",
            &["--json"][..],
        ),
        (
            "jobs",
            "MemoryReqs > 100",
            &["--attrs", "Key,MemoryReqs"][..],
        ),
        ("jobs", "Owner =?= \"nobody\"", &["--count"][..]),
        ("machines", "true", &["--count"][..]),
    ] {
        let args = [&["query", "--from", coll][..], flags, &[constraint]].concat();
        let plain = sb.ok(&args);
        assert_eq!(plain.stderr, "");
        let explained = sb.ok(&[&args[..], &["--explain"]].concat());
        assert_eq!(explained.stdout, plain.stdout, "{constraint}");
        let err = &explained.stderr;
        assert!(err.starts_with("one-sided query"), "{constraint}: {err}");
        assert!(
            err.contains("candidates ") && err.contains("confirmed "),
            "{err}"
        );
    }
}

#[test]
fn bad_requests_are_reported() {
    let sb = sandbox();
    sb.write("bad.ad", "[Memory = ]");
    sb.write("two.ad", "[a = 1]\n[a = 2]\n");
    sb.write("one.ad", "[a = 1]\n");
    for (args, code, msg) in [
        (
            &["join", "--requests", "jobz", "--offers", "machines"][..],
            1,
            "no collection jobz",
        ),
        (
            &["candidates", "--from", "machines", "--ad", "bad.ad"][..],
            2,
            "ad bad.ad does not parse",
        ),
        (
            &["candidates", "--from", "machines", "--ad", "two.ad"][..],
            2,
            "expected exactly one ClassAd, found 2",
        ),
        (
            &["candidates", "--from", "machines", "--ad", "none.ad"][..],
            2,
            "reading none.ad",
        ),
        (
            &["candidates", "--from", "nope", "--ad", "one.ad"][..],
            1,
            "no collection nope",
        ),
    ] {
        let out = sb.run(args);
        assert_eq!(out.code, code, "{args:?}: {out:?}");
        assert!(out.stderr.contains(msg), "{args:?}: {}", out.stderr);
    }
}
