#!/usr/bin/env python3
"""random-pools.golden: random pools matched both ways by HTCondor's library.

    python3 random_pools.py gen SEED NM NJ DIR [--ranks] [--no-compat] [--wild]   # DIR/machines.ads, DIR/jobs.ads
    VENV/bin/python random_pools.py oracle DIR old|new   # DIR/expected-MODE.json
    python3 random_pools.py golden DIR...          # the golden file, from dirs made as above

Machines and jobs share 13 attribute names, each absent in ~12% of ads, sometimes undefined,
error, a boolean or a list, `Tag` an integer or a string, numbers integer or real; their
Requirements are random and/or trees of comparisons (every operator, `is`/`=?=` included),
`member`, `regexp`, `stringListMember`, `isUndefined`, `ifThenElse`, the elvis operator,
arithmetic across both ads, references scoped `TARGET.`, `MY.` or not at all; some
Requirements are constants (`true`, `false`, `undefined`, `1`, `0.0`, `error`) or absent.
`--wild` adds what real pools hold and the plain draw never reaches (the plain draw's output
for a seed does not change): attributes defined and referenced in odd case (`memory`,
`TARGET.MEMORY`, `My.Cpus`), references to attributes no ad has (also inside `ifThenElse` and
the elvis), `==` against strings of mixed case, `=?=`/`is` between reals and integers, list
literals in `member`/`identicalMember`, `toLower`/`strcmp`/`size`/`int`/`real`/`string`
conversions, `%`, bitwise and shift operators, division by zero, the `?:` ternary, numbers
compared with strings, integers near 2^63 and reals near 1e308, Ranks that are strings,
absent attributes, huge, infinite or NaN, attributes whose values are expressions (over either
ad, loops, the other ad's Requirements) and Requirements that read a `Start` attribute.
`oracle` decides every pair with `job.symmetricMatch(machine)`, under old-ClassAd semantics
(`old`: one old-syntax ad parsed first, as HTCondor's daemons evaluate) or strict new ones (with HTCondor's compatibility functions registered, as in a daemon).
"""
import json, os, random, sys

RANKS = []
NOCOMPAT = "--no-compat" in sys.argv
WILD = "--wild" in sys.argv
WILD_RANKS = ['"fast"', "TARGET.NoSuchAttr", "target.memory", "9223372036854775807", "TARGET.Memory * 9223372036854775807",
              "1e308 * 10", "-1e308 * 10", "real(\"NaN\")", "TARGET.MEMORY + MY.memory", "TARGET.Cpus =?= 1.0",
              "ifThenElse(TARGET.NoSuchAttr > 0, 1, 2)", "TARGET.Memory ?: -5", "{1, 2}", "-0.0", "TARGET.Tag + 0.5",
              "TARGET.Cpus / 0", "TARGET.Cpus % 3", "int(TARGET.LoadAvg * 10)", "TARGET.Arch == \"X86_64\""]
RANK_SHAPES = ["TARGET.Memory", "-TARGET.LoadAvg", "TARGET.Cpus * 100 + TARGET.Memory / 1024",
               "(TARGET.Site == MY.Site) * 10", "TARGET.HasGPU", "TARGET.Arch", "undefined", "error",
               "TARGET.Tag", "TARGET.Memory * 1e308", "TARGET.Disk > 2", "-1", "0.5", "Memory",
               "TARGET.KFlops - MY.KFlops", "ifThenElse(TARGET.Gpus > 0, 5, 1)", "TARGET.Names"]

ATTRS = ["Memory", "Cpus", "Arch", "OpSys", "Disk", "HasGPU", "LoadAvg", "Tag", "KFlops", "Site", "Owner", "Gpus", "Names"]
NUMS = ["Memory", "Cpus", "Disk", "LoadAvg", "KFlops", "Gpus", "Tag"]
STRS = ["Arch", "OpSys", "Site", "Owner", "Tag", "Names"]


class Maker:
    """Random values, conditions, constraints and ads, drawn from one random.Random (also used
    by random_analyze.py)."""

    def __init__(self, r):
        self.r = r

    def val(self, kind):
        r = self.r
        if kind == "int": return str(r.choice([0, 1, 2, 4, 8, 16, 512, 1024, 2048, 4096, 8192, -1]))
        if kind == "real": return r.choice(["0.0", "0.5", "1.5", "2048.0", "3.25", "-0.5", "1e3"])
        if kind == "str": return r.choice(['"X86_64"', '"x86_64"', '"INTEL"', '"LINUX"', '"linux"', '"WINDOWS"', '""', '"a,b"', '"b"', '"slot1@h1"', '"h2"'])
        if kind == "bool": return r.choice(["true", "false"])
        if kind == "undef": return "undefined"
        if kind == "err": return "error"
        if kind == "list": return r.choice(['{1, 2}', '{"a", "b"}', '{}', '{"X86_64"}'])

    def attrval(self, a):
        r, val = self.r, self.val
        p = r.random()
        if p < 0.12: return None
        if p < 0.16: return val(r.choice(["undef", "err", "bool", "list"]))
        if WILD and r.random() < 0.1:  # an expression, as real ads hold (Start, Cpus = ..., loops)
            return r.choice(["MY.Cpus * 1024", "Cpus + 1", "TARGET.Memory", "TARGET.NoSuchAttr", "target.cpus * 2",
                             "ifThenElse(TARGET.Cpus > 1, 2048, 1024)", "MY.Memory", "Memory / 2", "TARGET.Arch",
                             'strcat("x86", "_64")', "Start", "TARGET.Requirements", "MY.Tag ?: 4", "-Disk",
                             "HasGPU || TARGET.HasGPU", 'toUpper(Arch)', "{Cpus, TARGET.Cpus}", "real(Cpus) / 3"])
        if WILD and r.random() < 0.15:
            return r.choice(["9223372036854775807", "-9223372036854775808", "1.0", "2.0", "1e308", "-0.0", "2048.0",
                             '"1"', '"X86_64"', '"x86_64 "', '{"x86_64", "INTEL"}', '{1, 2.0, "a"}', '[ a = 1 ]', "1024", "4"])
        if a in NUMS and a != "Tag": return val(r.choice(["int", "int", "int", "real"]))
        if a == "HasGPU": return val("bool")
        if a == "Tag": return val(r.choice(["int", "str"]))
        return val("str")

    def wild_name(self, a):
        r = self.r
        return r.choice([a, a, a.lower(), a.upper()])

    def wild_term(self, side, other):
        r, val = self.r, self.val
        a = r.choice(ATTRS + ["NoSuchAttr"])
        osc = r.choice([other, other, other.lower(), other.capitalize()])
        ref = r.choice([f"{osc}.{self.wild_name(a)}", self.wild_name(a), f"{side.capitalize()}.{self.wild_name(a)}"])
        b = r.choice(NUMS)
        k = r.randrange(20)
        q = lambda *xs: r.choice(['"%s"' % x for x in xs])  # noqa: E731 a string literal
        if k == 0: return f"ifThenElse({other}.NoSuchAttr > {val('int')}, {val('bool')}, {ref} > {val('int')})"
        if k == 1: return f"ifThenElse({ref}, {other}.{self.wild_name(b)} > 1, {other}.NoSuchAttr =?= undefined)"
        if k == 2: return f"{ref} == {q('X86_64', 'x86_64', 'LiNuX', 'linux', 'H2', 'A,B')}"
        if k == 3: return f"{ref} {r.choice(['=?=', '=!=', 'is', 'isnt', '==', '!='])} {r.choice(['1.0', '1', '2048', '2048.0', '0', '-0.0', '0.0', '4.0', q('1')])}"
        if k == 4: return f"member({ref}, {r.choice(['{1, 2.0, %s}' % q('a'), '{%s, %s}' % (q('x86_64'), q('INTEL')), '{}', '{2048, 4096.0}', '{undefined, 1}', '{%s}' % q('LINUX')])})"
        if k == 5: return f"identicalMember({ref}, {r.choice(['{1, 2.0, %s}' % q('a'), '{%s, %s}' % (q('X86_64'), q('INTEL')), '{2048, 4096.0}', '{undefined}'])})"
        if k == 6: return f"toLower({ref}) == {q('x86_64', 'linux', '1')}"
        if k == 7: return f"strcmp({ref}, {q('x86_64', 'LINUX', '')}) {r.choice(['==', '<', '>'])} 0"
        if k == 8: return f"size({ref}) {r.choice(['>', '==', '<='])} {r.choice(['0', '1', '2', '6'])}"
        if k == 9: return f"int({ref}) {r.choice(['==', '>=', '<'])} {val('int')}"
        if k == 10: return f"real({ref}) > {val('real')}"
        if k == 11: return f"string({ref}) == {q('1', '2048', 'X86_64', 'undefined')}"
        if k == 12: return f"{ref} % {r.choice(['2', '3', '0', '-2'])} == {r.choice(['0', '1'])}"
        if k == 13: return f"({ref} {r.choice(['&', '|', '^', '<<', '>>', '>>>'])} {r.choice(['1', '2', '3'])}) > {r.choice(['0', '1', '4'])}"
        if k == 14: return f"{ref} / {r.choice(['0', '0.0', '2', '-1'])} > {val('int')}"
        if k == 15: return f"({ref} ? {other}.{self.wild_name(b)} > 1 : {val('bool')})"
        if k == 16: return f"{ref} {r.choice(['<', '>=', '==', '!='])} {q('100', '', 'a')}"
        if k == 17: return f"{ref} {r.choice(['<', '>', '>=', '=='])} {r.choice(['9223372036854775807', '-9223372036854775808', '1e308', '1e309', '-1e309', 'real(%s)' % q('NaN')])}"
        if k == 18: return f"({other}.NoSuchAttr ?: {ref} ?: {val('int')}) > {val('int')}"
        return f"{ref} {r.choice(['>=', '<', '=='])} {side}.{self.wild_name(b)} {r.choice(['+', '*', '-'])} {r.choice(['1', '0.5', '2'])}"

    def term(self, side, other):
        r, val = self.r, self.val
        if WILD and r.random() < 0.4:
            return self.wild_term(side, other)
        a = r.choice(ATTRS)
        ref = r.choice([f"{other}.{a}", f"{other}.{a}", f"{other}.{a}", a, f"{side}.{a}"])
        k = r.randrange(14)
        if k < 5:
            op = r.choice(["<", "<=", ">", ">=", "==", "!=", "=?=", "=!=", "is", "isnt"])
            return f"{ref} {op} {val(r.choice(['int', 'int', 'real', 'str', 'bool', 'undef']))}"
        if k == 5: return f"member({val('str')}, {ref})"
        if k == 6:
            pat = r.choice(['"^x86"', '"(?i)linux"', '"a"', '"h[0-9]"'])
            return f"regexp({pat}, {ref})"
        if k == 7:
            if NOCOMPAT: return f"size({ref}) > 1"
            return f"stringListMember({val('str')}, {ref})"
        if k == 8: return f"isUndefined({ref})"
        if k == 9: return f"{ref} * 2 >= {other}.{r.choice(NUMS)} + 1"
        if k == 10: return f"ifThenElse({ref} =?= undefined, {val('bool')}, {ref} > {val('int')})"
        if k == 11: return f"({ref} ?: {val('int')}) > {val('int')}"
        if k == 12: return f"{ref} == {side}.{r.choice(ATTRS)}"
        return f"!({ref} < {val('int')})"

    def constraint(self, side, other, depth=2):
        r = self.r
        if depth == 0 or r.random() < 0.3:
            return self.term(side, other)
        op = r.choice(["&&", "&&", "||"])
        return f"({self.constraint(side, other, depth - 1)} {op} {self.constraint(side, other, depth - 1)})"

    def ad(self, name, side, other, req_p, requirements=None):
        """An ad named NAME; its Requirements REQUIREMENTS when given, else random."""
        r = self.r
        parts = [f'Name = "{name}"']
        for a in ATTRS:
            v = self.attrval(a)
            if v is not None: parts.append(f"{self.wild_name(a) if WILD else a} = {v}")
        if RANKS and r.random() < 0.7:
            rank = r.choice(WILD_RANKS) if WILD and r.random() < 0.4 else r.choice(RANKS)
            parts.append(f"{self.wild_name('Rank') if WILD else 'Rank'} = " + rank)
        if requirements is not None:
            parts.append(f"Requirements = {requirements}")
            return "[ " + "; ".join(parts) + " ]"
        p = r.random()
        req = self.wild_name("Requirements") if WILD else "Requirements"
        if WILD and r.random() < 0.3:  # the daemons' pattern: Requirements read a Start attribute
            parts.append(f"{self.wild_name('Start')} = {self.constraint(side, other)}")
            if p < req_p:
                parts.append(f"{req} = " + r.choice(["START", "MY.Start", f"Start && {self.term(side, other)}",
                                                     f"({self.term(side, other)} || start)"]))
                return "[ " + "; ".join(parts) + " ]"
        if p < req_p: parts.append(f"{req} = {self.constraint(side, other)}")
        elif p < req_p + 0.05: parts.append(f"Requirements = {r.choice(['true', 'false', 'undefined', '1', '0.0', 'error'])}")
        return "[ " + "; ".join(parts) + " ]"


def gen(seed, nm, nj, d, ranks=False):
    RANKS[:] = RANK_SHAPES if ranks else []
    m = Maker(random.Random(seed))
    os.makedirs(d, exist_ok=True)
    machines = [m.ad(f"m{i}", "MY", "TARGET", 0.6) for i in range(nm)]
    jobs = [m.ad(f"j{i}", "MY", "TARGET", 0.9) for i in range(nj)]
    open(os.path.join(d, "machines.ads"), "w").write("\n".join(machines) + "\n")
    open(os.path.join(d, "jobs.ads"), "w").write("\n".join(jobs) + "\n")


def oracle(d, mode):
    if mode == "new":
        # strict semantics, with HTCondor's compatibility functions (stringListMember, ...)
        os.environ["_CONDOR_STRICT_CLASSAD_EVALUATION"] = "true"
        import htcondor2  # noqa: F401
    import classad2 as c
    if mode == "old":
        c.parseOne("ZzOldSemantics = 1\n", c.ParserType.Old)
    ms = [c.ClassAd(l) for l in open(os.path.join(d, "machines.ads")) if l.strip()]
    js = [c.ClassAd(l) for l in open(os.path.join(d, "jobs.ads")) if l.strip()]
    out = {}
    for j in js:
        out[j["Name"]] = [m["Name"] for m in ms if j.symmetricMatch(m)]
    json.dump(out, open(os.path.join(d, f"expected-{mode}.json"), "w"), indent=0)

def golden(dirs):
    print("# random-pools.golden: HTCondor's symmetric matches of random pools. See README.md.")
    for d in dirs:
        print(f"## pool {os.path.basename(d.rstrip('/'))}")
        for kind in ["machines", "jobs"]:
            print(f"## {kind}")
            sys.stdout.write(open(os.path.join(d, f"{kind}.ads")).read())
        for mode in ["old", "new"]:
            print(f"## matches {mode}")
            exp = json.load(open(os.path.join(d, f"expected-{mode}.json")))
            for j, ms in exp.items():
                print(j + "\t" + " ".join(ms))

if __name__ == "__main__":
    if sys.argv[1] == "golden":
        golden(sys.argv[2:])
    elif sys.argv[1] == "gen":
        gen(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5], "--ranks" in sys.argv)
    else:
        oracle(sys.argv[2], sys.argv[3])
