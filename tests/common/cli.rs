//! Running the `adjoin` binary from the integration tests.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

/// The `adjoin` binary, known to the tests of the package that builds it (adjoin-cli).
const BIN: Option<&str> = option_env!("CARGO_BIN_EXE_adjoin");

/// What a run of `adjoin` printed and returned.
#[derive(Debug)]
pub struct Out {
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
    /// The exit status (-1 when killed by a signal).
    pub code: i32,
}

/// Runs `adjoin ARGS` in `dir` (so `./adjoin.db` is its database; `$ADJOIN_DB` unset) with
/// `stdin` and the extra environment `env`.
pub fn run(args: &[&str], dir: &Path, stdin: &str, env: &[(&str, &Path)]) -> Out {
    run_bytes(args, dir, stdin.as_bytes(), env)
}

/// [`run`] with standard input given as bytes (which need not be UTF-8).
pub fn run_bytes(args: &[&str], dir: &Path, stdin: &[u8], env: &[(&str, &Path)]) -> Out {
    let mut cmd = Command::new(BIN.expect("the adjoin binary: these tests are adjoin-cli's"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("ADJOIN_DB")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn adjoin");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin)
        .expect("write stdin");
    let out = child.wait_with_output().expect("wait");
    Out {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        code: out.status.code().unwrap_or(-1),
    }
}

/// [`run`], retried while the database is still held by a process that just exited (sled's
/// flusher keeps its lock a moment after the process's last call).
pub fn run_when_free(args: &[&str], dir: &Path) -> Out {
    for _ in 0..100 {
        let out = run(args, dir, "", &[]);
        if !out.stderr.contains("database in use") {
            return out;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("the database stayed in use: adjoin {args:?}");
}
