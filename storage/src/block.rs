//! Blocks: several ad records stored as one value of the `blocks` tree, so that a bulk load
//! writes one store entry per block rather than two per ad.
//!
//! A block's value is
//!
//! ```text
//! dir_crc u32 LE ‖ dir_len u32 LE ‖ directory (dir_len bytes) ‖ body ‖ body ‖ …
//! ```
//!
//! The directory is bincode `[Entry]`, one per record in sequence order: the record's header
//! (id, sequence, times, generated flag) and its body's length and CRC-32. `dir_crc` covers the
//! block's key, `dir_len` and the directory; each body's CRC covers its sequence number
//! (little-endian) and the body. So a flipped bit in a body damages that ad alone, which is
//! still named by id, and reading one ad checks the directory and that one body only.
//!
//! A body is the parsed ad as the name dictionary encodes it (`names.rs`). The `dirs` tree keeps
//! a copy of each block's head (checksum, length, directory: [`head`]), so that opening a store
//! reads the directories without the bodies.

use crate::codec::{self, CodecError};
use crate::record::AdHeader;
use serde::{Deserialize, Serialize};

/// Bytes before the directory.
const HEAD: usize = 8;

/// One record in a block's directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Entry<'a> {
    /// The ad's id.
    #[serde(borrow)]
    pub(crate) id: &'a str,
    /// Its place in load order.
    pub(crate) seq: u64,
    /// When it was stored.
    pub(crate) stored_at: i64,
    /// When it expires, if it does.
    pub(crate) expires: Option<i64>,
    /// True when the store made the id up.
    pub(crate) generated_id: bool,
    /// Bytes of its body.
    pub(crate) len: u32,
    /// CRC-32 of its sequence number and body.
    pub(crate) crc: u32,
}

impl Entry<'_> {
    /// The record's [`revision`](crate::record::revision).
    pub(crate) fn revision(&self) -> u64 {
        crate::record::revision(self.stored_at, self.crc)
    }

    /// The header this entry describes.
    pub(crate) fn header(&self) -> AdHeader {
        AdHeader {
            id: self.id.to_owned(),
            seq: self.seq,
            stored_at: self.stored_at,
            expires: self.expires,
            generated_id: self.generated_id,
        }
    }
}

/// The CRC-32 of a body stored under sequence number `seq`.
pub(crate) fn body_crc(seq: u64, body: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(&seq.to_le_bytes());
    h.update(body);
    h.finalize()
}

/// A record to be written into a block: its header, its encoded ad, and the body's CRC (kept
/// as found when a record is carried over from an old block, so that damage stays visible).
#[derive(Clone, Debug)]
pub(crate) struct Rec {
    /// Id, sequence, times.
    pub(crate) header: AdHeader,
    /// The encoded ad.
    pub(crate) body: Vec<u8>,
    /// CRC of `header.seq` and `body`.
    pub(crate) crc: u32,
}

impl Rec {
    /// The record's [`revision`](crate::record::revision).
    pub(crate) fn revision(&self) -> u64 {
        crate::record::revision(self.header.stored_at, self.crc)
    }

    /// A new record: its CRC computed.
    pub(crate) fn new(header: AdHeader, body: Vec<u8>) -> Rec {
        let crc = body_crc(header.seq, &body);
        Rec { header, body, crc }
    }
}

/// Encodes the block of `recs` (in sequence order) stored under `key`.
pub(crate) fn encode(key: &[u8], recs: &[Rec]) -> Result<Vec<u8>, CodecError> {
    let mut dir = Vec::with_capacity(recs.len());
    let mut bodies = 0usize;
    for r in recs {
        let len = u32::try_from(r.body.len())
            .map_err(|_| CodecError::Encode(format!("a body of {} bytes", r.body.len())))?;
        bodies += r.body.len();
        dir.push(Entry {
            id: &r.header.id,
            seq: r.header.seq,
            stored_at: r.header.stored_at,
            expires: r.header.expires,
            generated_id: r.header.generated_id,
            len,
            crc: r.crc,
        });
    }
    let dir = codec::encode(&dir)?;
    let dir_len = u32::try_from(dir.len())
        .map_err(|_| CodecError::Encode(format!("a directory of {} bytes", dir.len())))?;
    let total = HEAD + dir.len() + bodies;
    if total as u64 > codec::MAX_PAYLOAD {
        return Err(CodecError::Encode(format!(
            "a block of {total} bytes exceeds the limit of {}",
            codec::MAX_PAYLOAD
        )));
    }
    let mut h = crc32fast::Hasher::new();
    h.update(key);
    h.update(&dir_len.to_le_bytes());
    h.update(&dir);
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(&h.finalize().to_le_bytes());
    out.extend_from_slice(&dir_len.to_le_bytes());
    out.extend_from_slice(&dir);
    for r in recs {
        out.extend_from_slice(&r.body);
    }
    Ok(out)
}

/// The head of the encoded block `value`: its checksum, length and directory, as the `dirs`
/// tree keeps them (`None` when `value` is too short to have one).
pub(crate) fn head(value: &[u8]) -> Option<&[u8]> {
    let dir_len = u32_le(value, 4)? as usize;
    value.get(..HEAD + dir_len)
}

/// Checks and decodes the directory at the front of `value` (a block, or only its
/// [`head`]) stored under `key`, whose first sequence number is `first`. Returns the entries
/// and where the bodies start.
pub(crate) fn directory<'v>(
    key: &[u8],
    first: u64,
    value: &'v [u8],
) -> Result<(Vec<Entry<'v>>, usize), CodecError> {
    let short = || CodecError::Short(value.len());
    let stored = u32_le(value, 0).ok_or_else(short)?;
    let dir_len = u32_le(value, 4).ok_or_else(short)? as usize;
    let dir = value.get(HEAD..HEAD + dir_len).ok_or_else(short)?;
    let mut h = crc32fast::Hasher::new();
    h.update(key);
    h.update(&value[4..HEAD]);
    h.update(dir);
    let computed = h.finalize();
    if stored != computed {
        return Err(CodecError::Checksum { stored, computed });
    }
    let entries: Vec<Entry<'v>> = bincode::Options::deserialize(codec::options(), dir)
        .map_err(|e| CodecError::Decode(e.to_string()))?;
    let mut last: Option<u64> = None;
    for e in &entries {
        if e.seq < first || last.is_some_and(|l| e.seq <= l) {
            return Err(CodecError::Decode(format!(
                "record #{} is out of order in the block of #{first}",
                e.seq
            )));
        }
        last = Some(e.seq);
    }
    Ok((entries, HEAD + dir_len))
}

/// A block as read: its directory checked and decoded, its bodies located but not yet checked.
#[derive(Debug)]
pub(crate) struct View<'v> {
    entries: Vec<Entry<'v>>,
    /// Where each body starts in `value`, plus the end.
    starts: Vec<usize>,
    value: &'v [u8],
}

fn u32_le(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

impl<'v> View<'v> {
    /// Checks and decodes the directory of the block `value` stored under `key`, whose first
    /// sequence number is `first`.
    pub(crate) fn open(key: &[u8], first: u64, value: &'v [u8]) -> Result<View<'v>, CodecError> {
        let (entries, head) = directory(key, first, value)?;
        let mut starts = Vec::with_capacity(entries.len() + 1);
        let mut at = head;
        for e in &entries {
            starts.push(at);
            at += e.len as usize;
        }
        starts.push(at);
        if at != value.len() {
            return Err(CodecError::Decode(format!(
                "the directory lists {} bytes of records, the block holds {}",
                at - head,
                value.len() - head
            )));
        }
        Ok(View {
            entries,
            starts,
            value,
        })
    }

    /// The directory, in sequence order.
    pub(crate) fn entries(&self) -> &[Entry<'v>] {
        &self.entries
    }

    /// The position of the record with sequence number `seq`.
    pub(crate) fn find(&self, seq: u64) -> Option<usize> {
        self.entries.binary_search_by_key(&seq, |e| e.seq).ok()
    }

    /// The body of record `i`, unchecked.
    fn raw_body(&self, i: usize) -> &'v [u8] {
        &self.value[self.starts[i]..self.starts[i + 1]]
    }

    /// The body of record `i`, its checksum verified.
    pub(crate) fn body(&self, i: usize) -> Result<&'v [u8], CodecError> {
        let e = &self.entries[i];
        let body = self.raw_body(i);
        let computed = body_crc(e.seq, body);
        if computed != e.crc {
            return Err(CodecError::Checksum {
                stored: e.crc,
                computed,
            });
        }
        Ok(body)
    }

    /// Record `i` as it stands, to be written again (its body's checksum is carried over
    /// unchecked, so a damaged body stays detectably damaged).
    pub(crate) fn rec(&self, i: usize) -> Rec {
        let e = &self.entries[i];
        Rec {
            header: e.header(),
            body: self.raw_body(i).to_vec(),
            crc: e.crc,
        }
    }

    /// Every record, to be written again.
    pub(crate) fn recs(&self) -> Vec<Rec> {
        (0..self.entries.len()).map(|i| self.rec(i)).collect()
    }

    /// The headers and body places, owned, for reading the bodies one at a time later.
    pub(crate) fn places(&self) -> Vec<Place> {
        self.entries
            .iter()
            .enumerate()
            .map(|(i, e)| Place {
                header: e.header(),
                start: self.starts[i],
                end: self.starts[i + 1],
                crc: e.crc,
            })
            .collect()
    }
}

/// A record's header and where its body lies in its block's value ([`View::places`]).
#[derive(Clone, Debug)]
pub(crate) struct Place {
    /// Id, sequence, times.
    pub(crate) header: AdHeader,
    start: usize,
    end: usize,
    crc: u32,
}

impl Place {
    /// The record's [`revision`](crate::record::revision).
    pub(crate) fn revision(&self) -> u64 {
        crate::record::revision(self.header.stored_at, self.crc)
    }

    /// The body in `value` (the block it was found in), its checksum verified.
    pub(crate) fn body<'v>(&self, value: &'v [u8]) -> Result<&'v [u8], CodecError> {
        let body = value
            .get(self.start..self.end)
            .ok_or(CodecError::Short(value.len()))?;
        let computed = body_crc(self.header.seq, body);
        if computed != self.crc {
            return Err(CodecError::Checksum {
                stored: self.crc,
                computed,
            });
        }
        Ok(body)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(id: &str, seq: u64, body: &[u8]) -> Rec {
        let header = AdHeader {
            id: id.into(),
            seq,
            stored_at: 100,
            expires: (seq == 8).then_some(500),
            generated_id: false,
        };
        Rec::new(header, body.to_vec())
    }

    fn block() -> (Vec<u8>, Vec<u8>) {
        let key = b"key-of-block".to_vec();
        let recs = [
            rec("a", 7, b"first"),
            rec("b", 8, b""),
            rec("c", 10, b"third!"),
        ];
        let value = encode(&key, &recs).expect("encode");
        (key, value)
    }

    #[test]
    fn round_trip() {
        let (key, value) = block();
        let v = View::open(&key, 7, &value).expect("open");
        let ids: Vec<(&str, u64)> = v.entries().iter().map(|e| (e.id, e.seq)).collect();
        assert_eq!(ids, [("a", 7), ("b", 8), ("c", 10)]);
        assert_eq!(v.find(10), Some(2));
        assert_eq!(v.find(9), None);
        for (i, want) in [&b"first"[..], b"", b"third!"].iter().enumerate() {
            assert_eq!(v.body(i).expect("body"), *want);
        }
        assert_eq!(v.entries()[0].header().expires, None);
        assert_eq!(v.entries()[1].header().expires, Some(500));
        let again = encode(&key, &v.recs()).expect("re-encode");
        assert_eq!(again, value, "carrying records over changes nothing");
    }

    /// What opening `value` (or reading each body) comes to: `Ok(bodies that check)` or the
    /// directory's error.
    fn outcome(key: &[u8], first: u64, value: &[u8]) -> Result<Vec<bool>, String> {
        let v = View::open(key, first, value).map_err(|e| e.to_string())?;
        Ok((0..v.entries().len()).map(|i| v.body(i).is_ok()).collect())
    }

    #[test]
    fn damage_is_found_where_it_is() {
        let (key, value) = block();
        let flip = |at: usize| {
            let mut v = value.clone();
            v[at] ^= 0x08;
            v
        };
        let last = value.len() - 1;
        assert_eq!(outcome(&key, 7, &flip(last)), Ok(vec![true, true, false]));
        assert_eq!(
            outcome(&key, 7, &flip(last - 6)),
            Ok(vec![false, true, true])
        );
        assert!(outcome(&key, 7, &flip(9)).is_err_and(|e| e.contains("checksum")));
        assert!(outcome(&key, 7, &flip(0)).is_err_and(|e| e.contains("checksum")));
        assert!(outcome(b"other key", 7, &value).is_err_and(|e| e.contains("checksum")));
        assert!(outcome(&key, 7, &value[..last]).is_err_and(|e| e.contains("lists")));
        assert!(outcome(&key, 7, &value[..5]).is_err_and(|e| e.contains("short")));
        assert!(outcome(&key, 8, &value).is_err_and(|e| e.contains("out of order")));
    }

    #[test]
    fn the_head_alone_gives_the_directory() {
        let (key, value) = block();
        let head = head(&value).expect("head");
        let (entries, start) = directory(&key, 7, head).expect("directory");
        assert_eq!(start, head.len());
        assert_eq!(
            entries,
            View::open(&key, 7, &value).expect("open").entries()
        );
        assert!(directory(b"other key", 7, head).is_err());
        assert_eq!(super::head(&value[..6]), None);
    }

    #[test]
    fn empty_and_single_blocks() {
        let key = [0u8; 12];
        let empty = encode(&key, &[]).expect("encode");
        assert_eq!(outcome(&key, 0, &empty), Ok(vec![]));
        let one = encode(&key, &[rec("x", 3, b"body")]).expect("encode");
        assert_eq!(outcome(&key, 3, &one), Ok(vec![true]));
    }
}
