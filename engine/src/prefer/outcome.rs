//! Outcomes: an offer's value class for every variable of a request's net, its positions in
//! the orders its parents' values select, and its key in the lexicographic total order.

use super::net::{Class, Preferences};
use adjoin_query::eval::{eval_in_match, EvalOptions, MatchAds};
use adjoin_query::ClassAd;
use std::cmp::Ordering;

/// An outcome: one class per variable, in declaration order.
pub type Outcome = Vec<Class>;

impl Preferences {
    /// The outcome of `offer` for `request`: each variable's `Value` evaluated in the match
    /// context (MY the request, TARGET the offer) and classed ([`super::Variable::class_of`]).
    pub fn outcome(&self, request: &ClassAd, offer: &ClassAd, opts: &EvalOptions) -> Outcome {
        let ads = MatchAds {
            my: request,
            target: offer,
        };
        self.vars
            .iter()
            .map(|v| v.class_of(&eval_in_match(&v.value, ads, opts)))
            .collect()
    }

    /// Each variable's position in the order its parents' classes in `o` select (0 best);
    /// 0 for every value when no row applies (no preference).
    pub fn positions(&self, o: &[Class]) -> Vec<u16> {
        self.vars
            .iter()
            .enumerate()
            .map(|(i, v)| self.position(i, v.class_at(o, i), o))
            .collect()
    }

    /// The position of class `c` of variable `i`, its parents' classes read from `o`.
    pub fn position(&self, i: usize, c: Class, o: &[Class]) -> u16 {
        self.vars
            .get(i)
            .and_then(|v| v.row(|p| o.get(p).copied().unwrap_or(Class::MAX)))
            .map_or(0, |r| r.position(c))
    }

    /// The outcome's key: its positions read as one mixed-radix number, declaration order most
    /// significant. Smaller is better; equal keys tie.
    pub fn key(&self, o: &[Class]) -> u64 {
        self.positions(o)
            .iter()
            .zip(&self.weights)
            .map(|(&p, &w)| u64::from(p) * w)
            .sum()
    }

    /// Compares two outcomes in the lexicographic total order: `Greater` when `a` is preferred
    /// to `b`, `Equal` when they tie.
    pub fn compare(&self, a: &[Class], b: &[Class]) -> Ordering {
        self.key(b).cmp(&self.key(a))
    }

    /// The outcome as (name, value as text) pairs.
    pub fn show(&self, o: &[Class]) -> Vec<(String, String)> {
        self.vars
            .iter()
            .enumerate()
            .map(|(i, v)| (v.name.clone(), v.show(v.class_at(o, i))))
            .collect()
    }
}

impl super::net::Variable {
    /// This variable's class in `o` (it is variable `i`); `other` when `o` is short.
    pub fn class_at(&self, o: &[Class], i: usize) -> Class {
        o.get(i).copied().unwrap_or(self.other())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use adjoin_query::parse;

    /// The paper's example net (seed 004, Fig. 1): a ≻ l; a: p ≻ x; l: x ≻ p; p: e ≻ n;
    /// x: n ≻ e — operating system, processor, math library.
    pub const PAPER: &str = r#"[Preferences = {
      [ Name = "os";  Value = TARGET.OS;  Order = {"a", "l"} ],
      [ Name = "cpu"; Value = TARGET.CPU; Parents = {"os"};
        Table = { [ When = {"a"}; Order = {"p", "x"} ], [ When = {"l"}; Order = {"x", "p"} ] } ],
      [ Name = "lib"; Value = TARGET.Lib; Parents = {"cpu"};
        Table = { [ When = {"p"}; Order = {"e", "n"} ], [ When = {"x"}; Order = {"n", "e"} ] } ]
    }]"#;

    pub fn paper() -> (ClassAd, Preferences) {
        let ad = parse::classad(PAPER).expect("ad");
        let p = Preferences::from_ad(&ad, "paper", &EvalOptions::default())
            .expect("parses")
            .expect("some");
        (ad, p)
    }

    /// The outcome named by three letters, e.g. `ape`.
    pub fn named(p: &Preferences, s: &str) -> Outcome {
        s.chars()
            .zip(&p.vars)
            .map(|(ch, v)| v.class_of(&adjoin_query::Value::str(&ch.to_string())))
            .collect()
    }

    #[test]
    fn outcomes_of_offers() {
        let (req, p) = paper();
        let opts = EvalOptions::default();
        for (offer, want) in [
            (r#"[OS = "a"; CPU = "p"; Lib = "e"]"#, vec![0, 0, 0]),
            (r#"[OS = "L"; CPU = "X"; Lib = "N"]"#, vec![1, 1, 1]),
            (r#"[OS = "w"; Lib = 3]"#, vec![2, 2, 2]),
            (r#"[OS = "a"; CPU = "p"; Lib = error]"#, vec![0, 0, 2]),
        ] {
            let o = parse::classad(offer).expect("offer");
            assert_eq!(p.outcome(&req, &o, &opts), want, "{offer}");
        }
    }

    #[test]
    fn keys_order_the_paper_outcomes() {
        let (_, p) = paper();
        // Best first: the lexicographic order of the eight outcomes.
        let order = ["ape", "apn", "axn", "axe", "lxn", "lxe", "lpe", "lpn"];
        let keys: Vec<u64> = order.iter().map(|s| p.key(&named(&p, s))).collect();
        assert!(keys.windows(2).all(|w| w[0] < w[1]), "{keys:?}");
        assert_eq!(
            p.compare(&named(&p, "ape"), &named(&p, "lpn")),
            Ordering::Greater
        );
        assert_eq!(
            p.compare(&named(&p, "lpn"), &named(&p, "lpn")),
            Ordering::Equal
        );
        // Unlisted values are `other`, after every listed one.
        assert!(p.key(&[0, 0, 2]) > p.key(&named(&p, "apn")));
        assert!(p.key(&[0, 2, 0]) > p.key(&named(&p, "axe")));
        assert_eq!(
            p.show(&named(&p, "lxn")),
            [("os", "\"l\""), ("cpu", "\"x\""), ("lib", "\"n\"")]
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
    }

    #[test]
    fn uncovered_rows_tie() {
        let ad = parse::classad(
            r#"[Preferences = {
              [ Name = "os"; Value = TARGET.OS; Order = {"a", "l"} ],
              [ Name = "gpu"; Value = TARGET.GPU; Parents = {"os"};
                Table = { [ When = {"a"}; Order = {true, false} ] } ] }]"#,
        )
        .expect("ad");
        let p = Preferences::from_ad(&ad, "r", &EvalOptions::default())
            .expect("ok")
            .expect("some");
        // Under "l" no row applies: gpu's values tie.
        assert_eq!(p.compare(&[1, 0], &[1, 1]), Ordering::Equal);
        assert_eq!(p.compare(&[1, 0], &[1, 2]), Ordering::Equal);
        assert_eq!(p.compare(&[0, 0], &[0, 1]), Ordering::Greater);
    }
}
