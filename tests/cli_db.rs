//! The database commands through the binary (`load`, `query`, `get`, `rm`, `stats`, `check`,
//! `matches`, `--db` and `$ADJOIN_DB`), each in a temporary directory.

mod common;

use common::cli::{self, Out};
use std::path::{Path, PathBuf};

/// A temporary directory to run `adjoin` in, with its database at `adjoin.db` inside.
struct Sandbox {
    dir: tempfile::TempDir,
}

impl Sandbox {
    fn new() -> Sandbox {
        Sandbox {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn write(&self, name: &str, text: &str) {
        std::fs::write(self.path(name), text).expect("write input");
    }

    /// Runs `adjoin ARGS` in the sandbox (so `./adjoin.db` is its database) with `stdin`.
    fn run_with(&self, args: &[&str], stdin: &str, env: &[(&str, &Path)]) -> Out {
        cli::run(args, self.dir.path(), stdin, env)
    }

    fn run(&self, args: &[&str]) -> Out {
        self.run_with(args, "", &[])
    }

    /// Waits until the database is free after this process dropped a `Db` on it: sled's
    /// background flusher keeps the file (and its lock) open a moment after the drop.
    fn wait_released(&self) {
        for _ in 0..100 {
            let out = self.run(&["stats"]);
            if !out.stderr.contains("database in use") {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("the database stayed in use after the Db was dropped");
    }

    /// Runs and expects exit status 0.
    fn ok(&self, args: &[&str]) -> String {
        let out = self.run(args);
        assert_eq!(out.code, 0, "adjoin {args:?}: {out:?}");
        out.stdout
    }
}

const NEW: &str = r#"[Name = "n1"; Memory = 1024; OpSys = "LINUX"]
[Name = "n2"; Memory = 4096; OpSys = "LINUX"; Owner = "raman"]
[Name = "n3"; Memory = 2048; OpSys = "WINNT40"]
"#;

const OLD: &str =
    "Name = \"o1\"\nMemory = 512\n\nName = \"o2\"\nMemory = 8192\nOpSys = \"LINUX\"\n";

const JSON: &str = "[\n{\"Name\": \"j1\", \"Memory\": 64},\n{\"Name\": \"j2\", \"Memory\": 128, \"Big\": false}\n]\n";

const XML: &str = "<?xml version=\"1.0\"?>\n<classads>\n\
    <c><a n=\"Name\"><s>x1</s></a><a n=\"Memory\"><i>256</i></a></c>\n</classads>\n";

#[test]
fn loads_every_format() {
    // (file, text, --format, summary, Name = ... lines of the stored ads)
    let cases: &[(&str, &str, &str, &str, &str)] = &[
        (
            "a.ads",
            NEW,
            "auto",
            "loaded 3 ads into c from a.ads: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"n1\"\n\nName = \"n2\"\n\nName = \"n3\"\n\n",
        ),
        (
            "a.ads",
            NEW,
            "new",
            "loaded 3 ads into c from a.ads: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"n1\"\n\nName = \"n2\"\n\nName = \"n3\"\n\n",
        ),
        (
            "b.old",
            OLD,
            "auto",
            "loaded 2 ads into c from b.old: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"o1\"\n\nName = \"o2\"\n\n",
        ),
        (
            "b.old",
            OLD,
            "old",
            "loaded 2 ads into c from b.old: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"o1\"\n\nName = \"o2\"\n\n",
        ),
        (
            "c.json",
            JSON,
            "auto",
            "loaded 2 ads into c from c.json: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"j1\"\n\nName = \"j2\"\n\n",
        ),
        (
            "c.json",
            JSON,
            "json",
            "loaded 2 ads into c from c.json: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"j1\"\n\nName = \"j2\"\n\n",
        ),
        (
            "d.xml",
            XML,
            "auto",
            "loaded 1 ad into c from d.xml: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"x1\"\n\n",
        ),
        (
            "d.xml",
            XML,
            "xml",
            "loaded 1 ad into c from d.xml: 0 replaced, 0 skipped, 0 generated ids\n",
            "Name = \"x1\"\n\n",
        ),
    ];
    for (file, text, format, summary, names) in cases {
        let s = Sandbox::new();
        s.write(file, text);
        let out = s.ok(&["load", "--into", "c", "--format", format, file]);
        assert_eq!(out, *summary, "{file} --format {format}");
        let got = s.ok(&["query", "--from", "c", "--attrs", "Name"]);
        assert_eq!(got, *names, "{file} --format {format}");
    }
}

#[test]
fn several_files_stdin_replacement_and_generated_ids() {
    let s = Sandbox::new();
    s.write("a.ads", NEW);
    s.write("b.old", OLD);
    let out = s.ok(&["load", "--into", "m", "a.ads", "b.old"]);
    assert_eq!(
        out,
        "loaded 5 ads into m from 2 files: 0 replaced, 0 skipped, 0 generated ids\n"
    );
    let out = s.run_with(
        &["load", "--into", "m", "-"],
        "[Name = \"n1\"; Memory = 1]\n[Memory = 2]\n\n[Memory = 3]\n",
        &[],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(
        out.stdout,
        "loaded 3 ads into m from -: 1 replaced, 0 skipped, 2 generated ids\n\
         -:2: generated id auto-1\n\
         -:4: generated id auto-2\n"
    );
    assert_eq!(
        s.ok(&["get", "--from", "m", "n1", "auto-2"]),
        "Name = \"n1\"\nMemory = 1\n\nMemory = 3\n\n"
    );
    // --id-attr picks the id attribute.
    s.write("k.ads", "[Key = \"k1\"; Name = \"x\"]\n[Key = 7]\n");
    let out = s.ok(&["load", "--into", "keyed", "--id-attr", "Key", "k.ads"]);
    assert_eq!(
        out,
        "loaded 2 ads into keyed from k.ads: 0 replaced, 0 skipped, 0 generated ids\n"
    );
    assert_eq!(
        s.ok(&["get", "--from", "keyed", "k1", "7"]),
        "Key = \"k1\"\nName = \"x\"\n\nKey = 7\n\n"
    );
}

#[test]
fn bad_ads_are_placed_and_skipped() {
    // (file, text, stderr lines, ids stored)
    let cases: &[(&str, &str, &str, &[&str])] = &[
        (
            "bad.ads",
            "[Name = \"a\"; Memory = 1024]\n[Name = \"b\"; Memory = ]\n[Name = \"c\"]\n[Name = \"d\"; x = (1 + ]\n[Name = \"e\"]\n",
            "bad.ads:2:23: expected an expression, found ']'\nbad.ads:4:23: expected an expression, found ']'\n",
            &["a", "c", "e"],
        ),
        (
            "bad.old",
            "Name = \"o1\"\nMemory = 2048\n\nName = \"o2\"\nMemory = \n\nName = \"o3\"\n",
            "bad.old:5:10: expected an expression, found end of input\n",
            &["o1", "o3"],
        ),
        (
            "bad.json",
            "[\n{\"Name\": \"j1\"},\n{\"Name\": \"j2\", \"Memory\": tru},\n{\"Name\": \"j3\"}\n]\n",
            "bad.json:3:26: expected a JSON value, found 'tru'\n",
            &["j1", "j3"],
        ),
    ];
    for (file, text, errors, ids) in cases {
        let s = Sandbox::new();
        s.write(file, text);
        let out = s.run(&["load", "--into", "m", file]);
        assert_eq!(
            out.code, 1,
            "{file}: skipped ads make the status 1: {out:?}"
        );
        assert_eq!(out.stderr, *errors, "{file}");
        let n_bad = errors.lines().count();
        assert_eq!(
            out.stdout,
            format!(
                "loaded {} ads into m from {file}: 0 replaced, {n_bad} skipped, 0 generated ids\n",
                ids.len()
            )
        );
        let names: String = ids
            .iter()
            .map(|id| format!("Name = \"{id}\"\n\n"))
            .collect();
        assert_eq!(
            s.ok(&["query", "--from", "m", "--attrs", "Name"]),
            names,
            "{file}"
        );
    }
}

#[test]
fn strict_refuses_the_whole_load() {
    let s = Sandbox::new();
    s.write("good.ads", NEW);
    s.write(
        "bad.ads",
        "[Name = \"z1\"]\n[Name = \"z2\"; x = ]\n[Name = \"z3\"]\n",
    );
    let out = s.run(&["load", "--strict", "--into", "m", "good.ads", "bad.ads"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(out.stdout, "");
    assert_eq!(
        out.stderr,
        "bad.ads:2:19: expected an expression, found ']'\n\
         adjoin: load refused (--strict): 1 bad ad; nothing was stored in m\n"
    );
    let stats = s.ok(&["stats"]);
    assert!(stats.contains("\nno collections\n"), "{stats}");
    let out = s.ok(&["load", "--strict", "--into", "m", "good.ads"]);
    assert_eq!(
        out,
        "loaded 3 ads into m from good.ads: 0 replaced, 0 skipped, 0 generated ids\n"
    );
}

/// A sandbox whose database holds NEW in collection `m`.
fn loaded() -> Sandbox {
    let s = Sandbox::new();
    s.write("a.ads", NEW);
    s.ok(&["load", "--into", "m", "a.ads"]);
    s
}

#[test]
fn queries_print_long_json_projected_or_counted() {
    let s = loaded();
    // (arguments after `query --from m`, stdout)
    let cases: &[(&[&str], &str)] = &[
        (&["--count"], "3\n"),
        (&["--count", "true"], "3\n"),
        (&["--count", "Memory >= 2048"], "2\n"),
        (&["--count", "Memory > 100000"], "0\n"),
        (&["--count", "Owner == \"RAMAN\""], "1\n"),
        (&["--count", "Owner"], "0\n"),
        (&["--count", "Memory"], "3\n"),
        // A constraint may begin with a minus.
        (&["--count", "-Memory < -2048"], "1\n"),
        (
            &["OpSys == \"WINNT40\""],
            "Name = \"n3\"\nMemory = 2048\nOpSys = \"WINNT40\"\n\n",
        ),
        (
            &["Memory >= 2048"],
            "Name = \"n2\"\nMemory = 4096\nOpSys = \"LINUX\"\nOwner = \"raman\"\n\n\
             Name = \"n3\"\nMemory = 2048\nOpSys = \"WINNT40\"\n\n",
        ),
        (
            &["--json", "Memory >= 2048"],
            "{\"Name\": \"n2\",\"Memory\": 4096,\"OpSys\": \"LINUX\",\"Owner\": \"raman\"}\n\
             {\"Name\": \"n3\",\"Memory\": 2048,\"OpSys\": \"WINNT40\"}\n",
        ),
        (
            &["--attrs", "memory,NAME,Missing", "OpSys == \"LINUX\""],
            "Memory = 1024\nName = \"n1\"\n\nMemory = 4096\nName = \"n2\"\n\n",
        ),
        (
            &["--json", "--attrs", "Name,Owner"],
            "{\"Name\": \"n1\"}\n{\"Name\": \"n2\",\"Owner\": \"raman\"}\n{\"Name\": \"n3\"}\n",
        ),
    ];
    for (args, want) in cases {
        let mut all = vec!["query", "--from", "m"];
        all.extend_from_slice(args);
        assert_eq!(s.ok(&all), *want, "query {args:?}");
    }
}

#[test]
fn query_errors() {
    let s = loaded();
    // (arguments, exit status, stderr)
    let cases: &[(&[&str], i32, &str)] = &[
        (
            &["query", "--from", "m", "Memory >"],
            2,
            "adjoin: constraint does not parse: 1:9: expected an expression, found end of input\n  Memory >\n          ^\n",
        ),
        (
            &["query", "--from", "m", "Memory > 1 &&& x"],
            2,
            "adjoin: constraint does not parse: 1:14: expected an expression, found '&'\n  Memory > 1 &&& x\n               ^\n",
        ),
        (
            &["query", "--from", "nosuch", "true"],
            1,
            "adjoin: no collection nosuch in ./adjoin.db (it has: m)\n",
        ),
        (
            &["--db", "missing.db", "query", "--from", "m"],
            2,
            "adjoin: no database at missing.db (create one with `adjoin load`, or point --db or $ADJOIN_DB at one)\n",
        ),
    ];
    for (args, code, stderr) in cases {
        let out = s.run(args);
        assert_eq!(
            (out.code, out.stderr.as_str(), out.stdout.as_str()),
            (*code, *stderr, ""),
            "{args:?}"
        );
    }
    assert!(
        !s.path("missing.db").exists(),
        "a reader must not create a database"
    );
}

#[test]
fn get_and_rm() {
    let s = loaded();
    let out = s.run(&["get", "--from", "m", "n3", "nope", "n1"]);
    assert_eq!(out.code, 1);
    assert_eq!(
        out.stdout,
        "Name = \"n3\"\nMemory = 2048\nOpSys = \"WINNT40\"\n\nName = \"n1\"\nMemory = 1024\nOpSys = \"LINUX\"\n\n"
    );
    assert_eq!(out.stderr, "adjoin: no ad nope in m\n");
    assert_eq!(
        s.ok(&["get", "--json", "--from", "m", "n1"]),
        "{\"Name\": \"n1\",\"Memory\": 1024,\"OpSys\": \"LINUX\"}\n"
    );
    assert_eq!(
        s.ok(&["rm", "--from", "m", "n1", "n2"]),
        "removed 2 ads from m\n"
    );
    let out = s.run(&["rm", "--from", "m", "n1", "n3"]);
    assert_eq!(
        (out.code, out.stdout.as_str(), out.stderr.as_str()),
        (1, "removed 1 ad from m\n", "adjoin: no ad n1 in m\n")
    );
    assert_eq!(s.ok(&["query", "--from", "m", "--count"]), "0\n");
    let out = s.run(&["get", "--from", "m", "n2"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, "adjoin: no ad n2 in m\n")
    );
}

#[test]
fn stats_and_check() {
    let s = loaded();
    s.write("j.json", JSON);
    s.ok(&["load", "--into", "jobs", "j.json"]);
    let stats = s.ok(&["stats"]);
    let lines: Vec<&str> = stats.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "database: sled at ./adjoin.db (format 5)",
            "collection  ads  expired  tombstones",
            "jobs          2        0           0",
            "m             3        0           0",
            "(all)         5        0           0",
            "matches: 0",
        ],
        "{stats}"
    );
    assert!(
        lines[6].starts_with("bytes on disk: ") && lines.len() == 8,
        "{stats}"
    );
    assert!(lines[7].starts_with("counts from the catalog"), "{stats}");
    let bytes: u64 = lines[6]
        .rsplit_once('(')
        .and_then(|(_, b)| b.strip_suffix(" bytes)"))
        .and_then(|b| b.parse().ok())
        .expect("byte count");
    assert!(bytes > 0);
    let check = s.ok(&["check"]);
    assert!(
        check.starts_with("ok: ") && check.ends_with(" entries read (5 ads), no damage found\n"),
        "{check}"
    );
}

#[test]
fn matches_are_listed() {
    let s = Sandbox::new();
    let path = s.path("adjoin.db");
    let member = |c: &str, id: &str, rank, consume| adjoin::storage::NewMember {
        collection: c.into(),
        id: id.into(),
        rank,
        consume,
    };
    {
        let opts = adjoin::DbOptions {
            clock: Some(adjoin::db::ClockFn(std::sync::Arc::new(|| 1_417_808_219))),
            ..adjoin::DbOptions::default()
        };
        let db = adjoin::Db::open_with(&path, &opts).expect("open");
        for text in ["[Name = \"slot1\"]", "[Name = \"slot2\"]"] {
            let ad = adjoin::query::parse::classad(text).expect("ad");
            db.put("machines", &ad).expect("put");
        }
        db.record_match(&adjoin::storage::NewMatch {
            cycle: 3,
            members: vec![
                member(
                    "jobs",
                    "s#1.0#5",
                    Some(adjoin::query::Value::Real(2.5)),
                    false,
                ),
                member("machines", "slot1", None, true),
            ],
        })
        .expect("match");
    }
    s.wait_released();
    assert_eq!(
        s.ok(&["matches"]),
        "match 1 (cycle 3, 2014-12-05T19:36:59Z)\n  jobs      s#1.0#5  rank 2.5\n  machines  slot1              consumed\n"
    );
    assert_eq!(
        s.ok(&["matches", "--json"]),
        "{\"id\": 1, \"time\": 1417808219, \"cycle\": 3, \"members\": [{\"collection\": \"jobs\", \"id\": \"s#1.0#5\", \"rank\": 2.5, \"consumed\": false}, {\"collection\": \"machines\", \"id\": \"slot1\", \"rank\": null, \"consumed\": true}]}\n"
    );
    // A consumed slot is gone and tombstoned; `get` names the match; a reload under its id
    // re-advertises it (the match record stays), an older update is refused as stale.
    // (The tombstone above lapsed long ago by the real clock; consume one now.)
    {
        let db = adjoin::Db::open(&path).expect("open");
        let slot2 = adjoin::query::parse::classad("[Name = \"slot2\"; UpdateSequenceNumber = 5]")
            .expect("ad");
        db.put("machines", &slot2).expect("put");
        db.record_match(&adjoin::storage::NewMatch {
            cycle: 4,
            members: vec![member("machines", "slot2", None, true)],
        })
        .expect("match");
    }
    s.wait_released();
    assert_eq!(s.ok(&["query", "--from", "machines", "--count"]), "0\n");
    let got = s.run(&["get", "--from", "machines", "slot2"]);
    assert_eq!(got.code, 1, "{got:?}");
    assert!(
        got.stderr.starts_with(
            "adjoin: ad slot2 in machines was consumed by match 2 (`adjoin matches`) at 20"
        ),
        "{got:?}"
    );
    s.write(
        "again.ads",
        "[Name = \"slot1\"]\n[Name = \"slot2\"; UpdateSequenceNumber = 4]\n",
    );
    let out = s.run(&["load", "--into", "machines", "again.ads"]);
    assert_eq!(out.code, 0, "{out:?}");
    assert!(
        out.stderr.starts_with(
            "again.ads:2:1: stale update of ad slot2 in machines: UpdateSequenceNumber 4 is older than the stored ad's 5"
        ),
        "{out:?}"
    );
    assert_eq!(
        out.stdout,
        "loaded 1 ad into machines from again.ads: 0 replaced, 0 skipped, 0 generated ids, 1 stale update refused\n"
    );
    s.write(
        "newer.ads",
        "[Name = \"slot2\"; UpdateSequenceNumber = 6; State = \"Claimed\"]\n",
    );
    assert_eq!(
        s.ok(&["load", "--into", "machines", "newer.ads"]),
        "loaded 1 ad into machines from newer.ads: 0 replaced, 0 skipped, 0 generated ids\n"
    );
    assert_eq!(
        s.ok(&["query", "--from", "machines", "--af", "Name", "State"]),
        "slot1 undefined\nslot2 Claimed\n"
    );
    let stats = s.ok(&["stats"]);
    assert!(
        stats.contains("\nmachines      2        0           0\n"),
        "{stats}"
    );
    assert!(stats.contains("\nmatches: 2\n"), "{stats}");
    // The history read without a scan: the last N, one cycle's, one ad's.
    let ids = |args: &[&str]| -> Vec<u64> {
        s.ok(args)
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).expect("json line");
                v["id"].as_u64().expect("id")
            })
            .collect()
    };
    assert_eq!(ids(&["matches", "--json", "--last", "1"]), [2]);
    assert_eq!(ids(&["matches", "--json", "--cycle", "3"]), [1]);
    assert_eq!(
        ids(&["matches", "--json", "--ad", "machines", "slot2"]),
        [2]
    );
    assert_eq!(ids(&["matches", "--json", "--ad", "jobs", "s#1.0#5"]), [1]);
    assert!(ids(&["matches", "--json", "--cycle", "9"]).is_empty());
    // Retention: keep the newest record, the other appended to a file first.
    assert_eq!(
        s.ok(&["prune", "--keep", "1", "--export", "old.jsonl"]),
        "pruned 1 match records, 1 kept\n"
    );
    assert_eq!(ids(&["matches", "--json"]), [2]);
    let exported = std::fs::read_to_string(s.path("old.jsonl")).expect("export");
    assert!(
        exported.starts_with("{\"id\": 1, \"time\": 1417808219, \"cycle\": 3, "),
        "{exported}"
    );
    assert_eq!(
        s.ok(&["prune", "--older-than-days", "36500"]),
        "pruned 0 match records, 1 kept\n"
    );
    let out = s.run(&["prune"]);
    assert_eq!(out.code, 2, "{out:?}");
    assert_eq!(s.run(&["check"]).code, 0, "the pruned history checks clean");
}

#[test]
fn no_matches_yet() {
    let s = loaded();
    assert_eq!(s.ok(&["matches"]), "no matches recorded\n");
    assert_eq!(s.ok(&["matches", "--json"]), "");
}

#[test]
fn adjoin_db_environment_variable_names_the_database() {
    let s = Sandbox::new();
    s.write("a.ads", NEW);
    let env_db = s.path("from-env.db");
    let out = s.run_with(
        &["load", "--into", "m", "a.ads"],
        "",
        &[("ADJOIN_DB", &env_db)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(env_db.is_dir(), "$ADJOIN_DB names the database");
    assert!(!s.path("adjoin.db").exists(), "the default is not used");
    let out = s.run_with(
        &["query", "--count", "--from", "m"],
        "",
        &[("ADJOIN_DB", &env_db)],
    );
    assert_eq!(out.stdout, "3\n");
    // --db wins over $ADJOIN_DB.
    let out = s.run_with(
        &["--db", "flag.db", "load", "--into", "m", "a.ads"],
        "",
        &[("ADJOIN_DB", &env_db)],
    );
    assert_eq!(out.code, 0, "{out:?}");
    assert!(s.path("flag.db").is_dir());
    let stats = s.run_with(&["stats"], "", &[("ADJOIN_DB", &env_db)]);
    assert!(stats.stdout.contains("m             3"), "{stats:?}");
}

#[test]
fn a_database_held_by_another_process_is_in_use() {
    let s = loaded();
    let held = adjoin::Db::open(s.path("adjoin.db")).expect("hold the database");
    for args in [
        &["stats"][..],
        &["query", "--from", "m"],
        &["load", "--into", "m", "a.ads"],
        &["check"],
    ] {
        let out = s.run(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
        assert!(
            out.stderr.starts_with("adjoin: database in use: "),
            "{args:?}: {}",
            out.stderr
        );
        assert!(
            out.stderr.contains("adjoin.db is held by another process"),
            "{}",
            out.stderr
        );
    }
    drop(held);
    s.wait_released();
    let out = s.run(&["query", "--count", "--from", "m"]);
    assert_eq!((out.code, out.stdout.as_str()), (0, "3\n"), "{out:?}");
}

#[test]
fn large_inputs_load_without_a_bar_when_stderr_is_not_a_terminal() {
    let s = Sandbox::new();
    let big = "x".repeat(100_000);
    let text: String = (0..50)
        .map(|i| format!("[Name = \"a{i}\"; Blob = \"{big}\"]\n"))
        .collect();
    s.write("big.ads", &text);
    let out = s.run(&["load", "--into", "m", "big.ads"]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert_eq!(out.stderr, "", "no progress bar on a pipe");
    assert!(
        out.stdout.starts_with("loaded 50 ads into m from big.ads"),
        "{}",
        out.stdout
    );
    assert_eq!(
        s.ok(&["query", "--count", "--from", "m", "size(Blob) == 100000"]),
        "50\n"
    );
}

/// Expressions of `match` may begin with a minus: `--order-by -Memory` is that order, not an
/// unknown option.
#[test]
fn match_expressions_may_begin_with_a_minus() {
    let s = Sandbox::new();
    s.write("j.ads", "[Name = \"j1\"; Requirements = true]\n");
    s.write(
        "m.ads",
        "[Name = \"n1\"; Memory = 1024; Requirements = true]\n\
         [Name = \"n2\"; Memory = 4096; Requirements = true]\n",
    );
    s.ok(&["load", "--into", "jobs", "j.ads"]);
    s.ok(&["load", "--into", "m", "m.ads"]);
    for (option, expr, want) in [
        ("--dock", "-offer.Memory", "j1 -> n1 [-1024]\n"),
        ("--order-by", "-Memory", "j1 -> n1 [0, 0]\n"),
    ] {
        let base = ["match", "--requests", "jobs", "--offers", "m", "--dry-run"];
        let out = s.ok(&[&base[..], &[option, expr]].concat());
        assert!(out.starts_with(want), "{option} {expr}: {out}");
    }
}

#[test]
fn usage_errors_exit_2() {
    let s = loaded();
    for args in [
        &["load", "--into", "m"][..],
        &["load", "--into", "m", "--format", "yaml", "a.ads"],
        &["query", "--count", "--json", "--from", "m"],
        &["get", "--from", "m"],
        &["frobnicate"],
    ] {
        let out = s.run(args);
        assert_eq!(out.code, 2, "{args:?}: {out:?}");
    }
    let out = s.run(&["load", "--into", "m", "nope.ads"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (2, "adjoin: nope.ads: no such file\n")
    );
}

#[test]
fn expiry_from_an_attribute_or_a_lifetime() {
    let s = Sandbox::new();
    s.write(
        "e.ads",
        "[Name = \"past\"; Exp = absTime(\"2000-01-01T00:00:00Z\")]\n\
         [Name = \"future\"; Exp = absTime(\"2999-01-01T00:00:00Z\")]\n\
         [Name = \"never\"]\n\
         [Name = \"bad\"; Exp = \"soon\"]\n",
    );
    let out = s.run(&["load", "--into", "m", "--expiry-attr", "Exp", "e.ads"]);
    assert_eq!(out.code, 1, "{out:?}");
    assert_eq!(
        out.stderr,
        "e.ads:4:1: ad bad: expiry attribute Exp is \"soon\", not a time or a number of seconds\n"
    );
    assert_eq!(
        s.ok(&["query", "--from", "m", "--attrs", "Name"]),
        "Name = \"future\"\n\nName = \"never\"\n\n"
    );
    let out = s.run(&["get", "--from", "m", "past"]);
    assert_eq!(
        (out.code, out.stderr.as_str()),
        (1, "adjoin: no ad past in m\n")
    );
    // A lifetime already over: stored, and at once invisible.
    s.write("l.ads", "[Name = \"brief\"]\n");
    s.ok(&["load", "--into", "l", "--lifetime", "0", "l.ads"]);
    assert_eq!(s.ok(&["query", "--count", "--from", "l"]), "0\n");
    let stats = s.ok(&["stats"]);
    assert!(stats.contains("\nl             0 "), "{stats}");
    // Expired ads may already be purged (the store purges lazily), so only live ones count.
    assert!(stats.contains("\nm             2 "), "{stats}");
}

#[test]
fn check_and_reads_name_a_damaged_record() {
    use adjoin::storage::backend::KeyRange;
    let s = loaded();
    {
        let db = adjoin::Db::open(s.path("adjoin.db")).expect("open");
        let backend = db.store().backend().clone();
        // The three ads share one block; its last byte is in the last ad's record.
        let (key, mut value) = backend
            .scan("blocks", KeyRange::all())
            .expect("scan")
            .next()
            .expect("the block")
            .expect("entry");
        let last = value.len() - 1;
        value[last] ^= 0x55;
        backend.put("blocks", &key, &value).expect("put");
        backend.flush().expect("flush");
    }
    s.wait_released();
    let out = s.run(&["check"]);
    assert_eq!(out.code, 1, "{out:?}");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert!(
        lines[0].starts_with("damaged: tree blocks, collection m, id n3: checksum mismatch"),
        "{out:?}"
    );
    // Meta (format, counters, the collection's generation), catalog, block, dir, names.
    assert_eq!(
        lines[1], "10 entries read (3 ads): 1 damaged record",
        "{out:?}"
    );
    // A query reports the damaged record and prints the others; get names it too.
    let out = s.run(&["query", "--from", "m", "--attrs", "Name"]);
    assert_eq!(out.code, 1);
    assert_eq!(out.stdout, "Name = \"n1\"\n\nName = \"n2\"\n\n");
    assert!(
        out.stderr
            .starts_with("adjoin: damaged record: tree blocks, collection m, id n3")
            && out.stderr.contains("checksum mismatch"),
        "{}",
        out.stderr
    );
    let out = s.run(&["get", "--from", "m", "n3"]);
    assert_eq!(out.code, 2);
    assert!(
        out.stderr
            .starts_with("adjoin: damaged record: tree blocks, collection m, id n3"),
        "{}",
        out.stderr
    );
}
