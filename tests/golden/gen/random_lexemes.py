#!/usr/bin/env python3
"""Random lexemes for a differential run against HTCondor's library (exprs.txt format).

    python3 random_lexemes.py SEED COUNT MODE > lexemes.txt
    TZ=UTC VENV/bin/python gen_exprs.py lexemes.txt > ../lexemes.golden

Short expressions glued from the characters that stress a lexer: digit runs with `0`, `.`,
`e`, `x`, signs and hex letters (`0x10.5`, `00e1`, `08`, `1.e5`), identifiers and keywords in
odd case glued to numbers and operators, every operator and stray punctuation (`@ $ # \\`),
strings in both quotes with every escape (octal, `\\x`, `\\u`, a lone backslash, unterminated),
UTF-8, comments (unterminated too), a few time and container literals. One `## my` ad binds the
identifiers drawn.

Two kinds of input are not drawn, because the comparison would not be with HTCondor's reading:
text holding `;` or `]` (classad2 parses an expression by wrapping it as `[expression = TEXT]`,
so `1;` and `1 ]x` read as 1 there, where HTCondor's own full parse refuses them), and a number
followed by a lone `b`, `k`, `m`, `g` or `t` (the dissertation's scale suffixes, which adjoin reads
and HTCondor does not: docs/language.md).
"""
import random, re, sys
seed, n, mode = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
r = random.Random(seed)
NUMCH = list("0123456789") * 3 + list("0000..eeEExX+-") + list("abcdefABCDEF_pP")
def number():
    k = r.randint(1, 7)
    s = "".join(r.choice(NUMCH) for _ in range(k))
    if r.random() < 0.4:
        s = r.choice(["0", "1", "0x", "0X", ".", "00", "9", "1e", "0x1", "12."]) + s
    return s
IDENT = ["a", "b", "x1", "A", "e", "E", "x", "X", "f", "true", "TRUE", "False", "undefined", "UNDEFINED",
         "error", "Error", "is", "IS", "isnt", "Isnt", "my", "MY", "target", "TARGET", "parent", "inf", "nan",
         "a1b", "_a", "e1", "x10", "p3"]
OPS = ["+", "-", "*", "/", "%", "<", ">", "<=", ">=", "==", "!=", "=?=", "=!=", "&&", "||", "!", "~", "&",
       "|", "^", "<<", ">>", ">>>", "?", ":", "?:", ".", "[", "]", "{", "}", "(", ")", ",", ";", "=", "@",
       "$", "#", "`", "\\", "'", "\""]
ESC = ["\\n", "\\t", "\\\\", "\\\"", "\\'", "\\x41", "\\x4g", "\\101", "\\1", "\\0", "\\u00e9", "\\U0001F600",
       "\\q", "\\", "\\8", "\\400", "\\777", "\\a", "\\b", "\\f", "\\r", "\\v", "\\?", "\\x", "\\xff", "\\x7F"]
def string(q):
    parts = []
    for _ in range(r.randint(0, 3)):
        x = r.random()
        if x < 0.4: parts.append(r.choice(ESC))
        elif x < 0.5: parts.append(r.choice(["é", "日", "😀", "ß"]))
        elif x < 0.6: parts.append(r.choice(["'", '"']) if r.random() < 0.3 else "a")
        else: parts.append(r.choice(["a", "b c", "1", " ", "/*", "*/", "//"]))
    s = "".join(parts)
    close = q if r.random() < 0.93 else ""
    return q + s + close
def comment():
    return r.choice(["/* c */", "/**/", "/* a */b", "/*", "*/", "/* /* */", "// rest", "/***/", "/*\"*/"])
def token():
    x = r.random()
    if x < 0.35: return number()
    if x < 0.5: return r.choice(IDENT)
    if x < 0.75: return r.choice(OPS)
    if x < 0.88: return string(r.choice(['"', '"', "'"]))
    if x < 0.94: return comment()
    return r.choice(["absTime(\"2024-01-02T03:04:05\")", "relTime(\"1+02:03:04\")", "{1,2}", "[a=1]", "[a=1;b=2].b"])
print("\n## section lexemes-%d" % seed)
print("## mode %s" % mode)
print("## my [ a = 1; b = 2.5; x1 = 3; A = 4; e = 5; E = 6; x = 7; X = 8; f = 9; e1 = 10; x10 = 11; p3 = 12; a1b = 13; _a = 14 ]")
seen = set()
while len(seen) < n:
    k = r.choice([1, 1, 2, 2, 3, 3, 4, 5])
    toks = [token() for _ in range(k)]
    seps = [r.choice(["", "", "", " "]) for _ in range(k - 1)]
    s = toks[0] + "".join(sp + t for sp, t in zip(seps, toks[1:]))
    s = s.strip()
    if not s or "\t" in s or "\n" in s or s.startswith("#") or s in seen:
        continue
    if ";" in s or "]" in s or re.search(r"[0-9.][bBkKmMgGtT](?![A-Za-z0-9_])", s):
        continue
    seen.add(s)
    print(s)
