//! Flat chains through the command line (issue 16): `adjoin load` of a job whose
//! Requirements list 20,000 machines (`TARGET.Machine == "…" || …`, as real pool policies do),
//! then `query`, `get`, `eval` and a `match --dry-run` against slots: the list is one chain
//! node, not 20,000 levels of nesting, so nothing refuses it as "nested too deeply".

mod common;

use common::chains::{machine, machine_list};
use common::cli;

const TERMS: usize = 20_000;

#[test]
fn a_20000_term_requirements_loads_queries_and_matches() {
    let dir = tempfile::tempdir().expect("tempdir");
    let requirements = machine_list(TERMS, "TARGET.");
    let jobs = format!(
        "[ GlobalJobId = \"submit#1.0#1\"; Owner = \"ann\"; Requirements = {requirements} ]\n\
         [ GlobalJobId = \"submit#2.0#1\"; Owner = \"bob\"; Requirements = TARGET.Machine == \"nowhere\" ]\n"
    );
    std::fs::write(dir.path().join("jobs.ad"), &jobs).expect("write jobs");
    let slots: String = [7, TERMS - 1, TERMS + 5]
        .iter()
        .map(|&i| {
            format!(
                "[ Name = \"slot{i}\"; Machine = \"{}\"; Requirements = true ]\n",
                machine(i)
            )
        })
        .collect();
    std::fs::write(dir.path().join("slots.ad"), slots).expect("write slots");
    let run = |args: &[&str]| {
        let out = cli::run(args, dir.path(), "", &[]);
        assert_eq!(out.code, 0, "{args:?}: {}", out.stderr);
        out.stdout
    };
    run(&["load", "--into", "jobs", "jobs.ad"]);
    run(&["load", "--into", "slots", "slots.ad"]);

    // The stored job reads back with its whole list.
    let owners = run(&["query", "--from", "jobs", "--af", "Owner"]);
    assert_eq!(owners, "ann\nbob\n");
    let ids = run(&[
        "query",
        "--from",
        "jobs",
        "Owner == \"ann\"",
        "--af",
        "GlobalJobId",
    ]);
    let id = ids.trim();
    let got = run(&["get", "--from", "jobs", id]);
    assert!(got.contains(&requirements), "the list prints back whole");
    // A query whose constraint is a 2,000-term list (argv holds at most 128 KiB per
    // argument), through the held index.
    let list = machine_list(2000, "");
    let names = run(&["query", "--from", "slots", &list, "--af", "Name"]);
    assert_eq!(names, "slot7\n");

    // The job's Requirements evaluated against a slot, from stdin.
    std::fs::write(
        dir.path().join("slot.ad"),
        format!("[ Machine = \"{}\" ]\n", machine(TERMS - 1)),
    )
    .expect("write slot");
    let out = cli::run(
        &["eval", "--target", "slot.ad", "-"],
        dir.path(),
        &format!("{requirements}\n{}\n", machine_list(TERMS, "NoSuch")),
        &[],
    );
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "true\nundefined\n");

    // A matchmaking cycle: ann's job takes one of the two slots on its list; bob's none.
    let matched = run(&[
        "match",
        "--requests",
        "jobs",
        "--offers",
        "slots",
        "--dry-run",
        "--json",
    ]);
    let matches: Vec<&str> = matched
        .lines()
        .filter(|l| l.contains("\"offer\""))
        .collect();
    assert_eq!(matches.len(), 1, "{matched}");
    assert!(matches[0].contains("slot7") || matches[0].contains(&format!("slot{}", TERMS - 1)));
    assert!(matches[0].contains(id), "{matched}");
}
