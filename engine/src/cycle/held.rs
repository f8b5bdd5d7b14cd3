//! The index a cycle searches its offers through ([`CycleIndex`]): the Db's held index of the
//! offers' collection, lent for the cycle ([`Db::lend_index`](crate::Db)), or one built
//! privately over the offers read — and beside it a small private overlay, where offers
//! re-indexed during the cycle (partitionable remainders) go.
//!
//! **Numbers.** The cycle knows its offers by position (`0..n` in load order, as read); the
//! held index knows them by the store's `seq`. The store reads a collection in ascending `seq`
//! (its blocks are keyed and scanned by first `seq`, each block's records in `seq` order, and
//! new ads get fresh, larger ones), so positions and seqs are in the same order and ties
//! between offers break the same way whichever numbers them; the cycle checks it as it reads
//! and builds a private index if not. [`Numbers`] maps between them (positions are the seqs
//! when those are `0..n`, shifted when contiguous).
//!
//! **What answers.** The shared index may hold ads the cycle did not read (expired, written
//! since) or read in another version: those are *hidden* (their rectangles are in the
//! initial [`Gone`]), and the cycle's version, if any, is put in the overlay. Answers are the
//! shared index's minus the gone ones, plus the overlay's minus its gone ones, in positions.
//! Confirmation evaluates the cycle's own ads (`Views`), never reading the store.

use adjoin_index::query::{Base, StepCache};
use adjoin_index::{
    AdId, AdSource, Answer, Bits, Index, IndexError, IndexOptions, Inserted, Query, RoaringBitmap,
    Stats,
};
use adjoin_query::ClassAd;
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::sync::Arc;

/// The bit that marks a rectangle id as the overlay's in [`CycleIndex::rids_of`] and
/// [`Gone`] (the shared index's ids stay below it: 2^31 rectangles would not fit in memory).
const OVERLAY: u32 = 1 << 31;

/// How positions (`0..n`, load order) map to the shared index's ad ids (ascending with them).
#[derive(Clone, Debug)]
pub(crate) enum Numbers {
    /// The same (`seq`s `0..n`, or a private index).
    Same,
    /// Shifted: id = position + base.
    Shifted(AdId),
    /// Any ascending ids: by position, and back.
    Sparse {
        ids: Vec<AdId>,
        positions: FxHashMap<AdId, AdId>,
    },
}

impl Numbers {
    /// The numbering of ads whose ids by position are `ids` (ascending).
    pub(crate) fn of(ids: &[AdId]) -> Numbers {
        let Some(&first) = ids.first() else {
            return Numbers::Same;
        };
        let contiguous = ids.iter().zip(first..).all(|(&id, want)| id == want);
        match (contiguous, first) {
            (true, 0) => Numbers::Same,
            (true, base) => Numbers::Shifted(base),
            (false, _) => Numbers::Sparse {
                ids: ids.to_vec(),
                positions: ids.iter().zip(0..).map(|(&id, p)| (id, p)).collect(),
            },
        }
    }

    /// The id of position `p`.
    fn id(&self, p: AdId) -> Option<AdId> {
        match self {
            Numbers::Same => Some(p),
            Numbers::Shifted(base) => p.checked_add(*base),
            Numbers::Sparse { ids, .. } => ids.get(p as usize).copied(),
        }
    }

    /// The position of id `id`.
    fn position(&self, id: AdId) -> Option<AdId> {
        match self {
            Numbers::Same => Some(id),
            Numbers::Shifted(base) => id.checked_sub(*base),
            Numbers::Sparse { positions, .. } => positions.get(&id).copied(),
        }
    }

    /// [`Numbers::positions`] of a word set: one shift per word for a shifted numbering (a
    /// collection's seqs start at 1, so that is the usual one).
    fn positions_bits(&self, mut ids: Bits) -> Bits {
        match self {
            Numbers::Same => ids,
            Numbers::Shifted(base) => {
                ids.shift_down(*base);
                ids
            }
            Numbers::Sparse { ids: all, .. } => {
                let hint = all.len() as u32;
                ids.mapped(hint, |id| self.position(id))
            }
        }
    }

    /// `ids` as positions (ascending both ways, so the order is kept).
    fn positions(&self, ids: RoaringBitmap) -> RoaringBitmap {
        match self {
            Numbers::Same => ids,
            _ => RoaringBitmap::from_sorted_iter(ids.iter().filter_map(|id| self.position(id)))
                .unwrap_or_default(),
        }
    }
}

/// The numbering of offers read with `marks` (`(seq, revision)` by position): `None` unless
/// the seqs ascend (as the store reads them) and fit an [`AdId`].
pub(crate) fn numbers(marks: &[(u64, u64)]) -> Option<Numbers> {
    let ids: Vec<AdId> = marks
        .iter()
        .map(|&(seq, _)| AdId::try_from(seq).ok())
        .collect::<Option<_>>()?;
    if !ids.windows(2).all(|w| w[0] < w[1]) {
        tracing::warn!("offers not read in ascending seq; indexed privately");
        return None;
    }
    Some(Numbers::of(&ids))
}

/// Every one of `ads` (by position) as the shared index numbers them.
pub(crate) fn views(ads: &[Arc<ClassAd>], numbers: Numbers) -> impl AdSource {
    Views {
        ads: ads.to_vec(),
        numbers,
        same: (0..ads.len() as u32).collect(),
    }
}

/// The cycle's offers by the shared index's ids, for confirming and importing: only those the
/// shared index holds in the version read (`same`, by position).
#[derive(Clone, Debug)]
struct Views {
    ads: Vec<Arc<ClassAd>>,
    numbers: Numbers,
    same: RoaringBitmap,
}

impl AdSource for Views {
    fn fetch(&self, ids: &[AdId]) -> Vec<Option<Arc<ClassAd>>> {
        ids.iter()
            .map(|&id| {
                let p = self
                    .numbers
                    .position(id)
                    .filter(|&p| self.same.contains(p))?;
                self.ads.get(p as usize).cloned()
            })
            .collect()
    }

    fn for_each(&self, f: &mut dyn FnMut(AdId, Arc<ClassAd>)) {
        for p in &self.same {
            if let (Some(id), Some(ad)) = (self.numbers.id(p), self.ads.get(p as usize)) {
                f(id, Arc::clone(ad));
            }
        }
    }
}

/// The rectangles of the offers gone from a cycle (taken, or not the cycle's), of the shared
/// index and of the overlay ([`CycleIndex::rids_of`] tells them apart).
#[derive(Clone, Debug, Default)]
pub struct Gone {
    shared: Bits,
    overlay: Bits,
}

impl Gone {
    /// Whether rectangle `rid` is gone.
    pub fn contains(&self, rid: u32) -> bool {
        match rid & OVERLAY {
            0 => self.shared.contains(rid),
            _ => self.overlay.contains(rid & !OVERLAY),
        }
    }

    /// Adds rectangle `rid` (from [`CycleIndex::rids_of`]); whether it was not there.
    pub fn insert(&mut self, rid: u32) -> bool {
        match rid & OVERLAY {
            0 => self.shared.insert(rid),
            _ => self.overlay.insert(rid & !OVERLAY),
        }
    }

    /// Removes rectangle `rid`; whether it was there.
    pub fn remove(&mut self, rid: u32) -> bool {
        match rid & OVERLAY {
            0 => self.shared.remove(rid),
            _ => self.overlay.remove(rid & !OVERLAY),
        }
    }
}

/// A raw answer of a [`CycleIndex`]: the shared index's and the overlay's.
#[derive(Debug)]
pub struct CycleAnswer {
    shared: Answer,
    overlay: Option<Answer>,
}

/// The index a cycle searches (see the module's header): the shared index in its own ids,
/// the overlay in positions; every answer in positions.
#[derive(Clone, Debug)]
pub struct CycleIndex {
    shared: Arc<Index>,
    /// The shared index's counters when lent (a cycle reports its own work).
    base: Stats,
    views: Views,
    /// The shared index's rectangles of the ads not the cycle's as read.
    hidden: Bits,
    /// The shared index's rectangles of the offers re-indexed in the overlay.
    moved: Bits,
    overlay: Index,
    /// The positions the overlay holds.
    in_overlay: RoaringBitmap,
}

impl CycleIndex {
    /// The cycle's offers, by position.
    pub(crate) fn ads(&self) -> &[Arc<ClassAd>] {
        &self.views.ads
    }

    /// An index built privately over `ads` (positions are its ids).
    pub(crate) fn private(ads: &[Arc<ClassAd>], opts: IndexOptions) -> Result<Self, IndexError> {
        let mut index = Index::new(opts);
        index.extend((0..).zip(ads.iter().cloned()))?;
        let same = (0..ads.len() as u32).collect();
        Ok(CycleIndex::over(Arc::new(index), ads, Numbers::Same, same))
    }

    /// The shared index `shared` lent for offers `ads`, numbered there by `numbers`; `same`:
    /// the ids of those it holds in the version read. The others go in the overlay (an ad it
    /// cannot index is left out: it matches nothing, as a private index would fail).
    pub(crate) fn lent(
        shared: Arc<Index>,
        ads: &[Arc<ClassAd>],
        numbers: Numbers,
        same: &RoaringBitmap,
    ) -> Self {
        let same = numbers.positions(same.clone());
        let mut c = CycleIndex::over(shared, ads, numbers, same);
        let others: Vec<AdId> = (0..ads.len() as u32)
            .filter(|p| !c.views.same.contains(*p))
            .collect();
        for p in others {
            if let Some(ad) = ads.get(p as usize) {
                if c.insert(p, Arc::clone(ad)).is_err() {
                    tracing::warn!(offer = p, "offer not indexed");
                }
            }
        }
        c
    }

    fn over(
        shared: Arc<Index>,
        ads: &[Arc<ClassAd>],
        numbers: Numbers,
        same: RoaringBitmap,
    ) -> Self {
        let mut hidden = Bits::new();
        for id in shared.ad_ids() {
            let mine = numbers.position(id).is_some_and(|p| same.contains(p));
            if !mine {
                for rid in shared.rids_of(id) {
                    hidden.insert(rid);
                }
            }
        }
        CycleIndex {
            base: shared.stats(),
            overlay: Index::new(shared.options().clone()),
            shared,
            views: Views {
                ads: ads.to_vec(),
                numbers,
                same,
            },
            hidden,
            moved: Bits::new(),
            in_overlay: RoaringBitmap::new(),
        }
    }

    /// What no answer may hold at first: the shared index's ads not the cycle's.
    pub fn gone(&self) -> Gone {
        Gone {
            shared: self.hidden.clone(),
            overlay: Bits::new(),
        }
    }

    /// The options.
    pub fn options(&self) -> &IndexOptions {
        self.shared.options()
    }

    /// Gives the attributes `q`'s window bounds imported axes: in the overlay, and in the
    /// shared index unless it has them (which copies it: a lent index's imports are made
    /// before it is lent, [`Db::lend_index`](crate::Db)).
    pub fn prepare(&mut self, q: &Query) {
        // Looked up first: a cycle readies every request's windows, most needing nothing.
        let attrs = q.window_attrs();
        if attrs.iter().any(|k| !self.overlay.has_imported(k)) {
            self.overlay.ensure_imported(&attrs);
        }
        if attrs.iter().any(|k| !self.shared.has_imported(k)) {
            Arc::make_mut(&mut self.shared).ensure_imported_from(&attrs, &self.views);
        }
    }

    /// `q`'s window among the offers not `gone`, its work counted; the shared index's window
    /// steps met before taken from `cache` (valid for the whole cycle: the shared index's
    /// rectangles never change under it — imports add axes, re-indexed offers go to the
    /// overlay).
    pub fn candidates_cached(&self, q: &Query, gone: &Gone, cache: &mut StepCache) -> CycleAnswer {
        let mut a = self.candidates_uncounted(q, gone, cache);
        self.shared.count_candidates(&mut a.shared);
        if let Some(o) = &mut a.overlay {
            self.overlay.count_candidates(o);
        }
        self.count(&a);
        a
    }

    /// [`CycleIndex::candidates_cached`] without counting its work, which
    /// [`CycleIndex::count`] adds once the answer is used (a window searched ahead of
    /// serving, `ahead.rs`, and never used is not counted), its candidate units counted by
    /// [`CycleIndex::split_ads_counted`].
    pub fn candidates_uncounted(
        &self,
        q: &Query,
        gone: &Gone,
        cache: &mut StepCache,
    ) -> CycleAnswer {
        let except = self.except(gone);
        CycleAnswer {
            shared: self.shared.candidates_uncounted(q, &except, Some(cache)),
            overlay: (!self.in_overlay.is_empty())
                .then(|| self.overlay.candidates_uncounted(q, &gone.overlay, None)),
        }
    }

    /// [`CycleIndex::candidates_uncounted`], and what the probe's own steps kept of the shared
    /// index's rectangles when the window has several ([`Base`]).
    pub fn candidates_base_uncounted(
        &self,
        q: &Query,
        gone: &Gone,
        cache: &mut StepCache,
    ) -> (CycleAnswer, Option<Base>) {
        let except = self.except(gone);
        let (shared, base) = self
            .shared
            .candidates_base_uncounted(q, &except, Some(cache));
        let overlay = (!self.in_overlay.is_empty())
            .then(|| self.overlay.candidates_uncounted(q, &gone.overlay, None));
        (CycleAnswer { shared, overlay }, base)
    }

    /// [`CycleIndex::candidates_uncounted`] of `p`, a window of the same probe narrowed, from
    /// `base` ([`CycleIndex::candidates_base_uncounted`] among the same offers) when given.
    pub fn narrowed_uncounted(
        &self,
        p: &Query,
        base: Option<&Base>,
        gone: &Gone,
        cache: &mut StepCache,
    ) -> CycleAnswer {
        let from = base.and_then(|b| self.shared.narrowed_uncounted(p, b, Some(&mut *cache)));
        let Some(shared) = from else {
            return self.candidates_uncounted(p, gone, cache);
        };
        let overlay = (!self.in_overlay.is_empty())
            .then(|| self.overlay.candidates_uncounted(p, &gone.overlay, None));
        CycleAnswer { shared, overlay }
    }

    /// The shared index's rectangles a window passes over: those gone, and those moved to
    /// the overlay.
    fn except<'a>(&self, gone: &'a Gone) -> Cow<'a, Bits> {
        match self.moved.is_empty() {
            true => Cow::Borrowed(&gone.shared),
            false => {
                let mut all = gone.shared.clone();
                all.or_assign(&self.moved);
                Cow::Owned(all)
            }
        }
    }

    /// Every raw candidate of `a` (from [`CycleIndex::candidates_uncounted`]), as positions,
    /// nothing counted.
    pub fn ads_of(&self, a: &CycleAnswer) -> Bits {
        let mut ads = self
            .views
            .numbers
            .positions_bits(self.shared.ads_of(&a.shared.rids));
        if let Some(o) = &a.overlay {
            ads.or_assign(&self.overlay.ads_of(&o.rids));
        }
        ads
    }

    /// Counts the work of `a`, from [`CycleIndex::candidates_uncounted`].
    pub fn count(&self, a: &CycleAnswer) {
        self.shared.count(&a.shared.explain);
        if let Some(o) = &a.overlay {
            self.overlay.count(&o.explain);
        }
    }

    /// Whether `q`'s window needs nothing imported ([`CycleIndex::prepare`] would change
    /// nothing), so that an index that cannot change answers it exactly.
    pub fn prepared(&self, q: &Query) -> bool {
        q.window_attrs_all(|k| {
            self.shared.has_imported(&k)
                && (self.in_overlay.is_empty() || self.overlay.has_imported(&k))
        })
    }

    /// Drops the offers `gone` from answer `a` (one their window gave before they went):
    /// what the window gives now.
    pub fn drop_gone(&self, a: &mut CycleAnswer, gone: &Gone) {
        a.shared.remove(&gone.shared);
        a.shared.remove(&self.moved);
        if let Some(o) = &mut a.overlay {
            o.remove(&gone.overlay);
        }
    }

    /// Confirms a raw answer: the positions of the offers with a matching unit.
    pub fn confirm_ads(&self, q: &Query, a: &mut CycleAnswer) -> RoaringBitmap {
        let found = self.shared.confirm_ads_from(q, &mut a.shared, &self.views);
        let mut found = self.views.numbers.positions(found);
        if let Some(o) = &mut a.overlay {
            found |= self.overlay.confirm_ads(q, o);
        }
        found
    }

    /// A raw answer from [`CycleIndex::candidates_uncounted`] split by offer (positions):
    /// those known to match, and those to confirm one at a time ([`CycleIndex::confirm_ad`]);
    /// its candidate units counted as they are split ([`Index::split_ads_counted`]), for
    /// [`CycleIndex::count`].
    pub fn split_ads_counted(&self, a: &mut CycleAnswer) -> (Bits, Bits) {
        let (sure, pending) = self.shared.split_ads_counted(&mut a.shared);
        let n = &self.views.numbers;
        let (mut sure, mut pending) = (n.positions_bits(sure), n.positions_bits(pending));
        if let Some(o) = &mut a.overlay {
            let (s, p) = self.overlay.split_ads_counted(o);
            sure.or_assign(&s);
            pending.or_assign(&p);
            pending.andnot_assign(&sure);
        }
        (sure, pending)
    }

    /// Whether offer `p` (left pending by [`CycleIndex::split_ads_counted`]) matches.
    pub fn confirm_ad(&self, q: &Query, a: &CycleAnswer, p: AdId) -> bool {
        if self.in_overlay.contains(p) {
            return a
                .overlay
                .as_ref()
                .is_some_and(|o| self.overlay.confirm_ad(q, o, p));
        }
        self.views
            .numbers
            .id(p)
            .is_some_and(|id| self.shared.confirm_ad_from(q, &a.shared, id, &self.views))
    }

    /// The rectangles of offer `p`, as [`Gone`] takes them.
    pub fn rids_of(&self, p: AdId) -> Vec<u32> {
        if self.in_overlay.contains(p) {
            return self
                .overlay
                .rids_of(p)
                .into_iter()
                .map(|r| r | OVERLAY)
                .collect();
        }
        self.views
            .numbers
            .id(p)
            .map(|id| self.shared.rids_of(id))
            .unwrap_or_default()
    }

    /// Indexes offer `p` anew as `ad` (in the overlay; its rectangles in the shared index are
    /// passed over from now on).
    pub fn insert(&mut self, p: AdId, ad: Arc<ClassAd>) -> Result<Inserted, IndexError> {
        if !self.in_overlay.contains(p) {
            if self.views.same.contains(p) {
                for rid in self.rids_of(p) {
                    self.moved.insert(rid);
                }
            }
            self.in_overlay.insert(p);
        }
        self.overlay.insert(p, ad)
    }

    /// The work done through it: the shared index's since it was lent, and the overlay's.
    pub fn stats(&self) -> Stats {
        let (s, o, b) = (self.shared.stats(), self.overlay.stats(), self.base);
        Stats {
            probes: s.probes.saturating_sub(b.probes) + o.probes,
            evaluations: s.evaluations.saturating_sub(b.evaluations) + o.evaluations,
            ..s
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::collection::Collection;
    use crate::cycle::offers::Offers;
    use adjoin_query::parse;
    use proptest::prelude::*;

    fn offer(i: usize, m: i64) -> Arc<ClassAd> {
        let text = format!("[Name = \"m{i}\"; Memory = {m}; Requirements = TARGET.Mem <= Memory]");
        Arc::new(parse::classad(&text).expect("offer"))
    }

    fn request(m: i64) -> Arc<ClassAd> {
        let text = format!("[Mem = {m}; Requirements = TARGET.Memory >= Mem]");
        Arc::new(parse::classad(&text).expect("request"))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]

        /// A lent index whose ads are partly other versions than the cycle's, partly not the
        /// cycle's at all, numbered sparsely or shifted, finds what evaluating every pair
        /// finds, as offers are taken, put back and re-indexed.
        #[test]
        fn lent_indexes_answer_as_evaluation(
            // Per offer: its memory, the held version's (`None`: the same), and the gap
            // before its seq.
            offers in prop::collection::vec((0..5i64, prop::option::of(0..5i64), 0..3u32), 0..16),
            strangers in prop::collection::vec(0..5i64, 0..4),
            steps in prop::collection::vec((0..6i64, 0..3u8, 0..16usize, 0..5i64), 1..12),
        ) {
            let ads: Vec<Arc<ClassAd>> =
                offers.iter().enumerate().map(|(i, &(m, _, _))| offer(i, m * 1000)).collect();
            let mut ids = Vec::new();
            let mut next = 0u32;
            for &(_, _, gap) in &offers {
                next += gap;
                ids.push(next);
                next += 1;
            }
            // A source with no ads: the lent index must never read one (the cycle's are
            // evaluated).
            let no_ads = Arc::new(Vec::<Arc<ClassAd>>::new());
            let mut shared = Index::with_source(IndexOptions::default(), no_ads);
            let mut same = RoaringBitmap::new();
            for (i, &(m, other, _)) in offers.iter().enumerate() {
                let held = other.map_or(m, |o| o) * 1000;
                shared.insert(ids[i], offer(i, held)).expect("insert");
                if other.is_none_or(|o| o == m) {
                    same.insert(ids[i]);
                }
            }
            // Ads the cycle did not read (after the last, and in the gaps).
            for (k, &m) in strangers.iter().enumerate() {
                let id = next + k as u32;
                shared.insert(id, offer(100 + k, m * 1000)).expect("insert");
            }
            for (&id, k) in ids.iter().zip(0..) {
                if id > 0 && !ids.contains(&(id - 1)) && k < strangers.len() {
                    shared.insert(id - 1, offer(200 + k, strangers[k] * 1000)).expect("insert");
                }
            }
            let numbers = Numbers::of(&ids);
            let lent = CycleIndex::lent(Arc::new(shared), &ads, numbers, &same);
            let mut held = Offers::through(lent);
            let c = Collection { ids: Vec::new(), ads: ads.clone(), damaged: Vec::new() };
            let mut naive = Offers::naive(&c, IndexOptions::default().eval);
            let mut current = ads.clone();
            let mut taken = vec![false; ads.len()];
            for (mem, what, o, to) in steps {
                let r = request(mem * 900);
                prop_assert_eq!(held.candidates(&r), naive.candidates(&r));
                let o = o as u32;
                let Some(t) = taken.get_mut(o as usize) else { continue };
                match what {
                    0 if !*t => {
                        *t = true;
                        held.remove(o);
                        naive.remove(o);
                    }
                    0 => {
                        *t = false;
                        held.restore(o, &current[o as usize]);
                        naive.restore(o, &current[o as usize]);
                    }
                    // Only a live offer is re-indexed (a carve), as in a cycle.
                    1 if !*t => {
                        let ad = offer(o as usize, to * 1000);
                        current[o as usize] = Arc::clone(&ad);
                        held.update(o, &ad);
                        naive.update(o, &ad);
                    }
                    _ => {
                        // Confirmed one at a time, as a ranked list reads them.
                        let (all, mut u) = held.candidates_unconfirmed(&r, &current);
                        let confirmed: RoaringBitmap = all
                            .iter()
                            .filter(|&x| u.as_mut().is_none_or(|u| held.holds(u, x)))
                            .collect();
                        prop_assert_eq!(confirmed, naive.candidates(&r));
                    }
                }
            }
        }
    }

    #[test]
    fn numbers_map_positions_to_ids_and_back() {
        for (ids, kind) in [
            (&[][..], "same"),
            (&[0, 1, 2][..], "same"),
            (&[3, 4, 5][..], "shifted"),
            (&[0, 2, 5, 6][..], "sparse"),
            (&[7][..], "shifted"),
        ] {
            let n = Numbers::of(ids);
            let got = match n {
                Numbers::Same => "same",
                Numbers::Shifted(_) => "shifted",
                Numbers::Sparse { .. } => "sparse",
            };
            assert_eq!(got, kind, "{ids:?}");
            for (p, &id) in (0..).zip(ids) {
                assert_eq!((n.id(p), n.position(id)), (Some(id), Some(p)), "{ids:?}");
            }
            let all: RoaringBitmap = ids.iter().copied().collect();
            let want: RoaringBitmap = (0..ids.len() as u32).collect();
            assert_eq!(n.positions(all.clone()), want, "{ids:?}");
            // As word sets, the same, ids of no position included.
            let mut more = all;
            more.insert(1000);
            let got = n.positions_bits(Bits::from_roaring(&more)).to_roaring();
            assert_eq!(got, n.positions(more), "{ids:?}");
        }
        let marks = [(4, 1), (2, 1)];
        assert!(numbers(&marks).is_none(), "not ascending");
        assert!(
            numbers(&[(u64::from(u32::MAX) + 1, 0)]).is_none(),
            "beyond AdId"
        );
    }
}
