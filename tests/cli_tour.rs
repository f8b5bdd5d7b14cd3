//! The README's tour, run as written: every `$ adjoin …` line of its `sh` blocks, in order,
//! in a fresh directory holding a copy of `docs/tour/` (so `./adjoin.db` starts empty), each
//! expected to succeed and to print the lines the README shows under it (a line `…` ends
//! what is shown; a shown line ending in `…` is a prefix).

mod common;

use common::cli;
use std::path::{Path, PathBuf};

/// The repository's root (this package is engine/cli).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// One command of the tour and the output shown under it.
#[derive(Debug)]
struct Step {
    line: String,
    shown: Vec<String>,
}

/// The `$ ` lines of the `sh` blocks of the README's tour section, with what follows each.
fn steps(readme: &str) -> Vec<Step> {
    let start = readme
        .find("## A five-minute tour")
        .expect("the tour section");
    let tour = &readme[start..];
    let tour = &tour[..tour[3..].find("\n## ").map_or(tour.len(), |e| e + 3)];
    let mut out: Vec<Step> = Vec::new();
    let mut in_sh = false;
    for line in tour.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh {
            continue;
        }
        match line.strip_prefix("$ ") {
            Some(cmd) => out.push(Step {
                line: cmd.to_owned(),
                shown: Vec::new(),
            }),
            None => {
                if let Some(last) = out.last_mut() {
                    last.shown.push(line.to_owned());
                }
            }
        }
    }
    out
}

/// Splits a shell command line into words as a POSIX shell would for the tour's commands:
/// single and double quotes (`\"` and `\\` escaped in double quotes), `#` comments, and `*`
/// in an unquoted word matched against the files of its directory (relative to `dir`).
fn words(line: &str, dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let (mut any, mut glob) = (false, false);
    let mut chars = line.chars().peekable();
    let mut flush = |cur: &mut String, any: &mut bool, glob: &mut bool| {
        if *glob {
            out.extend(expand(cur, dir));
        } else if *any {
            out.push(std::mem::take(cur));
        }
        cur.clear();
        *any = false;
        *glob = false;
    };
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => flush(&mut cur, &mut any, &mut glob),
            '#' if !any => break,
            '\'' => {
                any = true;
                for c in chars.by_ref() {
                    if c == '\'' {
                        break;
                    }
                    cur.push(c);
                }
            }
            '"' => {
                any = true;
                while let Some(c) = chars.next() {
                    match c {
                        '"' => break,
                        '\\' if matches!(chars.peek(), Some('"' | '\\')) => {
                            cur.extend(chars.next());
                        }
                        c => cur.push(c),
                    }
                }
            }
            c => {
                any = true;
                glob |= c == '*';
                cur.push(c);
            }
        }
    }
    flush(&mut cur, &mut any, &mut glob);
    out
}

/// The files matching `pattern` (one `*` in its last component), sorted, as the shell
/// expands it.
fn expand(pattern: &str, dir: &Path) -> Vec<String> {
    let (parent, name) = pattern.rsplit_once('/').unwrap_or(("", pattern));
    let (pre, post) = name.split_once('*').expect("a glob");
    let mut got: Vec<String> = std::fs::read_dir(dir.join(parent))
        .expect("glob directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.starts_with(pre) && f.ends_with(post) && f.len() >= pre.len() + post.len())
        .map(|f| {
            if parent.is_empty() {
                f
            } else {
                format!("{parent}/{f}")
            }
        })
        .collect();
    got.sort();
    got
}

/// Runs one step in `dir`: `printf 'TEXT' | adjoin ARGS` feeds TEXT (its `\n`s newlines).
fn run(step: &Step, dir: &Path) -> cli::Out {
    let (stdin, cmd) = match step.line.split_once(" | ") {
        Some((printf, cmd)) => {
            let w = words(printf, dir);
            assert_eq!(w.first().map(String::as_str), Some("printf"), "{step:?}");
            (w[1].replace("\\n", "\n"), cmd)
        }
        None => (String::new(), step.line.as_str()),
    };
    let w = words(cmd, dir);
    assert_eq!(w.first().map(String::as_str), Some("adjoin"), "{step:?}");
    let args: Vec<&str> = w[1..].iter().map(String::as_str).collect();
    cli::run(&args, dir, &stdin, &[])
}

/// Copies directory `from` into `to`.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("read dir") {
        let e = e.expect("entry");
        std::fs::copy(e.path(), to.join(e.file_name())).expect("copy");
    }
}

#[test]
fn the_readme_tour_runs_as_written() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let steps = steps(&readme);
    assert!(steps.len() >= 20, "the tour's commands: {steps:?}");
    let dir = tempfile::tempdir().expect("tempdir");
    copy_dir(&root().join("docs/tour"), &dir.path().join("docs/tour"));
    for step in &steps {
        let out = run(step, dir.path());
        assert_eq!(out.code, 0, "$ {}\n{out:?}", step.line);
        let got: Vec<&str> = out.stdout.lines().collect();
        let mut i = 0;
        for want in &step.shown {
            if want == "…" {
                break;
            }
            let line = got.get(i).copied().unwrap_or("<no more output>");
            match want.strip_suffix('…') {
                Some(prefix) => assert!(
                    line.starts_with(prefix),
                    "$ {}\nline {i}: {line:?}, shown {want:?}",
                    step.line
                ),
                None => assert_eq!(line, want, "$ {}\nline {i}", step.line),
            }
            i += 1;
        }
        if step.shown.last().is_some_and(|l| !l.ends_with('…')) {
            assert_eq!(
                got.len(),
                i,
                "$ {}: more output than shown: {:?}",
                step.line,
                out.stdout
            );
        }
    }
}

#[test]
fn words_split_as_the_shell_does() {
    let dir = root();
    for (line, want) in [
        (
            "adjoin a 'b c' \"d\\\"e\"",
            &["adjoin", "a", "b c", "d\"e"][..],
        ),
        ("adjoin x   # a comment", &["adjoin", "x"][..]),
        ("adjoin 'a#b' c#d", &["adjoin", "a#b", "c#d"][..]),
        ("adjoin ''", &["adjoin", ""][..]),
    ] {
        assert_eq!(words(line, &dir), want, "{line}");
    }
    assert_eq!(
        words("ls docs/tour/StatusAds-*", &dir),
        [
            "ls",
            "docs/tour/StatusAds-basic4slot",
            "docs/tour/StatusAds-partionable8core",
            "docs/tour/StatusAds-small1slot"
        ]
    );
}
