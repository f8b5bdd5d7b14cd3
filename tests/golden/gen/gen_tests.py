#!/usr/bin/env python3
"""tests.golden: answers for shared/conformance/htcondor-tests.txt (HTCondor's tests.txt).

Mimics HTCondor's test driver (src/classad/test_classads.cpp):
  begin-classad NAME ... end-classad : ClassAdParser::ParseClassAd(text, full=true)
  evaluate NAME EXPR  : expr->SetParentScope(ad); ad->EvaluateExpr(expr, value)
  test-match TYPE L R : MatchClassAd(L, R).EvaluateAttrBool(TYPE)
  print-classad NAME  : unparse of the ad
Usage: TZ=UTC faketime -f '2024-01-02 03:04:05' python gen_tests.py IN > tests.golden
"""
import sys
import classad2 as c
from oracle_lib import parse_expr, value_text, one_line, esc

lines = open(sys.argv[1]).read().split("\n")
ads = {}
out = {"ads": [], "evaluate": [], "match": [], "print": []}
i = 0
while i < len(lines):
    line = lines[i]
    toks = line.split()
    i += 1
    if not toks or toks[0].startswith("#"):
        continue
    cmd = toks[0]
    if cmd == "begin-classad":
        name = toks[1]
        body = []
        while i < len(lines) and (not lines[i].split() or lines[i].split()[0] != "end-classad"):
            body.append(lines[i])
            i += 1
        i += 1
        text = "\n".join(body) + "\n"
        try:
            ad = c.parseOne(text, c.ParserType.New)
            # parseOne merges; make sure the text was exactly one ad
            ok = ad is not None
        except Exception:
            ok = False
        if ok:
            ads[name] = ad
            out["ads"].append(f"{name}\tok\t{one_line(repr(ad))}")
        else:
            ads[name] = None
            out["ads"].append(f"{name}\tparse error\t")
    elif cmd == "evaluate":
        name = toks[1]
        expr = line.split(None, 2)[2].rstrip()
        tree = parse_expr(expr.rstrip(";").rstrip())
        ad = ads.get(name)
        if tree is None:
            val = "parse error"
        elif ad is None:
            val = "unknown classad"
        else:
            val = value_text(tree, ad)
        out["evaluate"].append(f"{name}\t{esc(expr)}\t{val}")
    elif cmd == "test-match":
        mtype, left, right, expect = toks[1:5]
        L, R = ads[left], ads[right]
        # MatchClassAd: leftMatchesRight = adcr.ad.requirements (right's
        # Requirements, evaluated in R with other/TARGET = L);
        # rightMatchesLeft = adcl.ad.requirements;
        # symmetricMatch = leftMatchesRight && rightMatchesLeft.
        if mtype == "symmetricMatch":
            v = value_text(parse_expr("TARGET.requirements && MY.requirements"), L, R)
        elif mtype == "leftMatchesRight":
            v = value_text(parse_expr("requirements"), R, L)
        elif mtype == "rightMatchesLeft":
            v = value_text(parse_expr("requirements"), L, R)
        else:
            v = "unknown match type"
        out["match"].append(f"{mtype}\t{left}\t{right}\t{v}\t{expect}")
    elif cmd in ("print-classad", "print-classad-xml"):
        name = toks[1]
        ad = ads.get(name)
        if cmd == "print-classad":
            out["print"].append(f"{name}\trepr\t{one_line(repr(ad))}")
            out["print"].append(f"{name}\tprintOld\t{esc(ad.printOld())}")
            out["print"].append(f"{name}\tprintJson\t{esc(ad.printJson())}")
        else:
            out["print"].append(f"{name}\txml\tnot available in classad2 (no XML unparser exposed)")

print("# tests.golden: HTCondor's answers for shared/conformance/htcondor-tests.txt. See README.md.")
print("## ads\tNAME<TAB>ok|parse error<TAB>compact unparse")
print("\n".join(out["ads"]))
print("## evaluate\tNAME<TAB>EXPR (verbatim; trailing ';' ignored)<TAB>VALUE")
print("\n".join(out["evaluate"]))
print("## test-match\tTYPE<TAB>LEFT<TAB>RIGHT<TAB>VALUE (true = match)<TAB>file's expectation")
print("\n".join(out["match"]))
print("## print-classad\tNAME<TAB>FORM<TAB>TEXT (backslash, tab, newline escaped as \\\\ \\t \\n)")
print("\n".join(out["print"]))
