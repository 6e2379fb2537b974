#!/bin/sh
# bench.sh BUILD - the driver of `make bench`: speed and memory of BUILD/l2sim
# on a generated trace of BENCH_N accesses (default 50,000,000), each
# measurement repeated BENCH_RUNS times (default 3; the median is reported).
#
#   (a) text input, (b) binary input, (c) binary input with --threads 2,
#   (d) `compare` with 4 variants against the sum of 4 separate runs,
#   (e) peak resident memory of a binary run,
#
# all with configs/h100.cfg, hardware semantics, the report going to
# /dev/null; plus, for reference, two one-thread binary runs at the same
# time (what the cores give (c) and (d)), the reader alone
# (tools/bench/readspeed.c) and md5sum over the binary trace as the
# machine's yardstick.  Ratios ((c), (d), the two runs at once) are taken
# within a repetition, whose runs follow each other, then their median is
# reported.  The traces are kept in BUILD/bench/ and reused.  Quick look:
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
TRACE=$DIR/bench-$N.trace
BIN=$DIR/bench-$N.l2b
TIMES=$DIR/times.$$

cd "$(dirname "$0")/../.."
case $N in '' | *[!0-9]*) echo "bench: BENCH_N must be a number" >&2; exit 2 ;; esac
case $RUNS in '' | 0 | *[!0-9]*) echo "bench: BENCH_RUNS must be a positive number" >&2; exit 2 ;; esac
tools/deps.sh time || { echo "bench: GNU time (/usr/bin/time) is needed" >&2; exit 1; }
mkdir -p "$DIR"
trap 'rm -f "$TIMES" "$TIMES.one" "$TIMES.b" "$TIMES.c" "$TIMES.p" "$TRACE.tmp" "$BIN.tmp" "$DIR/stderr"' EXIT INT TERM

say() { echo "bench: $*" >&2; }

# The trace, once; the binary again whenever the format's sources changed.
if [ ! -s "$TRACE" ]; then
    say "generating $TRACE ($N accesses)"
    "$BUILD/tracegen" bench "$N" >"$TRACE.tmp"
    mv "$TRACE.tmp" "$TRACE"
fi
if [ ! -s "$BIN" ] || [ -n "$(find "$TRACE" sim/trace_bin.c sim/trace_impl.h -newer "$BIN")" ]; then
    say "converting to $BIN"
    "$L2SIM" convert "$TRACE" "$BIN.tmp"
    mv "$BIN.tmp" "$BIN"
fi
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -Isim -o "$DIR/readspeed" tools/bench/readspeed.c "$BUILD/libl2sim.a" \
    $(pkg-config --libs zlib libzstd 2>/dev/null || echo -lz -lzstd) -lm

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
# rate SECONDS [COUNT]: millions of COUNT (default: the accesses) per second
rate() { awk -v n="${2:-$N}" -v s="$1" 'BEGIN { if (s >= 0.01) printf "%.1f", n / s / 1e6; else print "(too short)" }'; }

# measure NAME CMD...: RUNS timed runs; sets M_TIME (median seconds).
measure() {
    name=$1
    shift
    : >"$TIMES"
    i=1
    while [ "$i" -le "$RUNS" ]; do
        say "$name, run $i of $RUNS"
        timed "$@"
        i=$((i + 1))
    done
    M_TIME=$(cut -d' ' -f1 "$TIMES" | median)
}

RUN="$L2SIM run --config $CFG --semantics hardware"

# yardstick: md5sum over the binary trace (read once first so both are warm)
cat "$BIN" >/dev/null
measure "md5sum" md5sum "$BIN"
MD5_TIME=$M_TIME
BIN_MB=$(($(wc -c <"$BIN") / 1000000))

measure "reader only, text" "$DIR/readspeed" "$TRACE"
READ_TEXT=$M_TIME
measure "reader only, binary" "$DIR/readspeed" "$BIN"
READ_BIN=$M_TIME

measure "(a) text input" $RUN "$TRACE"
A_TIME=$M_TIME
# (b), (c) and the two-at-once yardstick interleaved, one run of each per
# repetition: the machine's speed drifts by tens of percent within minutes,
# so (c) and the yardstick are ratios within a repetition (then their
# median), not ratios of medians taken minutes apart
: >"$TIMES.b"
: >"$TIMES.c"
: >"$TIMES.p"
i=1
while [ "$i" -le "$RUNS" ]; do
    say "(b) binary input, (c) --threads 2 and two runs at once, repetition $i of $RUNS"
    : >"$TIMES"
    timed $RUN "$BIN"
    timed $RUN --threads 2 "$BIN"
    # two separate one-thread runs at the same time: what the machine's
    # cores give this program when nothing is shared
    timed sh -c "$RUN \"\$1\" & p=\$!; $RUN \"\$1\" && wait \$p" sh "$BIN"
    sed -n 1p "$TIMES" >>"$TIMES.b"
    sed -n 2p "$TIMES" >>"$TIMES.c"
    sed -n 3p "$TIMES" >>"$TIMES.p"
    i=$((i + 1))
done
B_TIME=$(cut -d' ' -f1 "$TIMES.b" | median)
B_RSS=$(cut -d' ' -f2 "$TIMES.b" | sort -g | tail -n 1)
C_TIME=$(cut -d' ' -f1 "$TIMES.c" | median)
SPEEDUP=$(paste -d' ' "$TIMES.b" "$TIMES.c" | awk '{ print ($3 > 0 ? $1 / $3 : 0) }' | median)
PAIR=$(paste -d' ' "$TIMES.b" "$TIMES.p" | awk '{ print ($3 > 0 ? 2 * $1 / $3 : 0) }' | median)

# (d) four variants that differ in what they simulate (NAME:SETTING; base
# sets the configuration's own value), in one compare and in four runs; the
# ratio per repetition, then the median ratio
VARIANTS="base:far_copy=1 nocopy:far_copy=0 seed1:policy_seed=1 hash7:hash_seed=7"
CMP_ARGS=
for v in $VARIANTS; do
    CMP_ARGS="$CMP_ARGS --variant name=${v%%:*},set=${v#*:}"
done
: >"$DIR/ratios"
i=1
while [ "$i" -le "$RUNS" ]; do
    say "(d) compare with 4 variants, repetition $i of $RUNS"
    : >"$TIMES"
    timed "$L2SIM" compare --config "$CFG" --semantics hardware $CMP_ARGS "$BIN"
    for v in $VARIANTS; do
        timed $RUN --set "${v#*:}" "$BIN"
    done
    awk 'NR == 1 { c = $1 } NR > 1 { s += $1 } END { if (s > 0) print c / s; else print 0 }' "$TIMES" >>"$DIR/ratios"
    i=$((i + 1))
done
D_RATIO=$(median <"$DIR/ratios")

# the table
verdict() { if awk "BEGIN { exit !($1) }"; then echo "met"; else echo "MISSED"; fi; }
A_RATE=$(rate "$A_TIME" "$(wc -l <"$TRACE")") # (a)'s target counts lines, comments and directives too
B_RATE=$(rate "$B_TIME")
RSS_MIB=$(awk -v k="$B_RSS" 'BEGIN { printf "%.1f", k / 1024 }')
echo
echo "l2sim bench: $N accesses, median of $RUNS runs, $CFG, hardware semantics, output to /dev/null"
echo "machine: $(nproc) CPUs; md5sum over the ${BIN_MB} MB binary trace: ${MD5_TIME} s" \
    "($(awk -v m="$BIN_MB" -v s="$MD5_TIME" 'BEGIN { if (s >= 0.01) printf "%.0f MB/s", m / s; else print "too short to time: use more accesses" }'))"
echo
printf '%-38s %-24s %-22s %s\n' "measurement" "result" "target" ""
printf '%-38s %-24s %-22s %s\n' "(a) text input" "$A_RATE M lines/s" ">= 15 M lines/s" \
    "$(verdict "$A_RATE >= 15")"
printf '%-38s %-24s %-22s %s\n' "(b) binary input" "$B_RATE M accesses/s" ">= 50 M accesses/s" \
    "$(verdict "$B_RATE >= 50")"
SPEEDUP=$(awk -v r="$SPEEDUP" 'BEGIN { printf "%.2f", r }')
printf '%-38s %-24s %-22s %s\n' "(c) binary, --threads 2" "$(rate "$C_TIME") M/s = ${SPEEDUP}x" \
    ">= 1.7x one thread" "$(verdict "$SPEEDUP >= 1.7")"
D_SHOWN=$(awk -v r="$D_RATIO" 'BEGIN { printf "%.2fx", r }')
printf '%-38s %-24s %-22s %s\n' "(d) compare 4 variants / 4 runs" "$D_SHOWN" "< 0.5x" "$(verdict "$D_RATIO < 0.5")"
printf '%-38s %-24s %-22s %s\n' "(e) peak RSS, binary run" "$RSS_MIB MiB" "<= 64 MiB" "$(verdict "$RSS_MIB <= 64")"
PAIR=$(awk -v r="$PAIR" 'BEGIN { printf "%.2f", r }')
printf '%-38s %-24s\n' "(ref) two binary runs at once" "${PAIR}x the rate of one"
printf '%-38s %-24s\n' "(ref) reader alone, text" "$(rate "$READ_TEXT") M accesses/s"
printf '%-38s %-24s\n' "(ref) reader alone, binary" "$(rate "$READ_BIN") M accesses/s"
