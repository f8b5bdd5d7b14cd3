//! The forward sweep (seed 004, section 2): each variable, parents first, set to its best value
//! given its parents' — the net's optimum, found in time linear in its size.

use super::net::{Class, Preferences};
use super::outcome::Outcome;

impl Preferences {
    /// The optimum outcome. Where no row applies (no preference), the first listed value is
    /// taken (every value ties there), or `other` when none is listed.
    pub fn optimum(&self) -> Outcome {
        let mut o: Outcome = Vec::with_capacity(self.vars.len());
        for v in &self.vars {
            let row = v.row(|p| o.get(p).copied().unwrap_or(Class::MAX));
            let best = match row.and_then(|r| r.order.first()) {
                Some(&c) => c,
                None if v.domain.is_empty() => v.other(),
                None => 0,
            };
            o.push(best);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::super::outcome::tests::{named, paper};
    use super::*;
    use adjoin_query::eval::EvalOptions;
    use adjoin_query::parse;

    #[test]
    fn the_paper_optimum_is_ape() {
        let (_, p) = paper();
        assert_eq!(p.optimum(), named(&p, "ape"));
        assert_eq!(p.key(&p.optimum()), 0);
    }

    #[test]
    fn sweeps() {
        let opts = EvalOptions::default();
        for (prefs, want) in [
            // The issue's example: LINUX, big memory; gpu has no row under LINUX.
            (
                r#"{[ Name = "os";  Value = TARGET.OpSys; Order = {"LINUX", "OSX"} ],
                    [ Name = "mem"; Value = TARGET.Memory >= 4096; Parents = {"os"};
                      Table = { [ When = {"LINUX"}; Order = {true, false} ],
                                [ When = {"OSX"};   Order = {false, true} ] } ],
                    [ Name = "gpu"; Value = TARGET.HasGPU; Parents = {"os", "mem"};
                      Table = { [ When = {"OSX", false}; Order = {true, false} ] } ]}"#,
                vec![0, 0, 0],
            ),
            (r#"{[Name = "x"; Value = 1; Order = {}]}"#, vec![0]),
            (
                r#"{[Name = "x"; Value = 1; Order = {3, 2}],
                    [Name = "y"; Value = 1; Parents = {"x"};
                     Table = {[When = {2}; Order = {"b"}], [When = {3}; Order = {"c", "b"}]}]}"#,
                vec![0, 1],
            ),
        ] {
            let ad = parse::classad(&format!("[Preferences = {prefs}]")).expect("ad");
            let p = Preferences::from_ad(&ad, "r", &opts)
                .expect("ok")
                .expect("some");
            assert_eq!(p.optimum(), want, "{prefs}");
        }
    }
}
