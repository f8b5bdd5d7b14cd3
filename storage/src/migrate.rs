//! The migration from format 1 to 2: format 1's one `ads` record per ad (with its `ids` and
//! `expiry` entries) becomes blocks of records in `blocks` (docs/storage-format.md).

use crate::backend::{KeyRange, Store};
use crate::block::{self, Rec};
use crate::codec;
use crate::error::MigrationError;
use crate::format::write_version_tx;
use crate::key::{self, meta, tree, CollId};
use crate::record::{open_header, MatchRecord};

/// A write of a migration: tree number, key, and value (`None`: delete).
type TreeWrite = (usize, Vec<u8>, Option<Vec<u8>>);

/// Ads of format 1 moved per transaction by [`blocks_from_records`].
const MIGRATION_CHUNK: usize = 1000;

/// Format 1 → 2: packs the records of `ads` into blocks of `blocks`, in load order, then
/// deletes the `ids` and `expiry` trees' entries and stamps format 2. Each transaction writes
/// some blocks and deletes the records they hold, so an interrupted migration resumes where
/// it stopped (the id and expiry deletions are as safe to repeat); the version is written last.
pub(crate) fn blocks_from_records(store: &dyn Store) -> Result<(), MigrationError> {
    let defaults = crate::StoreOptions::default();
    let trees = [
        tree::BLOCKS,
        tree::v1::ADS,
        tree::v1::IDS,
        tree::v1::EXPIRY,
        tree::META,
        tree::DIRS,
    ];
    loop {
        // The next chunk of records, grouped into blocks per collection.
        let mut blocks: Vec<(CollId, Vec<Rec>)> = Vec::new();
        let mut moved: Vec<Vec<u8>> = Vec::new();
        for entry in store.scan(tree::v1::ADS, KeyRange::all())? {
            let (k, v) = entry?;
            let (c, seq) = key::decode_block(&k).ok_or_else(|| {
                MigrationError::Damaged(format!("a record under the malformed key {k:02x?}"))
            })?;
            let (header, ad) = open_header(&k, &v).map_err(|e| {
                MigrationError::Damaged(format!(
                    "the record of collection {c} #{seq} is damaged: {e}"
                ))
            })?;
            if header.seq != seq {
                return Err(MigrationError::Damaged(format!(
                    "the record of collection {c} #{seq} says #{}",
                    header.seq
                )));
            }
            let rec = Rec::new(header, ad.to_vec());
            let fits = blocks.last().is_some_and(|(bc, recs)| {
                *bc == c
                    && recs.len() < defaults.block_ads
                    && recs.iter().map(|r| r.body.len()).sum::<usize>() < defaults.block_bytes
            });
            match blocks.last_mut() {
                Some((_, recs)) if fits => recs.push(rec),
                _ => blocks.push((c, vec![rec])),
            }
            moved.push(k);
            if moved.len() >= MIGRATION_CHUNK {
                break;
            }
        }
        if moved.is_empty() {
            break;
        }
        let mut writes: Vec<TreeWrite> = Vec::new();
        for (c, recs) in &blocks {
            let k = key::block(*c, recs[0].header.seq).to_vec();
            let v = block::encode(&k, recs)?;
            if let Some(head) = block::head(&v) {
                writes.push((5, k.clone(), Some(head.to_vec())));
            }
            writes.push((0, k, Some(v)));
        }
        writes.extend(moved.into_iter().map(|k| (1, k, None)));
        apply(store, &trees, &writes, false)?;
    }
    // Every record is in a block: the id and expiry entries go, then the version.
    for (n, t) in [(2, tree::v1::IDS), (3, tree::v1::EXPIRY)] {
        loop {
            let keys: Vec<Vec<u8>> = store
                .scan(t, KeyRange::all())?
                .take(MIGRATION_CHUNK)
                .map(|e| e.map(|(k, _)| k))
                .collect::<Result<_, _>>()?;
            if keys.is_empty() {
                break;
            }
            let writes: Vec<_> = keys.into_iter().map(|k| (n, k, None)).collect();
            apply(store, &trees, &writes, false)?;
        }
    }
    apply(store, &trees, &[], true)
}

/// Format 2 → 3: nothing to move (a format-2 store holds no dead records: consumption removed
/// them); the stamp says that from now on consumed records may stay in their blocks.
pub(crate) fn dead_records_allowed(store: &dyn Store) -> Result<(), MigrationError> {
    store.transaction(&[tree::META], &|tx| write_version_tx(tx, 0, 3))?;
    Ok(())
}

/// Format 4 → 5: nothing to rewrite (format-4 records hold runs of one operator as nested
/// binary nodes, which read and evaluate as the chain nodes format 5 writes); the stamp keeps
/// format-4 builds, which cannot decode a chain node, from opening the store.
pub(crate) fn chains_allowed(store: &dyn Store) -> Result<(), MigrationError> {
    store.transaction(&[tree::META], &|tx| write_version_tx(tx, 0, 5))?;
    Ok(())
}

/// Format 3 → 4: the match history gets its access paths — every record's entries in
/// `matches_by_cycle` and `matches_by_ad` — and the durable cycle counter, set past the highest
/// cycle recorded. Written in chunks; the version goes last, so an interrupted migration runs
/// again from the start (its entries are the same keys, written again).
pub(crate) fn match_history_indexed(store: &dyn Store) -> Result<(), MigrationError> {
    let trees = [
        tree::META,
        tree::MATCHES,
        tree::MATCHES_BY_CYCLE,
        tree::MATCHES_BY_AD,
    ];
    let mut next_cycle = 1u64;
    let mut range = KeyRange::all();
    loop {
        let mut writes: Vec<TreeWrite> = Vec::new();
        let mut last = None;
        for entry in store
            .scan(tree::MATCHES, range.clone())?
            .take(MIGRATION_CHUNK)
        {
            let (k, v) = entry?;
            let m: MatchRecord = codec::open(&k, &v).map_err(|e| {
                MigrationError::Damaged(format!("the match record under {k:02x?} is damaged: {e}"))
            })?;
            next_cycle = next_cycle.max(m.cycle.saturating_add(1));
            writes.push((
                2,
                key::match_by_cycle(m.cycle, m.id).to_vec(),
                Some(Vec::new()),
            ));
            for mem in &m.members {
                writes.push((
                    3,
                    key::match_by_ad(&mem.collection, &mem.id, m.id),
                    Some(Vec::new()),
                ));
            }
            last = Some(k);
        }
        let Some(last) = last else { break };
        store.transaction(&trees, &|tx| {
            for (t, k, v) in &writes {
                match v {
                    Some(v) => tx.put(*t, k, v)?,
                    None => tx.delete(*t, k)?,
                }
            }
            Ok(())
        })?;
        range = range.resume_after(&last);
    }
    let counter = codec::seal(meta::NEXT_CYCLE, &next_cycle)?;
    store.transaction(&[tree::META], &|tx| {
        tx.put(0, meta::NEXT_CYCLE, &counter)?;
        write_version_tx(tx, 0, 4)
    })?;
    Ok(())
}

/// Applies `writes` (tree number, key, value or delete) to `trees` in one transaction, with
/// `stamp` also recording format 2 (`trees[4]` is `meta`).
fn apply(
    store: &dyn Store,
    trees: &[&str],
    writes: &[TreeWrite],
    stamp: bool,
) -> Result<(), MigrationError> {
    store.transaction(trees, &|tx| {
        for (t, k, v) in writes {
            match v {
                Some(v) => tx.put(*t, k, v)?,
                None => tx.delete(*t, k)?,
            }
        }
        if stamp {
            write_version_tx(tx, 4, 2)?;
        }
        Ok(())
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::MemStore;
    use crate::codec;
    use crate::format::{write_version, Opened};
    use crate::key::meta;
    use crate::record::CollectionEntry;

    /// Writes ad `seq` of collection `c` as format 1 did: its record, `ids` and `expiry` entries.
    fn v1_ad(
        s: &dyn Store,
        names: &crate::names::Names,
        c: CollId,
        seq: u64,
        expires: Option<i64>,
    ) {
        let id = format!("ad{seq}");
        let ad = adjoin_query::parse::classad(&format!("[Name = \"{id}\"; Serial = {seq}]"))
            .expect("ad");
        let body = names.encode(s, &ad).expect("encode");
        let header = crate::record::AdHeader {
            id: id.clone(),
            seq,
            stored_at: 5,
            expires,
            generated_id: false,
        };
        let k = key::block(c, seq);
        let payload = crate::record::ad_payload(&header, &body).expect("payload");
        s.put(tree::v1::ADS, &k, &codec::frame(&k, &payload))
            .expect("record");
        let ik = key::id(c, &id);
        s.put(tree::v1::IDS, &ik, &codec::seal(&ik, &seq).expect("seal"))
            .expect("id");
        if let Some(t) = expires {
            let ek = key::expiry(t, c, seq);
            s.put(tree::v1::EXPIRY, &ek, &codec::seal(&ek, &()).expect("seal"))
                .expect("expiry");
        }
    }

    #[test]
    fn format_1_records_move_into_blocks() {
        let s = std::sync::Arc::new(MemStore::new());
        write_version(&*s, 1).expect("stamp");
        let names = crate::names::Names::load(&*s).expect("names");
        let mut catalog = Vec::new();
        for (c, name, n) in [(1u32, "big", 2500u64), (2, "small", 3)] {
            for seq in 1..=n {
                v1_ad(
                    &*s,
                    &names,
                    c,
                    seq,
                    (seq / 100 * 100 == seq).then_some(10_000 + seq as i64),
                );
            }
            catalog.push((
                name,
                CollectionEntry {
                    id: c,
                    next_seq: n + 1,
                    count: n,
                },
            ));
        }
        for (name, e) in catalog {
            let k = key::catalog(name);
            s.put(tree::CATALOG, &k, &codec::seal(&k, &e).expect("seal"))
                .expect("catalog");
        }
        let k = meta::NEXT_COLLECTION;
        s.put(tree::META, k, &codec::seal(k, &3u64).expect("seal"))
            .expect("counter");
        let clock: crate::Clock = std::sync::Arc::new(|| 1000);
        let opts = crate::StoreOptions {
            clock,
            ..crate::StoreOptions::default()
        };
        let store = crate::AdStore::open(s.clone(), opts.clone()).expect("migrate");
        assert_eq!(store.opened(), Opened::Migrated(1));
        for t in [tree::v1::ADS, tree::v1::IDS, tree::v1::EXPIRY] {
            assert_eq!(
                s.scan(t, KeyRange::all()).expect("scan").count(),
                0,
                "{t} emptied"
            );
        }
        let ids: Vec<String> = store
            .scan("big")
            .expect("scan")
            .map(|a| a.expect("ad").header.id)
            .collect();
        assert_eq!(ids.len(), 2500);
        assert!(ids
            .iter()
            .enumerate()
            .all(|(i, id)| *id == format!("ad{}", i + 1)));
        let got = store.get("small", "ad2").expect("get").expect("present");
        assert_eq!(
            got.ad.get("Serial").map(|e| e.to_string()).as_deref(),
            Some("2")
        );
        let exp = store.get("big", "ad300").expect("get").expect("present");
        assert_eq!(exp.header.expires, Some(10_300));
        assert!(store.check().expect("check").is_clean());
        // Run again (as after a crash before the version was written): nothing changes.
        drop(store);
        write_version(&*s, 1).expect("stamp");
        let before = s.scan(tree::BLOCKS, KeyRange::all()).expect("scan").count();
        let store = crate::AdStore::open(s.clone(), opts).expect("migrate again");
        assert_eq!(store.opened(), Opened::Migrated(1));
        assert_eq!(
            s.scan(tree::BLOCKS, KeyRange::all()).expect("scan").count(),
            before
        );
        assert_eq!(store.scan("big").expect("scan").count(), 2500);
        assert!(store.check().expect("check").is_clean());
    }
}
