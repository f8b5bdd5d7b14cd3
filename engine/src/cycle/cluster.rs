//! Autoclustering and matchlist caching (seed 002, 4.1): requests that agree on every
//! attribute the cycle can read of them share a cluster, whose sorted candidate list is
//! computed once and popped by each of its requests in turn.
//!
//! Exactness: a request's matches depend on (a) what the offers read of it (the external
//! references of every offer attribute, per matchable unit), (b) what `--dock` reads of it
//! (`request.X`), (c) its own `Requirements`, `Rank`, `RequestCount`, `Preferences` (with what
//! its values read of it) and `PreferenceKeep`, and (d) `--order-by`.
//! Those are the roots; a request's signature is the expression (or absence), compared
//! structurally, of each root and, transitively, of every attribute of the request they read.
//! Two requests with equal signatures evaluate alike against every offer, so they see the same
//! candidates in the same order; offers only disappear during a cycle, so a later request's
//! candidates are the cached list with the taken offers skipped. What the static analysis
//! cannot follow (`eval`, `random`, computed subscripts, whole-ad uses of `TARGET`/`MY`/…, a
//! request with `Ports`) makes the request a cluster of its own, or, in an offer or dock
//! expression, turns clustering off.

use super::shape::{self, dynamic, literal, ByHash, Fx};
use adjoin_index::pairwise_units;
use adjoin_query::eval::EvalOptions;
use adjoin_query::refs::{ad_external_keys, internal_keys};
use adjoin_query::{ClassAd, Expr, Key, Name};
use adjoin_storage::codec::CodecError;
use adjoin_storage::RawAd;
use std::collections::hash_map::Entry;
use std::collections::{BTreeSet, HashMap};
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
    /// Each cluster's last serving position ([`Clusters::plan`]), where its list is dropped.
    last: Vec<usize>,
}

impl Clusters {
    /// Every request a cluster of its own (the uncached path).
    pub fn singletons(n: usize) -> Clusters {
        Clusters {
            of: (0..n).collect(),
            lists: (0..n).map(|_| None).collect(),
            last: Vec::new(),
        }
    }

    #[cfg(test)]
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

    #[cfg(test)]
    /// The clusters of `requests` given the [`roots`] of the cycle's offers and dock.
    pub fn from_roots(
        requests: &[Arc<ClassAd>],
        roots: &Roots,
        order_by: Option<&Expr>,
        opts: &EvalOptions,
    ) -> Clusters {
        let mut shapes = Shapes::new(roots, order_by, opts);
        shapes.add(requests.to_vec());
        shapes.finish().0
    }

    /// The cluster of each request, by position (clusters numbered `0..len()`).
    pub fn of_each(&self) -> &[usize] {
        &self.of
    }

    /// The number of clusters.
    pub fn len(&self) -> usize {
        self.lists.len()
    }

    /// True when request `ri`'s cluster has its matchlist.
    pub fn has_list(&self, ri: usize) -> bool {
        self.of
            .get(ri)
            .and_then(|&c| self.lists.get(c))
            .is_some_and(Option::is_some)
    }

    /// Notes the serving order (request positions), so that each cluster's list is dropped
    /// once its last request is served ([`Clusters::served`]).
    pub fn plan(&mut self, serving: &[usize]) {
        self.last = vec![0; self.lists.len()];
        for (pos, &ri) in serving.iter().enumerate() {
            if let Some(l) = self.of.get(ri).and_then(|&c| self.last.get_mut(c)) {
                *l = pos;
            }
        }
    }

    /// Request `ri` at serving position `pos` was served: when it is its cluster's last, the
    /// list goes (a million requests in many clusters would otherwise keep every list to the
    /// end). Should a refusal send the cycle back before `pos`, the list is computed again,
    /// as the uncached path would.
    pub fn served(&mut self, pos: usize, ri: usize) {
        if let Some(&c) = self.of.get(ri) {
            if self.last.get(c) == Some(&pos) {
                if let Some(slot) = self.lists.get_mut(c) {
                    *slot = None;
                }
            }
        }
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
/// `RequestCount`, `Preferences`, `PreferenceKeep` (so that a request with a keep fraction
/// never shares the shape of one without), what the offers read of the other side, and what
/// `--dock` reads of the request.
#[derive(Clone, Debug)]
pub struct Roots {
    /// The names' keys, sorted.
    keys: Vec<Key>,
}

/// The [`Roots`] of a cycle over `offers` with these `dock` expressions; `None` when the
/// offers or the dock read the request in ways the analysis cannot follow ([`RootsFinder`],
/// all the offers at once).
pub fn roots(offers: &[Arc<ClassAd>], dock: &[Expr], opts: &EvalOptions) -> Option<Roots> {
    let mut finder = RootsFinder::default();
    finder.add(offers, opts);
    finder.finish(dock)
}

/// The [`Roots`] of a cycle found from its offers a run at a time, as they are read.
///
/// Offers alike in shape (the same attribute names in the same order, bound to the same
/// expressions, the values of literals aside, [`literal`]: lists of them too) read the same
/// names of the other side: each shape is analysed once.
#[derive(Debug)]
pub struct RootsFinder {
    /// The names found so far; `None` once an offer reads in ways the analysis cannot follow.
    names: Option<BTreeSet<Key>>,
    /// An offer of each shape analysed, by the shape's hash.
    shapes: ByHash<Vec<Arc<ClassAd>>>,
    ports: Key,
}

impl Default for RootsFinder {
    fn default() -> RootsFinder {
        let names = [
            "requirements",
            "rank",
            "requestcount",
            "preferences",
            "preferencekeep",
        ];
        RootsFinder {
            names: Some(names.map(Key::of).into()),
            shapes: ByHash::default(),
            ports: Key::of("ports"),
        }
    }
}

impl RootsFinder {
    /// Adds what the next `offers` read of the other side (nothing, once an offer the
    /// analysis cannot follow has been added: there are no roots).
    pub fn add(&mut self, offers: &[Arc<ClassAd>], opts: &EvalOptions) {
        for o in offers {
            let Some(names) = self.names.as_mut() else {
                return;
            };
            if o.get_key(self.ports).is_none() {
                let seen = self.shapes.entry(offer_shape(o)).or_default();
                if seen.iter().any(|s| same_offer_shape(s, o)) {
                    continue;
                }
                seen.push(Arc::clone(o));
            }
            if o.contains("PartitionableSlot") {
                // A partitionable offer (whatever the value, which offers of one shape need
                // not share) carves each request's own `RequestR` out of it: requests that ask
                // for different shares are not alike.
                let shares = super::partition::resources(o);
                names.extend(shares.iter().map(|r| Key::of(&format!("Request{r}"))));
            }
            for u in pairwise_units(o, opts) {
                if u.ad.iter().any(|(_, e)| dynamic(e)) {
                    self.names = None;
                    break;
                }
                names.extend(ad_external_keys(&u.ad, opts));
            }
        }
    }

    /// The roots of the offers added, with these `dock` expressions.
    pub fn finish(self, dock: &[Expr]) -> Option<Roots> {
        let mut names = self.names?;
        for e in dock {
            if dynamic(e) || !dock_reads(e, &mut names) {
                return None;
            }
        }
        Some(Roots {
            keys: names.into_iter().collect(),
        })
    }
}

/// The hash of an offer's shape: its names in order, each with its expression unless a
/// literal.
fn offer_shape(o: &ClassAd) -> u64 {
    let mut h = Fx::default();
    for (n, e) in o.iter() {
        h.write_u32(n.key().0);
        if literal(e) {
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
            n.key() == m.key() && (literal(x) && literal(y) || shape::same(x, y))
        })
}

/// The shapes of a cycle's requests, found as they are read, and from them the clusters
/// ([`Shapes::finish`]).
///
/// A request's *shape* is its expression (or absence) for every name reachable
/// syntactically from the roots and `--order-by` through its own attributes; shapes are
/// hashed and compared by the expressions' encodings as stored (equal encodings are equal
/// expressions), so a request read from the store is shaped without decoding it
/// ([`Shapes::place`]). Requests of one shape have one signature (every attribute lookup the
/// reference analysis makes finds the same expression in both), so clustering by shape and
/// then by each shape's signature gives exactly the clusters of the signatures alone, with at
/// most one signature computed per shape.
///
/// A shape's signature is found only once something could share its cluster: a second
/// request of the shape, or another shape binding the roots alike ([`roots_hash`]; requests
/// of one signature bind every root alike). Until then the shape's one request has a cluster
/// of its own whatever its signature, numbered as it would be had the signature been found
/// at once. Where no two requests share a shape or bind the roots alike (a pool of diverse
/// users, differing in what the offers read of them), no signature is found.
///
/// Requests of a shape with a signature are alike in everything the cycle reads of them, so
/// only the first of them is kept (decoded): the first one's ad stands in for the others
/// ([`Shapes::finish`]). A million requests of a few thousand shapes are held as a few
/// thousand ads.
#[derive(Debug)]
pub struct Shapes {
    /// The names shapes start from, sorted.
    start: Vec<Key>,
    ports: Key,
    roots: Roots,
    order_by: Option<Expr>,
    opts: EvalOptions,
    /// Each request's shape, by number (`None`: not shaped, as it has ports), in load order.
    of: Vec<Option<u32>>,
    /// Each shape: its bindings, its first request's position, and that request.
    shapes: Vec<(Arc<Bound>, usize, Arc<ClassAd>)>,
    /// Each shape's hash, and the hash of its roots' bindings ([`roots_hash`]).
    hashes: Vec<(u64, u64)>,
    /// How each shape's requests are clustered.
    kinds: Vec<Kind>,
    /// Shapes by hash.
    table: ByHash<Vec<u32>>,
    /// The exact signatures of the first requests of the shapes signed so far (and of the
    /// unshaped requests).
    exact: Exact,
    /// Shapes by the hash of their roots' bindings ([`roots_hash`]): the first shape of a
    /// hash while it is the only one (it may have been signed since, by a second request of
    /// it), `None` once another came (every shape of the hash signed).
    alike: ByHash<Option<u32>>,
    /// Each request's ad, or the ad that stands in for it, in load order.
    ads: Vec<Arc<ClassAd>>,
    /// The names each encoded expression seen mentions ([`shape::names`]), literals aside.
    mentions: HashMap<Box<[u8]>, Vec<Key>, std::hash::BuildHasherDefault<Fx>>,
    /// The last request's bindings: each name and the position of its attribute, if any.
    bound: Vec<(Key, Option<usize>)>,
    /// The last request's expressions decoded to be shaped, by where their encodings are.
    decoded: Decoded,
    /// Whether a shape's first request may stand in for the others: not when `--order-by`
    /// reads in ways the analysis cannot follow (`eval`, `random`, …), as requests alike in
    /// their shape may then be ordered apart.
    stand_in: bool,
}

/// A shape's bindings, sorted by name: each name and its encoded expression, or absence.
pub type Bound = Vec<(Key, Option<Box<[u8]>>)>;

/// The last request placed ([`Shapes::last_shape`]): its shape's hash, bindings and roots'
/// hash (`None` when kept whole), and its own ad when it was decoded.
pub type LastShape<'a> = (Option<(u64, &'a Arc<Bound>, u64)>, Option<&'a Arc<ClassAd>>);

/// Expressions decoded from one request's body, by where their encodings are in it
/// ([`place_of`]).
pub type Decoded = Vec<((usize, usize), Expr)>;

/// Where the encoding `bytes` is: its address and length.
fn place_of(bytes: &[u8]) -> (usize, usize) {
    (bytes.as_ptr() as usize, bytes.len())
}

/// Encoded expressions whose mentions [`Shapes`] remembers, at most (then it starts over).
const MENTIONS: usize = 1 << 16;

impl Shapes {
    /// No requests yet, for a cycle with these roots and `order_by`.
    pub fn new(roots: &Roots, order_by: Option<&Expr>, opts: &EvalOptions) -> Shapes {
        let mut start = roots.keys.clone();
        if let Some(e) = order_by {
            shape::names(e, &mut start);
        }
        start.sort_unstable();
        start.dedup();
        Shapes {
            start,
            ports: Key::of("ports"),
            roots: roots.clone(),
            order_by: order_by.cloned(),
            opts: opts.clone(),
            of: Vec::new(),
            shapes: Vec::new(),
            hashes: Vec::new(),
            kinds: Vec::new(),
            table: ByHash::default(),
            exact: Exact::default(),
            alike: ByHash::default(),
            ads: Vec::new(),
            mentions: HashMap::default(),
            bound: Vec::new(),
            decoded: Vec::new(),
            stand_in: !order_by.is_some_and(dynamic),
        }
    }

    #[cfg(test)]
    /// The requests placed so far.
    pub fn len(&self) -> usize {
        self.of.len()
    }

    /// Adds the next requests in load order, as ads in memory (their expressions encoded to
    /// be shaped).
    pub fn add(&mut self, requests: Vec<Arc<ClassAd>>) {
        for r in requests {
            self.add_one(r, false);
        }
    }

    /// The names shapes start from, sorted: the roots and `--order-by`'s names.
    pub fn start(&self) -> &[Key] {
        &self.start
    }

    /// The roots shapes start from.
    pub fn roots_found(&self) -> &Roots {
        &self.roots
    }

    /// The roots' names, whose bindings [`roots_hash`] hashes.
    pub fn roots(&self) -> &[Key] {
        &self.roots.keys
    }

    /// Adds the next request in load order, as [`Shapes::add`] does; `whole`: as one that
    /// cannot be shaped (judged whole at the end). Returns its ad when it is the first of a
    /// new shape.
    pub fn add_one(&mut self, r: Arc<ClassAd>, whole: bool) -> Option<Arc<ClassAd>> {
        let encoded: Option<Vec<(Key, Vec<u8>)>> = r
            .iter()
            .map(|(n, e)| Some((n.key(), adjoin_storage::codec::encode(e).ok()?)))
            .collect();
        let mut attrs: Vec<(Key, &[u8])> = encoded
            .iter()
            .flatten()
            .map(|(k, b)| (*k, b.as_slice()))
            .collect();
        let shaped = !whole && encoded.is_some();
        let placed: Result<_, std::convert::Infallible> =
            self.place(&mut attrs, shaped, |_| Ok(Arc::clone(&r)));
        let Ok(first) = placed;
        first
    }

    /// Places the next request in load order, given each of its attributes' key and encoded
    /// expression (`shaped` false: it cannot be shaped and is kept whole); `decode` gives its
    /// ad when it is to be kept, from the expressions shaping decoded (by where their
    /// encodings are). Returns the request's ad when it is the first of a new shape. What
    /// `decode` fails with is returned, the request not placed.
    pub fn place<E>(
        &mut self,
        attrs: &mut [(Key, &[u8])],
        shaped: bool,
        decode: impl FnOnce(&mut Decoded) -> Result<Arc<ClassAd>, E>,
    ) -> Result<Option<Arc<ClassAd>>, E> {
        self.decoded.clear();
        // By key, for lookups; a stable sort keeps a name's bindings in the ad's order.
        attrs.sort_by_key(|a| a.0);
        let attrs = &*attrs;
        let hash = match shaped && !attrs.iter().any(|(k, _)| *k == self.ports) {
            true => self.shape(attrs),
            false => None,
        };
        let Some(hash) = hash else {
            // Ports, or an expression that does not decode: judged whole at the end.
            self.ads.push(decode(&mut self.decoded)?);
            self.of.push(None);
            return Ok(None);
        };
        let (bound, mut names_of) = (&self.bound, Arc::default());
        let same = |names: &Bound| {
            names.len() == bound.len()
                && names.iter().zip(bound).all(|((k, x), (m, y))| {
                    k == m && x.as_deref() == y.and_then(|j| attrs.get(j)).map(|a| a.1)
                })
        };
        let found = self.find_shape(hash, same);
        if found.is_none() {
            names_of = Arc::new(
                bound
                    .iter()
                    .map(|&(k, j)| (k, j.and_then(|j| attrs.get(j)).map(|a| a.1.into())))
                    .collect(),
            );
        }
        self.place_found(hash, found, names_of, None, decode)
    }

    /// Places the next request in load order as [`Shapes::place`] does, its shape known:
    /// `shape` is its hash, bindings and, when known, its roots' hash ([`Shapes::last_shape`]
    /// of a cycle with these start names; the roots' hash of one with these [`Shapes::roots`]),
    /// or `None` for a request kept whole; `decode` gives its ad.
    pub fn place_shaped<E>(
        &mut self,
        shape: Option<(u64, &Arc<Bound>, Option<u64>)>,
        decode: impl FnOnce(&mut Decoded) -> Result<Arc<ClassAd>, E>,
    ) -> Result<Option<Arc<ClassAd>>, E> {
        self.decoded.clear();
        let Some((hash, bound, roots)) = shape else {
            self.ads.push(decode(&mut self.decoded)?);
            self.of.push(None);
            return Ok(None);
        };
        let found = self.find_shape(hash, |names| {
            std::ptr::eq(names, &**bound) || names == &**bound
        });
        let names = match found {
            Some(_) => Arc::default(),
            None => Arc::clone(bound),
        };
        self.place_found(hash, found, names, roots, decode)
    }

    /// The shape of hash `hash` whose bindings are `same`, if one was placed.
    fn find_shape(&self, hash: u64, same: impl Fn(&Bound) -> bool) -> Option<u32> {
        let ids = self.table.get(&hash)?;
        ids.iter().copied().find(|&s| {
            self.shapes
                .get(s as usize)
                .is_some_and(|(names, _, _)| same(names.as_ref()))
        })
    }

    /// Places the next request, of the shape `found` or, when `None`, of a new shape of hash
    /// `hash`, bindings `names` and roots' hash `roots` (found here when `None`).
    fn place_found<E>(
        &mut self,
        hash: u64,
        found: Option<u32>,
        names: Arc<Bound>,
        roots: Option<u64>,
        decode: impl FnOnce(&mut Decoded) -> Result<Arc<ClassAd>, E>,
    ) -> Result<Option<Arc<ClassAd>>, E> {
        let (s, ad, first) = match found {
            Some(s) => {
                // A second request: the shape's cluster may be shared from now on.
                self.sign(s);
                match (self.kinds.get(s as usize), self.shapes.get(s as usize)) {
                    (Some(Kind::Shared(_)), Some((_, _, rep))) if self.stand_in => {
                        (s, Arc::clone(rep), false)
                    }
                    _ => (s, decode(&mut self.decoded)?, false),
                }
            }
            None => {
                let ad = decode(&mut self.decoded)?;
                let s = self.shapes.len() as u32;
                let roots = roots.unwrap_or_else(|| roots_hash(&ad, &self.roots));
                self.shapes.push((names, self.of.len(), Arc::clone(&ad)));
                self.hashes.push((hash, roots));
                self.table.entry(hash).or_default().push(s);
                let rep = self.of.len();
                let kind = match self.alike.entry(roots) {
                    Entry::Vacant(v) => {
                        v.insert(Some(s));
                        Kind::Pending {
                            rep,
                            cluster: self.exact.fresh(),
                        }
                    }
                    Entry::Occupied(mut o) => {
                        if let Some(p) = o.insert(None) {
                            self.sign(p);
                        }
                        let (roots, order_by) = (&self.roots, self.order_by.as_ref());
                        match self.exact.cluster(&ad, roots, order_by, &self.opts) {
                            (c, true) => Kind::Shared(c),
                            (cluster, false) => Kind::Own { rep, cluster },
                        }
                    }
                };
                self.kinds.push(kind);
                (s, ad, true)
            }
        };
        self.ads.push(Arc::clone(&ad));
        self.of.push(Some(s));
        Ok(first.then_some(ad))
    }

    /// The last request placed: its shape's hash and bindings (`None` when it was kept
    /// whole), and its own ad when it was decoded (not stood in for).
    pub fn last_shape(&self) -> Option<LastShape<'_>> {
        let at = self.of.len().checked_sub(1)?;
        let ad = self.ads.get(at)?;
        let Some(s) = self.of.get(at).copied().flatten() else {
            return Some((None, Some(ad)));
        };
        let (names, rep, rep_ad) = self.shapes.get(s as usize)?;
        let (hash, roots) = *self.hashes.get(s as usize)?;
        // A request stood in for holds its shape's first request's ad.
        let own = *rep == at || !Arc::ptr_eq(ad, rep_ad);
        Some((Some((hash, names, roots)), own.then_some(ad)))
    }

    /// Places the next request as the store holds it, undecoded ([`Shapes::place`]): a
    /// request whose body cannot be walked attribute by attribute is kept whole.
    pub fn place_raw(&mut self, raw: RawAd<'_>) -> Result<Option<Arc<ClassAd>>, CodecError> {
        let mut walked: Vec<(Name, &[u8])> = Vec::with_capacity(32);
        let ok = raw
            .for_each_attr(|n, bytes| walked.push((n, bytes)))
            .is_ok();
        let mut attrs: Vec<(Key, &[u8])> = walked.iter().map(|&(n, b)| (n.key(), b)).collect();
        self.place(&mut attrs, ok, |known| match ok {
            // Attribute by attribute, in the ad's order, those decoded to be shaped as they are.
            true => {
                let mut ad = ClassAd::with_capacity(walked.len());
                for &(name, bytes) in &walked {
                    let at = known.iter().position(|k| k.0 == place_of(bytes));
                    let e = match at {
                        Some(at) => known.swap_remove(at).1,
                        None => adjoin_storage::raw::decode_expr(bytes)?,
                    };
                    ad.insert(name, e);
                }
                Ok(Arc::new(ad))
            }
            false => raw.decode().map(Arc::new),
        })
    }

    /// The hash of the shape of the request of `attrs`, its bindings left in `self.bound`
    /// (sorted by name); `None` when one of its expressions does not decode.
    fn shape(&mut self, attrs: &[(Key, &[u8])]) -> Option<u64> {
        let bound = &mut self.bound;
        bound.clear();
        bound.extend(self.start.iter().map(|&k| (k, None)));
        // Each binding's hash, mixed and summed: the total does not depend on the order.
        let mut total = 0u64;
        let mut i = 0;
        while let Some(&(k, _)) = bound.get(i) {
            let mut h = Fx::default();
            h.write_u32(k.0);
            // The last binding of a name is the one an ad keeps.
            let end = attrs.partition_point(|a| a.0 <= k);
            if let Some(j) = end.checked_sub(1).filter(|&j| attrs[j].0 == k) {
                let bytes = attrs[j].1;
                h.write_u64(1);
                h.write(bytes);
                bound[i].1 = Some(j);
                if !adjoin_storage::raw::is_plain_literal(bytes) {
                    if self.mentions.len() >= MENTIONS {
                        self.mentions.clear();
                    }
                    if !self.mentions.contains_key(bytes) {
                        let e = adjoin_storage::raw::decode_expr(bytes).ok()?;
                        let mut names = Vec::new();
                        shape::names(&e, &mut names);
                        self.mentions.insert(bytes.into(), names);
                        // Kept, should the request be decoded.
                        self.decoded.push((place_of(bytes), e));
                    }
                    for &n in self.mentions.get(bytes).into_iter().flatten() {
                        if !bound.iter().any(|b| b.0 == n) {
                            bound.push((n, None));
                        }
                    }
                }
            }
            total = total.wrapping_add(shape::mix(h.finish()));
            i += 1;
        }
        bound.sort_unstable_by_key(|b| b.0);
        Some(total)
    }

    /// Finds the signature of shape `s` if it is still to be found, and clusters the shape by
    /// it: its first request keeps the cluster it was given.
    fn sign(&mut self, s: u32) {
        let Some(&Kind::Pending { rep, cluster }) = self.kinds.get(s as usize) else {
            return;
        };
        let Some((_, _, ad)) = self.shapes.get(s as usize) else {
            return;
        };
        let (roots, order_by) = (&self.roots, self.order_by.as_ref());
        let kind = match self
            .exact
            .signed(ad, Some(cluster), roots, order_by, &self.opts)
        {
            Some(c) => {
                // No shape signed before binds the roots as this one does (it would have
                // signed this one as it came), so none has its signature.
                debug_assert_eq!(c, cluster, "a shape signed late keeps its number");
                Kind::Shared(c)
            }
            None => Kind::Own { rep, cluster },
        };
        if let Some(k) = self.kinds.get_mut(s as usize) {
            *k = kind;
        }
    }

    /// The clusters of the requests placed, and their ads (or the ads standing in for them),
    /// in load order.
    pub fn finish(mut self) -> (Clusters, Vec<Arc<ClassAd>>) {
        // A request judged whole may share the cluster of a shape not yet signed, unless it
        // can have no signature.
        let whole: Vec<u64> = (self.ads.iter().zip(&self.of))
            .filter(|(r, s)| s.is_none() && !unsigned(r))
            .map(|(r, _)| roots_hash(r, &self.roots))
            .collect();
        for h in whole {
            if let Some(&Some(p)) = self.alike.get(&h) {
                self.sign(p);
            }
        }
        let (roots, order_by) = (&self.roots, self.order_by.as_ref());
        let of = self
            .ads
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let shape = self.of.get(i).copied().flatten();
                match shape.and_then(|s| self.kinds.get(s as usize)) {
                    Some(Kind::Shared(c)) => *c,
                    Some(Kind::Own { rep, cluster } | Kind::Pending { rep, cluster })
                        if *rep == i =>
                    {
                        *cluster
                    }
                    // The shape has no signature: each request a cluster of its own.
                    Some(Kind::Own { .. }) => self.exact.fresh(),
                    // Not shaped.
                    _ => self.exact.cluster(r, roots, order_by, &self.opts).0,
                }
            })
            .collect();
        let clusters = Clusters {
            of,
            lists: (0..self.exact.count).map(|_| None).collect(),
            last: Vec::new(),
        };
        (clusters, self.ads)
    }
}

/// How the requests of a shape are clustered.
#[derive(Clone, Copy, Debug)]
enum Kind {
    /// All in this cluster.
    Shared(usize),
    /// Each in a cluster of its own (no signature): `rep`'s is `cluster`.
    Own { rep: usize, cluster: usize },
    /// One request so far, `rep`, in `cluster`; its signature not yet found ([`Shapes::sign`]).
    Pending { rep: usize, cluster: usize },
}

/// The exact signatures seen and the clusters they were given.
#[derive(Debug, Default)]
struct Exact {
    /// By hash: the signatures seen, each with its cluster.
    ids: ByHash<Vec<(Signed, usize)>>,
    count: usize,
}

/// A signature seen: a request of it and its names (sorted by key); the request's own
/// expressions stand for the signature's.
type Signed = (Arc<ClassAd>, Vec<Key>);

impl Exact {
    /// The cluster of `r`: that of its signature, or a new one; and whether it has a
    /// signature (false: the cluster is its own).
    fn cluster(
        &mut self,
        r: &Arc<ClassAd>,
        roots: &Roots,
        order_by: Option<&Expr>,
        opts: &EvalOptions,
    ) -> (usize, bool) {
        match self.signed(r, None, roots, order_by, opts) {
            Some(c) => (c, true),
            None => (self.fresh(), false),
        }
    }

    /// A new cluster's number.
    fn fresh(&mut self) -> usize {
        self.count += 1;
        self.count - 1
    }

    /// The cluster of `r`'s signature: that of a signature seen, or else `given` (a number
    /// from [`Exact::fresh`]) or a new one; `None` when it has none (nothing numbered).
    fn signed(
        &mut self,
        r: &Arc<ClassAd>,
        given: Option<usize>,
        roots: &Roots,
        order_by: Option<&Expr>,
        opts: &EvalOptions,
    ) -> Option<usize> {
        let sig = signature(r, roots, order_by, opts)?;
        let h = bindings_hash(sig.iter().copied());
        let found = (self.ids.get(&h).into_iter().flatten())
            .find(|((rep, names), _)| shape::binds_alike(&sig, names, rep));
        if let Some(&(_, c)) = found {
            return Some(c);
        }
        let c = given.unwrap_or_else(|| self.fresh());
        let signed = (Arc::clone(r), sig.iter().map(|s| s.0).collect());
        self.ids.entry(h).or_default().push((signed, c));
        Some(c)
    }
}

/// Whether `r` has no signature whatever it binds: ports, and a keep fraction (applied to
/// the list as made for one request), make a request a cluster of its own.
fn unsigned(r: &ClassAd) -> bool {
    r.get("Ports").is_some() || r.get("PreferenceKeep").is_some()
}

/// The hash of what `r` binds to each root: requests of one signature bind every root alike
/// (the signature holds the roots), so they have one hash.
fn roots_hash(r: &ClassAd, roots: &Roots) -> u64 {
    bindings_hash(roots.keys.iter().map(|&k| (k, r.get_key(k))))
}

/// The hash of names, each with its expression or its absence.
fn bindings_hash<'a>(bindings: impl Iterator<Item = (Key, Option<&'a Expr>)>) -> u64 {
    let mut h = Fx::default();
    for (k, e) in bindings {
        h.write_u32(k.0);
        match e {
            Some(e) => {
                h.write_u8(1);
                shape::hash(e, &mut h);
            }
            None => h.write_u8(0),
        }
    }
    h.finish()
}

/// Adds the X of each `request.X` in `e` to `names`; false when `e` uses `request` otherwise.
fn dock_reads(e: &Expr, names: &mut BTreeSet<Key>) -> bool {
    match e {
        Expr::Select(base, name) => match base.unparen() {
            Expr::Attr(side) if side.as_str().eq_ignore_ascii_case("request") => {
                names.insert(name.key());
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
        Expr::Call(_, xs) | Expr::List(xs) | Expr::Chain(_, xs) => {
            xs.iter().all(|x| dock_reads(x, names))
        }
    }
}

/// The expression (or absence) of each attribute of `r` that `roots`, `order_by` and its
/// preferences' values lead to, sorted by key; `None` when one of them reads in ways the
/// analysis cannot follow (or nests past its depth), or `r` is [`unsigned`].
fn signature<'a>(
    r: &'a ClassAd,
    roots: &Roots,
    order_by: Option<&Expr>,
    opts: &EvalOptions,
) -> Option<Vec<(Key, Option<&'a Expr>)>> {
    if unsigned(r) {
        return None;
    }
    // What the preferences' values read of the request, as expressions of it.
    let prefs = crate::prefer::Preferences::from_ad(r, "", opts)
        .ok()
        .flatten();
    let values = prefs.iter().flat_map(|p| p.vars.iter().map(|v| &v.value));
    let mut keys = internal_keys(r, &roots.keys, order_by.into_iter().chain(values), opts)?;
    // Every root, bound or not: requests of one signature bind the roots alike, which
    // `Shapes` relies on ([`roots_hash`]).
    keys.extend_from_slice(&roots.keys);
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter()
        .map(|k| match r.get_key(k) {
            Some(e) if dynamic(e) => None,
            e => Some((k, e)),
        })
        .collect()
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
        let mut w = adjoin_workload::Workload::new(5).expect("workload");
        let offers: Vec<Arc<ClassAd>> = (0..20).map(|n| Arc::new(w.slot_ad(n))).collect();
        let t = adjoin_workload::templates::JobTemplates::new(w.rng(), 40).expect("templates");
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
        let mut shapes = Shapes::new(&roots, None, &opts);
        for run in requests.chunks(777) {
            shapes.add(run.to_vec());
        }
        assert_eq!(shapes.len(), requests.len());
        let (chunked, kept) = shapes.finish();
        assert_eq!(chunked.of, fast);
        // Each request's ad, or that of an earlier request of its cluster standing in for it.
        assert_eq!(kept.len(), requests.len());
        let position: HashMap<*const ClassAd, usize> = requests
            .iter()
            .enumerate()
            .map(|(i, r)| (Arc::as_ptr(r), i))
            .collect();
        for (i, k) in kept.iter().enumerate() {
            let j = position[&Arc::as_ptr(k)];
            assert!(
                j <= i && chunked.of[j] == chunked.of[i],
                "request {i} by {j}"
            );
        }
        let distinct: std::collections::HashSet<*const ClassAd> =
            kept.iter().map(Arc::as_ptr).collect();
        assert!(
            distinct.len() < requests.len() / 10,
            "{} ads kept",
            distinct.len()
        );
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
        let names = roots(&ads(&offers), &[], &opts).expect("roots").keys;
        for n in [
            "mem",
            "owner",
            "size",
            "requirements",
            "rank",
            "requestcount",
        ] {
            assert!(names.contains(&Key::of(n)), "{n} in {names:?}");
        }
    }

    #[test]
    fn a_keep_fraction_is_a_cluster_of_its_own() {
        // Alike in everything else: without `PreferenceKeep` among the roots, the shapes made
        // the last two share the first's cluster (and its whole list).
        let offers = ["[Memory = 2; Requirements = TARGET.Mem < Memory]"];
        let requests = [
            "[Mem = 1]",
            "[Mem = 1; PreferenceKeep = 0.4]",
            "[Mem = 1; PreferenceKeep = 0.4]",
            "[Mem = 1]",
        ];
        let (fast, slow) = both(&offers, &requests);
        assert_eq!(fast, slow);
        assert_eq!(canonical(&fast), [0, 1, 2, 0]);
    }

    /// A request from choices of what shapes and signatures turn on: a root whose values
    /// are equal but written differently (`Mem = 1`, `Mem = 1.0`, which `same` tells apart),
    /// a root (`Owner`), a name only mentioned (`Memory`, read of the other side), a name the
    /// analysis cannot follow (`Q`), a keep fraction, ports.
    fn drawn(c: &[u8]) -> String {
        let mem = ["Mem = 1", "Mem = 1.0", "Mem = 2"][usize::from(c[0] % 3)];
        let owner = ["", "Owner = \"a\"", "Owner = \"b\""][usize::from(c[1] % 3)];
        let memory = ["", "Memory = 5", "Memory = 6"][usize::from(c[2] % 3)];
        let rank =
            ["", "Rank = Q; Q = random()", "Rank = Mem", "Q = random()"][usize::from(c[3] % 4)];
        let keep = ["", "PreferenceKeep = 0.5"][usize::from(c[4] % 2)];
        let ports = ["", "Ports = {[A = 1]}"][usize::from(c[5].is_multiple_of(5))];
        let parts = [
            mem,
            owner,
            memory,
            rank,
            keep,
            ports,
            "Requirements = TARGET.Memory >= Mem",
        ];
        let body: Vec<&str> = parts.into_iter().filter(|p| !p.is_empty()).collect();
        format!("[{}]", body.join("; "))
    }

    /// The clusters of `requests` as [`Shapes`] makes them, those marked whole placed as if
    /// they could not be shaped.
    fn shaped(
        requests: &[(Arc<ClassAd>, bool)],
        roots: &Roots,
        order_by: Option<&Expr>,
    ) -> Clusters {
        let mut shapes = Shapes::new(roots, order_by, &EvalOptions::default());
        for (r, whole) in requests {
            shapes.add_one(Arc::clone(r), *whole);
        }
        shapes.finish().0
    }

    /// A request that cannot be shaped (judged whole at the end) still joins the cluster of
    /// a shape whose signature was not yet found.
    #[test]
    fn a_request_judged_whole_joins_a_shape_not_yet_signed() {
        let offers = ads(&["[Memory = 2; Requirements = TARGET.Mem <= Memory]"]);
        let roots = roots(&offers, &[], &EvalOptions::default()).expect("roots");
        let same = ads(&["[Mem = 1; Requirements = TARGET.Memory >= Mem]"; 2]);
        let requests: Vec<(Arc<ClassAd>, bool)> = same.into_iter().zip([false, true]).collect();
        let clusters = shaped(&requests, &roots, None);
        assert_eq!(clusters.of, [0, 0]);
        assert_eq!(clusters.len(), 1);
    }

    proptest::proptest! {
        /// Shapes whose signatures are found only where a cluster may be shared partition the
        /// requests as their signatures alone do, every cluster number used: with requests
        /// judged whole among them, and with an order that reads the requests (or one the
        /// analysis cannot follow, so that no request stands in for another).
        #[test]
        fn lazy_signatures_cluster_as_signatures_alone(
            drawn_requests in proptest::collection::vec(
                proptest::collection::vec(0u8..12, 7),
                1..40,
            ),
            order in 0usize..4,
        ) {
            let requests: Vec<(Arc<ClassAd>, bool)> = drawn_requests
                .iter()
                .map(|c| {
                    let ad = parse::classad(&drawn(c)).expect("ad");
                    (Arc::new(ad), c[6].is_multiple_of(4))
                })
                .collect();
            let offers = ads(&[
                "[Memory = 2; Requirements = TARGET.Mem <= Memory; Rank = TARGET.Owner == \"a\"]",
            ]);
            let opts = EvalOptions::default();
            let roots = roots(&offers, &[], &opts).expect("roots");
            let order_by = [None, Some("Memory"), Some("Q"), Some("random()")][order]
                .map(|o| parse::expr(o).expect("order"));
            let fast = shaped(&requests, &roots, order_by.as_ref());
            let mut exact = Exact::default();
            let slow: Vec<usize> = requests
                .iter()
                .map(|(r, _)| exact.cluster(r, &roots, order_by.as_ref(), &opts).0)
                .collect();
            proptest::prop_assert_eq!(canonical(&fast.of), canonical(&slow));
            proptest::prop_assert_eq!(fast.len(), exact.count);
        }
    }

    #[test]
    fn roots_found_a_run_at_a_time_are_those_of_all_at_once() {
        let offers = ads(&[
            "[Memory = 1; Requirements = TARGET.Mem <= Memory]",
            "[Memory = 2; Requirements = TARGET.Mem <= Memory]",
            "[Requirements = TARGET.Owner == \"a\"; Rank = TARGET.Prio]",
            "[Owners = {\"a\", \"b\"}; Requirements = member(TARGET.Owner, Owners)]",
            "[Owners = {\"c\"}; Requirements = member(TARGET.Owner, Owners)]",
            "[Requirements = TARGET.Group =!= undefined]",
            "[Requirements = eval(TARGET.Expr)]",
        ]);
        let opts = EvalOptions::default();
        let dock = [parse::expr("request.Weight").expect("dock")];
        for upto in [offers.len() - 1, offers.len()] {
            let all = roots(&offers[..upto], &dock, &opts).map(|r| r.keys);
            for run in 1..=upto {
                let mut finder = RootsFinder::default();
                for part in offers[..upto].chunks(run) {
                    finder.add(part, &opts);
                }
                assert_eq!(finder.finish(&dock).map(|r| r.keys), all, "{upto} by {run}");
            }
            assert_eq!(all.is_some(), upto < offers.len());
        }
        // Without the offer the analysis cannot follow: the names the offers and the dock read.
        let keys = roots(&offers[..6], &dock, &opts).expect("roots").keys;
        for n in [
            "mem",
            "owner",
            "prio",
            "group",
            "weight",
            "requirements",
            "rank",
        ] {
            assert!(keys.contains(&Key::of(n)), "{n} in {keys:?}");
        }
        assert!(!keys.contains(&Key::of("memory")), "{keys:?}");
        // With it first, whatever comes after: none.
        for run in 1..offers.len() {
            let mut finder = RootsFinder::default();
            finder.add(&offers[6..], &opts);
            for part in offers[..6].chunks(run) {
                finder.add(part, &opts);
            }
            assert!(finder.finish(&dock).is_none(), "by {run}");
        }
    }

    #[test]
    fn offers_alike_but_for_what_reads_nothing_read_the_same() {
        // The first two differ only in a list of literals: one analysis serves both. A list,
        // a unary operator or a nested ad holding a reference is analysed on its own.
        let offers = [
            "[Owners = {\"a\", \"b\"}; Requirements = member(TARGET.Owner, Owners)]",
            "[Owners = {\"c\"}; Requirements = member(TARGET.Owner, Owners)]",
            "[Owners = {TARGET.Group}; Requirements = member(TARGET.Owner, Owners)]",
            "[Owners = -TARGET.Cpus; Requirements = member(TARGET.Owner, Owners)]",
            "[Owners = {[a = TARGET.Site]}; Requirements = member(TARGET.Owner, Owners)]",
        ];
        let opts = EvalOptions::default();
        let names = roots(&ads(&offers), &[], &opts).expect("roots").keys;
        for n in ["owner", "group", "cpus"] {
            assert!(names.contains(&Key::of(n)), "{n} in {names:?}");
        }
        // As many names as each offer analysed alone gives.
        let alone: BTreeSet<Key> = ads(&offers)
            .iter()
            .flat_map(|o| {
                roots(std::slice::from_ref(o), &[], &opts)
                    .expect("roots")
                    .keys
            })
            .collect();
        assert_eq!(names, alone.into_iter().collect::<Vec<_>>());
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
