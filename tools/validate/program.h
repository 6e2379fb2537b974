// program.h - shared by the validation programs (hotcold.cu, spmm.cu): the
// access-policy window of their --window option and the profiled, timed
// range their kernels run in.
#ifndef L2SIM_VALIDATE_PROGRAM_H
#define L2SIM_VALIDATE_PROGRAM_H

#include <cuda_profiler_api.h>
#include <cuda_runtime.h>

#include <cstdio>

#include "../../tests/cuda/common.h" /* CK */

/* A window over [base, base + bytes) for the kernels of stream st:
 * hitRatio of its lines persisting, the others streaming. */
static void set_window(cudaStream_t st, void *base, size_t bytes, double hit_ratio)
{
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = base;
    attr.accessPolicyWindow.num_bytes = bytes;
    attr.accessPolicyWindow.hitRatio = (float)hit_ratio;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    CK(cudaStreamSetAttribute(st, cudaStreamAttributeAccessPolicyWindow, &attr));
}

/* Runs launch(), which launches `kernels` kernels on st, between
 * cudaProfilerStart and cudaProfilerStop (the range that `ncu
 * --replay-mode app-range` measures), prints their time between two
 * events on st ("kernels N time MS ms"), then leaves no persisting line
 * behind. */
template <class F> static void run_range(cudaStream_t st, int kernels, F launch)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    CK(cudaProfilerStart());
    CK(cudaEventRecord(e0, st));
    launch();
    CK(cudaEventRecord(e1, st));
    CK(cudaEventSynchronize(e1));
    CK(cudaProfilerStop());
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    printf("kernels %d time %.3f ms\n", kernels, ms);
    CK(cudaCtxResetPersistingL2Cache());
    CK(cudaGetLastError());
}

#endif
