//! What an evaluation reads of the machine it runs on — the clock, the local time zone, the
//! user database (for `userHome`) and a source of random seeds — behind one trait, [`Host`],
//! reached only through [`EvalOptions::host`](super::EvalOptions::host). [`System`] is the real
//! machine and the only place in the crate that touches it (the parser asks it too, for the
//! zone of a time literal written without one); [`Fixed`] is a host that tests (and anyone
//! wanting repeatable evaluation) set to known answers.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// The machine as an evaluation sees it.
pub trait Host: Send + Sync + fmt::Debug {
    /// Seconds since the epoch, with sub-second precision where the host has it.
    fn now(&self) -> f64;
    /// The local time zone's offset from UTC (seconds east) at `secs` since the epoch.
    fn tz_offset(&self, secs: i64) -> i32;
    /// The home directory of `user` (as `getpwnam` would find it), if known.
    fn home_of(&self, user: &str) -> Option<String>;
    /// A seed for one evaluation's `random()` sequence.
    fn seed(&self) -> u64;
}

/// The host handed to evaluations: shared and cheap to clone. The default is [`System`].
#[derive(Clone, Debug)]
pub struct HostRef(pub Arc<dyn Host>);

impl Default for HostRef {
    fn default() -> HostRef {
        HostRef(Arc::new(System))
    }
}

impl HostRef {
    /// A handle on `host`.
    pub fn new(host: impl Host + 'static) -> HostRef {
        HostRef(Arc::new(host))
    }
}

impl std::ops::Deref for HostRef {
    type Target = dyn Host;
    fn deref(&self) -> &(dyn Host + 'static) {
        &*self.0
    }
}

/// The real machine: the system clock, the system's time zone, `/etc/passwd`, and seeds from
/// the clock mixed with a process-wide counter (so that two evaluations in one instant differ).
#[derive(Clone, Copy, Debug, Default)]
pub struct System;

impl Host for System {
    fn now(&self) -> f64 {
        let t = chrono::Utc::now();
        t.timestamp() as f64 + f64::from(t.timestamp_subsec_micros()) / 1e6
    }

    fn tz_offset(&self, secs: i64) -> i32 {
        use chrono::{Local, Offset, TimeZone};
        match Local.timestamp_opt(secs, 0) {
            chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
                t.offset().fix().local_minus_utc()
            }
            chrono::LocalResult::None => 0,
        }
    }

    #[cfg(unix)]
    fn home_of(&self, user: &str) -> Option<String> {
        if user.is_empty() {
            return None;
        }
        let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
        home_in_passwd(&passwd, user)
    }

    /// HTCondor has no `userHome` on Windows.
    #[cfg(not(unix))]
    fn home_of(&self, _: &str) -> Option<String> {
        None
    }

    fn seed(&self) -> u64 {
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        nanos ^ n.rotate_left(32) ^ 0x9E37_79B9_7F4A_7C15
    }
}

/// The home directory of `user` in a text in `/etc/passwd`'s format
/// (`name:password:uid:gid:gecos:home:shell`).
pub fn home_in_passwd(passwd: &str, user: &str) -> Option<String> {
    passwd
        .lines()
        .map(|line| line.split(':').collect::<Vec<_>>())
        .find(|fields| fields.len() >= 6 && fields[0] == user)
        .map(|fields| fields[5].to_string())
}

/// A host with known answers: a clock stopped at `now`, a fixed offset, a given user table,
/// and one seed (every evaluation's `random()` sequence is the same).
#[derive(Clone, Debug, Default)]
pub struct Fixed {
    /// Seconds since the epoch.
    pub now: i64,
    /// Seconds east of UTC.
    pub tz_offset: i32,
    /// `(user, home)` pairs.
    pub homes: Vec<(String, String)>,
    /// The seed of every evaluation.
    pub seed: u64,
}

impl Host for Fixed {
    fn now(&self) -> f64 {
        self.now as f64
    }

    fn tz_offset(&self, _: i64) -> i32 {
        self.tz_offset
    }

    fn home_of(&self, user: &str) -> Option<String> {
        self.homes
            .iter()
            .find(|(u, _)| u == user)
            .map(|(_, h)| h.clone())
    }

    fn seed(&self) -> u64 {
        self.seed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwd_lines() {
        let passwd = "root:x:0:0:root:/root:/bin/bash\n# comment\nbad line\nann:x:1000:1000::/home/ann:/bin/sh\n";
        for (user, want) in [
            ("root", Some("/root")),
            ("ann", Some("/home/ann")),
            ("bob", None),
            ("bad line", None),
        ] {
            assert_eq!(home_in_passwd(passwd, user).as_deref(), want, "{user}");
        }
    }

    #[test]
    fn fixed_answers() {
        let h = Fixed {
            now: 100,
            tz_offset: 3600,
            homes: vec![("ann".into(), "/h/ann".into())],
            seed: 7,
        };
        assert_eq!(
            (
                h.now(),
                h.tz_offset(0),
                h.home_of("ann"),
                h.home_of("x"),
                h.seed()
            ),
            (100.0, 3600, Some("/h/ann".into()), None, 7)
        );
    }

    #[test]
    fn evaluation_reads_the_host_it_is_given() {
        use crate::eval::{eval_expr, EvalOptions};
        use crate::{parse, ClassAd, Value};
        let opts = EvalOptions {
            host: HostRef::new(Fixed {
                now: 1_000_000,
                tz_offset: -3600,
                homes: vec![("ann".into(), "/h/ann".into())],
                seed: 42,
            }),
            ..EvalOptions::default()
        };
        let ad = ClassAd::new();
        let eval = |text: &str| eval_expr(&parse::expr(text).expect(text), &ad, &opts);
        for (text, want) in [
            ("time()", Value::Int(1_000_000)),
            ("userHome(\"ann\")", Value::Str("/h/ann".into())),
            ("userHome(\"bob\", \"/tmp\")", Value::Str("/tmp".into())),
            ("formatTime(0, \"%H\")", Value::Str("23".into())),
        ] {
            assert_eq!(eval(text), want, "{text}");
        }
        // One seed: every evaluation draws the same sequence, and draws within one differ.
        let draws = "{random(1000000), random(1000000)}";
        assert_eq!(eval(draws), eval(draws));
        assert_ne!(
            eval("random(1000000) == random(1000000)"),
            Value::Bool(true)
        );
    }
}
