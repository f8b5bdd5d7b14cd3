//! The spatial index's building blocks on 100,000 entries: interval-tree stabbing and overlap
//! queries against a linear scan of the same entries, the points map's range query, incremental
//! insert + remove, and a bulk build. Answers are roaring bitmaps built the same way on both
//! sides (`RidCollector`), so the ratio measures the search alone.
//!
//! Workloads (numeric keys, as the dissertation's workload of 4.6.1 uses):
//! - `narrow`: intervals `[a, a + w]`, `a` uniform in 0..1,000,000, `w` in 0..=100, both ends of
//!   random kinds (about 10 hits per stab);
//! - `one_sided`: the workload's constraints, `x <= c` or `x >= c` with `c` uniform in 0..N
//!   (about N/2 hits per stab: the answer dominates);
//! - `points`: 100,000 imported values, domain 0..1,000,000, windows of width 1,000;
//! - `ads_of`: the raw answers of 64 heterogeneous requests over 20,000 heterogeneous offers
//!   (many of two rectangles) mapped from RIDs onto offers, a word at a time
//!   (`Index::ads_of`) against a member at a time.
//!
//! Run: `cargo bench -p adjoin-workload --bench index_structures -- --warm-up-time 1 --measurement-time 3`

// criterion_group! and criterion_main! generate undocumented functions.
#![allow(missing_docs)]

use adjoin_index::{Bound, Interval, IntervalTree, NumKey, PointIndex, RidCollector};
use criterion::{black_box, criterion_group, criterion_main, Criterion};

const N: usize = 100_000;
const QUERIES: usize = 1024;

/// xorshift64*: a deterministic stream, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> i64 {
        (self.next() % n) as i64
    }
}

fn key(i: i64) -> NumKey {
    NumKey::from_int(i)
}

fn end(rng: &mut Rng, k: i64) -> Bound<NumKey> {
    if rng.next() & 1 == 0 {
        Bound::Included(key(k))
    } else {
        Bound::Excluded(key(k))
    }
}

fn narrow(rng: &mut Rng) -> Vec<(Interval<NumKey>, u32)> {
    (0..N as u32)
        .map(|rid| {
            let a = rng.below(1_000_000);
            let w = rng.below(101);
            let lo = end(rng, a);
            let hi = end(rng, a + w.max(1));
            (Interval::new(lo, hi), rid)
        })
        .collect()
}

fn one_sided(rng: &mut Rng) -> Vec<(Interval<NumKey>, u32)> {
    (0..N as u32)
        .map(|rid| {
            let c = key(rng.below(N as u64));
            let iv = if rng.next() & 1 == 0 {
                Interval::at_most(c)
            } else {
                Interval::at_least(c)
            };
            (iv, rid)
        })
        .collect()
}

fn scan_stab(entries: &[(Interval<NumKey>, u32)], k: &NumKey) -> adjoin_index::RoaringBitmap {
    let mut c = RidCollector::new();
    for (iv, rid) in entries {
        if iv.contains(k) {
            c.push(*rid);
        }
    }
    c.finish()
}

fn scan_overlap(
    entries: &[(Interval<NumKey>, u32)],
    w: &Interval<NumKey>,
) -> adjoin_index::RoaringBitmap {
    let mut c = RidCollector::new();
    for (iv, rid) in entries {
        if iv.overlaps(w) {
            c.push(*rid);
        }
    }
    c.finish()
}

fn stabbing(c: &mut Criterion, name: &str, entries: Vec<(Interval<NumKey>, u32)>, domain: u64) {
    let tree = IntervalTree::from_entries(entries.clone());
    let mut rng = Rng(7);
    let points: Vec<NumKey> = (0..QUERIES).map(|_| key(rng.below(domain))).collect();
    for p in &points[..16] {
        assert_eq!(tree.stab(p), scan_stab(&entries, p));
    }
    let hits: u64 = points.iter().map(|p| tree.stab(p).len()).sum();
    println!(
        "{name}: {} hits per stab on average; cached subtree bitmaps {} KiB, height {}",
        hits / QUERIES as u64,
        tree.cache_bytes() / 1024,
        tree.height()
    );
    let mut g = c.benchmark_group(format!("stab/{name}"));
    let mut i = 0;
    g.bench_function("tree", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            tree.stab(black_box(&points[i]))
        })
    });
    g.bench_function("tree_count_only", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            let mut n = 0_u32;
            tree.stab_with(black_box(&points[i]), |_| n += 1);
            n
        })
    });
    g.bench_function("scan", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            scan_stab(&entries, black_box(&points[i]))
        })
    });
    g.finish();
}

fn bench(c: &mut Criterion) {
    let mut rng = Rng(0x1234_5678);
    let narrow_entries = narrow(&mut rng);
    stabbing(c, "narrow_100k", narrow_entries.clone(), 1_000_000);
    stabbing(c, "one_sided_100k", one_sided(&mut rng), N as u64);

    // Overlap: windows of width 1,000 over the narrow intervals.
    let tree = IntervalTree::from_entries(narrow_entries.clone());
    let windows: Vec<Interval<NumKey>> = (0..QUERIES)
        .map(|_| {
            let a = rng.below(1_000_000);
            Interval::new(end(&mut rng, a), end(&mut rng, a + 1000))
        })
        .collect();
    for w in &windows[..16] {
        assert_eq!(tree.overlap(w), scan_overlap(&narrow_entries, w));
    }
    let mut g = c.benchmark_group("overlap/narrow_100k_w1000");
    let mut i = 0;
    g.bench_function("tree", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            tree.overlap(black_box(&windows[i]))
        })
    });
    g.bench_function("scan", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            scan_overlap(&narrow_entries, black_box(&windows[i]))
        })
    });
    g.finish();

    // The points map: imported values, one-sided and windowed queries.
    let values: Vec<(NumKey, u32)> = (0..N as u32)
        .map(|r| (key(rng.below(1_000_000)), r))
        .collect();
    let mut points = PointIndex::new();
    for (k, r) in &values {
        points.insert(*k, *r);
    }
    let mut g = c.benchmark_group("points/range_100k_w1000");
    g.bench_function("points", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            points.range(black_box(&windows[i]))
        })
    });
    g.bench_function("scan", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            let mut c = RidCollector::new();
            for (k, r) in &values {
                if windows[i].contains(k) {
                    c.push(*r);
                }
            }
            c.finish()
        })
    });
    g.finish();

    // Incremental upkeep and bulk build.
    let mut tree = IntervalTree::from_entries(narrow_entries.clone());
    let mut g = c.benchmark_group("update/narrow_100k");
    g.bench_function("insert_remove", |b| {
        b.iter(|| {
            i = (i + 1) % QUERIES;
            let iv = windows[i].clone();
            tree.insert(iv.clone(), u32::MAX - 1);
            tree.remove(&iv, u32::MAX - 1)
        })
    });
    g.sample_size(10);
    g.bench_function("bulk_build", |b| {
        b.iter(|| IntervalTree::from_entries(black_box(narrow_entries.clone())))
    });
    g.bench_function("insert_one_by_one", |b| {
        b.iter(|| {
            let mut t = IntervalTree::new();
            for (iv, r) in &narrow_entries {
                t.insert(iv.clone(), *r);
            }
            t
        })
    });
    g.finish();
}

/// RID sets onto ads: a word at a time against a member at a time.
fn ads_of(c: &mut Criterion) {
    let mut h = adjoin_workload::hetero::Heterogeneous::new(11);
    let mut idx = adjoin_index::Index::default();
    for n in 0..20_000u32 {
        let Ok(ad) = h.offer(u64::from(n)) else {
            continue;
        };
        if idx.insert(n, std::sync::Arc::new(ad)).is_err() {
            return;
        }
    }
    let opts = idx.options().clone();
    let answers: Vec<adjoin_index::Bits> = (0..64u64)
        .filter_map(|n| h.request(n).ok())
        .flat_map(|r| adjoin_index::Query::two_sided(&std::sync::Arc::new(r), &opts))
        .map(|q| {
            idx.prepare(&q);
            idx.candidates(&q).rids
        })
        .collect();
    let mut g = c.benchmark_group("ads_of/hetero_20k");
    g.bench_function("words", |b| {
        b.iter(|| {
            answers
                .iter()
                .map(|a| idx.ads_of(black_box(a)).len())
                .sum::<u64>()
        })
    });
    g.bench_function("members", |b| {
        b.iter(|| {
            answers
                .iter()
                .map(|a| {
                    adjoin_index::Bits::from_rids(
                        black_box(a)
                            .iter()
                            .filter_map(|r| idx.owner(r))
                            .map(|(ad, _)| ad),
                    )
                    .len()
                })
                .sum::<u64>()
        })
    });
    g.finish();
}

criterion_group!(benches, bench, ads_of);
criterion_main!(benches);
