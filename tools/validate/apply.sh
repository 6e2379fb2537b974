#!/bin/sh
# apply.sh OUT - the advice applied on the GPU machine and measured with
# Nsight Compute over the programs' profiled range as a whole
# (--replay-mode app-range: the kernels run back to back, as unprofiled;
# per-kernel replay disturbs L2 between kernels, tools/hwprobe/README.md):
# hotcold as it is and with each of advise's three suggestions for its
# capture (advise-hotcold.json: buf2 is the 512 MiB stream, buf1 the 16 MiB
# table), and torch_emb as it is and with a window over its table.  Also
# three unprofiled runs of each hotcold variant (its kernels' time).
set -u
O=${1:?usage: apply.sh OUT}
B=${BUILD:-build}
exec >>"$O/log.txt" 2>&1
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=lts__t_sector_hit_rate.pct,lts__t_sector_op_read_hit_rate.pct,lts__t_sectors.sum,lts__t_sectors_op_read.sum
M=$M,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_op_read.sum
M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__bytes_read.sum,dram__bytes_write.sum
ncu() {
    name=$1
    shift
    echo "== $name: $*"
    timeout 120 "$NCU" --replay-mode app-range --csv --page raw --print-units base --cache-control none \
        --clock-control none --metrics "$M" "$@" >"$O/range-$name.csv" 2>"$O/range-$name.log"
    echo "ncu exit $?"
}
H="$B/hotcold --iters 6"
ncu hotcold-base $H
ncu hotcold-sug1 $H --stream streaming
ncu hotcold-sug2 $H --hot persisting --setaside 29491200
ncu hotcold-sug3 $H --window 0.9375 --setaside 29491200
for v in "" "--stream streaming" "--hot persisting --setaside 29491200" "--window 0.9375 --setaside 29491200"; do
    # shellcheck disable=SC2086
    for r in 1 2 3; do echo "time [$v] $($H $v | awk '/^kernels/ { print $4 }') ms"; done
done
ncu emb-base python3 tools/validate/torch_emb.py
ncu emb-window env L2_SETASIDE=32768000 L2_WINDOW="table::0.9375:persisting:streaming" python3 tools/validate/torch_emb.py
