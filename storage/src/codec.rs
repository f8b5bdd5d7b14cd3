//! Value encoding: one bincode configuration for every value, and the checksummed frame around
//! it.
//!
//! A stored value is `crc32 (4 bytes, little-endian) ++ payload`, the checksum taken over the
//! entry's key and then the payload. Covering the key means a value found under the wrong key
//! is reported as damage too, not only a value with flipped bits.

use bincode::Options;
use serde::de::DeserializeOwned;
use serde::Serialize;

/// The largest payload accepted, in bytes, when encoding and when decoding.
pub const MAX_PAYLOAD: u64 = 64 << 20;

/// Bytes of the frame before the payload.
pub const FRAME: usize = 4;

/// The one bincode configuration: varint integers, little-endian, size-limited, and strict
/// about trailing bytes.
pub fn options() -> impl Options + Copy {
    bincode::DefaultOptions::new()
        .with_varint_encoding()
        .with_little_endian()
        .with_limit(MAX_PAYLOAD)
        .reject_trailing_bytes()
}

/// Why a value could not be encoded or decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodecError {
    /// Fewer bytes than the frame: e.g. a value truncated to 2 bytes.
    #[error("value too short ({0} bytes)")]
    Short(usize),
    /// The checksum does not match: e.g. one flipped bit in a record.
    #[error("checksum mismatch (stored {stored:08x}, computed {computed:08x})")]
    Checksum {
        /// The checksum in the frame.
        stored: u32,
        /// The checksum of what is there now.
        computed: u32,
    },
    /// The payload does not decode: e.g. a value written by an incompatible format.
    #[error("undecodable: {0}")]
    Decode(String),
    /// The value cannot be encoded: e.g. larger than [`MAX_PAYLOAD`].
    #[error("cannot encode: {0}")]
    Encode(String),
}

fn crc(key: &[u8], payload: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(key);
    h.update(payload);
    h.finalize()
}

/// Encodes `value` with bincode (no frame): for parts assembled into one payload.
///
/// The size limit is checked on the result rather than by bincode, whose limit check makes a
/// whole sizing pass over the value first.
pub fn encode<T: Serialize + ?Sized>(value: &T) -> Result<Vec<u8>, CodecError> {
    let bytes = options()
        .with_no_limit()
        .serialize(value)
        .map_err(|e| CodecError::Encode(e.to_string()))?;
    if bytes.len() as u64 > MAX_PAYLOAD {
        return Err(CodecError::Encode(format!(
            "{} bytes exceeds the limit of {MAX_PAYLOAD}",
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// Frames an already encoded payload stored under `key`.
pub fn frame(key: &[u8], payload: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(FRAME + payload.len());
    out.extend_from_slice(&crc(key, payload).to_le_bytes());
    out.extend_from_slice(payload);
    out
}

/// Encodes and frames `value` stored under `key`.
pub fn seal<T: Serialize + ?Sized>(key: &[u8], value: &T) -> Result<Vec<u8>, CodecError> {
    Ok(frame(key, &encode(value)?))
}

/// Checks the frame of a value stored under `key` and returns its payload.
pub fn unframe<'v>(key: &[u8], value: &'v [u8]) -> Result<&'v [u8], CodecError> {
    if value.len() < FRAME {
        return Err(CodecError::Short(value.len()));
    }
    let (head, payload) = value.split_at(FRAME);
    let stored = u32::from_le_bytes([head[0], head[1], head[2], head[3]]);
    let computed = crc(key, payload);
    if stored != computed {
        return Err(CodecError::Checksum { stored, computed });
    }
    Ok(payload)
}

/// Decodes a whole payload.
pub fn decode<T: DeserializeOwned>(payload: &[u8]) -> Result<T, CodecError> {
    options()
        .deserialize(payload)
        .map_err(|e| CodecError::Decode(e.to_string()))
}

/// Decodes one value from the front of `payload`, advancing it past what was read.
pub fn decode_front<T: DeserializeOwned>(payload: &mut &[u8]) -> Result<T, CodecError> {
    let opts = bincode::DefaultOptions::new()
        .with_varint_encoding()
        .with_little_endian()
        .with_limit(MAX_PAYLOAD)
        .allow_trailing_bytes();
    opts.deserialize_from(&mut *payload)
        .map_err(|e| CodecError::Decode(e.to_string()))
}

/// Checks the frame and decodes the whole payload of a value stored under `key`.
pub fn open<T: DeserializeOwned>(key: &[u8], value: &[u8]) -> Result<T, CodecError> {
    decode(unframe(key, value)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seal_then_open() {
        let v = (7u64, "slot1".to_owned(), Some(-3i64));
        let sealed = seal(b"key", &v).expect("seal");
        assert_eq!(open::<(u64, String, Option<i64>)>(b"key", &sealed), Ok(v));
    }

    fn damaged(key: &[u8], value: &[u8], want: fn(&CodecError) -> bool) {
        let e = open::<u64>(key, value).expect_err("must fail");
        assert!(want(&e), "{e:?}");
    }

    #[test]
    fn damage_is_found() {
        let sealed = seal(b"k", &123456789u64).expect("seal");
        let mut flipped = sealed.clone();
        *flipped.last_mut().expect("byte") ^= 0x10;
        damaged(b"k", &flipped, |e| matches!(e, CodecError::Checksum { .. }));
        damaged(b"other key", &sealed, |e| {
            matches!(e, CodecError::Checksum { .. })
        });
        damaged(b"k", &sealed[..2], |e| matches!(e, CodecError::Short(2)));
        damaged(b"k", &frame(b"k", &[0xff; 3]), |e| {
            matches!(e, CodecError::Decode(_))
        });
        damaged(b"k", &frame(b"k", &[1, 2]), |e| {
            matches!(e, CodecError::Decode(_))
        });
    }

    #[test]
    fn front_decoding_leaves_the_rest() {
        let mut bytes = encode(&(5u32, "a")).expect("encode");
        bytes.extend(encode(&9u8).expect("encode"));
        let mut rest = &bytes[..];
        let head: (u32, String) = decode_front(&mut rest).expect("head");
        assert_eq!(head, (5, "a".to_owned()));
        assert_eq!(decode::<u8>(rest), Ok(9));
    }

    #[test]
    fn size_limit_refuses_huge_values() {
        let huge = vec![0u8; (MAX_PAYLOAD + 1) as usize];
        assert!(matches!(encode(&huge), Err(CodecError::Encode(_))));
    }
}
