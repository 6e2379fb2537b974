#!/usr/bin/env bash
# probe.sh: measure calibration rows on the local GPU with hwprobe + Nsight Compute.
#
#   tools/hwprobe/probe.sh [options] INPUT.csv [OUTPUT.csv]
#
# INPUT.csv has a header with at least the columns id,setaside,steps (others are
# ignored; measurements.csv itself is a valid input). OUTPUT.csv (default: stdout)
# gets exactly the columns of calibration/h100/measurements.csv:
#   id,setaside,steps,measured_sectors,l2_hit_pct,near_hit_pct,kernel_ns
#
# Method (default "range", see README.md): ncu profiles the whole row as one
# application range (cudaProfilerStart before the first step, Stop after the
# last), once with and once without the measured kernel; the measured kernel's
# counters are the difference. kernel_ns comes from a third, unprofiled run
# (%globaltimer span of the measured kernel). Method "kernel" profiles the
# measured kernel alone (ncu -k, application replay); that disturbs the L2 state
# (see README.md) and is kept only for comparison.
#
# Options:
#   --arch ARCH        nvcc target (default sm_90, or $HWPROBE_ARCH)
#   --ids A,B,...      measure only these ids
#   --raw FILE         also write every collected counter, one row per id
#   --logs DIR         keep ncu's output of each row in DIR
#   --method M         range (default) or kernel
#   --hwprobe-args S   extra arguments for hwprobe
#   --ncu-args S       extra arguments for ncu
#
# Exit status 77 (the test suite's "skip") when there is no nvcc, no ncu or no GPU.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ARCH="${HWPROBE_ARCH:-sm_90}"
IDS=""
RAW=""
LOGS=""
METHOD="range"
HWARGS=""
NCUARGS=""
POS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --arch) ARCH="$2"; shift 2 ;;
    --ids) IDS="$2"; shift 2 ;;
    --raw) RAW="$2"; shift 2 ;;
    --logs) LOGS="$2"; shift 2 ;;
    --method) METHOD="$2"; shift 2 ;;
    --hwprobe-args) HWARGS="$2"; shift 2 ;;
    --ncu-args) NCUARGS="$2"; shift 2 ;;
    -h|--help) sed -n '2,28p' "$0"; exit 0 ;;
    -*) echo "probe.sh: unknown option $1" >&2; exit 2 ;;
    *) POS+=("$1"); shift ;;
  esac
done
if [ ${#POS[@]} -lt 1 ] || [ ${#POS[@]} -gt 2 ]; then
  echo "usage: probe.sh [--arch sm_90] [--ids A,B] [--raw FILE] [--logs DIR] [--method range|kernel] INPUT.csv [OUTPUT.csv]" >&2
  exit 2
fi
case "$METHOD" in range|kernel) ;; *) echo "probe.sh: --method must be range or kernel" >&2; exit 2 ;; esac
INPUT="${POS[0]}"
OUTPUT="${POS[1]:-}"
[ -r "$INPUT" ] || { echo "probe.sh: cannot read $INPUT" >&2; exit 2; }

skip() { echo "probe.sh: SKIP: $*" >&2; exit 77; }

# ---- tools --------------------------------------------------------------
NVCC="${NVCC:-}"
if [ -z "$NVCC" ]; then
  NVCC="$(command -v nvcc 2>/dev/null || true)"
  [ -z "$NVCC" ] && [ -x /usr/local/cuda/bin/nvcc ] && NVCC=/usr/local/cuda/bin/nvcc
fi
[ -n "$NVCC" ] && [ -x "$NVCC" ] || skip "no nvcc found (set NVCC or put nvcc on PATH)"

NCU="${NCU:-}"
if [ -z "$NCU" ]; then
  NCU="$(command -v ncu 2>/dev/null || true)"
  if [ -z "$NCU" ]; then
    for c in /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu; do
      [ -x "$c" ] && { NCU="$c"; break; }
    done
  fi
fi
[ -n "$NCU" ] && [ -x "$NCU" ] || skip "no Nsight Compute (ncu) found (set NCU or put ncu on PATH)"

command -v python3 >/dev/null 2>&1 || { echo "probe.sh: python3 is needed to read and write CSV" >&2; exit 2; }

# Quick GPU check before spending time on a build.
if command -v nvidia-smi >/dev/null 2>&1; then
  nvidia-smi -L 2>/dev/null | grep -q '^GPU ' || skip "nvidia-smi lists no GPU"
elif [ ! -e /dev/nvidia0 ] && [ ! -e /dev/nvidiactl ]; then
  skip "no GPU (no nvidia-smi, no /dev/nvidia*)"
fi

# ---- build --------------------------------------------------------------
BUILD="${HWPROBE_BUILD:-$HERE/build}"
BIN="$BUILD/hwprobe"
mkdir -p "$BUILD"
if [ ! -x "$BIN" ] || [ "$HERE/hwprobe.cu" -nt "$BIN" ] || [ "$(cat "$BUILD/arch" 2>/dev/null)" != "$ARCH" ]; then
  echo "probe.sh: building $BIN for $ARCH with $NVCC" >&2
  "$NVCC" -O3 -std=c++17 -arch="$ARCH" -o "$BIN" "$HERE/hwprobe.cu"
  echo "$ARCH" > "$BUILD/arch"
fi

set +e
INFO="$("$BIN" --info)"
rc=$?
set -e
[ $rc -eq 77 ] && skip "hwprobe finds no usable GPU"
[ $rc -ne 0 ] && { echo "probe.sh: hwprobe --info failed ($rc)" >&2; exit 1; }
echo "$INFO" | sed 's/^/probe.sh: /' >&2

# ---- metrics ------------------------------------------------------------
# Required (they make the output columns) and extra (only in --raw).
M_SECT=lts__t_sectors_srcunit_tex.sum
M_READ=lts__t_sectors_srcunit_tex_op_read.sum
M_RHIT=lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum
M_DRAM=dram__bytes_read.sum
M_TIME=gpu__time_duration.sum
REQUIRED="$M_SECT $M_READ $M_RHIT $M_DRAM"
[ "$METHOD" = kernel ] && REQUIRED="$REQUIRED $M_TIME"
EXTRA="${HWPROBE_EXTRA_METRICS-dram__bytes_write.sum lts__t_sectors_srcunit_tex_op_write.sum lts__t_sectors_srcunit_ltcfabric.sum lts__t_sectors_srcunit_ltcfabric_lookup_hit.sum}"

# Check the names against what this ncu offers on this device (base names, then
# the full list with suffixes). HWPROBE_NO_METRIC_CHECK=1 skips the check.
has_metric() {
  local base="${1%.*}"
  grep -Eq "(^|[[:space:]])${base}(\.[a-z_]+)?([[:space:]]|$)" <<<"$QUERY"
}
METRICS=""
if [ "${HWPROBE_NO_METRIC_CHECK:-0}" = 1 ]; then
  for m in $REQUIRED $EXTRA; do METRICS="$METRICS,$m"; done
else
  QUERY="$("$NCU" --query-metrics 2>&1 || true)"
  QUERY_ALL=""
  for m in $REQUIRED $EXTRA; do
    if ! has_metric "$m" && [ -z "$QUERY_ALL" ]; then
      QUERY_ALL="$("$NCU" --query-metrics --query-metrics-mode all 2>&1 || true)"
      QUERY="$QUERY
$QUERY_ALL"
    fi
    if has_metric "$m"; then
      METRICS="$METRICS,$m"
    elif [[ " $REQUIRED " == *" $m "* ]]; then
      echo "probe.sh: ncu ($NCU) on this device does not offer metric $m; 'ncu --query-metrics' said:" >&2
      head -20 <<<"$QUERY" >&2
      exit 1
    else
      echo "probe.sh: note: extra metric $m not offered, left out" >&2
    fi
  done
fi
METRICS="${METRICS#,}"

# ---- rows ---------------------------------------------------------------
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
[ -n "$LOGS" ] && mkdir -p "$LOGS"

python3 - "$INPUT" "$IDS" > "$WORK/rows.tsv" <<'ROWS_PY'
import csv, sys
want = set(x for x in sys.argv[2].split(",") if x)
with open(sys.argv[1], newline="") as f:
    for r in csv.DictReader(f):
        if not r.get("id") or r["id"].startswith("#"):
            continue
        if want and r["id"] not in want:
            continue
        for k in ("id", "setaside", "steps"):
            if "\t" in r[k] or "\n" in r[k]:
                sys.exit("probe.sh: tab or newline in row %s" % r["id"])
        print("\t".join((r["id"].strip(), r["setaside"].strip(), r["steps"].strip())))
ROWS_PY
N=$(wc -l < "$WORK/rows.tsv")
[ "$N" -gt 0 ] || { echo "probe.sh: no rows to measure" >&2; exit 1; }
echo "probe.sh: $N rows, method $METHOD, metrics $METRICS" >&2

# parse.py METHOD ID SETASIDE STEPS OUT RAW METRICS LOG_FULL [LOG_OMIT TIME_NS]
cat > "$WORK/parse.py" <<'PARSE_PY'
import csv, sys
method, id_, setaside, steps, output, raw, allm, log_full = sys.argv[1:9]
allm = allm.split(",")
SCALE = {"": 1, "byte": 1, "sector": 1, "nsecond": 1, "ns": 1, "usecond": 1e3, "us": 1e3,
         "msecond": 1e6, "ms": 1e6, "second": 1e9, "s": 1e9, "Kbyte": 1e3, "Mbyte": 1e6,
         "Gbyte": 1e9, "pass": 1}

def read(log, want):
    lines = [l for l in open(log, errors="replace") if l.startswith('"')]
    rows = list(csv.reader(lines))
    if len(rows) < 3:
        sys.exit("probe.sh: no ncu CSV in %s:\n%s" % (log, open(log, errors="replace").read()[-3000:]))
    head, units, data = rows[0], rows[1], rows[2:]
    kn = head.index("Kernel Name")
    sel = [r for r in data if want in r[kn]]
    if len(sel) != 1:
        sys.exit("probe.sh: expected one '%s' result in %s, found %d" % (want, log, len(sel)))
    r, v = sel[0], {}
    for m in allm + ["profiler__replayer_passes"]:
        if m not in head:
            if m == "profiler__replayer_passes":
                continue
            sys.exit("probe.sh: metric %s missing from ncu output %s" % (m, log))
        j = head.index(m)
        if units[j] not in SCALE:
            sys.exit("probe.sh: unexpected unit %r for %s" % (units[j], m))
        v[m] = float(r[j].replace(",", "")) * SCALE[units[j]]
    return v

if method == "range":
    log_omit, time_ns = sys.argv[9], sys.argv[10]
    a, b = read(log_full, "range"), read(log_omit, "range")
    v = {m: a[m] - b[m] for m in allm}
    v["passes"] = a.get("profiler__replayer_passes", 0)
    v["kernel_ns"] = float(time_ns)
else:
    v = read(log_full, "measured_")
    v["passes"] = v.get("profiler__replayer_passes", 0)
    v["kernel_ns"] = v["gpu__time_duration.sum"]
sect = v["lts__t_sectors_srcunit_tex.sum"]
rd = v["lts__t_sectors_srcunit_tex_op_read.sum"]
l2 = 100.0 * (1.0 - v["dram__bytes_read.sum"] / (sect * 32.0)) if sect > 0 else float("nan")
near = 100.0 * v["lts__t_sectors_srcunit_tex_op_read_lookup_hit.sum"] / rd if rd > 0 else float("nan")
with open(output, "a") as f:
    f.write('%s,%s,"%s",%d,%.2f,%.2f,%d\n' % (id_, setaside, steps, round(sect), l2, near,
                                             round(v["kernel_ns"])))
if raw:
    with open(raw, "a", newline="") as f:
        csv.writer(f).writerow([id_, setaside, steps, method] +
                               ["%.0f" % v[m] for m in allm] +
                               ["%.0f" % v["kernel_ns"], "%d" % v["passes"]])
PARSE_PY

OUTFILE="${OUTPUT:-$WORK/out.csv}"
echo "id,setaside,steps,measured_sectors,l2_hit_pct,near_hit_pct,kernel_ns" > "$OUTFILE"
if [ -n "$RAW" ]; then
  python3 -c 'import csv,sys; csv.writer(sys.stdout).writerow(["id","setaside","steps","method"]+sys.argv[1].split(",")+["kernel_ns","ncu_passes"])' "$METRICS" > "$RAW"
fi

NCU_COMMON=(--cache-control none --clock-control none --metrics "$METRICS" --csv --page raw --print-units base)
run_ncu() {  # run_ncu LOG ncu-arguments-and-command...
  local log="$1"; shift
  set +e
  "$NCU" "$@" > "$log" 2>&1 < /dev/null
  local rc=$?
  set -e
  [ -n "$LOGS" ] && cp "$log" "$LOGS/"
  if [ $rc -ne 0 ]; then
    echo "probe.sh: ncu/hwprobe failed ($rc):" >&2; tail -20 "$log" >&2; exit 1
  fi
}

i=0
while IFS=$'\t' read -r id setaside steps; do
  i=$((i + 1))
  # Check the row parses before involving ncu.
  "$BIN" --dry-run --setaside "$setaside" --steps "$steps" 2>"$WORK/dry.err" || {
    echo "probe.sh: row $id does not parse: $(cat "$WORK/dry.err")" >&2; exit 1; }
  # stores into the flush's buffer corrupt the range difference (README, Caveats)
  if grep -Eq '(^|;) *F(\+[0-9.]+)?:[0-9.]+:(st|rmw)' <<<"$steps"; then
    echo "probe.sh: warning: row $id stores into F, the flush's buffer; at its start that corrupts the range difference (tools/hwprobe/README.md)" >&2
  fi
  if [ "$METHOD" = range ]; then
    run_ncu "$WORK/$id.full.log" --replay-mode app-range "${NCU_COMMON[@]}" $NCUARGS \
      "$BIN" $HWARGS --range-all --setaside "$setaside" --steps "$steps"
    run_ncu "$WORK/$id.omit.log" --replay-mode app-range "${NCU_COMMON[@]}" $NCUARGS \
      "$BIN" $HWARGS --range-all --omit-measured --setaside "$setaside" --steps "$steps"
    t="$("$BIN" $HWARGS --quiet --time --setaside "$setaside" --steps "$steps" |
         sed -n 's/^measured_ns=\([0-9]*\).*/\1/p' | head -1)"
    [ -n "$t" ] || { echo "probe.sh: row $id: timing run printed no measured_ns" >&2; exit 1; }
    python3 "$WORK/parse.py" range "$id" "$setaside" "$steps" "$OUTFILE" "$RAW" "$METRICS" \
      "$WORK/$id.full.log" "$WORK/$id.omit.log" "$t"
  else
    run_ncu "$WORK/$id.kernel.log" --replay-mode application --kernel-name regex:^measured_ \
      --launch-count 1 "${NCU_COMMON[@]}" $NCUARGS \
      "$BIN" $HWARGS --setaside "$setaside" --steps "$steps"
    python3 "$WORK/parse.py" kernel "$id" "$setaside" "$steps" "$OUTFILE" "$RAW" "$METRICS" \
      "$WORK/$id.kernel.log"
  fi
  echo "probe.sh: [$i/$N] $(tail -1 "$OUTFILE")" >&2
done < "$WORK/rows.tsv"
[ -z "$OUTPUT" ] && cat "$OUTFILE"
exit 0
