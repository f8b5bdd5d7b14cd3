//! The analysis goldens' per-request lines (`analyze-real-ads.golden`, `random-analyze.golden`)
//! and their comparison with an [`Analysis`]: `NAME<TAB>offers<TAB>matching<TAB>
//! rejected_by_request<TAB>rejecting_request`, then per condition `  TEXT<TAB>matched<TAB>step`,
//! then `  pairs<TAB>i,j …` or `  failing<TAB>i,j i,j,k …` (minimal failing sets).

use adjoin::analyze::{Analysis, ConflictKind};

/// One request's golden counts.
#[derive(Debug, Default)]
pub struct Case {
    pub name: String,
    /// offers, matching, rejected_by_request, rejecting_request.
    pub counts: [u64; 4],
    /// (condition, matched, step).
    pub conditions: Vec<(String, u64, u64)>,
    /// The minimal failing sets the golden lists (pairs, or pairs and triples).
    pub failing: Vec<Vec<usize>>,
}

/// The cases of `lines` (one golden block).
pub fn cases<'a>(lines: impl IntoIterator<Item = &'a str>) -> Vec<Case> {
    let mut cases: Vec<Case> = Vec::new();
    for line in lines {
        if line.starts_with('#') || line.is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let n = |i: usize| fields[i].parse::<u64>().expect("count");
        if let Some(cond) = fields[0].strip_prefix("  ") {
            let case = cases.last_mut().expect("a request first");
            if cond == "pairs" || cond == "failing" {
                case.failing = fields[1]
                    .split_whitespace()
                    .map(|p| p.split(',').map(|i| i.parse().expect("index")).collect())
                    .collect();
            } else {
                case.conditions.push((cond.to_owned(), n(1), n(2)));
            }
        } else {
            cases.push(Case {
                name: fields[0].to_owned(),
                counts: [n(1), n(2), n(3), n(4)],
                ..Case::default()
            });
        }
    }
    cases
}

/// Checks `a` against the golden `case`: the four counts, every condition's matched and step
/// counts, and the conflicts of two to `largest` conditions — a data conflict of that size is
/// one of the golden's failing sets, and each of those is reported (as a data conflict, or as a
/// value one: conditions no value satisfies together).
pub fn check(a: &Analysis, case: &Case, largest: usize, what: &str) {
    let got = [
        a.offers,
        a.matching,
        a.rejected_by_request,
        a.rejecting_request,
    ];
    assert_eq!(got, case.counts, "{what}: counts");
    assert_eq!(
        a.conditions.len(),
        case.conditions.len(),
        "{what}: conditions"
    );
    for (c, (text, matched, step)) in a.conditions.iter().zip(&case.conditions) {
        assert_eq!(
            (c.matched, c.step_matched),
            (*matched, *step),
            "{what}: {text}"
        );
    }
    for f in &case.failing {
        assert!(
            a.conflicts.iter().any(|c| &c.conditions == f),
            "{what}: failing set {f:?} not reported ({:?})",
            a.conflicts
        );
    }
    for c in &a.conflicts {
        if c.kind == ConflictKind::Data && (2..=largest).contains(&c.conditions.len()) {
            assert!(
                case.failing.contains(&c.conditions),
                "{what}: data conflict {:?} is not a minimal failing set",
                c.conditions
            );
        }
    }
}
