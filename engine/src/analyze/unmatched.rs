//! The batch (`--unmatched`): every request of a collection that matches no offer, grouped by
//! what excludes it. Requests are first clustered as a matchmaking cycle clusters them (same
//! Requirements, Rank and what they read of the request, same values of what any offer reads
//! of it), so that one analysis answers for a whole cluster; a request whose references
//! cannot all be seen is a cluster of its own.

use super::conditions::Condition;
use super::offer_side::{first_attribute, tally_pool};
use super::table::Table;
use super::{conflicts, split_requirements, AnalyzeOptions, Pool};
use crate::cycle::cluster::{roots, Shapes};
use adjoin_query::ClassAd;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// What `--unmatched` reports.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unmatched {
    /// Requests looked at.
    pub requests: u64,
    /// Clusters they fell into.
    pub clusters: u64,
    /// Requests matching no offer.
    pub unmatched: u64,
    /// Offers available.
    pub offers: u64,
    /// The unmatched requests by reason, the most requests first.
    pub groups: Vec<UnmatchedGroup>,
}

/// Unmatched requests sharing one reason.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnmatchedGroup {
    /// `condition` (a condition no offer satisfies), `conflict` (conditions no offer
    /// satisfies together), `attribute` (offers reject the request over it), `both ways`
    /// (offers the request likes do not like it) or `error` (the request cannot be analysed).
    pub kind: String,
    /// The condition, conflict, attribute or error.
    pub reason: String,
    /// Requests in the group.
    pub requests: u64,
    /// Clusters in the group.
    pub clusters: u64,
    /// One of its requests.
    pub example: String,
}

/// The requests of a batch, clustered as a matchmaking cycle clusters them
/// ([`crate::cycle::cluster`]): requests alike in their Requirements, in what those read of
/// the request and in what any offer reads of it are analysed once.
#[derive(Debug, Default)]
pub(crate) struct Clustered {
    /// Requests looked at.
    pub requests: u64,
    /// Each cluster in load order of its first request: that request's id, its ad (which
    /// stands for every member) and the number of members.
    pub clusters: Vec<(String, Arc<ClassAd>, u64)>,
}

impl Clustered {
    /// The clusters of the requests placed in `shapes`, whose ids are `ids` (load order).
    pub(crate) fn of_shapes(shapes: Shapes, ids: &[String]) -> Clustered {
        let (clusters, ads) = shapes.finish();
        let mut first: Vec<Option<usize>> = vec![None; clusters.len()];
        let mut size = vec![0u64; clusters.len()];
        for (i, &c) in clusters.of_each().iter().enumerate() {
            if let (Some(f), Some(n)) = (first.get_mut(c), size.get_mut(c)) {
                f.get_or_insert(i);
                *n += 1;
            }
        }
        let mut order: Vec<(usize, u64)> = first
            .into_iter()
            .zip(size)
            .filter_map(|(f, n)| Some((f?, n)))
            .collect();
        order.sort_unstable();
        Clustered {
            requests: ids.len() as u64,
            clusters: order
                .into_iter()
                .filter_map(|(f, n)| Some((ids.get(f)?.clone(), Arc::clone(ads.get(f)?), n)))
                .collect(),
        }
    }

    /// Every request a cluster of its own (what offers read of them cannot be seen).
    pub(crate) fn singletons(requests: &Pool) -> Clustered {
        Clustered {
            requests: requests.len() as u64,
            clusters: requests
                .ids
                .iter()
                .zip(&requests.ads)
                .map(|(id, ad)| (id.clone(), Arc::clone(ad), 1))
                .collect(),
        }
    }

    /// The clusters of the requests of `requests` against the offers of `offers`, both in
    /// memory.
    pub(crate) fn of_pool(requests: &Pool, offers: &Pool, opts: &AnalyzeOptions) -> Clustered {
        match roots(&offers.ads, &[], &opts.eval) {
            Some(r) => {
                let mut shapes = Shapes::new(&r, None, &opts.eval);
                shapes.add(requests.ads.clone());
                Clustered::of_shapes(shapes, &requests.ids)
            }
            None => Clustered::singletons(requests),
        }
    }
}

/// Why a request (id, ad) matches no offer: kind and reason, or `None` when it matches.
pub(crate) type Why<'a> = dyn Fn(&str, &Arc<ClassAd>) -> Option<(String, String)> + 'a;

/// The unmatched requests of the clusters `c` against `offers` available offers, grouped;
/// `why` says why a cluster's first request matches nothing (`None`: it matches).
pub(crate) fn unmatched(c: &Clustered, offers: u64, why: &Why<'_>) -> Unmatched {
    let _span = tracing::debug_span!("analyze_unmatched", requests = c.requests).entered();
    let mut groups: FxHashMap<(String, String), UnmatchedGroup> = FxHashMap::default();
    let mut unmatched = 0;
    for (id, ad, members) in &c.clusters {
        let (kind, reason) = match why(id, ad) {
            None => continue,
            Some(r) => r,
        };
        unmatched += members;
        let g = groups
            .entry((kind.clone(), reason.clone()))
            .or_insert_with(|| UnmatchedGroup {
                kind,
                reason,
                requests: 0,
                clusters: 0,
                example: id.clone(),
            });
        g.requests += members;
        g.clusters += 1;
    }
    let mut groups: Vec<UnmatchedGroup> = groups.into_values().collect();
    groups.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.reason.cmp(&b.reason)));
    Unmatched {
        requests: c.requests,
        clusters: c.clusters.len() as u64,
        unmatched,
        offers,
        groups,
    }
}

/// Why `request` matches no offer of `pool` (kind and reason), or `None` when it matches
/// some: by evaluating every offer.
pub(crate) fn why_pool(
    id: &str,
    request: &ClassAd,
    pool: &Pool,
    opts: &AnalyzeOptions,
) -> Option<(String, String)> {
    let conds = match split_requirements(id, request, &opts.eval) {
        Ok(c) => c,
        Err(e) => return Some(("error".into(), e.to_string())),
    };
    let t = Table::build(request, &conds, pool, &opts.eval);
    why_table(id, &conds, &t, opts, &|t| {
        first_attribute(request, tally_pool(request, t, pool, &opts.eval), &|o| {
            pool.ads.get(o as usize).cloned()
        })
    })
}

/// Why the request whose conditions and table these are matches no offer, or `None` when it
/// matches some; `side` gives the attribute its offer side puts first.
pub(crate) fn why_table(
    id: &str,
    conds: &[Condition],
    t: &Table,
    opts: &AnalyzeOptions,
    side: &dyn Fn(&Table) -> Option<String>,
) -> Option<(String, String)> {
    let a = t.counts(id, conds);
    if a.matching > 0 {
        return None;
    }
    if a.offers == 0 {
        return Some(("condition".into(), "no offers available".into()));
    }
    if a.rejected_by_request == a.offers {
        // A condition no offer satisfies, else a conflict, else where the steps reach none.
        if let Some(c) = a.conditions.iter().find(|c| c.matched == 0) {
            return Some(("condition".into(), c.condition.clone()));
        }
        if let Some(c) = conflicts::conflicts(conds, t, opts).conflicts.first() {
            let text: Vec<&str> = c
                .conditions
                .iter()
                .map(|&i| a.conditions[i].condition.as_str())
                .collect();
            return Some(("conflict".into(), text.join(" && ")));
        }
        if let Some(c) = a.conditions.iter().find(|c| c.step_matched == 0) {
            return Some(("condition".into(), c.condition.clone()));
        }
    }
    if a.rejecting_request == a.offers {
        return Some(attribute(side(t)));
    }
    Some(both_ways())
}

/// The reason when every offer rejects the request: the attribute its offer side puts first.
pub(crate) fn attribute(first: Option<String>) -> (String, String) {
    let attr = first.unwrap_or_else(|| "offers' Requirements".to_owned());
    ("attribute".into(), attr)
}

/// The reason when offers the request likes do not like it.
pub(crate) fn both_ways() -> (String, String) {
    (
        "both ways".into(),
        "no offer the request accepts accepts it".into(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn pool(ads: &[&str]) -> Pool {
        Pool::numbered(
            ads.iter()
                .map(|a| Arc::new(parse::classad(a).expect("ad")))
                .collect(),
        )
    }

    #[test]
    fn groups_by_reason() {
        let offers = pool(&[
            "[Memory = 1024; Arch = \"X86_64\"; Requirements = TARGET.Owner != \"eve\"]",
            "[Memory = 4096; Arch = \"ARM\"; Requirements = TARGET.Owner != \"eve\"]",
        ]);
        let mut reqs = vec!["[Owner = \"bob\"; Requirements = TARGET.Memory >= 8192]"; 3];
        reqs.push(
            "[Owner = \"bob\"; Requirements = TARGET.Memory >= 2048 && TARGET.Arch == \"X86_64\"]",
        );
        reqs.push("[Owner = \"eve\"; Requirements = TARGET.Memory >= 1]");
        reqs.push("[Owner = \"bob\"; Requirements = TARGET.Memory >= 1]");
        reqs.push("[Owner = \"bob\"]");
        let opts = AnalyzeOptions::default();
        let why = |id: &str, r: &Arc<ClassAd>| why_pool(id, r, &offers, &opts);
        let u = unmatched(
            &Clustered::of_pool(&pool(&reqs), &offers, &opts),
            offers.len() as u64,
            &why,
        );
        assert_eq!((u.requests, u.clusters, u.unmatched), (7, 5, 6));
        let got: Vec<(&str, &str, u64, u64)> = u
            .groups
            .iter()
            .map(|g| (g.kind.as_str(), g.reason.as_str(), g.requests, g.clusters))
            .collect();
        assert_eq!(
            got,
            vec![
                ("condition", "TARGET.Memory >= 8192", 3, 1),
                ("error", "6: the ad has no Requirements to analyse", 1, 1),
                ("attribute", "Owner", 1, 1),
                (
                    "conflict",
                    "TARGET.Memory >= 2048 && TARGET.Arch == \"X86_64\"",
                    1,
                    1
                ),
            ]
        );
    }
}
