//! A collection read into memory in load order and indexed privately (the nested-loop
//! oracles, tests): ad ids for the index are load positions, mapped back to the stored ids
//! through [`Collection::id`]. Cycles read their offers here with each one's `(seq, revision)`
//! ([`Collection::scan_marked`]) and search them through the index the `Db` holds
//! (`db/indexes.rs`, `cycle/held.rs`), as queries, `join`, `candidates` and `analyze` do.

use crate::{Db, DbError};
use adjoin_index::{naive_join, AdId, Index, IndexError, IndexOptions, RoaringBitmap};
use adjoin_query::eval::EvalOptions;
use adjoin_query::ClassAd;
use adjoin_storage::LiveAd;
use parking_lot::Mutex;
use rustc_hash::FxHashMap;
use std::sync::Arc;
use thiserror::Error;

/// Why a collection could not be read or indexed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CollectionError {
    /// The scan failed to start (e.g. the database is unreadable); boxed, as it is large.
    #[error(transparent)]
    Db(Box<DbError>),
    /// The index ran out of rectangle ids.
    #[error("indexing: {0}")]
    Index(#[from] IndexError),
    /// More ads than the index numbers ([`AdId`] is 32 bits).
    #[error("collection {0} has more ads than the index can number")]
    TooMany(String),
}

impl From<DbError> for CollectionError {
    fn from(e: DbError) -> CollectionError {
        CollectionError::Db(Box::new(e))
    }
}

/// The live ads of one collection in load order: position `i` is index id `i`.
#[derive(Debug, Default)]
pub struct Collection {
    /// The stored ids, by position.
    pub ids: Vec<String>,
    /// The ads, by position.
    pub ads: Vec<Arc<ClassAd>>,
    /// Ads the scan could not read (skipped; the caller reports them).
    pub damaged: Vec<DbError>,
}

/// The live ads of `coll` in load order (expired ones left out), when nine in ten or more of
/// them are held as they are (`is_held`) and the store reports no damaged block; `None`
/// otherwise (a read of every ad costs less than reading many one by one).
pub(crate) fn live_if_held(
    db: &Db,
    coll: &str,
    is_held: impl Fn(&LiveAd) -> bool,
) -> Result<Option<Vec<LiveAd>>, DbError> {
    let view = db.store().live_view(coll)?;
    let now = db.now();
    let live: Vec<LiveAd> = (view.ads.into_iter())
        .filter(|a| a.expires.is_none_or(|at| at > now))
        .collect();
    let hits = live.iter().filter(|a| is_held(a)).count();
    let most = view.damaged.is_empty() && hits.saturating_mul(10) >= live.len().saturating_mul(9);
    Ok(most.then_some(live))
}

/// A collection read, with each ad's `(seq, revision)` by position.
type Marked = (Collection, Vec<(u64, u64)>);

/// A collection's ads held decoded by number: each one's revision, id and ad.
pub(crate) type Held = FxHashMap<u64, (u64, String, Arc<ClassAd>)>;

/// The ads a [`Db`] holds decoded between cycles, by collection: the offers the last cycle
/// over each collection read ([`Collection::scan_held`]), known by their `seq` and revision,
/// so that the next reads only those stored or changed since. Held only while the Db is open,
/// and not past [`HELD_MOST`](crate::cycle::HELD_MOST) of them (as the requests,
/// `cycle/held_requests.rs`, whose caveats these share).
pub(crate) type HeldAds = ByCollection<Held>;

/// What a [`Db`] holds between cycles for each collection (its ads, its requests, what was
/// derived from its offers): taken out by a cycle, put back by it.
#[derive(Debug)]
pub(crate) struct ByCollection<T>(Mutex<FxHashMap<String, T>>);

impl<T> Default for ByCollection<T> {
    fn default() -> Self {
        ByCollection(Mutex::default())
    }
}

impl<T> ByCollection<T> {
    /// What is held for `coll`, taken out.
    pub(crate) fn take(&self, coll: &str) -> Option<T> {
        self.0.lock().remove(coll)
    }

    /// Holds `held` for `coll` (in place of what was).
    pub(crate) fn put(&self, coll: &str, held: T) {
        self.0.lock().insert(coll.to_owned(), held);
    }

    /// Holds nothing.
    pub(crate) fn clear(&self) {
        self.0.lock().clear();
    }

    #[cfg(test)]
    /// `f` of what is held for `coll`, if anything is.
    pub(crate) fn with<R>(&self, coll: &str, f: impl FnOnce(&T) -> R) -> Option<R> {
        self.0.lock().get(coll).map(f)
    }
}

/// The ads [`Collection::scan_marked`] passes on at a time.
const RUN: usize = 512;

impl Collection {
    /// Reads the live ads of `coll` with one scan, in load order.
    pub fn scan(db: &Db, coll: &str) -> Result<Collection, CollectionError> {
        Ok(Collection::scan_marked(db, coll, |_| {})?.0)
    }

    /// [`Collection::scan`], with each ad's `(seq, revision)` by position (what a held index
    /// knows it by); `each_run` is given the ads read, [`RUN`] at a time as they come (the
    /// last run shorter).
    pub(crate) fn scan_marked(
        db: &Db,
        coll: &str,
        mut each_run: impl FnMut(&[Arc<ClassAd>]),
    ) -> Result<(Collection, Vec<(u64, u64)>), CollectionError> {
        let mut c = Collection::default();
        let mut marks = Vec::new();
        let mut given = 0;
        for ad in db.scan(coll)? {
            match ad {
                Ok(ad) => {
                    if AdId::try_from(c.ads.len()).is_err() {
                        return Err(CollectionError::TooMany(coll.to_owned()));
                    }
                    marks.push((ad.header.seq, ad.revision));
                    c.ids.push(ad.header.id);
                    c.ads.push(Arc::new(ad.ad));
                    if c.ads.len() - given == RUN {
                        each_run(c.ads.get(given..).unwrap_or_default());
                        given = c.ads.len();
                    }
                }
                Err(e) => c.damaged.push(e.into()),
            }
        }
        if given < c.ads.len() {
            each_run(c.ads.get(given..).unwrap_or_default());
        }
        Ok((c, marks))
    }

    /// [`Collection::scan_marked`] through the ads the Db holds decoded for `coll` from the
    /// last such read ([`HeldAds`]): when nine in ten or more of the live ads are held at their
    /// revision (and the store reports no damaged block), only the others are read, one by
    /// one; otherwise every ad is, by a scan. Either way the ads read are held for the next.
    pub(crate) fn scan_held(
        db: &Db,
        coll: &str,
        mut each_run: impl FnMut(&[Arc<ClassAd>]),
    ) -> Result<Marked, CollectionError> {
        let read = match db.held_ads().take(coll) {
            Some(held) => Collection::read_held(db, coll, held, &mut each_run)?,
            None => None,
        };
        let (c, marks) = match read {
            Some(read) => read,
            None => Collection::scan_marked(db, coll, each_run)?,
        };
        let held: Held = (marks.iter().zip(&c.ids).zip(&c.ads))
            .map(|((&(seq, revision), id), ad)| {
                let ad = Arc::clone(ad);
                (seq, (revision, id.clone(), ad))
            })
            .collect();
        if held.len() <= crate::cycle::HELD_MOST {
            db.held_ads().put(coll, held);
        }
        Ok((c, marks))
    }

    /// The live ads of `coll` in load order through `held` ([`Collection::scan_held`]);
    /// `None` when too few are held.
    fn read_held(
        db: &Db,
        coll: &str,
        mut held: Held,
        each_run: &mut impl FnMut(&[Arc<ClassAd>]),
    ) -> Result<Option<Marked>, CollectionError> {
        let is_held = |a: &LiveAd| held.get(&a.seq).is_some_and(|h| h.0 == a.revision);
        let Some(live) = live_if_held(db, coll, is_held)? else {
            return Ok(None);
        };
        let (mut c, mut marks, mut given) = (Collection::default(), Vec::new(), 0);
        for a in live {
            let hit = held.remove(&a.seq).filter(|h| h.0 == a.revision);
            let (revision, id, ad) = match hit {
                Some(h) => h,
                None => match db.get(coll, &a.id) {
                    Ok(Some(s)) => (s.revision, s.header.id, Arc::new(s.ad)),
                    // Gone since the view was taken.
                    Ok(None) => continue,
                    Err(e) => {
                        c.damaged.push(e);
                        continue;
                    }
                },
            };
            if AdId::try_from(c.ads.len()).is_err() {
                return Err(CollectionError::TooMany(coll.to_owned()));
            }
            marks.push((a.seq, revision));
            c.ids.push(id);
            c.ads.push(ad);
            if c.ads.len() - given == RUN {
                each_run(c.ads.get(given..).unwrap_or_default());
                given = c.ads.len();
            }
        }
        if given < c.ads.len() {
            each_run(c.ads.get(given..).unwrap_or_default());
        }
        Ok(Some((c, marks)))
    }

    /// The number of ads.
    pub fn len(&self) -> usize {
        self.ads.len()
    }

    /// Whether there are no ads.
    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
    }

    /// The stored id of the ad at index id `id`.
    pub fn id(&self, id: AdId) -> Option<&str> {
        self.ids.get(id as usize).map(String::as_str)
    }

    /// The ad at index id `id`.
    pub fn ad(&self, id: AdId) -> Option<&Arc<ClassAd>> {
        self.ads.get(id as usize)
    }

    /// The ads paired with their index ids.
    fn numbered(&self) -> impl Iterator<Item = (AdId, Arc<ClassAd>)> + '_ {
        // `scan` keeps the length within AdId, so the positions convert.
        (0..).zip(self.ads.iter().cloned())
    }

    /// An index over the ads, built in one pass.
    pub fn index(&self, opts: IndexOptions) -> Result<Index, CollectionError> {
        let mut idx = Index::new(opts);
        idx.extend(self.numbered())?;
        Ok(idx)
    }

    /// For each request, the ads matching it both ways, by evaluating every pair.
    pub fn naive_join(&self, requests: &[Arc<ClassAd>], opts: &EvalOptions) -> Vec<RoaringBitmap> {
        let offers: Vec<(AdId, Arc<ClassAd>)> = self.numbered().collect();
        naive_join(&offers, requests, opts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::LoadOptions;
    use adjoin_index::join;
    use adjoin_query::parse;

    const MACHINES: &str = "\
[Name = \"a\"; Memory = 2048; Requirements = TARGET.ImageSize < 500]
[Name = \"b\"; Memory = 512; Requirements = TARGET.ImageSize < 500]
[Name = \"c\"; Memory = 4096; Requirements = false]
[Name = \"d\"; Memory = 8192; Requirements = true]
";

    fn collection(text: &str) -> Collection {
        let db = Db::open_in_memory().expect("db");
        db.load_text("m", "m.ads", text, &LoadOptions::default())
            .expect("load");
        Collection::scan(&db, "m").expect("scan")
    }

    fn ad(text: &str) -> Arc<ClassAd> {
        Arc::new(parse::classad(text).expect("ad"))
    }

    #[test]
    fn runs_pass_on_every_ad_once_in_order() {
        for n in [0, 1, RUN - 1, RUN, RUN + 1, 2 * RUN + 7] {
            let db = Db::open_in_memory().expect("db");
            let text: String = (0..n).map(|i| format!("[Name = \"m{i}\"]\n")).collect();
            db.load_text("m", "m.ads", &text, &LoadOptions::default())
                .expect("load");
            let mut runs: Vec<Arc<ClassAd>> = Vec::new();
            let mut lens = Vec::new();
            let (c, marks) = Collection::scan_marked(&db, "m", |run| {
                lens.push(run.len());
                runs.extend(run.iter().cloned());
            })
            .expect("scan");
            assert_eq!((c.len(), marks.len()), (n, n));
            assert!(runs.iter().zip(&c.ads).all(|(a, b)| Arc::ptr_eq(a, b)));
            assert_eq!(runs.len(), n, "{lens:?}");
            // Whole runs, then what is left (if anything).
            let whole = vec![RUN; n / RUN];
            assert_eq!(lens.get(..whole.len()), Some(&whole[..]), "{lens:?}");
            let rest = lens.get(whole.len()..).unwrap_or_default();
            assert_eq!(rest, &[n % RUN][..usize::from(n % RUN > 0)], "{lens:?}");
        }
    }

    #[test]
    fn joins_agree_with_nested_loops() {
        let c = collection(MACHINES);
        let mut idx = c.index(IndexOptions::default()).expect("index");
        let opts = idx.options().eval.clone();
        for (job, want) in [
            (
                "[ImageSize = 100; Requirements = TARGET.Memory >= 1024]",
                &[0, 3][..],
            ),
            ("[ImageSize = 600; Requirements = true]", &[3][..]),
            ("[Requirements = TARGET.Memory < 1024]", &[][..]),
        ] {
            let r = [ad(job)];
            let want: RoaringBitmap = want.iter().copied().collect();
            assert_eq!(join(&mut idx, &r)[0], want, "{job}");
            assert_eq!(c.naive_join(&r, &opts)[0], want, "{job}");
        }
    }
}
