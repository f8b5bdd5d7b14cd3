//! A plain bitset over RIDs: the index's working sets and checkpoints.
//!
//! RIDs are dense (freed ones are reused lowest first, `rid.rs`), so a set of them is a short
//! run of words, and intersecting or subtracting two sets costs one word operation per 64
//! RIDs whatever they hold. Roaring bitmaps keep a set below 4,096 members of a 65,536-wide
//! chunk as a sorted array, whose operations cost per member: for the provisional sets of a
//! query over a few thousand to a few hundred thousand rectangles, words are an order of
//! magnitude faster. Answers leave the index as roaring bitmaps.

use crate::word_ops;
use roaring::RoaringBitmap;

/// A set of RIDs as words (bit `i` of word `i / 64` is RID `i`). Missing words are zero.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Bits {
    words: Vec<u64>,
}

impl std::fmt::Debug for Bits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl Bits {
    /// The empty set.
    pub const fn new() -> Bits {
        Bits { words: Vec::new() }
    }

    /// The set of `rids` (any order, repeats allowed).
    pub fn from_rids(rids: impl IntoIterator<Item = u32>) -> Bits {
        let mut b = Bits::new();
        for r in rids {
            b.insert(r);
        }
        b
    }

    /// The set of a roaring bitmap's members.
    pub fn from_roaring(r: &RoaringBitmap) -> Bits {
        let mut b = Bits::new();
        if let Some(max) = r.max() {
            b.words = vec![0; max as usize / 64 + 1];
            for x in r {
                b.words[x as usize / 64] |= 1 << (x % 64);
            }
        }
        b
    }

    /// The members as a roaring bitmap.
    pub fn to_roaring(&self) -> RoaringBitmap {
        let n = self.len();
        if n * 32 < self.words.len() as u64 * 64 {
            RoaringBitmap::from_sorted_iter(self.iter()).unwrap_or_default()
        } else {
            let bytes: Vec<u8> = self.words.iter().flat_map(|w| w.to_le_bytes()).collect();
            RoaringBitmap::from_lsb0_bytes(0, &bytes)
        }
    }

    /// Adds `rid`; returns whether it was new.
    #[inline]
    pub fn insert(&mut self, rid: u32) -> bool {
        let w = rid as usize / 64;
        if w >= self.words.len() {
            self.words.resize(w + 1, 0);
        }
        let bit = 1 << (rid % 64);
        let new = self.words[w] & bit == 0;
        self.words[w] |= bit;
        new
    }

    /// Removes `rid`; returns whether it was held.
    #[inline]
    pub fn remove(&mut self, rid: u32) -> bool {
        let w = rid as usize / 64;
        let Some(word) = self.words.get_mut(w) else {
            return false;
        };
        let bit = 1 << (rid % 64);
        let was = *word & bit != 0;
        *word &= !bit;
        if was && w + 1 == self.words.len() {
            self.trim();
        }
        was
    }

    /// Whether `rid` is held.
    #[inline]
    pub fn contains(&self, rid: u32) -> bool {
        self.words
            .get(rid as usize / 64)
            .is_some_and(|w| w & (1 << (rid % 64)) != 0)
    }

    /// The number of members.
    pub fn len(&self) -> u64 {
        word_ops::count(&self.words)
    }

    /// The number of members if at most `limit`, else some number above `limit` (counting
    /// stops early: a large set costs a few words).
    pub fn len_up_to(&self, limit: u64) -> u64 {
        word_ops::count_up_to(&self.words, limit)
    }

    /// Whether there is no member.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The number of words (the RID range covered, / 64).
    pub fn word_len(&self) -> usize {
        self.words.len()
    }

    /// Drops trailing zero words.
    fn trim(&mut self) {
        while self.words.last() == Some(&0) {
            self.words.pop();
        }
    }

    /// `self ∩= other`.
    pub fn and_assign(&mut self, other: &Bits) {
        self.words.truncate(other.words.len());
        word_ops::and(&mut self.words, &other.words);
        self.trim();
    }

    /// `self −= other`.
    pub fn andnot_assign(&mut self, other: &Bits) {
        word_ops::andnot(&mut self.words, &other.words);
        self.trim();
    }

    /// `self ∪= other`.
    pub fn or_assign(&mut self, other: &Bits) {
        if self.words.len() < other.words.len() {
            self.words.resize(other.words.len(), 0);
        }
        word_ops::or(&mut self.words, &other.words);
    }

    /// `self ∪= a ∩ b`.
    pub fn or_and(&mut self, a: &Bits, b: &Bits) {
        let n = a.words.len().min(b.words.len());
        if self.words.len() < n {
            self.words.resize(n, 0);
        }
        word_ops::or_and(&mut self.words, &a.words, &b.words);
        self.trim();
    }

    /// Whether `self ∩ other` has a member.
    pub fn intersects(&self, other: &Bits) -> bool {
        word_ops::intersects(&self.words, &other.words)
    }

    /// `self ∩ other`.
    pub fn and(&self, other: &Bits) -> Bits {
        let mut out = self.clone();
        out.and_assign(other);
        out
    }

    /// The greatest member.
    pub fn max(&self) -> Option<u32> {
        let (i, w) = self
            .words
            .iter()
            .enumerate()
            .rev()
            .find(|(_, w)| **w != 0)?;
        Some((i * 64) as u32 + 63 - w.leading_zeros())
    }

    /// The empty set, with room for members up to `rid` (inserting them then allocates
    /// nothing).
    pub fn with_capacity(rid: u32) -> Bits {
        Bits {
            words: Vec::with_capacity(rid as usize / 64 + 1),
        }
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.words.iter().enumerate().flat_map(|(i, &w)| {
            let base = (i * 64) as u32;
            let mut w = w;
            std::iter::from_fn(move || {
                if w == 0 {
                    return None;
                }
                let t = w.trailing_zeros();
                w &= w - 1;
                Some(base + t)
            })
        })
    }

    /// Keeps the members `keep` holds of (in place: nothing allocated).
    pub fn retain(&mut self, mut keep: impl FnMut(u32) -> bool) {
        for (i, word) in self.words.iter_mut().enumerate() {
            let base = (i * 64) as u32;
            let mut w = *word;
            while w != 0 {
                let t = w.trailing_zeros();
                w &= w - 1;
                if !keep(base + t) {
                    *word &= !(1 << t);
                }
            }
        }
        self.trim();
    }

    /// The set of `f(m)` for each member `m` (members mapped to `None` dropped), made with
    /// room for images below `hint` at once.
    pub fn mapped(&self, hint: u32, f: impl Fn(u32) -> Option<u32>) -> Bits {
        let mut words = vec![0u64; (hint as usize).div_ceil(64)];
        for (i, &w) in self.words.iter().enumerate() {
            let base = (i * 64) as u32;
            let mut w = w;
            while w != 0 {
                let m = base + w.trailing_zeros();
                w &= w - 1;
                let Some(x) = f(m) else { continue };
                let at = x as usize / 64;
                if at >= words.len() {
                    words.resize(at + 1, 0);
                }
                if let Some(word) = words.get_mut(at) {
                    *word |= 1 << (x % 64);
                }
            }
        }
        let mut out = Bits { words };
        out.trim();
        out
    }

    /// The set whose word `i` is `words[i]`.
    pub(crate) fn from_words(words: Vec<u64>) -> Bits {
        let mut out = Bits { words };
        out.trim();
        out
    }

    /// The words (bit `i` of word `i / 64` is member `i`).
    pub(crate) fn words(&self) -> &[u64] {
        &self.words
    }

    /// The members at least `by`, each less `by` (a renumbering by a constant offset: one
    /// shift per word, whatever the set holds).
    pub fn shifted_down(&self, by: u32) -> Bits {
        let (skip, bits) = (by as usize / 64, by % 64);
        let src = self.words.get(skip..).unwrap_or_default();
        let words = match bits {
            0 => src.to_vec(),
            _ => src
                .iter()
                .zip(src.iter().skip(1).chain([&0]))
                .map(|(lo, hi)| (lo >> bits) | (hi << (64 - bits)))
                .collect(),
        };
        let mut out = Bits { words };
        out.trim();
        out
    }

    /// [`Bits::shifted_down`] in place: a set that is not needed as it was (a cycle's
    /// answers renumbered to positions) keeps its words instead of allocating new ones.
    pub fn shift_down(&mut self, by: u32) {
        let (skip, bits) = (by as usize / 64, by % 64);
        self.words.drain(..skip.min(self.words.len()));
        if bits != 0 {
            // From the top down, each word taking the low bits of the one above it.
            let mut carry = 0;
            for w in self.words.iter_mut().rev() {
                let x = *w;
                *w = (x >> bits) | carry;
                carry = x << (64 - bits);
            }
        }
        self.trim();
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    fn set(b: &Bits) -> BTreeSet<u32> {
        b.iter().collect()
    }

    #[test]
    fn max_and_capacity() {
        for (rids, max) in [
            (&[][..], None),
            (&[0][..], Some(0)),
            (&[3, 63][..], Some(63)),
            (&[64][..], Some(64)),
            (&[1, 7000][..], Some(7000)),
        ] {
            let b = Bits::from_rids(rids.iter().copied());
            assert_eq!(b.max(), max, "{rids:?}");
            // A set made with room is the same set.
            let mut c = Bits::with_capacity(9000);
            rids.iter().for_each(|&r| {
                c.insert(r);
            });
            assert_eq!(c, b, "{rids:?}");
        }
        // Removing the greatest member leaves trailing zero words behind.
        let mut b = Bits::from_rids([5, 700]);
        b.remove(700);
        assert_eq!(b.max(), Some(5));
    }

    #[test]
    fn ops_table() {
        let a = Bits::from_rids([1, 5, 64, 130, 7000]);
        let b = Bits::from_rids([5, 64, 131]);
        let cases: Vec<(&str, Bits, &[u32])> = vec![
            ("and", a.and(&b), &[5, 64]),
            (
                "andnot",
                {
                    let mut x = a.clone();
                    x.andnot_assign(&b);
                    x
                },
                &[1, 130, 7000],
            ),
            (
                "or",
                {
                    let mut x = a.clone();
                    x.or_assign(&b);
                    x
                },
                &[1, 5, 64, 130, 131, 7000],
            ),
            (
                "or_and",
                {
                    let mut x = Bits::from_rids([2]);
                    x.or_and(&a, &b);
                    x
                },
                &[2, 5, 64],
            ),
        ];
        for (what, got, want) in cases {
            assert_eq!(set(&got), want.iter().copied().collect(), "{what}");
            assert_eq!(got.len(), want.len() as u64, "{what}");
            assert_eq!(got.len_up_to(100), want.len() as u64, "{what}");
            assert!(got.len_up_to(0) >= u64::from(!want.is_empty()), "{what}");
        }
        let mut c = a.clone();
        assert!(c.remove(7000) && !c.remove(7000));
        assert_eq!(c.word_len(), 3, "trailing zero words trimmed");
        assert!(Bits::new().is_empty() && !a.is_empty());
    }

    proptest! {
        #[test]
        fn roaring_round_trip(rids in prop::collection::vec(0_u32..200_000, 0..3000)) {
            let r: RoaringBitmap = rids.iter().copied().collect();
            let b = Bits::from_roaring(&r);
            prop_assert_eq!(b.to_roaring(), r.clone());
            prop_assert_eq!(Bits::from_rids(rids.iter().copied()), b.clone());
            prop_assert!(r.iter().all(|x| b.contains(x)));
            prop_assert_eq!(b.len(), r.len());
        }

        #[test]
        fn mapped_maps_each_member(
            rids in prop::collection::vec(0_u32..5_000, 0..600),
            hint in 0_u32..3_000,
        ) {
            let b = Bits::from_rids(rids.iter().copied());
            let f = |r: u32| (!r.is_multiple_of(7)).then_some(r / 2);
            let want: BTreeSet<u32> = rids.iter().filter_map(|&r| f(r)).collect();
            let got = b.mapped(hint, f);
            prop_assert_eq!(set(&got), want.clone());
            prop_assert_eq!(got, Bits::from_rids(want));
        }

        #[test]
        fn retain_keeps_what_it_is_told(rids in prop::collection::vec(0_u32..5_000, 0..600)) {
            let mut b = Bits::from_rids(rids.iter().copied());
            b.retain(|r| r % 3 == 1);
            let want = Bits::from_rids(rids.iter().copied().filter(|r| r % 3 == 1));
            prop_assert_eq!(b, want);
        }

        #[test]
        fn shifted_down_renumbers(
            rids in prop::collection::vec(0_u32..5_000, 0..600),
            by in prop_oneof![0_u32..130, 0_u32..6_000],
        ) {
            let b = Bits::from_rids(rids.iter().copied());
            let want: BTreeSet<u32> = rids.iter().filter_map(|r| r.checked_sub(by)).collect();
            let got = b.shifted_down(by);
            prop_assert_eq!(set(&got), want.clone());
            prop_assert_eq!(&got, &Bits::from_rids(want));
            let mut in_place = b;
            in_place.shift_down(by);
            prop_assert_eq!(in_place, got);
        }
    }
}
