//! adjoin: an embedded query engine for ClassAd matchmaking.
//!
//! This crate is the facade users link: it re-exports the language ([`query`]) and, as they
//! land, the durable store and the matchmaking operations.
#![deny(missing_docs)]

pub use adjoin_query as query;

pub mod db;
pub mod load;
pub mod workload;

pub use adjoin_storage as storage;
pub use db::{Db, DbError, DbOptions, LoadOptions, LoadReport};
