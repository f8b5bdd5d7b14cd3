"""random-queries.golden: random constraints over random ads, answered by HTCondor's library.

    python3 random_queries.py gen - SEED COUNT > constraints.txt
    VENV/bin/python random_queries.py oracle POOLDIR constraints.txt > expected.jsonl
    python3 random_queries.py golden POOLDIR constraints.txt expected.jsonl > ../random-queries.golden

POOLDIR holds machines.ads as made by random_pools.py. Each constraint is a random and/or/not
tree of comparisons (every operator), `member`, case-insensitive `regexp`, `isUndefined`,
arithmetic across attributes and bare attributes (a number counts as true when non-zero), over
names unscoped, `MY.`-scoped or in another case, one of them absent from every ad. The oracle
keeps the ads in which the constraint, set as an attribute of the ad, evaluates to true under
old-ClassAd semantics (as condor_status -constraint does).
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
    def term():
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
