//! Reading ads: [`AdStore::get`] by id and [`AdStore::scan`] in load order. Expired ads are
//! invisible here whether or not they have been purged yet.
//!
//! Reads take no lock but the index's, briefly. A `get` finds the ad's block in the index and
//! reads it; a writer may have rewritten the block in between (and not yet updated the index),
//! so when the block does not hold the ad where the index said, the read is done again under
//! the writer lock, where index and store agree: a miss then is damage.

use crate::backend::{EntryIter, KeyRange};
use crate::block::{Place, View};
use crate::codec;
use crate::error::AdError;
use crate::key::{self, tree, CollId};
use crate::raw::RawAd;
use crate::record::{AdHeader, StoredAd};
use crate::store::{damage, AdStore};

/// A collection's identity and write count ([`AdStore::generation`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Generation {
    /// The collection's number (a collection dropped and made again gets a new one).
    pub collection: CollId,
    /// Committed writes that changed its records.
    pub writes: u64,
}

/// What one attempt of a `get` found.
enum Got {
    /// The answer.
    Settled(Option<StoredAd>),
    /// The block did not hold the ad where the index placed it (at this sequence number).
    Moved(u64),
}

impl AdStore {
    /// The ad `id` of collection `name`, unless absent or expired.
    pub fn get(&self, name: &str, id: &str) -> Result<Option<StoredAd>, AdError> {
        let _span = tracing::trace_span!("get", collection = name, id).entered();
        let Some(c) = self.coll_id(name) else {
            return Ok(None);
        };
        let now = self.now();
        if let Got::Settled(ad) = self.get_once(name, c, id, now)? {
            return Ok(ad);
        }
        let _w = self.write.lock();
        match self.get_once(name, c, id, now)? {
            Got::Settled(ad) => Ok(ad),
            Got::Moved(seq) => Err(crate::write::missing(name, id, seq)),
        }
    }

    fn get_once(&self, name: &str, c: CollId, id: &str, now: i64) -> Result<Got, AdError> {
        let loc = {
            let ix = self.index.read();
            match ix.get(c, id) {
                Some(loc) => loc,
                None => {
                    // A block whose directory is unreadable may hold it: say so.
                    let coll = ix.colls.get(&c);
                    return match coll.and_then(|x| x.damaged.first()) {
                        Some(d) => {
                            let mut d = d.clone();
                            d.collection = Some(name.to_owned());
                            d.id = Some(id.to_owned());
                            d.problem = format!(
                                "not found, and may be in a block that cannot be read ({})",
                                d.problem
                            );
                            Err(AdError::Damaged(d))
                        }
                        None => Ok(Got::Settled(None)),
                    };
                }
            }
        };
        let k = key::block(c, loc.block);
        let raw = self
            .store
            .get(tree::BLOCKS, &k)
            .map_err(|e| AdError::Damaged(damage(tree::BLOCKS, Some(name), Some(id), &k, e)))?;
        let Some(raw) = raw else {
            return Ok(Got::Moved(loc.seq));
        };
        let bad = |e: codec::CodecError| {
            AdError::Damaged(damage(tree::BLOCKS, Some(name), Some(id), &k, e))
        };
        let view = View::open(&k, loc.block, &raw).map_err(bad)?;
        let Some(i) = view.find(loc.seq).filter(|&i| view.entries()[i].id == id) else {
            return Ok(Got::Moved(loc.seq));
        };
        let e = view.entries()[i];
        if e.expires.is_some_and(|at| at <= now) {
            return Ok(Got::Settled(None));
        }
        let ad = self.names.decode(view.body(i).map_err(bad)?).map_err(bad)?;
        Ok(Got::Settled(Some(StoredAd {
            collection: name.to_owned(),
            header: e.header(),
            ad,
            revision: e.revision(),
        })))
    }

    /// The live ads of `name` in load order. A damaged record is reported as its item and the
    /// scan goes on; a failure of the backend (a page it cannot read) is reported as the last
    /// item, naming the last block read: the ads after it cannot be reached.
    pub fn scan(&self, name: &str) -> Result<AdScan<'_>, AdError> {
        self.scan_with(name, |coll, header, raw| {
            Ok(StoredAd {
                collection: coll.to_owned(),
                header,
                ad: raw.decode()?,
                revision: raw.revision(),
            })
        })
    }

    /// The live ads of `name` in load order, each given to `read` undecoded ([`RawAd`]:
    /// with the collection's name and the ad's header, its body's checksum verified), which
    /// makes the item. What `read` fails with is reported as damage to that ad; the scan goes
    /// on. A failure of the backend ends the scan ([`AdStore::scan`]).
    pub fn scan_with<T, F>(&self, name: &str, read: F) -> Result<ScanWith<'_, F>, AdError>
    where
        F: FnMut(&str, AdHeader, RawAd<'_>) -> Result<T, codec::CodecError>,
    {
        let _span = tracing::debug_span!("scan", collection = name).entered();
        let coll = self.coll_id(name);
        let listed = coll.map_or(0, |c| self.listed(c));
        let (inner, last) = match coll {
            Some(c) => {
                let prefix = key::collection_prefix(c);
                let scan = self.store.scan(tree::BLOCKS, KeyRange::prefix(&prefix))?;
                (Some(scan), prefix.to_vec())
            }
            None => (None, Vec::new()),
        };
        Ok(ScanWith {
            store: self,
            name: name.to_owned(),
            coll,
            inner,
            last,
            seen_blocks: Vec::new(),
            records: 0,
            listed,
            block: None,
            now: self.now(),
            read,
        })
    }

    /// How many records of collection `c` the in-memory index lists (expired ones not yet
    /// purged included; dead ones not).
    fn listed(&self, c: CollId) -> u64 {
        self.index
            .read()
            .colls
            .get(&c)
            .map_or(0, |x| x.ids.len() as u64)
    }

    /// After a scan of collection `c` that read the blocks `seen` (ascending) and found fewer
    /// records than the index lists: the records of blocks the scan did not return and a
    /// point read cannot find either, as damage (`None` when a writer explains the
    /// difference). Runs under the writer lock, where the index and the store agree.
    fn unreturned(&self, name: &str, c: CollId, seen: &[u64]) -> Option<AdError> {
        let _w = self.write.lock();
        let mut absent: Vec<(u64, &str)> = Vec::new();
        let ix = self.index.read();
        let coll = ix.colls.get(&c)?;
        for (id, live) in &coll.ids {
            if seen.binary_search(&live.loc.block).is_err() {
                absent.push((live.loc.block, id));
            }
        }
        absent.sort_unstable();
        let mut blocks: Vec<u64> = absent.iter().map(|&(b, _)| b).collect();
        blocks.dedup();
        let mut lost: Vec<&str> = Vec::new();
        let mut why = String::new();
        for b in blocks {
            let k = key::block(c, b);
            let problem = match self.store.get(tree::BLOCKS, &k) {
                Ok(Some(raw)) => match View::open(&k, b, &raw) {
                    Ok(_) => continue, // written since the scan passed: not damage
                    Err(e) => e.to_string(),
                },
                Ok(None) => "the block is missing".to_owned(),
                Err(e) => e.to_string(),
            };
            if why.is_empty() {
                why = problem;
            }
            lost.extend(absent.iter().filter(|&&(x, _)| x == b).map(|&(_, id)| id));
        }
        let first = lost.first()?;
        let shown: Vec<&str> = lost.iter().take(5).copied().collect();
        Some(AdError::Damaged(damage(
            tree::BLOCKS,
            Some(name),
            Some(first),
            &[],
            format_args!(
                "{} ad(s) the collection's index lists were not returned by the scan and cannot \
                 be read ({}{}): {why}",
                lost.len(),
                shown.join(", "),
                if lost.len() > shown.len() {
                    ", …"
                } else {
                    ""
                }
            ),
        )))
    }

    /// A body a scan of this store gave ([`RawAd::bytes`]), to be read again.
    pub fn raw_ad<'a>(&'a self, body: &'a [u8]) -> RawAd<'a> {
        RawAd::new(body, &self.names)
    }

    /// The generation of collection `name`: its number and how many committed writes have
    /// changed its records. Equal generations mean equal records (ids, contents, expiry), so
    /// data derived from a collection (an index snapshot) can be checked against it. `None`
    /// for a collection that does not exist.
    pub fn generation(&self, name: &str) -> Result<Option<Generation>, AdError> {
        let Some(c) = self.coll_id(name) else {
            return Ok(None);
        };
        Ok(Some(Generation {
            collection: c,
            writes: self.generation_of(c)?,
        }))
    }

    /// Collection `c`'s write count. A damaged counter reads as a value no earlier write
    /// left (the clock's nanoseconds), so that nothing derived before is taken as current.
    pub(crate) fn generation_of(&self, c: CollId) -> Result<u64, AdError> {
        let k = key::meta::generation(c);
        Ok(match self.store.get(tree::META, &k)? {
            None => 0,
            Some(raw) => codec::open::<u64>(&k, &raw).unwrap_or_else(|_| {
                std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(u64::MAX / 2, |d| d.as_nanos() as u64)
            }),
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

/// The block a scan is reading: its key, value, and the records still to yield (reversed).
struct Current {
    key: Vec<u8>,
    /// The first sequence number of the block (from its key).
    first: u64,
    value: Vec<u8>,
    rest: Vec<Place>,
}

/// The live ads of a collection in load order, decoded ([`AdStore::scan`]).
pub type AdScan<'s> =
    ScanWith<'s, fn(&str, AdHeader, RawAd<'_>) -> Result<StoredAd, codec::CodecError>>;

/// The live ads of a collection in load order, each made into an item by a function of its
/// undecoded record ([`AdStore::scan_with`]).
pub struct ScanWith<'s, F> {
    store: &'s AdStore,
    name: String,
    coll: Option<CollId>,
    /// The backend's scan; `None` once it ended (at its end or its first error).
    inner: Option<EntryIter<'s>>,
    /// The key of the last block read (the collection's prefix before the first).
    last: Vec<u8>,
    /// The blocks read (their key sequences, ascending), and the records they held (dead ones
    /// not counted): a scan that ends with fewer records than the index listed when it began
    /// checks what it missed ([`AdStore::unreturned`]), since a damaged tree may end a scan
    /// early, or skip pages, without an error.
    seen_blocks: Vec<u64>,
    records: u64,
    listed: u64,
    block: Option<Current>,
    now: i64,
    read: F,
}

impl<T, F> ScanWith<'_, F>
where
    F: FnMut(&str, AdHeader, RawAd<'_>) -> Result<T, codec::CodecError>,
{
    /// The next live ad of the current block, if any is left.
    fn next_in_block(&mut self) -> Option<Result<T, AdError>> {
        let cur = self.block.as_mut()?;
        while let Some(p) = cur.rest.pop() {
            if p.header.expires.is_some_and(|at| at <= self.now) {
                continue;
            }
            let name = &self.name;
            let bad = |e: codec::CodecError| {
                AdError::Damaged(damage(
                    tree::BLOCKS,
                    Some(name),
                    Some(&p.header.id),
                    &cur.key,
                    e,
                ))
            };
            let body = match p.body(&cur.value) {
                Ok(body) => body,
                Err(e) => return Some(Err(bad(e))),
            };
            let seq = p.header.seq;
            let raw = RawAd::new(body, &self.store.names).with_revision(p.revision());
            let item = (self.read)(name, p.header, raw);
            return Some(item.map_err(|e| {
                // The header went to `read`: the id is looked up again (damage is rare).
                let id = View::open(&cur.key, cur.first, &cur.value)
                    .ok()
                    .and_then(|v| v.find(seq).map(|i| v.entries()[i].id.to_owned()));
                AdError::Damaged(damage(tree::BLOCKS, Some(name), id.as_deref(), &cur.key, e))
            }));
        }
        None
    }
}

impl<T, F> Iterator for ScanWith<'_, F>
where
    F: FnMut(&str, AdHeader, RawAd<'_>) -> Result<T, codec::CodecError>,
{
    type Item = Result<T, AdError>;

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(item) = self.next_in_block() {
                return Some(item);
            }
            self.block = None;
            let (k, v) = match self.inner.as_mut()?.next() {
                Some(Ok(e)) => e,
                Some(Err(e)) => {
                    // Whatever the backend does after an error (sled repeats it forever), the
                    // scan ends here.
                    self.inner = None;
                    return Some(Err(AdError::Damaged(damage(
                        tree::BLOCKS,
                        Some(&self.name),
                        None,
                        &self.last,
                        format_args!(
                            "the blocks after this key cannot be read, the scan stopped: {e}"
                        ),
                    ))));
                }
                None => {
                    self.inner = None;
                    let c = self.coll?;
                    let listed = self.listed.min(self.store.listed(c));
                    if self.records >= listed {
                        return None;
                    }
                    return self
                        .store
                        .unreturned(&self.name, c, &self.seen_blocks)
                        .map(Err);
                }
            };
            self.last.clone_from(&k);
            let first = key::decode_block(&k).map_or(0, |(_, s)| s);
            match View::open(&k, first, &v) {
                Ok(view) => {
                    let mut rest = view.places();
                    // Dead records (consumed, left in the block) are not read.
                    if let Some((c, _)) = key::decode_block(&k) {
                        let ix = self.store.index.read();
                        if let Some(coll) = ix.colls.get(&c).filter(|x| !x.dead.is_empty()) {
                            rest.retain(|p| !coll.dead.contains(&p.header.seq));
                        }
                    }
                    rest.reverse();
                    self.seen_blocks.push(first);
                    self.records += rest.len() as u64;
                    self.block = Some(Current {
                        key: k,
                        first,
                        value: v,
                        rest,
                    });
                }
                Err(e) => {
                    self.seen_blocks.push(first); // reported here, not again at the end
                    return Some(Err(AdError::Damaged(damage(
                        tree::BLOCKS,
                        Some(&self.name),
                        None,
                        &k,
                        e,
                    ))));
                }
            }
        }
    }
}
