#!/bin/sh
# run.sh [BUILD] - the l2trace GPU tests (make test-gpu): builds the test
# programs, captures each with BUILD/l2trace, converts the trace to text
# with BUILD/l2sim and checks it record by record (check.py), runs l2sim
# on one capture, and checks --kernel/--launches and --max-records.
# Exit 0 when all pass, 1 when one fails, 77 (skipped) without a GPU or
# without the capture library.  Logs go to BUILD/cuda-tests/.
set -u
BUILD=${1:-build}
T=$BUILD/cuda-tests
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
ARCH=${CUDA_TESTS_ARCH:-sm_90}
skip() { echo "run.sh: SKIP: $*"; exit 77; }
[ -e /dev/nvidiactl ] || skip "no NVIDIA GPU (/dev/nvidiactl)"
[ -x "$NVCC" ] || skip "no nvcc"
[ -f "$BUILD/libl2trace.so" ] && [ -f "$BUILD/l2trace-patch.fatbin" ] ||
    skip "no capture library ($BUILD/libl2trace.so: make l2trace needs the Compute Sanitizer API headers)"
command -v python3 >/dev/null || skip "no python3 (check.py)"
mkdir -p "$T"
fail=0
pass=0
for t in sweep annotated policy streams; do
    if ! "$NVCC" -std=c++17 -O2 -arch="$ARCH" -o "$T/$t" "tests/cuda/$t.cu" >"$T/$t.build.log" 2>&1; then
        echo "FAIL $t: build (see $T/$t.build.log)"; cat "$T/$t.build.log"; fail=$((fail + 1)); continue
    fi
done
for t in sweep annotated policy streams; do
    [ -x "$T/$t" ] || continue
    rm -f "$T/$t.l2b.zst"
    if ! timeout 120 "$BUILD/l2trace" -o "$T/$t.l2b.zst" -- "$T/$t" >"$T/$t.expect" 2>"$T/$t.capture.log"; then
        echo "FAIL $t: capture"; cat "$T/$t.capture.log"; fail=$((fail + 1)); continue
    fi
    if ! "$BUILD/l2sim" convert "$T/$t.l2b.zst" "$T/$t.txt" >"$T/$t.convert.log" 2>&1; then
        echo "FAIL $t: l2sim convert"; cat "$T/$t.convert.log"; fail=$((fail + 1)); continue
    fi
    if python3 tests/cuda/check.py "$T/$t.expect" "$T/$t.txt" >"$T/$t.check.log" 2>&1; then
        echo "PASS $t ($(grep -c '^ok' "$T/$t.check.log") checks)"; pass=$((pass + 1))
    else
        echo "FAIL $t: the trace differs"; grep -v '^ok' "$T/$t.check.log" | head -20; fail=$((fail + 1))
    fi
    grep '^observed' "$T/$t.check.log"
done
# the simulator reads a capture
if [ -f "$T/sweep.l2b.zst" ]; then
    if "$BUILD/l2sim" run --config configs/h100.cfg "$T/sweep.l2b.zst" >"$T/sweep.report" 2>&1; then
        echo "PASS l2sim run sweep"; pass=$((pass + 1))
    else
        echo "FAIL l2sim run sweep"; cat "$T/sweep.report"; fail=$((fail + 1))
    fi
fi
# filters and limits
if [ -x "$T/sweep" ]; then
    timeout 120 "$BUILD/l2trace" --kernel '^(strided|atomics)' --launches 1 -o "$T/filter.l2b" -- "$T/sweep" >/dev/null 2>"$T/filter.log"
    k=$("$BUILD/l2sim" convert "$T/filter.l2b" - 2>&1 | awk '/^kernel/ { printf "%s ", $2 }')
    case "$k" in
    "atomics(int*) ") echo "PASS --kernel/--launches"; pass=$((pass + 1)) ;;
    *) echo "FAIL --kernel/--launches: kernels '$k'"; cat "$T/filter.log"; fail=$((fail + 1)) ;;
    esac
    timeout 120 "$BUILD/l2trace" --max-records 100 -o "$T/limit.l2b" -- "$T/sweep" >/dev/null 2>"$T/limit.log"
    rc=$?
    n=$("$BUILD/l2sim" convert "$T/limit.l2b" - 2>&1 | grep -c '^[RW] ')
    if [ $rc = 0 ] && grep -q 'stopped at the --max-records limit' "$T/limit.log" && [ "$n" -le 800 ] && [ "$n" -gt 0 ]; then
        echo "PASS --max-records ($n accesses)"; pass=$((pass + 1))
    else
        echo "FAIL --max-records: rc $rc, $n accesses"; cat "$T/limit.log"; fail=$((fail + 1))
    fi
fi
echo "run.sh: $pass passed, $fail failed"
[ $fail = 0 ]
