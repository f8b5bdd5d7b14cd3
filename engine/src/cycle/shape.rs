//! Structural identity of expressions, for autoclustering without printing: a hash and an
//! equality that agree with each other and are at least as strict as comparing `Debug`
//! output (names by exact spelling, reals bit for bit, nested ads in order); the names an
//! expression mentions, syntactically; and the shape of an ad from some of its attributes.

use adjoin_query::name::kw;
use adjoin_query::{ClassAd, Expr, Key, Name, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher of shapes: rustc's Fx hash (fast, non-cryptographic; shapes live in memory only).
pub type Fx = rustc_hash::FxHasher;

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
pub fn hash(e: &Expr, h: &mut Fx) {
    visit(e, h, &mut ());
}

/// [`hash`], adding to `out` every name `e` mentions as an attribute — unscoped, absolute,
/// selected, or as a literal subscript — including inside nested ads: a superset of the
/// attributes of its own ad that evaluating `e` can read (computed subscripts and `eval`
/// aside).
pub fn hash_names(e: &Expr, h: &mut Fx, out: &mut Vec<Key>) {
    visit(e, h, out);
}

/// [`hash_names`] without the hash.
pub fn names(e: &Expr, out: &mut Vec<Key>) {
    visit(e, &mut Fx::default(), out);
}

/// An attribute name mentioned.
fn name(h: &mut Fx, out: &mut impl Sink, n: &Name) {
    out.name(n.key());
    h.write_u32(n.key().0);
}

fn visit(e: &Expr, h: &mut Fx, out: &mut impl Sink) {
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
    }
}

/// A nested ad: its attribute names are its own, but what its expressions mention may be
/// the enclosing ad's.
fn visit_ad(ad: &ClassAd, h: &mut Fx, out: &mut impl Sink) {
    h.write_u64(ad.len() as u64);
    for (n, e) in ad.iter() {
        h.write_u32(n.key().0);
        visit(e, h, out);
    }
}

fn visit_value(v: &Value, h: &mut Fx, out: &mut impl Sink) {
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

/// What an ad binds to each name its shape covers, sorted by name.
pub type Bindings<'a> = Vec<(Key, Option<&'a Expr>)>;

/// The shape of an ad from some start names: what it binds to each name it covers — the
/// start names and, for each of them the ad binds, the names its expression mentions
/// ([`names`]), transitively. Two ads of equal bindings ([`agree`]) cover the same names, and
/// every attribute lookup the reference analysis (or evaluation, for what is not
/// [`dynamic`]) makes from the start names finds the same expression, or none, in both.
#[derive(Debug, Default)]
pub struct Walk<'a> {
    /// The bindings of the last shape, sorted by name.
    pub bound: Bindings<'a>,
    found: Vec<Key>,
}

impl<'a> Walk<'a> {
    /// The hash of `ad`'s shape from `start`, its bindings left in `self.bound`.
    pub fn shape(&mut self, ad: &'a ClassAd, start: &[Key]) -> u64 {
        self.bound.clear();
        self.bound.extend(start.iter().map(|&k| (k, None)));
        // Each binding's hash, mixed and summed: the total does not depend on the order.
        let mut total = 0u64;
        let mut i = 0;
        while let Some(&(k, _)) = self.bound.get(i) {
            let mut h = Fx::default();
            h.write_u32(k.0);
            if let Some(e) = ad.get_key(k) {
                h.write_u64(1);
                self.found.clear();
                hash_names(e, &mut h, &mut self.found);
                for &n in &self.found {
                    if !self.bound.iter().any(|b| b.0 == n) {
                        self.bound.push((n, None));
                    }
                }
                if let Some(b) = self.bound.get_mut(i) {
                    b.1 = Some(e);
                }
            }
            total = total.wrapping_add(mix(h.finish()));
            i += 1;
        }
        self.bound.sort_unstable_by_key(|b| b.0);
        total
    }

    /// Whether one of the expressions of the last shape is [`dynamic`] (structural: ads of
    /// equal bindings are all dynamic or none is).
    pub fn dynamic(&self) -> bool {
        self.bound.iter().any(|b| b.1.is_some_and(dynamic))
    }
}

/// A finalizer spreading every input bit over the output (SplitMix64's).
pub fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Whether two shapes' bindings are equal: the same names, bound to the same expressions.
pub fn agree(a: &Bindings<'_>, b: &Bindings<'_>) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.0 == y.0
                && match (x.1, y.1) {
                    (None, None) => true,
                    (Some(p), Some(q)) => same(p, q),
                    _ => false,
                }
        })
}

/// Whether `bound` (an ad's bindings) binds `names` as `rep` does.
pub fn binds_alike(bound: &Bindings<'_>, names: &[Key], rep: &ClassAd) -> bool {
    bound.len() == names.len()
        && bound.iter().zip(names).all(|(&(k, e), &n)| {
            k == n
                && match (e, rep.get_key(k)) {
                    (None, None) => true,
                    (Some(x), Some(y)) => same(x, y),
                    _ => false,
                }
        })
}

/// A literal that is neither a list nor an ad: it reads nothing, whatever its value.
pub fn plain(e: &Expr) -> bool {
    matches!(e, Expr::Lit(v) if !matches!(v, Value::List(_) | Value::Ad(_)))
}

/// A [`HashMap`] keyed by hashes already made.
pub type ByHash<V> = HashMap<u64, V, BuildHasherDefault<Fx>>;

/// True when `e` may read attributes the static reference analysis does not report: `eval`,
/// `random`, computed subscripts, nested ad values, whole-ad uses of a scope keyword.
pub fn dynamic(e: &Expr) -> bool {
    let scope = |n: &Name| {
        [
            kw::TARGET,
            kw::OTHER,
            kw::MY,
            kw::SELF,
            kw::PARENT,
            kw::ROOT,
        ]
        .contains(&n.key())
    };
    match e {
        Expr::Lit(Value::Ad(_)) => true,
        Expr::Lit(_) | Expr::Root(_) => false,
        Expr::Attr(n) => scope(n),
        Expr::Select(base, _) => match base.unparen() {
            Expr::Attr(_) => false,
            b => dynamic(b),
        },
        Expr::Index(p) => !matches!(p.0.unparen(), Expr::List(_)) || dynamic(&p.0) || dynamic(&p.1),
        Expr::Binary(_, p) | Expr::Elvis(p) => dynamic(&p.0) || dynamic(&p.1),
        Expr::Cond(p) => dynamic(&p.0) || dynamic(&p.1) || dynamic(&p.2),
        Expr::Unary(_, x) | Expr::Paren(x) => dynamic(x),
        Expr::Call(f, xs) => {
            ["eval", "random"]
                .iter()
                .any(|k| f.as_str().eq_ignore_ascii_case(k))
                || xs.iter().any(dynamic)
        }
        Expr::List(xs) => xs.iter().any(dynamic),
        Expr::Ad(ad) => ad.iter().any(|(_, x)| dynamic(x)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    fn h(e: &Expr) -> u64 {
        let mut f = Fx::default();
        hash(e, &mut f);
        f.finish()
    }

    /// Whether `a` and `b` are the same; equal ones must hash alike and print alike.
    fn check(a: &str, b: &str, want: bool) {
        let (x, y) = (parse::expr(a).expect("a"), parse::expr(b).expect("b"));
        assert_eq!(same(&x, &y), want, "{a} / {b}");
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
