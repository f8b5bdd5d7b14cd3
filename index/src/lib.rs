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
//! - [`collect`]: turning reported RIDs into roaring bitmaps.
//!
//! See `docs/index.md` for the design and how the dissertation's structures map to these.
#![deny(missing_docs)]

pub mod collect;
pub mod dimension;
pub mod interval;
pub mod interval_tree;
pub mod mangle;
pub mod maps;
pub mod points;
pub mod profile;
pub mod property;
pub mod rid;

pub use collect::RidCollector;
pub use dimension::{DimensionPoints, DimensionTrees};
pub use interval::{Bound, Interval};
pub use interval_tree::IntervalTree;
pub use mangle::{
    classify, classify_val, Classified, Domain, MangledValue, NumKey, OrdF64, StrKey,
};
pub use maps::{RectangleMaps, RidSets};
pub use points::PointIndex;
pub use property::{property, Inconsistency, MangledInterval, Property, Relation};
pub use rid::{Rids, RidsExhausted};
pub use roaring::RoaringBitmap;
