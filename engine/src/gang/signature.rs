//! Which offers are interchangeable in every gang: DYNS's summarization (dissertation 5.8)
//! made exact.
//!
//! The dissertation puts offers whose rectangles are identical — imported points and exported
//! intervals — into one bucket and lets one representative stand for the bucket. Rectangles
//! alone do not decide dockings in the Figure-32 environment (an inexact conversion, a value
//! read by an expression rather than compared, `||` with an error on one side, NaN), so an
//! offer's [`Signature`] holds, besides its rectangles, everything else evaluation can read:
//!
//! - per port: its label, which attribute is its constraint, its `Rank` as written, and the
//!   constraint either as the index's rectangle — only when the conversion is exact and the
//!   constraint is a conjunction of comparisons (`<`, `<=`, `>`, `>=`, `==`) of the partner's
//!   attributes (`Job.HostId`) with expressions over the port's own record and ad (bound there,
//!   not shadowed) — or else as written;
//! - every attribute of the ad and of its ports that some expression of the cycle *names*
//!   ([`Reads`]: requests, offers, `--dock` vectors), as written: the imported side, and
//!   whatever a partner, a docking vector or the offer itself reads;
//! - nothing else: an attribute no expression names (a license's serial number) cannot change
//!   a docking.
//!
//! When some expression of the cycle may read what it does not name (`eval`, `random`, a
//! computed subscript, a scope keyword or a port label used as a whole record), [`Reads`] is
//! *everything* and offers group only when alike attribute for attribute.
//!
//! Two offers with equal signatures give the same value to every constraint, rank and docking
//! vector in any gang where one stands for the other, so one failing at a port means the other
//! fails there, and a representative may stand for all.

use super::ports::{label, ports_key, rank_key, records, GangAd};
use adjoin_index::ports::units_for;
use adjoin_index::{rectangles, unit_constraint_dpf, IndexOptions};
use adjoin_query::ast::BinOp;
use adjoin_query::name::kw;
use adjoin_query::refs;
use adjoin_query::structural;
use adjoin_query::{ClassAd, Expr, Key, Value};
use rustc_hash::FxHashSet;
use std::hash::{Hash, Hasher};

/// Deepest nesting the walks follow (deeper: treated as reading anything).
const MAX_DEPTH: u32 = 400;

/// The attribute names the expressions of a cycle can read, or everything.
#[derive(Clone, Debug, Default)]
pub struct Reads {
    /// The names mentioned (case-folded keys); `None`: anything may be read.
    names: Option<FxHashSet<Key>>,
}

impl Reads {
    /// Every attribute may be read: offers group only when alike attribute for attribute.
    pub fn everything() -> Reads {
        Reads { names: None }
    }

    /// What the attributes of `ads` (requests and offers) and the expressions `exprs` (a
    /// docking vector, reading `request` and `offer`) can read.
    pub fn of<'a>(ads: impl IntoIterator<Item = &'a ClassAd> + Clone, exprs: &[Expr]) -> Reads {
        // Names that evaluate to a whole record in the environment: port labels, the
        // environment's own names, and the docking vector's two records.
        let mut wholes: FxHashSet<Key> = ["_ad", "request", "offer"]
            .iter()
            .map(|s| Key::of(s))
            .collect();
        for ad in ads.clone() {
            for rec in port_records(ad) {
                if let Some(l) = label(rec) {
                    wholes.insert(l.key());
                }
            }
        }
        let mut names = FxHashSet::default();
        let mut found = Vec::new();
        let mut visit = |e: &Expr| -> bool {
            if !refs::complete(e) || whole_record(e, &wholes, false, 0) {
                return false;
            }
            found.clear();
            structural::names(e, &mut found);
            names.extend(found.iter().copied());
            true
        };
        for ad in ads {
            for (n, e) in ad.iter() {
                let ok = if n.key() == ports_key() && !port_records(ad).is_empty() {
                    // Port records: every attribute but the label, which names no attribute.
                    port_records(ad).into_iter().all(|rec| {
                        rec.iter()
                            .filter(|(m, _)| m.key() != Key::of("Label"))
                            .all(|(_, x)| visit(x))
                    })
                } else {
                    visit(e)
                };
                if !ok {
                    return Reads::everything();
                }
            }
        }
        for e in exprs {
            if !visit(e) {
                return Reads::everything();
            }
        }
        Reads { names: Some(names) }
    }

    /// Whether attribute `k` may be read.
    pub fn contains(&self, k: Key) -> bool {
        match &self.names {
            Some(n) => n.contains(&k),
            None => true,
        }
    }
}

/// The port records of `ad` (none unless its `Ports` is a good list of records).
fn port_records(ad: &ClassAd) -> Vec<&ClassAd> {
    ad.get_key(ports_key())
        .and_then(|e| records(e).ok())
        .unwrap_or_default()
}

/// Whether `e` uses a name of `records` (or `_ctx_N`) as a whole record — anything but the base
/// of a selection — which reads attributes it does not name.
fn whole_record(e: &Expr, records: &FxHashSet<Key>, base: bool, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let r = |x: &Expr| whole_record(x, records, false, depth + 1);
    match e {
        Expr::Attr(n) => {
            !base
                && (records.contains(&n.key())
                    || n.as_str().to_ascii_lowercase().starts_with("_ctx_"))
        }
        Expr::Select(b, n) => {
            (!base && records.contains(&n.key())) || whole_record(b, records, true, depth + 1)
        }
        Expr::Paren(x) => whole_record(x, records, base, depth + 1),
        Expr::Lit(_) | Expr::Root(_) => false,
        Expr::Unary(_, x) => r(x),
        Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => r(&b.0) || r(&b.1),
        Expr::Cond(b) => r(&b.0) || r(&b.1) || r(&b.2),
        Expr::Call(_, xs) | Expr::List(xs) | Expr::Chain(_, xs) => xs.iter().any(r),
        Expr::Ad(ad) => ad.iter().any(|(_, x)| r(x)),
    }
}

/// How a port's constraint enters the signature.
#[derive(Clone, Debug)]
enum Shape {
    /// Its rectangle, rendered (the conversion is exact and decides every docking).
    Rectangle(String),
    /// As written (or absent).
    Written(Option<Expr>),
}

/// One port's part of a signature.
#[derive(Clone, Debug)]
struct PortSig {
    label: Key,
    constraint: Option<Key>,
    shape: Shape,
    rank: Option<Expr>,
    attrs: Vec<(Key, Expr)>,
}

/// What decides every docking of an offer (see the module note): equal signatures,
/// interchangeable offers.
#[derive(Clone, Debug)]
pub struct Signature {
    implicit: bool,
    attrs: Vec<(Key, Expr)>,
    ports: Vec<PortSig>,
}

/// The signature of `g` when the cycle reads `reads`, its rectangles converted with `opts`
/// (`None`: every constraint as written — a finer key, equal only where the signatures are:
/// a cheap first look before the rectangles are converted).
pub fn signature(g: &GangAd, reads: &Reads, opts: Option<&IndexOptions>) -> Signature {
    let pick = |rec: &ClassAd| -> Vec<(Key, Expr)> {
        let mut v: Vec<(Key, Expr)> = rec
            .iter()
            .filter(|(n, _)| reads.contains(n.key()))
            .map(|(n, e)| (n.key(), e.clone()))
            .collect();
        v.sort_by_key(|x| x.0 .0);
        v
    };
    let mut views = None;
    let ports = g
        .ports
        .iter()
        .enumerate()
        .map(|(p, port)| {
            let rec = g.record(p);
            let written = port
                .constraint
                .and_then(|k| rec.and_then(|r| r.get_key(k)))
                .cloned();
            let shape = match (opts, rec.filter(|r| comparisons(g, p, r))) {
                (Some(opts), Some(_)) => {
                    let views = views.get_or_insert_with(|| units_for(&g.ad, opts));
                    views
                        .get(p)
                        .map(|u| rectangles(&unit_constraint_dpf(&u.ad, opts), opts.rectangle_cap))
                        .filter(|r| {
                            r.exact && r.rects.len() <= 1 && r.rects.iter().all(|x| !x.deviant)
                        })
                        .map_or(Shape::Written(written.clone()), |r| {
                            Shape::Rectangle(format!("{:?}", r.rects))
                        })
                }
                _ => Shape::Written(written),
            };
            PortSig {
                label: port.label.key(),
                constraint: port.constraint,
                shape,
                rank: rec.and_then(|r| r.get_key(rank_key())).cloned(),
                attrs: if g.implicit {
                    Vec::new()
                } else {
                    rec.map(pick).unwrap_or_default()
                },
            }
        })
        .collect();
    Signature {
        implicit: g.implicit,
        attrs: pick(&g.ad),
        ports,
    }
}

/// Whether the constraint of port `p` (record `rec`) is a conjunction of comparisons
/// `L.X REL e` (or `e REL L.X`), `L` the port's own partner and `e` read from the port's own
/// record and ad alone: such a constraint is true exactly when every comparison is, which an
/// exact rectangle decides for any partner value (NaN, errors and all).
fn comparisons(g: &GangAd, p: usize, rec: &ClassAd) -> bool {
    let Some(port) = g.ports.get(p) else {
        return false;
    };
    let Some(c) = port.constraint.and_then(|k| rec.get_key(k)) else {
        return false;
    };
    let unbound = |k: Key| rec.get_key(k).is_none() && g.ad.get_key(k).is_none();
    let partner: Vec<Key> = if g.implicit {
        vec![kw::TARGET, kw::OTHER]
    } else {
        vec![port.label.key()]
    };
    let partner: Vec<Key> = partner.into_iter().filter(|&k| unbound(k)).collect();
    let local = Local { g, rec };
    conjunction(c, &partner, &local, 0)
}

/// See [`comparisons`].
fn conjunction(e: &Expr, partner: &[Key], local: &Local<'_>, depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    let side = |x: &Expr| match x.unparen() {
        Expr::Select(b, _) => matches!(b.unparen(), Expr::Attr(l) if partner.contains(&l.key())),
        _ => false,
    };
    match e.unparen() {
        Expr::Binary(BinOp::And, b) => {
            conjunction(&b.0, partner, local, depth + 1)
                && conjunction(&b.1, partner, local, depth + 1)
        }
        Expr::Chain(BinOp::And, xs) => xs.iter().all(|x| conjunction(x, partner, local, depth + 1)),
        Expr::Binary(BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq, b) => {
            (side(&b.0) && local.reads(&b.1, false, 0))
                || (side(&b.1) && local.reads(&b.0, false, 0))
        }
        _ => false,
    }
}

/// A port's own record over its ad, as the index's port view flattens them.
struct Local<'a> {
    g: &'a GangAd,
    rec: &'a ClassAd,
}

impl Local<'_> {
    /// Whether `e`, written in the port record (`in_ad`: in the ad), reads only attributes
    /// bound in the record or ad where the environment and the index's flattened view find the
    /// same binding, and nothing else (no label, keyword, nested record or `eval`).
    fn reads(&self, e: &Expr, in_ad: bool, depth: u32) -> bool {
        if depth > MAX_DEPTH || !refs::complete(e) {
            return false;
        }
        let r = |x: &Expr| self.reads(x, in_ad, depth + 1);
        match e {
            Expr::Lit(v) => !matches!(v, Value::Ad(_)),
            Expr::Attr(n) => {
                let k = n.key();
                if k.0 <= kw::CURRENT_TIME.0 || k == ports_key() {
                    return false;
                }
                let (rec, ad) = if self.g.implicit {
                    (None, self.g.ad.get_key(k))
                } else {
                    (self.rec.get_key(k), self.g.ad.get_key(k))
                };
                match (rec, ad) {
                    // The record's binding: the environment finds it from the record only.
                    (Some(x), _) if !in_ad => self.reads(x, false, depth + 1),
                    (None, Some(x)) => self.reads(x, true, depth + 1),
                    _ => false,
                }
            }
            Expr::Select(..) | Expr::Root(_) | Expr::Ad(_) => false,
            Expr::Unary(_, x) | Expr::Paren(x) => r(x),
            Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => r(&b.0) && r(&b.1),
            Expr::Cond(b) => r(&b.0) && r(&b.1) && r(&b.2),
            Expr::Call(_, xs) | Expr::List(xs) | Expr::Chain(_, xs) => xs.iter().all(r),
        }
    }
}

fn same_attrs(a: &[(Key, Expr)], b: &[(Key, Expr)]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.0 == y.0 && structural::same(&x.1, &y.1))
}

fn same_opt(a: &Option<Expr>, b: &Option<Expr>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => structural::same(x, y),
        (None, None) => true,
        _ => false,
    }
}

fn hash_attrs<H: Hasher>(a: &[(Key, Expr)], h: &mut H) {
    a.len().hash(h);
    for (k, e) in a {
        k.hash(h);
        structural::hash(e, h);
    }
}

fn hash_opt<H: Hasher>(a: &Option<Expr>, h: &mut H) {
    match a {
        Some(e) => {
            1u8.hash(h);
            structural::hash(e, h);
        }
        None => 0u8.hash(h),
    }
}

impl PartialEq for PortSig {
    fn eq(&self, o: &PortSig) -> bool {
        self.label == o.label
            && self.constraint == o.constraint
            && match (&self.shape, &o.shape) {
                (Shape::Rectangle(a), Shape::Rectangle(b)) => a == b,
                (Shape::Written(a), Shape::Written(b)) => same_opt(a, b),
                _ => false,
            }
            && same_opt(&self.rank, &o.rank)
            && same_attrs(&self.attrs, &o.attrs)
    }
}

impl Hash for PortSig {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.label.hash(h);
        self.constraint.hash(h);
        match &self.shape {
            Shape::Rectangle(s) => {
                0u8.hash(h);
                s.hash(h);
            }
            Shape::Written(e) => {
                1u8.hash(h);
                hash_opt(e, h);
            }
        }
        hash_opt(&self.rank, h);
        hash_attrs(&self.attrs, h);
    }
}

impl PartialEq for Signature {
    fn eq(&self, o: &Signature) -> bool {
        self.implicit == o.implicit && same_attrs(&self.attrs, &o.attrs) && self.ports == o.ports
    }
}

impl Eq for Signature {}

impl Hash for Signature {
    fn hash<H: Hasher>(&self, h: &mut H) {
        self.implicit.hash(h);
        hash_attrs(&self.attrs, h);
        self.ports.hash(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;
    use std::sync::Arc;

    fn gad(text: &str) -> GangAd {
        GangAd::new(Arc::new(parse::classad(text).expect("ad"))).expect("ports")
    }

    /// Whether offers `a` and `b` share a signature when the cycle's expressions are those of
    /// `readers` and the two offers.
    fn alike(readers: &[&str], a: &str, b: &str) -> bool {
        let ads: Vec<ClassAd> = readers
            .iter()
            .chain([&a, &b])
            .map(|t| parse::classad(t).expect("ad"))
            .collect();
        let reads = Reads::of(ads.iter(), &[]);
        let opts = IndexOptions::default();
        signature(&gad(a), &reads, Some(&opts)) == signature(&gad(b), &reads, Some(&opts))
    }

    #[test]
    fn interchangeable_offers() {
        let job = "[Ports = {[Label = Cpu; Constraint = Cpu.Arch == \"X\"], \
                   [Label = License; HostId = Cpu.Key; Constraint = License.App == 1]}]";
        let lic = |extra: &str, c: &str| {
            format!("[App = 1; {extra} Ports = {{[Label = Site; Constraint = {c}]}}]")
        };
        let cases: &[(&[&str], String, String, bool)] = &[
            // An attribute no expression names does not matter.
            (
                &[job],
                lic("Serial = 1;", "Site.HostId >= 5"),
                lic("Serial = 2;", "Site.HostId >= 5"),
                true,
            ),
            // One every job reads does.
            (
                &[job],
                lic("", "Site.HostId >= 5"),
                lic("App = 2;", "Site.HostId >= 5"),
                false,
            ),
            // Once named anywhere, it is read.
            (
                &["[x = Serial]", job],
                lic("Serial = 1;", "Site.HostId >= 5"),
                lic("Serial = 2;", "Site.HostId >= 5"),
                false,
            ),
            // Equal rectangles, written differently: conjuncts swapped, names spelled apart.
            (
                &[job],
                lic("", "Site.HostId >= 5 && Site.HostId < 9"),
                lic("", "Site.HOSTID < 9 && 5 <= Site.HostId"),
                true,
            ),
            (
                &[job],
                lic("Lo = 5;", "Site.HostId >= Lo"),
                lic("Lo = 5;", "Site.HostId >= 5"),
                true,
            ),
            // Three conjuncts (one chain), regrouped.
            (
                &[job],
                lic("", "Site.HostId >= 5 && Site.HostId < 9 && Site.App == 1"),
                lic("", "Site.App == 1 && (Site.HostId < 9 && 5 <= Site.HostId)"),
                true,
            ),
            (
                &[job],
                lic(
                    "",
                    "Site.HostId >= 5 && Site.HostId < 9 || Site.App == 1 && false",
                ),
                lic("", "Site.HostId >= 5 && Site.HostId < 9"),
                false,
            ),
            // Different rectangles.
            (
                &[job],
                lic("", "Site.HostId >= 5"),
                lic("", "Site.HostId > 5"),
                false,
            ),
            // Equal rectangles, but not a conjunction of comparisons: as written.
            (
                &[job],
                lic("", "Site.HostId != 5"),
                lic("", "Site.HostId < 5 || Site.HostId > 5"),
                false,
            ),
            (
                &[job],
                lic("", "Site.HostId >= 5 || Site.Foo > 1"),
                lic("", "Site.Foo > 1 || Site.HostId >= 5"),
                false,
            ),
            // An unscoped name the port does not bind: no fallback to the partner in the gang.
            (
                &[job],
                lic("", "HostId >= 5"),
                lic("", "Site.HostId >= 5"),
                false,
            ),
            // The label itself.
            (
                &[job],
                lic("", "Site.HostId >= 5"),
                "[App = 1; Ports = {[Label = Job; Constraint = Job.HostId >= 5]}]".to_owned(),
                false,
            ),
            // A record used whole reads everything: alike attribute for attribute only.
            (
                &[
                    "[Ports = {[Label = a; x = size(a); Constraint = true]}]",
                    job,
                ],
                lic("Serial = 1;", "Site.HostId >= 5"),
                lic("Serial = 2;", "Site.HostId >= 5"),
                false,
            ),
            (
                &["[y = eval(\"Serial\")]", job],
                lic("Serial = 1;", "Site.HostId >= 5"),
                lic("Serial = 1;", "Site.HostId >= 5"),
                true,
            ),
            (
                &["[y = eval(\"Serial\")]", job],
                lic("Serial = 1;", "Site.HostId >= 5"),
                lic("Serial = 2;", "Site.HostId >= 5"),
                false,
            ),
            // Plain ads.
            (
                &["[Requirements = TARGET.Memory > 1]"],
                "[Memory = 2; Name = \"a\"; Requirements = TARGET.X > 1]".to_owned(),
                "[Memory = 2; Name = \"b\"; Requirements = other.X > 1]".to_owned(),
                true,
            ),
            (
                &["[Requirements = TARGET.Memory > 1]"],
                "[Memory = 2; Requirements = true]".to_owned(),
                "[Memory = 3; Requirements = true]".to_owned(),
                false,
            ),
        ];
        for (readers, a, b, want) in cases {
            assert_eq!(alike(readers, a, b), *want, "{readers:?}\n{a}\n{b}");
        }
    }
}
