//! The offers of a gang cycle: one or more collections, their ads with ports checked, which
//! are still free, and (for the indexed algorithms) an index per collection whose answers are
//! filtered by the rectangles of the offers taken. Candidates are (collection, position, port)
//! in load order, collections in the order given.
//!
//! Offers are grouped by [`Signature`] (interchangeable in every gang). A *summarized* pool
//! (DYNS, DYNSR; dissertation 5.8) indexes one representative per group — its first member —
//! so a probe's answer holds each group once; a candidate stands for its group's first free
//! member, and the representative's rectangles leave the index only when the group is used up.
//! Other pools index every offer and learn groups only when asked ([`Pool::bucket`]).

use super::ports::{GangAd, PortsError};
use super::signature::{signature, Reads, Signature};
use crate::collection::{Collection, CollectionError};
use adjoin_index::ports::PortScopes;
use adjoin_index::{Bits, Index, IndexOptions, Query};
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

/// A group of interchangeable offers at one port (see [`Pool::bucket`]).
pub type Bucket = u64;

/// No group (not known yet, or an ad with bad ports).
const NONE: u32 = u32::MAX;

/// The groups of interchangeable offers of one collection (equal signatures).
#[derive(Debug, Default)]
struct Groups {
    /// The group of each position ([`NONE`]: not known yet, or bad ports).
    of: Vec<u32>,
    /// The signatures seen, with their groups.
    ids: FxHashMap<Signature, u32>,
    /// The signatures as written (every constraint as written) seen, with their groups: offers
    /// alike there are alike, so their rectangles are converted once.
    written: FxHashMap<Signature, u32>,
    /// Per group, its members in load order (summarized collections only).
    members: Vec<Vec<u32>>,
    /// Per group, where its first free member is in `members` (the length: none left).
    next: Vec<usize>,
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
    /// Whether some port has several rectangles (answers are then restricted port by port).
    pub multi: bool,
    /// Whether the index holds one representative per group (DYNS).
    summarized: bool,
    /// The groups of interchangeable offers.
    groups: Groups,
}

/// A probe's answer: per collection, the rectangles (ids) it meets.
pub type Answer = Vec<Bits>;

/// A port's candidates in the order they are tried: resolved, or rectangles resolved only
/// when reached (most ports are filled by one of their first candidates).
#[derive(Debug)]
pub enum Todo {
    /// Candidates.
    Cands(Vec<Cand>),
    /// (collection, rectangle id), in load order: an index's rectangle ids follow load order,
    /// each port having one rectangle.
    Rids(Vec<(usize, u32)>),
}

impl Todo {
    /// The number of entries.
    pub fn len(&self) -> usize {
        match self {
            Todo::Cands(v) => v.len(),
            Todo::Rids(v) => v.len(),
        }
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Starts the list at entry `k` (DYNSR), wrapping around.
    pub fn rotate(&mut self, k: usize) {
        match self {
            Todo::Cands(v) => v.rotate_left(k),
            Todo::Rids(v) => v.rotate_left(k),
        }
    }

    /// Entry `i`, resolved in `pool`.
    pub fn get(&self, i: usize, pool: &Pool) -> Option<Cand> {
        match self {
            Todo::Cands(v) => v.get(i).copied(),
            Todo::Rids(v) => v.get(i).and_then(|&(c, r)| pool.cand(c, r)),
        }
    }
}

/// The buckets of one collection's ports, each with its rectangles.
#[derive(Debug, Default)]
struct Buckets {
    sets: FxHashMap<Bucket, Bits>,
}

/// Collections with more buckets than this are not summarized whole.
const MAX_SUMMARIZED: usize = 256;

/// All offers of a cycle.
pub struct Pool {
    /// The collections, in the order given.
    pub colls: Vec<OfferColl>,
    /// Index probes made.
    pub probes: u64,
    /// What the cycle's expressions read (which attributes signatures hold).
    reads: Reads,
    /// Conversion options (the signatures' rectangles).
    opts: IndexOptions,
    /// One-sided answers by (collection, printed constraint).
    supports: FxHashMap<(usize, String), Bits>,
    /// Whether some offer port has a `Rank`.
    any_rank: bool,
    /// Per collection, its ports' buckets when there are few (`None`: too many), made when
    /// first asked.
    summaries: Vec<Option<Option<Buckets>>>,
}

impl Pool {
    /// The pool of `colls` (name, ads), indexed when `index` is given, grouping only offers
    /// alike attribute for attribute; ads with bad ports are reported in `bad` and never docked.
    pub fn new(
        colls: Vec<(String, Collection)>,
        index: Option<&IndexOptions>,
        bad: &mut Vec<(String, String, PortsError)>,
    ) -> Result<Pool, CollectionError> {
        Pool::with_reads(colls, index, Reads::everything(), false, bad)
    }

    /// [`Pool::new`] for a cycle whose expressions read `reads` (offers group by their
    /// signatures under it); with `summarize` (and an index), each group is indexed once.
    pub fn with_reads(
        colls: Vec<(String, Collection)>,
        index: Option<&IndexOptions>,
        reads: Reads,
        summarize: bool,
        bad: &mut Vec<(String, String, PortsError)>,
    ) -> Result<Pool, CollectionError> {
        // Offers' ports are indexed through views read as the gang environment reads them.
        let gang = index.map(|o| IndexOptions {
            ports: PortScopes::Gang,
            ..o.clone()
        });
        let index = gang.as_ref();
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
            let mut groups = Groups {
                of: vec![NONE; gangs.len()],
                ..Groups::default()
            };
            let summarized = summarize && index.is_some();
            let (index, ports) = match index {
                Some(o) if summarized => {
                    for (pos, g) in gangs.iter().enumerate() {
                        if let Some(g) = g {
                            let id = groups.intern(g, &reads, o);
                            if groups.members.len() <= id as usize {
                                groups.members.push(Vec::new());
                                groups.next.push(0);
                            }
                            groups.members[id as usize].push(pos as u32);
                            groups.of[pos] = id;
                        }
                    }
                    let reps: Vec<u32> = groups
                        .members
                        .iter()
                        .filter_map(|m| m.first().copied())
                        .collect();
                    let mut idx = Index::new(o.clone());
                    idx.extend(
                        reps.iter()
                            .filter_map(|&p| Some((p, Arc::clone(ads.ads.get(p as usize)?)))),
                    )?;
                    let ports: usize = reps
                        .iter()
                        .filter_map(|&p| gangs.get(p as usize)?.as_ref())
                        .map(|g| g.ports.len())
                        .sum();
                    (Some(idx), ports)
                }
                _ => {
                    let ports: usize = gangs
                        .iter()
                        .map(|g| g.as_ref().map_or(1, |g| g.ports.len()))
                        .sum();
                    (index.map(|o| ads.index(o.clone())).transpose()?, ports)
                }
            };
            let multi = index.as_ref().is_some_and(|i| i.rectangles() != ports);
            let mut c = OfferColl {
                name,
                ads,
                gangs,
                live,
                index,
                gone: Bits::new(),
                multi,
                summarized,
                groups,
            };
            for pos in 0..c.live.len() {
                if !c.live[pos] {
                    c.take(pos as u32);
                }
            }
            out.push(c);
        }
        let any_rank = out
            .iter()
            .flat_map(|c| c.gangs.iter().flatten())
            .any(|g| g.ports.iter().any(|p| p.rank));
        Ok(Pool {
            colls: out,
            probes: 0,
            reads,
            opts: index.cloned().unwrap_or_default(),
            supports: FxHashMap::default(),
            summaries: Vec::new(),
            any_rank,
        })
    }

    /// Whether some offer port has a `Rank`.
    pub fn any_rank(&self) -> bool {
        self.any_rank
    }

    /// The offer's checked ad, if it is free.
    pub fn free(&self, offer: (usize, u32)) -> Option<&Arc<GangAd>> {
        let c = self.colls.get(offer.0)?;
        if !c.live.get(offer.1 as usize).copied().unwrap_or(false) {
            return None;
        }
        c.gangs.get(offer.1 as usize)?.as_ref()
    }

    /// The offer's checked ad, free or not.
    pub fn gang_ad(&self, offer: (usize, u32)) -> Option<&Arc<GangAd>> {
        self.colls
            .get(offer.0)?
            .gangs
            .get(offer.1 as usize)?
            .as_ref()
    }

    /// The offer `c` stands for: itself if it is free and `used` says no; in a summarized
    /// collection, the first free member of its group that `used` does not name.
    pub fn resolve(&self, c: Cand, used: impl Fn((usize, u32)) -> bool) -> Option<Cand> {
        let col = self.colls.get(c.coll)?;
        let live = |p: u32| col.live.get(p as usize).copied().unwrap_or(false);
        if !col.summarized {
            return (live(c.pos) && !used(c.offer())).then_some(c);
        }
        let g = *col.groups.of.get(c.pos as usize)? as usize;
        let members = col.groups.members.get(g)?;
        let from = col.groups.next.get(g).copied().unwrap_or(0);
        members
            .get(from..)?
            .iter()
            .find(|&&p| live(p) && !used((c.coll, p)))
            .map(|&pos| Cand { pos, ..c })
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

    /// The rectangles of free ports a two-sided window from `view` meets (a superset of
    /// those that can dock there).
    pub fn probe(&mut self, view: &Arc<ClassAd>) -> Answer {
        let _span = tracing::trace_span!("gang_probe").entered();
        let mut out = Vec::with_capacity(self.colls.len());
        for c in &mut self.colls {
            let mut bits = Bits::new();
            if let Some(idx) = c.index.as_mut() {
                for q in Query::two_sided(view, idx.options()) {
                    idx.prepare(&q);
                    self.probes += 1;
                    bits.or_assign(&idx.candidates_except(&q, &c.gone).rids);
                }
            }
            out.push(bits);
        }
        out
    }

    /// The candidates of an answer, in load order (collections in order, then position and
    /// port), each port once.
    pub fn cands(&self, a: &Answer) -> Vec<Cand> {
        let mut v = Vec::new();
        for (ci, bits) in a.iter().enumerate() {
            for rid in bits.iter() {
                v.extend(self.cand(ci, rid));
            }
        }
        if !v.windows(2).all(|w| w[0] <= w[1]) {
            v.sort_unstable();
        }
        v.dedup_by(|a, b| (a.coll, a.pos, a.port) == (b.coll, b.pos, b.port));
        v
    }

    /// The answer's candidates in load order, resolved lazily where that order is the
    /// rectangle ids' (not in a summarized collection: a group's place is its first free
    /// member's).
    pub fn todo(&self, a: &Answer) -> Todo {
        if self.colls.iter().any(|c| c.multi || c.summarized) {
            return Todo::Cands(self.cands(a));
        }
        let mut v = Vec::with_capacity(a.iter().map(|b| b.len() as usize).sum());
        for (ci, bits) in a.iter().enumerate() {
            v.extend(bits.iter().map(|r| (ci, r)));
        }
        Todo::Rids(v)
    }

    /// The distinct buckets of an answer's ports, up to `cap` (`None` past it), each with a
    /// representative.
    pub fn buckets_of(&mut self, a: &Answer, cap: usize) -> Option<Vec<Cand>> {
        let mut reps: Vec<(Bucket, Cand)> = Vec::new();
        for (ci, bits) in a.iter().enumerate() {
            if bits.is_empty() {
                continue;
            }
            if !self.colls.get(ci).is_some_and(|c| c.summarized) {
                self.summarize(ci);
            }
            let whole: Vec<(Bucket, u32)> = match self
                .summaries
                .get(ci)
                .and_then(|s| s.as_ref())
                .and_then(|s| s.as_ref())
            {
                Some(b) => {
                    let mut v: Vec<(Bucket, u32)> = b
                        .sets
                        .iter()
                        .filter_map(|(&k, set)| set.and(bits).iter().next().map(|r| (k, r)))
                        .collect();
                    v.sort_unstable();
                    v
                }
                None => Vec::new(),
            };
            if self
                .summaries
                .get(ci)
                .and_then(|s| s.as_ref())
                .is_some_and(|s| s.is_some())
            {
                for (b, r) in whole {
                    reps.push((b, self.cand(ci, r)?));
                }
            } else {
                for rid in bits.iter() {
                    let Some(c) = self.cand(ci, rid) else {
                        continue;
                    };
                    let b = self.bucket(c);
                    if !reps.iter().any(|x| x.0 == b) {
                        reps.push((b, c));
                    }
                    if reps.len() > cap {
                        return None;
                    }
                }
            }
            if reps.len() > cap {
                return None;
            }
        }
        let mut v: Vec<Cand> = reps.into_iter().map(|x| x.1).collect();
        v.sort_unstable();
        Some(v)
    }

    /// Summarizes collection `ci`'s ports into buckets once (all of them, unless there are
    /// too many).
    fn summarize(&mut self, ci: usize) {
        if self.summaries.len() <= ci {
            self.summaries.resize_with(ci + 1, || None);
        }
        if self.summaries[ci].is_some() {
            return;
        }
        let Some(n) = self
            .colls
            .get(ci)
            .and_then(|c| c.index.as_ref())
            .map(|i| i.rectangles())
        else {
            self.summaries[ci] = Some(None);
            return;
        };
        let mut b = Buckets::default();
        for rid in 0..n as u32 {
            let Some(c) = self.cand(ci, rid) else {
                continue;
            };
            let k = self.bucket(c);
            b.sets.entry(k).or_default().insert(rid);
            if b.sets.len() > MAX_SUMMARIZED {
                self.summaries[ci] = Some(None);
                return;
            }
        }
        self.summaries[ci] = Some(Some(b));
    }

    /// The candidate of rectangle `rid` of collection `coll` (in a summarized collection, the
    /// first free member of the group it represents).
    pub fn cand(&self, coll: usize, rid: u32) -> Option<Cand> {
        let c = self.colls.get(coll)?;
        let (pos, port) = c.index.as_ref()?.owner(rid)?;
        let pos = if c.summarized {
            c.first_free(pos)?
        } else {
            pos
        };
        Some(Cand {
            coll,
            pos,
            port: port.map_or(0, usize::from),
            rid,
        })
    }

    /// Keeps in `a` the ports with a rectangle in `support` (a port whose rectangles are all
    /// outside it cannot be a candidate).
    pub fn restrict(&self, a: &mut Answer, support: &[Bits]) {
        for (ci, (bits, s)) in a.iter_mut().zip(support).enumerate() {
            let Some(c) = self.colls.get(ci) else {
                continue;
            };
            let Some(idx) = c.index.as_ref().filter(|_| c.multi) else {
                bits.and_assign(s);
                continue;
            };
            // Ports of several rectangles: a port stays if any of its rectangles is in.
            let same_port =
                |rid: u32, r: u32| idx.owner(r).map(|o| o.1) == idx.owner(rid).map(|o| o.1);
            let kept: Vec<u32> = bits
                .iter()
                .filter(|&rid| {
                    s.contains(rid)
                        || idx.owner(rid).is_some_and(|(pos, _)| {
                            idx.rids_of(pos)
                                .into_iter()
                                .any(|r| s.contains(r) && same_port(rid, r))
                        })
                })
                .collect();
            *bits = Bits::from_rids(kept);
        }
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

    /// The bucket of a candidate: its port of its group of interchangeable offers (equal
    /// signatures: one failing there, all do).
    pub fn bucket(&mut self, c: Cand) -> Bucket {
        let g = self.group(c.coll, c.pos);
        ((c.coll as u64) << 40) | (u64::from(g) << 8) | (c.port as u64 & 0xff)
    }

    /// The group of offer `pos` of collection `coll`, learnt now if not known.
    fn group(&mut self, coll: usize, pos: u32) -> u32 {
        let Some(col) = self.colls.get_mut(coll) else {
            return NONE;
        };
        let known = col.groups.of.get(pos as usize).copied().unwrap_or(NONE);
        if known != NONE {
            return known;
        }
        let Some(Some(g)) = col.gangs.get(pos as usize) else {
            return NONE;
        };
        let id = col.groups.intern(g, &self.reads, &self.opts);
        if let Some(x) = col.groups.of.get_mut(pos as usize) {
            *x = id;
        }
        id
    }
}

impl Groups {
    /// The group of offer `g` (a new one if its signature is unseen).
    fn intern(&mut self, g: &GangAd, reads: &Reads, opts: &IndexOptions) -> u32 {
        let written = signature(g, reads, None);
        if let Some(&id) = self.written.get(&written) {
            return id;
        }
        let next = self.ids.len() as u32;
        let id = *self
            .ids
            .entry(signature(g, reads, Some(opts)))
            .or_insert(next);
        self.written.insert(written, id);
        id
    }
}

impl OfferColl {
    /// Marks the offer at `pos` taken: out of every later candidate list (in a summarized
    /// collection, its representative once its group has no free member left).
    pub fn take(&mut self, pos: u32) {
        if let Some(l) = self.live.get_mut(pos as usize) {
            *l = false;
        }
        let indexed = if self.summarized {
            let g = self.groups.of.get(pos as usize).copied().unwrap_or(NONE) as usize;
            let (Some(members), Some(next)) =
                (self.groups.members.get(g), self.groups.next.get_mut(g))
            else {
                return;
            };
            while members
                .get(*next)
                .is_some_and(|&p| !self.live.get(p as usize).copied().unwrap_or(false))
            {
                *next += 1;
            }
            match members.first() {
                Some(&rep) if *next >= members.len() => rep,
                _ => return,
            }
        } else {
            pos
        };
        if let Some(idx) = &self.index {
            for rid in idx.rids_of(indexed) {
                self.gone.insert(rid);
            }
        }
    }

    /// The first free member of the group whose representative is at `rep` (summarized).
    fn first_free(&self, rep: u32) -> Option<u32> {
        let g = *self.groups.of.get(rep as usize)? as usize;
        let next = *self.groups.next.get(g)?;
        self.groups.members.get(g)?.get(next).copied()
    }
}
