//! Re-advertisement: a put under an id that already has an ad — live, or consumed by a match
//! (its record dead in its block, its id tombstoned) — stores the new advertisement, unless
//! it is stale by HTCondor's collector rule.
//!
//! A daemon numbers its updates (`UpdateSequenceNumber`, restarting when the daemon restarts,
//! whose time is `DaemonStartTime`). When the stored ad and the new one both carry
//! `UpdateSequenceNumber`, the new one is stale if it comes from an earlier start of the daemon
//! (both carry `DaemonStartTime` and the new one's is smaller), or from the same start (equal
//! or missing start times) with a smaller sequence number. A stale update is refused
//! ([`AdError::Stale`]) and the stored ad stays; an equal sequence number (the same update
//! sent twice) is accepted.
//!
//! Re-advertising a consumed id buries the consumed record and drops the tombstone (the match
//! record stays in the registrar): the new ad, with its own attributes (`State = "Claimed"`),
//! decides what it matches from then on.

use crate::error::AdError;
use crate::index::Loc;
use crate::key::CollId;
use crate::store::damage;
use crate::txn::Txn;
use adjoin_query::{ClassAd, Expr, Value};

/// What an ad says of the update it is: its sequence number and its daemon's start time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Stamp {
    /// `UpdateSequenceNumber`.
    pub(crate) seq: i64,
    /// `DaemonStartTime`, if given.
    pub(crate) start: Option<i64>,
}

/// An integer literal attribute of `ad`.
fn int_attr(ad: &ClassAd, name: &str) -> Option<i64> {
    match ad.get(name) {
        Some(Expr::Lit(Value::Int(i))) => Some(*i),
        _ => None,
    }
}

impl Stamp {
    /// The stamp of `ad`: `None` unless it carries an integer `UpdateSequenceNumber`.
    pub(crate) fn of(ad: &ClassAd) -> Option<Stamp> {
        Some(Stamp {
            seq: int_attr(ad, "UpdateSequenceNumber")?,
            start: int_attr(ad, "DaemonStartTime"),
        })
    }

    /// True when an update stamped `self` is older than the stored one stamped `stored`.
    pub(crate) fn is_stale_against(self, stored: Stamp) -> bool {
        match (self.start, stored.start) {
            (Some(new), Some(old)) if new != old => new < old,
            _ => self.seq < stored.seq,
        }
    }
}

/// The stamp of the ad at `loc` of collection `name` (number `c`), as `txn` has it; `None`
/// when the record is not there or carries none. A record that does not decode is damage.
fn stamp_at(
    txn: &mut Txn<'_>,
    name: &str,
    c: CollId,
    id: &str,
    loc: Loc,
) -> Result<Option<Stamp>, AdError> {
    let Some(ad) = txn.decode_at(name, c, loc)? else {
        return Ok(None);
    };
    let ad = ad.map_err(|e| {
        AdError::Damaged(damage(
            crate::key::tree::BLOCKS,
            Some(name),
            Some(id),
            &[],
            e,
        ))
    })?;
    Ok(Stamp::of(&ad))
}

/// Refuses (inner `Err`) an update stamped `new` of `id` when the ad stored at `loc` — live,
/// or the record a consumption left — is newer. No stamp on either side: accepted.
pub(crate) fn guard(
    txn: &mut Txn<'_>,
    name: &str,
    c: CollId,
    id: &str,
    loc: Option<Loc>,
    new: Option<Stamp>,
) -> Result<Result<(), AdError>, AdError> {
    let (Some(new), Some(loc)) = (new, loc) else {
        return Ok(Ok(()));
    };
    let old = match stamp_at(txn, name, c, id, loc) {
        Ok(s) => s,
        // A damaged stored ad cannot vouch for anything: this ad only is refused.
        Err(AdError::Damaged(d)) => return Ok(Err(AdError::Damaged(d))),
        Err(e) => return Err(e),
    };
    match old {
        Some(old) if new.is_stale_against(old) => Ok(Err(AdError::Stale {
            collection: name.to_owned(),
            id: id.to_owned(),
            seq: new.seq,
            start: new.start,
            stored_seq: old.seq,
            stored_start: old.start,
        })),
        _ => Ok(Ok(())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_rule() {
        let s = |seq, start| Stamp { seq, start };
        // (new, stored, stale)
        for (new, old, stale) in [
            (s(5, Some(100)), s(6, Some(100)), true),
            (s(6, Some(100)), s(6, Some(100)), false),
            (s(7, Some(100)), s(6, Some(100)), false),
            // A restarted daemon counts from 1 again: its updates are newer.
            (s(1, Some(200)), s(60, Some(100)), false),
            // An update from before the restart is stale whatever its number.
            (s(90, Some(100)), s(2, Some(200)), true),
            (s(5, None), s(6, Some(100)), true),
            (s(7, Some(100)), s(6, None), false),
        ] {
            assert_eq!(new.is_stale_against(old), stale, "{new:?} vs {old:?}");
        }
    }

    #[test]
    fn stamps_need_an_integer_sequence_number() {
        for (text, want) in [
            (
                "[UpdateSequenceNumber = 3; DaemonStartTime = 10]",
                Some(Stamp {
                    seq: 3,
                    start: Some(10),
                }),
            ),
            (
                "[UpdateSequenceNumber = 3]",
                Some(Stamp {
                    seq: 3,
                    start: None,
                }),
            ),
            ("[DaemonStartTime = 10]", None),
            ("[UpdateSequenceNumber = \"3\"]", None),
        ] {
            let ad = adjoin_query::parse::classad(text).expect("ad");
            assert_eq!(Stamp::of(&ad), want, "{text}");
        }
    }
}
