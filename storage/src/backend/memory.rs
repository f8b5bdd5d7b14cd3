//! [`MemStore`]: the in-memory implementation of [`Store`], for tests and throwaway databases.
//!
//! One `RwLock` guards every tree: readers share it, a batch or transaction holds it
//! exclusively, so readers see each commit whole. Scans copy a chunk of entries at a time and
//! resume after the last key, so a long scan never holds the lock across the caller's work.

use super::{Batch, EntryIter, KeyRange, Store, Tx, TxBody, TxError, UntilError, Write};
use crate::error::StoreError;
use parking_lot::RwLock;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

type Tree = BTreeMap<Vec<u8>, Vec<u8>>;

/// A transaction's own writes by (tree number, key); `None` for a delete.
type Overlay = HashMap<(usize, Vec<u8>), Option<Vec<u8>>>;

/// Entries copied per lock acquisition during a scan.
const SCAN_CHUNK: usize = 256;

/// A store held in memory; gone when dropped.
#[derive(Default, Clone)]
pub struct MemStore {
    trees: Arc<RwLock<HashMap<String, Tree>>>,
}

impl MemStore {
    /// An empty store.
    pub fn new() -> MemStore {
        MemStore::default()
    }
}

impl std::fmt::Debug for MemStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MemStore")
    }
}

fn apply(tree: &mut Tree, w: Write) {
    match w {
        Write::Put(k, v) => {
            tree.insert(k, v);
        }
        Write::Delete(k) => {
            tree.remove(&k);
        }
    }
}

impl Store for MemStore {
    fn describe(&self) -> String {
        "memory".into()
    }

    fn get(&self, tree: &str, key: &[u8]) -> Result<Option<Vec<u8>>, StoreError> {
        Ok(self
            .trees
            .read()
            .get(tree)
            .and_then(|t| t.get(key).cloned()))
    }

    fn put(&self, tree: &str, key: &[u8], value: &[u8]) -> Result<(), StoreError> {
        let mut trees = self.trees.write();
        trees
            .entry(tree.to_owned())
            .or_default()
            .insert(key.to_vec(), value.to_vec());
        Ok(())
    }

    fn delete(&self, tree: &str, key: &[u8]) -> Result<bool, StoreError> {
        Ok(self
            .trees
            .write()
            .get_mut(tree)
            .map(|t| t.remove(key).is_some())
            .unwrap_or(false))
    }

    fn scan(&self, tree: &str, range: KeyRange) -> Result<EntryIter<'_>, StoreError> {
        Ok(Box::new(UntilError::new(MemScan {
            store: self,
            tree: tree.to_owned(),
            range,
            buf: Vec::new().into_iter(),
            done: false,
        })))
    }

    fn batch(&self, tree: &str, batch: Batch) -> Result<(), StoreError> {
        let mut trees = self.trees.write();
        let t = trees.entry(tree.to_owned()).or_default();
        for w in batch.writes {
            apply(t, w);
        }
        Ok(())
    }

    fn transaction(&self, trees: &[&str], body: TxBody<'_>) -> Result<(), TxError> {
        let mut all = self.trees.write();
        let tx = MemTx {
            base: &all,
            names: trees,
            writes: RefCell::new(Vec::new()),
            overlay: RefCell::new(HashMap::new()),
        };
        body(&tx)?;
        let writes = tx.writes.into_inner();
        for (i, w) in writes {
            let name = trees.get(i).copied().unwrap_or_default();
            apply(all.entry(name.to_owned()).or_default(), w);
        }
        Ok(())
    }

    fn flush(&self) -> Result<(), StoreError> {
        Ok(())
    }

    fn tree_names(&self) -> Result<Vec<String>, StoreError> {
        let mut names: Vec<String> = self.trees.read().keys().cloned().collect();
        names.sort();
        Ok(names)
    }

    fn size_bytes(&self) -> Result<u64, StoreError> {
        let trees = self.trees.read();
        Ok(trees
            .values()
            .flat_map(|t| t.iter())
            .map(|(k, v)| (k.len() + v.len()) as u64)
            .sum())
    }
}

/// A transaction over the locked trees: writes are logged and mirrored in an overlay so the
/// body reads its own writes; they reach the trees only if the body succeeds.
struct MemTx<'a> {
    base: &'a HashMap<String, Tree>,
    names: &'a [&'a str],
    writes: RefCell<Vec<(usize, Write)>>,
    overlay: RefCell<Overlay>,
}

impl MemTx<'_> {
    fn check(&self, tree: usize) -> Result<&str, TxError> {
        self.names.get(tree).copied().ok_or_else(|| {
            TxError::Store(StoreError::Backend {
                context: "transaction".into(),
                detail: format!("tree number {tree} was not named when the transaction began"),
            })
        })
    }
}

impl Tx for MemTx<'_> {
    fn get(&self, tree: usize, key: &[u8]) -> Result<Option<Vec<u8>>, TxError> {
        let name = self.check(tree)?;
        if let Some(v) = self.overlay.borrow().get(&(tree, key.to_vec())) {
            return Ok(v.clone());
        }
        Ok(self.base.get(name).and_then(|t| t.get(key).cloned()))
    }

    fn put(&self, tree: usize, key: &[u8], value: &[u8]) -> Result<(), TxError> {
        self.check(tree)?;
        self.overlay
            .borrow_mut()
            .insert((tree, key.to_vec()), Some(value.to_vec()));
        self.writes
            .borrow_mut()
            .push((tree, Write::Put(key.to_vec(), value.to_vec())));
        Ok(())
    }

    fn delete(&self, tree: usize, key: &[u8]) -> Result<(), TxError> {
        self.check(tree)?;
        self.overlay.borrow_mut().insert((tree, key.to_vec()), None);
        self.writes
            .borrow_mut()
            .push((tree, Write::Delete(key.to_vec())));
        Ok(())
    }
}

/// A scan that copies [`SCAN_CHUNK`] entries per lock acquisition.
struct MemScan<'a> {
    store: &'a MemStore,
    tree: String,
    range: KeyRange,
    buf: std::vec::IntoIter<(Vec<u8>, Vec<u8>)>,
    done: bool,
}

impl Iterator for MemScan<'_> {
    type Item = Result<(Vec<u8>, Vec<u8>), StoreError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(e) = self.buf.next() {
            return Some(Ok(e));
        }
        if self.done {
            return None;
        }
        let chunk: Vec<(Vec<u8>, Vec<u8>)> = {
            let trees = self.store.trees.read();
            match trees.get(&self.tree) {
                Some(_) if self.range.is_empty() => Vec::new(),
                Some(t) => t
                    .range((self.range.start.clone(), self.range.end.clone()))
                    .take(SCAN_CHUNK)
                    .map(|(k, v)| (k.clone(), v.clone()))
                    .collect(),
                None => Vec::new(),
            }
        };
        if chunk.len() < SCAN_CHUNK {
            self.done = true;
        }
        if let Some((k, _)) = chunk.last() {
            self.range = self.range.resume_after(k);
        }
        self.buf = chunk.into_iter();
        self.buf.next().map(Ok)
    }
}
