//! Rectangle ids (RIDs): allocation, the owner of each live RID, and the set of live RIDs (the
//! universal set `U` that Algorithm 2 starts from).
//!
//! **Reuse policy**: a freed RID is reused, lowest first. That keeps the RID space dense, so the
//! roaring bitmaps stay in few, full containers and `U` is nearly a range however long ads keep
//! arriving and leaving. It is safe because a rectangle's RID is purged from every structure
//! before it is released (the caller's duty: release last), and RIDs never leave the process
//! except in an index snapshot, which is written and read whole.

use roaring::RoaringBitmap;
use std::fmt;

/// The RID space (2^32 ids) is used up.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub struct RidsExhausted;

impl fmt::Display for RidsExhausted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("all 2^32 rectangle ids are in use")
    }
}

impl std::error::Error for RidsExhausted {}

/// Allocates RIDs and maps each live one to its owner `T` (for the engine: the ad and port
/// whose rectangle it names).
#[derive(Clone, Debug)]
pub struct Rids<T> {
    owners: Vec<Option<T>>,
    /// Released ids below `owners.len()`.
    free: RoaringBitmap,
    live: RoaringBitmap,
}

impl<T> Default for Rids<T> {
    fn default() -> Self {
        Rids::new()
    }
}

impl<T> Rids<T> {
    /// No RIDs.
    pub fn new() -> Rids<T> {
        Rids {
            owners: Vec::new(),
            free: RoaringBitmap::new(),
            live: RoaringBitmap::new(),
        }
    }

    /// The RIDs `0..owners.len()`, each live with its owner or free (`None`): what allocating
    /// them in order and releasing the free ones gives (a restore).
    pub fn from_owners(mut owners: Vec<Option<T>>) -> Rids<T> {
        while let Some(None) = owners.last() {
            owners.pop();
        }
        let at = |some: bool| {
            (0..)
                .zip(&owners)
                .filter(move |(_, o)| o.is_some() == some)
                .map(|(i, _)| i)
        };
        let free = RoaringBitmap::from_sorted_iter(at(false)).unwrap_or_default();
        let live = RoaringBitmap::from_sorted_iter(at(true)).unwrap_or_default();
        Rids { owners, free, live }
    }

    /// A fresh RID for `owner`: the lowest free one.
    pub fn allocate(&mut self, owner: T) -> Result<u32, RidsExhausted> {
        let rid = match self.free.min() {
            Some(r) => {
                self.free.remove(r);
                self.owners[r as usize] = Some(owner);
                r
            }
            None => {
                let r = u32::try_from(self.owners.len()).map_err(|_| RidsExhausted)?;
                self.owners.push(Some(owner));
                r
            }
        };
        self.live.insert(rid);
        Ok(rid)
    }

    /// Releases a RID; returns its owner, or `None` if it was not live.
    pub fn release(&mut self, rid: u32) -> Option<T> {
        let owner = self.owners.get_mut(rid as usize)?.take()?;
        self.live.remove(rid);
        if rid as usize + 1 == self.owners.len() {
            // Trim the free tail so that the arena shrinks as the highest ids leave.
            self.owners.pop();
            while let Some(None) = self.owners.last() {
                self.owners.pop();
            }
            let end = self.owners.len() as u32;
            self.free.remove_range(end..);
        } else {
            self.free.insert(rid);
        }
        Some(owner)
    }

    /// Every RID's owner, by RID (`None`: free).
    pub fn owners(&self) -> &[Option<T>] {
        &self.owners
    }

    /// The owner of a live RID.
    pub fn owner(&self, rid: u32) -> Option<&T> {
        self.owners.get(rid as usize)?.as_ref()
    }

    /// Whether `rid` is live.
    pub fn is_live(&self, rid: u32) -> bool {
        self.live.contains(rid)
    }

    /// Every live RID: the universal set.
    pub fn live(&self) -> &RoaringBitmap {
        &self.live
    }

    /// The number of live RIDs.
    pub fn len(&self) -> usize {
        self.live.len() as usize
    }

    /// Whether no RID is live.
    pub fn is_empty(&self) -> bool {
        self.live.is_empty()
    }

    /// Every live RID with its owner, in RID order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, &T)> {
        self.owners
            .iter()
            .enumerate()
            .filter_map(|(i, o)| o.as_ref().map(|o| (i as u32, o)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    enum Step {
        Alloc(&'static str, u32),
        Release(u32, Option<&'static str>),
    }

    #[test]
    fn allocation_table() {
        use Step::*;
        let mut rids = Rids::new();
        let steps = [
            Alloc("a", 0),
            Alloc("b", 1),
            Alloc("c", 2),
            Alloc("d", 3),
            Release(1, Some("b")),
            Release(1, None),
            Release(9, None),
            Alloc("e", 1), // the lowest free id comes back first
            Release(0, Some("a")),
            Release(2, Some("c")),
            Alloc("f", 0),
            Release(3, Some("d")), // the tail: the arena shrinks past the free id 2
            Alloc("g", 2),
            Alloc("h", 3),
        ];
        for (i, step) in steps.into_iter().enumerate() {
            match step {
                Alloc(owner, want) => assert_eq!(rids.allocate(owner), Ok(want), "step {i}"),
                Release(rid, want) => assert_eq!(rids.release(rid), want, "step {i}"),
            }
        }
        let live: Vec<(u32, &str)> = rids.iter().map(|(r, o)| (r, *o)).collect();
        assert_eq!(live, [(0, "f"), (1, "e"), (2, "g"), (3, "h")]);
        assert_eq!(rids.live().iter().collect::<Vec<_>>(), [0, 1, 2, 3]);
        assert_eq!(rids.owner(2), Some(&"g"));
        assert_eq!(rids.len(), 4);
    }

    #[test]
    fn releasing_everything_empties_the_arena() {
        let mut rids = Rids::new();
        for i in 0..100 {
            assert_eq!(rids.allocate(i), Ok(i));
        }
        for i in (0..100).step_by(3).chain((0..100).filter(|i| i % 3 != 0)) {
            assert_eq!(rids.release(i), Some(i));
        }
        assert!(rids.is_empty());
        assert!(rids.owners.is_empty() && rids.free.is_empty());
        assert_eq!(rids.allocate(7), Ok(0));
    }
}
