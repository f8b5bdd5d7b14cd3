//! Dominance queries (seed 004, section 2; Boutilier et al.): `a ≻ b` when a sequence of
//! improving flips — one variable moved to a value its row, given its parents' values in the
//! current outcome, puts strictly higher — leads from `b` to `a`. The sequence found is the
//! witness.
//!
//! The search is breadth first (the witness is a shortest one), bounded by a work budget of
//! outcomes visited, and pruned soundly: every improving flip lowers the outcome's key
//! ([`Preferences::key`]), so `a` must rank strictly above `b` and no outcome ranked at or
//! above `a` (other than `a`) is expanded; and only variables that differ between `a` and `b`,
//! or are ancestors of one that does, are flipped (dropping the other flips from any improving
//! sequence leaves one).
//!
//! When the budget runs out, one more, linear, try: flipping each differing variable straight
//! to its value in `a`, the first that improves each time ([`Preferences::direct_flips`]). Such
//! a sequence is as short as any can be (each differing variable flips at least once), so
//! many independent improvements — trivially `a ≻ b`, but too many outcomes in between for a
//! breadth-first search — are still answered; a query it cannot answer stays stopped at its
//! budget. Within the budget the answer is the breadth-first one, as before.

use super::net::{Class, Preferences};
use super::outcome::Outcome;
use std::collections::{HashMap, VecDeque};
use thiserror::Error;

/// Outcomes a dominance query visits by default, at most.
pub const BUDGET: usize = 1 << 20;

/// One improving flip.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Flip {
    /// The variable, by position.
    pub variable: usize,
    /// Its class before.
    pub from: Class,
    /// Its class after (better given its parents).
    pub to: Class,
}

/// The answer to a dominance query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Dominance {
    /// `a ≻ b`: the improving flips leading from `b` to `a`, in order.
    Dominates(Vec<Flip>),
    /// No improving flipping sequence leads from `b` to `a`.
    No,
}

/// A dominance query stopped at its work budget.
#[derive(Clone, Debug, Error, PartialEq, Eq)]
#[error("the dominance query gave up after visiting {0} outcomes (its work budget)")]
pub struct BudgetExceeded(pub usize);

impl Preferences {
    /// Whether outcome `a` dominates outcome `b`, with [`BUDGET`].
    pub fn dominates(&self, a: &[Class], b: &[Class]) -> Result<Dominance, BudgetExceeded> {
        self.dominates_within(a, b, BUDGET)
    }

    /// Whether outcome `a` dominates outcome `b`, visiting at most `budget` outcomes.
    pub fn dominates_within(
        &self,
        a: &[Class],
        b: &[Class],
        budget: usize,
    ) -> Result<Dominance, BudgetExceeded> {
        let n = self.vars.len();
        if a.len() != n || b.len() != n || a == b || self.key(a) >= self.key(b) {
            return Ok(Dominance::No);
        }
        let goal = self.key(a);
        // The variables that may flip: those differing and their ancestors.
        let mut movable = vec![false; n];
        for i in (0..n).rev() {
            if a[i] != b[i] || movable[i] {
                movable[i] = true;
                if let Some(v) = self.vars.get(i) {
                    for &p in &v.parents {
                        if let Some(m) = movable.get_mut(p) {
                            *m = true;
                        }
                    }
                }
            }
        }
        // Each outcome reached and the flip that reached it.
        let mut came: HashMap<Outcome, Option<(Outcome, Flip)>> = HashMap::new();
        came.insert(b.to_vec(), None);
        let mut todo: VecDeque<Outcome> = VecDeque::from([b.to_vec()]);
        while let Some(s) = todo.pop_front() {
            for (i, v) in self.vars.iter().enumerate() {
                if !movable[i] {
                    continue;
                }
                let Some(row) = v.row(|p| s.get(p).copied().unwrap_or(Class::MAX)) else {
                    continue;
                };
                let from = s[i];
                let here = row.position(from);
                for to in 0..v.classes() as Class {
                    if row.position(to) >= here {
                        continue;
                    }
                    let mut next = s.clone();
                    next[i] = to;
                    if came.contains_key(&next) {
                        continue;
                    }
                    let flip = Flip {
                        variable: i,
                        from,
                        to,
                    };
                    if next == a {
                        let mut flips = vec![flip];
                        let mut at = s.clone();
                        while let Some(Some((prev, f))) = came.get(&at) {
                            flips.push(f.clone());
                            at = prev.clone();
                        }
                        flips.reverse();
                        return Ok(Dominance::Dominates(flips));
                    }
                    if self.key(&next) <= goal {
                        continue;
                    }
                    if came.len() >= budget {
                        return match self.direct_flips(a, b) {
                            Some(flips) => Ok(Dominance::Dominates(flips)),
                            None => Err(BudgetExceeded(came.len())),
                        };
                    }
                    came.insert(next.clone(), Some((s.clone(), flip)));
                    todo.push_back(next);
                }
            }
        }
        Ok(Dominance::No)
    }

    /// An improving flipping sequence from `b` to `a` that moves each differing variable once,
    /// straight to its value in `a`: at each step the first such flip that improves given the
    /// outcome so far. `None` when at some step none does (another order, or flips through
    /// other values, may still lead there).
    pub fn direct_flips(&self, a: &[Class], b: &[Class]) -> Option<Vec<Flip>> {
        if a.len() != self.vars.len() || b.len() != a.len() || a == b {
            return None;
        }
        let mut s = b.to_vec();
        let mut flips = Vec::new();
        while s.as_slice() != a {
            let i = (0..s.len()).find(|&i| {
                let (Some(v), Some(&from), Some(&to)) = (self.vars.get(i), s.get(i), a.get(i))
                else {
                    return false;
                };
                from != to
                    && v.row(|p| s.get(p).copied().unwrap_or(Class::MAX))
                        .is_some_and(|row| row.position(to) < row.position(from))
            })?;
            let (from, to) = (s[i], a[i]);
            s[i] = to;
            flips.push(Flip {
                variable: i,
                from,
                to,
            });
        }
        Some(flips)
    }

    /// Whether `flips` is an improving flipping sequence from `b` to `a`.
    pub fn check_flips(&self, a: &[Class], b: &[Class], flips: &[Flip]) -> bool {
        let mut s = b.to_vec();
        for f in flips {
            let (Some(v), Some(&cur)) = (self.vars.get(f.variable), s.get(f.variable)) else {
                return false;
            };
            let Some(row) = v.row(|p| s.get(p).copied().unwrap_or(Class::MAX)) else {
                return false;
            };
            if cur != f.from || row.position(f.to) >= row.position(f.from) {
                return false;
            }
            s[f.variable] = f.to;
        }
        !flips.is_empty() && s == a
    }
}

#[cfg(test)]
mod tests {
    use super::super::outcome::tests::{named, paper};
    use super::*;

    #[test]
    fn the_paper_queries() {
        let (_, p) = paper();
        for (a, b, want) in [
            // The paper's example: axn ≻ lpe.
            ("axn", "lpe", Some(3)),
            ("ape", "lpn", Some(2)),
            ("ape", "apn", Some(1)),
            ("lxn", "lpn", Some(1)),
            ("lxn", "lpe", Some(2)),
            ("apn", "axn", Some(1)),
            ("axe", "lxe", Some(1)),
            // The worst never dominates; nothing dominates itself.
            ("lpn", "ape", None),
            ("ape", "ape", None),
            // Incomparable in the net, though ranked: axe above lxn.
            ("axe", "lxn", None),
            ("lxn", "axe", None),
        ] {
            let (x, y) = (named(&p, a), named(&p, b));
            let got = p.dominates(&x, &y).expect("within budget");
            match (want, &got) {
                (Some(len), Dominance::Dominates(flips)) => {
                    assert_eq!(flips.len(), len, "{a} > {b}: {flips:?}");
                    assert!(p.check_flips(&x, &y, flips), "{a} > {b}");
                }
                (None, Dominance::No) => {}
                _ => panic!("{a} > {b}: {got:?}"),
            }
        }
    }

    #[test]
    fn every_outcome_but_the_best_is_dominated_by_it() {
        let (_, p) = paper();
        let best = p.optimum();
        for s in ["apn", "axn", "axe", "lxn", "lxe", "lpe", "lpn"] {
            let got = p.dominates(&best, &named(&p, s)).expect("budget");
            assert!(matches!(got, Dominance::Dominates(_)), "{s}");
        }
    }

    /// The paper's outcomes, as letters.
    fn outcomes() -> Vec<String> {
        let mut out = Vec::new();
        for os in ['a', 'l'] {
            for cpu in ['p', 'x'] {
                for lib in ['e', 'n'] {
                    out.push(format!("{os}{cpu}{lib}"));
                }
            }
        }
        out
    }

    #[test]
    fn the_budget_stops_the_search_where_direct_flips_do_not_lead() {
        let (_, p) = paper();
        let mut stopped = 0;
        for a in outcomes() {
            for b in outcomes() {
                let (x, y) = (named(&p, &a), named(&p, &b));
                let whole = p.dominates(&x, &y).expect("within budget");
                let direct = p.direct_flips(&x, &y);
                // Direct flips are a shortest witness, found only where one is.
                if let Some(flips) = &direct {
                    assert!(p.check_flips(&x, &y, flips), "{a} > {b}");
                    match &whole {
                        Dominance::Dominates(f) => assert_eq!(f.len(), flips.len(), "{a} > {b}"),
                        Dominance::No => panic!("{a} > {b}: direct {flips:?}"),
                    }
                }
                let cut = p.dominates_within(&x, &y, 1);
                match (&whole, &direct) {
                    (Dominance::Dominates(_), None) if x != y => {
                        if let Err(e) = cut {
                            assert_eq!(e, BudgetExceeded(1));
                            stopped += 1;
                        }
                    }
                    (Dominance::Dominates(_), Some(f)) => {
                        // Answered within the budget, or by the direct flips after it.
                        assert!(
                            matches!(cut, Ok(Dominance::Dominates(_))),
                            "{a} > {b}: {f:?}"
                        );
                    }
                    _ => assert!(!matches!(cut, Ok(Dominance::Dominates(_))), "{a} > {b}"),
                }
            }
        }
        assert!(stopped > 0, "some query needs more than direct flips");
    }

    /// Many independent improvements: trivially a dominates b, but 2^24 outcomes lie between
    /// them for a breadth-first search.
    #[test]
    fn independent_improvements_are_answered_past_the_budget() {
        let vars: Vec<String> = (0..24)
            .map(|i| format!("[Name = \"v{i}\"; Value = TARGET.X{i}; Order = {{true, false}}]"))
            .collect();
        let ad = adjoin_query::parse::classad(&format!("[Preferences = {{{}}}]", vars.join(", ")))
            .expect("ad");
        let opts = adjoin_query::eval::EvalOptions::default();
        let p = Preferences::from_ad(&ad, "r", &opts)
            .expect("net")
            .expect("preferences");
        let side = |v: bool| {
            let xs: Vec<String> = (0..24).map(|i| format!("X{i} = {v}")).collect();
            adjoin_query::parse::classad(&format!("[{}]", xs.join("; "))).expect("offer")
        };
        let (a, b) = (
            p.outcome(&ad, &side(true), &opts),
            p.outcome(&ad, &side(false), &opts),
        );
        match p.dominates_within(&a, &b, 64) {
            Ok(Dominance::Dominates(flips)) => {
                assert_eq!(flips.len(), 24);
                assert!(p.check_flips(&a, &b, &flips));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(p.dominates_within(&b, &a, 64), Ok(Dominance::No));
    }
}
