#!/usr/bin/env python3
"""Random expressions for a differential run against HTCondor's library (exprs.txt format).

    python3 random_exprs.py SEED COUNT [compat|new|old] [v2|v3] > random.txt
    TZ=UTC faketime -f '2024-01-02 03:04:05' VENV/bin/python gen_exprs.py random.txt > random.raw
    python3 random_exprs.py --keep random.raw > ../random.golden

`v2` draws from a wider grammar (operators without parentheses, so precedence is compared;
the elvis `?:`; every function of HTCondor's library and of its compatibility set); `v3` adds
forms aimed at areas v2 rarely reaches (nested ads reaching their parents, deep selects, integers and
reals at their limits, time values and functions, list and ad comparisons with `is`/`isnt`, string
functions with odd arguments, escapes and UTF-8) and a larger MY ad. Without them (or with `v2`)
the output for a seed is the one the committed golden files were made from.

`--keep` drops the lines whose HTCondor value is a list still holding unevaluated expressions
(HTCondor's lists are lazy: only printing differs, see docs/language.md); the Rust test
`golden_exprs` compares the rest (`ADJOIN_EXPRS_GOLDEN=FILE` runs it on any such file).
"""
import random, re, sys

if sys.argv[1] == "--keep":
    literal = re.compile(r'^[\s{},]*$|^\{( *(-?[0-9.E+-]+|"([^"\\]|\\.)*"|true|false|undefined|error) *,?)* *\}$')
    for line in open(sys.argv[2], encoding="utf-8"):
        expr, tab, value = line.rstrip("\n").partition("\t")
        if tab and value.startswith("{") and not literal.match(value):
            continue
        sys.stdout.write(line)
    sys.exit(0)

seed = int(sys.argv[1]); n = int(sys.argv[2])
r = random.Random(seed)
MY = ('[ a = 1; b = 2.5; s = "Hello"; l = {1, 2, 3}; n = [ x = 10; y = x + 1 ]; u = undefined; e = error; '
      't = true; f = false; Memory = 7; x = a + 1; strs = "a, b,c"; neg = -3; z = 0; zr = 0.0; big = 9223372036854775807; '
      'mixed = {1, "a", undefined}; rt = relTime(90); ab = absTime(1704164645); '
      'up = TARGET.Memory; sref = s ]')
TARGET = ('[ Memory = 2048; Name = "slot1"; a = 100; tonly = 42; q = a; r = MY.a; MyType = "Machine"; '
          'Arch = "x86_64"; b = "target b"; lst = {4, 5}; fl = 1.5e3 ]')

ATTRS = ["a", "b", "s", "l", "n", "u", "e", "t", "f", "Memory", "x", "strs", "neg", "z", "zr", "big",
         "mixed", "rt", "ab", "up", "sref", "tonly", "missing", "MY.a", "MY.s", "TARGET.Memory", "TARGET.a",
         "TARGET.Name", "TARGET.q", "TARGET.r", "TARGET.lst", "TARGET.fl", "TARGET.missing", "n.x", "n.y",
         "MY.n.y", "Name", "Arch"]
BIN = ["+", "-", "*", "/", "%", "<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "is", "isnt", "&&", "||",
       "&", "|", "^", "<<", ">>", ">>>"]
UN = ["-", "+", "!", "~"]
FUNCS = {
    "strcat": (0, 3), "substr": (2, 3), "size": (1, 1), "int": (1, 1), "real": (1, 1), "string": (1, 1),
    "floor": (1, 1), "ceiling": (1, 1), "round": (1, 1), "ifThenElse": (3, 3), "isUndefined": (1, 1),
    "isError": (1, 1), "isString": (1, 1), "isInteger": (1, 1), "isReal": (1, 1), "isBoolean": (1, 1),
    "isList": (1, 1), "isClassAd": (1, 1), "member": (2, 2), "identicalMember": (2, 2),
    "regexp": (2, 3), "toUpper": (1, 1), "toLower": (1, 1), "sum": (1, 1), "avg": (1, 1), "min": (1, 1),
    "max": (1, 1), "strcmp": (2, 2), "stricmp": (2, 2), "bool": (1, 1), "pow": (2, 2), "quantize": (2, 2),
    "anyCompare": (3, 3), "allCompare": (3, 3), "length": (1, 1), "join": (1, 3), "split": (1, 2),
    "stringListSize": (1, 2), "stringListSum": (1, 2), "stringListMember": (2, 3), "stringListIMember": (2, 3),
    "stringListsIntersect": (2, 3), "regexps": (3, 4), "replace": (3, 4), "unparse": (1, 1),
    "debug": (1, 1), "absTime": (0, 2), "relTime": (0, 1), "interval": (1, 1), "splitSlotName": (1, 1),
    "versioncmp": (2, 2), "versionGT": (2, 2), "eval": (1, 1), "evalInEachContext": (2, 2),
    "countMatches": (2, 2), "ifThen": (2, 2), "formatTime": (0, 2), "sign": (1, 1), "random": (0, 1),
}
FUNCS.pop("random"); FUNCS.pop("debug")
V3 = len(sys.argv) > 4 and sys.argv[4] == "v3"
V2 = len(sys.argv) > 4 and sys.argv[4] in ("v2", "v3")
if V2:
    FUNCS.update({
        "ceil": (1, 1), "currentTime": (0, 0), "dayTime": (0, 0), "getYear": (1, 1), "getMonth": (1, 1),
        "getDayOfYear": (1, 1), "getDayOfMonth": (1, 1), "getDayOfWeek": (1, 1), "getDays": (1, 1),
        "getHours": (1, 1), "getMinutes": (1, 1), "getSeconds": (1, 1), "isAbsTime": (1, 1),
        "isRelTime": (1, 1), "log": (1, 1), "regexpMember": (2, 3), "replaceAll": (3, 4),
        "splitTime": (1, 1), "time": (0, 0), "timeZoneOffset": (0, 0), "unresolved": (1, 1),
        "versionEQ": (2, 2), "versionGE": (2, 2), "versionLE": (2, 2), "versionLT": (2, 2),
        "version_in_range": (3, 3), "argsToList": (1, 1), "listToArgs": (1, 1), "splitSinful": (1, 1),
        "splitUserName": (1, 1), "stringListAvg": (1, 2), "stringListMax": (1, 2), "stringListMin": (1, 2),
        "stringListISubsetMatch": (2, 3), "stringListSubsetMatch": (2, 3), "stringList_regexpMember": (2, 4),
        "mergeEnvironment": (0, 3), "userHome": (1, 2),
    })
STRS = ['"abc"', '"ABC"', '""', '"a,b,c"', '"a b"', '"x86_64"', '"1"', '"2.5"', '"true"', '"a.*"', '"^A"',
        '"slot1@host"', '"8.9.1"', '"8.10.0"', '"%Y"', '"<"', '"=="', '"a, b"']
if V2:
    STRS += ['"a b c"', '"user@domain"', '"<1.2.3.4:9618?addrs=1.2.3.4-9618>"', '"slot1_2@host"',
             '"A=1 B=2"', '"8.9.1"', '"1.5"', '"-3"', '"a;b;c"', '"x y \\"z\\""', '"%Y-%m-%d %H:%M:%S"']


if V3:
    # Nested ads reaching their parents, deep selects, limits of integers and reals, escapes, unicode.
    MY = MY[:-2] + ('; deep = [ lvl = 1; k = [ lvl = 2; up = parent.lvl; m = [ lvl = 3; up = parent.lvl; '
                    'top = a; own = lvl; far = deep.lvl ] ] ]; la = {[ a = 5; b = a + 1 ], [ a = 6; c = b ], 3}; '
                    'imax = 9223372036854775807; imin = -9223372036854775807 - 1; rmax = 1.7976931348623157e308; '
                    'tiny = 4.9e-324; nan = real("NaN"); inf = real("INF"); ustr = "h\\303\\251llo"; '
                    'esc = "a\\tb\\\\c\\"d\\n"; lad = [ x = {1, [ y = 2 ]} ]; lst2 = {l, {1, 2}}; '
                    'abz = absTime("2024-02-29T23:59:59+05:30"); rneg = relTime(-3725.5) ]')
    ATTRS += ["deep.k.up", "deep.k.m.up", "deep.k.m.top", "deep.k.m", "deep.k.m.own", "deep.k.m.far",
              "la[0].b", "la[1].c", "la[1]", "la[2]", "imax", "imin", "rmax", "tiny", "nan", "inf", "ustr", "esc",
              "lad.x[1].y", "lad.x", "lst2", "lst2[1][0]", "abz", "rneg", "deep",
              "deep.k.m.parent.lvl", "n.x.y", "TARGET.lst[1]"]
    STRS += ['"\\303\\251"', '"h\\303\\251llo"', '"\\346\\227\\245\\346\\234\\254"', '"\\n"', '"a\\tb"',
             '"\\\\"', '"a\\"b"', '"\\101\\102"', '"\\x41"', '"\\303\\237"', '"I\\304\\260"', '" 12 "', '"12abc"',
             '"0x10"', '"1e3"', '"-0"', '"inf"', '"nan"', '"TRUE"', '"2024-01-02T03:04:05"', '"1+02:03:04"',
             '"-1:30"', '"01:02:03.5"', '"%a %b %d %j %U %W %y %Z %%"', '"a,,b, ,c"', '"  "', '"A;B C,D"']
INTS3 = ["9223372036854775807", "-9223372036854775807", "(-9223372036854775807 - 1)", "9223372036854775808",
         "2147483647", "-2147483648", "4294967296", "63", "64", "65", "-1", "-64", "0", "1", "2", "3", "-7",
         "1000000007", "4611686018427387904", "imax", "imin", "neg"]
REALS3 = ["1.7976931348623157e308", "-1.7976931348623157e308", "4.9e-324", "2.2250738585072014e-308",
          "9007199254740993.0", "9.223372036854775807e18", "-9.223372036854775808e18", "1e19", "-1e19", "0.5",
          "1.5", "2.5", "-0.5", "-1.5", "-2.5", "1e-7", "123456789.987654321", "real(\"INF\")", "real(\"-INF\")",
          "real(\"NaN\")", "-0.0", "0.1", "3.0", "1e15", "1e16", "1e17", "rmax", "tiny", "nan", "inf"]
TIMES3 = ["absTime(0)", "absTime(1704164645)", "absTime(-1)", "absTime(1704164645, 3600)", "absTime(1704164645, -19800)",
          'absTime("2024-02-29T23:59:59+05:30")', 'absTime("1970-01-01T00:00:00Z")', "abz", "ab", "currentTime()",
          "absTime(2147483647)", "absTime(4102444800)", 'absTime("2024-01-02")', "absTime(1.5)"]
RELS3 = ["relTime(0)", "relTime(90)", "relTime(-90)", "relTime(90061.5)", 'relTime("1+02:03:04")', 'relTime("-1:30")',
         'relTime("3d")', "relTime(86400)", "rt", "rneg", "dayTime()", "relTime(0.25)", "relTime(-0.0)"]
LISTS3 = ["{}", "{1}", "{1, 2}", "{2, 1}", "{1, 2, 3}", "{1.0, 2}", '{"a", "B"}', '{"A", "b"}', "{undefined}",
          "{error}", "{{1}}", "{[a = 1]}", "l", "mixed", "lst2", "TARGET.lst", "{true, 1}", "{1, undefined, 2}",
          "{1, 2.5, -3}", '{"x", 1}', "{real(\"NaN\")}", "{9223372036854775807, 1}", "la"]
ADS3 = ["[]", "[a = 1]", "[A = 1]", "[a = 1; b = 2]", "[b = 2; a = 1]", "[a = 1.0]", "[a = {1}]", "n", "deep",
        "deep.k", "[a = undefined]", "[a = parent.x]", "[x = 1; y = [z = x]]"]
CMP3 = ["==", "!=", "<", "<=", ">", ">=", "=?=", "=!=", "is", "isnt"]
ARITH3 = ["+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", ">>>"]


def I3(): return r.choice(INTS3)
def R3(): return r.choice(REALS3)
def N3(): return r.choice(INTS3) if r.random() < 0.5 else r.choice(REALS3)
def S3(): return r.choice(STRS) if r.random() < 0.85 else r.choice(["s", "ustr", "esc", "strs", "Name", "Arch"])
def T3(): return r.choice(TIMES3)
def RT3(): return r.choice(RELS3)
def L3(): return r.choice(LISTS3)
def AD3(): return r.choice(ADS3)
def ANY3():
    return r.choice([I3, R3, S3, T3, RT3, L3, AD3, lambda: r.choice(["true", "false", "undefined", "error"])])()


def ch(*xs): return r.choice(xs)


def opt(p, text):
    """`, TEXT)` with probability p, else `)`."""
    return f", {text})" if r.random() < p else ")"


RE3 = ['"a.*"', '"^h"', '"[[:alpha:]]+"', '"\\\\d"', '"."', '"^.{2}$"', '"A"', '"("']
REOPT3 = ['"i"', '"m"', '"s"', '"x"', '"f"', '"is"', '""', '"q"']
SUBRE3 = ['"(a)(b)?"', '"l+"', '"^"', '""', '"."', '"([0-9]+)"']
SUBST3 = ['"\\\\1x"', '"<\\\\0>"', '""', '"\\\\2"', '"$1"']
SUBOPT3 = ['"i"', '"g"', '"ig"', '""']
CMPOP3 = ['"<"', '"=="', '"is"', '"isnt"', '">="', '"=!="', '"!="']
FMT3 = ['"%Y-%m-%d %H:%M:%S %z"', '"%c"', '"%a %A %b %B %e %I %p %j"', '"%s"', '"%%%"', '"%U %W %u %w %G %V"',
        '"%D %T %R %F"', '""', '"%Q"']
SL3 = ['"1, 2,3"', '"1.5;x"', '""', '" , "', '"a b c"', '"9223372036854775807,1"', '"1e308, 1e308"']
SLD3 = ['";"', '""', '" "', '",;"']
SLM3 = ['"a,b,c"', '"ABC, abc"', '""', '"a;b"']
TIMEF3 = ['formatTime', 'splitTime', 'getYear', 'getMonth', 'getDayOfYear', 'getDayOfMonth', 'getDayOfWeek',
          'getHours', 'getMinutes', 'getSeconds', 'getDays', 'interval', 'int', 'real', 'string']


def focused():
    """v3: a form aimed at one area (argument types that fit, values at the limits)."""
    k = r.randrange(30)
    if k == 0: return f"{I3()} {r.choice(ARITH3)} {I3()}"
    if k == 1: return f"{N3()} {r.choice(ARITH3[:5])} {N3()}"
    if k == 2: return f"{ch('-', '~', '+', '!')}{I3()}"
    if k == 3: return f"{ch('int', 'real', 'string', 'floor', 'ceiling', 'round', 'bool', 'sign', 'log')}({ch(N3, S3)()})"
    if k == 4: return f"{ch('pow', 'quantize')}({N3()}, {ch(N3, L3)()})"
    if k == 5: return f"substr({S3()}, {I3()}" + opt(0.6, I3())
    if k == 6: return f"{ch('size', 'length', 'toUpper', 'toLower', 'unparse', 'string')}({ch(S3, L3, AD3)()})"
    if k == 7: return f"{ch('strcmp', 'stricmp', 'versioncmp')}({S3()}, {S3()})"
    if k == 8: return f"{S3()} {r.choice(CMP3)} {S3()}"
    if k == 9: return f"{L3()} {r.choice(CMP3)} {L3()}"
    if k == 10: return f"{AD3()} {r.choice(CMP3)} {AD3()}"
    if k == 11: return f"{ch(L3, AD3)()} {ch('is', 'isnt', '=?=', '=!=')} {ch(L3, AD3, ANY3)()}"
    if k == 12: return f"{ch('member', 'identicalMember')}({ANY3()}, {L3()})"
    if k == 13: return f"{ch('sum', 'avg', 'min', 'max')}({L3()})"
    if k == 14: return f"{ch('anyCompare', 'allCompare')}({r.choice(CMPOP3)}, {L3()}, {ANY3()})"
    if k == 15: return f"{ch('regexp', 'regexpMember')}({r.choice(RE3)}, {ch(S3, L3)()}" + opt(0.6, r.choice(REOPT3))
    if k == 16:
        return f"{ch('regexps', 'replace', 'replaceAll')}({r.choice(SUBRE3)}, {S3()}, {r.choice(SUBST3)}" + opt(0.5, r.choice(SUBOPT3))
    if k == 17: return f"{r.choice(TIMEF3)}({ch(T3, RT3, N3)()})"
    if k == 18: return f"formatTime({ch(T3, I3)()}, {r.choice(FMT3)})"
    if k == 19: return f"{ch(T3, RT3)()} {ch('+', '-', '*', '/', '%', '<', '==', '>=', 'is')} {ch(T3, RT3, N3)()}"
    if k == 20: return f"{ch('absTime', 'relTime')}({ch(S3, N3, T3, RT3)()})"
    if k == 21:
        return f"{ch('stringListSize', 'stringListSum', 'stringListAvg', 'stringListMin', 'stringListMax')}({r.choice(SL3)}" + opt(0.5, r.choice(SLD3))
    if k == 22: return f"{ch('stringListMember', 'stringListIMember')}({S3()}, {r.choice(SLM3)}" + opt(0.5, ch('";"', '""'))
    if k == 23: return f"{ch('split', 'join')}({ch(S3, L3)()}" + opt(0.6, S3())
    if k == 24: return f"strcat({', '.join(ANY3() for _ in range(r.randint(0, 3)))})"
    if k == 25:
        inner = ch("parent.a", "parent.parent.a", "a", "x", "q", "root.a", "MY.a", "TARGET.a", "z.w", "parent.q")
        return f"[a = {I3()}; q = [x = 2; z = [w = {inner}; v = x]]].{ch('q.z.w', 'q.z.v', 'q.x', 'q.z', 'a', 'q')}"
    if k == 26:
        steps = "".join(ch('.k', '.m', '.up', '.lvl', '.top', '.a', '.b', '.x', '[0]', '[1]', '.parent') for _ in range(r.randint(1, 4)))
        return f"{ch('deep', 'la[0]', 'lad', 'n', 'deep.k', AD3())}{steps}"
    if k == 27: return f"{L3()}[{ch(I3, R3, S3)()}]"
    if k == 28: return f"{AD3()}[{S3()}]"
    return f"{ch('ifThenElse', 'ifThen')}({ANY3()}, {ANY3()}" + opt(0.7, ANY3())

def lit(d):
    k = r.randrange(10)
    if k == 0: return str(r.choice([0, 1, -1, 2, 3, 7, 10, 255, 1000, 2147483648, -9223372036854775807]))
    if k == 1: return r.choice(["0.0", "1.5", "-2.25", "1e10", "0.1", "3.0", "-0.0", "1e308", "2.5e-3"])
    if k == 2: return r.choice(STRS)
    if k == 3: return r.choice(["true", "false"])
    if k == 4: return r.choice(["undefined", "error"])
    if k == 5 and d > 0: return "{" + ", ".join(expr(d - 1) for _ in range(r.randrange(4))) + "}"
    if k == 6 and d > 0:
        return "[" + "; ".join(f"{r.choice(['a','p','q','Memory'])}{i} = {expr(d - 1)}" for i in range(r.randrange(3))) + "]"
    return r.choice(ATTRS)


def expr(d):
    if d <= 0 or r.random() < 0.25:
        return lit(0)
    if V3 and r.random() < 0.35:
        return focused() if d <= 1 or r.random() < 0.6 else f"({focused()}) {r.choice(BIN)} {expr(d - 1)}"
    if V2 and r.random() < 0.4:
        return bare(d)
    k = r.randrange(12)
    if k < 4:
        return f"({expr(d-1)} {r.choice(BIN)} {expr(d-1)})"
    if k == 4:
        return f"{r.choice(UN)}{expr(d-1)}"
    if k == 5:
        return f"({expr(d-1)} ? {expr(d-1)} : {expr(d-1)})"
    if k in (6, 7, 8):
        name = r.choice(list(FUNCS))
        lo, hi = FUNCS[name]
        return f"{name}(" + ", ".join(expr(d - 1) for _ in range(r.randint(lo, hi))) + ")"
    if k == 9:
        return f"{expr(d-1)}[{expr(d-1)}]"
    if k == 10:
        return f"{lit(1)}.{r.choice(['a', 'x', 'Memory', 'a0', 'y'])}"
    return lit(d)


def bare(d):
    """An operator without parentheses around it: precedence and associativity decide."""
    k = r.randrange(8)
    if k < 4:
        return f"{expr(d-1)} {r.choice(BIN)} {expr(d-1)}"
    if k == 4:
        return f"{expr(d-1)} ?: {expr(d-1)}"
    if k == 5:
        return f"({expr(d-1)} ?: {expr(d-1)})"
    if k == 6:
        return f"{expr(d-1)} ? {expr(d-1)} : {expr(d-1)}"
    return f"{r.choice(UN)}{expr(d-1)} {r.choice(BIN)} {expr(d-1)}"


mode = sys.argv[3] if len(sys.argv) > 3 else "compat"
print(f"## section random{seed}")
print(f"## mode {mode}")
print(f"## my {MY}")
print(f"## target {TARGET}")
seen = set()
while len(seen) < n:
    e = expr(r.randint(1, 4))
    if e not in seen and "\t" not in e:
        seen.add(e)
        print(e)
