/*
 * common.h - shared by the l2trace GPU test programs: error checks and the
 * expectation lines each program prints on standard output for check.py
 * (tests/cuda/README in run.sh): what the captured trace must contain.
 *
 *   sms N                       accesses must carry sm= below N
 *   alloc BASE BYTES            an alloc line at BASE of at least BYTES
 *   free BASE                   the free line of the allocation at BASE
 *   kernel REGEX [stream=S] grid=X,Y,Z block=X,Y,Z [observe]
 *                               the next kernel line; its accesses follow
 *                               (observe: printed, not checked)
 *   A ADDR SIZE                 an access of the kernel (any order), A = R W P A D
 *   TAG                         any other directive line, verbatim
 *                               (setaside, reset, window, event, sync)
 */
#ifndef L2TRACE_TEST_COMMON_H
#define L2TRACE_TEST_COMMON_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CK(call)                                                                                       \
    do {                                                                                               \
        cudaError_t err_ = (call);                                                                     \
        if (err_ != cudaSuccess) {                                                                     \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(err_)); \
            exit(1);                                                                                   \
        }                                                                                              \
    } while (0)

static inline unsigned long long A(const void *p)
{
    return (unsigned long long)(uintptr_t)p;
}

static inline void expect_sms()
{
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("sms %d\n", p.multiProcessorCount);
}

static inline void expect_alloc(const void *p, size_t bytes)
{
    printf("alloc 0x%llx %zu\n", A(p), bytes);
}

static inline void expect_kernel(const char *re, int stream, dim3 g, dim3 b, bool observe = false)
{
    char s[32] = "";
    if (stream)
        snprintf(s, sizeof s, " stream=%d", stream);
    printf("kernel %s%s grid=%u,%u,%u block=%u,%u,%u%s\n", re, s, g.x, g.y, g.z, b.x, b.y, b.z,
           observe ? " observe" : "");
}

static inline void expect_access(char op, unsigned long long addr, unsigned size)
{
    printf("%c 0x%llx %u\n", op, addr, size);
}

/* Accesses of whole lines: [addr, addr+bytes) in 128-byte pieces. */
static inline void expect_lines(char op, unsigned long long addr, size_t bytes)
{
    for (size_t k = 0; k < bytes; k += 128)
        expect_access(op, addr + k, 128);
}

/* A float4 sweep: every warp reads or writes 512 contiguous bytes, 4 lines. */
__global__ void copy4(const float4 *in, float4 *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i];
}

static inline void expect_copy4(const void *in, void *out, int n)
{
    for (int w = 0; w < n / 32; w++) {
        expect_lines('R', A(in) + (unsigned long long)w * 512, 512);
        expect_lines('W', A(out) + (unsigned long long)w * 512, 512);
    }
}

#endif
