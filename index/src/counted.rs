//! Distinct items numbered once, with use counts, and the per-RID arrays of their numbers:
//! what the axes and the rectangle records keep per RID is four bytes, whatever the item (a
//! million slot ads have a few dozen distinct values, intervals and rectangles).

use std::hash::Hash;

/// No entry in a per-RID number array.
pub(crate) const NONE: u32 = u32::MAX;

/// Sets `v[rid]` to `i`, growing `v` as needed.
pub(crate) fn put(v: &mut Vec<u32>, rid: u32, i: u32) {
    let at = rid as usize;
    if v.len() <= at {
        v.resize(at + 1, NONE);
    }
    v[at] = i;
}

/// Clears `v[rid]`, releasing its number in `table`, and drops trailing empty entries.
pub(crate) fn take<T: Hash + Eq + Clone, E>(
    v: &mut Vec<u32>,
    rid: u32,
    table: &mut Counted<T, E>,
) -> bool {
    let mut was = false;
    if let Some(e) = v.get_mut(rid as usize) {
        if *e != NONE {
            table.release(*e);
            was = true;
        }
        *e = NONE;
    }
    while v.last() == Some(&NONE) {
        v.pop();
    }
    was
}

/// Distinct items, numbered, each with what it comes with (`E`, e.g. its positions) and the
/// number of RIDs using it: per-RID arrays hold four bytes per RID, whatever the item (a
/// million slot ads have a few dozen distinct values). A number whose item no RID uses any
/// more is reused.
#[derive(Clone, Debug)]
pub(crate) struct Counted<T, E> {
    items: Vec<Option<(T, E, u32)>>,
    at: rustc_hash::FxHashMap<T, u32>,
    free: Vec<u32>,
}

impl<T, E> Default for Counted<T, E> {
    fn default() -> Self {
        Counted {
            items: Vec::new(),
            at: rustc_hash::FxHashMap::default(),
            free: Vec::new(),
        }
    }
}

impl<T: Hash + Eq + Clone, E> Counted<T, E> {
    /// The number of `x` (with `with(x)` if new), its count raised by `n`.
    pub(crate) fn add_many(&mut self, x: &T, n: u32, with: impl FnOnce(&T) -> E) -> u32 {
        if let Some(&i) = self.at.get(x) {
            if let Some(Some((_, _, c))) = self.items.get_mut(i as usize) {
                *c += n;
            }
            return i;
        }
        let entry = Some((x.clone(), with(x), n));
        let i = match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = entry;
                i
            }
            None => {
                self.items.push(entry);
                (self.items.len() - 1) as u32
            }
        };
        self.at.insert(x.clone(), i);
        i
    }

    /// One use of number `i` more.
    pub(crate) fn raise(&mut self, i: u32) {
        if let Some(Some((_, _, c))) = self.items.get_mut(i as usize) {
            *c += 1;
        }
    }

    /// One use of number `i` fewer (the item forgotten after its last).
    pub(crate) fn release(&mut self, i: u32) {
        let Some(slot) = self.items.get_mut(i as usize) else {
            return;
        };
        if let Some((x, _, c)) = slot {
            *c -= 1;
            if *c == 0 {
                self.at.remove(x);
                *slot = None;
                self.free.push(i);
            }
        }
    }

    /// The item of number `i` and what it comes with.
    #[inline]
    pub(crate) fn get(&self, i: u32) -> Option<(&T, &E)> {
        self.items.get(i as usize)?.as_ref().map(|(x, e, _)| (x, e))
    }

    /// Bytes held (estimate).
    pub(crate) fn bytes(&self) -> usize {
        self.items.capacity() * (std::mem::size_of::<(T, E)>() + 8) * 2
    }
}
