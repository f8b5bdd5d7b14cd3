//! A request whose own rank is the same against every offer (absent or a literal) read best
//! first without ranking each candidate. Its docking vector is `[its rank, the offer's rank]`,
//! so its order is the offers' ranks descending, then load order; and offers of one rank class
//! (`ranks.rs`: the same `Rank` and the same bindings of what it reads) rank a given request
//! alike. So the list is the candidates of each class, the classes grouped by their rank
//! against the request, best first, each group read in load order a chunk at a time: one rank
//! evaluated per class, one word operation per 64 offers per class read, not one step per
//! candidate. Offers of no class (their rank reads an expression of theirs, or they came
//! after the classes were made) are ranked one by one and merged into the groups by value.

use super::topk::{by_value, CHUNK};
use adjoin_index::{AdId, Bits};
use adjoin_query::Value;
use std::sync::Arc;

/// Classes beyond this many are not kept as sets (each costs a word per 64 offers).
const MAX_CLASSES: usize = 64;

/// The offers of each rank class, as word sets.
#[derive(Clone, Debug)]
pub struct ClassSets {
    /// Offers by class.
    members: Vec<Bits>,
    /// A member of each class (the first in load order).
    first: Vec<AdId>,
    /// Every offer of some class.
    classed: Bits,
    /// Each offer's class, by position.
    of: Vec<Option<u32>>,
}

impl ClassSets {
    /// The sets of `classes` (each offer's class by position), `None` when they are many.
    pub fn new(classes: &[Option<u32>]) -> Option<ClassSets> {
        let count = classes
            .iter()
            .flatten()
            .max()
            .map_or(0, |&c| c as usize + 1);
        if count > MAX_CLASSES {
            return None;
        }
        let mut members = vec![Bits::new(); count];
        let mut first = vec![AdId::MAX; count];
        let mut classed = Bits::new();
        for (o, c) in (0..).zip(classes) {
            let Some(c) = c.map(|c| c as usize) else {
                continue;
            };
            if let (Some(m), Some(f)) = (members.get_mut(c), first.get_mut(c)) {
                m.insert(o);
                *f = (*f).min(o);
                classed.insert(o);
            }
        }
        Some(ClassSets {
            members,
            first,
            classed,
            of: classes.to_vec(),
        })
    }

    /// The number of classes (at most [`MAX_CLASSES`], 64).
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Offer `o`'s class.
    pub fn class_of(&self, o: AdId) -> Option<u32> {
        self.of.get(o as usize).copied().flatten()
    }

    /// The offers of class `c`.
    pub fn members(&self, c: u32) -> Option<&Bits> {
        self.members.get(c as usize)
    }

    /// Every offer of some class.
    pub fn classed(&self) -> &Bits {
        &self.classed
    }

    /// A member of class `c` (the first in load order).
    pub fn first(&self, c: u32) -> Option<AdId> {
        self.first.get(c as usize).copied()
    }
}

/// What a group is made of: a class, or one offer of no class.
#[derive(Clone, Copy, Debug)]
enum Part {
    Class(usize),
    Offer(AdId),
}

/// One constant-rank request's candidates read best first, class by class.
#[derive(Debug)]
pub struct ClassWalk {
    /// The request's rank (the vector's first component).
    mine: Value,
    /// The parts with their rank against the request, best first (equal values adjacent).
    parts: Vec<(Value, Part)>,
    /// The next part to read.
    at: usize,
    /// The group being read: its offers' rank, its candidates in load order, and how many
    /// have been handed out.
    current: Option<(Value, Vec<AdId>, usize)>,
    /// The request's candidates.
    candidates: Bits,
    sets: Arc<ClassSets>,
}

impl ClassWalk {
    /// A walk over `candidates` for a request of rank `mine`: `theirs` gives offer `o`'s rank
    /// against the request (asked once per class met among the candidates, with its first
    /// member, and once per candidate of no class).
    pub fn new(
        mine: Value,
        candidates: Bits,
        sets: Arc<ClassSets>,
        theirs: &mut dyn FnMut(AdId) -> Value,
    ) -> ClassWalk {
        let mut parts: Vec<(Value, Part)> = Vec::new();
        for (c, (m, &f)) in sets.members.iter().zip(&sets.first).enumerate() {
            if m.intersects(&candidates) {
                parts.push((theirs(f), Part::Class(c)));
            }
        }
        let mut lone = candidates.clone();
        lone.andnot_assign(&sets.classed);
        for o in lone.iter() {
            parts.push((theirs(o), Part::Offer(o)));
        }
        // Stable: offers of no class stay in load order within a value.
        parts.sort_by(|a, b| by_value(&a.0, &b.0));
        ClassWalk {
            mine,
            parts,
            at: 0,
            current: None,
            candidates,
            sets,
        }
    }

    /// The next entries of the list, each with its vector `[request rank, offer rank]`, in
    /// the order of a fully ranked list, up to [`CHUNK`] at a time (a group's entries share
    /// one vector, so any prefix of it in load order is the list's next entries); empty when
    /// every candidate has been read.
    pub fn next_group(&mut self) -> Vec<(Value, Value, AdId)> {
        loop {
            if let Some((v, ids, read)) = &mut self.current {
                let chunk = ids.get(*read..).unwrap_or_default();
                let chunk = chunk.get(..CHUNK).unwrap_or(chunk);
                if !chunk.is_empty() {
                    *read += chunk.len();
                    return chunk
                        .iter()
                        .map(|&o| (self.mine.clone(), v.clone(), o))
                        .collect();
                }
                self.current = None;
            }
            let Some((best, _)) = self.parts.get(self.at) else {
                return Vec::new();
            };
            let best = best.clone();
            let mut group = Bits::new();
            while let Some((v, part)) = self.parts.get(self.at) {
                if by_value(v, &best).is_ne() {
                    break;
                }
                match *part {
                    Part::Class(c) => {
                        if let Some(m) = self.sets.members.get(c) {
                            group.or_and(m, &self.candidates);
                        }
                    }
                    Part::Offer(o) => {
                        group.insert(o);
                    }
                }
                self.at += 1;
            }
            self.current = Some((best, group.iter().collect(), 0));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads a walk to the end.
    fn read(mut w: ClassWalk) -> Vec<(Value, Value, AdId)> {
        let mut out = Vec::new();
        loop {
            let group = w.next_group();
            if group.is_empty() {
                return out;
            }
            out.extend(group);
        }
    }

    #[test]
    fn classes_read_best_first_ties_merged_in_load_order() {
        // Offers 0..200: class by o % 4, offers 150.. of no class.
        let classes: Vec<Option<u32>> = (0..200u32).map(|o| (o < 150).then_some(o % 4)).collect();
        let sets = Arc::new(ClassSets::new(&classes).expect("few classes"));
        // Class 0 and 2 tie (rank 5), class 1 ranks 7 (as a real), class 3 ranks 1; the
        // offers of no class rank 5 when even, else undefined-as-0.
        let rank = |o: AdId| match classes.get(o as usize).copied().flatten() {
            Some(0 | 2) => Value::Int(5),
            Some(1) => Value::Real(7.0),
            Some(_) => Value::Int(1),
            None if o.is_multiple_of(2) => Value::Int(5),
            None => Value::Int(0),
        };
        let candidates = Bits::from_rids((0..200).filter(|o: &u32| !o.is_multiple_of(3)));
        let mut asked = Vec::new();
        let mut theirs = |o| {
            asked.push(o);
            rank(o)
        };
        let walk = ClassWalk::new(Value::Int(0), candidates.clone(), sets, &mut theirs);
        // One rank per class met, and one per candidate of no class.
        let lone = candidates.iter().filter(|&o| o >= 150).count();
        assert_eq!(asked.len(), 4 + lone);
        let got = read(walk);
        // What ranking every candidate gives: offer rank descending, then load order.
        let mut want: Vec<(Value, Value, AdId)> = candidates
            .iter()
            .map(|o| (Value::Int(0), rank(o), o))
            .collect();
        want.sort_by(|a, b| by_value(&a.1, &b.1).then(a.2.cmp(&b.2)));
        assert_eq!(got, want);
    }

    #[test]
    fn many_classes_are_not_kept() {
        let classes: Vec<Option<u32>> = (0..100).map(Some).collect();
        assert!(ClassSets::new(&classes).is_none());
        assert_eq!(ClassSets::new(&[None, Some(0)]).map(|s| s.len()), Some(1));
    }
}
