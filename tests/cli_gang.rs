//! `adjoin gang` through the binary: JSON lines and the summary object exactly as the issue
//! spells them, the text tree, one-request queries with `--ad`, consumption, and bad ports
//! reported by id with exit status 1 while the cycle goes on.

mod common;

use std::path::Path;

fn adjoin(dir: &Path, args: &[&str]) -> (String, String, i32) {
    let out = common::cli::run(args, dir, "", &[]);
    (out.stdout, out.stderr, out.code)
}

const JOBS: &str = r#"[Name = "j1"; Prio = 1; Ports = {[Label = cpu; MemoryReqs = 10; Requirements = cpu.Memory > 64],
    [Label = lic; HostId = cpu.Key; Requirements = lic.App == "sim"]}]
[Name = "j2"; Prio = 2; Ports = {[Label = cpu; MemoryReqs = 10; Requirements = cpu.Memory > 64],
    [Label = lic; HostId = cpu.Key; Requirements = lic.App == "sim"]}]
[Name = "bad"; Ports = {[Label = a; Requirements = true], [Label = a; Requirements = true]}]
"#;

const MACHINES: &str = r#"[Name = "m1"; Key = 1; Memory = 128; Requirements = TARGET.MemoryReqs < 100]
[Name = "m2"; Key = 2; Memory = 256; Ports = {[Label = job; Requirements = job.MemoryReqs < 100], [Label = lic; Requirements = lic.App == "os"]}]
"#;

const LICENSES: &str = r#"[Name = "l1"; App = "sim"; Ports = {[Label = job; Requirements = job.HostId == 2]}]
[Name = "os1"; App = "os"; Requirements = true]
"#;

fn setup(dir: &Path) {
    load(
        dir,
        &[
            ("jobs", JOBS),
            ("machines", MACHINES),
            ("licenses", LICENSES),
        ],
    );
}

/// A dry-run gang cycle of `jobs` over `vals`.
const GANG_JOBS_OVER_VALS: [&str; 6] = [
    "gang",
    "--requests",
    "jobs",
    "--offers",
    "vals",
    "--dry-run",
];

/// Loads each `(collection, text)` into the database in `dir`, through a file.
fn load(dir: &Path, colls: &[(&str, &str)]) {
    for (coll, text) in colls {
        let f = dir.join(format!("{coll}.ad"));
        std::fs::write(&f, text).expect("write");
        let (_, err, code) = adjoin(dir, &["load", "--into", coll, f.to_str().expect("utf8")]);
        assert_eq!(code, 0, "{err}");
    }
}

#[test]
fn json_lines_text_trees_and_queries() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    setup(dir);
    let base = [
        "gang",
        "--requests",
        "jobs",
        "--offers",
        "machines",
        "--offers",
        "licenses",
    ];
    // j2 first by priority; m2's second port takes the OS license: a gang of depth 2.
    let mut args = base.to_vec();
    args.extend([
        "--order-by",
        "Prio",
        "--dry-run",
        "--json",
        "--algorithm",
        "lr",
    ]);
    let (out, err, code) = adjoin(dir, &args);
    assert_eq!(code, 1, "bad ports give status 1: {err}");
    assert!(
        err.contains("jobs/bad: ports 0 and 1 are both labelled a"),
        "{err}"
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{out}");
    assert_eq!(
        lines[0],
        r#"{"request": "j2", "gang": [{"path": "cpu", "collection": "machines", "offer": "m2", "port": 0}, {"path": "cpu/lic", "collection": "licenses", "offer": "os1", "port": 0}, {"path": "lic", "collection": "licenses", "offer": "l1", "port": 0}]}"#
    );
    let summary: serde_json::Value = serde_json::from_str(lines[1]).expect("summary");
    assert_eq!(summary["summary"]["requests"], 3);
    assert_eq!(summary["summary"]["matched"], 1);
    assert_eq!(summary["summary"]["algorithm"], "lr");
    for k in ["seconds", "probes", "evaluations"] {
        assert!(summary["summary"][k].is_number(), "{k}");
    }
    // Text: an indented tree.
    let (out, _, _) = adjoin(dir, &base);
    assert!(
        out.starts_with("j1\n  cpu: machines/m2 (port 0)\n    lic: licenses/os1 (port 0)\n  lic: licenses/l1 (port 0)\n"),
        "{out}"
    );
    assert!(out.contains("3 requests, 1 given gangs in "), "{out}");
    // Consumed: a second cycle finds nothing, and a query for a new job neither.
    let (out, _, _) = adjoin(dir, &base);
    assert!(out.contains("2 requests, 0 given gangs"), "{out}");
    let one = dir.join("one.ad");
    std::fs::write(&one, JOBS.lines().take(2).collect::<Vec<_>>().join("\n")).expect("write");
    let (out, err, code) = adjoin(
        dir,
        &[
            "gang",
            "--ad",
            one.to_str().expect("utf8"),
            "--offers",
            "machines",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("\"matched\": 0"), "{out}");
}

/// A request read with `--ad` is named as `analyze --ad` names it: by its `Name` (else the file).
#[test]
fn a_query_names_the_request_by_its_name() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    setup(dir);
    for (file, text, want) in [
        (
            "one.ad",
            JOBS.lines().take(2).collect::<Vec<_>>().join("\n"),
            "\"request\": \"j1\"",
        ),
        (
            "anon.ad",
            "[Ports = {[Label = cpu; MemoryReqs = 10; Requirements = cpu.Memory > 64]}]".to_owned(),
            "anon.ad\"",
        ),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, text).expect("write");
        let args = [
            "gang",
            "--ad",
            path.to_str().expect("utf8"),
            "--offers",
            "machines",
            "--offers",
            "licenses",
            "--json",
        ];
        let (out, err, code) = adjoin(dir, &args);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(want), "{out}");
    }
}

/// A request whose search reaches `--search-bound` is reported as given up — a line naming it on
/// stderr and in the text summary — and gets its gang with the default bound.
#[test]
fn a_search_stopped_at_its_bound_is_reported() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let n = 20;
    let jobs = format!(
        "[Name = \"far\"; Ports = {{[Label = A; Constraint = true], [Label = B; Constraint = A.X + B.X == {}]}}]\n",
        2 * n - 3
    );
    let vals: String = (0..n)
        .map(|i| format!("[Name = \"v{i}\"; X = {i}; Requirements = true]\n"))
        .collect();
    load(dir, &[("jobs", &jobs), ("vals", &vals)]);
    let base = GANG_JOBS_OVER_VALS;
    let mut args = base.to_vec();
    args.extend(["--search-bound", "50"]);
    let (out, err, code) = adjoin(dir, &args);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("adjoin: far: gave up at the search bound; it may have a gang"),
        "{err}"
    );
    assert!(
        out.contains("1 requests, 0 given gangs, 1 gave up in "),
        "{out}"
    );
    let (out, err, _) = adjoin(dir, &base);
    assert!(err.is_empty(), "{err}");
    assert!(out.contains("1 requests, 1 given gangs in "), "{out}");
}

/// A request of 64 ports (a gang of 65 members, past the limit of 64) is reported as a bad
/// request, by id, with exit status 1, and searched no further; with `--ad` it is the
/// command's error.
#[test]
fn a_request_past_the_member_limit_is_refused() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dir = tmp.path();
    let ports: Vec<String> = (0..64)
        .map(|i| format!("[Label = p{i}; Requirements = p{i}.X >= 0]"))
        .collect();
    let wide = format!("[Name = \"wide\"; Ports = {{{}}}]\n", ports.join(", "));
    let vals: String = (0..70)
        .map(|i| format!("[Name = \"v{i}\"; X = {i}; Requirements = true]\n"))
        .collect();
    load(dir, &[("jobs", &wide), ("vals", &vals)]);
    let args = GANG_JOBS_OVER_VALS;
    let (out, err, code) = adjoin(dir, &args);
    assert_eq!(code, 1, "{err}");
    assert_eq!(
        err.trim_end(),
        "adjoin: jobs/wide: a gang has at most 64 members; this request has 65"
    );
    assert!(
        out.starts_with("1 requests, 0 given gangs in ") && out.contains("0 probes, 0 evaluations"),
        "{out}"
    );
    let f = dir.join("wide.ad");
    std::fs::write(&f, &wide).expect("write");
    let (_, err, code) = adjoin(
        dir,
        &[
            "gang",
            "--ad",
            f.to_str().expect("utf8"),
            "--offers",
            "vals",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("request: a gang has at most 64 members; this request has 65"),
        "{err}"
    );
}
