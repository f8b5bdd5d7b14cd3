//! Damaged and contended databases: bytes flipped in the database files make open, check or a
//! read report damage, never panic; a second process opening a database in use gets a clear
//! "database in use" error at once.

use adjoin::query::{ClassAd, Expr, Value};
use adjoin::storage::{NewMatch, NewMember};
use adjoin::{Db, DbError};
use adjoin_workload::Rng;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

const CHILD_ENV: &str = "ADJOIN_LOCK_CHILD";

fn ad(k: u64) -> ClassAd {
    let mut ad = ClassAd::new();
    ad.set("Name", Expr::lit(Value::str(&format!("slot{k}"))));
    ad.set("Memory", Expr::lit(Value::Int(k as i64 * 64)));
    ad.set(
        "Text",
        Expr::lit(Value::str(&"x".repeat(40 + (k % 60) as usize))),
    );
    ad
}

/// The child: opens the database named by the environment and prints the outcome.
#[test]
fn lock_child() {
    let Ok(path) = std::env::var(CHILD_ENV) else {
        return;
    };
    match Db::open(&path) {
        Ok(_) => println!("opened"),
        Err(e) => println!("error: {e}"),
    }
}

#[test]
fn a_second_process_gets_database_in_use() {
    let dir = tempfile::tempdir().expect("tempdir");
    let path = dir.path().join("db");
    let db = Db::open(&path).expect("open");
    db.put("m", &ad(1)).expect("put");
    let t = Instant::now();
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args(["lock_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &path)
        .output()
        .expect("child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("error: database in use"), "{stdout}");
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "no hang: {:?}",
        t.elapsed()
    );
    drop(db);
    let out = Command::new(std::env::current_exe().expect("exe"))
        .args(["lock_child", "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD_ENV, &path)
        .output()
        .expect("child");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("opened"),
        "free once closed"
    );
}

/// A database of 300 ads, some consumed by matches.
fn build(path: &Path) {
    let db = Db::open(path).expect("open");
    for k in 0..300 {
        db.put("machines", &ad(k)).expect("put");
    }
    for k in 0..20 {
        db.record_match(&NewMatch {
            cycle: 1,
            members: vec![NewMember {
                collection: "machines".into(),
                id: format!("slot{k}"),
                rank: Some(Value::Real(0.5)),
                consume: true,
            }],
        })
        .expect("match");
    }
    db.flush().expect("flush");
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).expect("read dir").flatten() {
        let p = entry.path();
        if p.is_dir() {
            out.extend(files(&p));
        } else if std::fs::metadata(&p).map(|m| m.len() > 0).unwrap_or(false) {
            out.push(p);
        }
    }
    out.sort();
    out
}

/// What opening and checking a damaged copy came to.
#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum Outcome {
    /// Open refused, with a message naming the problem.
    OpenRefused,
    /// Open worked; check or a read reported damage.
    Reported,
    /// Nothing noticed, and everything reads back as written (the flipped bytes were in
    /// space the store does not use).
    Unnoticed,
    /// Content differs and nothing said so: the one outcome that must never happen.
    Lost,
}

/// Opens, checks and reads everything; any panic fails the test.
fn examine(path: &Path) -> (Outcome, String) {
    let db = match Db::open(path) {
        Ok(db) => db,
        Err(e) => {
            let msg = e.to_string();
            assert!(
                matches!(e, DbError::Open(_)),
                "open failed with a non-open error: {msg}"
            );
            return (Outcome::OpenRefused, msg);
        }
    };
    let mut problems = Vec::new();
    match db.check() {
        Ok(r) => problems.extend(r.damage.iter().map(|d| d.to_string())),
        Err(e) => problems.push(e.to_string()),
    }
    match db.scan("machines") {
        Ok(scan) => problems.extend(scan.filter_map(|r| r.err()).map(|e| e.to_string())),
        Err(e) => problems.push(e.to_string()),
    }
    let mut wrong = Vec::new();
    for k in 0..300 {
        match db.get("machines", &format!("slot{k}")) {
            Err(e) => problems.push(e.to_string()),
            Ok(got) => {
                let want = (k >= 20).then(|| ad(k).to_string());
                if got.map(|a| a.ad.to_string()) != want {
                    wrong.push(k);
                }
            }
        }
    }
    match db.matches() {
        Err(e) => problems.push(e.to_string()),
        Ok(m) if m.len() != 20 => wrong.push(1000 + m.len() as u64),
        Ok(_) => {}
    }
    if !problems.is_empty() {
        (Outcome::Reported, problems.join("; "))
    } else if !wrong.is_empty() {
        (
            Outcome::Lost,
            format!("content differs silently: {wrong:?}"),
        )
    } else {
        (Outcome::Unnoticed, String::new())
    }
}

#[test]
fn flipped_bytes_are_reported_never_panic() {
    let dir = tempfile::tempdir().expect("tempdir");
    let pristine = dir.path().join("pristine");
    build(&pristine);
    assert_eq!(examine(&pristine).0, Outcome::Unnoticed);
    let targets = files(&pristine);
    let mut rng = Rng::new(0xdead);
    let mut seen = Vec::new();
    for trial in 0..60 {
        let copy = dir.path().join(format!("trial{trial}"));
        copy_dir(&pristine, &copy);
        let rel = targets[rng.range(0, targets.len() as i64) as usize]
            .strip_prefix(&pristine)
            .expect("inside")
            .to_owned();
        let file = copy.join(&rel);
        let mut bytes = std::fs::read(&file).expect("read");
        let flips = rng.range(1, 9);
        if trial % 6 == 5 {
            // A torn file: cut at a random point.
            bytes.truncate(rng.range(0, bytes.len() as i64) as usize);
        } else {
            for _ in 0..flips {
                let at = rng.range(0, bytes.len() as i64) as usize;
                bytes[at] ^= 1 << rng.range(0, 8);
            }
        }
        std::fs::write(&file, &bytes).expect("write");
        let outcome = std::panic::catch_unwind(|| examine(&copy));
        let (outcome, msg) =
            outcome.unwrap_or_else(|_| panic!("trial {trial}: a panic escaped ({rel:?})"));
        eprintln!("trial {trial}: {rel:?} x{flips}: {outcome:?} {msg:.200}");
        seen.push(outcome);
        let _ = std::fs::remove_dir_all(&copy);
    }
    assert!(
        seen.iter().any(|o| *o != Outcome::Unnoticed),
        "no damage was ever noticed"
    );
}
