#!/usr/bin/env python3
"""range.py RANGE.csv... - totals of `ncu --replay-mode app-range` exports
(measure/apply/torch_confirm): DRAM bytes read and written, L2 sectors
requested by the SMs (lts__t_sectors_srcunit_tex) and the hit rate as
1 - DRAM read / requested bytes, and lts__t_sector_hit_rate.  ranges(path)
is also what spmm_apply.sh compare reads an export with."""
import csv
import sys


def ranges(path):
    """The ranges of an app-range export (its rows after the header and the
    units), each a dict of column -> value: a float where it is a number."""
    rows = list(csv.reader(l for l in open(path, errors="replace") if l.startswith('"')))

    def value(v):
        try:
            return float(v.replace(",", ""))
        except ValueError:
            return v

    return [{c: value(v) for c, v in zip(rows[0], r)} for r in rows[2:]]


if __name__ == "__main__":
    print("%-40s %10s %10s %12s %9s %9s" % ("file", "rd MB", "wr MB", "sectors", "1-rd/req", "lts hit%"))
    for path in sys.argv[1:]:
        for g in ranges(path):
            rd, tex = g["dram__bytes_read.sum"], g["lts__t_sectors_srcunit_tex.sum"]
            print("%-40s %10.1f %10.1f %12d %8.2f%% %8.2f%%" % (path.split("/")[-1], rd / 1e6,
                                                               g["dram__bytes_write.sum"] / 1e6, tex,
                                                               100 * (1 - rd / (32 * tex)),
                                                               g["lts__t_sector_hit_rate.pct"]))
