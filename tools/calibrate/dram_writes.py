#!/usr/bin/env python3
"""dram_writes.py BUILD CONFIG TABLES RAW... - DRAM writes and kernel time of
the measured kernel, GPU against model, for the rows of the calibration
tables that store.

TABLES is a glob of calibration CSVs (quote it); a row counts if its id and
steps are in them, its steps store (st, rmw, add) and a RAW file (the probe's
--raw output) holds dram__bytes_write.sum for it; the first RAW file that has
the row is used.  Each row's trace comes from BUILD/scengen as calibrate.sh
makes it (set-aside `max` is CONFIG's setaside_max; the measured block order
with sm_map = table), and BUILD/l2sim run --config CONFIG [L2SIM_OPTS]
simulates it.  Kernel time is the table's kernel_ns (plus SPAN_OFFSET_NS,
default 2100, for the span tables, as calibrate.sh does) against est_ns.
Prints one line per row and the mean absolute errors.
"""
import csv, glob, os, subprocess, sys

def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__.split('\n\n')[0])
    build, cfg, tables = sys.argv[1], sys.argv[2], sys.argv[3]
    opts = os.environ.get('L2SIM_OPTS', '').split()
    span = float(os.environ.get('SPAN_OFFSET_NS', '2100'))
    keys = dict(l.split('#')[0].split('=', 1) for l in open(cfg) if '=' in l.split('#')[0])
    keys = {k.strip(): v.strip() for k, v in keys.items()}
    gen = [build + '/scengen', '--setaside-max', keys['setaside_max']]
    # the SM map in force: the configuration's, or the last --set of L2SIM_OPTS (as calibrate.sh)
    smap = ([o.split('=', 1)[1] for o in opts if o.startswith('sm_map=')] or [keys.get('sm_map')])[-1]
    if smap == 'table':
        gen += ['--block-order', 'measured']
    tab = {}
    for t in sorted(glob.glob(tables)):
        for r in csv.DictReader(open(t, newline='')):
            tab[r['id']] = (r['steps'].strip(), r['kernel_ns'], not t.endswith('measurements.csv'))
    seen, n, werr, terr = set(), 0, 0.0, 0.0
    for raw in sys.argv[4:]:
        for r in csv.DictReader(open(raw, newline='')):
            rid, steps = r['id'].strip(), r['steps'].strip()
            if rid in seen or rid not in tab or tab[rid][0] != steps or not r.get('dram__bytes_write.sum'):
                continue
            if not any(k in steps for k in (':st:', ':rmw:', ':add:')):
                continue
            seen.add(rid)
            trace = subprocess.run(gen + ['--csv', raw, '--row', rid],
                                   capture_output=True, text=True, check=True).stdout
            out = subprocess.run([build + '/l2sim', 'run', '--config', cfg] + opts + ['--csv', '-'],
                                 input=trace, capture_output=True, text=True, check=True).stdout
            f = next(l.split(',') for l in out.splitlines()
                     if l.split(',')[1:2] == ['measured'] and l.split(',')[3] == 'all')
            mwr, swr = float(r['dram__bytes_write.sum']) / 1e6, float(f[14]) / 1e6
            ns = float(tab[rid][1]) + (span if tab[rid][2] else 0)
            te = (float(f[20]) - ns) / ns * 100
            n, werr, terr = n + 1, werr + abs(swr - mwr), terr + abs(te)
            print(f"{rid:5s} DRAM write MB {mwr:7.2f} model {swr:7.2f}  time {ns:7.0f} ns model {te:+6.1f}%  {steps}")
    if n:
        print(f"{n} rows: DRAM writes off by {werr / n:.2f} MB, kernel time by {terr / n:.1f}% (mean absolute)")

if __name__ == '__main__':
    main()
