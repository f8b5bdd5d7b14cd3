//! The net: a request's `Preferences` list parsed into variables, each with the expression
//! giving its value, its parents (declared earlier, so the net is acyclic by construction) and
//! its conditional preference table. Every way the list can be wrong is an error naming the ad
//! and the entry.

use adjoin_query::eval::{apply_binary, eval_attr_value, EvalOptions};
use adjoin_query::{BinOp, ClassAd, Expr, Val, Value};
use rustc_hash::FxHashMap;
use std::fmt;
use thiserror::Error;

/// A variable's value class: an index into its domain, the domain's length standing for
/// `other` (any value equal to none listed, undefined and error included).
pub type Class = u16;

/// Variables in one net, at most.
pub const MAX_VARIABLES: usize = 64;
/// Distinct listed values of one variable, at most.
pub const MAX_VALUES: usize = 255;
/// Table rows of one variable, at most.
pub const MAX_ROWS: usize = 4096;

/// Tables of at most this many rows are scanned for the row that applies (cheaper than
/// hashing the parents' classes); longer ones are looked up.
const SCANNED_ROWS: usize = 8;
/// Outcome keys are numbered below this (exact as reals too).
const MAX_KEYS: u64 = 1 << 53;

/// Why an ad's `Preferences` could not be read.
#[derive(Clone, Debug, Error, PartialEq)]
#[error("ad {ad}: {}{problem}", subject(entry.as_deref(), problem))]
pub struct PreferenceError {
    /// The ad, as the caller named it (a file or a stored id).
    pub ad: String,
    /// The entry: its `Name`, or its position (from 1) when it has none.
    pub entry: Option<String>,
    /// What is wrong.
    pub problem: Problem,
}

/// What an error is about: the entry, the `Preferences` list, or nothing for a problem that
/// names its own attribute (`PreferenceKeep`).
fn subject(entry: Option<&str>, problem: &Problem) -> String {
    match (entry, problem) {
        (Some(e), _) => format!("Preferences entry {e} "),
        (None, Problem::Keep(_)) => String::new(),
        (None, _) => "Preferences ".into(),
    }
}

/// What is wrong with a `Preferences` list or one of its entries.
#[derive(Clone, Debug, Error, PartialEq)]
pub enum Problem {
    /// `Preferences` is not a list.
    #[error("is not a list of entries (it is {0})")]
    NotList(String),
    /// An entry is not an ad.
    #[error("is not an ad")]
    EntryNotAd,
    /// An entry has no string `Name`.
    #[error("has no Name (a string)")]
    NoName,
    /// Two entries have the same `Name` (compared ignoring case).
    #[error("repeats the Name of an earlier entry")]
    DuplicateName,
    /// An entry has no `Value`.
    #[error("has no Value")]
    NoValue,
    /// An attribute that must be a list is not.
    #[error("has a {0} that is not a list")]
    NotAList(&'static str),
    /// A listed value is not a plain value (undefined, error, a list or an ad).
    #[error("lists {value} in {what}, which is not a plain value")]
    NotPlain {
        /// Where (`Order`, `When`, `Parents`).
        what: &'static str,
        /// The value.
        value: String,
    },
    /// One `Order` lists a value twice (by `==`: strings ignore case).
    #[error("lists the value {0} twice in one Order")]
    DuplicateValue(String),
    /// A parent names no variable.
    #[error("names the unknown parent {0:?}")]
    UnknownParent(String),
    /// A parent names the variable itself or one declared after it.
    #[error("names the parent {0:?}, which is not declared before it")]
    LaterParent(String),
    /// A parent is named twice.
    #[error("names the parent {0:?} twice")]
    DuplicateParent(String),
    /// A `Table` row is not an ad, or lacks its `When` or `Order`.
    #[error("has a Table row {0} that is not an ad with a When and an Order")]
    BadRow(usize),
    /// A `When` with one value per parent it does not have.
    #[error("has a Table row {row} whose When has {got} values for {want} parents")]
    WhenLength {
        /// The row, from 1.
        row: usize,
        /// Values in its `When`.
        got: usize,
        /// Parents.
        want: usize,
    },
    /// A `When` value no order of its parent lists (the row could never apply).
    #[error(
        "has a Table row {row} whose When value {value} is not in any Order of parent {parent:?}"
    )]
    WhenValue {
        /// The row, from 1.
        row: usize,
        /// The value.
        value: String,
        /// The parent.
        parent: String,
    },
    /// Two rows with the same `When`.
    #[error("has Table rows {0} and {1} with the same When")]
    DuplicateRow(usize, usize),
    /// Neither an `Order` (without `Parents`) nor `Parents` with a `Table`.
    #[error("needs either an Order (and no Parents) or Parents with a Table")]
    Shape,
    /// More listed values than a variable may have.
    #[error("lists more than {MAX_VALUES} distinct values")]
    TooManyValues,
    /// More table rows than a variable may have.
    #[error("has more than {MAX_ROWS} Table rows")]
    TooManyRows,
    /// More variables than a net may have.
    #[error("has more than {MAX_VARIABLES} entries")]
    TooManyVariables,
    /// The outcomes' ranks do not fit in 53 bits.
    #[error("has too many outcomes to rank (the product of its orders' lengths exceeds 2^53)")]
    TooManyOutcomes,
    /// `PreferenceKeep` is not a number in (0, 1].
    #[error("PreferenceKeep is {0}, not a number in (0, 1]")]
    Keep(String),
}

/// One row of a conditional preference table: the parents' classes it applies to and the
/// classes it orders, best first.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// One class per parent (in the order of [`Variable::parents`]).
    pub when: Vec<Class>,
    /// Listed classes, best first.
    pub order: Vec<Class>,
    /// Each class's position in `order` (by class; unlisted and `other`: `order.len()`).
    positions: Vec<u16>,
}

impl Row {
    fn new(when: Vec<Class>, order: Vec<Class>, classes: usize) -> Row {
        let mut positions = vec![order.len() as u16; classes + 1];
        for (i, &c) in order.iter().enumerate() {
            if let Some(p) = positions.get_mut(c as usize) {
                *p = i as u16;
            }
        }
        Row {
            when,
            order,
            positions,
        }
    }

    /// The position of class `c` (0 best; unlisted classes and `other` after every listed
    /// one, tied).
    pub fn position(&self, c: Class) -> u16 {
        self.positions
            .get(c as usize)
            .copied()
            .unwrap_or(self.order.len() as u16)
    }
}

/// One variable of the net.
#[derive(Clone, Debug, PartialEq)]
pub struct Variable {
    /// Its `Name`.
    pub name: String,
    /// Its `Value`, an expression of the request (MY) against the offer (TARGET).
    pub value: Expr,
    /// Its parents, by position in the net (each before it).
    pub parents: Vec<usize>,
    /// The values its orders list, in order of first appearance: class `i` is `domain[i]`.
    pub domain: Vec<Value>,
    /// Its table (an unconditional `Order` is one row with an empty `When`). Read it only:
    /// [`Variable::row`] finds rows through an index of their `When`s made with the table.
    pub rows: Vec<Row>,
    /// Each row's position by its `When` (rows' `When`s are distinct): a table of thousands
    /// of rows is looked up at every step of a search, not scanned.
    by_when: FxHashMap<Vec<Class>, u32>,
}

impl Variable {
    /// The class `other` (equal to no listed value).
    pub fn other(&self) -> Class {
        self.domain.len() as Class
    }

    /// The number of classes, `other` included.
    pub fn classes(&self) -> usize {
        self.domain.len() + 1
    }

    /// The class of `v`: the first listed value it equals (`==` of the language: strings
    /// ignore case), else `other`.
    pub fn class_of(&self, v: &Value) -> Class {
        self.domain
            .iter()
            .position(|d| equal(v, d))
            .map_or(self.other(), |i| i as Class)
    }

    /// The row that applies when the parents have these classes (`None`: no preference, all
    /// values tied).
    pub fn row(&self, parents: impl Fn(usize) -> Class) -> Option<&Row> {
        if self.rows.len() <= SCANNED_ROWS {
            return self.rows.iter().find(|r| {
                r.when
                    .iter()
                    .zip(&self.parents)
                    .all(|(&w, &p)| parents(p) == w)
            });
        }
        let when: Vec<Class> = self.parents.iter().map(|&p| parents(p)).collect();
        let &i = self.by_when.get(&when)?;
        self.rows.get(i as usize)
    }

    /// The value of class `c` as text: the listed value in the language's syntax, or `other`.
    pub fn show(&self, c: Class) -> String {
        self.domain
            .get(c as usize)
            .map_or_else(|| "other".to_owned(), |v| v.to_string())
    }
}

/// A request's preferences: its CP-net, and its `PreferenceKeep`.
#[derive(Clone, Debug, PartialEq)]
pub struct Preferences {
    /// The variables in declaration order (parents before children).
    pub vars: Vec<Variable>,
    /// Each variable's weight in the outcome key (the product of the later radices).
    pub(crate) weights: Vec<u64>,
    /// Seed 004's Algorithm 3.1 filter: keep this best fraction of the ranked candidates.
    pub keep: Option<f64>,
}

/// `a == b` in the language is true.
pub fn equal(a: &Value, b: &Value) -> bool {
    match (scalar(a), scalar(b)) {
        (Some(x), Some(y)) => matches!(apply_binary(BinOp::Eq, x, y), Val::Bool(true)),
        _ => false,
    }
}

/// A plain value as an evaluation value (`None` for lists and ads).
fn scalar(v: &Value) -> Option<Val<'_>> {
    Some(match v {
        Value::Undefined => Val::Undefined,
        Value::Error => Val::Error,
        Value::Bool(b) => Val::Bool(*b),
        Value::Int(i) => Val::Int(*i),
        Value::Real(r) => Val::Real(*r),
        Value::Str(s) => Val::Str(s),
        Value::AbsTime(t) => Val::AbsTime(*t),
        Value::RelTime(t) => Val::RelTime(*t),
        Value::List(_) | Value::Ad(_) => return None,
    })
}

/// A value an `Order` or `When` may list.
fn plain(v: &Value) -> bool {
    !matches!(
        v,
        Value::Undefined | Value::Error | Value::List(_) | Value::Ad(_)
    )
}

/// Builds errors for one ad.
struct Errs<'a> {
    ad: &'a str,
}

impl Errs<'_> {
    fn err(&self, entry: Option<String>, problem: Problem) -> PreferenceError {
        PreferenceError {
            ad: self.ad.to_owned(),
            entry,
            problem,
        }
    }
}

/// A variable's entry as read, before its table is resolved.
struct Entry {
    name: String,
    value: Expr,
    parents: Vec<String>,
    /// (When, Order) rows; an unconditional `Order` is one row with no `When`.
    rows: Vec<(Vec<Value>, Vec<Value>)>,
}

impl Preferences {
    /// The preferences of `ad` (`None` when it has no `Preferences`), `label` naming it in
    /// errors.
    pub fn from_ad(
        ad: &ClassAd,
        label: &str,
        opts: &EvalOptions,
    ) -> Result<Option<Preferences>, PreferenceError> {
        if ad.get("Preferences").is_none() {
            return Ok(None);
        }
        let errs = Errs { ad: label };
        let keep = match ad.get("PreferenceKeep") {
            None => None,
            Some(_) => match eval_attr_value(ad, "PreferenceKeep", opts) {
                Value::Int(1) => Some(1.0),
                Value::Real(r) if r > 0.0 && r <= 1.0 => Some(r),
                v => return Err(errs.err(None, Problem::Keep(v.to_string()))),
            },
        };
        let list = match eval_attr_value(ad, "Preferences", opts) {
            Value::List(l) => l,
            v => return Err(errs.err(None, Problem::NotList(v.to_string()))),
        };
        if list.len() > MAX_VARIABLES {
            return Err(errs.err(None, Problem::TooManyVariables));
        }
        // Every entry read first, so that a parent declared later is told from an unknown one.
        let mut entries = Vec::with_capacity(list.len());
        for (i, item) in list.iter().enumerate() {
            entries.push(read_entry(item, i, &errs, opts)?);
        }
        for (i, e) in entries.iter().enumerate() {
            if entries[..i]
                .iter()
                .any(|d| d.name.eq_ignore_ascii_case(&e.name))
            {
                return Err(errs.err(Some(e.name.clone()), Problem::DuplicateName));
            }
        }
        let mut vars: Vec<Variable> = Vec::with_capacity(entries.len());
        for (i, e) in entries.iter().enumerate() {
            let at = |p: &Problem| errs.err(Some(e.name.clone()), p.clone());
            let mut parents = Vec::with_capacity(e.parents.len());
            for p in &e.parents {
                let Some(j) = entries.iter().position(|d| d.name.eq_ignore_ascii_case(p)) else {
                    return Err(at(&Problem::UnknownParent(p.clone())));
                };
                if j >= i {
                    return Err(at(&Problem::LaterParent(p.clone())));
                }
                if parents.contains(&j) {
                    return Err(at(&Problem::DuplicateParent(p.clone())));
                }
                parents.push(j);
            }
            vars.push(resolve(e, parents, &vars).map_err(|p| at(&p))?);
        }
        let weights = weights(&vars).ok_or_else(|| errs.err(None, Problem::TooManyOutcomes))?;
        Ok(Some(Preferences {
            vars,
            weights,
            keep,
        }))
    }

    /// The number of variables.
    pub fn len(&self) -> usize {
        self.vars.len()
    }

    /// Whether the net has no variables.
    pub fn is_empty(&self) -> bool {
        self.vars.is_empty()
    }

    /// The variable named `name` (ignoring case).
    pub fn variable(&self, name: &str) -> Option<usize> {
        self.vars
            .iter()
            .position(|v| v.name.eq_ignore_ascii_case(name))
    }
}

/// Reads entry `i` of the list.
fn read_entry(
    item: &Value,
    i: usize,
    errs: &Errs<'_>,
    opts: &EvalOptions,
) -> Result<Entry, PreferenceError> {
    let nth = || Some(format!("{}", i + 1));
    let Value::Ad(entry) = item else {
        return Err(errs.err(nth(), Problem::EntryNotAd));
    };
    let name = match eval_attr_value(entry, "Name", opts) {
        Value::Str(s) => s.to_string(),
        _ => return Err(errs.err(nth(), Problem::NoName)),
    };
    let at = |p: Problem| errs.err(Some(name.clone()), p);
    let value = entry
        .get("Value")
        .cloned()
        .ok_or_else(|| at(Problem::NoValue))?;
    let list = |ad: &ClassAd, attr: &'static str| -> Result<Option<Vec<Value>>, PreferenceError> {
        if ad.get(attr).is_none() {
            return Ok(None);
        }
        match eval_attr_value(ad, attr, opts) {
            Value::List(l) => Ok(Some(l.to_vec())),
            _ => Err(at(Problem::NotAList(attr))),
        }
    };
    let parents = match list(entry, "Parents")? {
        None => Vec::new(),
        Some(ps) => ps
            .into_iter()
            .map(|p| match p {
                Value::Str(s) => Ok(s.to_string()),
                v => Err(at(Problem::NotPlain {
                    what: "Parents",
                    value: v.to_string(),
                })),
            })
            .collect::<Result<_, _>>()?,
    };
    let order = list(entry, "Order")?;
    let table = list(entry, "Table")?;
    let rows = match (parents.is_empty(), order, table) {
        (true, Some(order), None) => vec![(Vec::new(), order)],
        (false, None, Some(table)) => {
            if table.len() > MAX_ROWS {
                return Err(at(Problem::TooManyRows));
            }
            let mut rows = Vec::with_capacity(table.len());
            for (r, row) in table.iter().enumerate() {
                let Value::Ad(row) = row else {
                    return Err(at(Problem::BadRow(r + 1)));
                };
                match (list(row, "When")?, list(row, "Order")?) {
                    (Some(w), Some(o)) => rows.push((w, o)),
                    _ => return Err(at(Problem::BadRow(r + 1))),
                }
            }
            rows
        }
        _ => return Err(at(Problem::Shape)),
    };
    Ok(Entry {
        name,
        value,
        parents,
        rows,
    })
}

/// The variable of entry `e`, its parents resolved to positions among `earlier`.
fn resolve(e: &Entry, parents: Vec<usize>, earlier: &[Variable]) -> Result<Variable, Problem> {
    let mut domain: Vec<Value> = Vec::new();
    let mut orders: Vec<Vec<Class>> = Vec::with_capacity(e.rows.len());
    for (_, order) in &e.rows {
        let mut classes = Vec::with_capacity(order.len());
        for v in order {
            if !plain(v) {
                return Err(Problem::NotPlain {
                    what: "Order",
                    value: v.to_string(),
                });
            }
            let c = match domain.iter().position(|d| equal(v, d)) {
                Some(c) => c,
                None => {
                    if domain.len() >= MAX_VALUES {
                        return Err(Problem::TooManyValues);
                    }
                    domain.push(v.clone());
                    domain.len() - 1
                }
            } as Class;
            if classes.contains(&c) {
                return Err(Problem::DuplicateValue(v.to_string()));
            }
            classes.push(c);
        }
        orders.push(classes);
    }
    let mut rows: Vec<Row> = Vec::with_capacity(e.rows.len());
    let mut by_when = FxHashMap::default();
    for (r, ((when, _), order)) in e.rows.iter().zip(orders).enumerate() {
        if when.len() != parents.len() {
            return Err(Problem::WhenLength {
                row: r + 1,
                got: when.len(),
                want: parents.len(),
            });
        }
        let mut classes = Vec::with_capacity(when.len());
        for (w, &p) in when.iter().zip(&parents) {
            let parent = earlier.get(p).ok_or(Problem::Shape)?;
            if !plain(w) {
                return Err(Problem::NotPlain {
                    what: "When",
                    value: w.to_string(),
                });
            }
            let c = parent.class_of(w);
            if c == parent.other() {
                return Err(Problem::WhenValue {
                    row: r + 1,
                    value: w.to_string(),
                    parent: parent.name.clone(),
                });
            }
            classes.push(c);
        }
        if let Some(&s) = by_when.get(&classes) {
            return Err(Problem::DuplicateRow(s as usize + 1, r + 1));
        }
        by_when.insert(classes.clone(), rows.len() as u32);
        rows.push(Row::new(classes, order, domain.len()));
    }
    Ok(Variable {
        name: e.name.clone(),
        value: e.value.clone(),
        parents,
        domain,
        rows,
        by_when,
    })
}

/// Each variable's weight in the outcome key: the product of the radices (longest order + 1)
/// of the variables after it; `None` when the keys would not fit in 53 bits.
fn weights(vars: &[Variable]) -> Option<Vec<u64>> {
    let mut w = vec![1u64; vars.len()];
    let mut acc = 1u64;
    for (i, v) in vars.iter().enumerate().rev() {
        w[i] = acc;
        let radix = v.rows.iter().map(|r| r.order.len()).max().unwrap_or(0) as u64 + 1;
        acc = acc.checked_mul(radix)?;
    }
    (acc <= MAX_KEYS).then_some(w)
}

impl fmt::Display for Preferences {
    /// One line per variable: `name: parents | when -> order; …`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for v in &self.vars {
            let parents: Vec<&str> = v
                .parents
                .iter()
                .filter_map(|&p| self.vars.get(p).map(|x| x.name.as_str()))
                .collect();
            write!(f, "{}", v.name)?;
            if !parents.is_empty() {
                write!(f, " ({})", parents.join(", "))?;
            }
            write!(f, ":")?;
            for r in &v.rows {
                let when: Vec<String> = r
                    .when
                    .iter()
                    .zip(&v.parents)
                    .filter_map(|(&c, &p)| self.vars.get(p).map(|x| x.show(c)))
                    .collect();
                let order: Vec<String> = r.order.iter().map(|&c| v.show(c)).collect();
                if when.is_empty() {
                    write!(f, " {}", order.join(" > "))?;
                } else {
                    write!(f, " [{}] {};", when.join(", "), order.join(" > "))?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn parse_prefs(prefs: &str) -> Result<Option<Preferences>, PreferenceError> {
        let ad = parse::classad(&format!("[Preferences = {prefs}]")).expect("ad");
        Preferences::from_ad(&ad, "req.ad", &EvalOptions::default())
    }

    #[test]
    fn long_tables_are_looked_up_as_scanned() {
        // Four three-valued parents, a table of 40 of their 81 combinations (longer than
        // SCANNED_ROWS): every combination of classes, `other` and Class::MAX included, finds
        // the row a scan finds.
        let parents: Vec<String> = (0..4)
            .map(|i| format!("[Name = \"p{i}\"; Value = {i}; Order = {{1, 2, 3}}]"))
            .collect();
        let rows: Vec<String> = (0..81)
            .filter(|c| c % 2 == 0 && *c < 80)
            .map(|c: u32| {
                let when: Vec<String> = (0..4)
                    .map(|d| (c / 3u32.pow(d) % 3 + 1).to_string())
                    .collect();
                format!(
                    "[When = {{{}}}; Order = {{{}, {}}}]",
                    when.join(", "),
                    c % 5,
                    c % 7 + 5
                )
            })
            .collect();
        let net = format!(
            "{{{}, [Name = \"x\"; Value = 1; Parents = {{\"p0\", \"p1\", \"p2\", \"p3\"}}; Table = {{{}}}]}}",
            parents.join(", "),
            rows.join(", ")
        );
        let p = parse_prefs(&net).expect("parses").expect("some");
        let x = p.vars.last().expect("x");
        assert!(x.rows.len() > SCANNED_ROWS);
        let classes = [0, 1, 2, 3, Class::MAX];
        let mut found = 0;
        for c in 0..classes.len().pow(4) {
            let of = |p: usize| classes[c / classes.len().pow(p as u32) % classes.len()];
            let scanned = x
                .rows
                .iter()
                .find(|r| r.when.iter().zip(&x.parents).all(|(&w, &p)| of(p) == w));
            assert_eq!(x.row(of), scanned, "combination {c}");
            found += usize::from(scanned.is_some());
        }
        assert_eq!(found, x.rows.len());
    }

    #[test]
    fn the_issues_example_parses() {
        let p = parse_prefs(
            r#"{
  [ Name = "os";  Value = TARGET.OpSys; Order = {"LINUX", "OSX"} ],
  [ Name = "mem"; Value = TARGET.Memory >= 4096; Parents = {"os"};
    Table = { [ When = {"LINUX"}; Order = {true, false} ],
              [ When = {"OSX"};   Order = {false, true} ] } ],
  [ Name = "gpu"; Value = TARGET.HasGPU; Parents = {"os", "mem"};
    Table = { [ When = {"OSX", false}; Order = {true, false} ] } ]
}"#,
        )
        .expect("parses")
        .expect("some");
        assert_eq!(p.len(), 3);
        assert_eq!(p.vars[1].parents, [0]);
        assert_eq!(p.vars[2].parents, [0, 1]);
        assert_eq!(p.vars[2].rows[0].when, [1, 1]);
        // Radices 3, 3, 3: weights 9, 3, 1.
        assert_eq!(p.weights, [9, 3, 1]);
        assert_eq!(
            p.to_string(),
            "os: \"LINUX\" > \"OSX\"\nmem (os): [\"LINUX\"] true > false; [\"OSX\"] false > true;\ngpu (os, mem): [\"OSX\", false] true > false;\n"
        );
    }

    #[test]
    fn absent_preferences_are_none() {
        let ad = parse::classad("[Rank = 1]").expect("ad");
        let got = Preferences::from_ad(&ad, "x", &EvalOptions::default());
        assert_eq!(got, Ok(None));
    }

    #[test]
    fn errors_name_the_ad_and_the_entry() {
        let os = r#"[Name = "os"; Value = TARGET.OpSys; Order = {"LINUX", "OSX"}]"#;
        for (prefs, entry, problem) in [
            ("3", None, Problem::NotList("3".into())),
            ("{1}", Some("1"), Problem::EntryNotAd),
            ("{[Value = 1; Order = {1}]}", Some("1"), Problem::NoName),
            (
                &format!("{{{os}, [Name = \"OS\"; Value = 1; Order = {{1}}]}}"),
                Some("OS"),
                Problem::DuplicateName,
            ),
            ("{[Name = \"a\"; Order = {1}]}", Some("a"), Problem::NoValue),
            (
                "{[Name = \"a\"; Value = 1; Order = 1]}",
                Some("a"),
                Problem::NotAList("Order"),
            ),
            (
                "{[Name = \"a\"; Value = 1; Order = {\"x\", \"X\"}]}",
                Some("a"),
                Problem::DuplicateValue("\"X\"".into()),
            ),
            (
                "{[Name = \"a\"; Value = 1; Order = {1, true}]}",
                Some("a"),
                Problem::DuplicateValue("true".into()),
            ),
            (
                "{[Name = \"a\"; Value = 1; Order = {undefined}]}",
                Some("a"),
                Problem::NotPlain {
                    what: "Order",
                    value: "undefined".into(),
                },
            ),
            (
                "{[Name = \"a\"; Value = 1; Parents = {\"b\"}; Table = {}]}",
                Some("a"),
                Problem::UnknownParent("b".into()),
            ),
            (
                &format!("{{[Name = \"a\"; Value = 1; Parents = {{\"os\"}}; Table = {{}}], {os}}}"),
                Some("a"),
                Problem::LaterParent("os".into()),
            ),
            (
                "{[Name = \"a\"; Value = 1; Parents = {\"a\"}; Table = {}]}",
                Some("a"),
                Problem::LaterParent("a".into()),
            ),
            (
                &format!("{{{os}, [Name = \"a\"; Value = 1; Parents = {{\"os\"}}; Table = {{[When = {{\"LINUX\", 1}}; Order = {{1}}]}}]}}"),
                Some("a"),
                Problem::WhenLength { row: 1, got: 2, want: 1 },
            ),
            (
                &format!("{{{os}, [Name = \"a\"; Value = 1; Parents = {{\"os\"}}; Table = {{[When = \"LINUX\"; Order = {{1}}]}}]}}"),
                Some("a"),
                Problem::NotAList("When"),
            ),
            (
                &format!("{{{os}, [Name = \"a\"; Value = 1; Parents = {{\"os\"}}; Table = {{[When = {{\"WIN\"}}; Order = {{1}}]}}]}}"),
                Some("a"),
                Problem::WhenValue { row: 1, value: "\"WIN\"".into(), parent: "os".into() },
            ),
            (
                &format!("{{{os}, [Name = \"a\"; Value = 1; Parents = {{\"os\"}}; Table = {{[When = {{\"linux\"}}; Order = {{1}}], [When = {{\"LINUX\"}}; Order = {{2}}]}}]}}"),
                Some("a"),
                Problem::DuplicateRow(1, 2),
            ),
            (
                &format!("{{{os}, [Name = \"a\"; Value = 1; Parents = {{\"os\"}}; Table = {{3}}]}}"),
                Some("a"),
                Problem::BadRow(1),
            ),
            (
                &format!("{{{os}, [Name = \"a\"; Value = 1; Parents = {{\"os\"}}; Order = {{1}}]}}"),
                Some("a"),
                Problem::Shape,
            ),
            (
                "{[Name = \"a\"; Value = 1; Table = {}]}",
                Some("a"),
                Problem::Shape,
            ),
        ] {
            let got = parse_prefs(prefs).expect_err(prefs);
            let want = PreferenceError {
                ad: "req.ad".into(),
                entry: entry.map(str::to_owned),
                problem,
            };
            assert_eq!(got, want, "{prefs}");
            assert!(got.to_string().starts_with("ad req.ad: Preferences "), "{got}");
        }
    }

    #[test]
    fn keep_is_checked() {
        for (keep, ok) in [
            ("0.3", true),
            ("1", true),
            ("0", false),
            ("1.5", false),
            ("\"x\"", false),
        ] {
            let ad = parse::classad(&format!(
                "[PreferenceKeep = {keep}; Preferences = {{[Name = \"a\"; Value = 1; Order = {{1}}]}}]"
            ))
            .expect("ad");
            let got = Preferences::from_ad(&ad, "r", &EvalOptions::default());
            assert_eq!(got.is_ok(), ok, "{keep}");
            if let Err(e) = got {
                // As docs/preferences.md spells it: the attribute's own name.
                let e = e.to_string();
                assert!(e.starts_with("ad r: PreferenceKeep is "), "{e}");
                assert!(e.ends_with(", not a number in (0, 1]"), "{e}");
            }
        }
    }

    #[test]
    fn too_many_rows() {
        let rows: Vec<String> = (0..=MAX_ROWS)
            .map(|i| format!("[When = {{1}}; Order = {{{i}}}]"))
            .collect();
        let got = parse_prefs(&format!(
            "{{[Name = \"a\"; Value = 1; Order = {{1}}], [Name = \"b\"; Value = 1; Parents = {{\"a\"}}; Table = {{{}}}]}}",
            rows.join(", ")
        ));
        assert_eq!(got.map_err(|e| e.problem), Err(Problem::TooManyRows));
    }

    #[test]
    fn too_many_outcomes() {
        let entries: Vec<String> = (0..30)
            .map(|i| format!("[Name = \"v{i}\"; Value = 1; Order = {{1, 2, 3}}]"))
            .collect();
        let got = parse_prefs(&format!("{{{}}}", entries.join(", ")));
        assert_eq!(got.map_err(|e| e.problem), Err(Problem::TooManyOutcomes));
    }
}
