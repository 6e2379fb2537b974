#!/usr/bin/env python3
"""compare.py NCU.csv SIM.csv [--match REGEX] [--markdown] - a captured
program's kernels simulated (l2sim run --csv of its trace) next to Nsight
Compute's measurement of a native run (ncu --csv --page raw), matched in
launch order.  --match keeps the ncu kernels whose name matches REGEX (the
ones the capture's --kernel kept).  Prints per kernel: the measured and the
simulated L2 hit rate (all sectors and loads), DRAM bytes read, and the mean
absolute error of the hit rates in points over the kernels that count:
at least 1 MiB of L2 traffic measured, and a captured sector count within
a factor of 2 of the measured one (a kernel whose traffic the capture
cannot see, such as TMA copies, is listed as "not captured"; smaller
kernels as "small")."""
import csv
import re
import sys

MIN_SECTORS = (1 << 20) // 32


def ncu_rows(path, match):
    lines = [l for l in open(path, errors="replace") if l.startswith('"')]
    rows = list(csv.reader(lines))
    head, data = rows[0], rows[2:]  # the second row holds the units
    col = {h: i for i, h in enumerate(head)}
    out = []
    for r in data:
        name = r[col["Kernel Name"]]
        if match and not re.search(match, name):
            continue

        def num(m):
            v = r[col[m]].replace(",", "")
            return float(v) if v not in ("", "n/a") else float("nan")

        out.append({"name": name, "hit": num("lts__t_sector_hit_rate.pct"),
                    "read_hit": num("lts__t_sector_op_read_hit_rate.pct"), "sectors": num("lts__t_sectors.sum"),
                    "dram_rd": num("dram__bytes_read.sum"), "dram_wr": num("dram__bytes_write.sum"),
                    "ns": num("gpu__time_duration.sum")})
    return out


def sim_rows(path):
    out = []
    for r in csv.DictReader(open(path)):
        # a kernel's "all" row (older files: a buffer column, "(all)")
        if r.get("scope", "all") != "all" or r.get("buffer", "(all)") != "(all)" or r["index"] == "0":
            continue
        f = lambda k: float(r[k]) * 100 if r[k] != "" else float("nan")
        out.append({"name": r["kernel"], "hit": f("hit_rate"), "read_hit": f("read_hit_rate"),
                    "sectors": float(r["sectors"]), "dram_rd": float(r["dram_read_bytes"]),
                    "ns": float(r["est_ns"])})
    return out


def main():
    args = sys.argv[1:]
    match = None
    md = "--markdown" in args
    args = [a for a in args if a != "--markdown"]
    if "--match" in args:
        i = args.index("--match")
        match = args[i + 1]
        del args[i:i + 2]
    if len(args) != 2:
        sys.exit(__doc__)
    n, s = ncu_rows(args[0], match), sim_rows(args[1])
    if len(n) != len(s):
        print("warning: %d measured kernels, %d simulated; matching the first %d in launch order"
              % (len(n), len(s), min(len(n), len(s))), file=sys.stderr)
    errs, rerrs = [], []
    if md:
        print("| # | kernel | sectors (meas / sim) | hit % meas | hit % sim | load hit % meas | load hit % sim "
              "| DRAM rd MB meas | DRAM rd MB sim |")
        print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for i, (a, b) in enumerate(zip(n, s)):
        small = a["sectors"] < MIN_SECTORS
        seen = 0.5 <= b["sectors"] / a["sectors"] <= 2 if a["sectors"] else False
        big = not small and seen
        if big:
            errs.append(abs(a["hit"] - b["hit"]))
            if a["read_hit"] == a["read_hit"] and b["read_hit"] == b["read_hit"]:
                rerrs.append(abs(a["read_hit"] - b["read_hit"]))
        name = re.sub(r"\(.*", "", a["name"])[:48]
        note = " (small)" if small else " (not captured)" if not seen else ""
        row = (i + 1, name + note, "%.0f / %.0f" % (a["sectors"], b["sectors"]), a["hit"],
               b["hit"], a["read_hit"], b["read_hit"], a["dram_rd"] / 1e6, b["dram_rd"] / 1e6)
        if md:
            print("| %d | `%s` | %s | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |" % row)
        else:
            print("%3d %-56s %22s %7.2f %7.2f %7.2f %7.2f %9.2f %9.2f" % row)
    mae = sum(errs) / len(errs) if errs else float("nan")
    rmae = sum(rerrs) / len(rerrs) if rerrs else float("nan")
    print("%smean absolute error over the %d kernels that count: hit rate %.2f points, load hit rate %.2f points"
          % ("\n" if md else "", len(errs), mae, rmae))


if __name__ == "__main__":
    main()
