/*
 * inject.cu - the Compute Sanitizer tool that l2trace loads into a CUDA
 * program: host code only; the device patches are in patch.cu, the
 * capture itself in C (tracer.c, capture.c).
 *
 * The launcher preloads it (LD_PRELOAD, as NVIDIA's Sanitizer API samples
 * are run), so that it subscribes when the program starts, before its
 * first CUDA call, as the Compute Sanitizer API asks.  InitializeInjection
 * is exported too, for loading through CUDA_INJECTION64_PATH.
 *
 * - Modules: every module loaded is patched: global memory accesses
 *   (loads, stores, atomics), cache-control instructions (prefetch),
 *   cp.async and bulk copies and reductions between global and shared
 *   memory call the patches.
 * - Launches: the launch's kernel line (name demangled, stream, grid,
 *   block) is written, the patches of a captured launch get the ring's
 *   control block as userdata (the others NULL: they record nothing), and
 *   at the launch's end the host waits for the kernel and for the drain
 *   thread to have written every record of it.  Launches are serialised,
 *   so records never mix between kernels and the trace keeps launch order.
 * - The drain thread moves complete records from the ring (pinned host
 *   memory) into the capture while the kernel runs; a full ring makes the
 *   device wait, so kernels of any size are captured whole.
 * - Allocations (cudaMalloc, cudaMallocAsync/pools, managed, module
 *   globals), events (record, wait) come from the resource and event
 *   callbacks; the L2 controls (persisting set-aside, reset, access
 *   policy windows on streams and on cudaLaunchKernelEx) and
 *   synchronisations from the runtime and driver API callbacks (a driver
 *   call made by a runtime call is not counted twice).
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cxxabi.h>
#include <dlfcn.h>
#include <pthread.h>
#include <sanitizer.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "tracer.h"

namespace {

struct Tool {
    l2t_tracer *tr = nullptr;
    Sanitizer_SubscriberHandle sub = nullptr;
    std::string patch;
    pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;        /* the fields below */
    pthread_mutex_t launch_mu = PTHREAD_MUTEX_INITIALIZER; /* held from a launch's begin to its end */
    CUcontext ctx = nullptr; /* the captured context (the first to launch) */
    std::vector<CUcontext> patched;
    l2t_ctl *ctl = nullptr;            /* device memory */
    l2t_ring_rec *ring = nullptr;      /* pinned host memory */
    unsigned long long *tail = nullptr; /* pinned host memory */
    uint64_t cap = 0;
    std::atomic<uint64_t> consumed{0};
    std::atomic<int> draining{0}, quit{0};
    pthread_t drain;
    bool drain_started = false;
    pthread_cond_t wake = PTHREAD_COND_INITIALIZER;
    bool closed = false;
    uint64_t other_ctx = 0, unpatched_ok[5] = {0, 0, 0, 0, 0};
    bool warned_optional = false;
};

/* Constructed before the load-time constructor below runs initialize(): with
 * the default priority, C++ would construct g after it and so reset the
 * tracer pointer that initialize() had set (the library then ignored every
 * callback). */
Tool g __attribute__((init_priority(101)));
thread_local int rt_depth = 0;     /* runtime API calls in progress on this thread */
thread_local int own_alloc = 0;    /* inside our own sanitizerAlloc */
thread_local int own_call = 0;     /* inside our own Sanitizer API calls: their API callbacks are ours */
std::atomic<uint64_t> def_handle{0}; /* the default stream's handle */
thread_local bool launch_captured = false;
thread_local bool launch_locked = false;
thread_local bool win_pending = false;
thread_local CUaccessPolicyWindow win;

const char *result_string(SanitizerResult r)
{
    const char *s = nullptr;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || !s)
        return "unknown error";
    return s;
}

void fail(const std::string &msg)
{
    if (g.tr)
        l2t_tracer_fail(g.tr, msg.c_str());
}

/* The drain thread: complete records, in ring order, into the capture. */
void *drain_main(void *)
{
    std::vector<l2t_warp> batch(512);
    uint64_t i = g.consumed.load();
    for (;;) {
        size_t n = 0;
        while (n < batch.size()) {
            l2t_ring_rec *r = &g.ring[i & (g.cap - 1)];
            if (__atomic_load_n(&r->seq, __ATOMIC_ACQUIRE) != i + 1)
                break;
            l2t_warp &w = batch[n++];
            memcpy(w.addr, r->addr, sizeof w.addr);
            w.mask = r->mask;
            w.size = r->size;
            w.flags = r->flags;
            w.sm = (int32_t)r->smid;
            i++;
        }
        if (n) {
            __atomic_store_n(g.tail, (unsigned long long)i, __ATOMIC_RELEASE); /* the slots are free again */
            l2t_tracer_warps(g.tr, batch.data(), n);
            g.consumed.store(i);
            continue;
        }
        if (g.quit.load())
            return nullptr;
        if (g.draining.load()) {
            usleep(20);
            continue;
        }
        pthread_mutex_lock(&g.mu);
        while (!g.draining.load() && !g.quit.load())
            pthread_cond_wait(&g.wake, &g.mu);
        pthread_mutex_unlock(&g.mu);
    }
}

/* The default stream of ctx is stream 0: known before any stream is numbered. */
void ensure_default_stream(CUcontext ctx)
{
    static std::atomic<int> done{0};
    if (done.load() || !ctx)
        return;
    Sanitizer_StreamHandle def = nullptr;
    if (sanitizerGetStreamHandle(ctx, nullptr, &def) == SANITIZER_SUCCESS && def) {
        l2t_tracer_default_stream(g.tr, (uint64_t)(uintptr_t)def);
        def_handle.store((uint64_t)(uintptr_t)def);
        done.store(1);
    }
}

/* The ring, the control block and the drain thread, for ctx (once). */
bool setup_context(CUcontext ctx, Sanitizer_StreamHandle stream)
{
    if (g.ctx)
        return g.ctx == ctx;
    g.ctx = ctx;
    g.cap = l2t_tracer_ring(g.tr);
    own_alloc++;
    own_call++;
    SanitizerResult r = sanitizerAlloc(ctx, (void **)&g.ctl, sizeof(l2t_ctl));
    if (r == SANITIZER_SUCCESS)
        r = sanitizerAllocHost(ctx, (void **)&g.ring, g.cap * sizeof(l2t_ring_rec));
    if (r == SANITIZER_SUCCESS)
        r = sanitizerAllocHost(ctx, (void **)&g.tail, sizeof(unsigned long long));
    own_alloc--;
    own_call--;
    if (r != SANITIZER_SUCCESS) {
        fail(std::string("cannot allocate the record ring (--ring ") + std::to_string(g.cap) + "): " + result_string(r));
        return false;
    }
    memset(g.ring, 0, g.cap * sizeof(l2t_ring_rec));
    *g.tail = 0;
    l2t_ctl h;
    memset(&h, 0, sizeof h);
    h.ring = g.ring;
    h.tail = g.tail;
    h.cap = g.cap;
    h.on = 1;
    own_call++;
    r = sanitizerMemcpyHostToDeviceAsync(g.ctl, &h, sizeof h, stream);
    if (r == SANITIZER_SUCCESS)
        r = sanitizerStreamSynchronize(stream);
    own_call--;
    if (r != SANITIZER_SUCCESS) {
        fail(std::string("cannot set up the control block: ") + result_string(r));
        return false;
    }
    if (pthread_create(&g.drain, nullptr, drain_main, nullptr) != 0) {
        fail("cannot start the drain thread");
        return false;
    }
    g.drain_started = true;
    return true;
}

void stop_drain()
{
    if (!g.drain_started)
        return;
    pthread_mutex_lock(&g.mu);
    g.quit.store(1);
    pthread_cond_broadcast(&g.wake);
    pthread_mutex_unlock(&g.mu);
    pthread_join(g.drain, nullptr);
    g.drain_started = false;
}

void finish()
{
    pthread_mutex_lock(&g.mu);
    bool done = g.closed;
    g.closed = true;
    pthread_mutex_unlock(&g.mu);
    if (done || !g.tr)
        return;
    stop_drain();
    static const char *const what[5] = {"prefetch (cache-control)", "cp.async", "bulk-copy (global to shared)",
                                        "bulk-copy (shared to global)", "bulk-reduction (shared to global)"};
    for (int i = 0; i < 5; i++)
        if (g.unpatched_ok[i])
            l2t_tracer_note(g.tr, (std::string(what[i]) + " instructions not patched in " + std::to_string(g.unpatched_ok[i]) +
                                   " modules: this Compute Sanitizer does not offer them")
                                      .c_str());
    if (g.other_ctx)
        l2t_tracer_note(g.tr, (std::to_string(g.other_ctx) + " launches in other contexts (devices) not captured").c_str());
    l2t_tracer_close(g.tr);
    g.tr = nullptr;
}

void module_loaded(const Sanitizer_ResourceModuleData *md)
{
    if (l2t_tracer_stopped(g.tr))
        return;
    bool loaded = false;
    for (CUcontext c : g.patched)
        loaded |= c == md->context;
    if (!loaded) {
        SanitizerResult r = sanitizerAddPatchesFromFile(g.patch.c_str(), md->context);
        if (r != SANITIZER_SUCCESS) {
            fail("cannot load the device patches " + g.patch + ": " + result_string(r));
            return;
        }
        g.patched.push_back(md->context);
    }
    SanitizerResult r =
        sanitizerPatchInstructions(SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, md->module, "l2t_global_access");
    if (r != SANITIZER_SUCCESS) {
        fail(std::string("cannot patch global memory accesses: ") + result_string(r));
        return;
    }
    /* by number: older headers lack the names; an API without them refuses */
    static const struct {
        int id;
        const char *fn;
    } optional[] = {{20, "l2t_cache_control"}, {14, "l2t_memcpy_async"}, {30, "l2t_bulk_copy"},
                    {35, "l2t_bulk_store"}, {37, "l2t_bulk_reduce"}};
    for (int i = 0; i < 5; i++)
        if (sanitizerPatchInstructions((Sanitizer_InstructionId)optional[i].id, md->module, optional[i].fn) !=
            SANITIZER_SUCCESS)
            g.unpatched_ok[i]++;
    r = sanitizerPatchModule(md->module);
    if (r != SANITIZER_SUCCESS)
        fail(std::string("cannot patch a module: ") + result_string(r));
}

std::string demangle(const char *name)
{
    if (!name)
        return "(unnamed)";
    int status = 0;
    char *d = abi::__cxa_demangle(name, nullptr, nullptr, &status);
    std::string s = status == 0 && d ? d : name;
    free(d);
    return s;
}

void launch_begin(const Sanitizer_LaunchData *ld)
{
    pthread_mutex_lock(&g.launch_mu);
    launch_locked = true;
    launch_captured = false;
    bool pending = win_pending;
    win_pending = false;
    if (g.ctx && ld->context != g.ctx) {
        g.other_ctx++;
        sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, nullptr);
        return;
    }
    ensure_default_stream(ld->context);
    uint32_t grid[3] = {ld->gridDim_x, ld->gridDim_y, ld->gridDim_z};
    uint32_t block[3] = {ld->blockDim_x, ld->blockDim_y, ld->blockDim_z};
    std::string name = demangle(ld->functionName);
    uint64_t sh = (uint64_t)(uintptr_t)ld->hStream;
    if ((ld->stream == nullptr || ld->stream == CU_STREAM_LEGACY) && def_handle.load())
        sh = def_handle.load(); /* the legacy default stream, whatever handle the launch shows */
    int cap = l2t_tracer_launch(g.tr, name.c_str(), sh, grid, block,
                                pending ? (uint64_t)(uintptr_t)win.base_ptr : 0, pending ? win.num_bytes : 0,
                                pending ? win.hitRatio : 0, pending ? (int)win.hitProp : 0,
                                pending ? (int)win.missProp : 0);
    if (cap && !setup_context(ld->context, ld->hStream))
        cap = 0;
    void *ud = cap ? (void *)g.ctl : nullptr;
    if (sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, ud) != SANITIZER_SUCCESS)
        sanitizerSetCallbackData(ld->function, ud);
    if (cap) {
        launch_captured = true;
        pthread_mutex_lock(&g.mu);
        g.draining.store(1);
        pthread_cond_broadcast(&g.wake);
        pthread_mutex_unlock(&g.mu);
    }
}

void launch_end(const Sanitizer_LaunchData *ld)
{
    if (launch_captured) {
        launch_captured = false;
        own_call++;
        SanitizerResult r = sanitizerStreamSynchronize(ld->hStream);
        unsigned long long head = 0;
        if (r == SANITIZER_SUCCESS)
            r = sanitizerMemcpyDeviceToHost(&head, &g.ctl->head, sizeof head, ld->hStream);
        own_call--;
        if (r != SANITIZER_SUCCESS)
            fail(std::string("cannot wait for kernel ") + demangle(ld->functionName) + ": " + result_string(r));
        else
            while (g.consumed.load() < head)
                usleep(10);
        g.draining.store(0);
        sanitizerSetCallbackData(ld->function, nullptr); /* later launches outside the callbacks record nothing */
        l2t_tracer_launch_end(g.tr);
    }
    if (launch_locked) {
        launch_locked = false;
        pthread_mutex_unlock(&g.launch_mu);
    }
}

uint64_t stream_of(CUcontext ctx, CUstream s)
{
    ensure_default_stream(ctx);
    Sanitizer_StreamHandle h = nullptr;
    if (sanitizerGetStreamHandle(ctx, s, &h) == SANITIZER_SUCCESS && h)
        return (uint64_t)(uintptr_t)h;
    return (uint64_t)(uintptr_t)s;
}

/* The function's name without its _v2, _ptsz, _ptds... suffix. */
std::string base_name(const char *fn)
{
    if (!fn)
        return "";
    const char *u = strchr(fn, '_');
    return u ? std::string(fn, (size_t)(u - fn)) : std::string(fn);
}

void take_window(const CUlaunchAttribute *attrs, unsigned n)
{
    for (unsigned i = 0; attrs && i < n; i++)
        if (attrs[i].id == CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW && attrs[i].value.accessPolicyWindow.num_bytes) {
            win = attrs[i].value.accessPolicyWindow;
            win_pending = true;
        }
}

/* Parameter blocks, as the callbacks pass them: the function's arguments in order. */
struct p_limit { int limit; size_t value; };
struct p_stream { CUstream stream; };
struct p_stream_attr { CUstream stream; int attr; const CUlaunchAttributeValue *value; };
struct p_launch_ex_drv { const CUlaunchConfig *config; };
struct p_launch_ex_rt { const cudaLaunchConfig_t *config; };

void api(Sanitizer_CallbackDomain domain, const Sanitizer_CallbackData *cb)
{
    bool rt = domain == SANITIZER_CB_DOMAIN_RUNTIME_API;
    if (rt && cb->callbackSite == SANITIZER_API_ENTER)
        rt_depth++;
    if (rt && cb->callbackSite == SANITIZER_API_EXIT)
        rt_depth--;
    if ((!rt && rt_depth > 0) || own_call)
        return; /* a driver call made by a runtime call (handled at the runtime level), or by this library */
    std::string fn = base_name(cb->functionName);
    const void *p = cb->functionParams;
    if (cb->callbackSite == SANITIZER_API_ENTER) {
        if (fn == "cuLaunchKernelEx" && p) {
            const CUlaunchConfig *c = ((const p_launch_ex_drv *)p)->config;
            if (c)
                take_window(c->attrs, c->numAttrs);
        } else if (fn == "cudaLaunchKernelExC" && p) {
            const cudaLaunchConfig_t *c = ((const p_launch_ex_rt *)p)->config;
            if (c) /* cudaLaunchAttribute has CUlaunchAttribute's layout */
                take_window((const CUlaunchAttribute *)(const void *)c->attrs, c->numAttrs);
        }
        return;
    }
    if (!cb->functionReturnValue || (rt ? *(const cudaError_t *)cb->functionReturnValue != cudaSuccess
                                        : *(const CUresult *)cb->functionReturnValue != CUDA_SUCCESS))
        return;
    if (fn == "cudaDeviceSetLimit" || fn == "cuCtxSetLimit") {
        const p_limit *q = (const p_limit *)p;
        if (q->limit == (int)CU_LIMIT_PERSISTING_L2_CACHE_SIZE)
            l2t_tracer_setaside(g.tr, q->value);
    } else if (fn == "cudaCtxResetPersistingL2Cache" || fn == "cuCtxResetPersistingL2Cache") {
        l2t_tracer_reset(g.tr);
    } else if (fn == "cudaStreamSetAttribute" || fn == "cuStreamSetAttribute") {
        const p_stream_attr *q = (const p_stream_attr *)p;
        if (q->attr == (int)CU_LAUNCH_ATTRIBUTE_ACCESS_POLICY_WINDOW && q->value) {
            const CUaccessPolicyWindow &w = q->value->accessPolicyWindow;
            l2t_tracer_window(g.tr, stream_of(cb->context, q->stream), (uint64_t)(uintptr_t)w.base_ptr, w.num_bytes,
                              w.hitRatio, (int)w.hitProp, (int)w.missProp);
        }
    } else if (fn == "cudaDeviceSynchronize" || fn == "cuCtxSynchronize") {
        l2t_tracer_sync(g.tr);
    } else if (fn == "cudaStreamSynchronize" || fn == "cuStreamSynchronize") {
        l2t_tracer_stream_sync(g.tr, stream_of(cb->context, ((const p_stream *)p)->stream));
    }
    if (fn == "cudaLaunchKernelExC" || fn == "cuLaunchKernelEx")
        win_pending = false;
}

void SANITIZERAPI callback(void *, Sanitizer_CallbackDomain domain, Sanitizer_CallbackId cbid, const void *cbdata)
{
    if (!g.tr)
        return;
    switch (domain) {
    case SANITIZER_CB_DOMAIN_RESOURCE: {
        switch (cbid) {
        case SANITIZER_CBID_RESOURCE_MODULE_LOADED:
            module_loaded((const Sanitizer_ResourceModuleData *)cbdata);
            break;
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_ALLOC:
        case SANITIZER_CBID_RESOURCE_MEMORY_ALLOC_ASYNC: {
            const Sanitizer_ResourceMemoryData *md = (const Sanitizer_ResourceMemoryData *)cbdata;
            if (!own_alloc)
                l2t_tracer_alloc(g.tr, md->address, md->size, nullptr);
            break;
        }
        case SANITIZER_CBID_RESOURCE_DEVICE_MEMORY_FREE:
        case SANITIZER_CBID_RESOURCE_MEMORY_FREE_ASYNC:
            l2t_tracer_free(g.tr, ((const Sanitizer_ResourceMemoryData *)cbdata)->address);
            break;
        case SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING:
            if (((const Sanitizer_ResourceContextData *)cbdata)->context == g.ctx && g.ctx)
                finish();
            break;
        default:
            break;
        }
        break;
    }
    case SANITIZER_CB_DOMAIN_LAUNCH:
        if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
            launch_begin((const Sanitizer_LaunchData *)cbdata);
        else if (cbid == SANITIZER_CBID_LAUNCH_END)
            launch_end((const Sanitizer_LaunchData *)cbdata);
        break;
    case SANITIZER_CB_DOMAIN_EVENTS: {
        const Sanitizer_EventData *ev = (const Sanitizer_EventData *)cbdata;
        ensure_default_stream(ev->context);
        uint64_t sh = (uint64_t)(uintptr_t)ev->hStream;
        if ((ev->stream == nullptr || ev->stream == CU_STREAM_LEGACY) && def_handle.load())
            sh = def_handle.load();
        if (cbid == SANITIZER_CBID_EVENTS_RECORD)
            l2t_tracer_event_record(g.tr, (uint64_t)(uintptr_t)ev->event, sh);
        else if (cbid == SANITIZER_CBID_EVENTS_STREAM_WAIT)
            l2t_tracer_event_wait(g.tr, (uint64_t)(uintptr_t)ev->event, sh);
        break;
    }
    case SANITIZER_CB_DOMAIN_DRIVER_API:
    case SANITIZER_CB_DOMAIN_RUNTIME_API:
        api(domain, (const Sanitizer_CallbackData *)cbdata);
        break;
    default:
        break;
    }
}

/* Writes a message where the launcher reads the summary. */
void early_error(const char *msg)
{
    const char *path = getenv(L2T_ENV_SUMMARY);
    FILE *f = path && *path ? fopen(path, "w") : stderr;
    if (f) {
        fprintf(f, "l2trace: error: %s (no trace written)\n", msg);
        if (f != stderr)
            fclose(f);
    }
}

void at_exit()
{
    finish();
}

} // namespace

/* Called by the CUDA driver when it loads the library named by
 * CUDA_INJECTION64_PATH (and by the constructor below, whichever comes
 * first: the subscription must exist before the first CUDA call). */
static int initialize(void);

/* Returns 1 when the library stays loaded and subscribed, 0 when the
 * driver may unload it (it is not to capture this process, or it failed
 * before subscribing). */
extern "C" int InitializeInjection(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    static int result;
    pthread_once(&once, [] { result = initialize(); });
    return result;
}

static int initialize(void)
{
    const char *pid = getenv(L2T_ENV_PID);
    if (pid && *pid && strtoll(pid, nullptr, 10) != (long long)getpid())
        return 0; /* a child of the captured program: leave it alone */
    char err[512];
    g.tr = l2t_tracer_open(err, sizeof err);
    if (!g.tr) {
        early_error(err);
        return 0;
    }
    g.patch = l2t_tracer_patch(g.tr);
    if (g.patch.empty()) { /* next to this library */
        Dl_info info;
        std::string dir = ".";
        if (dladdr((void *)&InitializeInjection, &info) && info.dli_fname) {
            dir = info.dli_fname;
            size_t slash = dir.rfind('/');
            dir = slash == std::string::npos ? "." : dir.substr(0, slash);
        }
        g.patch = dir + "/l2trace-patch.fatbin";
    }
    if (access(g.patch.c_str(), R_OK) != 0) {
        fail("device patches " + g.patch + " not found (make l2trace builds them next to the library)");
        finish();
        return 0;
    }
    SanitizerResult r = sanitizerSubscribe(&g.sub, callback, nullptr);
    if (r != SANITIZER_SUCCESS) {
        fail(std::string("the Compute Sanitizer API refused the subscription: ") + result_string(r));
        finish();
        return 0;
    }
    sanitizerEnableDomain(1, g.sub, SANITIZER_CB_DOMAIN_RESOURCE);
    sanitizerEnableDomain(1, g.sub, SANITIZER_CB_DOMAIN_LAUNCH);
    sanitizerEnableDomain(1, g.sub, SANITIZER_CB_DOMAIN_EVENTS);
    sanitizerEnableDomain(1, g.sub, SANITIZER_CB_DOMAIN_DRIVER_API);
    sanitizerEnableDomain(1, g.sub, SANITIZER_CB_DOMAIN_RUNTIME_API);
    atexit(at_exit);
    return 1;
}

__attribute__((constructor)) static void l2t_load(void)
{
    InitializeInjection();
}
