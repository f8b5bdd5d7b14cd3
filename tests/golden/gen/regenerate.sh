#!/bin/sh
# Regenerates every golden file under tests/golden/ (not run by CI; needs the oracle venv and faketime).
#   python3 -m venv /work/oracle-venv && /work/oracle-venv/bin/pip install htcondor
#   apt-get install -y faketime
# Usage: sh gen/regenerate.sh [PATH_TO_SHARED_CONFORMANCE]   (run from tests/golden)
set -e
CONF=${1:-/work/shared/conformance}
PY=${PY:-/work/oracle-venv/bin/python}
run() { env TZ=UTC faketime -f '2024-01-02 03:04:05' "$PY" "$@"; }
python3 gen/make_exprs.py
run gen/gen_tests.py "$CONF/htcondor-tests.txt" > tests.golden
rm -rf real-ads && mkdir real-ads
run gen/gen_real_ads.py old "$CONF/real-ads" real-ads
run gen/gen_real_ads.py new "$CONF/real-ads" real-ads
rm -rf real-ads/.newsyntax
run gen/gen_exprs.py gen/exprs.txt > exprs.golden
run gen/gen_functions.py > functions.golden
run gen/gen_unparse.py unparse.golden unparse-ads.golden parse.golden
# Random JSON documents through HTCondor's JSON reader (parse.golden's format).
run gen/random_json.py 1 3000 > random-json.golden
{ run gen/gen_cycle_real_ads.py old "$CONF/real-ads"; run gen/gen_cycle_real_ads.py new "$CONF/real-ads"; } > cycle-real-ads.golden
{ run gen/gen_analyze_real_ads.py old "$CONF/real-ads"; run gen/gen_analyze_real_ads.py new "$CONF/real-ads"; } > analyze-real-ads.golden
run gen/gen_gangs.py > gangs/gangs.golden
# Random gangs: a request with ports and three or four random offers, 200 cases.
run gen/random_gangs.py 2 200 > gangs/random-gangs.golden
# Differential runs of random input: 10,000 expressions, three random pools.
T=$(mktemp -d)
{ for s in 1 2 3 4; do python3 gen/random_exprs.py $s 1000 compat; done
  for s in 40 41; do python3 gen/random_exprs.py $s 1000 old; done
  # The wider grammar: operators without parentheses, the elvis, every function.
  for s in 900 901 902; do python3 gen/random_exprs.py $s 1000 compat v2; done
  python3 gen/random_exprs.py 940 1000 old v2; } > "$T/random.txt"
run gen/gen_exprs.py "$T/random.txt" > "$T/random.raw"
python3 gen/random_exprs.py --keep "$T/random.raw" > random.golden
# Random lexemes: numbers, strings, comments and punctuation glued together.
for s in 1 2 3; do python3 gen/random_lexemes.py $s 1000 new; done > "$T/lexemes.txt"
run gen/gen_exprs.py "$T/lexemes.txt" > lexemes.golden
# Random countMatches/evalInEachContext calls written inside the ads of a match.
{ for s in 1 2 3 4 5; do python3 gen/random_contexts.py $s 20 10 old; done
  for s in 11 12 13 14 15; do python3 gen/random_contexts.py $s 20 10 compat; done; } > "$T/contexts.txt"
run gen/gen_exprs.py "$T/contexts.txt" > contexts.golden
for s in 1 2 3; do
  python3 gen/random_pools.py gen $s 300 100 "$T/pool$s"
  run gen/random_pools.py oracle "$T/pool$s" old
  run gen/random_pools.py oracle "$T/pool$s" new
done
# A fourth pool drawn with --wild: expression-valued attributes (cycles through the other ad),
# odd case, absent names in ifThenElse/elvis, reals vs integers, list literals, Start.
python3 gen/random_pools.py gen 1017 300 100 "$T/wild1017" --wild
run gen/random_pools.py oracle "$T/wild1017" old
run gen/random_pools.py oracle "$T/wild1017" new
python3 gen/random_pools.py golden "$T/pool1" "$T/pool2" "$T/pool3" "$T/wild1017" > random-pools.golden
rm -rf "$T"
# Random constraints over the first random pool's machines.
T=$(mktemp -d)
python3 gen/random_pools.py gen 1 300 100 "$T/pool1"
python3 gen/random_queries.py gen - 21 400 > "$T/c.txt"
run gen/random_queries.py oracle "$T/pool1" "$T/c.txt" > "$T/c.jsonl"
python3 gen/random_queries.py golden "$T/pool1" "$T/c.txt" "$T/c.jsonl" > random-queries.golden
rm -rf "$T"
# Analyses of random requests over random pools.
T=$(mktemp -d)
for s in 11 12 13; do
  python3 gen/random_analyze.py gen $s 300 40 "$T/a$s"
  run gen/random_analyze.py oracle "$T/a$s" old
  run gen/random_analyze.py oracle "$T/a$s" new
done
python3 gen/random_analyze.py gen 3009 300 40 "$T/awild3009" --wild
run gen/random_analyze.py oracle "$T/awild3009" old
run gen/random_analyze.py oracle "$T/awild3009" new
python3 gen/random_analyze.py golden "$T/a11" "$T/a12" "$T/a13" "$T/awild3009" > random-analyze.golden
rm -rf "$T"
# Ranked cycles over random pools (the fourth without compatibility functions, as the
# negotiator harness of benches/htcondor has none; it has -0.0 rank ties).
T=$(mktemp -d)
for s in 1 2 3; do python3 gen/random_pools.py gen $s 300 150 "$T/rc$s" --ranks; done
python3 gen/random_pools.py gen 52 400 200 "$T/rc4" --ranks --no-compat
python3 gen/random_pools.py gen 2013 300 150 "$T/rcwild2013" --ranks --wild
run gen/random_cycles.py "$T/rc1" "$T/rc2" "$T/rc3" "$T/rc4" "$T/rcwild2013" > random-cycles.golden
rm -rf "$T"
# Random ads as HTCondor prints them in old and new syntax.
run gen/random_old_ads.py 5 500 random-old-ads
