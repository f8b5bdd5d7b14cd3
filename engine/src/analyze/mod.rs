//! Match diagnostics (seed 001): why a request matches nothing, and what would make
//! it match. One request is analysed against a pool of offers: counts ("I don't like anyone",
//! "nobody likes me"), its Requirements split into conditions with per-condition and step
//! counts, conflicts (minimal failing sets over the boolean table, and value-independent ones),
//! suggestions (metrics M1 and M2, each re-checked by re-matching) and the offer side.
//!
//! Modules: `conditions.rs` (splitting and printing), `table.rs` (each condition's satisfying
//! set of offers as a bitmap, counts and the boolean table's rows), `conflicts.rs`,
//! `suggest.rs`, `offer_side.rs`, `unmatched.rs` (the batch over clusters of requests),
//! `ports.rs` (a request with `Ports`: per-port candidates and the first port no gang fills)
//! and `db.rs` (the [`crate::Db`] entry points).

mod batch;
mod conditions;
mod conflicts;
mod db;
mod indexed;
mod offer_side;
mod ports;
mod render;
mod suggest;
mod table;
mod unmatched;

pub use self::conditions::{split_requirements, Condition};
pub use self::db::ad_id;
pub use self::ports::{PortCount, PortsAnalysis};
pub use self::render::render_text;
pub use self::unmatched::{Unmatched, UnmatchedGroup};

use adjoin_query::eval::EvalOptions;
use adjoin_query::ClassAd;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use thiserror::Error;

/// Knobs of an analysis.
#[derive(Clone, Debug)]
pub struct AnalyzeOptions {
    /// How expressions are evaluated.
    pub eval: EvalOptions,
    /// Largest conflict looked for beyond triples (pairs and triples are always complete).
    pub max_conflict_size: usize,
    /// Subsets of conditions tested for conflicts beyond triples before the search stops.
    pub conflict_budget: u64,
    /// Steps of the value-conflict search (a witness value tried on a comparison, 64 witnesses
    /// or comparisons intersected at once, a set confirmed: 64) before it stops.
    pub value_conflict_budget: u64,
    /// Most suggestions of each metric.
    pub max_suggestions: usize,
    /// Most candidate values tried per attribute on the offer side.
    pub max_offer_values: usize,
    /// `--unmatched` through an index: most offers read back for the attribute a cluster
    /// every offer rejects is grouped by (one request alone weighs every offer).
    pub max_detail_offers: usize,
}

impl Default for AnalyzeOptions {
    fn default() -> AnalyzeOptions {
        AnalyzeOptions {
            eval: EvalOptions::default(),
            max_conflict_size: 6,
            conflict_budget: 20_000,
            value_conflict_budget: VALUE_CONFLICT_BUDGET,
            max_suggestions: 3,
            max_offer_values: 16,
            max_detail_offers: 256,
        }
    }
}

/// The default [`AnalyzeOptions::value_conflict_budget`]: a few tens of milliseconds.
pub const VALUE_CONFLICT_BUDGET: u64 = 20_000_000;

/// The analysis of one request against a pool of offers (the JSON of `adjoin analyze`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    /// The request's id.
    pub request: String,
    /// Offers available (not consumed, not expired).
    pub offers: u64,
    /// Offers matching both ways.
    pub matching: u64,
    /// Offers for which the request's Requirements are not true ("I don't like anyone").
    pub rejected_by_request: u64,
    /// Offers whose Requirements are not true for the request ("nobody likes me").
    pub rejecting_request: u64,
    /// The request's Requirements, condition by condition.
    pub conditions: Vec<ConditionCount>,
    /// Sets of conditions no offer (or no value at all) satisfies together.
    pub conflicts: Vec<Conflict>,
    /// The conflict searches (`value`, `data`) a work budget stopped before they were
    /// complete: more conflicts of that kind may exist (absent from the JSON when none).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts_cut_short: Vec<ConflictKind>,
    /// Changes to the Requirements, each checked by re-matching.
    pub suggestions: Vec<Suggestion>,
    /// The request's attributes that offers reject it over.
    pub offer_side: Vec<OfferSide>,
    /// A request with `Ports` only: per port its candidates, and the first port that cannot
    /// be filled together with those before it (the JSON's `ports` and `first_unfillable`).
    #[serde(flatten, default, skip_serializing_if = "Option::is_none")]
    pub gang: Option<PortsAnalysis>,
}

/// One condition of the request's Requirements and how many offers it lets through.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConditionCount {
    /// The condition in the language's syntax.
    pub condition: String,
    /// Offers for which it alone is true.
    pub matched: u64,
    /// Offers for which it and every condition before it are true.
    pub step_matched: u64,
}

/// What makes a conflict.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConflictKind {
    /// No available offer satisfies the conditions together, though every proper subset is
    /// satisfied by some offer.
    Data,
    /// No value of the attributes could satisfy them together (`Memory > 10 && Memory < 5`).
    Value,
}

/// A minimal set of conditions that cannot hold together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conflict {
    /// Indices into [`Analysis::conditions`], ascending.
    pub conditions: Vec<usize>,
    /// Data or value.
    pub kind: ConflictKind,
}

/// A suggestion's metric (seed 001 4.1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Metric {
    /// The fewest conditions removed.
    M1,
    /// Conditions modified to the nearest offer's values.
    M2,
}

/// What a change does to a condition.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    /// The condition is dropped.
    Remove,
    /// The condition is replaced by [`Change::to`].
    Modify,
}

/// One change of a suggestion.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Change {
    /// Index into [`Analysis::conditions`].
    pub condition: usize,
    /// Remove or modify.
    pub action: Action,
    /// The new condition (modify only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to: Option<String>,
}

/// A suggested change of the Requirements.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Suggestion {
    /// M1 or M2.
    pub metric: Metric,
    /// The changes, by condition.
    pub changes: Vec<Change>,
    /// Offers the changed request really matches (re-matched).
    pub would_match: u64,
}

/// An attribute of the request that offers' Requirements reject it over.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OfferSide {
    /// The request's attribute.
    pub attribute: String,
    /// Offers rejecting the request with a failing condition that reads it.
    pub rejecting: u64,
    /// The value accepted by the most offers, in the language's syntax (none when no value
    /// tried does better than the current one).
    pub suggest: Option<String>,
    /// Offers the request with that value really matches (re-matched).
    pub would_match: u64,
}

/// Why an analysis could not be made.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AnalyzeError {
    /// The ad has no Requirements (nor Constraint).
    #[error("{id}: the ad has no Requirements to analyse")]
    NoRequirements {
        /// The ad.
        id: String,
    },
    /// The Requirements (or one of its conditions) can never be a boolean.
    #[error("{id}: Requirements is not a boolean expression: {condition}")]
    NotBoolean {
        /// The ad.
        id: String,
        /// The offending part.
        condition: String,
    },
    /// The Requirements reach an attribute that refers back to itself.
    #[error("{id}: circular reference: {}", cycle.join(" -> "))]
    Circular {
        /// The ad.
        id: String,
        /// The attributes on the cycle, the first repeated last.
        cycle: Vec<String>,
    },
    /// The Requirements nest deeper than the analysis follows.
    #[error("{id}: Requirements nest too deeply to analyse")]
    TooDeep {
        /// The ad.
        id: String,
    },
    /// The request's `Ports` cannot take part in gangs.
    #[error("{id}: {error}")]
    Ports {
        /// The ad.
        id: String,
        /// What is wrong with its ports.
        error: crate::gang::PortsError,
    },
    /// The offers could not be indexed for the gang search.
    #[error(transparent)]
    Indexed(#[from] crate::collection::CollectionError),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] Box<crate::DbError>),
    /// The ad asked for is not in the collection.
    #[error("{collection}: no ad {id}")]
    NotFound {
        /// The collection.
        collection: String,
        /// The id.
        id: String,
    },
}

impl From<crate::DbError> for AnalyzeError {
    fn from(e: crate::DbError) -> AnalyzeError {
        AnalyzeError::Db(Box::new(e))
    }
}

impl From<adjoin_storage::AdError> for AnalyzeError {
    fn from(e: adjoin_storage::AdError) -> AnalyzeError {
        AnalyzeError::Db(Box::new(e.into()))
    }
}

/// The offers an analysis runs against: ids and ads, in the collection's order.
#[derive(Clone, Debug, Default)]
pub struct Pool {
    /// The ids.
    pub ids: Vec<String>,
    /// The ads (same order).
    pub ads: Vec<Arc<ClassAd>>,
}

impl Pool {
    /// A pool of `ads` named by their positions (`0`, `1`, …).
    pub fn numbered(ads: Vec<Arc<ClassAd>>) -> Pool {
        Pool {
            ids: (0..ads.len()).map(|i| i.to_string()).collect(),
            ads,
        }
    }

    /// How many offers.
    pub fn len(&self) -> usize {
        self.ads.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.ads.is_empty()
    }
}

/// Analyses `request` (named `id`) against `pool`: the whole of [`Analysis`].
pub fn analyze(
    id: &str,
    request: &ClassAd,
    pool: &Pool,
    opts: &AnalyzeOptions,
) -> Result<Analysis, AnalyzeError> {
    let _span = tracing::debug_span!("analyze", offers = pool.len()).entered();
    let conds = conditions(id, request, opts)?;
    let t = table::Table::build(request, &conds, pool, &opts.eval);
    let rematch = |ad: &ClassAd| suggest::rematch_pool(ad, pool, &opts.eval);
    let values = suggest::PoolValues {
        request,
        pool,
        eval: &opts.eval,
    };
    let whole = |ad: &ClassAd| {
        pool.ads
            .iter()
            .filter(|o| adjoin_index::accepts(o, ad, &opts.eval))
            .count() as u64
    };
    let tally = offer_side::tally_pool(request, &t, pool, &opts.eval);
    let offer_at = |o: u32| pool.ads.get(o as usize).cloned();
    let mut a = detail(
        id, request, &conds, &t, &values, tally, opts, &rematch, &whole, &offer_at,
    );
    a.gang = ports::ports_analysis(id, request, pool, opts)?;
    Ok(a)
}

/// The request's conditions; a request with `Ports` and no Requirements of its own has none
/// (its constraints are its ports').
pub(crate) fn conditions(
    id: &str,
    request: &ClassAd,
    opts: &AnalyzeOptions,
) -> Result<Vec<Condition>, AnalyzeError> {
    match split_requirements(id, request, &opts.eval) {
        Err(AnalyzeError::NoRequirements { .. }) if ports::has_ports(request) => Ok(Vec::new()),
        r => r,
    }
}

/// The whole analysis from the table over every offer (`full`, whose values M2 reads through
/// `values`) and the offer side's tally over every rejecting offer; `whole` counts the offers
/// of the whole pool accepting an ad, `offer_at` reads an offer by its position.
#[allow(clippy::too_many_arguments)]
pub(crate) fn detail(
    id: &str,
    request: &ClassAd,
    conds: &[Condition],
    full: &table::Table,
    values: &dyn suggest::OfferValues,
    tally: offer_side::Tally,
    opts: &AnalyzeOptions,
    rematch: Rematch<'_>,
    whole: &dyn Fn(&ClassAd) -> u64,
    offer_at: offer_side::OfferAt<'_>,
) -> Analysis {
    let mut a = full.counts(id, conds);
    let found = conflicts::conflicts(conds, full, opts);
    a.conflicts = found.conflicts;
    a.conflicts_cut_short = found.cut_short;
    a.suggestions = suggest::suggestions(request, conds, full, values, opts, rematch);
    let whole = (whole, full.accepting.len());
    a.offer_side = offer_side::offer_side(request, tally, opts, rematch, whole, offer_at);
    a
}

/// Counts and conditions only (no conflicts, suggestions or offer side).
pub fn analyze_counts(
    id: &str,
    request: &ClassAd,
    pool: &Pool,
    opts: &AnalyzeOptions,
) -> Result<Analysis, AnalyzeError> {
    let conds = conditions(id, request, opts)?;
    let t = table::Table::build(request, &conds, pool, &opts.eval);
    Ok(t.counts(id, &conds))
}

/// How a changed request is re-matched: the number of offers it matches both ways.
pub(crate) type Rematch<'a> = &'a dyn Fn(&ClassAd) -> u64;

/// True when a requirements value selects: `true` or a non-zero number.
pub(crate) fn selects(v: &adjoin_query::Value) -> bool {
    crate::db::selects(v)
}

#[cfg(test)]
mod proptests;
