#!/usr/bin/env python3
"""random-analyze.golden: `adjoin analyze`'s counts for random requests over random pools,
every evaluation done by HTCondor's library.

    python3 random_analyze.py gen SEED NM NR DIR          # DIR/machines.ads, DIR/requests.ads
    VENV/bin/python random_analyze.py oracle DIR old|new   # DIR/expected-MODE.txt
    python3 random_analyze.py golden DIR...                # the golden file

Machines are random_pools.py's (mixed types under one name, absent, undefined, error, lists;
random Requirements or none). Each request is an ad of the same attributes whose Requirements
is a conjunction of 1-6 parts: a random condition (every operator, `member`, `regexp`,
`stringListMember`, `isUndefined`, `ifThenElse`, elvis, arithmetic across both ads, references
into the request itself), a disjunction of two, or a parenthesized conjunction of two (which
`adjoin analyze` splits into its two conditions, as written here). Per request, over every
machine, as gen_analyze_real_ads.py counts them:
  offers, matching (symmetricMatch), rejected_by_request, rejecting_request;
  per condition (MY=request, TARGET=machine) matched and step;
  the minimal failing pairs and triples (each proper subset true together for some machine,
  the whole set for none).
Old-ClassAd semantics (`old`, the TARGET fallback, as HTCondor's daemons) or strict new ones
with HTCondor's compatibility functions registered (`new`).
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from random_pools import Maker  # noqa: E402


def gen(seed, nm, nr, d):
    m = Maker(random.Random(seed))
    os.makedirs(d, exist_ok=True)
    machines = [m.ad(f"m{i}", "MY", "TARGET", 0.6) for i in range(nm)]
    requests, conditions = [], []
    for i in range(nr):
        parts, conds = [], []
        for _ in range(m.r.randint(1, 6)):
            p = m.r.random()
            if p < 0.65:
                t = m.term("MY", "TARGET")
                parts.append(t)
                conds.append(t)
            elif p < 0.85:
                t = f"({m.term('MY', 'TARGET')} || {m.term('MY', 'TARGET')})"
                parts.append(t)
                conds.append(t)
            else:
                a, b = m.term("MY", "TARGET"), m.term("MY", "TARGET")
                parts.append(f"({a} && {b})")
                conds += [a, b]
        requests.append(m.ad(f"r{i}", "MY", "TARGET", 1.0, requirements=" && ".join(parts)))
        conditions.append(conds)
    open(os.path.join(d, "machines.ads"), "w").write("\n".join(machines) + "\n")
    open(os.path.join(d, "requests.ads"), "w").write("\n".join(requests) + "\n")
    json.dump(conditions, open(os.path.join(d, "conditions.json"), "w"))


class TopRequirements:
    """Each side's Requirements as symmetricMatch and the daemons read them (HTCondor's
    EvaluateAttr): the expression evaluated as it stands, MY the ad, the other ad TARGET; an ad
    without Requirements rejects (undefined). A reference `MY.Requirements` would hold the
    Requirements in progress and cut a cycle back to them through the other ad one level sooner
    than symmetricMatch does."""

    def __init__(self, c):
        self.c = c

    def eval(self, my, target):
        if "requirements" not in {k.lower() for k in my.keys()}:
            return self.c.Value.Undefined
        return my.lookup("Requirements").eval(my, target)


def oracle(d, mode):
    if mode == "new":
        os.environ["_CONDOR_STRICT_CLASSAD_EVALUATION"] = "true"
        import htcondor2  # noqa: F401
    import classad2 as c
    from gen_analyze_real_ads import request_lines
    if mode == "old":
        c.parseOne("ZzOldSemantics = 1\n", c.ParserType.Old)
    machines = [c.ClassAd(line) for line in open(os.path.join(d, "machines.ads")) if line.strip()]
    requests = [c.ClassAd(line) for line in open(os.path.join(d, "requests.ads")) if line.strip()]
    conditions = json.load(open(os.path.join(d, "conditions.json")))
    reqs = TopRequirements(c)
    out = []
    for req, conds in zip(requests, conditions):
        out += request_lines(req["Name"], req, conds, machines, reqs, (2, 3), "failing")
    open(os.path.join(d, f"expected-{mode}.txt"), "w").write("\n".join(out) + "\n")


def golden(dirs):
    print("# random-analyze.golden: HTCondor's counts for `adjoin analyze` on random pools. See README.md")
    print("# and gen/random_analyze.py. Per request: NAME<TAB>offers<TAB>matching<TAB>rejected_by_request")
    print("# <TAB>rejecting_request, one line per condition (TEXT<TAB>matched<TAB>step), the minimal")
    print("# failing pairs and triples.")
    for d in dirs:
        print(f"## pool {os.path.basename(d.rstrip('/'))}")
        print("## machines")
        sys.stdout.write(open(os.path.join(d, "machines.ads")).read())
        print("## jobs")
        sys.stdout.write(open(os.path.join(d, "requests.ads")).read())
        for mode in ["old", "new"]:
            print(f"## analyze {mode}")
            sys.stdout.write(open(os.path.join(d, f"expected-{mode}.txt")).read())


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif sys.argv[1] == "oracle":
        oracle(sys.argv[2], sys.argv[3])
    else:
        golden(sys.argv[2:])
