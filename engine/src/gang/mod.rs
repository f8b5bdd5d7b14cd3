//! Gangmatching (dissertation chapters 3 and 5): a request that needs several
//! resources at once — a job, a machine and a license — is matched as a *gang*, all or
//! nothing.
//!
//! - `ports`: an ad's labelled ports, checked (an ad without `Ports` has one implicit port
//!   `other`);
//! - [`env`]: gangs under construction and the Figure-32 evaluation environment;
//! - `pool`: the offers of a cycle, indexed per collection (DYNS: one representative per
//!   group of interchangeable offers);
//! - `signature`: which offers are interchangeable in every gang (the cycle's reads, and an
//!   offer's rectangles and whatever else evaluation reads of it);
//! - `probe`: windows specialized to the gang so far, and constraint shunting;
//! - `search`: the one backtracking search all algorithms share ([`Algorithm`] says where
//!   candidates come from and which port is filled next);
//! - `oracle`: the exhaustive search the algorithms are tested against;
//! - `cycle`: [`Db::gang_cycle`](crate::Db::gang_cycle) and the one-request
//!   [`Db::gang_query`](crate::Db::gang_query).
//!
//! The model and its deviations are in `docs/gangs.md`.

mod cycle;
pub(crate) mod env;
#[cfg(test)]
pub(crate) mod oracle;
pub(crate) mod pool;
pub(crate) mod ports;
pub(crate) mod probe;
pub(crate) mod search;
pub(crate) mod signature;

use adjoin_index::IndexOptions;
use adjoin_query::Expr;
use std::fmt;
use std::str::FromStr;

pub use cycle::{Gang, GangError, GangMember, GangReport};
pub use ports::PortsError;

/// How gangs are searched (dissertation 5.3–5.8).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Algorithm {
    /// Left to right with backtracking, every free offer tried by evaluation.
    Naive,
    /// Left to right, each port's candidates from an index probe specialized to the gang.
    Lr,
    /// Dynamic order: an initial probe on every port, fewest candidates first (an empty port
    /// fails at once), constraint shunting into every probe, and path consistency between
    /// ports linked by translations. The default: complete and the fastest.
    #[default]
    Dyn,
    /// DYN over summarized offers: one representative per group of interchangeable offers
    /// (equal rectangles and whatever else evaluation reads) is indexed and stands for the
    /// group, so ports are chosen by their distinct rectangles.
    Dyns,
    /// DYNS starting each port's candidates at a random place.
    Dynsr,
}

impl Algorithm {
    /// Every algorithm, in the order of the dissertation.
    pub const ALL: [Algorithm; 5] = [
        Algorithm::Naive,
        Algorithm::Lr,
        Algorithm::Dyn,
        Algorithm::Dyns,
        Algorithm::Dynsr,
    ];

    /// Whether candidates come from the index.
    pub fn indexed(self) -> bool {
        self != Algorithm::Naive
    }

    /// Whether ports are filled in order of their candidates (with shunting).
    pub fn dynamic(self) -> bool {
        matches!(self, Algorithm::Dyn | Algorithm::Dyns | Algorithm::Dynsr)
    }

    /// Whether the offers are summarized (one representative per group indexed).
    pub fn summarized(self) -> bool {
        matches!(self, Algorithm::Dyns | Algorithm::Dynsr)
    }
}

impl fmt::Display for Algorithm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Algorithm::Naive => "naive",
            Algorithm::Lr => "lr",
            Algorithm::Dyn => "dyn",
            Algorithm::Dyns => "dyns",
            Algorithm::Dynsr => "dynsr",
        })
    }
}

impl FromStr for Algorithm {
    type Err = String;
    fn from_str(s: &str) -> Result<Algorithm, String> {
        Algorithm::ALL
            .into_iter()
            .find(|a| a.to_string().eq_ignore_ascii_case(s))
            .ok_or_else(|| format!("unknown algorithm {s} (naive, lr, dyn, dyns, dynsr)"))
    }
}

/// What a gang cycle matches and how.
#[derive(Clone, Debug, Default)]
pub struct GangOptions {
    /// The collection of requests (the roots).
    pub requests: String,
    /// The offer collections, in order (candidates in this order, then load order).
    pub offers: Vec<String>,
    /// The search.
    pub algorithm: Algorithm,
    /// Requests are served in descending order of this (default: load order).
    pub order_by: Option<Expr>,
    /// The docking vector's expressions (empty: per-port ranks).
    pub dock: Vec<Expr>,
    /// Decide the gangs but write nothing.
    pub dry_run: bool,
    /// Index and evaluation options.
    pub index: IndexOptions,
    /// Work units the search may spend per request before it gives up on it (`None`: the
    /// safety bound `search::SEARCH_BOUND`, 100,000,000, a few seconds at most): one per
    /// candidate tried, one per expression node evaluated in the gang environment, and per
    /// index probe a cost growing with its window (see `docs/gangs.md`). A request given up on
    /// is listed in [`GangReport::gave_up`], never taken for one without a gang.
    pub search_bound: Option<u64>,
}

impl GangOptions {
    /// A durable cycle of `requests` against `offers` with the default algorithm.
    pub fn new(requests: &str, offers: &[&str]) -> GangOptions {
        GangOptions {
            requests: requests.to_owned(),
            offers: offers.iter().map(|s| (*s).to_owned()).collect(),
            ..GangOptions::default()
        }
    }
}

#[cfg(test)]
mod bound_tests;
#[cfg(test)]
mod golden_tests;
#[cfg(test)]
mod scope_tests;
#[cfg(test)]
mod tests;
