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
//!
//! A tuple whose requests are refused by many offers gets the set of those offers
//! ([`OfferClasses::drop_refused`]): a request binding the names so leaves them out of its
//! candidates before its list is read, instead of meeting them one by one. Late in a cycle the
//! best offers left for a request are mostly ones that refuse it: at 200,000 offers and as many
//! requests, lists met 14.6 million offers to confirm, 14.4 million of them refusing (3.1
//! million met with the sets). The set is made once its tuple has met as many refusals as
//! making it costs (an evaluation per class of the list, a bit per offer of the list, a word
//! per 64 ids up to its last offer), so a tuple met rarely never pays for it, and the sets'
//! memory stays within the work done. A request whose tuple was never met has no set: leaving
//! offers out numbers no tuple.

use super::columns::{Binding, Columns, Kind};
use super::per_request::PerRequest;
use super::residual::pure_calls;
use super::shape::{binds_alike, literal, Bindings, ByHash, Fx};
use adjoin_index::{AdId, Bits};
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

/// What evaluating a class's Requirements costs, in offers met refusing a request (passing
/// one over in a list: a lookup or two). The cycle tests make sets at once, to check them
/// often; the threshold itself is tested with this weight.
const EVALUATION: u64 = if cfg!(test) { 0 } else { 8 };

/// Offers put in a set for the cost of one met refusing a request.
const INSERTS: u64 = 16;

/// The classes reading one list of names, and their offers.
#[derive(Debug, Default)]
struct OfList {
    classes: Vec<u32>,
    /// How many offers they hold, and the greatest.
    offers: u64,
    last: AdId,
}

/// A request binding a list of names so, and the number of that tuple of bindings.
type Tuple = (Arc<ClassAd>, u32);

/// A request's tuple of bindings of a list of names: of literals (its number, if it has one),
/// or not.
enum Numbered {
    Literal(Option<u32>),
    NotLiteral,
}

/// What one request has been found to be, for the classes met among its candidates and the
/// lists of names whose refusal sets were asked for.
#[derive(Debug, Default)]
pub struct Judged {
    /// By class: whether it refuses the request, and the request's tuple of bindings of the
    /// class's names.
    classes: FxHashMap<u32, (bool, u32)>,
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
    /// By list of names: its classes and their offers.
    of_list: Vec<OfList>,
    /// By class: its offers, ascending.
    members: Vec<Vec<AdId>>,
    /// Offers met refusing a tuple (list, tuple number), until the tuple's set is made.
    refusals: FxHashMap<(u32, u32), u64>,
    /// By (list, tuple number): the offers of the list's classes refusing the tuple's
    /// requests, once made.
    refused: FxHashMap<(u32, u32), Bits>,
    /// The lists of names some tuple of which has its set made.
    with_sets: Vec<u32>,
    /// What met refusals count for: [`EVALUATION`], or the tests' own.
    weight: u64,
    /// Offers' sides evaluated.
    evaluations: u64,
    /// Requests' tuple numbers ([`OfferClasses::number`], once numbered or found not
    /// literal: `None`), by request and list.
    numbered: PerRequest<u32, Option<u32>>,
}

impl OfferClasses {
    /// The classes of `offers` (positions are ids), their bindings read from `columns`.
    pub(super) fn new(offers: &[Arc<ClassAd>], columns: &Columns) -> OfferClasses {
        let with_ports = columns.ports(offers);
        let mut bindings: FxHashMap<Key, Arc<Binding>> = FxHashMap::default();
        let mut by_hash: ByHash<Vec<u32>> = ByHash::default();
        let mut out = OfferClasses {
            weight: EVALUATION,
            ..OfferClasses::default()
        };
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
                            out.of_list.push(OfList::default());
                            out.lists.len() as u32 - 1
                        }
                    };
                    if let Some(l) = out.of_list.get_mut(list as usize) {
                        l.classes.push(c);
                    }
                    out.members.push(Vec::new());
                    out.classes.push(Class {
                        offer: Arc::clone(offer),
                        list,
                        ids,
                    });
                    same_hash.push(c);
                    c
                }))
            })();
            if let Some(c) = class {
                if let Some(members) = out.members.get_mut(c as usize) {
                    members.push(o as AdId);
                }
                let list = out.classes.get(c as usize).map(|c| c.list);
                if let Some(l) = list.and_then(|l| out.of_list.get_mut(l as usize)) {
                    (l.offers, l.last) = (l.offers + 1, o as AdId);
                }
            }
            out.of.push(class);
        }
        out
    }

    /// Whether offer `o` refuses `request` (its Requirements not true with the request as
    /// TARGET), when its class tells: evaluated once per class for requests binding every name
    /// the class's Requirements mentions alike, to a literal or not at all (remembered for one
    /// request in `judged`, for the cycle in the classes). A refusal counts toward its tuple's
    /// set, whose making evaluates the list's classes not judged yet.
    pub fn refuses(
        &mut self,
        o: AdId,
        request: &Arc<ClassAd>,
        judged: &mut Judged,
        opts: &EvalOptions,
    ) -> Option<bool> {
        let c = (*self.of.get(o as usize)?)?;
        let list = self.classes.get(c as usize)?.list;
        if let Some(&(r, tuple)) = judged.classes.get(&c) {
            if r {
                self.met_refusal(list, tuple, request, opts);
            }
            return Some(r);
        }
        let tuple = match judged.tuples.get(&list) {
            Some(&t) => t,
            None => {
                let t = self.tuple(list, request);
                judged.tuples.insert(list, t);
                t
            }
        }?;
        let r = self.judge(c, tuple, request, opts)?;
        judged.classes.insert(c, (r, tuple));
        if r {
            self.met_refusal(list, tuple, request, opts);
        }
        Some(r)
    }

    /// Whether class `c` refuses the requests of tuple `tuple` (`request` one of them):
    /// remembered, else evaluated.
    fn judge(&mut self, c: u32, tuple: u32, request: &ClassAd, opts: &EvalOptions) -> Option<bool> {
        if let Some(&r) = self.judged.get(&(c, tuple)) {
            return Some(r);
        }
        self.evaluations += 1;
        let offer = &self.classes.get(c as usize)?.offer;
        let r = !one_side_match(offer, request, opts);
        self.judged.insert((c, tuple), r);
        Some(r)
    }

    /// One more offer met refusing the requests of `tuple` of names `list` (`request` one
    /// of them): their set is made once the refusals met cost as much as making it.
    fn met_refusal(&mut self, list: u32, tuple: u32, request: &ClassAd, opts: &EvalOptions) {
        let Some(OfList {
            classes,
            offers,
            last,
        }) = self.of_list.get(list as usize)
        else {
            return;
        };
        if self.refused.contains_key(&(list, tuple)) {
            return;
        }
        let words = u64::from(*last) / 64 + 1;
        let cost = self.weight * classes.len() as u64 + offers / INSERTS + words;
        let met = self.refusals.entry((list, tuple)).or_insert(0);
        *met += 1;
        if *met < cost {
            return;
        }
        self.refusals.remove(&(list, tuple));
        let mut set = Bits::with_capacity(*last);
        for c in classes.clone() {
            if self.judge(c, tuple, request, opts) == Some(true) {
                for &o in self.members.get(c as usize).into_iter().flatten() {
                    set.insert(o);
                }
            }
        }
        self.refused.insert((list, tuple), set);
        if !self.with_sets.contains(&list) {
            self.with_sets.push(list);
        }
    }

    /// Leaves out of `candidates` the offers known to refuse `request` ([`OfferClasses`]:
    /// the sets made for its tuples of bindings). Numbers no new tuple: one not met has no set.
    pub fn drop_refused(
        &mut self,
        request: &Arc<ClassAd>,
        judged: &mut Judged,
        candidates: &mut Bits,
    ) {
        for at in 0..self.with_sets.len() {
            let Some(&list) = self.with_sets.get(at) else {
                break;
            };
            let tuple = match judged.tuples.get(&list) {
                Some(&t) => t,
                None => match self.number(list, request, false) {
                    Numbered::Literal(Some(t)) => {
                        judged.tuples.insert(list, Some(t));
                        Some(t)
                    }
                    Numbered::Literal(None) => None,
                    Numbered::NotLiteral => {
                        judged.tuples.insert(list, None);
                        None
                    }
                },
            };
            if let Some(set) = tuple.and_then(|t| self.refused.get(&(list, t))) {
                candidates.andnot_assign(set);
            }
        }
    }

    /// The number of `request`'s tuple of bindings of list of names `list` (`None`: some
    /// binding is not a literal), numbered now if new.
    fn tuple(&mut self, list: u32, request: &Arc<ClassAd>) -> Option<u32> {
        match self.number(list, request, true) {
            Numbered::Literal(t) => t,
            Numbered::NotLiteral => None,
        }
    }

    /// The number of `request`'s tuple of bindings of list of names `list`: found, or numbered
    /// now when `new` (else `None` when not met before).
    fn number(&mut self, list: u32, request: &Arc<ClassAd>, new: bool) -> Numbered {
        if let Some(t) = self.numbered.get(request, list) {
            return t.map_or(Numbered::NotLiteral, |t| Numbered::Literal(Some(t)));
        }
        let n = self.number_now(list, request, new);
        match n {
            Numbered::NotLiteral => self.numbered.insert(request, list, None),
            Numbered::Literal(Some(t)) => self.numbered.insert(request, list, Some(t)),
            // Not met yet: it may be numbered later.
            Numbered::Literal(None) => {}
        }
        n
    }

    /// [`OfferClasses::number`], found now.
    fn number_now(&mut self, list: u32, request: &Arc<ClassAd>, new: bool) -> Numbered {
        let Some(names) = self.lists.get(list as usize) else {
            return Numbered::NotLiteral;
        };
        let bound: Bindings<'_> = names.iter().map(|&k| (k, request.get_key(k))).collect();
        let mut h = Fx::default();
        for &(_, e) in &bound {
            match e {
                None => h.write_u8(0),
                Some(e) if literal(e) => {
                    h.write_u8(1);
                    hash(e, &mut h);
                }
                Some(_) => return Numbered::NotLiteral,
            }
        }
        let Some(by_hash) = self.tuples.get_mut(list as usize) else {
            return Numbered::NotLiteral;
        };
        let found = |same_hash: &Vec<Tuple>| {
            same_hash
                .iter()
                .find(|(other, _)| binds_alike(&bound, names, other))
                .map(|&(_, t)| t)
        };
        if !new {
            return Numbered::Literal(by_hash.get(&h.finish()).and_then(found));
        }
        let same_hash = by_hash.entry(h.finish()).or_default();
        if let Some(t) = found(same_hash) {
            return Numbered::Literal(Some(t));
        }
        let t = self.tuple_count;
        self.tuple_count += 1;
        same_hash.push((Arc::clone(request), t));
        Numbered::Literal(Some(t))
    }

    /// Offers' sides evaluated so far.
    pub fn evaluations(&self) -> u64 {
        self.evaluations
    }

    /// The requests' tuples of bindings numbered so far.
    pub fn tuple_count(&self) -> usize {
        self.tuple_count as usize
    }

    /// Starts another cycle over the same offers: evaluations counted from zero, the
    /// requests' tuple numbers found so far kept only as long as it uses them.
    pub fn next_cycle(&mut self) {
        self.evaluations = 0;
        self.numbered.next_cycle();
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
            // Thrice over: tuples met again, their sets of refusing offers made.
            for (owner, prio, mem) in requests.iter().cycle().take(3 * requests.len()) {
                let req = Arc::new(parse::classad(&format!(
                    "[Owner = \"{}\"; Prio = {prio}; RequestMemory = {}]",
                    ["alice", "bob", "carol"][*owner],
                    1024 * mem
                ))
                .expect("request"));
                let mut judged = Judged::default();
                // What is dropped refuses the request.
                let all = Bits::from_rids(0..offers.len() as u32);
                let mut kept = all.clone();
                classes.drop_refused(&req, &mut judged, &mut kept);
                let mut dropped = all;
                dropped.andnot_assign(&kept);
                for o in dropped.iter() {
                    let offer = &offers[o as usize];
                    prop_assert!(!one_side_match(offer, &req, &opts), "{} dropped", offer);
                }
                for (o, offer) in (0..).zip(&offers) {
                    if let Some(r) = classes.refuses(o, &req, &mut judged, &opts) {
                        prop_assert_eq!(r, !one_side_match(offer, &req, &opts), "{}", offer);
                    }
                }
            }
        }
    }

    /// Requests of one tuple refused by many offers: once the refusals met cost as much as
    /// the set, and not before, a request of the tuple has exactly the offers refusing it
    /// dropped (the classed ones: here all) before any is met; other tuples' requests have
    /// none dropped.
    #[test]
    fn refusing_offers_are_dropped_once_met_often() {
        let offers: Vec<Arc<ClassAd>> = (0..60)
            .map(|i| offer(i, 0, 1024, (i % 3, (i / 3) % 3)))
            .collect();
        let mut classes = OfferClasses::new(&offers, &Columns::default());
        let opts = EvalOptions::default();
        let request = |owner: &str, prio: i64| {
            Arc::new(
                parse::classad(&format!("[Owner = \"{owner}\"; Prio = {prio}]")).expect("request"),
            )
        };
        let drop_for = |classes: &mut OfferClasses, req: &Arc<ClassAd>| {
            let all = Bits::from_rids(0..offers.len() as u32);
            let mut kept = all.clone();
            classes.drop_refused(req, &mut Judged::default(), &mut kept);
            let mut dropped = all;
            dropped.andnot_assign(&kept);
            dropped.iter().collect::<Vec<_>>()
        };
        let alice = request("alice", 1);
        let refusing: Vec<u32> = (0..)
            .zip(&offers)
            .filter(|(_, o)| !one_side_match(o, &alice, &opts))
            .map(|(i, _)| i)
            .collect();
        assert!(!refusing.is_empty() && refusing.len() < offers.len());
        // Nothing is known before refusals are met; then, one request at a time, they add up
        // to the set's cost (with the cycle's weight): an evaluation per class, an offer in
        // the set per 16, a word per 64 ids.
        classes.weight = 8;
        let cost = 8 * 9 + 60 / 16 + 1;
        assert_eq!(
            classes.of_list.first().map(|l| (l.classes.len(), l.offers)),
            Some((9, 60))
        );
        let (mut met, mut requests) = (0, 0);
        'requests: loop {
            let mut judged = Judged::default();
            for o in 0..offers.len() as u32 {
                assert_eq!(
                    drop_for(&mut classes, &alice).is_empty(),
                    met < cost,
                    "{met}"
                );
                if classes.refuses(o, &alice, &mut judged, &opts) == Some(true) {
                    met += 1;
                }
                if met == cost {
                    break 'requests;
                }
            }
            requests += 1;
        }
        assert!(requests >= 2, "met over several requests");
        // Another request binding `Owner` and `Prio` alike: the same set, exactly.
        assert_eq!(drop_for(&mut classes, &request("alice", 1)), refusing);
        // Requests binding them otherwise: nothing known yet.
        assert!(drop_for(&mut classes, &request("alice", 9)).is_empty());
        assert!(drop_for(&mut classes, &request("bob", 1)).is_empty());
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
