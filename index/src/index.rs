//! The index of one collection of ads (dissertation 4.5.3): every unit (an ad, or one of its
//! ports) as rectangles with RIDs, the exported and imported axes per attribute, the deviant
//! sets, and the maps from a RID to its rectangle and to its (ad, port).
//!
//! It stays exact as ads come and go: [`Index::insert`] (which replaces an ad of the same id),
//! [`Index::remove`], and [`Index::extend`] for bulk loads (checkpoints built once at the end).
//!
//! **Adaptive dimensions** (4.4.3): every attribute some stored constraint bounds has an
//! exported axis from the moment that constraint arrives (and loses it when the last such
//! constraint leaves). An attribute gets an *imported* axis — the stored ads' values — only
//! when a query first reads it ([`Index::prepare`]), by one scan of the stored units; from then
//! on every insert records its value too. Probing ads' own values are never indexed: they are
//! read per query, for the attributes stored constraints bound.

use crate::ad_words::AdWords;
use crate::axis::{ExportedAxis, ImportedAxis};
use crate::bits::Bits;
use crate::counted::{put, take, Counted};
use crate::few::Few;
use crate::mangle::MangledValue;
use crate::ports::{units_for, PortScopes, Unit};
use crate::position::Pos;
use crate::profile::{unit_constraint_dpf, PROFILE_CAP};
use crate::property::MangledInterval;
use crate::rectangle::{imp_value, rectangles, ConsistencyError, ImpValue, RECTANGLE_CAP};
use crate::rid::{Rids, RidsExhausted};
use adjoin_query::eval::EvalOptions;
use adjoin_query::{ClassAd, Key};
use rustc_hash::FxHashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// An ad's id within its collection (the caller's).
pub type AdId = u32;

/// How ads are read and converted.
#[derive(Clone, Debug)]
pub struct IndexOptions {
    /// Evaluation options: the TARGET fallback, a fixed clock, budgets. Conversion and
    /// confirmation use the same ones, so the index agrees with evaluation.
    pub eval: EvalOptions,
    /// The cap on profiles per constraint (see `profile.rs`).
    pub profile_cap: usize,
    /// The cap on rectangles per profile (see `rectangle.rs`).
    pub rectangle_cap: usize,
    /// A query checks the remaining candidates one by one against their rectangles, instead
    /// of probing the next axis, once at most this many are left.
    pub filter_max: u64,
    /// How ports' views read names their records and ads do not bind (pairwise, or as the
    /// gang environment).
    pub ports: PortScopes,
}

impl Default for IndexOptions {
    fn default() -> IndexOptions {
        IndexOptions {
            eval: EvalOptions::default(),
            profile_cap: PROFILE_CAP,
            rectangle_cap: RECTANGLE_CAP,
            filter_max: 48,
            ports: PortScopes::Pairwise,
        }
    }
}

/// Why an ad could not be indexed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum IndexError {
    /// Every RID is in use.
    RidsExhausted,
}

impl std::fmt::Display for IndexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IndexError::RidsExhausted => RidsExhausted.fmt(f),
        }
    }
}

impl std::error::Error for IndexError {}

impl From<RidsExhausted> for IndexError {
    fn from(_: RidsExhausted) -> IndexError {
        IndexError::RidsExhausted
    }
}

/// What converting one ad found.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Inserted {
    /// Rectangles stored (over all units).
    pub rectangles: usize,
    /// Contradictory profiles, with the port they were found in.
    pub errors: Vec<(Option<u16>, ConsistencyError)>,
    /// Every unit's constraint converted exactly.
    pub exact: bool,
}

/// Where an index that does not hold its ads reads them back (e.g. a database): evaluation
/// (confirming inexact candidates) and new imported axes need the ads themselves.
pub trait AdSource: Send + Sync + std::fmt::Debug {
    /// The ads `ids`, in the order asked; `None` for one that is gone or cannot be read.
    fn fetch(&self, ids: &[AdId]) -> Vec<Option<Arc<ClassAd>>>;

    /// Every ad the source holds, in one pass (to read a new attribute of all of them).
    fn for_each(&self, f: &mut dyn FnMut(AdId, Arc<ClassAd>));
}

/// Ads held in memory, numbered by their position (tests, benches, a pool already read).
impl AdSource for Vec<Arc<ClassAd>> {
    fn fetch(&self, ids: &[AdId]) -> Vec<Option<Arc<ClassAd>>> {
        ids.iter().map(|&i| self.get(i as usize).cloned()).collect()
    }

    fn for_each(&self, f: &mut dyn FnMut(AdId, Arc<ClassAd>)) {
        for (i, ad) in (0..).zip(self) {
            f(i, Arc::clone(ad));
        }
    }
}

/// Converts ads as an index would, without the index (see [`Index::converter`]).
#[derive(Clone, Debug)]
pub struct Converter {
    opts: IndexOptions,
    imported: Vec<Key>,
    keep_views: bool,
}

/// An ad converted for insertion: per unit, its rectangles and imported values.
#[derive(Clone, Debug)]
pub struct Converted {
    units: Vec<ConvertedUnit>,
}

#[derive(Clone, Debug)]
struct ConvertedUnit {
    port: Option<u16>,
    view: Option<Arc<ClassAd>>,
    rects: crate::rectangle::Rectangles,
    imp: Vec<(Key, ImpValue)>,
}

impl Converter {
    /// `ad` converted: one unit per port (or the ad itself).
    pub fn convert(&self, ad: &Arc<ClassAd>) -> Converted {
        let opts = &self.opts;
        Converted {
            units: units_for(ad, opts)
                .into_iter()
                .map(|unit| ConvertedUnit {
                    port: unit.port,
                    rects: rectangles(&unit_constraint_dpf(&unit.ad, opts), opts.rectangle_cap),
                    imp: self
                        .imported
                        .iter()
                        .map(|&k| (k, imp_value(&unit.ad, k, &opts.eval)))
                        .collect(),
                    view: self.keep_views.then_some(unit.ad),
                })
                .collect(),
        }
    }
}

impl Converted {
    /// Whether the ad has ports (more than the ad itself as its unit).
    pub fn has_ports(&self) -> bool {
        self.units.iter().any(|u| u.port.is_some())
    }
}

/// A stored rectangle's bounds (Exp, sorted by attribute), kept to undo its insertion and to
/// hand it out ([`Index::exact_bounds`]).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Bounds(pub(crate) Box<[(Key, MangledInterval)]>);

/// A stored unit: an ad, or one port of it.
#[derive(Clone, Debug)]
pub(crate) struct UnitData {
    pub(crate) ad: AdId,
    pub(crate) port: Option<u16>,
    /// What is evaluated: the ad itself or the port's view; `None` when the index reads its
    /// ads from an [`AdSource`].
    pub(crate) view: Option<Arc<ClassAd>>,
    /// Its rectangles. Its values of the imported attributes are on their axes (the same
    /// for each of its RIDs).
    pub(crate) rids: Few,
}

/// What a RID belongs to: its unit, and the unit's ad (kept beside it so that turning a set
/// of RIDs into a set of ads reads one dense array, not the units).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct RidOwner {
    pub(crate) unit: u32,
    pub(crate) ad: AdId,
}

/// Cumulative counters (the dissertation's metrics and a few more).
#[derive(Debug, Default)]
pub(crate) struct Counters {
    pub(crate) queries: AtomicU64,
    pub(crate) probes: AtomicU64,
    pub(crate) filtered: AtomicU64,
    pub(crate) candidates: AtomicU64,
    pub(crate) exact: AtomicU64,
    pub(crate) evaluations: AtomicU64,
    pub(crate) confirmed: AtomicU64,
}

impl Clone for Counters {
    fn clone(&self) -> Counters {
        let get = |c: &AtomicU64| AtomicU64::new(c.load(Ordering::Relaxed));
        Counters {
            queries: get(&self.queries),
            probes: get(&self.probes),
            filtered: get(&self.filtered),
            candidates: get(&self.candidates),
            exact: get(&self.exact),
            evaluations: get(&self.evaluations),
            confirmed: get(&self.confirmed),
        }
    }
}

impl Counters {
    pub(crate) fn add(c: &AtomicU64, n: u64) {
        c.fetch_add(n, Ordering::Relaxed);
    }
}

/// A snapshot of an index's cumulative counters and size.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    /// Ads stored.
    pub ads: u64,
    /// Units stored (ads, or their ports).
    pub units: u64,
    /// Rectangles stored.
    pub rectangles: u64,
    /// Attributes with an exported axis.
    pub exported_axes: u64,
    /// Attributes with an imported axis.
    pub imported_axes: u64,
    /// Queries answered.
    pub queries: u64,
    /// Index probes (one per axis consulted as a structure).
    pub probes: u64,
    /// RIDs checked one by one against a rectangle instead of probing.
    pub filtered: u64,
    /// Candidate units returned by queries.
    pub candidates: u64,
    /// Candidates accepted without evaluation (both sides exact).
    pub exact: u64,
    /// Candidates evaluated.
    pub evaluations: u64,
    /// Candidates confirmed (exact or evaluated true).
    pub confirmed: u64,
}

/// The index of one collection. A clone is a deep copy (its counters start from the
/// original's), sharing only the source it reads ads back from.
#[derive(Clone, Debug)]
pub struct Index {
    pub(crate) opts: IndexOptions,
    /// Where ads are read back when units do not hold them.
    pub(crate) source: Option<Arc<dyn AdSource>>,
    pub(crate) ads: FxHashMap<AdId, Few>,
    pub(crate) units: Vec<Option<UnitData>>,
    free_units: Vec<u32>,
    pub(crate) rids: Rids<RidOwner>,
    /// How sets of RIDs map onto ads a word at a time, found when first wanted after the RIDs
    /// last changed (`ad_words.rs`).
    pub(crate) ad_words: OnceLock<AdWords>,
    /// Each RID's rectangle bounds (Exp, sorted by attribute) as a number in `rect_table`.
    pub(crate) rects: Vec<u32>,
    /// The distinct rectangle bounds (a pool of slot ads shares a few dozen).
    pub(crate) rect_table: Counted<Bounds, ()>,
    pub(crate) exported: FxHashMap<Key, ExportedAxis>,
    pub(crate) imported: FxHashMap<Key, ImportedAxis>,
    pub(crate) deviant_exported: Bits,
    /// RIDs whose unit's constraint did not convert exactly.
    pub(crate) inexact: Bits,
    /// RIDs standing for units whose constraint is never true (no rectangle): they carry the
    /// unit's values for one-sided queries and match nothing else.
    pub(crate) never: Bits,
    /// Every live RID (the universal set `U`).
    pub(crate) live: Bits,
    /// Live units with more than one rectangle (when none, RIDs stand for units one to one).
    pub(crate) multi: usize,
    /// The RIDs of those units after their first: a set of RIDs names as many units as it
    /// holds RIDs not here, and the units of those here whose first it lacks.
    pub(crate) extra: Bits,
    /// Ads with more than one unit (ports; when none, the units among some RIDs are their
    /// ads).
    pub(crate) several: usize,
    pub(crate) deferring: bool,
    pub(crate) counters: Counters,
}

impl Default for Index {
    fn default() -> Index {
        Index::new(IndexOptions::default())
    }
}

impl Index {
    /// An empty index.
    pub fn new(opts: IndexOptions) -> Index {
        Index {
            opts,
            source: None,
            ads: FxHashMap::default(),
            units: Vec::new(),
            free_units: Vec::new(),
            rids: Rids::new(),
            ad_words: OnceLock::new(),
            rects: Vec::new(),
            rect_table: Counted::default(),
            exported: FxHashMap::default(),
            imported: FxHashMap::default(),
            deviant_exported: Bits::new(),
            inexact: Bits::new(),
            never: Bits::new(),
            live: Bits::new(),
            multi: 0,
            extra: Bits::new(),
            several: 0,
            deferring: false,
            counters: Counters::default(),
        }
    }

    /// An empty index that keeps no ads in memory: it reads them from `source` when it must
    /// evaluate (inexact candidates) or give an attribute an imported axis.
    pub fn with_source(opts: IndexOptions, source: Arc<dyn AdSource>) -> Index {
        Index {
            source: Some(source),
            ..Index::new(opts)
        }
    }

    /// Reads ads back from `source` from now on (an index restored before its source could
    /// be opened: no query may run on it before).
    pub fn set_source(&mut self, source: Arc<dyn AdSource>) {
        self.source = Some(source);
    }

    /// Where it reads ads back, if it keeps none in memory ([`Index::with_source`]).
    pub fn source(&self) -> Option<Arc<dyn AdSource>> {
        self.source.clone()
    }

    /// The options.
    pub fn options(&self) -> &IndexOptions {
        &self.opts
    }

    /// The number of ads stored.
    pub fn len(&self) -> usize {
        self.ads.len()
    }

    /// Whether no ad is stored.
    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
    }

    /// The ids of the ads stored (in no particular order).
    pub fn ad_ids(&self) -> impl Iterator<Item = AdId> + '_ {
        self.ads.keys().copied()
    }

    /// Whether ad `id` is stored.
    pub fn contains(&self, id: AdId) -> bool {
        self.ads.contains_key(&id)
    }

    /// The number of rectangles stored.
    pub fn rectangles(&self) -> usize {
        self.rids.len()
    }

    /// The ad and port a RID's rectangle belongs to.
    pub fn owner(&self, rid: u32) -> Option<(AdId, Option<u16>)> {
        let u = self.unit(self.rids.owner(rid)?.unit)?;
        Some((u.ad, u.port))
    }

    /// The RIDs of ad `id`'s rectangles.
    pub fn rids_of(&self, id: AdId) -> Vec<u32> {
        self.ads
            .get(&id)
            .into_iter()
            .flatten()
            .filter_map(|&u| self.unit(u))
            .flat_map(|u| u.rids.iter().copied())
            .collect()
    }

    /// What the ads without ports hold on the imported axes of `attrs`, in one pass over
    /// them: `f(ad, i, value)` for each such ad and each `attrs[i]` with an imported axis
    /// ([`Index::ensure_imported`]), the value being the ad's as the other side's
    /// constraints read it ([`crate::imp_value`]). Ads in no particular order.
    pub fn imported_values<'a>(
        &'a self,
        attrs: &[Key],
        mut f: impl FnMut(AdId, usize, &'a ImpValue),
    ) {
        let axes: Vec<(usize, &ImportedAxis)> = attrs
            .iter()
            .enumerate()
            .filter_map(|(i, k)| Some((i, self.imported.get(k)?)))
            .collect();
        for u in self.units.iter().flatten().filter(|u| u.port.is_none()) {
            let Some(&rid) = u.rids.first() else { continue };
            for &(i, axis) in &axes {
                if let Some(v) = axis.value(rid) {
                    f(u.ad, i, v);
                }
            }
        }
    }

    /// The attributes with an exported axis (some stored constraint bounds them), sorted.
    pub fn exported_attrs(&self) -> Vec<Key> {
        let mut v: Vec<Key> = self.exported.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Whether every stored ad's value of each of `keys` is known to be a constant (each has
    /// an imported axis, none of whose values is deviant): then a constraint over those
    /// attributes alone has the same answer whatever ad plays TARGET
    /// ([`Query::against`](crate::Query::against)).
    pub fn constant_values(&self, keys: &[Key]) -> bool {
        keys.iter()
            .all(|k| self.imported.get(k).is_some_and(|a| a.deviant().is_empty()))
    }

    /// The attributes with an imported axis, sorted.
    pub fn imported_attrs(&self) -> Vec<Key> {
        let mut v: Vec<Key> = self.imported.keys().copied().collect();
        v.sort_unstable();
        v
    }

    /// Whether attribute `k` has an imported axis.
    pub fn has_imported(&self, k: &Key) -> bool {
        self.imported.contains_key(k)
    }

    /// The exported side of ad `id`'s constraint when the index converted it exactly: `f` is
    /// called with the bounds of each of its rectangles (sorted by attribute; never, when the
    /// constraint is never true) and the answer is `true`. `false` (and `f` not called) when
    /// the ad is not stored, has ports, or its constraint did not convert exactly — only
    /// evaluating it tells then.
    pub fn exact_bounds<'a>(
        &'a self,
        id: AdId,
        mut f: impl FnMut(&'a [(Key, MangledInterval)]),
    ) -> bool {
        let unit = match self.ads.get(&id).map(|f| &**f) {
            Some(&[u]) => match self.unit(u) {
                Some(unit) if unit.port.is_none() => unit,
                _ => return false,
            },
            _ => return false,
        };
        if unit.rids.iter().any(|&r| self.inexact.contains(r)) {
            return false;
        }
        for &r in &unit.rids {
            if self.never.contains(r) {
                continue;
            }
            if let Some((Bounds(exp), _)) = self
                .rects
                .get(r as usize)
                .and_then(|&i| self.rect_table.get(i))
            {
                f(exp);
            }
        }
        true
    }

    /// Marks `rid` live, inexact unless `exact`, and never true when `never` (a rectangle
    /// added, or restored).
    pub(crate) fn mark_live(&mut self, rid: u32, exact: bool, never: bool) {
        if !exact {
            self.inexact.insert(rid);
        }
        if never {
            self.never.insert(rid);
        }
        self.live.insert(rid);
    }

    /// The ads of `ads` held as one exactly converted rectangle and no ports, as their RIDs;
    /// and the others, but those whose constraint is exactly never true (ports, inexact,
    /// several rectangles, not stored: only reading them tells).
    pub fn single_exact(&self, ads: &roaring::RoaringBitmap) -> (Bits, Vec<AdId>) {
        let mut one = Bits::new();
        let mut rest = Vec::new();
        for id in ads {
            let unit = match self.ads.get(&id).map(|f| &**f) {
                Some(&[u]) => self.unit(u).filter(|u| u.port.is_none()),
                _ => None,
            };
            let rids = unit.map_or(&[][..], |u| &*u.rids);
            match rids {
                [r] if !self.inexact.contains(*r) => {
                    if !self.never.contains(*r) {
                        one.insert(*r);
                    }
                }
                _ => rest.push(id),
            }
        }
        (one, rest)
    }

    /// The RIDs of `within` whose rectangle bounds `attr`.
    pub fn bounding(&self, attr: Key, within: &Bits) -> Bits {
        match self.exported.get(&attr) {
            Some(axis) => within.and(axis.rids()),
            None => Bits::new(),
        }
    }

    /// How many RIDs of `within` bound `attr` by an interval containing `v` (a stab of the
    /// attribute's exported axis).
    pub fn stab_count(&self, attr: Key, within: &Bits, v: &MangledValue) -> u64 {
        match self.exported.get(&attr) {
            Some(axis) => axis.stab(within, &Pos::point(v.clone())).len(),
            None => 0,
        }
    }

    /// Whether every unit has at most one rectangle, so that RIDs stand for units.
    pub(crate) fn one_rect_per_unit(&self) -> bool {
        self.multi == 0
    }

    /// Whether no ad has more than one unit.
    pub(crate) fn one_unit_per_ad(&self) -> bool {
        self.several == 0
    }

    pub(crate) fn unit(&self, u: u32) -> Option<&UnitData> {
        self.units.get(u as usize)?.as_ref()
    }

    /// A snapshot of the counters and sizes.
    pub fn stats(&self) -> Stats {
        let c = &self.counters;
        let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
        Stats {
            ads: self.ads.len() as u64,
            units: (self.units.len() - self.free_units.len()) as u64,
            rectangles: self.rids.len() as u64,
            exported_axes: self.exported.len() as u64,
            imported_axes: self.imported.len() as u64,
            queries: get(&c.queries),
            probes: get(&c.probes),
            filtered: get(&c.filtered),
            candidates: get(&c.candidates),
            exact: get(&c.exact),
            evaluations: get(&c.evaluations),
            confirmed: get(&c.confirmed),
        }
    }

    /// Bytes held by the axes' checkpoints and sets (an estimate, for memory per ad).
    pub fn axis_bytes(&self) -> usize {
        self.exported
            .values()
            .map(ExportedAxis::bytes)
            .sum::<usize>()
            + self
                .imported
                .values()
                .map(ImportedAxis::bytes)
                .sum::<usize>()
    }

    /// Stores ad `id` (replacing any ad stored under it): one unit per port, one rectangle
    /// per profile (and `!=` split) of each unit's constraint.
    pub fn insert(&mut self, id: AdId, ad: Arc<ClassAd>) -> Result<Inserted, IndexError> {
        let converted = self.converter().convert(&ad);
        self.insert_converted(id, converted)
    }

    /// What converts ads for this index (e.g. on other threads, ahead of
    /// [`Index::insert_converted`]). It is valid until an attribute gets an imported axis.
    pub fn converter(&self) -> Converter {
        Converter {
            opts: self.opts.clone(),
            imported: self.imported.keys().copied().collect(),
            keep_views: self.source.is_none(),
        }
    }

    /// Stores ad `id` as converted by this index's [`Converter`] (replacing any ad stored
    /// under it).
    pub fn insert_converted(
        &mut self,
        id: AdId,
        converted: Converted,
    ) -> Result<Inserted, IndexError> {
        self.remove(id);
        let mut report = Inserted {
            exact: true,
            ..Inserted::default()
        };
        let mut stored = Vec::new();
        for unit in converted.units {
            report.exact &= unit.rects.exact;
            report.rectangles += unit.rects.rects.len();
            report
                .errors
                .extend(unit.rects.errors.iter().map(|e| (unit.port, *e)));
            let placed = self.place_unit(
                id,
                unit.port,
                unit.view,
                unit.rects.rects,
                unit.rects.exact,
                unit.imp,
            );
            match placed {
                Ok(u) => stored.push(u),
                Err(e) => {
                    for u in stored {
                        self.drop_unit(u);
                    }
                    return Err(e);
                }
            }
        }
        self.several += usize::from(stored.len() > 1);
        self.ads.insert(id, Few::from(stored));
        Ok(report)
    }

    /// Stores many ads, building the axes' checkpoints once at the end.
    pub fn extend<I>(&mut self, ads: I) -> Result<Inserted, IndexError>
    where
        I: IntoIterator<Item = (AdId, Arc<ClassAd>)>,
    {
        self.deferring = true;
        let mut total = Inserted {
            exact: true,
            ..Inserted::default()
        };
        let mut result = Ok(());
        // No axis is imported during the load: one converter serves every ad.
        let converter = self.converter();
        for (id, ad) in ads {
            match self.insert_converted(id, converter.convert(&ad)) {
                Ok(r) => {
                    total.rectangles += r.rectangles;
                    total.errors.extend(r.errors);
                    total.exact &= r.exact;
                }
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.deferring = false;
        self.rebuild_axes();
        result.map(|()| total)
    }

    pub(crate) fn rebuild_axes(&mut self) {
        for a in self.exported.values_mut() {
            a.rebuild();
        }
        for a in self.imported.values_mut() {
            a.rebuild();
        }
    }

    /// Stores a converted unit: its rectangles (none: its constraint is never true), whether
    /// they are exact, and its imported values.
    pub(crate) fn place_unit(
        &mut self,
        id: AdId,
        port: Option<u16>,
        view: Option<Arc<ClassAd>>,
        rects: Vec<crate::rectangle::Rectangle>,
        exact: bool,
        imp: Vec<(Key, ImpValue)>,
    ) -> Result<u32, IndexError> {
        self.multi += usize::from(rects.len() > 1);
        let data = UnitData {
            ad: id,
            port,
            view,
            rids: Few::default(),
        };
        let u = match self.free_units.pop() {
            Some(u) => {
                self.units[u as usize] = Some(data);
                u
            }
            None => {
                self.units.push(Some(data));
                (self.units.len() - 1) as u32
            }
        };
        // A unit whose constraint is never true still has values a one-sided query may want:
        // it gets one RID with no bounds, in `never`.
        let never = rects.is_empty();
        let rects = if never {
            vec![crate::rectangle::Rectangle {
                exp: Vec::new(),
                deviant: false,
            }]
        } else {
            rects
        };
        for rect in rects {
            self.ad_words.take();
            let rid = match self.rids.allocate(RidOwner { unit: u, ad: id }) {
                Ok(r) => r,
                Err(e) => {
                    self.drop_unit(u);
                    return Err(e.into());
                }
            };
            let defer = self.deferring;
            for (k, iv) in &rect.exp {
                self.exported.entry(*k).or_default().insert(iv, rid, defer);
            }
            if rect.deviant {
                self.deviant_exported.insert(rid);
            }
            self.mark_live(rid, exact, never);
            for (k, v) in &imp {
                if let Some(axis) = self.imported.get_mut(k) {
                    axis.insert(v, rid, defer);
                }
            }
            if let Some(Some(data)) = self.units.get_mut(u as usize) {
                if !data.rids.is_empty() {
                    self.extra.insert(rid);
                }
                data.rids.push(rid);
            }
            let i = self
                .rect_table
                .add_many(&Bounds(rect.exp.into()), 1, |_| ());
            put(&mut self.rects, rid, i);
        }
        Ok(u)
    }

    /// Removes ad `id`; returns whether it was stored.
    pub fn remove(&mut self, id: AdId) -> bool {
        let Some(us) = self.ads.remove(&id) else {
            return false;
        };
        self.several -= usize::from(us.len() > 1);
        for &u in us.iter() {
            self.drop_unit(u);
        }
        true
    }

    /// Purges a unit's rectangles from every structure, then releases its RIDs.
    fn drop_unit(&mut self, u: u32) {
        let Some(data) = self.units.get_mut(u as usize).and_then(Option::take) else {
            return;
        };
        self.multi -= usize::from(data.rids.len() > 1);
        let defer = self.deferring;
        for &rid in &data.rids {
            self.extra.remove(rid);
            if let Some((Bounds(exp), _)) = self
                .rects
                .get(rid as usize)
                .and_then(|&i| self.rect_table.get(i))
            {
                for (k, _) in exp.iter() {
                    if let Some(axis) = self.exported.get_mut(k) {
                        axis.remove(rid, defer);
                        if axis.is_empty() {
                            self.exported.remove(k);
                        }
                    }
                }
            }
            take(&mut self.rects, rid, &mut self.rect_table);
            for axis in self.imported.values_mut() {
                axis.remove(rid, defer);
            }
            self.deviant_exported.remove(rid);
            self.inexact.remove(rid);
            self.never.remove(rid);
            self.live.remove(rid);
            self.rids.release(rid);
            self.ad_words.take();
        }
        self.free_units.push(u);
    }

    /// Gives every attribute of `attrs` an imported axis, reading the stored units once
    /// (adaptive dimensions). A unit whose ad cannot be read back counts as deviant there:
    /// it stays a candidate, and evaluation decides.
    pub fn ensure_imported(&mut self, attrs: &[Key]) {
        let source = self.source.clone();
        self.ensure_imported_in(attrs, source.as_deref());
    }

    /// [`Index::ensure_imported`] reading the ads from `source` (by this index's ids) when
    /// the units hold no views: for a caller that holds the very versions the index was
    /// made of. An ad `source` does not give counts as deviant.
    pub fn ensure_imported_from(&mut self, attrs: &[Key], source: &dyn AdSource) {
        self.ensure_imported_in(attrs, Some(source));
    }

    fn ensure_imported_in(&mut self, attrs: &[Key], source: Option<&dyn AdSource>) {
        let mut missing: Vec<Key> = attrs
            .iter()
            .copied()
            .filter(|k| !self.imported.contains_key(k))
            .collect();
        missing.sort_unstable();
        missing.dedup();
        if missing.is_empty() {
            return;
        }
        let _span = tracing::debug_span!("import_axes", attrs = missing.len()).entered();
        let opts = self.opts.eval.clone();
        let mut columns: Vec<Column> = missing.iter().map(|_| Column::default()).collect();
        let mut record = |data: &UnitData, view: Option<&ClassAd>| {
            for (&k, column) in missing.iter().zip(&mut columns) {
                let v = view.map_or(ImpValue::Deviant, |ad| imp_value(ad, k, &opts));
                column.add(v, &data.rids);
            }
        };
        match source.filter(|_| self.units.iter().flatten().any(|d| d.view.is_none())) {
            // Views held: read them.
            None => {
                for data in self.units.iter().flatten() {
                    record(data, data.view.as_deref());
                }
            }
            // Ads in a source: one pass over all of them; a unit the pass did not reach
            // (its ad gone or unreadable) counts as deviant.
            Some(source) => {
                let mut done = vec![false; self.units.len()];
                let (ads, units) = (&self.ads, &self.units);
                source.for_each(&mut |id, ad| {
                    let Some(us) = ads.get(&id) else { return };
                    let views = crate::ports::units_for(&ad, &self.opts);
                    for &u in us {
                        let Some(Some(data)) = units.get(u as usize) else {
                            continue;
                        };
                        let view = views.iter().find(|x| x.port == data.port);
                        record(data, view.map(|x| &*x.ad));
                        if let Some(d) = done.get_mut(u as usize) {
                            *d = true;
                        }
                    }
                });
                for (data, _) in units
                    .iter()
                    .zip(&done)
                    .filter(|(_, d)| !**d)
                    .filter_map(|(u, d)| Some((u.as_ref()?, d)))
                {
                    record(data, None);
                }
            }
        }
        for (k, column) in missing.into_iter().zip(columns) {
            self.imported.insert(k, column.axis());
        }
    }

    /// The views of units `us`, in order: held, or read from `source` in one batch (each ad
    /// once); `None` for a unit that is gone or whose ad cannot be read.
    pub(crate) fn views_from(
        &self,
        us: &[u32],
        source: Option<&dyn AdSource>,
    ) -> Vec<Option<Arc<ClassAd>>> {
        let held = |u: u32| self.unit(u).and_then(|d| d.view.clone());
        let Some(source) = source else {
            return us.iter().map(|&u| held(u)).collect();
        };
        // Units holding their views use them; the others are read from `source`, each ad once.
        let mut ids: Vec<AdId> = us
            .iter()
            .filter_map(|&u| self.unit(u).filter(|d| d.view.is_none()).map(|d| d.ad))
            .collect();
        if ids.is_empty() {
            return us.iter().map(|&u| held(u)).collect();
        }
        ids.sort_unstable();
        ids.dedup();
        let fetched = source.fetch(&ids);
        let by_ad: FxHashMap<AdId, Vec<Unit>> = ids
            .into_iter()
            .zip(fetched)
            .filter_map(|(id, ad)| Some((id, units_for(&ad?, &self.opts))))
            .collect();
        us.iter()
            .map(|&u| {
                let d = self.unit(u)?;
                if let Some(v) = &d.view {
                    return Some(Arc::clone(v));
                }
                let found = by_ad.get(&d.ad)?.iter().find(|x| x.port == d.port)?;
                Some(Arc::clone(&found.ad))
            })
            .collect()
    }

    /// Checks every structure against the stored units (tests).
    #[cfg(test)]
    pub(crate) fn check(&self) {
        let mut live = roaring::RoaringBitmap::new();
        for (u, data) in self.units.iter().enumerate() {
            let Some(data) = data else { continue };
            assert!(self.ads[&data.ad].contains(&(u as u32)));
            for &rid in &data.rids {
                let owner = RidOwner {
                    unit: u as u32,
                    ad: data.ad,
                };
                assert_eq!(self.rids.owner(rid), Some(&owner));
                let (Bounds(exp), _) = self
                    .rect_table
                    .get(self.rects[rid as usize])
                    .expect("record");
                for (k, iv) in exp.iter() {
                    assert_eq!(self.exported[k].interval(rid), Some(iv));
                }
                if self.never.contains(rid) {
                    assert!(exp.is_empty());
                }
                for axis in self.imported.values() {
                    let v = axis.value(rid).expect("a value on every imported axis");
                    assert_eq!(axis.deviant().contains(rid), *v == ImpValue::Deviant);
                    assert_eq!(Some(v), axis.value(data.rids[0]), "one value per unit");
                }
                live.insert(rid);
            }
        }
        assert_eq!(&live, self.rids.live());
        assert_eq!(Bits::from_roaring(&live), self.live);
        for axis in self.exported.values() {
            assert!(!axis.is_empty());
            for rid in axis.rids().iter() {
                assert!(self.live.contains(rid));
                assert!(axis.interval(rid).is_some());
                let (Bounds(exp), _) = self
                    .rect_table
                    .get(self.rects[rid as usize])
                    .expect("record");
                assert!(exp.iter().any(|(_, iv)| Some(iv) == axis.interval(rid)));
            }
        }
    }
}

/// One attribute's values as read for a new imported axis, built in one go
/// ([`ImportedAxis::from_column`]) instead of value by value.
#[derive(Default)]
struct Column {
    /// The distinct values, numbered in the order first met.
    numbers: FxHashMap<ImpValue, u32>,
    table: Vec<ImpValue>,
    /// (RID, number of its value).
    each: Vec<(u32, u32)>,
}

impl Column {
    /// RIDs `rids` hold value `v`.
    fn add(&mut self, v: ImpValue, rids: &[u32]) {
        let table = &mut self.table;
        let n = *self.numbers.entry(v).or_insert_with_key(|v| {
            table.push(v.clone());
            table.len() as u32 - 1
        });
        self.each.extend(rids.iter().map(|&r| (r, n)));
    }

    /// The axis of the values added (what inserting each then rebuilding gives).
    fn axis(mut self) -> ImportedAxis {
        // A RID is one unit's, read once.
        self.each.sort_unstable();
        debug_assert!(self.each.windows(2).all(|w| w[0].0 != w[1].0));
        let positions = vec![None; self.table.len()];
        ImportedAxis::from_column(&self.table, &positions, self.each)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    /// `exact_bounds` hands out the rectangles of exactly converted ads only: one per `!=`
    /// alternative, none for a constraint never true, and refuses inexact ones, ads with
    /// ports and ads not stored.
    #[test]
    fn exact_bounds_of_exact_ads_only() {
        let ads = [
            (
                "[Requirements = TARGET.Memory >= 10 && TARGET.Arch == \"X\"]",
                Some(vec![2]),
            ),
            ("[Requirements = TARGET.Memory != 10]", Some(vec![1, 1])),
            (
                "[Requirements = TARGET.Memory > 10 && TARGET.Memory < 5]",
                Some(vec![]),
            ),
            ("[Requirements = false]", Some(vec![])),
            ("[Requirements = TARGET.Arch =?= \"X\"]", None),
            (
                "[Requirements = TARGET.Memory > 1 || TARGET.Arch == \"X\"]",
                None,
            ),
            (
                "[Ports = {[Label = \"a\"; Requirements = TARGET.Memory > 1]}]",
                None,
            ),
        ];
        let mut index = Index::default();
        for (i, (text, _)) in ads.iter().enumerate() {
            let ad = Arc::new(parse::classad(text).expect("ad"));
            index.insert(i as AdId, ad).expect("insert");
        }
        for (i, (text, want)) in ads.iter().enumerate() {
            let mut got = Vec::new();
            let exact = index.exact_bounds(i as AdId, |r| got.push(r.len()));
            assert_eq!(exact.then_some(got), *want, "{text}");
        }
        assert!(!index.exact_bounds(99, |_| {}));
    }

    /// `single_exact` splits ads into the RIDs of one exact rectangle each and the rest
    /// (never-true ones in neither); `bounding` and `stab_count` count them per attribute as
    /// checking each rectangle would.
    #[test]
    fn stab_counts_over_single_exact_ads() {
        let ads = [
            "[Requirements = TARGET.Memory >= 10]",
            "[Requirements = TARGET.Memory >= 20 && TARGET.Arch == \"X\"]",
            "[Requirements = TARGET.Memory < 15]",
            "[Requirements = TARGET.Arch == \"x\"]",
            "[Requirements = TARGET.Memory != 12]",
            "[Requirements = TARGET.Memory =?= 12]",
            "[Requirements = false]",
        ];
        let mut index = Index::default();
        for (i, text) in ads.iter().enumerate() {
            let ad = Arc::new(parse::classad(text).expect("ad"));
            index.insert(i as AdId, ad).expect("insert");
        }
        let all: roaring::RoaringBitmap = (0..ads.len() as u32).collect();
        let (one, rest) = index.single_exact(&all);
        assert_eq!(one.len(), 4);
        assert_eq!(rest, vec![4, 5]);
        let memory = Key::of("Memory");
        let arch = Key::of("Arch");
        let bounding = index.bounding(memory, &one);
        assert_eq!(bounding.len(), 3);
        let num = |i: i64| MangledValue::Number(crate::mangle::NumKey::from_int(i));
        let table = [(5, 1), (12, 2), (15, 1), (25, 2)];
        for (v, inside) in table {
            assert_eq!(index.stab_count(memory, &bounding, &num(v)), inside, "{v}");
        }
        let str_key = MangledValue::String(crate::mangle::StrKey::fold("X"));
        let arch_bounding = index.bounding(arch, &one);
        assert_eq!(arch_bounding.len(), 2);
        assert_eq!(index.stab_count(arch, &arch_bounding, &str_key), 2);
        assert_eq!(index.stab_count(arch, &arch_bounding, &num(1)), 0);
        assert_eq!(index.stab_count(Key::of("Gpus"), &one, &num(1)), 0);
    }

    proptest::proptest! {
        /// A column built in one go is the axis inserting each value, then rebuilding, gives.
        #[test]
        fn a_column_is_its_values_inserted(
            units in proptest::collection::vec((0u8..8, 1usize..3), 0..60),
            order in proptest::collection::vec(0usize..60, 0..20),
        ) {
            use crate::mangle::test_key;
            use adjoin_query::Value;
            let value = |v: u8| match v {
                0 => ImpValue::Absent,
                1 => ImpValue::Deviant,
                2 => ImpValue::Point(test_key(&Value::str("linux"))),
                3 => ImpValue::Point(test_key(&Value::Real(2.0))),
                v => ImpValue::Point(test_key(&Value::Int(i64::from(v) / 2))),
            };
            // Units' RIDs, consecutive; read in a shuffled order.
            let mut next = 0u32;
            let mut rids: Vec<(ImpValue, Vec<u32>)> = units
                .iter()
                .map(|&(v, n)| {
                    let r: Vec<u32> = (next..next + n as u32).collect();
                    next += n as u32;
                    (value(v), r)
                })
                .collect();
            for (i, &j) in order.iter().enumerate() {
                if i < rids.len() && j < rids.len() {
                    rids.swap(i, j);
                }
            }
            let mut column = Column::default();
            let mut inserted = ImportedAxis::new();
            for (v, r) in &rids {
                column.add(v.clone(), r);
                for &rid in r {
                    inserted.insert(v, rid, true);
                }
            }
            inserted.rebuild();
            let built = column.axis();
            let all = Bits::from_rids(0..next);
            for rid in 0..next {
                proptest::prop_assert_eq!(built.value(rid), inserted.value(rid));
            }
            proptest::prop_assert_eq!(built.deviant(), inserted.deviant());
            proptest::prop_assert_eq!(built.distinct(), inserted.distinct());
            let ends = [Value::Int(0), Value::Int(1), Value::Int(3), Value::Real(2.0), Value::str("linux")];
            for lo in &ends {
                for hi in &ends {
                    let (lo, hi) = (Pos::point(test_key(lo)), Pos::point(test_key(hi)));
                    proptest::prop_assert_eq!(built.window(&all, &lo, &hi), inserted.window(&all, &lo, &hi));
                }
            }
        }
    }
}
