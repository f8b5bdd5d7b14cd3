#!/usr/bin/env python3
"""functions.golden: which function names HTCondor's ClassAd library has registered.

A call to an unregistered name flattens to `error` (FunctionCall with no function),
a registered one flattens to the unevaluated call when its argument is unbound.
Two columns: bare classad2, and classad2 after `import htcondor2` (which registers the
HTCondor compatibility functions; STRICT_CLASSAD_EVALUATION=true keeps new semantics).
Usage (from tests/golden):
  TZ=UTC faketime -f '2024-01-02 03:04:05' /work/oracle-venv/bin/python gen/gen_functions.py > functions.golden
"""
import os, sys, subprocess

NAMES = """isUndefined isError isString isInteger isReal isList isClassAd isBoolean isAbstime isReltime
member identicalMember size sum avg min max anyCompare allCompare time currentTime timeZoneOffset dayTime
getYear getMonth getDayOfYear getDayOfMonth getDayOfWeek getDays getHours getMinutes getSeconds splitTime
formatTime strcat join toUpper toLower substr strcmp stricmp versioncmp versionLE versionLT versionGE versionGT
versionEQ version_in_range regexp regexpMember regexps replace replaceAll int real string bool absTime relTime
unparse unresolved floor ceil ceiling round pow quantize random ifThenElse interval eval stringListsIntersect
debug envV1ToV2 mergeEnvironment listToArgs argsToList stringListSize stringListSum stringListAvg stringListMin
stringListMax stringListMember stringListIMember stringListSubsetMatch stringListISubsetMatch
stringList_regexpMember userHome userMap splitUserName splitSlotName split evalInEachContext countMatches
splitSinful
MakeDate MakeAbsTime MakeRelTime InDays InHours InMinutes InSeconds IsMember IsIdentical IsClassad
IsAbsTime IsRelTime TimeZoneOffset CurrentTime DayTime
sprintf log exp sqrt abs sin cos trim strlen length contains count
stringListIntersect stringListRegexpMember regexpMemberAny toString""".split()


def probe():
    if sys.argv[2] == "compat":
        os.environ["_CONDOR_STRICT_CLASSAD_EVALUATION"] = "true"
        import htcondor2  # noqa: F401
    import classad2 as c
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from oracle_lib import parse_expr
    ad = c.ClassAd()
    for n in NAMES:
        flat = ad.flatten(parse_expr(n + "(zz_unbound_arg)"))
        print("registered" if not isinstance(flat, c.Value) else "unknown")


if len(sys.argv) > 1 and sys.argv[1] == "--probe":
    probe()
    sys.exit(0)

cols = []
for mode in ("bare", "compat"):
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--probe", mode],
                       capture_output=True, text=True, check=True)
    cols.append(r.stdout.split())
print("# functions.golden: NAME<TAB>bare classad2<TAB>after import htcondor2 (compat). Names are case-insensitive.")
for n, a, b in zip(NAMES, *cols):
    print(f"{n}\t{a}\t{b}")
