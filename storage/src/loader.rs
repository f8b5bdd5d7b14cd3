//! Bulk loads: a [`Loader`] takes ads one at a time and commits them a chunk per transaction.

use crate::error::AdError;
use crate::store::AdStore;
use crate::write::{prepare, Prepared, Put, PutOptions};
use adjoin_query::ClassAd;

/// An ad made ready for a [`Loader`] by [`AdStore::prepare`]: its id and expiry resolved and
/// its content encoded (or the reason it will be refused). Preparing is the larger part of
/// storing an ad and needs no lock, so it can run on another thread than the load.
pub struct PreparedAd(Result<Prepared, AdError>);

impl AdStore {
    /// Prepares `ad` to be stored with `opts` by a loader ([`Loader::push_prepared`]). The
    /// loader must use the same options.
    pub fn prepare(&self, ad: &ClassAd, opts: &PutOptions) -> PreparedAd {
        PreparedAd(prepare(self, ad, opts, self.now()))
    }

    /// Starts a bulk load into collection `name`.
    pub fn loader(&self, name: &str, opts: PutOptions) -> Loader<'_> {
        Loader {
            store: self,
            name: name.to_owned(),
            opts,
            pending: Vec::new(),
            results: Vec::new(),
        }
    }
}

/// A bulk load: ads are prepared as they are pushed and committed a chunk per transaction
/// ([`StoreOptions::chunk_size`](crate::StoreOptions)). With [`Durability::Immediate`](crate::Durability::Immediate) each
/// chunk is flushed as it commits; with [`Durability::Buffered`](crate::Durability::Buffered) once, by [`Loader::finish`].
/// An ad refused on its own (tombstoned id, bad expiry) is reported and the rest are stored.
pub struct Loader<'s> {
    pub(crate) store: &'s AdStore,
    pub(crate) name: String,
    pub(crate) opts: PutOptions,
    pub(crate) pending: Vec<Result<Prepared, AdError>>,
    pub(crate) results: Vec<Result<Put, AdError>>,
}

/// What a bulk load did, ad by ad in the order pushed.
#[derive(Debug, Default)]
pub struct LoadReport {
    /// Each ad's outcome.
    pub results: Vec<Result<Put, AdError>>,
}

impl LoadReport {
    /// Ads stored.
    pub fn stored(&self) -> usize {
        self.results.iter().filter(|r| r.is_ok()).count()
    }

    /// Ads refused.
    pub fn rejected(&self) -> usize {
        self.results.len() - self.stored()
    }
}

impl Loader<'_> {
    /// Adds an ad; commits a chunk when enough are pending. Returns how many ads this call
    /// committed (their outcomes are the last ones in [`Loader::results`]); with immediate
    /// durability they are durable when it returns.
    pub fn push(&mut self, ad: &ClassAd) -> Result<usize, AdError> {
        let p = self.store.prepare(ad, &self.opts);
        self.push_prepared(p)
    }

    /// [`Loader::push`] of an ad already prepared (possibly on another thread) by
    /// [`AdStore::prepare`] with this loader's options.
    pub fn push_prepared(&mut self, p: PreparedAd) -> Result<usize, AdError> {
        self.pending.push(p.0);
        if self.pending.len() >= self.store.opts.chunk_size.max(1) {
            return self.commit();
        }
        Ok(0)
    }

    /// Commits the pending ads now.
    pub fn commit(&mut self) -> Result<usize, AdError> {
        if self.pending.is_empty() {
            return Ok(0);
        }
        let chunk = std::mem::take(&mut self.pending);
        let n = chunk.len();
        let results = self.store.put_chunk(&self.name, chunk)?;
        self.store.commit_point(self.opts.durability)?;
        self.results.extend(results);
        Ok(n)
    }

    /// The outcomes of the ads committed so far, in order.
    pub fn results(&self) -> &[Result<Put, AdError>] {
        &self.results
    }

    /// Commits what is pending, flushes, and reports every ad's outcome.
    pub fn finish(mut self) -> Result<LoadReport, AdError> {
        self.commit()?;
        self.store.flush()?;
        Ok(LoadReport {
            results: std::mem::take(&mut self.results),
        })
    }
}
