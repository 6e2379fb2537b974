#!/bin/sh
# measure.sh OUT [WORKLOAD...] - real programs on the GPU machine: for each
# workload, Nsight Compute's per-kernel L2 counters of a native run, the
# wall time native and under l2trace, the captured trace, and l2sim's
# per-kernel report of it; then `l2sim advise` on the captures.  Run from
# the repository root after `make all l2trace` (BUILD=build).  Everything
# goes under OUT: ncu-W.csv, W.l2b.zst, sim-W.csv, vs-W.txt (l2sim run --ncu:
# each kernel beside its measurement), advise-W.json, log.txt.
#
# Workloads (tools/validate/): hotcold (8 kernels: a 16 MiB table re-read,
# 48 MiB streamed each), emb (embedding bag over 48.8 MiB), mlp (fp16 MLP,
# 3 x 32 MiB weights), block (fp16 transformer block).
#
# ncu: --cache-control none --clock-control none (the L2 keeps its state
# between kernels, as in l2sim), kernel replay, the metrics below.
# NCU_FROM=DIR takes ncu-W.csv from DIR (an earlier run) instead of
# measuring again: capture and simulation only.
set -u
O=${1:?usage: measure.sh OUT [WORKLOAD...]}
shift
WS=${*:-hotcold emb mlp block}
B=${BUILD:-build}
mkdir -p "$O"
exec >>"$O/log.txt" 2>&1
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors.sum,lts__t_sectors_op_read.sum
M=$M,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
export NCU M
now() { date +%s.%N; }
dt() { awk "BEGIN { printf \"%.2f\", $2 - $1 }"; }
[ -x "$B/hotcold" ] || nvcc -std=c++17 -O2 -arch=sm_90 -o "$B/hotcold" tools/validate/hotcold.cu ||
    echo "hotcold: build failed"
for w in $WS; do
    case $w in
    hotcold) cmd="$B/hotcold --iters 6"; filt="--kernel step<" ;;
    emb) cmd="python3 tools/validate/torch_emb.py"; filt="" ;;
    mlp) cmd="python3 tools/validate/torch_mlp.py"; filt="" ;;
    block) cmd="python3 tools/validate/torch_block.py"; filt="" ;;
    *) echo "unknown workload $w"; continue ;;
    esac
    echo "== $w: $cmd"
    a=$(now); timeout 120 $cmd; b=$(now)
    echo "native: $(dt "$a" "$b") s"
    if [ -n "${NCU_FROM:-}" ]; then
        cp "$NCU_FROM/ncu-$w.csv" "$O/ncu-$w.csv"
        echo "ncu: from $NCU_FROM"
    else
        timeout 150 "$NCU" --csv --page raw --print-units base --cache-control none --clock-control none \
            --metrics "$M" $cmd >"$O/ncu-$w.csv" 2>"$O/ncu-$w.log"
        echo "ncu exit $?: $(grep -c '^"[0-9]' "$O/ncu-$w.csv") kernels"
    fi
    a=$(now)
    # shellcheck disable=SC2086
    timeout 150 "$B/l2trace" $filt --merge-lines --max-bytes 3000000000 -o "$O/$w.l2b.zst" -- $cmd
    echo "l2trace exit $?"
    b=$(now)
    echo "captured: $(dt "$a" "$b") s, trace $(stat -c %s "$O/$w.l2b.zst" 2>/dev/null) bytes (zstd)"
    timeout 120 "$B/l2sim" run --config configs/h100.cfg --csv "$O/$w.l2b.zst" >"$O/sim-$w.csv" 2>"$O/sim-$w.log"
    echo "l2sim exit $?: $(($(wc -l <"$O/sim-$w.csv") - 1)) rows"
    # the kernels side by side with their measurement
    timeout 120 "$B/l2sim" run --config configs/h100.cfg --ncu "$O/ncu-$w.csv" "$O/$w.l2b.zst" 2>&1 |
        sed -n '/^measured by Nsight Compute/,$p' >"$O/vs-$w.txt"
    echo "l2sim --ncu: $(tail -1 "$O/vs-$w.txt")"
    timeout 120 "$B/l2sim" advise --config configs/h100.cfg --json "$O/$w.l2b.zst" >"$O/advise-$w.json" 2>&1
    echo "advise exit $?"
done
ls -la "$O"
