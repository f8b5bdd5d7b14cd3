//! Generated pools for benches, tests and `adjoin demo`: slot ads after the dissertation's base
//! workload machine model (Figures 26–27: architecture/OS and memory distributions) with the
//! attribute set of real HTCondor slot ads (`StatusAds-*` in the conformance corpus), and job
//! ads shaped like the real job ad there. Seeded: the same seed gives the same ads.

use adjoin_query::{parse, ClassAd, Expr, Name, ParseError, Value};

pub mod gangs;
pub mod hetero;
pub mod templates;

/// A small, fast, seeded generator (SplitMix64).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// A number in `lo..hi` (`lo` when the range is empty).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        lo + (self.next_u64() % (hi - lo) as u64) as i64
    }

    /// An index drawn with the given weights (which sum to about 1).
    pub fn weighted(&mut self, weights: &[f64]) -> usize {
        let mut x = self.unit() * weights.iter().sum::<f64>();
        for (i, w) in weights.iter().enumerate() {
            if x < *w {
                return i;
            }
            x -= w;
        }
        weights.len().saturating_sub(1)
    }
}

/// Architecture/OS pairs and their probabilities (dissertation Figure 26).
pub const ARCH_OS: [(&str, &str, f64); 8] = [
    ("INTEL", "LINUX", 0.3191),
    ("INTEL", "SOLARIS26", 0.2127),
    ("INTEL", "WINNT40", 0.2411),
    ("SGI", "IRIX6", 0.0212),
    ("SUN4u", "SOLARIS26", 0.0390),
    ("SUN4u", "SOLARIS27", 0.0390),
    ("SUN4x", "SOLARIS26", 0.0766),
    ("SUN4x", "SOLARIS27", 0.0524),
];

/// Physical memory (MB) and its probabilities (dissertation Figure 27).
pub const MEMORY_MB: [(i64, f64); 5] = [
    (32, 0.07),
    (64, 0.40),
    (128, 0.20),
    (256, 0.20),
    (800, 0.13),
];

/// The platforms of today's pools standing in for [`ARCH_OS`]'s, row for row with the same
/// shares (so the model's proportions hold): what [`Workload::today`] generates.
pub const TODAY_ARCH_OS: [(&str, &str, f64); 8] = [
    ("X86_64", "LINUX", 0.3191),
    ("X86_64", "WINDOWS", 0.2127),
    ("aarch64", "LINUX", 0.2411),
    ("ppc64le", "LINUX", 0.0212),
    ("X86_64", "MACOS", 0.0390),
    ("aarch64", "MACOS", 0.0390),
    ("X86_64", "FREEBSD", 0.0766),
    ("aarch64", "WINDOWS", 0.0524),
];

/// How much more memory today's slots have than the model's (Figure 27's 32 MB–800 MB become
/// 2 GB–50 GB), applied to [`MEMORY_MB`] by [`Workload::today`] for slots and requests alike.
pub const TODAY_MEMORY_SCALE: i64 = 64;

/// The epoch the generated times are near (2014-12-05, as in the real slot ads).
const BASE_TIME: i64 = 1_417_808_219;

/// Builds generated ads; holds the expressions every ad shares, parsed once.
#[derive(Clone, Debug)]
pub struct Workload {
    rng: Rng,
    /// Today's platforms and memory sizes ([`Workload::today`]) instead of the model's.
    today: bool,
    slot_exprs: Vec<(Name, Expr)>,
    job_exprs: Vec<(Name, Expr)>,
}

fn lit(v: Value) -> Expr {
    Expr::lit(v)
}

fn s(v: &str) -> Expr {
    lit(Value::str(v))
}

fn i(v: i64) -> Expr {
    lit(Value::Int(v))
}

fn r(v: f64) -> Expr {
    lit(Value::Real(v))
}

fn b(v: bool) -> Expr {
    lit(Value::Bool(v))
}

impl Workload {
    /// A workload drawing from `seed`.
    pub fn new(seed: u64) -> Result<Workload, ParseError> {
        let parsed = |pairs: &[(&str, &str)]| -> Result<Vec<(Name, Expr)>, ParseError> {
            pairs
                .iter()
                .map(|(n, e)| Ok((Name::new(n), parse::expr(e)?)))
                .collect()
        };
        Ok(Workload {
            rng: Rng::new(seed),
            today: false,
            slot_exprs: parsed(&[
                ("CpuBusy", "((LoadAvg - CondorLoadAvg) >= 0.5)"),
                ("Start", "(KeyboardIdle > 15 * 60) && (LoadAvg - CondorLoadAvg <= 0.3)"),
                ("Requirements", "(START) && (TARGET.ImageSize <= Memory * 1024)"),
                ("Rank", "TARGET.Owner == \"raman\" ? 1.0 : 0.0"),
                ("CurrentTime", "time()"),
                ("MachineMaxVacateTime", "10 * 60"),
                ("SlotWeight", "Cpus"),
            ])?,
            job_exprs: parsed(&[
                (
                    "Requirements",
                    "(TARGET.Arch == MY.WantArch) && (TARGET.OpSys == MY.WantOpSys) && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)",
                ),
                ("Rank", "TARGET.KFlops / 1E3 + TARGET.Memory / 32"),
                ("RequestDisk", "DiskUsage"),
                ("PeriodicRemove", "false"),
            ])?,
        })
    }

    /// A workload like [`Workload::new`]'s with today's platforms ([`TODAY_ARCH_OS`], the
    /// model's shares) and memory sizes ([`TODAY_MEMORY_SCALE`] times the model's), for
    /// pools that should look like a current HTCondor pool (the demo's).
    pub fn today(seed: u64) -> Result<Workload, ParseError> {
        Ok(Workload {
            today: true,
            ..Workload::new(seed)?
        })
    }

    /// The Arch/OpSys pairs and shares this workload draws from.
    pub fn arch_os(&self) -> &'static [(&'static str, &'static str, f64); 8] {
        if self.today {
            &TODAY_ARCH_OS
        } else {
            &ARCH_OS
        }
    }

    /// A memory size (MB) drawn from the model, scaled for today when asked.
    fn memory_mb(&mut self) -> i64 {
        let m = MEMORY_MB[self.rng.weighted(&MEMORY_MB.map(|m| m.1))].0;
        if self.today {
            m * TODAY_MEMORY_SCALE
        } else {
            m
        }
    }

    /// The generator (to draw more from the same stream).
    pub fn rng(&mut self) -> &mut Rng {
        &mut self.rng
    }

    /// Slot ad number `n` (its `Name` is `slot<k>@host<m>.pool.example`): 43 attributes.
    pub fn slot_ad(&mut self, n: u64) -> ClassAd {
        let table = self.arch_os();
        let (arch, os, _) = table[self.rng.weighted(&table.map(|a| a.2))];
        let memory = self.memory_mb();
        let g = &mut self.rng;
        let total_vm = memory * 2 * 1024;
        let vm = total_vm * g.range(20, 91) / 100;
        let cpus = [1, 1, 2, 4, 8][g.range(0, 5) as usize];
        let slot = n % 4 + 1;
        let host = format!("host{}.pool.example", n / 4);
        let state_i = g.weighted(&[0.55, 0.35, 0.05, 0.05]);
        let (state, activity) = [
            ("Unclaimed", "Idle"),
            ("Claimed", "Busy"),
            ("Claimed", "Idle"),
            ("Owner", "Idle"),
        ][state_i];
        let load = (g.unit() * 200.0).round() / 100.0;
        let condor_load = if state == "Claimed" {
            load.min(1.0)
        } else {
            0.0
        };
        let entered = BASE_TIME + g.range(0, 86_400);
        let disk = g.range(1_000_000, 100_000_000);
        let mut ad = ClassAd::new();
        let mut set = |name: &str, e: Expr| ad.insert(Name::new(name), e);
        set("MyType", s("Machine"));
        set("TargetType", s("Job"));
        set("Name", s(&format!("slot{slot}@{host}")));
        set("Machine", s(&host));
        set("Arch", s(arch));
        set("OpSys", s(os));
        set("OpSysAndVer", s(&format!("{os}{}", g.range(5, 8))));
        set("Memory", i(memory));
        set("TotalMemory", i(memory * 4));
        set("DetectedMemory", i(memory * 4));
        set("VirtualMemory", i(vm));
        set("TotalVirtualMemory", i(total_vm));
        set("Disk", i(disk));
        set("TotalDisk", i(disk * 4));
        set("Cpus", i(cpus));
        set("TotalCpus", r(cpus as f64 * 4.0));
        set("DetectedCpus", i(cpus * 4));
        set("SlotID", i(slot as i64));
        set("SlotType", s("Static"));
        set("State", s(state));
        set("Activity", s(activity));
        set("LoadAvg", r(load));
        set("CondorLoadAvg", r(condor_load));
        set("KeyboardIdle", i(g.range(0, 100_000)));
        set("ConsoleIdle", i(g.range(0, 20_000_000)));
        set("Mips", i(g.range(100, 20_000)));
        set("KFlops", i(g.range(20_000, 2_000_000)));
        set("CurrentRank", r(0.0));
        set("HasFileTransfer", b(true));
        set("HasJava", b(g.unit() < 0.8));
        set("FileSystemDomain", s("pool.example"));
        set("UidDomain", s("pool.example"));
        set(
            "CondorVersion",
            s("$CondorVersion: 8.2.6 Dec 02 2014 BuildID: UW_development $"),
        );
        set(
            "StartdIpAddr",
            s(&format!(
                "<10.{}.{}.{}:9618>",
                n / 65_536 % 256,
                n / 256 % 256,
                n % 256
            )),
        );
        set("EnteredCurrentState", i(entered));
        set("EnteredCurrentActivity", i(entered));
        set("UpdateSequenceNumber", i(g.range(1, 1000)));
        for (name, e) in &self.slot_exprs {
            ad.insert(*name, e.clone());
        }
        ad
    }

    /// Job ad number `n` (its `GlobalJobId` is `submit.pool.example#<cluster>.<proc>#<time>`),
    /// shaped like the real job ad of the corpus; it asks for an architecture and OS drawn from
    /// the machine model, so that about as many jobs fit as the model's pool offers.
    pub fn job_ad(&mut self, n: u64) -> ClassAd {
        let table = self.arch_os();
        let (arch, os, _) = table[self.rng.weighted(&table.map(|a| a.2))];
        let scale = if self.today { TODAY_MEMORY_SCALE } else { 1 };
        let g = &mut self.rng;
        let cluster = n / 10 + 1;
        let proc_ = n % 10;
        let qdate = BASE_TIME + (n as i64) * 3;
        let owners = ["raman", "miron", "solomon", "bbockelm", "tannenba"];
        let owner = owners[g.range(0, owners.len() as i64) as usize];
        let mut ad = ClassAd::new();
        let mut set = |name: &str, e: Expr| ad.insert(Name::new(name), e);
        set("MyType", s("Job"));
        set("TargetType", s("Machine"));
        set(
            "GlobalJobId",
            s(&format!("submit.pool.example#{cluster}.{proc_}#{qdate}")),
        );
        set("ClusterId", i(cluster as i64));
        set("ProcId", i(proc_ as i64));
        set("Owner", s(owner));
        set("User", s(&format!("{owner}@pool.example")));
        set("JobUniverse", i(5));
        set("JobStatus", i(1));
        set("QDate", i(qdate));
        set("Cmd", s(&format!("/home/{owner}/bin/sim")));
        set("ImageSize", i(g.range(1_000, 200_000)));
        set("DiskUsage", i(g.range(10, 10_000)));
        set(
            "RequestMemory",
            i(MEMORY_MB[g.weighted(&MEMORY_MB.map(|m| m.1))].0 * scale / 2),
        );
        set("RequestCpus", i(1));
        set("WantArch", s(arch));
        set("WantOpSys", s(os));
        set("JobPrio", i(0));
        set("ShouldTransferFiles", s("YES"));
        set("WhenToTransferOutput", s("ON_EXIT"));
        for (name, e) in &self.job_exprs {
            ad.insert(*name, e.clone());
        }
        ad
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_ads() {
        let mut a = Workload::new(7).expect("workload");
        let mut b = Workload::new(7).expect("workload");
        for n in 0..20 {
            assert_eq!(a.slot_ad(n).to_string(), b.slot_ad(n).to_string());
            assert_eq!(a.job_ad(n).to_string(), b.job_ad(n).to_string());
        }
    }

    #[test]
    fn slot_ads_look_like_the_model() {
        let mut w = Workload::new(1).expect("workload");
        let ad = w.slot_ad(5);
        assert!((40..=45).contains(&ad.len()), "{} attributes", ad.len());
        assert!(
            matches!(ad.get("Name"), Some(Expr::Lit(Value::Str(n))) if &**n == "slot2@host1.pool.example")
        );
        let mut linux = 0;
        for n in 0..10_000 {
            if let Some(Expr::Lit(Value::Str(os))) = w.slot_ad(n).get("OpSys") {
                linux += (&**os == "LINUX") as u32;
            }
        }
        assert!(
            (2900..3500).contains(&linux),
            "INTEL/LINUX is 31.9% of the model: {linux}"
        );
    }

    #[test]
    fn generated_ads_print_and_parse_back() {
        let mut w = Workload::new(3).expect("workload");
        for n in 0..5 {
            for ad in [w.slot_ad(n), w.job_ad(n)] {
                let back = parse::classad(&ad.to_string()).expect("reparse");
                assert_eq!(back.len(), ad.len());
            }
        }
    }
}
