#!/bin/sh
# spmm_apply.sh predict|measure|compare OUT - tools/validate/spmm.cu under the
# buffer properties that `l2sim advise` suggests for its capture and a few
# it does not, each predicted by `l2sim run --policy` on the capture and
# measured by Nsight Compute over the program's profiled range (its four
# kernels back to back, --replay-mode app-range), on the GPU machine after
# tools/validate/build-gpu.sh.  The capture's buffers: buf1 x (64 MiB at
# 0x7f318a000000), buf2 y, buf3 vals, buf5 cols.
#
#   predict  OUT/predict.txt: per variant, the DRAM bytes read and written
#            and the estimated time of the four kernels (TRACE, default
#            calibration/h200/real/spmm.l2b.xz; CONFIG, default
#            configs/h200.cfg)
#   measure  OUT/range-V.csv per variant, and three unprofiled runs' kernel
#            time of each (OUT/log.txt)
#   compare  OUT/compare.txt: OUT/predict.txt beside the measured DRAM
#            bytes (OUT/range-V.csv, read by range.py's ranges), each read
#            as a change from the program as it is (base), and the median
#            of the three times
# shellcheck disable=SC2012
set -u
MODE=${1:?usage: spmm_apply.sh predict|measure|compare OUT}
O=${2:?usage: spmm_apply.sh predict|measure|compare OUT}
B=${BUILD:-build}
TRACE=${TRACE:-calibration/h200/real/spmm.l2b.xz}
CONFIG=${CONFIG:-configs/h200.cfg}
X=0x7f318a000000
# name | the program's options | the policy lines (";" between lines)
VARIANTS="base||
sug1|--vals streaming --cols streaming --y streaming|assign buf3 streaming;assign buf5 streaming;assign buf2 streaming
sug2|--cols streaming --y streaming|assign buf5 streaming;assign buf2 streaming
y-streaming|--y streaming|assign buf2 streaming
x-streaming|--x streaming|assign buf1 streaming
x-persisting|--x persisting --setaside 39321600|setaside 39321600;assign buf1 persisting
window-8mib|--window 1.0 --window-mib 8 --setaside 11796480|setaside 11796480;window $X 8MiB 1.0 persisting streaming stream=1
x-y-streaming|--x streaming --y streaming|assign buf1 streaming;assign buf2 streaming
x-streaming-max|--x streaming --setaside 39321600|setaside 39321600;assign buf1 streaming
edges-streaming|--cols streaming --vals streaming|assign buf5 streaming;assign buf3 streaming"
mkdir -p "$O"
case $MODE in
predict)
    printf '%-14s %14s %14s %12s\n' variant dram-read-B dram-write-B est-ns >"$O/predict.txt"
    echo "$VARIANTS" | while IFS='|' read -r name _ pol; do
        echo "$pol" | tr ';' '\n' >"$O/$name.policy"
        "$B/l2sim" run --config "$CONFIG" --policy "$O/$name.policy" --csv "$TRACE" >"$O/$name.csv" || exit 1
        awk -F, -v n="$name" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
            $c["scope"] == "all" && $c["index"] == 0 { printf "%-14s %14d %14d %12.1f\n", n, $c["dram_read_bytes"], $c["dram_write_bytes"], $c["est_ns"] }' \
            "$O/$name.csv" >>"$O/predict.txt"
        rm -f "$O/$name.policy" "$O/$name.csv"
    done
    ;;
measure)
    exec >>"$O/log.txt" 2>&1
    NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    M=lts__t_sectors.sum,lts__t_sectors_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum
    echo "$VARIANTS" | while IFS='|' read -r name opts _; do
        # shellcheck disable=SC2086
        timeout 120 "$NCU" --replay-mode app-range --csv --page raw --print-units base --cache-control none \
            --clock-control none --metrics "$M" "$B/spmm" $opts </dev/null >"$O/range-$name.csv" 2>"$O/range-$name.log"
        echo "ncu $name ($opts): exit $?"
        # shellcheck disable=SC2086
        for _ in 1 2 3; do echo "time $name $("$B/spmm" $opts </dev/null | awk '/^kernels/ { print $4 }') ms"; done
    done
    ;;
compare)
    python3 - "$O" >"$O/compare.txt" <<'PY'
import statistics, sys
sys.path.insert(0, "tools/validate")
from range import ranges
o = sys.argv[1]
pred = {l.split()[0]: l.split()[1:] for l in open(o + "/predict.txt").readlines()[1:]}
times = {}
for l in open(o + "/log.txt"):
    if l.startswith("time "):
        times.setdefault(l.split()[1], []).append(float(l.split()[2]))
meas = {n: ranges("%s/range-%s.csv" % (o, n))[0] for n in pred if n in times}  # those measured in this run
b_prd, b_rd = int(pred["base"][0]) / 1e6, meas["base"]["dram__bytes_read.sum"] / 1e6  # the program as it is
print("%-13s %10s %10s %8s %8s %10s %10s %9s %9s" % ("variant", "rd pred", "rd meas", "pred %", "meas %",
                                                    "wr pred", "wr meas", "est us", "meas us"))
for name in meas:
    rd, wr = meas[name]["dram__bytes_read.sum"] / 1e6, meas[name]["dram__bytes_write.sum"] / 1e6
    prd, pwr, est = int(pred[name][0]) / 1e6, int(pred[name][1]) / 1e6, float(pred[name][2]) / 1e3
    print("%-13s %10.2f %10.2f %+7.1f%% %+7.1f%% %10.2f %10.2f %9.1f %9.1f" % (
        name, prd, rd, 100 * (prd / b_prd - 1), 100 * (rd / b_rd - 1), pwr, wr, est,
        1e3 * statistics.median(times[name])))
PY
    ;;
*) echo "spmm_apply.sh: mode predict, measure or compare" >&2; exit 2 ;;
esac
