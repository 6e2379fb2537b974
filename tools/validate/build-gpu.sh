#!/bin/sh
# build-gpu.sh - builds l2sim, l2trace, hotcold and spmm on the GPU machine, which
# lacks uthash-dev, zlib1g-dev, libzstd-dev and maybe liblzma-dev and has no network: their
# .deb files, carried in .debs/, are unpacked into /tmp/deps.  Source it
# (". tools/validate/build-gpu.sh") so that the library path stays set.
need=""
for h in uthash.h zlib.h zstd.h lzma.h; do [ -f /usr/include/$h ] || need="$need $h"; done
if [ -n "$need" ]; then
    for d in .debs/*.deb; do dpkg -x "$d" /tmp/deps; done
    export C_INCLUDE_PATH=/tmp/deps/usr/include LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu
    export LD_LIBRARY_PATH=/tmp/deps/usr/lib/x86_64-linux-gnu
fi
mkdir -p build && touch build/.deps
make -j16 OPT='-O3 -g' AR=ar all l2trace 2>&1 | grep -v '^cc \|^    \|^/usr/local/cuda/bin/nvcc' | tail -5
nvcc -std=c++17 -O2 -arch=sm_90 -o build/hotcold tools/validate/hotcold.cu
nvcc -std=c++17 -O2 -arch=sm_90 -o build/spmm tools/validate/spmm.cu
