//! Restoring a held index from its snapshot (issue 14's reopen): on 100,000 slot ads with
//! `Memory` and `OpSys` imported, the snapshot's bytes decoded and the index restored
//! (`Index::restore`: layout 2's columns, each axis built at once) against building the same
//! index from the ads (`Index::extend`: every ad converted), and the snapshot taken and encoded
//! (a checkpoint's share of the index lock).
//!
//! `cargo bench -p adjoin-workload --bench restore -- --warm-up-time 1 --measurement-time 3`
// criterion_group! defines an undocumented public function.
#![allow(missing_docs)]

use adjoin::query::{ClassAd, Key};
use adjoin_index::{AdSource, Index, IndexOptions, IndexSnapshot};
use adjoin_workload::Workload;
use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use std::sync::Arc;

const ADS: u32 = 100_000;

fn bench(c: &mut Criterion) {
    let mut w = Workload::new(5).expect("workload");
    let ads: Arc<Vec<Arc<ClassAd>>> = Arc::new(
        (0..u64::from(ADS))
            .map(|i| Arc::new(w.slot_ad(i)))
            .collect(),
    );
    let source = || Arc::clone(&ads) as Arc<dyn AdSource>;
    let built = || {
        let mut idx = Index::with_source(IndexOptions::default(), source());
        idx.extend((0..).zip(ads.iter().cloned())).expect("extend");
        idx.ensure_imported(&[Key::of("Memory"), Key::of("OpSys")]);
        idx
    };
    let index = built();
    let bytes = bincode::serialize(&index.snapshot()).expect("encode");
    let mut g = c.benchmark_group("restore");
    g.sample_size(10);
    g.bench_function("decode and restore 100k", |b| {
        b.iter_batched(
            source,
            |src| {
                let snap: IndexSnapshot = bincode::deserialize(&bytes).expect("decode");
                Index::restore(IndexOptions::default(), src, snap).expect("restore")
            },
            BatchSize::LargeInput,
        );
    });
    g.bench_function("build from the ads 100k", |b| b.iter(built));
    g.bench_function("snapshot and encode 100k", |b| {
        b.iter(|| bincode::serialize(&index.snapshot()).expect("encode"));
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
