//! Disjunctive profile form (dissertation 4.2.1): a constraint as a disjunction of *profiles*,
//! each a conjunction of *properties* `attribute REL constant` over the other ad's attributes.
//!
//! The promise is one-way, as the index needs: whenever the constraint is true, some profile
//! has all its properties true (a profile flagged `deviant` also holds a sub-expression the
//! index cannot read, which may be true or not). The converse ([`Dpf::exact`]) holds only for
//! constraints made of `&&`, `!`, properties and bare attributes, because HTCondor's `||` is
//! not the disjunction the form reads it as: `error || true` is `error`, so `(x && "s") || y`
//! is `error` where the form says "y". Only sound simplifications are made:
//!
//! - `!` is pushed inward (`!(a && b)` is `!a || !b`, `!(a || b)` is `!a && !b` — both hold in
//!   HTCondor's four-valued logic for the value `true`), and `!(x < c)` becomes `x >= c`
//!   (exact except for a NaN `x`, which the index treats as deviant; a NaN `c` is handled:
//!   `!(x < NaN)` holds of every number);
//! - `c REL x` becomes `x REL' c`; a bare `x` is `x != 0.0` and `!x` is `x == 0.0` (numbers as
//!   booleans, booleans promoted: exactly when `&&` takes `x` as true or false);
//! - `&&` distributes over `||` up to a cap on the number of profiles; past it the sub-formula
//!   becomes one deviant profile (always a candidate);
//! - `c ? a : b` reads as `(c && a) || (!c && b)`, `a ?: b` as `a || b` (upper bounds).
//!
//! Constants must be constants *in every match context*: literals, or expressions without any
//! attribute reference and with pure functions only (`relTime(90)`, `2 * 1024`), folded here.

use crate::index::IndexOptions;
use crate::port_view::PortScopes;
use crate::property::Relation;
use adjoin_query::ast::{BinOp, UnOp};
use adjoin_query::eval::{eval_expr_nested, requirements_key, EvalOptions};
use adjoin_query::name::kw;
use adjoin_query::refs::references;
use adjoin_query::specialize::{import_depth, specialize_attr, specialize_attr_top, BASE_DEPTH};
use adjoin_query::{ClassAd, Expr, Key, Value};

/// The default cap on the number of profiles of one constraint (and of one sub-formula).
pub const PROFILE_CAP: usize = 64;

/// Deepest nesting read; deeper sub-expressions are deviant.
const MAX_DEPTH: u32 = 500;

/// A property: `attr REL value`, `attr` an attribute of the other ad (case-folded key).
#[derive(Clone, Debug, PartialEq)]
pub struct Prop {
    /// The other ad's attribute.
    pub attr: Key,
    /// The relation, with the attribute on its left.
    pub rel: Relation,
    /// The constant on its right.
    pub value: Value,
}

/// A conjunction of properties, plus whether some conjunct was not a property.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Profile {
    /// The properties (all must hold).
    pub props: Vec<Prop>,
    /// Some conjunct is not in property form: the index cannot tell whether it holds.
    pub deviant: bool,
}

impl Profile {
    /// A profile of one property.
    fn one(p: Prop) -> Profile {
        Profile {
            props: vec![p],
            deviant: false,
        }
    }

    /// The profile that tells nothing (a deviant sub-expression).
    fn unknown() -> Profile {
        Profile {
            props: Vec::new(),
            deviant: true,
        }
    }

    /// The conjunction of two profiles.
    fn and(&self, other: &Profile) -> Profile {
        let mut props = self.props.clone();
        props.extend(other.props.iter().cloned());
        Profile {
            props,
            deviant: self.deviant || other.deviant,
        }
    }

    /// True of everything (no property, nothing deviant).
    fn is_universal(&self) -> bool {
        self.props.is_empty() && !self.deviant
    }
}

/// A constraint in disjunctive profile form.
#[derive(Clone, Debug, PartialEq)]
pub struct Dpf {
    /// The profiles (none: the constraint is never true).
    pub profiles: Vec<Profile>,
    /// The constraint is true exactly when some profile's properties all hold: no `||` read
    /// as a disjunction, no deviant part, no cap reached. (Whether each property's intervals
    /// are exact is the rectangle conversion's business.)
    pub exact: bool,
    /// Some sub-formula had more profiles than the cap and was replaced by a deviant one.
    pub capped: bool,
}

impl Dpf {
    /// A constraint that is never true (no profile), exactly.
    pub fn never() -> Dpf {
        Dpf {
            profiles: Vec::new(),
            exact: true,
            capped: false,
        }
    }

    /// The attributes some property names, sorted, without repeats.
    pub fn attrs(&self) -> Vec<Key> {
        let mut keys: Vec<Key> = self
            .profiles
            .iter()
            .flat_map(|p| p.props.iter().map(|q| q.attr))
            .collect();
        keys.sort_unstable();
        keys.dedup();
        keys
    }
}

/// How a constraint's operands are read: which expressions are references to the other
/// ad's attributes, and which are constants.
pub trait Operands {
    /// The attribute of the other ad that `e` reads directly (`TARGET.x`, `other.x`, …).
    fn reference(&self, e: &Expr) -> Option<Key>;

    /// The value of `e` when it is the same in every match context.
    fn constant(&self, e: &Expr) -> Option<Value>;

    /// The evaluation options the constraint is evaluated with.
    fn options(&self) -> &EvalOptions;
}

/// Operands of a constraint written in `ad` and specialized against it: `TARGET.x`,
/// `other.x`, `TARGET["x"]`, and unscoped names `ad` lacks under the TARGET fallback, as
/// [`adjoin_query::refs`] decides.
#[derive(Copy, Clone, Debug)]
pub struct AdOperands<'a> {
    /// The ad the constraint is written in.
    pub ad: &'a ClassAd,
    /// The evaluation options (the TARGET fallback).
    pub opts: &'a EvalOptions,
}

impl Operands for AdOperands<'_> {
    fn reference(&self, e: &Expr) -> Option<Key> {
        let e = e.unparen();
        let name = match e {
            Expr::Attr(n) | Expr::Select(_, n) => n.key(),
            Expr::Index(b) => match b.1.unparen() {
                Expr::Lit(Value::Str(s)) => Key::of(s),
                _ => return None,
            },
            _ => return None,
        };
        // A selection or subscript reads the other ad's attribute only when its base is the
        // other ad itself: `TARGET` or `other`, unless the ad binds the name. The reference
        // analysis cannot tell `TARGET.Arch.Arch` (a selection from a string: `error`) from
        // `TARGET.Arch`: both read only `TARGET.Arch`.
        match e {
            Expr::Select(base, _) => return self.other_ad(base).then_some(name),
            Expr::Index(b) => return self.other_ad(&b.0).then_some(name),
            _ => {}
        }
        let r = references(e, self.ad, self.opts);
        let direct = r.internal.is_empty() && r.external.len() == 1;
        (direct && Key::of(&r.external[0]) == name).then_some(name)
    }

    fn constant(&self, e: &Expr) -> Option<Value> {
        fold_constant(e, self.opts)
    }

    fn options(&self) -> &EvalOptions {
        self.opts
    }
}

impl AdOperands<'_> {
    /// True when `e` is the other ad of the match: `TARGET` or `other`, which the ad does not
    /// bind.
    fn other_ad(&self, e: &Expr) -> bool {
        match e.unparen() {
            Expr::Attr(b) => {
                (b.is(kw::TARGET) || b.is(kw::OTHER)) && self.ad.get_key(b.key()).is_none()
            }
            _ => false,
        }
    }
}

/// Operands of an ad-hoc constraint evaluated with a stored ad as MY (`adjoin query`): the
/// stored ad's attributes are unscoped names and `.x`. Scoped forms (`MY.x`, `self.x`) are
/// not read as references: a stored ad may bind `my` or `self` itself, and `MY` is undefined
/// without a TARGET in strict semantics; such properties are deviant.
#[derive(Copy, Clone, Debug)]
pub struct QueryOperands<'a> {
    /// The evaluation options.
    pub opts: &'a EvalOptions,
}

/// Keys that never name a plain attribute in an ad-hoc constraint.
fn special(k: Key) -> bool {
    matches!(
        k,
        kw::SELF
            | kw::MY
            | kw::TARGET
            | kw::OTHER
            | kw::PARENT
            | kw::ROOT
            | kw::TOPLEVEL
            | kw::CURRENT_TIME
    )
}

impl Operands for QueryOperands<'_> {
    fn reference(&self, e: &Expr) -> Option<Key> {
        match e.unparen() {
            Expr::Attr(n) | Expr::Root(n) if !special(n.key()) => Some(n.key()),
            _ => None,
        }
    }

    fn constant(&self, e: &Expr) -> Option<Value> {
        fold_constant(e, self.opts)
    }

    fn options(&self) -> &EvalOptions {
        self.opts
    }
}

/// Functions whose result depends on their arguments alone (no clock, no randomness, no
/// names read at run time) — `absTime` given one: without, it reads the clock
/// ([`reads_no_clock`]).
const PURE_FUNCTIONS: &[&str] = &[
    "reltime", "abstime", "int", "real", "string", "bool", "floor", "ceiling", "round", "pow",
    "quantize", "strcat", "toupper", "tolower", "substr", "size",
];

/// Whether a call of `f` (one of [`PURE_FUNCTIONS`]) with `args` reads no clock: `absTime()`
/// is the time now, folded once it would be stale in any later evaluation (a window made
/// now and searched, or held, later).
fn reads_no_clock(f: &str, args: &[Expr]) -> bool {
    !(f == "abstime" && args.is_empty())
}

/// True when `e` reads no attribute and calls pure functions only.
fn pure(e: &Expr, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let d = depth + 1;
    match e {
        Expr::Lit(Value::Ad(_)) => false,
        Expr::Lit(_) => true,
        Expr::Paren(x) | Expr::Unary(_, x) => pure(x, d),
        Expr::Binary(_, b) | Expr::Elvis(b) => pure(&b.0, d) && pure(&b.1, d),
        Expr::Cond(b) => pure(&b.0, d) && pure(&b.1, d) && pure(&b.2, d),
        Expr::List(items) | Expr::Chain(_, items) => items.iter().all(|i| pure(i, d)),
        Expr::Call(name, args) => {
            let f = name.key().as_str();
            PURE_FUNCTIONS.contains(&f)
                && reads_no_clock(f, args)
                && args.iter().all(|a| pure(a, d))
        }
        Expr::Attr(_) | Expr::Root(_) | Expr::Select(..) | Expr::Index(_) | Expr::Ad(_) => false,
    }
}

/// The value of `e` if it is the same in every context: a literal, or a pure expression
/// (evaluated here, alone). Evaluated at the top level: [`dpf`] folds only in constraints
/// nested well within evaluation's depth limit.
pub fn fold_constant(e: &Expr, opts: &EvalOptions) -> Option<Value> {
    fold_constant_nested(e, opts, 0)
}

/// [`fold_constant`] as if evaluation had entered `depth` levels before `e` (`None` also when
/// evaluating it from there runs out of a budget).
pub fn fold_constant_nested(e: &Expr, opts: &EvalOptions, depth: u32) -> Option<Value> {
    match e.unparen() {
        Expr::Lit(v) => Some(v.as_evaluated().into_owned()),
        e if pure(e, 0) => eval_expr_nested(e, &ClassAd::new(), opts, depth),
        _ => None,
    }
}

/// How `&&`, `||` and `!` take a value: `Some(b)` for booleans and numbers, `None` for
/// `undefined`, `error` and everything else (never true, and neither is its negation).
fn truth(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Int(i) => Some(*i != 0),
        Value::Real(r) => Some(*r != 0.0),
        _ => None,
    }
}

fn is_nan(v: &Value) -> bool {
    matches!(v, Value::Real(r) | Value::RelTime(r) if r.is_nan())
}

/// The relation true exactly where `x REL c` is false (not undefined or error), if it is a
/// property: `!(x < c)` is `x >= c`. A NaN `c` makes every comparison but `!=` false of every
/// value of its domain. `!(x is c)` is `x isnt c`: not a property.
fn negated(rel: Relation, c: &Value) -> Option<Relation> {
    if is_nan(c) {
        return match rel {
            Relation::Is => None,
            Relation::Ne => Some(Relation::Eq),
            _ => Some(Relation::Ne),
        };
    }
    Some(match rel {
        Relation::Lt => Relation::Ge,
        Relation::Le => Relation::Gt,
        Relation::Ge => Relation::Lt,
        Relation::Gt => Relation::Le,
        Relation::Eq => Relation::Ne,
        Relation::Ne => Relation::Eq,
        Relation::Is => return None,
    })
}

struct Builder<'o, O> {
    ops: &'o O,
    cap: usize,
    exact: bool,
    capped: bool,
}

impl<O: Operands> Builder<'_, O> {
    fn unknown(&mut self) -> Vec<Profile> {
        self.exact = false;
        vec![Profile::unknown()]
    }

    fn too_many(&mut self) -> Vec<Profile> {
        self.capped = true;
        self.unknown()
    }

    /// The profiles of `e` (of `!e` when `neg`).
    fn walk(&mut self, e: &Expr, neg: bool, depth: u32) -> Vec<Profile> {
        if depth > MAX_DEPTH {
            return self.unknown();
        }
        let d = depth + 1;
        let e = e.unparen();
        if let Some(v) = self.ops.constant(e) {
            let holds = truth(&v).is_some_and(|b| b != neg);
            return if holds {
                vec![Profile::default()]
            } else {
                Vec::new()
            };
        }
        // `&&` is a product of its operands' profiles, `||` a union; under `!` they swap. A
        // chain of either is read operand by operand (a 50,000-machine list costs no depth).
        if let Some((op @ (BinOp::And | BinOp::Or), terms)) = e.operands() {
            return if (op == BinOp::And) != neg {
                self.and(terms, neg, d)
            } else {
                self.or(terms, neg, d)
            };
        }
        match e {
            Expr::Unary(UnOp::Not, x) => self.walk(x, !neg, d),
            Expr::Binary(op, b) => match Relation::from_binop(*op) {
                Some(rel) => self.comparison(rel, &b.0, &b.1, neg),
                None if *op == BinOp::Isnt => self.isnt(&b.0, &b.1, neg),
                None => self.unknown(),
            },
            Expr::Cond(b) => {
                self.exact = false;
                let yes = self.walk(&b.0, false, d);
                let no = self.walk(&b.0, true, d);
                let then = self.walk(&b.1, neg, d);
                let other = self.walk(&b.2, neg, d);
                let left = self.product(yes, then);
                let right = self.product(no, other);
                self.union(left, right)
            }
            Expr::Elvis(b) => {
                self.exact = false;
                let l = self.walk(&b.0, neg, d);
                let r = self.walk(&b.1, neg, d);
                self.union(l, r)
            }
            _ => match self.ops.reference(e) {
                // A bare attribute is true when it is a non-zero number (or `true`).
                Some(attr) => vec![Profile::one(Prop {
                    attr,
                    rel: if neg { Relation::Eq } else { Relation::Ne },
                    value: Value::Real(0.0),
                })],
                None => self.unknown(),
            },
        }
    }

    /// The conjunction of `terms` (each walked with `neg`), folded from the left; an operand
    /// with no profile ends it.
    fn and<'e>(
        &mut self,
        mut terms: impl Iterator<Item = &'e Expr>,
        neg: bool,
        d: u32,
    ) -> Vec<Profile> {
        let Some(first) = terms.next() else {
            return vec![Profile::default()];
        };
        let mut acc = self.walk(first, neg, d);
        for t in terms {
            if acc.is_empty() {
                break;
            }
            let b = self.walk(t, neg, d);
            acc = self.product(acc, b);
        }
        acc
    }

    /// The disjunction of `terms` (each walked with `neg`), folded from the left.
    fn or<'e>(
        &mut self,
        mut terms: impl Iterator<Item = &'e Expr>,
        neg: bool,
        d: u32,
    ) -> Vec<Profile> {
        self.exact = false;
        let Some(first) = terms.next() else {
            return Vec::new();
        };
        let mut acc = self.walk(first, neg, d);
        for t in terms {
            let b = self.walk(t, neg, d);
            acc = self.union(acc, b);
        }
        acc
    }

    fn product(&mut self, mut a: Vec<Profile>, b: Vec<Profile>) -> Vec<Profile> {
        if a.is_empty() || b.is_empty() {
            return Vec::new();
        }
        if a.len().saturating_mul(b.len()) > self.cap {
            return self.too_many();
        }
        // One profile on the right (a property, the common case in a long `&&` chain): extend
        // the left profiles in place, so a chain's conjunction grows in linear time.
        if let [y] = &b[..] {
            for x in &mut a {
                x.props.extend(y.props.iter().cloned());
                x.deviant |= y.deviant;
            }
            return a;
        }
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in &a {
            for y in &b {
                out.push(x.and(y));
            }
        }
        out
    }

    fn union(&mut self, mut a: Vec<Profile>, b: Vec<Profile>) -> Vec<Profile> {
        for p in b {
            if !a.contains(&p) {
                a.push(p);
            }
        }
        // A universal profile subsumes the rest.
        if a.iter().any(Profile::is_universal) {
            return vec![Profile::default()];
        }
        if a.len() > self.cap {
            return self.too_many();
        }
        a
    }

    fn comparison(&mut self, rel: Relation, l: &Expr, r: &Expr, neg: bool) -> Vec<Profile> {
        let (attr, value, rel) = match (self.ops.reference(l), self.ops.reference(r)) {
            (Some(k), None) => match self.ops.constant(r) {
                Some(c) => (k, c, rel),
                None => return self.unknown(),
            },
            (None, Some(k)) => match self.ops.constant(l) {
                Some(c) => (k, c, rel.flipped()),
                None => return self.unknown(),
            },
            _ => return self.unknown(),
        };
        let rel = if neg {
            match negated(rel, &value) {
                Some(r) => r,
                None => return self.unknown(),
            }
        } else {
            rel
        };
        vec![Profile::one(Prop { attr, rel, value })]
    }

    /// `x isnt c` is true of absent and mistyped values: not a property; `!(x isnt c)` is
    /// `x is c`.
    fn isnt(&mut self, l: &Expr, r: &Expr, neg: bool) -> Vec<Profile> {
        if neg {
            self.comparison(Relation::Is, l, r, false)
        } else {
            self.unknown()
        }
    }
}

/// The disjunctive profile form of `e`, its operands read by `ops`, at most `cap` profiles per
/// sub-formula.
pub fn dpf(e: &Expr, ops: &impl Operands, cap: usize) -> Dpf {
    let mut b = Builder {
        ops,
        cap: cap.max(1),
        exact: true,
        capped: false,
    };
    // A constant folded here is evaluated alone, less deep than where evaluation of the whole
    // would reach it, and the other ad's values are trusted as read from up to
    // `import_depth` deep: a constraint nested deeper (near evaluation's depth limit, past
    // which the whole is `error`) has nothing folded or decided, and every candidate is
    // evaluated.
    let opts = ops.options();
    let limit = opts
        .max_depth
        .saturating_sub(BASE_DEPTH)
        .min(import_depth(opts).saturating_sub(2))
        .min(MAX_DEPTH);
    if e.nesting(limit.saturating_add(1)) > limit {
        let profiles = b.unknown();
        return Dpf {
            profiles,
            exact: false,
            capped: false,
        };
    }
    let profiles = b.walk(e, false, 0);
    Dpf {
        profiles,
        exact: b.exact,
        capped: b.capped,
    }
}

/// The profile form of `ad`'s requirements (`Requirements`, else `Constraint`), specialized
/// against `ad` itself. An ad without requirements matches nothing: no profile.
pub fn constraint_dpf(ad: &ClassAd, opts: &EvalOptions, cap: usize) -> Dpf {
    requirements_dpf(ad, opts, cap, specialize_attr_top)
}

/// The profile form of a unit's requirements as an index with options `opts` reads them: as a
/// match reads them ([`constraint_dpf`]), or, in the gang environment ([`PortScopes::Gang`]),
/// as Figure 32 reaches them: through a reference, the attribute held in progress while it is
/// evaluated (`[Requirements = isUndefined(x); x = Requirements]` is false in a match, true in
/// a gang, as classad2 evaluates both).
pub fn unit_constraint_dpf(ad: &ClassAd, opts: &IndexOptions) -> Dpf {
    let specialize = match opts.ports {
        PortScopes::Gang => specialize_attr,
        PortScopes::Pairwise => specialize_attr_top,
    };
    requirements_dpf(ad, &opts.eval, opts.profile_cap, specialize)
}

/// The profile form of `ad`'s requirements, specialized by `specialize`.
fn requirements_dpf(
    ad: &ClassAd,
    opts: &EvalOptions,
    cap: usize,
    specialize: fn(&ClassAd, &str, &EvalOptions) -> Option<Expr>,
) -> Dpf {
    let Some(key) = requirements_key(ad) else {
        return Dpf::never();
    };
    match specialize(ad, key.as_str(), opts) {
        Some(e) => dpf(&e, &AdOperands { ad, opts }, cap),
        None => Dpf::never(),
    }
}

/// The profile form of an ad-hoc constraint over a stored ad's attributes (evaluated with the
/// stored ad as MY).
pub fn query_dpf(e: &Expr, opts: &EvalOptions, cap: usize) -> Dpf {
    dpf(e, &QueryOperands { opts }, cap)
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn opts(fallback: bool) -> EvalOptions {
        EvalOptions {
            target_fallback: fallback,
            ..EvalOptions::default()
        }
    }

    /// Renders a profile form as `x<3&y==1 | deviant` for table tests (relations by symbol,
    /// constants printed as ClassAd literals).
    fn render(d: &Dpf) -> String {
        let sym = |r: Relation| match r {
            Relation::Lt => "<",
            Relation::Le => "<=",
            Relation::Eq => "==",
            Relation::Ne => "!=",
            Relation::Ge => ">=",
            Relation::Gt => ">",
            Relation::Is => " is ",
        };
        let profiles: Vec<String> = d
            .profiles
            .iter()
            .map(|p| {
                let mut parts: Vec<String> = p
                    .props
                    .iter()
                    .map(|q| format!("{}{}{}", q.attr.as_str(), sym(q.rel), q.value))
                    .collect();
                if p.deviant {
                    parts.push("?".into());
                }
                if parts.is_empty() {
                    "true".into()
                } else {
                    parts.join("&")
                }
            })
            .collect();
        let body = if profiles.is_empty() {
            "never".to_string()
        } else {
            profiles.join(" | ")
        };
        format!("{body}{}", if d.exact { "" } else { " ~" })
    }

    /// `(ad, requirements form, fallback)` — `~` marks an inexact form, `?` a deviant profile.
    #[test]
    #[rustfmt::skip]
    fn constraint_table() {
        let cases = [
            ("[Memory = 64; Requirements = TARGET.MemoryReqs < Memory - 15]", "memoryreqs<49", true),
            ("[Constraint = other.y >= 7]", "y>=7", false),
            ("[I = 4.5; Requirements = TARGET.Arch == \"INTEL\" && TARGET.VirtualMemory > I]", "arch==\"INTEL\"&virtualmemory>4.500000000000000E+00", true),
            ("[Requirements = 10 > TARGET.x]", "x<10", true),
            ("[Requirements = !(TARGET.x < 10)]", "x>=10", true),
            ("[Requirements = !(TARGET.x == 1 || TARGET.y != \"a\")]", "x!=1&y==\"a\"", true),
            ("[Requirements = !(TARGET.x == 1 && TARGET.y >= 2)]", "x!=1 | y<2 ~", true),
            ("[Requirements = TARGET.x < 1 || TARGET.x > 5]", "x<1 | x>5 ~", true),
            ("[Requirements = (TARGET.a || TARGET.b) && (TARGET.c || !TARGET.d)]", "a!=0.0&c!=0.0 | a!=0.0&d==0.0 | b!=0.0&c!=0.0 | b!=0.0&d==0.0 ~", true),
            ("[Requirements = TARGET.HasJava]", "hasjava!=0.0", true),
            ("[Requirements = !TARGET.HasJava && true]", "hasjava==0.0", true),
            ("[Requirements = Arch == \"INTEL\"]", "arch==\"INTEL\"", true),
            ("[Requirements = Arch == \"INTEL\"]", "never", false),
            ("[Arch = \"X\"; Requirements = Arch == \"INTEL\"]", "never", true),
            ("[Requirements = TARGET.x + 1 > 3 && TARGET.y == 2]", "y==2&? ~", true),
            ("[Requirements = TARGET.x > TARGET.y]", "? ~", true),
            ("[Requirements = regexp(\"a\", TARGET.Name) && TARGET.Cpus >= 2]", "cpus>=2&? ~", true),
            ("[Requirements = TARGET.x =?= 3]", "x is 3", true),
            ("[Requirements = TARGET.x =!= undefined && TARGET.x > 3]", "x>3&? ~", true),
            ("[Requirements = !(TARGET.x =!= \"a\")]", "x is \"a\"", true),
            ("[Requirements = !(TARGET.x =?= \"a\")]", "? ~", true),
            ("[Requirements = TARGET.x < undefined]", "x<undefined", true),
            ("[Requirements = !(TARGET.x < real(\"NaN\"))]", "x!=real(\"NaN\")", true),
            ("[Requirements = TARGET.x == true]", "x==true", true),
            ("[Requirements = TARGET.t < relTime(90)]", "t<relTime(\"01:30\")", true),
            ("[Requirements = TARGET[\"Cpus\"] > 1]", "cpus>1", true),
            ("[t = TARGET; Requirements = t.Cpus > 1]", "? ~", true),
            ("[target = [x = 1]; Requirements = target.x > 0]", "true", true),
            ("[Requirements = TARGET.x > 1 ? TARGET.y : TARGET.z]", "x>1&y!=0.0 | x<=1&z!=0.0 ~", true),
            ("[Requirements = TARGET.x ?: TARGET.y]", "x!=0.0 | y!=0.0 ~", true),
            ("[Requirements = false || TARGET.x > 1]", "x>1", true),
            ("[Requirements = TARGET.x > 1 && false]", "never", true),
            ("[Requirements = TARGET.x > 1 && \"s\"]", "never", true),
            ("[Requirements = undefined || TARGET.x > 1]", "x>1 ~", true),
            ("[Requirements = TARGET.x > 1 || true]", "true ~", true),
            ("[Requirements = true]", "true", true),
            ("[Requirements = 0]", "never", true),
            ("[Requirements = TARGET.Machine.Name == \"a\"]", "? ~", true),
            // A selection from the other ad's attribute, not the attribute (found by the
            // `cycle` fuzz target: `TARGET.Arch.Arch` is `error` when Arch is a string).
            ("[Requirements = TARGET.Arch.Arch == \"X86_64\"]", "? ~", true),
            ("[Requirements = TARGET.Arch[\"Arch\"] == \"X86_64\"]", "? ~", true),
            ("[Requirements = (TARGET).Arch == \"X86_64\"]", "arch==\"X86_64\"", true),
            ("[Rank = 1]", "never", true),
        ];
        let mut wrong = Vec::new();
        for (text, want, fallback) in cases {
            let ad = parse::classad(text).expect("ad");
            let got = render(&constraint_dpf(&ad, &opts(fallback), PROFILE_CAP));
            if got != want {
                wrong.push(format!("{text} (fallback {fallback}): got {got}, want {want}"));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn cap_makes_a_deviant_profile() {
        // 2^7 = 128 profiles > 64: the cap is reached.
        let parts: Vec<String> = (0..7)
            .map(|i| format!("(TARGET.a{i} < 1 || TARGET.b{i} > 2)"))
            .collect();
        let ad = parse::classad(&format!("[Requirements = {}]", parts.join(" && "))).expect("ad");
        let d = constraint_dpf(&ad, &opts(true), PROFILE_CAP);
        assert!(d.capped && !d.exact);
        assert!(d.profiles.len() <= PROFILE_CAP);
        assert!(d.profiles.iter().any(|p| p.deviant));
        let small = constraint_dpf(&ad, &opts(true), 1000);
        assert_eq!(small.profiles.len(), 128);
        assert!(!small.capped);
    }

    /// Ad-hoc constraints: the stored ad's attributes are unscoped names, `MY.x` and `.x`.
    #[test]
    #[rustfmt::skip]
    fn query_table() {
        let cases = [
            ("Memory >= 2048", "memory>=2048"),
            ("Memory > 1024 * 2 && .Cpus == 4", "memory>2048&cpus==4"),
            ("MY.Memory > 1", "? ~"),
            ("Arch == \"x86_64\" || Memory > 10", "arch==\"x86_64\" | memory>10 ~"),
            ("TARGET.Memory > 1", "? ~"),
            ("CurrentTime > 5", "? ~"),
            ("Memory > time()", "? ~"),
            ("[a = Memory].a > 5", "? ~"),
            ("-5 < Disk", "disk>-5"),
            ("Memory", "memory!=0.0"),
            ("undefined", "never"),
        ];
        for (q, want) in cases {
            let e = parse::expr(q).expect("expr");
            assert_eq!(render(&query_dpf(&e, &opts(true), PROFILE_CAP)), want, "{q}");
        }
    }

    #[test]
    fn folding_table() {
        let o = opts(true);
        let cases = [
            ("2 * 1024", Some(Value::Int(2048))),
            ("relTime(90)", Some(Value::RelTime(90.0))),
            ("strcat(\"a\", \"b\")", Some(Value::str("ab"))),
            ("time()", None),
            ("x + 1", None),
            ("random(3)", None),
        ];
        for (e, want) in cases {
            let got = fold_constant(&parse::expr(e).expect("expr"), &o);
            assert_eq!(got, want, "{e}");
        }
    }
}
