//! Ranking candidates by plain evaluation: a request with preferences docks with
//! `[preference order, request Rank, offer Rank]` (the order as the negated outcome key, so
//! that higher is better as for ranks), ties to the earliest-loaded offer; and seed 004's
//! Algorithm 3.1 filter, keeping the best fraction (`PreferenceKeep`). This is also the oracle
//! the walk through the index ([`super::walk`]) is tested against.

use super::net::Preferences;
use crate::cycle::vector::{cmp_vectors, rank_of};
use adjoin_index::AdId;
use adjoin_query::eval::{EvalOptions, MatchAds};
use adjoin_query::{ClassAd, Key, Value};
use std::sync::Arc;

/// Candidates with their docking vectors, best first.
pub type Ranked = Vec<(Vec<Value>, AdId)>;

/// The preference order as a vector component for outcome key `key` (higher is better).
pub fn order_component(key: u64) -> Value {
    // Keys are below 2^53 ([`Preferences`] refuses more), so they negate exactly.
    Value::Int(-(key.min(i64::MAX as u64) as i64))
}

/// `[request Rank, offer Rank]` of `offer` for `request`, as the default docking vector has
/// them (ranks that are not numbers count 0).
pub fn ranks(request: &ClassAd, offer: &ClassAd, opts: &EvalOptions) -> [Value; 2] {
    let rank = Key::of("Rank");
    [
        rank_of(
            rank,
            MatchAds {
                my: request,
                target: offer,
            },
            opts,
        ),
        rank_of(
            rank,
            MatchAds {
                my: offer,
                target: request,
            },
            opts,
        ),
    ]
}

impl Preferences {
    /// The docking vector of `offer` for `request`: `[preference order, request Rank, offer
    /// Rank]`.
    pub fn vector(&self, request: &ClassAd, offer: &ClassAd, opts: &EvalOptions) -> Vec<Value> {
        let key = self.key(&self.outcome(request, offer, opts));
        let [mine, theirs] = ranks(request, offer, opts);
        vec![order_component(key), mine, theirs]
    }
}

/// Sorts `ranked` best first (vectors descending), ties keeping their order.
pub fn sort(ranked: &mut Ranked) {
    ranked.sort_by(|a, b| cmp_vectors(&b.0, &a.0));
}

/// Every candidate (positions in `offers`, in load order) ranked by plain evaluation, best
/// first, `PreferenceKeep` applied.
pub fn rank_all(
    prefs: &Preferences,
    request: &ClassAd,
    candidates: impl IntoIterator<Item = AdId>,
    offers: &[Arc<ClassAd>],
    opts: &EvalOptions,
) -> Ranked {
    rank_candidates(Some(prefs), request, candidates, offers, opts)
}

/// [`rank_all`], or without preferences by `[request Rank, offer Rank]` alone.
pub fn rank_candidates(
    prefs: Option<&Preferences>,
    request: &ClassAd,
    candidates: impl IntoIterator<Item = AdId>,
    offers: &[Arc<ClassAd>],
    opts: &EvalOptions,
) -> Ranked {
    let vector = |offer: &ClassAd| match prefs {
        Some(p) => p.vector(request, offer, opts),
        None => ranks(request, offer, opts).to_vec(),
    };
    let mut ranked: Ranked = candidates
        .into_iter()
        .filter_map(|o| Some((vector(offers.get(o as usize)?), o)))
        .collect();
    sort(&mut ranked);
    ranked.truncate(keep_fraction(ranked.len(), prefs.and_then(|p| p.keep)));
    ranked
}

/// How many of `n` ranked candidates Algorithm 3.1 keeps: the best fraction `keep` (rounded
/// up, at least one of a non-empty list), all of them without one.
pub fn keep_fraction(n: usize, keep: Option<f64>) -> usize {
    match keep {
        None => n,
        Some(f) => ((n as f64 * f).ceil() as usize).clamp(n.min(1), n),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    #[test]
    fn fractions() {
        for (n, keep, want) in [
            (10, None, 10),
            (10, Some(0.3), 3),
            (11, Some(0.3), 4),
            (1, Some(0.01), 1),
            (0, Some(0.5), 0),
            (7, Some(1.0), 7),
        ] {
            assert_eq!(keep_fraction(n, keep), want, "{n} {keep:?}");
        }
    }

    #[test]
    fn candidates_rank_by_order_then_ranks_then_load_order() {
        let request = parse::classad(
            r#"[Rank = TARGET.Memory; PreferenceKeep = 0.8;
                Preferences = {[Name = "os"; Value = TARGET.OpSys; Order = {"LINUX", "OSX"}]}]"#,
        )
        .expect("ad");
        let prefs = Preferences::from_ad(&request, "r", &EvalOptions::default())
            .expect("ok")
            .expect("some");
        let offers: Vec<Arc<ClassAd>> = [
            r#"[OpSys = "OSX"; Memory = 8]"#,
            r#"[OpSys = "linux"; Memory = 1]"#,
            r#"[OpSys = "WINDOWS"; Memory = 64]"#,
            r#"[OpSys = "LINUX"; Memory = 2]"#,
            r#"[OpSys = "LINUX"; Memory = 2; Rank = 1]"#,
            r#"[OpSys = "LINUX"; Memory = 2]"#,
        ]
        .iter()
        .map(|t| Arc::new(parse::classad(t).expect("offer")))
        .collect();
        let got = rank_all(&prefs, &request, 0..6, &offers, &EvalOptions::default());
        let ids: Vec<AdId> = got.iter().map(|g| g.1).collect();
        // Five of six kept (0.8, rounded up); WINDOWS (other) last, dropped.
        assert_eq!(ids, [4, 3, 5, 1, 0]);
        assert_eq!(
            got[0].0,
            [Value::Int(0), Value::Int(2), Value::Int(1)],
            "{got:?}"
        );
    }
}
