#!/usr/bin/env python3
"""check.py EXPECT TRACE.txt - checks a captured trace (l2sim convert to
text) record by record against what a test program printed it must
contain (tests/cuda/common.h describes the expectation lines).

Directives (kernel, setaside, window, reset, event, sync, alloc/free of the
program's buffers) must come in the expected order, with nothing else in
between except alloc/free lines of other allocations (the CUDA runtime's
own).  The accesses of each kernel must be exactly the expected ones, in
any order (warps run in any order), each with sm= below the SM count.
Prints what differs; exit 0 when everything matches, 1 otherwise.
"""
import collections
import re
import sys


def parse_expect(path):
    sms, items = None, []
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "sms":
            sms = int(w[1])
        elif w[0] in "RWPAD" and len(w[0]) == 1:
            items[-1]["acc"][(w[0], int(w[1], 16), int(w[2]))] += 1
        elif w[0] == "kernel":
            items.append({"kind": "kernel", "re": w[1], "attrs": [a for a in w[2:] if a != "observe"],
                          "observe": "observe" in w, "acc": collections.Counter()})
        elif w[0] == "alloc":
            items.append({"kind": "alloc", "base": int(w[1], 16), "bytes": int(w[2])})
        elif w[0] == "free":
            items.append({"kind": "free", "base": int(w[1], 16)})
        else:
            items.append({"kind": "line", "text": " ".join(w)})
    return sms, items


def parse_trace(path):
    out = []  # (words, accesses Counter, sms seen) per directive
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] in "RWPAD" and len(w[0]) == 1:
            if not out or out[-1][0][0] != "kernel":
                out.append((["(access outside a kernel)"], collections.Counter(), []))
            sm = [int(x[3:]) for x in w[3:] if x.startswith("sm=")]
            tag = [x for x in w[3:] if not x.startswith("sm=") and not x.startswith("@")]
            out[-1][1][(w[0], int(w[1], 16), int(w[2]))] += 1
            out[-1][2].append((sm[0] if sm else None, tag[0] if tag else None, w[0]))
        else:
            out.append((w, collections.Counter(), []))
    return out


def main():
    sms, exp = parse_expect(sys.argv[1])
    tr = parse_trace(sys.argv[2])
    names = {}  # base -> allocation name
    errors = []
    ti = 0
    for e in exp:
        # skip the runtime's own allocations
        while ti < len(tr) and tr[ti][0][0] in ("alloc", "free") and not (
                e["kind"] == "alloc" and tr[ti][0][0] == "alloc" and int(tr[ti][0][2], 16) == e["base"]) and not (
                e["kind"] == "free" and tr[ti][0][0] == "free" and tr[ti][0][1] == names.get(e["base"])):
            ti += 1
        if ti >= len(tr):
            errors.append("trace ends; expected %s" % e)
            break
        w, acc, info = tr[ti]
        ti += 1
        if e["kind"] == "alloc":
            if w[0] != "alloc" or int(w[2], 16) != e["base"] or int(w[3]) < e["bytes"]:
                errors.append("expected alloc at 0x%x of %d bytes, got: %s" % (e["base"], e["bytes"], " ".join(w)))
            else:
                names[e["base"]] = w[1]
                print("ok: %s" % " ".join(w))
        elif e["kind"] == "free":
            if w != ["free", names.get(e["base"], "?")]:
                errors.append("expected free of %s, got: %s" % (names.get(e["base"]), " ".join(w)))
            else:
                print("ok: %s" % " ".join(w))
        elif e["kind"] == "line":
            if " ".join(w) != e["text"]:
                errors.append("expected '%s', got '%s'" % (e["text"], " ".join(w)))
            else:
                print("ok: %s" % e["text"])
        else:
            if w[0] != "kernel" or not re.search(e["re"], w[1]) or sorted(w[2:]) != sorted(e["attrs"]):
                errors.append("expected kernel %s %s, got: %s" % (e["re"], " ".join(e["attrs"]), " ".join(w)))
                continue
            n = sum(acc.values())
            if e["observe"]:
                ops = collections.Counter((k[0], k[2]) for k in acc.elements())
                tags = collections.Counter(i[1] for i in info)
                print("observed: %s: %d accesses %s tags %s (predicted %d)" % (
                    " ".join(w), n, dict(ops), dict(tags), sum(e["acc"].values())))
                for k in sorted(acc)[:4]:
                    print("  %s 0x%x %d x%d" % (k[0], k[1], k[2], acc[k]))
                continue
            bad_sm = [i for i in info if i[0] is None or (sms is not None and not 0 <= i[0] < sms)]
            tagged = [i for i in info if i[1] is not None]
            if acc != e["acc"]:
                missing = e["acc"] - acc
                extra = acc - e["acc"]
                errors.append("kernel %s: %d accesses, expected %d; %d missing (e.g. %s), %d unexpected (e.g. %s)" % (
                    w[1], n, sum(e["acc"].values()), sum(missing.values()), sorted(missing)[:3],
                    sum(extra.values()), sorted(extra)[:3]))
            elif bad_sm:
                errors.append("kernel %s: %d accesses without sm= below %s, e.g. %s" % (w[1], len(bad_sm), sms, bad_sm[:3]))
            elif tagged:
                errors.append("kernel %s: %d tagged accesses (expected untagged), e.g. %s" % (w[1], len(tagged), tagged[:3]))
            else:
                smset = sorted(set(i[0] for i in info))
                print("ok: %s: %d accesses match, untagged, %d SMs (%s..%s)" % (
                    " ".join(w), n, len(smset), smset[0] if smset else "-", smset[-1] if smset else "-"))
    rest = [t for t in tr[ti:] if t[0][0] not in ("alloc", "free")]
    if rest:
        errors.append("unexpected trace lines after the last expected one: %s" % [" ".join(t[0]) for t in rest[:5]])
    for m in errors:
        print("FAIL: " + m)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
