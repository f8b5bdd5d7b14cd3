#!/usr/bin/env python3
"""real-ads/: attribute values and match results for shared/conformance/real-ads/.

Usage (from tests/golden):
  TZ=UTC faketime -f '2024-01-02 03:04:05' python gen/gen_real_ads.py old SRC_DIR OUT_DIR
  TZ=UTC faketime -f '2024-01-02 03:04:05' python gen/gen_real_ads.py new SRC_DIR OUT_DIR

`old`: files in old syntax are parsed with ParserType.Old, which turns on HTCondor's
process-global old-ClassAd semantics (unscoped names missing from MY fall back to
TARGET); writes <file>.attrs.golden and match.golden.
`new`: a fresh process that never parses old syntax: each ad is re-read from its
new-syntax unparse (produced by the `old` run into OUT_DIR/.newsyntax/) so
strict new-ClassAd semantics hold; writes match-new.golden only.
"""
import os, sys, json
import classad2 as c
from oracle_lib import parse_expr, value_text, one_line

mode, src, dst = sys.argv[1:4]
NEW_SYNTAX = {"python_bindings-test.ad", "python_bindings-test_multiple.ad"}


def load_old_mode():
    files = {}
    for f in sorted(os.listdir(src)):
        text = open(os.path.join(src, f)).read()
        kind = c.ParserType.New if f in NEW_SYNTAX else c.ParserType.Old
        files[f] = list(c.parseAds(text, kind))
    return files


def kind_of(ad):
    mt = ad.get("MyType")
    keys = {k.lower() for k in ad.keys()}
    if mt == "Machine":
        return "slot"
    if mt == "Job" or (mt is None and ("jobuniverse" in keys or "clusterid" in keys)):
        return "job"
    return None


def match_lines(files):
    jobs, slots = [], []
    for f, ads in files.items():
        for i, ad in enumerate(ads):
            k = kind_of(ad)
            if k == "job":
                jobs.append((f"{f}#{i}", ad))
            elif k == "slot":
                slots.append((f"{f}#{i}", ad))
    req = parse_expr("requirements")
    rank = parse_expr("rank")
    sym = parse_expr("TARGET.requirements && MY.requirements")
    out = []
    for jn, job in jobs:
        for sn, slot in slots:
            jr = value_text(req, job, slot)     # job.Requirements, MY=job, TARGET=slot
            sr = value_text(req, slot, job)     # slot.Requirements, MY=slot, TARGET=job
            sm = value_text(sym, slot, job)     # MatchClassAd(job, slot).symmetricMatch
            py_sym = job.symmetricMatch(slot)   # classad2's own (ints/reals -> bool)
            jrank = value_text(rank, job, slot)
            srank = value_text(rank, slot, job)
            out.append("\t".join([jn, sn, jr, sr, sm, "true" if py_sym else "false", jrank, srank]))
    return jobs, slots, out


HEADER = ("# JOB<TAB>SLOT<TAB>job.Requirements(MY=job,TARGET=slot)<TAB>slot.Requirements(MY=slot,TARGET=job)"
          "<TAB>symmetricMatch value (slot.Req && job.Req, MatchClassAd order)<TAB>classad2 symmetricMatch() bool"
          "<TAB>job.Rank(MY=job,TARGET=slot)<TAB>slot.Rank(MY=slot,TARGET=job)")

if mode == "old":
    files = load_old_mode()
    os.makedirs(os.path.join(dst, ".newsyntax"), exist_ok=True)
    for f, ads in files.items():
        with open(os.path.join(dst, f + ".attrs.golden"), "w") as o:
            o.write(f"# {f}: {len(ads)} ad(s); AD_INDEX<TAB>ATTR<TAB>VALUE (attr evaluated in its own ad, no TARGET)\n")
            for i, ad in enumerate(ads):
                for k in sorted(ad.keys(), key=str.lower):
                    o.write(f"{i}\t{k}\t{value_text(ad.lookup(k), ad)}\n")
        with open(os.path.join(dst, ".newsyntax", f), "w") as o:
            for ad in ads:
                o.write(one_line(repr(ad)) + "\n")
    jobs, slots, out = match_lines(files)
    # every attribute of every slot with TARGET = the job, and of the job with TARGET = each slot
    with open(os.path.join(dst, "in-match-context.golden"), "w") as o:
        o.write("# old-ClassAd semantics. MY_AD<TAB>TARGET_AD<TAB>ATTR (of MY_AD)<TAB>VALUE (MY=MY_AD, TARGET=TARGET_AD)\n")
        for jn, job in jobs:
            for sn, slot in slots:
                for k in sorted(slot.keys(), key=str.lower):
                    o.write(f"{sn}\t{jn}\t{k}\t{value_text(slot.lookup(k), slot, job)}\n")
            for sn, slot in slots:
                for k in sorted(job.keys(), key=str.lower):
                    o.write(f"{jn}\t{sn}\t{k}\t{value_text(job.lookup(k), job, slot)}\n")
    with open(os.path.join(dst, "match.golden"), "w") as o:
        o.write("# old-ClassAd semantics (files parsed as old syntax); %d job(s) x %d slot(s)\n" % (len(jobs), len(slots)))
        o.write(HEADER + "\n")
        o.write("\n".join(out) + "\n")
else:
    d = os.path.join(dst, ".newsyntax")
    files = {}
    for f in sorted(os.listdir(d)):
        files[f] = [c.ClassAd(l) for l in open(os.path.join(d, f)).read().splitlines() if l.strip()]
    jobs, slots, out = match_lines(files)
    with open(os.path.join(dst, "match-new.golden"), "w") as o:
        o.write("# strict new-ClassAd semantics (no TARGET fallback); %d job(s) x %d slot(s)\n" % (len(jobs), len(slots)))
        o.write(HEADER + "\n")
        o.write("\n".join(out) + "\n")
