//! The batch (`--unmatched`): every request of a collection that matches no offer, grouped by
//! what excludes it. Requests are first clustered — same Requirements, same values of the
//! attributes those Requirements read, same values of the attributes any offer's Requirements
//! read — so that one analysis answers for a whole cluster; a request whose references cannot
//! all be seen is a cluster of its own.

use super::conditions::Condition;
use super::offer_side::offer_side;
use super::table::Table;
use super::{conflicts, split_requirements, AnalyzeOptions, OfferSide, Pool};
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

/// Why a request (id, ad) matches no offer: kind and reason, or `None` when it matches.
pub(crate) type Why<'a> = dyn Fn(&str, &ClassAd) -> Option<(String, String)> + 'a;

/// The unmatched requests of `requests` against `pool`, grouped; `why` says why a request
/// matches nothing (`None`: it matches).
pub(crate) fn unmatched(
    requests: &Pool,
    pool: &Pool,
    opts: &AnalyzeOptions,
    why: &Why<'_>,
) -> Unmatched {
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
        let (kind, reason) = match why(&requests.ids[first], &requests.ads[first]) {
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
    let rematch = |ad: &ClassAd| super::suggest::rematch_pool(ad, pool, &opts.eval);
    why_table(id, &conds, &t, opts, &|t| {
        offer_side(request, t, pool, opts, &rematch)
    })
}

/// Why the request whose conditions and table these are matches no offer, or `None` when it
/// matches some; `side` gives its offer side.
pub(crate) fn why_table(
    id: &str,
    conds: &[Condition],
    t: &Table,
    opts: &AnalyzeOptions,
    side: &dyn Fn(&Table) -> Vec<OfferSide>,
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
        if let Some(c) = conflicts::conflicts(conds, t, opts).first() {
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
        let attr = side(t).first().map_or_else(
            || "offers' Requirements".to_owned(),
            |s| s.attribute.clone(),
        );
        return Some(("attribute".into(), attr));
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
        let opts = AnalyzeOptions::default();
        let why = |id: &str, r: &ClassAd| why_pool(id, r, &offers, &opts);
        let u = unmatched(&pool(&reqs), &offers, &opts, &why);
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
