//! The values stored in each tree, and format 1's ad record (read by its migration).
//!
//! Ads themselves are stored in blocks (`block.rs`): each record's [`AdHeader`] in the block's
//! directory and its parsed [`ClassAd`] as a body. Format 1 stored one record per ad: the
//! header followed by the body ([`ad_payload`], [`open_header`]).

use crate::codec::{self, CodecError};
use crate::key::CollId;
use adjoin_query::{ClassAd, Value};
use serde::{Deserialize, Serialize};

/// What a record says about its ad besides the ad itself.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct AdHeader {
    /// The ad's id in its collection.
    pub id: String,
    /// Its place in load order (equal to the sequence in its key).
    pub seq: u64,
    /// When it was stored (seconds since the epoch).
    pub stored_at: i64,
    /// When it expires, if it does.
    pub expires: Option<i64>,
    /// True when the store made the id up (the ad had no id attribute).
    pub generated_id: bool,
}

/// A record's **revision**: what tells one stored version of an ad from another under the same
/// sequence number (a replacement keeps its ad's `seq`). It is the body's CRC-32 (which covers
/// the sequence number and the encoded ad) in the low 32 bits and the low 32 bits of
/// `stored_at` in the high ones, both read from the block's directory, so that a store can
/// list every record's revision without reading a body. Two versions of an ad get the same revision
/// only if they were stored in the same second with colliding CRCs (or the same bytes);
/// derived data (the held indexes' checkpoints) compare revisions to find what changed.
pub fn revision(stored_at: i64, crc: u32) -> u64 {
    ((stored_at as u64) << 32) | u64::from(crc)
}

/// An ad as read back: its header and the parsed ad.
#[derive(Clone, Debug)]
pub struct StoredAd {
    /// The collection it is in.
    pub collection: String,
    /// Id, order, times.
    pub header: AdHeader,
    /// The ad.
    pub ad: ClassAd,
    /// Its record's [`revision`].
    pub revision: u64,
}

impl StoredAd {
    /// The ad's id.
    pub fn id(&self) -> &str {
        &self.header.id
    }
}

/// Encodes a format-1 ad record's payload: the header, then the already encoded ad.
pub fn ad_payload(header: &AdHeader, ad_bytes: &[u8]) -> Result<Vec<u8>, CodecError> {
    let mut out = codec::encode(header)?;
    out.extend_from_slice(ad_bytes);
    Ok(out)
}

/// Checks the frame of a format-1 ad record and decodes its header, returning the header and
/// the encoded ad that follows it.
pub fn open_header<'v>(key: &[u8], value: &'v [u8]) -> Result<(AdHeader, &'v [u8]), CodecError> {
    let mut rest = codec::unframe(key, value)?;
    let header = codec::decode_front(&mut rest)?;
    Ok((header, rest))
}

/// The value of a `catalog` entry.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CollectionEntry {
    /// The number the collection's keys use.
    pub id: CollId,
    /// The sequence number the next new ad gets.
    pub next_seq: u64,
    /// How many records the collection holds (expired ones not yet purged included).
    pub count: u64,
}

/// The value of a `tombstones` entry: an id consumed by a match.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Tombstone {
    /// When it was consumed.
    pub consumed_at: i64,
    /// Until when updates under the id are refused.
    pub until: i64,
    /// The match that consumed it, when consumed by [`record_match`](crate::AdStore::record_match).
    pub match_id: Option<u64>,
}

/// One ad taking part in a match.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchMember {
    /// Its collection.
    pub collection: String,
    /// Its id.
    pub id: String,
    /// The rank it gave this match (its `Rank` evaluated against the others), if ranked.
    pub rank: Option<Value>,
    /// True when the match consumed it (removed and tombstoned).
    pub consumed: bool,
}

/// A durable record of a match, as the registrar keeps it.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchRecord {
    /// Its id: 1, 2, … in the order matches were recorded.
    pub id: u64,
    /// When it was recorded (seconds since the epoch).
    pub time: i64,
    /// The matchmaking cycle that made it.
    pub cycle: u64,
    /// The ads matched, in the caller's order (e.g. job first, then slot).
    pub members: Vec<MatchMember>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_then_ad_round_trips() {
        let h = AdHeader {
            id: "slot1@a".into(),
            seq: 3,
            stored_at: 100,
            expires: Some(200),
            generated_id: false,
        };
        let ad_bytes = [1u8, 2, 3];
        let value = codec::frame(b"k", &ad_payload(&h, &ad_bytes).expect("payload"));
        let (h2, rest) = open_header(b"k", &value).expect("header");
        assert_eq!(h2, h);
        assert_eq!(rest, ad_bytes, "the ad's bytes follow the header untouched");
    }
}
