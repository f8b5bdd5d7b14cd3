#!/usr/bin/env python3
"""random-cycles.golden: first-fit ranked cycles over random pools, every evaluation HTCondor's.

    python3 random_pools.py gen SEED NM NJ DIR --ranks      # pools with Rank on ~70% of ads
    VENV/bin/python random_cycles.py DIR... > ../random-cycles.golden

The pools are random_pools.py's with a Rank on ~70% of machines and jobs, drawn from shapes that
read the other side or not: `TARGET.Memory`, `-TARGET.LoadAvg` (which is -0.0 for a load of 0),
a positive linear combination, `(TARGET.Site == MY.Site) * 10`, booleans, strings, lists,
`undefined`, `error`, overflowing reals, constants, `ifThenElse`, a difference of both sides.
The cycle (the bilateral cycle's default, as in gen_cycle_real_ads.py): requests in load order,
each takes the free machine HTCondor's `symmetricMatch` accepts with the highest vector [the
job's Rank against the machine, the machine's Rank against the job], a rank that is not a number
counting 0 (booleans 1 and 0), compared as doubles (so -0.0 equals 0), ties to the earliest
machine. Old-ClassAd semantics, as HTCondor's daemons evaluate (which also registers the
compatibility functions the pools use).
"""
import math
import os
import sys

import classad2 as c
from oracle_lib import turn_on_old_semantics


def component(my, target):
    if "rank" not in {k.lower() for k in my.keys()}:
        return 0.0
    # The Rank expression evaluated as it stands (HTCondor's EvaluateAttr, as the negotiator
    # reads Rank): a reference `Rank` would hold Rank in progress and cut a cycle back to it
    # one level sooner.
    v = my.lookup("Rank").eval(my, target)
    if isinstance(v, c.Value):  # undefined, error
        return 0.0
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        f = float(v)
        return 0.0 if math.isnan(f) else f + 0.0
    return 0.0  # strings, lists, ads, times


def main():
    turn_on_old_semantics()
    print("# random-cycles.golden: HTCondor's first-fit ranked cycles over random pools. See README.md.")
    for d in sys.argv[1:]:
        ms = [c.ClassAd(l) for l in open(os.path.join(d, "machines.ads")) if l.strip()]
        js = [c.ClassAd(l) for l in open(os.path.join(d, "jobs.ads")) if l.strip()]
        print(f"## pool {os.path.basename(d.rstrip('/'))}")
        for kind in ["machines", "jobs"]:
            print(f"## {kind}")
            sys.stdout.write(open(os.path.join(d, f"{kind}.ads")).read())
        print("## cycle")
        free = list(range(len(ms)))
        for j in js:
            best, bv = None, None
            for k in free:
                m = ms[k]
                if not j.symmetricMatch(m):
                    continue
                v = (component(j, m), component(m, j))
                if bv is None or v > bv:  # strictly better: ties stay with the earliest
                    best, bv = k, v
            if best is None:
                continue
            free.remove(best)
            print(f"{j['Name']}\t{ms[best]['Name']}\t{bv[0]!r}\t{bv[1]!r}")


if __name__ == "__main__":
    main()
