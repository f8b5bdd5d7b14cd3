//! Evaluation with HTCondor's semantics.
//!
//! An [`Evaluator`] evaluates expressions to arena-borrowed [`Val`]s. Everything it allocates
//! (strings, lists, scopes, expressions parsed at run time) lives in an [`Arena`] that the caller
//! owns and that outlives every value; the public entry points in [`api`] create one per call and
//! hand back owned [`Value`](crate::Value)s.
//!
//! Bounds: nesting depth and total work are budgeted ([`EvalOptions`]); exceeding either yields
//! `error`, never a stack overflow or a hang.

pub mod api;
mod arith;
mod bits;
mod compare;
pub mod counters;
mod expr;
pub mod host;
mod logic;
pub mod ops;
mod quick;
mod scope;
mod select;
mod time_ops;
pub mod tracked;

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::value::{Scope, Val};
use bumpalo::Bump;
use std::cell::{Cell, OnceCell};

pub use api::{
    eval_attr_in_match, eval_attr_value, eval_expr, eval_expr_nested, eval_in_match,
    eval_key_in_match, matches, one_side_match, requirements_hold, requirements_key,
    symmetric_match, MatchAds,
};
pub use compare::cmp_ignore_case;
pub use counters::{counters, evaluation_count, Counters};
pub use logic::bool_equiv;
pub use ops::{apply_binary, apply_unary};
pub use quick::quick_key_in_match;
pub use scope::Found;
pub(crate) use select::top_parent;
pub use tracked::eval_tracked;

/// Knobs of an evaluation.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// HTCondor's old-ClassAd semantics, as its daemons run (on by default, as in a
    /// negotiator): an unscoped name written in a top-level ad of a match and found in none of
    /// its scopes is looked up in TARGET, and `my` and `CurrentTime` are keywords everywhere.
    /// Off: strict new-ClassAd semantics (`my` only names the top-level ad of a match).
    pub target_fallback: bool,
    /// A fixed clock (seconds since the epoch) for `time()`, `CurrentTime` and friends; `None`
    /// asks the [`host`](Self::host).
    pub now: Option<i64>,
    /// A fixed local time-zone offset (seconds east of UTC); `None` asks the host.
    pub tz_offset: Option<i32>,
    /// The machine evaluation reads (clock, time zone, user database, random seeds): the real
    /// one by default, [`host::Fixed`] for repeatable answers.
    pub host: host::HostRef,
    /// Deepest nesting of evaluation (every node: attribute references, calls, operators,
    /// literals) before the whole evaluation is `error`. The default, 401, is HTCondor's limit
    /// (400 nested operators or references evaluate, one more fails); it is also safe on a
    /// 2 MiB thread stack in a debug build (which overflows near 4,000).
    pub max_depth: u32,
    /// Work units (nodes visited, bytes built) one top-level evaluation may spend before `error`.
    pub max_work: u64,
}

impl Default for EvalOptions {
    fn default() -> EvalOptions {
        EvalOptions {
            target_fallback: true,
            now: None,
            tz_offset: None,
            host: host::HostRef::default(),
            max_depth: 401,
            max_work: 50_000_000,
        }
    }
}

/// Storage for everything an evaluation allocates. Creating one allocates nothing: the bump
/// allocator takes its first chunk on first use and the typed arenas are made on demand, so a
/// match that allocates nothing costs no heap traffic.
#[derive(Default)]
pub struct Arena {
    bump: Bump,
    exprs: OnceCell<typed_arena::Arena<Expr>>,
    ads: OnceCell<typed_arena::Arena<ClassAd>>,
}

impl Arena {
    /// An empty arena (allocates nothing until used).
    pub fn new() -> Arena {
        Arena::default()
    }
}

/// The state of one evaluation.
pub struct Evaluator<'a> {
    arena: &'a Arena,
    opts: &'a EvalOptions,
    /// Current nesting depth.
    pub(crate) depth: u32,
    /// Work spent so far.
    pub(crate) work: u64,
    /// Copies of the budgets (read on every node).
    max_depth: u32,
    max_work: u64,
    /// Attributes being evaluated right now, as (ad address, key): a repeat is a cycle.
    pub(crate) in_progress: scope::InProgress,
    /// The top-level scope evaluation started from (`.attr`, `root`).
    pub(crate) root: Option<&'a Scope<'a>>,
    /// Set once a budget is exceeded: every further step yields `error`, so the whole evaluation
    /// does (HTCondor fails the evaluation outright).
    pub(crate) aborted: bool,
    /// Probing mode (specialization): note in `touched` whatever the result may depend on
    /// beyond the ad itself (the other ad of a match, the clock, randomness).
    pub(crate) probe: bool,
    /// See `probe`.
    pub(crate) touched: Cell<bool>,
    /// When probing, also count a cut cycle as outside knowledge (its value depends on which
    /// attributes are in progress, which differs where the result will be used).
    pub(crate) probe_cycles: bool,
    /// Attribute and top-level evaluations done, flushed to the global counters on drop.
    pub(crate) evals: u64,
    /// The state of `random()`'s sequence, seeded from the host on first use.
    rng: Cell<Option<u64>>,
}

impl Drop for Evaluator<'_> {
    fn drop(&mut self) {
        counters::record(self.evals, self.work);
    }
}

impl<'a> Evaluator<'a> {
    /// An evaluator allocating in `arena` under `opts`.
    pub fn new(arena: &'a Arena, opts: &'a EvalOptions) -> Evaluator<'a> {
        Evaluator {
            arena,
            opts,
            depth: 0,
            work: 0,
            max_depth: opts.max_depth,
            max_work: opts.max_work,
            in_progress: scope::InProgress::new(),
            root: None,
            aborted: false,
            probe: false,
            touched: Cell::new(false),
            probe_cycles: false,
            evals: 0,
            rng: Cell::new(None),
        }
    }

    /// True once a depth or work budget has been exceeded (the result is then `error`).
    pub fn aborted(&self) -> bool {
        self.aborted
    }

    /// The options in force.
    pub fn options(&self) -> &'a EvalOptions {
        self.opts
    }

    /// A scope for `ad` inside `parent`.
    pub fn scope(&self, ad: &'a ClassAd, parent: Option<&'a Scope<'a>>) -> &'a Scope<'a> {
        self.arena.bump.alloc(Scope {
            ad,
            parent,
            other: Cell::new(None),
        })
    }

    /// Allocates a scope value as given.
    pub fn alloc_scope(&self, scope: Scope<'a>) -> &'a Scope<'a> {
        self.arena.bump.alloc(scope)
    }

    /// Copies `s` into the arena.
    pub fn alloc_str(&self, s: &str) -> &'a str {
        self.arena.bump.alloc_str(s)
    }

    /// Copies `items` into the arena as a list.
    pub fn alloc_list(&self, items: &[Val<'a>]) -> &'a [Val<'a>] {
        self.arena.bump.alloc_slice_copy(items)
    }

    /// Moves an expression (e.g. one parsed at run time by `eval()`) into the arena.
    pub fn alloc_expr(&self, e: Expr) -> &'a Expr {
        self.arena
            .exprs
            .get_or_init(typed_arena::Arena::new)
            .alloc(e)
    }

    /// Moves an ad built at run time into the arena.
    pub fn alloc_ad(&self, ad: ClassAd) -> &'a ClassAd {
        self.arena
            .ads
            .get_or_init(typed_arena::Arena::new)
            .alloc(ad)
    }

    /// The bump allocator of this evaluation's arena (for building lists in place).
    pub fn bump(&self) -> &'a Bump {
        &self.arena.bump
    }

    /// Spends `units` of the work budget; false (and the caller yields `error`) once it is gone.
    #[inline]
    pub fn charge(&mut self, units: u64) -> bool {
        self.work = self.work.saturating_add(units);
        if self.work > self.max_work {
            self.abort();
        }
        !self.aborted
    }

    /// Gives up: the evaluation's result is `error`. Exhausting the work budget makes every
    /// later step fail at once, without a separate test on the hot path.
    #[cold]
    pub(crate) fn abort(&mut self) {
        self.aborted = true;
        self.max_work = 0;
    }

    /// The value an evaluation returns to its caller: `error` once aborted.
    #[inline]
    pub(crate) fn finish(&self, v: Val<'a>) -> Val<'a> {
        if self.aborted {
            Val::Error
        } else {
            v
        }
    }

    /// The current time in seconds since the epoch (fixed by [`EvalOptions::now`] if set).
    pub fn now(&self) -> i64 {
        match self.opts.now {
            Some(n) => n,
            None => {
                self.touch();
                self.opts.host.now().floor() as i64
            }
        }
    }

    /// Records, when probing, that the value being computed depends on something other than the
    /// ad (the clock, the other ad, randomness): built-ins that read such state call this.
    #[inline]
    pub fn touch(&self) {
        if self.probe {
            self.touched.set(true);
        }
    }

    /// The current time with sub-second precision (fixed clocks have none).
    pub fn now_f64(&self) -> f64 {
        match self.opts.now {
            Some(n) => n as f64,
            None => {
                self.touch();
                self.opts.host.now()
            }
        }
    }

    /// The local time zone's offset from UTC (seconds east) at `secs`.
    pub fn tz_offset(&self, secs: i64) -> i32 {
        match self.opts.tz_offset {
            Some(o) => o,
            None => self.opts.host.tz_offset(secs),
        }
    }

    /// The home directory of `user`, from the host's user database.
    pub fn home_of(&self, user: &str) -> Option<String> {
        self.touch();
        self.opts.host.home_of(user)
    }

    /// The next pseudo-random 64 bits of this evaluation's sequence (splitmix64, seeded from
    /// the host on first use).
    pub fn next_random(&self) -> u64 {
        self.touch();
        let mut s = match self.rng.get() {
            Some(s) => s,
            None => self.opts.host.seed(),
        };
        s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
        self.rng.set(Some(s));
        let mut z = s;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

#[cfg(test)]
mod chain_tests;
#[cfg(test)]
mod tests;
