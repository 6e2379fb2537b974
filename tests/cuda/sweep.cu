/*
 * sweep.cu - plain global accesses: a float4 copy (4 lines per warp
 * instruction), a 4-byte gather with stride 8 and a partial last warp
 * (inactive lanes), atomics on one sector, and 4-byte stores 32 bytes
 * apart (each sector written in part: an access of its 4 bytes).
 */
#include "common.h"

__global__ void strided(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[2 * i];
}

__global__ void atomics(int *counter)
{
    atomicAdd(&counter[threadIdx.x % 8], 1);
}

__global__ void partial(int *p)
{
    p[threadIdx.x * 8] = 1;
}

int main(int argc, char **argv)
{
    const int n4 = argc > 1 ? atoi(argv[1]) : 1 << 15; /* float4s: 512 KiB by default (a multiple of 256) */
    float4 *a, *b;
    float *s, *t;
    int *c, *q;
    expect_sms();
    CK(cudaMalloc(&a, n4 * sizeof(float4)));
    expect_alloc(a, n4 * sizeof(float4));
    CK(cudaMalloc(&b, n4 * sizeof(float4)));
    expect_alloc(b, n4 * sizeof(float4));

    copy4<<<n4 / 256, 256>>>(a, b, n4);
    CK(cudaGetLastError());
    expect_kernel("^copy4\\(", 0, dim3(n4 / 256), dim3(256));
    expect_copy4(a, b, n4);

    const int n = 1000; /* the last warp has 8 active lanes */
    CK(cudaMalloc(&s, 2 * n * sizeof(float)));
    expect_alloc(s, 2 * n * sizeof(float));
    CK(cudaMalloc(&t, n * sizeof(float)));
    expect_alloc(t, n * sizeof(float));
    strided<<<4, 256>>>(s, t, n);
    CK(cudaGetLastError());
    expect_kernel("^strided\\(", 0, dim3(4), dim3(256));
    for (int w = 0; w < 31; w++) { /* 32 lanes x 8 bytes = 2 whole lines read, 1 line written */
        expect_lines('R', A(s) + (unsigned long long)w * 256, 256);
        expect_lines('W', A(t) + (unsigned long long)w * 128, 128);
    }
    expect_access('R', A(s) + 31 * 256, 64); /* lanes 0-7: bytes 0..63 of the line, two sectors */
    expect_access('W', A(t) + 31 * 128, 32); /* 8 floats: one sector */

    CK(cudaMalloc(&c, 8 * sizeof(int)));
    expect_alloc(c, 8 * sizeof(int));
    atomics<<<1, 64>>>(c);
    CK(cudaGetLastError());
    expect_kernel("^atomics\\(", 0, dim3(1), dim3(64));
    expect_access('W', A(c), 32);
    expect_access('W', A(c), 32);

    CK(cudaMalloc(&q, 32 * 8 * sizeof(int)));
    expect_alloc(q, 32 * 8 * sizeof(int));
    partial<<<1, 32>>>(q);
    CK(cudaGetLastError());
    expect_kernel("^partial\\(", 0, dim3(1), dim3(32));
    for (int i = 0; i < 32; i++) /* 8 lines, each sector written in part */
        expect_access('W', A(q) + 32 * (unsigned long long)i, 4);

    CK(cudaDeviceSynchronize());
    printf("sync\n");
    CK(cudaFree(s));
    printf("free 0x%llx\n", A(s));
    return 0;
}
