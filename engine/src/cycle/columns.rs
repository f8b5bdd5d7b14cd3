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

use super::residual::{literal, target_reads};
use super::shape::{ByHash, Fx};
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
const PORTED: u32 = 1;

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
        let id = match ported {
            true => PORTED,
            false => {
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
pub(super) fn with_ports(offers: &[Arc<ClassAd>]) -> Bits {
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
    /// Every offer's binding of `k`.
    #[cfg(test)]
    fn of(&self, k: Key, offers: &[Arc<ClassAd>]) -> Arc<Binding> {
        let mut made = self.of_all(&[k], offers);
        made.pop().unwrap_or_default()
    }

    /// Every offer's binding of each of `keys`, in order.
    pub(super) fn of_all(&self, keys: &[Key], offers: &[Arc<ClassAd>]) -> Vec<Arc<Binding>> {
        let ports = self.ports(offers);
        let mut by_key = self.by_key.lock();
        let mut missing: Vec<Key> = keys
            .iter()
            .copied()
            .filter(|k| !by_key.contains_key(k))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if !missing.is_empty() {
            let _span = tracing::debug_span!("columns", names = missing.len()).entered();
            let mut making: Vec<Making<'_>> = missing
                .iter()
                .map(|_| Making {
                    b: Binding::new(offers.len()),
                    seen: ByHash::default(),
                })
                .collect();
            for (o, offer) in (0u32..).zip(offers) {
                let ported = ports.contains(o);
                for (&k, m) in missing.iter().zip(&mut making) {
                    if let Some(e) = offer.get_key(k) {
                        m.push(o, e, offer, ported);
                    }
                }
            }
            for (k, m) in missing.into_iter().zip(making) {
                by_key.insert(k, Arc::new(m.finish(offers.len(), ports)));
            }
        }
        keys.iter()
            .map(|k| by_key.get(k).cloned().unwrap_or_default())
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

    #[test]
    fn columns_made_together_are_those_made_name_by_name() {
        let offers: Vec<Arc<ClassAd>> = [
            "[Memory = 1024; Tag = 3; Score = TARGET.Prio * 2]",
            "[Memory = 2048; Tag = \"t1\"]",
            "[Tag = 3; Score = TARGET.Prio * 2; Ports = {[a = 1]}]",
            "[Memory = 1024; Score = MY.Memory + 1; Owners = {\"a\", \"b\"}]",
            "[memory = 2048; Score = TARGET.Prio * 2; Tag = 3]",
        ]
        .iter()
        .map(|s| Arc::new(parse::classad(s).expect("offer")))
        .collect();
        let names = ["Memory", "Tag", "Score", "Owners", "Ports", "Nowhere"].map(Key::of);
        let columns = Columns::default();
        let together = columns.of_all(&names, &offers);
        for (&k, shared) in names.iter().zip(&together) {
            let own = Columns::default().of(k, &offers);
            assert_eq!(shared.ids, own.ids, "{k:?}");
            assert_eq!(shared.kinds, own.kinds, "{k:?}");
            let reads = |b: &Binding| -> Vec<(Vec<Key>, Vec<u32>)> {
                b.requesting
                    .iter()
                    .map(|(r, those)| (r.clone(), those.iter().collect()))
                    .collect()
            };
            assert_eq!(reads(shared), reads(&own), "{k:?}");
        }
        assert_eq!(columns.of(Key::of("Memory"), &offers).ids, [2, 3, 1, 2, 3]);
        assert_eq!(
            columns.of(Key::of("Score"), &offers).kinds,
            [Kind::Literal, Kind::Opaque, Kind::Requesting, Kind::Opaque]
        );
        assert_eq!(columns.of(Key::of("Tag"), &offers).ids, [2, 3, 1, 0, 2]);
        assert_eq!(columns.of(Key::of("Nowhere"), &offers).ids, [0, 0, 1, 0, 0]);
        assert_eq!(columns.ports(&offers).iter().collect::<Vec<_>>(), [2]);
    }
}
