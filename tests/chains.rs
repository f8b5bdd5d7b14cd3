//! Flat chains (issue 16): a 50,000-term machine list `Machine == "a" || Machine == "b" || …`
//! is one chain node, not a 50,000-deep tree. It parses, prints back, evaluates (true, false,
//! undefined, error), is stored and read back through the storage codec and a database, hashes
//! and compares structurally, specializes, converts to the index's profile form and answers an
//! indexed query — on the main thread and on a 2 MiB thread, where a left spine of binary nodes
//! would overflow the stack in drop, serde and every walk. Trees genuinely as deep as the
//! parser allows stay safe the same ways.

mod common;

use adjoin::index::profile::{constraint_dpf, dpf, QueryOperands, PROFILE_CAP};
use adjoin::query::eval::{eval_expr, eval_in_match, EvalOptions, MatchAds};
use adjoin::query::specialize::specialize;
use adjoin::query::structural::Structural;
use adjoin::query::{parse, BinOp, ClassAd, Expr, Value};
use adjoin::storage::codec;
use adjoin::Db;
use common::chains::{machine, machine_list};
use std::hash::{DefaultHasher, Hash, Hasher};

/// Terms in the machine list.
const TERMS: usize = 50_000;

fn ad(text: &str) -> ClassAd {
    parse::classad(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

fn structural_hash(e: &Expr) -> u64 {
    let mut h = DefaultHasher::new();
    Structural(e).hash(&mut h);
    h.finish()
}

/// Runs `f` on the calling thread, then on a fresh thread with a 2 MiB stack.
fn on_both_stacks(f: fn()) {
    f();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no stack overflow on 2 MiB");
}

fn machine_list_end_to_end() {
    let text = machine_list(TERMS, "");
    let e = parse::expr(&text).expect("a 50,000-term chain parses");
    let Expr::Chain(BinOp::Or, terms) = &e else {
        panic!("not one chain node");
    };
    assert_eq!(terms.len(), TERMS);
    // Printing gives the text back; reading that gives the same tree.
    let printed = e.to_string();
    assert_eq!(printed, text);
    let again = parse::expr(&printed).expect("re-parse");
    assert_eq!(again, e);
    assert!(Structural(&again) == Structural(&e));
    assert_eq!(structural_hash(&again), structural_hash(&e));

    // Evaluation: the first, the last, none, an absent attribute (undefined), an error.
    let opts = EvalOptions::default();
    let cases = [
        (format!("[Machine = \"{}\"]", machine(0)), "true"),
        (format!("[Machine = \"{}\"]", machine(TERMS - 1)), "true"),
        (
            format!("[Machine = \"{}\"]", machine(TERMS - 1).to_uppercase()),
            "true",
        ),
        ("[Machine = \"elsewhere\"]".to_owned(), "false"),
        ("[Other = 1]".to_owned(), "undefined"),
        ("[Machine = error]".to_owned(), "error"),
        // A number compared with a string is an error in HTCondor; the first term decides.
        ("[Machine = 7]".to_owned(), "error"),
    ];
    for (my, want) in &cases {
        let v = eval_expr(&e, &ad(my), &opts);
        assert_eq!(v.to_string(), *want, "{my}");
        for (f, holds) in [
            ("isError", *want == "error"),
            ("isUndefined", *want == "undefined"),
        ] {
            let wrapped = Expr::Call(adjoin::query::Name::new(f), vec![e.clone()]);
            let got = eval_expr(&wrapped, &ad(my), &opts);
            assert_eq!(got, Value::Bool(holds), "{f} in {my}");
        }
    }

    // The storage codec: encoded, framed, decoded back to the same tree.
    let sealed = codec::seal(b"k", &e).expect("encode");
    let back: Expr = codec::open(b"k", &sealed).expect("decode");
    assert_eq!(back, e);

    // In a job's Requirements, matched against slots, specialized against the job (nothing
    // of it is the job's own: the residual is the chain itself).
    let job_text = format!(
        "[Owner = \"ann\"; Requirements = {}]",
        machine_list(TERMS, "TARGET.")
    );
    let job = ad(&job_text);
    let req = job.get("Requirements").expect("requirements");
    let spec = specialize(req, &job, &opts);
    assert!(Structural(&spec) == Structural(req));
    for (slot, want) in [
        (format!("[Machine = \"{}\"]", machine(TERMS / 2)), "true"),
        ("[Machine = \"elsewhere\"]".to_owned(), "false"),
    ] {
        let slot = ad(&slot);
        let v = eval_in_match(
            req,
            MatchAds {
                my: &job,
                target: &slot,
            },
            &opts,
        );
        assert_eq!(v.to_string(), want);
    }

    // The index's profile form, built operand by operand: a disjunction past the cap holds a
    // deviant profile with no property (a candidate whatever the slot, so evaluation decides)
    // and stays within the cap; a conjunction of properties is one profile of them all.
    let d = constraint_dpf(&job, &opts, PROFILE_CAP);
    assert!(d.capped && !d.exact);
    assert!(d.profiles.len() <= PROFILE_CAP);
    assert!(d.profiles.iter().any(|p| p.deviant && p.props.is_empty()));
    let conj = parse::expr(
        &(0..TERMS)
            .map(|i| format!("Memory != {i}"))
            .collect::<Vec<_>>()
            .join(" && "),
    )
    .expect("conjunction");
    let d = dpf(&conj, &QueryOperands { opts: &opts }, PROFILE_CAP);
    assert_eq!(d.profiles.len(), 1);
    assert_eq!(d.profiles[0].props.len(), TERMS);
    assert!(d.exact);
}

#[test]
fn a_50000_term_machine_list_works_everywhere() {
    on_both_stacks(machine_list_end_to_end);
}

#[test]
fn short_machine_lists_still_convert_to_points() {
    // Within the profile cap, each equality is a profile of its own (one point per machine),
    // as when the list was a spine of binary nodes.
    let opts = EvalOptions::default();
    let e = parse::expr(&machine_list(40, "")).expect("parse");
    let d = dpf(&e, &QueryOperands { opts: &opts }, PROFILE_CAP);
    assert_eq!(d.profiles.len(), 40);
    assert!(!d.capped);
    for (i, p) in d.profiles.iter().enumerate() {
        assert_eq!(p.props.len(), 1);
        assert_eq!(p.props[0].value, Value::str(&machine(i)));
        assert_eq!(p.props[0].attr.as_str(), "machine");
    }
}

fn stored_and_queried() {
    let db = Db::open_in_memory().expect("db");
    let job = ad(&format!(
        "[Owner = \"ann\"; Requirements = {}]",
        machine_list(TERMS, "TARGET.")
    ));
    db.put_with_id("jobs", "job1", &job).expect("put");
    let back = db.get("jobs", "job1").expect("get").expect("stored");
    assert_eq!(back.ad.get("Requirements"), job.get("Requirements"));
    for i in [0, 7, TERMS - 1] {
        let slot = ad(&format!("[Machine = \"{}\"; Slot = {i}]", machine(i)));
        db.put_with_id("slots", &format!("slot{i}"), &slot)
            .expect("put slot");
    }
    db.put_with_id("slots", "other", &ad("[Machine = \"elsewhere\"]"))
        .expect("put");
    // A constraint query with the machine list, through the held index.
    let list = parse::expr(&machine_list(TERMS, "")).expect("parse");
    let ids: Vec<String> = db
        .query("slots", &list)
        .expect("query")
        .map(|a| a.expect("ad").header.id)
        .collect();
    assert_eq!(ids, ["slot0", "slot7", &format!("slot{}", TERMS - 1)]);
}

#[test]
fn a_50000_term_requirements_is_stored_and_queried() {
    on_both_stacks(stored_and_queried);
}

fn deepest_nesting_is_safe() {
    // `-` does not chain: 999 of them make a tree as deep as the parser allows. It prints,
    // hashes, encodes, evaluates (past the depth budget: error, as HTCondor), specializes and
    // drops without overflowing a 2 MiB stack.
    let n = adjoin::query::parse::MAX_DEPTH as usize;
    let text = format!("1{}", " - 1".repeat(n - 1));
    let e = parse::expr(&text).expect("as deep as allowed");
    assert!(parse::expr(&format!("{text} - 1")).is_err());
    assert_eq!(e.to_string(), text);
    assert!(Structural(&e) == Structural(&e.clone()));
    let sealed = codec::seal(b"k", &e).expect("encode");
    let v = eval_expr(&e, &ClassAd::new(), &EvalOptions::default());
    assert_eq!(v, Value::Error);
    let spec = specialize(&e, &ClassAd::new(), &EvalOptions::default());
    assert!(matches!(spec, Expr::Binary(..)));
    drop((e, spec));
    // Decoding it through serde recurses once per level: in a debug build that takes about
    // 2 KiB a level, so it runs on a stack the size of a main thread's (8 MiB).
    let back = std::thread::Builder::new()
        .stack_size(8 << 20)
        .spawn(move || {
            let back: Expr = codec::open(b"k", &sealed).expect("decode");
            back.to_string()
        })
        .expect("spawn")
        .join()
        .expect("decoded");
    assert_eq!(back, text);
}

#[test]
fn trees_as_deep_as_the_parser_allows_stay_safe() {
    on_both_stacks(deepest_nesting_is_safe);
}
