//! Reference determination (dissertation 2.6.2): which attributes of the other ad of a match
//! (external references) and of the ad itself (internal references) an expression reads,
//! followed transitively through the ad's own attributes.
//!
//! The analysis is static and follows the evaluator's scoping: an unscoped name is resolved in
//! the ad it is written in and then its lexical parents; `TARGET.x` / `other.x` read `x` of the
//! other ad (unless an enclosing ad binds `target`/`other`); `self`, `my`, `parent`, `root` and
//! nested ad literals are followed; and, under the old-ClassAd semantics
//! ([`EvalOptions::target_fallback`]), an unscoped name written at the top level of the ad and
//! bound nowhere in it is an external reference too. Names are returned case-folded and sorted.
//! What cannot be known statically (the attribute a computed subscript names, the result of
//! `eval()`) is not reported; the analysis says so itself: [`Refs::complete`] is false when an
//! expression it followed may read more than it reports (see [`complete`]).

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::eval::EvalOptions;
use crate::name::{kw, Key};
use crate::value::Value;
use rustc_hash::FxHashSet;
use std::collections::BTreeSet;

/// Deepest expression nesting followed (deeper parts are not analysed).
const MAX_DEPTH: u32 = 1_000;

/// The references of an expression or ad.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refs {
    /// Attributes of the other ad that are read, case-folded and sorted.
    pub external: Vec<String>,
    /// Attributes of the ad itself (top level) that are read, case-folded and sorted.
    pub internal: Vec<String>,
    /// Whether the sets are all the expression can read: false when an expression followed is
    /// not [`complete`] or nesting went past the analysis's depth limit (the sets are then what
    /// could be seen, a lower bound).
    pub complete: bool,
}

/// Whether the reference analysis sees everything `e` itself may read and its value depends on
/// nothing else: false for `eval()` (it reads what a string names) and `random()`, computed
/// subscripts of anything but a list literal, nested ad values, and whole-ad uses of a scope
/// keyword (`TARGET`, `MY`, `self`, … passed or compared as an ad). Syntactic and structural:
/// equal expressions answer alike. Attributes `e` names are not followed (see [`references`]).
pub fn complete(e: &Expr) -> bool {
    !incomplete(e)
}

fn incomplete(e: &Expr) -> bool {
    let scope = |k: Key| {
        [
            kw::TARGET,
            kw::OTHER,
            kw::MY,
            kw::SELF,
            kw::PARENT,
            kw::ROOT,
        ]
        .contains(&k)
    };
    match e {
        Expr::Lit(Value::Ad(_)) => true,
        Expr::Lit(_) | Expr::Root(_) => false,
        Expr::Attr(n) => scope(n.key()),
        Expr::Select(base, _) => match base.unparen() {
            Expr::Attr(_) => false,
            b => incomplete(b),
        },
        Expr::Index(p) => {
            !matches!(p.0.unparen(), Expr::List(_)) || incomplete(&p.0) || incomplete(&p.1)
        }
        Expr::Binary(_, p) | Expr::Elvis(p) => incomplete(&p.0) || incomplete(&p.1),
        Expr::Cond(p) => incomplete(&p.0) || incomplete(&p.1) || incomplete(&p.2),
        Expr::Unary(_, x) | Expr::Paren(x) => incomplete(x),
        Expr::Call(f, xs) => {
            ["eval", "random"]
                .iter()
                .any(|k| f.as_str().eq_ignore_ascii_case(k))
                || xs.iter().any(incomplete)
        }
        Expr::List(xs) | Expr::Chain(_, xs) => xs.iter().any(incomplete),
        Expr::Ad(ad) => ad.iter().any(|(_, x)| incomplete(x)),
    }
}

/// The attribute names of the other ad that `expr`, written in `ad`, reads.
pub fn external_refs(expr: &Expr, ad: &ClassAd, opts: &EvalOptions) -> Vec<String> {
    references(expr, ad, opts).external
}

/// The attribute names of `ad` itself that `expr`, written in `ad`, reads.
pub fn internal_refs(expr: &Expr, ad: &ClassAd, opts: &EvalOptions) -> Vec<String> {
    references(expr, ad, opts).internal
}

/// The attributes of `ad` itself that reading `names` in it, or evaluating `exprs` written in
/// it, reaches: each of `names` that `ad` binds, what [`internal_refs`] gives of each of
/// `exprs`, and, until none is new, what it gives of each such attribute's expression (one
/// reached as the base of a selection included). Keys, sorted; one walk for all. `None` when
/// some expression is nested past the analysis's depth (what it reads is not all known).
pub fn internal_keys<'e>(
    ad: &'e ClassAd,
    names: &[Key],
    exprs: impl IntoIterator<Item = &'e Expr>,
    opts: &EvalOptions,
) -> Option<Vec<Key>> {
    let mut w = Walker::new(opts);
    let chain = [ad];
    for &k in names {
        w.name(k, &chain, false, 0);
    }
    for e in exprs {
        w.expr(e, &chain, 0);
    }
    loop {
        let todo: Vec<Key> = (w.internal.iter().copied())
            .filter(|&k| !w.visited.contains(&(addr(ad), k)))
            .collect();
        if todo.is_empty() {
            break;
        }
        for k in todo {
            match ad.get_key(k) {
                Some(e) => w.attr(k, &chain, e, 0),
                None => {
                    w.visited.insert((addr(ad), k));
                }
            }
        }
    }
    (!w.truncated).then(|| w.internal.into_iter().collect())
}

/// Both reference sets of `expr` written in `ad`.
pub fn references(expr: &Expr, ad: &ClassAd, opts: &EvalOptions) -> Refs {
    let mut w = Walker::new(opts);
    w.complete &= complete(expr);
    w.expr(expr, &[ad], 0);
    w.finish()
}

/// The references of every attribute of `ad` (its whole-ad external and internal sets).
pub fn ad_references(ad: &ClassAd, opts: &EvalOptions) -> Refs {
    whole_ad(ad, opts).finish()
}

/// The walk of every attribute of `ad`.
fn whole_ad(ad: &ClassAd, opts: &EvalOptions) -> Walker {
    let mut w = Walker::new(opts);
    for (name, e) in ad.iter() {
        w.internal.insert(name.key());
        w.visited.insert((addr(ad), name.key()));
        w.complete &= complete(e);
        w.expr(e, &[ad], 0);
    }
    w
}

/// The attribute names of the other ad that any attribute of `ad` reads.
pub fn ad_external_refs(ad: &ClassAd, opts: &EvalOptions) -> Vec<String> {
    ad_references(ad, opts).external
}

/// [`ad_external_refs`] as keys, sorted (no names spelled out).
pub fn ad_external_keys(ad: &ClassAd, opts: &EvalOptions) -> Vec<Key> {
    whole_ad(ad, opts).external.into_iter().collect()
}

/// What a scope expression denotes statically.
enum Target<'e> {
    /// The other ad of the match.
    Other,
    /// An ad of the lexical chain (or a nested ad literal), given as its chain.
    Ad(Vec<&'e ClassAd>),
    /// Something only evaluation could tell.
    Unknown,
}

struct Walker {
    fallback: bool,
    external: BTreeSet<Key>,
    internal: BTreeSet<Key>,
    visited: FxHashSet<(usize, Key)>,
    /// Aliases being followed by `classify`.
    following: Vec<(usize, Key)>,
    /// See [`Refs::complete`].
    complete: bool,
    /// Whether nesting went past [`MAX_DEPTH`].
    truncated: bool,
}

fn names(keys: BTreeSet<Key>) -> Vec<String> {
    let set: BTreeSet<String> = keys.into_iter().map(|k| k.as_str().to_owned()).collect();
    set.into_iter().collect()
}

fn addr(ad: &ClassAd) -> usize {
    ad as *const ClassAd as usize
}

impl Walker {
    fn new(opts: &EvalOptions) -> Walker {
        Walker {
            fallback: opts.target_fallback,
            external: BTreeSet::new(),
            internal: BTreeSet::new(),
            visited: FxHashSet::default(),
            following: Vec::new(),
            complete: true,
            truncated: false,
        }
    }

    fn finish(self) -> Refs {
        Refs {
            external: names(self.external),
            internal: names(self.internal),
            complete: self.complete,
        }
    }

    /// Walks `e`, written in the innermost ad of `chain` (`chain[0]` is the top-level ad).
    fn expr<'e>(&mut self, e: &'e Expr, chain: &[&'e ClassAd], depth: u32) {
        if depth > MAX_DEPTH {
            self.complete = false;
            self.truncated = true;
            return;
        }
        let d = depth + 1;
        match e {
            Expr::Lit(Value::Ad(ad)) => self.nested(ad, chain, d),
            Expr::Lit(_) => {}
            Expr::Attr(name) => self.name(name.key(), chain, true, d),
            Expr::Root(name) => self.name(name.key(), &chain[..1], false, d),
            Expr::Select(base, name) => self.select(base, name.key(), chain, d),
            Expr::Index(b) => {
                if let Expr::Lit(Value::Str(s)) = b.1.unparen() {
                    let key = Key::of(s);
                    match self.classify(&b.0, chain, d) {
                        Target::Other => {
                            self.external.insert(key);
                        }
                        Target::Ad(c) => self.own(key, &c, d),
                        Target::Unknown => self.complete = false,
                    }
                    return;
                }
                self.expr(&b.0, chain, d);
                self.expr(&b.1, chain, d);
            }
            Expr::Unary(_, x) | Expr::Paren(x) => self.expr(x, chain, d),
            Expr::Binary(_, b) | Expr::Elvis(b) => {
                self.expr(&b.0, chain, d);
                self.expr(&b.1, chain, d);
            }
            Expr::Cond(b) => {
                self.expr(&b.0, chain, d);
                self.expr(&b.1, chain, d);
                self.expr(&b.2, chain, d);
            }
            Expr::Call(_, args) | Expr::List(args) | Expr::Chain(_, args) => {
                for a in args {
                    self.expr(a, chain, d);
                }
            }
            Expr::Ad(ad) => self.nested(ad, chain, d),
        }
    }

    /// Walks every attribute of a nested ad literal written in `chain`.
    fn nested<'e>(&mut self, ad: &'e ClassAd, chain: &[&'e ClassAd], depth: u32) {
        let mut inner = chain.to_vec();
        inner.push(ad);
        for (name, e) in ad.iter() {
            if self.visited.insert((addr(ad), name.key())) {
                self.expr(e, &inner, depth);
            }
        }
    }

    /// Reads attribute `key` bound in the innermost ad of `chain` itself.
    fn own(&mut self, key: Key, chain: &[&ClassAd], depth: u32) {
        let Some(&ad) = chain.last() else { return };
        if let Some(e) = ad.get_key(key) {
            self.attr(key, chain, e, depth);
        }
    }

    /// Follows attribute `key` found with expression `e` in the innermost ad of `chain`.
    fn attr<'e>(&mut self, key: Key, chain: &[&'e ClassAd], e: &'e Expr, depth: u32) {
        if chain.len() == 1 {
            self.internal.insert(key);
        }
        if let Some(&ad) = chain.last() {
            if self.visited.insert((addr(ad), key)) {
                self.complete &= complete(e);
                self.expr(e, chain, depth);
            }
        }
    }

    /// Resolves the name `key` written in the innermost ad of `chain`.
    fn name(&mut self, key: Key, chain: &[&ClassAd], unscoped: bool, depth: u32) {
        for level in (0..chain.len()).rev() {
            if let Some(e) = chain[level].get_key(key) {
                self.attr(key, &chain[..=level], e, depth);
                return;
            }
            if level + 1 == chain.len() && self.is_special(key) {
                return;
            }
        }
        let keyword = matches!(key, kw::TARGET | kw::OTHER | kw::MY);
        if unscoped && !keyword && self.fallback && chain.len() == 1 {
            self.external.insert(key);
        }
    }

    fn is_special(&self, key: Key) -> bool {
        match key {
            kw::SELF | kw::PARENT | kw::ROOT | kw::TOPLEVEL => true,
            kw::MY | kw::CURRENT_TIME => self.fallback,
            _ => false,
        }
    }

    fn select<'e>(&mut self, base: &'e Expr, key: Key, chain: &[&'e ClassAd], depth: u32) {
        match self.classify(base, chain, depth) {
            Target::Other => {
                self.external.insert(key);
            }
            Target::Ad(c) => self.name(key, &c, false, depth),
            Target::Unknown => self.complete = false,
        }
    }

    /// What `e`, written in `chain`, denotes as the base of a selection; references made on the
    /// way are recorded.
    fn classify<'e>(&mut self, e: &'e Expr, chain: &[&'e ClassAd], depth: u32) -> Target<'e> {
        if depth > MAX_DEPTH {
            self.complete = false;
            self.truncated = true;
            return Target::Unknown;
        }
        let d = depth + 1;
        match e.unparen() {
            Expr::Attr(name) => self.classify_name(name.key(), chain, d),
            Expr::Ad(ad) => {
                let mut inner = chain.to_vec();
                inner.push(ad);
                Target::Ad(inner)
            }
            Expr::Select(b, name) => match self.classify(b, chain, d) {
                Target::Other => {
                    self.external.insert(name.key());
                    Target::Unknown
                }
                Target::Ad(c) => self.classify_name(name.key(), &c, d),
                Target::Unknown => Target::Unknown,
            },
            other => {
                self.expr(other, chain, d);
                Target::Unknown
            }
        }
    }

    fn classify_name<'e>(&mut self, key: Key, chain: &[&'e ClassAd], depth: u32) -> Target<'e> {
        for level in (0..chain.len()).rev() {
            if let Some(e) = chain[level].get_key(key) {
                if level == 0 {
                    self.internal.insert(key);
                }
                let holder = &chain[..=level];
                // Follow aliases (`t = TARGET`, `m = [ … ]`), stopping at a cycle.
                let id = (addr(chain[level]), key);
                if self.following.contains(&id) {
                    return Target::Unknown;
                }
                self.following.push(id);
                self.complete &= complete(e);
                let t = self.classify(e, holder, depth);
                self.following.pop();
                return t;
            }
            if level + 1 == chain.len() && self.is_special(key) {
                return match key {
                    kw::PARENT if chain.len() > 1 => Target::Ad(chain[..chain.len() - 1].to_vec()),
                    kw::PARENT | kw::CURRENT_TIME => Target::Unknown,
                    kw::ROOT | kw::TOPLEVEL => Target::Ad(chain[..1].to_vec()),
                    _ => Target::Ad(chain.to_vec()),
                };
            }
        }
        match key {
            kw::TARGET | kw::OTHER => Target::Other,
            kw::MY => Target::Ad(chain[..1].to_vec()),
            _ => Target::Unknown,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn opts(fallback: bool) -> EvalOptions {
        EvalOptions {
            target_fallback: fallback,
            ..EvalOptions::default()
        }
    }

    /// `(ad, expression, fallback, external, internal)`, names space-separated.
    #[test]
    fn reference_table() {
        let cases = [
            ("[]", "TARGET.Memory > 10", false, "memory", ""),
            (
                "[]",
                "other.Memory > 10 && Other.Disk < 5",
                false,
                "disk memory",
                "",
            ),
            (
                "[Memory = 64]",
                "TARGET.MemoryReqs < Memory - 15",
                false,
                "memoryreqs",
                "memory",
            ),
            ("[x = TARGET.a; y = x + TARGET.b]", "y", false, "a b", "x y"),
            ("[a = b; b = a]", "a", false, "", "a b"),
            ("[]", "Arch == \"INTEL\"", true, "arch", ""),
            ("[]", "Arch == \"INTEL\"", false, "", ""),
            ("[Arch = \"X\"]", "Arch == \"INTEL\"", true, "", "arch"),
            ("[target = [x = 1]]", "target.x", false, "", "target"),
            ("[t = TARGET]", "t.Memory", false, "memory", "t"),
            (
                "[n = [a = TARGET.z; b = q]; q = 1]",
                "n.a + n.b",
                false,
                "z",
                "n q",
            ),
            ("[x = 1]", "my.x + self.x + root.x + .x", false, "", "x"),
            ("[]", "TARGET[\"Cpus\"]", false, "cpus", ""),
            ("[]", "TARGET.Machine.Name", false, "machine", ""),
            ("[]", "size(TARGET.List) + time()", false, "list", ""),
            ("[]", "[a = TARGET.q; b = w].a", true, "q", ""),
            ("[]", "TARGET", false, "", ""),
        ];
        for (ad, e, fallback, ext, int) in cases {
            let ad = parse::classad(ad).expect("ad");
            let e = parse::expr(e).expect("expr");
            let r = references(&e, &ad, &opts(fallback));
            assert_eq!(r.external.join(" "), ext, "external of {e:?}");
            assert_eq!(r.internal.join(" "), int, "internal of {e:?}");
        }
    }

    #[test]
    fn whole_ad() {
        let ad = parse::classad(
            "[Memory = 64; Requirements = TARGET.ImageSize < Memory && TARGET.Owner != \"x\"; Rank = TARGET.Cpus]",
        )
        .expect("ad");
        let r = ad_references(&ad, &opts(false));
        assert_eq!(r.external, ["cpus", "imagesize", "owner"]);
        assert_eq!(r.internal, ["memory", "rank", "requirements"]);
        assert_eq!(ad_external_refs(&ad, &opts(false)), r.external);
        let mut keys: Vec<&str> = ad_external_keys(&ad, &opts(false))
            .iter()
            .map(|k| k.as_str())
            .collect();
        keys.sort_unstable();
        assert_eq!(keys, r.external);
        assert_eq!(
            external_refs(&parse::expr("Requirements").expect("e"), &ad, &opts(false)),
            ["imagesize", "owner"]
        );
        assert_eq!(
            internal_refs(&parse::expr("Requirements").expect("e"), &ad, &opts(false)),
            ["memory", "requirements"]
        );
    }

    #[test]
    fn internal_keys_from_names_and_expressions() {
        // (ad, names read, expressions, the attributes of the ad reached)
        for (ad, names, exprs, want) in [
            (
                "[Requirements = TARGET.Memory >= Mem; Mem = Base * 2; Base = 1; Other = 3]",
                &["Requirements"][..],
                &[][..],
                "base mem requirements",
            ),
            (
                "[Rank = 1; Absent2 = x]",
                &["Rank", "Absent"][..],
                &["Prio + 1"][..],
                "rank",
            ),
            (
                "[Prio = Nice; Nice = 3; Rank = TARGET.Cpus]",
                &[][..],
                &["Prio * 2", "MY.Rank"][..],
                "nice prio rank",
            ),
            ("[a = b; b = a]", &["A"][..], &[][..], "a b"),
            // A selection's base is followed as an expression too.
            (
                "[m = [a = q]; q = 1; Requirements = m.x]",
                &["Requirements"][..],
                &[][..],
                "m q requirements",
            ),
        ] {
            let ad = parse::classad(ad).expect("ad");
            let names: Vec<Key> = names.iter().map(|n| Key::of(n)).collect();
            let exprs: Vec<Expr> = exprs
                .iter()
                .map(|e| parse::expr(e).expect("expr"))
                .collect();
            let got = internal_keys(&ad, &names, &exprs, &opts(false)).expect("not too deep");
            let mut got: Vec<&str> = got.iter().map(|k| k.as_str()).collect();
            got.sort_unstable();
            assert_eq!(got.join(" "), want, "{ad}");
            // The same as following each name's expression and each expression apart, and
            // then each attribute found, until none is new.
            let mut todo: Vec<String> = names
                .iter()
                .filter(|&&k| ad.get_key(k).is_some())
                .map(|k| k.as_str().to_owned())
                .collect();
            for e in &exprs {
                todo.extend(internal_refs(e, &ad, &opts(false)));
            }
            let mut apart: BTreeSet<String> = BTreeSet::new();
            while let Some(n) = todo.pop() {
                if apart.insert(n.clone()) {
                    if let Some(e) = ad.get(&n) {
                        todo.extend(internal_refs(e, &ad, &opts(false)));
                    }
                }
            }
            assert_eq!(apart.into_iter().collect::<Vec<_>>().join(" "), want);
        }
    }

    #[test]
    fn internal_keys_past_the_depth_are_none() {
        // Ten attributes, each nested 150 deep around the next: deeper than the analysis
        // goes in all.
        let mut text = String::from("[Requirements = a0; a10 = 1");
        for i in 0..10 {
            let nested = format!("{}a{}{}", "(".repeat(150), i + 1, ")".repeat(150));
            text.push_str(&format!("; a{i} = {nested}"));
        }
        text.push(']');
        let ad = parse::classad(&text).expect("ad");
        let names = [Key::of("Requirements")];
        assert_eq!(internal_keys(&ad, &names, [], &opts(false)), None);
    }

    #[test]
    fn completeness() {
        // (ad, expression, complete?)
        for (ad, e, want) in [
            ("[]", "TARGET.Memory > 10 && Arch == \"X\"", true),
            ("[x = TARGET.a; y = x + 1]", "y", true),
            ("[]", "eval(\"TARGET.\" + A)", false),
            ("[]", "random(3) > 1", false),
            ("[]", "TARGET[A]", false),
            ("[]", "{1, 2, 3}[A]", true),
            ("[]", "member(\"x\", TARGET)", false),
            ("[x = eval(\"y\")]", "x + 1", false),
            ("[t = TARGET]", "t.Memory", false),
            ("[]", "(A ? TARGET : MY).Memory", false),
            ("[]", "[a = 1].a", true),
        ] {
            let ad = parse::classad(ad).expect("ad");
            let e = parse::expr(e).expect("expr");
            let r = references(&e, &ad, &opts(true));
            assert_eq!(r.complete, want, "{e:?} in {ad:?}");
        }
        assert!(complete(&parse::expr("TARGET.Memory").expect("e")));
        assert!(!complete(&parse::expr("eval(X)").expect("e")));
    }
}
