#!/usr/bin/env python3
"""Writes gen/exprs.txt: the expression battery for exprs.golden (plain python3, no htcondor needed).

exprs.txt format: `## section NAME`, then optional `## mode new|compat|old`, `## my AD`,
`## target AD` header lines, then one expression per line. Blank lines and lines
starting with `#` followed by a space are ignored.
"""
import os

MY = ('[ a = 1; b = 2.5; s = "Hello"; l = {1, 2, 3}; n = [ x = 10; y = x + 1; z = [ w = x; v = a ] ]; '
      'u = undefined; e = error; t = true; f = false; self_ref = self_ref; c1 = c2; c2 = c1; '
      'inc = inc + 1; ab = absTime(1704164645); rt = relTime(90); ads = { [a = 1], [a = 2], [b = 3] }; '
      'Requirements = TARGET.Memory > 100; Rank = TARGET.Memory; MyType = "Job"; Name = "me"; x = a + 1; '
      'up = parent.a; \'if\' = 5; Memory = 7; refT = TARGET.a; refTq = TARGET.q; '
      'unscoped = tonly; lst = { a, b, tonly }; strs = "a, b,c"; nums = {1, 2.5, 3}; mixed = {1, "a", undefined}; '
      'Arch = "X86_64"; cpus = 4; sub = [ a = 99; g = a; h = parent.a; k = root.a; m = MY.a; o = TARGET.a ] ]')
TARGET = ('[ Memory = 2048; Name = "slot1"; a = 100; tonly = 42; q = a; r = MY.a; rr = TARGET.a; '
          'MyType = "Machine"; Requirements = TARGET.a == 1; Arch = "x86_64"; b = "target b" ]')

out = []


def section(name, mode="new", my=None, target=None, note=None):
    out.append("")
    out.append(f"## section {name}")
    out.append(f"## mode {mode}")
    if my:
        out.append(f"## my {my}")
    if target:
        out.append(f"## target {target}")
    if note:
        out.append(f"# {note}")


def add(*exprs):
    for e in exprs:
        assert "\n" not in e and "\t" not in e, e
        out.append(e)


# ---------------------------------------------------------------- literals
section("literals", note="MY = an empty ad, no TARGET")
add("0", "1", "-1", "+1", "123456789", "2147483647", "2147483648", "4294967296",
    "9223372036854775807", "9223372036854775808", "-9223372036854775807", "-9223372036854775808",
    "18446744073709551615", "18446744073709551616", "99999999999999999999999",
    "0x10", "0X1f", "0xff", "0xFFFFFFFFFFFFFFFF", "0x7FFFFFFFFFFFFFFF", "0x", "010", "0777", "08", "09", "007",
    "0b101", "1_000", "00", "-0",
    "1.0", "0.0", "-0.0", "+0.0", ".5", "5.", "1e10", "1E10", "1e+10", "1e-10", "1.5e3", "1.5E-3", "1e", "1e+", ".e1",
    "0.1", "0.2", "0.1 + 0.2", "1.0 / 3", "2.0 / 3", "100.0", "123456789012345678.0", "1e15", "1e16", "1e17",
    "1e100", "1e308", "1e309", "-1e309", "1e-300", "1e-320", "4.9e-324", "2.5e-324", "1.7976931348623157e308",
    "3.14159265358979323846", "0.000001", "0.0000001", "1234.5678", "-1234.5678", "12345678901234567890.0",
    "1.", "1.e5", "0x1p3", "1.5.2", "1..2", "5.f",
    # A hexadecimal integer part with a decimal fraction: strtod's hexadecimal float.
    "0x10.5", "0X1.8", "0xA.5e3", "0x1.8e-1", "0x10.5E+2", "0xff.99", "0x0.1", "0xFFFFFFFFFFFFFFFFF.5",
    "0x.8", "0x10.", "0xA.F", "0x1.5e", "0x1.5a", "0x1.5e5e", "00x1.5", "0x10.5 + 1",
    "true", "false", "TRUE", "True", "FALSE", "tRuE", "undefined", "UNDEFINED", "Undefined", "error", "ERROR", "Error",
    '""', '"abc"', '"a b"', '"\\n"', '"\\t"', '"\\\\"', '"\\""', '"\\\'"', '"\\?"', '"\\a"', '"\\b"', '"\\f"', '"\\r"',
    '"\\v"', '"\\x41"', '"\\x4142"', '"\\101"', '"\\0"', '"\\1"', '"\\12"', '"\\123"', '"\\1234"', '"\\400"', '"\\777"',
    '"\\8"', '"\\u00e9"', '"\\U0001F600"', '"é"', '"日本"', '"😀"', '"\\q"', '"\\."', '"a\\\\b"', '"abc', '"\\"',
    '"a" "b"', "'abc'", "'a b'", "'if'", "'\\''", "'a\\'b'",
    "{}", "{1}", "{1,}", "{,1}", "{1,2,3}", "{1,{2,3},{}}", '{1, "a", 2.5, true, undefined, error}', "{1;2}",
    "[]", "[a=1]", "[a=1;]", "[a=1;b=2]", "[a=1,b=2]", "[a=1;;b=2]", "[;]", "[a]", "[a=]", "[=1]", "[1=1]",
    "['a b'=1]", "[a=1; A=2]", "[a=1; a=2]", "[a=1].a", "[a=1; A=2].a", "[a=[b={1,[c=2]}]]",
    "()", "(1)", "((1))", "1 +", "+", "1 2", "a b", "a.", ".a", "..a", "a..b", "[a=1].", "f(", "f(1,)", "f(,)",
    "1 ? 2", "1 ? : 3", "? 1", "a[", "a[]", "{1}[]", "$x", "@x", "#x", "`x`", "a = 1", "a == = 1", "1 === 1", "1 !== 1",
    "1 <> 2", "1 =< 2", "1 => 2", "!", "~", "1 ** 2", "1 // 2", "1 /* c */ + 2", "/* c */ 1", "1 /* c", "1 && || 2",
    "isnt", "is", "1 is", "is 1", "1 isnt 2", "1 IS 1", "1 ISNT 1", "1 Is 1",
    "x", "X", "_x", "x1", "1x", "x_y", "x-y", "x.y", "x.y.z", "_", "__",
    "self", "MY", "TARGET", "other", "parent", "root", "toplevel", "super",
    )

# ---------------------------------------------------------------- operator matrix
VALS = ["undefined", "error", "true", "false", "0", "3", "-7", "2.5", "0.0", '"abc"', '"ABC"', '""', "{1,2}", "[a=1]",
        "absTime(1704164645)", "relTime(90)"]
BINOPS = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "is", "isnt", "&&", "||",
          "&", "|", "^", "<<", ">>", ">>>"]
section("operator-matrix", note="every binary operator on a representative value of every type; MY = empty ad")
for op in BINOPS:
    for x in VALS:
        for y in VALS:
            add(f"{x} {op} {y}")
section("unary", note="unary operators on every type")
UVALS = VALS + ["1", "-1", "1.5", "-0.0", "9223372036854775807", "-9223372036854775807 - 1", 'real("NaN")',
                'real("INF")', '"1"', "{}", "[]", "x"]
for op in ["-", "+", "!", "~", "- -", "!!", "~~", "-+", "+-"]:
    for x in UVALS:
        add(f"{op}{x}", f"{op}({x})")
section("ternary-elvis", note="?: and elvis on every type")
for x in VALS + ["x", "1.5", '"true"', "-1"]:
    add(f"{x} ? 1 : 2", f"{x} ?: 5", f"ifThenElse({x}, 1, 2)")
add("true ? error : 1", "false ? error : 1", "true ? 1 : error", "1 ? 2 : 3 ? 4 : 5", "0 ? 2 : 0 ? 4 : 5",
    "true ?: error", "undefined ?: undefined", "undefined ?: error", "error ?: 1", "(1 ?: 2) + 1", "0 ?: 2",
    "false ?: 2", '"" ?: 2', "{} ?: 2", "x ?: y ?: 3", "true ? x : 1", "1 ? {1} : {2}", "true?1:2", "1?2:3")
# The elvis operator is postfix in HTCondor: tighter than every binary and unary operator.
add("10 ?: 2 + 3", "10 ? : 2 + 3", "2 * undefined ?: 7", "-undefined ?: 5", "!undefined ?: true",
    "undefined ?: 1 ? 2 : 3", "undefined ?: 0 >= 64", "x ?: 3 * 2", "1 + x ?: 2 * 3", "x ?: -1 - 1",
    "undefined ?: {1,2}[1]", "(undefined ?: {1,2})[1]", "[a=1].a ?: 2", "x ?: [a=4].a + 1",
    "undefined ?:   3 + 4", "5 ?: 1 > 2", "x ?: 1 == 1 ?: 2", "~undefined ?: 6", "x ?: y ?: 1 + 1")

# ---------------------------------------------------------------- targeted arithmetic
section("arithmetic", note="division/modulo/overflow/promotion/shifts/bitwise/comparison details")
add("7 / 2", "-7 / 2", "7 / -2", "-7 / -2", "7 % 3", "-7 % 3", "7 % -3", "-7 % -3", "0 / 5", "0 % 5",
    "7 / 0", "7 % 0", "0 / 0", "0 % 0", "7.0 / 0", "7 / 0.0", "-7 / 0.0", "0.0 / 0.0", "0 / 0.0", "7.0 % 0",
    "7.0 % 2", "7.5 % 2", "7 % 2.5", "-7.5 % 2", "7.5 % -2", "7 % 2.0", "1e30 % 7", "7 / 2.0", "7.0 / 2", "1 / 3",
    "1.0 / 3", "10 / 4 * 4", "10 % 4 + 10 / 4 * 4",
    "9223372036854775807 + 1", "-9223372036854775807 - 1", "-9223372036854775807 - 2", "9223372036854775807 * 2",
    "9223372036854775807 * 9223372036854775807", "(-9223372036854775807 - 1) / -1", "(-9223372036854775807 - 1) % -1",
    "-(-9223372036854775807 - 1)", "(-9223372036854775807 - 1) * -1", "9223372036854775807 + 1.0",
    "4611686018427387904 * 2", "4611686018427387904 * 4", "2147483647 + 1", "2147483647 * 2147483647",
    "1 + 1.5", "1.5 + 1", "1 - 0.5", "2 * 0.5", "3 * 1.0", "1 + 2 * 3", "(1 + 2) * 3", "2 - 3 - 4", "2 - (3 - 4)",
    "100 / 10 / 5", "2 * 3 % 4", "-2 * -3", "- -3", "1 - -1", "1 + -1", "1--1", "1- -1", "1+-1", "+-+1", "-(1)",
    "true + 1", "true + true", "false + 1", "true * 2.5", "true - false", "1 - true", "true / 2", "true % 2",
    "-true", "+true", "~true", "!1", "!0", "!2.5", "!0.0", '!"a"', "!undefined", "!error",
    "1 + \"2\"", '"a" + "b"', '"a" + 1', '"10" * 2', '"2" < 10', "1 + undefined", "undefined + error",
    "error + undefined", "1 + error", "undefined * 0", "0 * undefined", "undefined - undefined",
    "1 << 0", "1 << 1", "1 << 62", "1 << 63", "1 << 64", "1 << 65", "1 << -1", "1 << 100", "-1 << 1",
    "8 >> 1", "8 >> 4", "-8 >> 1", "-1 >> 1", "-1 >> 63", "-1 >> 64", "8 >> -1", "-1 >>> 1", "-1 >>> 63",
    "-8 >>> 60", "-1 >>> 0", "-1 >>> 64", "1 >>> 1", "8 >> 1 >> 1", "1 << 2 + 1", "1 << 2.5", "2.5 << 1",
    "true << 1", "1 << true", "3 & 5", "3 | 5", "3 ^ 5", "~0", "~5", "~-1", "-1 & 255", "1 | 2 & 3", "1 ^ 2 | 4",
    "(1 | 2) & 3", "true & false", "true | false", "true ^ true", "true & 1", "3 & true", "1.5 & 1", "~1.5",
    "~true", "~false", "1 < 2", "2 < 1", "1 < 1.5", "1.5 < 2", "1 == 1.0", "1 != 1.0", "1 is 1.0", "1 =?= 1.0",
    "1 isnt 1.0", "1.0 is 1.0", "0.0 == -0.0", "0.0 is -0.0", "0.0 =?= -0.0", "true == 1", "true is 1",
    "true =?= 1", "false == 0", "true == 2", "true < 2", "false < true", "true > false", "1 == true",
    "2.5 == true", '"abc" == "ABC"', '"abc" != "ABC"', '"abc" is "ABC"', '"abc" =?= "ABC"', '"abc" isnt "ABC"',
    '"abc" is "abc"', '"abc" < "ABD"', '"abc" < "abd"', '"ABC" < "abd"', '"B" < "a"', '"b" < "A"', '"a" < "B"',
    '"a" < "b"', '"" < "a"', '"a" < ""', '"abc" <= "ABC"', '"abc" >= "ABC"', '"abc" > "ABC"', '"Z" > "a"',
    '"a" == "a "', '"10" < "9"', '"10" == 10', '"a" == undefined', '"a" is undefined', '"é" == "É"',
    '"é" < "f"', "undefined == undefined", "undefined != undefined", "undefined is undefined",
    "undefined isnt undefined", "undefined =?= undefined", "undefined =!= undefined", "error == error",
    "error is error", "error isnt error", "error =?= error", "undefined is error", "undefined == 1",
    "1 == undefined", "undefined is 1", "1 isnt undefined", "error is 1", "error == 1",
    "undefined && false", "false && undefined", "undefined && true", "true && undefined", "undefined || true",
    "true || undefined", "undefined || false", "false || undefined", "undefined && undefined",
    "undefined || undefined", "error && false", "false && error", "error || true", "true || error",
    "true && error", "false || error", "undefined && error", "error && undefined", "undefined || error",
    "1 && true", "0 && true", "1 || false", "0 || false", "2.5 && true", "0.0 || false", "0.0 && error",
    "1 && 1", "0 || 0", '"a" && true', '"a" || true', 'true && "a"', 'false || "a"', "true && 5", "true || 5",
    "false && 5", "false || 5", "true && 0", "false || 0.0", "{} && true", "[a=1] || false", "true && {}",
    "false && x", "true || x", "x && false", "x || true", "x && true", "x || false", "false && (1/0)",
    "true || (1/0)", "true && false || true", "true || false && false", "false && false || true",
    "!true == false", "!(true == false)", "1 < 2 == true", "1 < 2 < 3", "3 > 2 > 1", "1 == 1 == 1",
    "1 + 2 == 3", "1 + 2 * 3 == 7 && true", '{1} == {1}', '{1} != {1}', '{1} is {1}', '{1} =?= {1}',
    '{1,2} is {1,2}', '{} is {}', '[a=1] == [a=1]', '[a=1] is [a=1]', '[a=1] =?= [a=1]', '[] is []',
    '{1} is {1.0}', '[a=1] is [A=1]', 'absTime(0) == absTime(0)', 'absTime(0) is absTime(0)',
    'absTime(0) < absTime(1)', 'absTime(10) - absTime(3)', 'absTime(10) + 5', '5 + absTime(10)',
    'absTime(10) - 5', 'absTime(10) + relTime(5)', 'relTime(5) + absTime(10)', 'absTime(10) - relTime(5)',
    'relTime(5) + relTime(6)', 'relTime(5) - relTime(6)', 'relTime(5) * 2', '2 * relTime(5)', 'relTime(5) * 2.5',
    'relTime(10) / 2', 'relTime(10) / 4', 'relTime(10) / relTime(5)', 'relTime(10) % 3', 'relTime(5) + 1',
    'relTime(5) == 5', 'relTime(5) == relTime(5)', 'relTime(5) is relTime(5)', 'relTime(5) < relTime(6)',
    'relTime(5) < 6', 'absTime(5) == 5', 'absTime(5) < 6', '-relTime(5)', '-absTime(5)', 'absTime(5) * 2',
    'absTime(0) + absTime(0)', 'relTime(1.5) * 2', 'relTime(0.5)', 'relTime(1.5) + relTime(1.5)',
    'real("NaN") == real("NaN")', 'real("NaN") is real("NaN")', 'real("NaN") != real("NaN")',
    'real("NaN") < 1', 'real("NaN") > 1', 'real("INF") > 1e308', 'real("INF") - real("INF")',
    'real("INF") * 0', '-real("INF")', 'real("INF") == real("INF")', '1e308 * 10 == real("INF")',
    '1 / real("INF")', '-1 / real("INF")', '0.0 * -1', '-0.0 * -1', '0 - 0.0', '-0.0 + 0.0', '-0.0 - 0.0',
    '1e300 * 1e300', '1e-300 * 1e-300', '2.5 * 2', '0.1 * 3', '1.1 + 2.2', '100.0 / 3.0', '1e16 + 1',
    '9007199254740993.0', '9007199254740993 + 0.0', '0.5 + 0.5', '1.0 * 1', 'int(1.0) * 1')

# ---------------------------------------------------------------- subscripts & selection
section("subscripts-selection", note="MY = empty ad")
add("{1,2,3}[0]", "{1,2,3}[1]", "{1,2,3}[2]", "{1,2,3}[3]", "{1,2,3}[-1]", "{1,2,3}[1.5]", "{1,2,3}[1.0]",
    "{1,2,3}[true]", '{1,2,3}["1"]', "{1,2,3}[undefined]", "{1,2,3}[error]", "{1,2,3}[9223372036854775807]",
    "{}[0]", "{x}[0]", "{1,{2,3}}[1][0]", "{1,{2,3}}[1][5]", "{1/0}[0]", "{1, 1/0}[0]", "{[a=1]}[0].a",
    "{1,2}.a", "{[a=1],[a=2]}.a", "{[a=1],[b=2]}.a", "{[a=1],3}.a", "{[a=1],{[a=5]}}.a", "{}.a", "{[a=1]}.A",
    "[a=1].a", "[a=1].A", "[a=1].b", "[a=1][\"a\"]", "[a=1][\"A\"]", "[a=1][\"b\"]", "[a=1][0]", "[a=1][a]",
    '[a=1]["a"] + 1', '"abc"[0]', "3[0]", "undefined[0]", "error[0]", "undefined.a", "error.a", "3.a", "3 .a",
    '"s".a', "true.a", "[a=[b=2]].a.b", "[a=[b=2]].a.c", "[a=[b=2]][\"a\"][\"b\"]", "[a=[b=2]].a[\"b\"]",
    "[a={1,2}].a[1]", "[a={[b=1],[b=2]}].a.b", "[a={[b=1],[b=2]}].a[1].b", "{[a={1,2}],[a={3}]}.a",
    "{[a={1,2}],[a={3}]}.a[1]", "([a=1]).a", "[a=1].a.b", "[a=1;b=[c=a]].b.c", "[a=1;b=[a=2;c=a]].b.c",
    "[a=1;b=[c=parent.a]].b.c", "[a=1;b=[a=2;c=parent.a]].b.c", "[a=1;b=[c=[d=a]]].b.c.d",
    "[a=1;b=[c=root.a]].b.c", "[a=1;b=[c=toplevel.a]].b.c", "[a=1;b=[c=self.a;a=3]].b.c",
    "[a=1;b=[c=.a;a=3]].b.c", "[a=1;b=.a].b", "[a=1;b=self.a].b", "[a=1;b=MY.a].b", "[a=1;b=my.a].b",
    "[a=1;b=TARGET.a].b", "[a=1;b=other.a].b", "[a=1;b=[c=MY.a;a=3]].b.c", "[a=1;b=[c=super.a]].b.c",
    "[a=b;b=a].a", "[a=b;b=a].b", "[a=a].a", "[a=a+1].a", "[a={a}].a", "[a={a}].a[0]", "[a=[b=a]].a.b",
    "[a=b+1;b=c+1;c=a+1].a", "[a=1;b=a;c=b;d=c].d", "[A=1;b=a].b", "[a=1].self", "[a=1].self.a",
    "[a=1; b=self].b.a", "[a=1; b=self].b.b.a", "[a=1;b=[c=1]].b.parent.a", "[a=1;b=[c=1]].b.root",
    "[x=1;y=[x=2;z=[w=x]]].y.z.w", "[x=1;y=[z=[w=x]]].y.z.w", "[x=1;y=[x=undefined;z=[w=x]]].y.z.w",
    "[a=1;'b c'=2]['b c']", "[a=1;'b c'=2].'b c'", "['if'=5].'if'", "[is=1]", "[isnt=1]", "['is'=1].'is'",
    "[true=1]", "['true'=1].'true'", "['undefined'=1].'undefined'", "[error=1]", "[self=1]", "[parent=1]",
    "['self'=1].self", "['parent'=2].parent", "[my=1].my", "[target=1].target", "[other=1].other",
    "[root=1].root", "['my'=1].'my'", "[MY=1;b=MY].b", "[my=\"x\"; a=2; b=MY.a].b", "[a=2; b=MY.a].b", "[a=2; b=[c=MY.a]].b.c", "[a=1;b=[a=2;c=MY.a]].b.c", "[a=1;b=[a=2;c=root.a]].b.c",
    "[a=1;b={a}].b", "[a=1;b={a}].b[0]", "[a=1;b={[c=a]}].b[0].c", "[a=1;b={[c=a]}].b.c",
    "{[a=1;b=a+1]}.b", "[l={1,2,3};n=size(l)].n", "[f=function;g=f(1)].g", "[a=1;b=eval(\"a\")].b",
    "[a=1;b=eval(\"a+1\")].b", "[a=1;b=[c=eval(\"a\")]].b.c")

# ---------------------------------------------------------------- functions
# Arguments used for single-argument functions.
ARGS1 = VALS + ["1", "-1", "1.5", "-1.5", "2.5", "-2.5", "3.5", "0.5", "1e30", "-1e30", "9223372036854775807",
                "-9223372036854775807 - 1", "1e19", "-1e19", 'real("NaN")', 'real("INF")', 'real("-INF")', "-0.0",
                '"12abc"', '"  12"', '"12  "', '"0x10"', '"010"', '"1e5"', '"1.5"', '"-3.5"', '"12.7"', '"true"',
                '"FALSE"', '"  "', '"+5"', '"1,000"', '"inf"', '"nan"', '"9223372036854775808"', '"1e400"',
                '"Hello World"', '"ÀÉ"', "x", "{}", "[]", "{1,2,3}", "{undefined}", "[a=1;b=2]",
                'absTime("2003-09-03T")', "relTime(-90)", "relTime(100000)"]
FUNCS1 = ["isUndefined", "isError", "isString", "isInteger", "isReal", "isList", "isClassAd", "isBoolean",
          "isAbstime", "isReltime", "int", "real", "string", "bool", "floor", "ceiling", "ceil", "round",
          "toUpper", "toLower", "size", "absTime", "relTime", "interval", "splitTime", "formatTime", "eval",
          "debug", "unparse", "unresolved", "random", "sum", "avg", "min", "max", "getYear", "getMonth",
          "getDayOfYear", "getDayOfMonth", "getDayOfWeek", "getDays", "getHours", "getMinutes", "getSeconds",
          "dayTime", "currentTime", "timeZoneOffset", "time", "strcat", "join", "split", "splitUserName",
          "splitSlotName", "stringListSize", "stringListSum", "stringListAvg", "stringListMin", "stringListMax",
          "envV1ToV2", "argsToList", "listToArgs"]
TIME_FUNCS = {"splitTime", "formatTime", "absTime", "relTime", "interval", "getYear", "getMonth", "getDayOfYear",
              "getDayOfMonth", "getDayOfWeek", "getDays", "getHours", "getMinutes", "getSeconds"}
HUGE = {"1e30", "-1e30", "9223372036854775807", "-9223372036854775807 - 1", "1e19", "-1e19", 'real("INF")',
        'real("-INF")', 'real("NaN")', '"9223372036854775808"', '"1e400"'}
section("functions-1arg", mode="compat",
        note="every single-argument use, every argument type; compat = htcondor2 imported (compat functions registered), strict semantics")
for fn in FUNCS1:
    if fn in TIME_FUNCS:
        # huge times make HTCondor's gmtime/strftime path read garbage (nondeterministic): skipped
        args = [a for a in ARGS1 if a not in HUGE]
    elif fn == "random":
        args = ["undefined", "error", "true", "0", "1", "-1", "0.0", '"abc"', "{1,2}", "[a=1]", "x", "1e-300"]
    else:
        args = ARGS1
    for a in args:
        add(f"{fn}({a})")
section("functions-arity", mode="compat", note="argument count errors (0, 1, 2, 4 args) and case-insensitive names")
ALLF = ["isUndefined", "isError", "isString", "isInteger", "isReal", "isList", "isClassAd", "isBoolean",
        "isAbstime", "isReltime", "member", "identicalMember", "size", "sum", "avg", "min", "max", "anyCompare",
        "allCompare", "time", "currentTime", "timeZoneOffset", "dayTime", "getYear", "getMonth", "getDayOfYear",
        "getDayOfMonth", "getDayOfWeek", "getDays", "getHours", "getMinutes", "getSeconds", "splitTime",
        "formatTime", "strcat", "join", "toUpper", "toLower", "substr", "strcmp", "stricmp", "versioncmp",
        "versionLE", "versionLT", "versionGE", "versionGT", "versionEQ", "version_in_range", "regexp",
        "regexpMember", "regexps", "replace", "replaceAll", "int", "real", "string", "bool", "absTime", "relTime",
        "unparse", "unresolved", "floor", "ceil", "ceiling", "round", "pow", "quantize", "random", "ifThenElse",
        "interval", "eval", "stringListsIntersect", "debug", "envV1ToV2", "mergeEnvironment", "listToArgs",
        "argsToList", "stringListSize", "stringListSum", "stringListAvg", "stringListMin", "stringListMax",
        "stringListMember", "stringListIMember", "stringListSubsetMatch", "stringListISubsetMatch",
        "stringList_regexpMember", "userHome", "userMap", "splitUserName", "splitSlotName", "split",
        "evalInEachContext", "countMatches", "log", "sprintf", "noSuchFunction"]
for fn in ALLF:
    add(f"{fn}()", f'{fn}(1, 2)', f'{fn}("a", "b", "c", "d")', f"{fn.upper()}(1)", f"{fn.lower()}()")
add("isundefined(x)", "ISUNDEFINED(x)", "IsUndefined(x)", "STRCAT(1,2)", "StrCat(1,2)")

section("functions", mode="compat", note="multi-argument and special cases")
add(  # membership
    "member(1, {1,2})", "member(3, {1,2})", "member(1.0, {1,2})", 'member("A", {"a","b"})', 'member("a", {"A"})',
    "member(undefined, {1})", "member(error, {1})", "member(1, undefined)", "member(1, error)", "member(1, 1)",
    "member({1}, {{1}})", "member([a=1], {[a=1]})", "member(1, {undefined, 1})", "member(1, {x, 1})",
    "member(1, {error, 1})", "member(2, {1, error})", "member(true, {1})", "member(1, {true})", "member(1, {})",
    "member(x, {1})", 'member("1", {1})', "member(1, {\"1\"})", "member(1, [a=1])",
    "identicalMember(1, {1,2})", "identicalMember(1.0, {1,2})", 'identicalMember("A", {"a"})',
    'identicalMember("a", {"a"})', "identicalMember(undefined, {undefined})", "identicalMember(error, {error})",
    "identicalMember(1, {undefined, 1})", "identicalMember(true, {1})", "identicalMember(x, {1})",
    "identicalMember(1, undefined)", "identicalMember({1}, {{1}})",
    # list aggregation
    "sum({})", "sum({1,2,3})", "sum({1,2.5})", "sum({1,undefined})", "sum({undefined})", "sum({undefined,undefined})",
    "sum({1,error})", 'sum({1,"a"})', "sum({true,1})", "sum({true})", "sum({1,{2}})", "sum(undefined)", "sum(1)",
    "sum({9223372036854775807,1})", "sum({x,1})", "sum({1}, {2})", "sum({-0.0})", "sum({0.1,0.2})",
    "avg({})", "avg({1,2})", "avg({1,2,4})", "avg({1,2.5})", "avg({undefined})", "avg({1,undefined,3})",
    "avg({1,error})", 'avg({"a"})', "avg({true,false})", "avg(undefined)", "avg({1})",
    "min({})", "min({3,1,2})", "min({3,1.5})", "min({1,1.0})", "min({1.0,1})", "min({undefined})",
    "min({2,undefined,1})", "min({1,error})", 'min({1,"a"})', 'min({"b","a"})', "min({true,2})", "min(undefined)",
    "min({-0.0, 0.0})", "min({0.0, -0.0})",
    "max({})", "max({3,1,2})", "max({3,1.5})", "max({3.0,3})", "max({undefined})", "max({2,undefined,1})",
    "max({1,error})", 'max({1,"a"})', "max({true,false})", "max(undefined)",
    'anyCompare("<", {1,2,3}, 2)', 'anyCompare("<", {5,6}, 2)', 'anyCompare("==", {1,2}, 2)',
    'anyCompare("!=", {2,2}, 2)', 'anyCompare("is", {2,2.0}, 2.0)', 'anyCompare("isnt", {2}, 2)',
    'anyCompare("=?=", {2}, 2)', 'anyCompare("=!=", {2}, 2)', 'anyCompare(">=", {1}, 1)', 'anyCompare("<=", {1}, 1)',
    'anyCompare(">", {1}, 0)', 'anyCompare("+", {1}, 0)', 'anyCompare("LT", {1}, 2)', 'anyCompare("<", {}, 2)',
    'anyCompare("<", {undefined}, 2)', 'anyCompare("<", {undefined, 1}, 2)', 'anyCompare("<", {error}, 2)',
    'anyCompare("<", 1, 2)', 'anyCompare("<", {1}, undefined)', 'anyCompare("==", {"A"}, "a")',
    'anyCompare("is", {"A"}, "a")', 'anyCompare("<", {1}, {2})', 'anyCompare(undefined, {1}, 2)', 'anyCompare(1, {1}, 2)',
    'allCompare("<", {1,2,3}, 4)', 'allCompare("<", {1,2,3}, 2)', 'allCompare("<", {}, 2)',
    'allCompare("<", {undefined}, 2)', 'allCompare("<", {1, undefined}, 2)', 'allCompare("==", {2, 2.0}, 2)',
    'allCompare("is", {2, 2.0}, 2)', 'allCompare("isnt", {1, 3}, 2)', 'allCompare("<", {error}, 2)',
    'allCompare("<", 1, 2)', 'allCompare("==", {"A","a"}, "a")', 'allCompare("!=", {1}, 2)', 'allCompare("foo", {1}, 2)',
    # strings
    'strcat()', 'strcat("a")', 'strcat("a", "b", "c")', 'strcat("a", 1, 2.5, true, false)', 'strcat("a", undefined)',
    'strcat("a", error)', 'strcat("a", {1,2})', 'strcat("a", [a=1])', 'strcat(1)', 'strcat(1.0)', 'strcat(0.1)',
    'strcat(1e100)', 'strcat(-0.0)', 'strcat(absTime(0))', 'strcat(relTime(90))', 'strcat(x)', 'strcat("", "")',
    'strcat(real("NaN"))', 'strcat(real("INF"))', 'strcat(123456789012)', 'strcat(1.5e-7)', 'strcat(100.0)',
    'join()', 'join(",")', 'join(",", "a")', 'join(", ", "a", "b", "c")', 'join(",", {"a","b"})', 'join({"a","b"})',
    'join(",", {})', 'join({})', 'join(",", {1, 2.5, true})', 'join(",", "a", undefined, "b")', 'join(",", {"a", undefined})',
    'join(undefined, "a", "b")', 'join(1, "a", "b")', 'join(",", "a", error)', 'join(",", {1}, {2})',
    'join(",", "a", {1,2})', 'join(", ", split("a b c"))', 'join(split("a b c"))', 'join(";", split("a b c"))',
    'join("", "a", "b")', 'join(",", [a=1])', 'join(",", x)',
    'toUpper("aBc1é")', 'toLower("AbC1É")', 'toUpper(1.5)', 'toLower({1})',
    'substr("abcdef", 0)', 'substr("abcdef", 2)', 'substr("abcdef", 2, 2)', 'substr("abcdef", -2)',
    'substr("abcdef", -2, 1)', 'substr("abcdef", 2, -1)', 'substr("abcdef", 2, -10)', 'substr("abcdef", 10)',
    'substr("abcdef", -10)', 'substr("abcdef", -10, 3)', 'substr("abcdef", 0, 0)', 'substr("abcdef", 0, 100)',
    'substr("abcdef", 6)', 'substr("abcdef", 5, 1)', 'substr("", 0)', 'substr("abcdef", 1.5)', 'substr("abcdef", 1, 2.9)',
    'substr("abcdef", "1")', 'substr("abcdef", true)', 'substr(123456, 2)', 'substr(undefined, 1)', 'substr("abc", undefined)',
    'substr("abc", 1, undefined)', 'substr(error, 1)', 'substr("abc", error)', 'substr("abc")', 'substr("abc", 1, 2, 3)',
    'substr("héllo", 1, 2)', 'substr({1,2,3}, 1)',
    'strcmp("a", "b")', 'strcmp("b", "a")', 'strcmp("a", "a")', 'strcmp("a", "A")', 'strcmp("A", "a")',
    'strcmp("abc", "ab")', 'strcmp("", "a")', 'strcmp(1, "1")', 'strcmp(10, 9)', 'strcmp(1.5, "1.5")',
    'strcmp(undefined, "a")', 'strcmp("a", error)', 'strcmp(true, "true")', 'strcmp({1}, "a")',
    'stricmp("a", "A")', 'stricmp("abc", "ABD")', 'stricmp("B", "a")', 'stricmp(undefined, "a")', 'stricmp(1, 1)',
    'versioncmp("1.2", "1.10")', 'versioncmp("1.10", "1.2")', 'versioncmp("7.x", "7.y")', 'versioncmp("7.9", "7.10")',
    'versioncmp("000", "00")', 'versioncmp("00", "01")', 'versioncmp("01", "010")', 'versioncmp("010", "09")',
    'versioncmp("09", "0")', 'versioncmp("0", "1")', 'versioncmp("9", "10")', 'versioncmp("a", "a")',
    'versioncmp("8.9.1", "8.10.0")', 'versioncmp("A", "a")', 'versioncmp(undefined, "1")', 'versioncmp(1, 2)',
    'versioncmp("", "1")', 'versionGT("1.10", "1.9")', 'versionLT("1.10", "1.9")', 'versionGE("1.0", "1.0")',
    'versionLE("1.0", "1.0")', 'versionEQ("1.0", "1.0")', 'versionEQ("1.0", "1.00")', 'versionEQ(undefined, "1")',
    'versionGT(undefined, "1")', 'version_in_range("1.5", "1.0", "2.0")', 'version_in_range("2.5", "1.0", "2.0")',
    'version_in_range("1.0", "1.0", "1.0")', 'version_in_range(undefined, "1", "2")', 'version_in_range("1.5", "1.0")',
    # regex
    'regexp("a.c", "abc")', 'regexp("a.c", "xabcx")', 'regexp("^a.c$", "xabcx")', 'regexp("A", "a")',
    'regexp("A", "a", "i")', 'regexp("A", "a", "I")', 'regexp("^b", "a\\nb")', 'regexp("^b", "a\\nb", "m")',
    'regexp("a.b", "a\\nb")', 'regexp("a.b", "a\\nb", "s")', 'regexp("a b c", "abc", "x")', 'regexp("a", "a", "z")',
    'regexp("a", "a", "")', 'regexp("(", "a")', 'regexp("[", "a")', 'regexp("", "a")', 'regexp("a", "")',
    'regexp(undefined, "a")', 'regexp("a", undefined)', 'regexp("a", error)', 'regexp(1, "1")', 'regexp("1", 1)',
    'regexp("a", "a", undefined)', 'regexp("a", "a", 1)', 'regexp("\\\\d+", "abc123")', 'regexp("\\\\w+$", "a b")',
    'regexp("é", "café")', 'regexp(".*\\\\.edu", "x.edu")', 'regexp("a{2}", "aa")', 'regexp("(?i)A", "a")',
    'regexp("a|b", "b")', 'regexp("^$", "")', 'regexp("a", "A", "fg")',
    'regexpMember("a.c", {"abc", "x"})', 'regexpMember("a.c", {"x", "y"})', 'regexpMember("a.c", {})',
    'regexpMember("a.c", {undefined, "abc"})', 'regexpMember("a.c", {undefined, "x"})', 'regexpMember("a.c", {1, "abc"})',
    'regexpMember("a.c", {"abc", 1})', 'regexpMember("A", {"a"}, "i")', 'regexpMember("a", "a")',
    'regexpMember("(", {"a"})', 'regexpMember(undefined, {"a"})', 'regexpMember("a", undefined)', 'regexpMember("a", {error})',
    'regexps("a(.)c", "xabcx", "[\\\\1]")', 'regexps("a(.)c", "xabcx", "[\\\\1]", "f")', 'regexps("a", "banana", "o")',
    'regexps("a", "banana", "o", "g")', 'regexps("a", "banana", "o", "fg")', 'regexps("A", "banana", "o", "ifg")',
    'regexps("z", "banana", "o")', 'regexps("z", "banana", "o", "f")', 'regexps("(a)(n)", "banana", "\\\\2\\\\1")',
    'regexps("(a)(n)", "banana", "\\\\2\\\\1", "fg")', 'regexps("a", "banana", "\\\\0")', 'regexps("a", "banana", "\\\\9")',
    'regexps("(", "a", "b")', 'regexps(undefined, "a", "b")', 'regexps("a", undefined, "b")', 'regexps("a", "a", undefined)',
    'regexps("a", "a", 1)', 'regexps("a", "a")', 'regexps("", "abc", "-", "g")', 'regexps("", "abc", "-", "fg")',
    'regexps("b*", "abc", "-", "fg")', 'regexps("a", "a", "\\\\\\\\")',
    'replace("a", "banana", "o")', 'replace("z", "banana", "o")', 'replace("(an)", "banana", "<\\\\1>")',
    'replace("A", "banana", "o", "i")', 'replace("a", "banana", "o", "g")', 'replace("(", "a", "b")',
    'replace(undefined, "a", "b")', 'replace("a", "a")',
    'replaceAll("a", "banana", "o")', 'replaceAll("z", "banana", "o")', 'replaceAll("(an)", "banana", "<\\\\1>")',
    'replaceAll("A", "banana", "o", "i")', 'replaceAll("", "ab", "-")', 'replaceAll("(", "a", "b")',
    'replaceall("a", "banana", "o")', 'REPLACEALL("a", "banana", "o")',
    # conversions
    'int("12abc")', 'int("abc")', 'int("")', 'int(" 12")', 'int("12 ")', 'int("-12")', 'int("+12")', 'int("1.9")',
    'int("-1.9")', 'int("1e3")', 'int("0x1A")', 'int("077")', 'int(1.9)', 'int(-1.9)', 'int(1e30)', 'int(-1e30)',
    'int(real("NaN"))', 'int(real("INF"))', 'int(true)', 'int(false)', 'int(absTime(5))', 'int(relTime(5))',
    'int(relTime(1.5))', 'int("9223372036854775807")', 'int("9223372036854775808")', 'int("-9223372036854775809")',
    'real("1e5")', 'real("1.5")', 'real("abc")', 'real("")', 'real(" 1.5")', 'real("1.5x")', 'real("INF")',
    'real("-INF")', 'real("inf")', 'real("Infinity")', 'real("NaN")', 'real("nan")', 'real("-NaN")', 'real("0x10")',
    'real("1e400")', 'real("-1e400")', 'real("1e-400")', 'real(1)', 'real(true)', 'real(absTime(5))',
    'real(relTime(5))', 'real(relTime(1.5))', 'real("1,5")', 'real(".5")', 'real("5.")', 'real("+.5e1")',
    'string(1.0)', 'string(1e100)', 'string(0.1)', 'string(-0.0)', 'string(0.0)', 'string(1.5)', 'string(100.0)',
    'string(1e15)', 'string(1e16)', 'string(123456789.123456789)', 'string(1/3.0)', 'string(2.0/3)',
    'string(real("NaN"))', 'string(real("INF"))', 'string(real("-INF"))', 'string(1e-5)', 'string(1e-4)',
    'string(12345)', 'string(-12345)', 'string(true)', 'string(false)', 'string("a\\"b")', 'string({1,"a"})',
    'string([a=1;b="x"])', 'string(absTime(0))', 'string(absTime(1704164645))', 'string(absTime("2003-09-03T"))',
    'string(relTime(90))', 'string(relTime(0))', 'string(relTime(-90))', 'string(relTime(1.5))', 'string(x)',
    'string(undefined)', 'string(error)', 'string(9223372036854775807)', 'string(-9223372036854775807 - 1)',
    'bool("true")', 'bool("TRUE")', 'bool("True")', 'bool("false")', 'bool("yes")', 'bool("1")', 'bool("0")',
    'bool("")', 'bool(" true")', 'bool(1)', 'bool(0)', 'bool(2)', 'bool(-1)', 'bool(0.0)', 'bool(0.5)',
    'bool(real("NaN"))', 'bool({})', 'bool([])', 'bool(undefined)', 'bool(error)', 'bool(absTime(0))', 'bool(relTime(0))',
    # math
    'floor(1.5)', 'floor(-1.5)', 'floor(1)', 'floor("1.5")', 'floor("abc")', 'floor(1e30)', 'floor(-1e30)',
    'floor(9.2e18)', 'floor(9.3e18)', 'floor(real("NaN"))', 'floor(real("INF"))', 'floor(true)', 'floor(undefined)',
    'ceiling(1.5)', 'ceiling(-1.5)', 'ceiling(1)', 'ceiling(1e30)', 'ceiling(real("INF"))', 'ceil(0.1)',
    'round(0.5)', 'round(1.5)', 'round(2.5)', 'round(-0.5)', 'round(-1.5)', 'round(-2.5)', 'round(2.4)', 'round(2.6)',
    'round(1e30)', 'round(-1e30)', 'round(3e9)', 'round(-3e9)', 'round(2147483647.0)', 'round(2147483648.0)',
    'round(real("NaN"))', 'round(real("INF"))', 'round("2.5")', 'round(7)', 'round(true)',
    'pow(2, 10)', 'pow(2, 0)', 'pow(0, 0)', 'pow(0.0, 0)', 'pow(2, -1)', 'pow(-2, 3)', 'pow(-2, -3)', 'pow(2, 0.5)',
    'pow(2.0, 2)', 'pow(4, 0.5)', 'pow(-8, 1.0/3)', 'pow(2, 62)', 'pow(2, 63)', 'pow(2, 64)', 'pow(3, 40)',
    'pow(10, 18)', 'pow(10, 19)', 'pow(0, -1)', 'pow(0.0, -1)', 'pow(2, 1024)', 'pow(2.0, 1024)', 'pow(1, 1e10)',
    'pow(2, true)', 'pow(true, 2)', 'pow("2", 2)', 'pow(2, "2")', 'pow(undefined, 2)', 'pow(2, undefined)',
    'pow(error, 2)', 'pow(2)', 'pow(2, 2, 2)', 'pow(-1, 0.5)', 'pow(2, 0.0)', 'pow(0, 0.0)', 'pow(2, -0)',
    'quantize(3, 8)', 'quantize(3, 2)', 'quantize(0, 4)', 'quantize(1.5, 6.8)', 'quantize(6.8, 1.2)',
    'quantize(10, 5.1)', 'quantize(0, {4})', 'quantize(2, {1, 2, "A"})', 'quantize(3, {1, 2, 0.5})',
    'quantize(2.7, {1, 2, 0.5})', 'quantize(3, {1, 2, "A"})', 'quantize(3, 0)', 'quantize(3, 0.0)', 'quantize(-3, 2)',
    'quantize(3, -2)', 'quantize(4, 2)', 'quantize(4.0, 2)', 'quantize(4, 2.0)', 'quantize(3, {})', 'quantize(3, {5, 1})',
    'quantize(10, {1, 2, 3})', 'quantize(10, {1, 2, 3.0})', 'quantize("3", 2)', 'quantize(3, "2")',
    'quantize(undefined, 2)', 'quantize(3, undefined)', 'quantize(3)', 'quantize(true, 2)', 'quantize(3, {undefined})',
    'quantize(2.5, 1)', 'quantize(1e30, 7)',
    'random(1)', 'random(0)', 'random(-1)', 'random(1, 2)', 'isInteger(random(10))', 'isReal(random(1.0))',
    'isReal(random())', 'random(10) >= 0 && random(10) < 10', 'random(2.5) >= 0.0 && random(2.5) < 2.5',
    # control
    'ifThenElse(true, 1, 2)', 'ifThenElse(false, 1, 2)', 'ifThenElse(undefined, 1, 2)', 'ifThenElse(error, 1, 2)',
    'ifThenElse(1, "a", "b")', 'ifThenElse(0, "a", "b")', 'ifThenElse(0.0, "a", "b")', 'ifThenElse(0.1, "a", "b")',
    'ifThenElse("true", 1, 2)', 'ifThenElse({}, 1, 2)', 'ifThenElse(true, 1, 1/0)', 'ifThenElse(false, error, 2)',
    'ifThenElse(true, x, 2)', 'ifThenElse(true, 1)', 'ifThenElse(true, 1, 2, 3)', 'ifThenElse(x, 1, 2)',
    'ifThenElse(real("NaN"), 1, 2)', 'ifThenElse(-0.0, 1, 2)',
    'eval("1 + 2")', 'eval("x")', 'eval("1 +")', 'eval("")', 'eval(1)', 'eval(1.5)', 'eval(true)', 'eval(undefined)',
    'eval(error)', 'eval("{1,2}")', 'eval("[a=1]")', 'eval("[a=1].a")', 'eval("eval(\\"2\\")")', 'eval("\\"abc\\"")',
    'eval(strcat("1", "+", "1"))', 'eval("time()")', 'eval({1})', 'eval("1 2")', 'eval("1;2")', 'eval("a = 1")',
    'unparse(x)', 'unparse(1 + 2)', 'unparse("a")', 'unparse(1)', 'unparse([a=1].a)', 'unparse(undefined)',
    'unresolved(x)', 'unresolved(x, "x")', 'unresolved(1)', 'unresolved(x + y)',
    'debug(1 + 2)', 'debug(x)', 'debug(error)',
    # time
    'time()', 'time(1)', 'currentTime()', 'currentTime(1)', 'timeZoneOffset()', 'dayTime()', 'absTime()',
    'absTime(0)', 'absTime(0, 0)', 'absTime(0, 3600)', 'absTime(0, -3600)', 'absTime(0, 1800)', 'absTime(0, 86400*2)',
    'absTime(1704164645)', 'absTime(1704164645.5)', 'absTime(1704164645, 3600)', 'absTime(-1)', 'absTime(1e20)',
    'absTime(-1e20)', 'absTime("2024-01-02T03:04:05")', 'absTime("2024-01-02T03:04:05Z")',
    'absTime("2024-01-02T03:04:05+01:00")', 'absTime("2024-01-02T03:04:05-0130")', 'absTime("2024-01-02T03:04:05+0100")',
    'absTime("2024-01-02 03:04:05")', 'absTime("2024-01-02")', 'absTime("2024-01-02T")', 'absTime("2024-01-02T03:04")',
    'absTime("20240102T030405")', 'absTime("2024-13-02T03:04:05")', 'absTime("2024-02-30T03:04:05")',
    'absTime("2024-01-02T25:04:05")', 'absTime("abc")', 'absTime("")', 'absTime("1704164645")',
    'absTime("2024-01-02T03:04:05.5")', 'absTime("1969-12-31T23:59:59Z")', 'absTime("2003-09-03T")',
    'absTime("2024-01-02T03:04:05", 3600)', 'absTime(undefined)', 'absTime(error)', 'absTime(true)', 'absTime({1})',
    'absTime(absTime(0))', 'absTime(relTime(5))', 'absTime(0, "3600")', 'absTime(0, undefined)',
    'relTime()', 'relTime(0)', 'relTime(1)', 'relTime(59)', 'relTime(60)', 'relTime(3600)', 'relTime(86400)',
    'relTime(86399)', 'relTime(90061)', 'relTime(-1)', 'relTime(-90061)', 'relTime(1.5)', 'relTime(0.001)',
    'relTime(-0.5)', 'relTime(1e10)', 'relTime(1e20)', 'relTime("1:30")', 'relTime("01:30")', 'relTime("1:00:00")',
    'relTime("1+00:00:00")', 'relTime("2+25:14:16.123")', 'relTime("2+01:14:16.123")', 'relTime("2+01:14:16")',
    'relTime("90")', 'relTime("1.5")', 'relTime("-1:30")', 'relTime("-1+00:00:01")', 'relTime("1d")', 'relTime("5s")',
    'relTime("1h")', 'relTime("1:2:3:4")', 'relTime("abc")', 'relTime("")', 'relTime("+1:30")', 'relTime("1:60")',
    'relTime("1:5")', 'relTime(undefined)', 'relTime(error)', 'relTime(true)', 'relTime(absTime(5))',
    'relTime(relTime(5))', 'relTime(1, 2)', 'isReltime(relTime("1:30"))', 'isReal(relTime("1:30"))',
    'isReltime(relTime(90))', 'isAbstime(absTime("2003-09-03T"))', 'isAbstime(absTime(0))',
    'splitTime(absTime(0))', 'splitTime(absTime(1704164645))', 'splitTime(absTime(1704164645, 3600))',
    'splitTime(relTime(90061))', 'splitTime(relTime(-90061))', 'splitTime(relTime(1.5))', 'splitTime(1704164645)',
    'splitTime(90)', 'splitTime(1.5)', 'splitTime("abc")', 'splitTime(undefined)', 'splitTime()', 'splitTime(absTime(0), 1)',
    'splitTime(absTime(1704164645)).Year', 'splitTime(absTime(1704164645)).Offset', 'splitTime(relTime(90061)).Days',
    'formatTime()', 'formatTime(0)', 'formatTime(1704164645)', 'formatTime(1704164645, "%c")',
    'formatTime(1704164645, "%Y-%m-%d %H:%M:%S")', 'formatTime(1704164645, "%a %A %b %B")',
    'formatTime(1704164645, "%d %e %H %I %j %m %M %p %S")', 'formatTime(1704164645, "%U %w %W %x %X %y %Y %Z")',
    'formatTime(1704164645, "%z %s %n %t %%")', 'formatTime(1704164645, "%C %D %F %g %G %h %k %l %r %R %T %u %V")',
    'formatTime(1704164645, "%E %O %Q %q %i %J")', 'formatTime(1704164645, "%")', 'formatTime(1704164645, "")',
    'formatTime(1704164645, "plain")', 'formatTime(1704164645, "%%Y")', 'formatTime(absTime(1704164645))',
    'formatTime(absTime(1704164645, 3600), "%H:%M %z")', 'formatTime(absTime("2024-01-02T03:04:05+01:00"), "%H")',
    'formatTime(1704164645.9, "%S")', 'formatTime(-1, "%Y")', 'formatTime(1e20, "%Y")', 'formatTime("abc")',
    'formatTime(undefined)', 'formatTime(1704164645, undefined)', 'formatTime(1704164645, 1)', 'formatTime(relTime(5))',
    'formatTime(true)', 'formatTime(1704164645, "%Y", 1)', 'formatTime("%Y")',
    'interval(0)', 'interval(1)', 'interval(59)', 'interval(60)', 'interval(67)', 'interval(3600)', 'interval(3661)',
    'interval(86400)', 'interval(1472523)', 'interval(-1)', 'interval(-67)', 'interval(1.5)', 'interval(59.9)',
    'interval(relTime(90))', 'interval("67")', 'interval(undefined)', 'interval(true)', 'interval(1e15)',
    'getYear(absTime(1704164645))', 'getMonth(absTime(1704164645))', 'getDayOfYear(absTime(1704164645))',
    'getDayOfMonth(absTime(1704164645))', 'getDayOfWeek(absTime(1704164645))', 'getHours(absTime(1704164645))',
    'getMinutes(absTime(1704164645))', 'getSeconds(absTime(1704164645))', 'getDays(relTime(90061))',
    'getHours(relTime(90061))', 'getMinutes(relTime(90061))', 'getSeconds(relTime(90061))', 'getYear(relTime(5))',
    'getDays(absTime(5))', 'getYear(1704164645)', 'getHours(absTime(1704164645, 3600))', 'getSeconds(relTime(1.5))',
    # string lists (compat functions)
    'stringListSize("a,b,c")', 'stringListSize("a, b, c")', 'stringListSize("")', 'stringListSize(",,")',
    'stringListSize("a;b", ";")', 'stringListSize("a b  c")', 'stringListSize(undefined)', 'stringListSize(1)',
    'stringListSize("a,b", 1)', 'stringListSize({"a"})',
    'stringListSum("1,2,3")', 'stringListSum("1,2.5")', 'stringListSum("")', 'stringListSum("1,a")', 'stringListSum("1;2", ";")',
    'stringListSum("1e2,1")', 'stringListSum("-1,+2")', 'stringListAvg("1,2")', 'stringListAvg("1,2,4")', 'stringListAvg("")',
    'stringListAvg("a")', 'stringListMin("3,1,2")', 'stringListMin("3,1.5")', 'stringListMin("")', 'stringListMin("a")',
    'stringListMax("3,1,2")', 'stringListMax("-3,-1")', 'stringListMax("")', 'stringListMax("1.5,1")',
    'stringListMember("a", "a,b")', 'stringListMember("A", "a,b")', 'stringListMember("c", "a,b")',
    'stringListMember("a", "")', 'stringListMember("a b", "a b,c")', 'stringListMember("b", "a;b", ";")',
    'stringListMember(undefined, "a")', 'stringListMember("a", undefined)', 'stringListMember(1, "1,2")',
    'stringListIMember("A", "a,b")', 'stringListIMember("c", "a,b")', 'stringListIMember(undefined, "a")',
    'stringListSubsetMatch("a", "a,b")', 'stringListSubsetMatch("a,c", "a,b")', 'stringListSubsetMatch("", "a,b")',
    'stringListSubsetMatch(undefined, "a")', 'stringListSubsetMatch("a", undefined)', 'stringListSubsetMatch(undefined, undefined)',
    'stringListSubsetMatch("A", "a")', 'stringListISubsetMatch("A", "a")', 'stringListSubsetMatch("a,a", "a")',
    'stringListSubsetMatch(1, "a")', 'stringListSubsetMatch("a;b", "a;b;c", ";")',
    'stringListsIntersect("a,b", "b,c")', 'stringListsIntersect("a,b", "c,d")', 'stringListsIntersect("", "a")',
    'stringListsIntersect("A", "a")', 'stringListsIntersect("a;b", "b", ";")', 'stringListsIntersect(undefined, "a")',
    'stringListsIntersect("a", undefined)', 'stringListsIntersect(1, "1")', 'stringListsIntersect("a")',
    'stringList_regexpMember("a.c", "abc,x")', 'stringList_regexpMember("a.c", "x,y")', 'stringList_regexpMember("a.c", "")',
    'stringList_regexpMember("A", "a", ",", "i")', 'stringList_regexpMember("A", "a")', 'stringList_regexpMember("(", "a")',
    'stringList_regexpMember("b", "a;b", ";")', 'stringList_regexpMember(undefined, "a")', 'stringList_regexpMember("a", 1)',
    'split("a b c")', 'split("a,b,c")', 'split("a, b ,c")', 'split("a,,b")', 'split("a,,b", ",")', 'split(",a,")',
    'split("  a  ")', 'split("")', 'split("a:b:c", ":")', 'split("a:b c", ":")', 'split("abc", "")', 'split("a\\tb")',
    'split(undefined)', 'split(1)', 'split("a b", undefined)', 'split("a b", 1)', 'split("a::b", ":")', 'split("a, ,b")',
    'splitUserName("user@domain")', 'splitUserName("user")', 'splitUserName("a@b@c")', 'splitUserName("@b")',
    'splitUserName("")', 'splitUserName(undefined)', 'splitUserName(1)',
    'splitSlotName("slot1@machine")', 'splitSlotName("machine")', 'splitSlotName("slot1_1@m@x")', 'splitSlotName("")',
    'splitSlotName(undefined)',
    'countMatches(x > 1, {[x=2], [x=1]})', 'countMatches(x > 1, {[x=2], undefined})', 'countMatches(x > 1, undefined)',
    'countMatches(x > 1, {})', 'countMatches(x, {[x=1], [x=true], [x=2.5]})', 'countMatches(x > 1, [x=2])',
    'countMatches(x > 1, {1, 2})', 'countMatches(undefined, {[x=1]})', 'countMatches(x > 1)',
    'evalInEachContext(x > 1, {[x=2], [x=1]})', 'evalInEachContext(x, {[x=3], [x=1]})',
    'evalInEachContext(x > 1, {[x=3], undefined})', 'evalInEachContext(x > 1, undefined)', 'evalInEachContext(x, {})',
    'evalInEachContext(x, {[y=1]})', 'evalInEachContext(x + 1, {[x=1], [x="a"]})', 'evalInEachContext(x, [x=1])',
    'envV1ToV2("A=1;B=2")', 'envV1ToV2("A=1")', 'envV1ToV2("")', 'envV1ToV2(undefined)', 'envV1ToV2(1)',
    'envV1ToV2("A=has space;B=x")', 'envV1ToV2("A=\'q\'")',
    'mergeEnvironment("A=1", "B=2")', 'mergeEnvironment("A=1 B=2", "A=3")', 'mergeEnvironment(undefined, "A=1")',
    'mergeEnvironment("A=1")', 'mergeEnvironment()', 'mergeEnvironment(1)',
    'listToArgs({"a", "b c"})', 'listToArgs({"a"})', 'listToArgs({})', 'listToArgs("a")', 'listToArgs({1, 2})',
    'listToArgs({"it\'s"})', 'listToArgs(undefined)',
    'argsToList("a b")', 'argsToList("a \'b c\'")', 'argsToList("")', 'argsToList("a b", 1)', 'argsToList("a b", 2)',
    'argsToList(undefined)', 'argsToList(1)',
    'userHome("no_such_user_zz")', 'userHome("no_such_user_zz", "/dflt")', 'userHome(undefined)', 'userHome(undefined, "/d")',
    'userHome(1)', 'userHome("", "/dflt")',
    'userMap("nomap", "bob")', 'userMap("nomap", "bob", "grp")', 'userMap("nomap", "bob", "grp", "dflt")',
    'userMap(undefined, "bob")', 'userMap("nomap")')

section("dissertation-names", mode="compat", note="function names from the ClassAd dissertation / old manuals: what does HTCondor know?")
for fn in ["DayTime", "MakeDate", "MakeAbsTime", "MakeRelTime", "GetYear", "GetMonth", "GetDayOfYear", "GetDayOfMonth",
           "GetDayOfWeek", "GetHours", "GetMinutes", "GetSeconds", "InDays", "InHours", "InMinutes", "InSeconds",
           "IsClassad", "IsMember", "TimeZoneOffset", "CurrentTime", "IsIdentical", "IsString", "IsAbsTime",
           "IsRelTime", "Bool", "StrLen", "Length", "Sprintf", "Log", "Exp", "Sqrt", "Abs", "Sin", "Trim", "Contains",
           "Count", "GetDays"]:
    add(f"{fn}()", f"{fn}(absTime(1704164645))", f"{fn}(relTime(90061))", f"{fn}(1704164645)", f"{fn}(1, 2, 3)")
add("MakeDate(2, 1, 2024)", "MakeDate(2024, 1, 2)", "MakeAbsTime(1704164645)", "MakeRelTime(90)",
    "InDays(relTime(172800))", "IsMember(1, {1})", "IsClassad([a=1])", "StrLen(\"abc\")", "Length({1,2})")

section("compat-absent", mode="new",
        note="bare classad2 (htcondor2 NOT imported): compatibility functions are not registered")
add('stringListSize("a,b")', 'stringListMember("a", "a,b")', 'stringListIMember("A", "a,b")', 'split("a b")',
    'splitUserName("a@b")', 'splitSlotName("a@b")', 'countMatches(x > 1, {[x=2]})', 'evalInEachContext(x, {[x=2]})',
    'userHome("root", "/d")', 'userMap("a", "b")', 'envV1ToV2("A=1")', 'mergeEnvironment("A=1")',
    'listToArgs({"a"})', 'argsToList("a b")', 'stringListSubsetMatch("a", "a,b")', 'stringList_regexpMember("a", "a")',
    'stringListsIntersect("a,b", "b")', 'version_in_range("1.5", "1.0", "2.0")', 'debug(1)', 'noSuchFunction(1)')

# ---------------------------------------------------------------- scoping with ads
MY_REFS = ["a", "A", "b", "s", "l", "n", "n.x", "n.y", "n.z.w", "n.z.v", "n.Z.W", "u", "e", "t", "f", "self_ref",
           "c1", "c2", "inc", "ab", "rt", "ads", "ads.a", "ads[2].a", "ads[2].b", "Requirements", "Rank", "MyType",
           "Name", "x", "up", "'if'", "Memory", "refT", "refTq", "unscoped", "lst", "lst[2]", "strs",
           "nums", "mixed", "Arch", "cpus", "sub", "sub.a", "sub.g", "sub.h", "sub.k", "sub.m", "sub.o",
           "tonly", "q", "r", "rr", "nosuch",
           "MY.a", "my.a", "My.A", "MY.tonly", "MY.Memory", "MY.nosuch", "TARGET.a", "target.a", "TARGET.Memory",
           "TARGET.tonly", "TARGET.q", "TARGET.r", "TARGET.rr", "TARGET.nosuch", "TARGET.Name", "TARGET.b",
           "other.a", "other.Memory", "OTHER.tonly", "self.a", "self.tonly", "SELF.Memory", "parent.a", "parent",
           "root.a", "root.Memory", "toplevel.a", ".a", ".tonly", ".Memory", "MY", "TARGET", "self", "other",
           "MY.MY", "TARGET.TARGET", "TARGET.MY.a", "MY.TARGET.a", "self.MY.a", "MY.self.a", "MY['a']", "MY[\"a\"]",
           "MY[\"Memory\"]", "TARGET[\"Memory\"]", "TARGET[\"a\"]",
           "a + TARGET.a", "Memory + TARGET.Memory", "Requirements", "TARGET.Requirements",
           "MY.Requirements && TARGET.Requirements", "TARGET.Requirements && MY.Requirements",
           "Rank", "TARGET.Memory > 100", "Arch == TARGET.Arch", "Arch =?= TARGET.Arch", "unparse(Requirements)",
           "unparse(TARGET.Requirements)", "unparse(nosuch)", "unparse(n)", "unparse(ads)", "unparse(a)",
           "unresolved(Requirements)", "unresolved(unscoped)", "unresolved(x)", "unresolved(n)", "unresolved(nosuch)",
           "unresolved(Requirements, \"Mem\")", "unresolved(Requirements, \"^zz\")",
           "eval(\"a + 1\")", "eval(\"TARGET.a\")", "eval(\"tonly\")", "eval(strcat(\"n.\", \"x\"))", "eval(\"self_ref\")",
           "size(n)", "size(MY)", "size(TARGET)", "size(l)", "size(s)", "isClassAd(MY)", "isClassAd(TARGET)",
           "isClassAd(n)", "member(a, l)", "member(2, l)", "sum(l)", "sum(nums)", "avg(nums)", "max(lst)", "sum(mixed)",
           "strcat(s, a, b)", "n.y + 1", "n[\"y\"]", "l[a]", "l[a + 1]", "{a, b}[0]", "{a, tonly}", "{a, tonly}[1]",
           "[v = a].v", "[v = a; a = 5].v", "[v = tonly].v", "[v = TARGET.a].v", "[v = MY.a].v", "[v = parent.a].v",
           "[v = root.a].v", "[v = other.a].v", "[w = [v = a]].w.v",
           "countMatches(a > 1, ads)", "evalInEachContext(a, ads)", "evalInEachContext(a + TARGET.a, ads)",
           "c1 + 1", "isError(c1)", "isUndefined(c1)", "isError(self_ref)", "isUndefined(self_ref)", "inc + 0",
           "ifThenElse(t, a, e)", "ifThenElse(f, a, e)", "u ?: a", "e ?: a", "t && u", "f && e",
           "ab + rt", "ab - absTime(0)", "formatTime(ab, \"%Y\")", "rt * 2", "up", "n.x + up"]
section("scoping-my", mode="compat", my=MY, note="MY = the ad given, no TARGET (strict new-ClassAd semantics; compat functions registered)")
add(*MY_REFS)
section("scoping-my-target", mode="compat", my=MY, target=TARGET,
        note="MY and TARGET given (MatchClassAd), strict new-ClassAd semantics; compat functions registered")
add(*MY_REFS)
section("scoping-old-my-target", mode="old", my=MY, target=TARGET,
        note="old-ClassAd semantics (an old-syntax ad was parsed first): unscoped names missing from MY fall back to TARGET")
add(*MY_REFS)
section("scoping-old-my", mode="old", my=MY, note="old-ClassAd semantics, MY only")
add(*MY_REFS)
section("compat-my-target", mode="compat", my=MY, target=TARGET,
        note="htcondor2 imported with STRICT_CLASSAD_EVALUATION=true (same as new, plus compat functions)")
add("a", "tonly", "q", "r", "unscoped", "TARGET.q", "TARGET.r", "TARGET.rr", "split(TARGET.Name, \"t\")",
    "stringListMember(\"b\", strs)", "stringListSize(strs)", "countMatches(a > 1, ads)")

# ---------------------------------------------------------------- chains (issue 16)
# A run of one chaining operator (|| && + * | ^ &) is one n-ary node in adjoin, evaluated as the
# left fold; these check that fold against HTCondor's binary tree, undefined/error terms included.
CHAIN_MY = ('[ t = true; f = false; u = undefined; e = error; s = "str"; n = 5; z = 0; r = 2.5; '
            'Machine = "host3.example.org" ]')
section("chains", my=CHAIN_MY,
        note="runs of one operator (adjoin's chain node) with undefined/error/non-boolean terms; MY = the ad given")
TERMS = ["t", "f", "u", "e", "s", "n", "z"]
for op in ["||", "&&"]:
    for a in TERMS:
        for b in TERMS:
            for c in TERMS:
                add(f"{a} {op} {b} {op} {c}")
    add(*[f"isError({a} {op} {b} {op} {c})" for a, b, c in [("f", "e", "t"), ("u", "e", "f"), ("t", "u", "e")]])
    add(*[f"isUndefined({a} {op} {b} {op} {c})" for a, b, c in [("u", "f", "f"), ("f", "u", "t"), ("t", "t", "u")]])
    add(f"u {op} f {op} u {op} t {op} e", f"f {op} f {op} f {op} f {op} u", f"t {op} t {op} t {op} t {op} e",
        f"u {op} u {op} u {op} u", f"(u {op} f) {op} (e {op} t) {op} f", f"f {op} (t {op} e {op} u) {op} t")
add(*[f"{a} + {b} + {c}" for a in ["n", "u", "e", "r", "s", "t"] for b in ["n", "u", "e", "r"] for c in ["n", "u", "e"]])
add("1 + 2 + 3 + 4", "n * 2 * 3", "n * u * e", "n * e * u", "6 | 1 | 8", "7 & 3 & 1", "5 ^ 1 ^ 1",
    "n | u | e", "n & e & u", "9223372036854775807 + 1 + 1", "1 + 2.5 + 1", "\"a\" + 1 + 1",
    "1 + 2 * 3 + 4", "1 - 2 + 3 + 4", "(1 + 2) + 3 + 4", "1 + (2 + 3) + 4")
add('Machine == "host1.example.org" || Machine == "host2.example.org" || Machine == "host3.example.org"',
    'Machine == "host1.example.org" || Machine == "host2.example.org" || Machine == "host4.example.org"',
    'NoSuch == "host1.example.org" || NoSuch == "host2.example.org" || NoSuch == "host3.example.org"',
    'NoSuch == "host1.example.org" || Machine == "host2.example.org" || Machine == "HOST3.example.org"',
    'Machine != "host1.example.org" && Machine != "host2.example.org" && NoSuch != "host3.example.org"')
# Long runs: 300 terms evaluate in HTCondor (its depth limit is 400 nested operators); 450 do
# not there (evaluation failed) but do in adjoin, where a run is one node (deviations.tsv).
add(" || ".join(f"n == {i}" for i in range(300)))
add(" || ".join(f"n == {i}" for i in range(10, 300)))
add(" && ".join(f"n != {i}" for i in range(6, 306)))
add(" + ".join("1" for _ in range(300)))
add(" || ".join(f"n == {i}" for i in range(450)))
add(" + ".join("1" for _ in range(450)))

# ---------------------------------------------------------------- lang-diff (random_exprs.py v3 findings)
# Disagreements found by the differential run of random_exprs.py's v3 grammar, fixed or documented.
LANG_MY = ('[ a = 1; b = 2.5; s = "Hello"; n = [ x = 10; y = x + 1 ]; up = TARGET.Memory; strs = "a, b,c"; '
           'la = {[ a = 5; b = a + 1 ], [ a = 6; c = b ], 3}; lad = [ x = {1, [ y = 2 ]} ]; '
           'deep = [ lvl = 1; k = [ lvl = 2; m = [ lvl = 3; up = parent.lvl; top = a ] ] ] ]')
LANG_TARGET = '[ Memory = 2048; Name = "slot1"; a = 100; lst = {4, 5} ]'
# versioncmp: bytes differ as C's signed chars (x86-64): a UTF-8 byte is negative.
VERSIONCMP = ['versioncmp("\\303\\237", "nan")', 'versioncmp("nan", "\\303\\237")', 'versioncmp("\\303\\251", "1e3")',
              'versioncmp("\\303\\251", "")', 'versioncmp("", "\\303\\251")', 'versioncmp("a\\303\\251", "a1")',
              'versioncmp("9", "\\303\\251")', 'versioncmp("\\346\\227\\245\\346\\234\\254", "A;B C,D")',
              'versioncmp("\\303\\251", "\\303\\237")', 'versioncmp("1\\303\\251", "12")', 'versioncmp("x86_64", "\\303\\237")',
              'versionGT("\\303\\251", "a")', 'versionLT("\\303\\251", "a")', 'versionLE("z", "\\303\\251")',
              'version_in_range("\\303\\251", "a", "z")', 'version_in_range("b", "\\303\\251", "z")',
              'splitTime(versioncmp("\\303\\237", "1"))', 'versioncmp("\\303\\251", strs)']
# Selecting over a list copies the selections: ads among them lose their lexical parents and the match.
LIST_SELECT = ['[k = {[w = [q = b]]}; b = 5].k.w.q', '[k = {[w = [q = b]]}; b = 5].k.w[0].q',
               '[k = {[w = [q = b]]}; b = 5].k[0].w.q', '{[w = [q = z]; z = 3]}.w.q', '{[w = [q = z]; z = 3]}.w[0].q',
               '{[w = [q = z]; z = 3]}[0].w.q', '{{[w = [q = z]; z = 3]}}.w.q', '{[w = {[q = z]}; z = 3]}.w[0][0].q',
               '{[w = {[q = z]}; z = 3]}.w[0].q', '[k = {[w = {[q = z]}; z = 3]}].k[0].w.q',
               '{[w = [q = 1; r = [s = q]]; z = 3]}.w.r.s', '{[w = [q = 1; r = [s = q]]; z = 3]}.w[0].r.s',
               '{[w = [q = 1; r = [s = parent.q]]; z = 3]}.w.r.s', '{[w = [q = z]; z = 3], [w = 1]}.w.q',
               '[v = {[w = [q = z]; z = 3]}.w; z = 4].v[0].q', '[v = [w = {[q = z]}; z = 3].w; z = 4].v[0].q',
               '[k = {[w = [q = TARGET.a]]}].k.w.q', '[k = {[w = [q = MY.a; a = 2]]}].k.w.q', '[k = {[w = [q = Name]]}].k.w.q',
               'lad.x.parent.b', 'lad.x[1].parent.b', 'lad.x.parent[1].b', 'la.parent.b', 'la.parent.up', 'la.parent.n.y',
               'la.parent[0].n.y', 'la.parent[0].up', 'la.parent.parent', 'la[0].parent.up', '{n}.y', '{[a = 1; b = a + 1]}.b',
               '{[a = [b = 1]]}.a.b', 'size({[w = [q = z]; z = 3]}.w[0])', 'deep.k.m.up', '{deep.k}.m.up', '{deep.k}.m[0].top',
               '{deep}.k.m.lvl', 'member(3, {[w = [q = z]; z = 3]}.w.q)', 'isUndefined({[w = [q = z]; z = 3]}.w[0].q)']
# Documented deviations (deviations.tsv): lists from compatibility functions against other lists
# under is/isnt/=?=/=!=; the parent of a top-level ad in a match (HTCondor's match-context ad).
DOCUMENTED = ['split("a") is {"a"}', 'split("a") isnt {"a"}', 'split("a") =?= {"a"}', 'split("a") isnt {[a = 1]}.a',
              'splitUserName("a@b") isnt {1}', 'split("a") is split("a")', 'splitSinful("<1.2.3.4:9618>") isnt [a = 1]',
              'parent.my.a', 'parent.target.a', 'isClassAd(parent)', 'parent + 1', 'size(parent)', 'parent ?: 1']
section("lang-diff", mode="compat", my=LANG_MY, target=LANG_TARGET,
        note="findings of the random_exprs.py v3 differential run: versioncmp's signed bytes, list selections copied, documented deviations")
add(*VERSIONCMP, *LIST_SELECT, *DOCUMENTED)
section("lang-diff-old", mode="old", my=LANG_MY, target=LANG_TARGET,
        note="the list selections under old-ClassAd semantics")
add(*LIST_SELECT)

with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "exprs.txt"), "w") as f:
    f.write("# Expression battery for exprs.golden; generated by gen/make_exprs.py. See ../README.md.\n")
    f.write("\n".join(out) + "\n")
print(sum(1 for l in out if l and not l.startswith("#")), "expressions")
