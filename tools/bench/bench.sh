#!/bin/sh
# bench.sh BUILD - the driver of `make bench`: speed and memory of BUILD/l2sim
# against the yardstick (tools/bench/yardstick.c: the tightest
# one-lookup-per-line sectored LRU simulator over the same trace) on two
# generated traces of BENCH_N accesses (default 50,000,000): `tracegen
# bench` (the mix of every kind of record) and `tracegen embed` (random
# 16-byte loads).  Each measurement is repeated BENCH_RUNS times (default
# 3); a repetition runs the programs compared one after the other, ratios
# are taken within a repetition and their median is reported (the shared
# machine's speed drifts by tens of percent within minutes).
#
#   per trace: l2sim (binary input, one thread) and the yardstick,
#     interleaved; l2sim's time as a multiple of the yardstick's; l2sim's
#     peak resident memory
#   bench trace: --threads 2, and `compare` with 4 variants against 4
#     separate runs, beside two one-thread runs at once (what the cores
#     give); text input; the reader alone
#
# all with configs/h100.cfg, hardware semantics, the report going to
# /dev/null.  The traces are kept in BUILD/bench/ and reused.  Quick look:
# BENCH_N=5000000 make bench.
#
# $RUN below is a command with its options, split into words on purpose.
# shellcheck disable=SC2086,SC2046
set -eu
BUILD=${1:?usage: bench.sh BUILD}
N=${BENCH_N:-50000000}
RUNS=${BENCH_RUNS:-3}
L2SIM=$BUILD/l2sim
CFG=configs/h100.cfg
DIR=$BUILD/bench
TIMES=$DIR/times.$$

cd "$(dirname "$0")/../.."
case $N in '' | *[!0-9]*) echo "bench: BENCH_N must be a number" >&2; exit 2 ;; esac
case $RUNS in '' | 0 | *[!0-9]*) echo "bench: BENCH_RUNS must be a positive number" >&2; exit 2 ;; esac
tools/deps.sh time || { echo "bench: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
mkdir -p "$DIR"
trap 'rm -f "$TIMES" "$TIMES".* "$DIR"/*.tmp "$DIR/stderr" "$DIR/ratios"' EXIT INT TERM

say() { echo "bench: $*" >&2; }

# The traces, once; the binaries again whenever the format's sources changed.
for kind in bench embed; do
    trace=$DIR/$kind-$N.trace
    bin=$DIR/$kind-$N.l2b
    if [ ! -s "$trace" ]; then
        say "generating $trace ($N accesses)"
        "$BUILD/tracegen" $kind "$N" >"$trace.tmp"
        mv "$trace.tmp" "$trace"
    fi
    if [ ! -s "$bin" ] || [ -n "$(find "$trace" sim/trace_bin.c sim/trace_impl.h -newer "$bin")" ]; then
        say "converting to $bin"
        "$L2SIM" convert "$trace" "$bin.tmp"
        mv "$bin.tmp" "$bin"
    fi
done
LIBS="$BUILD/libl2sim.a $(pkg-config --libs zlib libzstd liblzma 2>/dev/null || echo -lz -lzstd -llzma) -lm -pthread"
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Isim -o "$DIR/readspeed" tools/bench/readspeed.c $LIBS
# the yardstick for the build's instruction set (AVX2 tag compares)
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L $(grep -o -- '-march=[^ ]*\|-mno-avx512f' "$BUILD/.flags" | tr '\n' ' ') \
    -Isim -o "$DIR/yardstick" tools/bench/yardstick.c $LIBS

# timed CMD...: runs CMD with its output to /dev/null; appends "SECONDS KIB" to $TIMES.
timed() {
    if ! /usr/bin/time -f '%e %M' -o "$TIMES.one" "$@" >/dev/null 2>"$DIR/stderr"; then
        say "failed: $*"
        cat "$DIR/stderr" >&2
        exit 1
    fi
    tail -n 1 "$TIMES.one" >>"$TIMES"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# rate SECONDS COUNT: millions of COUNT per second
rate() { awk -v n="$2" -v s="$1" 'BEGIN { if (s >= 0.01) printf "%.1f", n / s / 1e6; else print "(too short)" }'; }
# col FILE K: column K of FILE's lines (1: seconds, 2: KiB)
col() { cut -d' ' -f"$2" "$1"; }
# ratio A B: per repetition, seconds in A / seconds in B, then the median
ratio() { paste -d' ' "$1" "$2" | awk '{ print ($3 > 0 ? $1 / $3 : 0) }' | median; }
fmt() { awk -v r="$1" 'BEGIN { printf "%.2f", r }'; }
verdict() { if awk "BEGIN { exit !($1) }"; then echo "met"; else echo "MISSED"; fi; }

RUN="$L2SIM run --config $CFG --semantics hardware"
ROWS=

# l2sim against the yardstick on each trace, one run of each per repetition
for kind in bench embed; do
    bin=$DIR/$kind-$N.l2b
    cat "$bin" >/dev/null # warm
    LINES=$("$DIR/yardstick" "$bin" | awk '{ print $2 }')
    : >"$TIMES.l"
    : >"$TIMES.y"
    i=1
    while [ "$i" -le "$RUNS" ]; do
        say "$kind trace: l2sim and the yardstick, repetition $i of $RUNS"
        : >"$TIMES"
        timed $RUN "$bin"
        timed "$DIR/yardstick" "$bin"
        sed -n 1p "$TIMES" >>"$TIMES.l"
        sed -n 2p "$TIMES" >>"$TIMES.y"
        i=$((i + 1))
    done
    L=$(col "$TIMES.l" 1 | median)
    Y=$(col "$TIMES.y" 1 | median)
    # a ratio only when the yardstick's time can be measured (10 ms)
    if awk -v y="$Y" 'BEGIN { exit !(y >= 0.01) }'; then
        X=$(fmt "$(ratio "$TIMES.l" "$TIMES.y")")
        XS="${X}x" V=$(verdict "$X <= 3")
    else
        XS="-" V="(too short)"
    fi
    RSS=$(col "$TIMES.l" 2 | sort -g | tail -n 1)
    RSS=$(awk -v k="$RSS" 'BEGIN { printf "%.1f", k / 1024 }')
    ROWS="$ROWS$(printf '%-8s %10s %9s %9s %12s %12s %8s %-7s %8s' "$kind" "$LINES" "$L" "$Y" \
        "$(rate "$L" "$LINES")" "$(rate "$Y" "$LINES")" "$XS" "$V" "$RSS")
"
done

# the bench trace: --threads 2 and two one-thread runs at once
BIN=$DIR/bench-$N.l2b
: >"$TIMES.b"
: >"$TIMES.c"
: >"$TIMES.p"
i=1
while [ "$i" -le "$RUNS" ]; do
    say "--threads 2 and two runs at once, repetition $i of $RUNS"
    : >"$TIMES"
    timed $RUN "$BIN"
    timed $RUN --threads 2 "$BIN"
    timed sh -c "$RUN \"\$1\" & p=\$!; $RUN \"\$1\" && wait \$p" sh "$BIN"
    sed -n 1p "$TIMES" >>"$TIMES.b"
    sed -n 2p "$TIMES" >>"$TIMES.c"
    sed -n 3p "$TIMES" >>"$TIMES.p"
    i=$((i + 1))
done
SPEEDUP=$(ratio "$TIMES.b" "$TIMES.c")
PAIR=$(paste -d' ' "$TIMES.b" "$TIMES.p" | awk '{ print ($3 > 0 ? 2 * $1 / $3 : 0) }' | median)

# `compare` with four variants that differ in what they simulate
# (NAME:SETTING) against four separate runs
VARIANTS="base:far_copy=1 nocopy:far_copy=0 seed1:policy_seed=1 hash7:hash_seed=7"
CMP_ARGS=
for v in $VARIANTS; do
    CMP_ARGS="$CMP_ARGS --variant name=${v%%:*},set=${v#*:}"
done
: >"$DIR/ratios"
i=1
while [ "$i" -le "$RUNS" ]; do
    say "compare with 4 variants, repetition $i of $RUNS"
    : >"$TIMES"
    timed "$L2SIM" compare --config "$CFG" --semantics hardware $CMP_ARGS "$BIN"
    for v in $VARIANTS; do
        timed $RUN --set "${v#*:}" "$BIN"
    done
    awk 'NR == 1 { c = $1 } NR > 1 { s += $1 } END { if (s > 0) print c / s; else print 0 }' "$TIMES" >>"$DIR/ratios"
    i=$((i + 1))
done
D_RATIO=$(median <"$DIR/ratios")

# median_of CMD...: the median seconds of RUNS runs of CMD
median_of() {
    : >"$TIMES"
    i=1
    while [ "$i" -le "$RUNS" ]; do
        timed "$@"
        i=$((i + 1))
    done
    col "$TIMES" 1 | median
}
say "text input and the reader alone"
TRACE=$DIR/bench-$N.trace
A_TIME=$(median_of $RUN "$TRACE")
READ_BIN=$(median_of "$DIR/readspeed" "$BIN")

echo
echo "l2sim bench: $N accesses per trace, median of $RUNS interleaved runs, $CFG, hardware semantics,"
echo "binary input, one thread, output to /dev/null; machine: $(nproc) CPUs"
echo
printf '%-8s %10s %9s %9s %12s %12s %8s %-7s %8s\n' trace "line ops" "l2sim s" "yard s" "l2sim M/s" "yard M/s" \
    "l2sim/y" "<= 3x" "RSS MiB"
printf '%s' "$ROWS"
echo
printf '%-44s %s\n' "--threads 2 / one thread (bench trace)" "$(fmt "$SPEEDUP")x"
printf '%-44s %s\n' "two one-thread runs at once / one run" "$(fmt "$PAIR")x"
printf '%-44s %s\n' "--threads 2 / two runs at once" \
    "$(fmt "$(awk -v a="$SPEEDUP" -v b="$PAIR" 'BEGIN { print (b > 0 ? a / b : 0) }')")"
printf '%-44s %s (target <= %s, 1 / two at once: %s)\n' "compare 4 variants / 4 separate runs" "$(fmt "$D_RATIO")x" \
    "$(fmt "$(awk -v p="$PAIR" 'BEGIN { print (p > 0 ? 1 / p : 0) }')")x" "$(verdict "$D_RATIO * $PAIR <= 1")"
printf '%-44s %s M lines/s\n' "text input (bench trace)" "$(rate "$A_TIME" "$(wc -l <"$TRACE")")"
printf '%-44s %s M accesses/s\n' "reader alone, binary (bench trace)" "$(rate "$READ_BIN" "$N")"
