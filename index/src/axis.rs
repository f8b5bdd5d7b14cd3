//! One attribute's structures in the index (dissertation 4.5.3), all four domains in one
//! order of [`Pos`]itions:
//!
//! - [`ExportedAxis`]: the Exported Interval Index of one attribute — the bounds stored
//!   rectangles put on it — as two sorted sets of interval ends. An interval contains `k`
//!   exactly when its lower end is at most `(k, 0)` and its upper end at least `(k, 0)`, so
//!   `ProbeExported(M, k)` is two range queries. The RIDs that export the attribute at all
//!   are kept too: `ProbeUnexported(N)` is their complement.
//! - [`ImportedAxis`]: the Imported Interval Index of one attribute — stored rectangles'
//!   points — plus the Deviant Imported map's set for it. RIDs with neither are
//!   `ProbeUnimported(N)`, implicitly.
//!
//! Every probe takes the provisional set `o` and returns its intersection with the answer, so
//! work follows what is left.

use crate::bits::Bits;
use crate::counted::{put, take, Counted, NONE};
use crate::position::{ends, Pos};
use crate::property::MangledInterval;
use crate::ranked::Ranked;
use crate::rectangle::ImpValue;
use std::ops::Bound;

/// The bounds stored rectangles put on one attribute.
#[derive(Clone, Debug, Default)]
pub struct ExportedAxis {
    lo: Ranked<Pos>,
    hi: Ranked<Pos>,
    rids: Bits,
    /// Each RID's interval, by RID, as a number in `intervals` ([`NONE`]: no bound), for
    /// checking candidates one by one and for undoing its insertion.
    ends: Vec<u32>,
    /// The distinct intervals, with their ends' positions.
    intervals: Counted<MangledInterval, (Pos, Pos)>,
}

impl ExportedAxis {
    /// No bounds.
    pub fn new() -> ExportedAxis {
        ExportedAxis::default()
    }

    /// The axis of `groups`: each distinct interval, its ends' positions and the RIDs bounded
    /// by it (increasing; no RID in two groups), its checkpoints built: what inserting each
    /// then rebuilding gives, in one pass (a restore).
    pub fn from_groups<'p>(
        groups: impl IntoIterator<Item = (&'p MangledInterval, &'p (Pos, Pos), Vec<u32>)>,
    ) -> ExportedAxis {
        let groups: Vec<_> = groups.into_iter().collect();
        let end = groups
            .iter()
            .filter_map(|(_, _, rids)| rids.last())
            .max()
            .map_or(0, |&r| r as usize + 1);
        let mut ends = vec![NONE; end];
        let mut intervals = Counted::default();
        let mut rids = Bits::new();
        let (mut lo, mut hi) = (Groups::default(), Groups::default());
        for (iv, pair, members) in groups {
            let i = intervals.add_many(iv, members.len() as u32, |_| pair.clone());
            for &r in &members {
                rids.insert(r);
                ends[r as usize] = i;
            }
            lo.add_all(&pair.0, &members);
            hi.add_all(&pair.1, &members);
        }
        ExportedAxis {
            lo: lo.ranked(),
            hi: hi.ranked(),
            rids,
            ends,
            intervals,
        }
    }

    /// Records that rectangle `rid` bounds the attribute by `iv` (`defer`: leave the
    /// checkpoints for [`ExportedAxis::rebuild`]). A RID holds one interval per attribute.
    pub fn insert(&mut self, iv: &MangledInterval, rid: u32, defer: bool) -> bool {
        if !self.rids.insert(rid) {
            return false;
        }
        let (lo, hi) = ends(iv);
        if defer {
            self.lo.insert_deferred(lo.clone(), rid);
            self.hi.insert_deferred(hi.clone(), rid);
        } else {
            self.lo.insert(lo.clone(), rid);
            self.hi.insert(hi.clone(), rid);
        }
        let i = self.intervals.add_many(iv, 1, |_| (lo, hi));
        put(&mut self.ends, rid, i);
        true
    }

    /// Forgets rectangle `rid`'s bound; returns whether it was held.
    pub fn remove(&mut self, rid: u32, defer: bool) -> bool {
        let Some((_, (lo, hi))) = self
            .ends
            .get(rid as usize)
            .and_then(|&i| self.intervals.get(i))
        else {
            return false;
        };
        let (lo, hi) = (lo.clone(), hi.clone());
        self.rids.remove(rid);
        if defer {
            self.lo.remove_deferred(&lo, rid);
            self.hi.remove_deferred(&hi, rid);
        } else {
            self.lo.remove(&lo, rid);
            self.hi.remove(&hi, rid);
        }
        take(&mut self.ends, rid, &mut self.intervals)
    }

    /// The interval rectangle `rid` bounds the attribute by, if it does.
    pub fn interval(&self, rid: u32) -> Option<&MangledInterval> {
        let i = *self.ends.get(rid as usize)?;
        self.intervals.get(i).map(|(iv, _)| iv)
    }

    /// Whether rectangle `rid` bounds the attribute by an interval containing position `p`
    /// (`None` if it does not bound the attribute).
    #[inline]
    pub fn contains(&self, rid: u32, p: &Pos) -> Option<bool> {
        let (_, (lo, hi)) = self.intervals.get(*self.ends.get(rid as usize)?)?;
        Some(lo <= p && p <= hi)
    }

    /// The rectangles that bound the attribute (the complement of `ProbeUnexported`).
    pub fn rids(&self) -> &Bits {
        &self.rids
    }

    /// Whether no rectangle bounds the attribute.
    pub fn is_empty(&self) -> bool {
        self.rids.is_empty()
    }

    /// The larger number of distinct lower or upper ends (the cost of a probe).
    pub fn distinct(&self) -> usize {
        self.lo.distinct().max(self.hi.distinct())
    }

    /// `o ∩ ProbeExported(k)`: the rectangles of `o` whose interval contains the point at
    /// position `p`.
    pub fn stab(&self, o: &Bits, p: &Pos) -> Bits {
        let mut a = o.clone();
        self.lo
            .restrict(&mut a, Bound::Unbounded, Bound::Included(p));
        self.hi
            .restrict(&mut a, Bound::Included(p), Bound::Unbounded);
        a
    }

    /// `o ∩= Unexported ∪ ProbeExported(k)`: drops the rectangles of `o` that bound the
    /// attribute by an interval not containing the point at position `p`.
    pub fn keep_containing(&self, o: &mut Bits, p: &Pos) {
        let hit = self.stab(o, p);
        o.andnot_assign(&self.rids);
        o.or_assign(&hit);
    }

    /// Rebuilds stale checkpoints (after deferred updates).
    pub fn rebuild(&mut self) {
        if self.lo.is_stale() {
            self.lo.rebuild();
        }
        if self.hi.is_stale() {
            self.hi.rebuild();
        }
    }

    /// Bytes held by the checkpoints and the RID set (estimate).
    pub fn bytes(&self) -> usize {
        self.lo.checkpoint_bytes()
            + self.hi.checkpoint_bytes()
            + self.rids.bytes()
            + self.ends.capacity() * 4
            + self.intervals.bytes()
    }
}

/// Stored rectangles' values of one attribute: points, and the deviant ones.
#[derive(Clone, Debug, Default)]
pub struct ImportedAxis {
    points: Ranked<Pos>,
    deviant: Bits,
    /// Each RID's value, by RID, as a number in `table` ([`NONE`]: none recorded), for
    /// checking candidates one by one and for undoing its insertion.
    values: Vec<u32>,
    /// The distinct values, with their positions (points only).
    table: Counted<ImpValue, Option<Pos>>,
}

/// A value's position, if it is a point.
fn point(v: &ImpValue) -> Option<Pos> {
    match v {
        ImpValue::Point(k) => Some(Pos::point(k.clone())),
        _ => None,
    }
}

impl ImportedAxis {
    /// No values.
    pub fn new() -> ImportedAxis {
        ImportedAxis::default()
    }

    /// The axis of a column: `each` gives each rectangle's RID and the number of its value in
    /// `table` (whose points are at `positions`), by increasing RID; its checkpoints built:
    /// what inserting each then rebuilding gives, in one pass (a restore). A number beyond
    /// the table is left out (the caller checks them).
    pub fn from_column(
        table: &[ImpValue],
        positions: &[Option<Pos>],
        each: impl IntoIterator<Item = (u32, u32)>,
    ) -> ImportedAxis {
        let mut axis = ImportedAxis::new();
        let mut by_value: Vec<Vec<u32>> = vec![Vec::new(); table.len()];
        for (rid, v) in each {
            if let Some(members) = by_value.get_mut(v as usize) {
                members.push(rid);
            }
        }
        let end = by_value
            .iter()
            .filter_map(|m| m.last())
            .max()
            .map_or(0, |&r| r as usize + 1);
        axis.values = vec![NONE; end];
        let mut points = Groups::default();
        for ((v, p), members) in table.iter().zip(positions).zip(by_value) {
            if members.is_empty() {
                continue;
            }
            let i = axis
                .table
                .add_many(v, members.len() as u32, |v| p.clone().or_else(|| point(v)));
            for &r in &members {
                axis.values[r as usize] = i;
            }
            match axis.table.get(i) {
                Some((_, Some(p))) => points.add_all(p, &members),
                Some((ImpValue::Deviant, _)) => {
                    for &r in &members {
                        axis.deviant.insert(r);
                    }
                }
                _ => {}
            }
        }
        axis.points = points.ranked();
        axis
    }

    /// Records rectangle `rid`'s value (one per RID: a RID's value is removed before another
    /// is recorded).
    pub fn insert(&mut self, v: &ImpValue, rid: u32, defer: bool) {
        let i = self.table.add_many(v, 1, point);
        put(&mut self.values, rid, i);
        match self.table.get(i) {
            Some((_, Some(p))) => {
                let p = p.clone();
                if defer {
                    self.points.insert_deferred(p, rid);
                } else {
                    self.points.insert(p, rid);
                }
            }
            Some((ImpValue::Deviant, _)) => {
                self.deviant.insert(rid);
            }
            _ => {}
        }
    }

    /// Forgets rectangle `rid`'s value.
    pub fn remove(&mut self, rid: u32, defer: bool) {
        match self
            .values
            .get(rid as usize)
            .and_then(|&i| self.table.get(i))
        {
            Some((_, Some(p))) => {
                let p = p.clone();
                if defer {
                    self.points.remove_deferred(&p, rid);
                } else {
                    self.points.remove(&p, rid);
                }
            }
            Some((ImpValue::Deviant, _)) => {
                self.deviant.remove(rid);
            }
            _ => {}
        }
        take(&mut self.values, rid, &mut self.table);
    }

    /// Rectangle `rid`'s value, if recorded.
    #[inline]
    pub fn value(&self, rid: u32) -> Option<&ImpValue> {
        let i = *self.values.get(rid as usize)?;
        self.table.get(i).map(|(v, _)| v)
    }

    /// The rectangles whose value is deviant (`ProbeDeviantImported`).
    pub fn deviant(&self) -> &Bits {
        &self.deviant
    }

    /// The number of distinct values (the cost of a probe).
    pub fn distinct(&self) -> usize {
        self.points.distinct()
    }

    /// Whether rectangle `rid`'s value lies between positions `lo` and `hi` or is deviant.
    #[inline]
    pub fn admits(&self, rid: u32, lo: &Pos, hi: &Pos) -> bool {
        match self
            .values
            .get(rid as usize)
            .and_then(|&i| self.table.get(i))
        {
            Some((_, Some(p))) => lo <= p && p <= hi,
            _ => self.deviant.contains(rid),
        }
    }

    /// `o ∩ (ProbeImported(iv) ∪ ProbeDeviantImported)`: the rectangles of `o` whose value
    /// lies between the positions `lo` and `hi` (an interval's [`ends`]) or is deviant.
    pub fn window(&self, o: &Bits, lo: &Pos, hi: &Pos) -> Bits {
        let mut a = o.clone();
        self.restrict(&mut a, lo, hi);
        a
    }

    /// `o ∩= ProbeImported(iv) ∪ ProbeDeviantImported`, in place.
    pub fn restrict(&self, o: &mut Bits, lo: &Pos, hi: &Pos) {
        if self.deviant.is_empty() {
            self.points
                .restrict(o, Bound::Included(lo), Bound::Included(hi));
        } else {
            let dev = o.and(&self.deviant);
            self.points
                .restrict(o, Bound::Included(lo), Bound::Included(hi));
            o.or_assign(&dev);
        }
    }

    /// Rebuilds stale checkpoints (after deferred updates).
    pub fn rebuild(&mut self) {
        if self.points.is_stale() {
            self.points.rebuild();
        }
    }

    /// Bytes held by the checkpoints and the deviant set (estimate).
    pub fn bytes(&self) -> usize {
        self.points.checkpoint_bytes()
            + self.deviant.bytes()
            + self.values.capacity() * 4
            + self.table.bytes()
    }
}

/// Positions with the RIDs holding each, gathered for a bulk build.
#[derive(Default)]
struct Groups {
    /// Each position's RIDs, and whether they came in several runs (then sorted at the end).
    at: rustc_hash::FxHashMap<Pos, (Vec<u32>, bool)>,
}

impl Groups {
    /// Adds a run of RIDs (increasing) at `p`.
    fn add_all(&mut self, p: &Pos, rids: &[u32]) {
        match self.at.get_mut(p) {
            Some((v, merged)) => {
                v.extend_from_slice(rids);
                *merged = true;
            }
            None => {
                self.at.insert(p.clone(), (rids.to_vec(), false));
            }
        }
    }

    fn ranked(self) -> Ranked<Pos> {
        let mut groups: Vec<(Pos, Vec<u32>)> = self
            .at
            .into_iter()
            .map(|(p, (mut v, merged))| {
                if merged {
                    v.sort_unstable();
                }
                (p, v)
            })
            .collect();
        groups.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        Ranked::from_groups(groups)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mangle::test_key as key;
    use crate::property::{property, Property, Relation};
    use adjoin_query::Value;

    fn parts(rel: Relation, c: Value) -> Vec<MangledInterval> {
        match property(rel, &c) {
            Property::Intervals { parts, .. } => parts,
            other => panic!("{other:?}"),
        }
    }

    /// Stored constraints of several types on one attribute, stabbed by values of every type:
    /// only same-domain intervals containing the value answer.
    #[test]
    fn stab_table() {
        let stored = [
            (Relation::Ge, Value::Int(1024)),      // 0
            (Relation::Lt, Value::Real(512.5)),    // 1
            (Relation::Eq, Value::str("LINUX")),   // 2
            (Relation::Ne, Value::str("windows")), // 3, 4
            (Relation::Le, Value::RelTime(60.0)),  // 5
        ];
        let mut axis = ExportedAxis::new();
        let mut rid = 0;
        for (rel, c) in stored {
            for iv in parts(rel, c) {
                assert!(axis.insert(&iv, rid, rid % 2 == 0));
                rid += 1;
            }
        }
        axis.rebuild();
        let all = Bits::from_rids(0..rid);
        let cases: [(Value, &[u32]); 8] = [
            (Value::Int(2048), &[0]),
            (Value::Real(1024.0), &[0]),
            (Value::Int(512), &[1]),
            (Value::Bool(true), &[1]),
            (Value::str("linux"), &[2, 3]),
            (Value::str("Windows"), &[]),
            (Value::str("zos"), &[4]),
            (Value::RelTime(30.0), &[5]),
        ];
        for (v, want) in cases {
            let p = Pos::point(key(&v));
            let got: Vec<u32> = axis.stab(&all, &p).iter().collect();
            assert_eq!(got, want, "{v:?}");
            let one_by_one: Vec<u32> = (0..rid)
                .filter(|&r| axis.contains(r, &p) == Some(true))
                .collect();
            assert_eq!(one_by_one, want, "{v:?} one by one");
        }
        for (i, iv) in parts(Relation::Ne, Value::str("windows"))
            .iter()
            .enumerate()
        {
            assert_eq!(axis.interval(3 + i as u32), Some(iv));
            assert!(axis.remove(3 + i as u32, false));
        }
        assert!(axis
            .stab(&all, &Pos::point(key(&Value::str("linux"))))
            .iter()
            .eq([2]));
        assert_eq!(axis.rids().len(), 4);
    }

    #[test]
    fn window_table() {
        let values = [
            ImpValue::Point(key(&Value::Int(1))),
            ImpValue::Point(key(&Value::Real(1.0))),
            ImpValue::Point(key(&Value::Bool(true))),
            ImpValue::Point(key(&Value::str("ABC"))),
            ImpValue::Deviant,
            ImpValue::Absent,
            ImpValue::Point(key(&Value::Int(2))),
        ];
        let mut axis = ImportedAxis::new();
        for (rid, v) in values.iter().enumerate() {
            axis.insert(v, rid as u32, false);
        }
        let all = Bits::from_rids(0..7);
        let cases: [(Relation, Value, &[u32]); 5] = [
            (Relation::Eq, Value::Int(1), &[0, 1, 2, 4]),
            (Relation::Gt, Value::Real(1.5), &[4, 6]),
            (Relation::Eq, Value::str("abc"), &[3, 4]),
            (Relation::Lt, Value::str("a"), &[4]),
            (Relation::Ge, Value::Int(i64::MIN), &[0, 1, 2, 4, 6]),
        ];
        for (rel, c, want) in cases {
            let mut got = Bits::new();
            let mut one_by_one = Bits::new();
            for iv in parts(rel, c.clone()) {
                let (lo, hi) = ends(&iv);
                got.or_assign(&axis.window(&all, &lo, &hi));
                one_by_one.or_assign(&Bits::from_rids(
                    (0..7).filter(|&r| axis.admits(r, &lo, &hi)),
                ));
            }
            assert_eq!(got, one_by_one, "{rel:?} {c:?} one by one");
            assert!(
                got.iter().eq(want.iter().copied()),
                "{rel:?} {c:?}: {got:?}"
            );
        }
        assert_eq!(axis.value(4), Some(&ImpValue::Deviant));
        assert_eq!(axis.value(5), Some(&ImpValue::Absent));
        axis.remove(4, false);
        assert!(axis.deviant().is_empty());
    }
}
