//! The spatial index of ClassAd matchmaking (dissertation ch. 4): ads as rectangles, one
//! index per attribute over all value types, sets of rectangle ids (RIDs), and the
//! exclusionary window query in three directions.
//!
//! The building blocks, bottom up:
//! - [`interval`]: intervals with open, closed and unbounded ends;
//! - [`mangle`]: the type-mangled key domains (numbers, strings, absolute and relative times);
//! - [`property`](mod@property): a property `attr REL constant` as mangled intervals, exact or not;
//! - [`interval_tree`]: the incremental interval tree (stabbing and overlap queries);
//! - [`points`]: sorted imported points for range scans;
//! - [`dimension`]: one attribute's trees and points, one per domain;
//! - [`maps`]: the unimported, unexported and deviant RID maps;
//! - [`rid`]: RID allocation and the universal set;
//! - [`snapshot`]: an index's converted contents as plain data, for restarts;
//! - [`collect`]: turning reported RIDs into roaring bitmaps;
//! - [`position`], [`ranked`]: all domains on one order; sorted sets with checkpointed prefix
//!   bitmaps, answering wide ranges in a few bitmap operations;
//! - [`axis`]: one attribute's exported bounds and imported values, as the index probes them.
//!
//! Conversion and querying:
//! - [`profile`]: constraints in disjunctive profile form;
//! - [`rectangle`]: profiles as rectangles, ads' values as imported points;
//! - [`ports`]: an ad's matchable units (itself, or one view per port);
//! - [`index`]: the index of one collection: insert, remove, adaptive dimensions;
//! - [`window`]: query windows in three directions (two-sided, one-sided, reverse);
//! - [`query`]: Algorithm 2, confirmation; [`answer`]: raw answers, hits, explain;
//! - [`join`](mod@join): the spatial join and the nested-loop join it must agree with;
//! - [`workload`]: the dissertation's index workload (4.6.1), for benches and tests.
//!
//! See `docs/index.md` for the design and how the dissertation's structures map to these.
//!
//! ```
//! use adjoin_index::{Index, IndexOptions, Query};
//! use adjoin_query::parse;
//! use std::sync::Arc;
//! let mut idx = Index::new(IndexOptions::default());
//! let slot = parse::classad("[Memory = 2048; Requirements = TARGET.ImageSize < 500]")?;
//! idx.insert(1, Arc::new(slot))?;
//! let job = parse::classad("[ImageSize = 100; Requirements = TARGET.Memory >= 1024]")?;
//! let q = Query::two_sided(&Arc::new(job), idx.options()).remove(0);
//! idx.prepare(&q); // adaptive dimensions: `Memory` gets its imported axis
//! let mut answer = idx.candidates(&q); // Algorithm 2: a superset of the matches
//! assert!(answer.all_exact()); // both constraints convert exactly: nothing to evaluate
//! let hits = idx.confirm(&q, &mut answer);
//! assert_eq!((hits.len(), hits[0].ad), (1, 1));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]

mod ad_words;
pub mod answer;
pub mod axis;
pub mod bits;
pub mod collect;
mod counted;
pub mod dimension;
mod few;
pub mod index;
pub mod interval;
pub mod interval_tree;
pub mod join;
pub mod mangle;
pub mod maps;
pub mod points;
pub mod port_view;
pub mod ports;
pub mod position;
pub mod profile;
pub mod property;
pub mod query;
pub mod ranked;
pub mod rectangle;
pub mod rid;
pub mod snapshot;
pub mod window;
mod word_ops;
pub mod workload;

#[cfg(test)]
mod proptests;

pub use answer::{Answer, Explain, Hit, Step};
pub use axis::{ExportedAxis, ImportedAxis};
pub use bits::Bits;
pub use collect::RidCollector;
pub use dimension::{DimensionPoints, DimensionTrees};
pub use index::{
    AdId, AdSource, Converted, Converter, Index, IndexError, IndexOptions, Inserted, Stats,
};
pub use interval::{Bound, Interval};
pub use interval_tree::IntervalTree;
pub use join::{join, naive_join};
pub use mangle::{
    classify, classify_val, Classified, Domain, MangledValue, NumKey, OrdF64, StrKey,
};
pub use maps::{RectangleMaps, RidSets};
pub use points::PointIndex;
pub use ports::{pairwise_units, units, Unit};
pub use position::Pos;
pub use profile::{constraint_dpf, dpf, query_dpf, unit_constraint_dpf, Dpf, Profile, Prop};
pub use property::{property, Inconsistency, MangledInterval, Property, Relation};
pub use ranked::Ranked;
pub use rectangle::{imp_value, rectangles, ConsistencyError, ImpValue, Rectangle, Rectangles};
pub use rid::{Rids, RidsExhausted};
pub use roaring::RoaringBitmap;
pub use snapshot::{IndexSnapshot, IndexSnapshotV1, SnapshotError};
pub use window::{accepts, satisfies, Direction, Query};
