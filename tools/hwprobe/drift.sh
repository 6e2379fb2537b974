#!/usr/bin/env bash
# drift.sh: how far the blocks of a load, a store and a c = a + b loop drift
# apart, on the local GPU: each kernel runs alone (--time, no profiler, 3
# repetitions) and prints its first start, last end and the 10th, 50th and
# 90th percentiles of its blocks' ends.  A kernel's iterations take
# (end - start) / iterations; the spread of the ends in iterations says how
# far the blocks drifted by the end of the loop.
#
#   tools/hwprobe/drift.sh HWPROBE
set -euo pipefail
BIN=${1:?usage: drift.sh HWPROBE}
echo "steps,rep,start_ns,end_ns,p10_end_ns,median_end_ns,p90_end_ns"
for steps in "flush; B:34:ld:plain*" "flush; B:34:st:plain*" "flush; B:38:ld:plain*" "flush; B:38:st:plain*" \
             "flush; B:14:add:plain*" "flush; B:34:st:plain; B:34:ld:plain*" "flush; B:34:ld:plain; B:34:ld:plain*"; do
  "$BIN" --quiet --time --repeat 3 --setaside 0 --steps "$steps" | awk -v s="$steps" '
    /^measured_kernel=/ { split($0, f, /[= ]/); print "\"" s "\"," f[8] "," f[4] "," f[6] "," f[12] "," f[10] "," f[14] }'
done
