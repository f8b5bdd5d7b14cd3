//! Structural identity of expressions: a hash and an equality that agree with each other and
//! are at least as strict as comparing `Debug` output (names by exact spelling, reals bit for
//! bit, nested ads in order), so that two expressions alike here print and evaluate alike; and
//! the names an expression mentions, syntactically. [`Structural`] gives an expression `Hash` and
//! `Eq` on these terms (the tree's own `PartialEq` compares reals by value and names by key).

use crate::ast::Expr;
use crate::classad::ClassAd;
use crate::name::{Key, Name};
use crate::value::Value;
use std::hash::{Hash, Hasher};

/// An expression compared and hashed structurally ([`same`], [`hash`]).
#[derive(Clone, Copy, Debug)]
pub struct Structural<'a>(pub &'a Expr);

impl PartialEq for Structural<'_> {
    fn eq(&self, other: &Self) -> bool {
        same(self.0, other.0)
    }
}

impl Eq for Structural<'_> {}

impl Hash for Structural<'_> {
    fn hash<H: Hasher>(&self, h: &mut H) {
        hash(self.0, h);
    }
}

/// Where the names an expression mentions go while it is hashed.
trait Sink {
    fn name(&mut self, k: Key);
}

impl Sink for Vec<Key> {
    fn name(&mut self, k: Key) {
        self.push(k);
    }
}

/// Names not wanted.
impl Sink for () {
    fn name(&mut self, _: Key) {}
}

/// Feeds `e`'s structure into `h`: equal expressions ([`same`]) hash alike.
pub fn hash<H: Hasher>(e: &Expr, h: &mut H) {
    visit(e, h, &mut ());
}

/// [`hash`], adding to `out` every name `e` mentions as an attribute — unscoped, absolute,
/// selected, or as a literal subscript — including inside nested ads: a superset of the
/// attributes of its own ad that evaluating `e` can read (computed subscripts and `eval`
/// aside).
pub fn hash_names<H: Hasher>(e: &Expr, h: &mut H, out: &mut Vec<Key>) {
    visit(e, h, out);
}

/// A hasher that keeps nothing, for walks that want only the names.
struct Discard;

impl Hasher for Discard {
    fn write(&mut self, _: &[u8]) {}
    fn finish(&self) -> u64 {
        0
    }
}

/// [`hash_names`] without the hash.
pub fn names(e: &Expr, out: &mut Vec<Key>) {
    visit(e, &mut Discard, out);
}

/// An attribute name mentioned.
fn name<H: Hasher>(h: &mut H, out: &mut impl Sink, n: &Name) {
    out.name(n.key());
    h.write_u32(n.key().0);
}

fn visit<H: Hasher>(e: &Expr, h: &mut H, out: &mut impl Sink) {
    match e {
        Expr::Lit(v) => {
            h.write_u64(1);
            visit_value(v, h, out);
        }
        Expr::Attr(n) => {
            h.write_u64(2);
            name(h, out, n);
        }
        Expr::Root(n) => {
            h.write_u64(3);
            name(h, out, n);
        }
        Expr::Select(b, n) => {
            h.write_u64(4);
            name(h, out, n);
            visit(b, h, out);
        }
        Expr::Index(p) => {
            h.write_u64(5);
            if let Expr::Lit(Value::Str(s)) = p.1.unparen() {
                out.name(Key::of(s));
            }
            visit(&p.0, h, out);
            visit(&p.1, h, out);
        }
        Expr::Unary(op, x) => {
            h.write_u64(6);
            h.write_u64(*op as u64);
            visit(x, h, out);
        }
        Expr::Binary(op, p) => {
            h.write_u64(7);
            h.write_u64(*op as u64);
            visit(&p.0, h, out);
            visit(&p.1, h, out);
        }
        Expr::Cond(p) => {
            h.write_u64(8);
            visit(&p.0, h, out);
            visit(&p.1, h, out);
            visit(&p.2, h, out);
        }
        Expr::Elvis(p) => {
            h.write_u64(9);
            visit(&p.0, h, out);
            visit(&p.1, h, out);
        }
        Expr::Call(f, xs) => {
            h.write_u64(10);
            // A function's name is not an attribute.
            h.write_u32(f.key().0);
            h.write_u64(xs.len() as u64);
            xs.iter().for_each(|x| visit(x, h, out));
        }
        Expr::List(xs) => {
            h.write_u64(11);
            h.write_u64(xs.len() as u64);
            xs.iter().for_each(|x| visit(x, h, out));
        }
        Expr::Ad(ad) => {
            h.write_u64(12);
            visit_ad(ad, h, out);
        }
        Expr::Paren(x) => {
            h.write_u64(13);
            visit(x, h, out);
        }
        Expr::Chain(op, xs) => {
            h.write_u64(14);
            h.write_u64(*op as u64);
            h.write_u64(xs.len() as u64);
            xs.iter().for_each(|x| visit(x, h, out));
        }
    }
}

/// A nested ad: its attribute names are its own, but what its expressions mention may be
/// the enclosing ad's.
fn visit_ad<H: Hasher>(ad: &ClassAd, h: &mut H, out: &mut impl Sink) {
    h.write_u64(ad.len() as u64);
    for (n, e) in ad.iter() {
        h.write_u32(n.key().0);
        visit(e, h, out);
    }
}

fn visit_value<H: Hasher>(v: &Value, h: &mut H, out: &mut impl Sink) {
    match v {
        Value::Undefined => h.write_u64(1),
        Value::Error => h.write_u64(2),
        Value::Bool(b) => h.write_u64(3 + u64::from(*b)),
        Value::Int(i) => {
            h.write_u64(5);
            h.write_u64(*i as u64);
        }
        Value::Real(r) => {
            h.write_u64(6);
            h.write_u64(r.to_bits());
        }
        Value::Str(s) => {
            h.write_u64(7);
            h.write(s.as_bytes());
        }
        Value::AbsTime(t) => {
            h.write_u64(8);
            h.write_u64(t.secs as u64);
            h.write_u64(t.offset as u64);
        }
        Value::RelTime(r) => {
            h.write_u64(9);
            h.write_u64(r.to_bits());
        }
        Value::List(xs) => {
            h.write_u64(10);
            h.write_u64(xs.len() as u64);
            xs.iter().for_each(|x| visit_value(x, h, out));
        }
        Value::Ad(ad) => {
            h.write_u64(11);
            visit_ad(ad, h, out);
        }
    }
}

/// Names equal in exact spelling (what printing shows).
fn same_name(a: Name, b: Name) -> bool {
    a == b && a.as_str() == b.as_str()
}

/// True when `a` and `b` are the same expression, spelled the same.
pub fn same(a: &Expr, b: &Expr) -> bool {
    match (a, b) {
        (Expr::Lit(x), Expr::Lit(y)) => same_value(x, y),
        (Expr::Attr(x), Expr::Attr(y)) | (Expr::Root(x), Expr::Root(y)) => same_name(*x, *y),
        (Expr::Select(b1, n1), Expr::Select(b2, n2)) => same_name(*n1, *n2) && same(b1, b2),
        (Expr::Index(p), Expr::Index(q))
        | (Expr::Binary(_, p), Expr::Binary(_, q))
        | (Expr::Elvis(p), Expr::Elvis(q)) => {
            let ops = match (a, b) {
                (Expr::Binary(o1, _), Expr::Binary(o2, _)) => o1 == o2,
                _ => true,
            };
            ops && same(&p.0, &q.0) && same(&p.1, &q.1)
        }
        (Expr::Unary(o1, x), Expr::Unary(o2, y)) => o1 == o2 && same(x, y),
        (Expr::Paren(x), Expr::Paren(y)) => same(x, y),
        (Expr::Cond(p), Expr::Cond(q)) => same(&p.0, &q.0) && same(&p.1, &q.1) && same(&p.2, &q.2),
        (Expr::Call(f, xs), Expr::Call(g, ys)) => same_name(*f, *g) && same_all(xs, ys),
        (Expr::List(xs), Expr::List(ys)) => same_all(xs, ys),
        (Expr::Chain(o1, xs), Expr::Chain(o2, ys)) => o1 == o2 && same_all(xs, ys),
        (Expr::Ad(x), Expr::Ad(y)) => same_ad(x, y),
        _ => false,
    }
}

fn same_all(xs: &[Expr], ys: &[Expr]) -> bool {
    xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| same(x, y))
}

/// Same attributes in the same order, spelled the same, bound to the same expressions.
fn same_ad(a: &ClassAd, b: &ClassAd) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b.iter())
            .all(|((n, x), (m, y))| same_name(n, m) && same(x, y))
}

fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::List(xs), Value::List(ys)) => {
            xs.len() == ys.len() && xs.iter().zip(ys.iter()).all(|(x, y)| same_value(x, y))
        }
        (Value::Ad(x), Value::Ad(y)) => same_ad(x, y),
        (Value::Ad(_), _) | (_, Value::Ad(_)) => false,
        // Structural: reals bit for bit, strings exactly.
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse;

    fn h(e: &Expr) -> u64 {
        let mut f = std::collections::hash_map::DefaultHasher::new();
        Structural(e).hash(&mut f);
        f.finish()
    }

    /// Whether `a` and `b` are the same; equal ones must hash alike and print alike.
    fn check(a: &str, b: &str, want: bool) {
        let (x, y) = (parse::expr(a).expect("a"), parse::expr(b).expect("b"));
        assert_eq!(Structural(&x) == Structural(&y), want, "{a} / {b}");
        if want {
            assert_eq!(h(&x), h(&y), "{a} / {b}");
            assert_eq!(format!("{x:?}"), format!("{y:?}"), "{a} / {b}");
        } else {
            // Stricter than printing, and here no stricter.
            assert!(format!("{x:?}") != format!("{y:?}"), "{a} / {b}");
        }
    }

    #[test]
    fn sameness() {
        check("TARGET.Memory >= 1024", "TARGET.Memory >= 1024", true);
        check("TARGET.Memory >= 1024", "TARGET.memory >= 1024", false);
        check("TARGET.Memory >= 1024", "TARGET.Memory > 1024", false);
        check("A + 1", "A + 1.0", false);
        check("0.0", "-0.0", false);
        check("\"x\"", "\"X\"", false);
        check("(A)", "A", false);
        check("f(A, B)", "F(A, B)", false);
        check("{1, [a = 1; b = 2]}", "{1, [a = 1; b = 2]}", true);
        check("[a = 1; b = 2]", "[b = 2; a = 1]", false);
        check("X ?: 3", "X ?: 3", true);
        check("c ? 1 : 2", "c ? 1 : 3", false);
        check("-A", "!A", false);
        check("L[\"k\"]", "L[\"k\"]", true);
        check("a || b || c", "a || b || c", true);
        check("a || b || c", "a || b || d", false);
        check("a || b || c", "a && b && c", false);
        check("a || b || c", "a || (b || c)", false);
        check("a + b + c", "a + b + c + d", false);
    }

    #[test]
    fn mentioned_names() {
        for (e, want) in [
            ("A + B.C", &["a", "c", "b"][..]),
            (
                "TARGET.Memory >= RequestMemory",
                &["memory", "target", "requestmemory"][..],
            ),
            (".R", &["r"][..]),
            ("L[\"K\"]", &["k", "l"][..]),
            ("[x = Y; z = 1].x", &["x", "y"][..]),
            ("f(1, \"s\")", &[][..]),
        ] {
            let mut out = Vec::new();
            names(&parse::expr(e).expect("expr"), &mut out);
            let got: Vec<&str> = out.iter().map(|k| k.as_str()).collect();
            assert_eq!(got, want, "{e}");
        }
    }
}
