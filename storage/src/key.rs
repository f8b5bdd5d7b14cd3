//! Key encoding: the only module that knows how the keys of each tree are laid out.
//!
//! Integers are big-endian so that byte order is numeric order; signed times are offset by
//! 2^63 so that negative times sort first. Ids are their UTF-8 bytes and come last in a key,
//! so no separator is needed. See docs/storage-format.md for the table of trees.

/// The names of the trees (sled trees; named key spaces of any [`Store`](crate::backend::Store)).
pub mod tree {
    /// Format version and counters.
    pub const META: &str = "meta";
    /// Collection name → collection entry.
    pub const CATALOG: &str = "catalog";
    /// (collection, first sequence) → block of ad records.
    pub const BLOCKS: &str = "blocks";
    /// (collection, first sequence) → the head (directory) of that block.
    pub const DIRS: &str = "dirs";
    /// (collection, id) → tombstone.
    pub const TOMBSTONES: &str = "tombstones";
    /// Match id → match record.
    pub const MATCHES: &str = "matches";
    /// Attribute-name number → name.
    pub const NAMES: &str = "names";
    /// (cycle, match id) → nothing: one cycle's matches without a scan (format 4).
    pub const MATCHES_BY_CYCLE: &str = "matches_by_cycle";
    /// (collection, ad id, match id) → nothing: one ad's matches without a scan (format 4).
    pub const MATCHES_BY_AD: &str = "matches_by_ad";
    /// Every tree of the current format, in the order docs/storage-format.md lists them.
    pub const ALL: [&str; 9] = [
        META,
        CATALOG,
        BLOCKS,
        DIRS,
        TOMBSTONES,
        MATCHES,
        NAMES,
        MATCHES_BY_CYCLE,
        MATCHES_BY_AD,
    ];

    /// Trees of format 1, read only by its migration.
    pub mod v1 {
        /// (collection, sequence) → one ad record.
        pub const ADS: &str = "ads";
        /// (collection, id) → sequence.
        pub const IDS: &str = "ids";
        /// (expiry time, collection, sequence) → nothing.
        pub const EXPIRY: &str = "expiry";
    }
}

/// Keys of the `meta` tree.
pub mod meta {
    /// The format version (`u32`).
    pub const FORMAT: &[u8] = b"format";
    /// The next collection number to assign (`u32`).
    pub const NEXT_COLLECTION: &[u8] = b"next_collection";
    /// The next generated-id counter value (`u64`).
    pub const NEXT_GENERATED: &[u8] = b"next_generated";
    /// The next match id (`u64`).
    pub const NEXT_MATCH: &[u8] = b"next_match";
    /// The next matchmaking cycle number (`u64`, format 4): taken by each durable cycle as it
    /// starts, so numbers strictly increase whether or not a cycle records anything.
    pub const NEXT_CYCLE: &[u8] = b"next_cycle";
    /// Every match id below this one has been pruned (`u64`, format 4; absent: none).
    pub const PRUNED_BELOW: &[u8] = b"pruned_below";
    /// The prefix of the per-collection generation counters.
    pub const GENERATION: &[u8] = b"generation/";

    /// The key of collection `c`'s generation: how many committed writes changed its records
    /// (`u64`).
    pub fn generation(c: super::CollId) -> Vec<u8> {
        let mut k = GENERATION.to_vec();
        k.extend_from_slice(&c.to_be_bytes());
        k
    }
}

/// The number a collection is known by inside keys.
pub type CollId = u32;

/// Maps a signed time to an unsigned value with the same order.
fn time_bits(t: i64) -> u64 {
    (t as u64) ^ (1 << 63)
}

fn time_from_bits(b: u64) -> i64 {
    (b ^ (1 << 63)) as i64
}

fn u32_at(k: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_be_bytes(k.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(k: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_be_bytes(k.get(at..at + 8)?.try_into().ok()?))
}

/// The key prefix shared by everything of collection `c` in `blocks` and `tombstones`.
pub fn collection_prefix(c: CollId) -> [u8; 4] {
    c.to_be_bytes()
}

/// `catalog` key: the collection's name.
pub fn catalog(name: &str) -> Vec<u8> {
    name.as_bytes().to_vec()
}

/// Decodes a `catalog` key.
pub fn decode_catalog(k: &[u8]) -> Option<String> {
    String::from_utf8(k.to_vec()).ok()
}

/// `blocks` key: collection then the sequence number of the block's first ad (format 1's
/// `ads` key had the same layout, with the ad's own sequence number).
pub fn block(c: CollId, seq: u64) -> [u8; 12] {
    let mut k = [0u8; 12];
    k[..4].copy_from_slice(&c.to_be_bytes());
    k[4..].copy_from_slice(&seq.to_be_bytes());
    k
}

/// Decodes a `blocks` key.
pub fn decode_block(k: &[u8]) -> Option<(CollId, u64)> {
    if k.len() != 12 {
        return None;
    }
    Some((u32_at(k, 0)?, u64_at(k, 4)?))
}

/// `tombstones` key (and format 1's `ids` key): collection then the id's bytes.
pub fn id(c: CollId, id: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(4 + id.len());
    k.extend_from_slice(&c.to_be_bytes());
    k.extend_from_slice(id.as_bytes());
    k
}

/// Decodes a `tombstones` key.
pub fn decode_id(k: &[u8]) -> Option<(CollId, String)> {
    let c = u32_at(k, 0)?;
    Some((c, String::from_utf8(k[4..].to_vec()).ok()?))
}

/// Format 1's `expiry` key: time, collection, sequence.
pub fn expiry(at: i64, c: CollId, seq: u64) -> [u8; 20] {
    let mut k = [0u8; 20];
    k[..8].copy_from_slice(&time_bits(at).to_be_bytes());
    k[8..12].copy_from_slice(&c.to_be_bytes());
    k[12..].copy_from_slice(&seq.to_be_bytes());
    k
}

/// Decodes format 1's `expiry` key.
pub fn decode_expiry(k: &[u8]) -> Option<(i64, CollId, u64)> {
    if k.len() != 20 {
        return None;
    }
    Some((time_from_bits(u64_at(k, 0)?), u32_at(k, 8)?, u64_at(k, 12)?))
}

/// `matches` key: the match id.
pub fn match_id(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// Decodes a `matches` key.
pub fn decode_match_id(k: &[u8]) -> Option<u64> {
    if k.len() != 8 {
        return None;
    }
    u64_at(k, 0)
}

/// `matches_by_cycle` key: the cycle, then the match id.
pub fn match_by_cycle(cycle: u64, id: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&cycle.to_be_bytes());
    k[8..].copy_from_slice(&id.to_be_bytes());
    k
}

/// Decodes a `matches_by_cycle` key into (cycle, match id).
pub fn decode_match_by_cycle(k: &[u8]) -> Option<(u64, u64)> {
    if k.len() != 16 {
        return None;
    }
    Some((u64_at(k, 0)?, u64_at(k, 8)?))
}

/// The prefix of `matches_by_ad` keys of ad `id` of collection `name`: the name's length (one
/// byte: names are at most 255 bytes), the name, the id, then `0xFF` (a byte UTF-8 never holds,
/// so no id's prefix is another's). Names rather than collection numbers, so that a member of a
/// collection that never stored an ad is found too.
pub fn match_by_ad_prefix(name: &str, id: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(2 + name.len() + id.len() + 8);
    k.push(u8::try_from(name.len()).unwrap_or(u8::MAX));
    k.extend_from_slice(name.as_bytes());
    k.extend_from_slice(id.as_bytes());
    k.push(0xFF);
    k
}

/// `matches_by_ad` key: [`match_by_ad_prefix`], then the match id.
pub fn match_by_ad(name: &str, id: &str, match_id: u64) -> Vec<u8> {
    let mut k = match_by_ad_prefix(name, id);
    k.extend_from_slice(&match_id.to_be_bytes());
    k
}

/// Decodes a `matches_by_ad` key into (collection, ad id, match id).
pub fn decode_match_by_ad(k: &[u8]) -> Option<(String, String, u64)> {
    let (&len, rest) = k.split_first()?;
    let name = std::str::from_utf8(rest.get(..usize::from(len))?).ok()?;
    let rest = rest.get(usize::from(len)..)?;
    let cut = rest.len().checked_sub(9)?;
    if rest.get(cut) != Some(&0xFF) {
        return None;
    }
    let id = std::str::from_utf8(&rest[..cut]).ok()?;
    Some((name.to_owned(), id.to_owned(), u64_at(rest, cut + 1)?))
}

/// `names` key: the name's number.
pub fn name_code(code: u32) -> [u8; 4] {
    code.to_be_bytes()
}

/// Decodes a `names` key.
pub fn decode_name_code(k: &[u8]) -> Option<u32> {
    if k.len() != 4 {
        return None;
    }
    u32_at(k, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        for (c, s) in [(0, 0), (1, 7), (u32::MAX, u64::MAX)] {
            assert_eq!(decode_block(&block(c, s)), Some((c, s)));
        }
        for (c, i) in [(0, ""), (3, "slot1@host"), (9, "ü#1")] {
            assert_eq!(decode_id(&id(c, i)), Some((c, i.to_owned())));
        }
        for (t, c, s) in [
            (i64::MIN, 0, 0),
            (-5, 1, 2),
            (0, 2, 3),
            (1_700_000_000, 4, 5),
            (i64::MAX, 6, 7),
        ] {
            assert_eq!(decode_expiry(&expiry(t, c, s)), Some((t, c, s)));
        }
        assert_eq!(decode_match_id(&match_id(42)), Some(42));
        assert_eq!(decode_match_by_cycle(&match_by_cycle(7, 42)), Some((7, 42)));
        for (name, id) in [("jobs", "1.0"), ("", ""), ("m", "slot1@a\u{e9}")] {
            let k = match_by_ad(name, id, 9);
            assert!(k.starts_with(&match_by_ad_prefix(name, id)));
            assert_eq!(decode_match_by_ad(&k), Some((name.into(), id.into(), 9)));
        }
        // No ad's prefix is another's (`a` of `j` against `ab` of `j`).
        assert!(!match_by_ad("j", "ab", 1).starts_with(&match_by_ad_prefix("j", "a")));
        assert_eq!(decode_name_code(&name_code(9)), Some(9));
        assert_eq!(decode_catalog(&catalog("jobs")).as_deref(), Some("jobs"));
    }

    #[test]
    fn order_follows_numbers() {
        assert!(block(1, 255) < block(1, 256));
        assert!(block(1, u64::MAX) < block(2, 0));
        assert!(expiry(-1, 9, 9) < expiry(0, 0, 0));
    }

    #[test]
    fn malformed_keys_decode_to_none() {
        assert_eq!(decode_block(&[1, 2, 3]), None);
        assert_eq!(decode_id(&[0, 0]), None);
        assert_eq!(decode_id(&[0, 0, 0, 1, 0xff]), None, "not UTF-8");
        assert_eq!(decode_expiry(&[0; 19]), None);
        assert_eq!(decode_match_id(&[0; 9]), None);
        assert_eq!(decode_match_by_cycle(&[0; 15]), None);
        assert_eq!(decode_match_by_ad(&[3, b'a']), None);
        assert_eq!(decode_match_by_ad(&[0, 0xFE, 0, 0, 0, 0, 0, 0, 0, 0]), None);
    }
}
