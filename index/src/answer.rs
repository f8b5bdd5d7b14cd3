//! What a query returns: the raw answer (candidate RIDs, and those known to match), the
//! confirmed hits, and what was done ([`Explain`], for `adjoin query --explain`).

use crate::bits::Bits;
use crate::index::AdId;
use roaring::RoaringBitmap;
use std::fmt;

/// One component of a window as run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The attribute.
    pub attr: String,
    /// What was asked: `stab` (a probe value against stored bounds), `absent` (the probe
    /// lacks it), `window` (a probe bound against stored values).
    pub kind: &'static str,
    /// Whether candidates were checked one by one instead of probing the axis.
    pub filtered: bool,
    /// Candidates before: counted, as steps are listed, only for [`crate::Query::explained`]
    /// queries (`None` where a caller builds an [`Explain`] without them).
    pub before: Option<u64>,
    /// Candidates after (likewise).
    pub after: Option<u64>,
}

/// What a query did, for `--explain`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Explain {
    /// The direction, as text.
    pub direction: &'static str,
    /// Rectangles in the window.
    pub rectangles: usize,
    /// The steps run, in order (for several rectangles, the shared steps then each
    /// rectangle's); listed for [`crate::Query::explained`] queries only (a window run in
    /// a cycle allocates nothing for them).
    pub steps: Vec<Step>,
    /// Axes consulted as structures.
    pub probes: u64,
    /// RIDs checked one by one.
    pub filtered: u64,
    /// Attributes whose axis was missing (no pruning on them; see [`crate::Index::prepare`]).
    pub unprepared: Vec<String>,
    /// Candidate units (the raw answer).
    pub candidates: u64,
    /// Candidates known to match without evaluation.
    pub exact: u64,
    /// Candidates evaluated by confirmation.
    pub evaluations: u64,
    /// Candidates confirmed.
    pub confirmed: u64,
}

impl fmt::Display for Explain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "{} query, {} rectangle(s), {} probe(s), {} RID check(s)",
            self.direction, self.rectangles, self.probes, self.filtered
        )?;
        let n = |c: Option<u64>| c.map_or_else(|| "?".to_string(), |c| c.to_string());
        for s in &self.steps {
            writeln!(
                f,
                "  {:<7} {:<24} {:>8} -> {:<8}{}",
                s.kind,
                s.attr,
                n(s.before),
                n(s.after),
                if s.filtered { " (checked)" } else { "" }
            )?;
        }
        if !self.unprepared.is_empty() {
            writeln!(f, "  not indexed: {}", self.unprepared.join(", "))?;
        }
        write!(
            f,
            "candidates {}, exact {}, evaluated {}, confirmed {}",
            self.candidates, self.exact, self.evaluations, self.confirmed
        )
    }
}

/// The raw answer of a query, as sets of RIDs ([`Bits`]; [`Answer::to_roaring`] for a
/// roaring bitmap).
#[derive(Clone, Debug, Default)]
pub struct Answer {
    /// Candidate rectangles: a superset of the matching ones.
    pub rids: Bits,
    /// The candidates whose match needs no evaluation.
    pub exact: Bits,
    /// Two-sided queries: the candidates whose own constraint the window decided true (their
    /// rectangle converted exactly and holds the probe's points), so that confirming them
    /// needs only the probe's constraint evaluated.
    pub stored_decided: Bits,
    /// Two-sided queries: the candidates for which the window decided the probe's constraint
    /// true (it converted exactly and their values are in it), so that confirming them needs
    /// only their own constraint evaluated.
    pub probe_decided: Bits,
    /// What was done.
    pub explain: Explain,
}

impl Answer {
    /// The candidate RIDs as a roaring bitmap.
    pub fn to_roaring(&self) -> RoaringBitmap {
        self.rids.to_roaring()
    }

    /// Whether every candidate is known to match.
    pub fn all_exact(&self) -> bool {
        self.exact.len() == self.rids.len()
    }

    /// Drops the rectangles `gone` from every set: the answer the same window gives among
    /// the rectangles not `gone` (each step keeps or drops a rectangle on its own), but for
    /// `explain`, which still tells of the window as run.
    pub fn remove(&mut self, gone: &Bits) {
        for set in [
            &mut self.rids,
            &mut self.exact,
            &mut self.stored_decided,
            &mut self.probe_decided,
        ] {
            set.andnot_assign(gone);
        }
    }
}

/// A matching unit.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Hit {
    /// The ad.
    pub ad: AdId,
    /// Its port, if the ad has ports.
    pub port: Option<u16>,
}
