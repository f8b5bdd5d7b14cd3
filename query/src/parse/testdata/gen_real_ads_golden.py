#!/usr/bin/env python3
"""Regenerates real-ads.golden: HTCondor's compact unparse of every attribute of every ad in
shared/conformance/real-ads, read with ParserType.Auto. Needs PyPI `htcondor` (module classad2).

    cd shared/conformance/real-ads && python3 .../gen_real_ads_golden.py > .../real-ads.golden
"""
import os
import classad2 as c

print("# HTCondor's compact unparse of every attribute of the ads in /work/shared/conformance/real-ads,")
print("# produced by classad2 (HTCondor %s) with Auto parsing: FILE<TAB>AD-INDEX<TAB>NAME<TAB>EXPR" % c.version())
for f in sorted(os.listdir(".")):
    for i, ad in enumerate(c.parseAds(open(f).read(), c.ParserType.Auto)):
        for k in sorted(ad.keys(), key=str.lower):
            one = c.ClassAd()
            one[k] = ad.lookup(k)
            name, expr = repr(one)[2:-2].split(" = ", 1)
            print("%s\t%d\t%s\t%s" % (f, i, k, expr))
