//! Snapshots: an index's converted contents as plain data, so that a restart restores the
//! index without reading or converting a single ad (the expensive part of a rebuild).
//!
//! A snapshot holds, per unit, its rectangles (bounds and the deviant flag), whether they are
//! exact, and its values of the imported attributes; [`Index::restore`] places them again and
//! builds the axes once. Attribute keys are interned per process, so a snapshot names
//! attributes by their text. Views are not kept: a restored index reads its ads back from an
//! [`AdSource`] when it must evaluate. How the snapshot is stored, and that it is still
//! current, is the caller's business (the database checks its store's generation).

use crate::index::{AdId, AdSource, Index, IndexError, IndexOptions};
use crate::property::MangledInterval;
use crate::rectangle::{ImpValue, Rectangle};
use adjoin_query::Key;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use thiserror::Error;

/// An index's contents as plain data ([`Index::snapshot`], [`Index::restore`]).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct IndexSnapshot {
    /// The attribute names the units refer to, by position.
    names: Vec<String>,
    /// The attributes with an imported axis (positions in `names`).
    imported: Vec<u32>,
    /// The units, by ad and port.
    units: Vec<UnitSnapshot>,
}

/// One stored unit.
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
        for u in &self.units {
            if last != Some(u.ad) {
                n += 1;
                last = Some(u.ad);
            }
        }
        n
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

impl Index {
    /// The index's contents as plain data.
    pub fn snapshot(&self) -> IndexSnapshot {
        let mut names = Names::default();
        let mut imported: Vec<Key> = self.imported.keys().copied().collect();
        imported.sort_unstable();
        let imported_pos: Vec<u32> = imported.iter().map(|&k| names.of(k)).collect();
        let mut ads: Vec<(&AdId, &Vec<u32>)> = self.ads.iter().collect();
        ads.sort_unstable_by_key(|(id, _)| **id);
        let mut units = Vec::with_capacity(self.units.len());
        for (_, us) in ads {
            for data in us.iter().filter_map(|&u| self.unit(u)) {
                let never = data.rids.iter().any(|&r| self.never.contains(r));
                let rects = if never {
                    Vec::new()
                } else {
                    data.rids
                        .iter()
                        .filter_map(|&r| {
                            let rec = self.rects.get(r as usize)?.as_ref()?;
                            let exp = rec
                                .exp
                                .iter()
                                .map(|(k, iv)| (names.of(*k), iv.clone()))
                                .collect();
                            Some((exp, self.deviant_exported.contains(r)))
                        })
                        .collect()
                };
                units.push(UnitSnapshot {
                    ad: data.ad,
                    port: data.port,
                    rects,
                    exact: !data.rids.iter().any(|&r| self.inexact.contains(r)),
                    imp: imported
                        .iter()
                        .map(|k| {
                            data.imp
                                .iter()
                                .find(|(j, _)| j == k)
                                .map_or(ImpValue::Deviant, |(_, v)| v.clone())
                        })
                        .collect(),
                });
            }
        }
        IndexSnapshot {
            names: names.names,
            imported: imported_pos,
            units,
        }
    }

    /// An index holding `snap`'s units, reading ads back from `source` when it must evaluate.
    pub fn restore(
        opts: IndexOptions,
        source: Arc<dyn AdSource>,
        snap: IndexSnapshot,
    ) -> Result<Index, SnapshotError> {
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
        let mut idx = Index::with_source(opts, source);
        idx.ads.reserve(snap.units.len());
        idx.units.reserve(snap.units.len());
        for &k in &imported {
            idx.imported.insert(k, crate::axis::ImportedAxis::new());
        }
        if idx.imported.len() != imported.len() {
            return Err(SnapshotError::Malformed("an imported attribute twice"));
        }
        idx.deferring = true;
        for u in snap.units {
            if u.imp.len() != imported.len() {
                return Err(SnapshotError::Malformed("imported values missing"));
            }
            let mut rects = Vec::with_capacity(u.rects.len());
            for (exp, deviant) in u.rects {
                let mut exp = exp
                    .into_iter()
                    .map(|(i, iv)| Ok((key(i)?, iv)))
                    .collect::<Result<Vec<_>, SnapshotError>>()?;
                // Keys order by this process's interning: sort again.
                exp.sort_unstable_by_key(|(k, _)| *k);
                if exp.windows(2).any(|w| w[0].0 == w[1].0) {
                    return Err(SnapshotError::Malformed("an attribute bounded twice"));
                }
                rects.push(Rectangle { exp, deviant });
            }
            let imp = imported.iter().copied().zip(u.imp).collect();
            let unit = idx.place_unit(u.ad, u.port, None, rects, u.exact, imp)?;
            idx.ads.entry(u.ad).or_default().push(unit);
        }
        idx.deferring = false;
        idx.rebuild_axes();
        Ok(idx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::window::Query;
    use adjoin_query::{parse, ClassAd};

    /// Ads by id, as a database would give them back.
    #[derive(Debug)]
    struct Ads(Vec<Arc<ClassAd>>);

    impl AdSource for Ads {
        fn fetch(&self, ids: &[AdId]) -> Vec<Option<Arc<ClassAd>>> {
            ids.iter()
                .map(|&i| self.0.get(i as usize).cloned())
                .collect()
        }

        fn for_each(&self, f: &mut dyn FnMut(AdId, Arc<ClassAd>)) {
            for (i, ad) in (0..).zip(&self.0) {
                f(i, Arc::clone(ad));
            }
        }
    }

    const ADS: &[&str] = &[
        r#"[Name = "a"; Memory = 2048; Arch = "X86_64"; Requirements = TARGET.Size < 500]"#,
        r#"[Name = "b"; Memory = 512; Requirements = TARGET.Size < 500 || TARGET.Owner == "x"]"#,
        r#"[Name = "c"; Memory = 4096; Requirements = false]"#,
        r#"[Name = "d"; Memory = "lots"; Requirements = TARGET.Size >= Memory]"#,
        r#"[Name = "e"; Ports = {[Label = h1; Cpus = 2], [Label = h2; Cpus = 4]}]"#,
        r#"[Name = "f"; Memory = 8192; Requirements = isUndefined(TARGET.Size)]"#,
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
        Index::restore(IndexOptions::default(), Arc::new(Ads(ads())), back).expect("restore")
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
        let mut snap = built(true).snapshot();
        snap.imported.push(99);
        let src: Arc<dyn AdSource> = Arc::new(Ads(ads()));
        let err = Index::restore(IndexOptions::default(), Arc::clone(&src), snap).unwrap_err();
        assert_eq!(err, SnapshotError::Malformed("attribute out of range"));
        let mut snap = built(true).snapshot();
        snap.units[0].imp.pop();
        let err = Index::restore(IndexOptions::default(), src, snap).unwrap_err();
        assert_eq!(err, SnapshotError::Malformed("imported values missing"));
    }
}
