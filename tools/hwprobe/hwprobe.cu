// hwprobe: run one L2 calibration row on a real GPU.
//
//   hwprobe --setaside default|0|max|BYTES --steps "flush; B:32:ld:plain; B:32:ld:plain*"
//
// The step notation is the one of calibration/h100/README.md, plus the
// operations `rmw`, `rld`, `gW`, `zW` and `add` described in tools/hwprobe/README.md. Every step
// is one kernel launch (or a host action: flush, window) on one stream, run in
// order. The step marked with `*` launches a kernel whose name begins with
// `measured_` so that Nsight Compute can be told to profile only that one
// (ncu -k regex:^measured_). All other kernels are named `step_*`.
//
// Build: nvcc -O3 -arch=sm_90 -std=c++17 -o hwprobe hwprobe.cu
//
// Modes used by probe.sh:
//   --range-all       cudaProfilerStart() before the first step, Stop() after the
//                     last (ncu --replay-mode app-range profiles the whole row)
//   --omit-measured   run the row without the `*` kernel (for the difference)
//   --time            print measured_ns=N, the %globaltimer span of the measured
//                     kernels (first block start to last block end), then for
//                     each measured kernel measured_kernel=K start_ns=S end_ns=E
//                     rep=R median_end_ns=M p10_end_ns=A p90_end_ns=B (from
//                     the earliest start; M, A, B: the median, 10th and 90th
//                     percentiles of its blocks' ends); writes 3 words per block to a
//                     scratch buffer, so not under ncu
//   --blocks          with --time, also each block of each measured kernel:
//                     measured_block=K b=B sm=S start_ns=T0 end_ns=T1 rep=R
//                     (from the earliest start of the row's measured kernels)
// Diagnostics (see README.md): --memset --scrub --bigscrub --sync --stream0
//   --gap-us N --profile-range --repeat N --no-gate
#include <cuda_runtime.h>
#include <cuda_profiler_api.h>
#include <cuda/annotated_ptr>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <algorithm>
#include <string>
#include <vector>

#define CK(call)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "hwprobe: %s failed: %s (%s:%d)\n", #call,                   \
              cudaGetErrorString(e_), __FILE__, __LINE__);                         \
      exit(2);                                                                     \
    }                                                                              \
  } while (0)

static void die(const char* fmt, const char* a = "", const char* b = "") {
  fprintf(stderr, "hwprobe: ");
  fprintf(stderr, fmt, a, b);
  fprintf(stderr, "\n");
  exit(1);
}

// ---------------------------------------------------------------- geometry
static const int kBlocks = 528;   // 4 blocks per SM on a 132-SM H100
static const int kThreads = 512;  // 16 warps per block
static const size_t MiB = 1ull << 20;
static const size_t kSizeH = 128 * MiB, kSizeB = 1024 * MiB, kSizeF = 512 * MiB;

enum Op {
  OP_LD = 0,
  OP_ST,
  OP_RMW,
  OP_RLD,
  OP_DISCARD,
  OP_PF_LAST,    // prefetch.global.L2::evict_last
  OP_PF_NORMAL,  // prefetch.global.L2::evict_normal
  OP_PF_PLAIN,   // prefetch.global.L2
};

__host__ __device__ __forceinline__ uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

template <bool HINT>
__device__ __forceinline__ uint4 ld16(const char* a, uint64_t pol) {
  uint4 v;
  if (HINT)
    asm volatile("ld.global.cg.L2::cache_hint.v4.u32 {%0,%1,%2,%3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(a), "l"(pol)
                 : "memory");
  else
    asm volatile("ld.global.cg.v4.u32 {%0,%1,%2,%3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(a)
                 : "memory");
  return v;
}

template <bool HINT>
__device__ __forceinline__ void st16(char* a, uint4 v, uint64_t pol) {
  if (HINT)
    asm volatile("st.global.cg.L2::cache_hint.v4.u32 [%0], {%1,%2,%3,%4}, %5;"
                 :
                 : "l"(a), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w), "l"(pol)
                 : "memory");
  else
    asm volatile("st.global.cg.v4.u32 [%0], {%1,%2,%3,%4};"
                 :
                 : "l"(a), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
}

// --time: per block, %globaltimer at its start and at its end, and its SM.
constexpr int kTimeWords = 3;

// One kernel body for all operations. `base`/`nbytes`: the region of the step.
template <int OP, bool HINT>
__device__ __forceinline__ void body(char* base, size_t nbytes, uint64_t pol,
                                     unsigned* sink, int dump) {
  const unsigned tid = threadIdx.x, blk = blockIdx.x;
  unsigned long long t0 = 0;
  if (dump == 2 && tid == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  const size_t nthreads = (size_t)gridDim.x * blockDim.x;
  unsigned acc = 0;
  if (OP == OP_LD || OP == OP_ST || OP == OP_RMW) {
    // Grid-stride loop, 16 bytes per thread: warp instruction k (k = (iter*grid
    // + block)*16 + warp) covers the 512-byte chunk k of the region.
    const size_t n = nbytes / 16;
    for (size_t i = (size_t)blk * blockDim.x + tid; i < n; i += nthreads) {
      char* a = base + i * 16;
      if (OP == OP_LD) {
        uint4 v = ld16<HINT>(a, pol);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
      } else if (OP == OP_ST) {
        uint32_t x = (uint32_t)i;
        st16<HINT>(a, make_uint4(x, x ^ 0x5a5a5a5au, x + 1u, ~x), pol);
      } else {  // rmw: x = x*3+1 on each 32-bit lane, stored back in place
        uint4 v = ld16<HINT>(a, pol);
        v.x = v.x * 3u + 1u;
        v.y = v.y * 3u + 1u;
        v.z = v.z * 3u + 1u;
        v.w = v.w * 3u + 1u;
        st16<HINT>(a, v, pol);
      }
    }
  } else if (OP == OP_RLD) {
    // Same number of warp instructions as `ld` over the region, but warp
    // instruction k reads chunk mix32(k) mod nchunks.
    const size_t nchunks = nbytes / 512;
    const unsigned warp = tid / 32, lane = tid % 32, wpb = blockDim.x / 32;
    for (size_t iter = 0;; ++iter) {
      const size_t k = (iter * gridDim.x + blk) * wpb + warp;
      if (k >= nchunks) break;
      const size_t c = (size_t)mix32((uint32_t)k) % nchunks;
      uint4 v = ld16<HINT>(base + c * 512 + lane * 16, pol);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  } else {
    // One instruction per 128-byte line, grid-stride over lines.
    const size_t nl = nbytes / 128;
    for (size_t i = (size_t)blk * blockDim.x + tid; i < nl; i += nthreads) {
      char* a = base + i * 128;
      if (OP == OP_DISCARD)
        asm volatile("discard.global.L2 [%0], 128;" ::"l"(a) : "memory");
      else if (OP == OP_PF_LAST)
        asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(a) : "memory");
      else if (OP == OP_PF_NORMAL)
        asm volatile("prefetch.global.L2::evict_normal [%0];" ::"l"(a) : "memory");
      else
        asm volatile("prefetch.global.L2 [%0];" ::"l"(a) : "memory");
    }
  }
  if (dump == 2) {  // --time: per-block start/end from %globaltimer (2 stores per block)
    __syncthreads();
    if (tid == 0) {
      unsigned long long t1;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
      unsigned sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      reinterpret_cast<unsigned long long*>(sink)[kTimeWords * blk] = t0;
      reinterpret_cast<unsigned long long*>(sink)[kTimeWords * blk + 1] = t1;
      reinterpret_cast<unsigned long long*>(sink)[kTimeWords * blk + 2] = sm;
    }
  } else if (dump) {
    sink[(size_t)blk * blockDim.x + tid] = acc;  // never taken in a run
  }
}

template <int OP, bool HINT>
__global__ void __launch_bounds__(512) step_kernel(char* base, size_t nbytes, uint64_t pol,
                                                   unsigned* sink, int dump) {
  body<OP, HINT>(base, nbytes, pol, sink, dump);
}

// Identical code; distinct name so that ncu -k regex:^measured_ picks it alone.
template <int OP, bool HINT>
__global__ void __launch_bounds__(512) measured_kernel(char* base, size_t nbytes, uint64_t pol,
                                                       unsigned* sink, int dump) {
  body<OP, HINT>(base, nbytes, pol, sink, dump);
}

// The gate of a two-stream row (README "Two streams"): one thread on its own
// stream spins until the host sets *open, so that both streams' kernels, queued
// behind it, start together however slowly the host launched them. It gives
// up after 100 ms (*open = 2 then: the host never opened it).
__global__ void gate_kernel(volatile int* open) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (*open == 0) {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > 100000000ull) { *open = 2; break; }
  }
}

// Scrub (diagnostic, --scrub): demote every line of a buffer to evict_normal,
// first with applypriority, then with evict_normal loads whose block-to-chunk
// assignment is rotated by `rot` blocks so that SMs of both partitions touch it.
__global__ void __launch_bounds__(512) scrub_kernel(char* base, size_t nbytes, uint64_t pol,
                                                    int rot, unsigned* sink, int dump) {
  const size_t nthreads = (size_t)gridDim.x * blockDim.x;
  const unsigned vb = (blockIdx.x + rot) % gridDim.x;
  unsigned acc = 0;
  if (rot < 0) {
    const size_t nl = nbytes / 128;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < nl; i += nthreads)
      asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(base + i * 128)
                   : "memory");
    return;
  }
  const size_t n = nbytes / 16;
  for (size_t i = (size_t)vb * blockDim.x + threadIdx.x; i < n; i += nthreads) {
    uint4 v = ld16<true>(base + i * 16, pol);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (dump) sink[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

// ---------------------------------------------------------------- gathers
// The operations `gW`, `zW` and `add` (tools/hwprobe/README.md): one warp
// instruction loads W bytes per group of W/16 lanes at a pseudo-random piece
// of the region (g: uniform; z: a power law, hot head = first 1/16), or
// c[i] = a[i] + b[i] over three arrays of the region's size. Each access takes
// its own policy (pol[0..2]; 0 = no hint).
enum XOp { X_GATHER = 0, X_SKEW, X_ADD, X_SKEWU };

struct XArgs {
  char* base;
  size_t nbytes;   // g/z: the region; add: one array
  size_t nwarp;    // g/z: warp instructions executed
  uint64_t pol[3]; // g: [0]; z: hot [0], rest [1]; add: a, b, c
  unsigned width;  // g/z: bytes per piece (16, 32, 64, 128)
};

__device__ __forceinline__ uint4 ldp(const char* a, uint64_t pol) {
  return pol ? ld16<true>(a, pol) : ld16<false>(a, 0);
}
__device__ __forceinline__ void stp(char* a, uint4 v, uint64_t pol) {
  if (pol) st16<true>(a, v, pol);
  else st16<false>(a, v, 0);
}

// Piece index for draw h (uniform 32-bit) among n pieces: uniform, or n*u^3
// with u = h / 2^32 in 32.32 fixed point (identical on host and device).
__host__ __device__ __forceinline__ uint64_t xpiece(uint32_t h, uint64_t n, bool skew) {
  if (!skew) return h % n;
  const uint64_t u = h, u2 = (u * u) >> 32, u3 = (u2 * u) >> 32;
  return (u3 * n) >> 32;
}

template <int OP>
__device__ __forceinline__ void xbody(const XArgs a, unsigned* sink, int dump) {
  const unsigned tid = threadIdx.x, blk = blockIdx.x;
  unsigned long long t0 = 0;
  if (dump == 2 && tid == 0) asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  unsigned acc = 0;
  if (OP == X_ADD) {
    const size_t n = a.nbytes / 16, nthreads = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blk * blockDim.x + tid; i < n; i += nthreads) {
      uint4 x = ldp(a.base + i * 16, a.pol[0]);
      uint4 y = ldp(a.base + a.nbytes + i * 16, a.pol[1]);
      stp(a.base + 2 * a.nbytes + i * 16, make_uint4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w),
          a.pol[2]);
    }
  } else {
    const unsigned warp = tid / 32, lane = tid % 32, wpb = blockDim.x / 32;
    const unsigned gs = a.width / 16, ng = 32 / gs, g = lane / gs;
    const uint64_t npieces = a.nbytes / a.width, hot = npieces / 16;
    for (size_t iter = 0;; ++iter) {
      const size_t k = (iter * gridDim.x + blk) * wpb + warp;
      if (k >= a.nwarp) break;
      const uint64_t c = xpiece(mix32((uint32_t)(k * ng + g)), npieces, OP != X_GATHER);
      // uW: every lane takes the policy lane 0's piece asks for
      const uint64_t cp = OP == X_SKEWU ? __shfl_sync(0xffffffffu, (unsigned long long)c, 0) : c;
      const uint64_t pol = OP != X_GATHER && cp >= hot ? a.pol[1] : a.pol[0];
      uint4 v = ldp(a.base + c * a.width + (lane % gs) * 16, pol);
      acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
  }
  if (dump == 2) {
    __syncthreads();
    if (tid == 0) {
      unsigned long long t1;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t1));
      unsigned sm;
      asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
      reinterpret_cast<unsigned long long*>(sink)[kTimeWords * blk] = t0;
      reinterpret_cast<unsigned long long*>(sink)[kTimeWords * blk + 1] = t1;
      reinterpret_cast<unsigned long long*>(sink)[kTimeWords * blk + 2] = sm;
    }
  } else if (dump) {
    sink[(size_t)blk * blockDim.x + tid] = acc;
  }
}

template <int OP>
__global__ void __launch_bounds__(512) step_xkernel(const XArgs a, unsigned* sink, int dump) {
  xbody<OP>(a, sink, dump);
}
template <int OP>
__global__ void __launch_bounds__(512) measured_xkernel(const XArgs a, unsigned* sink, int dump) {
  xbody<OP>(a, sink, dump);
}

// ---------------------------------------------------------------- policies
// Priority codes used to select the createpolicy variant.
enum Prio { P_FIRST = 0, P_LAST, P_NORMAL, P_UNCHANGED, P_NONE };

#define FRAC1(P)                                                                 \
  asm volatile("createpolicy.fractional.L2::" P ".b64 %0, %1;" : "=l"(r) : "f"(f))
#define FRAC2(P, S)                                                              \
  asm volatile("createpolicy.fractional.L2::" P ".L2::" S ".b64 %0, %1;"         \
               : "=l"(r)                                                         \
               : "f"(f))
#define RANGE1(P)                                                                \
  asm volatile("createpolicy.range.global.L2::" P ".b64 %0, [%1], %2, %3;"      \
               : "=l"(r)                                                         \
               : "l"(ptr), "r"(lead), "r"(total))
#define RANGE2(P, S)                                                             \
  asm volatile("createpolicy.range.global.L2::" P ".L2::" S ".b64 %0, [%1], %2, %3;" \
               : "=l"(r)                                                         \
               : "l"(ptr), "r"(lead), "r"(total))

// kind 0: fractional(p, s, f); kind 1: range(p, s, ptr, lead, total);
// kind 2: libcu++ interleaved(p, f[, s]); kind 3: libcu++ range(ptr, lead, total, p[, s]);
// kind 4: libcu++ static(p)
__global__ void make_policy(int kind, int p, int s, float f, void* ptr, unsigned lead,
                            unsigned total, uint64_t* out) {
  uint64_t r = 0;
  if (kind == 0) {
    if (s == P_NONE) {
      switch (p) {
        case P_FIRST: FRAC1("evict_first"); break;
        case P_LAST: FRAC1("evict_last"); break;
        case P_NORMAL: FRAC1("evict_normal"); break;
        default: FRAC1("evict_unchanged"); break;
      }
    } else if (s == P_FIRST) {
      switch (p) {
        case P_FIRST: FRAC2("evict_first", "evict_first"); break;
        case P_LAST: FRAC2("evict_last", "evict_first"); break;
        case P_NORMAL: FRAC2("evict_normal", "evict_first"); break;
        default: FRAC2("evict_unchanged", "evict_first"); break;
      }
    } else {
      switch (p) {
        case P_FIRST: FRAC2("evict_first", "evict_unchanged"); break;
        case P_LAST: FRAC2("evict_last", "evict_unchanged"); break;
        case P_NORMAL: FRAC2("evict_normal", "evict_unchanged"); break;
        default: FRAC2("evict_unchanged", "evict_unchanged"); break;
      }
    }
  } else if (kind == 1) {
    if (s == P_NONE) {
      switch (p) {
        case P_FIRST: RANGE1("evict_first"); break;
        case P_LAST: RANGE1("evict_last"); break;
        case P_NORMAL: RANGE1("evict_normal"); break;
        default: RANGE1("evict_unchanged"); break;
      }
    } else if (s == P_FIRST) {
      switch (p) {
        case P_FIRST: RANGE2("evict_first", "evict_first"); break;
        case P_LAST: RANGE2("evict_last", "evict_first"); break;
        case P_NORMAL: RANGE2("evict_normal", "evict_first"); break;
        default: RANGE2("evict_unchanged", "evict_first"); break;
      }
    } else {
      switch (p) {
        case P_FIRST: RANGE2("evict_first", "evict_unchanged"); break;
        case P_LAST: RANGE2("evict_last", "evict_unchanged"); break;
        case P_NORMAL: RANGE2("evict_normal", "evict_unchanged"); break;
        default: RANGE2("evict_unchanged", "evict_unchanged"); break;
      }
    }
  } else if (kind == 2) {
    using ap = cuda::access_property;
    if (s == P_FIRST) {
      if (p == P_LAST) r = (uint64_t)ap(ap::persisting{}, f, ap::streaming{});
      else r = (uint64_t)ap(ap::normal{}, f, ap::streaming{});
    } else {
      if (p == P_LAST) r = (uint64_t)ap(ap::persisting{}, f);
      else if (p == P_FIRST) r = (uint64_t)ap(ap::streaming{}, f);
      else r = (uint64_t)ap(ap::normal{}, f);
    }
  } else if (kind == 3) {
    using ap = cuda::access_property;
    size_t L = lead, T = total;
    if (s == P_FIRST) {
      if (p == P_LAST) r = (uint64_t)ap(ptr, L, T, ap::persisting{}, ap::streaming{});
      else r = (uint64_t)ap(ptr, L, T, ap::normal{}, ap::streaming{});
    } else {
      if (p == P_LAST) r = (uint64_t)ap(ptr, L, T, ap::persisting{});
      else if (p == P_FIRST) r = (uint64_t)ap(ptr, L, T, ap::streaming{});
      else r = (uint64_t)ap(ptr, L, T, ap::normal{});
    }
  } else {
    using ap = cuda::access_property;
    switch (p) {
      case P_LAST: r = (uint64_t)ap(ap::persisting{}); break;
      case P_FIRST: r = (uint64_t)ap(ap::streaming{}); break;
      case P_NORMAL: r = (uint64_t)ap(ap::normal{}); break;
      default: r = (uint64_t)ap(ap::global{}); break;
    }
  }
  *out = r;
}

// ---------------------------------------------------------------- parsing
static std::string trim(const std::string& s) {
  size_t a = 0, b = s.size();
  while (a < b && isspace((unsigned char)s[a])) a++;
  while (b > a && isspace((unsigned char)s[b - 1])) b--;
  return s.substr(a, b - a);
}

static std::vector<std::string> split_top(const std::string& s, char sep) {
  // split on sep outside parentheses
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(') depth++;
    if (c == ')') depth--;
    if (c == sep && depth == 0) {
      out.push_back(trim(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(trim(cur));
  return out;
}

static int parse_prio(const std::string& s0) {
  std::string s = trim(s0);
  if (s == "evict_first" || s == "streaming") return P_FIRST;
  if (s == "evict_last" || s == "persisting") return P_LAST;
  if (s == "evict_normal" || s == "normal") return P_NORMAL;
  if (s == "evict_unchanged" || s == "global") return P_UNCHANGED;
  die("unknown priority '%s'", s.c_str());
  return -1;
}

static double parse_num(const std::string& s0, const char* what) {
  std::string s = trim(s0);
  char* end = nullptr;
  errno = 0;
  double v = strtod(s.c_str(), &end);
  if (s.empty() || *end || errno) die("bad number '%s' for %s", s.c_str(), what);
  return v;
}

// A whole number in [lo, hi] (a diagnostic switch's value).
static int parse_int(const std::string& s, const char* what, int lo, int hi) {
  double v = parse_num(s, what);
  if (v != std::floor(v) || v < lo || v > hi) die("%s must be a whole number in range, not '%s'", what, s.c_str());
  return (int)v;
}

static double parse_kv(const std::string& s0, const char* key) {
  std::string s = trim(s0);
  std::string k = std::string(key) + "=";
  if (s.compare(0, k.size(), k) != 0) die("expected %s=... in '%s'", key, s.c_str());
  return parse_num(s.substr(k.size()), key);
}

static size_t mib_to_bytes(double m, const char* what) {
  double b = m * (double)MiB;
  if (m < 0 || b != std::floor(b)) die("bad size for %s%s", what);
  return (size_t)b;
}

struct Buffers {
  char* H = nullptr;
  char* B = nullptr;
  char* F = nullptr;
};

static char* buf_ptr(const Buffers& bufs, const std::string& name, size_t* cap) {
  if (name == "H") { *cap = kSizeH; return bufs.H; }
  if (name == "B") { *cap = kSizeB; return bufs.B; }
  if (name == "F") { *cap = kSizeF; return bufs.F; }
  die("unknown buffer '%s'", name.c_str());
  return nullptr;
}

// Build the 64-bit policy for a hint. Returns false for `plain` (no hint).
static bool hint_policy(const std::string& h0, const Buffers& bufs, uint64_t* dpol,
                        uint64_t* out) {
  std::string h = trim(h0);
  if (h == "plain" || h.empty()) return false;
  int kind = 0, p = P_LAST, s = P_NONE;
  float f = 1.0f;
  unsigned lead = 0, total = 0;
  void* ptr = bufs.B;
  size_t lp = h.find('(');
  std::string name = lp == std::string::npos ? h : h.substr(0, lp);
  std::vector<std::string> args;
  if (lp != std::string::npos) {
    if (h.back() != ')') die("bad hint '%s'", h.c_str());
    args = split_top(h.substr(lp + 1, h.size() - lp - 2), ',');
  }
  if (lp == std::string::npos && name.compare(0, 6, "evict_") == 0) {
    kind = 0;
    p = parse_prio(name);
  } else if (name == "frac") {
    if (args.size() != 3 && args.size() != 2) die("frac needs (P,S,f) or (P,f): '%s'", h.c_str());
    kind = 0;
    p = parse_prio(args[0]);
    if (args.size() == 3) s = parse_prio(args[1]);
    f = (float)parse_num(args.back(), "fraction");
  } else if (name == "range" || name == "libcu_range") {
    if (args.size() != 4 && args.size() != 3) die("%s needs (P[,S],lead=L,total=T)", name.c_str());
    kind = name == "range" ? 1 : 3;
    p = parse_prio(args[0]);
    if (args.size() == 4) s = parse_prio(args[1]);
    lead = (unsigned)mib_to_bytes(parse_kv(args[args.size() - 2], "lead"), "lead");
    total = (unsigned)mib_to_bytes(parse_kv(args[args.size() - 1], "total"), "total");
  } else if (name == "libcu_interleaved") {
    if (args.size() != 2 && args.size() != 3) die("libcu_interleaved needs (P,f[,S])%s", "");
    kind = 2;
    p = parse_prio(args[0]);
    f = (float)parse_num(args[1], "fraction");
    if (args.size() == 3) s = parse_prio(args[2]);
  } else if (name == "libcu") {
    if (args.size() != 1) die("libcu needs (P)%s", "");
    kind = 4;
    p = parse_prio(args[0]);
  } else {
    die("unknown hint '%s'", h.c_str());
  }
  make_policy<<<1, 1>>>(kind, p, s, f, ptr, lead, total, dpol);
  CK(cudaGetLastError());
  CK(cudaMemcpy(out, dpol, 8, cudaMemcpyDeviceToHost));
  return true;
}

static cudaAccessProperty parse_aprop(const std::string& s0) {
  std::string s = trim(s0);
  if (s == "persisting" || s == "evict_last") return cudaAccessPropertyPersisting;
  if (s == "streaming" || s == "evict_first") return cudaAccessPropertyStreaming;
  if (s == "normal" || s == "evict_normal") return cudaAccessPropertyNormal;
  die("unknown access property '%s'", s.c_str());
  return cudaAccessPropertyNormal;
}

typedef void (*KFn)(char*, size_t, uint64_t, unsigned*, int);

template <int OP>
static KFn pick(bool hint, bool measured) {
  if (measured) return hint ? measured_kernel<OP, true> : measured_kernel<OP, false>;
  return hint ? step_kernel<OP, true> : step_kernel<OP, false>;
}

static KFn kernel_for(int op, bool hint, bool measured) {
  switch (op) {
    case OP_LD: return pick<OP_LD>(hint, measured);
    case OP_ST: return pick<OP_ST>(hint, measured);
    case OP_RMW: return pick<OP_RMW>(hint, measured);
    case OP_RLD: return pick<OP_RLD>(hint, measured);
    case OP_DISCARD: return pick<OP_DISCARD>(false, measured);
    case OP_PF_LAST: return pick<OP_PF_LAST>(false, measured);
    case OP_PF_NORMAL: return pick<OP_PF_NORMAL>(false, measured);
    default: return pick<OP_PF_PLAIN>(false, measured);
  }
}

typedef void (*XFn)(const XArgs, unsigned*, int);

static XFn xkernel_for(int xop, bool measured) {
  switch (xop) {
    case X_GATHER: return measured ? measured_xkernel<X_GATHER> : step_xkernel<X_GATHER>;
    case X_SKEW: return measured ? measured_xkernel<X_SKEW> : step_xkernel<X_SKEW>;
    case X_SKEWU: return measured ? measured_xkernel<X_SKEWU> : step_xkernel<X_SKEWU>;
    default: return measured ? measured_xkernel<X_ADD> : step_xkernel<X_ADD>;
  }
}

static void usage() {
  fprintf(stderr,
          "usage: hwprobe --setaside default|0|max|BYTES --steps \"STEP; STEP; ...\"\n"
          "               [--dry-run] [--quiet] [--memset] [--scrub] [--time [--blocks]] [--repeat N] [--no-gate]\n"
          "               [--sync] [--stream0] [--bigscrub] [--profile-range] [--range-all]\n"
          "               [--omit-measured] [--gap-us N]\n"
          "       hwprobe --info   (device facts; exit 77 when no GPU)\n"
          "  STEP: flush | pause(US) | window(BUF,SIZE,hitRatio,hitProp,missProp) |\n"
          "        BUF[+OFF]:SIZE:OP[:HINT][*]   BUF in H B F, OFF/SIZE in MiB,\n"
          "        OP in ld st rmw rld discard prefetch add gW[xR] zW[xR] uW[xR]\n"
          "  see tools/hwprobe/README.md\n");
  exit(1);
}

int main(int argc, char** argv) {
  // Load every kernel when CUDA starts: with lazy loading (the default since
  // CUDA 12) the first launch of a kernel function loads it and waits for the
  // work in flight, so a row's second measured kernel would never run beside
  // its first (tools/hwprobe/README.md, "Two streams").
  setenv("CUDA_MODULE_LOADING", "EAGER", 1);
  std::string setaside = "default", steps;
  bool dry = false, quiet = false, info = false, do_memset = false, scrub = false;
  bool timing = false, blocks_out = false, sync_steps = false, stream0 = false, bigscrub = false, profrange = false;
  bool range_all = false, omit_measured = false, gate = true;
  int gap_us = 0;
  int repeat = 1;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--setaside" && i + 1 < argc) setaside = argv[++i];
    else if (a == "--steps" && i + 1 < argc) steps = argv[++i];
    else if (a == "--dry-run") dry = true;
    else if (a == "--quiet") quiet = true;
    else if (a == "--info") info = true;
    else if (a == "--memset") do_memset = true;
    else if (a == "--scrub") scrub = true;
    else if (a == "--time") timing = true;
    else if (a == "--blocks") blocks_out = true;
    else if (a == "--bigscrub") bigscrub = true;
    else if (a == "--profile-range") profrange = true;
    else if (a == "--range-all") range_all = true;
    else if (a == "--omit-measured") omit_measured = true;
    else if (a == "--gap-us" && i + 1 < argc) gap_us = parse_int(argv[++i], "--gap-us", 0, 100000000);
    else if (a == "--sync") sync_steps = true;
    else if (a == "--no-gate") gate = false;
    else if (a == "--stream0") stream0 = true;
    else if (a == "--repeat" && i + 1 < argc) repeat = parse_int(argv[++i], "--repeat", 1, 1000000);
    else usage();
  }
  if (info) {
    // Used by probe.sh: exit 77 (the test suite's "skip") when no GPU is usable.
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
      fprintf(stderr, "hwprobe: no usable CUDA device (%s)\n",
              e != cudaSuccess ? cudaGetErrorString(e) : "device count 0");
      return 77;
    }
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    size_t lim = 0;
    CK(cudaDeviceGetLimit(&lim, cudaLimitPersistingL2CacheSize));
    printf("device=%s\ncc=%d.%d\nsms=%d\nl2CacheSize=%d\npersistingL2CacheMaxSize=%d\n"
           "accessPolicyMaxWindowSize=%d\ndefaultPersistingL2Limit=%zu\ndriverApi=%d\nruntime=%d\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, prop.l2CacheSize,
           prop.persistingL2CacheMaxSize, prop.accessPolicyMaxWindowSize, lim, drv, rt);
    return 0;
  }
  if (steps.empty()) usage();

  // Parse everything first so that a bad row fails before any GPU work.
  struct Step {
    enum { FLUSH, WINDOW, PAUSE, KERNEL } type;
    long pause_us = 0;      // pause(US)
    std::string buf, hint;
    size_t off = 0, size = 0;
    int op = OP_LD;
    bool measured = false;
    bool hinted = false;
    uint64_t pol = 0;
    int xop = -1;           // X_GATHER, X_SKEW, X_ADD; -1: an OP_* kernel
    int stream = 1;         // @sN: 1 (the row's stream) or 2 (a second one)
    int blocks = kBlocks;   // @gG: the grid
    unsigned width = 0;     // gW / zW
    size_t nwarp = 0;       // gW / zW warp instructions
    std::vector<std::string> hints;  // x-ops: one per policy slot
    uint64_t xpol[3] = {0, 0, 0};
    double hit = 0;
    cudaAccessProperty hp = cudaAccessPropertyNormal, mp = cudaAccessPropertyNormal;
  };
  std::vector<Step> plan;
  int nmeasured = 0;
  for (std::string raw : split_top(steps, ';')) {
    if (raw.empty()) continue;
    Step st;
    if (raw.back() == '*') {
      st.measured = true;
      raw = trim(raw.substr(0, raw.size() - 1));
      nmeasured++;
    }
    // @sN (stream 1 or 2) and @gG (grid of G blocks) suffixes
    for (size_t at; (at = raw.rfind('@')) != std::string::npos && at + 2 < raw.size() + 1 &&
                    (raw[at + 1] == 's' || raw[at + 1] == 'g');) {
      double v = parse_num(raw.substr(at + 2), raw[at + 1] == 's' ? "stream" : "grid");
      if (raw[at + 1] == 's') {
        if (v != 1 && v != 2) die("stream must be 1 or 2 in '%s'", raw.c_str());
        st.stream = (int)v;
      } else {
        if (!(v >= 1 && v <= kBlocks) || v != std::floor(v)) die("grid must be 1 to 528 blocks in '%s'", raw.c_str());
        st.blocks = (int)v;
      }
      raw = trim(raw.substr(0, at));
    }
    if (raw == "flush") {
      st.type = Step::FLUSH;
    } else if (raw.compare(0, 6, "pause(") == 0) {
      st.type = Step::PAUSE;
      if (raw.back() != ')') die("bad pause '%s'", raw.c_str());
      double us = parse_num(raw.substr(6, raw.size() - 7), "pause");
      if (!(us >= 0 && us <= 10000000) || us != std::floor(us))
        die("pause must be 0 to 10000000 microseconds in '%s'", raw.c_str());
      st.pause_us = (long)us;
      if (st.measured) die("only a kernel step can be the measured one: '%s'", raw.c_str());
    } else if (raw.compare(0, 7, "window(") == 0) {
      st.type = Step::WINDOW;
      if (raw.back() != ')') die("bad window '%s'", raw.c_str());
      auto a = split_top(raw.substr(7, raw.size() - 8), ',');
      if (a.size() != 5) die("window needs 5 arguments: '%s'", raw.c_str());
      st.buf = a[0];
      st.size = mib_to_bytes(parse_num(a[1], "window size"), "window size");
      st.hit = parse_num(a[2], "hitRatio");
      st.hp = parse_aprop(a[3]);
      st.mp = parse_aprop(a[4]);
    } else {
      st.type = Step::KERNEL;
      // BUF[+OFF]:SIZE:OP[:HINT]  (the hint may contain ':'? no, but parentheses)
      std::vector<std::string> f;
      size_t pos = 0;
      for (int k = 0; k < 3; k++) {
        size_t c = raw.find(':', pos);
        if (c == std::string::npos) break;
        f.push_back(trim(raw.substr(pos, c - pos)));
        pos = c + 1;
      }
      f.push_back(trim(raw.substr(pos)));
      if (f.size() < 3) die("bad step '%s'", raw.c_str());
      std::string b = f[0];
      size_t plus = b.find('+');
      if (plus != std::string::npos) {
        st.off = mib_to_bytes(parse_num(b.substr(plus + 1), "offset"), "offset");
        b = trim(b.substr(0, plus));
      }
      st.buf = b;
      st.size = mib_to_bytes(parse_num(f[1], "size"), "size");
      std::string op = f[2];
      st.hint = f.size() > 3 ? f[3] : "plain";
      if (op == "ld") st.op = OP_LD;
      else if (op == "st") st.op = OP_ST;
      else if (op == "rmw") st.op = OP_RMW;
      else if (op == "rld") st.op = OP_RLD;
      else if (op == "add") st.xop = X_ADD;
      else if ((op[0] == 'g' || op[0] == 'z' || op[0] == 'u') && op.size() > 1 && isdigit((unsigned char)op[1])) {
        // gW[xR] / zW[xR] / uW[xR]: W bytes per piece, R times the region's 512-byte chunks
        st.xop = op[0] == 'g' ? X_GATHER : op[0] == 'z' ? X_SKEW : X_SKEWU;
        size_t xpos = op.find('x');
        st.width = (unsigned)parse_num(op.substr(1, xpos == std::string::npos ? std::string::npos
                                                                               : xpos - 1), "width");
        double r = xpos == std::string::npos ? 1.0 : parse_num(op.substr(xpos + 1), "repeat");
        if (st.width != 16 && st.width != 32 && st.width != 64 && st.width != 128)
          die("width of '%s' must be 16, 32, 64 or 128", op.c_str());
        if (!(r > 0)) die("repeat of '%s' must be positive", op.c_str());
        st.nwarp = (size_t)std::floor((double)(st.size / 512) * r);
      }
      else if (op == "discard") st.op = OP_DISCARD;
      else if (op == "prefetch") {
        if (st.hint == "evict_last") st.op = OP_PF_LAST;
        else if (st.hint == "evict_normal") st.op = OP_PF_NORMAL;
        else if (st.hint == "plain") st.op = OP_PF_PLAIN;
        else die("prefetch takes evict_last, evict_normal or plain, not '%s'", st.hint.c_str());
      } else die("unknown op '%s'", op.c_str());
      if (st.op == OP_RLD && st.size % 512) die("rld size must be a multiple of 512 bytes%s", "");
      if (st.xop >= 0) {
        // hints: add takes A[/B/C], zW takes HOT[/REST], gW one
        st.hints = split_top(st.hint, '/');
        const size_t want = st.xop == X_ADD ? 3 : st.xop == X_GATHER ? 1 : 2;
        if (st.hints.size() == 1) st.hints.resize(want, st.hints[0]);
        if (st.hints.size() != want) die("'%s' takes %s hints separated by '/'", op.c_str(),
                                         want == 3 ? "1 or 3" : want == 2 ? "1 or 2" : "1");
      }
      if (st.size % 128) die("size must be a multiple of 128 bytes%s", "");
    }
    plan.push_back(st);
  }
  // several measured kernels (on two streams) are measured together
  if (nmeasured < 1) fprintf(stderr, "hwprobe: warning: no step marked '*'\n");
  if (dry) {
    fprintf(stderr, "hwprobe: %zu steps parsed\n", plan.size());
    return 0;
  }

  int dev = 0;
  CK(cudaSetDevice(dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  if (!quiet)
    fprintf(stderr, "hwprobe: %s, %d SMs, L2 %d B, persistingL2CacheMaxSize %d B, "
            "accessPolicyMaxWindowSize %d B\n",
            prop.name, prop.multiProcessorCount, prop.l2CacheSize,
            prop.persistingL2CacheMaxSize, prop.accessPolicyMaxWindowSize);

  // Set-aside: `default` never touches the limit.
  if (setaside != "default") {
    size_t want;
    if (setaside == "max") want = (size_t)prop.persistingL2CacheMaxSize;
    else want = (size_t)parse_num(setaside, "setaside");
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, want));
  }
  size_t got = 0;
  CK(cudaDeviceGetLimit(&got, cudaLimitPersistingL2CacheSize));
  if (!quiet) fprintf(stderr, "hwprobe: setaside %s -> cudaLimitPersistingL2CacheSize = %zu\n",
                      setaside.c_str(), got);

  // Separate allocations, each 2 MiB aligned (cudaMalloc of these sizes is).
  Buffers bufs;
  CK(cudaMalloc(&bufs.H, kSizeH));
  CK(cudaMalloc(&bufs.B, kSizeB));
  CK(cudaMalloc(&bufs.F, kSizeF));
  for (char* p : {bufs.H, bufs.B, bufs.F})
    if ((uintptr_t)p % (2 * MiB)) die("allocation not 2 MiB aligned%s", "");
  unsigned* sink;
  CK(cudaMalloc(&sink, (size_t)kBlocks * kThreads * sizeof(unsigned)));
  uint64_t* dpol;
  CK(cudaMalloc(&dpol, 64));
  // No initialisation by default: the loads do not care about the values and
  // cudaMalloc memory needs no first touch. --memset fills the buffers first
  // (diagnostic; every row starts with `flush` anyway).
  if (do_memset) {
    CK(cudaMemset(bufs.H, 0x5a, kSizeH));
    CK(cudaMemset(bufs.B, 0x5a, kSizeB));
    CK(cudaMemset(bufs.F, 0x5a, kSizeF));
    CK(cudaDeviceSynchronize());
  }

  cudaStream_t stream = 0, stream2 = 0, gstream = 0;
  if (!stream0) CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&stream2, cudaStreamNonBlocking));
  CK(cudaStreamCreateWithFlags(&gstream, cudaStreamNonBlocking));
  cudaEvent_t gev;
  CK(cudaEventCreateWithFlags(&gev, cudaEventDisableTiming));
  int *hgate = nullptr, *dgate = nullptr;
  CK(cudaHostAlloc(&hgate, sizeof *hgate, cudaHostAllocMapped));
  CK(cudaHostGetDevicePointer(&dgate, hgate, 0));
  bool gate_shut = false;
  auto open_gate = [&]() {  // before anything that waits for the streams
    if (!gate_shut) return;
    if (*(volatile int*)hgate == 2) die("the gate kernel timed out before the host opened it%s", "");
    *(volatile int*)hgate = 1;
    __sync_synchronize();
    gate_shut = false;
  };
  auto idle = [&](long us) {  // every step launched so far completes, then the GPU idles us
    open_gate();
    CK(cudaDeviceSynchronize());
    struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};
    nanosleep(&ts, nullptr);
  };

  if (scrub) {
    uint64_t npol;
    hint_policy("evict_normal", bufs, dpol, &npol);
    const int rots[] = {-1, 0, 1, 2, 3, 5, 8, 13, 66, 67};
    for (int r : rots)
      for (char* p : {bufs.H, bufs.B, bufs.F}) {
        size_t n = p == bufs.H ? kSizeH : p == bufs.B ? kSizeB : kSizeF;
        scrub_kernel<<<kBlocks, kThreads, 0, stream>>>(p, n, npol, r, sink, 0);
        CK(cudaGetLastError());
      }
    CK(cudaStreamSynchronize(stream));
    if (!quiet) fprintf(stderr, "hwprobe: scrubbed H, B, F (applypriority + evict_normal loads)\n");
  }
  if (bigscrub) {
    // Demote and touch (nearly) all free device memory, in 1 GiB pieces.
    uint64_t npol;
    hint_policy("evict_normal", bufs, dpol, &npol);
    std::vector<char*> pieces;
    size_t fr = 0, tot = 0;
    CK(cudaMemGetInfo(&fr, &tot));
    const size_t piece = 1024 * MiB;
    while (fr > piece + 1024 * MiB) {
      char* p = nullptr;
      if (cudaMalloc(&p, piece) != cudaSuccess) { cudaGetLastError(); break; }
      pieces.push_back(p);
      fr -= piece;
    }
    for (int r : {-1, 0, 66})
      for (char* p : pieces) {
        scrub_kernel<<<kBlocks, kThreads, 0, stream>>>(p, piece, npol, r, sink, 0);
        CK(cudaGetLastError());
      }
    CK(cudaStreamSynchronize(stream));
    for (char* p : pieces) CK(cudaFree(p));
    if (!quiet) fprintf(stderr, "hwprobe: big scrub over %zu GiB\n", pieces.size());
  }

  // All policies are made before the first step, so nothing runs between steps.
  for (Step& st : plan) {
    if (st.type != Step::KERNEL) continue;
    if (st.xop >= 0) {
      for (size_t h = 0; h < st.hints.size(); h++)
        if (!hint_policy(st.hints[h], bufs, dpol, &st.xpol[h])) st.xpol[h] = 0;
    } else if (st.op == OP_LD || st.op == OP_ST || st.op == OP_RMW || st.op == OP_RLD) {
      st.hinted = hint_policy(st.hint, bufs, dpol, &st.pol);
    }
  }
  CK(cudaDeviceSynchronize());

  KFn flush_k = kernel_for(OP_LD, false, false);
  if (range_all) CK(cudaProfilerStart());
  for (int rep = 0; rep < repeat; rep++) {
  if (rep) quiet = true;
  unsigned* tsink = sink;       // where the next measured kernel writes its block times
  std::vector<int> tblocks;     // grids of the measured kernels so far
  int tleft = nmeasured;
  bool two_streams = false;
  for (const Step& x : plan) two_streams |= x.stream == 2;
  for (size_t si = 0; si < plan.size(); si++) {
    const Step& st = plan[si];
    cudaStream_t sst = st.stream == 2 ? stream2 : stream;
    if (st.type == Step::FLUSH) {
      open_gate();
      CK(cudaStreamSynchronize(stream));
      CK(cudaStreamSynchronize(stream2));
      CK(cudaCtxResetPersistingL2Cache());
      for (int r = 0; r < 2; r++) {
        flush_k<<<kBlocks, kThreads, 0, stream>>>(bufs.F, kSizeF, 0, sink, 0);
        CK(cudaGetLastError());
      }
      if (two_streams) CK(cudaDeviceSynchronize());  // the second stream starts after the flush
      if (two_streams && gate) {  // and both wait at the gate until every step is launched
        *(volatile int*)hgate = 0;
        gate_kernel<<<1, 1, 0, gstream>>>(dgate);
        CK(cudaGetLastError());
        CK(cudaEventRecord(gev, gstream));
        CK(cudaStreamWaitEvent(stream, gev, 0));
        CK(cudaStreamWaitEvent(stream2, gev, 0));
        gate_shut = true;
      }
      if (!quiet) fprintf(stderr, "hwprobe: step %zu flush\n", si);
    } else if (st.type == Step::PAUSE) {
      idle(st.pause_us);
      if (!quiet) fprintf(stderr, "hwprobe: step %zu pause %ld us\n", si, st.pause_us);
    } else if (st.type == Step::WINDOW) {
      size_t cap;
      char* p = buf_ptr(bufs, st.buf, &cap);
      if (st.size > cap) die("window larger than buffer%s", "");
      cudaStreamAttrValue v;
      memset(&v, 0, sizeof v);
      v.accessPolicyWindow.base_ptr = p;
      v.accessPolicyWindow.num_bytes = st.size;
      v.accessPolicyWindow.hitRatio = (float)st.hit;
      v.accessPolicyWindow.hitProp = st.hp;
      v.accessPolicyWindow.missProp = st.mp;
      CK(cudaStreamSetAttribute(sst, cudaStreamAttributeAccessPolicyWindow, &v));
      if (!quiet) fprintf(stderr, "hwprobe: step %zu window %s %zu B hitRatio %g\n", si,
                          st.buf.c_str(), st.size, st.hit);
    } else {
      if (sync_steps) {
        open_gate();
        CK(cudaDeviceSynchronize());
      }
      size_t cap;
      char* p = buf_ptr(bufs, st.buf, &cap);
      if (st.off + st.size * (st.xop == X_ADD ? 3 : 1) > cap)
        die("step runs past the end of buffer %s%s", st.buf.c_str());
      const uint64_t pol = st.pol;
      const bool hint = st.hinted;
      KFn k = kernel_for(st.op, hint, st.measured);
      if (st.measured && omit_measured) continue;
      if (st.measured && gap_us) idle(gap_us);
      if (st.measured && profrange) CK(cudaProfilerStart());
      if (st.xop >= 0) {
        XArgs xa;
        xa.base = p + st.off;
        xa.nbytes = st.size;
        xa.nwarp = st.nwarp;
        xa.width = st.width;
        for (int h = 0; h < 3; h++) xa.pol[h] = st.xpol[h];
        xkernel_for(st.xop, st.measured)<<<st.blocks, kThreads, 0, sst>>>(
            xa, tsink, (st.measured && timing) ? 2 : 0);
      } else {
        k<<<st.blocks, kThreads, 0, sst>>>(p + st.off, st.size, pol, tsink,
                                            (st.measured && timing) ? 2 : 0);
      }
      CK(cudaGetLastError());
      if (st.measured && timing) {
        tblocks.push_back(st.blocks);
        tsink += 2 * st.blocks * kTimeWords;  // the next measured kernel's block times (u64 words)
      }
      if (st.measured && timing && --tleft == 0) {
        // the span of every measured kernel's blocks, together
        open_gate();
        CK(cudaDeviceSynchronize());
        size_t nb = 0;
        for (int b : tblocks) nb += (size_t)b;
        std::vector<unsigned long long> tb(kTimeWords * nb);
        CK(cudaMemcpy(tb.data(), sink, tb.size() * 8, cudaMemcpyDeviceToHost));
        unsigned long long a = ~0ull, b = 0;
        for (size_t j = 0; j < nb; j++) {
          a = std::min(a, tb[kTimeWords * j]);
          b = std::max(b, tb[kTimeWords * j + 1]);
        }
        printf("measured_ns=%llu rep=%d\n", b - a, rep);
        {
          // each measured kernel's first block start and last block end, from the earliest start
          size_t j = 0;
          for (size_t m = 0; m < tblocks.size(); m++) {
            unsigned long long s0 = ~0ull;
            std::vector<unsigned long long> ends;
            for (int q = 0; q < tblocks[m]; q++, j++) {
              s0 = std::min(s0, tb[kTimeWords * j]);
              ends.push_back(tb[kTimeWords * j + 1] - a);
            }
            if (blocks_out)
              for (int q = 0; q < tblocks[m]; q++) {
                const size_t k = j - (size_t)tblocks[m] + (size_t)q;
                printf("measured_block=%zu b=%d sm=%llu start_ns=%llu end_ns=%llu rep=%d\n", m + 1, q,
                       tb[kTimeWords * k + 2], tb[kTimeWords * k] - a, tb[kTimeWords * k + 1] - a, rep);
              }
            std::sort(ends.begin(), ends.end());
            printf("measured_kernel=%zu start_ns=%llu end_ns=%llu rep=%d median_end_ns=%llu p10_end_ns=%llu "
                   "p90_end_ns=%llu\n",
                   m + 1, s0 - a, ends.back(), rep, ends[ends.size() / 2], ends[ends.size() / 10],
                   ends[ends.size() * 9 / 10]);
          }
        }
      }
      if (st.measured && profrange) {
        open_gate();
        CK(cudaStreamSynchronize(stream));
        CK(cudaProfilerStop());
      }
      if (!quiet) {
        if (hint)
          fprintf(stderr, "hwprobe: step %zu %s%s policy 0x%016llx\n", si,
                  st.measured ? "(measured) " : "", st.hint.c_str(), (unsigned long long)pol);
        else
          fprintf(stderr, "hwprobe: step %zu %s%s\n", si, st.measured ? "(measured) " : "",
                  st.hint.c_str());
      }
    }
  }
  open_gate();
  CK(cudaDeviceSynchronize());
  }
  CK(cudaDeviceSynchronize());
  if (range_all) CK(cudaProfilerStop());
  CK(cudaGetLastError());
  if (!quiet) fprintf(stderr, "hwprobe: done\n");
  return 0;
}
