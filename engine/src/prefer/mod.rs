//! Preferences as CP-nets (seed 004, Cafaro, Mirto and Aloisio after Boutilier et
//! al.): conditional preferences written in a request's `Preferences` list, evaluated against
//! offers in the match context (MY the request, TARGET the offer).
//!
//! - [`net`]: the [`Preferences`] type, parsed from an ad with errors naming the ad and entry;
//! - [`outcome`]: an offer's outcome (each variable's value class);
//! - [`optimum`]: the forward sweep;
//! - [`dominance`]: dominance by improving flips, with the flipping sequence as witness;
//! - [`rank`]: the lexicographic total order, ranking candidates, the `PreferenceKeep` filter;
//! - [`walk`]: the most preferred feasible offers found through the index, outcome by outcome
//!   from the optimum down.
//!
//! The form and the semantics are in `docs/preferences.md`.

pub mod dominance;
pub mod held;
pub mod net;
pub mod optimum;
pub mod outcome;
pub mod rank;
pub mod remembered;
pub mod walk;

pub use dominance::{Dominance, Flip};
pub use held::{RankError, RankedAnswer};
pub use net::{Class, PreferenceError, Preferences, Problem, Row, Variable};
pub use outcome::Outcome;
pub use rank::{keep_fraction, rank_all, rank_candidates, Ranked};
pub use walk::{best, ranked, Feasible, IndexedOffers, OfferRanks, WalkError, Walked};

#[cfg(test)]
mod proptests;
