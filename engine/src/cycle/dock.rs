//! The docking vector (dissertation 3.2.4, issue 5): what ranks a request's candidate offers.
//!
//! By default the vector is `[request's Rank against the offer, offer's Rank against the
//! request]`, a rank that is not a number counting 0 (booleans 1 and 0, as HTCondor promotes
//! them). `--dock` expressions replace it; they read `request.X` and `offer.X`, each attribute
//! evaluated in a match context of the two ads (so `request.Rank` sees the offer as TARGET),
//! and anything else through a context ad `[request = …; offer = …]`. A candidate whose vector
//! has an undefined or error component is discarded; other non-numbers count 0.
//!
//! A request with `Preferences` (issue 12, [`crate::prefer`]) docks by default with
//! `[preference order, request Rank, offer Rank]`, keeping only the best fraction
//! `PreferenceKeep` of its candidates when it says so; `--dock` expressions replace that too.

use super::columns::Columns;
use super::matchlist::{Builder, Matchlist};
pub use super::ranks::Ranker;
use super::vector::{component, rank_of};
use crate::prefer::Preferences;
use adjoin_index::AdId;
use adjoin_query::eval::{eval_attr_in_match, eval_expr, EvalOptions, MatchAds};
use adjoin_query::{ClassAd, Expr, Key, Name, Value};
use std::sync::Arc;

/// How candidates are ranked.
#[derive(Clone, Debug)]
pub enum Dock {
    /// `[request Rank, offer Rank]`, non-numbers counting 0.
    Ranks(Box<Ranker>),
    /// The given expressions, in order.
    Exprs(Vec<Expr>),
}

impl Dock {
    #[cfg(test)]
    /// The default vector when `exprs` is empty, else those expressions.
    pub fn new(exprs: Vec<Expr>) -> Dock {
        if exprs.is_empty() {
            Dock::Ranks(Box::new(Ranker::plain(Key::of("Rank"))))
        } else {
            Dock::Exprs(exprs)
        }
    }

    /// [`Dock::new`] for a cycle over `offers` (by position): with the default vector, what
    /// repeats is evaluated once ([`Ranker`]).
    pub fn for_offers(exprs: Vec<Expr>, offers: &[Arc<ClassAd>]) -> Dock {
        if exprs.is_empty() {
            Dock::Ranks(Box::new(Ranker::new(Key::of("Rank"), offers)))
        } else {
            Dock::Exprs(exprs)
        }
    }

    /// Reads the offers' bindings from `columns` (made for the same offers), shared with
    /// whoever else reads them.
    pub(crate) fn share(&mut self, columns: Arc<Columns>) {
        if let Dock::Ranks(r) = self {
            r.share(columns);
        }
    }

    /// The matchlist of `request` over `candidates` (positions in `offers`, ascending): each
    /// candidate with its vector, best first; candidates whose vector has an undefined or
    /// error component left out.
    pub fn matchlist(
        &self,
        request: &Arc<ClassAd>,
        candidates: impl IntoIterator<Item = AdId>,
        offers: &[Arc<ClassAd>],
        opts: &EvalOptions,
    ) -> Matchlist {
        match self {
            Dock::Ranks(r) => match Preferences::from_ad(request, "request", opts) {
                Ok(None) => r.matchlist(request, candidates, offers, opts),
                Ok(Some(p)) => r.preference_matchlist(&p, request, candidates, offers, opts),
                // The cycle reports the request ([`super::Cycle::visit`]); it has no candidates.
                Err(_) => Matchlist::default(),
            },
            Dock::Exprs(exprs) => {
                let mut b = Builder::new(exprs.len());
                for o in candidates {
                    let Some(offer) = offers.get(o as usize) else {
                        continue;
                    };
                    if let Some(v) = self.vector(request, offer, opts) {
                        let n = b.vector(v);
                        b.push(n, o);
                    }
                }
                b.finish()
            }
        }
    }

    /// The vector of `offer` for `request`; `None` when a component is undefined or error.
    pub fn vector(
        &self,
        request: &Arc<ClassAd>,
        offer: &Arc<ClassAd>,
        opts: &EvalOptions,
    ) -> Option<Vec<Value>> {
        match self {
            Dock::Ranks(ranker) => {
                let rank = ranker.key();
                let r = MatchAds {
                    my: request,
                    target: offer,
                };
                let o = MatchAds {
                    my: offer,
                    target: request,
                };
                Some(vec![rank_of(rank, r, opts), rank_of(rank, o, opts)])
            }
            Dock::Exprs(exprs) => {
                let sides = Sides::new(request, offer);
                let mut ctx = ClassAd::new();
                ctx.insert(Name::new("request"), Expr::Ad(request.clone()));
                ctx.insert(Name::new("offer"), Expr::Ad(offer.clone()));
                exprs
                    .iter()
                    .map(|e| component(eval_expr(&sides.bind(e, opts), &ctx, opts)))
                    .collect()
            }
        }
    }
}

/// The names a `--dock` expression reads other than `request`, `offer` and those the context
/// ad resolves (`CurrentTime`; `MY`, `self`, `root`, `toplevel`: the context ad itself), case-folded
/// and sorted: nothing binds them, so each is undefined in every vector — which discards every
/// candidate (a mistyped `reqest.Rank` would match nothing, silently).
pub fn unknown_dock_names(e: &Expr) -> Vec<String> {
    // The two sides, and the names the context ad resolves itself (`CurrentTime`, and `MY`,
    // `self`, `root`, `toplevel`: the context ad).
    let sides = [
        "request",
        "offer",
        "currenttime",
        "my",
        "self",
        "root",
        "toplevel",
    ]
    .map(Key::of);
    let mut out = std::collections::BTreeSet::new();
    let mut todo = vec![e];
    while let Some(e) = todo.pop() {
        match e {
            Expr::Attr(n) | Expr::Root(n) => {
                if !sides.contains(&n.key()) {
                    out.insert(n.as_str().to_lowercase());
                }
            }
            Expr::Select(x, _) | Expr::Unary(_, x) | Expr::Paren(x) => todo.push(x),
            Expr::Index(p) | Expr::Binary(_, p) | Expr::Elvis(p) => todo.extend([&p.0, &p.1]),
            Expr::Cond(p) => todo.extend([&p.0, &p.1, &p.2]),
            Expr::Call(_, xs) | Expr::List(xs) | Expr::Chain(_, xs) => todo.extend(xs),
            // A nested ad's own attributes are its own; a literal reads nothing.
            Expr::Ad(_) | Expr::Lit(_) => {}
        }
    }
    out.into_iter().collect()
}

/// The two ads and the keys naming them in dock expressions.
struct Sides<'a> {
    request: &'a ClassAd,
    offer: &'a ClassAd,
    request_key: Key,
    offer_key: Key,
}

impl<'a> Sides<'a> {
    fn new(request: &'a ClassAd, offer: &'a ClassAd) -> Sides<'a> {
        Sides {
            request,
            offer,
            request_key: Key::of("request"),
            offer_key: Key::of("offer"),
        }
    }

    /// `e` with every `request.X` and `offer.X` replaced by X's value in the match context.
    fn bind(&self, e: &Expr, opts: &EvalOptions) -> Expr {
        let b = |x: &Expr| self.bind(x, opts);
        match e {
            Expr::Select(base, name) => {
                if let Expr::Attr(side) = base.unparen() {
                    let pair = if side.key() == self.request_key {
                        Some((self.request, self.offer))
                    } else if side.key() == self.offer_key {
                        Some((self.offer, self.request))
                    } else {
                        None
                    };
                    if let Some((my, target)) = pair {
                        let ads = MatchAds { my, target };
                        return Expr::Lit(eval_attr_in_match(name.as_str(), ads, opts));
                    }
                }
                Expr::Select(Box::new(b(base)), *name)
            }
            Expr::Index(p) => Expr::Index(Box::new((b(&p.0), b(&p.1)))),
            Expr::Unary(op, x) => Expr::Unary(*op, Box::new(b(x))),
            Expr::Binary(op, p) => Expr::Binary(*op, Box::new((b(&p.0), b(&p.1)))),
            Expr::Cond(p) => Expr::Cond(Box::new((b(&p.0), b(&p.1), b(&p.2)))),
            Expr::Elvis(p) => Expr::Elvis(Box::new((b(&p.0), b(&p.1)))),
            Expr::Call(f, args) => Expr::Call(*f, args.iter().map(b).collect()),
            Expr::List(xs) => Expr::List(xs.iter().map(b).collect()),
            Expr::Chain(op, xs) => Expr::Chain(*op, xs.iter().map(b).collect()),
            Expr::Paren(x) => Expr::Paren(Box::new(b(x))),
            Expr::Lit(_) | Expr::Attr(_) | Expr::Root(_) | Expr::Ad(_) => e.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::vector::cmp_vectors;
    use adjoin_query::parse;

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(parse::classad(text).expect("ad"))
    }

    #[test]
    fn names_other_than_the_two_sides_are_unknown() {
        for (text, want) in [
            ("request.Rank", &[][..]),
            ("offer.Memory - REQUEST.Want * 2", &[]),
            (
                "ifThenElse(offer.x > 1, request.y, 0) + size({request.z})",
                &[],
            ),
            ("reqest.Rank", &["reqest"]),
            ("Rank + offer.Rank", &["rank"]),
            ("TARGET.Memory", &["target"]),
            ("strcat(.x, Request.y)", &["x"]),
            ("offer.LastHeard - CurrentTime", &[]),
            (
                "MY.offer.Memory + self.request.Rank + root.offer.x + toplevel.offer.y",
                &[],
            ),
            ("parent.x + other.y", &["other", "parent"]),
        ] {
            let e = parse::expr(text).expect("dock");
            assert_eq!(unknown_dock_names(&e), want, "{text}");
        }
    }

    /// The vector of `[Memory = 2048; Rank = …]` (offer) for `[Rank = …; Want = 3]` (request).
    fn check(request_rank: &str, offer_rank: &str, dock: &[&str], want: Option<&str>) {
        let req = ad(&format!("[Want = 3; Rank = {request_rank}]"));
        let off = ad(&format!("[Memory = 2048; Rank = {offer_rank}]"));
        let exprs = dock.iter().map(|d| parse::expr(d).expect("dock")).collect();
        let got = Dock::new(exprs).vector(&req, &off, &EvalOptions::default());
        let got = got.map(|v| format!("{:?}", v));
        assert_eq!(
            got.as_deref(),
            want,
            "{request_rank} / {offer_rank} / {dock:?}"
        );
    }

    #[test]
    fn vectors() {
        check("TARGET.Memory", "1.5", &[], Some("[Int(2048), Real(1.5)]"));
        check("undefined", "\"x\"", &[], Some("[Int(0), Int(0)]"));
        check("true", "false", &[], Some("[Int(1), Int(0)]"));
        check("TARGET.Nope", "error", &[], Some("[Int(0), Int(0)]"));
        check(
            "1",
            "2",
            &["request.Rank", "offer.Rank"],
            Some("[Int(1), Int(2)]"),
        );
        check(
            "TARGET.Memory",
            "0",
            &["request.Rank * 2"],
            Some("[Int(4096)]"),
        );
        check(
            "1",
            "0",
            &["offer.Memory - request.Want"],
            Some("[Int(2045)]"),
        );
        check("1", "0", &["(request).Want"], Some("[Int(3)]"));
        check("1", "0", &["request.Nope"], None);
        check("1", "0", &["1", "offer.Rank / 0"], None);
        check("1", "0", &["\"s\"", "true"], Some("[Int(0), Int(1)]"));
    }

    #[test]
    fn matchlists_with_rank_classes_are_the_plain_ones() {
        let offers: Vec<Arc<ClassAd>> = [
            "[Memory = 1; Rank = TARGET.Owner == \"a\" ? 1.0 : 0.0]",
            "[Memory = 2; Rank = TARGET.Owner == \"a\" ? 1.0 : 0.0]",
            "[Memory = 2; Rank = Memory + TARGET.Prio]",
            "[Memory = 3; Rank = Memory + TARGET.Prio]",
            "[Memory = 2; Rank = Memory + TARGET.Prio]",
            "[Memory = 4]",
            "[Memory = 4; Rank = eval(\"Memory\")]",
            "[Memory = 5; Rank = eval(\"Memory\")]",
            "[Memory = 1; Rank = true]",
            "[Memory = 1; Rank = \"x\"]",
            "[Memory = 6; Rank = TARGET.Owner == \"a\" ? 1.0 : 0.0]",
            "[Memory = 6; Score = 3]",
            "[Memory = 6; Score = TARGET.Prio * 2]",
            "[Memory = 7; Score = {1}]",
        ]
        .map(ad)
        .to_vec();
        let n = offers.len();
        let opts = EvalOptions::default();
        let classed = Dock::for_offers(Vec::new(), &offers);
        let plain = Dock::new(Vec::new());
        if let Dock::Ranks(r) = &classed {
            // The first two alike, two by Memory, the eval ones classless.
            assert_eq!(r.class(0), r.class(1));
            assert_eq!(r.class(2), r.class(4));
            assert_ne!(r.class(2), r.class(3));
            assert_eq!((r.class(6), r.class(7)), (None, None));
        }
        // Twice over: ranks of one shape are remembered from its second list on; offers
        // whose Score reads the request (or is not a plain value) are evaluated each time.
        let requests = [
            "[Owner = \"a\"; Prio = 2]",
            "[Owner = \"b\"; Prio = 1; Rank = 0.0]",
            "[Owner = \"a\"; Rank = TARGET.Memory]",
            "[Owner = \"b\"; Rank = TARGET.Memory]",
            "[Owner = \"a\"; Rank = -TARGET.Memory; Prio = 1.5]",
            "[Rank = (3)]",
            "[Prio = 1; Rank = TARGET.Score]",
            "[Prio = 2; Rank = TARGET.Score]",
            "[Prio = 3; Rank = TARGET.Score + Bonus; Bonus = 1]",
            "[Prio = 3; Rank = TARGET.Score + Bonus; Bonus = 2]",
            "[Prio = 4; Rank = TARGET.Score + Bonus; Bonus = 2]",
            "[Prio = 1; Rank = eval(\"TARGET.Memory\")]",
        ];
        for req in requests.iter().chain(&requests) {
            let r = ad(req);
            let want: Vec<(Vec<Value>, AdId)> = {
                // Each candidate's vector, stably sorted best first.
                let mut v: Vec<(Vec<Value>, AdId)> = (0..)
                    .zip(&offers)
                    .filter_map(|(o, off)| plain.vector(&r, off, &opts).map(|v| (v, o)))
                    .collect();
                v.sort_by(|a, b| cmp_vectors(&b.0, &a.0));
                v
            };
            for dock in [&classed, &plain] {
                let got = dock
                    .matchlist(&r, 0..n as AdId, &offers, &opts)
                    .read_whole(n);
                assert_eq!(got, want, "{req}");
            }
        }
    }
}

#[cfg(test)]
mod preference_tests {
    use super::*;
    use crate::prefer::rank_all;
    use adjoin_query::parse;

    /// A request's matchlist under the default vector is its candidates ranked by plain
    /// evaluation (`[preference order, request Rank, offer Rank]`, then load order), whether
    /// its outcome keys are remembered from an earlier list or not.
    #[test]
    fn preference_matchlists_are_plain_rankings() {
        let offers: Vec<Arc<ClassAd>> = [
            "[OpSys = \"OSX\"; Memory = 8192; Rank = 1]",
            "[OpSys = \"LINUX\"; Memory = 1024]",
            "[OpSys = \"LINUX\"; Memory = 8192; Rank = TARGET.Prio]",
            "[OpSys = \"WINDOWS\"; Memory = 9000]",
            "[OpSys = TARGET.Want; Memory = 4096]",
            "[OpSys = \"LINUX\"; Memory = 8192]",
            "[Memory = 8192]",
        ]
        .iter()
        .map(|t| Arc::new(parse::classad(t).expect("offer")))
        .collect();
        let prefs = r#"Preferences = {
            [ Name = "os";  Value = TARGET.OpSys; Order = {"LINUX", "OSX"} ],
            [ Name = "mem"; Value = TARGET.Memory >= MY.Big; Parents = {"os"};
              Table = { [ When = {"LINUX"}; Order = {true, false} ] } ] }"#;
        let opts = EvalOptions::default();
        let dock = Dock::for_offers(Vec::new(), &offers);
        let n = offers.len();
        for req in [
            format!("[Big = 4096; Prio = 2; Want = \"LINUX\"; {prefs}]"),
            format!("[Big = 2048; Prio = 1; Want = \"OSX\"; Rank = TARGET.Memory; {prefs}]"),
            format!("[Big = 4096; Prio = 3; Want = \"osx\"; PreferenceKeep = 0.5; {prefs}]"),
        ] {
            let r = Arc::new(parse::classad(&req).expect("request"));
            let p = Preferences::from_ad(&r, "r", &opts)
                .expect("ok")
                .expect("some");
            let want = rank_all(&p, &r, 0..n as AdId, &offers, &opts);
            // Twice: the second list reads remembered keys.
            for _ in 0..2 {
                let mut l = dock.matchlist(&r, 0..n as AdId, &offers, &opts);
                let taken = vec![false; n];
                let mut got = Vec::new();
                while let Some((v, o)) = l.peek(&taken) {
                    got.push((v.to_vec(), o));
                    l.advance();
                }
                assert_eq!(got, want, "{req}");
            }
        }
    }
}
