//! The [`Db`] entry points of the analysis: one request (an ad, or a stored one) against an
//! offer collection's available ads, the reverse (an offer against a request collection), and
//! the batch over a request collection's unmatched requests.

use super::unmatched::{unmatched, Unmatched};
use super::{analyze, Analysis, AnalyzeError, AnalyzeOptions, Pool};
use crate::Db;
use adjoin_query::eval::eval_attr_value;
use adjoin_query::{ClassAd, Value};
use std::sync::Arc;

/// The id an ad names itself by: `Name`, else `GlobalJobId`, else `-`.
pub fn ad_id(ad: &ClassAd) -> String {
    for attr in ["Name", "GlobalJobId"] {
        if let Value::Str(s) = eval_attr_value(ad, attr, &Default::default()) {
            return s.to_string();
        }
    }
    "-".to_owned()
}

impl Db {
    /// The available ads of `collection` (live: not consumed, not expired), in load order.
    pub fn pool(&self, collection: &str) -> Result<Pool, AnalyzeError> {
        let mut pool = Pool::default();
        for ad in self.scan(collection)? {
            let ad = ad?;
            pool.ids.push(ad.header.id);
            pool.ads.push(Arc::new(ad.ad));
        }
        Ok(pool)
    }

    /// Analyses `request` against the available offers of `offers` (see [`Analysis`]); the
    /// request is named by its `Name` or `GlobalJobId`.
    pub fn analyze(
        &self,
        request: &ClassAd,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Analysis, AnalyzeError> {
        self.analyze_named(&ad_id(request), request, offers, opts)
    }

    /// [`Db::analyze`] with the request's id given.
    pub fn analyze_named(
        &self,
        id: &str,
        request: &ClassAd,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Analysis, AnalyzeError> {
        let pool = self.pool(offers)?;
        analyze(id, request, &pool, opts)
    }

    /// Analyses the stored ad `id` of `from` against `offers` (or, for `--reverse`, an
    /// offer against a request collection: the roles are the caller's).
    pub fn analyze_stored(
        &self,
        from: &str,
        id: &str,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Analysis, AnalyzeError> {
        let ad = self
            .get(from, id)
            .map_err(AnalyzeError::from)?
            .ok_or_else(|| AnalyzeError::NotFound {
                collection: from.to_owned(),
                id: id.to_owned(),
            })?;
        self.analyze_named(id, &ad.ad, offers, opts)
    }

    /// Every request of `requests` that matches no available offer of `offers`, grouped by
    /// the condition or attribute that excludes the most.
    pub fn analyze_unmatched(
        &self,
        requests: &str,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Unmatched, AnalyzeError> {
        let reqs = self.pool(requests)?;
        let pool = self.pool(offers)?;
        Ok(unmatched(&reqs, &pool, opts))
    }
}
