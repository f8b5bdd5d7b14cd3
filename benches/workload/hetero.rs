//! A semi-structured pool unlike the model pools: every request distinct (no two share an
//! autocluster), Requirements of 1–2 disjuncts of 1–6 conditions over attributes absent in
//! 10–30% of offers and of mixed types under one name (`Tag` an integer on some offers, a
//! string on others), a few conditions the index cannot turn into intervals (`regexp`,
//! `member`, offer attributes that depend on the request), and a `Rank` on about 70% of
//! requests and 70% of offers reading the other side (`TARGET.Memory`, `TARGET.Cpus * 100 +
//! TARGET.Memory / 1024`, `-TARGET.LoadAvg`, `(TARGET.Site == MY.Site) * 10`, booleans).
//! Seeded: the same seed gives the same ads.

use crate::Rng;
use adjoin_query::{parse, ClassAd, ParseError};
use std::collections::HashSet;

/// Sites offers and requests are at.
const SITES: [&str; 12] = [
    "wisc", "fnal", "ucsd", "unl", "mit", "caltech", "purdue", "ufl", "vand", "bnl", "slac", "osg",
];
/// Operating systems.
const OS: [&str; 4] = ["LINUX", "LINUX", "LINUX", "WINDOWS"];
/// Architectures.
const ARCH: [&str; 3] = ["X86_64", "X86_64", "aarch64"];
/// Owners.
const OWNERS: [&str; 8] = [
    "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi",
];

/// Generates the heterogeneous pool's offers and requests.
#[derive(Debug)]
pub struct Heterogeneous {
    rng: Rng,
    /// Requests' significant text so far: each new one must differ.
    seen: HashSet<String>,
}

/// A string literal in new syntax.
fn q(s: &str) -> String {
    format!("\"{s}\"")
}

impl Heterogeneous {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Heterogeneous {
        Heterogeneous {
            rng: Rng::new(seed),
            seen: HashSet::new(),
        }
    }

    fn pick<'a>(&mut self, xs: &[&'a str]) -> &'a str {
        xs[self.rng.range(0, xs.len() as i64) as usize]
    }

    fn chance(&mut self, p: f64) -> bool {
        self.rng.unit() < p
    }

    /// Offer number `n`: a slot whose attributes come and go.
    pub fn offer(&mut self, n: u64) -> Result<ClassAd, ParseError> {
        let mut a: Vec<String> = vec![format!("Name = \"slot{n}@h{}.example\"", n / 8)];
        let site = self.pick(&SITES);
        a.push(format!("Site = {}", q(site)));
        a.push(format!("OpSys = {}", q(self.pick(&OS))));
        a.push(format!("Arch = {}", q(self.pick(&ARCH))));
        if self.chance(0.9) {
            a.push(format!("Memory = {}", 256 * self.rng.range(1, 257)));
        }
        a.push(format!(
            "Cpus = {}",
            [1, 1, 2, 4, 8, 16][self.rng.range(0, 6) as usize]
        ));
        if self.chance(0.8) {
            a.push(format!("Disk = {}", self.rng.range(1_000, 500_000_000)));
        }
        a.push(format!("LoadAvg = {:.2}", self.rng.unit() * 4.0));
        match self.rng.range(0, 20) {
            0..=9 => a.push(format!("Tag = {}", self.rng.range(0, 100))),
            10..=16 => a.push(format!("Tag = \"t{}\"", self.rng.range(0, 30))),
            _ => {}
        }
        if self.chance(0.7) {
            a.push(format!("HasGPU = {}", self.chance(0.2)));
        }
        if self.chance(0.75) {
            a.push(format!("KFlops = {}", self.rng.range(10_000, 3_000_000)));
        }
        let g1 = self.pick(&OWNERS);
        let g2 = self.pick(&OWNERS);
        a.push(format!("AllowedOwners = {{{}, {}}}", q(g1), q(g2)));
        a.push(format!("Machine = \"h{}.{}.example.org\"", n / 8, site));
        if self.chance(0.3) {
            // An attribute that depends on the request asking.
            a.push("Score = TARGET.Prio * 2 + 1".to_owned());
        }
        if self.chance(0.7) {
            let req = match self.rng.range(0, 4) {
                0 => "TARGET.RequestMemory <= Memory".to_owned(),
                1 => format!("TARGET.Owner != {}", q(self.pick(&OWNERS))),
                2 => "TARGET.RequestCpus <= Cpus && TARGET.RequestMemory <= Memory".to_owned(),
                _ => "member(TARGET.Owner, AllowedOwners) || TARGET.Prio > 5".to_owned(),
            };
            a.push(format!("Requirements = {req}"));
        }
        if self.chance(0.7) {
            let rank = match self.rng.range(0, 4) {
                0 => "TARGET.Prio",
                1 => "TARGET.RequestMemory / 1024",
                2 => "(TARGET.Site == MY.Site) * 5",
                _ => "TARGET.Owner == \"alice\"",
            };
            a.push(format!("Rank = {rank}"));
        }
        parse::classad(&format!("[{}]", a.join("; ")))
    }

    /// One condition of a request's Requirements, with its own constants.
    fn condition(&mut self) -> String {
        match self.rng.range(0, 14) {
            0 | 1 => format!("TARGET.Memory >= {}", 256 * self.rng.range(1, 200)),
            2 => format!("TARGET.Cpus >= {}", self.rng.range(1, 9)),
            3 => format!("TARGET.Disk > {}", self.rng.range(1_000, 400_000_000)),
            4 => format!("TARGET.OpSys == {}", q(self.pick(&OS))),
            5 => format!("TARGET.Arch == {}", q(self.pick(&ARCH))),
            6 => format!("TARGET.LoadAvg < {:.2}", self.rng.unit() * 4.0),
            7 => format!("TARGET.Tag == {}", self.rng.range(0, 100)),
            8 => format!("TARGET.Tag == \"t{}\"", self.rng.range(0, 30)),
            9 => format!("TARGET.KFlops >= {}", self.rng.range(10_000, 2_500_000)),
            10 => "TARGET.HasGPU".to_owned(),
            11 => format!("regexp(\"^h{}\", TARGET.Machine)", self.rng.range(0, 10)),
            12 => format!("TARGET.Site != {}", q(self.pick(&SITES))),
            _ => format!("TARGET.Score > {}", self.rng.range(1, 30)),
        }
    }

    /// Request number `n`: distinct from every request made before by this generator.
    pub fn request(&mut self, n: u64) -> Result<ClassAd, ParseError> {
        loop {
            let disjuncts = if self.chance(0.3) { 2 } else { 1 };
            let mut parts = Vec::new();
            for _ in 0..disjuncts {
                let k = self.rng.range(1, 7);
                let conds: Vec<String> = (0..k).map(|_| self.condition()).collect();
                parts.push(conds.join(" && "));
            }
            let requirements = if parts.len() == 1 {
                parts.remove(0)
            } else {
                parts
                    .iter()
                    .map(|p| format!("({p})"))
                    .collect::<Vec<_>>()
                    .join(" || ")
            };
            let rank = if self.chance(0.7) {
                Some(match self.rng.range(0, 6) {
                    0 => "TARGET.Memory".to_owned(),
                    1 => "TARGET.Cpus * 100 + TARGET.Memory / 1024".to_owned(),
                    2 => "-TARGET.LoadAvg".to_owned(),
                    3 => "(TARGET.Site == MY.Site) * 10".to_owned(),
                    4 => "TARGET.HasGPU".to_owned(),
                    _ => "TARGET.KFlops".to_owned(),
                })
            } else {
                None
            };
            let site = self.pick(&SITES);
            let owner = self.pick(&OWNERS);
            let prio = self.rng.range(0, 10);
            let memory = 128 * self.rng.range(1, 64);
            let cpus = [1, 1, 1, 2, 4][self.rng.range(0, 5) as usize];
            let key = format!("{requirements}|{rank:?}|{site}|{owner}|{prio}|{memory}|{cpus}");
            if !self.seen.insert(key) {
                continue;
            }
            let mut a = vec![
                format!("GlobalJobId = \"submit#{n}.0#1\""),
                format!("Owner = {}", q(owner)),
                format!("Site = {}", q(site)),
                format!("Prio = {prio}"),
                format!("RequestMemory = {memory}"),
                format!("RequestCpus = {cpus}"),
                format!("Requirements = {requirements}"),
            ];
            if let Some(r) = rank {
                a.push(format!("Rank = {r}"));
            }
            return parse::classad(&format!("[{}]", a.join("; ")));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_has_the_properties_it_promises() {
        let mut h = Heterogeneous::new(7);
        let offers: Vec<ClassAd> = (0..2000).map(|n| h.offer(n).expect("offer")).collect();
        let requests: Vec<ClassAd> = (0..2000).map(|n| h.request(n).expect("request")).collect();
        let share = |ads: &[ClassAd], f: &dyn Fn(&ClassAd) -> bool| {
            ads.iter().filter(|a| f(a)).count() as f64 / ads.len() as f64
        };
        let has = |name: &'static str| move |a: &ClassAd| a.get(name).is_some();
        for (name, lo, hi) in [
            ("Memory", 0.85, 0.95),
            ("Disk", 0.75, 0.85),
            ("HasGPU", 0.65, 0.75),
        ] {
            let s = share(&offers, &has(name));
            assert!((lo..hi).contains(&s), "{name} on {s} of offers");
        }
        let int_tag = share(&offers, &|a| {
            a.get("Tag")
                .is_some_and(|e| e.to_string().parse::<i64>().is_ok())
        });
        let str_tag = share(&offers, &|a| {
            a.get("Tag").is_some_and(|e| e.to_string().starts_with('"'))
        });
        assert!(int_tag > 0.4 && str_tag > 0.25, "{int_tag} {str_tag}");
        for ads in [&offers, &requests] {
            let ranked = share(ads, &has("Rank"));
            assert!((0.65..0.75).contains(&ranked), "{ranked} ranked");
        }
        let text: Vec<String> = requests
            .iter()
            .map(|a| {
                a.get("Requirements")
                    .map(|e| e.to_string())
                    .unwrap_or_default()
            })
            .collect();
        assert!(text.iter().any(|t| t.contains("regexp(")));
        assert!(text.iter().any(|t| t.contains("||")));
        assert!(text.iter().any(|t| t.contains("TARGET.Score")));
        // Every request distinct in what a cycle reads of it.
        let distinct: HashSet<String> = requests
            .iter()
            .map(|a| {
                let mut a = a.clone();
                a.remove("GlobalJobId");
                a.to_string()
            })
            .collect();
        assert_eq!(distinct.len(), requests.len());
    }
}
