//! Fault injection through the binary, in the spirit of redb's: seeded damage of the store's
//! files (bit flips, zeroed pages, truncations) followed by every read command under a time
//! and memory bound, each of which must give the undamaged answer or exit with an error;
//! interrupted opens (their leftovers injected, and a real kill at an open's first write when
//! strace is there); and a file system filled by a load (a tmpfs mounted in a user namespace),
//! on which reads work, a failed load says what it stored, and after space returns every
//! acknowledged ad is there.

mod common;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_adjoin");

/// No read command of these small databases needs more.
const TIME_BOUND: Duration = Duration::from_secs(30);
/// Address space a read command may take (KiB, for `ulimit -v`).
const MEMORY_BOUND_KB: u64 = 2_000_000;
/// Output a read command may print beyond its undamaged answer.
const OUTPUT_SLACK: u64 = 64 << 10;

/// What a bounded run of `adjoin` did.
#[derive(Debug)]
struct Run {
    code: Option<i32>,
    stdout: String,
    stdout_len: u64,
    stderr: String,
    timed_out: bool,
}

/// Runs `adjoin --db DB ARGS` under the memory bound (`ulimit -v` in a shell that then
/// executes it), killed at the time bound; output goes to files, of which at most 1 MiB is
/// read back.
fn bounded(db: &Path, args: &[&str]) -> Run {
    let out = tempfile::tempdir().expect("tempdir");
    let (o, e) = (out.path().join("out"), out.path().join("err"));
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {MEMORY_BOUND_KB} && exec \"$0\" \"$@\""))
        .arg(BIN)
        .arg("--db")
        .arg(db)
        .args(args)
        .env_remove("ADJOIN_DB")
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&o).expect("out"))
        .stderr(std::fs::File::create(&e).expect("err"))
        .spawn()
        .expect("spawn adjoin");
    let started = Instant::now();
    let mut timed_out = false;
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if started.elapsed() > TIME_BOUND {
            timed_out = true;
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let head = |p: &Path| {
        let mut s = String::new();
        let f = std::fs::File::open(p).expect("open output");
        let _ = f.take(1 << 20).read_to_string(&mut s);
        s
    };
    Run {
        code: status.and_then(|s| s.code()),
        stdout: head(&o),
        stdout_len: std::fs::metadata(&o).map_or(0, |m| m.len()),
        stderr: head(&e),
        timed_out,
    }
}

/// The read commands: name and arguments.
const READS: &[(&str, &[&str])] = &[
    ("query", &["query", "--from", "machines", "Memory > 4000"]),
    ("query all", &["query", "--from", "jobs"]),
    (
        "query --count",
        &["query", "--from", "jobs", "--count", "RequestMemory > 3000"],
    ),
    ("get", &["get", "--from", "machines", "m5", "m77", "m999"]),
    ("stats", &["stats"]),
    ("check", &["check"]),
    (
        "match --dry-run",
        &[
            "match",
            "--requests",
            "jobs",
            "--offers",
            "machines",
            "--dry-run",
        ],
    ),
    (
        "join",
        &["join", "--requests", "jobs", "--offers", "machines"],
    ),
];

/// Machine and job ads, as files in `dir`.
fn ad_files(dir: &Path) -> (PathBuf, PathBuf) {
    let m = dir.join("machines.ad");
    let j = dir.join("jobs.ad");
    let mut text = String::new();
    // Padded so that sled's log spans more than one segment (512 KiB): records in a sealed
    // segment are read lazily, by the scan that needs them, where damage shows mid-scan.
    for i in 0..1000 {
        text.push_str(&format!(
            "[Name = \"m{i}\"; Memory = {}; Cpus = {}; Text = \"{}\"; Requirements = TARGET.RequestMemory <= Memory]\n",
            (i % 16) * 512,
            i % 8 + 1,
            "x".repeat(400 + i % 50)
        ));
    }
    std::fs::write(&m, text).expect("machines");
    let mut text = String::new();
    for i in 0..200 {
        text.push_str(&format!(
            "[GlobalJobId = \"j{i}\"; RequestMemory = {}; Requirements = TARGET.Memory >= RequestMemory]\n",
            (i % 10) * 700
        ));
    }
    std::fs::write(&j, text).expect("jobs");
    (m, j)
}

/// A clean database (`dir/db`, closed) and each read command's answer on it.
struct Base {
    dir: tempfile::TempDir,
    answers: Vec<String>,
}

fn base() -> &'static Base {
    static BASE: OnceLock<Base> = OnceLock::new();
    BASE.get_or_init(|| {
        let dir = tempfile::tempdir().expect("tempdir");
        let db = dir.path().join("db");
        let (m, j) = ad_files(dir.path());
        for (coll, file) in [("machines", &m), ("jobs", &j)] {
            let r = bounded(&db, &["load", "--into", coll, file.to_str().expect("utf8")]);
            assert_eq!(r.code, Some(0), "load: {}", r.stderr);
        }
        // Every command once, so that sled's snapshot and the index snapshots exist.
        let answers = READS
            .iter()
            .map(|(what, args)| {
                let r = bounded(&db, args);
                assert_eq!(
                    r.code,
                    Some(0),
                    "{what} on the clean database: {}",
                    r.stderr
                );
                normalize(&r.stdout, &db)
            })
            .collect();
        Base { dir, answers }
    })
}

/// Copies the directory `from` to `to`, recursively.
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for e in std::fs::read_dir(from).expect("ls") {
        let e = e.expect("entry");
        let t = to.join(e.file_name());
        if e.file_type().expect("type").is_dir() {
            copy(&e.path(), &t);
        } else {
            std::fs::copy(e.path(), t).expect("copy");
        }
    }
}

/// Keeps the damaged database `db` and the clean one it was copied from where a failure's
/// message says (the temporary directories go when the test fails), so that a rare failure
/// can be looked into after the run.
fn keep_for_diagnosis(db: &Path) -> PathBuf {
    static KEPT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = KEPT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let kept = std::env::temp_dir().join(format!("adjoin-storage-faults-{}", std::process::id()));
    let at = kept.join(format!("trial-{n}"));
    copy(db, &at.join("damaged"));
    copy(&base().dir.path().join("db"), &at.join("clean"));
    at
}

/// A copy of the clean database in a fresh directory.
fn copy_of_base() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().expect("tempdir");
    let db = dir.path().join("db");
    copy(&base().dir.path().join("db"), &db);
    (dir, db)
}

/// Runs every read command on `db`: each ends within the bounds, exits normally (no signal:
/// no abort on a failed allocation), and either prints the undamaged answer with status 0 or
/// fails with a message (not a panic). Returns how many failed.
fn every_read_is_bounded(db: &Path, what: &str) -> usize {
    let answers = &base().answers;
    let mut failed = 0;
    for ((name, args), clean) in READS.iter().zip(answers) {
        let r = bounded(db, args);
        assert!(!r.timed_out, "{what}: `{name}` ran past {TIME_BOUND:?}");
        let limit = clean.len() as u64 + OUTPUT_SLACK;
        assert!(
            r.stdout_len <= limit,
            "{what}: `{name}` printed {} bytes (undamaged answer {})",
            r.stdout_len,
            clean.len()
        );
        assert!(
            r.stderr.len() as u64 <= OUTPUT_SLACK,
            "{what}: `{name}` printed {} bytes of errors",
            r.stderr.len()
        );
        assert!(
            !r.stderr.contains("panicked at"),
            "{what}: `{name}` printed a panic: {}",
            r.stderr
        );
        match r.code {
            Some(0) => {
                let got = normalize(&r.stdout, db);
                if let Some((a, b)) = got.lines().zip(clean.lines()).find(|(a, b)| a != b) {
                    // Kept before `check` opens (and may repair) it.
                    let kept = keep_for_diagnosis(db);
                    let check = bounded(db, &["check"]);
                    panic!(
                        "{what}: `{name}` exited 0 with another answer: {a:?}, not {b:?} \
                         (stderr {:?}; check: {:?} {:?}; whole answer {:?}; the databases are \
                         kept in {})",
                        r.stderr,
                        check.code,
                        check.stdout,
                        r.stdout,
                        kept.display()
                    );
                }
                if got.lines().count() != clean.lines().count() {
                    let kept = keep_for_diagnosis(db);
                    panic!(
                        "{what}: `{name}` exited 0 with another number of lines: {:?} (the \
                         databases are kept in {})",
                        r.stdout,
                        kept.display()
                    );
                }
            }
            Some(1 | 2) => {
                assert!(
                    !r.stderr.trim().is_empty() || !r.stdout.trim().is_empty(),
                    "{what}: `{name}` failed silently"
                );
                failed += 1;
            }
            other => panic!("{what}: `{name}` ended with {other:?}: {}", r.stderr),
        }
    }
    failed
}

/// `out` with what differs between runs of one answer replaced: the database's path, the
/// time a cycle took (`in 0.016 s`), and the bytes sled's log takes.
fn normalize(out: &str, db: &Path) -> String {
    let out = out.replace(&db.display().to_string(), "DB");
    out.lines()
        .filter(|l| !l.starts_with("bytes on disk"))
        .map(|l| match l.find(" in ").zip(l.find(" s;")) {
            Some((a, b)) if a < b => format!("{} in T{}", &l[..a], &l[b..]),
            _ => l.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The seeded generator of the damage.
type Seeded = adjoin_workload::Rng;

/// A number below `n` (0 when `n` is 0).
fn below(rng: &mut Seeded, n: u64) -> u64 {
    rng.next_u64() % n.max(1)
}

/// The file a trial damages: mostly sled's log, sometimes its snapshot or an index snapshot.
fn victim(db: &Path, rng: &mut Seeded) -> PathBuf {
    let snap = |dir: &Path, prefix: &str| {
        std::fs::read_dir(dir).ok().and_then(|r| {
            r.filter_map(Result::ok).map(|e| e.path()).find(|p| {
                p.file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(prefix))
            })
        })
    };
    match below(rng, 8) {
        0 => snap(db, "snap.").unwrap_or_else(|| db.join("db")),
        1 => snap(&db.join("adjoin-index"), "c").unwrap_or_else(|| db.join("db")),
        _ => db.join("db"),
    }
}

/// The used length of a file: sled's log is sparse past its last write.
fn used_len(bytes: &[u8]) -> usize {
    bytes.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1)
}

/// sled's segment size (its default, which adjoin keeps).
const SEGMENT: usize = 512 << 10;

#[test]
fn seeded_damage_never_hangs_and_never_lies() {
    let mut failures = 0;
    let (mut sealed_trials, mut sealed_noticed) = (0, 0);
    for seed in 0..16u64 {
        let (_dir, db) = copy_of_base();
        let mut rng = Seeded::new(seed);
        let kind = seed % 4;
        let file = if kind == 3 {
            db.join("db")
        } else {
            victim(&db, &mut rng)
        };
        let mut bytes = std::fs::read(&file).expect("read victim");
        let used = used_len(&bytes).max(1);
        let what = match kind {
            0 => {
                let at = below(&mut rng, used as u64) as usize;
                let bit = below(&mut rng, 8);
                bytes[at] ^= 1 << bit;
                format!(
                    "seed {seed}: bit {bit} of byte {at} of {} flipped",
                    file.display()
                )
            }
            1 => {
                let page = below(&mut rng, used as u64 / 4096 + 1) as usize * 4096;
                let end = (page + 4096).min(bytes.len());
                bytes[page..end].fill(0);
                format!("seed {seed}: page at {page} of {} zeroed", file.display())
            }
            2 => {
                let len = below(&mut rng, used as u64) as usize;
                bytes.truncate(len);
                format!("seed {seed}: {} truncated to {len} bytes", file.display())
            }
            _ => {
                // Sealed segments are read lazily, page by page, by the scans that need
                // them: damage there shows mid-scan (where sled's iterator then repeats its
                // error forever), not at open.
                let sealed = used / SEGMENT * SEGMENT;
                assert!(
                    sealed >= SEGMENT,
                    "the base's log fills no segment: {used} bytes"
                );
                for _ in 0..16 {
                    let at = below(&mut rng, sealed as u64) as usize;
                    bytes[at] ^= 1 << below(&mut rng, 8);
                }
                sealed_trials += 1;
                format!("seed {seed}: 16 bits flipped in the sealed segments of sled's log")
            }
        };
        std::fs::write(&file, &bytes).expect("write damage");
        let failed = every_read_is_bounded(&db, &what);
        println!("{what}: {failed} of {} read commands failed", READS.len());
        failures += failed;
        if kind == 3 && failed > 0 {
            sealed_noticed += 1;
        }
    }
    // The damage is real: commands notice it.
    assert!(
        sealed_noticed * 2 >= sealed_trials,
        "damage in sealed segments noticed in only {sealed_noticed} of {sealed_trials} trials"
    );
    assert!(failures > 0, "no damage was ever noticed");
}

/// The clean answers, after leftovers of interrupted opens were put in the directory.
#[test]
fn leftovers_of_interrupted_opens_do_not_brick_the_database() {
    let (_dir, db) = copy_of_base();
    let snap = std::fs::read_dir(&db)
        .expect("ls")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("snap."))
        })
        .expect("sled's snapshot");
    let bytes = std::fs::read(&snap).expect("snapshot");
    // A snapshot cut off by a kill or a full disk, sorted after the good one.
    std::fs::write(
        db.join("snap.FFFFFFFFFFFFFFF0.generating"),
        &bytes[..bytes.len() / 3],
    )
    .expect("generating");
    // sled's settings file cut off.
    let conf = std::fs::read(db.join("conf")).expect("conf");
    std::fs::write(db.join("conf"), &conf[..20]).expect("conf");
    // An index snapshot whose write was interrupted.
    std::fs::write(db.join("adjoin-index").join("c1.tmp"), b"ADJIDX").expect("tmp");
    assert_eq!(every_read_is_bounded(&db, "leftovers"), 0);
    assert!(!db.join("snap.FFFFFFFFFFFFFFF0.generating").exists());
    assert!(!db.join("adjoin-index").join("c1.tmp").exists());
}

/// An open killed at each of its first writes (strace's fault injection), then every read
/// command: the undamaged answers.
#[test]
fn opens_killed_at_a_write_do_not_brick_the_database() {
    let probe = Command::new("strace")
        .args([
            "-f",
            "-o",
            "/dev/null",
            "-e",
            "inject=write:signal=KILL:when=1",
            "true",
        ])
        .output();
    if !probe.is_ok_and(|o| o.status.success()) {
        println!("skipped: strace with fault injection is not available (leftovers are injected by the test above)");
        return;
    }
    for when in 1..=4 {
        let (_dir, db) = copy_of_base();
        // An open after writes: sled writes a new snapshot at open. Make the log move on.
        let (m, _) = ad_files(db.parent().expect("parent"));
        let r = bounded(
            &db,
            &["load", "--into", "machines", m.to_str().expect("utf8")],
        );
        assert_eq!(r.code, Some(0), "{}", r.stderr);
        let killed = Command::new("strace")
            .args(["-f", "-o", "/dev/null", "-e"])
            .arg(format!("inject=write:signal=KILL:when={when}"))
            .arg(BIN)
            .arg("--db")
            .arg(&db)
            .args(["query", "--from", "jobs", "--count", "RequestMemory > 3000"])
            .output()
            .expect("strace");
        assert!(
            !killed.status.success(),
            "write {when}: the open was not killed"
        );
        let failed = every_read_is_bounded(&db, &format!("killed at write {when}"));
        assert_eq!(
            failed, 0,
            "killed at write {when}: the database does not read"
        );
    }
}

const FULL_CHILD: &str = "ADJOIN_FULL_DISK_CHILD";

/// The full-disk scenario, run by [`a_full_file_system_keeps_reads_and_acknowledged_ads`] in
/// a user and mount namespace of its own, where it may mount a small tmpfs.
#[test]
fn full_disk_child() {
    let Ok(mnt) = std::env::var(FULL_CHILD) else {
        return;
    };
    let mnt = PathBuf::from(mnt);
    let mounted = Command::new("mount")
        .args(["-t", "tmpfs", "-o", "size=8m", "tmpfs"])
        .arg(&mnt)
        .status()
        .expect("mount");
    assert!(mounted.success(), "mount failed");
    let db = mnt.join("db");
    let src = tempfile::tempdir().expect("tempdir");
    let file = src.path().join("big.ad");
    let mut text = String::new();
    for i in 0..4000 {
        text.push_str(&format!(
            "[Name = \"m{i}\"; Memory = {i}; Text = \"{}\"; Requirements = TARGET.RequestMemory <= Memory]\n",
            "x".repeat(150)
        ));
    }
    std::fs::write(&file, text).expect("ads");
    // Room for a little more than one load.
    let filler = mnt.join("filler");
    std::fs::write(&filler, vec![1u8; 3 << 20]).expect("filler");
    let mut acknowledged = 0u64;
    let mut failed_load = None;
    for i in 0..6 {
        let coll = format!("c{i}");
        let r = bounded(
            &db,
            &[
                "load",
                "--into",
                &coll,
                "--id-attr",
                "Nope",
                file.to_str().expect("utf8"),
            ],
        );
        match r.code {
            Some(0) => acknowledged += 4000,
            _ => {
                failed_load = Some(r.stderr);
                break;
            }
        }
    }
    let failed = failed_load.expect("the file system never filled");
    println!("failed load: {failed}");
    // Stored-before-failure counts are acknowledged when all durable.
    if let Some(n) = failed
        .split("after storing ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|n| n.parse::<u64>().ok())
    {
        if failed.contains("all of them durable") {
            acknowledged += n;
        }
    } else {
        assert!(
            failed.contains("file system full") || failed.contains("No space left"),
            "{failed}"
        );
    }
    let count = |db: &Path| -> u64 {
        let r = bounded(db, &["stats"]);
        assert_eq!(r.code, Some(0), "stats: {}", r.stderr);
        r.stdout
            .lines()
            .filter(|l| !l.starts_with("(all)"))
            .filter_map(|l| l.split_whitespace().nth(1))
            .filter_map(|n| n.replace(',', "").parse::<u64>().ok())
            .sum()
    };
    // Full: reads work, writes are refused with a clear message.
    for _ in 0..3 {
        let r = bounded(&db, &["check"]);
        assert_eq!(r.code, Some(0), "check on a full file system: {}", r.stderr);
        let r = bounded(&db, &["query", "--from", "c0", "--count", "Memory >= 0"]);
        assert_eq!(r.code, Some(0), "query on a full file system: {}", r.stderr);
        let read: u64 = r.stdout.trim().parse().expect("a count");
        assert!(read > 0 && read <= 4000, "{read}");
        assert!(count(&db) >= acknowledged);
    }
    let r = bounded(
        &db,
        &["load", "--into", "late", file.to_str().expect("utf8")],
    );
    assert_ne!(r.code, Some(0));
    assert!(r.stderr.contains("file system full"), "{}", r.stderr);
    // Space returns: everything acknowledged is there, and writes work again.
    std::fs::remove_file(&filler).expect("free space");
    assert!(count(&db) >= acknowledged);
    let r = bounded(&db, &["check"]);
    assert_eq!(r.code, Some(0), "check after space returned: {}", r.stderr);
    let one = src.path().join("one.ad");
    std::fs::write(&one, "[Name = \"late\"; Memory = 1]\n").expect("one ad");
    let r = bounded(
        &db,
        &["load", "--into", "late", one.to_str().expect("utf8")],
    );
    assert_eq!(
        r.code,
        Some(0),
        "a write after space returned: {}",
        r.stderr
    );
    assert!(count(&db) > acknowledged);
    assert!(!db.join("adjoin-index").read_dir().is_ok_and(
        |mut d| d.any(|e| e.is_ok_and(|e| e.path().extension().is_some_and(|x| x == "tmp")))
    ));
    println!("full disk: ok");
}

#[test]
fn a_full_file_system_keeps_reads_and_acknowledged_ads() {
    let mnt = tempfile::tempdir().expect("tempdir");
    let probe = Command::new("unshare")
        .args(["-r", "-m", "sh", "-c"])
        .arg(format!(
            "mount -t tmpfs -o size=1m tmpfs {}",
            mnt.path().display()
        ))
        .output();
    if !probe.as_ref().is_ok_and(|o| o.status.success()) {
        println!(
            "skipped: this environment forbids mounting a tmpfs in a user namespace ({}); the \
             byte-budget backend of adjoin-storage's faults tests covers a full store",
            probe.map_or_else(
                |e| e.to_string(),
                |o| String::from_utf8_lossy(&o.stderr).into_owned()
            )
        );
        return;
    }
    let out = Command::new("unshare")
        .args(["-r", "-m"])
        .arg(std::env::current_exe().expect("exe"))
        .args([
            "full_disk_child",
            "--exact",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(FULL_CHILD, mnt.path())
        .output()
        .expect("child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("full disk: ok"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
