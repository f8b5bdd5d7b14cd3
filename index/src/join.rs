//! The spatial join: every request against an indexed collection of offers, both ways
//! (`adjoin join`), and the nested-loop join it must agree with (`--naive`).
//!
//! Requests with ports match an offer when any of their ports does; offers with ports
//! likewise.

use crate::index::{AdId, Index};
use crate::ports::pairwise_units;
use crate::window::Query;
use adjoin_query::eval::{symmetric_match, EvalOptions};
use adjoin_query::ClassAd;
use roaring::RoaringBitmap;
use std::sync::Arc;

/// For each request, the ids of the stored ads matching it both ways.
pub fn join(index: &mut Index, requests: &[Arc<ClassAd>]) -> Vec<RoaringBitmap> {
    let _span = tracing::debug_span!("index_join", requests = requests.len()).entered();
    let opts = index.options().clone();
    requests
        .iter()
        .map(|r| {
            let mut ads = RoaringBitmap::new();
            for q in Query::two_sided(r, &opts) {
                index.prepare(&q);
                let mut a = index.candidates(&q);
                ads |= index.confirm_ads(&q, &mut a);
            }
            ads
        })
        .collect()
}

/// The same answer by evaluating every pair.
pub fn naive_join(
    offers: &[(AdId, Arc<ClassAd>)],
    requests: &[Arc<ClassAd>],
    opts: &EvalOptions,
) -> Vec<RoaringBitmap> {
    let offer_units: Vec<(AdId, Vec<Arc<ClassAd>>)> = offers
        .iter()
        .map(|(id, ad)| {
            (
                *id,
                pairwise_units(ad, opts).into_iter().map(|u| u.ad).collect(),
            )
        })
        .collect();
    requests
        .iter()
        .map(|r| {
            let mine: Vec<Arc<ClassAd>> =
                pairwise_units(r, opts).into_iter().map(|u| u.ad).collect();
            offer_units
                .iter()
                .filter(|(_, theirs)| {
                    theirs
                        .iter()
                        .any(|o| mine.iter().any(|m| symmetric_match(o, m, opts)))
                })
                .map(|(id, _)| *id)
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexOptions;
    use crate::workload::{generate, Mix, Spec};

    /// The dissertation's workload at small N, every mix: indexed and naive joins agree.
    #[test]
    fn workload_joins_agree() {
        for mix in Mix::ALL {
            for attrs in [2, 4, 8] {
                let spec = Spec::new(150, attrs, mix, 11 + attrs as u64);
                let (offers, queries) = generate(&spec);
                let offers: Vec<(AdId, Arc<ClassAd>)> = offers
                    .into_iter()
                    .enumerate()
                    .map(|(i, a)| (i as AdId, Arc::new(a)))
                    .collect();
                let queries: Vec<Arc<ClassAd>> = queries.into_iter().map(Arc::new).collect();
                let mut idx = Index::new(IndexOptions::default());
                idx.extend(offers.iter().cloned()).expect("index");
                let got = join(&mut idx, &queries);
                let want = naive_join(&offers, &queries, &idx.options().eval);
                assert_eq!(got, want, "{attrs}/{}", mix.letter());
                let s = idx.stats();
                // Every constraint is a conjunction of exact bounds: nothing to evaluate.
                assert_eq!(s.evaluations, 0, "{s:?}");
                // 2^-2n of the pairs match: some at 2 and 4 attributes, rarely any at 8.
                let pairs: u64 = want.iter().map(RoaringBitmap::len).sum();
                assert!(attrs == 8 || pairs > 0, "{attrs}/{}", mix.letter());
            }
        }
    }
}
