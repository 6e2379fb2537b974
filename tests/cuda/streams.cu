/*
 * streams.cu - two streams ordered by an event, and a stream-ordered
 * allocation (cudaMallocAsync / cudaFreeAsync).
 */
#include "common.h"

int main()
{
    const int n4 = 1 << 14;
    float4 *a, *b, *x;
    expect_sms();
    CK(cudaMalloc(&a, n4 * sizeof(float4)));
    expect_alloc(a, n4 * sizeof(float4));
    CK(cudaMalloc(&b, n4 * sizeof(float4)));
    expect_alloc(b, n4 * sizeof(float4));
    cudaStream_t s1, s2;
    cudaEvent_t e;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    CK(cudaMallocAsync(&x, n4 * sizeof(float4), s1));
    expect_alloc(x, n4 * sizeof(float4));
    copy4<<<n4 / 256, 256, 0, s1>>>(a, x, n4);
    CK(cudaGetLastError());
    expect_kernel("^copy4\\(", 1, dim3(n4 / 256), dim3(256));
    expect_copy4(a, x, n4);
    CK(cudaEventRecord(e, s1));
    printf("event record ev0 stream=1\n");
    CK(cudaStreamWaitEvent(s2, e, 0));
    printf("event wait ev0 stream=2\n");
    copy4<<<n4 / 256, 256, 0, s2>>>(x, b, n4);
    CK(cudaGetLastError());
    expect_kernel("^copy4\\(", 2, dim3(n4 / 256), dim3(256));
    expect_copy4(x, b, n4);
    CK(cudaFreeAsync(x, s2));
    printf("free 0x%llx\n", A(x));
    CK(cudaStreamSynchronize(s2));
    printf("sync stream=2\n");
    CK(cudaDeviceSynchronize());
    printf("sync\n");
    return 0;
}
