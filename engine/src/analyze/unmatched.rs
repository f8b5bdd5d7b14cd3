//! The batch (`--unmatched`): every request of a collection that matches no offer, grouped by
//! what excludes it. Requests are first clustered — same Requirements, same values of the
//! attributes those Requirements read, same values of the attributes any offer's Requirements
//! read — so that one analysis answers for a whole cluster; a request whose references cannot
//! all be seen is a cluster of its own.

use super::offer_side::offer_side;
use super::table::Table;
use super::{conflicts, split_requirements, AnalyzeOptions, Pool};
use adjoin_query::eval::requirements_key;
use adjoin_query::refs::references;
use adjoin_query::ClassAd;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};
use std::collections::BTreeSet;

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

/// The cluster key of `request`: what its match against any offer depends on, or `None`
/// when that cannot be seen.
fn cluster_key(
    request: &ClassAd,
    offers_read: &BTreeSet<String>,
    opts: &AnalyzeOptions,
) -> Option<String> {
    let req = requirements_key(request).and_then(|k| request.get_key(k))?;
    let refs = references(req, request, &opts.eval);
    if !refs.complete {
        return None;
    }
    let mut key = req.to_string();
    for name in refs.internal.iter().chain(offers_read.iter()) {
        key.push('\u{1}');
        key.push_str(name);
        key.push('=');
        if let Some(e) = request.get(name) {
            key.push_str(&e.to_string());
        }
    }
    Some(key)
}

/// The unmatched requests of `requests` against `pool`, grouped.
pub(crate) fn unmatched(requests: &Pool, pool: &Pool, opts: &AnalyzeOptions) -> Unmatched {
    let _span = tracing::debug_span!("analyze_unmatched", requests = requests.len()).entered();
    let mut offers_read: BTreeSet<String> = BTreeSet::new();
    let mut complete = true;
    for o in &pool.ads {
        if let Some(req) = requirements_key(o).and_then(|k| o.get_key(k)) {
            let r = references(req, o, &opts.eval);
            complete &= r.complete;
            offers_read.extend(r.external);
        }
    }
    let mut clusters: FxHashMap<String, Vec<usize>> = FxHashMap::default();
    let mut order: Vec<String> = Vec::new();
    for (i, r) in requests.ads.iter().enumerate() {
        let key = match cluster_key(r, &offers_read, opts).filter(|_| complete) {
            Some(k) => k,
            None => format!("\u{0}{i}"),
        };
        let members = clusters.entry(key.clone()).or_default();
        if members.is_empty() {
            order.push(key);
        }
        members.push(i);
    }
    let mut groups: FxHashMap<(String, String), UnmatchedGroup> = FxHashMap::default();
    let mut unmatched = 0;
    for key in &order {
        let members = &clusters[key];
        let first = members[0];
        let (kind, reason) = match why(&requests.ids[first], &requests.ads[first], pool, opts) {
            None => continue,
            Some(r) => r,
        };
        unmatched += members.len() as u64;
        let g = groups
            .entry((kind.clone(), reason.clone()))
            .or_insert_with(|| UnmatchedGroup {
                kind,
                reason,
                requests: 0,
                clusters: 0,
                example: requests.ids[first].clone(),
            });
        g.requests += members.len() as u64;
        g.clusters += 1;
    }
    let mut groups: Vec<UnmatchedGroup> = groups.into_values().collect();
    groups.sort_by(|a, b| b.requests.cmp(&a.requests).then(a.reason.cmp(&b.reason)));
    Unmatched {
        requests: requests.len() as u64,
        clusters: order.len() as u64,
        unmatched,
        offers: pool.len() as u64,
        groups,
    }
}

/// Why `request` matches no offer (kind and reason), or `None` when it matches some.
fn why(
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
    let a = t.counts(id, &conds);
    if a.matching > 0 {
        return None;
    }
    let step_zero = a.conditions.iter().position(|c| c.step_matched == 0);
    if a.rejected_by_request == a.offers && a.offers > 0 {
        // The condition no offer satisfies, the most excluding first.
        if let Some(c) = a.conditions.iter().find(|c| c.matched == 0) {
            return Some(("condition".into(), c.condition.clone()));
        }
        let cs = conflicts::conflicts(&conds, &t, opts);
        if let Some(c) = cs.first() {
            let text: Vec<&str> = c
                .conditions
                .iter()
                .map(|&i| a.conditions[i].condition.as_str())
                .collect();
            return Some(("conflict".into(), text.join(" && ")));
        }
        if let Some(i) = step_zero {
            return Some(("condition".into(), a.conditions[i].condition.clone()));
        }
    }
    if a.offers == 0 {
        return Some(("condition".into(), "no offers available".into()));
    }
    if a.rejecting_request == a.offers {
        let side = offer_side(request, &t, pool, opts);
        if let Some(s) = side.first() {
            return Some(("attribute".into(), s.attribute.clone()));
        }
        return Some(("attribute".into(), "offers' Requirements".into()));
    }
    Some((
        "both ways".into(),
        "no offer the request accepts accepts it".into(),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;
    use std::sync::Arc;

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
        let u = unmatched(&pool(&reqs), &offers, &AnalyzeOptions::default());
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
