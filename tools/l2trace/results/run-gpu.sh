#!/bin/sh
# run-gpu.sh OUT - what was run on the GPU machine (one H100): the Sanitizer
# API headers' flags, make all l2trace, tests/cuda/run.sh, the overhead of a
# capture, and a capture of a tiny PyTorch program.  Everything goes to
# OUT/log.txt; the test logs to OUT/cuda-tests.tgz.
O=${1:-/tmp/l2trace-out}
mkdir -p "$O"
exec >"$O/log.txt" 2>&1
t() { date +%s.%N; }
c() { awk "BEGIN { printf \"%.2f\", $1 }"; }
echo "== machine"
nvidia-smi -L; nvcc --version | tail -2; python3 -c 'import torch; print("torch", torch.__version__)'
S=/usr/local/cuda/compute-sanitizer/include
ls /usr/local/cuda/compute-sanitizer | head -20
echo "== what the Sanitizer API exposes"
grep -n "typedef SanitizerPatchResult" $S/sanitizer_patching.h
grep -n "SANITIZER_MEMORY_DEVICE_FLAG_[A-Z]* *=\|SANITIZER_CACHE_CONTROL_[A-Z0-9_]* *=\|SANITIZER_INSTRUCTION_[A-Z0-9_]* *=" $S/sanitizer_patching.h
grep -n -i "cache_hint\|evict\|discard\|applypriority\|tensor\|createpolicy" $S/*.h | head -20
echo "== build"
need=""
for h in uthash.h zlib.h zstd.h; do [ -f /usr/include/$h ] || need="$need $h"; done
if [ -n "$need" ]; then
    echo "missing:$need: unpacking .debs into /tmp/deps"
    for d in .debs/*.deb; do dpkg -x "$d" /tmp/deps; done
    export C_INCLUDE_PATH=/tmp/deps/usr/include LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu
    export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu
fi
mkdir -p build && touch build/.deps
make -j16 OPT='-O3 -g' AR=ar all l2trace 2>&1 | grep -v '^cc \|^    \|^/usr/local/cuda/bin/nvcc'
ls -la build/l2trace build/libl2trace.so build/l2trace-patch.fatbin
echo "== tests/cuda/run.sh"
timeout 240 tests/cuda/run.sh build
echo "run.sh exit $?"
T=build/cuda-tests
if grep -q "signal" $T/sweep.capture.log 2>/dev/null; then
    echo "== backtrace of the crash (cuda-gdb)"
    CUDA_INJECTION64_PATH=$PWD/build/libl2trace.so L2TRACE_OUT=/tmp/gdb.l2b L2TRACE_SUMMARY=/tmp/gdb.sum \
        L2TRACE_PATCH=$PWD/build/l2trace-patch.fatbin timeout 120 cuda-gdb -batch -ex run -ex bt -ex 'info threads' \
        --args $T/sweep 2>&1 | grep -v "^\[New Thread\|^\[Thread" | tail -40
fi
echo "== overhead: sweep 4194304 float4 (64 MiB read, 64 MiB written)"
a=$(t); $T/sweep 4194304 >/dev/null; b=$(t)
timeout 90 build/l2trace -o /tmp/ov.l2b -- $T/sweep 4194304 >/dev/null; c=$(t)
n=$(build/l2sim convert /tmp/ov.l2b - | grep -c '^[RW] ')
sz=$(stat -c %s /tmp/ov.l2b)
timeout 90 build/l2trace -o /tmp/ov.l2b.zst -- $T/sweep 4194304 >/dev/null; d=$(t)
szz=$(stat -c %s /tmp/ov.l2b.zst)
echo "native $(c "$b - $a") s, captured $(c "$c - $b") s (zstd: $(c "$d - $c") s); $n accesses; $sz bytes ($(c "$sz / $n") per access), zstd $szz bytes ($(c "$szz / $n") per access)"
echo "== PyTorch: tests/cuda/torch_mlp.py"
a=$(t); python3 tests/cuda/torch_mlp.py; b=$(t)
timeout 150 build/l2trace -o "$O/torch_mlp.l2b.zst" -- python3 tests/cuda/torch_mlp.py; echo "exit $?"; c=$(t)
echo "native $(c "$b - $a") s, captured $(c "$c - $b") s"
build/l2sim convert "$O/torch_mlp.l2b.zst" - | awk '/^kernel/ { k++; print } /^[RWPAD] / { n[$1]++ } /^alloc/ { al++ } END { for (o in n) print o, n[o]; print "kernels", k, "allocs", al }' | head -40
build/l2sim run --config configs/h100.cfg "$O/torch_mlp.l2b.zst" | head -60
tar czf "$O/cuda-tests.tgz" $T/*.log $T/*.expect $T/*.txt $T/*.report 2>/dev/null
ls -la "$O"
