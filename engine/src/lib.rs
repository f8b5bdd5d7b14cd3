//! adjoin: an embedded query engine for ClassAd matchmaking.
//!
//! This crate is the facade users link: it re-exports the language ([`query`]) and the durable
//! store ([`storage`]), and offers [`Db`], the database a program opens.
//!
//! ```
//! use adjoin::{Db, LoadOptions};
//! let db = Db::open_in_memory()?; // or Db::open("pool.db")? for a database on disk
//! let text = "[Name = \"slot1\"; Memory = 2048]\n[Name = \"slot2\"; Memory = 512]\n[Memory = ]";
//! let report = db.load_text("machines", "pool.ads", text, &LoadOptions::default())?;
//! assert_eq!((report.stored.len(), report.bad[0].line), (2, 3));
//! let big: Vec<String> = db
//!     .query_str("machines", "Memory >= 1024")?
//!     .map(|a| a.map(|a| a.header.id))
//!     .collect::<Result<_, _>>()?;
//! assert_eq!(big, ["slot1"]);
//! # Ok::<(), adjoin::DbError>(())
//! ```
#![deny(missing_docs)]

pub use adjoin_query as query;

pub mod analyze;
pub mod collection;
pub mod cycle;
pub mod db;
pub(crate) mod files;
pub mod gang;
pub mod json;

pub use adjoin_index as index;
pub use adjoin_storage as storage;
pub use db::{CheckpointPolicy, Db, DbError, DbOptions, LoadOptions, LoadReport};
pub use files::BadAd;
pub mod prefer;
