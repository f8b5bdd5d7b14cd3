//! The windows the indexed algorithms probe with (dissertation 5.4.2, 5.5.1).
//!
//! - *Specialized to the gang so far* (LR): a port's view (its record over its ad, its own
//!   label read as `TARGET`) in which every attribute and every `L.X` that the docked partners
//!   already decide is replaced by its value in the Figure-32 environment: after the machine is
//!   docked, the license port's `HostId = Cpu.Key` is `HostId = 90`.
//! - *Constraint shunting* (DYN): the constraint of a partner docked at another port `q` of
//!   the same ad, translated through `q`'s invertible attributes into a constraint on this
//!   port's partner: a license docked at the job's `License` port, whose constraint reads
//!   `Job.HostId >= 50`, with the job's `HostId = Cpu.Key`, gives `Cpu.Key >= 50` on the
//!   `Cpu` port. Only the partner's conjuncts that translate whole are kept (identity
//!   translations); dropping a conjunct only widens the window, so answers stay supersets.

use super::env::Tree;
use super::ports::GangAd;
use adjoin_index::ports::{port_view_in, PortScopes};
use adjoin_query::ast::BinOp;
use adjoin_query::eval::EvalOptions;
use adjoin_query::{ClassAd, Expr, Key, Name, Value};
use std::sync::Arc;

/// Deepest expression nesting rewritten (deeper expressions are left out of windows).
const MAX_DEPTH: u32 = 400;

/// The window of port `p` of member `m`: specialized to the gang in `env`, and with `shunt`
/// the translated constraints of the partners docked at the member's other ports.
pub fn view(
    tree: &Tree,
    env: &ClassAd,
    m: usize,
    p: usize,
    shunt: bool,
    opts: &EvalOptions,
) -> Arc<ClassAd> {
    let Some(member) = tree.members.get(m) else {
        return Arc::new(ClassAd::new());
    };
    let g = &member.ad;
    if g.implicit {
        return g.plain_window(opts.target_fallback);
    }
    let (Some(record), Some(port)) = (g.record(p), g.ports.get(p)) else {
        return Arc::new(ClassAd::new());
    };
    let own = port.label.key();
    let labels: Vec<Key> = g.ports.iter().map(|x| x.label.key()).collect();
    let binder = Binder {
        env,
        record: tree.record_path(m, p),
        own,
        labels: &labels,
        opts,
    };
    let mut rec = ClassAd::with_capacity(record.len());
    for (n, e) in record.iter() {
        let e = if Some(n.key()) == port.constraint {
            binder.bind(e, 0).unwrap_or_else(|| e.clone())
        } else if refers_to_label(e, &labels, 0) {
            match tree.eval_port_attr(env, m, p, n, opts) {
                (v, false) if scalar(&v) => Expr::Lit(v),
                _ => e.clone(),
            }
        } else {
            e.clone()
        };
        rec.insert(n, e);
    }
    let mut view = port_view_in(&g.ad, &rec, PortScopes::Gang, opts.target_fallback);
    if shunt {
        // The partners' conditions, already over this port's partner (`TARGET`).
        let extra = shunted(tree, m, p);
        if let (Some(key), false) = (port.constraint, extra.is_empty()) {
            let name = view
                .entry(key)
                .map(|(n, _)| n)
                .unwrap_or_else(|| Name::new(key.as_str()));
            let mut c = view
                .get_key(key)
                .cloned()
                .unwrap_or(Expr::Lit(Value::Bool(true)));
            for x in extra {
                c = Expr::binary(BinOp::And, c, x);
            }
            view.insert(name, c);
        }
    }
    Arc::new(view)
}

/// The conjuncts, over port `p`'s partner (as `TARGET.Y`), that the partners docked at member
/// `m`'s other ports impose through `m`'s translations.
fn shunted(tree: &Tree, m: usize, p: usize) -> Vec<Expr> {
    let Some(member) = tree.members.get(m) else {
        return Vec::new();
    };
    let g = &member.ad;
    if g.ports.get(p).is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (q, port) in g.ports.iter().enumerate() {
        if q == p || !port.translations.iter().any(|t| t.1 == p) {
            continue;
        }
        let Some((k, j)) = member.docked.get(q).copied().flatten() else {
            continue;
        };
        let Some(partner) = tree.members.get(k) else {
            continue;
        };
        out.extend(translate(
            &partner.ad,
            j,
            &port.translations,
            p,
            Some(Name::new("TARGET")),
        ));
    }
    out
}

/// The conjuncts of the constraint of port `j` of `partner` that translate whole through
/// `translations` (attribute X of the docking record defined as `L_p.Y`) into conditions on
/// port `p`'s partner: as `lp.Y` with `lp`, or as plain `Y` (for a one-sided window over the
/// candidates themselves) without.
pub fn translate(
    partner: &GangAd,
    j: usize,
    translations: &[(Key, usize, Name)],
    p: usize,
    lp: Option<Name>,
) -> Vec<Expr> {
    let (Some(rec), Some(port)) = (partner.record(j), partner.ports.get(j)) else {
        return Vec::new();
    };
    let Some(c) = port.constraint.and_then(|k| rec.get_key(k)) else {
        return Vec::new();
    };
    let names: Vec<Key> = if partner.implicit {
        vec![Key::of("other"), Key::of("TARGET")]
    } else {
        vec![port.label.key()]
    };
    // A name the partner's record or ad binds is that attribute, not the label.
    let names: Vec<Key> = names
        .into_iter()
        .filter(|&k| rec.get_key(k).is_none() && partner.ad.get_key(k).is_none())
        .collect();
    let mut conj = Vec::new();
    conjuncts(c, &mut conj, 0);
    conj.into_iter()
        .filter_map(|x| rewrite(x, &names, translations, p, lp, 0))
        .collect()
}

/// Splits `e` at its top-level `&&`s.
fn conjuncts<'e>(e: &'e Expr, out: &mut Vec<&'e Expr>, depth: u32) {
    let x = e.unparen();
    match x.operands_of(BinOp::And) {
        Some(terms) if depth < MAX_DEPTH => terms.for_each(|t| conjuncts(t, out, depth + 1)),
        _ => out.push(x),
    }
}

/// `e` with every `N.X` (N one of `names`, X translated to port `p`'s `Y`) rewritten; `None`
/// when anything else refers to an attribute.
fn rewrite(
    e: &Expr,
    names: &[Key],
    tr: &[(Key, usize, Name)],
    p: usize,
    lp: Option<Name>,
    depth: u32,
) -> Option<Expr> {
    if depth > MAX_DEPTH {
        return None;
    }
    let r = |x: &Expr| rewrite(x, names, tr, p, lp, depth + 1);
    Some(match e {
        Expr::Lit(_) => e.clone(),
        Expr::Attr(_) | Expr::Root(_) | Expr::Ad(_) | Expr::List(_) | Expr::Index(_) => {
            return None
        }
        Expr::Select(base, x) => {
            let Expr::Attr(n) = base.unparen() else {
                return None;
            };
            if !names.contains(&n.key()) {
                return None;
            }
            let &(_, _, y) = tr.iter().find(|t| t.0 == x.key() && t.1 == p)?;
            match lp {
                Some(l) => Expr::Select(Box::new(Expr::Attr(l)), y),
                None => Expr::Attr(y),
            }
        }
        Expr::Unary(op, x) => Expr::Unary(*op, Box::new(r(x)?)),
        Expr::Binary(op, b) => Expr::binary(*op, r(&b.0)?, r(&b.1)?),
        Expr::Chain(op, xs) => Expr::chain(*op, xs.iter().map(r).collect::<Option<Vec<_>>>()?)?,
        Expr::Cond(b) => Expr::Cond(Box::new((r(&b.0)?, r(&b.1)?, r(&b.2)?))),
        Expr::Elvis(b) => Expr::Elvis(Box::new((r(&b.0)?, r(&b.1)?))),
        Expr::Call(f, xs) => Expr::Call(*f, xs.iter().map(r).collect::<Option<Vec<_>>>()?),
        Expr::Paren(x) => Expr::Paren(Box::new(r(x)?)),
    })
}

/// Whether `e` refers to one of `labels` unscoped.
fn refers_to_label(e: &Expr, labels: &[Key], depth: u32) -> bool {
    if depth > MAX_DEPTH {
        return true;
    }
    let r = |x: &Expr| refers_to_label(x, labels, depth + 1);
    match e {
        Expr::Attr(n) => labels.contains(&n.key()),
        Expr::Lit(_) | Expr::Root(_) | Expr::Ad(_) => false,
        Expr::Select(b, _) | Expr::Unary(_, b) | Expr::Paren(b) => r(b),
        Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => r(&b.0) || r(&b.1),
        Expr::Cond(b) => r(&b.0) || r(&b.1) || r(&b.2),
        Expr::Call(_, xs) | Expr::List(xs) | Expr::Chain(_, xs) => xs.iter().any(r),
    }
}

/// A value a window can hold as a literal.
fn scalar(v: &Value) -> bool {
    matches!(
        v,
        Value::Int(_) | Value::Real(_) | Value::Str(_) | Value::Bool(_)
    )
}

/// What binding a constraint's labels needs: the environment, the member, its port's own
/// label, and all its labels.
struct Binder<'a> {
    env: &'a ClassAd,
    /// The port's record in the environment (`_ctx_m._ad.Ports[p]`): `L.X` is looked up from
    /// it as written there, so a name the record or its ad binds is not taken for a label.
    record: Expr,
    own: Key,
    labels: &'a [Key],
    opts: &'a EvalOptions,
}

impl Binder<'_> {
    /// `e` (member `m`'s constraint) with `L.X` for labels other than `own` replaced by their
    /// values where the gang decides them; `None` when nothing changed.
    fn bind(&self, e: &Expr, depth: u32) -> Option<Expr> {
        if depth > MAX_DEPTH || !refers_to_label(e, self.labels, 0) {
            return None;
        }
        let b = |x: &Expr| self.bind(x, depth + 1).unwrap_or_else(|| x.clone());
        Some(match e {
            Expr::Select(base, x) => {
                if let Expr::Attr(l) = base.unparen() {
                    if l.key() != self.own && self.labels.contains(&l.key()) {
                        let path = Expr::Select(
                            Box::new(Expr::Select(Box::new(self.record.clone()), *l)),
                            *x,
                        );
                        let (v, touched) =
                            adjoin_query::eval::eval_tracked(&path, self.env, self.opts);
                        return (!touched && scalar(&v)).then_some(Expr::Lit(v));
                    }
                }
                Expr::Select(Box::new(b(base)), *x)
            }
            Expr::Unary(op, x) => Expr::Unary(*op, Box::new(b(x))),
            Expr::Binary(op, p) => Expr::binary(*op, b(&p.0), b(&p.1)),
            Expr::Cond(p) => Expr::Cond(Box::new((b(&p.0), b(&p.1), b(&p.2)))),
            Expr::Elvis(p) => Expr::Elvis(Box::new((b(&p.0), b(&p.1)))),
            Expr::Call(f, xs) => Expr::Call(*f, xs.iter().map(b).collect()),
            Expr::List(xs) => Expr::List(xs.iter().map(b).collect()),
            Expr::Chain(op, xs) => Expr::Chain(*op, xs.iter().map(b).collect()),
            Expr::Index(p) => Expr::Index(Box::new((b(&p.0), b(&p.1)))),
            Expr::Paren(x) => Expr::Paren(Box::new(b(x))),
            Expr::Attr(_) | Expr::Lit(_) | Expr::Root(_) | Expr::Ad(_) => e.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn gad(text: &str) -> Arc<GangAd> {
        Arc::new(GangAd::new(Arc::new(parse::classad(text).expect("ad"))).expect("ports"))
    }

    #[test]
    fn specializes_and_shunts() {
        let job = gad(
            r#"[Ports = {[Label = Cpu; Constraint = cpu.Arch == "INTEL"],
              [Label = License; HostId = cpu.Key; Constraint = License.App == "app1"]}]"#,
        );
        let machine =
            gad(r#"[Key = 90; Arch = "INTEL"; Ports = {[Label = Job; Constraint = true]}]"#);
        let license = gad(r#"[App = "app1";
                Ports = {[Label = Job; Constraint = Job.HostID >= 50 && Job.HostId < 100 && Job.Other == 3]}]"#);
        let opts = EvalOptions::default();
        // Left to right: the license port's window knows the machine's key.
        let mut t = Tree::root(Arc::clone(&job));
        t.dock((0, 0), Arc::clone(&machine), (0, 0), 0);
        let v = view(&t, &t.environment(), 0, 1, false, &opts);
        assert_eq!(
            v.get("HostId").map(|e| e.to_string()),
            Some("90".to_owned())
        );
        // Right to left: the machine port's window carries the license's bounds on Key.
        let mut t = Tree::root(job);
        t.dock((0, 1), license, (1, 0), 0);
        let v = view(&t, &t.environment(), 0, 0, true, &opts);
        let c = v
            .get("Constraint")
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            c.contains("TARGET.Key >= 50")
                && c.contains("TARGET.Key < 100")
                && !c.contains("Other"),
            "{c}"
        );
    }
}
