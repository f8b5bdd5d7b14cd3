"""Random gangs through HTCondor's own library (classad2), in gangs.golden's format: each case
a random request with ports and three or four random offers (ports of their own, or none: the
implicit port `other`), every complete gang tree's Figure-32 environment evaluated by classad2
(`gen_gangs.py` does the enumerating and evaluating). Never run by CI; see regenerate.sh.

Usage: python random_gangs.py SEED CASES [--wild] > ../gangs/random-gangs.golden

`--wild` (not in the committed file) adds labels written in another case, attributes named
like labels (bound to values or ads), selections through `MY`, `parent` and `TARGET` of the
other ad, `.X` (the outermost scope), `ifThenElse`, string functions and nested ad literals.

The ads read each other through their ports' labels, `MY`, `TARGET`, `other` and `parent`, at
both levels (an attribute of the port record shadows the ad's), through attributes that are
expressions (reading the docked ads in turn), with undefined attributes, mixed types, the
elvis, `isUndefined`, `=?=` and arithmetic: what the gang index converts and what it leaves to
evaluation.
"""
import random
import sys

import gen_gangs

REQUEST_LABELS = ["cpu", "lic", "disk"]
OFFER_LABELS = ["job", "m", "ctl"]
ATTRS = ["K", "Key", "Size", "Need", "Arch", "Host"]
STRINGS = ['"a"', '"b"', '"X86_64"', '"h1"']


class Gen:
    def __init__(self, seed, wild=False):
        self.r = random.Random(seed)
        self.wild = wild

    def pick(self, xs):
        return xs[self.r.randrange(len(xs))]

    def const(self):
        k = self.r.randrange(10)
        if k < 6:
            return str(self.r.randrange(0, 4))
        if k < 9:
            return self.pick(STRINGS)
        return self.pick(["true", "undefined", "2.5"])

    def ref(self, labels):
        """A reference: through a label of the ad's ports, MY, TARGET, other, parent or bare."""
        a = self.pick(ATTRS)
        if self.wild and self.r.random() < 0.3:
            return self.wild_ref(labels, a)
        k = self.r.randrange(12)
        if k < 6 and labels:
            return f"{self.pick(labels)}.{a}"
        return [f"{a}", f"MY.{a}", f"TARGET.{a}", f"other.{a}", f"parent.{a}", f"{a}"][k % 6]

    def wild_ref(self, labels, a):
        label = self.pick(labels) if labels else "other"
        return self.pick([
            f"{label.upper()}.{a}",
            f"{label}.MY.{a}",
            f"{label}.parent.{a}",
            f"{label}.TARGET.{a}",
            f"{label}.{a.lower()}",
            f".{a}",
            f"MY.parent.{a}",
            f"parent.parent.{a}",
            f"[{a} = 2; Y = {a}].Y",
            f"ifThenElse({label}.{a} > 1, {label}.{a}, MY.{a})",
            f"{label}",
        ])

    def atom(self, labels):
        if self.wild and self.r.random() < 0.2:
            x = self.ref(labels)
            return self.pick([
                f"toUpper({x}) == \"A\"",
                f"size({x}) > 0",
                f"strcmp({x}, \"b\") >= 0",
                f"isError({x})",
                f"{x} is undefined",
                f"int({x}) == 1",
                f"isClassAd({x})",
            ])
        k = self.r.randrange(14)
        op = self.pick(["==", "!=", "<", "<=", ">", ">=", "=?=", "=!="])
        if k < 7:
            return f"{self.ref(labels)} {op} {self.const()}"
        if k == 7:
            return f"isUndefined({self.ref(labels)})"
        if k == 8:
            return f"({self.ref(labels)} ?: {self.const()}) {op} {self.const()}"
        if k == 9:
            return f"{self.ref(labels)} + {self.ref(labels)} {op} {self.const()}"
        if k == 10:
            return f"{self.ref(labels)} {op} {self.ref(labels)}"
        if k == 11:
            return f"!({self.ref(labels)} {op} {self.const()})"
        if k == 12:
            return self.pick(["true", "true", "false", "undefined"])
        return f"member({self.ref(labels)}, {{1, 2, \"a\"}})"

    def constraint(self, labels):
        """One to three atoms; often lenient, so that some trees are valid."""
        if self.r.random() < 0.25:
            return "true"
        n = self.r.randrange(1, 4)
        parts = [self.atom(labels) for _ in range(n)]
        out = parts[0]
        for p in parts[1:]:
            out = f"{out} {self.pick(['&&', '||', '||'])} {p}"
        return out

    def other_ref(self, labels):
        """A reference to another ad: through a label, TARGET or other (an ad's attributes
        reading its own are refused when they make a cycle)."""
        a = self.pick(ATTRS)
        if labels and self.r.random() < 0.7:
            return f"{self.pick(labels)}.{a}"
        return f"{self.pick(['TARGET', 'other'])}.{a}"

    def attrs(self, labels, count):
        """Attribute definitions: literals, mostly, some expressions reading other ads."""
        out = []
        for a in self.r.sample(ATTRS, count):
            if self.wild and labels and self.r.random() < 0.1:
                # An attribute named like a label: the name is the attribute's, not the port's.
                value = self.pick(["[K = 1; Key = 2]", "3", '"cpu"'])
                out.append(f"{self.pick(labels)} = {value}")
            elif self.r.random() < 0.25:
                out.append(f"{a} = {self.other_ref(labels)}{self.pick(['', ' + 1', ' * 2'])}")
            else:
                out.append(f"{a} = {self.const()}")
        return out

    def ad(self, pool, plain_ok):
        """An ad whose ports are labelled from `pool` (or, sometimes, a plain ad)."""
        if plain_ok and self.r.random() < 0.2:
            key = self.pick(["Requirements", "Constraint"])
            body = self.attrs([], self.r.randrange(1, 4))
            body.append(f"{key} = {self.constraint([])}")
            return "[" + "; ".join(body) + "]"
        nports = 1 if self.r.random() < 0.6 else 2
        labels = self.r.sample(pool, nports)
        ports = []
        for i, label in enumerate(labels):
            # A port reads the labels of itself and the ports before it (a later port's
            # label is refused: docking goes port by port).
            known = labels[: i + 1]
            body = [f"Label = {label}"]
            if self.r.random() < 0.3:
                body += self.attrs(known, 1)
            key = self.pick(["Requirements", "Constraint"])
            body.append(f"{key} = {self.constraint(known)}")
            ports.append("[" + "; ".join(body) + "]")
        body = self.attrs(labels, self.r.randrange(1, 5))
        body.append("Ports = {" + ", ".join(ports) + "}")
        return "[" + "; ".join(body) + "]"

    def case(self):
        request = self.ad(REQUEST_LABELS, False)
        offers = [self.ad(OFFER_LABELS, True) for _ in range(self.r.randrange(3, 5))]
        return [request] + offers


def main():
    seed, n = int(sys.argv[1]), int(sys.argv[2])
    g = Gen(seed, "--wild" in sys.argv[3:])
    gen_gangs.CASES.clear()
    for i in range(n):
        gen_gangs.CASES[f"r{seed}_{i}"] = g.case()
    gen_gangs.main()


if __name__ == "__main__":
    main()
