//! The offers' bindings of names, column by column ([`Binding`]: an id per distinct
//! expression), each made once per cycle and shared by whoever reads it: the residual
//! conjuncts (`residual.rs`), the offers' own classes (`offer_classes.rs`) and the
//! remembered request ranks (`ranks.rs`).
//!
//! Looking a name up in every offer costs a cache miss or two per offer (at 20,000
//! heterogeneous offers, each of the three made its own bindings, and a tenth of the cycle
//! went there), so names asked for together are made in one pass: each offer's names are
//! looked up while its attributes are at hand. A binding's ids are numbered in the order of
//! the offers, the same for the same expression.

use super::residual::target_reads;
use super::shape::{literal, ByHash, Fx};
use adjoin_index::Bits;
use adjoin_query::structural::{hash, same};
use adjoin_query::{ClassAd, Expr, Key};
use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use std::hash::Hasher;
use std::sync::{Arc, OnceLock};

/// How offers bind one name.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    /// Not at all (id 0), or to a literal.
    Literal,
    /// To an expression reading only the other ad's attributes (the request's).
    Requesting,
    /// To anything else, or the offer has ports: not read here.
    Opaque,
}

/// Every offer's binding of one name, as an id per distinct expression (0: absent; 1: any
/// offer with ports).
#[derive(Debug, Default)]
pub(super) struct Binding {
    /// By offer position.
    pub(super) ids: Vec<u32>,
    /// By id: its kind.
    pub(super) kinds: Vec<Kind>,
    /// The ids of kind [`Kind::Requesting`], each with the request's names it reads and
    /// the offers binding it so.
    pub(super) requesting: Vec<(Vec<Key>, Bits)>,
    /// Requesting ids: their place in `requesting`.
    place: FxHashMap<u32, usize>,
}

/// Id of a name's binding in an offer without it.
const ABSENT: u32 = 0;
/// Id of a name's binding in an offer with ports (whatever it binds).
pub(super) const PORTED: u32 = 1;

impl Binding {
    /// A binding that no offer has made yet.
    fn new(offers: usize) -> Binding {
        Binding {
            ids: Vec::with_capacity(offers),
            kinds: vec![Kind::Literal, Kind::Opaque],
            requesting: Vec::new(),
            place: FxHashMap::default(),
        }
    }

    /// What requesting binding `id` reads of the request.
    pub(super) fn requesting_reads(&self, id: u32) -> Option<&[Key]> {
        let i = *self.place.get(&id)?;
        self.requesting.get(i).map(|r| r.0.as_slice())
    }
}

/// One name's binding being made, offer by offer.
struct Making<'a> {
    b: Binding,
    /// The distinct expressions so far, by structural hash, with their ids.
    seen: ByHash<Vec<(u32, &'a Expr)>>,
}

impl<'a> Making<'a> {
    /// Offer `o` binds the name to `e` (`ported`: it has ports); offers before it that
    /// were not pushed do not bind it.
    fn push(&mut self, o: u32, e: &'a Expr, offer: &ClassAd, ported: bool) {
        let b = &mut self.b;
        b.ids.resize(o as usize, ABSENT);
        let id = if ported {
            PORTED
        } else {
            let mut h = Fx::default();
            hash(e, &mut h);
            let same_hash = self.seen.entry(h.finish()).or_default();
            match same_hash.iter().find(|(_, x)| same(x, e)) {
                Some(&(id, _)) => id,
                None => {
                    let id = b.kinds.len() as u32;
                    let mut reads = Vec::new();
                    let kind = if literal(e) {
                        Kind::Literal
                    } else if target_reads(e, offer, &mut reads) {
                        Kind::Requesting
                    } else {
                        Kind::Opaque
                    };
                    if kind == Kind::Requesting {
                        b.place.insert(id, b.requesting.len());
                        b.requesting.push((reads, Bits::new()));
                    }
                    b.kinds.push(kind);
                    same_hash.push((id, e));
                    id
                }
            }
        };
        if let Some((_, those)) = b.place.get(&id).and_then(|&i| b.requesting.get_mut(i)) {
            those.insert(o);
        }
        b.ids.push(id);
    }

    /// The binding over `n` offers, those with `ports` [`PORTED`].
    fn finish(mut self, n: usize, ports: &Bits) -> Binding {
        self.b.ids.resize(n, ABSENT);
        mark_ported(&mut self.b, ports);
        self.b
    }
}

/// Gives the offers with `ports` the id [`PORTED`].
fn mark_ported(b: &mut Binding, ports: &Bits) {
    for o in ports.iter() {
        if let Some(id) = b.ids.get_mut(o as usize) {
            *id = PORTED;
        }
    }
}

/// The offers among `offers` (by position) that have ports.
fn with_ports(offers: &[Arc<ClassAd>]) -> Bits {
    let ports = Key::of("Ports");
    let mut out = Bits::new();
    for (o, offer) in (0u32..).zip(offers) {
        if offer.get_key(ports).is_some() {
            out.insert(o);
        }
    }
    out
}

/// Every offer's binding of the names asked for, each made once (for one list of offers:
/// every call must pass the same). Names asked for together are made in one pass over the
/// offers, each offer's names looked up while its attributes are at hand.
#[derive(Debug, Default)]
pub struct Columns {
    ports: OnceLock<Bits>,
    by_key: Mutex<FxHashMap<Key, Arc<Binding>>>,
}

impl Columns {
    /// Every offer's binding of each of `keys`, in order. The bindings missing are made
    /// outside the lock (another thread asking meanwhile may make them too; the first kept).
    pub(super) fn of_all(&self, keys: &[Key], offers: &[Arc<ClassAd>]) -> Vec<Arc<Binding>> {
        let mut missing: Vec<Key> = {
            let by_key = self.by_key.lock();
            keys.iter()
                .copied()
                .filter(|k| !by_key.contains_key(k))
                .collect()
        };
        missing.sort_unstable();
        missing.dedup();
        let made = (!missing.is_empty()).then(|| self.make(&missing, offers));
        let mut by_key = self.by_key.lock();
        for (k, b) in missing.into_iter().zip(made.into_iter().flatten()) {
            by_key.entry(k).or_insert(b);
        }
        keys.iter()
            .map(|k| by_key.get(k).cloned().unwrap_or_default())
            .collect()
    }

    /// Adds to `held` every offer's binding of each of `keys` it does not hold yet.
    pub(super) fn fill(
        &self,
        held: &mut FxHashMap<Key, Arc<Binding>>,
        keys: impl IntoIterator<Item = Key>,
        offers: &[Arc<ClassAd>],
    ) {
        let missing: Vec<Key> = keys.into_iter().filter(|k| !held.contains_key(k)).collect();
        if !missing.is_empty() {
            let made = self.of_all(&missing, offers);
            held.extend(missing.into_iter().zip(made));
        }
    }

    /// The bindings of `keys` (distinct), made in one pass over the offers: each offer's
    /// names looked up while its attributes are at hand.
    fn make(&self, keys: &[Key], offers: &[Arc<ClassAd>]) -> Vec<Arc<Binding>> {
        let _span = tracing::debug_span!("columns", names = keys.len()).entered();
        let ports = self.ports(offers);
        let mut making: Vec<Making<'_>> = keys
            .iter()
            .map(|_| Making {
                b: Binding::new(offers.len()),
                seen: ByHash::default(),
            })
            .collect();
        for (o, offer) in (0u32..).zip(offers) {
            let ported = ports.contains(o);
            for (&k, m) in keys.iter().zip(&mut making) {
                if let Some(e) = offer.get_key(k) {
                    m.push(o, e, offer, ported);
                }
            }
        }
        making
            .into_iter()
            .map(|m| Arc::new(m.finish(offers.len(), ports)))
            .collect()
    }

    /// The offers with ports.
    pub(super) fn ports(&self, offers: &[Arc<ClassAd>]) -> &Bits {
        self.ports.get_or_init(|| with_ports(offers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    /// The ids of `k`'s bindings as defined, found naively: 0 absent, 1 an offer with ports,
    /// otherwise numbered from 2 in the order the distinct expressions first appear.
    fn oracle(k: Key, offers: &[Arc<ClassAd>]) -> Vec<u32> {
        let mut distinct: Vec<&Expr> = Vec::new();
        offers
            .iter()
            .map(|o| match (o.get("Ports"), o.get_key(k)) {
                (Some(_), _) => 1,
                (None, None) => 0,
                (None, Some(e)) => {
                    let at = match distinct.iter().position(|x| same(x, e)) {
                        Some(at) => at,
                        None => {
                            distinct.push(e);
                            distinct.len() - 1
                        }
                    };
                    at as u32 + 2
                }
            })
            .collect()
    }

    #[test]
    fn columns_made_together_are_the_bindings_as_defined() {
        let offers: Vec<Arc<ClassAd>> = [
            "[Memory = 1024; Tag = 3; Score = TARGET.Prio * 2]",
            "[Memory = 2048; Tag = \"t1\"]",
            "[Tag = 3; Score = TARGET.Prio * 2; Ports = {[a = 1]}]",
            "[Memory = 1024; Score = MY.Memory + 1; Owners = {\"a\", \"b\"}]",
            "[memory = 2048; Score = TARGET.Prio * 2; Tag = 3]",
            "[Memory = 1024.0; Tag = 3]",
        ]
        .iter()
        .map(|s| Arc::new(parse::classad(s).expect("offer")))
        .collect();
        let names = ["Memory", "Tag", "Score", "Owners", "Ports", "Nowhere"].map(Key::of);
        let columns = Columns::default();
        // Asked together, then again in other groups: the same bindings.
        let together = columns.of_all(&names, &offers);
        for (&k, b) in names.iter().zip(&together) {
            assert_eq!(b.ids, oracle(k, &offers), "{k:?}");
            assert_eq!(columns.of_all(&[k], &offers)[0].ids, b.ids, "{k:?}");
            assert_eq!(Columns::default().of_all(&[k], &offers)[0].ids, b.ids);
        }
        assert_eq!(together[0].ids, [2, 3, 1, 2, 3, 4]);
        assert_eq!(together[5].ids, [0, 0, 1, 0, 0, 0]);
        let score = &together[2];
        assert_eq!(
            score.kinds,
            [Kind::Literal, Kind::Opaque, Kind::Requesting, Kind::Opaque]
        );
        assert_eq!(score.requesting_reads(2), Some(&[Key::of("Prio")][..]));
        let those: Vec<u32> = score.requesting[0].1.iter().collect();
        assert_eq!(those, [0, 4]);
        assert_eq!(columns.ports(&offers).iter().collect::<Vec<_>>(), [2]);
        // Held bindings are not asked again; the others are added.
        let mut held = FxHashMap::default();
        columns.fill(&mut held, names, &offers);
        assert_eq!(held.len(), names.len());
    }
}
