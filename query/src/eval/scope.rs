//! Attribute lookup with HTCondor's scoping, and evaluation of the attribute found.
//!
//! An unscoped name is searched in the ad it is written in, then in each lexically enclosing
//! ad. The keywords `self` (this ad), `parent` (the enclosing ad) and `root`/`toplevel` (the
//! outermost ad) apply only when the *first* ad searched lacks an attribute of that name
//! (HTCondor's `LookupInScope`); under HTCondor's old-ClassAd semantics
//! ([`EvalOptions::target_fallback`](super::EvalOptions)) so do `my` (this ad) and `CurrentTime`
//! (`time()`). `target`/`other` — and, without the old semantics, `my` — are bound above the
//! outermost ad of a match (HTCondor's `lCtx`/`rCtx` ads), so any enclosing ad's attribute of
//! that name shadows them. Under the old semantics, a name written in a top-level ad of a match
//! and found nowhere is then looked up in the other ad (HTCondor's `alternateScope`).
//! An attribute's expression is evaluated in the scope of the ad holding it; re-entering an
//! attribute already being evaluated is a cycle and yields `undefined`, as HTCondor does.

use super::Evaluator;
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::name::{kw, Key};
use crate::value::{Scope, Val, Value};

/// What a name resolves to.
#[derive(Copy, Clone, Debug)]
pub enum Found<'a> {
    /// An attribute's expression, with the scope of the ad that holds it.
    Attr(&'a Expr, &'a Scope<'a>, Key),
    /// A keyword naming an ad (`self`, `parent`, `target`, …).
    Ad(&'a Scope<'a>),
    /// `CurrentTime`.
    Time,
    /// Nothing.
    Undefined,
}

const INLINE: usize = 16;

/// The attributes being evaluated, as (ad address, key); the first few kept inline so that a
/// match allocates nothing.
pub(crate) struct InProgress {
    inline: [(usize, Key); INLINE],
    len: usize,
    spill: Vec<(usize, Key)>,
}

impl InProgress {
    pub(crate) fn new() -> InProgress {
        InProgress {
            inline: [(0, Key(0)); INLINE],
            len: 0,
            spill: Vec::new(),
        }
    }

    #[inline]
    fn contains(&self, id: (usize, Key)) -> bool {
        if self.len <= INLINE {
            self.inline[..self.len].contains(&id)
        } else {
            self.inline.contains(&id) || self.spill.contains(&id)
        }
    }

    fn push(&mut self, id: (usize, Key)) {
        if self.len < INLINE {
            self.inline[self.len] = id;
        } else {
            self.spill.push(id);
        }
        self.len += 1;
    }

    fn pop(&mut self) {
        if self.len > INLINE {
            self.spill.pop();
        }
        self.len = self.len.saturating_sub(1);
    }

    /// Marks `id` in progress (used to seed a probe with the caller's context).
    pub(crate) fn enter(&mut self, id: (usize, Key)) {
        self.push(id)
    }
}

/// The expression `ad` binds to `key`. Small ads (most ads in a match) are scanned linearly,
/// which beats hashing for a handful of `u32` comparisons; keyword misses cost a bit test.
#[inline]
pub fn get_key(ad: &ClassAd, key: Key) -> Option<&Expr> {
    if !ad.may_bind(key) {
        return None;
    }
    if ad.len() <= SCAN_LIMIT {
        ad.iter().find(|(n, _)| n.key() == key).map(|(_, e)| e)
    } else {
        ad.get_key(key)
    }
}

const SCAN_LIMIT: usize = 8;

/// The innermost binding of `key` from `start` outwards (no keywords, no fallback).
#[inline]
fn find_attr<'a>(start: &'a Scope<'a>, key: Key) -> Option<(&'a Expr, &'a Scope<'a>)> {
    let mut cur = start;
    loop {
        if let Some(e) = get_key(cur.ad, key) {
            return Some((e, cur));
        }
        cur = cur.parent?;
    }
}

/// The value of `e` when it is a literal number, string or boolean (no scope needed).
#[inline]
pub(crate) fn scalar_literal<'a>(e: &'a Expr) -> Option<Val<'a>> {
    match e {
        Expr::Lit(Value::Int(i)) => Some(Val::Int(*i)),
        Expr::Lit(Value::Str(s)) => Some(Val::Str(s)),
        Expr::Lit(Value::Real(r)) => Some(Val::Real(*r)),
        Expr::Lit(Value::Bool(b)) => Some(Val::Bool(*b)),
        _ => None,
    }
}

/// True for keys the scoping rules may treat specially (all keywords sit below this).
#[inline]
fn maybe_keyword(key: Key) -> bool {
    key.0 <= kw::CURRENT_TIME.0
}

/// The identity used for cycle detection.
#[inline]
pub(crate) fn attr_id(scope: &Scope<'_>, key: Key) -> (usize, Key) {
    (scope.ad as *const _ as usize, key)
}

/// True for the names `LookupInScope` treats specially in the first ad searched (`my` and
/// `CurrentTime` only under the old-ClassAd semantics).
#[inline]
fn is_special(key: Key, old_semantics: bool) -> bool {
    key.0 <= kw::CURRENT_TIME.0
        && match key {
            kw::SELF | kw::PARENT | kw::ROOT | kw::TOPLEVEL => true,
            kw::MY | kw::CURRENT_TIME => old_semantics,
            _ => false,
        }
}

impl<'a> Evaluator<'a> {
    /// Resolves `key` from `start` as HTCondor's `ClassAd::LookupInScope` does (no TARGET
    /// fallback; see [`Evaluator::eval_name`]).
    pub fn lookup_in_scope(&self, start: &'a Scope<'a>, key: Key) -> Found<'a> {
        if !maybe_keyword(key) {
            return match find_attr(start, key) {
                Some((e, s)) => Found::Attr(e, s, key),
                None => Found::Undefined,
            };
        }
        self.lookup_keyword(start, key)
    }

    /// [`Evaluator::lookup_in_scope`] for the keys that may be keywords.
    #[inline(never)]
    fn lookup_keyword(&self, start: &'a Scope<'a>, key: Key) -> Found<'a> {
        if let Some(e) = get_key(start.ad, key) {
            return Found::Attr(e, start, key);
        }
        if is_special(key, self.opts.target_fallback) {
            return match key {
                kw::PARENT => start.parent.map_or(Found::Undefined, Found::Ad),
                kw::ROOT | kw::TOPLEVEL => match start.root() {
                    // In a match HTCondor's root is its synthetic match ad, which binds none of
                    // the ads' attributes: everything selected from it is undefined.
                    r if r.other.get().is_some() => Found::Undefined,
                    r => {
                        // Outside a match the root is the ad: that depends on there being none.
                        self.touch();
                        Found::Ad(r)
                    }
                },
                kw::CURRENT_TIME => Found::Time,
                _ => Found::Ad(start),
            };
        }
        let mut cur = start;
        while let Some(p) = cur.parent {
            cur = p;
            if let Some(e) = get_key(cur.ad, key) {
                return Found::Attr(e, cur, key);
            }
        }
        // `cur` is the outermost ad: in a match its context binds target/other/my.
        if matches!(key, kw::TARGET | kw::OTHER | kw::MY) {
            match cur.other.get() {
                Some(_) if key == kw::MY => return Found::Ad(cur),
                Some(o) => return Found::Ad(o),
                None => self.touch(),
            }
        }
        Found::Undefined
    }

    /// Marks attribute `key` of `scope`'s ad as being evaluated (a reference to it is then a
    /// cycle), as when evaluation of that attribute is in progress further up.
    pub(crate) fn seed_in_progress(&mut self, scope: &Scope<'_>, key: Key) {
        self.in_progress.enter(attr_id(scope, key));
    }

    /// Evaluates what a name resolved to.
    pub fn eval_found(&mut self, found: Found<'a>) -> Val<'a> {
        match found {
            Found::Attr(e, holder, key) => self.eval_attr_expr(e, holder, key),
            Found::Ad(s) => Val::Ad(s),
            Found::Time => Val::Int(self.now()),
            Found::Undefined => Val::Undefined,
        }
    }

    /// Evaluates attribute `key`'s expression `e`, held by `holder`, guarding against cycles.
    pub fn eval_attr_expr(&mut self, e: &'a Expr, holder: &'a Scope<'a>, key: Key) -> Val<'a> {
        self.evals += 1;
        // A scalar literal (most attributes) cannot take part in a cycle.
        if let Some(v) = scalar_literal(e) {
            self.work += 1;
            return v;
        }
        let id = attr_id(holder, key);
        if self.in_progress.contains(id) {
            if self.probe_cycles {
                self.touch();
            }
            return Val::Undefined;
        }
        self.in_progress.push(id);
        let v = self.eval(e, holder);
        self.in_progress.pop();
        v
    }

    /// Evaluates the unscoped reference `key` written in `scope`, with the TARGET fallback.
    #[inline(never)]
    pub fn eval_name(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        if !maybe_keyword(key) {
            if let Some((e, s)) = find_attr(scope, key) {
                return self.eval_attr_expr(e, s, key);
            }
            return self.fallback(scope, key);
        }
        match self.lookup_keyword(scope, key) {
            Found::Undefined => self.fallback(scope, key),
            found => self.eval_found(found),
        }
    }

    /// An unscoped name found nowhere: under the old semantics, a name written in a top-level
    /// ad of a match is looked up in the other ad.
    fn fallback(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        if !self.opts.target_fallback {
            return Val::Undefined;
        }
        // `other` is set on the top-level ads of a match, and on an ad `countMatches` and
        // `evalInEachContext` evaluate in (HTCondor's alternate scope): see `Scope::other`.
        match scope.other.get() {
            Some(o) => match get_key(o.ad, key) {
                Some(e) => self.eval_attr_expr(e, o, key),
                None => Val::Undefined,
            },
            None if scope.parent.is_none() => {
                self.touch();
                Val::Undefined
            }
            None => Val::Undefined,
        }
    }

    /// Evaluates `.key`: the name looked up from the outermost ad (no fallback).
    pub fn eval_absolute(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        let root = scope.root();
        if root.other.get().is_some() {
            // `.attr` in a match names an attribute of HTCondor's synthetic match ad: undefined.
            return Val::Undefined;
        }
        // Outside a match `.attr` reads the outermost ad: that depends on there being no match.
        self.touch();
        let found = self.lookup_in_scope(root, key);
        self.eval_found(found)
    }

    /// Evaluates attribute `key` of `scope`'s ad (its own binding only; undefined if absent).
    pub fn eval_attr(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        match get_key(scope.ad, key) {
            Some(e) => self.eval_attr_expr(e, scope, key),
            None => Val::Undefined,
        }
    }

    /// Evaluates `key` as `expr.key` does once `expr` is the ad of `scope`: looked up from that ad
    /// outwards (keywords included), never in the other ad.
    pub fn eval_attr_scoped(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        if !maybe_keyword(key) {
            return match find_attr(scope, key) {
                Some((e, s)) => self.eval_attr_expr(e, s, key),
                None => Val::Undefined,
            };
        }
        let found = self.lookup_keyword(scope, key);
        self.eval_found(found)
    }
}
