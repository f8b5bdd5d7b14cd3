//! Interned attribute and function names.
//!
//! ClassAd names compare case-insensitively. Every spelling is interned once in a global table;
//! a [`Name`] carries both the id of its exact spelling (for printing) and the id of its ASCII
//! case-folded spelling (its [`Key`], for lookup). Lookup therefore hashes and compares a `u32`,
//! never a string.
//!
//! **Invariant**: the keywords in [`kw`] are interned first, in order, so their keys are the
//! constants given there and the evaluator can test for them with one integer comparison.

use parking_lot::RwLock;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;
use std::fmt;
use std::sync::OnceLock;

/// The case-folded identity of a name: two spellings that differ only in ASCII case share a key.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Key(pub u32);

/// An interned name: its exact spelling plus its case-folded [`Key`].
#[derive(Copy, Clone, Eq)]
pub struct Name {
    id: u32,
    key: Key,
}

/// Keys of the names the evaluator treats specially. Interned first, so fixed.
pub mod kw {
    use super::Key;
    /// `self`
    pub const SELF: Key = Key(0);
    /// `my`
    pub const MY: Key = Key(1);
    /// `target`
    pub const TARGET: Key = Key(2);
    /// `other`
    pub const OTHER: Key = Key(3);
    /// `parent`
    pub const PARENT: Key = Key(4);
    /// `root`
    pub const ROOT: Key = Key(5);
    /// `toplevel`
    pub const TOPLEVEL: Key = Key(6);
    /// `requirements`
    pub const REQUIREMENTS: Key = Key(7);
    /// `constraint` (the dissertation's name for `Requirements`)
    pub const CONSTRAINT: Key = Key(8);
    /// `rank`
    pub const RANK: Key = Key(9);
    /// `currenttime`
    pub const CURRENT_TIME: Key = Key(10);
    /// The spellings, in key order.
    pub(super) const ALL: [&str; 11] = [
        "self",
        "my",
        "target",
        "other",
        "parent",
        "root",
        "toplevel",
        "requirements",
        "constraint",
        "rank",
        "currenttime",
    ];
}

struct Interner {
    spellings: Vec<&'static str>,
    keys: Vec<Key>,
    ids: FxHashMap<&'static str, u32>,
}

impl Interner {
    fn new() -> Interner {
        let mut i = Interner {
            spellings: Vec::new(),
            keys: Vec::new(),
            ids: FxHashMap::default(),
        };
        for k in kw::ALL {
            i.intern(k);
        }
        i
    }

    fn intern(&mut self, s: &str) -> Name {
        if let Some(&id) = self.ids.get(s) {
            return Name {
                id,
                key: self.keys[id as usize],
            };
        }
        let folded = s.to_ascii_lowercase();
        let key = if folded == s {
            Key(self.spellings.len() as u32)
        } else {
            self.intern(&folded).key
        };
        let id = self.spellings.len() as u32;
        let leaked: &'static str = Box::leak(s.to_owned().into_boxed_str());
        self.spellings.push(leaked);
        self.keys.push(key);
        self.ids.insert(leaked, id);
        Name { id, key }
    }
}

fn interner() -> &'static RwLock<Interner> {
    static INTERNER: OnceLock<RwLock<Interner>> = OnceLock::new();
    INTERNER.get_or_init(|| RwLock::new(Interner::new()))
}

/// Entries a thread's cache of interned names may hold before it is cleared.
const LOCAL_CACHE_MAX: usize = 1 << 16;

thread_local! {
    /// This thread's recently interned spellings, so parsing threads rarely touch the lock.
    static LOCAL_NAMES: RefCell<FxHashMap<&'static str, Name>> = RefCell::new(FxHashMap::default());
    /// This thread's copy of the (append-only) spelling table, for [`Name::as_str`].
    static LOCAL_SPELLINGS: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// The spelling interned as `id`, read from this thread's copy of the table (refreshed from the
/// shared one when `id` is newer than the copy). Ids only come from the interner, so `id` is in
/// the shared table.
fn spelling(id: u32) -> &'static str {
    let i = id as usize;
    LOCAL_SPELLINGS.with(|local| {
        let mut local = local.borrow_mut();
        if i >= local.len() {
            let table = interner().read();
            let from = local.len();
            local.extend_from_slice(&table.spellings[from..]);
        }
        local[i]
    })
}

impl Name {
    /// Interns `s` (exact spelling kept for printing).
    pub fn new(s: &str) -> Name {
        if let Some(n) = LOCAL_NAMES.with(|c| c.borrow().get(s).copied()) {
            return n;
        }
        let found = {
            let table = interner().read();
            table.ids.get(s).map(|&id| {
                let name = Name {
                    id,
                    key: table.keys[id as usize],
                };
                (table.spellings[id as usize], name)
            })
        };
        let (spelling, name) = found.unwrap_or_else(|| {
            let mut table = interner().write();
            let name = table.intern(s);
            (table.spellings[name.id as usize], name)
        });
        LOCAL_NAMES.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= LOCAL_CACHE_MAX {
                c.clear();
            }
            c.insert(spelling, name);
        });
        name
    }

    /// The case-folded identity used for lookup.
    #[inline]
    pub fn key(self) -> Key {
        self.key
    }

    /// The exact spelling this name was written with.
    pub fn as_str(self) -> &'static str {
        spelling(self.id)
    }

    /// True when this name is `kw` ignoring case.
    #[inline]
    pub fn is(self, kw: Key) -> bool {
        self.key == kw
    }
}

impl Key {
    /// The key of `s` (interning it if needed).
    pub fn of(s: &str) -> Key {
        Name::new(s).key
    }

    /// The key of `s` if some spelling of it has been interned, without interning it (for names
    /// computed at run time: a name never interned is bound in no ad).
    pub fn find(s: &str) -> Option<Key> {
        let table = interner().read();
        if let Some(&id) = table.ids.get(s) {
            return Some(table.keys[id as usize]);
        }
        if s.bytes().any(|b| b.is_ascii_uppercase()) {
            let folded = s.to_ascii_lowercase();
            return table
                .ids
                .get(folded.as_str())
                .map(|&id| table.keys[id as usize]);
        }
        None
    }

    /// The lower-case spelling of this key.
    pub fn as_str(self) -> &'static str {
        spelling(self.0)
    }
}

/// Names are equal when their keys are: `Memory` and `memory` name the same attribute.
impl PartialEq for Name {
    fn eq(&self, other: &Name) -> bool {
        self.key == other.key
    }
}

impl std::hash::Hash for Name {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.key.hash(h)
    }
}

impl fmt::Debug for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl From<&str> for Name {
    fn from(s: &str) -> Name {
        Name::new(s)
    }
}

impl Serialize for Name {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Name {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Name, D::Error> {
        crate::text::deserialize_with(d, "a name", Name::new)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_have_fixed_keys() {
        assert_eq!(Key::of("TARGET"), kw::TARGET);
        assert_eq!(Key::of("My"), kw::MY);
        assert_eq!(Key::of("toplevel"), kw::TOPLEVEL);
        assert_eq!(Key::of("CurrentTime"), kw::CURRENT_TIME);
    }

    #[test]
    fn names_deserialize_borrowed_escaped_or_read() {
        let want = Name::new("Memory");
        let borrowed: Name = serde_json::from_str("\"Memory\"").expect("borrowed");
        let escaped: Name = serde_json::from_str("\"Mem\\u006fry\"").expect("escaped");
        let read: Name = serde_json::from_reader("\"Memory\"".as_bytes()).expect("read");
        for n in [borrowed, escaped, read] {
            assert_eq!(n, want);
            assert_eq!(n.as_str(), "Memory");
        }
        assert!(serde_json::from_str::<Name>("7").is_err());
        let back: Name =
            serde_json::from_str(&serde_json::to_string(&want).expect("ser")).expect("round trip");
        assert_eq!(back.as_str(), "Memory");
    }

    #[test]
    fn case_folds_for_equality_but_keeps_spelling() {
        let a = Name::new("Memory");
        let b = Name::new("MEMORY");
        assert_eq!(a, b);
        assert_eq!(a.as_str(), "Memory");
        assert_eq!(b.as_str(), "MEMORY");
        assert_eq!(a.key().as_str(), "memory");
    }
}
