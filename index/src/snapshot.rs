//! Snapshots: an index's converted contents as plain data, so that a restart restores the
//! index without reading or converting a single ad (the expensive part of a rebuild).
//!
//! A snapshot ([`IndexSnapshot`], layout 2) holds the units column by column: per unit its ad,
//! its number of rectangles and whether they are exact; per rectangle its number of bounds and
//! the deviant flag; per bound its attribute and interval; per imported attribute each unit's
//! value. Intervals and values are numbers into tables holding each distinct one once (a
//! million slot ads have a few dozen distinct `Memory` values), so that decoding is a few
//! plain integer arrays and restoring computes each distinct position once.
//! [`Index::restore`] places the units again and builds each axis from its column at once.
//! Attribute keys are interned per process, so a snapshot names attributes by their text.
//! Views are not kept: a restored index reads its ads back from an [`AdSource`] when it must
//! evaluate. How the snapshot is stored, and that it is still current, is the caller's
//! business (the database checks its store's generation).
//!
//! The first layout ([`IndexSnapshotV1`]: the units as a list of records, each with its own
//! rectangles and values) is still read, and converted.

use crate::axis::{ExportedAxis, ImportedAxis};
use crate::few::Few;
use crate::index::{AdId, AdSource, Bounds, Index, IndexError, IndexOptions, RidOwner, UnitData};
use crate::position::{ends, Pos};
use crate::property::MangledInterval;
use crate::rectangle::ImpValue;
use crate::rid::Rids;
use adjoin_query::Key;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::hash::Hash;
use std::sync::Arc;
use thiserror::Error;

/// An index's contents as plain data, column by column ([`Index::snapshot`],
/// [`Index::restore`]; see the module note).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexSnapshot {
    /// The attribute names the bounds refer to, by position.
    names: Vec<String>,
    /// The attributes with an imported axis (positions in `names`).
    imported: Vec<u32>,
    /// The distinct intervals of the bounds.
    intervals: Vec<MangledInterval>,
    /// The distinct imported values.
    values: Vec<ImpValue>,
    /// Per unit (units by ad, then port): its ad.
    unit_ad: Vec<AdId>,
    /// The units that are ports: `(unit, port)`, by unit.
    unit_port: Vec<(u32, u16)>,
    /// Per unit: its number of rectangles (none: its constraint is never true).
    unit_rects: Vec<u32>,
    /// The units whose constraint did not convert exactly, increasing.
    inexact: Vec<u32>,
    /// Per rectangle (the units' in order): its number of bounds.
    rect_bounds: Vec<u32>,
    /// The deviant rectangles, increasing.
    deviant: Vec<u32>,
    /// Per bound (the rectangles' in order): its attribute (a position in `names`).
    bound_attr: Vec<u32>,
    /// Per bound: its interval (a position in `intervals`).
    bound_interval: Vec<u32>,
    /// Per imported attribute (in the order of `imported`), per unit: its value (a position
    /// in `values`).
    imp: Vec<Vec<u32>>,
}

/// An index's contents as the first snapshot layout had them: a list of units, each with its
/// own rectangles and values. Read only, to restore checkpoints written before layout 2
/// (`IndexSnapshot::from`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexSnapshotV1 {
    /// The attribute names the units refer to, by position.
    names: Vec<String>,
    /// The attributes with an imported axis (positions in `names`).
    imported: Vec<u32>,
    /// The units, by ad and port.
    units: Vec<UnitSnapshot>,
}

/// One stored unit (layout 1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct UnitSnapshot {
    ad: AdId,
    port: Option<u16>,
    /// Each rectangle's bounds (attribute positions in `names`) and deviant flag; none when
    /// the unit's constraint is never true.
    rects: Vec<(Vec<(u32, MangledInterval)>, bool)>,
    exact: bool,
    /// The values of the imported attributes, in the order of `imported`.
    imp: Vec<ImpValue>,
}

/// Why a snapshot could not be restored.
#[derive(Debug, Error, PartialEq)]
#[non_exhaustive]
pub enum SnapshotError {
    /// The snapshot contradicts itself (e.g. an attribute position out of range).
    #[error("malformed index snapshot: {0}")]
    Malformed(&'static str),
    /// The index ran out of rectangle ids.
    #[error("restoring: {0}")]
    Index(#[from] IndexError),
}

/// Distinct items numbered in order of first use.
struct Table<T> {
    at: FxHashMap<T, u32>,
    items: Vec<T>,
}

impl<T: Hash + Eq + Clone> Table<T> {
    fn new() -> Table<T> {
        Table {
            at: FxHashMap::default(),
            items: Vec::new(),
        }
    }

    fn of(&mut self, x: &T) -> u32 {
        if let Some(&i) = self.at.get(x) {
            return i;
        }
        let i = self.items.len() as u32;
        self.at.insert(x.clone(), i);
        self.items.push(x.clone());
        i
    }
}

/// Attribute keys numbered in order of first use.
#[derive(Default)]
struct Names {
    pos: FxHashMap<Key, u32>,
    names: Vec<String>,
}

impl Names {
    fn of(&mut self, k: Key) -> u32 {
        let next = self.names.len() as u32;
        *self.pos.entry(k).or_insert_with(|| {
            self.names.push(k.as_str().to_owned());
            next
        })
    }
}

/// A snapshot being written, unit by unit.
struct Columns {
    snap: IndexSnapshot,
    intervals: Table<MangledInterval>,
    values: Table<ImpValue>,
}

impl Columns {
    fn new(names: Vec<String>, imported: Vec<u32>) -> Columns {
        let imp = vec![Vec::new(); imported.len()];
        Columns {
            snap: IndexSnapshot {
                names,
                imported,
                imp,
                ..IndexSnapshot::default()
            },
            intervals: Table::new(),
            values: Table::new(),
        }
    }

    /// Adds a unit: its rectangles (bounds by attribute position, and the deviant flag), its
    /// exactness and its imported values (in the order of `imported`).
    fn unit<'a>(
        &mut self,
        ad: AdId,
        port: Option<u16>,
        rects: impl IntoIterator<Item = (Vec<(u32, &'a MangledInterval)>, bool)>,
        exact: bool,
        imp: impl IntoIterator<Item = &'a ImpValue>,
    ) {
        let s = &mut self.snap;
        let u = s.unit_ad.len() as u32;
        s.unit_ad.push(ad);
        if let Some(p) = port {
            s.unit_port.push((u, p));
        }
        if !exact {
            s.inexact.push(u);
        }
        let mut n = 0;
        for (bounds, deviant) in rects {
            if deviant {
                s.deviant.push(s.rect_bounds.len() as u32);
            }
            s.rect_bounds.push(bounds.len() as u32);
            for (a, iv) in bounds {
                s.bound_attr.push(a);
                s.bound_interval.push(self.intervals.of(iv));
            }
            n += 1;
        }
        s.unit_rects.push(n);
        for (col, v) in s.imp.iter_mut().zip(imp) {
            col.push(self.values.of(v));
        }
    }

    fn finish(mut self) -> IndexSnapshot {
        self.snap.intervals = self.intervals.items;
        self.snap.values = self.values.items;
        self.snap
    }
}

impl IndexSnapshot {
    /// The attributes with an imported axis.
    pub fn imported_names(&self) -> impl Iterator<Item = &str> {
        self.imported
            .iter()
            .filter_map(|&i| self.names.get(i as usize).map(String::as_str))
    }

    /// The number of ads it holds.
    pub fn ads(&self) -> usize {
        let mut n = 0;
        let mut last = None;
        for &a in &self.unit_ad {
            if last != Some(a) {
                n += 1;
                last = Some(a);
            }
        }
        n
    }

    /// The number of units (ads, or their ports) it holds.
    pub fn units(&self) -> usize {
        self.unit_ad.len()
    }
}

impl From<IndexSnapshotV1> for IndexSnapshot {
    fn from(v1: IndexSnapshotV1) -> IndexSnapshot {
        let mut c = Columns::new(v1.names, v1.imported);
        for u in &v1.units {
            let rects = u
                .rects
                .iter()
                .map(|(exp, deviant)| (exp.iter().map(|(a, iv)| (*a, iv)).collect(), *deviant));
            c.unit(u.ad, u.port, rects, u.exact, &u.imp);
        }
        let mut snap = c.finish();
        if v1.units.iter().any(|u| u.imp.len() != snap.imported.len()) {
            // Values missing (or too many): refused at restore, as the columns say.
            snap.imp.iter_mut().for_each(Vec::clear);
        }
        snap
    }
}

/// Whether `v` increases strictly and stays below `end`.
fn increasing_below(v: &[u32], end: usize) -> bool {
    v.windows(2).all(|w| w[0] < w[1]) && v.last().is_none_or(|&x| (x as usize) < end)
}

impl Index {
    /// The index's contents as plain data.
    pub fn snapshot(&self) -> IndexSnapshot {
        let mut names = Names::default();
        let mut imported: Vec<Key> = self.imported.keys().copied().collect();
        imported.sort_unstable();
        let imported_pos: Vec<u32> = imported.iter().map(|&k| names.of(k)).collect();
        let mut ads: Vec<(&AdId, &Few)> = self.ads.iter().collect();
        ads.sort_unstable_by_key(|(id, _)| **id);
        let mut c = Columns::new(Vec::new(), imported_pos);
        let deviant = ImpValue::Deviant;
        for (_, us) in ads {
            for data in us.iter().filter_map(|&u| self.unit(u)) {
                let never = data.rids.iter().any(|&r| self.never.contains(r));
                let rects: Vec<_> = if never {
                    Vec::new()
                } else {
                    data.rids
                        .iter()
                        .map(|&r| {
                            let exp = self
                                .rects
                                .get(r as usize)
                                .and_then(|&i| self.rect_table.get(i))
                                .map_or(&[][..], |(b, _)| &b.0)
                                .iter()
                                .map(|(k, iv)| (names.of(*k), iv))
                                .collect();
                            (exp, self.deviant_exported.contains(r))
                        })
                        .collect()
                };
                let exact = !data.rids.iter().any(|&r| self.inexact.contains(r));
                let first = data.rids.first().copied();
                let imp = imported.iter().map(|k| {
                    self.imported
                        .get(k)
                        .and_then(|a| a.value(first?))
                        .unwrap_or(&deviant)
                });
                c.unit(data.ad, data.port, rects, exact, imp);
            }
        }
        let mut snap = c.finish();
        snap.names = names.names;
        snap
    }

    /// An index holding `snap`'s units, reading ads back from `source` when it must evaluate.
    ///
    /// It is the index placing the units one by one into an empty index gives (unit `i` is
    /// unit number `i`, its rectangles the next RIDs in order), built in one pass: the unit
    /// tables first, then each axis from its column at once (on threads of their own), its
    /// checkpoints built once. Each distinct interval and value is converted to positions once.
    pub fn restore(
        opts: IndexOptions,
        source: Arc<dyn AdSource>,
        snap: IndexSnapshot,
    ) -> Result<Index, SnapshotError> {
        let bad = |m| Err(SnapshotError::Malformed(m));
        let keys: Vec<Key> = snap.names.iter().map(|n| Key::of(n)).collect();
        let key = |i: u32| {
            keys.get(i as usize)
                .copied()
                .ok_or(SnapshotError::Malformed("attribute out of range"))
        };
        let imported: Vec<Key> = snap
            .imported
            .iter()
            .map(|&i| key(i))
            .collect::<Result<_, _>>()?;
        let mut distinct = imported.clone();
        distinct.sort_unstable();
        distinct.dedup();
        if distinct.len() != imported.len() {
            return bad("an imported attribute twice");
        }
        // Every column as long as the others say, every number within its table.
        let n = snap.unit_ad.len();
        let rects: u64 = snap.unit_rects.iter().map(|&r| u64::from(r)).sum();
        let bounds: u64 = snap.rect_bounds.iter().map(|&b| u64::from(b)).sum();
        let ports: Vec<u32> = snap.unit_port.iter().map(|p| p.0).collect();
        if snap.unit_rects.len() != n
            || rects != snap.rect_bounds.len() as u64
            || bounds != snap.bound_attr.len() as u64
            || bounds != snap.bound_interval.len() as u64
        {
            return bad("columns of different lengths");
        }
        if snap.imp.len() != imported.len() || snap.imp.iter().any(|c| c.len() != n) {
            return bad("imported values missing");
        }
        if snap
            .bound_interval
            .iter()
            .any(|&i| i as usize >= snap.intervals.len())
            || snap
                .imp
                .iter()
                .flatten()
                .any(|&v| v as usize >= snap.values.len())
        {
            return bad("a value out of range");
        }
        if !increasing_below(&snap.inexact, n)
            || !increasing_below(&ports, n)
            || !increasing_below(&snap.deviant, snap.rect_bounds.len())
        {
            return bad("a unit or rectangle list out of order");
        }
        let interval_ends: Vec<(Pos, Pos)> = snap.intervals.iter().map(ends).collect();
        let value_points: Vec<Option<Pos>> = snap
            .values
            .iter()
            .map(|v| match v {
                ImpValue::Point(k) => Some(Pos::point(k.clone())),
                _ => None,
            })
            .collect();

        let mut idx = Index::with_source(opts, source);
        idx.ads.reserve(n);
        idx.units.reserve(n);
        let mut owners: Vec<Option<RidOwner>> = Vec::with_capacity(n);
        // Per exported attribute, per interval number: its RIDs, increasing.
        let mut columns: FxHashMap<Key, FxHashMap<u32, Vec<u32>>> = FxHashMap::default();
        let (mut inexact, mut ports, mut deviant) = (
            snap.inexact.iter().peekable(),
            snap.unit_port.iter().peekable(),
            snap.deviant.iter().peekable(),
        );
        let (mut rect, mut bound) = (0_usize, 0_usize);
        // Each distinct run of bounds (as the columns hold it) and its record's number.
        let mut records: FxHashMap<Vec<(u32, u32)>, u32> = FxHashMap::default();
        let mut raw: Vec<(u32, u32)> = Vec::new();
        idx.rects.reserve(n);
        for (u, (&ad, &count)) in (0_u32..).zip(snap.unit_ad.iter().zip(&snap.unit_rects)) {
            let exact = inexact.next_if(|&&x| x == u).is_none();
            let port = ports.next_if(|p| p.0 == u).map(|p| p.1);
            idx.multi += usize::from(count > 1);
            let never = count == 0;
            let mut rids = Few::default();
            for nth in 0..count.max(1) {
                let rid = u32::try_from(owners.len()).map_err(|_| IndexError::RidsExhausted)?;
                owners.push(Some(RidOwner { unit: u, ad }));
                if nth > 0 {
                    idx.extra.insert(rid);
                }
                let mut record = None;
                if !never {
                    let nb = snap.rect_bounds[rect] as usize;
                    let run =
                        (bound..bound + nb).map(|b| (snap.bound_attr[b], snap.bound_interval[b]));
                    raw.clear();
                    raw.extend(run);
                    for &(a, iv) in &raw {
                        columns
                            .entry(key(a)?)
                            .or_default()
                            .entry(iv)
                            .or_default()
                            .push(rid);
                    }
                    record = match records.get(raw.as_slice()) {
                        Some(&i) => {
                            idx.rect_table.raise(i);
                            Some(i)
                        }
                        None => {
                            let mut exp = raw
                                .iter()
                                .map(|&(a, iv)| Ok((key(a)?, snap.intervals[iv as usize].clone())))
                                .collect::<Result<Vec<_>, SnapshotError>>()?;
                            // Keys order by this process's interning: sort again.
                            exp.sort_unstable_by_key(|(k, _)| *k);
                            if exp.windows(2).any(|w| w[0].0 == w[1].0) {
                                return bad("an attribute bounded twice");
                            }
                            let i = idx.rect_table.add_many(&Bounds(exp.into()), 1, |_| ());
                            records.insert(raw.clone(), i);
                            Some(i)
                        }
                    };
                    if deviant.next_if(|&&d| d as usize == rect).is_some() {
                        idx.deviant_exported.insert(rid);
                    }
                    bound += nb;
                    rect += 1;
                }
                let i = match record {
                    Some(i) => i,
                    None => idx.rect_table.add_many(&Bounds(Box::new([])), 1, |_| ()),
                };
                idx.rects.push(i);
                idx.mark_live(rid, exact, never);
                rids.push(rid);
            }
            idx.units.push(Some(UnitData {
                ad,
                port,
                view: None,
                rids,
            }));
            idx.ads.entry(ad).or_default().push(u);
        }
        idx.several = idx.ads.values().filter(|us| us.len() > 1).count();
        idx.rids = Rids::from_owners(owners);
        idx.ad_words.take();
        // The axes, each from its column, on threads of their own.
        let (units, ends_of, points) = (&idx.units, &interval_ends, &value_points);
        let (values, imp, intervals) = (&snap.values, &snap.imp, &snap.intervals);
        let (exported, imported_axes) = std::thread::scope(|scope| {
            let exported: Vec<_> = columns
                .into_iter()
                .map(|(k, by_interval)| {
                    let axis = scope.spawn(move || {
                        let groups = by_interval.into_iter().map(|(iv, rids)| {
                            let iv = iv as usize;
                            (&intervals[iv], &ends_of[iv], rids)
                        });
                        ExportedAxis::from_groups(groups)
                    });
                    (k, axis)
                })
                .collect();
            let imported_axes: Vec<_> = imported
                .iter()
                .zip(imp)
                .map(|(&k, col)| {
                    let axis = scope.spawn(move || {
                        let each = units
                            .iter()
                            .flatten()
                            .zip(col)
                            .flat_map(|(d, &v)| d.rids.iter().map(move |&r| (r, v)));
                        ImportedAxis::from_column(values, points, each)
                    });
                    (k, axis)
                })
                .collect();
            let exported = exported
                .into_iter()
                .map(|(k, h)| Ok((k, join(h)?)))
                .collect::<Result<FxHashMap<_, _>, SnapshotError>>();
            let imported_axes = imported_axes
                .into_iter()
                .map(|(k, h)| Ok((k, join(h)?)))
                .collect::<Result<FxHashMap<_, _>, SnapshotError>>();
            (exported, imported_axes)
        });
        idx.exported = exported?;
        idx.imported = imported_axes?;
        Ok(idx)
    }
}

/// An axis built on a thread of its own.
fn join<T>(h: std::thread::ScopedJoinHandle<'_, T>) -> Result<T, SnapshotError> {
    h.join()
        .map_err(|_| SnapshotError::Malformed("an axis could not be built"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::Query;
    use adjoin_query::{parse, ClassAd};

    const ADS: &[&str] = &[
        r#"[Name = "a"; Memory = 2048; Arch = "X86_64"; Requirements = TARGET.Size < 500]"#,
        r#"[Name = "b"; Memory = 512; Requirements = TARGET.Size < 500 || TARGET.Owner == "x"]"#,
        r#"[Name = "c"; Memory = 4096; Requirements = false]"#,
        r#"[Name = "d"; Memory = "lots"; Requirements = TARGET.Size >= Memory]"#,
        r#"[Name = "e"; Ports = {[Label = h1; Cpus = 2], [Label = h2; Cpus = 4]}]"#,
        r#"[Name = "f"; Memory = 8192; Requirements = isUndefined(TARGET.Size)]"#,
        r#"[Name = "g"; Memory = 100; Requirements = TARGET.Size < 500 && TARGET.Owner == "x"]"#,
    ];

    fn ads() -> Vec<Arc<ClassAd>> {
        ADS.iter()
            .map(|t| Arc::new(parse::classad(t).expect("ad")))
            .collect()
    }

    fn built(with_imports: bool) -> Index {
        let mut idx = Index::new(IndexOptions::default());
        idx.extend((0..).zip(ads())).expect("extend");
        if with_imports {
            idx.ensure_imported(&[Key::of("Memory"), Key::of("Cpus")]);
        }
        idx
    }

    fn restored(idx: &Index) -> Index {
        let snap = idx.snapshot();
        assert_eq!(snap.ads(), ADS.len());
        // Through bytes, as a file holds it.
        let bytes = bincode::serialize(&snap).expect("encode");
        let back: IndexSnapshot = bincode::deserialize(&bytes).expect("decode");
        assert_eq!(back, snap);
        Index::restore(IndexOptions::default(), Arc::new(ads()), back).expect("restore")
    }

    #[test]
    fn a_restored_index_answers_as_the_original() {
        for with_imports in [false, true] {
            let mut a = built(with_imports);
            let mut b = restored(&a);
            b.check();
            assert_eq!(a.stats().rectangles, b.stats().rectangles);
            for constraint in [
                "Memory >= 2048",
                "Memory < 1024 || Arch == \"x86_64\"",
                "Cpus > 2",
                "Requirements",
                "Memory == \"LOTS\"",
            ] {
                let e = parse::expr(constraint).expect("constraint");
                assert_eq!(a.one_sided(&e).0, b.one_sided(&e).0, "{constraint}");
            }
            for job in [
                r#"[Size = 100; Requirements = TARGET.Memory >= 1024]"#,
                r#"[Size = 9000; Owner = "x"; Requirements = true]"#,
                r#"[Requirements = TARGET.Cpus >= 4]"#,
            ] {
                let j = Arc::new(parse::classad(job).expect("job"));
                assert_eq!(a.two_sided(&j), b.two_sided(&j), "{job}");
                assert_eq!(a.reverse(&j), b.reverse(&j), "{job}");
            }
            // The restored index keeps working as ads come and go.
            b.remove(1);
            b.insert(9, Arc::new(parse::classad("[Memory = 3000]").expect("ad")))
                .expect("insert");
            b.check();
            let q = Query::one_sided(&parse::expr("Memory > 1000").expect("e"), b.options());
            let (hits, _) = b.matching(&q);
            let got: Vec<AdId> = hits.iter().map(|h| h.ad).collect();
            assert_eq!(got, [0, 2, 5, 9]);
        }
    }

    #[test]
    fn malformed_snapshots_are_refused() {
        type Damage = fn(&mut IndexSnapshot);
        let cases: [(Damage, &str); 10] = [
            (|s| s.imported.push(99), "attribute out of range"),
            (|s| s.bound_attr[0] = 99, "attribute out of range"),
            (
                |s| s.imported.push(s.imported[0]),
                "an imported attribute twice",
            ),
            (|s| s.imp[0].truncate(1), "imported values missing"),
            (|s| s.imp.clear(), "imported values missing"),
            (|s| s.unit_rects[0] += 1, "columns of different lengths"),
            (
                |s| s.bound_interval.truncate(1),
                "columns of different lengths",
            ),
            (|s| s.bound_interval[0] = 999, "a value out of range"),
            (|s| s.imp[1][0] = 999, "a value out of range"),
            (
                |s| s.deviant.push(999),
                "a unit or rectangle list out of order",
            ),
        ];
        let src: Arc<dyn AdSource> = Arc::new(ads());
        for (i, (damage, want)) in cases.into_iter().enumerate() {
            let mut snap = built(true).snapshot();
            damage(&mut snap);
            let err = Index::restore(IndexOptions::default(), Arc::clone(&src), snap).unwrap_err();
            assert_eq!(err, SnapshotError::Malformed(want), "case {i}");
        }
        // A bound twice on one attribute.
        let mut snap = built(true).snapshot();
        let r = snap.rect_bounds.iter().position(|&b| b >= 2).expect("ad g");
        let first: u32 = snap.rect_bounds[..r].iter().sum();
        snap.bound_attr[first as usize + 1] = snap.bound_attr[first as usize];
        let err = Index::restore(IndexOptions::default(), Arc::clone(&src), snap).unwrap_err();
        assert_eq!(err, SnapshotError::Malformed("an attribute bounded twice"));
    }

    /// The snapshot as layout 1 had it (what a checkpoint of the previous build holds).
    fn to_v1(s: &IndexSnapshot) -> IndexSnapshotV1 {
        let (mut rect, mut bound) = (0, 0);
        let units = (0..s.unit_ad.len())
            .map(|u| {
                let rects = (0..s.unit_rects[u])
                    .map(|_| {
                        let n = s.rect_bounds[rect] as usize;
                        let exp = (bound..bound + n)
                            .map(|b| {
                                let iv = &s.intervals[s.bound_interval[b] as usize];
                                (s.bound_attr[b], iv.clone())
                            })
                            .collect();
                        let deviant = s.deviant.contains(&(rect as u32));
                        (rect, bound) = (rect + 1, bound + n);
                        (exp, deviant)
                    })
                    .collect();
                UnitSnapshot {
                    ad: s.unit_ad[u],
                    port: s.unit_port.iter().find(|p| p.0 as usize == u).map(|p| p.1),
                    rects,
                    exact: !s.inexact.contains(&(u as u32)),
                    imp: s
                        .imp
                        .iter()
                        .map(|c| s.values[c[u] as usize].clone())
                        .collect(),
                }
            })
            .collect();
        IndexSnapshotV1 {
            names: s.names.clone(),
            imported: s.imported.clone(),
            units,
        }
    }

    #[test]
    fn layout_1_snapshots_convert_to_the_same_columns() {
        for with_imports in [false, true] {
            let snap = built(with_imports).snapshot();
            let v1 = to_v1(&snap);
            let bytes = bincode::serialize(&v1).expect("encode");
            let back: IndexSnapshotV1 = bincode::deserialize(&bytes).expect("decode");
            assert_eq!(IndexSnapshot::from(back), snap);
        }
        // A unit short of values is refused, as layout 1 refused it.
        let mut v1 = to_v1(&built(true).snapshot());
        v1.units[2].imp.pop();
        let src: Arc<dyn AdSource> = Arc::new(ads());
        let err = Index::restore(IndexOptions::default(), src, v1.into()).unwrap_err();
        assert_eq!(err, SnapshotError::Malformed("imported values missing"));
    }
}
