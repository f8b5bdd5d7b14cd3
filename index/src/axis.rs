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
use crate::mangle::MangledValue;
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
}

impl ExportedAxis {
    /// No bounds.
    pub fn new() -> ExportedAxis {
        ExportedAxis::default()
    }

    /// Records that rectangle `rid` bounds the attribute by `iv` (`defer`: leave the
    /// checkpoints for [`ExportedAxis::rebuild`]). A RID holds one interval per attribute.
    pub fn insert(&mut self, iv: &MangledInterval, rid: u32, defer: bool) -> bool {
        if !self.rids.insert(rid) {
            return false;
        }
        let (lo, hi) = ends(iv);
        if defer {
            self.lo.insert_deferred(lo, rid);
            self.hi.insert_deferred(hi, rid);
        } else {
            self.lo.insert(lo, rid);
            self.hi.insert(hi, rid);
        }
        true
    }

    /// Forgets rectangle `rid`'s bound `iv`; returns whether it was held.
    pub fn remove(&mut self, iv: &MangledInterval, rid: u32, defer: bool) -> bool {
        if !self.rids.remove(rid) {
            return false;
        }
        let (lo, hi) = ends(iv);
        if defer {
            self.lo.remove_deferred(&lo, rid);
            self.hi.remove_deferred(&hi, rid);
        } else {
            self.lo.remove(&lo, rid);
            self.hi.remove(&hi, rid);
        }
        true
    }

    /// The rectangles that bound the attribute (the complement of `ProbeUnexported`).
    pub fn rids(&self) -> &Bits {
        &self.rids
    }

    /// Whether no rectangle bounds the attribute.
    pub fn is_empty(&self) -> bool {
        self.rids.is_empty()
    }

    /// `o ∩ ProbeExported(k)`: the rectangles of `o` whose interval contains `k`.
    pub fn stab(&self, o: &Bits, k: &MangledValue) -> Bits {
        let p = Pos::point(k.clone());
        let a = self.lo.intersect(o, Bound::Unbounded, Bound::Included(&p));
        self.hi.intersect(&a, Bound::Included(&p), Bound::Unbounded)
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
        self.lo.checkpoint_bytes() + self.hi.checkpoint_bytes() + self.rids.bytes()
    }
}

/// Stored rectangles' values of one attribute: points, and the deviant ones.
#[derive(Clone, Debug, Default)]
pub struct ImportedAxis {
    points: Ranked<Pos>,
    deviant: Bits,
}

impl ImportedAxis {
    /// No values.
    pub fn new() -> ImportedAxis {
        ImportedAxis::default()
    }

    /// Records rectangle `rid`'s value (absent values are recorded nowhere).
    pub fn insert(&mut self, v: &ImpValue, rid: u32, defer: bool) {
        match v {
            ImpValue::Point(k) if defer => {
                self.points.insert_deferred(Pos::point(k.clone()), rid);
            }
            ImpValue::Point(k) => {
                self.points.insert(Pos::point(k.clone()), rid);
            }
            ImpValue::Deviant => {
                self.deviant.insert(rid);
            }
            ImpValue::Absent => {}
        }
    }

    /// Forgets rectangle `rid`'s value.
    pub fn remove(&mut self, v: &ImpValue, rid: u32, defer: bool) {
        match v {
            ImpValue::Point(k) if defer => {
                self.points.remove_deferred(&Pos::point(k.clone()), rid);
            }
            ImpValue::Point(k) => {
                self.points.remove(&Pos::point(k.clone()), rid);
            }
            ImpValue::Deviant => {
                self.deviant.remove(rid);
            }
            ImpValue::Absent => {}
        }
    }

    /// The rectangles whose value is deviant (`ProbeDeviantImported`).
    pub fn deviant(&self) -> &Bits {
        &self.deviant
    }

    /// `o ∩ (ProbeImported(iv) ∪ ProbeDeviantImported)`: the rectangles of `o` whose value
    /// lies in `iv` or is deviant.
    pub fn window(&self, o: &Bits, iv: &MangledInterval) -> Bits {
        let (lo, hi) = ends(iv);
        let mut a = self
            .points
            .intersect(o, Bound::Included(&lo), Bound::Included(&hi));
        a.or_and(o, &self.deviant);
        a
    }

    /// Rebuilds stale checkpoints (after deferred updates).
    pub fn rebuild(&mut self) {
        if self.points.is_stale() {
            self.points.rebuild();
        }
    }

    /// Bytes held by the checkpoints and the deviant set (estimate).
    pub fn bytes(&self) -> usize {
        self.points.checkpoint_bytes() + self.deviant.bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mangle::{classify, Classified};
    use crate::property::{property, Property, Relation};
    use adjoin_query::Value;

    fn key(v: &Value) -> MangledValue {
        match classify(v) {
            Classified::Key(k) => k,
            other => panic!("{v:?}: {other:?}"),
        }
    }

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
            let got: Vec<u32> = axis.stab(&all, &key(&v)).iter().collect();
            assert_eq!(got, want, "{v:?}");
        }
        for (i, iv) in parts(Relation::Ne, Value::str("windows"))
            .iter()
            .enumerate()
        {
            assert!(axis.remove(iv, 3 + i as u32, false));
        }
        assert!(axis.stab(&all, &key(&Value::str("linux"))).iter().eq([2]));
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
            for iv in parts(rel, c.clone()) {
                got.or_assign(&axis.window(&all, &iv));
            }
            assert!(
                got.iter().eq(want.iter().copied()),
                "{rel:?} {c:?}: {got:?}"
            );
        }
        axis.remove(&ImpValue::Deviant, 4, false);
        assert!(axis.deviant().is_empty());
    }
}
