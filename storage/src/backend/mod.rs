//! The storage trait: named trees of byte keys and values, with atomic batches, serializable
//! transactions and an explicit flush. [`SledStore`] keeps them on disk; [`MemStore`] in memory.
//!
//! **Architecture invariant**: nothing above this module names sled. The ad store speaks only
//! [`Store`], so the engine could move to another embedded database by writing one more
//! implementation and running it through the conformance suite (`conformance.rs`).

mod leftovers;
mod mark;
mod memory;
mod reserve;
mod sled;

#[cfg(test)]
mod conformance;

pub use self::leftovers::Recovered;
pub use self::memory::MemStore;
pub use self::sled::{wait_released, SledOptions, SledStore};

use crate::error::StoreError;
use std::ops::Bound;

/// A key-value pair as stored.
pub type Entry = (Vec<u8>, Vec<u8>);

/// A lazily read, ascending sequence of entries. Items are results: a damaged page found
/// mid-scan is reported, not panicked on, and **ends the sequence** (an error is its last
/// item; see [`UntilError`]).
pub type EntryIter<'a> = Box<dyn Iterator<Item = Result<Entry, StoreError>> + Send + 'a>;

/// An iterator that ends after its first error. sled's iterator, once it meets a page it
/// cannot read, returns the same error on every later call: a loop that reports errors and
/// goes on would never end. Every backend's scan is wrapped in this, and readers above
/// ([`crate::ScanWith`]) end at a backend error too, whatever the backend.
pub struct UntilError<I> {
    inner: Option<I>,
}

impl<I> UntilError<I> {
    /// Wraps `inner`.
    pub fn new(inner: I) -> UntilError<I> {
        UntilError { inner: Some(inner) }
    }
}

impl<T, E, I: Iterator<Item = Result<T, E>>> Iterator for UntilError<I> {
    type Item = Result<T, E>;

    fn next(&mut self) -> Option<Self::Item> {
        let item = self.inner.as_mut()?.next();
        if !matches!(item, Some(Ok(_))) {
            self.inner = None;
        }
        item
    }
}

/// The error a transaction body hands back to its store.
pub type Abort = Box<dyn std::error::Error + Send + Sync>;

/// A range of keys: `start` inclusive, `end` as given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyRange {
    /// Lower bound.
    pub start: Bound<Vec<u8>>,
    /// Upper bound.
    pub end: Bound<Vec<u8>>,
}

impl KeyRange {
    /// Every key of the tree.
    pub fn all() -> KeyRange {
        KeyRange {
            start: Bound::Unbounded,
            end: Bound::Unbounded,
        }
    }

    /// The keys that start with `prefix`.
    pub fn prefix(prefix: &[u8]) -> KeyRange {
        KeyRange {
            start: Bound::Included(prefix.to_vec()),
            end: match prefix_successor(prefix) {
                Some(s) => Bound::Excluded(s),
                None => Bound::Unbounded,
            },
        }
    }

    /// Keys `k` with `start <= k < end`.
    pub fn between(start: Vec<u8>, end: Vec<u8>) -> KeyRange {
        KeyRange {
            start: Bound::Included(start),
            end: Bound::Excluded(end),
        }
    }

    /// Keys starting at `start` (inclusive) with the same upper bound: used to resume a scan.
    pub fn resume_after(&self, last: &[u8]) -> KeyRange {
        KeyRange {
            start: Bound::Excluded(last.to_vec()),
            end: self.end.clone(),
        }
    }

    /// True when no key can lie in the range (its start is past its end).
    pub fn is_empty(&self) -> bool {
        use Bound::*;
        match (&self.start, &self.end) {
            (Included(s), Included(e)) => s > e,
            (Included(s), Excluded(e))
            | (Excluded(s), Included(e))
            | (Excluded(s), Excluded(e)) => s >= e,
            _ => false,
        }
    }

    /// True when `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        let above = match &self.start {
            Bound::Included(s) => key >= s.as_slice(),
            Bound::Excluded(s) => key > s.as_slice(),
            Bound::Unbounded => true,
        };
        let below = match &self.end {
            Bound::Included(e) => key <= e.as_slice(),
            Bound::Excluded(e) => key < e.as_slice(),
            Bound::Unbounded => true,
        };
        above && below
    }
}

/// The smallest key greater than every key starting with `prefix` (None when there is none:
/// the prefix is empty or all `0xff`).
fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut s = prefix.to_vec();
    while let Some(last) = s.pop() {
        if last < u8::MAX {
            s.push(last + 1);
            return Some(s);
        }
    }
    None
}

/// A write of a batch: set or delete one key.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Write {
    /// Set `key` to `value`.
    Put(Vec<u8>, Vec<u8>),
    /// Delete `key` (no effect when absent).
    Delete(Vec<u8>),
}

/// Writes to one tree applied all together or not at all, also across a crash.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Batch {
    /// The writes, applied in order.
    pub writes: Vec<Write>,
}

impl Batch {
    /// Adds a put.
    pub fn put(&mut self, key: Vec<u8>, value: Vec<u8>) {
        self.writes.push(Write::Put(key, value));
    }

    /// Adds a delete.
    pub fn delete(&mut self, key: Vec<u8>) {
        self.writes.push(Write::Delete(key));
    }
}

/// Why a transaction body stopped.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TxError {
    /// Another writer touched what this transaction read; the store runs the body again.
    /// Bodies only pass this on from [`Tx`] calls.
    #[error("transaction conflict")]
    Conflict,
    /// The store failed underneath.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The body gave up with its own error; nothing it wrote is applied.
    #[error("transaction aborted: {0}")]
    Abort(Abort),
}

impl TxError {
    /// Aborts with `e`.
    pub fn abort(e: impl std::error::Error + Send + Sync + 'static) -> TxError {
        TxError::Abort(Box::new(e))
    }
}

/// The view a transaction body reads and writes through. Trees are named by their position in
/// the list given to [`Store::transaction`]. Reads see the body's own earlier writes.
pub trait Tx {
    /// The value of `key` in tree number `tree`.
    fn get(&self, tree: usize, key: &[u8]) -> Result<Option<Vec<u8>>, TxError>;
    /// Sets `key` to `value`.
    fn put(&self, tree: usize, key: &[u8], value: &[u8]) -> Result<(), TxError>;
    /// Deletes `key`.
    fn delete(&self, tree: usize, key: &[u8]) -> Result<(), TxError>;
}

/// A transaction body. It may run more than once (after a conflict), so it must not have
/// effects outside the [`Tx`] other than ones it resets at its start.
pub type TxBody<'a> = &'a dyn Fn(&dyn Tx) -> Result<(), TxError>;

/// A store of named trees. Every method is safe to call from many threads at once; readers
/// never see part of a batch or transaction.
pub trait Store: Send + Sync {
    /// What backs this store, for messages (`sled at PATH`, `memory`).
    fn describe(&self) -> String;
    /// The value of `key` in `tree`.
    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError>;
    /// Sets `key` to `value` in `tree`.
    fn put(&self, tree: &str, key: &[u8], value: &[u8]) -> Result<(), StoreError>;
    /// Deletes `key` from `tree`, returning whether it was there.
    fn delete(&self, tree: &str, key: &[u8]) -> Result<bool, StoreError>;
    /// The entries of `tree` within `range`, in ascending key order. The sequence ends at its
    /// first error ([`UntilError`]).
    fn scan(&self, tree: &str, range: KeyRange) -> Result<EntryIter<'_>, StoreError>;
    /// Applies `batch` to `tree` atomically.
    fn batch(&self, tree: &str, batch: Batch) -> Result<(), StoreError>;
    /// Runs `body` over `trees` as one serializable, atomic transaction: either every write it
    /// made is applied or none is. An [`TxError::Abort`] from the body is returned as is.
    fn transaction(&self, trees: &[&str], body: TxBody<'_>) -> Result<(), TxError>;
    /// Makes every write acknowledged so far durable.
    fn flush(&self) -> Result<(), StoreError>;
    /// The names of the trees that hold at least one entry or were ever written.
    fn tree_names(&self) -> Result<Vec<String>, StoreError>;
    /// Bytes the store occupies (on disk for sled; keys plus values in memory).
    fn size_bytes(&self) -> Result<u64, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn succ(p: &[u8], want: Option<&[u8]>) {
        assert_eq!(prefix_successor(p).as_deref(), want, "prefix {p:?}");
    }

    #[test]
    fn prefix_successors() {
        succ(b"", None);
        succ(&[0xff, 0xff], None);
        succ(&[1, 2], Some(&[1, 3]));
        succ(&[1, 0xff], Some(&[2]));
    }

    #[test]
    fn until_error_ends_at_the_first_error() {
        // A source that, like sled after a bad page, repeats its error forever.
        let forever = [Ok(1), Ok(2)]
            .into_iter()
            .chain(std::iter::repeat_with(|| Err("bad page")));
        let got: Vec<Result<i32, &str>> = UntilError::new(forever).collect();
        assert_eq!(got, vec![Ok(1), Ok(2), Err("bad page")]);
        let clean: Vec<Result<i32, &str>> = UntilError::new([Ok(1)].into_iter()).collect();
        assert_eq!(clean, vec![Ok(1)]);
    }

    #[test]
    fn range_membership() {
        let r = KeyRange::prefix(&[1, 2]);
        for (k, want) in [
            (&[1u8, 2][..], true),
            (&[1, 2, 9], true),
            (&[1, 3], false),
            (&[1], false),
        ] {
            assert_eq!(r.contains(k), want, "{k:?}");
        }
        assert!(r.resume_after(&[1, 2]).contains(&[1, 2, 0]));
        assert!(!r.resume_after(&[1, 2]).contains(&[1, 2]));
    }
}
