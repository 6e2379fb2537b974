#!/usr/bin/env python3
"""predict.py ADVISE.json TRACE FIRST [L2SIM] - what the model predicts for
a program's profiled range under each suggestion: runs `l2sim run --policy`
with each suggestion's --policy lines (and the baseline) on TRACE, and sums
the kernels from index FIRST on (the ones inside the range), so that the
prediction covers what `ncu --replay-mode app-range` measures.  Prints the
DRAM bytes read and the hit rate per plan."""
import csv
import io
import json
import subprocess
import sys
import tempfile

adv, trace, first = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3])
l2sim = sys.argv[4] if len(sys.argv) > 4 else "build/l2sim"


def run(policy):
    args = [l2sim, "run", "--config", "configs/h100.cfg", "--csv", trace]
    with tempfile.NamedTemporaryFile("w", suffix=".policy") as f:
        if policy:
            f.write(policy)
            f.flush()
            args[2:2] = ["--policy", f.name]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    s = h = rd = 0
    for r in csv.DictReader(io.StringIO(out)):
        if r["scope"] == "all" and int(r["index"]) >= first:
            s, h, rd = s + int(r["sectors"]), h + int(r["sector_hits"]), rd + int(r["dram_read_bytes"])
    return s, h, rd


base = run(None)
print("plan     DRAM read MB  change   hit %")
print("baseline %12.1f          %6.2f" % (base[2] / 1e6, 100 * base[1] / base[0]))
for sg in adv["suggestions"]:
    s, h, rd = run(sg["policy"])
    print("sug%-5d %12.1f %+6.1f%%  %6.2f" % (sg["rank"], rd / 1e6, 100 * (rd - base[2]) / base[2], 100 * h / s))
