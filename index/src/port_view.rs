//! A port's *view*: the one flat ad a port is matched through (dissertation 3.2), holding its
//! record's attributes and its ad's (except `Ports`), rewritten so that evaluating the flat ad
//! finds what the port's lexical scope finds.
//!
//! Scoping, as HTCondor evaluates a record written in a list of its ad (and as the gang
//! environment of Figure 32 nests them):
//!
//! - a name written in the record is looked up in the record, then in the ad; a name written
//!   in the ad only in the ad: an ad attribute that reads `Y`, where the record binds its own
//!   `Y`, reads the ad's. Such an ad binding is kept under an alias (`'outer.Y'`) the
//!   rewritten ad expressions read;
//! - a port's own label (`Label = Cpu`, read as `Cpu.Memory`) names its partner: `TARGET` in
//!   the view, unless the record or ad binds that name, which then wins;
//! - another port's label names a partner a pairwise match does not know: it becomes an opaque
//!   reference the index cannot read (so never excludes on its account) and that evaluates to
//!   `undefined` — also when the label is `other` or `TARGET`;
//! - `MY` (and `self`, `parent` in a record) name the ad: `MY.Y` reads the ad's `Y` (under
//!   the old semantics `MY` is the ad the expression is written in, as `self` always is);
//! - names bound nowhere, and the keywords `TARGET` and `other`, depend on where the view is
//!   used ([`PortScopes`]): a pairwise match lets them reach the candidate, as for any ad;
//!   the gang environment binds nothing there, so they are `undefined`.
//!
//! Names inside nested ad literals, and names built at run time (`eval("X")`), are left as
//! written in a pairwise view; in a gang view such a nested ad or `eval` call is opaque to the
//! index.

use adjoin_query::name::kw;
use adjoin_query::{ClassAd, Expr, Key, Name, Value};
use std::cell::RefCell;

/// How a port's view reads the names its record and ad do not bind.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PortScopes {
    /// The port matched pairwise, as one ad (cycles, joins, queries): `TARGET`/`other` are the
    /// candidate, and unbound names fall back to it under the old semantics.
    #[default]
    Pairwise,
    /// The gang environment (Figure 32): only the port's own label reaches the partner;
    /// `TARGET`, `other` and unbound names are `undefined`.
    Gang,
}

/// Deepest nesting rewritten (the parser's trees are at most 1,000 deep; deeper parts of
/// built ones are kept as written).
const MAX_DEPTH: u32 = 2000;

/// Where an expression is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum In {
    Record,
    Ad,
}

/// What a name denotes where it is written.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Meaning {
    /// The record's attribute.
    Record,
    /// The ad's attribute.
    Ad,
    /// The port's partner (its own label).
    Partner,
    /// Another port's partner.
    OtherPort,
    /// The ad itself (`MY`, `self`, `parent`, as the scope has it).
    TheAd,
    /// The record itself (`self` written in it): the view stands for it.
    TheRecord,
    /// Something the index must not read (the ad's `Ports`, the gang context's own names).
    Opaque,
    /// What the flat view makes of the name as written.
    Keep,
    /// Nothing: `undefined`.
    Undefined,
    /// An unbound name the old semantics looks up in the candidate, shadowed in the flat view.
    Fallback,
}

/// The key of `Ports`.
pub(crate) fn ports_key() -> Key {
    Key::of("ports")
}

struct Rewriter<'a> {
    record: &'a ClassAd,
    ad: &'a ClassAd,
    own: Option<Key>,
    labels: &'a [Key],
    scopes: PortScopes,
    fallback: bool,
    /// An ad without ports (its implicit port `other`): the gang context binds `TARGET` and
    /// `other` to its partner.
    implicit: bool,
    /// Ad attributes the record shadows and ad expressions read (given aliases).
    aliased: RefCell<Vec<Name>>,
}

/// The alias under which an ad binding the record shadows is kept.
fn alias(n: Name) -> Name {
    Name::new(&format!("outer.{}", n.as_str()))
}

/// A reference to another port's partner: undefined when evaluated, and not a property the
/// index can read (a selection from a selection of `TARGET`).
fn opaque(n: Name) -> Expr {
    let base = Expr::Select(
        Box::new(Expr::Attr(Name::new("TARGET"))),
        Name::new("gang partner"),
    );
    Expr::Select(Box::new(base), n)
}

impl Rewriter<'_> {
    fn in_record(&self, k: Key) -> bool {
        self.record.get_key(k).is_some()
    }

    fn in_ad(&self, k: Key) -> bool {
        k != ports_key() && self.ad.get_key(k).is_some()
    }

    /// What unscoped `k`, written `at`, denotes; `select`: it is the name selected from an ad
    /// (`MY.k`), looked up from there outwards with no fallback at the end. As the evaluator
    /// looks names up: the scope's own binding, then a keyword's meaning (`self`, `parent`,
    /// `root`, `toplevel`; `MY` and `CurrentTime` under the old semantics), then the enclosing
    /// scopes (the ad, then the gang context: the labels, then `MY = _ad`, `_ad`).
    fn meaning(&self, k: Key, at: In, select: bool) -> Meaning {
        let gang = self.scopes == PortScopes::Gang;
        match at {
            In::Record if self.in_record(k) => return Meaning::Record,
            In::Ad if self.in_ad(k) => return Meaning::Ad,
            In::Ad if k == ports_key() => return Meaning::Opaque,
            _ => {}
        }
        match k {
            kw::SELF => return self.this(at),
            kw::MY | kw::CURRENT_TIME if self.fallback => {
                return match k {
                    kw::MY => self.this(at),
                    _ => Meaning::Keep,
                }
            }
            kw::PARENT => {
                return match (at, gang) {
                    (In::Record, _) => Meaning::TheAd,
                    (In::Ad, true) => Meaning::Opaque,
                    (In::Ad, false) => Meaning::Keep,
                }
            }
            kw::ROOT | kw::TOPLEVEL => {
                return match gang {
                    true => Meaning::Opaque,
                    false => Meaning::Keep,
                }
            }
            _ => {}
        }
        if at == In::Record {
            if self.in_ad(k) {
                return Meaning::Ad;
            }
            if k == ports_key() {
                return Meaning::Opaque;
            }
        }
        // The gang context binds the labels, then `MY = _ad` (which wins over a label `MY`).
        if k == kw::MY {
            return Meaning::TheAd;
        }
        if Some(k) == self.own {
            return Meaning::Partner;
        }
        if self.labels.contains(&k) {
            return Meaning::OtherPort;
        }
        if gang {
            if k == Key::of("_ad") {
                return Meaning::TheAd;
            }
            if k.as_str().starts_with("_ctx_") {
                return Meaning::Opaque;
            }
        }
        match k {
            kw::TARGET | kw::OTHER if gang && !self.implicit => Meaning::Undefined,
            kw::TARGET | kw::OTHER => Meaning::Keep,
            _ if gang || select => Meaning::Undefined,
            // Written in the ad, bound by the record alone: the flat view would find the
            // record's binding.
            _ if self.in_record(k) => match self.fallback {
                true => Meaning::Fallback,
                false => Meaning::Undefined,
            },
            _ => Meaning::Keep,
        }
    }

    /// What `self` (or the old semantics' `MY`) written `at` denotes.
    fn this(&self, at: In) -> Meaning {
        match at {
            In::Record => Meaning::TheRecord,
            In::Ad => Meaning::TheAd,
        }
    }

    /// Unscoped `n` written `at`, rewritten.
    fn name(&self, n: Name, at: In, select: bool) -> Expr {
        let k = n.key();
        match self.meaning(k, at, select) {
            // A keyword written in the record whose name the ad binds: the flat view would find
            // the ad's binding, where the record's scope finds the keyword first.
            Meaning::Keep | Meaning::TheRecord if at == In::Record && self.in_ad(k) => match k {
                kw::CURRENT_TIME => Expr::Call(Name::new("time"), Vec::new()),
                _ => opaque(n),
            },
            Meaning::Record | Meaning::Keep | Meaning::TheRecord => Expr::Attr(n),
            Meaning::Opaque => opaque(n),
            Meaning::Ad if self.in_record(k) => {
                let mut aliased = self.aliased.borrow_mut();
                if !aliased.iter().any(|a| a.key() == k) {
                    aliased.push(n);
                }
                Expr::Attr(alias(n))
            }
            Meaning::Ad => Expr::Attr(n),
            Meaning::Partner => Expr::Attr(Name::new("TARGET")),
            Meaning::OtherPort => opaque(n),
            Meaning::TheAd => match self.scopes {
                PortScopes::Pairwise => Expr::Attr(n),
                PortScopes::Gang => opaque(n),
            },
            Meaning::Undefined => Expr::Lit(Value::Undefined),
            Meaning::Fallback => Expr::Select(Box::new(Expr::Attr(Name::new("TARGET"))), n),
        }
    }

    /// `e`, written `at`, rewritten.
    fn rw(&self, e: &Expr, at: In, depth: u32) -> Expr {
        if depth > MAX_DEPTH {
            return e.clone();
        }
        let r = |x: &Expr| self.rw(x, at, depth + 1);
        match e {
            Expr::Attr(n) => self.name(*n, at, false),
            Expr::Select(base, y) => match base.unparen() {
                Expr::Attr(b) => match self.meaning(b.key(), at, false) {
                    Meaning::TheAd => self.name(*y, In::Ad, true),
                    Meaning::TheRecord => self.name(*y, In::Record, true),
                    _ => Expr::Select(Box::new(r(base)), *y),
                },
                _ => Expr::Select(Box::new(r(base)), *y),
            },
            // What the gang environment finds through a nested ad or a name built at run time
            // is not worked out: the index must not read it.
            Expr::Ad(_) | Expr::Lit(Value::Ad(_)) if self.scopes == PortScopes::Gang => {
                opaque(Name::new("ad"))
            }
            Expr::Call(f, _)
                if self.scopes == PortScopes::Gang && f.as_str().eq_ignore_ascii_case("eval") =>
            {
                opaque(*f)
            }
            Expr::Lit(_) | Expr::Root(_) | Expr::Ad(_) => e.clone(),
            Expr::Index(b) => Expr::Index(Box::new((r(&b.0), r(&b.1)))),
            Expr::Unary(op, x) => Expr::Unary(*op, Box::new(r(x))),
            Expr::Binary(op, b) => Expr::Binary(*op, Box::new((r(&b.0), r(&b.1)))),
            Expr::Cond(b) => Expr::Cond(Box::new((r(&b.0), r(&b.1), r(&b.2)))),
            Expr::Elvis(b) => Expr::Elvis(Box::new((r(&b.0), r(&b.1)))),
            Expr::Call(n, args) => Expr::Call(*n, args.iter().map(r).collect()),
            Expr::List(items) => Expr::List(items.iter().map(r).collect()),
            Expr::Chain(op, items) => Expr::Chain(*op, items.iter().map(r).collect()),
            Expr::Paren(x) => Expr::Paren(Box::new(r(x))),
        }
    }
}

/// The view of `record`, a port of `ad` labelled `own` among `labels` (see the module note);
/// `fallback`: the old semantics' TARGET fallback is on.
pub(crate) fn view(
    ad: &ClassAd,
    record: &ClassAd,
    own: Option<Key>,
    labels: &[Key],
    scopes: PortScopes,
    fallback: bool,
) -> ClassAd {
    let rw = Rewriter {
        record,
        ad,
        own,
        labels,
        scopes,
        fallback,
        implicit: false,
        aliased: RefCell::new(Vec::new()),
    };
    rewrite(&rw)
}

/// An ad without ports as the gang environment reads it (its context binds `TARGET` and
/// `other` to the partner, nothing falls back to it, and `_ad` is the ad).
pub(crate) fn plain_gang_view(ad: &ClassAd, fallback: bool) -> ClassAd {
    let record = ClassAd::new();
    let rw = Rewriter {
        record: &record,
        ad,
        own: None,
        labels: &[],
        scopes: PortScopes::Gang,
        fallback,
        implicit: true,
        aliased: RefCell::new(Vec::new()),
    };
    rewrite(&rw)
}

/// The flat ad `rw` makes of its record and ad.
fn rewrite(rw: &Rewriter<'_>) -> ClassAd {
    let (ad, record) = (rw.ad, rw.record);
    let ports = ports_key();
    let mut out = ClassAd::with_capacity(ad.len() + record.len());
    for (n, e) in ad.iter() {
        if n.key() != ports && !rw.in_record(n.key()) {
            out.insert(n, rw.rw(e, In::Ad, 0));
        }
    }
    let label = Key::of("label");
    for (n, e) in record.iter() {
        let e = match n.key() == label {
            true => e.clone(),
            false => rw.rw(e, In::Record, 0),
        };
        out.insert(n, e);
    }
    // Aliases, and the aliases their expressions need in turn.
    let mut done = 0;
    loop {
        let next = rw.aliased.borrow().get(done).copied();
        let Some(n) = next else { break };
        done += 1;
        if let Some(e) = ad.get_key(n.key()) {
            let e = rw.rw(e, In::Ad, 0);
            out.insert(alias(n), e);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::PortScopes::{Gang, Pairwise};
    use super::*;
    use crate::ports::port_view_in;
    use adjoin_query::parse;

    /// The view of `ad`'s first port, printed.
    fn show(ad: &str, scopes: PortScopes, fallback: bool) -> String {
        let ad = parse::classad(ad).expect("ad");
        let Some(Expr::List(ports)) = ad.get("Ports") else {
            return "no ports".to_owned();
        };
        let Some(Expr::Ad(port)) = ports.first() else {
            return "no port".to_owned();
        };
        port_view_in(&ad, port, scopes, fallback).to_string()
    }

    #[test]
    fn names_read_as_the_port_scope_reads_them() {
        let cases: &[(&str, PortScopes, bool, &str)] = &[
            // The ad's X reads the ad's Y, kept under an alias; the record's Y is the record's.
            (
                "[X = Y; Y = 1; Ports = {[Label = job; Y = 2; Requirements = job.X == X]}]",
                Pairwise,
                true,
                "[ X = 'outer.Y'; Label = job; Y = 2; Requirements = TARGET.X == X; 'outer.Y' = 1 ]",
            ),
            // A label the record binds is that binding; another port's label is opaque.
            (
                "[Ports = {[Label = job; job = 3; Requirements = job == 3 && lic.Y == 1], [Label = lic]}]",
                Pairwise,
                true,
                "[ Label = job; job = 3; Requirements = job == 3 && TARGET.'gang partner'.lic.Y == 1 ]",
            ),
            // `other` as another port's label; as the port's own label it is the partner.
            (
                "[Ports = {[Label = a; Requirements = other.Size == 1], [Label = other]}]",
                Gang,
                true,
                "[ Label = a; Requirements = TARGET.'gang partner'.other.Size == 1 ]",
            ),
            (
                "[Ports = {[Label = other; Requirements = other.Size == 1]}]",
                Gang,
                true,
                "[ Label = other; Requirements = TARGET.Size == 1 ]",
            ),
            // MY names the ad in the ad; in the record, the record (old semantics) or the ad.
            (
                "[Y = 1; W = MY.Y; Ports = {[Label = p; Y = 2; Requirements = MY.Y == 2]}]",
                Gang,
                true,
                "[ W = 'outer.Y'; Label = p; Y = 2; Requirements = Y == 2; 'outer.Y' = 1 ]",
            ),
            (
                "[Y = 1; Ports = {[Label = p; Y = 2; Requirements = MY.Y == 2 && parent.Y == 1]}]",
                Gang,
                false,
                "[ Label = p; Y = 2; Requirements = 'outer.Y' == 2 && 'outer.Y' == 1; 'outer.Y' = 1 ]",
            ),
            // In a gang, TARGET, other and unbound names are undefined in a port record; pairwise
            // they reach the candidate. A name the ad reads and only the record binds is not the
            // record's.
            (
                "[X = Z; Ports = {[Label = p; Z = 1; Requirements = TARGET.A == Memory]}]",
                Gang,
                true,
                "[ X = undefined; Label = p; Z = 1; Requirements = undefined.A == undefined ]",
            ),
            (
                "[X = Z; Ports = {[Label = p; Z = 1; Requirements = TARGET.A == Memory]}]",
                Pairwise,
                true,
                "[ X = TARGET.Z; Label = p; Z = 1; Requirements = TARGET.A == Memory ]",
            ),
            // Nested ads and eval() are opaque to a gang window.
            (
                "[Ports = {[Label = p; Requirements = [a = p.X].a == 1 && eval(\"p.X\") == 2]}]",
                Gang,
                true,
                "[ Label = p; Requirements = TARGET.'gang partner'.ad.a == 1 && TARGET.'gang partner'.eval == 2 ]",
            ),
        ];
        let mut wrong = Vec::new();
        for &(ad, scopes, fallback, want) in cases {
            let got = show(ad, scopes, fallback);
            if got != want {
                wrong.push(format!(
                    "{ad} ({scopes:?}, fallback {fallback}):\n  got  {got}\n  want {want}"
                ));
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }
}
