#!/usr/bin/env python3
"""random-old-ads/: random ads as HTCondor prints them in old syntax, and in new syntax.

    VENV/bin/python random_old_ads.py SEED COUNT OUT_DIR   # OUT_DIR/old.ads, OUT_DIR/new.ads

Each ad has a Name and 1-6 attributes: random expressions (random_exprs.py's generator) or
strings with backslashes, quotes, tabs, apostrophes, `$(x)` and `#`, printed by HTCondor's
`printOld()` (old syntax leaves backslashes alone; a string ending in a backslash ends in `\"`)
and by `str()` (new syntax, joined on one line). Strings with newlines are left out: HTCondor
prints them raw in old syntax, which no line-based reader can take back.
"""
import os, random, sys
import classad2 as c
seed = int(sys.argv[1]); n = int(sys.argv[2]); out = sys.argv[3]
# random expressions from the expression generator
sys.argv = ["x", str(seed), "1"]
src = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "random_exprs.py")).read()
ns = {"__name__": "gen"}
exec(src.split("mode = sys.argv[3]")[0], ns)
r = random.Random(seed)
STR = ['"a\\\\b"', '"quote\\"q"', '"tab\\there"', '"\\\\"', '"x\\\\"', '"ümlaut"', '"a\'b"', '"$(x)"', '"#no comment"']
os.makedirs(out, exist_ok=True)
out_old = open(os.path.join(out, "old.ads"), "w"); out_new = open(os.path.join(out, "new.ads"), "w")
for i in range(n):
    ad = c.ClassAd()
    ad["Name"] = f"a{i}"
    for k in range(r.randint(1, 6)):
        e = r.choice(STR) if r.random() < 0.3 else ns["expr"](r.randint(0, 3))
        try:
            ad[f"A{k}"] = c.ExprTree(e)
        except Exception:
            continue
    out_old.write(ad.printOld() + "\n")
    out_new.write(" ".join(str(ad).split("\n")) + "\n")
