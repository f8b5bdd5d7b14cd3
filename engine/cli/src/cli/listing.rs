//! The condor_status-style outputs of `adjoin query`: `--af` lines, `--sort` order, `--total`
//! tables, and `--attrs` blocks of evaluated values.

use super::render::Table;
use adjoin::query::eval::{eval_expr, EvalOptions};
use adjoin::query::print::result_to_htcondor;
use adjoin::query::{ClassAd, Expr, Key, Value};
use std::cmp::Ordering;

/// A value as `condor_status -af` prints it: a string's own characters (no quotes), anything
/// else in new syntax as HTCondor's unparser prints it (`undefined` for a missing attribute,
/// `error`, `4`, `true`, `{ 1,2 }`, reals as `%.15E`: `5.000000000000000E-01`).
pub fn af_text(v: &Value) -> String {
    match v {
        Value::Str(s) => s.to_string(),
        other => result_to_htcondor(other),
    }
}

/// One `--af` line of `ad`: each expression evaluated with the ad as MY, separated by one
/// space.
pub fn af_line(ad: &ClassAd, exprs: &[Expr], eval: &EvalOptions) -> String {
    let cells: Vec<String> = exprs
        .iter()
        .map(|e| af_text(&eval_expr(e, ad, eval)))
        .collect();
    cells.join(" ")
}

/// Where a value sorts by its type: numbers, then strings, times, booleans, and last what has
/// no order (`undefined`, `error`, lists, ads).
fn type_rank(v: &Value) -> u8 {
    match v {
        Value::Int(_) | Value::Real(_) => 0,
        Value::Str(_) => 1,
        Value::AbsTime(_) => 2,
        Value::RelTime(_) => 3,
        Value::Bool(_) => 4,
        _ => 5,
    }
}

/// The `--sort` order of two values: ascending; numbers by value (integers and reals
/// together), strings ignoring case (as ClassAd `<` compares them; exact spelling breaks
/// ties), times by their seconds, `false` before `true`; values of different types by
/// [`type_rank`], so that `undefined` sorts last.
pub fn sort_cmp(a: &Value, b: &Value) -> Ordering {
    let num = |v: &Value| match v {
        Value::Int(i) => *i as f64,
        Value::Real(r) => *r,
        _ => 0.0,
    };
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => x.cmp(y),
        (Value::Int(_) | Value::Real(_), Value::Int(_) | Value::Real(_)) => {
            num(a).total_cmp(&num(b))
        }
        (Value::Str(x), Value::Str(y)) => x
            .to_lowercase()
            .cmp(&y.to_lowercase())
            .then_with(|| x.cmp(y)),
        (Value::AbsTime(x), Value::AbsTime(y)) => x.secs.cmp(&y.secs),
        (Value::RelTime(x), Value::RelTime(y)) => x.total_cmp(y),
        (Value::Bool(x), Value::Bool(y)) => x.cmp(y),
        _ => type_rank(a).cmp(&type_rank(b)),
    }
}

/// Sorts `ads` by the values of `keys` in each (the first key first), stably: ads with equal
/// keys keep their order (load order).
pub fn sort_ads(ads: &mut Vec<ClassAd>, keys: &[Expr], eval: &EvalOptions) {
    if keys.is_empty() {
        return;
    }
    let mut keyed: Vec<(Vec<Value>, ClassAd)> = std::mem::take(ads)
        .into_iter()
        .map(|ad| (keys.iter().map(|k| eval_expr(k, &ad, eval)).collect(), ad))
        .collect();
    keyed.sort_by(|(a, _), (b, _)| {
        a.iter()
            .zip(b)
            .map(|(x, y)| sort_cmp(x, y))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    });
    *ads = keyed.into_iter().map(|(_, ad)| ad).collect();
}

/// The columns of `--total`, after `condor_status -total`: the machine states it counts.
pub const STATES: [&str; 7] = [
    "Owner",
    "Claimed",
    "Unclaimed",
    "Matched",
    "Preempting",
    "Backfill",
    "Drained",
];

/// Counts per group for `--total`: one row per `Arch/OpSys` of the ads (as `condor_status
/// -total` groups slots; `undefined` where an ad lacks one), the ads counted per `State`
/// (an ad in another state, or none, counts in `Total` only), and a last row of totals.
#[derive(Debug, Default)]
pub struct Totals {
    rows: std::collections::BTreeMap<String, [u64; STATES.len() + 1]>,
}

impl Totals {
    /// Counts `ad`.
    pub fn add(&mut self, ad: &ClassAd, eval: &EvalOptions) {
        let attr = |name: &str| af_text(&adjoin::query::eval::eval_attr_value(ad, name, eval));
        let group = format!("{}/{}", attr("Arch"), attr("OpSys"));
        let state = attr("State");
        let row = self.rows.entry(group).or_default();
        row[0] += 1;
        if let Some(i) = STATES.iter().position(|s| s.eq_ignore_ascii_case(&state)) {
            row[i + 1] += 1;
        }
    }

    /// The table: a header, a row per group in name order, and the totals.
    pub fn render(&self) -> String {
        let mut t = Table::aligned("l");
        let mut header = vec!["".to_owned(), "Total".to_owned()];
        header.extend(STATES.iter().map(|s| (*s).to_owned()));
        t.row(header);
        let mut sum = [0u64; STATES.len() + 1];
        for (group, counts) in &self.rows {
            let mut row = vec![group.clone()];
            row.extend(counts.iter().map(u64::to_string));
            t.row(row);
            for (s, c) in sum.iter_mut().zip(counts) {
                *s += c;
            }
        }
        let mut row = vec!["Total".to_owned()];
        row.extend(sum.iter().map(u64::to_string));
        t.row(row);
        t.render(0)
    }
}

/// The `--attrs` block of `ad`: `Name = value` per attribute the ad has, evaluated in it and
/// printed in new syntax, spelled as the ad spells it, in the order asked; empty when the ad
/// has none of them.
pub fn attrs_block(ad: &ClassAd, attrs: &[String], eval: &EvalOptions) -> String {
    let mut out = String::new();
    for a in attrs {
        if let Some((name, _)) = ad.entry(Key::of(a)) {
            let v = adjoin::query::eval::eval_attr_value(ad, a, eval);
            out.push_str(&format!("{name} = {v}\n"));
        }
    }
    out
}

/// The `--attrs` list as given (`'Name, Memory'` or `Name,Memory`): names trimmed, empty ones
/// dropped.
pub fn attr_names(given: &[String]) -> Vec<String> {
    given
        .iter()
        .flat_map(|g| g.split(','))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin::query::parse;

    fn ad(text: &str) -> ClassAd {
        parse::classad(text).expect("ad")
    }

    #[test]
    fn af_lines_as_condor_status_prints_them() {
        let a = ad(
            r#"[Name = "slot1@x"; Cpus = 4; Memory = 2 * 1024; Load = 0.5; L = {1, "a"};
                Odd = 0.1 + 0.2; Up = relTime(12.5)]"#,
        );
        for (exprs, want) in [
            ("Name Cpus Memory", "slot1@x 4 2048"),
            // HTCondor's text: `%.15E`, whole seconds.
            ("Odd Up", "3.000000000000000E-01 relTime(\"12\")"),
            ("Missing Name", "undefined slot1@x"),
            ("Memory/1024 Load", "2 5.000000000000000E-01"),
            ("L Name+1", "{ 1,\"a\" } error"),
        ] {
            let es: Vec<Expr> = exprs
                .split(' ')
                .map(|e| parse::expr(e).expect("expr"))
                .collect();
            assert_eq!(af_line(&a, &es, &EvalOptions::default()), want, "{exprs}");
        }
    }

    #[test]
    fn sort_order() {
        let v = |s: &str| {
            parse::expr(s)
                .map(|e| eval_expr(&e, &ClassAd::new(), &EvalOptions::default()))
                .expect("v")
        };
        for (a, b, want) in [
            ("1", "2", Ordering::Less),
            ("2.5", "2", Ordering::Greater),
            ("2", "2.0", Ordering::Equal),
            ("\"abc\"", "\"ABD\"", Ordering::Less),
            ("\"a\"", "1", Ordering::Greater),
            ("undefined", "\"z\"", Ordering::Greater),
            ("false", "true", Ordering::Less),
        ] {
            assert_eq!(sort_cmp(&v(a), &v(b)), want, "{a} vs {b}");
        }
    }

    #[test]
    fn attr_names_are_trimmed() {
        for (given, want) in [
            (&["Name, Memory"][..], &["Name", "Memory"][..]),
            (&["Name,Memory"][..], &["Name", "Memory"][..]),
            (&[" Name ", "", "Cpus,"][..], &["Name", "Cpus"][..]),
        ] {
            let given: Vec<String> = given.iter().map(|s| s.to_string()).collect();
            assert_eq!(attr_names(&given), want);
        }
    }

    #[test]
    fn attrs_blocks_are_evaluated() {
        let a = ad("[Memory = 2 * 1024; Name = \"n\"]");
        let attrs = vec!["name".to_owned(), "MEMORY".to_owned(), "Gone".to_owned()];
        assert_eq!(
            attrs_block(&a, &attrs, &EvalOptions::default()),
            "Name = \"n\"\nMemory = 2048\n"
        );
        assert_eq!(
            attrs_block(&ad("[x = 1]"), &attrs, &EvalOptions::default()),
            ""
        );
    }

    #[test]
    fn totals_per_arch_and_opsys() {
        let mut t = Totals::default();
        for text in [
            r#"[Arch = "X86_64"; OpSys = "LINUX"; State = "Claimed"]"#,
            r#"[Arch = "X86_64"; OpSys = "LINUX"; State = "Unclaimed"]"#,
            r#"[Arch = "X86_64"; OpSys = "LINUX"; State = "unclaimed"]"#,
            r#"[Arch = "INTEL"; OpSys = "WINDOWS"]"#,
        ] {
            t.add(&ad(text), &EvalOptions::default());
        }
        assert_eq!(
            t.render(),
            "               Total  Owner  Claimed  Unclaimed  Matched  Preempting  Backfill  Drained\n\
             INTEL/WINDOWS      1      0        0          0        0           0         0        0\n\
             X86_64/LINUX       3      0        1          2        0           0         0        0\n\
             Total              4      0        1          2        0           0         0        0\n"
        );
    }
}
