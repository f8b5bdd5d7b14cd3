#!/usr/bin/env python3
"""cycle-real-ads.golden: a first-fit matchmaking cycle over shared/conformance/real-ads/,
every evaluation done by HTCondor's library.

Usage (from tests/golden; see regenerate.sh):
  TZ=UTC faketime -f '2024-01-02 03:04:05' python gen/gen_cycle_real_ads.py old SRC_DIR
  TZ=UTC faketime -f '2024-01-02 03:04:05' python gen/gen_cycle_real_ads.py new SRC_DIR
  (`dump SRC_DIR` is internal: prints every ad as `FILE<TAB>INDEX<TAB>new-syntax ad`)

`old`: the files are parsed as gen_real_ads.py does (old syntax with ParserType.Old, which
turns on HTCondor's process-global old-ClassAd semantics). `new`: strict new-ClassAd
semantics: the ads are read from their new-syntax unparse, made by a child process (this
script's `dump`), in a process that never parses old syntax.

Slots are the ads with MyType "Machine", jobs those with MyType "Job" (or no MyType but
JobUniverse/ClusterId), each `FILE#INDEX`, files in name order. The files hold one job, so the
requests are that job and variants of it (VARIANTS: attributes set over a copy of the job), so
that the cycle has to choose and requests compete; requests are served in the order listed.

The cycle (issue 5's default): for each request in order, the candidates are the slots not
taken whose symmetric match HTCondor accepts (`job.symmetricMatch(slot)`); each is scored by
the vector [the job's Rank (MY=job, TARGET=slot), the slot's Rank (MY=slot, TARGET=job)], a
rank that is not a number counting 0 (booleans 1 and 0; an ad without Rank 0); the highest
vector wins, compared lexicographically, ties to the earliest slot; the request takes up to
RequestCount slots (evaluated in the job alone: a number, truncated, at least 0; otherwise 1),
best first, each slot matched once.
"""
import functools
import math
import os
import subprocess
import sys

import classad2 as c
from oracle_lib import one_line, parse_expr, value_text

NEW_SYNTAX = {"python_bindings-test.ad", "python_bindings-test_multiple.ad"}

# (suffix, attributes set over the job). Served in this order after the job itself.
VARIANTS = [
    ("count3", "[RequestCount = 3]"),
    ("mem", "[Rank = TARGET.Memory]"),
    ("cpus", '[Requirements = TARGET.Arch == "X86_64" && TARGET.Cpus >= 2]'),
    ("mem-again", "[Rank = TARGET.Memory]"),
    ("mem2", "[Rank = TARGET.Memory; RequestCount = 2]"),
    ("small", "[Rank = -TARGET.Memory]"),
    ("load", "[Rank = TARGET.LoadAvg]"),
    ("unclaimed", '[Rank = TARGET.State == "Unclaimed"]'),
    ("unscoped", "[Rank = Memory]"),
    ("name", "[Rank = TARGET.Name]"),
    ("undefined", "[Rank = undefined]"),
    ("none", "[RequestCount = 0; Rank = TARGET.Memory]"),
    ("cpus-again", '[Requirements = TARGET.Arch == "X86_64" && TARGET.Cpus >= 2]'),
    ("slotid", "[Rank = TARGET.SlotID; RequestCount = 4]"),
    ("mixed", "[Rank = TARGET.Memory * 1.5 + TARGET.Cpus; RequestCount = 2]"),
    ("anything", "[Requirements = true; Rank = TARGET.Memory =?= undefined]"),
    ("busy", "[Rank = TARGET.LoadAvg > 0; RequestCount = 2.7]"),
    ("base-again", "[]"),
    ("rest", "[Rank = TARGET.Disk; RequestCount = 100]"),
]


def kind_of(ad):
    mt = ad.get("MyType")
    keys = {k.lower() for k in ad.keys()}
    if mt == "Machine":
        return "slot"
    if mt == "Job" or (mt is None and ("jobuniverse" in keys or "clusterid" in keys)):
        return "job"
    return None


def parse_file(src, f):
    kind = c.ParserType.New if f in NEW_SYNTAX else c.ParserType.Old
    return list(c.parseAds(open(os.path.join(src, f)).read(), kind))


def load(mode, src):
    """[(name, ad)] of every ad, files in name order."""
    out = []
    if mode == "old":
        for f in sorted(os.listdir(src)):
            out += [(f"{f}#{i}", ad) for i, ad in enumerate(parse_file(src, f))]
        return out
    dump = subprocess.run([sys.executable, __file__, "dump", src], check=True,
                          capture_output=True, text=True).stdout
    for line in dump.splitlines():
        f, i, text = line.split("\t", 2)
        out.append((f"{f}#{i}", c.ClassAd(text)))
    return out


def with_attrs(ad, overrides):
    v = c.ClassAd()
    for k in ad.keys():
        v[k] = ad.lookup(k)
    o = c.ClassAd(overrides)
    for k in o.keys():
        v[k] = o.lookup(k)
    return v


RANK = parse_expr("Rank")


def component(my, target):
    """my's Rank against target as a vector component: (number, printed)."""
    if "rank" not in {k.lower() for k in my.keys()}:
        return 0, "0"
    text = value_text(RANK, my, target)
    v = RANK.eval(my, target)
    if isinstance(v, c.Value):  # undefined, error: an IntEnum, not a number
        return 0, "0"
    if isinstance(v, bool):
        return (1, "1") if v else (0, "0")
    if text.startswith(("relTime", "absTime")):
        return 0, "0"
    if isinstance(v, int):
        return v, text
    if isinstance(v, float):
        return (0, "0") if math.isnan(v) else (v, text)
    return 0, "0"


def request_count(ad):
    if "requestcount" not in {k.lower() for k in ad.keys()}:
        return 1
    v = ad.eval("RequestCount")
    text = value_text(parse_expr("RequestCount"), ad)
    if isinstance(v, (bool, c.Value)) or text.startswith(("relTime", "absTime")):
        return 1
    if isinstance(v, int):
        return max(v, 0)
    if isinstance(v, float):
        return 0 if math.isnan(v) else max(int(v), 0)
    return 1


def better(a, b):
    """Orders candidates (vector, slot index, printed vector) best first: vector descending
    (lexicographically, as numbers), then the earliest slot."""
    for x, y in zip(a[0], b[0]):
        if x != y:
            return -1 if x > y else 1
    return (a[1] > b[1]) - (a[1] < b[1])


def section(mode, src):
    ads = load(mode, src)
    slots = [(n, ad) for n, ad in ads if kind_of(ad) == "slot"]
    jobs = [(n, ad) for n, ad in ads if kind_of(ad) == "job"]
    requests = []
    for jn, job in jobs:
        requests.append((jn, jn, "[]", job))
        for suffix, overrides in VARIANTS:
            requests.append((f"{jn}/{suffix}", jn, overrides, with_attrs(job, overrides)))
    out = [f"## semantics {mode}", "## slots"]
    out += [n for n, _ in slots]
    out.append("## requests")
    out += [f"{n}\t{base}\t{overrides}" for n, base, overrides, _ in requests]
    out.append("## accepted")
    accepted = {}
    for n, _, _, r in requests:
        accepted[n] = [i for i, (_, s) in enumerate(slots) if r.symmetricMatch(s)]
        out.append(n + "\t" + " ".join(slots[i][0] for i in accepted[n]))
    out.append("## cycle")
    taken = set()
    matched = 0
    for n, _, _, r in requests:
        want = request_count(r)
        if want == 0:
            continue
        scored = []
        for i in accepted[n]:
            if i in taken:
                continue
            s = slots[i][1]
            (jv, jt), (sv, st) = component(r, s), component(s, r)
            scored.append(([jv, sv], i, [jt, st]))
        scored.sort(key=functools.cmp_to_key(better))
        for _, i, texts in scored[:want]:
            taken.add(i)
            out.append("\t".join([n, slots[i][0]] + texts))
        matched += bool(scored)
    out.append(f"## summary\t{len(requests)} requests\t{matched} matched\t{len(taken)} matches")
    return out


def main():
    mode, src = sys.argv[1:3]
    if mode == "dump":
        for f in sorted(os.listdir(src)):
            for i, ad in enumerate(parse_file(src, f)):
                print(f"{f}\t{i}\t{one_line(repr(ad))}")
        return
    if mode == "old":
        print("# cycle-real-ads.golden: made by gen/gen_cycle_real_ads.py (see its docstring) with")
        print("# HTCondor's library; one block per semantics (`## semantics old|new`), each with")
        print("# `## slots` (load order), `## requests` (NAME<TAB>BASE JOB<TAB>ATTRIBUTES SET OVER IT,")
        print("# served in this order), `## accepted` (REQUEST<TAB>slots whose symmetric match HTCondor")
        print("# accepts, in load order), `## cycle` (REQUEST<TAB>SLOT<TAB>job Rank<TAB>slot Rank: the")
        print("# first-fit cycle's matches in the order made, with the docking vector) and `## summary`.")
    for line in section(mode, src):
        assert "\n" not in line, line
        print(line)


if __name__ == "__main__":
    main()
