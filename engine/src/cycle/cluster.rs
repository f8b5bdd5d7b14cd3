//! Autoclustering and matchlist caching (seed 002, 4.1): requests that agree on every
//! attribute the cycle can read of them share a cluster, whose sorted candidate list is
//! computed once and popped by each of its requests in turn.
//!
//! Exactness: a request's matches depend on (a) what the offers read of it (the external
//! references of every offer attribute, per matchable unit), (b) what `--dock` reads of it
//! (`request.X`), (c) its own `Requirements`, `Rank` and `RequestCount`, and (d) `--order-by`.
//! Those are the roots; a request's signature is the printed expression (or absence) of each
//! root and, transitively, of every attribute of the request they read. Two requests with
//! equal signatures evaluate alike against every offer, so they see the same candidates in the
//! same order; offers only disappear during a cycle, so a later request's candidates are the
//! cached list with the taken offers skipped. What the static analysis cannot follow (`eval`,
//! `random`, computed subscripts, whole-ad uses of `TARGET`/`MY`/…, a request with `Ports`)
//! makes the request a cluster of its own, or, in an offer or dock expression, turns
//! clustering off.

use adjoin_index::{units, AdId};
use adjoin_query::eval::EvalOptions;
use adjoin_query::refs::{ad_external_refs, internal_refs};
use adjoin_query::{ClassAd, Expr, Name, Value};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

/// One cluster's candidates, best first, and how far its requests have taken them.
#[derive(Debug, Default)]
pub struct Matchlist {
    entries: Vec<(Vec<Value>, AdId)>,
    next: usize,
}

impl Matchlist {
    /// A list of candidates already sorted best first.
    pub fn new(entries: Vec<(Vec<Value>, AdId)>) -> Matchlist {
        Matchlist { entries, next: 0 }
    }

    /// The best candidate not yet taken (entries taken by anyone are passed over for good).
    pub fn peek(&mut self, taken: &[bool]) -> Option<(&[Value], AdId)> {
        while let Some((_, o)) = self.entries.get(self.next) {
            if taken.get(*o as usize).copied().unwrap_or(true) {
                self.next += 1;
            } else {
                break;
            }
        }
        self.entries.get(self.next).map(|(v, o)| (v.as_slice(), *o))
    }

    /// Passes over the candidate [`Matchlist::peek`] returned (taken, or never usable).
    pub fn advance(&mut self) {
        self.next += 1;
    }
}

/// The clusters of a cycle's requests and their cached matchlists.
#[derive(Debug)]
pub struct Clusters {
    /// The cluster of each request, by position.
    of: Vec<usize>,
    /// Each cluster's matchlist, once its first request computed it.
    lists: Vec<Option<Matchlist>>,
}

impl Clusters {
    /// Every request a cluster of its own (the uncached path).
    pub fn singletons(n: usize) -> Clusters {
        Clusters {
            of: (0..n).collect(),
            lists: (0..n).map(|_| None).collect(),
        }
    }

    /// The clusters of `requests` for a cycle over `offers` with these `dock` expressions and
    /// `order_by`.
    pub fn of(
        requests: &[Arc<ClassAd>],
        offers: &[Arc<ClassAd>],
        dock: &[Expr],
        order_by: Option<&Expr>,
        opts: &EvalOptions,
    ) -> Clusters {
        let Some(roots) = roots(offers, dock, opts) else {
            return Clusters::singletons(requests.len());
        };
        let mut ids: HashMap<BTreeMap<String, Option<String>>, usize> = HashMap::new();
        let mut count = 0;
        let mut of = Vec::with_capacity(requests.len());
        for r in requests {
            let mut mine = roots.clone();
            if let Some(e) = order_by {
                mine.extend(internal_refs(e, r, opts));
            }
            let c = match signature(r, mine, opts) {
                Some(sig) => *ids.entry(sig).or_insert_with(|| {
                    count += 1;
                    count - 1
                }),
                None => {
                    count += 1;
                    count - 1
                }
            };
            of.push(c);
        }
        Clusters {
            of,
            lists: (0..count).map(|_| None).collect(),
        }
    }

    /// The number of clusters.
    pub fn len(&self) -> usize {
        self.lists.len()
    }

    /// True when there are no clusters (no requests).
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// The matchlist of request `ri`'s cluster, computed by `compute` the first time.
    pub fn list(
        &mut self,
        ri: usize,
        compute: impl FnOnce() -> Vec<(Vec<Value>, AdId)>,
    ) -> Option<&mut Matchlist> {
        let slot = self.lists.get_mut(*self.of.get(ri)?)?;
        Some(slot.get_or_insert_with(|| Matchlist::new(compute())))
    }
}

/// The request attributes every request's signature starts from; `None` when the offers or
/// the dock read the request in ways the analysis cannot follow.
fn roots(offers: &[Arc<ClassAd>], dock: &[Expr], opts: &EvalOptions) -> Option<BTreeSet<String>> {
    let mut roots: BTreeSet<String> = ["requirements", "rank", "requestcount"]
        .map(str::to_owned)
        .into();
    for o in offers {
        for u in units(o) {
            if u.ad.iter().any(|(_, e)| dynamic(e)) {
                return None;
            }
            roots.extend(ad_external_refs(&u.ad, opts));
        }
    }
    for e in dock {
        if dynamic(e) || !dock_reads(e, &mut roots) {
            return None;
        }
    }
    Some(roots)
}

/// Adds the X of each `request.X` in `e` to `names`; false when `e` uses `request` otherwise.
fn dock_reads(e: &Expr, names: &mut BTreeSet<String>) -> bool {
    match e {
        Expr::Select(base, name) => match base.unparen() {
            Expr::Attr(side) if side.as_str().eq_ignore_ascii_case("request") => {
                names.insert(name.key().as_str().to_owned());
                true
            }
            Expr::Attr(side) if side.as_str().eq_ignore_ascii_case("offer") => true,
            b => dock_reads(b, names),
        },
        Expr::Attr(n) | Expr::Root(n) => !n.as_str().eq_ignore_ascii_case("request"),
        Expr::Lit(_) => true,
        Expr::Ad(_) => false,
        Expr::Index(p) | Expr::Binary(_, p) | Expr::Elvis(p) => {
            dock_reads(&p.0, names) && dock_reads(&p.1, names)
        }
        Expr::Cond(p) => {
            dock_reads(&p.0, names) && dock_reads(&p.1, names) && dock_reads(&p.2, names)
        }
        Expr::Unary(_, x) | Expr::Paren(x) => dock_reads(x, names),
        Expr::Call(_, xs) | Expr::List(xs) => xs.iter().all(|x| dock_reads(x, names)),
    }
}

/// The printed expression (or absence) of each attribute of `r` that `roots` lead to; `None`
/// when one of them reads in ways the analysis cannot follow, or `r` has ports.
fn signature(
    r: &ClassAd,
    mut todo: BTreeSet<String>,
    opts: &EvalOptions,
) -> Option<BTreeMap<String, Option<String>>> {
    if r.get("Ports").is_some() {
        return None;
    }
    let mut sig = BTreeMap::new();
    while let Some(name) = todo.pop_first() {
        if sig.contains_key(&name) {
            continue;
        }
        let printed = match r.get(&name) {
            Some(e) => {
                if dynamic(e) {
                    return None;
                }
                for n in internal_refs(e, r, opts) {
                    if !sig.contains_key(&n) {
                        todo.insert(n);
                    }
                }
                // Debug output is structural: equal strings mean equal expressions.
                Some(format!("{e:?}"))
            }
            None => None,
        };
        sig.insert(name, printed);
    }
    Some(sig)
}

/// True when `e` may read attributes the static reference analysis does not report.
fn dynamic(e: &Expr) -> bool {
    let scope = |n: &Name| {
        ["target", "other", "my", "self", "parent", "root"]
            .iter()
            .any(|k| n.as_str().eq_ignore_ascii_case(k))
    };
    match e {
        Expr::Lit(Value::Ad(_)) => true,
        Expr::Lit(_) | Expr::Root(_) => false,
        Expr::Attr(n) => scope(n),
        Expr::Select(base, _) => match base.unparen() {
            Expr::Attr(_) => false,
            b => dynamic(b),
        },
        Expr::Index(p) => !matches!(p.0.unparen(), Expr::List(_)) || dynamic(&p.0) || dynamic(&p.1),
        Expr::Binary(_, p) | Expr::Elvis(p) => dynamic(&p.0) || dynamic(&p.1),
        Expr::Cond(p) => dynamic(&p.0) || dynamic(&p.1) || dynamic(&p.2),
        Expr::Unary(_, x) | Expr::Paren(x) => dynamic(x),
        Expr::Call(f, xs) => {
            ["eval", "random"]
                .iter()
                .any(|k| f.as_str().eq_ignore_ascii_case(k))
                || xs.iter().any(dynamic)
        }
        Expr::List(xs) => xs.iter().any(dynamic),
        Expr::Ad(ad) => ad.iter().any(|(_, x)| dynamic(x)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn ads(texts: &[&str]) -> Vec<Arc<ClassAd>> {
        texts
            .iter()
            .map(|t| Arc::new(parse::classad(t).expect("ad")))
            .collect()
    }

    /// The cluster of each request against one offer `[Requirements = …]`.
    fn check(
        offer: &str,
        dock: &[&str],
        order_by: Option<&str>,
        requests: &[&str],
        want: &[usize],
    ) {
        let dock: Vec<Expr> = dock.iter().map(|d| parse::expr(d).expect("dock")).collect();
        let order_by = order_by.map(|o| parse::expr(o).expect("order-by"));
        let c = Clusters::of(
            &ads(requests),
            &ads(&[offer]),
            &dock,
            order_by.as_ref(),
            &EvalOptions::default(),
        );
        assert_eq!(c.of, want, "{offer} {dock:?} {requests:?}");
    }

    #[test]
    fn clusters() {
        let off = "[Requirements = TARGET.Mem < 5]";
        check(
            off,
            &[],
            None,
            &["[Mem = 1; K = 1]", "[Mem = 1; K = 2]", "[Mem = 2]"],
            &[0, 0, 1],
        );
        // Absence is part of the signature.
        check(off, &[], None, &["[Mem = 1]", "[]", "[]"], &[0, 1, 1]);
        // Own Requirements and what they read, transitively.
        check(
            off,
            &[],
            None,
            &[
                "[Requirements = A; A = B; B = 1]",
                "[Requirements = A; A = B; B = 2]",
            ],
            &[0, 1],
        );
        check(
            off,
            &[],
            None,
            &["[RequestCount = 2]", "[RequestCount = 3]", "[]"],
            &[0, 1, 2],
        );
        check(
            off,
            &["request.K"],
            None,
            &["[K = 1]", "[K = 2]", "[K = 1]"],
            &[0, 1, 0],
        );
        check(
            off,
            &[],
            Some("K"),
            &["[K = 1]", "[K = 2]", "[K = 1]"],
            &[0, 1, 0],
        );
        // What cannot be followed: own clusters, or no clustering at all.
        check(
            off,
            &[],
            None,
            &["[Rank = eval(\"K\")]", "[Rank = eval(\"K\")]"],
            &[0, 1],
        );
        check(off, &["size(request)"], None, &["[]", "[]"], &[0, 1]);
        check(off, &[".request.K"], None, &["[K = 1]", "[K = 1]"], &[0, 1]);
        check(
            "[Requirements = size(TARGET) > 0]",
            &[],
            None,
            &["[]", "[]"],
            &[0, 1],
        );
        check(
            off,
            &[],
            None,
            &["[Ports = {[A = 1]}]", "[Ports = {[A = 1]}]"],
            &[0, 1],
        );
    }

    #[test]
    fn matchlists() {
        let e = |o: AdId| (vec![Value::Int(0)], o);
        let mut l = Matchlist::new(vec![e(0), e(1), e(2)]);
        let mut taken = vec![false, true, false];
        assert_eq!(l.peek(&taken).map(|x| x.1), Some(0));
        taken[0] = true;
        assert_eq!(l.peek(&taken).map(|x| x.1), Some(2));
        l.advance();
        assert_eq!(l.peek(&taken).map(|x| x.1), None);
    }
}
