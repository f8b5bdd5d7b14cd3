//! Table tests of printing values and `value_to_string`.

use super::*;
use crate::value::AbsTime;
use std::sync::Arc;

#[test]
fn values() {
    let cases: Vec<(Value, &str)> = vec![
        (Value::Undefined, "undefined"),
        (Value::Error, "error"),
        (Value::Bool(true), "true"),
        (Value::Int(-7), "-7"),
        (Value::Real(1.5), "1.500000000000000E+00"),
        (Value::str("a\"b\\c\nd\te'"), "\"a\\\"b\\\\c\\nd\\te'\""),
        (Value::str("\u{1}"), "\"\\001\""),
        (
            Value::AbsTime(AbsTime {
                secs: 0,
                offset: 3600,
            }),
            "absTime(\"1970-01-01T01:00:00+01:00\")",
        ),
        (Value::RelTime(90.0), "relTime(\"01:30\")"),
        (
            Value::List(Arc::from(vec![Value::Int(1), Value::str("x")])),
            "{ 1,\"x\" }",
        ),
        (Value::List(Arc::from(Vec::new())), "{  }"),
    ];
    for (v, want) in cases {
        assert_eq!(v.to_string(), want, "{v:?}");
    }
}

#[test]
fn string_conversion() {
    let cases: Vec<(Val<'_>, &str)> = vec![
        (Val::Str("a\"b"), "a\"b"),
        (Val::Int(3), "3"),
        (Val::Real(0.5), "5.000000000000000E-01"),
        (Val::Bool(false), "false"),
        (Val::Undefined, "undefined"),
        (Val::List(&[Val::Int(1), Val::Str("x")]), "{ 1,\"x\" }"),
        (Val::RelTime(61.25), "01:01"),
        (Val::RelTime(-86400.5), "-1+00:00:00"),
        (Val::RelTime(0.1), "00"),
        (
            Val::AbsTime(AbsTime { secs: 0, offset: 0 }),
            "1970-01-01T00:00:00-00:00",
        ),
    ];
    for (v, want) in cases {
        assert_eq!(value_to_string(&v), want, "{v:?}");
    }
}

#[test]
fn data_text_is_htcondor_exact() {
    // 0.1 + 0.2 needs 17 digits to read back; HTCondor's text has 16.
    let x = 0.1 + 0.2;
    assert_eq!(Value::Real(x).to_string(), "3.0000000000000004E-01");
    assert_eq!(result_to_htcondor(&Value::Real(x)), "3.000000000000000E-01");
    assert_eq!(result_to_htcondor(&Value::RelTime(12.5)), "relTime(\"12\")");
    assert_eq!(result_to_htcondor(&Value::Real(-0.0)), "-0.0");
    assert_eq!(
        value_to_string(&Val::List(&[Val::Real(x), Val::Int(1)])),
        "{ 3.000000000000000E-01,1 }"
    );
    let e = crate::parse::expr("[a = 0.30000000000000004; b = x.'c d' + -(1) + 1 .e]").unwrap();
    let mut s = String::new();
    Unparser::htcondor(&mut s).expr(&e);
    assert_eq!(s, "[ a = 3.000000000000000E-01; b = x.c d +  -(1) + 1.e ]");
    assert_eq!(
        e.to_string(),
        "[ a = 3.0000000000000004E-01; b = x.'c d' +  -(1) + 1 .e ]"
    );
}

#[test]
fn data_text_lists_attributes_in_htcondors_order() {
    // classad2 25.14.1: shorter names first, then by name with ASCII letters folded (`_` before
    // letters, bytes above 0x7F after them); ads read back keep their written order.
    let cases: &[(&str, &str)] = &[
        ("[b = 2; a = 1]", "[ a = 1; b = 2 ]"),
        (
            "[b = 2; aa = 1; A = 3; Z_ = 4; _z = 5; zA = 6; Za_ = 7; 'a b' = 8; 'é' = 9; y1 = 10; Y0 = 11]",
            "[ A = 3; b = 2; _z = 5; aa = 1; Y0 = 11; y1 = 10; Z_ = 4; zA = 6; '\\303\\251' = 9; 'a b' = 8; Za_ = 7 ]",
        ),
        (
            "[x = 2; z = [w = TARGET.a; v = x]]",
            "[ x = 2; z = [ v = x; w = TARGET.a ] ]",
        ),
        ("{[lvl = 1; k = 2]}", "{ [ k = 2; lvl = 1 ] }"),
    ];
    for (src, want) in cases {
        let e = crate::parse::expr(src).unwrap();
        let mut s = String::new();
        Unparser::htcondor(&mut s).expr(&e);
        assert_eq!(s, *want, "{src}");
        assert_eq!(
            crate::parse::expr(&e.to_string()).unwrap().to_string(),
            e.to_string()
        );
    }
    let e = crate::parse::expr("[b = 2; a = 1]").unwrap();
    assert_eq!(e.to_string(), "[ b = 2; a = 1 ]");
}

#[test]
fn names() {
    let cases: &[(&str, &str)] = &[
        ("abc", "abc"),
        ("_a1", "_a1"),
        ("a b", "'a b'"),
        ("1a", "'1a'"),
        ("TRUE", "'TRUE'"),
        ("isnt", "'isnt'"),
        ("it's", "'it\\'s'"),
        ("", "''"),
    ];
    for (n, want) in cases {
        let mut s = String::new();
        write_name(&mut s, n);
        assert_eq!(s, *want);
    }
}

#[test]
fn constructed_trees_get_needed_parentheses() {
    use crate::ast::{BinOp, Expr, UnOp};
    let a = || Expr::attr("a");
    let cases: Vec<(Expr, &str)> = vec![
        (
            Expr::binary(BinOp::Mul, Expr::binary(BinOp::Add, a(), a()), a()),
            "(a + a) * a",
        ),
        (
            Expr::binary(BinOp::Sub, a(), Expr::binary(BinOp::Sub, a(), a())),
            "a - (a - a)",
        ),
        (
            Expr::Unary(UnOp::Neg, Box::new(Expr::binary(BinOp::Add, a(), a()))),
            " -(a + a)",
        ),
        (Expr::select(Expr::Lit(Value::Int(1)), "x"), "1 .x"),
        (
            Expr::Elvis(Box::new((Expr::Elvis(Box::new((a(), a()))), a()))),
            "(a ?: a) ?: a",
        ),
        // Chains print as their left folds: the first operand as a left side, the others
        // as right sides.
        (
            Expr::Chain(BinOp::Or, vec![a(), Expr::binary(BinOp::Or, a(), a()), a()]),
            "a || (a || a) || a",
        ),
        (
            Expr::Chain(
                BinOp::Add,
                vec![Expr::binary(BinOp::Sub, a(), a()), a(), a()],
            ),
            "a - a + a + a",
        ),
        (
            Expr::Chain(
                BinOp::Mul,
                vec![Expr::binary(BinOp::Add, a(), a()), a(), a()],
            ),
            "(a + a) * a * a",
        ),
        (
            Expr::Chain(
                BinOp::And,
                vec![a(), Expr::binary(BinOp::Or, a(), a()), a()],
            ),
            "a && (a || a) && a",
        ),
        (
            Expr::binary(
                BinOp::Mul,
                Expr::Chain(BinOp::Add, vec![a(), a(), a()]),
                a(),
            ),
            "(a + a + a) * a",
        ),
    ];
    for (e, want) in cases {
        assert_eq!(e.to_string(), want);
    }
}

#[test]
fn parent_after_a_dot_prints_plain() {
    // HTCondor (classad2) prints `parent` after a `.` without quotes and quotes it elsewhere;
    // each print reads back as the same tree.
    let cases: &[(&str, &str)] = &[
        ("a.parent", "a.parent"),
        ("a.'parent'", "a.parent"),
        ("a.parent.b", "a.parent.b"),
        ("a.PARENT", "a.PARENT"),
        ("a.'Parent'.b", "a.Parent.b"),
        ("deep.k.m.parent.lvl", "deep.k.m.parent.lvl"),
        ("parent.x", "'parent'.x"),
        ("'parent'", "'parent'"),
        (".parent", ".'parent'"),
        ("a.'true'", "a.'true'"),
    ];
    for (text, want) in cases {
        let e = crate::parse::expr(text).expect("parses");
        let printed = e.to_string();
        assert_eq!(printed, *want, "{text}");
        assert_eq!(
            crate::parse::expr(&printed).expect("reads back"),
            e,
            "{text}"
        );
    }
}
