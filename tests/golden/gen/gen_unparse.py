#!/usr/bin/env python3
"""unparse.golden and unparse-ads.golden: how HTCondor prints (unparses) expressions and ads.

Usage (from tests/golden):
  TZ=UTC faketime -f '2024-01-02 03:04:05' /work/oracle-venv/bin/python gen/gen_unparse.py unparse.golden unparse-ads.golden parse.golden
"""
import sys
import classad2 as c
from oracle_lib import parse_expr, esc

EXPRS = [
    # literals
    "1", "-1", "+1", "- 1", "0", "007", "0x1F", "9223372036854775807", "9223372036854775808", "-9223372036854775808",
    "1.0", "1.", ".5", "0.1", "1e100", "1E-5", "-0.0", "0.0", "-1.5", "100.0", "123456789.123456789", "1e309",
    "-1e309", "3.0e-320", "1e15", "1e16", "0.30000000000000004",
    "true", "FALSE", "undefined", "ERROR", '""', '"abc"', '"a\\"b"', '"a\\\\b"', '"\\n\\t\\r\\f\\b\\v\\a"',
    '"\\101\\1\\0011"', '"é"', '"\\303\\251"', '"\\x41"', '"\\\'"', "'attr'", "'a b'", "'a\\'b'", "'if'", "'1x'",
    "'_ok'", "'x.y'", '"a" "b"', '"/"', '"</a>"', '"&amp;"', '"\\u00e9"', '"\\177"', '"\\37"',
    # lists / ads
    "{}", "{ }", "{1}", "{1,2,3}", "{ 1 , 2 }", "{1,{2,{3}}}", '{"a",1.5,true,undefined,error}', "{x, y.z}",
    "[]", "[a=1]", "[ a = 1 ; b = 2 ; ]", "[a=1;b=[c=2;d={3,[e=4]}]]", "[A=1; a=2]", "['a b'=1; c='a b']",
    "[a=1; B=a+1; c=b]", "[if=1]", "['if'=1]", "[self=1]", "['parent'=1]", "['my'=1; 'target'=2]",
    "[true=1]", "['true'=1; 'undefined'=2; 'error'=3; 'is'=4; 'isnt'=5]",
    # attribute references
    "a", "A", "aBc", "a.b", "a.b.c", ".a", "..a", "MY.a", "my.A", "TARGET.a", "target.a", "Target.a", "other.a",
    "self.a", "self", "parent.a", "parent", "root.a", "toplevel.a", "super.a", "MY", "TARGET", "a._b", "_a",
    "'a b'.c", "a.'b c'", "[a=1].a", "{[a=1]}.a", "(a).b", "a.b[1]", "a[1].b", "a[1][2]", "a[\"x\"]", "(a.b)[0]",
    "a.parent", "a.'parent'", "a.parent.b", "a.PARENT", "a.'Parent'.b", "[a=[b=1]].a.parent.a",
    # unary
    "-a", "+a", "!a", "~a", "- -a", "-(-a)", "!!a", "!(a)", "-(a + b)", "-1 * 2", "-(1)", "!true", "~0", "-(-1)",
    # binary: every operator
    "a + b", "a - b", "a * b", "a / b", "a % b", "a < b", "a <= b", "a > b", "a >= b", "a == b", "a != b",
    "a =?= b", "a =!= b", "a is b", "a isnt b", "a IS b", "a ISNT b", "a && b", "a || b", "a & b", "a | b",
    "a ^ b", "a << b", "a >> b", "a >>> b", "a ? b : c", "a ?: b", "a ? : b",
    # precedence and parentheses as written
    "a + b * c", "(a + b) * c", "a * (b + c)", "a - (b - c)", "(a - b) - c", "a - b - c", "a / b / c",
    "a / (b / c)", "((a))", "(((a + b)))", "a && b || c", "a && (b || c)", "(a && b) || c", "!a && b", "!(a && b)",
    "a < b == c < d", "a == (b == c)", "a | b & c", "(a | b) & c", "a ^ b | c", "a << b + c", "(a << b) + c",
    "a ? b : c ? d : e", "(a ? b : c) ? d : e", "a ? (b ? c : d) : e", "a || b ? c : d", "a + (b ? c : d)",
    "-a.b", "-(a.b)", "(-a).b", "!a.b", "a.b + c.d", "1 + 2 + 3", "1 + (2 + 3)", "(1 + 2) + 3", "2 * 3 % 4",
    "a =?= b && c =!= d", "a is undefined || b isnt error", "x ?: y ?: z", "(x ?: y) ?: z", "a + -b", "a - -b",
    "a*-1", "a-b", "a+b", "a  +  b", "a/*c*/+b",
    # the elvis operator is postfix: tighter than binary and unary operators
    "a ?: b + c", "a + b ?: c", "-a ?: b", "(-a) ?: b", "a ?: b.c", "(a ?: b).c", "a ?: b[0]", "(a ?: b)[0]",
    "a ?: -b", "a ?: (b + c)", "a ?: b ? c : d", "a ?:b?:c", "a ?  : b * 2",
    # function calls
    "f()", "f(1)", "f(1, 2)", "strcat(a, \"b\", 1)", "StrCat(a)", "STRCAT(a)", "ifThenElse(a, b, c)", "noSuch(1)",
    "size({})", "member(1, {1, 2})", "regexp(\"a.*\", b, \"i\")", "f(g(h(1)))", "f((1))", "f(1 + 2, a ? b : c)",
    'absTime("2024-01-02T03:04:05Z")', 'absTime("2003-09-03T")', 'absTime(0)', 'absTime(1704164645, 3600)',
    'relTime("1:30")', 'relTime("2+25:14:16.123")', 'relTime(90)', 'relTime(1.5)', 'real("INF")', 'real("NaN")',
    'real("-INF")', 'int("5")', 'time()', 'eval("a")', 'unparse(a)', '{1, f(x)}[0]', '[a = f(x)].a',
    # selection/subscripts on literals
    "{1,2,3}[1]", "[a=1][\"a\"]", "{[a=1],[a=2]}.a", "[a=[b=1]].a.b",
    # whitespace/comments
    " 1 ", "a /* comment */ + b", "a // trailing comment",
]

ADS = [
    ("new-simple", "New", '[ a = 1; b = "two"; c = 3.0; d = { 1, 2 }; e = [ f = g ]; h = a + b * c; i = undefined; j = error ]'),
    ("new-quoted-names", "New", "[ 'a b' = 1; 'if' = 2; c = 'a b'; 'parent' = 3; 'x.y' = 4 ]"),
    ("new-string-name-invalid", "New", '[ "x" = 3 ]'),
    ("new-expr-kinds", "New", '[ x = TARGET.Memory >= 1024 && MY.Disk > 0; y = ifThenElse(x, "yes", "no"); z = -1; w = !x; v = x ? 1 : 2; u = { x, y }[0]; t = absTime("2024-01-02T03:04:05Z"); r = relTime(90); s = "quote\\"and\\\\slash\\n" ]'),
    ("new-reals", "New", "[ a = 1.0; b = 0.1; c = 1e100; d = -0.0; e = 0.0; f = 1e-5; g = 123456789.123456789; h = 1e15; i = 1e16; k = real(\"INF\"); l = 2.5 ]"),
    ("new-nested", "New", "[ a = [ b = [ c = 1 ]; d = { [ e = 1 ], [ f = { } ] } ]; g = { } ; h = [ ] ]"),
    ("new-strings", "New", '[ a = ""; b = "tab\\there"; c = "é"; d = "\\101"; e = "/"; f = "</xml>&"; g = "\\\\" ]'),
    ("old-simple", "Old", 'A = 1\nB = "two"\nC = 3.0\nD = A + 1\nMyType = "Job"\nRequirements = TARGET.Memory > 100 && Arch == "X86_64"\nE = {1, 2}\nF = [ g = 1 ]\nG = undefined\nH = -0.0\nI = 1e100\nJ = "a\\"b"\n'),
    ("json-simple", "JSON", '{ "a": 1, "b": "two", "c": 3.5, "d": true, "e": null, "f": [1, "x", false], "g": { "h": 1 }, "i": "\\/Expr(a + 1)\\/", "j": "\\/Expr(TARGET.Memory > 10)\\/", "k": 1e100, "l": -0.0, "m": 1.0, "n": "x\\ny\\u00e9" }'),
    ("json-list", "JSON", '[ { "a": 1 }, { "b": "\\/Expr(strcat(\\"x\\", \\"y\\"))\\/" } ]'),
    ("json-two-objects", "JSON", '{ "a": 1 }\n{ "b": "\\/Expr(a + 1)\\/" }'),
    ("json-exprs", "JSON", '{ "a": "\\/Expr(undefined)\\/", "b": "\\/Expr(error)\\/", "c": "/Expr(1+1)/", "d": "\\/Expr(1+)\\/", "e": "\\/Expr([x=1])\\/", "f": 9223372036854775807, "g": 9223372036854775808, "h": 1.5e-7 }'),
    # printOld writes a quoted name with only `'` escaped (`'a\b'`, `'é'`), as its strings
    ("new-quoted-names-old", "New", "[ 'a\\\\b' = 1; 'é' = 2; 'x\\'y' = 3; r = 'a\\\\b' + 'é' + 'x\\'y'; n = [ 'é' = 1 ] ]"),
    ("xml-simple", "XML", '<?xml version="1.0"?>\n<!DOCTYPE classads SYSTEM "classads.dtd">\n<classads>\n<c>\n  <a n="A"><i>1</i></a>\n  <a n="B"><s>two</s></a>\n  <a n="C"><r>3.5</r></a>\n  <a n="D"><b v="t"/></a>\n  <a n="E"><e>A + 1</e></a>\n  <a n="F"><l><i>1</i><s>x</s></l></a>\n  <a n="G"><c><a n="H"><i>2</i></a></c></a>\n  <a n="I"><un/></a>\n  <a n="J"><er/></a>\n  <a n="K"><at>2024-01-02T03:04:05+01:00</at></a>\n  <a n="L"><rt>1+00:00:01</rt></a>\n  <a n="M"><s>&lt;&amp;&gt;</s></a>\n  <a n="N"><b v="f"/></a>\n</c>\n</classads>\n'),
]


PARSE_CASES = [
    ("JSON", r'{ "a": "\/Expr(undefined)\/" }'), ("JSON", r'{ "b": "\/Expr(error)\/" }'),
    ("JSON", r'{ "c": "/Expr(1+1)/" }'), ("JSON", r'{ "d": "\/Expr(1+)\/" }'), ("JSON", r'{ "e": "\/Expr([x=1])\/" }'),
    ("JSON", r'{ "e": "\/Expr( 1 + 2 )\/" }'), ("JSON", r'{ "e": "\/expr(1)\/" }'), ("JSON", r'{ "e": "/Expr(1)/x" }'),
    ("JSON", r'{ "e": "\/Expr(\"s\")\/" }'), ("JSON", r'{ "e": "\/Expr(absTime(0))\/" }'),
    ("JSON", '{ "f": 9223372036854775807 }'), ("JSON", '{ "g": 9223372036854775808 }'), ("JSON", '{ "g": -9223372036854775808 }'),
    ("JSON", '{ "h": 1.5e-7 }'), ("JSON", '{ "h": 1E400 }'), ("JSON", '{ "h": 1.0 }'), ("JSON", '{ "h": 5 }'), ("JSON", '{ "h": -0 }'),
    ("JSON", '{ "a": 1 }\n{ "b": 2 }'), ("JSON", '[ { "a": 1 }, { "b": 2 } ]'), ("JSON", '[\n{ "a": 1 },\n{ "b": 2 }\n]\n'),
    ("JSON", r'{ "n": "\u0041\u00e9\u20ac" }'), ("JSON", r'{ "n": "a\/b\\c\"d\te\u0000f" }'), ("JSON", r'{ "n": "a\/b" }'),
    ("JSON", r'{ "n": "\b\f\n\r\t" }'), ("JSON", '{ "n": "é" }'),
    ("JSON", '{ "A": 1, "a": 2 }'), ("JSON", '{}'), ("JSON", '{ "x y": 1 }'), ("JSON", '{ "if": 1, "true": 2 }'),
    ("JSON", '{ "a": [ {"b": 1}, [] ] }'), ("JSON", '{ "a": 1, }'), ("JSON", '{ "a": tru }'), ("JSON", '{ "a": 01 }'),
    ("JSON", '{ "a": -1.5E3 }'), ("JSON", '{ "a": null, "b": true, "c": false }'), ("JSON", '{ a: 1 }'),
    ("JSON", "{ 'a': 1 }"), ("JSON", '{ "a": 1 "b": 2 }'), ("JSON", '{ "a": {} }'), ("JSON", '{ "a": [] }'),
    ("XML", '<?xml version="1.0"?>\n<classads><c><a n="A"><i>1</i></a></c><c><a n="B"><s>x</s></a></c></classads>'),
    ("XML", '<classads><c><a n="A"><i>1</i></a></c></classads>'),
    ("XML", '<c><a n="A"><r>1E+100</r></a><a n="B"><r>INF</r></a><a n="C"><r>-0.0</r></a><a n="D"><r>NaN</r></a></c>'),
    ("XML", '<c><a n="A"><e>TARGET.x &amp;&amp; y &lt; 2</e></a><a n="B"><s>a"b\\c</s></a></c>'),
    ("XML", '<c><a n="A"><i>x</i></a></c>'), ("XML", '<c><a n="A"><e>1 +</e></a></c>'),
    ("XML", '<c><a n="A"><b v="true"/></a><a n="B"><b v="F"/></a></c>'),
    ("XML", '<c><a n="A"><at>2024-01-02T03:04:05Z</at></a><a n="B"><rt>01:30</rt></a><a n="C"><rt>-1+00:00:01.5</rt></a></c>'),
    ("XML", '<c><a n="A"><l></l></a><a n="B"><c></c></a><a n="C"><s></s></a></c>'),
    # <i> takes no '+' and refuses 64-bit overflow; <r> reads as strtod (a prefix, hexadecimal)
    ("XML", '<c><a n="A"><i>+3</i></a><a n="B"><i>9223372036854775808</i></a><a n="C"><i>12abc</i></a><a n="D"><r>0x1.8</r></a><a n="E"><r>1.5x</r></a><a n="F"><r>1e+</r></a></c>'),
    # only &amp; &lt; &gt; are entities
    ("XML", '<c><a n="s"><s>&quot;&apos;&#65;&amp;quot;</s></a><a n="q&quot;"><s/></a><a n="e"><e>"a&quot;b"</e></a></c>'),
]


def main():
    with open(sys.argv[1], "w", encoding="utf-8") as o:
        o.write("# unparse.golden: EXPR<TAB>repr (HTCondor's compact ClassAdUnParser output of the parsed, unevaluated\n")
        o.write("# expression)<TAB>str (pretty form; backslash, tab, newline escaped as \\\\ \\t \\n). See README.md.\n")
        for e in EXPRS:
            t = parse_expr(e)
            if t is None:
                o.write(f"{e}\tparse error\tparse error\n")
            else:
                o.write(f"{e}\t{repr(t)}\t{esc(str(t))}\n")
    with open(sys.argv[3], "w", encoding="utf-8") as o:
        o.write("# parse.golden: PARSER<TAB>INPUT (\\\\ \\t \\n escaped)<TAB>number of ads or 'parse error'<TAB>repr of each ad (one column per ad)\n")
        for kind, text in PARSE_CASES:
            try:
                ads = list(c.parseAds(text, getattr(c.ParserType, kind)))
                cols = [str(len(ads))] + [repr(a) for a in ads]
            except Exception:
                cols = ["parse error"]
            o.write("\t".join([kind, esc(text)] + cols) + "\n")
    with open(sys.argv[2], "w", encoding="utf-8") as o:
        o.write("# unparse-ads.golden: blocks. '=== NAME PARSER' starts a block; '--- SECTION' starts a section;\n")
        o.write("# section text runs to the next '---'/'===' line (the final newline before it belongs to the separator).\n")
        o.write("# Attribute order is HTCondor's internal hash order: compare ads as sets of attributes.\n")
        for name, kind, text in ADS:
            o.write(f"=== {name} {kind}\n--- input\n{text.rstrip(chr(10))}\n")
            try:
                ads = list(c.parseAds(text, getattr(c.ParserType, kind)))
            except Exception as ex:
                o.write(f"--- parse error\n{ex}\n")
                continue
            o.write(f"--- count\n{len(ads)}\n")
            for i, ad in enumerate(ads):
                o.write(f"--- repr {i}\n{repr(ad)}\n")
                o.write(f"--- str {i}\n{str(ad).strip(chr(10))}\n")
                o.write(f"--- printOld {i}\n{ad.printOld().rstrip(chr(10))}\n")
                o.write(f"--- printJson {i}\n{ad.printJson().rstrip(chr(10))}\n")
                vals = []
                for k in sorted(ad.keys(), key=str.lower):
                    vals.append(f"{k}\t{repr(ad.lookup(k).simplify(ad))}")
                o.write(f"--- values {i} (ATTR<TAB>evaluated value)\n" + "\n".join(vals) + "\n")


main()
