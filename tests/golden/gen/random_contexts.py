#!/usr/bin/env python3
"""Random `countMatches`/`evalInEachContext` calls written inside the ads of a match, for a
differential run against HTCondor's library (exprs.txt format).

    python3 random_contexts.py SEED SECTIONS CALLS [old|compat] > contexts.txt
    TZ=UTC faketime -f '2024-01-02 03:04:05' VENV/bin/python gen_exprs.py contexts.txt > contexts.golden

Each section draws a MY ad and a TARGET ad (a job and a slot, either way round) holding lists of
nested ads (written in place, or as references to attributes holding ads, with non-ad elements,
undefined and absent lists), names shared between the nested ads and both top-level ads (so a
name can resolve in the nested ad, around it, in the other ad of the match or nowhere), and
CALLS attributes `rN = countMatches(SUBJECT, LIST)` or `evalInEachContext(...)` of MY. The
expressions evaluated are `MY.rN`: the calls stay where a user writes them, inside an ad, so the
nested ads written in place have that ad as their lexical parent (a top-level expression of the
oracle would live in classad2's wrapper ad instead). SUBJECT is an attribute reference (bare,
`MY.`, `TARGET.`, absolute `.x`, naming an expression or a literal or nothing) or an expression
over such names; LIST a reference to a list (either ad's, scoped or not, absent) or a list
written in place.
"""
import random, sys

seed, sections, calls = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
mode = sys.argv[4] if len(sys.argv) > 4 else "old"
r = random.Random(seed)

NAMES = ["Capability", "MinCap", "Name", "a", "b", "Mem", "Tag", "GlobalMemoryMB"]
LISTS = ["AvailableGPUs", "DetectedGPUs", "Devs", "L"]


def scalar():
    return r.choice(['1', '2', '7', '0', '-3', '2.5', '"GRX"', '"tesla"', 'true', 'false',
                     'undefined', 'error', '5.0', '4'])


def name_ref(depth=0):
    n = r.choice(NAMES + ["Nowhere"])
    k = r.random()
    if k < 0.55:
        return n
    if k < 0.7:
        return "MY." + n
    if k < 0.85:
        return "TARGET." + n
    if k < 0.92:
        return "." + n
    return r.choice(["parent.", "other.", "parent.my.", "parent.target."]) + n


def expr(depth=0):
    k = r.random()
    if depth > 1 or k < 0.35:
        return r.choice([name_ref(depth), name_ref(depth), scalar()])
    if k < 0.75:
        op = r.choice([">=", "<", "==", "=?=", "+", "*", "&&", "||", "=!="])
        return f"{expr(depth + 1)} {op} {expr(depth + 1)}"
    f = r.choice(["isUndefined", "isError", "int", "strcat", "ifThenElse"])
    if f == "ifThenElse":
        return f"ifThenElse({expr(depth + 1)}, {expr(depth + 1)}, {expr(depth + 1)})"
    if f == "strcat":
        return f"strcat({expr(depth + 1)}, {expr(depth + 1)})"
    return f"{f}({expr(depth + 1)})"


def nested_ad():
    attrs = []
    for n in r.sample(NAMES, r.randint(0, 4)):
        attrs.append(f"{n} = {expr(1) if r.random() < 0.3 else scalar()}")
    return "[ " + "; ".join(attrs) + " ]"


def top_ad(prefix):
    attrs, tags = [], []
    for n in r.sample(NAMES, r.randint(2, len(NAMES))):
        attrs.append(f"{n} = {expr(1) if r.random() < 0.35 else scalar()}")
    for i in range(r.randint(1, 3)):
        tag = f"{prefix}{i}"
        tags.append(tag)
        attrs.append(f"{tag} = {nested_ad()}")
    for ln in r.sample(LISTS, r.randint(1, 3)):
        items = []
        for _ in range(r.randint(0, 3)):
            k = r.random()
            if k < 0.45:
                items.append(r.choice(tags))
            elif k < 0.8:
                items.append(nested_ad())
            else:
                items.append(r.choice(["1", '"x"', "undefined", "Nowhere", "error"]))
        attrs.append(f"{ln} = {{ {', '.join(items)} }}" if r.random() < 0.9 else f"{ln} = undefined")
    for n in ["Requirement" + str(i) for i in range(r.randint(0, 2))]:
        attrs.append(f"{n} = {expr()}")
    return attrs


def list_arg():
    k = r.random()
    if k < 0.6:
        ln = r.choice(LISTS + ["NoList"])
        return r.choice(["", "", "MY.", "TARGET.", "."]) + ln
    items = [r.choice([nested_ad(), nested_ad(), "G0", "T0", "undefined", "3"])
             for _ in range(r.randint(0, 3))]
    return "{ " + ", ".join(items) + " }"


def subject():
    k = r.random()
    if k < 0.5:
        return name_ref()
    if k < 0.6:
        return r.choice(["Requirement0", "Requirement1", "MY.Requirement0", "TARGET.Requirement0"])
    return expr()


for s in range(sections):
    my = top_ad("G")
    target = top_ad("T")
    rs = []
    for i in range(calls):
        f = r.choice(["countMatches", "evalInEachContext"])
        rs.append(f"r{i} = {f}({subject()}, {list_arg()})")
    print(f"## section contexts-{seed}-{s}")
    print(f"## mode {mode}")
    print("## my [ " + "; ".join(my + rs) + " ]")
    print("## target [ " + "; ".join(target) + " ]")
    for i in range(calls):
        print(f"MY.r{i}")
