#!/bin/sh
# torch_confirm.sh OUT - advise on a captured PyTorch program, and its
# suggestions that PyTorch can apply (torch_apply.py) measured on the GPU:
# torch_hotcold.py captured (OUT/torch_hotcold.l2b.zst, its output in
# OUT/torch_hotcold-capture.out), advised (--top 16,
# OUT/advise-torch_hotcold.json), then measured by ncu over its profiled
# range as it is and with each such suggestion applied
# (OUT/range-torch_hotcold-{base,sugN}.csv).  Run from
# the repository root after build-gpu.sh.
set -u
O=${1:?usage: torch_confirm.sh OUT}
B=${BUILD:-build}
mkdir -p "$O"
exec >>"$O/log.txt" 2>&1
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=lts__t_sector_hit_rate.pct,lts__t_sectors.sum,lts__t_sectors_srcunit_tex.sum
M=$M,lts__t_sectors_srcunit_tex_op_read.sum,dram__bytes_read.sum,dram__bytes_write.sum
P="python3 tools/validate/torch_hotcold.py"
echo "== capture"
timeout 200 "$B/l2trace" --merge-lines -o "$O/torch_hotcold.l2b.zst" -- $P >"$O/torch_hotcold-capture.out"
echo "l2trace exit $?"
timeout 200 "$B/l2sim" advise --config configs/h100.cfg --top 16 --json "$O/torch_hotcold.l2b.zst" \
    >"$O/advise-torch_hotcold.json"
echo "advise exit $?"
ncu() {
    name=$1
    shift
    timeout 150 "$NCU" --replay-mode app-range --csv --page raw --print-units base --cache-control none \
        --clock-control none --metrics "$M" "$@" >"$O/range-torch_hotcold-$name.csv"
    echo "ncu $name exit $?"
}
ncu base $P
python3 tools/validate/torch_apply.py "$O/advise-torch_hotcold.json" "$O/torch_hotcold-capture.out" |
    while read -r rank env; do
        echo "suggestion $rank: $env"
        # shellcheck disable=SC2086
        ncu "sug$rank" env $env $P </dev/null
    done
