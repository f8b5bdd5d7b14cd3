//! The RID-set maps of dissertation 4.5.3, keyed by unmangled (case-folded) attribute name: the
//! Unimported Dimensions Map, the Unexported Dimensions Map, the Deviant Imported Intervals Map,
//! and the Deviant Exported Rectangle Set.
//!
//! A name with no set answers with the empty set. Sets that become empty are dropped, so memory
//! follows what is stored.

use adjoin_query::Key;
use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;

/// A map from attribute name to a set of RIDs.
#[derive(Clone, Debug, Default)]
pub struct RidSets {
    sets: FxHashMap<Key, RoaringBitmap>,
    empty: RoaringBitmap,
}

impl RidSets {
    /// No sets.
    pub fn new() -> RidSets {
        RidSets::default()
    }

    /// Adds `rid` to `name`'s set; returns whether it was new.
    pub fn insert(&mut self, name: Key, rid: u32) -> bool {
        self.sets.entry(name).or_default().insert(rid)
    }

    /// Adds every RID of `rids` to `name`'s set (how a new adaptive dimension is filled).
    pub fn insert_all(&mut self, name: Key, rids: &RoaringBitmap) {
        if !rids.is_empty() {
            *self.sets.entry(name).or_default() |= rids;
        }
    }

    /// Removes `rid` from `name`'s set; returns whether it was there.
    pub fn remove(&mut self, name: Key, rid: u32) -> bool {
        let Some(set) = self.sets.get_mut(&name) else {
            return false;
        };
        let was = set.remove(rid);
        if set.is_empty() {
            self.sets.remove(&name);
        }
        was
    }

    /// `name`'s set (empty if none).
    pub fn get(&self, name: Key) -> &RoaringBitmap {
        self.sets.get(&name).unwrap_or(&self.empty)
    }

    /// Whether `name`'s set holds `rid`.
    pub fn contains(&self, name: Key, rid: u32) -> bool {
        self.sets.get(&name).is_some_and(|s| s.contains(rid))
    }

    /// The names with a non-empty set.
    pub fn names(&self) -> impl Iterator<Item = Key> + '_ {
        self.sets.keys().copied()
    }

    /// Drops a whole name (a dimension no longer indexed).
    pub fn forget(&mut self, name: Key) -> Option<RoaringBitmap> {
        self.sets.remove(&name)
    }

    /// Bytes held by the bitmaps (serialized size: a close, cheap estimate).
    pub fn bitmap_bytes(&self) -> usize {
        self.sets.values().map(RoaringBitmap::serialized_size).sum()
    }
}

/// The four RID-set structures of 4.5.3 that are not interval indexes.
#[derive(Clone, Debug, Default)]
pub struct RectangleMaps {
    /// Per attribute: the rectangles whose ad lacks it (Imp_absent).
    pub unimported: RidSets,
    /// Per attribute: the rectangles whose constraint profile puts no bound on it (Exp_absent).
    pub unexported: RidSets,
    /// Per attribute: the rectangles whose ad holds it as a non-constant or unplaceable value
    /// (Imp_deviant).
    pub deviant_imported: RidSets,
    /// The rectangles whose profile has a sub-expression not in property form
    /// (Exp_deviant).
    pub deviant_exported: RoaringBitmap,
}

impl RectangleMaps {
    /// No rectangles.
    pub fn new() -> RectangleMaps {
        RectangleMaps::default()
    }

    /// `ProbeUnimported(N)`: the rectangles without an imported value for `name`.
    pub fn probe_unimported(&self, name: Key) -> &RoaringBitmap {
        self.unimported.get(name)
    }

    /// `ProbeUnexported(N)`: the rectangles that place no constraint on `name`.
    pub fn probe_unexported(&self, name: Key) -> &RoaringBitmap {
        self.unexported.get(name)
    }

    /// `ProbeDeviantImported(N)`: the rectangles whose `name` is deviant.
    pub fn probe_deviant_imported(&self, name: Key) -> &RoaringBitmap {
        self.deviant_imported.get(name)
    }

    /// The Deviant Exported Rectangle Set.
    pub fn deviant_exported(&self) -> &RoaringBitmap {
        &self.deviant_exported
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rid_sets_table() {
        let (a, b) = (Key(100), Key(101));
        let mut s = RidSets::new();
        let steps = [
            ("insert", s.insert(a, 1), true),
            ("insert again", s.insert(a, 1), false),
            ("insert other", s.insert(a, 70_000), true),
            ("remove absent name", s.remove(b, 1), false),
            ("remove absent rid", s.remove(a, 2), false),
            ("remove", s.remove(a, 1), true),
            ("contains kept", s.contains(a, 70_000), true),
            ("contains removed", s.contains(a, 1), false),
        ];
        for (what, got, want) in steps {
            assert_eq!(got, want, "{what}");
        }
        assert!(s.remove(a, 70_000));
        assert_eq!(s.names().count(), 0, "empty sets are dropped");
        assert!(s.get(a).is_empty());
        s.insert_all(b, &(0..10).collect());
        assert_eq!(s.get(b).len(), 10);
        assert!(s.bitmap_bytes() > 0);
        assert_eq!(s.forget(b).map(|x| x.len()), Some(10));
    }

    #[test]
    fn probes_read_their_own_maps() {
        let n = Key(7);
        let mut m = RectangleMaps::new();
        m.unimported.insert(n, 1);
        m.unexported.insert(n, 2);
        m.deviant_imported.insert(n, 3);
        m.deviant_exported.insert(4);
        let got = [
            m.probe_unimported(n).iter().collect::<Vec<_>>(),
            m.probe_unexported(n).iter().collect(),
            m.probe_deviant_imported(n).iter().collect(),
            m.deviant_exported().iter().collect(),
            m.probe_unimported(Key(8)).iter().collect(),
        ];
        assert_eq!(got, [vec![1], vec![2], vec![3], vec![4], vec![]]);
    }
}
