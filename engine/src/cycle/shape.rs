//! The shape of an ad from some of its attributes, for autoclustering without printing: what
//! it binds to each name reachable from the start names, hashed and compared with the
//! language's structural identity of expressions ([`adjoin_query::structural`]).

pub use adjoin_query::structural::{hash, hash_names, names, same};
use adjoin_query::{ClassAd, Expr, Key, Value};
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// The hasher of shapes: rustc's Fx hash (fast, non-cryptographic; shapes live in memory only).
pub type Fx = rustc_hash::FxHasher;

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

/// A literal that reads nothing: [`plain`], or a list of such (`{ "carol", "frank" }`).
pub fn literal(e: &Expr) -> bool {
    match e {
        Expr::List(items) => items.iter().all(literal),
        e => plain(e),
    }
}

/// A [`HashMap`] keyed by hashes already made.
pub type ByHash<V> = HashMap<u64, V, BuildHasherDefault<Fx>>;

/// True when `e` may read attributes the static reference analysis does not report (the
/// language's own verdict, [`adjoin_query::refs::complete`]).
pub fn dynamic(e: &Expr) -> bool {
    !adjoin_query::refs::complete(e)
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::parse;

    #[test]
    fn literals_read_nothing() {
        for (text, want) in [
            ("1", true),
            ("\"a\"", true),
            ("{ \"carol\", \"frank\" }", true),
            ("{ 1, { 2, \"x\" } }", true),
            ("undefined", true),
            ("{ TARGET.Group }", false),
            ("{ 1, Owner }", false),
            ("-TARGET.Cpus", false),
            ("[a = 1]", false),
            ("{ [a = 1] }", false),
            ("1 + 2", false),
            ("size(\"ab\")", false),
            ("Memory", false),
        ] {
            let e = parse::expr(text).expect("expression");
            assert_eq!(literal(&e), want, "{text}");
        }
    }
}
