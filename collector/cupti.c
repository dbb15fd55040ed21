/*
 * cupti.c - CUPTI for the GPU timeline: start, the clock, the hot path, exit
 * ordering and finish. Loading is in cupti_load.c, records in
 * cupti_records.c.
 *
 * Nothing here links against CUPTI or CUDA: CUPTI is reached through
 * cuprof_cupti_fn; cudart and libcuda are only looked up if the process
 * already loaded them (RTLD_NOLOAD). Any failure leaves a CPU-only run and a
 * reason in words.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "cupti_int.h"
#include "collector/internal.h"
#include "collector/libc.h"
#include "collector/runfile.h"

int cuprof_cupti_active;

/* Bytes of each device-side activity buffer CUPTI allocates at context
 * creation (default 3 MB); larger means fewer drops between flushes. */
#define DEVICE_BUFFER_BYTES ((size_t)8 << 20)
/* Samples taken to measure the clock offset; the narrowest bracket wins. */
#define CLOCK_SAMPLES 9

enum { ST_IDLE = 0, ST_STARTING, ST_ON, ST_FAILED };

static struct {
    /* Recursive: start may re-enter from inside CUPTI/driver initialization
     * (cuptiActivityEnable -> cuInit -> InitializeInjection -> start). */
    pthread_mutex_t lock;
    int state;                    /* ST_*, under lock */
    char reason[1280];            /* why not captured, "" when captured */
    char status[1400];            /* header line */
    char subscriber[192];         /* subscriber mode, in words */
    char missing[160];            /* activity kinds CUPTI refused */
    int ts_callback;              /* 1: CUPTI took our timestamp callback */
    int driver_by_cbid;           /* 1: driver records enabled per callback id (kept ones) */
    int runtime_quiet;            /* 1: the runtime records of the frequent queries are off */
    int tid_system;               /* 1: CUPTI's threadId is gettid() */
    int kernels_only;             /* cuprof_cupti_set_kernels_only */
    CUpti_SubscriberHandle sub;   /* our subscriber, NULL if none */
    cuprof_cupti_clockmap clock;  /* CUPTI -> host clock */
    int finished;                 /* finish ran (under lock) */
    struct {
        int captured;             /* CUPTI ran */
        int clock;                /* CUPROF_RF_CLOCK_* */
        int kernels_only;
        const char *status;       /* the CUPTI status line */
    } run;
    void (*exit_fn)(void);        /* atomic: the lead's exit path */
    int exit_early;               /* atomic: exit_fn registered at set time */
    int cuda_up;                  /* atomic: a runtime call has returned */
} g = {
    .lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP,
    .run = {.status = "CUPTI not started"},
};

uint64_t cuprof_cupti_host_ns(void)
{
    return cuprof_clock_now();
}

/* CUPTI's timestamp callback: CUPTI stamps every record on our clock. */
static uint64_t CUPTIAPI host_clock_cb(void)
{
    return cuprof_clock_now();
}

static void set_reason(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_reason(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g.reason, sizeof g.reason, fmt, ap);
    va_end(ap);
}

/* ---- the clock ------------------------------------------------------------- */

/* One calibration point: the CUPTI time of the narrowest host bracket and
 * host - cupti there. Returns -1 if CUPTI gives no timestamp. */
static int calibrate(uint64_t *cupti, uint64_t *off, uint64_t *err)
{
    uint64_t best_w = UINT64_MAX;
    for (int i = 0; i < CLOCK_SAMPLES; i++) {
        uint64_t c = 0;
        uint64_t h0 = cuprof_clock_now();
        CUptiResult r = cuprof_cupti_fn.cuptiGetTimestamp(&c);
        uint64_t h1 = cuprof_clock_now();
        if (r != CUPTI_SUCCESS || c == 0)
            return -1;
        if (h1 - h0 < best_w) {
            best_w = h1 - h0;
            *cupti = c;
            *off = h0 + (h1 - h0) / 2 - c; /* mod 2^64: any offset works */
        }
    }
    *err = best_w / 2 + 1;
    return 0;
}


/* ---- exit ordering ----------------------------------------------------------- */

/* Registered up to twice (see set_exit_fn); runs the exit path once, at
 * the first of the two. */
static void exit_trampoline(void)
{
    static int ran;
    void (*fn)(void) = __atomic_load_n(&g.exit_fn, __ATOMIC_ACQUIRE);
    if (fn != NULL && !__atomic_exchange_n(&ran, 1, __ATOMIC_ACQ_REL))
        fn();
}

/* CUDA is up: its atexit teardown is registered, so ours, registered now,
 * runs before it. */
static void cuda_came_up(void)
{
    if (__atomic_exchange_n(&g.cuda_up, 1, __ATOMIC_ACQ_REL))
        return;
    if (__atomic_load_n(&g.exit_fn, __ATOMIC_ACQUIRE) != NULL)
        atexit(exit_trampoline);
    /* One callback was all we needed: stop paying for one per call. */
    if (cuprof_cupti_fn.cuptiEnableDomain != NULL && g.sub != NULL)
        cuprof_cupti_fn.cuptiEnableDomain(0, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API);
}

void cuprof_cupti_set_exit_fn(void (*fn)(void))
{
    __atomic_store_n(&g.exit_fn, fn, __ATOMIC_RELEASE);
    if (fn == NULL)
        return;
    /* Registered now in any case (a program may make no CUDA call after
     * this), and again from cuda_came_up; the trampoline runs fn once. */
    if (!__atomic_exchange_n(&g.exit_early, 1, __ATOMIC_ACQ_REL))
        atexit(exit_trampoline);
}

/* Called at every runtime API call until cuda_came_up disables the domain.
 * CUDA 13 traces nvcc's registration entry points too (__cudaRegisterFatBinary
 * & co., run from the program's constructors before the program registers
 * its own atexit(__cudaUnregisterBinaryUtil)): those do not count as CUDA
 * being up; any other call returning (launches included) does. */
static uint64_t (*_Atomic origin_fn)(void);

void cuprof_cupti_set_origin_fn(uint64_t (*fn)(void))
{
    origin_fn = fn;
}

void cuprof_cupti_set_kernels_only(int on)
{
    pthread_mutex_lock(&g.lock);
    if (g.state == ST_IDLE)
        g.kernels_only = on != 0;
    pthread_mutex_unlock(&g.lock);
}

/* A graph node created or cloned (resource callbacks, on the thread that
 * made it): its id, its original's, its graph's, and for a created node the
 * outermost hooked call open on this thread (the call a capture took it from:
 * a cublasGemmEx, a <<<>>> launch). */
static void graph_node(CUpti_CallbackId cbid, const CUpti_ResourceData *rd)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    const CUpti_GraphData *gd = rd ? rd->resourceDescriptor : NULL;
    uint64_t id = 0, original = 0;
    uint32_t graph = 0;
    if (gd == NULL || f->cuptiGetGraphNodeId == NULL || f->cuptiGetGraphNodeId(gd->node, &id) != CUPTI_SUCCESS)
        return;
    if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && gd->originalNode != NULL)
        f->cuptiGetGraphNodeId(gd->originalNode, &original);
    if (f->cuptiGetGraphId != NULL && gd->graph != NULL)
        f->cuptiGetGraphId(gd->graph, &graph);
    cuprof_cupti_store_graph_node(id, original,
                                  cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && origin_fn ? origin_fn() : 0,
                                  graph);
}

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain,
                                 CUpti_CallbackId cbid, const void *data)
{
    (void)userdata;
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED || cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED)
            graph_node(cbid, data);
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API || data == NULL ||
        ((const CUpti_CallbackData *)data)->callbackSite != CUPTI_API_EXIT)
        return;
    const char *name = cuprof_cbid_runtime_name(cbid);
    if (name && strncmp(name, "__cuda", 6) == 0 && !cuprof_cbid_runtime_is_launch(cbid))
        return;
    cuda_came_up();
}

/* Takes the callback subscriber, for cuda_came_up; another CUPTI client
 * (Nsight, torch.profiler) may hold it: then activity records only. */
static void subscribe(void)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
    CUptiResult r;
    const char *how = "";
    if (f->cuptiSubscribe_v2 != NULL) {
        CUpti_SubscriberParams p;
        memset(&p, 0, sizeof p);
        p.structSize = CUpti_SubscriberParams_STRUCT_SIZE;
        p.subscriberName = "cuprof";
        p.oldSubscriberName = old;
        p.oldSubscriberSize = sizeof old - 1;
        r = f->cuptiSubscribe_v2(&g.sub, on_callback, NULL, &p);
#ifdef CUPROF_CUPTI_MULTI_SUBSCRIBER
        /* Newer CUPTI can share the subscriber slot: ask for that. */
        if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) {
            p.allowMultipleSubscribers = 1;
            r = f->cuptiSubscribe_v2(&g.sub, on_callback, NULL, &p);
            how = r == CUPTI_SUCCESS ? " (multi-subscriber mode)" : "";
        }
#endif
    } else if (f->cuptiSubscribe != NULL) {
        r = f->cuptiSubscribe(&g.sub, on_callback, NULL);
    } else {
        snprintf(g.subscriber, sizeof g.subscriber,
                 "none (this CUPTI has no callback API): exit order by registration");
        return;
    }
    if (r == CUPTI_SUCCESS) {
        if (f->cuptiEnableDomain != NULL)
            f->cuptiEnableDomain(1, g.sub, CUPTI_CB_DOMAIN_RUNTIME_API);
        /* graph nodes: who made each (model/graphs.h) */
        if (f->cuptiEnableCallback != NULL) {
            f->cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
            f->cuptiEnableCallback(1, g.sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
        }
        snprintf(g.subscriber, sizeof g.subscriber, "own%s", how);
        return;
    }
    g.sub = NULL;
    if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
        snprintf(g.subscriber, sizeof g.subscriber,
                 "shared with %s: activity records only, exit order by registration",
                 old[0] ? old : "another CUPTI client");
    else
        snprintf(g.subscriber, sizeof g.subscriber, "none (cuptiSubscribe: %s)",
                 cuprof_cupti_err(r));
}

/* ---- start ---------------------------------------------------------------------- */

/* Activity kinds: the first is required (no kernels, no timeline); a refused
 * optional one is named in the status line unless quiet. */
static const struct {
    CUpti_ActivityKind kind;
    const char *name;
    int quiet;  /* 1: only multi-GPU peer copies, not worth a word */
    int device; /* 1: a device record (kept in kernels-only mode) */
} kinds[] = {
    {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL", 0, 1},
    {CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, "EXTERNAL_CORRELATION", 0, 0},
    {CUPTI_ACTIVITY_KIND_RUNTIME, "RUNTIME", 0, 0},
    /* cuBLAS 13 launches through the driver API: without this kind its
     * kernels map to no API record and no external id (seen on an H100). */
    {CUPTI_ACTIVITY_KIND_DRIVER, "DRIVER", 0, 0},
    {CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY", 0, 1},
    {CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET", 0, 1},
    {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION", 0, 0},
    {CUPTI_ACTIVITY_KIND_MEMCPY2, "MEMCPY2", 1, 1},
    /* the GPU's name, SMs and clocks: which peak the FLOP rates are held to */
    {CUPTI_ACTIVITY_KIND_DEVICE, "DEVICE", 1, 1},
};

static void set_attributes(void)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    /* Only applies before CUDA creates its context (hence start from
     * InitializeInjection); failure just keeps CUPTI's default. */
    if (f->cuptiActivitySetAttribute != NULL) {
        size_t v = DEVICE_BUFFER_BYTES, sz = sizeof v;
        f->cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &v);
    }
    /* threadId = gettid(), as the collector's threads, not pthread_self. */
    g.tid_system = f->cuptiSetThreadIdType != NULL &&
                   f->cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM) == CUPTI_SUCCESS;
    /* Our clock for every record; CUPTI refuses once CUDA is up, then the
     * measured offset lines things up instead. */
    g.ts_callback = f->cuptiActivityRegisterTimestampCallback != NULL &&
                    f->cuptiActivityRegisterTimestampCallback(host_clock_cb) == CUPTI_SUCCESS;
}

/* Driver-API records by callback id: only the calls the outputs keep
 * (launches, copies, memsets: collector/cbid.c), where the loaded CUPTI has
 * cuptiActivityEnableDriverApi; the rest (cuGetProcAddress, attribute
 * queries: hundreds per cuBLAS handle) are then never made, instead of made
 * and dropped at delivery. 0 when done; -1: use the whole DRIVER kind. */
static int enable_driver_by_cbid(void)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    if (f->cuptiActivityEnableDriverApi == NULL)
        return -1;
    for (uint32_t cbid = 1; cbid < CUPTI_DRIVER_TRACE_CBID_SIZE; cbid++)
        if (cuprof_cbid_driver_kept(cbid) && f->cuptiActivityEnableDriverApi(cbid, 1) != CUPTI_SUCCESS)
            return -1;
    return 0;
}

/* Runtime records of calls that are frequent, take no time and cause no
 * device work: the ones torch.profiler (Kineto) drops from its traces
 * (cudaGetDevice: PyTorch's device guards call it around nearly every
 * operation). Switched off after the RUNTIME kind (which would override
 * it), where the loaded CUPTI has cuptiActivityEnableRuntimeApi; 1 when
 * every one was. (A hooked call among them is still in the table: the hook
 * records it.) */
static const CUpti_CallbackId runtime_quiet_cbids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020,
    CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020,
};

static int quiet_runtime_queries(void)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    if (f->cuptiActivityEnableRuntimeApi == NULL)
        return 0;
    for (size_t i = 0; i < sizeof runtime_quiet_cbids / sizeof runtime_quiet_cbids[0]; i++)
        if (f->cuptiActivityEnableRuntimeApi(runtime_quiet_cbids[i], 0) != CUPTI_SUCCESS)
            return 0;
    return 1;
}

/* Enables the kinds; returns -1 (reason set) if the required one failed. */
static int enable_kinds(void)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    g.driver_by_cbid = 0;
    g.runtime_quiet = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        if (g.kernels_only && !kinds[i].device)
            continue;
        if (kinds[i].kind == CUPTI_ACTIVITY_KIND_DRIVER && enable_driver_by_cbid() == 0) {
            g.driver_by_cbid = 1;
            continue;
        }
        CUptiResult r = f->cuptiActivityEnable(kinds[i].kind);
        if (r == CUPTI_SUCCESS && kinds[i].kind == CUPTI_ACTIVITY_KIND_RUNTIME)
            g.runtime_quiet = quiet_runtime_queries();
        if (r == CUPTI_SUCCESS || kinds[i].quiet)
            continue;
        if (i == 0) {
            set_reason("CUPTI: cuptiActivityEnable(%s) failed: %s%s", kinds[i].name,
                       cuprof_cupti_err(r), cuprof_cupti_err_hint(r));
            return -1;
        }
        size_t used = strlen(g.missing);
        snprintf(g.missing + used, sizeof g.missing - used, "%s%s", used ? ", " : "",
                 kinds[i].name);
    }
    return 0;
}

static void disable_kinds(void)
{
    if (cuprof_cupti_fn.cuptiActivityDisable == NULL)
        return;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        cuprof_cupti_fn.cuptiActivityDisable(kinds[i].kind);
}

/* A forked child inherits CUPTI's state but none of its threads: CUPTI does
 * not work there, so the child runs CPU-only (its own exec starts afresh). */
static void atfork_child(void)
{
    pthread_mutexattr_t a;
    pthread_mutexattr_init(&a);
    pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
    pthread_mutex_init(&g.lock, &a);
    pthread_mutexattr_destroy(&a);
    __atomic_store_n(&cuprof_cupti_active, 0, __ATOMIC_RELEASE);
    g.state = ST_FAILED;
    g.finished = 1;
    set_reason("CUPTI: not available in a child forked after CUDA started (CUPTI does not "
               "survive fork); its GPU work is not recorded");
    snprintf(g.status, sizeof g.status, "not captured: %s", g.reason);
    memset(&g.run, 0, sizeof g.run);
    g.run.status = g.status;
    cuprof_cupti_store_atfork_child();
}

static int start_locked(const char *path)
{
    if (cuprof_cupti_load(path, g.reason, sizeof g.reason) != 0)
        return -1;
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    set_attributes();
    CUptiResult r = f->cuptiActivityRegisterCallbacks(cuprof_cupti_buffer_request,
                                                      cuprof_cupti_buffer_complete);
    if (r != CUPTI_SUCCESS) {
        set_reason("CUPTI: cuptiActivityRegisterCallbacks failed: %s%s", cuprof_cupti_err(r),
                   cuprof_cupti_err_hint(r));
        return -1;
    }
    subscribe();
    if (enable_kinds() != 0) {
        disable_kinds();
        if (g.sub != NULL && f->cuptiUnsubscribe != NULL)
            f->cuptiUnsubscribe(g.sub);
        g.sub = NULL;
        return -1;
    }
    if (calibrate(&g.clock.cupti_a, &g.clock.off_a, &g.clock.err_ns) != 0) {
        disable_kinds();
        set_reason("CUPTI: cuptiGetTimestamp gives no time; GPU records could not be "
                   "placed on the host clock");
        return -1;
    }
    /* CUPTI hands its buffers over at least once a second, so the run file
     * has the GPU records up to about a second ago (a killed process loses
     * no more than that). */
    if (f->cuptiActivityFlushPeriod != NULL)
        (void)f->cuptiActivityFlushPeriod(CUPROF_CUPTI_FLUSH_MS);
    uint32_t version = 0;
    if (f->cuptiGetVersion != NULL)
        f->cuptiGetVersion(&version);
    char records[256];
    if (g.kernels_only)
        snprintf(records, sizeof records, "mode: kernels (kernel, memcpy and memset records only, "
                                          "matched to the calls by name, bytes and order)");
    else
        snprintf(records, sizeof records, "driver records: %s; runtime records: %s",
                 g.driver_by_cbid ? "launches, copies, memsets (by callback id)" : "all",
                 g.runtime_quiet ? "all but cudaGetDevice, cudaSetDevice, cudaGetLastError, "
                                   "cudaEventCreate(WithFlags), cudaEventDestroy (as torch.profiler)"
                                 : "all");
    snprintf(g.status, sizeof g.status, "CUPTI %u from %s; subscriber: %s; clock: %s; %s%s%s",
             version, f->path, g.subscriber, g.ts_callback ? "timestamp callback" : "measured offset",
             records, g.missing[0] ? "; not recorded: " : "", g.missing);
    return 0;
}

int cuprof_cupti_start_path(const char *path)
{
    pthread_mutex_lock(&g.lock);
    int rc;
    if (g.state == ST_STARTING) {
        rc = 0; /* re-entered from inside our own start: it is coming */
    } else if (g.state != ST_IDLE) {
        rc = g.state == ST_ON ? 0 : -1;
    } else {
        g.state = ST_STARTING;
        rc = start_locked(path);
        g.state = rc == 0 ? ST_ON : ST_FAILED;
        if (rc == 0) {
            g.reason[0] = '\0';
            g.run.captured = 1;
            g.run.status = g.status;
            g.run.clock = g.ts_callback ? CUPROF_RF_CLOCK_CALLBACK : CUPROF_RF_CLOCK_OFFSET;
            g.run.kernels_only = g.kernels_only;
            /* Records matched by time need our thread ids and our clock.
             * Kernels only: no external ids at all (nothing would carry
             * them: CUPTI makes external-correlation records for the API
             * records it makes). */
            if (!g.kernels_only)
                __atomic_store_n(&cuprof_cupti_active,
                                 g.ts_callback && g.tid_system ? CUPROF_CUPTI_ON : CUPROF_CUPTI_PUSH_ALL,
                                 __ATOMIC_RELEASE);
            pthread_atfork(NULL, NULL, atfork_child);
            /* the clock map as known now: a run read before its end (killed,
             * or a live snapshot) puts its GPU records on our clock with it */
            (void)cuprof_cupti_write_info();
        } else {
            snprintf(g.status, sizeof g.status, "not captured: %s", g.reason);
            g.run.status = g.status;
        }
    }
    pthread_mutex_unlock(&g.lock);
    return rc;
}

int cuprof_cupti_start(void)
{
    return cuprof_cupti_start_path(NULL);
}

const char *cuprof_cupti_reason(void)
{
    return g.reason;
}

const char *cuprof_cupti_status(void)
{
    return g.run.status;
}

/* ---- hot path --------------------------------------------------------------------- */

void cuprof_cupti_push_slow(uint64_t ext_id)
{
    cuprof_cupti_fn.cuptiActivityPushExternalCorrelationId(CUPROF_CUPTI_EXT_KIND, ext_id);
}

void cuprof_cupti_push_own(void)
{
    cuprof_cupti_push_slow(CUPROF_CUPTI_EXT_OWN);
}

void cuprof_cupti_pop_slow(void)
{
    uint64_t last;
    cuprof_cupti_fn.cuptiActivityPopExternalCorrelationId(CUPROF_CUPTI_EXT_KIND, &last);
}

/* ---- finish ------------------------------------------------------------------------- */

/* Waits for the device so every kernel has its end time: through the
 * process's libcudart if loaded, else libcuda's current context (static
 * cudart). Our own external id marks the records it makes, so they are
 * dropped instead of appearing as a program call. Errors are fine (CUDA may
 * be torn down already). */
static void sync_device(void)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    /* Not when cudart is loaded but was never called: a synchronize would
     * bring CUDA up at exit. (Without a subscriber we cannot tell: sync.) */
    int called = __atomic_load_n(&g.cuda_up, __ATOMIC_ACQUIRE) || g.sub == NULL;
    void *h = called ? dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD) : NULL;
    f->cuptiActivityPushExternalCorrelationId(CUPROF_CUPTI_EXT_KIND, CUPROF_CUPTI_EXT_OWN);
    if (h != NULL) {
        int (*dev_sync)(void);
        *(void **)&dev_sync = cuprof_libc_dlsym(h, "cudaDeviceSynchronize");
        if (dev_sync != NULL)
            dev_sync();
        dlclose(h);
    } else if ((h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD)) != NULL) {
        int (*get_cur)(void **);
        int (*ctx_sync)(void);
        *(void **)&get_cur = cuprof_libc_dlsym(h, "cuCtxGetCurrent");
        *(void **)&ctx_sync = cuprof_libc_dlsym(h, "cuCtxSynchronize");
        void *ctx = NULL;
        if (get_cur != NULL && ctx_sync != NULL && get_cur(&ctx) == 0 && ctx != NULL)
            ctx_sync();
        dlclose(h);
    }
    uint64_t last;
    f->cuptiActivityPopExternalCorrelationId(CUPROF_CUPTI_EXT_KIND, &last);
}

/* The part of finish that calls into CUDA and CUPTI (synchronize, forced
 * flush, dropped count, second clock point). It may block for as long as
 * the device is busy, or for good when the exit path runs while another
 * thread was stopped inside CUDA or CUPTI holding one of their locks (a
 * signal landed there): a bounded finish runs it on a helper thread and
 * stops waiting for it (the thread is left blocked until the process ends;
 * its results are then never read). Results go to gpu_part, published by
 * done. */
static struct {
    size_t dropped;
    int have_b;
    uint64_t cupti_b, off_b, err_b;
    int done;        /* atomic: the part ran to its end */
} gpu_part;

void cuprof_cupti_exit_begins(void)
{
    pthread_mutex_lock(&g.lock);
    int on = g.state == ST_ON;
    uint64_t off = g.ts_callback ? 0 : g.clock.off_a;
    pthread_mutex_unlock(&g.lock);
    if (on)   /* now, on CUPTI's clock */
        cuprof_cupti_store_exit_at(cuprof_clock_now() - off);
}

uint64_t cuprof_cupti_flush_now(void)
{
    pthread_mutex_lock(&g.lock);
    int on = g.state == ST_ON && !g.finished;
    pthread_mutex_unlock(&g.lock);
    if (!on)
        return 0;
    uint64_t t0 = cuprof_clock_now();
    cuprof_cupti_fn.cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    return cuprof_clock_now() - t0;
}

void cuprof_cupti_flush_completed(void)
{
    pthread_mutex_lock(&g.lock);
    int on = g.state == ST_ON && !g.finished;
    pthread_mutex_unlock(&g.lock);
    if (on)
        cuprof_cupti_fn.cuptiActivityFlushAll(0);
}

static void gpu_part_run(void)
{
    const cuprof_cupti_api *f = &cuprof_cupti_fn;
    sync_device();
    f->cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t dropped = 0;
    if (f->cuptiActivityGetNumDroppedRecords != NULL &&
        f->cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped) == CUPTI_SUCCESS)
        gpu_part.dropped = dropped;
    gpu_part.have_b = calibrate(&gpu_part.cupti_b, &gpu_part.off_b, &gpu_part.err_b) == 0;
    __atomic_store_n(&gpu_part.done, 1, __ATOMIC_RELEASE);
}

static void *gpu_part_main(void *arg)
{
    (void)arg;
    /* A process-directed signal must not pick this thread: it may block
     * inside CUDA for good (see gpu_part). A fault stays deliverable (one
     * with its signal blocked kills the process outright). */
    sigset_t mask;
    sigfillset(&mask);
    sigdelset(&mask, SIGSEGV);
    sigdelset(&mask, SIGBUS);
    sigdelset(&mask, SIGFPE);
    sigdelset(&mask, SIGILL);
    pthread_sigmask(SIG_BLOCK, &mask, NULL);
    gpu_part_run();
    return NULL;
}

/* Runs gpu_part_run and waits for it at most wait_ms (< 0: inline, no
 * bound). Returns 1 when it completed. */
static int gpu_part_within(int wait_ms)
{
    if (wait_ms < 0) {
        gpu_part_run();
        return 1;
    }
    pthread_attr_t attr;
    pthread_t th;
    int started = 0;
    if (pthread_attr_init(&attr) == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        started = pthread_create(&th, &attr, gpu_part_main, NULL) == 0;
        pthread_attr_destroy(&attr);
    }
    if (!started)
        return 0;   /* no thread: calling CUDA here could block for good */
    struct timespec t0, now, nap = {0, 1000000};
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (!__atomic_load_n(&gpu_part.done, __ATOMIC_ACQUIRE)) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        long long el = (long long)(now.tv_sec - t0.tv_sec) * 1000 +
                       (now.tv_nsec - t0.tv_nsec) / 1000000;
        if (el >= wait_ms)
            return __atomic_load_n(&gpu_part.done, __ATOMIC_ACQUIRE);
        nanosleep(&nap, NULL);
    }
    return 1;
}

int cuprof_cupti_finish_within(int wait_ms)
{
    pthread_mutex_lock(&g.lock);
    if (g.finished || g.state != ST_ON) {
        g.finished = 1;
        pthread_mutex_unlock(&g.lock);
        return 0;
    }
    g.finished = 1;
    /* Not under g.lock: a bounded wait must be able to go on without it. */
    pthread_mutex_unlock(&g.lock);
    int complete = gpu_part_within(wait_ms);
    pthread_mutex_lock(&g.lock);
    __atomic_store_n(&cuprof_cupti_active, 0, __ATOMIC_RELEASE);
    if (complete) {
        cuprof_cupti_store_add_dropped(gpu_part.dropped);
        if (!gpu_part.have_b)
            g.clock.cupti_b = 0;
        else {
            g.clock.cupti_b = gpu_part.cupti_b;
            g.clock.off_b = gpu_part.off_b;
            if (gpu_part.err_b > g.clock.err_ns)
                g.clock.err_ns = gpu_part.err_b;
        }
    } else {
        g.clock.cupti_b = 0;   /* the start point alone */
    }
    /* What CUPTI delivered so far; anything it delivers later is late. */
    cuprof_cupti_store_finish();
    pthread_mutex_unlock(&g.lock);
    return complete ? 0 : 1;
}

void cuprof_cupti_finish(void)
{
    (void)cuprof_cupti_finish_within(-1);
}

int cuprof_cupti_write_info(void)
{
    uint64_t records = 0, apis = 0, dropped = 0;
    cuprof_cupti_store_counts(&records, &apis, &dropped);
    pthread_mutex_lock(&g.lock);
    cuprof_tags b = {0};
    cuprof_tags_u64(&b, CUPROF_RT_GPU_ON, (uint64_t)g.run.captured);
    cuprof_tags_u64(&b, CUPROF_RT_GPU_KERNELS_ONLY, (uint64_t)g.run.kernels_only);
    cuprof_tags_str(&b, CUPROF_RT_GPU_STATUS, g.run.status ? g.run.status : "");
    cuprof_tags_u64(&b, CUPROF_RT_GPU_DROPPED, dropped);
    cuprof_tags_u64(&b, CUPROF_RT_GPU_LATE, cuprof_cupti_store_late());
    cuprof_tags_u64(&b, CUPROF_RT_GPU_CLOCK, (uint64_t)(g.run.captured ? g.run.clock : 0));
    cuprof_tags_u64(&b, CUPROF_RT_GPU_CUPTI_A, g.clock.cupti_a);
    cuprof_tags_u64(&b, CUPROF_RT_GPU_OFF_A, g.clock.off_a);
    cuprof_tags_u64(&b, CUPROF_RT_GPU_CUPTI_B, g.clock.cupti_b);
    cuprof_tags_u64(&b, CUPROF_RT_GPU_OFF_B, g.clock.off_b);
    cuprof_tags_u64(&b, CUPROF_RT_GPU_CLOCK_ERR, g.clock.err_ns);
    pthread_mutex_unlock(&g.lock);
    return cuprof_tags_write(&b, CUPROF_RF_GPU_INFO);
}

int cuprof_cupti_captured(uint64_t *dropped, uint64_t *apis)
{
    uint64_t records = 0;
    cuprof_cupti_store_counts(&records, apis, dropped);
    pthread_mutex_lock(&g.lock);
    int c = g.run.captured;
    pthread_mutex_unlock(&g.lock);
    return c;
}
