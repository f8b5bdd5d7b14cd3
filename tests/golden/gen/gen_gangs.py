"""Golden gangs: HTCondor's own library (classad2) evaluating the dissertation's Figure-32
environment (run with the htcondor venv, never by CI; see regenerate.sh).

For each case (the request first, then the offers), every complete gang tree is enumerated
(every free offer docked by every one of its ports at every open port, each ad at most once),
the Figure-32 environment of each is built as text and every docked port's constraint is
evaluated in it by classad2. Output, one JSON object per line:
  {"case": name, "ads": [text, ...]}
  {"case": name, "tree": [[ad, parent_member, parent_port, own_port], ...],
   "values": [[member, port, "<value>"], ...], "valid": true|false}
Member 0 is the request (parent -1). The Rust test rebuilds each environment, compares every
value, and checks that every algorithm finds a gang exactly when a valid tree exists, and that
the gang it finds is one classad2 calls valid.
"""
import json
import re

import classad2 as c

CASES = {
    # Figure 32: the environment of the base workload's gang, with distractors.
    "fig32": [
        '[Ports = {[Label = Cpu; MemoryReqs = 2.86041e+06; ImageSize = 1.34615e+07; '
        'Constraint = cpu.Arch == "INTEL" && cpu.OpSys == "LINUX" && cpu.VirtualMemory > ImageSize], '
        '[Label = License; HostId = cpu.Key; Constraint = License.App == "app1"]}]',
        '[Key = 90; OpSys = "LINUX"; VirtualMemory = 427.836M; Memory = 800M; Arch = "INTEL"; Type = "Machine"; '
        'Ports = {[Label = Job; Constraint = Job.MemoryReqs < Memory - 15M]}]',
        '[Type = "License"; App = "app1"; Ports = {[Label = Job; Constraint = Job.HostID >= 50 && Job.HostId < 100]}]',
        '[Type = "License"; App = "app1"; Ports = {[Label = Job; Constraint = Job.HostID >= 0 && Job.HostId < 50]}]',
    ],
}


def figure(name):
    with open(f"../dissertation/{name}") as f:
        return "".join(l for l in f if not l.lstrip().startswith("//"))


CASES["fig28_30"] = [
    figure("fig30_base_job.ad"),
    figure("fig28_base_machine.ad"),
    figure("fig28_base_machine.ad").replace('"WINNT40"', '"LINUX"').replace("143", "144"),
    figure("fig29_base_license.ad"),
]
CASES["fig08"] = [
    figure("fig08_port_labels.ad"),
    '[Arch = "INTEL"; OpSys = "LINUX"; VirtualMemory = 30M; Subnet = "a"; MIPS = 10; Requirements = true]',
    '[Arch = "INTEL"; OpSys = "LINUX"; VirtualMemory = 64M; Subnet = "b"; MIPS = 20; Requirements = true]',
    '[Arch = "INTEL"; OpSys = "LINUX"; VirtualMemory = 64M; Subnet = "a"; KFlops = 5; Requirements = other.Owner == "raman"]',
]
# Depth 2: the machine's second port wants a scratch disk on its own host.
CASES["depth2"] = [
    '[Owner = "ann"; Ports = {[Label = cpu; Need = 5; Requirements = cpu.Memory >= 64], '
    '[Label = lic; HostId = cpu.Key; Requirements = lic.App == "sim"]}]',
    '[Key = 1; Memory = 128; Host = "h1"; Ports = {[Label = job; Requirements = job.Need < 10], '
    '[Label = disk; Requirements = disk.Host == Host && disk.Free > job.Need]}]',
    '[Key = 2; Memory = 32; Host = "h2"; Ports = {[Label = job; Requirements = true], [Label = disk; Requirements = true]}]',
    '[Host = "h1"; Free = 3; Ports = {[Label = m; Requirements = m.Memory > 0]}]',
    '[Host = "h1"; Free = 30; Ports = {[Label = m; Requirements = m.Memory > 0]}]',
    '[App = "sim"; Ports = {[Label = job; Requirements = job.HostId == 1]}]',
]
# Depth 3: job -> machine -> disk -> controller, reading back up the chain.
CASES["depth3"] = [
    '[Need = 2; Ports = {[Label = cpu; Requirements = cpu.Arch == "X86_64"]}]',
    '[Arch = "X86_64"; Ports = {[Label = job; Requirements = job.Need <= 4], [Label = disk; Requirements = disk.Size > job.Need]}]',
    '[Size = 1; Ports = {[Label = m; Requirements = true], [Label = ctl; Requirements = ctl.Kind == "raid"]}]',
    '[Size = 8; Ports = {[Label = m; Requirements = m.Arch == "X86_64"], [Label = ctl; Requirements = ctl.Kind == "raid" && ctl.Max >= Size]}]',
    '[Kind = "raid"; Max = 4; Ports = {[Label = d; Requirements = d.Size <= Max]}]',
    '[Kind = "raid"; Max = 16; Ports = {[Label = d; Requirements = d.Size <= Max]}]',
]
# HTCondor's plain ads: the implicit port other, TARGET and MY.
CASES["plain"] = [
    '[RequestMemory = 100; Owner = "bob"; Requirements = TARGET.Memory >= MY.RequestMemory && other.Arch == "X86_64"]',
    '[Memory = 50; Arch = "X86_64"; Requirements = TARGET.Owner == "bob"]',
    '[Memory = 500; Arch = "X86_64"; Requirements = TARGET.RequestMemory < MY.Memory]',
    '[Memory = 900; Arch = "ARM"; Requirements = true]',
]
# MY in a port: under old-ClassAd semantics the port record (falling through to its ad), not
# the context's `MY = _ad`.
CASES["my_scope"] = [
    '[X = 1; Ports = {[Label = a; X = 2; Constraint = MY.X == 1 && a.Y == 3 && X == 2]}]',
    '[Y = 3; Requirements = TARGET.X == 2]',
    '[Y = 3; Ports = {[Label = b; Constraint = b.X == 2 && b.MY.X == 1]}]',
]


def plain(text):
    """TEXT with the dissertation's scale suffixes (`25.7M`: reals, powers of 1024), which
    HTCondor lacks, written out as reals."""
    scale = {"K": 1024.0, "M": 1024.0**2, "G": 1024.0**3}
    return re.sub(r"\b(\d+(?:\.\d+)?)([KMG])\b", lambda m: repr(float(m.group(1)) * scale[m.group(2)]), text)


def ports(ad):
    """[(label, constraint attribute)] of an ad; the implicit port for an ad without Ports."""
    if "Ports" not in ad:
        key = "Requirements" if "Requirements" in ad else "Constraint"
        return [("other", key)], True
    out = []
    for p in ad.eval("Ports"):
        label = p.lookup("Label")
        label = str(label).strip('"')
        key = "Requirements" if "Requirements" in p else "Constraint"
        out.append((label, key))
    return out, False


def path(tree, info, k, j):
    if info[tree[k][0]][1]:
        return f"_ctx_{k}._ad"
    return f"_ctx_{k}._ad.Ports[{j}]"


def environment(texts, info, tree):
    docked = {}
    for i, (ad, pm, pp, own) in enumerate(tree):
        if pm >= 0:
            docked[(pm, pp)] = (i, own)
            docked[(i, own)] = (pm, pp)
    ctxs = []
    for i, (ad, _, _, _) in enumerate(tree):
        ps, implicit = info[ad]
        binds = []
        for p, (label, _) in enumerate(ps):
            k, j = docked[(i, p)]
            binds.append(f"{label} = {path(tree, info, k, j)}")
            if implicit:
                binds.append(f"TARGET = {path(tree, info, k, j)}")
        binds.append("MY = _ad")
        binds.append(f"_ad = {texts[ad]}")
        ctxs.append(f"_ctx_{i} = [ " + "; ".join(binds) + " ]")
    return c.ClassAd("[ " + ";\n".join(ctxs) + " ]")


def trees(info, n):
    """Every complete tree rooted at ad 0 over ads 1..n-1."""
    out = []

    def fill(tree, open_):
        if not open_:
            out.append(list(tree))
            return
        (m, p) = open_[-1]
        rest = open_[:-1]
        used = {t[0] for t in tree}
        for ad in range(1, n):
            if ad in used:
                continue
            nports = len(info[ad][0])
            for own in range(nports):
                tree.append((ad, m, p, own))
                k = len(tree) - 1
                fill(tree, rest + [(k, j) for j in range(nports) if j != own])
                tree.pop()

    fill([(0, -1, -1, -1)], [(0, p) for p in range(len(info[0][0]))])
    return out


# Found by a differential run of random gangs against classad2 (session 20): scopes the
# indexed algorithms' port views must keep, as the environment does.
CASES['A_adlevel_scope_offer'] = ["[Ports = {[Label = cpu; Requirements = cpu.X == 1]}]", "[X = Y; Y = 1; Ports = {[Label = job; Y = 2; Requirements = true]}]"]
CASES['A_adlevel_scope_own'] = ["[Ports = {[Label = Cpu; Constraint = true]}]", "[D2 = App - 2; Ports = {[Label = \"other\"; App = true; Requirements = isUndefined(D2)]}]"]
CASES['A_adlevel_scope_request'] = ["[Need = 1; D = Need; Ports = {[Label = cpu; Need = 5; Requirements = true]}]", "[Ports = {[Label = job; Requirements = job.D == 1]}]"]
CASES['B_label_bound_offer'] = ["[Ports = {[Label = Cpu; Requirements = true]}]", "[Ports = {[Label = job; job = [Arch = \"INTEL\"]; Requirements = job.Arch >= \"ann\"]}]"]
CASES['B_label_bound_request'] = ["[cpu = [Arch = \"INTEL\"; Key = 1]; Ports = {[Label = cpu; Requirements = cpu.Key != 2]}]", "[Ports = {[Label = m; Requirements = true]}]"]
CASES['C_other_label_offer'] = ["[Ports = {[Label = lic; Requirements = isUndefined(lic.Size)]}]", "[Ports = {[Label = other; Requirements = true], [Label = ctl; Requirements = other.Size != 100]}]", "[Size = true; Ports = {[Label = m; Requirements = true]}]"]
CASES['C_other_label_request'] = ["[Ports = {[Label = other; Requirements = true], [Label = lic; Requirements = other.Size == 1]}]", "[Size = 1; Ports = {[Label = m; Requirements = true]}]", "[Size = 2; Ports = {[Label = m; Requirements = true]}]"]
CASES['D_elvis'] = ["[Ports = {[Label = cpu; Requirements = cpu.Memory ?: 0 >= 64]}]", "[Memory = 128; Ports = {[Label = job; Requirements = true]}]"]
CASES['E_unbound_request'] = ["[Ports = {[Label = cpu; Requirements = isUndefined(Memory) && isUndefined(TARGET.Memory) && cpu.Memory > 1]}]", "[Memory = 4; Ports = {[Label = job; Requirements = true]}]", "[Memory = 0; Ports = {[Label = job; Requirements = true]}]"]
CASES['E_unbound_offer'] = ["[Need = 3; Ports = {[Label = cpu; Requirements = true]}]", "[Ports = {[Label = job; Requirements = isUndefined(TARGET.Need) && isUndefined(other.Need) && isUndefined(Need) && job.Need > 1]}]"]
CASES['F_my_shadowed'] = ["[Ports = {[Label = cpu; Requirements = cpu.W == 1 && cpu.Z == 1]}]", "[Y = 1; W = MY.Y; Ports = {[Label = job; Y = 2; Z = parent.Y; Requirements = true]}]", "[Y = 2; W = MY.Y; Ports = {[Label = job; Y = 1; Z = parent.Y; Requirements = true]}]"]
CASES['G_other_label_bare'] = ["[Ports = {[Label = b; Requirements = isUndefined(b.Q)], [Label = a; Requirements = b =!= undefined && a.K == 1]}]", "[K = 1; Ports = {[Label = r; Requirements = true]}]", "[K = 2; Ports = {[Label = r; Requirements = true]}]"]
CASES['H_alias_chain'] = ["[Ports = {[Label = cpu; Requirements = cpu.X == 3]}]", "[X = Y + Z; Y = Z + 1; Z = 1; Ports = {[Label = job; Y = 10; Z = 20; Requirements = job.X =?= undefined]}]", "[X = Y + Z; Y = 1; Z = 5; Ports = {[Label = job; Z = 2; Requirements = true]}]"]


# A plain member whose Requirements reaches itself through its own attribute (session 25): the
# environment reaches it through a reference, holding it in progress (true), where a bilateral
# match reads it at the top level (false); the gang index must convert it as the environment.
CASES['I_requirements_cycle'] = ["[Requirements = other.K == 1 || other.K == 2]", "[Requirements = isUndefined(x); x = Requirements; K = 1]", "[Requirements = !isUndefined(x); x = Requirements; K = 2]"]

def main():
    # HTCondor's daemons evaluate with old-ClassAd semantics, as adjoin does by default (MY then
    # names the record an expression is written in: in a port, the port record, whose scope
    # falls through to its ad; CurrentTime is a keyword). classad2 switches to them, for the
    # whole process, on its first ClassAd.eval; do so before anything is evaluated.
    c.ClassAd("[x = 1]").eval("x")
    for name, texts in CASES.items():
        texts = [plain(" ".join(t.split())) for t in texts]
        ads = [c.ClassAd(t) for t in texts]
        info = [ports(a) for a in ads]
        print(json.dumps({"case": name, "ads": texts}))
        for tree in trees(info, len(texts)):
            env = environment(texts, info, tree)
            values = []
            for i, (ad, _, _, _) in enumerate(tree):
                for p, (_, key) in enumerate(info[ad][0]):
                    v = c.ExprTree(f"{path(tree, info, i, p)}.{key}").simplify(env)
                    values.append([i, p, repr(v)])
            valid = all(v[2] == "true" for v in values)
            print(json.dumps({"case": name, "tree": [list(t) for t in tree], "values": values, "valid": valid}))


if __name__ == "__main__":
    main()
