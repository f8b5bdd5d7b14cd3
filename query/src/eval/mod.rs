//! Evaluation with HTCondor's semantics.
//!
//! An [`Evaluator`] evaluates expressions to arena-borrowed [`Val`]s. Everything it allocates
//! (strings, lists, scopes, expressions parsed at run time) lives in an [`Arena`] that the caller
//! owns and that outlives every value; the public entry points in [`api`] create one per call and
//! hand back owned [`Value`]s.
//!
//! Bounds: nesting depth and total work are budgeted ([`EvalOptions`]); exceeding either yields
//! `error`, never a stack overflow or a hang.

pub mod api;
mod expr;

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::name::Key;
use crate::value::{Scope, Val};
use bumpalo::Bump;
use std::cell::Cell;

pub use api::{eval_expr, eval_in_match, symmetric_match, MatchAds};

/// Knobs of an evaluation.
#[derive(Clone, Debug)]
pub struct EvalOptions {
    /// HTCondor's daemons' rule: an unscoped name found in none of MY's scopes is looked up in
    /// TARGET. On by default, as in a negotiator.
    pub target_fallback: bool,
    /// A fixed clock (seconds since the epoch) for `time()`, `CurrentTime` and friends; `None`
    /// reads the system clock.
    pub now: Option<i64>,
    /// A fixed local time-zone offset (seconds east of UTC); `None` asks the system.
    pub tz_offset: Option<i32>,
    /// Deepest nesting of evaluation (attribute references, calls, operators) before `error`.
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
            max_depth: 1_000,
            max_work: 50_000_000,
        }
    }
}

/// Storage for everything an evaluation allocates.
#[derive(Default)]
pub struct Arena {
    bump: Bump,
    exprs: typed_arena::Arena<Expr>,
    ads: typed_arena::Arena<ClassAd>,
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
    /// Attributes being evaluated right now, as (ad address, key): a repeat is a cycle.
    pub(crate) in_progress: Vec<(usize, Key)>,
    /// The top-level scope evaluation started from (`.attr`, `root`).
    pub(crate) root: Option<&'a Scope<'a>>,
}

impl<'a> Evaluator<'a> {
    /// An evaluator allocating in `arena` under `opts`.
    pub fn new(arena: &'a Arena, opts: &'a EvalOptions) -> Evaluator<'a> {
        Evaluator {
            arena,
            opts,
            depth: 0,
            work: 0,
            in_progress: Vec::new(),
            root: None,
        }
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
        self.arena.exprs.alloc(e)
    }

    /// Moves an ad built at run time into the arena.
    pub fn alloc_ad(&self, ad: ClassAd) -> &'a ClassAd {
        self.arena.ads.alloc(ad)
    }

    /// Spends `units` of the work budget; false (and the caller yields `error`) once it is gone.
    #[inline]
    pub fn charge(&mut self, units: u64) -> bool {
        self.work = self.work.saturating_add(units);
        self.work <= self.opts.max_work
    }

    /// The current time in seconds since the epoch (fixed by [`EvalOptions::now`] if set).
    pub fn now(&self) -> i64 {
        self.opts.now.unwrap_or_else(|| chrono::Utc::now().timestamp())
    }

    /// The current time with sub-second precision (fixed clocks have none).
    pub fn now_f64(&self) -> f64 {
        match self.opts.now {
            Some(n) => n as f64,
            None => {
                let t = chrono::Utc::now();
                t.timestamp() as f64 + f64::from(t.timestamp_subsec_micros()) / 1e6
            }
        }
    }

    /// The local time zone's offset from UTC (seconds east) at `secs`.
    pub fn tz_offset(&self, secs: i64) -> i32 {
        if let Some(o) = self.opts.tz_offset {
            return o;
        }
        use chrono::{Local, Offset, TimeZone};
        match Local.timestamp_opt(secs, 0) {
            chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
                t.offset().fix().local_minus_utc()
            }
            chrono::LocalResult::None => 0,
        }
    }
}
