//! Request pools in autoclusters: job ads drawn from K templates, each template one
//! autocluster (jobs alike in every attribute a cycle over the generated slots reads of them),
//! its jobs differing only in what a negotiator never reads (`ClusterId`, `ProcId`, `QDate`,
//! `GlobalJobId`, …). Templates differ as real submitters' jobs do: owner, architecture and
//! OS, memory, CPUs, disk, image size, the shape of `Requirements` (after the real job ad of
//! the conformance corpus) and `Rank` (mostly `0.0`, as condor_submit writes it).
//!
//! Jobs come in submit clusters (one template, consecutive procs), as a schedd queues them:
//! the first K submit clusters take the templates in turn, so that every template is used
//! when there are at least K jobs; later ones draw templates with a skew towards the first,
//! so autocluster sizes are uneven, as in real pools.

use super::{Rng, ARCH_OS, BASE_TIME, MEMORY_MB};
use adjoin_query::{parse, ClassAd, Expr, Name, ParseError, Value};
use std::collections::HashSet;

/// The submitters, the first ones submitting most (the slots' `Rank` favours `raman`).
const OWNERS: [&str; 12] = [
    "raman",
    "miron",
    "solomon",
    "bbockelm",
    "tannenba",
    "zmiller",
    "jfrey",
    "gthain",
    "tlmiller",
    "johnkn",
    "coatsworth",
    "jpatton",
];

/// `Rank` expressions and their probabilities: most jobs rank nothing.
const RANKS: [(&str, f64); 4] = [
    ("0.0", 0.6),
    ("TARGET.Memory", 0.15),
    ("TARGET.KFlops / 1E3 + TARGET.Memory / 32", 0.15),
    ("TARGET.Mips", 0.1),
];

/// CPUs requested and their probabilities.
const CPUS: [(i64, f64); 3] = [(1, 0.8), (2, 0.15), (4, 0.05)];

fn lit(v: Value) -> Expr {
    Expr::lit(v)
}

/// K job templates and the per-job attributes that make each job distinct.
#[derive(Clone, Debug)]
pub struct JobTemplates {
    templates: Vec<ClassAd>,
}

impl JobTemplates {
    /// `k` distinct templates drawn from `rng`.
    pub fn new(rng: &mut Rng, k: usize) -> Result<JobTemplates, ParseError> {
        let mut seen = HashSet::new();
        let mut templates = Vec::with_capacity(k);
        while templates.len() < k {
            let t = template(rng)?;
            // Distinct in what a cycle reads: their printed forms differ (a redraw is rare).
            if seen.insert(t.to_string()) {
                templates.push(t);
            }
        }
        Ok(JobTemplates { templates })
    }

    /// The number of templates.
    pub fn len(&self) -> usize {
        self.templates.len()
    }

    /// True when there are no templates.
    pub fn is_empty(&self) -> bool {
        self.templates.is_empty()
    }

    /// Template `i`.
    pub fn get(&self, i: usize) -> Option<&ClassAd> {
        self.templates.get(i)
    }

    /// `n` job ads, generated as they are taken: submit clusters of `1..=n/K` procs for the
    /// first K (which take the templates in turn), then of `1..=2·n/K` procs of skewed
    /// templates.
    pub fn jobs<'a>(&'a self, rng: &'a mut Rng, n: u64) -> Jobs<'a> {
        Jobs {
            templates: self,
            rng,
            n,
            made: 0,
            submit: 0,
            current: (0, 0),
            proc_: 0,
        }
    }

    /// Proc `proc_` of submit cluster `cluster`, queued at `qdate`, from template `t`.
    pub fn job(&self, t: usize, cluster: u64, proc_: u64, qdate: i64) -> ClassAd {
        let mut ad = self.templates.get(t).cloned().unwrap_or_default();
        let mut set = |name: &str, v: Value| ad.insert(Name::new(name), lit(v));
        set(
            "GlobalJobId",
            Value::str(&format!("submit.pool.example#{cluster}.{proc_}#{qdate}")),
        );
        set("ClusterId", Value::Int(cluster as i64));
        set("ProcId", Value::Int(proc_ as i64));
        set("QDate", Value::Int(qdate));
        set("EnteredCurrentStatus", Value::Int(qdate));
        set("JobStatus", Value::Int(1));
        ad
    }
}

/// The job ads of [`JobTemplates::jobs`], one at a time.
#[derive(Debug)]
pub struct Jobs<'a> {
    templates: &'a JobTemplates,
    rng: &'a mut Rng,
    n: u64,
    made: u64,
    /// Submit clusters begun.
    submit: u64,
    /// The current submit cluster's template and procs.
    current: (usize, u64),
    /// The next proc of the current submit cluster.
    proc_: u64,
}

impl Iterator for Jobs<'_> {
    type Item = ClassAd;

    fn next(&mut self) -> Option<ClassAd> {
        let k = self.templates.len() as u64;
        if self.made >= self.n || k == 0 {
            return None;
        }
        if self.proc_ >= self.current.1 {
            let mean = (self.n / k).max(1) as i64;
            let g = &mut *self.rng;
            self.current = if self.submit < k {
                (self.submit as usize, g.range(1, mean + 1) as u64)
            } else {
                // u² skews towards the first templates.
                let u = g.unit();
                ((u * u * k as f64) as usize, g.range(1, 2 * mean + 1) as u64)
            };
            self.submit += 1;
            self.proc_ = 0;
        }
        let ad = self.templates.job(
            self.current.0,
            self.submit,
            self.proc_,
            BASE_TIME + self.made as i64,
        );
        self.proc_ += 1;
        self.made += 1;
        Some(ad)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = usize::try_from(self.n - self.made).unwrap_or(usize::MAX);
        if self.templates.is_empty() {
            (0, Some(0))
        } else {
            (left, Some(left))
        }
    }
}

/// One template: what a submitter's jobs share.
fn template(g: &mut Rng) -> Result<ClassAd, ParseError> {
    let owner = OWNERS[g.weighted(&[
        0.2, 0.15, 0.12, 0.1, 0.08, 0.08, 0.06, 0.06, 0.05, 0.04, 0.03, 0.03,
    ])];
    let (arch, os, _) = ARCH_OS[g.weighted(&ARCH_OS.map(|a| a.2))];
    let memory = MEMORY_MB[g.weighted(&MEMORY_MB.map(|m| m.1))].0 / 2;
    let cpus = CPUS[g.weighted(&CPUS.map(|c| c.1))].0;
    let rank = RANKS[g.weighted(&RANKS.map(|r| r.1))].0;
    let base = format!(
        "(TARGET.Arch == \"{arch}\") && (TARGET.OpSys == \"{os}\") && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && (TARGET.HasFileTransfer)"
    );
    let (requirements, universe) = match g.weighted(&[0.5, 0.2, 0.15, 0.1, 0.05]) {
        0 => (base, 5),
        1 => (
            "(TARGET.Arch == MY.WantArch) && (TARGET.OpSys == MY.WantOpSys) && (TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory)".to_owned(),
            5,
        ),
        2 => (format!("{base} && (TARGET.Cpus >= RequestCpus)"), 5),
        3 => (format!("{base} && (TARGET.HasJava)"), 10),
        _ => (
            format!("{base} && (TARGET.KFlops >= {})", g.range(2, 20) * 50_000),
            5,
        ),
    };
    let mut ad = ClassAd::new();
    let mut set = |name: &str, e: Expr| ad.insert(Name::new(name), e);
    let s = |v: &str| lit(Value::str(v));
    let i = |v: i64| lit(Value::Int(v));
    set("MyType", s("Job"));
    set("TargetType", s("Machine"));
    set("Owner", s(owner));
    set("User", s(&format!("{owner}@pool.example")));
    set("JobUniverse", i(universe));
    set(
        "Cmd",
        s(&format!("/home/{owner}/bin/sim{}", g.range(0, 20))),
    );
    set("Iwd", s(&format!("/home/{owner}/run")));
    set("ImageSize", i(g.range(1_000, 200_000)));
    set("DiskUsage", i(g.range(10, 10_000)));
    set("RequestDisk", parse::expr("DiskUsage")?);
    set("RequestMemory", i(memory));
    set("RequestCpus", i(cpus));
    set("WantArch", s(arch));
    set("WantOpSys", s(os));
    set(
        "JobPrio",
        i(if g.unit() < 0.9 { 0 } else { g.range(1, 10) }),
    );
    set("ShouldTransferFiles", s("YES"));
    set("WhenToTransferOutput", s("ON_EXIT"));
    set("PeriodicRemove", lit(Value::Bool(false)));
    set("Requirements", parse::expr(&requirements)?);
    set("Rank", parse::expr(rank)?);
    Ok(ad)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pool(seed: u64, k: usize, n: u64) -> (JobTemplates, Vec<ClassAd>) {
        let mut g = Rng::new(seed);
        let t = JobTemplates::new(&mut g, k).expect("templates");
        let jobs: Vec<ClassAd> = t.jobs(&mut g, n).collect();
        (t, jobs)
    }

    /// The attributes two jobs of one template may differ in.
    const PER_JOB: [&str; 6] = [
        "GlobalJobId",
        "ClusterId",
        "ProcId",
        "QDate",
        "EnteredCurrentStatus",
        "JobStatus",
    ];

    fn significant(ad: &ClassAd) -> String {
        let mut ad = ad.clone();
        for a in PER_JOB {
            ad.remove(a);
        }
        ad.to_string()
    }

    #[test]
    fn pools() {
        for (seed, k, n, want_templates) in [
            (1, 10, 1000, 10),
            (2, 100, 1000, 100),
            (3, 50, 20, 20),
            (4, 1, 5, 1),
            (5, 7, 0, 0),
        ] {
            let (t, jobs) = pool(seed, k, n);
            assert_eq!((t.len(), jobs.len() as u64), (k, n));
            let used: HashSet<String> = jobs.iter().map(significant).collect();
            assert_eq!(used.len(), want_templates, "seed {seed}");
            let ids: HashSet<String> = jobs
                .iter()
                .map(|j| format!("{:?}", j.get("GlobalJobId")))
                .collect();
            assert_eq!(ids.len() as u64, n, "distinct ids");
        }
    }

    #[test]
    fn same_seed_same_pool() {
        let (a, b) = (pool(9, 30, 200).1, pool(9, 30, 200).1);
        let print = |js: &[ClassAd]| js.iter().map(|j| j.to_string()).collect::<Vec<_>>();
        assert_eq!(print(&a), print(&b));
    }

    #[test]
    fn templates_vary() {
        let (t, _) = pool(11, 2000, 0);
        let distinct = |attr: &str| {
            (0..t.len())
                .filter_map(|i| t.get(i)?.get(attr).map(|e| format!("{e:?}")))
                .collect::<HashSet<_>>()
                .len()
        };
        for (attr, at_least) in [
            ("Owner", 10),
            ("Rank", 4),
            ("RequestCpus", 3),
            ("RequestMemory", 5),
            ("WantArch", 4),
            ("Requirements", 30),
        ] {
            assert!(distinct(attr) >= at_least, "{attr}: {}", distinct(attr));
        }
        let ranked = (0..t.len())
            .filter(|&i| {
                t.get(i).and_then(|a| a.get("Rank")).map(|e| e.to_string()) == Some("0.0".into())
            })
            .count();
        assert!((1000..1400).contains(&ranked), "60% rank nothing: {ranked}");
    }

    #[test]
    fn jobs_parse_back() {
        let (_, jobs) = pool(12, 5, 10);
        for j in jobs {
            let back = parse::classad(&j.to_string()).expect("reparse");
            assert_eq!(back.len(), j.len());
        }
    }
}
