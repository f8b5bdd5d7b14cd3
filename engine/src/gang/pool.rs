//! The offers of a gang cycle: one or more collections, their ads with ports checked, which
//! are still free, and (for the indexed algorithms) an index per collection whose answers are
//! filtered by the rectangles of the offers taken. Candidates are (collection, position, port)
//! in load order, collections in the order given.

use super::ports::{GangAd, PortsError};
use crate::indexed::{Collection, IndexedError};
use adjoin_index::{units, Bits, Index, IndexOptions, Query};
use adjoin_query::ClassAd;
use rustc_hash::FxHashMap;
use std::sync::Arc;

/// One candidate for a port: an offer and its port that would dock there.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Cand {
    /// The offer collection (position in the cycle's list).
    pub coll: usize,
    /// The offer's position in its collection.
    pub pos: u32,
    /// Its port.
    pub port: usize,
    /// The port's rectangle id in the collection's index (0 without one).
    pub rid: u32,
}

impl Cand {
    /// The offer, as the gang tree names it.
    pub fn offer(&self) -> (usize, u32) {
        (self.coll, self.pos)
    }
}

/// An offer collection of a gang cycle.
pub struct OfferColl {
    /// The collection's name.
    pub name: String,
    /// Its ads read in load order.
    pub ads: Collection,
    /// The ads with their ports checked (`None`: bad ports, never docked).
    pub gangs: Vec<Option<Arc<GangAd>>>,
    /// Whether each ad is still free.
    pub live: Vec<bool>,
    /// The index (indexed algorithms).
    pub index: Option<Index>,
    /// The rectangles of the offers no longer free.
    pub gone: Bits,
}

/// All offers of a cycle.
pub struct Pool {
    /// The collections, in the order given.
    pub colls: Vec<OfferColl>,
    /// Index probes made.
    pub probes: u64,
    /// Bucket of each (collection, position, port) by its view's signature (lazily).
    buckets: FxHashMap<(usize, u32, usize), u32>,
    signatures: FxHashMap<String, u32>,
    /// One-sided answers by (collection, printed constraint).
    supports: FxHashMap<(usize, String), Bits>,
}

impl Pool {
    /// The pool of `colls` (name, ads), indexed when `index` is given; ads with bad ports are
    /// reported in `bad` and never docked.
    pub fn new(
        colls: Vec<(String, Collection)>,
        index: Option<&IndexOptions>,
        bad: &mut Vec<(String, String, PortsError)>,
    ) -> Result<Pool, IndexedError> {
        let mut out = Vec::with_capacity(colls.len());
        for (name, ads) in colls {
            let gangs: Vec<Option<Arc<GangAd>>> = ads
                .ads
                .iter()
                .zip(&ads.ids)
                .map(|(a, id)| match GangAd::new(Arc::clone(a)) {
                    Ok(g) => Some(Arc::new(g)),
                    Err(e) => {
                        bad.push((name.clone(), id.clone(), e));
                        None
                    }
                })
                .collect();
            let live = gangs.iter().map(Option::is_some).collect();
            let index = index.map(|o| ads.index(o.clone())).transpose()?;
            let mut c = OfferColl {
                name,
                ads,
                gangs,
                live,
                index,
                gone: Bits::new(),
            };
            for pos in 0..c.live.len() {
                if !c.live[pos] {
                    c.take(pos as u32);
                }
            }
            out.push(c);
        }
        Ok(Pool {
            colls: out,
            probes: 0,
            buckets: FxHashMap::default(),
            signatures: FxHashMap::default(),
            supports: FxHashMap::default(),
        })
    }

    /// The offer's checked ad, if it is free.
    pub fn free(&self, offer: (usize, u32)) -> Option<&Arc<GangAd>> {
        let c = self.colls.get(offer.0)?;
        if !c.live.get(offer.1 as usize).copied().unwrap_or(false) {
            return None;
        }
        c.gangs.get(offer.1 as usize)?.as_ref()
    }

    /// Marks an offer taken.
    pub fn take(&mut self, offer: (usize, u32)) {
        if let Some(c) = self.colls.get_mut(offer.0) {
            c.take(offer.1);
        }
    }

    /// Every port of every free offer (the naive algorithm's candidates), in load order.
    pub fn all(&self) -> Vec<Cand> {
        let mut v = Vec::new();
        for (ci, c) in self.colls.iter().enumerate() {
            for (pos, g) in c.gangs.iter().enumerate() {
                if !c.live[pos] {
                    continue;
                }
                let Some(g) = g else { continue };
                for port in 0..g.ports.len() {
                    v.push(Cand {
                        coll: ci,
                        pos: pos as u32,
                        port,
                        rid: 0,
                    });
                }
            }
        }
        v
    }

    /// The free ports whose rectangles a two-sided window from `view` meets (a superset of
    /// those that can dock there), in load order.
    pub fn probe(&mut self, view: &Arc<ClassAd>) -> Vec<Cand> {
        let mut v = Vec::new();
        for (ci, c) in self.colls.iter_mut().enumerate() {
            let Some(idx) = c.index.as_mut() else {
                continue;
            };
            for q in Query::two_sided(view, idx.options()) {
                idx.prepare(&q);
                self.probes += 1;
                let a = idx.candidates_except(&q, &c.gone);
                for rid in a.rids.iter() {
                    if let Some((pos, port)) = idx.owner(rid) {
                        v.push(Cand {
                            coll: ci,
                            pos,
                            port: port.map_or(0, usize::from),
                            rid,
                        });
                    }
                }
            }
        }
        v.sort_unstable();
        v.dedup_by(|a, b| (a.coll, a.pos, a.port) == (b.coll, b.pos, b.port));
        v
    }

    /// The rectangles of collection `coll` a one-sided window of `constraint` meets (cached:
    /// taken offers included).
    pub fn support(&mut self, coll: usize, constraint: &adjoin_query::Expr) -> Option<&Bits> {
        let key = (coll, constraint.to_string());
        if !self.supports.contains_key(&key) {
            let c = self.colls.get_mut(coll)?;
            let idx = c.index.as_mut()?;
            let q = Query::one_sided(constraint, idx.options());
            idx.prepare(&q);
            self.probes += 1;
            let a = idx.candidates(&q);
            self.supports.insert(key.clone(), a.rids);
        }
        self.supports.get(&key)
    }

    /// The bucket of a candidate: candidates whose port views print alike share one.
    pub fn bucket(&mut self, c: Cand) -> u32 {
        let k = (c.coll, c.pos, c.port);
        if let Some(&b) = self.buckets.get(&k) {
            return b;
        }
        let sig = self
            .colls
            .get(c.coll)
            .and_then(|col| col.ads.ads.get(c.pos as usize))
            .and_then(|ad| units(ad).into_iter().nth(c.port))
            .map_or_else(String::new, |u| u.ad.to_string());
        let next = self.signatures.len() as u32;
        let b = *self.signatures.entry(sig).or_insert(next);
        self.buckets.insert(k, b);
        b
    }
}

impl OfferColl {
    /// Marks the offer at `pos` taken: out of every later candidate list.
    pub fn take(&mut self, pos: u32) {
        if let Some(l) = self.live.get_mut(pos as usize) {
            *l = false;
        }
        if let Some(idx) = &self.index {
            for rid in idx.rids_of(pos) {
                self.gone.insert(rid);
            }
        }
    }
}
