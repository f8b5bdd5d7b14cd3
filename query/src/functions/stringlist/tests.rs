//! Tables for the string-list functions, checked against HTCondor 25's answers.

use crate::functions::testutil::check;

#[test]
fn sizes_and_summaries() {
    for (expr, want) in [
        (r#"stringListSize("a, b ,c")"#, "3"),
        (r#"stringListSize("a,,b")"#, "2"),
        (r#"stringListSize("")"#, "0"),
        (r#"stringListSize("  ,, ")"#, "0"),
        (r#"stringListSize("a;b c", ";")"#, "2"),
        (r#"stringListSize(" a ; b ;; c ", ";")"#, "3"),
        (r#"stringListSize("a b c", "")"#, "1"),
        (r#"stringListSize("a\tb")"#, "1"),
        (r#"stringListSize("1 \t 2")"#, "2"),
        (r#"stringListSize(undefined)"#, "error"),
        (r#"stringListSize("a", undefined)"#, "error"),
        (r#"stringListSize(1)"#, "error"),
        (r#"stringListSize()"#, "error"),
        (r#"stringListSum("1,2,3")"#, "6"),
        (r#"stringListSum("1,2.5")"#, "3.500000000000000E+00"),
        (r#"stringListSum("")"#, "0.0"),
        (r#"stringListSum("1,a")"#, "error"),
        (r#"stringListSum("1e2")"#, "1.000000000000000E+02"),
        (r#"stringListSum("0x10")"#, "1.600000000000000E+01"),
        (r#"stringListSum("1abc")"#, "1.000000000000000E+00"),
        (r#"stringListSum("+1,-2")"#, "-1"),
        (r#"stringListSum(" 3 , 4 ")"#, "7"),
        (
            r#"stringListSum("9223372036854775807,1")"#,
            "-9223372036854775808",
        ),
        (r#"stringListSum("1;2", ";")"#, "3"),
        (r#"stringListSum("1,2", "")"#, "1.000000000000000E+00"),
        (r#"stringListSum("-")"#, "error"),
        (r#"stringListSum(undefined)"#, "error"),
        (r#"stringListAvg("1,2")"#, "1"),
        (r#"stringListAvg("2,4")"#, "3"),
        (r#"stringListAvg("1,2.0")"#, "1.500000000000000E+00"),
        (r#"stringListAvg("")"#, "0.0"),
        (r#"stringListMin("3,1,2")"#, "1"),
        (r#"stringListMin("")"#, "undefined"),
        (r#"stringListMin("-5,2")"#, "-5"),
        (r#"stringListMin("1e39")"#, "3.4028234663852886E+38"),
        (r#"stringListMax("-5,-2")"#, "0"),
        (r#"stringListMax("-5.5,-2")"#, "1.1754943508222875E-38"),
        (r#"stringListMax("3.5,1")"#, "3.500000000000000E+00"),
        (r#"stringListMax("100000000000,1")"#, "100000000000"),
    ] {
        check(expr, want);
    }
}

#[test]
fn members_and_subsets() {
    for (expr, want) in [
        (r#"stringListMember("b", "a, b, c")"#, "true"),
        (r#"stringListMember("B", "a, b, c")"#, "false"),
        (r#"stringListMember("b c", "a, b c")"#, "false"),
        (r#"stringListMember("", "a,,b")"#, "false"),
        (r#"stringListMember("b", " a ; b ;; c ", ";")"#, "true"),
        (r#"stringListMember("b ", " a ; b ;; c ", ";")"#, "false"),
        (r#"stringListMember("x", "a\tx")"#, "true"),
        (r#"stringListMember("b", "a\nb")"#, "true"),
        (r#"stringListMember("b", "a\tb", ";")"#, "false"),
        (r#"stringListMember("a b", "a b", "")"#, "true"),
        (r#"stringListMember(1, "1,2")"#, "error"),
        (r#"stringListMember(undefined, "a")"#, "false"),
        (r#"stringListMember("a", undefined)"#, "false"),
        (r#"stringListMember(undefined, undefined)"#, "undefined"),
        (r#"stringListMember(undefined, 1)"#, "error"),
        (r#"stringListMember(error, "a")"#, "error"),
        (r#"stringListMember("a", "a", undefined)"#, "true"),
        (r#"stringListMember("a", "a", 1)"#, "error"),
        (r#"stringListMember("a")"#, "error"),
        (r#"stringListIMember("B", "a, b, c")"#, "true"),
        (r#"stringListSubsetMatch("a,b", "a,b,c")"#, "true"),
        (r#"stringListSubsetMatch("a,d", "a,b,c")"#, "false"),
        (r#"stringListSubsetMatch("", "a")"#, "true"),
        (r#"stringListSubsetMatch(undefined, "a")"#, "true"),
        (r#"stringListSubsetMatch("a", undefined)"#, "false"),
        (r#"stringListSubsetMatch("", undefined)"#, "true"),
        (
            r#"stringListSubsetMatch(undefined, undefined)"#,
            "undefined",
        ),
        // HTCondor's test_classad_funcs.cpp: a list that is not empty but holds no item
        // (`" "` split at `,`) is a subset of nothing; `""` of everything.
        (
            r#"stringListSubsetMatch(" ", "cc, BB, , aa", ",")"#,
            "false",
        ),
        (r#"stringListSubsetMatch(",, ,", "a")"#, "false"),
        (r#"stringListSubsetMatch("", "cc, BB, , aa", ",")"#, "true"),
        (
            r#"stringListSubsetMatch(undefined, "cc, BB, , aa", ",")"#,
            "true",
        ),
        (r#"stringListSubsetMatch("A", "a")"#, "false"),
        (r#"stringListISubsetMatch("A", "a")"#, "true"),
        (r#"stringListSubsetMatch("a;b", "b;a", ";")"#, "true"),
        (r#"stringListSubsetMatch("a b", "a", "")"#, "false"),
        (r#"stringListSubsetMatch("b", "a\tb")"#, "true"),
        (r#"stringListSubsetMatch(1, "a")"#, "error"),
        (r#"stringListSubsetMatch(undefined, 1)"#, "error"),
        (r#"stringListSubsetMatch("a", "a", error)"#, "error"),
        (r#"stringListSubsetMatch()"#, "error"),
    ] {
        check(expr, want);
    }
}

#[test]
fn intersections_and_patterns() {
    for (expr, want) in [
        (r#"stringListsIntersect("a,b", "c,b")"#, "true"),
        (r#"stringListsIntersect("a,b", "B,d")"#, "false"),
        (r#"stringListsIntersect("", "")"#, "false"),
        (r#"stringListsIntersect("a;b", "b", ";")"#, "true"),
        (r#"stringListsIntersect("a;b", "b;c")"#, "false"),
        (r#"stringListsIntersect("a\tb", "b")"#, "false"),
        (r#"stringListsIntersect(" a ", "a")"#, "true"),
        (r#"stringListsIntersect("a b", "b", "")"#, "true"),
        (r#"stringListsIntersect(undefined, "a")"#, "undefined"),
        (r#"stringListsIntersect("a", "a", undefined)"#, "undefined"),
        (r#"stringListsIntersect("a", 1)"#, "error"),
        (r#"stringListsIntersect(error, undefined)"#, "error"),
        (r#"stringListsIntersect("a")"#, "error"),
        (r#"stringList_regexpMember("b.", "a, bc")"#, "true"),
        (r#"stringList_regexpMember("B.", "a, bc")"#, "false"),
        (
            r#"stringList_regexpMember("B.", "a, bc", ", ", "I")"#,
            "true",
        ),
        (r#"stringList_regexpMember("b.", "a;bc", ";")"#, "true"),
        (r#"stringList_regexpMember("b.", "")"#, "undefined"),
        (r#"stringList_regexpMember("(", "a")"#, "error"),
        (r#"stringList_regexpMember("(", "")"#, "error"),
        (r#"stringList_regexpMember(undefined, "a")"#, "error"),
        (r#"stringList_regexpMember("a", "a", undefined)"#, "error"),
        (
            r#"stringList_regexpMember("a", "a", ",", "i", "x")"#,
            "error",
        ),
        (r#"stringList_regexpMember("^b$", "a, b")"#, "true"),
        (r#"stringList_regexpMember("a", "A", "", "i")"#, "true"),
    ] {
        check(expr, want);
    }
}

#[test]
fn splitting() {
    for (expr, want) in [
        (r#"split("a b,c")"#, r#"{ "a","b","c" }"#),
        (r#"split("a, b")"#, r#"{ "a","b" }"#),
        (r#"split("a,,b")"#, r#"{ "a","","b" }"#),
        (r#"split(",a,")"#, r#"{ "a" }"#),
        (r#"split("a  b")"#, r#"{ "a","b" }"#),
        (r#"split("a\tb\nc")"#, r#"{ "a","b\nc" }"#),
        (r#"split("a;b;;c", ";")"#, r#"{ "a","b","","c" }"#),
        (r#"split("a;b; ;c", ";")"#, r#"{ "a","b"," ","c" }"#),
        (r#"split("a;b ;c", "; ")"#, r#"{ "a","b","","c" }"#),
        (r#"split("a; ;b", "; ")"#, r#"{ "a","","b" }"#),
        (r#"split("", ",")"#, "{  }"),
        (r#"split(" ")"#, "{  }"),
        (r#"split("abc", "")"#, r#"{ "abc" }"#),
        (r#"split("a,,", ",")"#, r#"{ "a","" }"#),
        (r#"split(",,a", ",")"#, r#"{ "","a" }"#),
        (r#"split("a , , b")"#, r#"{ "a","","b" }"#),
        (r#"split(undefined)"#, "error"),
        (r#"split("a", undefined)"#, "error"),
        (r#"split(1)"#, "error"),
        (r#"split()"#, "error"),
        (r#"split("a", "b", "c")"#, "error"),
        (r#"splitUserName("a@b")"#, r#"{ "a","b" }"#),
        (r#"splitUserName("ab")"#, r#"{ "ab","" }"#),
        (r#"splitUserName("a@b@c")"#, r#"{ "a","b@c" }"#),
        (r#"splitUserName("")"#, r#"{ "","" }"#),
        (r#"splitUserName(undefined)"#, "error"),
        (r#"splitUserName()"#, "error"),
        (r#"splitSlotName("slot1@host")"#, r#"{ "slot1","host" }"#),
        (r#"splitSlotName("host")"#, r#"{ "","host" }"#),
        (r#"join(";", split("a b c"))"#, r#""a;b;c""#),
    ] {
        check(expr, want);
    }
}
