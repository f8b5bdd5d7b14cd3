//! adjoin-storage: the durable ad store — named collections of ClassAds with ids, lifetimes,
//! consumption and a match registrar, on sled (or in memory), crash-safe and checksummed.
//!
//! ```
//! use adjoin_storage::backend::MemStore;
//! use adjoin_storage::{AdStore, NewMatch, NewMember, PutOptions, StoreOptions};
//! use std::sync::Arc;
//!
//! let store = AdStore::open(Arc::new(MemStore::new()), StoreOptions::default()).unwrap();
//! let slot = adjoin_query::parse::classad(r#"[Name = "slot1@host"; Memory = 2048]"#).unwrap();
//! let put = store.put("machines", &slot, &PutOptions::default()).unwrap();
//! assert_eq!(put.id, "slot1@host");
//! let ids: Vec<String> = store.scan("machines").unwrap().map(|a| a.unwrap().header.id).collect();
//! assert_eq!(ids, ["slot1@host"]);
//!
//! // A match consumes the slot: it is removed and its id tombstoned, naming the match.
//! let member = NewMember { collection: "machines".into(), id: put.id.clone(), rank: None, consume: true };
//! let m = store.record_match(&NewMatch { cycle: 1, members: vec![member] }).unwrap();
//! assert!(store.get("machines", "slot1@host").unwrap().is_none());
//! assert_eq!(store.tombstone("machines", "slot1@host").unwrap().unwrap().match_id, Some(m.id));
//! // The slot re-advertises with its new state; the match record stays.
//! let claimed = adjoin_query::parse::classad(r#"[Name = "slot1@host"; State = "Claimed"]"#).unwrap();
//! store.put("machines", &claimed, &PutOptions::default()).unwrap();
//! assert!(store.get("machines", "slot1@host").unwrap().is_some());
//! assert!(store.get_match(m.id).unwrap().is_some());
//! ```
//!
//! The on-disk layout, the invariants between trees and what is assumed of sled are in
//! `docs/storage-format.md`.
#![deny(missing_docs)]
// `unsafe` is denied everywhere but in `mapped.rs`, which maps checkpoint files and states
// its safety argument.
#![deny(unsafe_code)]

pub mod backend;
mod block;
mod check;
pub mod codec;
mod decode;
pub mod error;
#[cfg(test)]
mod faults;
pub mod format;
mod held;
mod history;
pub mod ident;
mod index;
pub mod key;
mod lifetime;
mod loader;
mod maintain;
mod mapped;
mod migrate;
mod names;
pub mod raw;
mod read;
mod readvertise;
pub mod record;
mod registrar;
mod stats;
mod store;
#[cfg(test)]
mod suite;
mod txn;
mod write;

pub use check::CheckReport;
pub use error::{AdError, Damage, Error, MigrationError, OpenError, StoreError};
pub use held::{
    difference, write_checkpoint, Change, Checkpoint, CheckpointError, CommitObserver, Committed,
    Difference, LiveAd, LiveView,
};
pub use history::{PruneReport, Retention};
pub use ident::{Expiry, IdRule};
pub use lifetime::Purged;
pub use loader::{LoadReport, Loader, PreparedAd};
pub use maintain::Maintained;
pub use raw::RawAd;
pub use read::{AdScan, Generation, ScanWith};
pub use record::{AdHeader, MatchMember, MatchRecord, StoredAd, Tombstone};
pub use registrar::{AfterRefusal, Carve, NewMatch, NewMember};
pub use stats::{CollectionStats, Stats};
pub use store::{system_clock, AdStore, Clock, Durability, StoreOptions};
pub use write::{Put, PutOptions, GENERATED_PREFIX};
