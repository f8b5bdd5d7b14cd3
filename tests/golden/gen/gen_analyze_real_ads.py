#!/usr/bin/env python3
"""analyze-real-ads.golden: the counts of `adjoin analyze` for requests over the slot ads of
shared/conformance/real-ads/, every evaluation done by HTCondor's library.

Usage (from tests/golden; see regenerate.sh):
  TZ=UTC faketime -f '2024-01-02 03:04:05' python gen/gen_analyze_real_ads.py old SRC_DIR
  TZ=UTC faketime -f '2024-01-02 03:04:05' python gen/gen_analyze_real_ads.py new SRC_DIR

Slots and the job are read as gen_cycle_real_ads.py reads them (its `load`). Each request is
the job with Requirements set to the conjunction of a list of conditions (REQUESTS below).
For each request, over every slot:
  offers              the number of slots;
  matching            slots whose symmetric match HTCondor accepts;
  rejected_by_request slots for which the request's Requirements are not true;
  rejecting_request   slots whose Requirements are not true for the request;
and per condition (evaluated as written in the request, MY=request, TARGET=slot):
  matched             slots for which it is true (true, or a non-zero number);
  step                slots for which it and every condition before it are true;
and the failing pairs: pairs of conditions each true for some slot, never both.
"""
import itertools
import sys

import classad2 as c
from gen_cycle_real_ads import kind_of, load, with_attrs
from oracle_lib import esc, parse_expr

REQUESTS = [
    ("arch-mem", ['TARGET.Arch == "X86_64"', 'TARGET.OpSys == "LINUX"', "TARGET.Memory >= 4096"]),
    ("request-attrs", ["TARGET.Cpus >= 2", "TARGET.Memory >= RequestMemory", "TARGET.Disk >= RequestDisk"]),
    ("value-conflict", ["TARGET.Memory > 10", "TARGET.Memory < 5"]),
    ("nothing", ['TARGET.Arch == "INTEL"', 'TARGET.OpSys == "WINDOWS"', "TARGET.Memory >= 1"]),
    ("fallback", ["Memory >= 1024", "(TARGET.HasDocker =?= true || TARGET.Cpus > 1)", 'TARGET.State == "Unclaimed"']),
    ("slot-cpus", ["TARGET.SlotID == 1", "TARGET.Cpus >= 4"]),
    ("names", ["TARGET.Name =!= undefined", 'regexp("slot1", TARGET.Name)']),
    ("load-idle", ["TARGET.LoadAvg < 0.5", "TARGET.KeyboardIdle > 600", "TARGET.TotalDisk > TARGET.Disk"]),
    ("one", ["TARGET.Memory * 2 > TARGET.Disk / 1024 || TARGET.Cpus == 1"]),
    ("pairs", ["TARGET.SlotID == 1", "TARGET.SlotID == 2", "TARGET.Cpus >= 1", "TARGET.Memory > 0"]),
]

REQUIREMENTS = parse_expr("Requirements")


def true(v):
    """A requirements value that selects: true, or a non-zero number."""
    if isinstance(v, c.Value):  # undefined, error
        return False
    if isinstance(v, bool):
        return v
    if isinstance(v, (int, float)):
        return v != 0
    return False


def request_lines(name, req, conds, slots, requirements=REQUIREMENTS, sizes=(2,), key="pairs"):
    """The golden lines of request REQ (named NAME, its Requirements the conjunction of CONDS)
    over SLOTS: the counts, one line per condition, and the minimal failing sets of SIZES
    conditions (each subset one smaller true together for some slot, the whole set for none)
    on a line headed KEY. REQUIREMENTS is the expression read as each side's Requirements."""
    trees = [parse_expr(t) for t in conds]
    rows = [[true(t.eval(req, s)) for t in trees] for s in slots]
    matching = sum(1 for s in slots if req.symmetricMatch(s))
    rejected = sum(1 for s in slots if not true(requirements.eval(req, s)))
    rejecting = sum(1 for s in slots if not true(requirements.eval(s, req)))
    out = ["\t".join([name, str(len(slots)), str(matching), str(rejected), str(rejecting)])]
    for i, t in enumerate(conds):
        matched = sum(1 for r in rows if r[i])
        step = sum(1 for r in rows if all(r[: i + 1]))
        out.append("\t".join(["  " + esc(t), str(matched), str(step)]))
    sat = lambda s: any(all(r[i] for i in s) for r in rows)  # noqa: E731
    failing = []
    for k in sizes:
        for s in itertools.combinations(range(len(conds)), k):
            if not sat(s) and all(sat(sub) for sub in itertools.combinations(s, k - 1)):
                failing.append(",".join(map(str, s)))
    out.append(f"  {key}\t" + " ".join(failing))
    return out


def section(mode, src):
    ads = load(mode, src)
    slots = [ad for _, ad in ads if kind_of(ad) == "slot"]
    jobs = [(n, ad) for n, ad in ads if kind_of(ad) == "job"]
    out = [f"## semantics {mode}\t{len(slots)} slots"]
    for jn, job in jobs:
        for name, conds in REQUESTS:
            req = with_attrs(job, "[Requirements = " + " && ".join(conds) + "]")
            out += request_lines(f"{jn}/{name}", req, conds, slots)
    return out


def main():
    mode, src = sys.argv[1:3]
    if mode == "old":
        print("# analyze-real-ads.golden: made by gen/gen_analyze_real_ads.py (see its docstring) with")
        print("# HTCondor's library. Per request: NAME<TAB>offers<TAB>matching<TAB>rejected_by_request")
        print("# <TAB>rejecting_request, then one line per condition (TEXT<TAB>matched<TAB>step) and")
        print("# the failing pairs of conditions.")
    print("\n".join(section(mode, src)))


if __name__ == "__main__":
    main()
