//! Offers alike in their own Requirements: the same expression, and the same literal (or no)
//! binding of every name it mentions. Such offers accept or refuse a given request alike when
//! the request binds those names to literals or not at all (nothing else is read: the
//! expression's references are complete, its functions pure), so confirming a request's
//! candidates evaluates an offer's side once per class, not once per offer: a request refused
//! by `member(TARGET.Owner, AllowedOwners) || TARGET.Prio > 5` of one pair of owners is refused
//! by every offer with that pair without another evaluation.
//!
//! What a class says of a request depends on nothing but how the request binds the names the
//! class's Requirements mentions, so it is also remembered across requests: requests binding
//! them alike (the same `Owner` and `Prio`, say) are judged by one evaluation per class for the
//! whole cycle. A request's bindings of one list of names are found once per request
//! ([`Judged`]: a number per distinct tuple of bindings), whatever the classes reading them.

use super::columns::{Binding, Columns, Kind};
use super::residual::{literal, pure_calls};
use super::shape::{binds_alike, Bindings, ByHash, Fx};
use adjoin_index::AdId;
use adjoin_query::eval::{one_side_match, requirements_key, EvalOptions};
use adjoin_query::name::kw;
use adjoin_query::refs::complete;
use adjoin_query::structural::{hash, hash_names, same};
use adjoin_query::{ClassAd, Key};
use rustc_hash::FxHashMap;
use std::hash::Hasher;
use std::sync::Arc;

/// One class: a representative offer and the names its Requirements mentions.
#[derive(Debug)]
struct Class {
    offer: Arc<ClassAd>,
    /// The names, as their number among the distinct lists of names.
    list: u32,
    /// The ids of the offers' bindings of the names.
    ids: Vec<u32>,
}

/// A request binding a list of names so, and the number of that tuple of bindings.
type Tuple = (Arc<ClassAd>, u32);

/// What one request has been found to be, for the classes met among its candidates.
#[derive(Debug, Default)]
pub struct Judged {
    /// By class: whether it refuses the request.
    classes: FxHashMap<u32, bool>,
    /// By list of names: the number of the request's tuple of bindings of them (`None`: some
    /// binding is not a literal, so no class reading them tells).
    tuples: FxHashMap<u32, Option<u32>>,
}

/// The offers of a cycle classed by their Requirements.
#[derive(Debug, Default)]
pub struct OfferClasses {
    /// By offer position: its class (`None`: evaluated one by one).
    of: Vec<Option<u32>>,
    classes: Vec<Class>,
    /// The distinct lists of names the classes' Requirements mention.
    lists: Vec<Vec<Key>>,
    /// By list of names: the requests' distinct tuples of bindings of them, by hash: a request
    /// binding them so, and the tuple's number.
    tuples: Vec<ByHash<Vec<Tuple>>>,
    /// Tuples numbered so far (all lists).
    tuple_count: u32,
    /// What each class said of requests, by class and tuple number: whether it refuses them.
    judged: FxHashMap<(u32, u32), bool>,
    /// Offers' sides evaluated.
    evaluations: u64,
}

impl OfferClasses {
    /// The classes of `offers` (positions are ids), their bindings read from `columns`.
    pub(super) fn new(offers: &[Arc<ClassAd>], columns: &Columns) -> OfferClasses {
        let with_ports = columns.ports(offers);
        let mut bindings: FxHashMap<Key, Arc<Binding>> = FxHashMap::default();
        let mut by_hash: ByHash<Vec<u32>> = ByHash::default();
        let mut out = OfferClasses::default();
        for (o, offer) in offers.iter().enumerate() {
            let class = (|| {
                let e = offer.get_key(requirements_key(offer)?)?;
                if with_ports.contains(o as u32) || !complete(e) || !pure_calls(e) {
                    return None;
                }
                let (mut h, mut names) = (Fx::default(), Vec::new());
                hash_names(e, &mut h, &mut names);
                names.sort_unstable_by_key(|k| k.0);
                names.dedup();
                if names.contains(&kw::CURRENT_TIME) {
                    return None;
                }
                // Names first met here are made together.
                columns.fill(&mut bindings, names.iter().copied(), offers);
                let mut ids = Vec::with_capacity(names.len());
                for &k in &names {
                    let b = bindings.get(&k)?;
                    let id = *b.ids.get(o)?;
                    if b.kinds.get(id as usize) != Some(&Kind::Literal) {
                        return None;
                    }
                    h.write_u32(id);
                    ids.push(id);
                }
                let same_hash = by_hash.entry(h.finish()).or_default();
                let lists = &out.lists;
                let found = same_hash.iter().copied().find(|&c| {
                    out.classes.get(c as usize).is_some_and(|c| {
                        c.ids == ids
                            && lists.get(c.list as usize) == Some(&names)
                            && requirements_key(&c.offer)
                                .and_then(|k| c.offer.get_key(k))
                                .is_some_and(|x| same(x, e))
                    })
                });
                Some(found.unwrap_or_else(|| {
                    let c = out.classes.len() as u32;
                    let list = match out.lists.iter().position(|l| *l == names) {
                        Some(l) => l as u32,
                        None => {
                            out.lists.push(names);
                            out.tuples.push(ByHash::default());
                            out.lists.len() as u32 - 1
                        }
                    };
                    out.classes.push(Class {
                        offer: Arc::clone(offer),
                        list,
                        ids,
                    });
                    same_hash.push(c);
                    c
                }))
            })();
            out.of.push(class);
        }
        out
    }

    /// Whether offer `o` refuses `request` (its Requirements not true with the request as
    /// TARGET), when its class tells: evaluated once per class for requests binding every name
    /// the class's Requirements mentions alike, to a literal or not at all (remembered for one
    /// request in `judged`, for the cycle in the classes).
    pub fn refuses(
        &mut self,
        o: AdId,
        request: &Arc<ClassAd>,
        judged: &mut Judged,
        opts: &EvalOptions,
    ) -> Option<bool> {
        let c = (*self.of.get(o as usize)?)?;
        if let Some(&r) = judged.classes.get(&c) {
            return Some(r);
        }
        let list = self.classes.get(c as usize)?.list;
        let tuple = match judged.tuples.get(&list) {
            Some(&t) => t,
            None => {
                let t = self.tuple(list, request);
                judged.tuples.insert(list, t);
                t
            }
        }?;
        let r = match self.judged.get(&(c, tuple)) {
            Some(&r) => r,
            None => {
                self.evaluations += 1;
                let offer = &self.classes.get(c as usize)?.offer;
                let r = !one_side_match(offer, request, opts);
                self.judged.insert((c, tuple), r);
                r
            }
        };
        judged.classes.insert(c, r);
        Some(r)
    }

    /// The number of `request`'s tuple of bindings of list of names `list` (`None`: some
    /// binding is not a literal).
    fn tuple(&mut self, list: u32, request: &Arc<ClassAd>) -> Option<u32> {
        let names = self.lists.get(list as usize)?;
        let bound: Bindings<'_> = names.iter().map(|&k| (k, request.get_key(k))).collect();
        let mut h = Fx::default();
        for &(_, e) in &bound {
            match e {
                None => h.write_u8(0),
                Some(e) if literal(e) => {
                    h.write_u8(1);
                    hash(e, &mut h);
                }
                Some(_) => return None,
            }
        }
        let same_hash = self
            .tuples
            .get_mut(list as usize)?
            .entry(h.finish())
            .or_default();
        if let Some(&(_, t)) = same_hash
            .iter()
            .find(|(other, _)| binds_alike(&bound, names, other))
        {
            return Some(t);
        }
        let t = self.tuple_count;
        self.tuple_count += 1;
        same_hash.push((Arc::clone(request), t));
        Some(t)
    }

    /// Offers' sides evaluated so far.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;
    use proptest::prelude::*;

    /// Offers' Requirements of many kinds: reading their own literals (`AllowedOwners`,
    /// `Memory`), their own expressions (`Twice`, not classed), the clock (not classed), the
    /// request's attributes, absent ones, `Requirements` itself.
    const REQUIREMENTS: [&str; 10] = [
        "member(TARGET.Owner, AllowedOwners) || TARGET.Prio > 5",
        "TARGET.RequestMemory <= Memory",
        "TARGET.Owner != \"bob\"",
        "TARGET.RequestMemory <= Twice",
        "time() > 0 && TARGET.Prio > 2",
        "Missing =?= undefined && TARGET.Prio < 7",
        "Prio > 3",
        "regexp(\"^a\", TARGET.Owner)",
        "TARGET.Prio * 100 < Memory",
        "isUndefined(Rank) || Rank > TARGET.Prio",
    ];

    fn offer(i: usize, req: usize, memory: i64, owners: (usize, usize)) -> Arc<ClassAd> {
        let names = ["alice", "bob", "carol"];
        Arc::new(
            parse::classad(&format!(
                "[Name = \"o{i}\"; Memory = {memory}; Twice = Memory * 2; \
                 AllowedOwners = {{\"{}\", \"{}\"}}; Rank = {}; Requirements = {}]",
                names[owners.0 % 3],
                names[owners.1 % 3],
                memory % 7,
                REQUIREMENTS[req % REQUIREMENTS.len()]
            ))
            .expect("offer"),
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]

        /// What a class says of an offer is what evaluating that offer's side says.
        #[test]
        fn classes_refuse_as_evaluation_does(
            offers in prop::collection::vec((0usize..10, 0i64..4, 0usize..3, 0usize..3), 1..40),
            requests in prop::collection::vec(
                (0usize..3, prop_oneof![Just("1"), Just("6"), Just("TARGET.Memory")], 0i64..3),
                1..8,
            ),
        ) {
            let offers: Vec<Arc<ClassAd>> = offers
                .iter()
                .enumerate()
                .map(|(i, &(r, m, a, b))| offer(i, r, 512 * (m + 1), (a, b)))
                .collect();
            let mut classes = OfferClasses::new(&offers, &Columns::default());
            let opts = EvalOptions::default();
            for (owner, prio, mem) in &requests {
                let req = Arc::new(parse::classad(&format!(
                    "[Owner = \"{}\"; Prio = {prio}; RequestMemory = {}]",
                    ["alice", "bob", "carol"][*owner],
                    1024 * mem
                ))
                .expect("request"));
                let mut judged = Judged::default();
                for (o, offer) in (0..).zip(&offers) {
                    if let Some(r) = classes.refuses(o, &req, &mut judged, &opts) {
                        prop_assert_eq!(r, !one_side_match(offer, &req, &opts), "{}", offer);
                    }
                }
            }
        }
    }

    #[test]
    fn what_is_classed() {
        let offers: Vec<Arc<ClassAd>> = (0..REQUIREMENTS.len())
            .flat_map(|r| (0..3).map(move |i| offer(i, r, 1024, (i, 0))))
            .collect();
        let classes = OfferClasses::new(&offers, &Columns::default());
        let classed: Vec<bool> = (0..REQUIREMENTS.len())
            .map(|r| classes.of[r * 3].is_some())
            .collect();
        // `Twice` is an expression, `time()` reads the clock.
        assert_eq!(
            classed,
            [true, true, true, false, false, true, true, true, true, true]
        );
        // The owners differ within the first kind: three classes; `Memory` is the same: one.
        let distinct = |r: usize| {
            let mut cs: Vec<u32> = (0..3).filter_map(|i| classes.of[r * 3 + i]).collect();
            cs.dedup();
            cs.len()
        };
        assert_eq!((distinct(0), distinct(1)), (3, 1));
    }
}
