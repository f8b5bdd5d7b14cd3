//! The loops over words that a window's steps spend their time in ([`Bits`](crate::Bits)'s
//! intersections, differences, unions and counts), each compiled twice: for the baseline
//! x86-64 every build targets (two words per instruction, counts by shifts and masks) and for
//! AVX2 with `POPCNT` (four words per instruction, a count per instruction), the second chosen
//! at run time where the processor has both. At 200,000 offers a window's word operations
//! over ~4,500 words each were half the thread searching ahead of serving.
//!
//! Safety argument, for each `unsafe` call below (made by [`twice!`]): the function compiled
//! with `#[target_feature]` is called only after `is_x86_feature_detected!` said the
//! processor running it has every feature it enables, which is the whole contract of
//! `#[target_feature]`; the bodies are the same safe code (slices, no pointers). Elsewhere,
//! or on other architectures, the baseline body runs.

/// Whether the processor has AVX2 and `POPCNT` (found once by the standard library).
#[cfg(target_arch = "x86_64")]
fn wide() -> bool {
    std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("popcnt")
}

/// `fn name(args) -> ret = body;`: `name` runs `body` (a function marked
/// `#[inline(always)]`, so that it is compiled into each caller) compiled for AVX2 and
/// `POPCNT` where the processor has them, else for the baseline.
macro_rules! twice {
    ($(#[$doc:meta])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = $body:ident;) => {
        $(#[$doc])*
        #[allow(unsafe_code)]
        pub(crate) fn $name($($arg: $ty),*) $(-> $ret)? {
            #[cfg(target_arch = "x86_64")]
            if wide() {
                /// # Safety
                /// The processor must have AVX2 and POPCNT.
                #[target_feature(enable = "avx2,popcnt")]
                unsafe fn in_avx2($($arg: $ty),*) $(-> $ret)? {
                    $body($($arg),*)
                }
                // SAFETY: the processor has AVX2 and POPCNT (checked just above): the
                // module's argument.
                return unsafe { in_avx2($($arg),*) };
            }
            $body($($arg),*)
        }
    };
}

twice! {
    /// `a[i] &= b[i]` for each `i` both have.
    fn and(a: &mut [u64], b: &[u64]) = and_body;
}

twice! {
    /// `a[i] &= !b[i]` for each `i` both have.
    fn andnot(a: &mut [u64], b: &[u64]) = andnot_body;
}

twice! {
    /// `a[i] |= b[i]` for each `i` both have.
    fn or(a: &mut [u64], b: &[u64]) = or_body;
}

twice! {
    /// `s[i] |= a[i] & b[i]` for each `i` all three have.
    fn or_and(s: &mut [u64], a: &[u64], b: &[u64]) = or_and_body;
}

twice! {
    /// The number of bits set.
    fn count(a: &[u64]) -> u64 = count_body;
}

twice! {
    /// The number of bits set if at most `limit`, else some number above it (counting stops
    /// a few words past the limit).
    fn count_up_to(a: &[u64], limit: u64) -> u64 = count_up_to_body;
}

twice! {
    /// Whether `a[i] & b[i]` is not zero for some `i`.
    fn intersects(a: &[u64], b: &[u64]) -> bool = intersects_body;
}

#[inline(always)]
fn and_body(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x &= y;
    }
}

#[inline(always)]
fn andnot_body(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x &= !y;
    }
}

#[inline(always)]
fn or_body(a: &mut [u64], b: &[u64]) {
    for (x, y) in a.iter_mut().zip(b) {
        *x |= y;
    }
}

#[inline(always)]
fn or_and_body(s: &mut [u64], a: &[u64], b: &[u64]) {
    for ((z, x), y) in s.iter_mut().zip(a).zip(b) {
        *z |= x & y;
    }
}

#[inline(always)]
fn count_body(a: &[u64]) -> u64 {
    a.iter().map(|w| u64::from(w.count_ones())).sum()
}

#[inline(always)]
fn count_up_to_body(a: &[u64], limit: u64) -> u64 {
    // A block of words at a time: counted without a test per word.
    const BLOCK: usize = 16;
    let mut n = 0;
    for block in a.chunks(BLOCK) {
        n += count_body(block);
        if n > limit {
            break;
        }
    }
    n
}

#[inline(always)]
fn intersects_body(a: &[u64], b: &[u64]) -> bool {
    const BLOCK: usize = 16;
    a.chunks(BLOCK)
        .zip(b.chunks(BLOCK))
        .any(|(x, y)| x.iter().zip(y).fold(0, |m, (x, y)| m | (x & y)) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Each operation, as dispatched here, is its baseline body.
        #[test]
        fn each_operation_is_its_body(
            a in prop::collection::vec(prop_oneof![Just(0u64), any::<u64>()], 0..100),
            b in prop::collection::vec(prop_oneof![Just(0u64), any::<u64>()], 0..100),
            c in prop::collection::vec(any::<u64>(), 0..100),
            limit in 0u64..4000,
        ) {
            type Op = fn(&mut [u64], &[u64]);
            let ops: [(Op, Op); 3] = [(and, and_body), (andnot, andnot_body), (or, or_body)];
            for (op, body) in ops {
                let (mut x, mut y) = (a.clone(), a.clone());
                op(&mut x, &b);
                body(&mut y, &b);
                prop_assert_eq!(x, y);
            }
            let (mut x, mut y) = (c.clone(), c.clone());
            or_and(&mut x, &a, &b);
            or_and_body(&mut y, &a, &b);
            prop_assert_eq!(x, y);
            let n: u64 = a.iter().map(|w| u64::from(w.count_ones())).sum();
            prop_assert_eq!(count(&a), n);
            let up_to = count_up_to(&a, limit);
            let told = match n <= limit {
                true => up_to == n,
                false => up_to > limit,
            };
            prop_assert!(told, "{} of {} up to {}", up_to, n, limit);
            let meet = a.iter().zip(&b).any(|(x, y)| x & y != 0);
            prop_assert_eq!(intersects(&a, &b), meet);
        }
    }
}
