//! Selection `e.name` and subscripts `e[i]`.
//!
//! `ad.name` looks `name` up from that ad outwards through its lexical parents (keywords
//! included, no TARGET fallback); on a list it yields the list of each element's selection;
//! on `undefined` it is `undefined`; on anything else, `error`. The selections of a list are
//! copies, as HTCondor's are: an ad among them (or inside a list among them) is detached from
//! its lexical parents and from the match, so `{[w = [q = z]; z = 3]}.w.q` is `{ undefined }`
//! (while `{[w = [q = z]; z = 3]}[0].w.q` is 3). `list[i]` takes an integer index
//! (truncated to 32 bits, as HTCondor does; out of range is `error`); `ad["name"]` reads the ad's
//! own attribute (case-insensitively; `undefined` if absent).

use super::Evaluator;
use crate::ast::Expr;
use crate::name::{kw, Key};
use crate::value::{Scope, Val};
use bumpalo::collections::Vec as BumpVec;
use std::sync::LazyLock;

/// The key of `ad`, a name HTCondor's match context binds.
static AD: LazyLock<Key> = LazyLock::new(|| Key::of("ad"));

/// Whether `base` is the keyword `parent` written in a top-level ad (that does not bind the
/// name): in a match, HTCondor's context ad of that side (see `Evaluator::match_context`).
pub(crate) fn top_parent(scope: &Scope<'_>, base: &Expr) -> bool {
    scope.parent.is_none()
        && matches!(base, Expr::Attr(b) if b.key() == kw::PARENT)
        && !scope.ad.may_bind(kw::PARENT)
}

impl<'a> Evaluator<'a> {
    /// Evaluates `base.key`.
    #[inline(never)]
    pub(super) fn eval_select(
        &mut self,
        base: &'a Expr,
        key: Key,
        scope: &'a Scope<'a>,
    ) -> Val<'a> {
        // `TARGET.x`, `my.x`, `b.x`: resolve the name directly (the common case in matching).
        let b = match base {
            Expr::Attr(name) => {
                let k = name.key();
                // TARGET/other written in a top-level ad of a match that does not bind them.
                if (k == kw::TARGET || k == kw::OTHER)
                    && scope.parent.is_none()
                    && !scope.ad.may_bind(k)
                {
                    if let Some(other) = scope.other.get() {
                        self.work += 1;
                        return self.eval_attr_scoped(other, key);
                    }
                }
                if top_parent(scope, base) {
                    return self.match_context(scope, key);
                }
                self.eval_name(scope, k)
            }
            _ => self.eval(base, scope),
        };
        self.select(b, key)
    }

    /// `parent.key` written in a top-level ad. In a match HTCondor's parent there is the
    /// match's context ad of that side, `[ad = .LEFT; my = .LEFT; other = .RIGHT; target =
    /// .RIGHT]` (for the left ad): `parent.my` and `parent.ad` are the ad itself,
    /// `parent.target` and `parent.other` the other ad, anything else undefined. Outside a
    /// match there is no parent.
    #[inline(never)]
    pub(crate) fn match_context(&mut self, scope: &'a Scope<'a>, key: Key) -> Val<'a> {
        self.work += 1;
        let Some(other) = scope.other.get() else {
            // In a match the value could be an ad.
            self.touch();
            return Val::Undefined;
        };
        match key {
            kw::MY => Val::Ad(scope),
            kw::TARGET | kw::OTHER => Val::Ad(other),
            _ if key == *AD => Val::Ad(scope),
            _ => Val::Undefined,
        }
    }

    /// Applies `.key` to an evaluated value.
    pub fn select(&mut self, b: Val<'a>, key: Key) -> Val<'a> {
        match b {
            Val::Undefined | Val::Error => b,
            Val::Ad(s) => self.eval_attr_scoped(s, key),
            Val::List(items) => self.map_items(items, |ev, item| {
                let v = ev.select(item, key);
                ev.detached(v)
            }),
            _ => Val::Error,
        }
    }

    /// A new list of `f` of each of `items`, one nesting level further in and charged one
    /// unit an item (error once a budget runs out).
    fn map_items(
        &mut self,
        items: &'a [Val<'a>],
        mut f: impl FnMut(&mut Self, Val<'a>) -> Val<'a>,
    ) -> Val<'a> {
        if !self.enter() {
            return Val::Error;
        }
        let mut out = BumpVec::with_capacity_in(items.len(), self.bump());
        for &item in items {
            if !self.charge(1) {
                break;
            }
            let v = f(self, item);
            out.push(v);
        }
        self.leave();
        if self.aborted {
            return Val::Error;
        }
        Val::List(out.into_bump_slice())
    }

    /// `v` as HTCondor copies a value into a list it builds: ads (also those inside lists)
    /// lose their lexical parents and the match, so only their own attributes resolve.
    fn detached(&mut self, v: Val<'a>) -> Val<'a> {
        match v {
            Val::Ad(s) if s.parent.is_some() || s.other.get().is_some() => {
                Val::Ad(self.scope(s.ad, None))
            }
            Val::List(items) if items.iter().any(|i| matches!(i, Val::Ad(_) | Val::List(_))) => {
                self.map_items(items, |ev, item| ev.detached(item))
            }
            _ => v,
        }
    }

    /// Evaluates `base[index]` (strict in both operands).
    pub(super) fn eval_index(
        &mut self,
        base: &'a Expr,
        index: &'a Expr,
        scope: &'a Scope<'a>,
    ) -> Val<'a> {
        let b = self.eval(base, scope);
        if b.is_error() {
            return b;
        }
        let i = self.eval(index, scope);
        self.subscript(b, i)
    }

    /// Applies a subscript to evaluated operands.
    pub fn subscript(&mut self, b: Val<'a>, i: Val<'a>) -> Val<'a> {
        match (b, i) {
            (Val::Error, _) | (_, Val::Error) => Val::Error,
            (Val::Undefined, _) | (_, Val::Undefined) => Val::Undefined,
            (Val::List(items), Val::Int(n)) => {
                // HTCondor reads the index into a C `int`.
                let n = n as i32;
                match usize::try_from(n).ok().and_then(|n| items.get(n)) {
                    Some(&v) => v,
                    None => Val::Error,
                }
            }
            (Val::Ad(s), Val::Str(name)) => match Key::find(name) {
                Some(key) => self.eval_attr(s, key),
                None => Val::Undefined,
            },
            _ => Val::Error,
        }
    }
}
