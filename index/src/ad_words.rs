//! Sets of RIDs turned into sets of ads a word at a time.
//!
//! An answer is a set of RIDs; its candidates are their ads. Mapping member by member looks up
//! each RID's owner: at hundreds of thousands of offers that is most of a window's cost. But
//! RIDs are allocated in the order ads are indexed, an ad's rectangles one after the other, so
//! within 64 RIDs the ads usually follow one another: each run of one ad's RIDs collapses onto
//! its first (an OR along the run), the runs' firsts are compressed together (the bits of a
//! fixed mask gathered, in six shift steps with masks found once: Hacker's Delight, 7-4), and
//! the result is the ads from the word's first one on, ORed in at that offset. A word whose
//! ads do not follow one another (RIDs reused after removals, ads indexed out of order) is
//! mapped member by member, as are words with few members.
//!
//! The words are found once per layout of RIDs ([`AdWords::new`]); the index forgets them
//! whenever a RID is allocated or released.
//!
//! Where the processor has a fast BMI2, the gather is its one instruction, `PEXT` (at 200,000
//! offers the six-step gather was a third of mapping a window's answer); not on AMD processors
//! before Zen 3, whose `PEXT` is microcoded (hundreds of cycles for a dense mask). Safety
//! argument (the crate's other use of `unsafe` is `word_ops.rs`, on the same grounds): the
//! loop compiled for BMI2 runs only after `is_x86_feature_detected!("bmi2")` said the
//! processor running it has BMI2, which is the whole contract of `#[target_feature]`; nothing
//! else is unsafe (no pointers, no memory).

use crate::bits::Bits;

/// Members of a word at most this many are mapped one by one (cheaper than compressing).
const FEW: u32 = 0;

/// How one word of 64 RIDs maps onto ads (24 bytes: a window's mapping reads one per word of
/// its answer, so the compression masks of the portable gather are kept apart).
#[derive(Clone, Copy, Debug, Default)]
struct Word {
    /// The first RID of each run of one ad's RIDs (the lowest live one always counts as a
    /// first, its run possibly begun in the word before).
    firsts: u64,
    /// RIDs followed, in the word, by another RID of the same ad.
    cont: u64,
    /// The ad of the word's lowest live RID; [`ONE_BY_ONE`] when the word's runs are not
    /// of consecutive ads.
    ad: u32,
    /// The longest run in the word, less one: the OR steps that collapse every run.
    steps: u8,
}

/// The word is mapped member by member.
const ONE_BY_ONE: u32 = u32::MAX;

/// How every word of RIDs maps onto ads.
#[derive(Clone, Debug, Default)]
pub(crate) struct AdWords {
    words: Vec<Word>,
    /// The compression masks of each word's `firsts` ([`moves`]), for the portable gather;
    /// empty where `PEXT` gathers.
    moves: Vec<[u64; 6]>,
}

impl AdWords {
    /// The words of RIDs owned as `ad_of` says (`None`: a free RID), for RIDs below `len`.
    pub(crate) fn new(len: usize, ad_of: impl Fn(u32) -> Option<u32>) -> AdWords {
        let words = (0..len.div_ceil(64))
            .map(|i| {
                let base = (i * 64) as u32;
                let ads: Vec<Option<u32>> = (0..64u32).map(|b| ad_of(base + b)).collect();
                word(&ads)
            })
            .collect::<Vec<Word>>();
        let moves = match pext() {
            true => Vec::new(),
            false => words.iter().map(|d| moves(d.firsts)).collect(),
        };
        AdWords { words, moves }
    }

    /// The compression masks of word `i` (`d`): made once; where `PEXT` gathers (none made),
    /// made now, for the tests of the portable gather only.
    fn moves_of(&self, i: usize, d: &Word) -> [u64; 6] {
        self.moves
            .get(i)
            .copied()
            .unwrap_or_else(|| moves(d.firsts))
    }

    /// The ads of `rids`, in a set with room for ads below `hint` at once; `ad_of` maps the
    /// members of words that are not compressed.
    pub(crate) fn ads(&self, rids: &Bits, hint: u32, ad_of: impl Fn(u32) -> Option<u32>) -> Bits {
        let words = rids.words();
        let [ads] = self.ads_of(words.len(), |i| [at(words, i)], hint, ad_of);
        ads
    }

    /// The ads of the RIDs in `exact`, and those of the other RIDs of `rids`: [`AdWords::ads`]
    /// of each, in one pass over the words (an answer's exact RIDs are among its raw ones, so
    /// the first are the ads of `exact`, the second those of `rids` less `exact`).
    pub(crate) fn ads_split(
        &self,
        rids: &Bits,
        exact: &Bits,
        hint: u32,
        ad_of: impl Fn(u32) -> Option<u32>,
    ) -> [Bits; 2] {
        let (all, exact) = (rids.words(), exact.words());
        let len = all.len().max(exact.len());
        let split = |i| {
            let e = at(exact, i);
            [e, at(all, i) & !e]
        };
        self.ads_of(len, split, hint, ad_of)
    }

    /// The ads of `N` sets of RIDs, word `i` of each given by `words(i)` for `i` below `len`.
    #[allow(unsafe_code)]
    fn ads_of<const N: usize>(
        &self,
        len: usize,
        words: impl Fn(usize) -> [u64; N],
        hint: u32,
        ad_of: impl Fn(u32) -> Option<u32>,
    ) -> [Bits; N] {
        #[cfg(target_arch = "x86_64")]
        if fast_pext() {
            // SAFETY: the processor has BMI2 (checked just above): the module's argument.
            return unsafe { self.ads_bmi2(len, words, hint, ad_of) };
        }
        self.ads_with(len, words, hint, ad_of, |x, i, d| {
            compress(x, &self.moves_of(i, d))
        })
    }

    /// [`AdWords::ads_of`] compiled for BMI2, gathering with `PEXT`.
    ///
    /// # Safety
    /// The processor must have BMI2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "bmi2")]
    #[allow(unsafe_code)]
    unsafe fn ads_bmi2<const N: usize>(
        &self,
        len: usize,
        words: impl Fn(usize) -> [u64; N],
        hint: u32,
        ad_of: impl Fn(u32) -> Option<u32>,
    ) -> [Bits; N] {
        self.ads_with(len, words, hint, ad_of, |x, _, d| {
            std::arch::x86_64::_pext_u64(x, d.firsts)
        })
    }

    /// [`AdWords::ads_of`] with `gather(x, i, word)`: the bits of `x` (within word `i`'s run
    /// starts) gathered at the bottom in order.
    #[inline(always)]
    fn ads_with<const N: usize>(
        &self,
        len: usize,
        words: impl Fn(usize) -> [u64; N],
        hint: u32,
        ad_of: impl Fn(u32) -> Option<u32>,
        gather: impl Fn(u64, usize, &Word) -> u64,
    ) -> [Bits; N] {
        let mut outs: [Vec<u64>; N] =
            std::array::from_fn(|_| vec![0u64; (hint as usize).div_ceil(64)]);
        let set = |out: &mut Vec<u64>, at: usize, bits: u64| {
            if bits == 0 {
                return;
            }
            if at >= out.len() {
                out.resize(at + 1, 0);
            }
            if let Some(w) = out.get_mut(at) {
                *w |= bits;
            }
        };
        for i in 0..len {
            let ws = words(i);
            if ws.iter().all(|&w| w == 0) {
                continue;
            }
            let d = self.words.get(i).filter(|d| d.ad != ONE_BY_ONE);
            for (out, w) in outs.iter_mut().zip(ws) {
                if w == 0 {
                    continue;
                }
                match d {
                    Some(d) if w.count_ones() > FEW => {
                        let mut c = w;
                        for _ in 0..d.steps {
                            c |= (c >> 1) & d.cont;
                        }
                        let x = gather(c & d.firsts, i, d);
                        let (at, shift) = (d.ad as usize / 64, d.ad % 64);
                        set(out, at, x << shift);
                        if shift > 0 {
                            set(out, at + 1, x >> (64 - shift));
                        }
                    }
                    _ => {
                        let base = (i * 64) as u32;
                        let mut w = w;
                        while w != 0 {
                            let rid = base + w.trailing_zeros();
                            w &= w - 1;
                            if let Some(a) = ad_of(rid) {
                                set(out, a as usize / 64, 1 << (a % 64));
                            }
                        }
                    }
                }
            }
        }
        outs.map(Bits::from_words)
    }
}

/// Word `i` of `words`, 0 past their end.
#[inline(always)]
fn at(words: &[u64], i: usize) -> u64 {
    words.get(i).copied().unwrap_or(0)
}

/// Whether [`AdWords::ads`] gathers with `PEXT` ([`fast_pext`]).
fn pext() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        fast_pext()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Whether `PEXT` is there and fast: the processor has BMI2 and is not an AMD one before Zen 3
/// (family 0x19). Found once.
#[cfg(target_arch = "x86_64")]
fn fast_pext() -> bool {
    static FAST: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *FAST.get_or_init(|| {
        use std::arch::x86_64::__cpuid;
        if !std::is_x86_feature_detected!("bmi2") {
            return false;
        }
        let vendor = __cpuid(0);
        let amd = (vendor.ebx, vendor.edx, vendor.ecx) == (0x6874_7541, 0x6974_6e65, 0x444d_4163);
        let eax = __cpuid(1).eax;
        let base = (eax >> 8) & 0xf;
        let family = match base {
            0xf => base + ((eax >> 20) & 0xff),
            _ => base,
        };
        !amd || family >= 0x19
    })
}

/// The word of 64 RIDs owned by `ads`.
fn word(ads: &[Option<u32>]) -> Word {
    let one_by_one = Word {
        ad: ONE_BY_ONE,
        ..Word::default()
    };
    let mut d = one_by_one;
    let (mut next, mut run, mut longest) = (None::<u32>, 0u32, 0u32);
    let mut prev: Option<u32> = None;
    for (b, a) in ads.iter().enumerate() {
        let Some(a) = *a else {
            prev = None;
            continue;
        };
        if prev == Some(a) {
            d.cont |= 1 << (b - 1);
            run += 1;
        } else {
            // A new run: of the ad after the last run's, or of the word's first ad.
            match next {
                None => d.ad = a,
                Some(n) if n == a => {}
                Some(_) => return one_by_one,
            }
            d.firsts |= 1 << b;
            next = a.checked_add(1);
            if next.is_none() {
                return one_by_one;
            }
            run = 1;
        }
        longest = longest.max(run);
        prev = Some(a);
    }
    d.steps = longest.saturating_sub(1) as u8;
    d
}

/// The masks compressing the bits of `m` ([`compress`]; Hacker's Delight, 7-4).
fn moves(mut m: u64) -> [u64; 6] {
    let mut out = [0u64; 6];
    let mut mk = !m << 1;
    for (i, slot) in out.iter_mut().enumerate() {
        let mut mp = mk ^ (mk << 1);
        mp ^= mp << 2;
        mp ^= mp << 4;
        mp ^= mp << 8;
        mp ^= mp << 16;
        mp ^= mp << 32;
        let mv = mp & m;
        *slot = mv;
        m = (m ^ mv) | (mv >> (1 << i));
        mk &= !mp;
    }
    out
}

/// The bits of `x` under the mask `moves` was found for, gathered at the bottom in order
/// (`x` already within the mask).
fn compress(mut x: u64, moves: &[u64; 6]) -> u64 {
    for (i, &mv) in moves.iter().enumerate() {
        let t = x & mv;
        x = (x ^ t) | (t >> (1 << i));
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn gathered(x: u64, m: u64) -> u64 {
        let (mut out, mut j) = (0u64, 0);
        for b in 0..64 {
            if m >> b & 1 == 1 {
                out |= (x >> b & 1) << j;
                j += 1;
            }
        }
        out
    }

    #[test]
    fn compress_table() {
        for (x, m) in [
            (0u64, 0u64),
            (u64::MAX, u64::MAX),
            (u64::MAX, 0b1010),
            (0b1000, 0b1010),
            (0x8000_0000_0000_0001, 0x8000_0000_0000_0001),
            (0xdead_beef_0123_4567, 0xf0f0_0f0f_ff00_00ff),
        ] {
            assert_eq!(compress(x & m, &moves(m)), gathered(x, m), "{x:x} {m:x}");
        }
    }

    /// A layout of RIDs: each ad's number of rectangles (0: none), in ad order from `first`,
    /// with some RIDs freed and a few ads swapped.
    fn layout(rects: &[u8], freed: &[usize], swaps: &[usize], first: u32) -> Vec<Option<u32>> {
        let mut owners: Vec<Option<u32>> = (first..)
            .zip(rects)
            .flat_map(|(a, &n)| std::iter::repeat_n(Some(a), n as usize))
            .collect();
        for &f in freed {
            if let Some(o) = owners.get_mut(f) {
                *o = None;
            }
        }
        for &s in swaps {
            if s + 1 < owners.len() {
                owners.swap(s, s + 1);
            }
        }
        owners
    }

    proptest! {
        #[test]
        fn compress_gathers_the_masked_bits(x: u64, m: u64) {
            prop_assert_eq!(compress(x & m, &moves(m)), gathered(x, m));
        }

        #[test]
        fn word_maps_are_member_maps(
            rects in prop::collection::vec(prop_oneof![6 => Just(1u8), 2 => 0u8..4], 0..400),
            freed in prop::collection::vec(0usize..600, 0..6),
            swaps in prop::collection::vec(0usize..600, 0..3),
            first in prop_oneof![Just(0u32), 0u32..200, 1_000u32..1_100],
            members in prop::collection::vec(0u32..700, 0..500),
            dense in any::<bool>(),
        ) {
            let owners = layout(&rects, &freed, &swaps, first);
            let ad_of = |r: u32| owners.get(r as usize).copied().flatten();
            let words = AdWords::new(owners.len(), ad_of);
            let rids = match dense {
                true => Bits::from_rids((0..owners.len() as u32).filter(|r| !members.contains(r))),
                false => Bits::from_rids(members.iter().copied()),
            };
            let want: BTreeSet<u32> = rids.iter().filter_map(ad_of).collect();
            let hint = want.last().map_or(0, |a| a.saturating_add(1));
            let got = words.ads(&rids, hint, ad_of);
            prop_assert_eq!(got.iter().collect::<BTreeSet<u32>>(), want.clone());
            // The portable gather too, wherever `ads` ran with `PEXT`.
            let w = rids.words();
            let one = |i| [at(w, i)];
            let [portable] = words.ads_with(w.len(), one, hint, ad_of, |x, i, d| {
                compress(x, &words.moves_of(i, d))
            });
            prop_assert_eq!(&portable, &got);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("bmi2") {
                // SAFETY: the processor has BMI2 (checked just above).
                #[allow(unsafe_code)]
                let [pext] = unsafe { words.ads_bmi2(w.len(), one, hint, ad_of) };
                prop_assert_eq!(&pext, &got);
            }
            // Split by a second set, as an answer's exact candidates split it.
            let exact = Bits::from_rids(members.iter().copied().filter(|r| r % 3 != 0));
            let mut rest = rids.clone();
            rest.andnot_assign(&exact);
            let [sure, others] = words.ads_split(&rids, &exact, hint, ad_of);
            prop_assert_eq!(&sure, &words.ads(&exact, hint, ad_of));
            prop_assert_eq!(&others, &words.ads(&rest, hint, ad_of));
            prop_assert_eq!(got, Bits::from_rids(want));
        }
    }
}
