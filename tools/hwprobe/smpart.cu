// smpart.cu: which SMs share an L2 partition, by load latency.
//
//   nvcc -O3 -std=c++17 -arch=sm_90 -o smpart tools/hwprobe/smpart.cu
//   ./smpart [REF_SM ...]
//
// A 16.5 MiB buffer holds 132 chains of 1024 lines (chain s: lines s,
// s + 132, s + 264, ...; each line holds the index of the next).  For each
// reference SM r (default 0), twice: the L2 is emptied (a 256 MiB sweep),
// one block on SM r reads every line of the buffer, then one block on each
// SM s follows chain s (1024 dependent ld.global.cg loads: L2, not L1),
// timed with clock64.  An SM that shares r's partition finds every line
// near (the home line, or the copy r's reads left there); an SM of the
// other partition finds the lines whose home is r's partition far, about
// half of them, so its mean latency is higher.
// Prints one line per SM and run: ref=R rep=N sm=S mean_cycles=M.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

constexpr int kSms = 132;
constexpr int kLines = 1024;  // per chain
constexpr size_t kLine = 128;

#define CK(x)                                                                        \
  do {                                                                               \
    cudaError_t e_ = (x);                                                            \
    if (e_ != cudaSuccess) {                                                         \
      fprintf(stderr, "smpart: %s: %s\n", #x, cudaGetErrorString(e_));              \
      exit(1);                                                                       \
    }                                                                                \
  } while (0)

__device__ unsigned smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}

__device__ unsigned ld_cg(const unsigned* p) {
  unsigned v;
  asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
  return v;
}

// one sweep over a large buffer, every thread (evicts the L2)
__global__ void sweep(const uint4* p, size_t n, unsigned* sink) {
  uint4 a = make_uint4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    uint4 v = p[i];
    a.x ^= v.x; a.y ^= v.y; a.z ^= v.z; a.w ^= v.w;
  }
  if ((a.x ^ a.y ^ a.z ^ a.w) == 0x12345678u) sink[0] = 1;
}

// the first block to start on SM `ref` reads every line of the buffer once
__global__ void fill(const unsigned* buf, unsigned ref, unsigned* claim, unsigned* sink) {
  __shared__ unsigned mine;
  if (threadIdx.x == 0) mine = smid() == ref && atomicCAS(claim, 0u, 1u) == 0u;
  __syncthreads();
  if (!mine) return;
  unsigned a = 0;
  for (unsigned i = threadIdx.x; i < kSms * kLines; i += blockDim.x) a += ld_cg(buf + (size_t)i * (kLine / 4));
  if (a == 0x12345678u) sink[0] = 1;
}

// the first block to start on each SM s follows chain s (each line holds
// the index of the next line of its chain): kLines dependent loads
__global__ void timed(const unsigned* buf, unsigned* claim, unsigned long long* cycles, unsigned* sink) {
  if (threadIdx.x != 0) return;
  const unsigned s = smid();
  if (s >= kSms || atomicCAS(claim + s, 0u, 1u) != 0u) return;
  unsigned idx = s * (unsigned)(kLine / 4);
  const long long t0 = clock64();
  for (unsigned k = 0; k < kLines; k++) idx = ld_cg(buf + idx);
  const long long t1 = clock64();
  cycles[s] = (unsigned long long)(t1 - t0);
  if (idx == 0x12345678u) sink[0] = 1;
}

int main(int argc, char** argv) {
  std::vector<unsigned> refs;
  for (int i = 1; i < argc; i++) {
    char* end;
    const unsigned long r = strtoul(argv[i], &end, 10);
    if (*end || end == argv[i] || r >= (unsigned long)kSms) {
      fprintf(stderr, "smpart: reference SM '%s' is not 0 to %d\n", argv[i], kSms - 1);
      return 2;
    }
    refs.push_back((unsigned)r);
  }
  if (refs.empty()) refs.push_back(0);
  const size_t big = (size_t)256 << 20, small = (size_t)kSms * kLines * kLine;
  void *pbig, *pbuf;
  unsigned *claim, *sink;
  unsigned long long* cyc;
  CK(cudaMalloc(&pbig, big));
  CK(cudaMalloc(&pbuf, small));
  CK(cudaMalloc(&claim, (kSms + 1) * sizeof(unsigned)));
  CK(cudaMalloc(&sink, sizeof(unsigned)));
  CK(cudaMalloc(&cyc, kSms * sizeof(unsigned long long)));
  CK(cudaMemset(pbig, 0, big));
  {  // line k*132+s holds the index (in words) of line (k+1)*132+s
    std::vector<unsigned> h(small / 4, 0);
    for (unsigned k = 0; k < kLines; k++)
      for (unsigned s = 0; s < kSms; s++)
        h[((size_t)k * kSms + s) * (kLine / 4)] = (unsigned)((((size_t)(k + 1) % kLines) * kSms + s) * (kLine / 4));
    CK(cudaMemcpy(pbuf, h.data(), small, cudaMemcpyHostToDevice));
  }
  for (unsigned ref : refs) {
    for (int rep = 0; rep < 2; rep++) {
      CK(cudaMemset(claim, 0, (kSms + 1) * sizeof(unsigned)));
      CK(cudaMemset(cyc, 0, kSms * sizeof(unsigned long long)));
      sweep<<<528, 512>>>((const uint4*)pbig, big / 16, sink);
      fill<<<4 * kSms, 256>>>((const unsigned*)pbuf, ref, claim + kSms, sink);
      timed<<<8 * kSms, 32>>>((const unsigned*)pbuf, claim, cyc, sink);
      CK(cudaDeviceSynchronize());
      unsigned filled;
      CK(cudaMemcpy(&filled, claim + kSms, sizeof filled, cudaMemcpyDeviceToHost));
      if (!filled) {  // no block of the fill ran on SM ref: every load would miss
        fprintf(stderr, "smpart: no block ran on SM %u\n", ref);
        return 1;
      }
      std::vector<unsigned long long> h(kSms);
      CK(cudaMemcpy(h.data(), cyc, kSms * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
      for (int s = 0; s < kSms; s++)
        printf("ref=%u rep=%d sm=%d mean_cycles=%.1f\n", ref, rep, s, h[s] ? (double)h[s] / kLines : -1.0);
    }
  }
  return 0;
}
