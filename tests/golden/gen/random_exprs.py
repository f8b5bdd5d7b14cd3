#!/usr/bin/env python3
"""Random expressions for a differential run against HTCondor's library (exprs.txt format).

    python3 random_exprs.py SEED COUNT [compat|new|old] [v2] > random.txt
    TZ=UTC faketime -f '2024-01-02 03:04:05' VENV/bin/python gen_exprs.py random.txt > random.raw
    python3 random_exprs.py --keep random.raw > ../random.golden

`v2` draws from a wider grammar (operators without parentheses, so precedence is compared;
the elvis `?:`; every function of HTCondor's library and of its compatibility set); without it
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
V2 = len(sys.argv) > 4 and sys.argv[4] == "v2"
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
