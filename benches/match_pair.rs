//! The symmetric match of one job/machine pair of the dissertation's base workload (ch. 5.2.1),
//! through a match context: the hot path of every matchmaker.
//!
//! HTCondor's C++ library needs about 470 ns, 2,040 cycles and 8,860 instructions per pair on
//! this machine class (shared/workloads/README.md). Instruction counts: run the `match_pairs`
//! example under `valgrind --tool=callgrind` (see docs/benchmarks.md).

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use adjoin::query::eval::{symmetric_match, EvalOptions};
use adjoin::query::parse;
use criterion::{black_box, criterion_group, criterion_main, Criterion};

const MACHINE: &str = r#"[Key = 1; Type = "Machine"; Arch = "INTEL"; OpSys = "LINUX"; Memory = 128;
    VirtualMemory = 211.5; Requirements = TARGET.MemoryReqs < Memory - 15]"#;
const JOB: &str = r#"[Key = 7; Type = "Job"; ImageSize = 60.25; MemoryReqs = 20.5;
    Requirements = TARGET.Arch == "INTEL" && TARGET.OpSys == "LINUX" && TARGET.VirtualMemory > ImageSize]"#;

fn bench(c: &mut Criterion) {
    let machine = parse::classad(MACHINE).expect("machine ad parses");
    let job = parse::classad(JOB).expect("job ad parses");
    let opts = EvalOptions::default();
    assert!(symmetric_match(&job, &machine, &opts));
    c.bench_function("symmetric_match/job_machine", |b| {
        b.iter(|| symmetric_match(black_box(&job), black_box(&machine), &opts))
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
