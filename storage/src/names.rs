//! The attribute-name dictionary: each distinct attribute name (as written, case kept) gets a
//! small number once, in the `names` tree, and records store `(number, expression)` pairs
//! instead of repeating every name's text in every ad. Records are about half as large, and
//! reading one maps numbers to interned names without hashing their text.
//!
//! **Invariant**: numbers are dense, `0..n`, and a name's entry is written before any record
//! that uses its number (a separate, earlier write; on sled, whose recovery keeps a prefix of
//! its log, a recovered record therefore always finds its names).

use crate::backend::{KeyRange, Store};
use crate::codec::{self, CodecError};
use crate::error::{AdError, OpenError};
use crate::key::{self, tree};
use crate::store::damage;
use adjoin_query::{ClassAd, Expr, Name};
use parking_lot::{Mutex, RwLock};
use std::collections::HashMap;

/// The address of a name's interned spelling: `adjoin-query` keeps one `&'static str` per
/// spelling for the life of the process, so equal addresses mean equal spellings, and the
/// address is a cheaper key than the text.
fn spelling_key(n: Name) -> usize {
    n.as_str().as_ptr() as usize
}

/// Hashes the spelling addresses of [`Table::codes`] (multiplicative; addresses are not chosen
/// by input, so there is nothing to defend against).
#[derive(Default)]
struct AddrHasher(u64);

impl std::hash::Hasher for AddrHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.0 = (n as u64)
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .rotate_left(26);
    }
}

/// Names by number and numbers by spelling (its address, [`spelling_key`]).
#[derive(Default)]
struct Table {
    codes: HashMap<usize, u32, std::hash::BuildHasherDefault<AddrHasher>>,
    names: Vec<Name>,
}

/// The dictionary held for reading ([`Names::read`]).
pub(crate) struct NamesRead<'a>(parking_lot::RwLockReadGuard<'a, Table>);

impl NamesRead<'_> {
    /// The name numbered `code`.
    pub(crate) fn get(&self, code: u32) -> Option<Name> {
        self.0.names.get(code as usize).copied()
    }
}

/// The dictionary as loaded, kept in step with the `names` tree.
#[derive(Default)]
pub(crate) struct Names {
    table: RwLock<Table>,
    alloc: Mutex<()>,
}

impl Names {
    /// Reads the `names` tree.
    pub(crate) fn load(store: &dyn Store) -> Result<Names, OpenError> {
        let mut t = Table::default();
        for entry in store.scan(tree::NAMES, KeyRange::all())? {
            let (k, v) = entry?;
            let bad = |p: &dyn std::fmt::Display| {
                OpenError::Damaged(damage(tree::NAMES, None, None, &k, p))
            };
            let code = key::decode_name_code(&k).ok_or_else(|| bad(&"malformed key"))?;
            if code as usize != t.names.len() {
                return Err(bad(&format!(
                    "name number {code} where {} was due",
                    t.names.len()
                )));
            }
            let spelling: String = codec::open(&k, &v).map_err(|e| bad(&e))?;
            let name = Name::new(&spelling);
            t.codes.insert(spelling_key(name), code);
            t.names.push(name);
        }
        Ok(Names {
            table: RwLock::new(t),
            alloc: Mutex::new(()),
        })
    }

    /// How many names there are.
    pub(crate) fn len(&self) -> usize {
        self.table.read().names.len()
    }

    /// The numbers of `ad`'s attribute names, giving new names numbers (and writing them to
    /// `store`) as needed.
    fn codes(&self, store: &dyn Store, ad: &ClassAd) -> Result<Vec<u32>, AdError> {
        {
            let t = self.table.read();
            let codes: Option<Vec<u32>> = ad
                .iter()
                .map(|(n, _)| t.codes.get(&spelling_key(n)).copied())
                .collect();
            if let Some(codes) = codes {
                return Ok(codes);
            }
        }
        let _alloc = self.alloc.lock();
        let mut out = Vec::with_capacity(ad.len());
        for (n, _) in ad.iter() {
            let spelling = n.as_str();
            if let Some(&c) = self.table.read().codes.get(&spelling_key(n)) {
                out.push(c);
                continue;
            }
            let code = self.table.read().names.len() as u32;
            let k = key::name_code(code);
            let sealed = codec::seal(&k, spelling).map_err(|e| AdError::TooLarge {
                id: spelling.to_owned(),
                detail: e.to_string(),
            })?;
            store.put(tree::NAMES, &k, &sealed)?;
            let mut t = self.table.write();
            t.codes.insert(spelling_key(n), code);
            t.names.push(n);
            out.push(code);
        }
        Ok(out)
    }

    /// The dictionary for reading names by number, locked for reading while held (a
    /// recursive read lock: the holder may read the dictionary again, e.g. to decode an ad,
    /// even while a writer waits).
    pub(crate) fn read(&self) -> NamesRead<'_> {
        NamesRead(self.table.read_recursive())
    }

    /// Encodes `ad` as bincode `[(number, expression)]`.
    pub(crate) fn encode(&self, store: &dyn Store, ad: &ClassAd) -> Result<Vec<u8>, AdError> {
        let codes = self.codes(store, ad)?;
        let pairs: Vec<(u32, &Expr)> = codes.into_iter().zip(ad.iter().map(|(_, e)| e)).collect();
        codec::encode(&pairs).map_err(|e| AdError::TooLarge {
            id: String::new(),
            detail: e.to_string(),
        })
    }

    /// Decodes what [`Names::encode`] made.
    pub(crate) fn decode(&self, bytes: &[u8]) -> Result<ClassAd, CodecError> {
        // Read straight off the encoding, or by the codec when that leaves it.
        let pairs: Vec<(u32, Expr)> = match crate::decode::pairs(bytes) {
            Some(pairs) => pairs,
            None => codec::decode(bytes)?,
        };
        let t = self.table.read();
        let mut ad = ClassAd::with_capacity(pairs.len());
        for (c, e) in pairs {
            match t.names.get(c as usize) {
                Some(n) => ad.insert(*n, e),
                None => {
                    return Err(CodecError::Decode(format!(
                        "unknown attribute name number {c}"
                    )))
                }
            }
        }
        Ok(ad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::MemStore;

    fn ad(text: &str) -> ClassAd {
        adjoin_query::parse::classad(text).expect("ad")
    }

    #[test]
    fn round_trip_keeps_spelling_and_order() {
        let s = MemStore::new();
        let names = Names::load(&s).expect("load");
        let a = ad("[Memory = 1; memory2 = 2; Name = \"x\"]");
        let b = ad("[MEMORY = 3; Name = \"y\"]");
        let (ea, eb) = (
            names.encode(&s, &a).expect("a"),
            names.encode(&s, &b).expect("b"),
        );
        assert_eq!(names.len(), 4, "Memory, memory2, Name, MEMORY");
        assert_eq!(names.decode(&ea).expect("a").to_string(), a.to_string());
        assert_eq!(names.decode(&eb).expect("b").to_string(), b.to_string());
        let again = Names::load(&s).expect("reload");
        assert_eq!(again.decode(&eb).expect("b").to_string(), b.to_string());
        assert!(ea.len() < a.to_string().len(), "names are not repeated");
    }

    #[test]
    fn unknown_numbers_and_gaps_are_damage() {
        let s = MemStore::new();
        let names = Names::load(&s).expect("load");
        let bytes = codec::encode(&vec![(7u32, Expr::attr("x"))]).expect("encode");
        assert!(matches!(names.decode(&bytes), Err(CodecError::Decode(_))));
        let k = key::name_code(3);
        s.put(tree::NAMES, &k, &codec::seal(&k, "Gap").expect("seal"))
            .expect("put");
        assert!(matches!(Names::load(&s), Err(OpenError::Damaged(_))));
    }
}
