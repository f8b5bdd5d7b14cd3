//! `adjoin analyze` end to end: text like `condor_q -better-analyze`, the JSON object with the
//! issue's field names, `--reverse`, `--unmatched`, and bad input answered with a message.

use std::path::Path;
use std::process::Command;

fn adjoin(db: &Path, args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_adjoin"))
        .arg("--db")
        .arg(db)
        .args(args)
        .output()
        .expect("run adjoin");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Seed 001's eight machines (two of them refusing big jobs) and one job.
fn setup(dir: &Path) -> std::path::PathBuf {
    let slots = dir.join("slots.ads");
    let mut text = String::new();
    for (i, (a, o, m)) in [
        ("ALPHA", "LINUX", 256),
        ("INTEL", "LINUX", 256),
        ("INTEL", "SOLARIS", 1024),
        ("SPARC", "LINUX", 512),
        ("ALPHA", "LINUX", 512),
        ("SPARC", "SOLARIS", 1024),
        ("SPARC", "LINUX", 256),
        ("INTEL", "SOLARIS", 256),
    ]
    .iter()
    .enumerate()
    {
        let req = if *a == "ALPHA" {
            "TARGET.ImageSize <= 1000"
        } else {
            "true"
        };
        text += &format!(
            "[Name = \"s{}\"; Arch = \"{a}\"; OpSys = \"{o}\"; Memory = {m}; Requirements = {req}]\n",
            i + 1
        );
    }
    std::fs::write(&slots, text).expect("write slots");
    std::fs::write(
        dir.join("job.ad"),
        "[GlobalJobId = \"job1\"; ImageSize = 3000; RequestMemory = 512; Requirements = (TARGET.Arch == \"ALPHA\") && (TARGET.OpSys == \"SOLARIS\") && (TARGET.Memory >= RequestMemory)]",
    )
    .expect("write job");
    let db = dir.join("db");
    let s = slots.to_str().expect("path");
    assert_eq!(adjoin(&db, &["load", "--into", "slots", s]).0, 0);
    let j = dir.join("job.ad");
    assert_eq!(
        adjoin(&db, &["load", "--into", "jobs", j.to_str().expect("path")]).0,
        0
    );
    db
}

#[test]
fn analyze_text_and_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = setup(dir.path());
    let job = dir.path().join("job.ad");
    let (code, text, err) = adjoin(
        &db,
        &[
            "analyze",
            "--offers",
            "slots",
            "--ad",
            job.to_str().expect("path"),
        ],
    );
    assert_eq!(code, 0, "{err}");
    for want in [
        "[0]           2           2  TARGET.Arch == \"ALPHA\"",
        "[2]           4           0  TARGET.Memory >= 512",
        "Of 8 slots,",
        "8 are rejected by your job's requirements",
        "2 reject your job because of their own requirements",
        "[0] [1]  (no slot satisfies them together)",
        "(M1) would match 2 slots:",
        "remove [0] TARGET.Arch == \"ALPHA\"",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
    let (code, json, _) = adjoin(
        &db,
        &[
            "analyze",
            "--offers",
            "slots",
            "--request",
            "job1",
            "--from",
            "jobs",
            "--json",
        ],
    );
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(v["request"], "job1");
    assert_eq!(
        (v["offers"].as_u64(), v["matching"].as_u64()),
        (Some(8), Some(0))
    );
    assert_eq!(v["rejected_by_request"].as_u64(), Some(8));
    assert_eq!(v["rejecting_request"].as_u64(), Some(2));
    assert_eq!(v["conditions"][2]["condition"], "TARGET.Memory >= 512");
    assert_eq!(v["conditions"][1]["step_matched"].as_u64(), Some(0));
    assert_eq!(v["conflicts"][0]["conditions"], serde_json::json!([0, 1]));
    assert_eq!(v["conflicts"][0]["kind"], "data");
    assert_eq!(v["suggestions"][0]["metric"], "M1");
    assert_eq!(v["suggestions"][0]["changes"][0]["action"], "remove");
    assert_eq!(v["offer_side"][0]["attribute"], "ImageSize");
    assert_eq!(v["offer_side"][0]["rejecting"].as_u64(), Some(2));
    // A request without Ports: no gang side in the JSON.
    assert!(v.get("ports").is_none() && v.get("first_unfillable").is_none());
}

#[test]
fn analyze_gang_request_per_port() {
    let dir = tempfile::tempdir().expect("tempdir");
    // Figures 28 and 29 (the machine made Linux, a second machine left Windows) in one
    // collection; figure 30's job, and the same job wanting a second license.
    let offers = dir.path().join("offers.ads");
    let machine = |name: &str, key: u32, os: &str| {
        format!(
            "[Name = \"{name}\"; Key = {key}; Arch = \"INTEL\"; OpSys = \"{os}\"; Memory = 64M; \
             VirtualMemory = 83.235176M; Ports = {{[Label = Job; Constraint = Job.MemoryReqs < Memory - 15M]}}]\n"
        )
    };
    let text = machine("m1", 143, "LINUX")
        + &machine("m2", 144, "WINNT40")
        + "[Name = \"l1\"; Type = \"License\"; App = \"sim_app\"; \
           Ports = {[Label = Site; Constraint = Site.HostID >= 0 && Site.HostId < 1000]}]\n";
    std::fs::write(&offers, text).expect("write offers");
    let db = dir.path().join("db");
    let o = offers.to_str().expect("path");
    assert_eq!(adjoin(&db, &["load", "--into", "pool", o]).0, 0);
    let fig30 =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/dissertation/fig30_base_job.ad");
    let second = dir.path().join("second.ad");
    std::fs::write(
        &second,
        "[Name = \"j2\"; Ports = {[Label = Cpu; MemoryReqs = 1M; ImageSize = 1M; \
           Constraint = Cpu.OpSys == \"LINUX\" && Cpu.VirtualMemory > ImageSize], \
         [Label = License; HostId = Cpu.Key; Constraint = License.App == \"sim_app\"], \
         [Label = Second; HostId = Cpu.Key; Constraint = Second.App == \"sim_app\"]}]",
    )
    .expect("write job");
    // (job, candidates per port, first unfillable)
    let cases: [(&Path, serde_json::Value, serde_json::Value); 2] = [
        (
            &fig30,
            serde_json::json!([
                {"port": 0, "label": "Cpu", "candidates": 1},
                {"port": 1, "label": "License", "candidates": 1}
            ]),
            serde_json::Value::Null,
        ),
        (
            &second,
            serde_json::json!([
                {"port": 0, "label": "Cpu", "candidates": 1},
                {"port": 1, "label": "License", "candidates": 1},
                {"port": 2, "label": "Second", "candidates": 1}
            ]),
            serde_json::json!(2),
        ),
    ];
    for (job, ports, first) in cases {
        let job = job.to_str().expect("path");
        let (code, json, err) =
            adjoin(&db, &["analyze", "--offers", "pool", "--ad", job, "--json"]);
        assert_eq!(code, 0, "{job}: {err}");
        let v: serde_json::Value = serde_json::from_str(&json).expect("json");
        assert_eq!(v["ports"], ports, "{job}");
        assert_eq!(v["first_unfillable"], first, "{job}");
        assert_eq!(v["offers"].as_u64(), Some(3), "{job}");
    }
    let (code, text, err) = adjoin(
        &db,
        &[
            "analyze",
            "--offers",
            "pool",
            "--ad",
            second.to_str().expect("path"),
        ],
    );
    assert_eq!(code, 0, "{err}");
    for want in [
        "The job j2 has no Requirements of its own: its constraints are its ports'.",
        "Ports of your job (gangmatching):",
        "[0]             1  Cpu",
        "[2]             1  Second  <- cannot be filled together with the ports before it",
        "No gang fills ports [0] to [2] together.",
    ] {
        assert!(text.contains(want), "missing {want:?} in\n{text}");
    }
}

#[test]
fn analyze_reverse_and_unmatched() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = setup(dir.path());
    let (code, json, err) = adjoin(
        &db,
        &[
            "analyze",
            "--reverse",
            "--requests",
            "jobs",
            "--offer",
            "s3",
            "--from",
            "slots",
            "--json",
        ],
    );
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&json).expect("json");
    assert_eq!(
        (
            v["request"].as_str(),
            v["offers"].as_u64(),
            v["rejecting_request"].as_u64()
        ),
        (Some("s3"), Some(1), Some(1))
    );
    assert_eq!(v["offer_side"][0]["attribute"], "Arch");
    assert_eq!(v["offer_side"][0]["suggest"], "\"ALPHA\"");
    assert_eq!(v["offer_side"][0]["would_match"].as_u64(), Some(1));
    let (code, text, _) = adjoin(
        &db,
        &[
            "analyze",
            "--unmatched",
            "--requests",
            "jobs",
            "--offers",
            "slots",
        ],
    );
    assert_eq!(code, 0);
    assert!(
        text.contains("Of 1 requests (1 clusters), 1 match none of 8 offers."),
        "{text}"
    );
    assert!(
        text.contains("conflict    TARGET.Arch == \"ALPHA\" && TARGET.OpSys == \"SOLARIS\" (job1)"),
        "{text}"
    );
}

#[test]
fn analyze_bad_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = setup(dir.path());
    let cases: &[(&str, &str)] = &[
        ("[Name = \"x\"]", "x: the ad has no Requirements to analyse"),
        (
            "[Name = \"x\"; Requirements = \"yes\"]",
            "Requirements is not a boolean expression",
        ),
        (
            "[Name = \"x\"; A = B; B = A; Requirements = A]",
            "circular reference: A -> B -> A",
        ),
        ("[Name = \"x\"; Requirements = ]", "does not parse: 1:29"),
    ];
    for (ad, want) in cases {
        let f = dir.path().join("bad.ad");
        std::fs::write(&f, ad).expect("write");
        let (code, _, err) = adjoin(
            &db,
            &[
                "analyze",
                "--offers",
                "slots",
                "--ad",
                f.to_str().expect("path"),
            ],
        );
        assert_eq!(code, 2, "{ad}: {err}");
        assert!(err.contains(want), "{ad}: {err}");
        assert!(!err.contains("panicked"), "{ad}: {err}");
    }
    for args in [
        &["analyze", "--offers", "slots"][..],
        &["analyze", "--offers", "slots", "--request", "job1"][..],
        &["analyze", "--unmatched", "--requests", "jobs"][..],
    ] {
        let (code, _, err) = adjoin(&db, args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(err.starts_with("adjoin: "), "{args:?}: {err}");
    }
    let (code, _, err) = adjoin(
        &db,
        &[
            "analyze",
            "--offers",
            "slots",
            "--request",
            "nope",
            "--from",
            "jobs",
        ],
    );
    // A missing id is a negative result, as for `get`.
    assert_eq!(code, 1);
    assert!(err.contains("jobs: no ad nope"), "{err}");
}
