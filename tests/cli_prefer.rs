//! `adjoin prefer` and `adjoin candidates --ranked` through the binary (issue 12): the best
//! outcome, dominance with its flips, ranked candidates through the index and by plain
//! evaluation, and errors naming the ad and the entry.

mod common;

use common::cli::{run, run_when_free, Out};
use std::path::Path;

/// The issue's example request.
const REQUEST: &str = r#"[ Requirements = TARGET.Memory > 0;
  Preferences = {
  [ Name = "os";  Value = TARGET.OpSys; Order = {"LINUX", "OSX"} ],
  [ Name = "mem"; Value = TARGET.Memory >= 4096; Parents = {"os"};
    Table = { [ When = {"LINUX"}; Order = {true, false} ],
              [ When = {"OSX"};   Order = {false, true} ] } ],
  [ Name = "gpu"; Value = TARGET.HasGPU; Parents = {"os", "mem"};
    Table = { [ When = {"OSX", false}; Order = {true, false} ] } ]
} ]"#;

/// The paper's example net (seed 004, Fig. 1).
const PAPER: &str = r#"[ Preferences = {
  [ Name = "os";  Value = TARGET.OS;  Order = {"a", "l"} ],
  [ Name = "cpu"; Value = TARGET.CPU; Parents = {"os"};
    Table = { [ When = {"a"}; Order = {"p", "x"} ], [ When = {"l"}; Order = {"x", "p"} ] } ],
  [ Name = "lib"; Value = TARGET.Lib; Parents = {"cpu"};
    Table = { [ When = {"p"}; Order = {"e", "n"} ], [ When = {"x"}; Order = {"n", "e"} ] } ] } ]"#;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::write(dir.join(name), text).expect("write");
}

fn adjoin(dir: &Path, args: &[&str]) -> Out {
    run(args, dir, "", &[])
}

#[test]
fn best_outcomes() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(d, "req.ad", REQUEST);
    write(d, "paper.ad", PAPER);
    for (file, json, want) in [
        (
            "req.ad",
            true,
            "{\"best\": {\"os\": \"LINUX\", \"mem\": true, \"gpu\": true}}\n",
        ),
        ("req.ad", false, "os = \"LINUX\"\nmem = true\ngpu = true\n"),
        (
            "paper.ad",
            true,
            "{\"best\": {\"os\": \"a\", \"cpu\": \"p\", \"lib\": \"e\"}}\n",
        ),
    ] {
        let mut args = vec!["prefer", "--ad", file, "--best"];
        if json {
            args.push("--json");
        }
        let out = adjoin(d, &args);
        assert_eq!(
            (out.code, out.stdout.as_str()),
            (0, want),
            "{args:?}: {out:?}"
        );
    }
}

#[test]
fn dominance_queries_on_the_paper_net() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(d, "paper.ad", PAPER);
    for o in ["ape", "axn", "lpe", "lpn", "axe", "lxn"] {
        let c: Vec<char> = o.chars().collect();
        write(
            d,
            &format!("{o}.ad"),
            &format!(
                "[OS = \"{}\"; CPU = \"{}\"; Lib = \"{}\"]",
                c[0], c[1], c[2]
            ),
        );
    }
    // axn ≻ lpe (the paper's query): three flips, breadth first, variables in order.
    let out = adjoin(
        d,
        &[
            "prefer",
            "--ad",
            "paper.ad",
            "--dominates",
            "axn.ad",
            "lpe.ad",
            "--json",
        ],
    );
    assert_eq!(out.code, 0, "{out:?}");
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["dominates"], true);
    let flips: Vec<(String, String, String)> = v["flips"]
        .as_array()
        .expect("flips")
        .iter()
        .map(|f| {
            let s = |k: &str| f[k].as_str().unwrap_or("?").to_owned();
            (s("variable"), s("from"), s("to"))
        })
        .collect();
    let want = [("cpu", "p", "x"), ("os", "l", "a"), ("lib", "e", "n")]
        .map(|(a, b, c)| (a.to_owned(), b.to_owned(), c.to_owned()));
    assert_eq!(flips, want);
    for (a, b, yes) in [
        ("ape", "lpn", true),
        ("lpn", "ape", false),
        ("axe", "lxn", false),
    ] {
        let (fa, fb) = (format!("{a}.ad"), format!("{b}.ad"));
        let out = adjoin(d, &["prefer", "--ad", "paper.ad", "--dominates", &fa, &fb]);
        assert_eq!(out.code, if yes { 0 } else { 1 }, "{a} > {b}: {out:?}");
        let verdict = if yes {
            "dominates"
        } else {
            "does not dominate"
        };
        assert!(
            out.stdout.starts_with(&format!("{fa} {verdict} {fb}")),
            "{out:?}"
        );
        let json = adjoin(
            d,
            &[
                "prefer",
                "--ad",
                "paper.ad",
                "--dominates",
                &fa,
                &fb,
                "--json",
            ],
        );
        let v: serde_json::Value = serde_json::from_str(&json.stdout).expect("json");
        assert_eq!(v["dominates"], yes);
        assert_eq!(v["flips"].as_array().map(Vec::is_empty), Some(!yes));
    }
}

#[test]
fn errors_name_the_ad_and_the_entry() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(
        d,
        "bad.ad",
        "[Preferences = {[Name = \"a\"; Value = 1; Order = {\"x\", \"X\"}]}]",
    );
    write(d, "none.ad", "[Rank = 1]");
    let out = adjoin(d, &["prefer", "--ad", "bad.ad", "--best"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .contains("ad bad.ad: Preferences entry a lists the value \"X\" twice"),
        "{out:?}"
    );
    let out = adjoin(d, &["prefer", "--ad", "none.ad", "--best"]);
    assert_eq!(out.code, 2);
    assert!(out.stderr.contains("none.ad has no Preferences"), "{out:?}");
}

/// A matchmaking cycle leaves a request with malformed Preferences unmatched and says so,
/// naming the ad and the entry (exit status 1: a refused ad).
#[test]
fn a_cycle_names_malformed_preferences() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(
        d,
        "jobs.ads",
        "[GlobalJobId = \"bad\"; Requirements = true; Preferences = 5]
[GlobalJobId = \"good\"; Requirements = true]
",
    );
    write(
        d,
        "slots.ads",
        "[Name = \"s1\"; Requirements = true]\n[Name = \"s2\"; Requirements = true]\n",
    );
    for (coll, file) in [("jobs", "jobs.ads"), ("slots", "slots.ads")] {
        let out = run_when_free(&["load", "--into", coll, file], d);
        assert_eq!(out.code, 0, "{out:?}");
    }
    let out = run_when_free(
        &[
            "match",
            "--requests",
            "jobs",
            "--offers",
            "slots",
            "--dry-run",
        ],
        d,
    );
    assert_eq!(out.code, 1, "{out:?}");
    assert!(
        out.stderr.contains("ad bad: Preferences is not a list"),
        "{out:?}"
    );
    assert!(out.stdout.contains("good"), "{out:?}");
}

#[test]
fn ranked_candidates_through_the_index_and_by_evaluation() {
    let dir = tempfile::tempdir().expect("tempdir");
    let d = dir.path();
    write(d, "req.ad", REQUEST);
    write(
        d,
        "plain.ad",
        "[Requirements = TARGET.Memory > 1024; Rank = TARGET.Memory]",
    );
    write(
        d,
        "slots.ads",
        "[Name = \"s1\"; OpSys = \"OSX\"; Memory = 8192; HasGPU = true; Requirements = true]
[Name = \"s2\"; OpSys = \"LINUX\"; Memory = 1024; Requirements = true]
[Name = \"s3\"; OpSys = \"LINUX\"; Memory = 8192; Requirements = true]
[Name = \"s4\"; OpSys = \"OSX\"; Memory = 1024; HasGPU = false; Requirements = true]
[Name = \"s5\"; OpSys = \"WINDOWS\"; Memory = 9000; Requirements = true]
[Name = \"s6\"; OpSys = \"LINUX\"; Memory = 4096; Requirements = true]
",
    );
    let out = run_when_free(&["load", "--into", "slots", "slots.ads"], d);
    assert_eq!(out.code, 0, "{out:?}");
    for (ad, want) in [
        ("req.ad", "s3\ns6\ns2\ns4\ns1\ns5\n"),
        ("plain.ad", "s5\ns1\ns3\ns6\n"),
    ] {
        for naive in [false, true] {
            let mut args = vec!["candidates", "--from", "slots", "--ad", ad, "--ranked"];
            if naive {
                args.push("--naive");
            }
            let out = run_when_free(&args, d);
            assert_eq!(
                (out.code, out.stdout.as_str()),
                (0, want),
                "{args:?}: {out:?}"
            );
        }
    }
    // The ads themselves, in the same order, through the index and naively.
    for naive in [false, true] {
        let mut args = vec![
            "candidates",
            "--from",
            "slots",
            "--ad",
            "req.ad",
            "--ranked",
            "--json",
        ];
        if naive {
            args.push("--naive");
        }
        let out = run_when_free(&args, d);
        assert_eq!(out.code, 0, "{args:?}: {out:?}");
        let names: Vec<String> = out
            .stdout
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("json line");
                v["Name"].as_str().unwrap_or("?").to_owned()
            })
            .collect();
        assert_eq!(names, ["s3", "s6", "s2", "s4", "s1", "s5"], "{args:?}");
    }
}
