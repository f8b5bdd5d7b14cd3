//! Reading ads: [`AdStore::get`] by id and [`AdStore::scan`] in load order. Expired ads are
//! invisible here whether or not they have been purged yet.
//!
//! Reads take no lock. A `get` reads the `ids` entry and then the record; a writer may remove
//! the ad in between, so a missing record is damage only if the `ids` entry still points to it.

use crate::backend::{EntryIter, KeyRange};
use crate::codec;
use crate::error::AdError;
use crate::key::{self, tree};
use crate::record::{open_header, IdEntry, StoredAd};
use crate::store::{damage, AdStore};

impl AdStore {
    /// The ad `id` of collection `name`, unless absent or expired.
    pub fn get(&self, name: &str, id: &str) -> Result<Option<StoredAd>, AdError> {
        let _span = tracing::trace_span!("get", collection = name, id).entered();
        let Some(c) = self.coll_id(name) else {
            return Ok(None);
        };
        let now = self.now();
        let ik = key::id(c, id);
        for _ in 0..3 {
            let Some(seq) = self.id_entry(name, id, &ik)? else {
                return Ok(None);
            };
            let ak = key::ad(c, seq);
            match self.store.get(tree::ADS, &ak)? {
                Some(raw) => return self.decode(name, Some(id), &ak, &raw, now),
                None if self.id_entry(name, id, &ik)? == Some(seq) => {
                    return Err(AdError::Damaged(damage(
                        tree::IDS,
                        Some(name),
                        Some(id),
                        &ik,
                        format!("id entry points to ad #{seq}, which is missing"),
                    )))
                }
                None => continue,
            }
        }
        Ok(None)
    }

    fn id_entry(&self, name: &str, id: &str, ik: &[u8]) -> Result<Option<u64>, AdError> {
        let Some(raw) = self.store.get(tree::IDS, ik)? else {
            return Ok(None);
        };
        codec::open::<IdEntry>(ik, &raw)
            .map(|e| Some(e.seq))
            .map_err(|e| AdError::Damaged(damage(tree::IDS, Some(name), Some(id), ik, e)))
    }

    /// Decodes a record; `Ok(None)` when it has expired.
    fn decode(
        &self,
        name: &str,
        id: Option<&str>,
        ak: &[u8],
        raw: &[u8],
        now: i64,
    ) -> Result<Option<StoredAd>, AdError> {
        let bad = |e: codec::CodecError| AdError::Damaged(damage(tree::ADS, Some(name), id, ak, e));
        let (header, rest) = open_header(ak, raw).map_err(bad)?;
        if header.expires.is_some_and(|at| at <= now) {
            return Ok(None);
        }
        let want_seq = key::decode_ad(ak).map(|(_, s)| s);
        if want_seq != Some(header.seq) || id.is_some_and(|id| id != header.id) {
            return Err(AdError::Damaged(damage(
                tree::ADS,
                Some(name),
                id.or(Some(&header.id)),
                ak,
                "record does not belong under its key",
            )));
        }
        let ad = self.names.decode(rest).map_err(|e| {
            AdError::Damaged(damage(tree::ADS, Some(name), Some(&header.id), ak, e))
        })?;
        Ok(Some(StoredAd {
            collection: name.to_owned(),
            header,
            ad,
        }))
    }

    /// The live ads of `name` in load order. Damage is reported item by item; the scan goes on.
    pub fn scan(&self, name: &str) -> Result<AdScan<'_>, AdError> {
        let _span = tracing::debug_span!("scan", collection = name).entered();
        let inner = match self.coll_id(name) {
            Some(c) => Some(
                self.store
                    .scan(tree::ADS, KeyRange::prefix(&key::collection_prefix(c)))?,
            ),
            None => None,
        };
        Ok(AdScan {
            store: self,
            name: name.to_owned(),
            inner,
            now: self.now(),
        })
    }

    /// How many records `name` holds, expired ones not yet purged included (O(1)).
    pub fn stored_count(&self, name: &str) -> Result<u64, AdError> {
        let Some(_) = self.coll_id(name) else {
            return Ok(0);
        };
        let k = key::catalog(name);
        let Some(raw) = self.store.get(tree::CATALOG, &k)? else {
            return Ok(0);
        };
        codec::open::<crate::record::CollectionEntry>(&k, &raw)
            .map(|e| e.count)
            .map_err(|e| AdError::Damaged(damage(tree::CATALOG, Some(name), None, &k, e)))
    }
}

/// The live ads of a collection in load order ([`AdStore::scan`]).
pub struct AdScan<'s> {
    store: &'s AdStore,
    name: String,
    inner: Option<EntryIter<'s>>,
    now: i64,
}

impl Iterator for AdScan<'_> {
    type Item = Result<StoredAd, AdError>;

    fn next(&mut self) -> Option<Self::Item> {
        let inner = self.inner.as_mut()?;
        loop {
            let (k, v) = match inner.next()? {
                Ok(e) => e,
                Err(e) => return Some(Err(e.into())),
            };
            match self.store.decode(&self.name, None, &k, &v, self.now) {
                Ok(Some(ad)) => return Some(Ok(ad)),
                Ok(None) => continue,
                Err(e) => return Some(Err(e)),
            }
        }
    }
}
