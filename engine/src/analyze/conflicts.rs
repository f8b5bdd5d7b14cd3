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
use adjoin_query::eval::eval_expr;
use adjoin_query::{ClassAd, Value};
use rustc_hash::FxHashSet;

/// Every conflict: value conflicts, then the data conflicts that are not also value ones,
/// each list by size then indices.
pub(crate) fn conflicts(conds: &[Condition], t: &Table, opts: &AnalyzeOptions) -> Vec<Conflict> {
    let value = value_conflicts(conds);
    let known: FxHashSet<Vec<usize>> = value.iter().map(|c| c.conditions.clone()).collect();
    let mut out = value;
    out.extend(
        data_conflicts(t, opts)
            .into_iter()
            .filter(|c| !known.contains(c))
            .map(|conditions| Conflict {
                conditions,
                kind: ConflictKind::Data,
            }),
    );
    out.sort_by(|a, b| {
        (a.conditions.len(), &a.conditions).cmp(&(b.conditions.len(), &b.conditions))
    });
    out
}

/// The indices of the bits of `m`.
fn members(m: u64) -> Vec<usize> {
    (0..64).filter(|i| m & (1 << i) != 0).collect()
}

/// The minimal failing sets of two or more conditions over the table's offers.
pub(crate) fn data_conflicts(t: &Table, opts: &AnalyzeOptions) -> Vec<Vec<usize>> {
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
                        return out;
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
    out
}

/// The value conflicts among the simple comparisons on one attribute: minimal sets of two or
/// three that no value satisfies together.
pub(crate) fn value_conflicts(conds: &[Condition]) -> Vec<Conflict> {
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
                if sk.attr != si.attr {
                    continue;
                }
                if pair_ok == Some(true)
                    && satisfiable(&[si, sk]) == Some(true)
                    && satisfiable(&[sj, sk]) == Some(true)
                    && satisfiable(&[si, sj, sk]) == Some(false)
                {
                    out.push(vec![i, j, k]);
                }
            }
        }
    }
    out.into_iter()
        .map(|conditions| Conflict {
            conditions,
            kind: ConflictKind::Value,
        })
        .collect()
}

/// Whether some value satisfies every comparison (all on one attribute): `None` when the
/// witnesses tried are not known to be complete (string ordering).
fn satisfiable(cs: &[&Simple]) -> Option<bool> {
    let ordered = |op: BinOp| matches!(op, BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge);
    if cs
        .iter()
        .any(|s| ordered(s.op) && matches!(s.value, Value::Str(_) | Value::Bool(_)))
    {
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
/// each literal (numbers as integer and real), the midpoints between consecutive numbers, one
/// below the least and one above the greatest, a string equal to none, and both booleans.
fn witnesses(cs: &[&Simple]) -> Vec<Value> {
    let mut nums: Vec<f64> = cs
        .iter()
        .filter_map(|s| match s.value {
            Value::Int(i) => Some(i as f64),
            Value::Real(r) if r.is_finite() => Some(r),
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
        ws.push(Value::Int(*lo as i64 - 1));
        ws.push(Value::Int(*hi as i64 + 1));
    }
    for &x in &nums {
        ws.push(Value::Real(x));
        if x.fract() == 0.0 && x.abs() < 9.0e15 {
            ws.push(Value::Int(x as i64));
        }
    }
    for s in cs {
        if let Value::Str(_) = s.value {
            ws.push(s.value.clone());
        }
    }
    ws.push(Value::str("\u{1}none of the literals"));
    ws.push(Value::Bool(true));
    ws.push(Value::Bool(false));
    ws
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
        value_conflicts(&cs)
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
        ];
        for (req, want) in cases {
            let want: Vec<Vec<usize>> = want.iter().map(|w| w.to_vec()).collect();
            assert_eq!(value_of(req), want, "{req}");
        }
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
        assert_eq!(data_conflicts(&t, &opts), vec![vec![0, 1, 2, 3]]);
        let none = AnalyzeOptions {
            conflict_budget: 0,
            ..AnalyzeOptions::default()
        };
        assert!(data_conflicts(&t, &none).is_empty());
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
        let got = data_conflicts(&t, &AnalyzeOptions::default());
        assert_eq!(
            got,
            vec![vec![0, 2], vec![0, 3], vec![1, 2], vec![1, 3], vec![2, 3]]
        );
    }
}
