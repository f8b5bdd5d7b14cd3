#!/usr/bin/env python3
"""random-json.golden: HTCondor's JSON reader on random documents, in parse.golden's format.

    TZ=UTC faketime -f '2024-01-02 03:04:05' VENV/bin/python gen/random_json.py SEED COUNT > random-json.golden

Each document is one object of 1-4 attributes (names that are identifiers, quoted forms, reserved
words) whose values are drawn from numbers in every spelling HTCondor's lexer meets (`.5`,
`-.5`, `01.5`, `-07`, `0e1`, `00`, `1.`, `0x10`, overflowing integers, `1e400`), strings with
escapes (`\\/`, `\\x41`, `\\u0041`, `\\u0000`), `"\\/Expr(...)\\/"` strings well and badly formed,
`true`/`TRUE`/`null`/`nul`/`NaN`, arrays and nested objects; a third of them get a separator
variant (` , `, `,,`, a comment, a vertical tab) or strings joined across white space. `\\u`
escapes above U+007F are left out: HTCondor decodes them wrongly (docs/language.md). HTCondor's
`parseAds` stops silently at a malformed ad, so `0` ads means the document was refused.
"""
import json
import random
import sys

import classad2 as c

seed = int(sys.argv[1]); n = int(sys.argv[2])
r = random.Random(seed)
NUMS = ["0", "-0", "1", "-1", "1.0", "-0.0", "1e5", "1E5", "1e-5", "2.5e+3", "9223372036854775807",
        "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "18446744073709551616",
        "1e400", "-1e400", "0.1", "123456789012345678901234567890", "1.7976931348623157e308", "4.9e-324",
        "00", "01", "07", "-07", "-08", "-00", "1.", ".5", "-.5", "01.5", "00.5", "0e1", "0E-1", ".5e1",
        "+1", "0x10", "-0x1F", "0x10.5", "-0x1F.5", "0x1.8e3", "0x1F.", "1e", "1.e5", "-", "NaN",
        "Infinity"]
STRS = ['"a"', '""', '"\\/"', '"a\\\\b"', '"tab\\tx"', '"\\u0000x"', '"\\u0041"', '"\\u0041\\u007e"',
        '"/Expr(1+2)/"', '"\\/Expr(1+2)\\/"', '"\\/Expr( a + b )\\/"', '"\\/Expr(x)\\/ "', '"\\/Expr()\\/"',
        '"\\/Expr(1 +)\\/"', '"\\/Expr(\\"s\\")\\/"', '"\\/Expr([a=1])\\/"', '"\\/Expr({1,2})\\/"',
        '"\\/expr(1)\\/"', '"\\/Expr(error)\\/"', '"\\/Expr(real(\\"INF\\"))\\/"',
        '"\\/Expr(absTime(\\"2024-01-02T03:04:05+01:00\\"))\\/"', '"\\/Expr(relTime(\\"01:00\\"))\\/"',
        '"é"', '"\\x41"', '"\\q"', '"x" "y"', '"\\/Expr(1" "+2)\\/"', '"s"\n\t"t"', '"s" /*c*/ "t"']
LIT = ["true", "false", "null", "TRUE", "nul", "False", "NULL"]
NAMES = ["a", "B", "_c", "a b", "1x", "if", "true", "my", "Name2", "a.b", "x-y", "A", "TARGET", "é"]
SEPS = [" , ", ",, ", " /* c */ , ", "\n,\t", ",\v", " // c\n, "]


def val(d):
    k = r.random()
    if d < 3 and k < 0.12:
        return "[" + ", ".join(val(d + 1) for _ in range(r.randint(0, 3))) + "]"
    if d < 3 and k < 0.22:
        return obj(d + 1)
    k = r.random()
    if k < 0.45:
        return r.choice(NUMS)
    if k < 0.88:
        return r.choice(STRS)
    return r.choice(LIT)


def obj(d):
    items = [json.dumps(r.choice(NAMES), ensure_ascii=False) + ": " + val(d)
             for _ in range(r.randint(1 if d == 0 else 0, 4))]
    return "{" + ", ".join(items) + "}"


def esc(s):
    return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n")


print("# random-json.golden: gen/random_json.py " + " ".join(sys.argv[1:]) + " (classad2 " + c.version() + ")")
print("# PARSER<TAB>INPUT (\\\\ \\t \\n escaped)<TAB>number of ads or 'parse error'<TAB>repr of each ad")
for _ in range(n):
    doc = obj(0)
    if r.random() < 0.3:
        doc = doc.replace(", ", r.choice(SEPS), 1)
    try:
        ads = list(c.parseAds(doc, c.ParserType.JSON))
        cols = [str(len(ads))] + [repr(a) for a in ads]
    except Exception:
        cols = ["parse error"]
    print("\t".join(["JSON", esc(doc)] + cols))
