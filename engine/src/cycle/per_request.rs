//! What is found of a request once and kept for the next cycle, by the address of its ad
//! ([`PerRequest`]): the next cycle reads its held requests as the same objects, so an
//! address found again is the same request. Each entry holds the ad, so that its address
//! names no other ad while the entry is kept; only what a cycle used is kept for the next,
//! so the entries stay as many as the requests read.

use adjoin_query::ClassAd;
use rustc_hash::FxHashMap;
use std::hash::Hash;
use std::sync::Arc;

/// Values found per request (and per `K`, what else they were found for): this cycle's, and
/// the last cycle's ([`PerRequest::next_cycle`]).
#[derive(Clone, Debug)]
pub struct PerRequest<K, V> {
    now: FxHashMap<(usize, K), (Arc<ClassAd>, V)>,
    before: FxHashMap<(usize, K), (Arc<ClassAd>, V)>,
}

impl<K, V> Default for PerRequest<K, V> {
    fn default() -> Self {
        PerRequest {
            now: FxHashMap::default(),
            before: FxHashMap::default(),
        }
    }
}

impl<K: Hash + Eq + Copy, V: Clone> PerRequest<K, V> {
    /// The value found for `request` and `k`, this cycle or the last (then kept for the next).
    pub fn get(&mut self, request: &Arc<ClassAd>, k: K) -> Option<V> {
        let key = (Arc::as_ptr(request) as usize, k);
        let held = |(ad, v): &(Arc<ClassAd>, V)| Arc::ptr_eq(ad, request).then(|| v.clone());
        if let Some(v) = self.now.get(&key).and_then(held) {
            return Some(v);
        }
        let v = self.before.get(&key).and_then(held)?;
        self.now.insert(key, (Arc::clone(request), v.clone()));
        Some(v)
    }

    /// Keeps `v` as found for `request` and `k`.
    pub fn insert(&mut self, request: &Arc<ClassAd>, k: K, v: V) {
        let key = (Arc::as_ptr(request) as usize, k);
        self.now.insert(key, (Arc::clone(request), v));
    }

    /// Another cycle begins: what this one found is kept for it as far as it asks again.
    pub fn next_cycle(&mut self) {
        self.before = std::mem::take(&mut self.now);
    }

    /// Changes every value kept.
    pub fn update(&mut self, mut f: impl FnMut(&mut V)) {
        for (_, v) in self.now.values_mut().chain(self.before.values_mut()) {
            f(v);
        }
    }

    #[cfg(test)]
    /// Entries kept, this cycle's and the last's.
    pub fn len(&self) -> usize {
        self.now.len() + self.before.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    #[test]
    fn values_are_found_per_request_and_kept_while_used() {
        let ad = |t: &str| Arc::new(parse::classad(t).expect("ad"));
        let (a, b) = (ad("[x = 1]"), ad("[x = 1]"));
        let mut m: PerRequest<bool, u32> = PerRequest::default();
        m.insert(&a, true, 1);
        assert_eq!((m.get(&a, true), m.get(&a, false)), (Some(1), None));
        assert_eq!(m.get(&b, true), None, "another ad alike is another request");
        m.insert(&b, true, 2);
        m.next_cycle();
        assert_eq!(m.get(&a, true), Some(1), "used again");
        m.next_cycle();
        assert_eq!((m.get(&a, true), m.get(&b, true)), (Some(1), None));
        m.update(|v| *v += 10);
        assert_eq!(m.get(&a, true), Some(11));
        assert_eq!(m.len(), 2);
    }
}
