//! The [`Db`] entry points of the analysis: one request (an ad, or a stored one) against an
//! offer collection's available ads, the reverse (an offer against a request collection), and
//! the batch over a request collection's unmatched requests.

use super::batch::{any_match, quick, Quick};
use super::conditions::Condition;
use super::indexed::{
    accepting, detail_offers, index_table, read_back, tally_bounds, universe, EveryOffer, Imported,
    IndexValues, Remembered,
};
use super::offer_side::{first_attribute, tally_pool, Tally};
use super::ports::has_ports;
use super::table::Table;
use super::unmatched::{
    attribute, both_ways, unmatched, why_pool, why_table, Clustered, Unmatched,
};
use super::{
    analyze, conditions, detail, split_requirements, Analysis, AnalyzeError, AnalyzeOptions, Pool,
};
use crate::db::same_eval;
use crate::Db;
use adjoin_index::AdId;
use adjoin_query::eval::eval_attr_value;
use adjoin_query::{ClassAd, Value};
use std::cell::RefCell;
use std::sync::Arc;

/// A table through the index, the offers to read back for the offer side, and what M2 reads
/// of the offers' values.
type Indexed = (Table, Vec<(AdId, String)>, Imported);

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
        let conds = conditions(id, request, opts)?;
        // A request with `Ports` is analysed over the offers read (its gang side needs them).
        if !has_ports(request) {
            // The offer side weighs every rejecting offer: no detail offers are read back.
            let none = AnalyzeOptions {
                max_detail_offers: 0,
                ..opts.clone()
            };
            if let Some(t) = self.index_table(request, &conds, offers, &none, true, None)? {
                return self.detail_indexed(id, request, &conds, &t, offers, opts);
            }
        }
        let pool = self.pool(offers)?;
        analyze(id, request, &pool, opts)
    }

    /// The table through `offers`' held index, when it can answer it (with what M2 reads of
    /// the offers when `values`).
    fn index_table(
        &self,
        request: &ClassAd,
        conds: &[Condition],
        offers: &str,
        opts: &AnalyzeOptions,
        values: bool,
        memo: Option<&Remembered>,
    ) -> Result<Option<Indexed>, AnalyzeError> {
        if !same_eval(&opts.eval, self.index_eval()) {
            return Ok(None);
        }
        let now = self.now();
        Ok(self.with_index(offers, |held| {
            let t = index_table(held, request, conds, opts, now, memo)?;
            let ids = detail_offers(&t, opts.max_detail_offers)
                .into_iter()
                .filter_map(|n| held.id(n).map(|id| (n, id)))
                .collect();
            let imported = match values {
                true => Imported::of(held, conds, &t.universe),
                false => Imported::default(),
            };
            Some((t, ids, imported))
        })?)
    }

    /// The analysis from a table through the index: the offer side weighed from the index's
    /// bounds (the offers it did not convert exactly read back), changed requests re-matched
    /// through the index.
    fn detail_indexed(
        &self,
        id: &str,
        request: &ClassAd,
        conds: &[Condition],
        (t, _, imported): &Indexed,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Analysis, AnalyzeError> {
        let mut tally = Tally::default();
        let rejecting = &t.universe - &t.accepting;
        let rest = self.with_index(offers, |held| {
            tally_bounds(held, request, &rejecting, &opts.eval, &mut tally)
        })?;
        let (pool, numbers) = read_back(self, offers, &rest, None)?;
        for (offer, n) in pool.ads.iter().zip(numbers) {
            tally.offer(request, offer, &opts.eval, n);
        }
        let offer_at = |n: AdId| -> Option<Arc<ClassAd>> {
            let id = self.with_index(offers, |held| held.id(n)).ok()??;
            Some(Arc::new(self.get(offers, &id).ok()??.ad))
        };
        let rematch = |ad: &ClassAd| self.rematch(offers, ad);
        let values = IndexValues::new(imported, self, offers, request, &opts.eval)?;
        let whole = |ad: &ClassAd| {
            self.with_index(offers, |held| accepting(held, ad, &t.universe).len())
                .unwrap_or(0)
        };
        Ok(detail(
            id, request, conds, t, &values, tally, opts, &rematch, &whole, &offer_at,
        ))
    }

    /// How many available offers of `offers` match `ad` both ways, through the index (0 if
    /// the index cannot be read).
    fn rematch(&self, offers: &str, ad: &ClassAd) -> u64 {
        let now = self.now();
        let ad = Arc::new(ad.clone());
        let counted = self.with_index(offers, |held| {
            let found = adjoin_index::join(&mut held.index, std::slice::from_ref(&ad));
            found
                .iter()
                .flatten()
                .filter(|&n| !held.expired(n, now))
                .count() as u64
        });
        match counted {
            Ok(n) => n,
            Err(e) => {
                tracing::warn!(%e, "re-matching through the index failed");
                0
            }
        }
    }

    /// The counts and conditions of [`Db::analyze`] alone (no conflicts, suggestions or
    /// offer side).
    pub fn analyze_counts(
        &self,
        request: &ClassAd,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Analysis, AnalyzeError> {
        let id = ad_id(request);
        let conds = conditions(&id, request, opts)?;
        if let Some((t, _, _)) = self.index_table(
            request,
            &conds,
            offers,
            &AnalyzeOptions {
                max_detail_offers: 0,
                ..opts.clone()
            },
            false,
            None,
        )? {
            return Ok(t.counts(&id, &conds));
        }
        let pool = self.pool(offers)?;
        super::analyze_counts(&id, request, &pool, opts)
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
    /// the condition or attribute that excludes the most. The requests are read undecoded and
    /// clustered as a cycle clusters them; each cluster's match is settled through the
    /// offers' held index, and only the unmatched clusters are analysed.
    pub fn analyze_unmatched(
        &self,
        requests: &str,
        offers: &str,
        opts: &AnalyzeOptions,
    ) -> Result<Unmatched, AnalyzeError> {
        let indexed = same_eval(&opts.eval, self.index_eval())
            && self.with_index(offers, |held| held.ported_ads().is_empty())?;
        if !indexed {
            let reqs = self.pool(requests)?;
            let pool = self.pool(offers)?;
            let why = |id: &str, r: &Arc<ClassAd>| why_pool(id, r, &pool, opts);
            let batch = Clustered::of_pool(&reqs, &pool, opts);
            return Ok(unmatched(&batch, pool.len() as u64, &why));
        }
        let batch = self.clustered(requests, offers, opts)?;
        let now = self.now();
        let available = self.with_index(offers, |held| universe(held, now))?;
        let memo = Remembered::with_universe(available.clone());
        // A cluster every offer rejects is grouped by the attribute its offer side puts first,
        // weighed over every available offer (made once, on the first such cluster).
        let every: RefCell<Option<Option<EveryOffer>>> = RefCell::new(None);
        let exact_first = |request: &ClassAd| -> Option<Option<String>> {
            let mut every = every.borrow_mut();
            let made = every
                .get_or_insert_with(|| EveryOffer::of(self, offers, &available).ok().flatten());
            let e = made.as_ref()?;
            self.with_index(offers, |held| e.first_attribute(held, request, &opts.eval))
                .ok()?
        };
        let why = |id: &str, request: &Arc<ClassAd>| -> Option<(String, String)> {
            match self.with_index(offers, |held| any_match(held, request, &available)) {
                Ok(true) => return None,
                Ok(false) => {}
                Err(e) => return Some(("error".into(), e.to_string())),
            }
            let conds = match split_requirements(id, request, &opts.eval) {
                Ok(c) => c,
                Err(e) => return Some(("error".into(), e.to_string())),
            };
            let most = opts.max_detail_offers;
            match self.with_index(offers, |held| {
                quick(held, request, &conds, opts, &available, most)
            }) {
                Ok(Some(Quick::BothWays)) => return Some(both_ways()),
                Ok(Some(Quick::Attribute(ids))) => {
                    let first = exact_first(request).unwrap_or_else(|| {
                        let (pool, _) = read_back(self, offers, &ids, Some(&memo)).ok()?;
                        // Every offer rejects the request: none accepts it.
                        let none = Table {
                            universe: (0..pool.len() as u32).collect(),
                            sets: Vec::new(),
                            accepting: Default::default(),
                        };
                        first_attribute(
                            request,
                            tally_pool(request, &none, &pool, &opts.eval),
                            &|o| pool.ads.get(o as usize).cloned(),
                        )
                    });
                    return Some(attribute(first));
                }
                _ => {}
            }
            match self.index_table(request, &conds, offers, opts, false, Some(&memo)) {
                Ok(Some((t, ids, _))) => {
                    let side = |_: &Table| {
                        exact_first(request).unwrap_or_else(|| {
                            let (sub_pool, numbers) =
                                read_back(self, offers, &ids, Some(&memo)).ok()?;
                            let sub = t.restricted(&numbers);
                            let tally = tally_pool(request, &sub, &sub_pool, &opts.eval);
                            first_attribute(request, tally, &|o| {
                                sub_pool.ads.get(o as usize).cloned()
                            })
                        })
                    };
                    why_table(id, &conds, &t, opts, &side)
                }
                Ok(None) => match self.pool(offers) {
                    Ok(pool) => why_pool(id, request, &pool, opts),
                    Err(e) => Some(("error".into(), e.to_string())),
                },
                Err(e) => Some(("error".into(), e.to_string())),
            }
        };
        Ok(unmatched(&batch, available.len(), &why))
    }
}
