#!/usr/bin/env python3
"""perkernel.py SIM.csv RANGE-1.csv ... RANGE-N.csv - per-kernel counters of
a program's last N kernels from N `ncu --replay-mode app-range` exports
whose ranges all start at the same point and end after kernel 1, 2, ...,
N (tools/validate/perkernel.sh): kernel k's counters are range k's minus
range k-1's, so every kernel runs as unprofiled, after the kernels before
it, with no profiler work between them (kernel replay disturbs L2 between
kernels: README, Real programs on the H100 and the H200).

Writes, on standard output, a CSV in the form of `ncu --csv --page raw
--print-units base` (header, units row, one row per kernel) that `l2sim run
--ncu` reads: the kernels' names are the last N of SIM.csv (`l2sim run
--csv` of the program's capture), the rates are the differenced counts'
(lts__t_sector_hit_rate.pct = 100 * lookup hits / sectors, as Nsight
Compute defines it).  On standard error, each kernel's DRAM reads beside
the model's (SIM.csv) and the load hit rate they give, 1 - DRAM read /
(32 * load sectors): the hit rate hwprobe measures (lookup hits count the
far partition's lookups and the profiler's traffic too, and differenced
ranges make them noisy).  gpu__time_duration.sum is "n/a": a range's duration
runs from the profiler's start to its stop, host time included, so the
differences are not the kernels' times (seen: -18 to +68 ms)."""
import csv
import sys

SUMS = ["lts__t_sectors.sum", "lts__t_sectors_lookup_hit.sum", "lts__t_sectors_op_read.sum",
        "lts__t_sectors_op_read_lookup_hit.sum", "lts__t_sectors_srcunit_tex.sum",
        "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum",
        "dram__bytes_read.sum", "dram__bytes_write.sum"]
UNITS = {"dram__bytes_read.sum": "byte", "dram__bytes_write.sum": "byte"}


def fail(msg):
    sys.exit("perkernel.py: " + msg)


def range_totals(path):
    """The metrics of the one range of an app-range export, in base units."""
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) != 3:
        fail("%s: %d rows after the header and units, one range expected" % (path, len(rows) - 2))
    col = {h: i for i, h in enumerate(rows[0])}
    out = {}
    for m in SUMS:
        if m not in col:
            fail("%s: no column %s" % (path, m))
        out[m] = float(rows[2][col[m]].replace(",", ""))
    return out


def main():
    if len(sys.argv) < 3:
        fail("usage: perkernel.py SIM.csv RANGE-1.csv ... RANGE-N.csv")
    sim = [r for r in csv.DictReader(open(sys.argv[1])) if r["scope"] == "all" and r["index"] != "0"]  # 0: totals
    ranges = [range_totals(p) for p in sys.argv[2:]]
    n = len(ranges)
    if len(sim) < n:
        fail("%s: %d kernels, %d ranges" % (sys.argv[1], len(sim), n))
    sim = sim[-n:]
    hdr = ["ID", "Kernel Name", "lts__t_sector_hit_rate.pct", "lts__t_sector_op_read_hit_rate.pct"] + SUMS
    w = csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n")
    w.writerow(hdr + ["gpu__time_duration.sum"])
    w.writerow(["", "", "%", "%"] + [UNITS.get(m, "sector") for m in SUMS] + ["ns"])
    print("%3s %-40s %12s %10s %10s %9s %9s" % ("#", "kernel", "load sect", "DRAM MB", "sim MB", "load hit%",
                                                  "sim hit%"), file=sys.stderr)
    err = []
    prev = {m: 0.0 for m in SUMS}
    for k, (sk, tot) in enumerate(zip(sim, ranges)):
        name = sk["kernel"]
        d = {m: tot[m] - prev[m] for m in SUMS}
        prev = tot
        ld, rd = d["lts__t_sectors_srcunit_tex_op_read.sum"], d["dram__bytes_read.sum"]
        srd, sld = float(sk["dram_read_bytes"]), float(sk["read_sectors"])
        hits = "%9s %9s" % ("-", "-")
        if ld > 0 and sld > 0:
            hm, hs = 100 * (1 - rd / (32 * ld)), 100 * (1 - srd / (32 * sld))
            err.append(abs(hs - hm))
            hits = "%9.2f %9.2f" % (hm, hs)
        print("%3d %-40.40s %12.0f %10.2f %10.2f %s" % (k + 1, name, ld, rd / 1e6, srd / 1e6, hits), file=sys.stderr)
        rate = lambda hit, all_: "%.4f" % (100 * d[hit] / d[all_]) if d[all_] > 0 else "n/a"
        w.writerow([str(k), name, rate("lts__t_sectors_lookup_hit.sum", "lts__t_sectors.sum"),
                    rate("lts__t_sectors_op_read_lookup_hit.sum", "lts__t_sectors_op_read.sum")] +
                   ["%.0f" % d[m] for m in SUMS] + ["n/a"])
    if err:
        print("mean absolute error of the load hit rate over %d kernels: %.2f points" % (len(err), sum(err) / len(err)),
              file=sys.stderr)


main()
