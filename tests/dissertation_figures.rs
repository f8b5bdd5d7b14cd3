//! The dissertation's example ads (tests/dissertation/figNN_*.ad) parse, and their policies
//! evaluate as the surrounding text describes: one test per figure, with partner ads built here.
//!
//! Bilateral figures (1–6, 13, 16, 19, 20) are evaluated in a match context (MY and TARGET).
//! Gangmatching figures (8, 10, 11, 28–30) are evaluated in the dissertation's own gang
//! evaluation environment (its Figure 32): one "context" ad per member of the gang, holding the
//! member as `_ad` and binding each of its port labels to the docked port of the partner, so that
//! a label like `Host1` resolves lexically from the port that names it. Two ports dock when both
//! of their `Constraint`s evaluate to `true` (dissertation sec. 3.2.3).
//! The clock is fixed wherever a policy depends on it: dates are in CST (UTC-6), the zone of the
//! dissertation's QDate literals.

use adjoin::query::ast::Expr;
use adjoin::query::classad::ClassAd;
use adjoin::query::eval::{eval_expr, eval_in_match, symmetric_match, EvalOptions, MatchAds};
use adjoin::query::parse::{self, Format};
use adjoin::query::value::{AbsTime, Value};
use std::sync::Arc;

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/// 2^20: the dissertation's `M` scale factor.
const MB: f64 = 1_048_576.0;
/// 2^30: `G`.
const GB: f64 = 1_073_741_824.0;
/// CST, seconds east of UTC.
const CST: i32 = -6 * 3600;
/// `'Mon Jan 11 10:53:31 1999 (CST) -06:00'` in seconds since the epoch.
const QDATE: i64 = 916_073_611;
/// Tue Jan 12 1999 at the given hour, CST.
fn jan12(hour: i64) -> i64 {
    916_131_600 + (hour - 3) * 3600
}

fn figure_text(file: &str) -> String {
    let path = format!(
        "{}/../tests/dissertation/{file}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {path}: {e}"))
}

/// The single ad of a figure file.
fn figure(file: &str) -> ClassAd {
    parse::classad(&figure_text(file)).unwrap_or_else(|e| panic!("{file} does not parse: {e:?}"))
}

/// A partner ad written in the test.
fn ad(text: &str) -> ClassAd {
    parse::classad(text).unwrap_or_else(|e| panic!("test ad does not parse: {e:?}\n{text}"))
}

fn ex(text: &str) -> Expr {
    parse::expr(text).unwrap_or_else(|e| panic!("test expression does not parse: {e:?}: {text}"))
}

/// `base` with `attr` rebound to `expr`.
fn with(base: &ClassAd, attr: &str, expr: &str) -> ClassAd {
    let mut a = base.clone();
    a.set(attr, ex(expr));
    a
}

/// `base` without `attr`.
fn without(base: &ClassAd, attr: &str) -> ClassAd {
    let mut a = base.clone();
    assert!(a.remove(attr).is_some(), "{attr} not in ad");
    a
}

fn clock(now: i64) -> EvalOptions {
    EvalOptions {
        now: Some(now),
        tz_offset: Some(CST),
        ..Default::default()
    }
}

/// HTCondor's rules, as HTCondor's daemons use them (TARGET fallback on), clock fixed.
fn opts() -> EvalOptions {
    clock(jan12(12))
}

/// The value of attribute `attr` of `my`, with `target` as TARGET.
fn attr_in_match(my: &ClassAd, target: &ClassAd, attr: &str, o: &EvalOptions) -> Value {
    let e = my
        .get(attr)
        .unwrap_or_else(|| panic!("ad has no attribute {attr}"));
    eval_in_match(e, MatchAds { my, target }, o)
}

/// The value of attribute `attr` of `my` alone.
fn attr_alone(my: &ClassAd, attr: &str) -> Value {
    eval_expr(&ex(attr), my, &opts())
}

#[track_caller]
fn is_true(v: Value) {
    assert!(matches!(v, Value::Bool(true)), "expected true, got {v:?}");
}

#[track_caller]
fn is_false(v: Value) {
    assert!(matches!(v, Value::Bool(false)), "expected false, got {v:?}");
}

#[track_caller]
fn is_undefined(v: Value) {
    assert!(
        matches!(v, Value::Undefined),
        "expected undefined, got {v:?}"
    );
}

#[track_caller]
fn is_int(v: Value, want: i64) {
    assert!(
        matches!(v, Value::Int(i) if i == want),
        "expected {want}, got {v:?}"
    );
}

#[track_caller]
fn is_real(v: Value, want: f64) {
    match v {
        Value::Real(r) => assert!(
            (r - want).abs() <= 1e-9 * want.abs().max(1.0),
            "expected {want}, got {r}"
        ),
        other => panic!("expected real {want}, got {other:?}"),
    }
}

#[track_caller]
fn is_str(v: Value, want: &str) {
    assert!(
        matches!(&v, Value::Str(s) if &**s == want),
        "expected {want:?}, got {v:?}"
    );
}

#[track_caller]
fn is_reltime(v: Value, secs: f64) {
    assert!(
        matches!(v, Value::RelTime(t) if t == secs),
        "expected reltime {secs}s, got {v:?}"
    );
}

/// A number (integer or real) as f64, for comparing ranks.
#[track_caller]
fn num(v: Value) -> f64 {
    match v {
        Value::Int(i) => i as f64,
        Value::Real(r) => r,
        other => panic!("expected a number, got {other:?}"),
    }
}

/// A gang member and its port labels: `(label, member, port)` docks `member`'s port `port` at
/// the port labelled `label`.
type Member<'a> = (&'a ClassAd, &'a [(&'a str, usize, usize)]);

/// The dissertation's gang evaluation environment (its Figure 32): member `i` becomes
/// `_ctx_i = [ <label> = _ctx_j._ad.Ports[k]; …; _ad = <member> ]`, where `(label, j, k)` says the
/// port labelled `label` has port `k` of member `j` docked at it.
fn gang(members: &[Member<'_>]) -> ClassAd {
    let mut env = ClassAd::new();
    for (i, (member, labels)) in members.iter().enumerate() {
        let mut ctx = ClassAd::new();
        for &(label, j, k) in labels.iter() {
            ctx.set(label, ex(&format!("_ctx_{j}._ad.Ports[{k}]")));
        }
        ctx.set("_ad", Expr::Ad(Arc::new((*member).clone())));
        env.set(&format!("_ctx_{i}"), Expr::Ad(Arc::new(ctx)));
    }
    env
}

/// Attribute `attr` of port `port` of gang member `member`.
fn port_attr(env: &ClassAd, member: usize, port: usize, attr: &str) -> Value {
    eval_expr(
        &ex(&format!("_ctx_{member}._ad.Ports[{port}].{attr}")),
        env,
        &opts(),
    )
}

/// True when port `a.1` of member `a.0` and port `b.1` of member `b.0` may dock: both
/// constraints are `true`.
fn docks(env: &ClassAd, a: (usize, usize), b: (usize, usize)) -> bool {
    matches!(port_attr(env, a.0, a.1, "Constraint"), Value::Bool(true))
        && matches!(port_attr(env, b.0, b.1, "Constraint"), Value::Bool(true))
}

/// A machine with one port (labelled `Job`, as in Figure 28) accepting any job whose
/// `MemoryReqs` leaves it 15M. `extra` is spliced into the ad.
fn gang_machine(extra: &str) -> ClassAd {
    ad(&format!(
        r#"[ Type = "Machine"; {extra};
             Ports = {{ [ Label = Job; Constraint = Job.MemoryReqs < Memory - 15M ] }} ]"#
    ))
}

// ---------------------------------------------------------------------------------------------
// Chapter 1 and 2: bilateral policies
// ---------------------------------------------------------------------------------------------

/// Figure 1: the workstation runs a job only when idle (LoadAvg < 0.3, keyboard idle over 15
/// minutes) and when the job's image leaves 15M of physical memory; it prefers raman's jobs.
#[test]
fn fig01_workstation() {
    let m = figure("fig01_workstation.ad");
    assert_eq!(m.len(), 14);
    // The dissertation's literals: h:m:s relative time, scale suffixes.
    is_reltime(attr_alone(&m, "KeybrdIdle"), (23 * 60 + 12) as f64);
    is_real(attr_alone(&m, "Disk"), 323.4 * MB);
    is_real(attr_alone(&m, "Memory"), 64.0 * MB);
    is_str(attr_alone(&m, "OpSys"), "SOLARIS251");

    let o = opts();
    let raman = ad(r#"[ Type = "Job"; Owner = "raman"; ImageSize = 31M ]"#);
    let miron = ad(r#"[ Type = "Job"; Owner = "miron"; ImageSize = 31M ]"#);
    // Idle machine, fitting image: accepted; raman ranks 1, everyone else 0.
    is_true(attr_in_match(&m, &raman, "Constraint", &o));
    is_true(attr_in_match(&m, &miron, "Constraint", &o));
    is_int(attr_in_match(&m, &raman, "Rank", &o), 1);
    is_int(attr_in_match(&m, &miron, "Rank", &o), 0);
    // The image must leave at least 15M: 49M is the largest that fits in 64M.
    let fits = with(&raman, "ImageSize", "49M");
    let too_big = with(&raman, "ImageSize", "50M");
    is_true(attr_in_match(&m, &fits, "Constraint", &o));
    is_false(attr_in_match(&m, &too_big, "Constraint", &o));
    // Not idle: load average at 0.3, or the keyboard touched within the last 15 minutes.
    is_false(attr_in_match(
        &with(&m, "LoadAvg", "0.3"),
        &raman,
        "Constraint",
        &o,
    ));
    is_true(attr_in_match(
        &with(&m, "LoadAvg", "0.29"),
        &raman,
        "Constraint",
        &o,
    ));
    is_false(attr_in_match(
        &with(&m, "KeybrdIdle", "'00:14:59'"),
        &raman,
        "Constraint",
        &o,
    ));
    is_false(attr_in_match(
        &with(&m, "KeybrdIdle", "'00:15:00'"),
        &raman,
        "Constraint",
        &o,
    ));
    is_true(attr_in_match(
        &with(&m, "KeybrdIdle", "'00:15:01'"),
        &raman,
        "Constraint",
        &o,
    ));
    // Only jobs: another machine is refused.
    let machine = with(&raman, "Type", "\"Machine\"");
    is_false(attr_in_match(&m, &machine, "Constraint", &o));
    // A job that states no image size: strict arithmetic makes the constraint undefined.
    is_undefined(attr_in_match(
        &m,
        &without(&raman, "ImageSize"),
        "Constraint",
        &o,
    ));
}

/// Figure 2: the job wants an INTEL/SOLARIS251 machine with more virtual memory than its image,
/// and ranks machines by KFlops/1000 + Memory/32. Figure 1's machine states no VirtualMemory, so
/// the job's constraint is undefined there and there is no match until it does.
#[test]
fn fig02_job() {
    let job = figure("fig02_job.ad");
    let m = figure("fig01_workstation.ad");
    let o = opts();
    assert_eq!(job.len(), 12);
    match attr_alone(&job, "QDate") {
        Value::AbsTime(AbsTime { secs, offset }) => {
            assert_eq!((secs, offset), (QDATE, CST));
        }
        v => panic!("QDate: expected an absolute time, got {v:?}"),
    }
    is_undefined(attr_alone(&job, "CompletionDate"));
    is_true(attr_alone(&job, "CompletionDate is undefined"));
    is_real(attr_alone(&job, "ImageSize"), 31.0 * MB);

    // Figure 1 as it stands: the machine accepts the job, but the job's constraint is undefined.
    is_true(attr_in_match(&m, &job, "Constraint", &o));
    is_undefined(attr_in_match(&job, &m, "Constraint", &o));
    assert!(!symmetric_match(&job, &m, &o));
    // With enough virtual memory the two match, in either order; with too little (or exactly the
    // image size: the comparison is strict) they do not.
    let roomy = with(&m, "VirtualMemory", "128M");
    assert!(symmetric_match(&job, &roomy, &o));
    assert!(symmetric_match(&roomy, &job, &o));
    assert!(!symmetric_match(
        &job,
        &with(&m, "VirtualMemory", "31M"),
        &o
    ));
    assert!(!symmetric_match(
        &job,
        &with(&m, "VirtualMemory", "16M"),
        &o
    ));
    // The wrong architecture or operating system fails too.
    assert!(!symmetric_match(
        &job,
        &with(&roomy, "Arch", "\"SUN4u\""),
        &o
    ));
    assert!(!symmetric_match(
        &job,
        &with(&roomy, "OpSys", "\"LINUX\""),
        &o
    ));
    // "other.VirtualMemory > self.ImageSize … could also have been written
    // other.VirtualMemory > ImageSize."
    let pair = MatchAds {
        my: &job,
        target: &roomy,
    };
    is_true(eval_in_match(
        &ex("other.VirtualMemory > ImageSize"),
        pair,
        &o,
    ));
    is_true(eval_in_match(
        &ex("other.VirtualMemory > self.ImageSize"),
        pair,
        &o,
    ));
    // Rank: 21893/1E3 + 64M/32.
    is_real(
        attr_in_match(&job, &roomy, "Rank", &o),
        21.893 + 64.0 * MB / 32.0,
    );
    // Figure 1's preference for raman applies to this job.
    is_int(attr_in_match(&roomy, &job, "Rank", &o), 1);
}

/// Figure 4: never the untrusted, always the research group, friends only when the machine is
/// idle, others only at night (before 8:00 or after 18:00); research ranks 10, friends 1, others 0.
///
/// As printed, `!member(other.Owner, Untrusted) && Rank>=10 ? true : …` parses (Figure 3: `&&`
/// binds tighter than `?:`) as `(… && Rank>=10) ? true : …`, so an untrusted user falls through to
/// the "others" branch and is accepted at night, contrary to the text. The test checks the figure
/// as printed, then the repaired constraint (the `&&` applied to the whole conditional) against
/// every claim of the text.
#[test]
fn fig04_access_control() {
    let m = figure("fig04_access_control.ad");
    assert_eq!(m.len(), 17);
    // Lower-case scale suffixes, as printed (`323.4m`).
    is_real(attr_alone(&m, "Disk"), 323.4 * MB);
    is_real(attr_alone(&m, "Memory"), 64.0 * MB);

    let job = |owner: &str| {
        ad(&format!(
            r#"[ Type = "Job"; Owner = "{owner}"; ImageSize = 31M ]"#
        ))
    };
    let (noon, evening, early) = (clock(jan12(12)), clock(jan12(22)), clock(jan12(7)));
    // DayTime() is the time since local midnight.
    is_reltime(eval_expr(&ex("DayTime()"), &m, &noon), 12.0 * 3600.0);
    is_reltime(eval_expr(&ex("DayTime()"), &m, &evening), 22.0 * 3600.0);
    is_true(eval_expr(&ex("DayTime() < '8:00'"), &m, &early));

    // Rank: research 10, friends 1, others (and the untrusted) 0.
    for (owner, rank) in [
        ("raman", 10),
        ("miron", 10),
        ("solomon", 10),
        ("calvin", 1),
        ("hobbes", 1),
        ("joe", 0),
        ("rival", 0),
    ] {
        is_int(attr_in_match(&m, &job(owner), "Rank", &noon), rank);
    }

    let busy = with(&m, "LoadAvg", "0.5");
    let typing = with(&m, "KeybrdIdle", "'00:05:00'");
    let accepts = |machine: &ClassAd, owner: &str, at: &EvalOptions| {
        attr_in_match(machine, &job(owner), "Constraint", at)
    };
    // The research group: always, even on a busy machine at noon.
    is_true(accepts(&busy, "raman", &noon));
    is_true(accepts(&typing, "solomon", &noon));
    // Friends: only when idle, at any hour.
    is_true(accepts(&m, "calvin", &noon));
    is_false(accepts(&busy, "calvin", &noon));
    is_false(accepts(&typing, "hobbes", &evening));
    // Others: only at night.
    is_false(accepts(&m, "joe", &noon));
    is_true(accepts(&m, "joe", &evening));
    is_true(accepts(&m, "joe", &early));
    // The untrusted: refused by day …
    is_false(accepts(&m, "rival", &noon));
    is_false(accepts(&m, "riffraff", &noon));
    // … but, as printed, accepted at night (see the doc comment).
    is_true(accepts(&m, "rival", &evening));

    // The repaired constraint keeps every other answer and refuses the untrusted at all hours.
    let fixed = with(
        &m,
        "Constraint",
        "!member(other.Owner, Untrusted) && (Rank>=10 ? true : \
         Rank>0 ? LoadAvg < 0.3 && KeybrdIdle>'00:15' : \
         DayTime()<'8:00' || DayTime()>'18:00')",
    );
    let fixed_busy = with(&fixed, "LoadAvg", "0.5");
    for at in [&noon, &evening, &early] {
        is_false(accepts(&fixed, "rival", at));
        is_false(accepts(&fixed, "riffraff", at));
        is_true(accepts(&fixed_busy, "miron", at));
        is_true(accepts(&fixed, "calvin", at));
        is_false(accepts(&fixed_busy, "calvin", at));
    }
    is_false(accepts(&fixed, "joe", &noon));
    is_true(accepts(&fixed, "joe", &evening));
    is_true(accepts(&fixed, "joe", &early));
}

/// Figure 5: the job runs only on INTEL/SOLARIS251 machines with 10M of disk and memory for its
/// image; it prefers instructional machines at night (10), then machines idle over 3 hours (5),
/// then anything (0).
///
/// As printed the Rank cannot give 10: it writes `DayTime>'20:00' && DayTime<'8:00'` (no hour is
/// both) and the second `DayTime` lacks its parentheses (an attribute reference: undefined). The
/// test checks the printed Rank, then the repaired one. The Constraint names the machine's
/// `Arch`, `OpSys` and `Disk` without `other.`; HTCondor's TARGET fallback finds them in the
/// machine, while the dissertation's rule (unscoped means `self`) leaves them undefined.
#[test]
fn fig05_time_preference() {
    let job = figure("fig05_time_preference.ad");
    let base = figure("fig01_workstation.ad");
    assert_eq!(job.len(), 12);
    let lab = with(&base, "IsInstructional", "true");
    let office = with(&base, "IsInstructional", "false");
    let idle_office = with(&office, "KeybrdIdle", "'4:00:00'");
    let (noon, night, small_hours) = (clock(jan12(12)), clock(jan12(22)), clock(jan12(3)));

    // Constraint: Figure 1's machine qualifies; a small disk, a small memory or the wrong OS
    // do not.
    is_true(attr_in_match(&job, &lab, "Constraint", &noon));
    assert!(symmetric_match(&job, &lab, &noon));
    is_false(attr_in_match(
        &job,
        &with(&lab, "Disk", "5M"),
        "Constraint",
        &noon,
    ));
    is_false(attr_in_match(
        &job,
        &with(&lab, "Memory", "16M"),
        "Constraint",
        &noon,
    ));
    is_false(attr_in_match(
        &job,
        &with(&lab, "OpSys", "\"LINUX\""),
        "Constraint",
        &noon,
    ));
    // Under the dissertation's own scoping (no fallback to TARGET) `Arch` is the job's: undefined.
    let strict = EvalOptions {
        target_fallback: false,
        ..clock(jan12(12))
    };
    is_undefined(attr_in_match(&job, &lab, "Constraint", &strict));

    // The Rank as printed: by day 5 for a long-idle machine, else 0; at night on an
    // instructional machine the missing parentheses make it undefined, never 10.
    is_int(attr_in_match(&job, &idle_office, "Rank", &noon), 5);
    is_int(attr_in_match(&job, &office, "Rank", &noon), 0);
    is_int(attr_in_match(&job, &lab, "Rank", &noon), 0);
    is_undefined(attr_in_match(&job, &lab, "Rank", &night));
    is_int(attr_in_match(&job, &lab, "Rank", &small_hours), 0);

    // Repaired: night is after 20:00 *or* before 8:00, and DayTime is called.
    let fixed = with(
        &job,
        "Rank",
        "(DayTime()>'20:00' || DayTime()<'8:00') && other.IsInstructional ? 10 : \
         other.KeybrdIdle>'3:00' ? 5 : 0",
    );
    is_int(attr_in_match(&fixed, &lab, "Rank", &night), 10);
    is_int(attr_in_match(&fixed, &lab, "Rank", &small_hours), 10);
    is_int(attr_in_match(&fixed, &lab, "Rank", &noon), 0);
    is_int(attr_in_match(&fixed, &idle_office, "Rank", &noon), 5);
    is_int(attr_in_match(&fixed, &idle_office, "Rank", &night), 5);
    is_int(attr_in_match(&fixed, &office, "Rank", &night), 0);
}

/// Figure 6: for the first two hours after submission the job wants 1G of memory; after that
/// 0.5G will do. It prefers more memory throughout.
#[test]
fn fig06_time_constraint() {
    let job = figure("fig06_time_constraint.ad");
    let base = figure("fig01_workstation.ad");
    assert_eq!(job.len(), 13);
    let big = with(&base, "Memory", "2G");
    let mid = with(&base, "Memory", "768M");
    let small = with(&base, "Memory", "256M");
    let after = |secs: i64| clock(QDATE + secs);

    // ElapsedTime = CurrentTime() - QDate is a relative time.
    is_reltime(attr_alone_at(&job, "ElapsedTime", &after(3600)), 3600.0);
    // Within two hours (the boundary included: the test is ElapsedTime > '2:00'), 1G is needed.
    for t in [60, 3600, 2 * 3600] {
        is_true(attr_in_match(&job, &big, "Constraint", &after(t)));
        is_false(attr_in_match(&job, &mid, "Constraint", &after(t)));
        is_false(attr_in_match(&job, &small, "Constraint", &after(t)));
    }
    // Afterwards half a gigabyte suffices.
    for t in [2 * 3600 + 1, 3 * 3600, 48 * 3600] {
        is_true(attr_in_match(&job, &big, "Constraint", &after(t)));
        is_true(attr_in_match(&job, &mid, "Constraint", &after(t)));
        is_false(attr_in_match(&job, &small, "Constraint", &after(t)));
    }
    is_true(attr_in_match(
        &job,
        &with(&base, "Memory", "0.5G"),
        "Constraint",
        &after(3 * 3600),
    ));
    // Symmetric: Figure 1's machine takes this 31M job (memory 768M leaves plenty).
    assert!(!symmetric_match(&job, &mid, &after(3600)));
    assert!(symmetric_match(&job, &mid, &after(3 * 3600)));
    // Rank prefers larger memories.
    let o = after(3 * 3600);
    assert!(
        num(attr_in_match(&job, &big, "Rank", &o)) > num(attr_in_match(&job, &mid, "Rank", &o))
    );
    is_real(attr_in_match(&job, &mid, "Rank", &o), 768.0 * MB);
}

fn attr_alone_at(my: &ClassAd, attr: &str, o: &EvalOptions) -> Value {
    eval_expr(&ex(attr), my, o)
}

// ---------------------------------------------------------------------------------------------
// Chapter 3: ports and gangs
// ---------------------------------------------------------------------------------------------

/// Figure 8: one ad asks for two INTEL/LINUX machines, each with more virtual memory than the
/// port's image, both on the same subnet; the second port's constraint refers to both labels.
#[test]
fn fig08_port_labels() {
    let req = figure("fig08_port_labels.ad");
    assert_eq!(req.len(), 4);
    is_real(attr_alone(&req, "Ports[0].ImageSize"), 25.7 * MB);
    is_str(attr_alone(&req, "Ports[1].Executable"), "b.out");
    is_int(attr_alone(&req, "size(Ports)"), 2);

    let host = |name: &str, os: &str, vm: &str, subnet: &str, mem: &str| {
        gang_machine(&format!(
            r#"Name = "{name}"; Arch = "INTEL"; OpSys = "{os}"; VirtualMemory = {vm};
               Memory = {mem}; Subnet = "{subnet}"; MIPS = 104; KFlops = 21893"#
        ))
    };
    let a = host("a", "LINUX", "64M", "128.105.166", "128M");
    let b = host("b", "LINUX", "64M", "128.105.166", "128M");
    // Member 0 is the request; Host1 is member 1's port, Host2 member 2's.
    let env_of = |h1: &ClassAd, h2: &ClassAd| {
        gang(&[
            (&req, &[("Host1", 1, 0), ("Host2", 2, 0)]),
            (h1, &[("Job", 0, 0)]),
            (h2, &[("Job", 0, 1)]),
        ])
    };
    let env = env_of(&a, &b);
    assert!(docks(&env, (0, 0), (1, 0)));
    assert!(docks(&env, (0, 1), (2, 0)));
    // The label evaluates to the docked port; its attributes reach the candidate's ad.
    is_str(port_attr(&env, 0, 0, "Label.Name"), "a");
    is_int(port_attr(&env, 0, 0, "Rank"), 104);
    is_int(port_attr(&env, 0, 1, "Rank"), 21893);

    // A different subnet for the second host breaks only the second port.
    let elsewhere = host("b", "LINUX", "64M", "128.105.167", "128M");
    let env = env_of(&a, &elsewhere);
    assert!(docks(&env, (0, 0), (1, 0)));
    is_false(port_attr(&env, 0, 1, "Constraint"));
    // Virtual memory is checked against each port's own ImageSize (25.7M, 22.7M).
    let vm25 = host("c", "LINUX", "25M", "128.105.166", "128M");
    let env = env_of(&vm25, &vm25);
    is_false(port_attr(&env, 0, 0, "Constraint"));
    is_true(port_attr(&env, 0, 1, "Constraint"));
    // The wrong OS.
    let solaris = host("d", "SOLARIS251", "64M", "128.105.166", "128M");
    is_false(port_attr(&env_of(&solaris, &b), 0, 0, "Constraint"));
    // The machine's side: 32M leaves 17M, too little for port 1 (17.2M) but enough for port 2.
    let small = host("e", "LINUX", "64M", "128.105.166", "32M");
    let env = env_of(&small, &small);
    is_true(port_attr(&env, 0, 0, "Constraint"));
    is_false(port_attr(&env, 1, 0, "Constraint"));
    assert!(!docks(&env, (0, 0), (1, 0)));
    assert!(docks(&env, (0, 1), (2, 0)));
    // Before Host2 is docked the second port's constraint is undefined, not true.
    let partial = gang(&[(&req, &[("Host1", 1, 0)]), (&a, &[("Job", 0, 0)])]);
    is_true(port_attr(&partial, 0, 0, "Constraint"));
    is_undefined(port_attr(&partial, 0, 1, "Constraint"));
}

/// Figure 10: a rendering service docks a render client (not from "rival") at its first port,
/// then a LINUX workstation and a license for do_render; later ports use what earlier ones
/// docked (the client's files, the workstation's name).
#[test]
fn fig10_render_service() {
    let server = figure("fig10_render_service.ad");
    is_int(attr_alone(&server, "size(Ports)"), 3);
    is_real(attr_alone(&server, "Ports[1].ImageSize"), 27.2 * MB);

    let client = |owner: &str| {
        ad(&format!(
            r#"[ Type = "render_client"; Owner = "{owner}";
                 sceneFile = "castle.scene"; outputFile = "castle.png";
                 Ports = {{ [ Label = server; Constraint = server.Type == "render_server" ] }} ]"#
        ))
    };
    let cpu = |os: &str, vm: &str| {
        gang_machine(&format!(
            r#"Name = "node7.cs.wisc.edu"; Arch = "INTEL"; OpSys = "{os}";
               VirtualMemory = {vm}; Memory = 256M"#
        ))
    };
    let license = |app: &str| {
        ad(&format!(
            r#"[ Type = "License"; App = "{app}";
                 Ports = {{ [ Label = Site; Constraint = Site.HostName == "node7.cs.wisc.edu" ] }} ]"#
        ))
    };
    let env_of = |c: &ClassAd, m: &ClassAd, l: &ClassAd| {
        gang(&[
            (
                &server,
                &[("request", 1, 0), ("cpu", 2, 0), ("license", 3, 0)],
            ),
            (c, &[("server", 0, 0)]),
            (m, &[("Job", 0, 1)]),
            (l, &[("Site", 0, 2)]),
        ])
    };
    let env = env_of(
        &client("raman"),
        &cpu("LINUX", "64M"),
        &license("do_render"),
    );
    assert!(docks(&env, (0, 0), (1, 0)));
    assert!(docks(&env, (0, 1), (2, 0)));
    assert!(docks(&env, (0, 2), (3, 0)));
    // Information flows left to right through the labels.
    is_str(port_attr(&env, 0, 1, "StdIn"), "castle.scene");
    is_str(port_attr(&env, 0, 1, "StdOut"), "castle.png");
    is_str(port_attr(&env, 0, 2, "HostName"), "node7.cs.wisc.edu");
    is_real(port_attr(&env, 0, 1, "Rank"), 256.0 * MB);

    // "rival" is refused at the request port; so is a client that is not a render client.
    let env = env_of(
        &client("rival"),
        &cpu("LINUX", "64M"),
        &license("do_render"),
    );
    is_false(port_attr(&env, 0, 0, "Constraint"));
    let other = with(&client("raman"), "Type", "\"Job\"");
    let env = env_of(&other, &cpu("LINUX", "64M"), &license("do_render"));
    is_false(port_attr(&env, 0, 0, "Constraint"));
    // The workstation must be LINUX with more than 27.2M of virtual memory.
    let env = env_of(
        &client("raman"),
        &cpu("SOLARIS251", "64M"),
        &license("do_render"),
    );
    is_false(port_attr(&env, 0, 1, "Constraint"));
    let env = env_of(
        &client("raman"),
        &cpu("LINUX", "27M"),
        &license("do_render"),
    );
    is_false(port_attr(&env, 0, 1, "Constraint"));
    // The license must be for do_render.
    let env = env_of(&client("raman"), &cpu("LINUX", "64M"), &license("sim_app"));
    is_false(port_attr(&env, 0, 2, "Constraint"));
}

/// Figure 11: two dedicated compute nodes on the same host are marshalled and re-advertised as
/// one multi-processor whose resources are their sums; the third port accepts a request whose
/// MemoryReqs fits in the summed memory less 15M.
#[test]
fn fig11_multiprocessor() {
    let mp = figure("fig11_multiprocessor.ad");
    is_int(attr_alone(&mp, "size(Ports)"), 3);

    let node = |name: &str, host: &str, dedicated: bool| {
        ad(&format!(
            r#"[ Type = "ComputeNode"; Name = "{name}"; Host = "{host}"; IsDedicated = {dedicated};
                 Arch = "INTEL"; OpSys = "LINUX"; NumCpus = 1; Memory = 512M; Disk = 1G;
                 VirtualMemory = 1G;
                 Ports = {{ [ Label = Cluster; Constraint = Cluster.Type == "cpu_request" ] }} ]"#
        ))
    };
    let request = |reqs: &str| {
        ad(&format!(
            r#"[ Type = "Job"; MemoryReqs = {reqs};
                 Ports = {{ [ Label = mp;
                              Constraint = mp.Type == "multi_processor" && mp.NumCpus >= 2 ] }} ]"#
        ))
    };
    let env_of = |n1: &ClassAd, n2: &ClassAd, r: &ClassAd| {
        gang(&[
            (&mp, &[("cpu1", 1, 0), ("cpu2", 2, 0), ("request", 3, 0)]),
            (n1, &[("Cluster", 0, 0)]),
            (n2, &[("Cluster", 0, 1)]),
            (r, &[("mp", 0, 2)]),
        ])
    };
    let (n1, n2) = (node("n1", "rack4", true), node("n2", "rack4", true));
    let env = env_of(&n1, &n2, &request("900M"));
    assert!(docks(&env, (0, 0), (1, 0)));
    assert!(docks(&env, (0, 1), (2, 0)));
    assert!(docks(&env, (0, 2), (3, 0)));
    // The aggregate the third port advertises.
    is_str(port_attr(&env, 0, 2, "HostName"), "n1");
    is_str(port_attr(&env, 0, 2, "Arch"), "INTEL");
    is_int(port_attr(&env, 0, 2, "NumCpus"), 2);
    is_real(port_attr(&env, 0, 2, "Memory"), 1024.0 * MB);
    is_real(port_attr(&env, 0, 2, "Disk"), 2.0 * GB);
    is_real(port_attr(&env, 0, 2, "VirtualMemory"), 2.0 * GB);
    // The request must leave 15M of the summed 1024M: 1008M does, 1009M does not.
    is_true(port_attr(
        &env_of(&n1, &n2, &request("1008M")),
        0,
        2,
        "Constraint",
    ));
    is_false(port_attr(
        &env_of(&n1, &n2, &request("1009M")),
        0,
        2,
        "Constraint",
    ));
    // Both nodes must be dedicated compute nodes on the same host.
    let apart = node("n3", "rack5", true);
    let env = env_of(&n1, &apart, &request("900M"));
    is_true(port_attr(&env, 0, 0, "Constraint"));
    is_false(port_attr(&env, 0, 1, "Constraint"));
    let shared = node("n4", "rack4", false);
    is_false(port_attr(
        &env_of(&shared, &n2, &request("900M")),
        0,
        0,
        "Constraint",
    ));
    is_false(port_attr(
        &env_of(&n1, &shared, &request("900M")),
        0,
        1,
        "Constraint",
    ));
    let desktop = with(&n2, "Type", "\"Machine\"");
    is_false(port_attr(
        &env_of(&n1, &desktop, &request("900M")),
        0,
        1,
        "Constraint",
    ));
}

/// Figure 13: a real Condor workstation ad. It runs a job when the non-Condor load is at most
/// 0.3, the keyboard has been idle over 15 minutes and the job's image (in KB) fits in its
/// memory (in MB) less 15.
#[test]
fn fig13_condor_workstation() {
    let m = figure("fig13_condor_workstation.ad");
    assert_eq!(m.len(), 38);
    is_false(attr_alone(&m, "IsInstructional"));
    is_int(attr_alone(&m, "Memory"), 251);
    is_str(attr_alone(&m, "Subnet"), "128.105.166");
    is_int(attr_alone(&m, "LastHeardFrom"), 972_223_116);

    let o = opts();
    // A Condor job written with HTCondor's own names: Requirements and TARGET.
    let job = |image: i64| {
        ad(&format!(
            r#"[ Type = "Job"; Owner = "raman"; ImageSize = {image};
                 Requirements = TARGET.Arch == "INTEL" && TARGET.OpSys == "LINUX" &&
                                TARGET.Memory >= 128 ]"#
        ))
    };
    // (251 - 15) * 1024 = 241664 KB is the largest image that fits.
    assert!(symmetric_match(&job(200_000), &m, &o));
    assert!(symmetric_match(&m, &job(241_664), &o));
    assert!(!symmetric_match(&m, &job(241_665), &o));
    // The owner is back at the keyboard, or has load of their own: no.
    assert!(!symmetric_match(
        &with(&m, "KeyboardIdle", "600"),
        &job(200_000),
        &o
    ));
    assert!(!symmetric_match(
        &with(&m, "LoadAvg", "1.5"),
        &job(200_000),
        &o
    ));
    // Condor's own load does not count against the job.
    assert!(symmetric_match(
        &with(&m, "CondorLoadAvg", "1.0"),
        &job(200_000),
        &o
    ));
    // The job's side: a machine with too little memory.
    assert!(!symmetric_match(&job(1000), &with(&m, "Memory", "64"), &o));
}

// ---------------------------------------------------------------------------------------------
// Chapter 4: indexing workloads
// ---------------------------------------------------------------------------------------------

/// Figure 16: two offers and two requests, each a ray in the x-y plane; the first offer matches
/// the first request (their rays intersect), the second offer the second request, and nothing
/// else matches.
#[test]
fn fig16_indexing() {
    let all = parse::ads(&figure_text("fig16_indexing.ad"), Format::Auto)
        .unwrap_or_else(|e| panic!("fig16_indexing.ad does not parse: {e:?}"));
    assert_eq!(all.len(), 4);
    let (offers, requests) = all.split_at(2);
    let o = opts();
    let expected = [[true, false], [false, true]];
    for (i, offer) in offers.iter().enumerate() {
        for (j, request) in requests.iter().enumerate() {
            assert_eq!(
                symmetric_match(offer, request, &o),
                expected[i][j],
                "offer {i} vs request {j}"
            );
        }
    }
    // Offer 1 and request 2 fail on one side only: 3 >= 7 is false, 10 <= 15 is true.
    is_false(attr_in_match(&offers[0], &requests[1], "Constraint", &o));
    is_true(attr_in_match(&requests[1], &offers[0], "Constraint", &o));
    // Two offers never match: each constrains an attribute only requests have.
    is_undefined(attr_in_match(&offers[0], &offers[1], "Constraint", &o));
    assert!(!symmetric_match(&offers[0], &offers[1], &o));
    assert!(!symmetric_match(&requests[0], &requests[1], &o));
}

/// Figure 19: the sample object ad matches queries whose Z, Y, X, W lie within its bounds; an
/// omitted attribute (the workload omits 5%) leaves its constraint undefined, so no match. The
/// sample query of Figure 20 does not match it (Y = 9 > 6; and it needs D >= 7).
#[test]
fn fig19_index_object() {
    let object = figure("fig19_index_object.ad");
    let query = figure("fig20_index_query.ad");
    let o = opts();
    assert!(!symmetric_match(&object, &query, &o));
    is_false(attr_in_match(&object, &query, "Constraint", &o));

    let q = |attrs: &str| {
        ad(&format!(
            "[ {attrs}; Constraint = other.A>=0 && other.B<=6 && other.C>=1 && other.D>=5 ]"
        ))
    };
    assert!(symmetric_match(
        &object,
        &q("Z = 5; Y = 6; X = 1; W = 7"),
        &o
    ));
    assert!(symmetric_match(
        &object,
        &q("Z = 0; Y = 0; X = 9; W = 0"),
        &o
    ));
    for bad in [
        "Z = 6; Y = 6; X = 1; W = 7",
        "Z = 5; Y = 7; X = 1; W = 7",
        "Z = 5; Y = 6; X = 0; W = 7",
        "Z = 5; Y = 6; X = 1; W = 8",
    ] {
        is_false(attr_in_match(&object, &q(bad), "Constraint", &o));
        assert!(!symmetric_match(&object, &q(bad), &o), "{bad}");
    }
    // X omitted: undefined, not a match.
    is_undefined(attr_in_match(
        &object,
        &q("Z = 0; Y = 5; W = 6"),
        "Constraint",
        &o,
    ));
    assert!(!symmetric_match(&object, &q("Z = 0; Y = 5; W = 6"), &o));
}

/// Figure 20: the sample query ad matches objects with A >= 0, B <= 6, C >= 1, D >= 7 whose own
/// constraints admit it (it has no X, so an object must not constrain X).
#[test]
fn fig20_index_query() {
    let query = figure("fig20_index_query.ad");
    let object = figure("fig19_index_object.ad");
    let o = opts();
    is_false(attr_in_match(&query, &object, "Constraint", &o));
    assert!(!symmetric_match(&query, &object, &o));

    let obj =
        |attrs: &str, constraint: &str| ad(&format!("[ {attrs}; Constraint = {constraint} ]"));
    let admits = "other.Z<=5 && other.Y<=9 && other.W<=7";
    assert!(symmetric_match(
        &query,
        &obj("A = 3; B = 6; C = 7; D = 7", admits),
        &o
    ));
    assert!(symmetric_match(
        &query,
        &obj("A = 0; B = -4; C = 1; D = 70", admits),
        &o
    ));
    for bad in [
        "A = -1; B = 6; C = 7; D = 7",
        "A = 3; B = 7; C = 7; D = 7",
        "A = 3; B = 6; C = 0; D = 7",
        "A = 3; B = 6; C = 7; D = 6",
    ] {
        is_false(attr_in_match(&query, &obj(bad, admits), "Constraint", &o));
        assert!(!symmetric_match(&query, &obj(bad, admits), &o), "{bad}");
    }
    // An object omitting D leaves the query's constraint undefined.
    is_undefined(attr_in_match(
        &query,
        &obj("A = 3; B = 6; C = 7", admits),
        "Constraint",
        &o,
    ));
    // The query has no X: an object constraining X cannot match it.
    let wants_x = format!("{admits} && other.X>=1");
    is_true(attr_in_match(
        &query,
        &obj("A = 3; B = 6; C = 7; D = 7", &wants_x),
        "Constraint",
        &o,
    ));
    assert!(!symmetric_match(
        &query,
        &obj("A = 3; B = 6; C = 7; D = 7", &wants_x),
        &o
    ));
}

// ---------------------------------------------------------------------------------------------
// Chapter 5: the base gangmatching workload
// ---------------------------------------------------------------------------------------------

/// The base workload's gang: job (member 0) with its Cpu port docked to the machine's port
/// (member 1) and its License port docked to the license's port (member 2).
fn base_gang(job: &ClassAd, machine: &ClassAd, license: &ClassAd) -> ClassAd {
    gang(&[
        (job, &[("Cpu", 1, 0), ("License", 2, 0)]),
        (machine, &[("Job", 0, 0)]),
        (license, &[("Site", 0, 1)]),
    ])
}

/// Figure 28: the WINNT40 machine accepts Figure 30's job (its 2.86M memory requirement is
/// below 64M - 15M) but the job wants LINUX, so they do not dock; the same machine running LINUX
/// does. A machine with 16M of memory refuses the job.
#[test]
fn fig28_base_machine() {
    let machine = figure("fig28_base_machine.ad");
    let job = figure("fig30_base_job.ad");
    let license = figure("fig29_base_license.ad");
    is_int(attr_alone(&machine, "Key"), 143);
    is_real(attr_alone(&machine, "Memory"), 64.0 * MB);
    is_real(attr_alone(&machine, "VirtualMemory"), 83.235176 * MB);

    let env = base_gang(&job, &machine, &license);
    is_true(port_attr(&env, 1, 0, "Constraint"));
    is_false(port_attr(&env, 0, 0, "Constraint"));
    assert!(!docks(&env, (0, 0), (1, 0)));

    let linux = with(&machine, "OpSys", "\"LINUX\"");
    assert!(docks(&base_gang(&job, &linux, &license), (0, 0), (1, 0)));
    let tiny = with(&linux, "Memory", "16M");
    let env = base_gang(&job, &tiny, &license);
    is_true(port_attr(&env, 0, 0, "Constraint"));
    is_false(port_attr(&env, 1, 0, "Constraint"));
    assert!(!docks(&env, (0, 0), (1, 0)));
}

/// Figure 29: the license is valid on machines whose Key (passed on by the job as HostId) lies
/// in [0, 1000).
#[test]
fn fig29_base_license() {
    let license = figure("fig29_base_license.ad");
    let job = figure("fig30_base_job.ad");
    let machine = with(&figure("fig28_base_machine.ad"), "OpSys", "\"LINUX\"");
    is_str(attr_alone(&license, "App"), "sim_app");

    let env = base_gang(&job, &machine, &license);
    is_int(port_attr(&env, 0, 1, "HostId"), 143);
    assert!(docks(&env, (0, 1), (2, 0)));
    for (key, ok) in [(0, true), (999, true), (1000, false), (-1, false)] {
        let m = with(&machine, "Key", &key.to_string());
        let env = base_gang(&job, &m, &license);
        assert_eq!(docks(&env, (0, 1), (2, 0)), ok, "Key = {key}");
    }
    // Before a machine is docked at the job's Cpu port, HostId and the license's constraint are
    // undefined.
    let partial = gang(&[(&job, &[("License", 1, 0)]), (&license, &[("Site", 0, 1)])]);
    is_undefined(port_attr(&partial, 0, 1, "HostId"));
    is_undefined(port_attr(&partial, 1, 0, "Constraint"));
}

/// Figure 30: the job needs an INTEL/LINUX machine with more virtual memory than its image and a
/// sim_app license; the whole gang docks with a LINUX variant of Figure 28's machine and Figure
/// 29's license, and fails when any one requirement is violated.
#[test]
fn fig30_base_job() {
    let job = figure("fig30_base_job.ad");
    let license = figure("fig29_base_license.ad");
    let machine = with(&figure("fig28_base_machine.ad"), "OpSys", "\"LINUX\"");
    is_real(attr_alone(&job, "Ports[0].ImageSize"), 13_461_450.030324);
    is_real(attr_alone(&job, "Ports[0].MemoryReqs"), 2_860_414.100368);

    let complete = |m: &ClassAd, l: &ClassAd| {
        let env = base_gang(&job, m, l);
        docks(&env, (0, 0), (1, 0)) && docks(&env, (0, 1), (2, 0))
    };
    assert!(complete(&machine, &license));
    // Virtual memory must exceed the image (13461450.03 bytes = 12.84M).
    assert!(!complete(&with(&machine, "VirtualMemory", "12M"), &license));
    assert!(complete(&with(&machine, "VirtualMemory", "13M"), &license));
    assert!(!complete(&with(&machine, "Arch", "\"SGI\""), &license));
    assert!(!complete(
        &with(&machine, "OpSys", "\"SOLARIS26\""),
        &license
    ));
    // The license must be for sim_app.
    let other_app = with(&license, "App", "\"other_app\"");
    assert!(!complete(&machine, &other_app));
    is_false(port_attr(
        &base_gang(&job, &machine, &other_app),
        0,
        1,
        "Constraint",
    ));
}
