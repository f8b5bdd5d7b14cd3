//! adjoin-storage: the durable ad store (being written).
#![deny(missing_docs)]

pub mod backend;
mod check;
pub mod codec;
pub mod error;
pub mod format;
pub mod ident;
pub mod key;
mod lifetime;
mod read;
pub mod record;
mod registrar;
mod store;
#[cfg(test)]
mod suite;
mod write;

pub use check::{CheckReport, CollectionStats, Stats};
pub use error::{AdError, Damage, Error, OpenError, StoreError};
pub use ident::{Expiry, IdRule};
pub use lifetime::Purged;
pub use read::AdScan;
pub use record::{AdHeader, MatchMember, MatchRecord, StoredAd, Tombstone};
pub use registrar::{NewMatch, NewMember};
pub use store::{system_clock, AdStore, Clock, Durability, StoreOptions};
pub use write::{LoadReport, Loader, Put, PutOptions, GENERATED_PREFIX};
