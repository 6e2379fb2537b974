/*
 * policy.cu - the L2 persistence controls: a persisting set-aside, an
 * access-policy window on a stream, a launch with its own window
 * (cudaLaunchKernelEx), the window removed, the persisting lines reset.
 */
#include "common.h"

int main()
{
    const int n4 = 1 << 14; /* 256 KiB */
    float4 *a, *b;
    expect_sms();
    CK(cudaMalloc(&a, n4 * sizeof(float4)));
    expect_alloc(a, n4 * sizeof(float4));
    CK(cudaMalloc(&b, n4 * sizeof(float4)));
    expect_alloc(b, n4 * sizeof(float4));
    CK(cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 4 << 20));
    printf("setaside 4194304\n");
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaStreamAttrValue v = {};
    v.accessPolicyWindow.base_ptr = a;
    v.accessPolicyWindow.num_bytes = 1 << 18;
    v.accessPolicyWindow.hitRatio = 0.5f;
    v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    v.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
    printf("window 0x%llx 262144 0.5 evict_last evict_first stream=1\n", A(a));
    copy4<<<n4 / 256, 256, 0, s>>>(a, b, n4);
    CK(cudaGetLastError());
    expect_kernel("^copy4\\(", 1, dim3(n4 / 256), dim3(256));
    expect_copy4(a, b, n4);

    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(n4 / 256);
    cfg.blockDim = dim3(256);
    cfg.stream = s;
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeAccessPolicyWindow;
    at[0].val.accessPolicyWindow.base_ptr = b;
    at[0].val.accessPolicyWindow.num_bytes = 1 << 17;
    at[0].val.accessPolicyWindow.hitRatio = 1.0f;
    at[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    at[0].val.accessPolicyWindow.missProp = cudaAccessPropertyNormal;
    cfg.attrs = at;
    cfg.numAttrs = 1;
    CK(cudaLaunchKernelEx(&cfg, copy4, (const float4 *)b, a, n4));
    printf("window 0x%llx 131072 1 evict_last evict_normal stream=1\n", A(b));
    expect_kernel("^copy4\\(", 1, dim3(n4 / 256), dim3(256));
    expect_copy4(b, a, n4);
    printf("window 0x%llx 262144 0.5 evict_last evict_first stream=1\n", A(a)); /* the stream's again */

    v.accessPolicyWindow.num_bytes = 0;
    CK(cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v));
    printf("window off stream=1\n");
    CK(cudaCtxResetPersistingL2Cache());
    printf("reset\n");
    CK(cudaStreamSynchronize(s));
    printf("sync stream=1\n");
    return 0;
}
