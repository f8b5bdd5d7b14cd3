//! Adversarial input stays bounded: deep nesting, huge strings and lists, circular references
//! and pathological regular expressions give a clear error or a value — never a stack overflow,
//! a hang or a panic. Each case runs on a thread with the default 2 MiB stack.

use adjoin::query::eval::{eval_expr, EvalOptions};
use adjoin::query::parse::{self, Format};
use adjoin::query::{ClassAd, Value};

/// Runs `f` on a fresh thread with the default stack size.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .expect("spawn")
        .join()
        .expect("no panic, no overflow")
}

fn eval_text(text: String) -> Result<Value, String> {
    on_small_stack(move || {
        let e = parse::expr(&text).map_err(|e| e.to_string())?;
        Ok(eval_expr(&e, &ClassAd::new(), &EvalOptions::default()))
    })
}

#[test]
fn nesting_100000_deep_is_a_parse_error_with_position() {
    let n = 100_000;
    let cases = [
        format!("{}1{}", "(".repeat(n), ")".repeat(n)),
        format!("{}1{}", "{".repeat(n), "}".repeat(n)),
        format!("{}{}", "[a=".repeat(n), "]".repeat(n)),
        format!("{}true", "!".repeat(n)),
        format!("{}1", "- ".repeat(n)),
        format!("{}1", "f(".repeat(n)) + &")".repeat(n),
        format!("1{}", " - 1".repeat(n)),
        format!("x{}", "[0]".repeat(n)),
        format!("x{}", ".a".repeat(n)),
    ];
    for text in cases {
        let head: String = text.chars().take(12).collect();
        match eval_text(text) {
            Err(e) => assert!(e.contains(':') && e.contains("deep"), "{head}…: {e}"),
            Ok(v) => panic!("{head}… parsed and gave {v}"),
        }
    }
    for format in [Format::Json, Format::Xml, Format::Old] {
        let text = match format {
            Format::Json => format!("{{\"a\": {}1{}}}", "[".repeat(n), "]".repeat(n)),
            Format::Xml => format!(
                "<classads><c><a n=\"x\">{}<i>1</i>{}</a></c></classads>",
                "<l>".repeat(n),
                "</l>".repeat(n)
            ),
            _ => format!("a = {}1{}\n", "(".repeat(n), ")".repeat(n)),
        };
        let res = on_small_stack(move || parse::ads(&text, format).map(|a| a.len()));
        assert!(res.is_err(), "{format:?} nesting was accepted");
    }
}

#[test]
fn flat_chains_of_100000_terms_are_not_deep() {
    // A run of one chaining operator is one node: it parses, evaluates and drops on the
    // small stack (a run of `-`, which does not chain, is refused above).
    let n = 100_000;
    let cases = [
        (format!("1{}", " + 1".repeat(n)), Value::Int(n as i64 + 1)),
        (
            format!("false{}", " || false".repeat(n)),
            Value::Bool(false),
        ),
        (format!("true{}", " && true".repeat(n)), Value::Bool(true)),
        (
            format!("undefined{}", " || false".repeat(n)),
            Value::Undefined,
        ),
    ];
    for (text, want) in cases {
        let head: String = text.chars().take(12).collect();
        assert_eq!(eval_text(text), Ok(want), "{head}…");
    }
}

#[test]
fn a_10_mb_string_and_a_million_element_list_work() {
    let big = format!("size(\"{}\")", "x".repeat(10 << 20));
    assert!(matches!(eval_text(big), Ok(Value::Int(n)) if n == 10 << 20));
    let list = format!("size({{{}}})", vec!["1"; 1_000_000].join(","));
    assert!(matches!(eval_text(list), Ok(Value::Int(1_000_000))));
    let sum = format!("sum({{{}}})", vec!["2"; 1_000_000].join(","));
    assert!(matches!(eval_text(sum), Ok(Value::Int(2_000_000))));
}

#[test]
fn circular_references_are_undefined() {
    for text in [
        "[a = b; b = a].a",
        "[a = a + 1].a",
        "[a = [x = a.x]].a.x",
        "[a = eval(\"a\")].a",
        "[a = {a}].a[0]",
    ] {
        let v = eval_text(text.to_string()).expect("parses");
        assert!(matches!(v, Value::Undefined), "{text} gave {v}");
    }
}

#[test]
fn runaway_evaluation_is_an_error_not_a_hang() {
    // Each attribute doubles the work of the next: 2^60 steps without a budget.
    let mut ad = String::from("[a0 = 1;");
    for i in 1..=60 {
        ad.push_str(&format!(" a{i} = a{} + a{};", i - 1, i - 1));
    }
    ad.push_str(" r = strcat(a60, a60)].r");
    let v = eval_text(ad).expect("parses");
    assert!(matches!(v, Value::Error | Value::Str(_)), "got {v}");
    // Strings that double 40 times (a terabyte) hit the work budget.
    let mut ad = String::from("[s0 = \"xx\";");
    for i in 1..=40 {
        ad.push_str(&format!(" s{i} = strcat(s{}, s{});", i - 1, i - 1));
    }
    ad.push_str("].s40");
    assert!(matches!(eval_text(ad), Ok(Value::Error)));
}

#[test]
fn pathological_regular_expressions_are_bounded() {
    let subject = "a".repeat(100_000);
    for (pattern, ok) in [
        ("(a+)+$", true),
        ("(a|aa)+b", true),
        ("(a*)*b", true),
        ("(a{1000}){1000}", false),
        ("(.*){100}x", true),
        ("(a)\\\\1", false),
    ] {
        let text = format!("regexp(\"{pattern}\", \"{subject}\")");
        let v = eval_text(text).expect("parses");
        match ok {
            true => assert!(matches!(v, Value::Bool(_)), "{pattern}: {v}"),
            false => assert!(matches!(v, Value::Error), "{pattern}: {v}"),
        }
    }
}
