//! Errors of the store, one enum per layer: [`StoreError`] from a backend, [`OpenError`] from
//! opening, [`AdError`] from operations on ads and matches, and [`Error`](enum@Error) to hold any of them.
//! Damage to a record is data ([`Damage`]), so `check` can list it and reads can report it.

use std::fmt;
use std::path::PathBuf;
use thiserror::Error;

/// ` (DaemonStartTime T)` for a start time, else nothing.
fn started(t: &Option<i64>) -> String {
    t.map(|t| format!(" (DaemonStartTime {t})"))
        .unwrap_or_default()
}

/// A failure of the storage backend.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Another process has the database open: e.g. `adjoin load` while an `adjoin load` on the
    /// same `--db` still runs.
    #[error("database in use: {path} is held by another process (only one process may open it at a time)")]
    InUse {
        /// The database directory.
        path: PathBuf,
    },
    /// The backend found its own files damaged or failed inside on them: e.g. bytes flipped in
    /// sled's `db` file, or a database directory truncated by a full disk.
    #[error("database files damaged ({context}): {detail}")]
    Damaged {
        /// What was being done.
        context: String,
        /// What the backend said (a caught panic's message included).
        detail: String,
    },
    /// The file system refused: e.g. `--db` names a read-only directory or a regular file.
    #[error("I/O error ({context}): {source}")]
    Io {
        /// What was being done.
        context: String,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The file system holding the database is full: a write is refused before it starts
    /// because the database's reserve could not be kept (`backend/reserve.rs`). Reads work;
    /// writes work again once space is freed.
    #[error(
        "file system full: {path} has no room for writes (reads still work; free space and retry)"
    )]
    Full {
        /// The database directory.
        path: PathBuf,
    },
    /// The backend refused the request: e.g. a database directory written with other sled
    /// settings (compression) than these.
    #[error("storage backend error ({context}): {detail}")]
    Backend {
        /// What was being done.
        context: String,
        /// What the backend said.
        detail: String,
    },
}

/// Where damage was found and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damage {
    /// The tree holding the entry.
    pub tree: String,
    /// The collection, when the key names one that the catalog knows.
    pub collection: Option<String>,
    /// The ad id (or match id), when it can be told from the key or an index.
    pub id: Option<String>,
    /// The raw key, for entries whose key says nothing more.
    pub key: Vec<u8>,
    /// What is wrong: "checksum mismatch", "undecodable record: …", "index points to no ad", ….
    pub problem: String,
}

impl fmt::Display for Damage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "tree {}", self.tree)?;
        if let Some(c) = &self.collection {
            write!(f, ", collection {c}")?;
        }
        match &self.id {
            Some(id) => write!(f, ", id {id}")?,
            None => write!(f, ", key {}", hex(&self.key))?,
        }
        write!(f, ": {}", self.problem)
    }
}

/// Lower-case hex of `bytes`, for messages.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// A failure to open a database.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum OpenError {
    /// The backend failed: e.g. the database is in use by another process.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The database was written by a newer adjoin: e.g. format 3 opened by a build that knows 1.
    #[error("database format {found} is newer than this build supports ({supported}); upgrade adjoin to open it")]
    NewerFormat {
        /// The version on disk.
        found: u32,
        /// The newest version this build reads.
        supported: u32,
    },
    /// The directory holds sled trees but no format record: e.g. a sled database of another
    /// program given as `--db`.
    #[error("not an adjoin database: {0}")]
    Foreign(String),
    /// A metadata entry (format version, counters, catalog) is damaged.
    #[error("database metadata damaged: {0}")]
    Damaged(Damage),
    /// A migration from an older format failed part-way (nothing of it was applied).
    #[error("migrating the database from format {from} failed: {detail}")]
    Migration {
        /// The version being migrated from.
        from: u32,
        /// Why.
        #[source]
        detail: MigrationError,
    },
}

/// Why a step of a format migration failed.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum MigrationError {
    /// The backend failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A transaction of the step failed.
    #[error(transparent)]
    Tx(#[from] crate::backend::TxError),
    /// A block could not be encoded.
    #[error(transparent)]
    Codec(#[from] crate::codec::CodecError),
    /// A record to migrate is damaged (the migration stops; `check` names it too).
    #[error("{0}")]
    Damaged(String),
    /// The step ran but left another version than the one it upgrades to.
    #[error("the migration left format {left}, not {wanted}")]
    WrongVersion {
        /// The version found after the step.
        left: u32,
        /// The version the step should have recorded.
        wanted: u32,
    },
    /// No step of this build upgrades the version found.
    #[error("this build has no migration from format {0}")]
    Unknown(u32),
}

/// A failure of an operation on ads, collections or matches.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum AdError {
    /// The backend failed: e.g. the disk is full during `put`.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored entry is damaged: e.g. `get` of an ad whose record had a byte flipped.
    #[error("damaged record: {0}")]
    Damaged(Damage),
    /// The id was consumed by a match and is tombstoned: e.g. a slot re-advertising under the
    /// same `Name` right after it was matched.
    #[error("ad {id} in {collection} was consumed by a match{by}; updates under this id are refused until {until} (Unix time)", by = match_id.map(|m| format!(" (match {m})")).unwrap_or_default())]
    Consumed {
        /// The collection.
        collection: String,
        /// The refused id.
        id: String,
        /// The match that consumed it, if any.
        match_id: Option<u64>,
        /// When the tombstone expires (seconds since the epoch).
        until: i64,
    },
    /// A stale update: the stored ad of this id (live, or consumed by a match) carries a
    /// later `UpdateSequenceNumber` (or `DaemonStartTime`) than the ad put, e.g. a collector
    /// update delivered out of order. The stored ad stays.
    #[error("stale update of ad {id} in {collection}: UpdateSequenceNumber {seq}{} is older than the stored ad's {stored_seq}{}", started(start), started(stored_start))]
    Stale {
        /// The collection.
        collection: String,
        /// The id.
        id: String,
        /// The refused ad's `UpdateSequenceNumber`.
        seq: i64,
        /// The refused ad's `DaemonStartTime`, if it has one.
        start: Option<i64>,
        /// The stored ad's `UpdateSequenceNumber`.
        stored_seq: i64,
        /// The stored ad's `DaemonStartTime`, if it has one.
        stored_start: Option<i64>,
    },
    /// A collection name that cannot be stored: e.g. `""` or one with a newline.
    #[error("invalid collection name {name:?}: {reason}")]
    InvalidCollection {
        /// The name given.
        name: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// An id that cannot be stored: e.g. `Name = ""`, or a 10,000-byte id.
    #[error("invalid ad id {id:?}: {reason}")]
    InvalidId {
        /// The id given or derived.
        id: String,
        /// Why it is refused.
        reason: &'static str,
    },
    /// An ad too large for one record: e.g. an ad with a 100 MB string.
    #[error("ad {id} is too large to store: {detail}")]
    TooLarge {
        /// The ad's id.
        id: String,
        /// The encoder's message.
        detail: String,
    },
    /// The expiry attribute does not give a time: e.g. `--expiry-attr Lifetime` with
    /// `Lifetime = "soon"`.
    #[error("ad {id}: expiry attribute {attr} is {value}, not a time or a number of seconds")]
    BadExpiry {
        /// The ad's id.
        id: String,
        /// The attribute.
        attr: String,
        /// What it evaluated to.
        value: String,
    },
    /// A match names an ad to consume that is not there: e.g. a slot consumed by an earlier
    /// match in the same cycle, removed, or expired.
    #[error("cannot record match: ad {id} in {collection} is not present (removed, expired or already consumed)")]
    MissingMember {
        /// The collection.
        collection: String,
        /// The id.
        id: String,
    },
    /// An all-or-nothing write refused one of its ads, so stored none: e.g. `put_all` of 100
    /// ads where the 40th has a tombstoned id.
    #[error("ad #{index} of the batch was refused, so none was stored: {reason}")]
    Refused {
        /// The 0-based position of the refused ad.
        index: usize,
        /// Why it was refused.
        reason: Box<AdError>,
    },
    /// `consume` of an ad that is not there.
    #[error("no ad {id} in {collection}")]
    NotFound {
        /// The collection.
        collection: String,
        /// The id.
        id: String,
    },
}

/// Any error of this crate.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum Error {
    /// Opening failed.
    #[error(transparent)]
    Open(#[from] OpenError),
    /// An operation failed.
    #[error(transparent)]
    Ad(#[from] AdError),
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Error {
        Error::Ad(AdError::Store(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shows(d: Damage, want: &str) {
        assert_eq!(d.to_string(), want);
    }

    #[test]
    fn damage_messages() {
        let d = |c: Option<&str>, id: Option<&str>| Damage {
            tree: "ads".into(),
            collection: c.map(Into::into),
            id: id.map(Into::into),
            key: vec![0, 1, 0xab],
            problem: "checksum mismatch".into(),
        };
        shows(
            d(Some("machines"), Some("slot1@a")),
            "tree ads, collection machines, id slot1@a: checksum mismatch",
        );
        shows(d(None, None), "tree ads, key 0001ab: checksum mismatch");
    }

    #[test]
    fn consumed_message_names_match_and_deadline() {
        let e = AdError::Consumed {
            collection: "machines".into(),
            id: "slot1@a".into(),
            match_id: Some(7),
            until: 1000,
        };
        assert_eq!(
            e.to_string(),
            "ad slot1@a in machines was consumed by a match (match 7); updates under this id are refused until 1000 (Unix time)"
        );
    }
}
