#!/bin/sh
# count.sh BUILD - instructions per access of BUILD/l2sim, counted by
# valgrind's callgrind (exact and repeatable, unlike times on a shared
# machine): the first 300,000 lines of the 5,000,000-access benchmark trace
# (tracegen bench 5000000, made here if missing), converted to binary, run
# with configs/h100.cfg with one and with two threads.  The counts include
# start-up (clearing the tag arrays) and the report.
#
# shellcheck disable=SC2086
set -eu
BUILD=${1:?usage: count.sh BUILD}
cd "$(dirname "$0")/../.."
tools/deps.sh valgrind || exit 1
DIR=$BUILD/bench
TRACE=$DIR/bench-5000000.trace
PREFIX=$DIR/prefix-300000.l2b
mkdir -p "$DIR"
if [ ! -s "$TRACE" ]; then
    "$BUILD/tracegen" bench 5000000 >"$TRACE.tmp"
    mv "$TRACE.tmp" "$TRACE"
fi
head -n 300000 "$TRACE" | "$BUILD/l2sim" convert - "$PREFIX"
ACCESSES=$(head -n 300000 "$TRACE" | grep -c '^[RWPAD] ')
for threads in 1 2; do
    ir=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null "$BUILD/l2sim" run --threads $threads \
        --config configs/h100.cfg "$PREFIX" 2>&1 >/dev/null | sed -n 's/.*Collected : \([0-9]*\).*/\1/p')
    echo "threads $threads: $ir instructions, $ACCESSES accesses:" \
        "$(awk -v i="$ir" -v a="$ACCESSES" 'BEGIN { printf "%.0f", i / a }') per access"
done
