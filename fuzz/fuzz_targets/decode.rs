//! Fuzz target: any bytes decoded as a stored expression through the store's reader
//! (`raw::decode_expr`: read by hand, the codec reading what that leaves) give what the codec
//! alone gives: the same expression, or the same error. No panic, no hang.
#![no_main]

use adjoin_query::Expr;
use adjoin_storage::{codec, raw};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Compared by their encodings: reals bit for bit.
    let mine = raw::decode_expr(data).map(|e| codec::encode(&e).ok());
    let codec = codec::decode::<Expr>(data).map(|e| codec::encode(&e).ok());
    assert_eq!(mine, codec, "{data:?}");
});
