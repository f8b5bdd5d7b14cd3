//! `unresolved(attr [, pattern])` (fnCall.cpp `hasRefs`): the references of an attribute's
//! expression that cannot be resolved inside the ad, found by HTCondor's
//! `_GetExternalReferences` walk — bound attributes are followed, unbound names collected.

use super::args::arity;
use super::control::{deref, Target};
use super::pcre;
use super::Builtin;
use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::eval::{Evaluator, Found};
use crate::name::Key;
use crate::value::{Scope, Val, Value};

/// The functions of this module.
pub(super) const FUNCTIONS: &[(&str, Builtin)] = &[("unresolved", unresolved)];

/// `unresolved(attr [, pattern])`: the references in `attr`'s expression that cannot be
/// resolved inside the ad — as a comma-separated list (sorted ignoring case, `TARGET.` prefixes
/// dropped), or with a pattern whether any of them matches it (PCRE, ignoring case).
/// `undefined` when `attr` names nothing.
fn unresolved<'a>(ev: &mut Evaluator<'a>, scope: &'a Scope<'a>, args: &'a [Expr]) -> Val<'a> {
    if !arity(args, 1, 2) {
        return Val::Error;
    }
    let Some((target, here)) = deref(ev, scope, &args[0]) else {
        return Val::Error;
    };
    if let Target::Missing = target {
        return Val::Undefined;
    }
    let pattern = match args.get(1) {
        None => None,
        Some(p) => match ev.eval(p, here) {
            Val::Str(p) => match pcre::compile(p, pcre::CASELESS) {
                Some(re) => Some(re),
                None => return Val::Error,
            },
            _ => return Val::Error,
        },
    };
    let mut refs = References::default();
    let complete = match target {
        Target::Attr(e, holder) => {
            let mut walk = Walk {
                refs: &mut refs,
                depth: 0,
            };
            walk.expr(ev, e, holder)
        }
        Target::Ad(s) => {
            let mut walk = Walk {
                refs: &mut refs,
                depth: 0,
            };
            walk.ad(ev, s.ad, here)
        }
        Target::Time | Target::Projected(_) | Target::Missing => true,
    };
    // An incomplete walk (a cycle, a reference into a non-ad) reports nothing.
    let names: Vec<&str> = if complete {
        refs.names.iter().map(|n| strip_target(n)).collect()
    } else {
        Vec::new()
    };
    match pattern {
        Some(re) => Val::Bool(names.iter().any(|n| {
            let subject = n.as_bytes();
            re.for_subject(subject)
                .find_iter(subject)
                .any(|m| !m.is_empty())
        })),
        None => Val::Str(ev.alloc_str(&names.join(","))),
    }
}

/// `target.x` → `x` (any case).
fn strip_target(name: &str) -> &str {
    match name.get(..7) {
        Some(p) if p.eq_ignore_ascii_case("target.") => &name[7..],
        _ => name,
    }
}

/// A set of names ignoring case, kept sorted as HTCondor's `References` (strcasecmp order),
/// each spelled as first inserted.
#[derive(Default)]
struct References {
    names: Vec<String>,
}

impl References {
    fn insert(&mut self, name: String) {
        let lower = name.to_ascii_lowercase();
        if let Err(at) = self
            .names
            .binary_search_by(|n| n.to_ascii_lowercase().cmp(&lower))
        {
            self.names.insert(at, name);
        }
    }
}

/// HTCondor's `_GetExternalReferences` with full names: walks an expression, following the
/// attributes it can resolve and collecting the names it cannot.
struct Walk<'r> {
    refs: &'r mut References,
    depth: u32,
}

impl Walk<'_> {
    /// Walks `e` written in `here`; false when the walk cannot complete (too deep — a cycle —
    /// or a selection from something that is not an ad).
    fn expr<'a>(&mut self, ev: &mut Evaluator<'a>, e: &'a Expr, here: &'a Scope<'a>) -> bool {
        if self.depth >= ev.options().max_depth || !ev.charge(1) {
            return false;
        }
        self.depth += 1;
        let ok = self.node(ev, e, here);
        self.depth -= 1;
        ok
    }

    fn node<'a>(&mut self, ev: &mut Evaluator<'a>, e: &'a Expr, here: &'a Scope<'a>) -> bool {
        match e {
            Expr::Lit(Value::Ad(ad)) => self.ad(ev, ad, here),
            Expr::Lit(_) => true,
            Expr::Attr(name) => self.lookup(ev, here, name.key(), name.as_str()),
            Expr::Root(name) => self.lookup(ev, here.root(), name.key(), name.as_str()),
            Expr::Select(base, name) => match ev.eval(base, here) {
                Val::Undefined => {
                    self.refs.insert(format!("{base}.{}", name.as_str()));
                    true
                }
                Val::Ad(s) => self.lookup(ev, s, name.key(), name.as_str()),
                _ => false,
            },
            Expr::Index(b) | Expr::Binary(_, b) | Expr::Elvis(b) => {
                self.expr(ev, &b.0, here) && self.expr(ev, &b.1, here)
            }
            Expr::Cond(b) => {
                self.expr(ev, &b.0, here) && self.expr(ev, &b.1, here) && self.expr(ev, &b.2, here)
            }
            Expr::Unary(_, x) | Expr::Paren(x) => self.expr(ev, x, here),
            Expr::Call(_, items) | Expr::List(items) | Expr::Chain(_, items) => {
                items.iter().all(|x| self.expr(ev, x, here))
            }
            Expr::Ad(ad) => self.ad(ev, ad, here),
        }
    }

    /// The attributes of an ad written in an expression: each walked where the expression is.
    fn ad<'a>(&mut self, ev: &mut Evaluator<'a>, ad: &'a ClassAd, here: &'a Scope<'a>) -> bool {
        ad.iter().all(|(_, x)| self.expr(ev, x, here))
    }

    /// `name` looked up from `start`: followed when bound, recorded when not.
    fn lookup<'a>(
        &mut self,
        ev: &mut Evaluator<'a>,
        start: &'a Scope<'a>,
        key: Key,
        name: &str,
    ) -> bool {
        match ev.lookup_in_scope(start, key) {
            Found::Attr(x, holder, _) => self.expr(ev, x, holder),
            Found::Ad(s) => self.ad(ev, s.ad, start),
            Found::Time => true,
            Found::Undefined => {
                self.refs.insert(name.to_string());
                true
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::check;

    // Expected values are HTCondor 25's (classad2).

    #[test]
    fn unresolved_references() {
        let job = "Requirements = OpSys == \"LINUX\" && TARGET.Arch == \"ARM\" && Cpus >= RequestCpus; RequestCpus = 1";
        for (expr, want) in [
            (format!("[{job}; r = unresolved(Requirements)].r"), r#""Cpus,OpSys,Arch""#),
            (format!("[{job}; r = unresolved(Requirements, \"^OpSys\")].r"), "true"),
            (format!("[{job}; r = unresolved(Requirements, \"OpSys.+\")].r"), "false"),
            (format!("[{job}; r = unresolved(Requirements, \"^arch\")].r"), "true"),
            ("[a = b + c; b = d; r = unresolved(a)].r".into(), r#""c,d""#),
            (
                "[a = MY.b + MY.x + TARGET.y + other.z + foo.bar + x.y.z; b = 1; r = unresolved(a)].r".into(),
                r#""foo.bar,other.z,y,x,x.y.z""#,
            ),
            (
                "[a = [q = 1].q + [q = 1].w + {1}[0] + parent.zz + root.yy + self.b; b = 1; r = unresolved(a)].r".into(),
                r#""w,yy,zz""#,
            ),
            ("[a = strcat(p, q) + ifThenElse(s, t, u); r = unresolved(a)].r".into(), r#""p,q,s,t,u""#),
            ("[a = 1; r = unresolved(a)].r".into(), r#""""#),
            ("[r = unresolved(a)].r".into(), "undefined"),
            ("[a = x; r = unresolved(a, 5)].r".into(), "error"),
            ("[a = x; r = unresolved(a, \"(\")].r".into(), "error"),
            ("[a = x; r = unresolved(a + 1)].r".into(), "error"),
            ("[a = x; r = unresolved()].r".into(), "error"),
            ("[a = x; r = unresolved(a, \"x\", 3)].r".into(), "error"),
            ("[a = x; r = [q = unresolved(a)].q].r".into(), r#""x""#),
            ("[a = zz; r = unresolved(MY.a)].r".into(), r#""zz""#),
            ("[a = B + b + Zeta + alpha; r = unresolved(a)].r".into(), r#""alpha,B,Zeta""#),
            ("[a = a + c; r = unresolved(a)].r".into(), r#""""#),
            ("[a = CurrentTime + time(); r = unresolved(a)].r".into(), r#""""#),
            ("[a = target.x + TARGET.y + Target.z; r = unresolved(a)].r".into(), r#""x,y,z""#),
        ] {
            check(&expr, want);
        }
    }
}
