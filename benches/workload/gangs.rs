//! The gangmatching base workload of the dissertation (5.2.1, Figures 26–30): machines with
//! one port (`Job`), licenses with one port (`Site`) valid on one partition of the machines'
//! keys, and jobs with two ports (`Cpu`, then `License` with `HostId = Cpu.Key`); as many
//! machines as jobs, licenses 100% or 50% of them, selectivity 1, 2, 4 or 8 partitions.
//! Also the heuristic-failure workload of 5.7, and [`with_serials`]: every license given its
//! own serial number, an attribute no constraint reads (identical licenses that no longer print
//! alike). Seeded: the same seed gives the same ads.

use super::{Rng, ARCH_OS, MEMORY_MB};
use adjoin_query::{parse, ClassAd, ParseError};

/// One megabyte, as the dissertation's `M` suffix.
const MB: f64 = 1_048_576.0;

/// The ads of a gang workload.
#[derive(Clone, Debug, Default)]
pub struct GangWorkload {
    /// The machines (offers).
    pub machines: Vec<ClassAd>,
    /// The licenses (offers).
    pub licenses: Vec<ClassAd>,
    /// The jobs (requests).
    pub jobs: Vec<ClassAd>,
}

/// A memory size (MB) drawn from Figure 27.
fn memory(g: &mut Rng) -> f64 {
    let w: Vec<f64> = MEMORY_MB.iter().map(|m| m.1).collect();
    MEMORY_MB[g.weighted(&w)].0 as f64
}

/// An architecture and operating system drawn from Figure 26.
fn arch_os(g: &mut Rng) -> (&'static str, &'static str) {
    let w: Vec<f64> = ARCH_OS.iter().map(|a| a.2).collect();
    let (a, o, _) = ARCH_OS[g.weighted(&w)];
    (a, o)
}

/// A machine of Figure 28 with key `key`.
pub fn machine(g: &mut Rng, key: usize) -> Result<ClassAd, ParseError> {
    let (arch, os) = arch_os(g);
    let mem = memory(g) * MB;
    let vm = 2.0 * mem * (0.2 + 0.7 * g.unit());
    parse::classad(&format!(
        "[Key = {key}; Type = \"Machine\"; Arch = \"{arch}\"; OpSys = \"{os}\"; Memory = {mem:.0}; \
         VirtualMemory = {vm:.0}; Ports = {{[Label = Job; Constraint = Job.MemoryReqs < Memory - {m15:.0}]}}]",
        m15 = 15.0 * MB
    ))
}

/// A license of Figure 29 valid on keys `[lo, hi)`.
pub fn license(lo: usize, hi: usize) -> Result<ClassAd, ParseError> {
    parse::classad(&format!(
        "[Type = \"License\"; App = \"sim_app\"; \
         Ports = {{[Label = Site; Constraint = Site.HostID >= {lo} && Site.HostId < {hi}]}}]"
    ))
}

/// A job of Figure 30 wanting `arch`/`os` (drawn from Figure 26 when `None`).
pub fn job(g: &mut Rng, want: Option<(&str, &str)>) -> Result<ClassAd, ParseError> {
    let image = 2.0 * memory(g) * MB * (0.2 + 0.6 * g.unit());
    let reqs = image * (0.2 + 0.3 * g.unit());
    let (arch, os) = match want {
        Some(w) => w,
        None => arch_os(g),
    };
    parse::classad(&format!(
        "[Ports = {{[Label = Cpu; ImageSize = {image:.0}; MemoryReqs = {reqs:.0}; \
         Constraint = Cpu.Arch == \"{arch}\" && Cpu.OpSys == \"{os}\" && Cpu.VirtualMemory > ImageSize], \
         [Label = License; HostId = Cpu.Key; Constraint = License.App == \"sim_app\"]}}]"
    ))
}

/// The base workload: `n` jobs and machines, `percent` (100 or 50) licenses per machine in
/// `selectivity` partitions.
pub fn base(
    n: usize,
    percent: usize,
    selectivity: usize,
    seed: u64,
) -> Result<GangWorkload, ParseError> {
    let mut g = Rng::new(seed);
    let k = selectivity.max(1);
    let machines = (0..n)
        .map(|i| machine(&mut g, i))
        .collect::<Result<_, _>>()?;
    let count = n * percent / 100;
    let part = n.div_ceil(k);
    let licenses = (0..count)
        .map(|i| {
            let p = i * k / count.max(1);
            license(p * part, (p + 1) * part)
        })
        .collect::<Result<_, _>>()?;
    let jobs = (0..n)
        .map(|_| job(&mut g, None))
        .collect::<Result<_, _>>()?;
    Ok(GangWorkload {
        machines,
        licenses,
        jobs,
    })
}

/// The heuristic-failure workload (5.7) at scale `n` (the dissertation's is `n` = 500): `n`
/// machines every job can use, `2n` identical licenses valid only on the last fifth of them,
/// and `n` jobs.
pub fn heuristic_failure(n: usize, seed: u64) -> Result<GangWorkload, ParseError> {
    let mut g = Rng::new(seed);
    let machines = (0..n)
        .map(|i| {
            let mem = 800.0 * MB;
            parse::classad(&format!(
                "[Key = {i}; Type = \"Machine\"; Arch = \"INTEL\"; OpSys = \"LINUX\"; Memory = {mem:.0}; \
                 VirtualMemory = {vm:.0}; Ports = {{[Label = Job; Constraint = Job.MemoryReqs < Memory - {m15:.0}]}}]",
                vm = 2.0 * mem,
                m15 = 15.0 * MB
            ))
        })
        .collect::<Result<_, _>>()?;
    let licenses = (0..2 * n)
        .map(|_| license(n - n / 5, n))
        .collect::<Result<_, _>>()?;
    let jobs = (0..n)
        .map(|_| job(&mut g, Some(("INTEL", "LINUX"))))
        .collect::<Result<_, _>>()?;
    Ok(GangWorkload {
        machines,
        licenses,
        jobs,
    })
}

/// Gives every license of `w` its own `Serial` (an attribute no constraint reads), as real
/// license ads carry: the licenses of one partition stay interchangeable in every gang, but no
/// two print alike.
pub fn with_serials(w: &mut GangWorkload) {
    for (i, l) in w.licenses.iter_mut().enumerate() {
        l.set(
            "Serial",
            adjoin_query::Expr::Lit(adjoin_query::Value::str(&format!("lic-{i:06}"))),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes() {
        for (percent, k) in [(100, 1), (50, 8)] {
            let w = base(64, percent, k, 7).expect("workload");
            assert_eq!(
                (w.machines.len(), w.licenses.len(), w.jobs.len()),
                (64, 64 * percent / 100, 64)
            );
            let last = w.licenses.last().map(|l| l.to_string()).unwrap_or_default();
            assert!(last.contains(&format!("< {}", 64)), "{last}");
        }
        let h = heuristic_failure(500, 1).expect("workload");
        assert_eq!(
            (h.machines.len(), h.licenses.len(), h.jobs.len()),
            (500, 1000, 500)
        );
        assert!(h.licenses[0].to_string().contains(">= 400"));
        let mut s = base(8, 100, 1, 3).expect("workload");
        with_serials(&mut s);
        assert_ne!(s.licenses[0].to_string(), s.licenses[1].to_string());
        assert_eq!(
            base(10, 100, 2, 3).expect("a").jobs,
            base(10, 100, 2, 3).expect("b").jobs
        );
    }
}
