#!/usr/bin/env python3
"""Times HTCondor's own ClassAd parser (classad2, C++ underneath) on old-syntax ad files.

Prints one line: ads parsed per second. Run by benches/parse.rs in the same run as adjoin's parser.
"""
import sys
import time

import classad2


def main():
    texts = [open(p).read() for p in sys.argv[1:]]
    ads = sum(len(list(classad2.parseAds(t, classad2.ParserType.Old))) for t in texts)
    rounds, start = 0, time.perf_counter()
    while time.perf_counter() - start < 3.0:
        for t in texts:
            for _ in classad2.parseAds(t, classad2.ParserType.Old):
                pass
        rounds += 1
    elapsed = time.perf_counter() - start
    print(f"htcondor classad2 parseAds (old syntax): {ads * rounds / elapsed:,.0f} ads/s "
          f"({elapsed / rounds / ads * 1e6:.1f} us/ad)")


if __name__ == "__main__":
    main()
