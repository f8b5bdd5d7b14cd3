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

use super::shape::{self, binds_alike, dynamic, plain, ByHash, Fx, Walk};
use adjoin_index::units;
use adjoin_query::eval::EvalOptions;
use adjoin_query::refs::{ad_external_refs, internal_refs};
use adjoin_query::{ClassAd, Expr, Key};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::Hasher;
use std::sync::Arc;

pub use super::matchlist::Matchlist;

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
        match roots(offers, dock, opts) {
            Some(roots) => Clusters::from_roots(requests, &roots, order_by, opts),
            None => Clusters::singletons(requests.len()),
        }
    }

    /// The clusters of `requests` given the [`roots`] of the cycle's offers and dock.
    pub fn from_roots(
        requests: &[Arc<ClassAd>],
        roots: &Roots,
        order_by: Option<&Expr>,
        opts: &EvalOptions,
    ) -> Clusters {
        let mut shapes = Shapes::new(roots, order_by);
        shapes.add(requests);
        Clusters::from_shapes(requests, roots, &shapes, order_by, opts)
    }

    /// The clusters of `requests` from their [`Shapes`] (made with the same `roots` and
    /// `order_by`): each shape's exact signature computed once, from its first request.
    pub fn from_shapes(
        requests: &[Arc<ClassAd>],
        roots: &Roots,
        shapes: &Shapes,
        order_by: Option<&Expr>,
        opts: &EvalOptions,
    ) -> Clusters {
        let mut exact = Exact::default();
        let kinds: Vec<Kind> = shapes
            .shapes
            .iter()
            .map(
                |(_, rep, ad)| match exact.cluster(ad, roots, order_by, opts) {
                    (c, true) => Kind::Shared(c),
                    (c, false) => Kind::Own {
                        rep: *rep,
                        cluster: c,
                    },
                },
            )
            .collect();
        let of = requests
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let shape = shapes.of.get(i).copied().flatten();
                match shape.and_then(|s| kinds.get(s as usize)) {
                    Some(Kind::Shared(c)) => *c,
                    Some(Kind::Own { rep, cluster }) if *rep == i => *cluster,
                    // Ports, no signature, or not shaped.
                    _ => exact.cluster(r, roots, order_by, opts).0,
                }
            })
            .collect();
        Clusters {
            of,
            lists: (0..exact.count).map(|_| None).collect(),
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

    /// True when request `ri`'s cluster has its matchlist.
    pub fn has_list(&self, ri: usize) -> bool {
        self.of
            .get(ri)
            .and_then(|&c| self.lists.get(c))
            .is_some_and(Option::is_some)
    }

    /// Forgets the matchlist of request `ri`'s cluster (the next use computes it again).
    pub fn forget(&mut self, ri: usize) {
        if let Some(slot) = self.of.get(ri).and_then(|&c| self.lists.get_mut(c)) {
            *slot = None;
        }
    }

    /// Rewinds the matchlist of request `ri`'s cluster, if it has one ([`Matchlist::rewind`]).
    pub fn rewind(&mut self, ri: usize) {
        if let Some(Some(l)) = self.of.get(ri).and_then(|&c| self.lists.get_mut(c)) {
            l.rewind();
        }
    }

    /// The matchlist of request `ri`'s cluster, computed by `compute` the first time.
    pub fn list<L: Into<Matchlist>>(
        &mut self,
        ri: usize,
        compute: impl FnOnce() -> L,
    ) -> Option<&mut Matchlist> {
        let slot = self.lists.get_mut(*self.of.get(ri)?)?;
        Some(slot.get_or_insert_with(|| compute().into()))
    }
}

/// The request attributes every request's signature starts from: `Requirements`, `Rank`,
/// `RequestCount`, what the offers read of the other side, and what `--dock` reads of the
/// request.
#[derive(Clone, Debug)]
pub struct Roots {
    /// Case-folded names.
    names: BTreeSet<String>,
    /// Their keys, sorted.
    keys: Vec<Key>,
}

/// The [`Roots`] of a cycle over `offers` with these `dock` expressions; `None` when the
/// offers or the dock read the request in ways the analysis cannot follow.
///
/// Offers alike in shape (the same attribute names in the same order, bound to the same
/// expressions, plain literal values aside) read the same names of the other side: each shape
/// is analysed once.
pub fn roots(offers: &[Arc<ClassAd>], dock: &[Expr], opts: &EvalOptions) -> Option<Roots> {
    let mut names: BTreeSet<String> = ["requirements", "rank", "requestcount"]
        .map(str::to_owned)
        .into();
    let ports = Key::of("ports");
    let mut shapes: ByHash<Vec<&ClassAd>> = ByHash::default();
    for o in offers {
        if o.get_key(ports).is_none() {
            let seen = shapes.entry(offer_shape(o)).or_default();
            if seen.iter().any(|s| same_offer_shape(s, o)) {
                continue;
            }
            seen.push(o);
        }
        for u in units(o) {
            if u.ad.iter().any(|(_, e)| dynamic(e)) {
                return None;
            }
            names.extend(ad_external_refs(&u.ad, opts));
        }
    }
    for e in dock {
        if dynamic(e) || !dock_reads(e, &mut names) {
            return None;
        }
    }
    let keys = names.iter().map(|n| Key::of(n)).collect::<BTreeSet<Key>>();
    Some(Roots {
        names,
        keys: keys.into_iter().collect(),
    })
}

/// The hash of an offer's shape: its names in order, each with its expression unless plain.
fn offer_shape(o: &ClassAd) -> u64 {
    let mut h = Fx::default();
    for (n, e) in o.iter() {
        h.write_u32(n.key().0);
        if plain(e) {
            h.write_u64(0);
        } else {
            h.write_u64(1);
            shape::hash(e, &mut h);
        }
    }
    h.finish()
}

/// Whether two offers have the same shape (see [`offer_shape`]).
fn same_offer_shape(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter().zip(b.iter()).all(|((n, x), (m, y))| {
            n.key() == m.key() && (plain(x) && plain(y) || shape::same(x, y))
        })
}

/// The shapes of a cycle's requests, found as they are read (on the thread that prepares the
/// offers, while the requests are still being read), for [`Clusters::from_shapes`].
///
/// A request's *shape* is its expression (or absence) for every name reachable
/// syntactically from the roots and `--order-by` through its own attributes ([`Walk`]);
/// shapes are hashed and compared structurally. Requests of one shape have one signature
/// (every attribute lookup the reference analysis makes finds the same expression in both),
/// so clustering by shape and then by each shape's signature gives exactly the clusters of
/// the signatures alone, with one signature computed per shape.
#[derive(Debug)]
pub struct Shapes {
    /// The names shapes start from, sorted.
    start: Vec<Key>,
    ports: Key,
    /// Each request's shape, by number (`None`: it has ports), in load order.
    of: Vec<Option<u32>>,
    /// Each shape's names, its first request's position, and that request.
    shapes: Vec<(Vec<Key>, usize, Arc<ClassAd>)>,
    /// Shapes by hash.
    table: ByHash<Vec<u32>>,
}

impl Shapes {
    /// No requests yet, for a cycle with these roots and `order_by`.
    pub fn new(roots: &Roots, order_by: Option<&Expr>) -> Shapes {
        let mut start = roots.keys.clone();
        if let Some(e) = order_by {
            shape::names(e, &mut start);
        }
        start.sort_unstable();
        start.dedup();
        Shapes {
            start,
            ports: Key::of("ports"),
            of: Vec::new(),
            shapes: Vec::new(),
            table: ByHash::default(),
        }
    }

    /// The requests read so far.
    pub fn len(&self) -> usize {
        self.of.len()
    }

    /// True before any request.
    pub fn is_empty(&self) -> bool {
        self.of.is_empty()
    }

    /// Adds the next requests in load order.
    pub fn add(&mut self, requests: &[Arc<ClassAd>]) {
        let mut walk = Walk::default();
        for r in requests {
            if r.get_key(self.ports).is_some() {
                self.of.push(None);
                continue;
            }
            let h = walk.shape(r, &self.start);
            let ids = self.table.entry(h).or_default();
            let shapes = &mut self.shapes;
            let found = ids.iter().copied().find(|&s| {
                shapes
                    .get(s as usize)
                    .is_some_and(|(names, _, rep)| binds_alike(&walk.bound, names, rep))
            });
            let s = found.unwrap_or_else(|| {
                let s = shapes.len() as u32;
                let names = walk.bound.iter().map(|b| b.0).collect();
                shapes.push((names, self.of.len(), Arc::clone(r)));
                ids.push(s);
                s
            });
            self.of.push(Some(s));
        }
    }
}

/// How the requests of a shape are clustered.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// All in this cluster.
    Shared(usize),
    /// Each in a cluster of its own (no signature): `rep`'s is `cluster`.
    Own { rep: usize, cluster: usize },
}

/// The exact signatures seen and the clusters they were given.
#[derive(Default)]
struct Exact {
    ids: HashMap<BTreeMap<String, Option<String>>, usize>,
    count: usize,
}

impl Exact {
    /// The cluster of `r`: that of its signature, or a new one; and whether it has a
    /// signature (false: the cluster is its own).
    fn cluster(
        &mut self,
        r: &ClassAd,
        roots: &Roots,
        order_by: Option<&Expr>,
        opts: &EvalOptions,
    ) -> (usize, bool) {
        let mut mine = roots.names.clone();
        if let Some(e) = order_by {
            mine.extend(internal_refs(e, r, opts));
        }
        let fresh = self.count;
        let (c, shared) = match signature(r, mine, opts) {
            Some(sig) => (*self.ids.entry(sig).or_insert(fresh), true),
            None => (fresh, false),
        };
        if c == fresh {
            self.count += 1;
        }
        (c, shared)
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_index::AdId;
    use adjoin_query::parse;
    use adjoin_query::Value;

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
        assert_eq!(canonical(&c.of), want, "{offer} {dock:?} {requests:?}");
    }

    /// Cluster numbers renumbered in order of first use (numbering is arbitrary).
    fn canonical(of: &[usize]) -> Vec<usize> {
        let mut first: Vec<usize> = Vec::new();
        of.iter()
            .map(|c| {
                first.iter().position(|f| f == c).unwrap_or_else(|| {
                    first.push(*c);
                    first.len() - 1
                })
            })
            .collect()
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
        // A name written but not read of the request itself (TARGET.Size), an unread
        // attribute, and the same expression spelled otherwise.
        check(
            off,
            &[],
            None,
            &[
                "[Requirements = TARGET.Size > 0; Size = 1]",
                "[Requirements = TARGET.Size > 0; Size = 2]",
                "[Requirements = TARGET.Size > 0; Size = 1; X = 3]",
                "[Requirements = TARGET.size > 0; Size = 1]",
                "[Requirements = TARGET.Size > 0; Size = 1]",
            ],
            &[0, 0, 0, 1, 0],
        );
        // Transitively through order-by, and through nested ads.
        check(
            off,
            &[],
            Some("P + 0"),
            &["[P = Q; Q = 1]", "[P = Q; Q = 2]", "[P = Q; Q = 1; R = 1]"],
            &[0, 1, 0],
        );
        check(
            off,
            &[],
            None,
            &[
                "[Rank = [a = Q].a; Q = 1]",
                "[Rank = [a = Q].a; Q = 2]",
                "[Rank = [a = Q].a; Q = 1]",
            ],
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
        check(
            off,
            &[],
            None,
            &[
                "[Rank = Q; Q = random()]",
                "[Rank = Q; Q = random()]",
                "[Q = random()]",
                "[Q = random()]",
            ],
            &[0, 1, 2, 2],
        );
    }

    /// The clusters of `requests` against `offers`, shapes or exact signatures alone.
    fn both(offers: &[&str], requests: &[&str]) -> (Vec<usize>, Vec<usize>) {
        let opts = EvalOptions::default();
        let (offers, requests) = (ads(offers), ads(requests));
        let roots = roots(&offers, &[], &opts).expect("roots");
        let fast = Clusters::from_roots(&requests, &roots, None, &opts).of;
        let mut exact = Exact::default();
        let slow = requests
            .iter()
            .map(|r| exact.cluster(r, &roots, None, &opts).0)
            .collect();
        (fast, slow)
    }

    #[test]
    fn shapes_of_generated_jobs_give_the_exact_clusters() {
        // Generated jobs from templates, some with a rank of their own.
        let mut w = crate::workload::Workload::new(5).expect("workload");
        let offers: Vec<Arc<ClassAd>> = (0..20).map(|n| Arc::new(w.slot_ad(n))).collect();
        let t = crate::workload::templates::JobTemplates::new(w.rng(), 40).expect("templates");
        let mut g = w.rng().clone();
        let requests: Vec<Arc<ClassAd>> = t
            .jobs(&mut g, 3000)
            .enumerate()
            .map(|(i, mut j)| {
                if i % 7 == 0 {
                    j.set("Rank", Expr::lit(Value::Int(i as i64 % 3)));
                }
                Arc::new(j)
            })
            .collect();
        let opts = EvalOptions::default();
        let roots = roots(&offers, &[], &opts).expect("roots");
        let fast = Clusters::from_roots(&requests, &roots, None, &opts).of;
        // Shapes found a run of requests at a time, as they are read.
        let mut shapes = Shapes::new(&roots, None);
        for run in requests.chunks(777) {
            shapes.add(run);
        }
        assert_eq!(shapes.len(), requests.len());
        let chunked = Clusters::from_shapes(&requests, &roots, &shapes, None, &opts).of;
        assert_eq!(chunked, fast);
        let mut exact = Exact::default();
        let slow: Vec<usize> = requests
            .iter()
            .map(|r| exact.cluster(r, &roots, None, &opts).0)
            .collect();
        // The same partition (cluster numbers may differ).
        let mut pairs: Vec<(usize, usize)> = fast.iter().copied().zip(slow).collect();
        pairs.sort_unstable();
        pairs.dedup();
        let distinct = |f: fn(&(usize, usize)) -> usize| {
            let mut v: Vec<usize> = pairs.iter().map(f).collect();
            v.sort_unstable();
            v.dedup();
            v.len()
        };
        assert_eq!(distinct(|p| p.0), pairs.len());
        assert_eq!(distinct(|p| p.1), pairs.len());
        assert!(
            (40..=160).contains(&pairs.len()),
            "{} clusters",
            pairs.len()
        );
    }

    #[test]
    fn shapes_give_the_exact_clusters() {
        let offers = [
            "[Memory = 1; Requirements = TARGET.Mem <= Memory; Rank = TARGET.Owner == \"a\"]",
            "[Memory = 2; Requirements = TARGET.Mem <= Memory; Rank = TARGET.Owner == \"a\"]",
            "[Memory = 2; Requirements = TARGET.Size <= Memory]",
        ];
        let requests = [
            "[Mem = 1; Owner = \"a\"; Requirements = TARGET.Memory >= Mem]",
            "[Mem = 1; Owner = \"b\"; Requirements = TARGET.Memory >= Mem]",
            "[Mem = 1; Owner = \"a\"; Requirements = TARGET.Memory >= Mem; Memory = 5]",
            "[Mem = 1; Owner = \"a\"; Requirements = TARGET.Memory >= Mem; Memory = 6]",
            "[Mem = 1; Owner = \"a\"; Requirements = TARGET.Memory >= Mem; Size = 1]",
            "[Mem = 1; Owner = \"a\"; Requirements = TARGET.Memory >= Mem; Size = 1]",
            "[Mem = 1; Owner = \"a\"; Requirements = TARGET.Memory >= Mem]",
            "[Mem = 1.0; Owner = \"a\"; Requirements = TARGET.Memory >= Mem]",
        ];
        let (fast, slow) = both(&offers, &requests);
        assert_eq!(fast, slow);
        assert_eq!(fast, [0, 1, 0, 0, 2, 2, 0, 3]);
        // The offers' shapes: the first two are alike, the third reads Size.
        let opts = EvalOptions::default();
        let names = roots(&ads(&offers), &[], &opts).expect("roots").names;
        for n in [
            "mem",
            "owner",
            "size",
            "requirements",
            "rank",
            "requestcount",
        ] {
            assert!(names.contains(n), "{n} in {names:?}");
        }
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
        // Undone takes: rewinding finds them again.
        taken[0] = false;
        l.rewind();
        assert_eq!(l.peek(&taken).map(|x| x.1), Some(0));
        let mut c = Clusters::singletons(2);
        assert!(!c.has_list(0));
        c.list(0, || vec![e(1)]);
        assert!(c.has_list(0) && !c.has_list(1) && !c.has_list(9));
        c.forget(0);
        assert!(!c.has_list(0));
    }
}
