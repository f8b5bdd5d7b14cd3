//! Conflicts (seed 001 3.1.2): sets of conditions that cannot hold together although every
//! proper subset can. Data conflicts are the minimal failing sets over the available offers,
//! found level by level from the conditions' bitmaps (a set is a candidate only when every
//! subset one smaller succeeds, as in Apriori); pairs and triples are always complete, larger
//! sets are looked for within a work budget. Value conflicts (`Memory > 10 && Memory < 5`)
//! hold whatever the pool: comparisons of one attribute with literals that no value satisfies
//! together, found by trying a complete set of witness values.

use super::conditions::{Condition, Simple};
use super::table::{Table, ROW_BITS};
use super::{AnalyzeOptions, Conflict, ConflictKind};
use adjoin_query::ast::{BinOp, Expr};
use adjoin_query::eval::{apply_binary, eval_expr};
use adjoin_query::value::Val;
use adjoin_query::{ClassAd, Key, Value};
use rustc_hash::{FxHashMap, FxHashSet};

/// The conflicts found and the searches a work budget stopped.
#[derive(Clone, Debug, Default)]
pub(crate) struct Found {
    /// Value conflicts, then the data conflicts that are not also value ones, each list by
    /// size then indices.
    pub conflicts: Vec<Conflict>,
    /// The kinds whose search stopped at its budget before it was complete.
    pub cut_short: Vec<ConflictKind>,
}

/// Every conflict: value conflicts, then the data conflicts that are not also value ones,
/// each list by size then indices.
pub(crate) fn conflicts(conds: &[Condition], t: &Table, opts: &AnalyzeOptions) -> Found {
    let (value, value_cut) = value_conflicts(conds, opts.value_conflict_budget);
    let (data, data_cut) = data_conflicts(t, opts);
    let known: FxHashSet<Vec<usize>> = value.iter().map(|c| c.conditions.clone()).collect();
    let mut out = value;
    out.extend(
        data.into_iter()
            .filter(|c| !known.contains(c))
            .map(|conditions| Conflict {
                conditions,
                kind: ConflictKind::Data,
            }),
    );
    out.sort_by(|a, b| {
        (a.conditions.len(), &a.conditions).cmp(&(b.conditions.len(), &b.conditions))
    });
    let cut_short = [
        (value_cut, ConflictKind::Value),
        (data_cut, ConflictKind::Data),
    ]
    .into_iter()
    .filter_map(|(cut, k)| cut.then_some(k))
    .collect();
    Found {
        conflicts: out,
        cut_short,
    }
}

/// The indices of the bits of `m`.
fn members(m: u64) -> Vec<usize> {
    (0..64).filter(|i| m & (1 << i) != 0).collect()
}

/// The minimal failing sets of two or more conditions over the table's offers, and whether the
/// budget (`conflict_budget` sets tried beyond triples) stopped the search.
pub(crate) fn data_conflicts(t: &Table, opts: &AnalyzeOptions) -> (Vec<Vec<usize>>, bool) {
    let n = t.sets.len().min(ROW_BITS);
    let mut out = Vec::new();
    // Level 1: the conditions some offer satisfies.
    let mut level: Vec<u64> = (0..n)
        .filter(|&i| !t.sets[i].is_empty())
        .map(|i| 1 << i)
        .collect();
    let mut spent: u64 = 0;
    let mut size = 1;
    while !level.is_empty() && size < opts.max_conflict_size.max(3) && size < n {
        size += 1;
        let succeeding: FxHashSet<u64> = level.iter().copied().collect();
        let mut next = Vec::new();
        for &s in &level {
            let top = 63 - s.leading_zeros() as usize;
            for j in top + 1..n {
                let cand = s | (1 << j);
                // Every subset one smaller must succeed (the one without j is s itself).
                if !members(s)
                    .iter()
                    .all(|&i| succeeding.contains(&(cand & !(1 << i))))
                {
                    continue;
                }
                if size > 3 {
                    spent += 1;
                    if spent > opts.conflict_budget {
                        out.sort();
                        return (out, true);
                    }
                }
                if t.together(members(cand)).is_empty() {
                    out.push(members(cand));
                } else {
                    next.push(cand);
                }
            }
        }
        level = next;
    }
    out.sort();
    (out, false)
}

/// The value conflicts among the simple comparisons on one attribute: minimal sets of two or
/// three that no value satisfies together, by size then indices, and whether the work budget
/// (`budget` steps) stopped the search before it was complete.
///
/// The comparisons are grouped by the attribute they constrain and only compared within a
/// group. Each group's comparisons are tried once on a complete set of witness values for the
/// whole group (a bitset of the witnesses each satisfies), so a pair is judged by one
/// intersection and the triples extending a pair are found by removing, from the comparisons
/// both members of the pair agree with, those that a witness common to the pair satisfies
/// (witnesses the most comparisons satisfy first, so most pairs end at once). Every set so
/// found is confirmed by [`satisfiable`] on its own witnesses, as the exhaustive search of
/// every pair and triple judged it. Pairs of every group are looked for before triples.
pub(crate) fn value_conflicts(conds: &[Condition], budget: u64) -> (Vec<Conflict>, bool) {
    let mut order: Vec<Key> = Vec::new();
    let mut by_attr: FxHashMap<Key, Vec<(usize, &Simple)>> = FxHashMap::default();
    for (i, c) in conds.iter().enumerate() {
        // A comparison whose satisfiability is not judged (string ordering) is in no conflict.
        let Some(s) = c.simple.as_ref().filter(|s| judged(s)) else {
            continue;
        };
        by_attr
            .entry(s.attr)
            .or_insert_with(|| {
                order.push(s.attr);
                Vec::new()
            })
            .push((i, s));
    }
    let mut work = Budget { left: budget };
    let mut found: Vec<Vec<usize>> = Vec::new();
    let mut groups: Vec<Group<'_>> = Vec::new();
    let mut cut = false;
    for attr in &order {
        let Some(members) = by_attr.remove(attr) else {
            continue;
        };
        if members.len() < 2 {
            continue;
        }
        match Group::build(members, &mut work) {
            Some(mut g) => {
                if !g.pairs(&mut work, &mut found) {
                    cut = true;
                    break;
                }
                groups.push(g);
            }
            None => {
                cut = true;
                break;
            }
        }
    }
    if !cut {
        for g in &groups {
            if !g.triples(&mut work, &mut found) {
                cut = true;
                break;
            }
        }
    }
    found.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
    let out = found
        .into_iter()
        .map(|conditions| Conflict {
            conditions,
            kind: ConflictKind::Value,
        })
        .collect();
    (out, cut)
}

/// What is left of a search's work budget.
struct Budget {
    left: u64,
}

impl Budget {
    /// Takes `n` steps; false (and nothing taken) when fewer are left.
    fn spend(&mut self, n: u64) -> bool {
        match self.left.checked_sub(n) {
            Some(l) => {
                self.left = l;
                true
            }
            None => false,
        }
    }
}

/// Steps charged for confirming one set by [`satisfiable`] (a few dozen evaluations).
const CONFIRM_STEPS: u64 = 64;

/// A fixed-size set of small numbers, 64 to a word. Not `adjoin_index::Bits`: the triple search
/// works on the words from a member's on (`Group::triples`), which that set does not lend.
#[derive(Clone)]
struct Bits(Vec<u64>);

impl Bits {
    fn new(n: usize) -> Bits {
        Bits(vec![0; n.div_ceil(64)])
    }

    fn set(&mut self, i: usize) {
        self.0[i / 64] |= 1 << (i % 64);
    }

    fn words(&self) -> u64 {
        self.0.len() as u64
    }

    /// Whether the sets meet, and how many words were compared to tell.
    fn meets(&self, o: &Bits) -> (bool, u64) {
        match self.0.iter().zip(&o.0).position(|(a, b)| a & b != 0) {
            Some(w) => (true, w as u64 + 1),
            None => (false, self.words()),
        }
    }

    fn ones(&self) -> impl Iterator<Item = usize> + '_ {
        self.0.iter().enumerate().flat_map(|(w, &word)| {
            let mut word = word;
            std::iter::from_fn(move || {
                (word != 0).then(|| {
                    let b = word.trailing_zeros() as usize;
                    word &= word - 1;
                    w * 64 + b
                })
            })
        })
    }
}

/// The judged comparisons on one attribute and which of the group's witnesses satisfy each.
struct Group<'a> {
    /// The comparisons with their condition indices, ascending.
    members: Vec<(usize, &'a Simple)>,
    /// Per member, the witnesses it holds for (witnesses most members hold for first).
    holds: Vec<Bits>,
    /// Per witness, the members holding for it.
    held_by: Vec<Bits>,
    /// Per member, the members it is satisfiable with (a pair some witness satisfies).
    with: Vec<Bits>,
}

impl<'a> Group<'a> {
    /// The witnesses of the group tried on each member; `None` when the budget does not cover it.
    fn build(members: Vec<(usize, &'a Simple)>, work: &mut Budget) -> Option<Group<'a>> {
        let simples: Vec<&Simple> = members.iter().map(|&(_, s)| s).collect();
        let mut seen: FxHashSet<WitnessKey> = FxHashSet::default();
        let ws: Vec<Value> = witnesses(&simples)
            .into_iter()
            .filter(|w| seen.insert(WitnessKey::of(w)))
            .collect();
        let n = members.len();
        if !work.spend((n as u64).saturating_mul(ws.len() as u64)) {
            return None;
        }
        let table: Vec<Vec<bool>> = ws
            .iter()
            .map(|w| simples.iter().map(|s| holds_fast(w, s)).collect())
            .collect();
        let mut by_count: Vec<usize> = (0..ws.len()).collect();
        by_count.sort_by_key(|&w| std::cmp::Reverse(table[w].iter().filter(|&&h| h).count()));
        let mut holds = vec![Bits::new(ws.len()); n];
        let mut held_by = Vec::with_capacity(ws.len());
        for (bit, &w) in by_count.iter().enumerate() {
            let mut by = Bits::new(n);
            for (m, &h) in table[w].iter().enumerate() {
                if h {
                    holds[m].set(bit);
                    by.set(m);
                }
            }
            held_by.push(by);
        }
        Some(Group {
            members,
            holds,
            held_by,
            with: vec![Bits::new(n); n],
        })
    }

    /// Finds the pairs no witness satisfies (confirmed one by one) into `found`, and notes the
    /// satisfiable ones; false when the budget ran out.
    fn pairs(&mut self, work: &mut Budget, found: &mut Vec<Vec<usize>>) -> bool {
        let n = self.members.len();
        for a in 0..n {
            for b in a + 1..n {
                let (meet, compared) = self.holds[a].meets(&self.holds[b]);
                if !work.spend(compared) {
                    return false;
                }
                if meet {
                    self.with[a].set(b);
                    self.with[b].set(a);
                    continue;
                }
                if !work.spend(CONFIRM_STEPS) {
                    return false;
                }
                let ((i, si), (j, sj)) = (self.members[a], self.members[b]);
                if satisfiable(&[si, sj]) == Some(false) {
                    found.push(vec![i, j]);
                }
            }
        }
        true
    }

    /// Finds the triples no witness satisfies whose pairs some witness does (each confirmed)
    /// into `found`; false when the budget ran out.
    fn triples(&self, work: &mut Budget, found: &mut Vec<Vec<usize>>) -> bool {
        let n = self.members.len();
        let row = Bits::new(n).words();
        for a in 0..n {
            for b in self.with[a].ones().filter(|&b| b > a) {
                // The members after b satisfiable with both, less those a witness of both
                // satisfies: what is left fails every witness of the pair. Only the words
                // from b's on are kept (`left[k]` is word `lo + k`).
                let lo = (b + 1) / 64;
                let span = row - lo as u64;
                if !work.spend(span.max(1)) {
                    return false;
                }
                let mut left: Vec<u64> = self.with[a].0[lo..]
                    .iter()
                    .zip(&self.with[b].0[lo..])
                    .map(|(x, y)| x & y)
                    .collect();
                if let Some(first) = left.first_mut() {
                    *first &= !0u64 << ((b + 1) % 64);
                }
                if left.iter().all(|&w| w == 0) {
                    continue;
                }
                // Witnesses of both, word by word, until nothing is left.
                'witnesses: for (wi, (x, y)) in
                    self.holds[a].0.iter().zip(&self.holds[b].0).enumerate()
                {
                    if !work.spend(1) {
                        return false;
                    }
                    let mut word = x & y;
                    while word != 0 {
                        let w = wi * 64 + word.trailing_zeros() as usize;
                        word &= word - 1;
                        if !work.spend(span.max(1)) {
                            return false;
                        }
                        let mut any = 0;
                        for (l, h) in left.iter_mut().zip(&self.held_by[w].0[lo..]) {
                            *l &= !h;
                            any |= *l;
                        }
                        if any == 0 {
                            break 'witnesses;
                        }
                    }
                }
                let left = Bits(left);
                let left = left.ones().map(|c| c + lo * 64);
                for c in left {
                    if !work.spend(CONFIRM_STEPS.saturating_mul(4)) {
                        return false;
                    }
                    let ((i, si), (j, sj), (k, sk)) =
                        (self.members[a], self.members[b], self.members[c]);
                    if satisfiable(&[si, sj]) == Some(true)
                        && satisfiable(&[si, sk]) == Some(true)
                        && satisfiable(&[sj, sk]) == Some(true)
                        && satisfiable(&[si, sj, sk]) == Some(false)
                    {
                        found.push(vec![i, j, k]);
                    }
                }
            }
        }
        true
    }
}

/// A witness value's identity, for trying each distinct witness once.
#[derive(PartialEq, Eq, Hash)]
enum WitnessKey {
    Int(i64),
    Real(u64),
    Str(std::sync::Arc<str>),
    Bool(bool),
    Other,
}

impl WitnessKey {
    fn of(v: &Value) -> WitnessKey {
        match v {
            Value::Int(i) => WitnessKey::Int(*i),
            Value::Real(r) => WitnessKey::Real(r.to_bits()),
            Value::Str(s) => WitnessKey::Str(s.clone()),
            Value::Bool(b) => WitnessKey::Bool(*b),
            _ => WitnessKey::Other,
        }
    }
}

/// Whether [`satisfiable`] judges sets holding `s` (ordering comparisons with strings or
/// booleans are not judged).
fn judged(s: &Simple) -> bool {
    let ordered = matches!(s.op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
    !(ordered && matches!(s.value, Value::Str(_) | Value::Bool(_)))
}

/// The evaluator's value of a witness or literal (numbers, strings and booleans only).
fn val(v: &Value) -> Val<'_> {
    match v {
        Value::Int(i) => Val::Int(*i),
        Value::Real(r) => Val::Real(*r),
        Value::Str(s) => Val::Str(s),
        Value::Bool(b) => Val::Bool(*b),
        _ => Val::Undefined,
    }
}

/// Whether the comparison `s` selects when its attribute is `w`: the operator applied to the
/// two values, as [`satisfiable`] evaluates it, without building an expression.
fn holds_fast(w: &Value, s: &Simple) -> bool {
    match apply_binary(s.op, val(w), val(&s.value)) {
        Val::Bool(b) => b,
        Val::Int(i) => i != 0,
        Val::Real(r) => r != 0.0,
        _ => false,
    }
}

/// Whether some value satisfies every comparison (all on one attribute): `None` when the
/// witnesses tried are not known to be complete (string ordering).
fn satisfiable(cs: &[&Simple]) -> Option<bool> {
    if !cs.iter().all(|s| judged(s)) {
        return None;
    }
    let ws = witnesses(cs);
    let empty = ClassAd::new();
    let holds = |w: &Value, s: &Simple| {
        let e = Expr::binary(s.op, Expr::Lit(w.clone()), Expr::Lit(s.value.clone()));
        super::selects(&eval_expr(&e, &empty, &Default::default()))
    };
    Some(ws.iter().any(|w| cs.iter().all(|s| holds(w, s))))
}

/// Values that, between them, satisfy any satisfiable set of comparisons with these literals:
/// each literal (numbers as integer and real, booleans also as the numbers 0 and 1 they compare
/// as), the midpoints between consecutive numbers, one below the least and one above the
/// greatest, a string equal to none, and both booleans.
fn witnesses(cs: &[&Simple]) -> Vec<Value> {
    let mut nums: Vec<f64> = cs
        .iter()
        .filter_map(|s| match s.value {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) if r.is_finite() => Some(r),
            // `x != true && x != false` holds for x = 2.
            Value::Bool(b) => Some(f64::from(u8::from(b))),
            _ => None,
        })
        .collect();
    nums.sort_by(f64::total_cmp);
    nums.dedup();
    let mut ws: Vec<Value> = Vec::new();
    for w in nums.windows(2) {
        ws.push(Value::Real((w[0] + w[1]) / 2.0));
    }
    if let (Some(lo), Some(hi)) = (nums.first(), nums.last()) {
        ws.push(Value::Real(lo - 1.0));
        ws.push(Value::Real(hi + 1.0));
        // Integers saturate at their limits (a literal past them has no integer beyond it).
        ws.push(Value::Int((*lo as i64).saturating_sub(1)));
        ws.push(Value::Int((*hi as i64).saturating_add(1)));
    }
    for &x in &nums {
        ws.push(Value::Real(x));
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            ws.push(Value::Int(x as i64));
        }
    }
    for s in cs {
        if let Value::Str(text) = &s.value {
            ws.push(s.value.clone());
            // `==` ignores case and `=!=` does not: `x == "ab" && x =!= "ab" && x =!= "AB"`
            // holds for "Ab". Spellings of each literal differing only in case, enough that
            // the two `=!=` of a triple cannot exclude them all when the literal has them.
            ws.extend(case_variants(text).into_iter().map(|v| Value::str(&v)));
        }
    }
    ws.push(Value::str("\u{1}none of the literals"));
    ws.push(Value::Bool(true));
    ws.push(Value::Bool(false));
    ws
}

/// `text` spelled otherwise in case: all lower, all upper, and its first two letters each
/// toggled (the spellings equal to `text` left out, duplicates removed).
fn case_variants(text: &str) -> Vec<String> {
    let toggled = |n: usize| -> String {
        let mut seen = 0;
        text.chars()
            .map(|c| {
                let cased = c.is_lowercase() || c.is_uppercase();
                let flip = cased && seen == n;
                seen += usize::from(cased);
                match (flip, c.is_lowercase()) {
                    (false, _) => c.to_string(),
                    (true, true) => c.to_uppercase().collect(),
                    (true, false) => c.to_lowercase().collect(),
                }
            })
            .collect()
    };
    let mut out: Vec<String> = vec![
        text.to_lowercase(),
        text.to_uppercase(),
        toggled(0),
        toggled(1),
    ];
    out.retain(|v| v != text);
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::{split_requirements, Pool};
    use adjoin_query::eval::EvalOptions;
    use adjoin_query::parse;
    use std::sync::Arc;

    fn value_of(req: &str) -> Vec<Vec<usize>> {
        let ad = parse::classad(&format!("[Requirements = {req}]")).expect("ad");
        let cs = split_requirements("r", &ad, &EvalOptions::default()).expect("split");
        value_conflicts(&cs, crate::analyze::VALUE_CONFLICT_BUDGET)
            .0
            .into_iter()
            .map(|c| c.conditions)
            .collect()
    }

    #[test]
    fn value_conflicts_table() {
        let cases: &[(&str, &[&[usize]])] = &[
            ("TARGET.Memory > 10 && TARGET.Memory < 5", &[&[0, 1]]),
            ("TARGET.Memory > 10 && TARGET.Memory < 11", &[]),
            ("TARGET.Memory >= 10 && TARGET.Memory <= 10", &[]),
            ("TARGET.Memory > 10 && TARGET.Memory <= 10", &[&[0, 1]]),
            (
                "TARGET.Arch == \"ALPHA\" && TARGET.Arch == \"INTEL\"",
                &[&[0, 1]],
            ),
            ("TARGET.Arch == \"alpha\" && TARGET.Arch == \"ALPHA\"", &[]),
            (
                "TARGET.Arch == \"ALPHA\" && TARGET.Arch != \"alpha\"",
                &[&[0, 1]],
            ),
            (
                "TARGET.x >= 5 && TARGET.x <= 5 && TARGET.x != 5",
                &[&[0, 1, 2]],
            ),
            (
                "TARGET.x == 5 && TARGET.Arch == \"X\" && 3 > TARGET.x",
                &[&[0, 2]],
            ),
            ("TARGET.x == \"a\" && TARGET.x > 5", &[&[0, 1]]),
            ("TARGET.x < 3 && TARGET.y > 7", &[]),
            ("TARGET.x != true && TARGET.x != false", &[]),
            ("TARGET.x == true && TARGET.x != 1", &[&[0, 1]]),
            // "Ab" holds for all three; a one-letter literal has only two spellings.
            (
                "TARGET.x == \"ab\" && TARGET.x =!= \"ab\" && TARGET.x =!= \"AB\"",
                &[],
            ),
            (
                "TARGET.x == \"a\" && TARGET.x =!= \"a\" && TARGET.x =!= \"A\"",
                &[&[0, 1, 2]],
            ),
            ("TARGET.x =?= \"aB\" && TARGET.x == \"AB\"", &[]),
            // Literals past the integers' range: the witnesses saturate (found by the analyze
            // fuzz target: one below the least overflowed).
            ("TARGET.x > -1e19 && TARGET.x < -1e19", &[&[0, 1]]),
            ("TARGET.x < -1e19 && TARGET.x > -2e19", &[]),
            ("TARGET.x > 1e19 && TARGET.x < 1e19", &[&[0, 1]]),
            ("TARGET.x > 9223372036854775807 && TARGET.x != 1e30", &[]),
            (
                "TARGET.x < -9223372036854775807 - 1 && TARGET.x > -1e30",
                &[],
            ),
        ];
        for (req, want) in cases {
            let want: Vec<Vec<usize>> = want.iter().map(|w| w.to_vec()).collect();
            assert_eq!(value_of(req), want, "{req}");
        }
    }

    /// The exhaustive search the grouped one replaced: every pair and triple of comparisons on
    /// one attribute judged by [`satisfiable`] on its own witnesses.
    fn naive_value_conflicts(conds: &[Condition]) -> Vec<Vec<usize>> {
        let simple: Vec<(usize, &Simple)> = conds
            .iter()
            .enumerate()
            .filter_map(|(i, c)| c.simple.as_ref().map(|s| (i, s)))
            .collect();
        let mut out = Vec::new();
        for (a, &(i, si)) in simple.iter().enumerate() {
            for (b, &(j, sj)) in simple.iter().enumerate().skip(a + 1) {
                if si.attr != sj.attr {
                    continue;
                }
                let pair_ok = satisfiable(&[si, sj]);
                if pair_ok == Some(false) {
                    out.push(vec![i, j]);
                    continue;
                }
                for &(k, sk) in simple.iter().skip(b + 1) {
                    if sk.attr == si.attr
                        && pair_ok == Some(true)
                        && satisfiable(&[si, sk]) == Some(true)
                        && satisfiable(&[sj, sk]) == Some(true)
                        && satisfiable(&[si, sj, sk]) == Some(false)
                    {
                        out.push(vec![i, j, k]);
                    }
                }
            }
        }
        out.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        out
    }

    fn conds_of(conj: &[String]) -> Vec<Condition> {
        let ad = parse::classad(&format!("[Requirements = {}]", conj.join(" && "))).expect("ad");
        split_requirements("r", &ad, &EvalOptions::default()).expect("split")
    }

    /// The literals the comparisons below are made with.
    const LITERALS: &[&str] = &[
        "0", "1", "2", "2.0", "2.5", "-1", "3", "\"a\"", "\"A\"", "\"b\"", "true", "false",
    ];
    const OPS: &[&str] = &["<", "<=", ">", ">=", "==", "!=", "=?=", "=!="];

    /// The operator applied to two values directly is the evaluation of the comparison.
    #[test]
    fn holds_fast_is_evaluation() {
        let cs = conds_of(
            &OPS.iter()
                .flat_map(|op| LITERALS.iter().map(move |l| format!("TARGET.x {op} {l}")))
                .collect::<Vec<_>>(),
        );
        let simples: Vec<&Simple> = cs.iter().filter_map(|c| c.simple.as_ref()).collect();
        assert_eq!(simples.len(), OPS.len() * LITERALS.len());
        let empty = ClassAd::new();
        for w in witnesses(&simples) {
            for s in &simples {
                let e = Expr::binary(s.op, Expr::Lit(w.clone()), Expr::Lit(s.value.clone()));
                let slow = crate::analyze::selects(&eval_expr(&e, &empty, &Default::default()));
                assert_eq!(holds_fast(&w, s), slow, "{w:?} {:?} {:?}", s.op, s.value);
            }
        }
    }

    proptest::proptest! {
        /// The grouped search finds what the exhaustive one does (well within its budget).
        #[test]
        fn grouped_is_exhaustive(
            picks in proptest::collection::vec((0..2usize, 0..OPS.len(), 0..LITERALS.len()), 1..12)
        ) {
            let conj: Vec<String> = picks
                .iter()
                .map(|&(a, op, l)| format!("TARGET.{} {} {}", ["x", "y"][a], OPS[op], LITERALS[l]))
                .collect();
            let cs = conds_of(&conj);
            let (got, cut) = value_conflicts(&cs, crate::analyze::VALUE_CONFLICT_BUDGET);
            proptest::prop_assert!(!cut);
            let got: Vec<Vec<usize>> = got.into_iter().map(|c| c.conditions).collect();
            proptest::prop_assert_eq!(got, naive_value_conflicts(&cs));
        }
    }

    /// 400 and 1,000 comparisons of one attribute (the audit's request: each lower bound
    /// implies the one before, so nothing conflicts) are searched completely within the
    /// default budget, which the exhaustive search of every triple far exceeded; the 1,000
    /// bounded both ways with holes find their conflicts; a budget too small says so and
    /// keeps what it found, each a real conflict.
    #[test]
    fn many_conjuncts_within_the_budget() {
        for n in [400, 1000] {
            let conj: Vec<String> = (0..n).map(|i| format!("TARGET.Memory > {i}")).collect();
            let (got, cut) =
                value_conflicts(&conds_of(&conj), crate::analyze::VALUE_CONFLICT_BUDGET);
            assert!(got.is_empty() && !cut, "{n}");
        }
        // x >= 0, x <= 0 and 998 of x != k: one triple with x != 0.
        let mut conj = vec!["TARGET.x >= 0".to_owned(), "TARGET.x <= 0".to_owned()];
        conj.extend((0..998).map(|k| format!("TARGET.x != {k}")));
        let cs = conds_of(&conj);
        let (got, cut) = value_conflicts(&cs, crate::analyze::VALUE_CONFLICT_BUDGET);
        assert!(!cut);
        let got: Vec<Vec<usize>> = got.into_iter().map(|c| c.conditions).collect();
        assert_eq!(got, vec![vec![0, 1, 2]]);
        // Upper and lower bounds crossing: many pairs; a small budget stops early.
        let conj: Vec<String> = (0..200)
            .map(|i| format!("TARGET.x {} {}", if i % 2 == 0 { ">" } else { "<" }, i))
            .collect();
        let cs = conds_of(&conj);
        let (all, cut) = value_conflicts(&cs, crate::analyze::VALUE_CONFLICT_BUDGET);
        assert!(!cut);
        let all: Vec<Vec<usize>> = all.into_iter().map(|c| c.conditions).collect();
        assert_eq!(all, naive_value_conflicts(&cs));
        let (some, cut) = value_conflicts(&cs, 300_000);
        assert!(cut);
        assert!(!some.is_empty() && some.len() < all.len());
        assert!(some.iter().all(|c| all.contains(&c.conditions)));
    }

    /// A search the budget stops is reported in the analysis and its text.
    #[test]
    fn cut_short_is_reported() {
        let conj: Vec<String> = (0..40)
            .map(|i| format!("TARGET.x {} {}", if i % 2 == 0 { ">" } else { "<" }, i))
            .collect();
        let job = parse::classad(&format!("[Requirements = {}]", conj.join(" && "))).expect("job");
        let opts = AnalyzeOptions {
            value_conflict_budget: 1_000,
            ..AnalyzeOptions::default()
        };
        let a = crate::analyze::analyze("j", &job, &Pool::default(), &opts).expect("analysis");
        assert_eq!(a.conflicts_cut_short, vec![ConflictKind::Value]);
        let json = serde_json::to_value(&a).expect("json");
        assert_eq!(json["conflicts_cut_short"], serde_json::json!(["value"]));
        let text = crate::analyze::render_text(&a, "slots", "job");
        assert!(
            text.contains(
                "(the search for value conflicts stopped at its work budget: there may be more)"
            ),
            "{text}"
        );
        let whole =
            crate::analyze::analyze("j", &job, &Pool::default(), &AnalyzeOptions::default())
                .expect("analysis");
        assert!(whole.conflicts_cut_short.is_empty());
        assert!(!serde_json::to_string(&whole)
            .expect("json")
            .contains("cut_short"));
        assert!(a.conflicts.len() < whole.conflicts.len());
    }

    /// The table of a job wanting `p1` to `p4` all true over offers `rows`.
    fn p_table(rows: &[&str]) -> Table {
        let pool = Pool::numbered(
            rows.iter()
                .map(|r| Arc::new(parse::classad(r).expect("offer")))
                .collect(),
        );
        let job = parse::classad(
            "[Requirements = TARGET.p1 =?= true && TARGET.p2 =?= true && TARGET.p3 =?= true && TARGET.p4 =?= true]",
        )
        .expect("job");
        let cs = split_requirements("job", &job, &EvalOptions::default()).expect("split");
        Table::build(&job, &cs, &pool, &EvalOptions::default())
    }

    /// Beyond triples, within the budget: four conditions every three of which some offer
    /// satisfies make one minimal failing set of four; with no budget left beyond triples it
    /// is not looked for.
    #[test]
    fn conflicts_beyond_triples() {
        let rows = [
            "[p2 = true; p3 = true; p4 = true]",
            "[p1 = true; p3 = true; p4 = true]",
            "[p1 = true; p2 = true; p4 = true]",
            "[p1 = true; p2 = true; p3 = true]",
        ];
        let t = p_table(&rows);
        let opts = AnalyzeOptions::default();
        assert_eq!(data_conflicts(&t, &opts), (vec![vec![0, 1, 2, 3]], false));
        let none = AnalyzeOptions {
            conflict_budget: 0,
            ..AnalyzeOptions::default()
        };
        assert_eq!(data_conflicts(&t, &none), (Vec::new(), true));
    }

    /// Value conflicts hold whatever the pool: with no offer at all, by evaluation and
    /// through a database whose offer collection is empty, in the JSON's terms.
    #[test]
    fn value_conflicts_on_an_empty_pool() {
        let job = parse::classad(
            "[Name = \"j\"; Requirements = TARGET.Memory > 10 && TARGET.Arch == \"X\" && TARGET.Memory < 5]",
        )
        .expect("job");
        let opts = AnalyzeOptions::default();
        let by_eval =
            crate::analyze::analyze("j", &job, &Pool::default(), &opts).expect("analysis");
        let db = crate::Db::open_in_memory().expect("db");
        let put = db
            .put(
                "slots",
                &parse::classad("[Name = \"s\"; Memory = 1]").expect("slot"),
            )
            .expect("put");
        assert!(db.remove("slots", &put.id).expect("remove"));
        let through_db = db.analyze(&job, "slots", &opts).expect("analysis");
        for a in [&by_eval, &through_db] {
            assert_eq!((a.offers, a.matching), (0, 0));
            let json = serde_json::to_value(&a.conflicts).expect("json");
            assert_eq!(
                json,
                serde_json::json!([{"conditions": [0, 2], "kind": "value"}])
            );
        }
    }

    /// Seed 001's lattice example (Figure 4): the maximal succeeding sets {p1 p2}, {p3} and
    /// {p4} leave the minimal failing sets {p1p3, p1p4, p2p4, p2p3, p3p4}.
    #[test]
    fn seed_mfs_example() {
        let rows = ["[p1 = true; p2 = true]", "[p3 = true]", "[p4 = true]"];
        let t = p_table(&rows);
        let (got, cut) = data_conflicts(&t, &AnalyzeOptions::default());
        assert!(!cut);
        assert_eq!(
            got,
            vec![vec![0, 2], vec![0, 3], vec![1, 2], vec![1, 3], vec![2, 3]]
        );
    }
}
