//! The dissertation's index workload (4.6.1, Figures 19–20): N object (offer) ads and N query
//! ads, each with `attrs` integer attributes and a constraint bounding every attribute of the
//! other kind from one side.
//!
//! Offers have attributes `A`, `B`, `C`, …; queries `Z`, `Y`, `X`, …. Attribute `i` of either
//! kind has domain size 10 or N by the mix: all 10 (`T`), the first half 10 and the rest N
//! (`M`), all N (`D`). A value is uniform in `0..domain`. Each constraint conjunct picks a
//! value the same way and, with equal probability, `other.X >= c` or `other.X <= c`. Each
//! attribute and each conjunct is omitted with probability `omission` (5% in the
//! dissertation); a constraint with every conjunct omitted is `true`.

use adjoin_query::{BinOp, ClassAd, Expr, Name, Value};

/// A domain-size mix.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Mix {
    /// Every attribute has domain size 10.
    T,
    /// The first half 10, the rest N.
    M,
    /// Every attribute has domain size N.
    D,
}

impl Mix {
    /// Every mix.
    pub const ALL: [Mix; 3] = [Mix::T, Mix::M, Mix::D];

    /// The letter.
    pub fn letter(self) -> char {
        match self {
            Mix::T => 'T',
            Mix::M => 'M',
            Mix::D => 'D',
        }
    }
}

/// The parameters of one experiment.
#[derive(Copy, Clone, Debug)]
pub struct Spec {
    /// Ads of each kind (N).
    pub n: usize,
    /// Attributes per ad (2, 4, 8 in the dissertation; at most 13).
    pub attrs: usize,
    /// The domain-size mix.
    pub mix: Mix,
    /// Probability of omitting an attribute or a conjunct.
    pub omission: f64,
    /// The random seed.
    pub seed: u64,
}

impl Spec {
    /// The dissertation's experiment: 5% omission.
    pub fn new(n: usize, attrs: usize, mix: Mix, seed: u64) -> Spec {
        Spec {
            n,
            attrs,
            mix,
            omission: 0.05,
            seed,
        }
    }

    fn domain(&self, i: usize) -> i64 {
        let n = self.n.max(1) as i64;
        match self.mix {
            Mix::T => 10,
            Mix::D => n,
            Mix::M if i < self.attrs / 2 => 10,
            Mix::M => n,
        }
    }
}

/// SplitMix64: small, seeded, no dependency.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: i64) -> i64 {
        (self.next() % n.max(1) as u64) as i64
    }

    fn chance(&mut self, p: f64) -> bool {
        ((self.next() >> 11) as f64 / (1_u64 << 53) as f64) < p
    }
}

/// The attribute names of offers (`A`, `B`, …) or queries (`Z`, `Y`, …).
pub fn names(offer: bool, attrs: usize) -> Vec<String> {
    (0..attrs.min(13))
        .map(|i| {
            let c = if offer {
                b'A' + i as u8
            } else {
                b'Z' - i as u8
            };
            (c as char).to_string()
        })
        .collect()
}

fn one(spec: &Spec, rng: &mut Rng, offer: bool) -> ClassAd {
    let own = names(offer, spec.attrs);
    let other = names(!offer, spec.attrs);
    let mut ad = ClassAd::new();
    for (i, name) in own.iter().enumerate() {
        if !rng.chance(spec.omission) {
            let v = rng.below(spec.domain(i));
            ad.insert(Name::new(name), Expr::Lit(Value::Int(v)));
        }
    }
    let mut constraint: Option<Expr> = None;
    for (i, name) in other.iter().enumerate() {
        if rng.chance(spec.omission) {
            continue;
        }
        let c = Expr::Lit(Value::Int(rng.below(spec.domain(i))));
        let op = if rng.next() & 1 == 0 {
            BinOp::Ge
        } else {
            BinOp::Le
        };
        let term = Expr::binary(op, Expr::select(Expr::attr("other"), name), c);
        constraint = Some(match constraint {
            Some(left) => Expr::binary(BinOp::And, left, term),
            None => term,
        });
    }
    let c = constraint.unwrap_or(Expr::Lit(Value::Bool(true)));
    ad.insert(Name::new("Constraint"), c);
    ad
}

/// The offers and queries of an experiment (offers first in the random stream).
pub fn generate(spec: &Spec) -> (Vec<ClassAd>, Vec<ClassAd>) {
    let mut rng = Rng(spec.seed);
    let offers = (0..spec.n).map(|_| one(spec, &mut rng, true)).collect();
    let queries = (0..spec.n).map(|_| one(spec, &mut rng, false)).collect();
    (offers, queries)
}

#[cfg(test)]
mod tests {
    use super::*;
    use adjoin_query::Key;

    #[test]
    fn shapes_follow_the_figures() {
        let spec = Spec::new(1000, 4, Mix::M, 1);
        let (offers, queries) = generate(&spec);
        assert_eq!((offers.len(), queries.len()), (1000, 1000));
        let first = offers[0].to_string();
        assert!(first.contains("Constraint = other."), "{first}");
        // Values stay in their domains: A, B of domain 10, C, D of domain N.
        let (mut present, mut total) = (0, 0);
        for ad in &offers {
            for (i, n) in names(true, 4).iter().enumerate() {
                total += 1;
                if let Some(Expr::Lit(Value::Int(v))) = ad.get_key(Key::of(n)) {
                    present += 1;
                    assert!(*v >= 0 && *v < if i < 2 { 10 } else { 1000 });
                }
            }
        }
        // About 5% omitted.
        let omitted = (total - present) as f64 / total as f64;
        assert!((0.03..0.07).contains(&omitted), "{omitted}");
        assert_eq!(names(false, 3), ["Z", "Y", "X"]);
        let again = generate(&spec);
        assert_eq!(again.0[7].to_string(), offers[7].to_string());
    }
}
