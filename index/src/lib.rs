//! The spatial index of ClassAd matchmaking (dissertation ch. 4): ads as rectangles, one
//! interval tree per mangled dimension, roaring bitmaps of rectangle ids (RIDs), and the
//! exclusionary window query.
//!
//! The building blocks, bottom up:
//! - [`interval`]: intervals with open, closed and unbounded ends;
//! - [`mangle`]: the type-mangled key domains (numbers, strings, absolute and relative times);
//! - [`property`]: a property `attr REL constant` as mangled intervals, exact or not;
//! - [`interval_tree`]: the incremental interval tree (stabbing and overlap queries);
//! - [`points`]: sorted imported points for range scans;
//! - [`dimension`]: one attribute's trees and points, one per domain;
//! - [`maps`]: the unimported, unexported and deviant RID maps;
//! - [`rid`]: RID allocation and the universal set;
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
//! - [`query`]: Algorithm 2 in three directions, confirmation, explain;
//! - [`workload`]: the dissertation's index workload (4.6.1), for benches and tests.
//!
//! See `docs/index.md` for the design and how the dissertation's structures map to these.
#![deny(missing_docs)]

pub mod axis;
pub mod bits;
pub mod collect;
pub mod dimension;
pub mod index;
pub mod interval;
pub mod interval_tree;
pub mod join;
pub mod mangle;
pub mod maps;
pub mod points;
pub mod ports;
pub mod position;
pub mod profile;
pub mod property;
pub mod query;
pub mod ranked;
pub mod rectangle;
pub mod rid;
pub mod workload;

#[cfg(test)]
mod proptests;

pub use axis::{ExportedAxis, ImportedAxis};
pub use bits::Bits;
pub use collect::RidCollector;
pub use dimension::{DimensionPoints, DimensionTrees};
pub use index::{AdId, Index, IndexError, IndexOptions, Inserted, Stats};
pub use interval::{Bound, Interval};
pub use interval_tree::IntervalTree;
pub use join::{join, naive_join};
pub use mangle::{
    classify, classify_val, Classified, Domain, MangledValue, NumKey, OrdF64, StrKey,
};
pub use maps::{RectangleMaps, RidSets};
pub use points::PointIndex;
pub use ports::{units, Unit};
pub use position::Pos;
pub use profile::{constraint_dpf, dpf, query_dpf, Dpf, Profile, Prop};
pub use property::{property, Inconsistency, MangledInterval, Property, Relation};
pub use query::{Answer, Direction, Explain, Hit, Query, Step};
pub use ranked::Ranked;
pub use rectangle::{imp_value, rectangles, ConsistencyError, ImpValue, Rectangle, Rectangles};
pub use rid::{Rids, RidsExhausted};
pub use roaring::RoaringBitmap;
