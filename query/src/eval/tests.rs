//! Evaluation tests through the parser, one line per case; expected values are HTCondor's
//! (checked against its Python bindings) printed in its compact syntax.

use super::api::{eval_attr_in_match, eval_attr_value, matches};
use super::*;
use crate::{parse, BinOp, ClassAd, Value};

fn opts() -> EvalOptions {
    EvalOptions {
        now: Some(1_704_164_645),
        tz_offset: Some(0),
        ..EvalOptions::default()
    }
}

fn ad(text: &str) -> ClassAd {
    parse::classad(text).unwrap_or_else(|e| panic!("ad {text}: {e}"))
}

fn expr(text: &str) -> Expr {
    parse::expr(text).unwrap_or_else(|e| panic!("expr {text}: {e}"))
}

/// `e` evaluated in `my` (no TARGET) prints as `want`.
fn check_in(my: &str, e: &str, want: &str) {
    let got = eval_expr(&expr(e), &ad(my), &opts()).to_string();
    assert_eq!(got, want, "{e} in {my}");
}

/// `e` evaluated in `my` under strict new-ClassAd semantics prints as `want`.
fn check_in_new(my: &str, e: &str, want: &str) {
    let o = EvalOptions {
        target_fallback: false,
        ..opts()
    };
    let got = eval_expr(&expr(e), &ad(my), &o).to_string();
    assert_eq!(got, want, "{e} in {my} (new semantics)");
}

fn check(e: &str, want: &str) {
    check_in("[]", e, want)
}

/// `e` evaluated in `my` with `target` as TARGET prints as `want`.
fn check_match(my: &str, target: &str, e: &str, fallback: bool, want: &str) {
    let o = EvalOptions {
        target_fallback: fallback,
        ..opts()
    };
    let (m, t) = (ad(my), ad(target));
    let got = eval_in_match(&expr(e), MatchAds { my: &m, target: &t }, &o).to_string();
    assert_eq!(
        got, want,
        "{e} in {my} with target {target} (fallback {fallback})"
    );
}

#[test]
fn operators() {
    let cases = [
        ("1 + 2", "3"),
        ("true + 1", "2"),
        ("true == 1", "true"),
        ("true < 2", "true"),
        ("\"a\" + \"b\"", "error"),
        ("\"abc\" == \"ABC\"", "true"),
        ("\"abc\" is \"ABC\"", "false"),
        ("\"abc\" =?= \"abc\"", "true"),
        ("1 == \"1\"", "error"),
        ("undefined == 1", "undefined"),
        ("undefined == error", "error"),
        ("error + undefined", "error"),
        ("undefined is undefined", "true"),
        ("1 is 1.0", "false"),
        ("1 =!= 1.0", "true"),
        ("-9223372036854775807 - 1", "-9223372036854775808"),
        ("9223372036854775807 + 1", "-9223372036854775808"),
        ("1/0", "error"),
        ("1 % 0", "error"),
        ("1.0/0", "error"),
        ("7 / 2", "3"),
        ("-7 / 2", "-3"),
        ("-5 % 3", "-2"),
        ("1 << 3", "8"),
        ("-8 >>> 1", "9223372036854775804"),
        ("true << 1", "error"),
        ("5 & 3", "1"),
        ("~5", "-6"),
        ("!5", "false"),
        ("!\"a\"", "error"),
        ("-true", "error"),
        ("+\"a\"", "error"),
        ("-undefined", "undefined"),
        ("{1,2} == {1,2}", "error"),
        ("{1,2} is {1,2}", "error"),
        ("[a=1] is [a=1]", "error"),
        ("{1} is 1", "false"),
        ("true && 5", "true"),
        ("\"a\" && false", "error"),
        ("false && \"a\"", "false"),
        ("undefined && \"a\"", "error"),
        ("undefined && false", "false"),
        ("undefined || true", "true"),
        ("error && false", "error"),
        ("true || error", "true"),
        ("5 ? 1 : 2", "1"),
        ("\"a\" ? 1 : 2", "error"),
        ("undefined ? 1 : 2", "undefined"),
        ("error ? 1 : 2", "error"),
        ("undefined ?: 3", "3"),
        ("error ?: 3", "error"),
        ("5 ?: 3", "5"),
        // The elvis operator binds tightest (values from classad2 25.14.1).
        ("10 ?: 2 + 3", "13"),
        ("10 ? : 2 + 3", "13"),
        ("2 * undefined ?: 7", "14"),
        ("-undefined ?: 5", "-5"),
        ("!undefined ?: true", "false"),
        ("undefined ?: 1 ? 2 : 3", "2"),
        ("undefined ?: 0 >= 64", "false"),
        ("undefined ?: undefined ?: 4", "4"),
        ("undefined ?: {1,2}[1]", "2"),
        ("[a=1].a ?: 2", "1"),
        ("(1 + 2) * 3", "9"),
        ("{1,2,3}[0]", "1"),
        ("{1,2,3}[3]", "error"),
        ("{1,2,3}[-1]", "error"),
        ("{1,2,3}[1.5]", "error"),
        ("{1,2,3}[undefined]", "undefined"),
        ("{1,2,3}[4294967297]", "2"),
        ("\"a\"[0]", "error"),
        ("[a=1;b=2][\"B\"]", "2"),
        ("[a=1;b=2][\"c\"]", "undefined"),
        ("[a=1;b=2][0]", "error"),
        ("[a=1;b=2].b", "2"),
        ("undefined.a", "undefined"),
        ("error.a", "error"),
        ("(1).a", "error"),
        ("{[a=1],[a=2],[b=3]}.a", "{ 1,2,undefined }"),
        ("{[a=1],[a=2],3}.a", "{ 1,2,error }"),
        ("{}.a", "{  }"),
        ("nosuchfunction(1)", "error"),
        ("CurrentTime", "1704164645"),
        ("target", "undefined"),
        ("parent", "undefined"),
        ("x", "undefined"),
    ];
    for (e, want) in cases {
        check(e, want);
    }
}

#[test]
fn scoping() {
    let cases = [
        ("[a = 1; b = [c = a]]", "b.c", "1"),
        ("[a = 1; b = [c = a]]", "b.d", "undefined"),
        ("[a = 1; b = [c = a]]", "b.a", "1"),
        ("[x = 1; b = [c = self.x]]", "b.c", "1"),
        ("[x = 1; b = [c = parent.x]]", "b.c", "1"),
        ("[x = 1; b = [c = my.x]]", "b.c", "1"),
        ("[x = 1; b = [c = root.x]]", "b.c", "1"),
        ("[x = 1; b = [c = toplevel.x]]", "b.c", "1"),
        ("[x = 1; b = [c = .x]]", "b.c", "1"),
        ("[x = 1; b = [c = target.x]]", "b.c", "undefined"),
        ("[x = 1; self = 5]", "self", "5"),
        ("[x = 1; b = [c = self; self = 3]]", "b.c", "3"),
        ("[x = 1; self = 3; b = [c = self]]", "b.c", "[ c = self ]"),
        ("[x = 1; my = 3; b = [c = my]]", "b.c", "[ c = my ]"),
        ("[x = 1]", "my", "[ x = 1 ]"),
        ("[x = 1]", "my.x", "1"),
        ("[x = 1]", "root.x", "1"),
        ("[x = 1; l = {[a=1],[a=2]}]", "l.x", "{ 1,1 }"),
        ("[x = 1; l = [a=1;b=x]]", "l[\"b\"]", "1"),
        ("[x = 1; l = [a=1;b=x]]", "l.x", "1"),
        ("[x = 1; l = {1,2,z}]", "l[2]", "undefined"),
        ("[A = 1; b = a + A]", "B", "2"),
        ("[t = [g = [s = 1]]]", "t.g[\"s\"]", "1"),
        ("[a = {[q = 1]}]", "a[0].q", "1"),
        ("[a = b; b = a]", "a", "undefined"),
        ("[a = a + 1]", "a", "undefined"),
        ("[a = b; b = a]", "a =?= undefined", "true"),
        ("[a = [x = a.x]]", "a.x", "undefined"),
        ("[a = [x = y]; y = a.x]", "y", "undefined"),
        ("[a = b + 1; b = 2]", "a", "3"),
        ("[a = b; b = c; c = a]", "b", "undefined"),
    ];
    for (my, e, want) in cases {
        check_in(my, e, want);
    }
}

/// Selecting over a list copies the selections, as HTCondor does: ads among them (and inside
/// lists among them) lose their lexical parents and the match (found by a differential run).
#[test]
fn list_selections_are_detached_copies() {
    let cases = [
        ("[z = 3; w = [q = z]]", "{my}.w.q", "{ undefined }"),
        ("[z = 3; w = [q = z]]", "{my}[0].w.q", "3"),
        ("[z = 3; w = [q = z]]", "{my}.w[0].q", "undefined"),
        ("[z = 3; w = {[q = z]}]", "{my}.w[0][0].q", "undefined"),
        ("[z = 3; w = {[q = z]}]", "{my}.w[0].q", "{ undefined }"),
        ("[z = 3; w = {[q = z]}]", "{my}[0].w.q", "{ 3 }"),
        ("[w = [q = 1; r = [s = q]]]", "{my}.w.r.s", "{ undefined }"),
        ("[w = [q = 1; r = [s = q]]]", "{my}.w[0].r.s", "1"),
        ("[b = 5; k = {[w = [q = b]]}]", "k.w.q", "{ undefined }"),
        ("[b = 5; k = {[w = [q = b]]}]", "k[0].w.q", "5"),
        ("[b = 5; l = {[a = 1]}]", "l.parent.b", "{ 5 }"),
        ("[b = 5; l = {[a = 1]}]", "l.parent.parent", "{ undefined }"),
        ("[x = 1; l = {[a = 1; b = a + 1], 2}]", "l.b", "{ 2,error }"),
    ];
    for (my, e, want) in cases {
        check_in(my, e, want);
    }
    let (my, target) = ("[l = {[a = 1]}; up = TARGET.m]", "[m = 7]");
    check_match(my, target, "l[0].parent.up", true, "7");
    check_match(my, target, "l.parent.up", true, "{ undefined }");
    check_match(my, target, "l.parent[0].up", true, "undefined");
}

#[test]
fn new_semantics_scoping() {
    let cases = [
        ("[x = 1; d = CurrentTime]", "d", "undefined"),
        ("[x = 1; d = my]", "d", "undefined"),
        ("[x = 1; d = my.x]", "d", "undefined"),
        ("[x = 1; b = [c = my.x]; d = b.c]", "d", "undefined"),
        ("[x = 1; my = 3; b = [c = my]; d = b.c]", "d", "3"),
        (
            "[x = 1; CurrentTime = 5; b = [c = CurrentTime]; d = b.c]",
            "d",
            "5",
        ),
        ("[x = 1; b = [c = self.x]]", "b.c", "1"),
        ("[x = 1; d = target]", "d", "undefined"),
    ];
    for (my, e, want) in cases {
        check_in_new(my, e, want);
    }
    // Old semantics (the default): `my` and `CurrentTime` are keywords in the first ad searched.
    let old = [
        ("[x = 1; d = CurrentTime]", "d", "1704164645"),
        ("[x = 1; d = my]", "d", "[ x = 1; d = my ]"),
        ("[x = 1; b = [c = my; y = 2]; d = b.c.y]", "d", "2"),
        ("[x = 1; my = 3; b = [c = my]; d = b.c]", "d", "[ c = my ]"),
        (
            "[x = 1; CurrentTime = 5; b = [c = CurrentTime]; d = b.c]",
            "d",
            "1704164645",
        ),
    ];
    for (my, e, want) in old {
        check_in(my, e, want);
    }
}

#[test]
fn match_context() {
    let cases = [
        ("[x = 1]", "[y = 2]", "target.y", false, "2"),
        ("[x = 1]", "[y = 2]", "other.y", false, "2"),
        ("[x = 1]", "[y = 2]", "y", false, "undefined"),
        ("[x = 1]", "[y = 2]", "y", true, "2"),
        ("[x = 1; y = 5]", "[y = 2]", "y", true, "5"),
        ("[x = 1]", "[y = 2]", "my.x", false, "1"),
        ("[x = 1]", "[y = 2]", "my.y", true, "undefined"),
        ("[x = 1]", "[y = x; x = 7]", "target.y", false, "7"),
        ("[x = 1]", "[y = target.x; x = 7]", "target.y", false, "1"),
        ("[x = 1]", "[y = my.x; x = 7]", "target.y", false, "7"),
        ("[x = 1]", "[y = x]", "target.y", false, "undefined"),
        ("[x = 1]", "[y = x]", "target.y", true, "1"),
        ("[x = 1; q = 4]", "[z = q]", "target.z", true, "4"),
        ("[x = 1; target = 3]", "[y = 2]", "target", false, "3"),
        ("[x = 1; b = [c = target.y]]", "[y = 2]", "b.c", false, "2"),
        ("[x = 1; b = [c = y]]", "[y = 2]", "b.c", true, "undefined"),
        ("[x = 1; b = [c = my.x]]", "[y = 2]", "b.c", false, "1"),
        (
            "[x = 1; target = [y = 9]; b = [c = target.y]]",
            "[y = 2]",
            "b.c",
            false,
            "9",
        ),
        ("[x = 1]", "[y = 2]", "target.target.x", false, "1"),
        ("[x = 1]", "[y = 2]", "target.my.y", false, "2"),
        ("[x = target.y]", "[y = target.x]", "x", false, "undefined"),
        ("[x = 1; d = my.x; e = y]", "[y = 2]", "d", false, "1"),
        (
            "[x = 1; d = my.x; e = y]",
            "[y = 2]",
            "e",
            false,
            "undefined",
        ),
        ("[x = 1; d = my.x; e = y]", "[y = 2]", "e", true, "2"),
        (
            "[x = 1; f = CurrentTime]",
            "[y = 2]",
            "f",
            false,
            "undefined",
        ),
        (
            "[x = 1; f = CurrentTime]",
            "[y = 2]",
            "f",
            true,
            "1704164645",
        ),
    ];
    for (my, target, e, fallback, want) in cases {
        check_match(my, target, e, fallback, want);
    }
}

#[test]
fn conveniences() {
    let job = ad("[ImageSize = 50; MemoryReqs = 20; Requirements = TARGET.Arch == \"INTEL\" && TARGET.OpSys == \"LINUX\" && TARGET.VirtualMemory > ImageSize]");
    let machine = ad("[Arch = \"INTEL\"; OpSys = \"LINUX\"; Memory = 64; VirtualMemory = 128; Requirements = TARGET.MemoryReqs < Memory - 15]");
    let o = opts();
    assert!(symmetric_match(&job, &machine, &o));
    assert!(matches(&job, &machine, &o) && matches(&machine, &job, &o));
    let small = ad("[Arch = \"INTEL\"; OpSys = \"LINUX\"; Memory = 30; VirtualMemory = 128; Requirements = TARGET.MemoryReqs < Memory - 15]");
    assert!(!symmetric_match(&job, &small, &o));
    assert!(matches(&job, &small, &o));
    assert_eq!(eval_attr_value(&machine, "memory", &o).to_string(), "64");
    assert_eq!(
        eval_attr_value(&machine, "NoSuchAttributeAnywhere", &o).to_string(),
        "undefined"
    );
    let ads = MatchAds {
        my: &machine,
        target: &job,
    };
    assert_eq!(
        eval_attr_in_match("Requirements", ads, &o).to_string(),
        "true"
    );
    // A numeric Requirements counts (non-zero integers for one direction, as HTCondor).
    let one = ad("[Requirements = 1]");
    let real = ad("[Requirements = 2.5]");
    assert!(matches(&one, &real, &o) && !matches(&real, &one, &o));
    assert!(symmetric_match(&one, &real, &o));
    assert!(!symmetric_match(&ad("[Constraint = false]"), &one, &o));
    assert!(symmetric_match(&ad("[Constraint = true]"), &one, &o));
}

#[test]
fn one_side_matches_are_the_symmetric_match_halves() {
    let o = opts();
    let ads = [
        "[Requirements = 1]",
        "[Requirements = 2.5]",
        "[Requirements = 0.0]",
        "[Constraint = TARGET.Memory > 4]",
        "[Memory = 8; Requirements = TARGET.Memory < Memory]",
        "[Memory = 2; Requirements = MY.Memory <= TARGET.Memory && Other > 1; Other = 2]",
        "[Requirements = undefined]",
        "[Requirements = \"yes\"]",
        "[Memory = 6]",
    ]
    .map(ad);
    for a in &ads {
        for b in &ads {
            let halves = one_side_match(a, b, &o) && one_side_match(b, a, &o);
            assert_eq!(halves, symmetric_match(a, b, &o), "{a:?} / {b:?}");
        }
    }
    assert!(one_side_match(&ads[1], &ads[0], &o) && !matches(&ads[2], &ads[0], &o));
}

#[test]
fn counters_count_evaluations() {
    let before = counters();
    let job = ad("[a = b + 1; b = 2]");
    assert_eq!(eval_expr(&expr("a"), &job, &opts()).to_string(), "3");
    let d = counters().since(before);
    // One top-level evaluation, then `a` and `b` (other tests may add more concurrently).
    assert!(d.evaluations >= 3, "{d:?}");
    assert!(d.nodes >= 4, "{d:?}");
}

/// A left spine `((1 + 1) + 1) + …` of `n` binary additions, `n` deep, built without the
/// parser's depth limit and without [`Expr::binary`]'s chains (as a program, or an ad stored
/// before chains existed, may hold it).
fn deep_sum(n: usize) -> Expr {
    let mut e = Expr::Lit(Value::Int(1));
    for _ in 0..n {
        e = Expr::Binary(BinOp::Add, Box::new((e, Expr::Lit(Value::Int(1)))));
    }
    e
}

/// Drops a deep expression without recursing (the derived drop would overflow the stack).
fn drop_deep(mut e: Expr) {
    let mut stack = Vec::new();
    loop {
        match e {
            Expr::Binary(_, b) => {
                let (l, r) = *b;
                stack.push(r);
                e = l;
            }
            Expr::Paren(x) | Expr::Unary(_, x) => e = *x,
            other => {
                drop(other);
                match stack.pop() {
                    Some(next) => e = next,
                    None => return,
                }
            }
        }
    }
}

#[test]
fn budgets() {
    let o = opts();
    // Within the depth budget: evaluated.
    let shallow = deep_sum(300);
    assert_eq!(eval_expr(&shallow, &ClassAd::new(), &o).to_string(), "301");
    // 100,000 deep: error, not a stack overflow.
    let deep = deep_sum(100_000);
    assert_eq!(eval_expr(&deep, &ClassAd::new(), &o).to_string(), "error");
    drop_deep(deep);
    // A deep chain is an error even under a non-strict operator: the evaluation fails as a whole.
    let mut guarded = deep_sum(5_000);
    guarded = Expr::binary(BinOp::Is, guarded, Expr::Lit(Value::Error));
    assert_eq!(
        eval_expr(&guarded, &ClassAd::new(), &o).to_string(),
        "error"
    );
    drop_deep(guarded);
    // Work budget.
    let tight = EvalOptions {
        max_work: 10,
        ..opts()
    };
    assert_eq!(
        eval_expr(&deep_sum(20), &ClassAd::new(), &tight).to_string(),
        "error"
    );
    // A million-element list.
    let big = Expr::List((0..1_000_000).map(|i| Expr::Lit(Value::Int(i))).collect());
    let size = Expr::Index(Box::new((big, Expr::Lit(Value::Int(999_999)))));
    assert_eq!(eval_expr(&size, &ClassAd::new(), &o).to_string(), "999999");
}

/// `[a0 = a1 + 1; a1 = a2 + 1; …; an = 0]`.
fn chain_ad(n: usize) -> ClassAd {
    let mut ad = ClassAd::new();
    for i in 0..n {
        ad.set(
            &format!("a{i}"),
            Expr::binary(
                BinOp::Add,
                Expr::attr(&format!("a{}", i + 1)),
                Expr::Lit(Value::Int(1)),
            ),
        );
    }
    ad.set(&format!("a{n}"), Expr::Lit(Value::Int(0)));
    ad
}

#[test]
fn deep_attribute_chains_fit_the_default_stack() {
    // Spawned threads get 2 MiB by default; a debug build must survive the deepest chain the
    // default budget allows, and a deeper one must yield error.
    let handle = std::thread::spawn(|| {
        let o = EvalOptions::default();
        let within = (o.max_depth / 2 - 2) as usize;
        let ok = eval_expr(&Expr::attr("a0"), &chain_ad(within), &o).to_string();
        let over = eval_expr(&Expr::attr("a0"), &chain_ad(10_000), &o).to_string();
        (within, ok, over)
    });
    let (within, ok, over) = handle.join().expect("no stack overflow");
    assert_eq!(ok, within.to_string());
    assert_eq!(over, "error");
}

#[test]
fn self_reference_terminates() {
    let cases = [
        ("[a = a]", "a", "undefined"),
        ("[a = {a}]", "a", "{ undefined }"),
        ("[a = [b = a]]", "a.b.b.b", "[ b = a ]"),
        ("[a = self; d = a.a.a.a]", "d", "[ a = self; d = a.a.a.a ]"),
        ("[a = b.c; b = [c = a]]", "a", "undefined"),
    ];
    for (my, e, want) in cases {
        check_in(my, e, want);
    }
}

/// An attribute evaluated at the top level (HTCondor's `EvaluateAttr`, how a match reads
/// Requirements and Rank) is not itself in progress: a cycle back to it evaluates it once
/// more, where a reference to it (which marks it) cuts the cycle one level sooner. HTCondor
/// 25.14.1 (`classad2`): `ad.eval("a")` = 10, `ExprTree("a").eval(ad)` = 1; in a match
/// (`symmetricMatch`), a job's Requirements reached again through the machine's
/// `Memory = TARGET.Requirements` are evaluated again, so both jobs below match nothing
/// (found by the random pools' differential run with `--wild`: adjoin matched them).
#[test]
fn top_level_attribute_is_not_in_progress() {
    let o = opts();
    let a = ad("[a = ifThenElse(isUndefined(b), 1, 10); b = a]");
    assert_eq!(eval_attr_value(&a, "a", &o).to_string(), "10");
    assert_eq!(eval_expr(&expr("a"), &a, &o).to_string(), "1");
    let m = ad("[Name = \"m\"; memory = TARGET.Requirements; Requirements = true]");
    for (req, want) in [
        ("isUndefined(TARGET.Memory)", false),
        ("(TARGET.Memory ?: 2048) > 512", false),
        ("isError(TARGET.Memory)", false),
        ("TARGET.Memory || true", true),
    ] {
        let j = ad(&format!("[Name = \"j\"; Requirements = {req}]"));
        assert_eq!(symmetric_match(&j, &m, &o), want, "{req}");
        assert_eq!(matches(&j, &m, &o), want, "{req}");
    }
    // Within one ad: Requirements = isUndefined(x), x = Requirements is false (HTCondor).
    let loops = ad("[Requirements = isUndefined(x); x = Requirements]");
    let t = ad("[Requirements = true]");
    assert!(!symmetric_match(&t, &loops, &o));
    // Rank as the negotiator reads it (EvaluateAttr): 10, not the reference's 1.
    let r = ad("[Requirements = true; Rank = ifThenElse(isUndefined(y), 1, 10); y = Rank]");
    let ads = MatchAds { my: &r, target: &t };
    assert_eq!(eval_attr_in_match("Rank", ads, &o).to_string(), "10");
}
