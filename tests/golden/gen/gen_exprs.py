#!/usr/bin/env python3
"""exprs.golden: evaluate gen/exprs.txt with HTCondor's library, one subprocess per section.

Usage (from tests/golden):
  TZ=UTC faketime -f '2024-01-02 03:04:05' /work/oracle-venv/bin/python gen/gen_exprs.py gen/exprs.txt > exprs.golden

Modes (a `## mode` header per section):
  new    - bare classad2 (strict new-ClassAd semantics, no compatibility functions)
  compat - `import htcondor2` with _CONDOR_STRICT_CLASSAD_EVALUATION=true: registers the
           HTCondor compatibility functions (stringList*, split, userHome, ...) but keeps
           strict semantics (importing htcondor2 otherwise turns on old semantics)
  old    - bare classad2 after parsing one old-syntax ad (process-global old semantics on)
"""
import os, sys, subprocess


def read_sections(path):
    sections, cur = [], None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("## section "):
            cur = {"name": line[len("## section "):], "mode": "new", "my": None, "target": None,
                   "head": [line], "exprs": []}
            sections.append(cur)
        elif line.startswith("## "):
            key, _, val = line[3:].partition(" ")
            cur[key] = val
            cur["head"].append(line)
        elif line.startswith("# ") or line == "#":
            if cur is not None:
                cur["head"].append(line)
        elif line == "":
            continue
        else:
            cur["exprs"].append(line)
    return sections


def run_one(path, index):
    sec = read_sections(path)[index]
    if sec["mode"] == "compat":
        os.environ["_CONDOR_STRICT_CLASSAD_EVALUATION"] = "true"
        import htcondor2  # noqa: F401  registers the compatibility functions
    import classad2 as c
    from oracle_lib import fmt, turn_on_old_semantics
    if sec["mode"] == "old":
        turn_on_old_semantics()
    my = c.ClassAd(sec["my"]) if sec["my"] else c.ClassAd()
    target = c.ClassAd(sec["target"]) if sec["target"] else None
    for e in sec["exprs"]:
        sys.stdout.write(f"{e}\t{fmt(e, my, target)}\n")


def main():
    if sys.argv[1] == "--one":
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        run_one(sys.argv[2], int(sys.argv[3]))
        return
    path = sys.argv[1]
    print("# exprs.golden: HTCondor's values for gen/exprs.txt. EXPR<TAB>VALUE. See README.md.")
    for i, sec in enumerate(read_sections(path)):
        print()
        print("\n".join(sec["head"]))
        res = subprocess.run([sys.executable, os.path.abspath(__file__), "--one", path, str(i)],
                             capture_output=True, text=True, encoding="utf-8", check=True)
        body = res.stdout
        n = body.count("\n")
        assert n == len(sec["exprs"]), (sec["name"], n, len(sec["exprs"]))
        sys.stdout.write(body)


if __name__ == "__main__":
    main()
