/*
 * annotated.cu - cuda::annotated_ptr with each access_property, and the
 * L2 control instructions (applypriority, discard, prefetch).  The
 * Compute Sanitizer API does not report eviction hints: the annotated
 * loads must appear untagged, exactly like plain ones.
 */
#include <cuda/annotated_ptr>

#include "common.h"

__global__ void annotated(const float4 *a, const float4 *b, const float4 *c, const float4 *d, float4 *out, int n)
{
    cuda::annotated_ptr<const float4, cuda::access_property::persisting> pa(a);
    cuda::annotated_ptr<const float4, cuda::access_property::streaming> pb(b);
    cuda::annotated_ptr<const float4, cuda::access_property::normal> pc(c);
    cuda::annotated_ptr<const float4, cuda::access_property::global> pd(d);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 x = pa[i], y = pb[i], z = pc[i], w = pd[i];
        out[i] = make_float4(x.x + y.x + z.x + w.x, x.y + y.y + z.y + w.y, x.z + y.z + z.z + w.z,
                             x.w + y.w + z.w + w.w);
    }
}

/* one warp, lane l on line l */
__global__ void applyprio(char *p)
{
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(p + threadIdx.x * 128) : "memory");
}
__global__ void discard(char *p)
{
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + threadIdx.x * 128) : "memory");
}
__global__ void prefetch_l2_last(char *p)
{
    asm volatile("prefetch.global.L2::evict_last [%0];" ::"l"(p + threadIdx.x * 128) : "memory");
}
__global__ void prefetch_l2(char *p)
{
    asm volatile("prefetch.global.L2 [%0];" ::"l"(p + threadIdx.x * 128) : "memory");
}
__global__ void prefetch_l1(char *p)
{
    asm volatile("prefetch.global.L1 [%0];" ::"l"(p + threadIdx.x * 128) : "memory");
}

int main()
{
    const int n = 1 << 13;
    float4 *buf[5];
    expect_sms();
    for (int k = 0; k < 5; k++) {
        CK(cudaMalloc(&buf[k], n * sizeof(float4)));
        expect_alloc(buf[k], n * sizeof(float4));
    }
    annotated<<<n / 128, 128>>>(buf[0], buf[1], buf[2], buf[3], buf[4], n);
    CK(cudaGetLastError());
    expect_kernel("^annotated\\(", 0, dim3(n / 128), dim3(128));
    for (int w = 0; w < n / 32; w++) {
        for (int k = 0; k < 4; k++)
            expect_lines('R', A(buf[k]) + (unsigned long long)w * 512, 512);
        expect_lines('W', A(buf[4]) + (unsigned long long)w * 512, 512);
    }
    char *p = (char *)buf[0];
    applyprio<<<1, 32>>>(p);
    CK(cudaGetLastError());
    expect_kernel("^applyprio\\(", 0, dim3(1), dim3(32), true);
    expect_lines('A', A(p), 4096);
    discard<<<1, 32>>>(p);
    CK(cudaGetLastError());
    expect_kernel("^discard\\(", 0, dim3(1), dim3(32), true);
    expect_lines('D', A(p), 4096);
    prefetch_l2_last<<<1, 32>>>(p);
    CK(cudaGetLastError());
    expect_kernel("^prefetch_l2_last\\(", 0, dim3(1), dim3(32), true);
    expect_lines('P', A(p), 4096);
    prefetch_l2<<<1, 32>>>(p);
    CK(cudaGetLastError());
    expect_kernel("^prefetch_l2\\(", 0, dim3(1), dim3(32), true);
    expect_lines('P', A(p), 4096);
    prefetch_l1<<<1, 32>>>(p);
    CK(cudaGetLastError());
    expect_kernel("^prefetch_l1\\(", 0, dim3(1), dim3(32), true);
    expect_lines('R', A(p), 4096);
    CK(cudaDeviceSynchronize());
    printf("sync\n");
    return 0;
}
