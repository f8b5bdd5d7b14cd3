//! Gathering the RIDs a probe reports, in any order and possibly repeated, into a roaring bitmap.
//!
//! Inserting unsorted values one by one into a roaring bitmap is slow; so is sorting a large
//! answer. Small answers are sorted and appended; large ones (relative to the RID range they
//! span) are set in a plain bitset first and handed over as bytes.

use roaring::RoaringBitmap;

/// Answers with fewer RIDs than this are always sorted.
const SORT_BELOW: usize = 128;

/// Collects RIDs and turns them into a [`RoaringBitmap`].
#[derive(Clone, Debug, Default)]
pub struct RidCollector {
    rids: Vec<u32>,
}

impl RidCollector {
    /// An empty collector.
    pub fn new() -> RidCollector {
        RidCollector::default()
    }

    /// Records one RID.
    #[inline]
    pub fn push(&mut self, rid: u32) {
        self.rids.push(rid);
    }

    /// The number of RIDs recorded (repeats included).
    pub fn len(&self) -> usize {
        self.rids.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.rids.is_empty()
    }

    /// The set of the recorded RIDs.
    pub fn finish(mut self) -> RoaringBitmap {
        let n = self.rids.len();
        let (lo, hi) = match (self.rids.iter().min(), self.rids.iter().max()) {
            (Some(&lo), Some(&hi)) => (lo, hi),
            _ => return RoaringBitmap::new(),
        };
        let span = (hi - lo) as usize + 1;
        // A bitset costs ~span/64 word operations; sorting ~n·log n comparisons.
        if n < SORT_BELOW || span / 64 > n * 4 {
            self.rids.sort_unstable();
            self.rids.dedup();
            let mut b = RoaringBitmap::new();
            if b.append(self.rids.iter().copied()).is_err() {
                // Unreachable: the values are strictly increasing. Stay correct regardless.
                b.extend(self.rids.iter().copied());
            }
            return b;
        }
        let base = lo & !7; // from_lsb0_bytes is fastest at a byte-aligned offset
        let mut bytes = vec![0_u8; ((hi - base) as usize >> 3) + 1];
        for &r in &self.rids {
            let off = (r - base) as usize;
            bytes[off >> 3] |= 1 << (off & 7);
        }
        RoaringBitmap::from_lsb0_bytes(base, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn collect(rids: &[u32]) -> Vec<u32> {
        let mut c = RidCollector::new();
        for &r in rids {
            c.push(r);
        }
        c.finish().iter().collect()
    }

    #[test]
    fn collect_table() {
        let dense: Vec<u32> = (0..5000).rev().chain(0..5000).collect();
        let dense_high: Vec<u32> = (u32::MAX - 3000..=u32::MAX).rev().collect();
        let sparse: Vec<u32> = (0..300).map(|i| i * 1_000_003).rev().collect();
        let cases: Vec<(&str, Vec<u32>, Vec<u32>)> = vec![
            ("empty", vec![], vec![]),
            ("one", vec![7], vec![7]),
            ("repeats", vec![3, 1, 3, 2, 1], vec![1, 2, 3]),
            ("dense", dense, (0..5000).collect()),
            (
                "dense at the top",
                dense_high,
                (u32::MAX - 3000..=u32::MAX).collect(),
            ),
            ("sparse", sparse, (0..300).map(|i| i * 1_000_003).collect()),
        ];
        for (what, input, want) in cases {
            assert_eq!(collect(&input), want, "{what}");
        }
    }
}
