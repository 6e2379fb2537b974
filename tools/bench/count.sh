#!/bin/sh
# count.sh BUILD - instructions per line operation of BUILD/l2sim, counted by
# valgrind's callgrind (exact and repeatable, unlike times on a shared
# machine): the first 300,000 and the first 600,000 lines of the
# 5,000,000-access benchmark traces (tracegen bench 5000000 and tracegen
# embed 5000000, made here if missing), converted to binary, run with
# configs/h100.cfg with one and with two threads, and the yardstick
# (tools/bench/yardstick.c) over the same prefixes, which also counts the
# line operations (one lookup per 128-byte line an access touches).
#
# Per line op, two figures: "all" divides the whole count of the shorter
# prefix, start-up (clearing the tag arrays) and report included; "marginal"
# divides the difference between the two prefixes' counts by the difference
# of their line ops, which leaves out everything a run does once.  Both
# count the decoding thread too; l2sim's lines end with the marginal figure
# of its decoding thread (the one that reads the trace and places the
# accesses, beside the simulating threads whose work sets the time).
#
# shellcheck disable=SC2086,SC2046
set -eu
BUILD=${1:?usage: count.sh BUILD}
cd "$(dirname "$0")/../.."
tools/deps.sh valgrind || exit 1
DIR=$BUILD/bench
mkdir -p "$DIR"
LIBS="$BUILD/libl2sim.a $(pkg-config --libs zlib libzstd liblzma 2>/dev/null || echo -lz -lzstd -llzma) -lm -pthread"
cc -O2 -std=c11 -D_POSIX_C_SOURCE=200809L $(grep -o -- '-march=[^ ]*\|-mno-avx512f' "$BUILD/.flags" | tr '\n' ' ') \
    -Isim -o "$DIR/yardstick" tools/bench/yardstick.c $LIBS
# ir CMD...: the instructions callgrind counts for CMD, then those of its
# first thread
ir() {
    out=$(mktemp -d)
    valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$out/cg" "$@" 2>"$out/err" >/dev/null
    echo "$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' "$out/err") $(sed -n 's/^summary: //p' "$out/cg-01")"
    rm -rf "$out"
}
per() { awk -v i="$1" -v a="$2" 'BEGIN { printf "%.0f", i / a }'; }
# line NAME "ALL1 FIRST1" "ALL2 FIRST2" [decoder]: the report line of a
# program counted over both prefixes; with `decoder`, its first thread's
# marginal figure too
line() {
    set -- "$1" ${2%% *} ${2##* } ${3%% *} ${3##* } "${4:-}"
    dec=${6:+", decoding thread $(per "$(($5 - $3))" "$((L2 - L1))") marginal"}
    echo "$1: $2 instructions, $ACC accesses, $L1 line ops: $(per "$2" "$ACC") per access;" \
        "per line op $(per "$2" "$L1") all, $(per "$(($4 - $2))" "$((L2 - L1))") marginal$dec"
}
for kind in bench embed; do
    TRACE=$DIR/$kind-5000000.trace
    if [ ! -s "$TRACE" ]; then
        "$BUILD/tracegen" $kind 5000000 >"$TRACE.tmp"
        mv "$TRACE.tmp" "$TRACE"
    fi
    for n in 300000 600000; do
        head -n $n "$TRACE" | "$BUILD/l2sim" convert - "$DIR/$kind-prefix-$n.l2b"
    done
    P1=$DIR/$kind-prefix-300000.l2b P2=$DIR/$kind-prefix-600000.l2b
    ACC=$(head -n 300000 "$TRACE" | grep -c '^[RWPAD] ')
    L1=$("$DIR/yardstick" "$P1" | awk '{ print $2 }')
    L2=$("$DIR/yardstick" "$P2" | awk '{ print $2 }')
    for threads in 1 2; do
        run="$BUILD/l2sim run --threads $threads --config configs/h100.cfg"
        line "$kind, threads $threads" "$(ir $run "$P1")" "$(ir $run "$P2")" decoder
    done
    line "$kind, yardstick" "$(ir "$DIR/yardstick" "$P1")" "$(ir "$DIR/yardstick" "$P2")"
done
