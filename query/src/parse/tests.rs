//! Table tests of the new-syntax parser (printing checked through `Display`).

use super::*;

/// Parses `src` and prints it back.
fn show(src: &str) -> String {
    match expr(src) {
        Ok(e) => e.to_string(),
        Err(e) => format!("ERR {e}"),
    }
}

fn check(src: &str, want: &str) {
    assert_eq!(show(src), want, "input {src:?}");
}

#[test]
fn precedence_and_printing() {
    check("a+b*2", "a + b * 2");
    check("a + (b*2)", "a + (b * 2)");
    check("-1", "-1");
    check("- 1", " - 1");
    check("-a", " -a");
    check("!a", " !a");
    check("~a", " ~a");
    check("a?b:c", "a ? b : c");
    check("a?:b", "a ?: b");
    check("a ? : b", "a ?: b");
    check("a?b:c?d:e", "a ? b : c ? d : e");
    check("a?b?c:d:e", "a ? b ? c : d : e");
    check("a ?: b ?: c", "a ?: b ?: c");
    // `?:` is a postfix operator in HTCondor (LEX_ELVIS in parsePostfixExpression): it binds
    // tighter than any binary or unary operator and its right operand is a postfix expression.
    check("a ?:\n b", "a ?: b");
    check(
        "a ? /* c */ : b",
        "ERR 1:13: expected an expression, found ':'",
    );
    check("(a ?: b) ?: c", "(a ?: b) ?: c");
    check("x ?: y.z", "x ?: y.z");
    check("(x ?: y).z", "(x ?: y).z");
    check("(x ?: y)[1]", "(x ?: y)[1]");
    check("x ?: -1", "x ?: -1");
    check("-1 ?: 2", "-1 ?: 2");
    check("a || b ? c : d", "a || b ? c : d");
    check("{1,2}", "{ 1,2 }");
    check("{}", "{  }");
    check("[a=1;b={1,2}]", "[ a = 1; b = { 1,2 } ]");
    check("[]", "[  ]");
    check("[a=1;;b=2;]", "[ a = 1; b = 2 ]");
    check("[;a=1]", "[ a = 1 ]");
    check(
        "[;]",
        "ERR 1:3: expected an attribute name after ';', found ']'",
    );
    check(
        "[;;]",
        "ERR 1:4: expected an attribute name after ';', found ']'",
    );
    check("[a=1;;]", "[ a = 1 ]");
    check("a =?= b", "a is b");
    check("a =!= b", "a isnt b");
    check("a IS b", "a is b");
    check("a>>>b", "a >>> b");
    check("a<<b", "a << b");
    check("x.y[1].z", "x.y[1].z");
    check("f(1,2)", "f(1,2)");
    check("f()", "f()");
    check("a && b || c", "a && b || c");
    check("(a||b)&&c", "(a || b) && c");
    check("a - -1", "a - -1");
    check("a - - 1", "a -  - 1");
    check("a--1", "a - -1");
    check("1--1", "1 - -1");
    check("-(1)", " -(1)");
    check("- -1", " - -1");
    check("- - 1", " - - 1");
    check("+1", " +1");
    check("a*-b", "a *  -b");
    check("a -1", "a - 1");
    check("TRUE", "true");
    check("Undefined", "undefined");
    check("ERROR", "error");
    check("\"a\" \"b\"", "\"ab\"");
    check("a==b==c", "a == b == c");
    check("!a.b", " !a.b");
    check("[a=1].a", "[ a = 1 ].a");
    check("{1,2}[0]", "{ 1,2 }[0]");
    check("1.5.a", "1.500000000000000E+00.a");
    check("-.5", "-5.000000000000000E-01");
    check("-.a", " -.a");
    check(".a", ".a");
    check("'a b'", "'a b'");
    check("'abc'", "abc");
    check("'true'", "'true'");
    check("'a\\'b'", "'a\\'b'");
    check("'a\"b'", "'a\"b'");
    check("\"a'b\"", "\"a'b\"");
    check("\"é\"", "\"\\303\\251\"");
    check("\"\\u00e9\"", "\"u00e9\"");
    check("\"\\101\"", "\"A\"");
    check("1/*c*/+2", "1 + 2");
    check("1//c\n+2", "1 + 2");
    check("(1)", "(1)");
    check("((a))", "((a))");
    check("0x1f", "0");
    check("017", "17");
    check("10000000000000000000", "0");
    check("1e10", "1.000000000000000E+10");
    check("1.0/3", "1.000000000000000E+00 / 3");
    check("0.30000000000000004", "3.0000000000000004E-01");
    check("-0.0", "-0.0");
    check("real(\"INF\")", "real(\"INF\")");
    check("2K", "2.048000000000000E+03");
}

#[test]
fn time_literals() {
    check(
        "absTime(\"2004-01-01T00:00:00-06:00\")",
        "absTime(\"2004-01-01T00:00:00-06:00\")",
    );
    check(
        "absTime(\"2004-01-01T00:00:00Z\")",
        "absTime(\"2004-01-01T00:00:00-00:00\")",
    );
    check("relTime(\"2+01:14:16.123\")", "relTime(\"2+01:14:16.123\")");
    check("relTime(\"1:00\")", "relTime(\"01:00\")");
    check("relTime(\"1d2h3m4s\")", "relTime(\"1+02:03:04\")");
    check("relTime(60)", "relTime(60)");
    check("'3d19:49:15'", "relTime(330555)");
    check(
        "'Mon Jan 11 10:53:31 1999 (CST) -06:00'",
        "absTime(\"1999-01-11T10:53:31-06:00\")",
    );
    assert!(expr("absTime(\"x\")").is_err());
    assert!(expr("relTime(\"x\")").is_err());
}

/// Where only a name can stand (an attribute being defined, one selected after `.`), a quoted
/// time is the name HTCondor reads there: such ads load, as in HTCondor, and print so that
/// they read back.
#[test]
fn quoted_times_where_only_a_name_stands() {
    let ad =
        classad("['00:23:12' = 5; x = '00:23:12'; y = [z = ['3d19:49:15' = 2]].z.'3d19:49:15']")
            .expect("the ad reads");
    let five = ad.get("00:23:12").map(ToString::to_string);
    assert_eq!(five.as_deref(), Some("5"));
    // Elsewhere it is still the dissertation's literal.
    let x = ad.get("x").map(ToString::to_string);
    assert_eq!(x.as_deref(), Some("relTime(1392)"));
    let y = ad.get("y").map(ToString::to_string);
    assert_eq!(
        y.as_deref(),
        Some("[ z = [ '3d19\\:49\\:15' = 2 ] ].z.'3d19\\:49\\:15'")
    );
    let again = classad(&ad.to_string()).expect("the printed ad reads back");
    assert_eq!(again, ad);
}

#[test]
fn errors() {
    let cases: &[(&str, &str)] = &[
        (
            "1 2",
            "1:3: expected end of input after expression, found '2'",
        ),
        (
            "a = 1",
            "1:3: expected end of input after expression, found '='",
        ),
        (
            "a.1",
            "1:2: expected end of input after expression, found '.1'",
        ),
        (
            "a.(b)",
            "1:3: expected an attribute name after '.', found '('",
        ),
        (
            "a.true",
            "1:3: expected an attribute name after '.', found 'true'",
        ),
        ("f(,)", "1:3: expected an expression, found ','"),
        ("{1,}", "1:4: expected an expression, found '}'"),
        ("(1", "1:3: expected ')', found end of input"),
        (
            "a ? b",
            "1:6: expected ':' in conditional expression, found end of input",
        ),
        (
            "[a=1\n b=2]",
            "2:2: expected ']' or ';' after attribute, found 'b'",
        ),
        (
            "[a=1;\n  b=(2))]",
            "2:8: expected ']' or ';' after attribute, found ')'",
        ),
        ("[a 1]", "1:4: expected '=' after attribute name, found '1'"),
        ("[1=1]", "1:2: expected an attribute name or ']', found '1'"),
        ("isnt", "1:1: expected an expression, found 'isnt'"),
        ("1.a", "1:1: malformed number: expected a digit after '.'"),
        ("\"abc", "1:1: unterminated string literal"),
        ("", "1:1: expected an expression, found end of input"),
    ];
    for (src, want) in cases {
        assert_eq!(show(src), format!("ERR {want}"), "input {src:?}");
    }
}

#[test]
fn classads_and_sequences() {
    let ad = classad("[ A = 1; b = \"x\"; a = 2 ]").unwrap();
    assert_eq!(ad.to_string(), "[ A = 2; b = \"x\" ]");
    assert!(classad("[a=1] [b=2]").is_err());
    let v = ads("[a=1]\n// next\n[b=2] [ ]", Format::New).unwrap();
    assert_eq!(v.len(), 3);
    assert_eq!(v[1].to_string(), "[ b = 2 ]");
    assert!(ads("[a=1] 5", Format::New).is_err());
}

#[test]
fn structure() {
    use crate::ast::{BinOp, Expr};
    let e = expr("TARGET.Memory").unwrap();
    assert!(
        matches!(&e, Expr::Select(b, n) if matches!(**b, Expr::Attr(t) if t.as_str() == "TARGET") && n.as_str() == "Memory")
    );
    let e = expr("a - b - c").unwrap();
    assert!(
        matches!(&e, Expr::Binary(BinOp::Sub, b) if matches!(b.0, Expr::Binary(BinOp::Sub, _)))
    );
    // Runs of a chaining operator are one chain node; two operands stay binary; a run of
    // another operator, or a parenthesized or right operand, starts a node of its own.
    let chain = |text: &str| match expr(text).unwrap() {
        Expr::Chain(op, terms) => {
            Some((op, terms.iter().map(|t| t.to_string()).collect::<Vec<_>>()))
        }
        _ => None,
    };
    type Run<'a> = Option<(BinOp, Vec<&'a str>)>;
    let cases: &[(&str, Run)] = &[
        ("a || b", None),
        ("a || b || c", Some((BinOp::Or, vec!["a", "b", "c"]))),
        (
            "a && b && c && d",
            Some((BinOp::And, vec!["a", "b", "c", "d"])),
        ),
        ("a + b + c", Some((BinOp::Add, vec!["a", "b", "c"]))),
        ("a * b * c", Some((BinOp::Mul, vec!["a", "b", "c"]))),
        ("a | b | c", Some((BinOp::BitOr, vec!["a", "b", "c"]))),
        ("a ^ b ^ c", Some((BinOp::BitXor, vec!["a", "b", "c"]))),
        ("a & b & c", Some((BinOp::BitAnd, vec!["a", "b", "c"]))),
        ("a - b - c", None),
        ("a < b < c", None),
        ("a + b - c", None),
        ("a - b + c + d", Some((BinOp::Add, vec!["a - b", "c", "d"]))),
        (
            "a && b || c && d || e",
            Some((BinOp::Or, vec!["a && b", "c && d", "e"])),
        ),
        ("(a || b) || c", None),
        (
            "a || (b || c) || d",
            Some((BinOp::Or, vec!["a", "(b || c)", "d"])),
        ),
        ("a || b || c ? d : e", None),
    ];
    for (text, want) in cases {
        let got = chain(text);
        let got: Run = got
            .as_ref()
            .map(|(op, t)| (*op, t.iter().map(String::as_str).collect()));
        assert_eq!(got, *want, "{text}");
        assert_eq!(expr(text).unwrap().to_string(), *text);
    }
    let e = expr("a ? b : c ? d : e").unwrap();
    assert!(matches!(&e, Expr::Cond(b) if matches!(b.2, Expr::Cond(_))));
    assert!(matches!(expr(".x").unwrap(), Expr::Root(_)));
    assert!(matches!(expr("(x)").unwrap(), Expr::Paren(_)));
}

fn deep_thread<F: FnOnce() + Send + 'static>(f: F) {
    // Run on a small stack like a test thread's default, to show deep input cannot overflow it.
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn deep_nesting_is_an_error() {
    deep_thread(|| {
        let n = 100_000;
        let cases = [
            format!("{}1{}", "(".repeat(n), ")".repeat(n)),
            format!("{}1{}", "{".repeat(n), "}".repeat(n)),
            format!("{}1{}", "[a=".repeat(n), "]".repeat(n)),
            format!("{}1", "!".repeat(n)),
            format!("{}1", "- ".repeat(n)),
            format!("{}1", "a ? b : ".repeat(n)),
            format!("{}1", "f(".repeat(n)),
            format!("1{}", "-1".repeat(n)),
            format!("1{}", "<1".repeat(n)),
            format!("a{}", ".b".repeat(n)),
            format!("a{}", "[1]".repeat(n)),
        ];
        for c in &cases {
            let e = expr(c).unwrap_err();
            assert!(e.message.contains("nested too deeply"), "{}: {e}", &c[..20]);
        }
        let ok = format!("{}1{}", "(".repeat(190), ")".repeat(190));
        let e = expr(&ok).unwrap();
        assert_eq!(e.to_string(), ok);
        let ok = format!("{}1", "!".repeat(900));
        assert!(expr(&ok).is_ok());
        let ok = format!("{}1{}", "[a=".repeat(190), "]".repeat(190));
        assert!(classad(&ok).is_ok());
        // Left-deep runs of a non-chaining operator are as deep as they are long: up to
        // MAX_DEPTH they parse, print (in every format) and drop on a small stack.
        let chain = format!("1{}", " - 1".repeat(MAX_DEPTH as usize - 1));
        let e = expr(&chain).unwrap();
        assert_eq!(e.to_string(), chain);
        // In an ad the ad itself is one more level.
        let inner = expr(&format!("1{}", " - 1".repeat(MAX_DEPTH as usize - 2))).unwrap();
        let ad: ClassAd = [(crate::name::Name::new("a"), inner)].into_iter().collect();
        let ad = vec![ad];
        for (fmt, text) in [
            (Format::Old, crate::print::ads_to_old(&ad)),
            (Format::Json, crate::print::ads_to_json(&ad)),
            (Format::Xml, crate::print::ads_to_xml(&ad)),
        ] {
            assert_eq!(ads(&text, fmt).unwrap().len(), 1);
        }
        assert!(expr(&format!("{chain} - 1")).is_err());
        // A run of a chaining operator is one node however long: 100,000 terms of each parse,
        // print back and drop on the small stack; chains nested in parentheses count their
        // nesting as before.
        for op in ["||", "&&", "+", "*", "|", "^", "&"] {
            let text = format!("a{}", format!(" {op} a").repeat(n - 1));
            let e = expr(&text).unwrap();
            assert!(
                matches!(&e, crate::ast::Expr::Chain(_, t) if t.len() == n),
                "{op}"
            );
            assert_eq!(e.to_string(), text);
        }
        let nested = |k: usize| format!("{}1{}", "(1 || ".repeat(k), ")".repeat(k));
        assert!(expr(&nested(60)).is_ok());
        let e = expr(&format!("{} || 1", nested(60))).unwrap();
        assert_eq!(e.to_string(), format!("{} || 1", nested(60)));
    });
}

#[test]
fn big_inputs_are_linear() {
    let s = format!("\"{}\"", "x".repeat(10 << 20));
    let t = std::time::Instant::now();
    let e = expr(&s).unwrap();
    assert!(
        matches!(e, crate::ast::Expr::Lit(crate::value::Value::Str(ref v)) if v.len() == 10 << 20)
    );
    let mut list = String::from("{");
    for i in 0..1_000_000 {
        if i > 0 {
            list.push(',');
        }
        list.push('1');
    }
    list.push('}');
    let e = expr(&list).unwrap();
    assert!(matches!(e, crate::ast::Expr::List(ref v) if v.len() == 1_000_000));
    assert!(t.elapsed().as_secs() < 20);
}

/// Structural equality of expressions: names by key and spelling, ads as sets of attributes
/// (HTCondor prints them in its own order), reals exactly or (with `tol`) within HTCondor's 16 printed
/// digits.
pub(crate) fn same_expr(a: &crate::ast::Expr, b: &crate::ast::Expr, tol: bool) -> bool {
    use crate::ast::Expr as E;
    let n = |x: &crate::name::Name, y: &crate::name::Name| x.as_str() == y.as_str();
    match (a, b) {
        (E::Lit(x), E::Lit(y)) => same_value(x, y, tol),
        (E::Attr(x), E::Attr(y)) | (E::Root(x), E::Root(y)) => n(x, y),
        (E::Select(x, m), E::Select(y, k)) => n(m, k) && same_expr(x, y, tol),
        (E::Index(x), E::Index(y)) | (E::Elvis(x), E::Elvis(y)) => {
            same_expr(&x.0, &y.0, tol) && same_expr(&x.1, &y.1, tol)
        }
        (E::Unary(o, x), E::Unary(p, y)) => o == p && same_expr(x, y, tol),
        (E::Binary(o, x), E::Binary(p, y)) => {
            o == p && same_expr(&x.0, &y.0, tol) && same_expr(&x.1, &y.1, tol)
        }
        (E::Cond(x), E::Cond(y)) => {
            same_expr(&x.0, &y.0, tol) && same_expr(&x.1, &y.1, tol) && same_expr(&x.2, &y.2, tol)
        }
        (E::Call(f, x), E::Call(g, y)) => {
            n(f, g)
                && x.len() == y.len()
                && x.iter().zip(y.iter()).all(|(p, q)| same_expr(p, q, tol))
        }
        (E::List(x), E::List(y)) => {
            x.len() == y.len() && x.iter().zip(y.iter()).all(|(p, q)| same_expr(p, q, tol))
        }
        (E::Chain(o, x), E::Chain(p, y)) => {
            o == p
                && x.len() == y.len()
                && x.iter().zip(y.iter()).all(|(p, q)| same_expr(p, q, tol))
        }
        (E::Ad(x), E::Ad(y)) => same_ad(x, y, tol),
        (E::Paren(x), E::Paren(y)) => same_expr(x, y, tol),
        // HTCondor spells non-finite reals `real("INF")`, a call that evaluates to the literal.
        (E::Lit(crate::value::Value::Real(r)), E::Call(f, args))
        | (E::Call(f, args), E::Lit(crate::value::Value::Real(r))) => {
            f.as_str() == "real"
                && matches!(&args[..], [E::Lit(crate::value::Value::Str(s))]
                    if s.parse::<f64>().is_ok_and(|v| v == *r || (v.is_nan() && r.is_nan())))
        }
        _ => false,
    }
}

/// Ads with the same attributes (same spellings), in any order.
pub(crate) fn same_ad(x: &ClassAd, y: &ClassAd, tol: bool) -> bool {
    x.len() == y.len()
        && x.iter().all(|(k, e)| {
            y.entry(k.key())
                .is_some_and(|(k2, f)| k2.as_str() == k.as_str() && same_expr(e, f, tol))
        })
}

fn same_value(x: &crate::value::Value, y: &crate::value::Value, tol: bool) -> bool {
    use crate::value::Value as V;
    let close = |p: f64, q: f64| {
        p.to_bits() == q.to_bits()
            || (p.is_nan() && q.is_nan())
            || (tol && (p - q).abs() <= 1e-15 * p.abs().max(q.abs()))
    };
    match (x, y) {
        (V::Undefined, V::Undefined) | (V::Error, V::Error) => true,
        (V::Bool(p), V::Bool(q)) => p == q,
        (V::Int(p), V::Int(q)) => p == q,
        (V::Real(p), V::Real(q)) | (V::RelTime(p), V::RelTime(q)) => close(*p, *q),
        (V::Str(p), V::Str(q)) => p == q,
        (V::AbsTime(p), V::AbsTime(q)) => p == q,
        (V::List(p), V::List(q)) => {
            p.len() == q.len() && p.iter().zip(q.iter()).all(|(a, b)| same_value(a, b, tol))
        }
        (V::Ad(p), V::Ad(q)) => same_ad(p, q, tol),
        _ => false,
    }
}

/// Regression (found by the `parse` fuzz target): an old-syntax, JSON or XML attribute name
/// holding a NUL character was accepted, and the ad then printed as new syntax that no longer
/// parsed. Such names are refused where they are read.
#[test]
fn r_fuzz_nul_in_attribute_name() {
    for (text, format) in [
        ("\0=F5", Format::Old),
        ("{\"a\\u0000\": 1}", Format::Json),
        (
            "<classads><c><a n=\"a\0\"><i>1</i></a></c></classads>",
            Format::Xml,
        ),
    ] {
        assert!(ads(text, format).is_err(), "{text:?} as {format:?}");
    }
}

/// Regression (found by the `parse` fuzz target): a JSON (or XML) string value holding a raw
/// NUL character was accepted, and the ad then printed as new syntax with the escape `\0`,
/// which no string literal may hold. NUL is refused in values as in names (HTCondor's readers
/// stop at it).
#[test]
fn r_fuzz_nul_in_string_value() {
    for (text, format) in [
        ("[{\"a\": \"x\0y\"}]", Format::Json),
        ("{\"a\": \"\0\"}", Format::Json),
        (
            "<classads><c><a n=\"a\"><s>x\0y</s></a></c></classads>",
            Format::Xml,
        ),
        ("a = \"x\0y\"", Format::Old),
    ] {
        assert!(ads(text, format).is_err(), "{text:?} as {format:?}");
    }
}

/// Regression (found by the `parse` fuzz target): `--0m` is `-(0.0)`, which printed as ` -0.0`
/// and read back as the literal `-0.0`, a different tree; unary minus before a number literal
/// now prints as ` - `. Likewise `0 .E` printed as `(0).E`, which reads back with parentheses;
/// it now prints as `0 .E`. Absolute times print years below 1000 zero-padded, and a quoted
/// dissertation time accepts only digits in its fields (`'Apr 8 -7:-9:-7 -621'` was a time).
#[test]
fn r_fuzz_printed_trees_read_back() {
    for src in [
        "-\n22822222 ?: 2",
        "- 1 ?: 2",
        "-(1 ?: 2)",
        "- 1.5[0] ?: 2",
        "--0m",
        "- 1",
        "a - - 1",
        "- 2.5",
        "-(1)",
        "- -1",
        "0\n.E.E",
        "(0).a",
        "-1 .a",
        "1e999",
        "[a = -1e999]",
        "real(\"NaN\")",
        "- 0 .y",
        "- 0[1]",
        "absTime(\"0011-12-31\")",
        "absTime(\"12abc\")",
        "'-(Apr 8 -7:-9:-7 -621'",
        // A relative time of negative zero (found by the `parse` fuzz target).
        "4 != relTime(\"\n-\n\")",
        "relTime(\"-0.0\")",
        // Relative times beyond what `D+hh:mm:ss` carries (found by the `parse` fuzz target).
        "4 != relTime(\"3333333333333333333333333333333333333333\")",
        "relTime(\"10000000000.5\")",
        "relTime(\"-10000000000\")",
    ] {
        let e = expr(src).expect("parses");
        let printed = e.to_string();
        assert_eq!(
            expr(&printed).as_ref(),
            Ok(&e),
            "{src:?} printed {printed:?}"
        );
    }
}
