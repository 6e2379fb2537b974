/*
 * patch.cu - the device patches l2trace inserts into every kernel (built
 * with nvcc --fatbin --compile-as-tools-patch, loaded with
 * sanitizerAddPatchesFromFile).
 *
 * The Compute Sanitizer calls a patch once per thread at each patched
 * instruction.  The threads of a warp that execute the same instruction
 * (same pc) elect a leader; the leader reserves one record in the ring
 * (struct l2t_ring_rec, pinned host memory), waiting while the ring is
 * full until the host has drained it; every lane stores its address; the
 * leader stores the header and, after a system-scope fence, seq, which
 * tells the host that the record is complete.  Nothing is lost: a full
 * ring slows the kernel down instead.
 */
#include <sanitizer_patching.h>
#include <stdint.h>

#include "tracer.h"

static __device__ __forceinline__ unsigned lane_id()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

static __device__ __forceinline__ unsigned sm_id()
{
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

static __device__ __forceinline__ unsigned long long load_acquire_sys(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.acquire.sys.global.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}

/* One record for the lanes of this warp at this pc. */
static __device__ __forceinline__ void record(void *userdata, uint64_t pc, uint64_t addr, uint32_t size,
                                              uint32_t flags, uint64_t extra)
{
    l2t_ctl *c = (l2t_ctl *)userdata;
    if (!c || !c->on)
        return;
    unsigned active = __activemask();
    unsigned mask = __match_any_sync(active, pc); /* lanes at this instruction */
    unsigned lane = lane_id();
    unsigned leader = __ffs(mask) - 1;
    unsigned long long idx = 0;
    if (lane == leader) {
        idx = atomicAdd(&c->head, 1ULL);
        while (idx - load_acquire_sys(c->tail) >= c->cap) /* full: wait for the host */
            __nanosleep(2000);
    }
    idx = __shfl_sync(mask, idx, leader);
    l2t_ring_rec *r = &c->ring[idx & (c->cap - 1)];
    r->addr[lane] = addr;
    __threadfence_system();
    __syncwarp(mask);
    if (lane == leader) {
        if (flags & L2T_F_BULK) { /* the source and the byte count, whichever lanes are active */
            r->addr[0] = addr;
            r->addr[1] = extra;
        }
        r->mask = mask;
        r->size = size;
        r->flags = flags;
        r->smid = sm_id();
        __threadfence_system();
        *(volatile unsigned long long *)&r->seq = idx + 1;
    }
    __syncwarp(mask);
}

/* Loads, stores, atomics and reductions to global memory. */
extern "C" __device__ __noinline__ SanitizerPatchResult l2t_global_access(void *userdata, uint64_t pc, void *ptr,
                                                                          uint32_t size, uint32_t flags)
{
    record(userdata, pc, (uint64_t)(uintptr_t)ptr, size, flags, 0);
    return SANITIZER_PATCH_SUCCESS;
}

/* Prefetches (prefetch.global.L1/L2): one line per lane. */
extern "C" __device__ __noinline__ SanitizerPatchResult l2t_cache_control(void *userdata, uint64_t pc, void *address,
                                                                          uint32_t kind)
{
    /* kind: 1 prefetch to L1, 2 prefetch to L2 (Sanitizer_CacheControlInstructionKind) */
    uint32_t flags = kind == 2 ? L2T_F_PREFETCH : kind == 1 ? L2T_F_L1_PREFETCH : 0;
    if (flags)
        record(userdata, pc, (uint64_t)(uintptr_t)address, 1, flags, 0);
    return SANITIZER_PATCH_SUCCESS;
}

/* cp.async global -> shared: a read of accessSize bytes per lane. */
extern "C" __device__ __noinline__ SanitizerPatchResult l2t_memcpy_async(void *userdata, uint64_t pc, void *src,
                                                                         uint32_t dst, uint32_t size)
{
    (void)dst;
    if (src)
        record(userdata, pc, (uint64_t)(uintptr_t)src, size, L2T_F_READ, 0);
    return SANITIZER_PATCH_SUCCESS;
}

/* cp.async.bulk global -> shared: data bits 0-15 count 16-byte blocks; the
 * lanes give the same values, so the leader's record stands for the warp. */
extern "C" __device__ __noinline__ SanitizerPatchResult l2t_bulk_copy(void *userdata, uint64_t pc, uint64_t src,
                                                                      uint32_t dst, uint32_t barrier, uint32_t data,
                                                                      uint32_t multicast)
{
    (void)dst;
    (void)barrier;
    (void)multicast;
    record(userdata, pc, src, 16, L2T_F_BULK, (uint64_t)(data & 0xffffu) * 16u);
    return SANITIZER_PATCH_SUCCESS;
}

/* cp.async.bulk shared -> global and its reductions: numBlocks 16-byte
 * blocks written at dst (the same values in every lane). */
extern "C" __device__ __noinline__ SanitizerPatchResult l2t_bulk_store(void *userdata, uint64_t pc, uint64_t dst,
                                                                       uint32_t src, uint32_t blocks)
{
    (void)src;
    record(userdata, pc, dst, 16, L2T_F_BULK | L2T_F_WRITE, (uint64_t)blocks * 16u);
    return SANITIZER_PATCH_SUCCESS;
}

extern "C" __device__ __noinline__ SanitizerPatchResult l2t_bulk_reduce(void *userdata, uint64_t pc, uint64_t dst,
                                                                        uint32_t src, uint32_t blocks)
{
    (void)src;
    record(userdata, pc, dst, 16, L2T_F_BULK | L2T_F_WRITE, (uint64_t)blocks * 16u);
    return SANITIZER_PATCH_SUCCESS;
}
