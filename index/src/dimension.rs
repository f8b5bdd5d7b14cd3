//! One attribute's dimension: a structure per [`Domain`], so that the mangled name of 4.4.4 is
//! (attribute, domain) and a probe only ever reaches keys of its own type.
//!
//! [`DimensionTrees`] holds intervals (the exported side: constraints; imported points may be
//! held here too), [`DimensionPoints`] holds imported points for range scans.

use crate::collect::RidCollector;
use crate::interval_tree::IntervalTree;
use crate::mangle::{AbsKey, Domain, MangledValue, NumKey, RelKey, StrKey};
use crate::points::PointIndex;
use crate::property::MangledInterval;
use roaring::RoaringBitmap;

/// One interval tree per domain.
#[derive(Clone, Debug, Default)]
pub struct DimensionTrees {
    num: IntervalTree<NumKey>,
    str: IntervalTree<StrKey>,
    abs: IntervalTree<AbsKey>,
    rel: IntervalTree<RelKey>,
}

impl DimensionTrees {
    /// Empty trees.
    pub fn new() -> DimensionTrees {
        DimensionTrees::default()
    }

    /// Adds an interval; false if empty or its RID is already held in that domain (see
    /// [`IntervalTree::insert`]).
    pub fn insert(&mut self, iv: MangledInterval, rid: u32) -> bool {
        match iv {
            MangledInterval::Number(i) => self.num.insert(i, rid),
            MangledInterval::String(i) => self.str.insert(i, rid),
            MangledInterval::AbsTime(i) => self.abs.insert(i, rid),
            MangledInterval::RelTime(i) => self.rel.insert(i, rid),
        }
    }

    /// Removes an interval; returns whether it was held.
    pub fn remove(&mut self, iv: &MangledInterval, rid: u32) -> bool {
        match iv {
            MangledInterval::Number(i) => self.num.remove(i, rid),
            MangledInterval::String(i) => self.str.remove(i, rid),
            MangledInterval::AbsTime(i) => self.abs.remove(i, rid),
            MangledInterval::RelTime(i) => self.rel.remove(i, rid),
        }
    }

    /// Calls `f` with every RID whose interval meets `w` (in `w`'s domain only).
    pub fn overlap_with(&self, w: &MangledInterval, f: impl FnMut(u32)) {
        match w {
            MangledInterval::Number(i) => self.num.overlap_with(i, f),
            MangledInterval::String(i) => self.str.overlap_with(i, f),
            MangledInterval::AbsTime(i) => self.abs.overlap_with(i, f),
            MangledInterval::RelTime(i) => self.rel.overlap_with(i, f),
        }
    }

    /// Calls `f` with every RID whose interval contains `v` (in `v`'s domain only).
    pub fn stab_with(&self, v: &MangledValue, f: impl FnMut(u32)) {
        match v {
            MangledValue::Number(k) => self.num.stab_with(k, f),
            MangledValue::String(k) => self.str.stab_with(k, f),
            MangledValue::AbsTime(k) => self.abs.stab_with(k, f),
            MangledValue::RelTime(k) => self.rel.stab_with(k, f),
        }
    }

    /// `ProbeExported(M, W)` / `ProbeImported(M, W)`: the RIDs whose interval meets `w`.
    pub fn overlap(&self, w: &MangledInterval) -> RoaringBitmap {
        let mut c = RidCollector::new();
        self.overlap_with(w, |r| c.push(r));
        c.finish()
    }

    /// The RIDs whose interval contains `v`.
    pub fn stab(&self, v: &MangledValue) -> RoaringBitmap {
        let mut c = RidCollector::new();
        self.stab_with(v, |r| c.push(r));
        c.finish()
    }

    /// The number of intervals held in `domain`.
    pub fn len_in(&self, domain: Domain) -> usize {
        match domain {
            Domain::Number => self.num.len(),
            Domain::String => self.str.len(),
            Domain::AbsTime => self.abs.len(),
            Domain::RelTime => self.rel.len(),
        }
    }

    /// The number of intervals held.
    pub fn len(&self) -> usize {
        Domain::ALL.iter().map(|&d| self.len_in(d)).sum()
    }

    /// Whether no interval is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One points map per domain.
#[derive(Clone, Debug, Default)]
pub struct DimensionPoints {
    num: PointIndex<NumKey>,
    str: PointIndex<StrKey>,
    abs: PointIndex<AbsKey>,
    rel: PointIndex<RelKey>,
}

impl DimensionPoints {
    /// No points.
    pub fn new() -> DimensionPoints {
        DimensionPoints::default()
    }

    /// Records that `rid` holds `v`; returns whether it was new.
    pub fn insert(&mut self, v: MangledValue, rid: u32) -> bool {
        match v {
            MangledValue::Number(k) => self.num.insert(k, rid),
            MangledValue::String(k) => self.str.insert(k, rid),
            MangledValue::AbsTime(k) => self.abs.insert(k, rid),
            MangledValue::RelTime(k) => self.rel.insert(k, rid),
        }
    }

    /// Forgets that `rid` holds `v`; returns whether it was recorded.
    pub fn remove(&mut self, v: &MangledValue, rid: u32) -> bool {
        match v {
            MangledValue::Number(k) => self.num.remove(k, rid),
            MangledValue::String(k) => self.str.remove(k, rid),
            MangledValue::AbsTime(k) => self.abs.remove(k, rid),
            MangledValue::RelTime(k) => self.rel.remove(k, rid),
        }
    }

    /// The RIDs holding a value in `w` (in `w`'s domain only).
    pub fn range(&self, w: &MangledInterval) -> RoaringBitmap {
        match w {
            MangledInterval::Number(i) => self.num.range(i),
            MangledInterval::String(i) => self.str.range(i),
            MangledInterval::AbsTime(i) => self.abs.range(i),
            MangledInterval::RelTime(i) => self.rel.range(i),
        }
    }

    /// The number of RIDs holding a value in `w`.
    pub fn count_in(&self, w: &MangledInterval) -> u64 {
        match w {
            MangledInterval::Number(i) => self.num.count_in(i),
            MangledInterval::String(i) => self.str.count_in(i),
            MangledInterval::AbsTime(i) => self.abs.count_in(i),
            MangledInterval::RelTime(i) => self.rel.count_in(i),
        }
    }

    /// The number of (value, RID) entries.
    pub fn len(&self) -> usize {
        self.num.len() + self.str.len() + self.abs.len() + self.rel.len()
    }

    /// Whether no point is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mangle::test_key as key;
    use crate::property::{property, Property, Relation};
    use adjoin_query::{AbsTime, Value};

    fn window(rel: Relation, c: &Value) -> Vec<MangledInterval> {
        match property(rel, c) {
            Property::Intervals { parts, .. } => parts,
            other => panic!("{other:?}"),
        }
    }

    /// Mixed types under one attribute: a probe finds only its own domain's values, and strings
    /// and booleans follow the evaluator (case-insensitive; `true` is 1).
    #[test]
    fn probes_stay_in_their_domain() {
        let values = [
            Value::Int(1),
            Value::Real(1.0),
            Value::Bool(true),
            Value::str("1"),
            Value::str("ABC"),
            Value::AbsTime(AbsTime { secs: 1, offset: 0 }),
            Value::RelTime(1.0),
            Value::Int(2),
        ];
        let mut trees = DimensionTrees::new();
        let mut points = DimensionPoints::new();
        for (rid, v) in values.iter().enumerate() {
            assert!(trees.insert(MangledInterval::point(&key(v)), rid as u32));
            assert!(points.insert(key(v), rid as u32));
        }
        let cases: [(Relation, Value, &[u32]); 7] = [
            (Relation::Eq, Value::Int(1), &[0, 1, 2]),
            (Relation::Le, Value::Real(1.5), &[0, 1, 2]),
            (Relation::Ne, Value::Int(1), &[7]),
            (Relation::Eq, Value::str("abc"), &[4]),
            (Relation::Lt, Value::str("a"), &[3]),
            (
                Relation::Ge,
                Value::AbsTime(AbsTime {
                    secs: 0,
                    offset: 60,
                }),
                &[5],
            ),
            (Relation::Gt, Value::RelTime(0.5), &[6]),
        ];
        for (rel, c, want) in cases {
            let mut got = RoaringBitmap::new();
            let mut from_points = RoaringBitmap::new();
            let mut count = 0;
            for w in window(rel, &c) {
                got |= trees.overlap(&w);
                from_points |= points.range(&w);
                count += points.count_in(&w);
            }
            let want: RoaringBitmap = want.iter().copied().collect();
            assert_eq!(got, want, "trees: {rel:?} {c:?}");
            assert_eq!(from_points, want, "points: {rel:?} {c:?}");
            assert_eq!(count, want.len(), "count: {rel:?} {c:?}");
        }
        assert_eq!((trees.len(), points.len()), (8, 8));
        assert_eq!(trees.len_in(Domain::Number), 4);
    }

    /// The exported side: stored constraints stabbed by a probing ad's value.
    #[test]
    fn stabbing_constraints_table() {
        let mut trees = DimensionTrees::new();
        let stored = [
            (Relation::Ge, Value::Int(1024)),      // 0: Memory >= 1024
            (Relation::Lt, Value::Real(512.5)),    // 1: Memory < 512.5
            (Relation::Eq, Value::str("LINUX")),   // 2: OpSys == "LINUX"
            (Relation::Ne, Value::str("windows")), // 3, 4: OpSys != "windows"
        ];
        let mut rid = 0;
        for (rel, c) in stored {
            for w in window(rel, &c) {
                assert!(trees.insert(w, rid));
                rid += 1;
            }
        }
        let cases: [(Value, &[u32]); 6] = [
            (Value::Int(2048), &[0]),
            (Value::Real(1024.0), &[0]),
            (Value::Int(512), &[1]),
            (Value::str("linux"), &[2, 3]),
            (Value::str("Windows"), &[]),
            (Value::str("zos"), &[4]),
        ];
        for (v, want) in cases {
            assert_eq!(
                trees.stab(&key(&v)).iter().collect::<Vec<_>>(),
                want,
                "{v:?}"
            );
        }
        for (i, w) in window(Relation::Ne, &Value::str("windows"))
            .iter()
            .enumerate()
        {
            assert!(trees.remove(w, 3 + i as u32));
        }
        assert!(trees.stab(&key(&Value::str("linux"))).iter().eq([2]));
        assert!(!trees.is_empty());
    }
}
