//! Verification: [`AdStore::check`] reads every entry of every tree, verifies its checksum and
//! encoding, and checks the invariants between trees (docs/storage-format.md).

use crate::backend::KeyRange;
use crate::codec;
use crate::error::OpenError;
use crate::error::{AdError, Damage};
use crate::format;
use crate::key::{self, meta, tree, CollId};
use crate::names::Names;
use crate::record::{open_header, CollectionEntry, IdEntry, MatchRecord, Tombstone};
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
            ]
            .contains(&k.as_slice())
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

        // ids: (collection, seq) → id
        let mut by_seq: HashMap<(CollId, u64), String> = HashMap::new();
        let mut live_ids: HashSet<(CollId, String)> = HashSet::new();
        each(self, tree::IDS, &mut r, |r, k, v| {
            let Some((c, id)) = key::decode_id(&k) else {
                r.damage
                    .push(damage(tree::IDS, None, None, &k, "malformed key"));
                return;
            };
            let name = cname(c);
            if name.is_none() {
                r.damage.push(damage(
                    tree::IDS,
                    None,
                    Some(&id),
                    &k,
                    format!("unknown collection number {c}"),
                ));
                return;
            }
            match codec::open::<IdEntry>(&k, &v) {
                Ok(e) => {
                    if let Some(other) = by_seq.insert((c, e.seq), id.clone()) {
                        let p = format!("ad #{} is also claimed by id {other}", e.seq);
                        r.damage
                            .push(damage(tree::IDS, name.as_deref(), Some(&id), &k, p));
                    }
                    live_ids.insert((c, id));
                }
                Err(e) => r
                    .damage
                    .push(damage(tree::IDS, name.as_deref(), Some(&id), &k, e)),
            }
        });

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
        let mut found: HashMap<CollId, u64> = HashMap::new();
        let mut seen: HashSet<(CollId, u64)> = HashSet::new();
        let mut want_expiry: HashSet<Vec<u8>> = HashSet::new();
        each(self, tree::ADS, &mut r, |r, k, v| {
            let Some((c, seq)) = key::decode_ad(&k) else {
                r.damage
                    .push(damage(tree::ADS, None, None, &k, "malformed key"));
                return;
            };
            let name = cname(c);
            let indexed = by_seq.get(&(c, seq)).cloned();
            let bad = |r: &mut CheckReport, id: Option<&str>, p: String| {
                r.damage.push(damage(
                    tree::ADS,
                    name.as_deref(),
                    id.or(indexed.as_deref()),
                    &k,
                    p,
                ));
            };
            r.ads += 1;
            if name.is_none() {
                return bad(r, None, format!("unknown collection number {c}"));
            }
            *found.entry(c).or_default() += 1;
            seen.insert((c, seq));
            let (h, rest) = match open_header(&k, &v) {
                Ok(x) => x,
                Err(e) => return bad(r, None, e.to_string()),
            };
            if let Err(e) = names.decode(rest) {
                return bad(r, Some(&h.id), e.to_string());
            }
            if h.seq != seq {
                bad(
                    r,
                    Some(&h.id),
                    format!("record says #{}, key says #{seq}", h.seq),
                );
            }
            match &indexed {
                Some(id) if *id == h.id => {}
                Some(id) => bad(r, Some(&h.id), format!("id entry {id} points here")),
                None => bad(r, Some(&h.id), "no id entry points to this ad".into()),
            }
            if let Some((_, e)) = colls.get(&c) {
                if seq >= e.next_seq {
                    bad(
                        r,
                        Some(&h.id),
                        format!("#{seq} not below the collection's next #{}", e.next_seq),
                    );
                }
            }
            if let Some(at) = h.expires {
                want_expiry.insert(key::expiry(at, c, seq).to_vec());
            }
        });
        for ((c, seq), id) in &by_seq {
            if !seen.contains(&(c.to_owned(), *seq)) {
                let p = format!("id entry points to ad #{seq}, which is missing");
                r.damage.push(damage(
                    tree::IDS,
                    cname(*c).as_deref(),
                    Some(id),
                    &key::id(*c, id),
                    p,
                ));
            }
        }

        each(self, tree::EXPIRY, &mut r, |r, k, v| {
            let decoded = key::decode_expiry(&k);
            let name = decoded.and_then(|(_, c, _)| cname(c));
            let id = decoded.and_then(|(_, c, s)| by_seq.get(&(c, s)).cloned());
            if let Err(e) = codec::open::<()>(&k, &v) {
                r.damage
                    .push(damage(tree::EXPIRY, name.as_deref(), id.as_deref(), &k, e));
            } else if !want_expiry.remove(&k) {
                r.damage.push(damage(
                    tree::EXPIRY,
                    name.as_deref(),
                    id.as_deref(),
                    &k,
                    "no ad expires at this entry's time",
                ));
            }
        });
        for k in want_expiry {
            let decoded = key::decode_expiry(&k);
            let name = decoded.and_then(|(_, c, _)| cname(c));
            let id = decoded.and_then(|(_, c, s)| by_seq.get(&(c, s)).cloned());
            r.damage.push(damage(
                tree::EXPIRY,
                name.as_deref(),
                id.as_deref(),
                &k,
                "the ad's expiry is not indexed",
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
                Ok(_) => {}
                Err(e) => r
                    .damage
                    .push(damage(tree::MATCHES, None, shown.as_deref(), &k, e)),
            }
        });

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
