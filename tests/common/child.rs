//! Crash tests' children: the test binary runs one of its own tests as a child process (the
//! test returns at once unless its environment names a database), which writes until it is
//! SIGKILLed at a chosen moment; the parent then reopens the database and checks it.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A number from the environment variable `name`, 0 when unset or not a number.
pub fn env_u64(name: &str) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Starts the test `test` of this test binary as a child with `env` set, its stdout piped.
fn spawn(test: &str, env: &[(&str, String)]) -> Child {
    let exe = std::env::current_exe().expect("test binary");
    Command::new(exe)
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn child")
}

/// Runs the test `test` of this test binary as a child with `env` set, SIGKILLs it after
/// `after` and returns the lines it printed. Panics if it exits on its own first.
pub fn run_killed(test: &str, env: &[(&str, String)], after: Duration) -> Vec<String> {
    let mut child = spawn(test, env);
    let stdout = child.stdout.take().expect("stdout");
    let reader = std::thread::spawn(move || {
        BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
            .collect::<Vec<String>>()
    });
    let t = Instant::now();
    while t.elapsed() < after {
        if let Ok(Some(status)) = child.try_wait() {
            panic!("child exited on its own: {status}");
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().expect("SIGKILL");
    child.wait().expect("reap");
    reader.join().expect("reader")
}

/// Runs the test `test` of this test binary as a child with `env` set, waits until it has
/// printed `nth` lines starting with `prefix`, SIGKILLs it `after` later and returns those
/// lines. Panics if it ends before.
pub fn run_killed_after_lines(
    test: &str,
    env: &[(&str, String)],
    prefix: &str,
    nth: usize,
    after: Duration,
) -> Vec<String> {
    let mut child = spawn(test, env);
    let stdout = child.stdout.take().expect("stdout");
    let seen: Vec<String> = BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .filter(|l| l.starts_with(prefix))
        .take(nth)
        .collect();
    assert_eq!(
        seen.len(),
        nth,
        "the child ended before printing {nth} × {prefix:?}"
    );
    std::thread::sleep(after);
    child.kill().expect("SIGKILL");
    child.wait().expect("reap");
    seen
}
