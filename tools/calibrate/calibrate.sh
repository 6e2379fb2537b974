#!/bin/sh
# calibrate.sh BUILD [CONFIG [CSV...]] - runs every row of the calibration
# tables through l2sim and prints measured vs simulated hit rates and kernel
# times: for each, the mean absolute error and the worst row (for hit rates
# also the error of the far hits, hits less near-partition hits, and how
# many rows are off by more than 10 points).
#
# Each row's steps are turned into a trace by BUILD/scengen and simulated by
# BUILD/l2sim with CONFIG (default configs/h100.cfg); the row's measured
# kernel (the step marked '*', named "measured" in the trace; a row whose
# kernels run on two streams can mark several, which count together and
# have no time compared) is compared
# with the row's l2_hit_pct and near_hit_pct (l2_hit_pct is derived from DRAM
# traffic on both sides: 100 * (1 - DRAM read bytes / (sectors * 32)), so a
# fill of more than the missing sector counts against it, as on the GPU;
# near_hit_pct is the near-partition hits of loads over their sectors on
# both sides, read_near_sector_hits / read_sectors), and its est_ns with the row's
# kernel_ns (relative error).  kernel_ns is gpu__time_duration in the main
# table; a table whose kernel_ns is the %globaltimer span of the blocks
# instead (calibration/h100/extra.csv, see its .md) is compared after
# adding SPAN_OFFSET_NS (default 2100: the six rows measured both ways differ
# by 1920-2304 ns).  Rows run two at a time (JOBS).
# Rows of all the CSVs given that differ only in where their buffers lie
# (placement families, see family() below and calibration/h100/placement.md)
# are also compared by their means: the GPU's L2 hashes physical addresses,
# which a trace does not hold, so a model can give the mean over placements.
# Extra l2sim options can be passed in L2SIM_OPTS (e.g. "--set far_copy=0"),
# extra scengen options in SCENGEN_OPTS; with sm_map = table (the measured
# SM map, in CONFIG or L2SIM_OPTS) scengen gets --block-order measured.
set -eu
build=${1:-build}
config=${2:-configs/h100.cfg}
[ $# -gt 0 ] && shift
[ $# -gt 0 ] && shift
[ $# -gt 0 ] || set -- calibration/h100/measurements.csv
jobs=${JOBS:-2}
# a row's set-aside `max` is the configuration's setaside_max
smax=$(awk '$1 == "setaside_max" { print $3 }' "$config")
# a configuration with the measured SM map (sm_map = table, in the file or
# in L2SIM_OPTS) takes the measured block order, as on the GPU
smap=$(awk '$1 == "sm_map" { m = $3 } END { print m }' "$config")
case " ${L2SIM_OPTS:-} " in *sm_map=table*) smap=table ;; *sm_map=*) smap=other ;; esac
order=
if [ "$smap" = table ]; then order="--block-order measured"; fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for csv in "$@"; do
    [ -f "$csv" ] || { echo "calibrate: $csv: no such file" >&2; exit 2; }
    # ids of the rows (first field of every line after the header)
    tail -n +2 "$csv" | cut -d, -f1 | while read -r id; do
        [ -n "$id" ] || continue
        # ROWS="P04 P17" limits the run to those rows
        if [ -n "${ROWS:-}" ]; then case " $ROWS " in *" $id "*) ;; *) continue ;; esac; fi
        printf '%s\t%s\n' "$csv" "$id"
    done
done > "$tmp/rows"

run_row() {
    csv=$1 id=$2
    if ! "$build/scengen" ${smax:+--setaside-max "$smax"} $order ${SCENGEN_OPTS:-} --csv "$csv" --row "$id" |
        "$build/l2sim" run --config "$config" ${L2SIM_OPTS:-} --csv - > "$tmp/$id.csv" 2> "$tmp/$id.err"; then
        echo "calibrate: row $id failed: $(cat "$tmp/$id.err")" >&2
        return 1
    fi
}

# run rows with $jobs workers
i=0
while IFS="$(printf '\t')" read -r csv id; do
    run_row "$csv" "$id" &
    i=$((i + 1))
    if [ $((i % jobs)) -eq 0 ]; then wait; fi
done < "$tmp/rows"
wait

awk -F, -v tmp="$tmp" -v config="$config" -v span_offset="${SPAN_OFFSET_NS:-2100}" '
function unq(s) { gsub(/"/, "", s); return s }
function abs(x) { return x < 0 ? -x : x }
# the steps of the current row: the fields between the set-aside and the
# four measured columns, rejoined
function steps_of(n,   s, i) { s = $3; for (i = 4; i <= n - 4; i++) s = s "," $i; return unq(s) }
# The placement family of a row: its set-aside and steps with the regions
# (H, H+16, B, ...) renamed, so that rows whose buffers differ only in
# where they lie share it.  Regions of one buffer that overlap, directly or
# through others, form a group that keeps its inner layout (R1+0, R1+2);
# groups are numbered by first use and may lie anywhere.  A row with a
# window (set on the start of its buffer) stays alone.
function family(id, sa, s,   st, ns, i, f, r, nr, rid, reg, base, off, end, grp, lo, a, b, changed, g, ng, gid, key) {
    if (s ~ /window\(/) return "row " id
    ns = split(s, st, ";"); nr = 0
    for (i = 1; i <= ns; i++) {
        gsub(/^ +| +$/, "", st[i])
        if (st[i] !~ /^[A-Z](\+[0-9.]+)?:[0-9.]+:/) continue
        split(st[i], f, ":"); r = f[1]
        if (!(r in rid)) { rid[r] = ++nr; base[nr] = substr(r, 1, 1); off[nr] = end[nr] = r ~ /\+/ ? substr(r, 3) + 0 : 0; grp[nr] = nr }
        a = reg[i] = rid[r]
        if (off[a] + f[2] > end[a]) end[a] = off[a] + f[2]
    }
    do { # overlapping regions of a buffer share the lowest group number
        changed = 0
        for (a = 1; a <= nr; a++)
            for (b = a + 1; b <= nr; b++)
                if (base[a] == base[b] && off[a] < end[b] && off[b] < end[a] && grp[a] != grp[b]) {
                    g = grp[a] < grp[b] ? grp[a] : grp[b]; grp[a] = grp[b] = g; changed = 1
                }
    } while (changed)
    ng = 0
    for (a = 1; a <= nr; a++) {
        if (!(grp[a] in gid)) { gid[grp[a]] = ++ng; lo[grp[a]] = off[a] }
        if (off[a] < lo[grp[a]]) lo[grp[a]] = off[a]
    }
    key = sa
    for (i = 1; i <= ns; i++) {
        if ((a = reg[i]))
            sub(/^[^:]*/, "R" gid[grp[a]] "+" (off[a] - lo[grp[a]]), st[i])
        key = key "|" st[i]
    }
    return key
}
BEGIN { printf "%-5s %-9s %8s %8s %7s   %8s %8s %7s   %8s %8s %7s\n", "row", "setaside", "l2_meas", "l2_sim", "err", "near_mea", "near_sim", "err", "ns_meas", "ns_sim", "err%" }
FNR == 1 { span = FILENAME !~ /measurements\.csv$/; file[++nf] = FILENAME; next }
NF == 0 { next } # a blank line (the row list skips it too)
{
    # the steps field is quoted and holds commas: measured columns are the last four
    id = $1; sa = $2; n = NF
    meas = $(n - 2); near = $(n - 1); tmeas = $n == "" ? "" : $n + (span ? span_offset : 0)
    f = tmp "/" id ".csv"
    nm = 0; sdr = 0; ssc = 0; snh = 0; srs = 0; tsim = ""
    while ((getline line < f) > 0) {
        split(line, c, ",")
        if (c[2] == "measured" && c[sp] == "all") { nm++; sdr += c[dr]; ssc += c[sc]; snh += c[nh]; srs += c[rs]; tsim = c[tc] }
        if (c[1] == "index") { for (k in c) { if (c[k] == "dram_read_bytes") dr = k; if (c[k] == "scope") sp = k; if (c[k] == "sectors") sc = k; if (c[k] == "read_near_sector_hits") nh = k; if (c[k] == "read_sectors") rs = k; if (c[k] == "est_ns") tc = k } }
    }
    close(f)
    if (nm == 0) { if (system("test -f " f) == 0) { printf "%-5s no result\n", id; bad++ }; next }
    # the near-partition rate of loads, as the GPU counts it (read lookup
    # hits over read sectors): the sectors of stores are in neither
    sim = 100 * (1 - sdr / (32 * ssc)); nsim = srs ? 100 * snh / srs : 0
    e = sim - meas; ne = nsim - near
    nonear = near == "nan" # a kernel that reads nothing has no near-partition hit rate (stores)
    k = family(id, sa, steps_of(n))
    fn[k]++; fm[k] += meas; fs[k] += sim; if (fn[k] == 1) { fid[k] = id; flo[k] = fhi[k] = meas; nkeys++; keys[nkeys] = k }
    if (meas < flo[k]) flo[k] = meas
    if (meas > fhi[k]) fhi[k] = meas
    flast[k] = id
    ae = abs(e)
    sum[nf] += ae; rows[nf]++
    # the far hits (hits less near-partition hits) are off by e - ne
    if (!nonear) { nsum[nf] += abs(ne); farsum[nf] += abs(e - ne); nrows[nf]++ }
    nears = nonear ? sprintf("%8s %8.2f %7s", "-", nsim, "-") : sprintf("%8.2f %8.2f %+7.2f", near, nsim, ne)
    if (ae >= worst[nf]) { worst[nf] = ae; wid[nf] = id }
    if (ae > 10) big[nf]++
    if (nm > 1 || tmeas == "") {
        printf "%-5s %-9s %8.2f %8.2f %+7.2f   %s   %8s  %8s %7s\n", id, sa, meas, sim, e, nears, "-", "-", "-"
        next
    }
    te = 100 * (tsim - tmeas) / tmeas; ate = abs(te)
    printf "%-5s %-9s %8.2f %8.2f %+7.2f   %s   %8.0f%s %8.0f %+7.1f\n", id, sa, meas, sim, e, nears, tmeas, span ? "*" : " ", tsim, te
    g = span ? 2 : 1
    tsum[g] += ate; trows[g]++; if (ate > 50) tbad[g]++
    if (ate >= tworst[g]) { tworst[g] = ate; twid[g] = id; twe[g] = te }
}
END {
    printf "\n"
    for (i = 1; i <= nf; i++)
        if (rows[i]) printf "%s: %d rows, config %s: mean absolute error %.2f points (near-partition hit rate: %.2f, far hits: %.2f); worst row %s off by %.2f points; %d rows off by more than 10 points\n", file[i], rows[i], config, sum[i] / rows[i], nrows[i] ? nsum[i] / nrows[i] : 0, nrows[i] ? farsum[i] / nrows[i] : 0, wid[i], worst[i], big[i]
    if (trows[1]) printf "kernel time, %d rows (gpu__time_duration): mean absolute relative error %.1f%%; worst row %s off by %+.1f%%; %d rows off by more than 50%%\n", trows[1], tsum[1] / trows[1], twid[1], twe[1], tbad[1]
    if (trows[2]) printf "kernel time, %d rows (* block span + %d ns): mean absolute relative error %.1f%%; worst row %s off by %+.1f%%; %d rows off by more than 50%%\n", trows[2], span_offset, tsum[2] / trows[2], twid[2], twe[2], tbad[2]
    # placement families of two or more rows: their means, and every row
    # outside them with each family once by its mean
    nf2 = 0; fsum = 0; usum = 0; units = 0; fworst = -1
    for (i = 1; i <= nkeys; i++) {
        k = keys[i]; units++
        me = (fs[k] - fm[k]) / fn[k]; ame = abs(me); usum += ame
        if (fn[k] < 2) continue
        if (!nf2++) printf "\nplacement families (rows whose steps differ only in where their buffers lie):\n%-5s %-5s %5s %8s %8s %8s %8s %7s\n", "first", "last", "rows", "meas_min", "meas_max", "meas", "sim", "err"
        printf "%-5s %-5s %5d %8.2f %8.2f %8.2f %8.2f %+7.2f\n", fid[k], flast[k], fn[k], flo[k], fhi[k], fm[k] / fn[k], fs[k] / fn[k], me
        fsum += ame; frows += fn[k]
        if (ame > fworst) { fworst = ame; fwid = fid[k] }
    }
    if (nf2) {
        printf "%d placement families, %d rows: mean absolute error of the family means %.2f points; worst family %s off by %.2f points\n", nf2, frows, fsum / nf2, fwid, fworst
        printf "all rows, each placement family once by its mean: %d, mean absolute error %.2f points\n", units, usum / units
    }
    if (bad) { printf "%d rows without a result\n", bad; exit 1 }
}' "$@"
