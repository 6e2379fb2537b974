#!/bin/sh
# perkernel.sh capture|measure OUT W - a real program's kernels measured one
# by one without disturbing L2 between them, on the GPU machine, from the
# repository root after tools/validate/build-gpu.sh.  W: reuse
# (tools/validate/torch_reuse.py, 8 steps, stopped by L2SIM_UPTO), gather,
# partial, writeback, atomic, chain, adam, search, stride and kvcache
# (torch_gather.py, torch_partial.py, torch_writeback.py, torch_atomic.py,
# torch_chain.py, torch_adam.py, torch_search.py, torch_stride.py and
# torch_kvcache.py, the same way), hotcold (build/hotcold, 6 kernels, `--iters k` runs the first
# k) or spmm (build/spmm, 4 kernels, the same way; SPMM_OPTS, options
# for every run of it, say --x persisting).
# CONFIG: the l2sim configuration (default configs/h100.cfg).
#
#   capture  OUT/W.l2b.zst (l2trace --merge-lines), OUT/sim-W.csv (l2sim run
#            --csv of it) and OUT/sim-W.txt (the report): the model's
#            values, written down before the measurement
#   measure  for k = 1..N: `ncu --replay-mode app-range` of the program
#            stopped after step k into OUT/range-W-k.csv;
#            tools/validate/perkernel.py takes the differences into
#            OUT/ncu-W.csv (the form of an ncu per-kernel export), and
#            `l2sim run --ncu` sets the kernels beside them (OUT/vs-W.txt)
#
# Each range starts at the same point (the program's profiler start, after
# its set-up) and runs its kernels back to back as unprofiled, so kernel k's
# counters are range k's minus range k-1's.  Log: OUT/log.txt.
# shellcheck disable=SC2086,SC2012,SC2046
set -u
MODE=${1:?usage: perkernel.sh capture|measure OUT W}
O=${2:?usage: perkernel.sh capture|measure OUT W}
W=${3:?usage: perkernel.sh capture|measure OUT W}
B=${BUILD:-build}
CONFIG=${CONFIG:-configs/h100.cfg}
# upto K: the command that runs the program's first K steps
case $W in
reuse | gather | partial | writeback | atomic | chain | adam | search | stride | kvcache) # tools/validate/torch_W.py: its steps, one kernel each
    cmd="python3 tools/validate/torch_$W.py" n=8
    case $W in # the kernels l2trace keeps (--kernel): the steps'
    reuse) filt="" ;;
    gather) filt="--kernel gather_|index_copy" ;;
    partial) filt="--kernel FillFunctor" ;;
    writeback) filt="--kernel FillFunctor|reduce_kernel" ;;
    atomic) filt="--kernel indexFunc" n=4 ;;
    chain) filt="--kernel MulFunctor|Gelu|layer_norm|SoftMax|softmax_warp|direct_copy|CatArrayBatchedCopy|CUDAFunctor_add" n=10 ;;
    adam) filt="--kernel FusedAdam" n=7 ;;
    search) filt="--kernel searchsorted|reduce_kernel" n=6 ;;
    stride) filt="--kernel direct_copy|reduce_kernel" ;;
    kvcache) filt="--kernel EmbeddingBag_updateOutput" ;;
    esac
    upto() { echo "env L2SIM_UPTO=$1 $cmd"; } ;;
hotcold | spmm) # build/W: its kernels, the first K of them with --iters K
    case $W in
    hotcold) filt="--kernel step<" n=6 opts="" ;;
    spmm) filt="--kernel aggregate" n=4 opts=${SPMM_OPTS:-} ;;
    esac
    cmd="$B/$W --iters $n $opts"
    upto() { echo "$B/$W --iters $1 $opts"; } ;;
*) echo "perkernel.sh: unknown workload $W" >&2; exit 2 ;;
esac
mkdir -p "$O"
exec >>"$O/log.txt" 2>&1
echo "== $MODE $W ($cmd), $CONFIG, $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)"
case $MODE in
capture)
    timeout 300 "$B/l2trace" $filt --merge-lines -o "$O/$W.l2b.zst" -- $cmd
    echo "l2trace exit $?"
    "$B/l2sim" run --config "$CONFIG" --csv "$O/$W.l2b.zst" >"$O/sim-$W.csv"
    echo "l2sim --csv exit $?"
    "$B/l2sim" run --config "$CONFIG" "$O/$W.l2b.zst" >"$O/sim-$W.txt"
    echo "l2sim exit $?"
    ;;
measure)
    NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
    M=lts__t_sectors.sum,lts__t_sectors_lookup_hit.sum,lts__t_sectors_op_read.sum
    M=$M,lts__t_sectors_op_read_lookup_hit.sum,lts__t_sectors_srcunit_tex.sum,lts__t_sectors_srcunit_tex_op_read.sum
    M=$M,lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum,dram__bytes_read.sum,dram__bytes_write.sum
    M=$M,gpu__time_duration.sum # kept in the ranges; not a kernel time (perkernel.py)
    files=""
    k=1
    while [ $k -le $n ]; do
        timeout 300 "$NCU" --replay-mode app-range --csv --page raw --print-units base \
            --cache-control none --clock-control none --metrics "$M" $(upto $k) >"$O/range-$W-$k.csv" 2>"$O/range-$W-$k.log"
        echo "ncu up to step $k: exit $?"
        files="$files $O/range-$W-$k.csv"
        k=$((k + 1))
    done
    python3 tools/validate/perkernel.py "$O/sim-$W.csv" $files >"$O/ncu-$W.csv" 2>"$O/dram-$W.txt"
    echo "perkernel.py exit $?"
    "$B/l2sim" run --config "$CONFIG" --ncu "$O/ncu-$W.csv" "$O/$W.l2b.zst" 2>&1 |
        sed -n '/^measured by Nsight Compute/,$p' >"$O/vs-$W.txt"
    echo "l2sim --ncu: $(tail -1 "$O/vs-$W.txt")"
    ;;
*) echo "perkernel.sh: mode capture or measure" >&2; exit 2 ;;
esac
