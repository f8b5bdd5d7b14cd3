"""random-queries.golden: random constraints over random ads, answered by HTCondor's library.

    python3 random_queries.py gen - SEED COUNT [--wild] > constraints.txt
    VENV/bin/python random_queries.py oracle POOLDIR constraints.txt > expected.jsonl
    python3 random_queries.py golden POOLDIR constraints.txt expected.jsonl > ../random-queries.golden

POOLDIR holds machines.ads as made by random_pools.py. Each constraint is a random and/or/not
tree of comparisons (every operator), `member`, case-insensitive `regexp`, `isUndefined`,
arithmetic across attributes and bare attributes (a number counts as true when non-zero), over
names unscoped, `MY.`-scoped or in another case, one of them absent from every ad. The oracle
keeps the ads in which the constraint, set as an attribute of the ad, evaluates to true under
old-ClassAd semantics (as condor_status -constraint does). `--wild` (a seed's plain output does
not change) adds names in upper case, `TARGET.` references (undefined in a query), `=?=`/`is`
between reals and integers, `==` on strings of mixed case, list literals in `member`,
`ifThenElse`/elvis over absent names, the `?:` ternary, `toLower`, `strcmp`, `size`, `int`,
`%`, division by zero and comparisons with strings, huge numbers and NaN.
"""
import json, os, random, sys
mode = sys.argv[1]
d = sys.argv[2]
if mode == "gen":
    r = random.Random(int(sys.argv[3]))
    ATTRS = ["Memory", "Cpus", "Arch", "OpSys", "Disk", "HasGPU", "LoadAvg", "Tag", "KFlops", "Site", "Owner", "Gpus", "Names", "Missing"]
    def val():
        return r.choice(["0", "1", "2", "4", "512", "1024", "2048", "8192", "-1", "0.5", "1.5", "2048.0", "3.25",
                         '"X86_64"', '"x86_64"', '"INTEL"', '"LINUX"', '"linux"', '""', '"h2"', '"b"', "true", "false", "undefined"])
    WILD = "--wild" in sys.argv
    def wild_term():
        a = r.choice(ATTRS); ref = r.choice([a.upper(), "TARGET." + a, "my." + a.lower(), "My." + a, a])
        k = r.randrange(14)
        if k == 0: return f'''{ref} {r.choice(['=?=', '=!=', 'is', 'isnt'])} {r.choice(['1.0', '1', '2048', '2048.0', '0', '-0.0', '0.5'])}'''
        if k == 1: return f'''{ref} {r.choice(['==', '!=', '<', '>='])} {r.choice(['"X86_64"', '"x86_64"', '"LiNuX"', '"H2"', '"A,B"'])}'''
        if k == 2: return f'''member({ref}, {r.choice(['{1, 2.0, "a"}', '{"x86_64", "INTEL"}', '{}', '{2048, 4096.0}', '{undefined, 1}'])})'''
        if k == 3: return f'''ifThenElse({r.choice(['NoSuchAttr', 'TARGET.Memory', ref])} > 1, {ref} > 2, {r.choice(['true', 'false', 'undefined', ref])})'''
        if k == 4: return f'''(NoSuchAttr ?: {ref} ?: 3) > {r.choice(['0', '2', '1024'])}'''
        if k == 5: return f'''({ref} ? {r.choice(ATTRS)} > 1 : {r.choice(['true', 'false'])})'''
        if k == 6: return f'''toLower({ref}) == {r.choice(['"x86_64"', '"linux"', '"1"'])}'''
        if k == 7: return f'''strcmp({ref}, "x86_64") {r.choice(['==', '<', '>'])} 0'''
        if k == 8: return f'''size({ref}) {r.choice(['>', '==', '<='])} {r.choice(['0', '1', '2', '6'])}'''
        if k == 9: return f'''int({ref}) {r.choice(['==', '>=', '<'])} {r.choice(['0', '1', '2048'])}'''
        if k == 10: return f'''{ref} % {r.choice(['2', '3', '0'])} == {r.choice(['0', '1'])}'''
        if k == 11: return f'''{ref} / {r.choice(['0', '0.0', '2'])} > {r.choice(['0', '1', '100'])}'''
        if k == 12: return f'''{ref} {r.choice(['<', '>', '>=', '=='])} {r.choice(['9223372036854775807', '-9223372036854775808', '1e308', '1e309', 'real("NaN")', '"100"'])}'''
        return f'''{ref} {r.choice(['>=', '<'])} {r.choice(ATTRS)} {r.choice(['+', '*', '-'])} {r.choice(['1', '0.5'])}'''
    def term():
        if WILD and r.random() < 0.5: return wild_term()
        a = r.choice(ATTRS); ref = r.choice([a, "MY." + a, a.lower()])
        k = r.randrange(10)
        if k < 5: return f"{ref} {r.choice(['<','<=','>','>=','==','!=','=?=','=!=','is','isnt'])} {val()}"
        if k == 5: return f"member({val()}, {ref})"
        if k == 6: return f"regexp(\"^x86\", {ref}, \"i\")"
        if k == 7: return f"isUndefined({ref})"
        if k == 8: return f"{ref} * 2 > {r.choice(ATTRS)}"
        return f"{ref}"
    def cons(depth=2):
        if depth == 0 or r.random() < 0.35: return term()
        if r.random() < 0.1: return f"!({cons(depth-1)})"
        return f"({cons(depth-1)} {r.choice(['&&','&&','||'])} {cons(depth-1)})"
    for _ in range(int(sys.argv[4])):
        print(cons())
elif mode == "golden":
    # golden POOLDIR CONSTRAINTS EXPECTED
    print("# random-queries.golden: HTCondor's answers to random constraints over random ads. See README.md.")
    print("## machines")
    sys.stdout.write(open(os.path.join(d, "machines.ads")).read())
    print("## constraints")
    for cons, exp in zip(open(sys.argv[3]), open(sys.argv[4])):
        print(cons.strip() + "\t" + " ".join(json.loads(exp)))
else:
    import classad2 as c
    c.parseOne("ZzOldSemantics = 1\n", c.ParserType.Old)
    ms = [c.ClassAd(l) for l in open(os.path.join(d, "machines.ads")) if l.strip()]
    for line in open(sys.argv[3]):
        e = c.ExprTree(line.strip())
        names = []
        for m in ms:
            m["zzConstraint"] = e
            v = m.eval("zzConstraint")
            del m["zzConstraint"]
            if v is True or (type(v) in (int, float) and not isinstance(v, bool) and v != 0):
                names.append(m["Name"])
        print(json.dumps(names))
