#!/bin/sh
# count.sh BUILD - instructions per line operation of BUILD/l2sim, counted by
# valgrind's callgrind (exact and repeatable, unlike times on a shared
# machine): the first 300,000 lines of the 5,000,000-access benchmark traces
# (tracegen bench 5000000 and tracegen embed 5000000, made here if missing),
# converted to binary, run with configs/h100.cfg with one and with two
# threads, and the yardstick (tools/bench/yardstick.c) over the same prefix,
# which also counts the line operations (one lookup per 128-byte line an
# access touches).  The counts include start-up (clearing the tag arrays)
# and the report.
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
# ir CMD...: the instructions callgrind counts for CMD
ir() { valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p'; }
per() { awk -v i="$1" -v a="$2" 'BEGIN { printf "%.0f", i / a }'; }
for kind in bench embed; do
    TRACE=$DIR/$kind-5000000.trace
    PREFIX=$DIR/$kind-prefix-300000.l2b
    if [ ! -s "$TRACE" ]; then
        "$BUILD/tracegen" $kind 5000000 >"$TRACE.tmp"
        mv "$TRACE.tmp" "$TRACE"
    fi
    head -n 300000 "$TRACE" | "$BUILD/l2sim" convert - "$PREFIX"
    ACCESSES=$(head -n 300000 "$TRACE" | grep -c '^[RWPAD] ')
    LINES=$("$DIR/yardstick" "$PREFIX" | awk '{ print $2 }')
    for threads in 1 2; do
        n=$(ir "$BUILD/l2sim" run --threads $threads --config configs/h100.cfg "$PREFIX")
        echo "$kind, threads $threads: $n instructions, $ACCESSES accesses, $LINES line ops:" \
            "$(per "$n" "$ACCESSES") per access, $(per "$n" "$LINES") per line op"
    done
    n=$(ir "$DIR/yardstick" "$PREFIX")
    echo "$kind, yardstick: $n instructions: $(per "$n" "$LINES") per line op"
done
