// hotcold.cu - a program whose L2 behaviour depends on the choices that
// `l2sim advise` makes: every kernel re-reads a hot table and streams a
// fresh slice of a large array, so under plain LRU the slice evicts the
// table before the next kernel re-reads it.  Options apply the advice:
// a set-aside, an access-policy window over the table, and annotations
// (cuda::annotated_ptr) on either array.
//
//   hotcold [--hot-mib N] [--stream-mib N] [--slice-mib N] [--iters N]
//           [--setaside BYTES] [--window HITRATIO] [--hot persisting|normal|streaming]
//           [--stream persisting|normal|streaming]
//
// Prints the arrays' addresses and the time of the kernels (cudaEvent);
// the kernels run between cudaProfilerStart and cudaProfilerStop, the
// range that `ncu --replay-mode app-range` measures as a whole.
#include <cuda/annotated_ptr>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "program.h" /* CK, set_window, run_range */

enum prop { P_GLOBAL, P_PERSISTING, P_NORMAL, P_STREAMING };

template <class Prop> __device__ float4 load(const float4 *p, size_t i)
{
    cuda::annotated_ptr<const float4, Prop> a{p};
    return a[i];
}

template <> __device__ float4 load<cuda::access_property::global>(const float4 *p, size_t i)
{
    return p[i];
}

template <class HotProp, class StreamProp>
__global__ void step(const float4 *hot, size_t nhot, const float4 *stream, size_t off, size_t nslice, float *out)
{
    size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x, n = (size_t)gridDim.x * blockDim.x;
    float acc = 0;
    for (size_t i = tid; i < nhot; i += n) {
        float4 v = load<HotProp>(hot, i);
        acc += v.x + v.y + v.z + v.w;
    }
    for (size_t i = tid; i < nslice; i += n) {
        float4 v = load<StreamProp>(stream, off + i);
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 1234.5f) // never true for the data written below: keeps the loads
        out[tid] = acc;
}

typedef void (*step_fn)(const float4 *, size_t, const float4 *, size_t, size_t, float *);

template <class H> static step_fn pick_stream(prop s)
{
    switch (s) {
    case P_PERSISTING:
        return step<H, cuda::access_property::persisting>;
    case P_NORMAL:
        return step<H, cuda::access_property::normal>;
    case P_STREAMING:
        return step<H, cuda::access_property::streaming>;
    default:
        return step<H, cuda::access_property::global>;
    }
}

static step_fn pick(prop h, prop s)
{
    switch (h) {
    case P_PERSISTING:
        return pick_stream<cuda::access_property::persisting>(s);
    case P_NORMAL:
        return pick_stream<cuda::access_property::normal>(s);
    case P_STREAMING:
        return pick_stream<cuda::access_property::streaming>(s);
    default:
        return pick_stream<cuda::access_property::global>(s);
    }
}

static prop parse_prop(const char *s)
{
    if (!strcmp(s, "persisting"))
        return P_PERSISTING;
    if (!strcmp(s, "normal"))
        return P_NORMAL;
    if (!strcmp(s, "streaming"))
        return P_STREAMING;
    if (!strcmp(s, "global"))
        return P_GLOBAL;
    fprintf(stderr, "hotcold: unknown property '%s'\n", s);
    exit(2);
}

__global__ void fill(float4 *p, size_t n)
{
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = make_float4(1, 2, 3, (float)(i & 7));
}

int main(int argc, char **argv)
{
    size_t hot_mib = 16, stream_mib = 512, slice_mib = 48;
    int iters = 8;
    long long setaside = -1;
    double window = -1;
    prop hp = P_GLOBAL, sp = P_GLOBAL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) {
            fprintf(stderr, "hotcold: %s needs a value\n", a);
            return 2;
        }
        i++;
        if (!strcmp(a, "--hot-mib"))
            hot_mib = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--stream-mib"))
            stream_mib = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--slice-mib"))
            slice_mib = strtoull(v, NULL, 10);
        else if (!strcmp(a, "--iters"))
            iters = atoi(v);
        else if (!strcmp(a, "--setaside"))
            setaside = atoll(v);
        else if (!strcmp(a, "--window"))
            window = atof(v);
        else if (!strcmp(a, "--hot"))
            hp = parse_prop(v);
        else if (!strcmp(a, "--stream"))
            sp = parse_prop(v);
        else {
            fprintf(stderr, "hotcold: unknown option %s\n", a);
            return 2;
        }
    }
    size_t nhot = hot_mib << 16, nstream = stream_mib << 16, nslice = slice_mib << 16; /* float4s */
    float4 *hot, *stream;
    float *out;
    CK(cudaMalloc(&hot, nhot * sizeof(float4)));
    CK(cudaMalloc(&stream, nstream * sizeof(float4)));
    CK(cudaMalloc(&out, 1 << 20));
    fill<<<528, 512>>>(hot, nhot);
    fill<<<528, 512>>>(stream, nstream);
    CK(cudaDeviceSynchronize());
    if (setaside >= 0)
        CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)setaside));
    cudaStream_t st;
    CK(cudaStreamCreate(&st));
    if (window >= 0)
        set_window(st, hot, nhot * sizeof(float4), window);
    printf("hot %p %zu\nstream %p %zu\n", (void *)hot, nhot * sizeof(float4), (void *)stream,
           nstream * sizeof(float4));
    step_fn fn = pick(hp, sp);
    run_range(st, iters, [&] {
        for (int it = 0; it < iters; it++) {
            size_t off = ((size_t)it * nslice) % (nstream - nslice + 1);
            fn<<<528, 512, 0, st>>>(hot, nhot, stream, off, nslice, out);
        }
    });
    return 0;
}
