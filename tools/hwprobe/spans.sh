#!/usr/bin/env bash
# spans.sh: when each measured kernel of a row runs, on the local GPU.
#
#   tools/hwprobe/spans.sh [--repeat N] HWPROBE INPUT.csv
#
# INPUT.csv has the columns id,setaside,steps (as probe.sh's input).  Every
# row runs N times (default 3) under `HWPROBE --time`, without a profiler;
# for each run and each measured kernel (in launch order) one line
#   id,rep,kernel,start_ns,end_ns,median_end_ns,p10_end_ns,p90_end_ns
# gives its first block's start, its last block's end and the median, 10th
# and 90th percentiles of its blocks' ends, from the earliest start of any
# measured kernel of the row (%globaltimer).
set -euo pipefail
REPEAT=3
if [ "${1:-}" = --repeat ]; then REPEAT=$2; shift 2; fi
[ $# -eq 2 ] || { echo "usage: spans.sh [--repeat N] HWPROBE INPUT.csv" >&2; exit 2; }
BIN=$1 CSV=$2
echo "id,rep,kernel,start_ns,end_ns,median_end_ns,p10_end_ns,p90_end_ns"
python3 -c 'import csv,sys
for r in csv.DictReader(open(sys.argv[1])): print(r["id"], r["setaside"], r["steps"], sep="\t")' "$CSV" |
while IFS=$'\t' read -r id setaside steps; do
  "$BIN" --quiet --time --repeat "$REPEAT" --setaside "$setaside" --steps "$steps" | awk -v id="$id" '
    /^measured_kernel=/ { split($0, f, /[= ]/); print id "," f[8] "," f[2] "," f[4] "," f[6] "," f[10] "," f[12] "," f[14] }'
done
