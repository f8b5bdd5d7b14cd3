//! Verification: [`AdStore::check`] reads every entry of every tree, verifies its checksum and
//! encoding (every block's directory and every record's body), and checks the invariants
//! between trees and the in-memory index (docs/storage-format.md).

use crate::backend::KeyRange;
use crate::block::{self, View};
use crate::codec;
use crate::error::OpenError;
use crate::error::{AdError, Damage};
use crate::format;
use crate::index::Loc;
use crate::key::{self, meta, tree, CollId};
use crate::names::Names;
use crate::record::{CollectionEntry, MatchRecord, Tombstone};
use crate::store::{damage, AdStore};
use std::collections::{BTreeMap, HashMap, HashSet};

/// What [`AdStore::check`] found.
#[derive(Clone, Debug, Default)]
pub struct CheckReport {
    /// Entries read, over all trees.
    pub entries: u64,
    /// Ad records read.
    pub ads: u64,
    /// Everything found wrong, in tree order.
    pub damage: Vec<Damage>,
}

impl CheckReport {
    /// True when nothing is wrong.
    pub fn is_clean(&self) -> bool {
        self.damage.is_empty()
    }
}

/// Reads every entry of `t`, handing each to `f`; a failure of the backend mid-tree is
/// reported as damage of that tree and ends its scan.
fn each(
    s: &AdStore,
    t: &str,
    report: &mut CheckReport,
    mut f: impl FnMut(&mut CheckReport, Vec<u8>, Vec<u8>),
) {
    let iter = match s.store.scan(t, KeyRange::all()) {
        Ok(i) => i,
        Err(e) => {
            report.damage.push(damage(t, None, None, &[], e));
            return;
        }
    };
    for entry in iter {
        match entry {
            Ok((k, v)) => {
                report.entries += 1;
                f(report, k, v)
            }
            Err(e) => {
                report.damage.push(damage(t, None, None, &[], e));
                return;
            }
        }
    }
}

impl AdStore {
    /// Reads and verifies every entry; reports damage by tree, collection and id.
    pub fn check(&self) -> Result<CheckReport, AdError> {
        let _span = tracing::info_span!("check").entered();
        // No writer may run between the scans of different trees, or their agreement could not
        // be judged; readers go on.
        let _w = self.write.lock();
        let mut r = CheckReport::default();
        let mut counters: HashMap<Vec<u8>, u64> = HashMap::new();
        each(self, tree::META, &mut r, |r, k, v| {
            let problem = if k == meta::FORMAT {
                match codec::open::<u32>(&k, &v) {
                    Ok(v) if v == format::CURRENT => None,
                    Ok(v) => Some(format!("format {v}, expected {}", format::CURRENT)),
                    Err(e) => Some(e.to_string()),
                }
            } else if [
                meta::NEXT_COLLECTION,
                meta::NEXT_GENERATED,
                meta::NEXT_MATCH,
                meta::NEXT_CYCLE,
                meta::PRUNED_BELOW,
            ]
            .contains(&k.as_slice())
                || k.starts_with(meta::GENERATION)
            {
                match codec::open::<u64>(&k, &v) {
                    Ok(n) => {
                        counters.insert(k.clone(), n);
                        None
                    }
                    Err(e) => Some(e.to_string()),
                }
            } else {
                Some("unknown metadata key".to_owned())
            };
            if let Some(p) = problem {
                let id = String::from_utf8_lossy(&k).into_owned();
                r.damage.push(damage(tree::META, None, Some(&id), &k, p));
            }
        });

        let mut colls: HashMap<CollId, (String, CollectionEntry)> = HashMap::new();
        each(self, tree::CATALOG, &mut r, |r, k, v| {
            let name = key::decode_catalog(&k);
            match (name, codec::open::<CollectionEntry>(&k, &v)) {
                (Some(name), Ok(e)) => {
                    if let Some((other, _)) = colls.get(&e.id) {
                        let p = format!("collection number {} also used by {other}", e.id);
                        r.damage
                            .push(damage(tree::CATALOG, Some(&name), None, &k, p));
                    } else {
                        colls.insert(e.id, (name, e));
                    }
                }
                (name, Err(e)) => {
                    r.damage
                        .push(damage(tree::CATALOG, name.as_deref(), None, &k, e))
                }
                (None, Ok(_)) => {
                    r.damage
                        .push(damage(tree::CATALOG, None, None, &k, "name is not UTF-8"))
                }
            }
        });
        let next_coll = counters.get(meta::NEXT_COLLECTION).copied().unwrap_or(1);
        for (c, (name, _)) in &colls {
            if u64::from(*c) >= next_coll {
                let p = format!("collection number {c} not below the counter {next_coll}");
                r.damage.push(damage(
                    tree::CATALOG,
                    Some(name),
                    None,
                    &key::catalog(name),
                    p,
                ));
            }
        }
        let cname = |c: CollId| colls.get(&c).map(|(n, _)| n.clone());

        // The dictionary as on disk now (the one in memory could hide a lost entry).
        let loaded;
        let names: &Names = match Names::load(&*self.store) {
            Ok(n) => {
                r.entries += n.len() as u64;
                loaded = n;
                &loaded
            }
            Err(OpenError::Damaged(d)) => {
                r.damage.push(d);
                &self.names
            }
            Err(e) => {
                r.damage.push(damage(tree::NAMES, None, None, &[], e));
                &self.names
            }
        };
        // Writers, the only ones to change the index, are held off by the writer lock.
        let index = self.index.read();
        let mut found: HashMap<CollId, u64> = HashMap::new();
        let mut live_ids: HashSet<(CollId, String)> = HashSet::new();
        let mut expiring: HashSet<(CollId, i64, u64, u64)> = HashSet::new();
        // Per collection: the last sequence number seen, so blocks cannot overlap.
        let mut last_seq: HashMap<CollId, u64> = HashMap::new();
        // The copies of the block heads, each to match its block's.
        let mut dirs: BTreeMap<Vec<u8>, Vec<u8>> = BTreeMap::new();
        each(self, tree::DIRS, &mut r, |_, k, v| {
            dirs.insert(k, v);
        });
        each(self, tree::BLOCKS, &mut r, |r, k, v| {
            let dir = dirs.remove(&k);
            let Some((c, b)) = key::decode_block(&k) else {
                r.damage
                    .push(damage(tree::BLOCKS, None, None, &k, "malformed key"));
                return;
            };
            let dir_problem = match dir {
                None => Some("the block's directory is missing"),
                Some(d) if block::head(&v) != Some(d.as_slice()) => {
                    Some("differs from the block's directory")
                }
                Some(_) => None,
            };
            if let Some(p) = dir_problem {
                r.damage
                    .push(damage(tree::DIRS, cname(c).as_deref(), None, &k, p));
            }
            let Some(name) = cname(c) else {
                let p = format!("unknown collection number {c}");
                r.damage.push(damage(tree::BLOCKS, None, None, &k, p));
                return;
            };
            let bad = |r: &mut CheckReport, id: Option<&str>, p: String| {
                r.damage.push(damage(tree::BLOCKS, Some(&name), id, &k, p));
            };
            let view = match View::open(&k, b, &v) {
                Ok(view) => view,
                Err(e) => return bad(r, None, format!("block #{b} unreadable: {e}")),
            };
            if view.entries().is_empty() {
                bad(r, None, format!("block #{b} is empty"));
            }
            if let Some(&last) = last_seq.get(&c) {
                if b <= last {
                    bad(
                        r,
                        None,
                        format!("block #{b} overlaps the block before (up to #{last})"),
                    );
                }
            }
            let coll_index = index.colls.get(&c);
            for (i, e) in view.entries().iter().enumerate() {
                last_seq.insert(c, e.seq);
                if let Err(err) = view.body(i).and_then(|body| names.decode(body)) {
                    bad(r, Some(e.id), err.to_string());
                }
                // A dead record (consumed, left in its block) is not an ad; its id must be
                // tombstoned (else it would read as live after a reopen).
                if coll_index.is_some_and(|x| x.dead.contains(&e.seq)) {
                    if !index.tombstoned.contains(&key::id(c, e.id)) {
                        bad(
                            r,
                            Some(e.id),
                            "a dead record whose id has no tombstone".into(),
                        );
                    }
                    continue;
                }
                r.ads += 1;
                *found.entry(c).or_default() += 1;
                if let Some((_, ce)) = colls.get(&c) {
                    if e.seq >= ce.next_seq {
                        let p = format!(
                            "#{} not below the collection's next #{}",
                            e.seq, ce.next_seq
                        );
                        bad(r, Some(e.id), p);
                    }
                }
                if !live_ids.insert((c, e.id.to_owned())) {
                    bad(
                        r,
                        Some(e.id),
                        format!("a second record of this id, #{}", e.seq),
                    );
                }
                let loc = Loc {
                    block: b,
                    seq: e.seq,
                };
                let live = coll_index.and_then(|x| x.ids.get(e.id));
                if live.map(|l| l.loc) != Some(loc) {
                    bad(
                        r,
                        Some(e.id),
                        "the in-memory index does not place the ad here".into(),
                    );
                }
                if live.map(|l| l.revision) != Some(e.revision()) {
                    bad(
                        r,
                        Some(e.id),
                        "the in-memory index has another revision of the ad".into(),
                    );
                }
                if let Some(t) = e.expires {
                    expiring.insert((c, t, e.seq, b));
                }
            }
        });
        for k in dirs.keys() {
            let name = key::decode_block(k).and_then(|(c, _)| cname(c));
            let p = "the directory of a block that does not exist";
            r.damage
                .push(damage(tree::DIRS, name.as_deref(), None, k, p));
        }
        for (c, coll) in &index.colls {
            let indexed = coll.ids.len() as u64;
            let on_disk = found.get(c).copied().unwrap_or(0);
            if indexed != on_disk {
                let p =
                    format!("the in-memory index lists {indexed} ads, the blocks hold {on_disk}");
                r.damage
                    .push(damage(tree::BLOCKS, cname(*c).as_deref(), None, &[], p));
            }
            for &(t, seq, b) in &coll.expiry {
                if !expiring.remove(&(*c, t, seq, b)) {
                    let p =
                        format!("the in-memory index expires #{seq} at {t}, its record does not");
                    r.damage.push(damage(
                        tree::BLOCKS,
                        cname(*c).as_deref(),
                        None,
                        &key::block(*c, b),
                        p,
                    ));
                }
            }
        }
        for (c, t, seq, b) in expiring {
            let p = format!("#{seq} expires at {t}, which the in-memory index misses");
            r.damage.push(damage(
                tree::BLOCKS,
                cname(c).as_deref(),
                None,
                &key::block(c, b),
                p,
            ));
        }

        each(self, tree::TOMBSTONES, &mut r, |r, k, v| {
            let Some((c, id)) = key::decode_id(&k) else {
                r.damage
                    .push(damage(tree::TOMBSTONES, None, None, &k, "malformed key"));
                return;
            };
            let name = cname(c);
            if let Err(e) = codec::open::<Tombstone>(&k, &v) {
                r.damage
                    .push(damage(tree::TOMBSTONES, name.as_deref(), Some(&id), &k, e));
            } else if live_ids.contains(&(c, id.clone())) {
                r.damage.push(damage(
                    tree::TOMBSTONES,
                    name.as_deref(),
                    Some(&id),
                    &k,
                    "a tombstoned id also has an ad",
                ));
            }
        });

        let next_match = counters.get(meta::NEXT_MATCH).copied().unwrap_or(1);
        let pruned_below = counters.get(meta::PRUNED_BELOW).copied().unwrap_or(1);
        // The index entries every record kept must have (format 4).
        let mut by_cycle: HashSet<Vec<u8>> = HashSet::new();
        let mut by_ad: HashSet<Vec<u8>> = HashSet::new();
        each(self, tree::MATCHES, &mut r, |r, k, v| {
            let id = key::decode_match_id(&k);
            let shown = id.map(|i| i.to_string());
            match codec::open::<MatchRecord>(&k, &v) {
                Ok(m) if Some(m.id) != id => r.damage.push(damage(
                    tree::MATCHES,
                    None,
                    shown.as_deref(),
                    &k,
                    format!("record says match {}", m.id),
                )),
                Ok(m) if m.id >= next_match => r.damage.push(damage(
                    tree::MATCHES,
                    None,
                    shown.as_deref(),
                    &k,
                    "match id not below the counter",
                )),
                Ok(m) if m.id < pruned_below => r.damage.push(damage(
                    tree::MATCHES,
                    None,
                    shown.as_deref(),
                    &k,
                    "match id below the pruned ones",
                )),
                Ok(m) => {
                    by_cycle.insert(key::match_by_cycle(m.cycle, m.id).to_vec());
                    for mem in &m.members {
                        by_ad.insert(key::match_by_ad(&mem.collection, &mem.id, m.id));
                    }
                }
                Err(e) => r
                    .damage
                    .push(damage(tree::MATCHES, None, shown.as_deref(), &k, e)),
            }
        });
        for (t, mut wanted) in [
            (tree::MATCHES_BY_CYCLE, by_cycle),
            (tree::MATCHES_BY_AD, by_ad),
        ] {
            each(self, t, &mut r, |r, k, _| {
                if !wanted.remove(&k) {
                    r.damage
                        .push(damage(t, None, None, &k, "index entry of no match kept"));
                }
            });
            let mut missing: Vec<Vec<u8>> = wanted.into_iter().collect();
            missing.sort();
            for k in missing {
                r.damage.push(damage(
                    t,
                    None,
                    None,
                    &k,
                    "a match kept is missing from this index",
                ));
            }
        }

        let by_name: BTreeMap<&String, (&CollId, &CollectionEntry)> =
            colls.iter().map(|(c, (n, e))| (n, (c, e))).collect();
        for (name, (c, e)) in by_name {
            let n = found.get(c).copied().unwrap_or(0);
            if n != e.count {
                let p = format!("catalog counts {} ads, the collection holds {n}", e.count);
                r.damage.push(damage(
                    tree::CATALOG,
                    Some(name),
                    None,
                    &key::catalog(name),
                    p,
                ));
            }
        }
        Ok(r)
    }
}
