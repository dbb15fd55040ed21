/*
 * test_sim_cupti.c - Check tests of the simulated CUPTI (libcupti.so.13),
 * written as a small CUPTI client, the way a profiler uses CUPTI: it
 * registers buffer callbacks, enables kinds, subscribes to the runtime
 * domain, drives the simulated driver (libcusim.so) directly, flushes and
 * checks the records it was handed.
 *
 * Every test runs in its own forked process (CK_FORK), so each one starts
 * with a driver that has not initialized yet and a CUPTI with nothing
 * enabled: that is what lets the "before init" tests exist.
 */
#include <check.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cupti.h>

#include "cusim.h"

#define CBID_LAUNCH CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000
#define CBID_MEMCPY CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020
#define CBID_MEMSET CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020
#define CBID_DEVSYNC CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020

#define CK(call) ck_assert_int_eq((call), CUPTI_SUCCESS)

/* ---- the client: collects every record it is handed --------------------- */

/* One delivered record, copied out of its buffer. */
typedef struct rec {
    union {
        CUpti_Activity any;
        CUpti_ActivityKernel10 kernel;
        CUpti_ActivityMemcpy6 memcpy;
        CUpti_ActivityMemset4 memset;
        CUpti_ActivityAPI api;
        CUpti_ActivitySynchronization2 sync;
        CUpti_ActivityExternalCorrelation ext;
        CUpti_ActivityMemory4 mem;
        CUpti_ActivityMemoryPool3 pool;
    } u;
    size_t buffer; /* which delivered buffer it came in (0, 1, ...) */
} rec;

static struct {
    pthread_mutex_t lock;
    rec *recs;              /* all records, in delivery order */
    size_t n, alloc;
    size_t buf_size;        /* size of the buffers we hand out */
    size_t max_records;     /* maxNumRecords we ask for (0: fill) */
    size_t requests;        /* buffer requests seen */
    size_t completes;       /* buffers given back */
    size_t most_in_buffer;  /* most records seen in one buffer */
    int completed_on_main;  /* a buffer came back on the test's own thread */
    pthread_t main_thread;
} cl = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void CUPTIAPI on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    pthread_mutex_lock(&cl.lock);
    cl.requests++;
    *size = cl.buf_size;
    *max_records = cl.max_records;
    pthread_mutex_unlock(&cl.lock);
    *buffer = aligned_alloc(8, *size);
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                 size_t valid)
{
    (void)ctx;
    (void)stream;
    (void)size;
    pthread_mutex_lock(&cl.lock);
    if (pthread_equal(pthread_self(), cl.main_thread))
        cl.completed_on_main = 1;
    size_t in_buffer = 0;
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        if (cl.n == cl.alloc) {
            cl.alloc = cl.alloc ? cl.alloc * 2 : 256;
            cl.recs = realloc(cl.recs, cl.alloc * sizeof *cl.recs);
        }
        rec *out = &cl.recs[cl.n++];
        memset(out, 0, sizeof *out);
        size_t sz = 0;
        switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: sz = sizeof out->u.kernel; break;
        case CUPTI_ACTIVITY_KIND_MEMCPY: sz = sizeof out->u.memcpy; break;
        case CUPTI_ACTIVITY_KIND_MEMSET: sz = sizeof out->u.memset; break;
        case CUPTI_ACTIVITY_KIND_RUNTIME: sz = sizeof out->u.api; break;
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: sz = sizeof out->u.sync; break;
        case CUPTI_ACTIVITY_KIND_MEMORY2: sz = sizeof out->u.mem; break;
        case CUPTI_ACTIVITY_KIND_MEMORY_POOL: sz = sizeof out->u.pool; break;
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: sz = sizeof out->u.ext; break;
        default: sz = sizeof out->u.any; break;
        }
        memcpy(&out->u, r, sz);
        out->buffer = cl.completes;
        in_buffer++;
    }
    if (in_buffer > cl.most_in_buffer)
        cl.most_in_buffer = in_buffer;
    cl.completes++;
    pthread_mutex_unlock(&cl.lock);
    free(buffer);
}

/* Registers the buffer callbacks with buffers of `size` bytes. */
static void client_start(size_t size, size_t max_records)
{
    cl.buf_size = size;
    cl.max_records = max_records;
    cl.main_thread = pthread_self();
    CK(cuptiActivityRegisterCallbacks(on_request, on_complete));
}

static void enable(const CUpti_ActivityKind *kinds, size_t n)
{
    for (size_t i = 0; i < n; i++)
        CK(cuptiActivityEnable(kinds[i]));
}

static void enable_all_sim_kinds(void)
{
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
        CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    };
    enable(kinds, sizeof kinds / sizeof kinds[0]);
}

static size_t count_kind(CUpti_ActivityKind kind)
{
    size_t n = 0;
    for (size_t i = 0; i < cl.n; i++)
        n += cl.recs[i].u.any.kind == kind;
    return n;
}

/* The runtime record with correlation id `corr`, or NULL. */
static const CUpti_ActivityAPI *find_api(uint32_t corr)
{
    for (size_t i = 0; i < cl.n; i++)
        if (cl.recs[i].u.any.kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
            cl.recs[i].u.api.correlationId == corr)
            return &cl.recs[i].u.api;
    return NULL;
}

/* The first record of `kind` with correlation id `corr`, or NULL. */
static const rec *find_kind(CUpti_ActivityKind kind, uint32_t corr)
{
    for (size_t i = 0; i < cl.n; i++) {
        const rec *r = &cl.recs[i];
        if (r->u.any.kind != kind)
            continue;
        uint32_t c = kind == CUPTI_ACTIVITY_KIND_MEMCPY ? r->u.memcpy.correlationId
                   : kind == CUPTI_ACTIVITY_KIND_MEMSET ? r->u.memset.correlationId
                   : r->u.kernel.correlationId;
        if (c == corr)
            return r;
    }
    return NULL;
}

/* ---- driving the simulated driver like the runtime does ------------------- */

static const char *const kname = "_Z9addKernelPfPKfS1_i";

/* One cudaLaunchKernel of an elementwise kernel (or a GEMM of `flops`) on
 * the legacy stream; returns its correlation id. */
static uint32_t do_launch(double flops)
{
    cusim_api_call c;
    cusim_api_begin_sym(&c, CBID_LAUNCH, "cudaLaunchKernel", NULL, kname);
    cusim_kernel_desc d = {
        .name = kname, .grid = {8, 2, 1}, .block = {128, 1, 1},
        .dynamic_smem = 256, .static_smem = 1024, .registers = 40,
        .cls = flops > 0 ? CUSIM_KERNEL_GEMM : CUSIM_KERNEL_ELEMENTWISE,
        .flops = flops, .bytes = 1 << 16, .tensor_dtype_bits = 16,
    };
    cusim_launch(cusim_stream_get(NULL, 0), &d, cusim_current_correlation());
    cusim_api_end(&c, 0);
    return c.correlation_id;
}

static uint32_t do_memcpy(void *dst, const void *src, size_t n, int kind)
{
    cusim_api_call c;
    cusim_api_begin(&c, CBID_MEMCPY, "cudaMemcpy", NULL);
    cusim_memcpy(cusim_stream_get(NULL, 0), dst, src, n, kind, 1, cusim_current_correlation());
    cusim_api_end(&c, 0);
    return c.correlation_id;
}

static uint32_t do_memset(void *dst, int value, size_t n)
{
    cusim_api_call c;
    cusim_api_begin(&c, CBID_MEMSET, "cudaMemset", NULL);
    cusim_memset(cusim_stream_get(NULL, 0), dst, value, n, 1, cusim_current_correlation());
    cusim_api_end(&c, 0);
    return c.correlation_id;
}

static uint32_t do_device_sync(void)
{
    cusim_api_call c;
    cusim_api_begin(&c, CBID_DEVSYNC, "cudaDeviceSynchronize", NULL);
    cusim_device_sync();
    cusim_api_end(&c, 0);
    return c.correlation_id;
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_cupti(void)
{
    uint64_t t = 0;
    CK(cuptiGetTimestamp(&t));
    return t;
}


/* ---- records: kinds, counts, fields, correlation ------------------------- */

START_TEST(test_kinds_counts_and_correlation)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init();
    void *dev = cusim_mem_alloc(4096, CUSIM_MEM_DEVICE);
    void *pinned = cusim_mem_alloc(4096, CUSIM_MEM_PINNED);
    char *pageable = calloc(1, 4096);
    uint32_t k[3];
    for (int i = 0; i < 3; i++)
        k[i] = do_launch(0);
    uint32_t h2d = do_memcpy(dev, pageable, 4096, CUSIM_COPY_HTOD);
    uint32_t ms = do_memset(dev, 0x5a, 1000);
    uint32_t d2h = do_memcpy(pinned, dev, 2048, CUSIM_COPY_DTOH);
    uint32_t sy = do_device_sync();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_RUNTIME), 7);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 3);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_KERNEL), 0);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMCPY), 2);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMSET), 1);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), 0);
    ck_assert_uint_ge(count_kind(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), 1);

    uint32_t stream_id = cusim_stream_id(cusim_stream_get(NULL, 0));
    for (int i = 0; i < 3; i++) {
        const rec *r = find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, k[i]);
        ck_assert_ptr_nonnull(r);
        const CUpti_ActivityKernel10 *kr = &r->u.kernel;
        const CUpti_ActivityAPI *api = find_api(k[i]);
        ck_assert_ptr_nonnull(api);
        ck_assert_uint_eq(api->cbid, CBID_LAUNCH);
        ck_assert_str_eq(kr->name, kname);
        ck_assert_int_eq(kr->gridX, 8);
        ck_assert_int_eq(kr->gridY, 2);
        ck_assert_int_eq(kr->blockX, 128);
        ck_assert_int_eq(kr->staticSharedMemory, 1024);
        ck_assert_int_eq(kr->dynamicSharedMemory, 256);
        ck_assert_uint_eq(kr->registersPerThread, 40);
        ck_assert_uint_eq(kr->streamId, stream_id);
        ck_assert_uint_eq(kr->contextId, 1);
        ck_assert_uint_eq(kr->deviceId, 0);
        ck_assert_uint_eq(kr->completed, kr->end);
        ck_assert_uint_eq(kr->launchType, CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR);
        /* queued/submitted only with cuptiActivityEnableLatencyTimestamps */
        ck_assert_uint_eq(kr->queued, 0);
        /* the kernel starts after its launch call began */
        ck_assert_uint_ge(kr->start, api->start);
    }
    const CUpti_ActivityMemcpy6 *m = &find_kind(CUPTI_ACTIVITY_KIND_MEMCPY, h2d)->u.memcpy;
    ck_assert_uint_eq(m->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    ck_assert_uint_eq(m->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
    ck_assert_uint_eq(m->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    ck_assert_uint_eq(m->bytes, 4096);
    /* the H200's records left it 0 (tests/fixtures/h200-580.159.04) */
    ck_assert_uint_eq(m->runtimeCorrelationId, 0);
    ck_assert_uint_eq(m->correlationId, h2d);
    m = &find_kind(CUPTI_ACTIVITY_KIND_MEMCPY, d2h)->u.memcpy;
    ck_assert_uint_eq(m->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    ck_assert_uint_eq(m->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    ck_assert_uint_eq(m->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
    ck_assert_uint_eq(m->bytes, 2048);
    const CUpti_ActivityMemset4 *s = &find_kind(CUPTI_ACTIVITY_KIND_MEMSET, ms)->u.memset;
    ck_assert_uint_eq(s->value, 0x5a);
    ck_assert_uint_eq(s->bytes, 1000);
    ck_assert_uint_eq(s->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    ck_assert_ptr_nonnull(find_api(h2d));
    ck_assert_ptr_nonnull(find_api(ms));

    /* the device sync: a context synchronization record tied to its call */
    int found_sync = 0;
    for (size_t i = 0; i < cl.n; i++) {
        const rec *r = &cl.recs[i];
        if (r->u.any.kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION && r->u.sync.correlationId == sy) {
            ck_assert_int_eq(r->u.sync.type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE);
            ck_assert_uint_le(r->u.sync.start, r->u.sync.end);
            found_sync = 1;
        }
    }
    ck_assert(found_sync);

    /* every runtime record: this process, the caller's pthread id */
    for (size_t i = 0; i < cl.n; i++) {
        const rec *r = &cl.recs[i];
        if (r->u.any.kind != CUPTI_ACTIVITY_KIND_RUNTIME)
            continue;
        ck_assert_uint_eq(r->u.api.processId, (uint32_t)getpid());
        ck_assert_uint_eq(r->u.api.threadId, (uint32_t)pthread_self());
        ck_assert_uint_eq(r->u.api.returnValue, 0);
    }
    free(pageable);
}
END_TEST

START_TEST(test_every_device_record_has_a_runtime_record)
{
    client_start(1 << 14, 0); /* small buffers: several of each channel */
    enable_all_sim_kinds();
    cusim_init();
    void *dev = cusim_mem_alloc(1 << 12, CUSIM_MEM_DEVICE);
    for (int i = 0; i < 200; i++) {
        do_launch(0);
        if (i % 10 == 0)
            do_memset(dev, i, 64);
    }
    do_device_sync();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 200);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMSET), 20);
    ck_assert_uint_gt(cl.completes, 2);
    for (size_t i = 0; i < cl.n; i++) {
        const rec *r = &cl.recs[i];
        if (r->u.any.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            ck_assert_ptr_nonnull(find_api(r->u.kernel.correlationId));
        if (r->u.any.kind == CUPTI_ACTIVITY_KIND_MEMSET)
            ck_assert_ptr_nonnull(find_api(r->u.memset.correlationId));
    }
    /* Realism: records are not in one global order. Kernel records come
     * back in other buffers than the runtime records that caused them. */
    int split = 0;
    for (size_t i = 0; i < cl.n && !split; i++) {
        const rec *r = &cl.recs[i];
        if (r->u.any.kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        for (size_t j = 0; j < cl.n; j++)
            if (cl.recs[j].u.any.kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
                cl.recs[j].u.api.correlationId == r->u.kernel.correlationId)
                split = cl.recs[j].buffer != r->buffer;
    }
    ck_assert(split);
}
END_TEST

/* ---- external correlation -------------------------------------------------- */

START_TEST(test_external_correlation)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init();
    /* a "library call" with id 42 around two launches, a nested id 77 of
     * another kind around the second one, then a launch outside both */
    CK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 42));
    uint32_t a = do_launch(0);
    CK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 77));
    uint32_t b = do_launch(0);
    uint64_t last = 0;
    CK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, &last));
    ck_assert_uint_eq(last, 77);
    CK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last));
    ck_assert_uint_eq(last, 42);
    ck_assert_int_eq(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL),
                     CUPTI_ERROR_QUEUE_EMPTY);
    ck_assert_int_eq(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_INVALID, 1),
                     CUPTI_ERROR_INVALID_PARAMETER);
    uint32_t c = do_launch(0);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), 3);
    int a42 = 0, b42 = 0, b77 = 0;
    for (size_t i = 0; i < cl.n; i++) {
        const rec *r = &cl.recs[i];
        if (r->u.any.kind != CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
            continue;
        const CUpti_ActivityExternalCorrelation *e = &r->u.ext;
        ck_assert_uint_ne(e->correlationId, c);
        if (e->correlationId == a && e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
            a42 = e->externalId == 42;
        if (e->correlationId == b && e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
            b42 = e->externalId == 42;
        if (e->correlationId == b && e->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1)
            b77 = e->externalId == 77;
        /* as the header says: it precedes the API record of its call */
        const CUpti_ActivityAPI *api = find_api(e->correlationId);
        ck_assert_ptr_nonnull(api);
        ck_assert((const void *)r < (const void *)api);
    }
    ck_assert(a42 && b42 && b77);
    /* and ties the kernels to the library call */
    ck_assert_ptr_nonnull(find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, a));
    ck_assert_ptr_nonnull(find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, b));
}
END_TEST

/* ---- clocks ---------------------------------------------------------------- */

START_TEST(test_timestamps_on_device_clock)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init();
    uint64_t t0 = now_cupti(), h0 = mono_ns();
    uint32_t corr[20];
    for (int i = 0; i < 20; i++)
        corr[i] = do_launch(0);
    do_device_sync();
    uint64_t t1 = now_cupti(), h1 = mono_ns();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

    /* the CUPTI clock advances with time but is not CLOCK_MONOTONIC */
    ck_assert_uint_ge(t1 - t0, 1000);
    uint64_t off = t0 > h0 ? t0 - h0 : h0 - t0;
    ck_assert_uint_gt(off, 1000000000ull * 3600);
    uint64_t prev_end = 0, prev_kend = 0;
    for (int i = 0; i < 20; i++) {
        const CUpti_ActivityAPI *api = find_api(corr[i]);
        const CUpti_ActivityKernel10 *k =
            &find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, corr[i])->u.kernel;
        ck_assert_uint_ge(api->start, t0);
        ck_assert_uint_le(api->start, api->end);
        ck_assert_uint_le(api->end, t1);
        ck_assert_uint_ge(api->start, prev_end); /* calls in order, no overlap */
        prev_end = api->end;
        ck_assert_uint_lt(k->start, k->end);
        ck_assert_uint_le(k->end, t1);           /* done by the sync */
        ck_assert_uint_ge(k->start, prev_kend);  /* one stream: in order */
        ck_assert_uint_lt(k->end - k->start, 1000000); /* a small kernel: < 1 ms */
        prev_kend = k->end;
        /* not host time: far from CLOCK_MONOTONIC at the time */
        ck_assert(k->start > h1 + 1000000000ull || k->start + 1000000000ull < h0);
    }
}
END_TEST

static uint64_t CUPTIAPI my_clock(void)
{
    return mono_ns() + 777000000000ull; /* monotonic + 777 s */
}

START_TEST(test_timestamp_callback_before_init)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    CK(cuptiActivityRegisterTimestampCallback(my_clock));
    cusim_init();
    uint64_t h0 = mono_ns();
    uint32_t c = do_launch(0);
    do_device_sync();
    uint64_t h1 = mono_ns();
    uint64_t t = now_cupti();
    ck_assert_uint_ge(t, h1 + 777000000000ull);
    ck_assert_uint_lt(t, mono_ns() + 777000000000ull + 1);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    const CUpti_ActivityAPI *api = find_api(c);
    ck_assert_ptr_nonnull(api);
    ck_assert_uint_ge(api->start, h0 + 777000000000ull);
    ck_assert_uint_le(api->end, h1 + 777000000000ull);
    const CUpti_ActivityKernel10 *k = &find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, c)->u.kernel;
    ck_assert_uint_ge(k->start, h0 + 777000000000ull);
    ck_assert_uint_le(k->end, h1 + 777000000000ull);
}
END_TEST

/* A clock whose every third reading comes 3 ms late, as when the thread
 * reading it is preempted between two clock reads. */
static uint64_t CUPTIAPI late_clock(void)
{
    static _Atomic unsigned calls;
    if (atomic_fetch_add(&calls, 1) % 3 == 1) {
        struct timespec ts = {0, 3000000};
        nanosleep(&ts, NULL);
    }
    return mono_ns() + 777000000000ull;
}

START_TEST(test_timestamp_callback_late_reading_moves_nothing)
{
    /* The records' times stay in order on one stream and inside the calls'
     * window: a late reading of the tool's clock is not an offset change. */
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    CK(cuptiActivityRegisterTimestampCallback(late_clock));
    cusim_init();
    uint32_t corr[8];
    for (int i = 0; i < 8; i++)
        corr[i] = do_launch(2e13); /* long: queued back to back */
    do_device_sync();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    uint64_t prev_end = 0;
    for (int i = 0; i < 8; i++) {
        const CUpti_ActivityKernel10 *k =
            &find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, corr[i])->u.kernel;
        ck_assert_msg(k->start >= prev_end, "kernel %d starts %lld ns before the one before it ends", i,
                      (long long)(prev_end - k->start));
        prev_end = k->end;
    }
}
END_TEST

START_TEST(test_timestamp_callback_refused_after_init)
{
    cusim_init();
    uint64_t before = now_cupti();
    ck_assert_int_eq(cuptiActivityRegisterTimestampCallback(my_clock), CUPTI_ERROR_INVALID_OPERATION);
    ck_assert_int_eq(cuptiGetLastError(), CUPTI_ERROR_INVALID_OPERATION);
    ck_assert_int_eq(cuptiGetLastError(), CUPTI_SUCCESS); /* reading resets it */
    ck_assert_int_eq(cuptiActivityRegisterTimestampCallback(NULL), CUPTI_ERROR_INVALID_PARAMETER);
    /* the clock did not change */
    uint64_t after = now_cupti();
    ck_assert_uint_ge(after, before);
    ck_assert_uint_lt(after - before, 1000000000ull);
}
END_TEST

/* Settings made in InitializeInjection, while the driver starts, are made
 * "before init": the profiler's usual way in. */
START_TEST(test_injection_settings_apply)
{
    const char *build = getenv("CUPROF_BUILD");
    char path[4096];
    snprintf(path, sizeof path, "%s/sim/cupti/libtest_inject.so", build ? build : "build");
    setenv("CUDA_INJECTION64_PATH", path, 1);
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init(); /* loads the library and runs InitializeInjection */
    uint64_t h0 = mono_ns();
    for (int i = 0; i < 10; i++)
        do_launch(0);
    do_device_sync();
    uint64_t h1 = mono_ns();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    size_t dropped = 0, sz = sizeof(size_t), limit = 0;
    CK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    CK(cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &sz, &limit));
    ck_assert_uint_eq(limit, 1); /* proves InitializeInjection ran */
    ck_assert_uint_eq(dropped, 6);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 4);
    for (size_t i = 0; i < cl.n; i++) { /* all on the injected clock */
        const rec *r = &cl.recs[i];
        if (r->u.any.kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        ck_assert_uint_ge(r->u.kernel.start, h0 + 555000000000ull);
        ck_assert_uint_le(r->u.kernel.end, h1 + 555000000000ull);
    }
}
END_TEST

START_TEST(test_latency_timestamps)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    CK(cuptiActivityEnableLatencyTimestamps(1));
    cusim_init();
    uint32_t c = do_launch(0);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    const CUpti_ActivityKernel10 *k = &find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, c)->u.kernel;
    ck_assert_uint_gt(k->queued, 0);
    ck_assert_uint_le(k->queued, k->submitted);
    ck_assert_uint_le(k->submitted, k->start);
}
END_TEST

/* ---- enabling ------------------------------------------------------------------ */

START_TEST(test_disabled_kinds_produce_nothing)
{
    client_start(1 << 16, 0);
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
    cusim_init();
    void *dev = cusim_mem_alloc(256, CUSIM_MEM_DEVICE);
    char host[256] = {0};
    CK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 5));
    uint32_t a = do_launch(0);
    do_memcpy(dev, host, sizeof host, CUSIM_COPY_HTOD);
    do_device_sync();
    /* switch: kernels as KERNEL records now, no runtime records */
    CK(cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_KERNEL));
    uint32_t b = do_launch(0);
    do_device_sync();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));

    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_RUNTIME), 3);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 0);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMCPY), 0);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION), 0);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION), 0);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_KERNEL), 1);
    ck_assert_ptr_nonnull(find_api(a));
    ck_assert_ptr_null(find_api(b));
    ck_assert_ptr_nonnull(find_kind(CUPTI_ACTIVITY_KIND_KERNEL, b));
    ck_assert_int_eq(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_COUNT), CUPTI_ERROR_INVALID_KIND);
}
END_TEST

/* ---- buffers, flush, the worker thread ------------------------------------------- */

START_TEST(test_flush_is_synchronous_on_a_cupti_thread)
{
    client_start(1 << 20, 0);
    enable_all_sim_kinds();
    cusim_init();
    ck_assert_int_eq(cuptiActivityFlushAll(0), CUPTI_SUCCESS);
    for (int i = 0; i < 10; i++)
        do_launch(0);
    do_device_sync();
    /* a big buffer is not full: nothing arrives before a flush, well after
     * the calls returned */
    struct timespec ts = {0, 20 * 1000000};
    nanosleep(&ts, NULL);
    pthread_mutex_lock(&cl.lock);
    ck_assert_uint_eq(cl.n, 0);
    pthread_mutex_unlock(&cl.lock);
    CK(cuptiActivityFlushAll(0));
    /* synchronous: everything is there the moment FlushAll returns */
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 10);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_RUNTIME), 11);
    ck_assert_uint_ge(cl.completes, 2); /* host and device records apart */
    ck_assert_int_eq(cl.completed_on_main, 0);
}
END_TEST

START_TEST(test_default_flush_holds_unfinished_kernels)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init();
    uint32_t c = do_launch(4e13); /* ~50 ms of bf16 GEMM on the device */
    CK(cuptiActivityFlushAll(0));
    ck_assert_ptr_nonnull(find_api(c)); /* the call itself is complete */
    ck_assert_ptr_null(find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, c));
    uint64_t now = now_cupti();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    const rec *r = find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, c);
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_gt(r->u.kernel.end, now); /* it was still running */
    ck_assert_uint_gt(r->u.kernel.end - r->u.kernel.start, 30000000);
    do_device_sync();
}
END_TEST

START_TEST(test_full_buffers_arrive_without_flush)
{
    /* four records per buffer: every fifth record needs a new buffer, and
     * each request costs the caller 20-50 us, which shows as a gap */
    client_start(1 << 16, 4);
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
    cusim_init();
    uint32_t corr[21];
    for (int i = 0; i < 21; i++)
        corr[i] = do_launch(0);
    /* 5 full buffers go back on their own: wait for the worker */
    for (int i = 0; i < 200; i++) {
        pthread_mutex_lock(&cl.lock);
        size_t done = cl.completes;
        pthread_mutex_unlock(&cl.lock);
        if (done >= 5)
            break;
        struct timespec ts = {0, 5 * 1000000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_lock(&cl.lock);
    ck_assert_uint_eq(cl.completes, 5);
    ck_assert_uint_eq(cl.n, 20);
    ck_assert_uint_eq(cl.requests, 6);
    ck_assert_int_eq(cl.completed_on_main, 0);
    pthread_mutex_unlock(&cl.lock);
    CK(cuptiActivityFlushAll(0));
    ck_assert_uint_eq(cl.n, 21);
    ck_assert_uint_eq(cl.most_in_buffer, 4);
    /* requests happened while writing records 1, 5, 9, 13, 17, 21: after
     * those calls ended, the next call started late */
    for (int i = 0; i < 20; i += 4) {
        const CUpti_ActivityAPI *x = find_api(corr[i]), *y = find_api(corr[i + 1]);
        ck_assert_uint_ge(y->start - x->end, 20000);
    }
}
END_TEST

START_TEST(test_no_buffer_drops_records)
{
    client_start(16, 0); /* too small for any record: given straight back */
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
    cusim_init();
    do_launch(0);
    do_launch(0);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    size_t dropped = 0;
    CK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 2);
    ck_assert_uint_eq(cl.n, 0);
}
END_TEST

START_TEST(test_device_buffer_drops_kernels)
{
    size_t size = 4 * 32, limit = 1, sz = sizeof(size_t), got = 0;
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &size));
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &sz, &limit));
    CK(cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &got));
    ck_assert_uint_eq(got, 128);
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init();
    for (int i = 0; i < 10; i++)
        do_launch(0);
    do_device_sync();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    size_t dropped = 0;
    CK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 4);
    ck_assert_uint_eq(dropped, 6);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_RUNTIME), 11); /* host side keeps all */
    CK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 0); /* reading resets */
    /* a flush empties the device buffer: the next four fit again */
    for (int i = 0; i < 4; i++)
        do_launch(0);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    CK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 0);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 8);
}
END_TEST

START_TEST(test_device_buffer_size_after_init_ignored)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init();
    size_t size = 4 * 32, limit = 1, sz = sizeof(size_t), got = 0;
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &size));
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &sz, &limit));
    CK(cuptiActivityGetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &sz, &got));
    ck_assert_uint_eq(got, 1); /* remembered, but too late to apply */
    for (int i = 0; i < 10; i++)
        do_launch(0);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    size_t dropped = 1;
    CK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 0);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 10);
}
END_TEST

START_TEST(test_periodic_flush_empties_device_buffer)
{
    size_t size = 4 * 32, limit = 1, sz = sizeof(size_t);
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &size));
    CK(cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &sz, &limit));
    client_start(1 << 16, 0);
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CK(cuptiActivityFlushPeriod(2));
    cusim_init();
    for (int i = 0; i < 4; i++)
        do_launch(0);
    do_device_sync();
    /* the worker drains finished kernels out of the device buffer... */
    struct timespec ts = {0, 40 * 1000000};
    nanosleep(&ts, NULL);
    /* ...but gives back only full buffers: nothing yet */
    pthread_mutex_lock(&cl.lock);
    ck_assert_uint_eq(cl.n, 0);
    pthread_mutex_unlock(&cl.lock);
    for (int i = 0; i < 4; i++)
        do_launch(0);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    size_t dropped = 1;
    CK(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped));
    ck_assert_uint_eq(dropped, 0); /* without the periodic drain: 4 */
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 8);
}
END_TEST

START_TEST(test_fork_child_starts_clean)
{
#ifdef __SANITIZE_THREAD__
    return; /* TSan cannot start threads after a threaded fork */
#endif
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    cusim_init();
    for (int i = 0; i < 3; i++)
        do_launch(0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        /* the parent's 3 calls are not ours to report; our own call is */
        do_launch(0);
        cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        _exit(count_kind(CUPTI_ACTIVITY_KIND_RUNTIME) == 1 &&
                      count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) == 1 && !cl.completed_on_main
                  ? 0
                  : 1);
    }
    int status = -1;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_RUNTIME), 3);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 3);
}
END_TEST

/* ---- threads ---------------------------------------------------------------------- */

static void *launch_many(void *arg)
{
    (void)arg;
    for (int i = 0; i < 300; i++)
        do_launch(0);
    return NULL;
}

START_TEST(test_many_threads)
{
    client_start(1 << 13, 0);
    enable_all_sim_kinds();
    CK(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM));
    cusim_init();
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, launch_many, NULL), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    do_device_sync();
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 1200);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_RUNTIME), 1201);
    uint32_t tids[8];
    int ntids = 0;
    for (size_t i = 0; i < cl.n; i++) {
        const rec *r = &cl.recs[i];
        if (r->u.any.kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            ck_assert_ptr_nonnull(find_api(r->u.kernel.correlationId));
        if (r->u.any.kind != CUPTI_ACTIVITY_KIND_RUNTIME)
            continue;
        int seen = 0;
        for (int j = 0; j < ntids; j++)
            seen |= tids[j] == r->u.api.threadId;
        if (!seen && ntids < 8)
            tids[ntids++] = r->u.api.threadId;
    }
    ck_assert_int_eq(ntids, 5); /* four workers and the main thread (sync) */
}
END_TEST

/* ---- the callback API ---------------------------------------------------------------- */

static struct {
    int enters, exits;
    uint32_t corr_enter, corr_exit;
    uint32_t last_cbid;
    uint64_t data_at_exit;
    int ret_at_exit;
    char func[64], sym[64];
    int on_main;
} cb;

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                 const void *data)
{
    const CUpti_CallbackData *d = data;
    ck_assert_ptr_eq(userdata, &cb);
    ck_assert_int_eq(domain, CUPTI_CB_DOMAIN_RUNTIME_API);
    cb.last_cbid = cbid;
    cb.on_main = pthread_equal(pthread_self(), cl.main_thread);
    if (d->callbackSite == CUPTI_API_ENTER) {
        cb.enters++;
        cb.corr_enter = d->correlationId;
        *d->correlationData = 0xfeedULL + d->correlationId;
        snprintf(cb.func, sizeof cb.func, "%s", d->functionName ? d->functionName : "");
        snprintf(cb.sym, sizeof cb.sym, "%s", d->symbolName ? d->symbolName : "");
    } else {
        cb.exits++;
        cb.corr_exit = d->correlationId;
        cb.data_at_exit = *d->correlationData;
        cb.ret_at_exit = *(const int *)d->functionReturnValue;
    }
}

START_TEST(test_runtime_callbacks)
{
    cl.main_thread = pthread_self();
    CUpti_SubscriberHandle sub;
    CK(cuptiSubscribe(&sub, on_callback, &cb));
    CK(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CBID_LAUNCH));
    uint32_t on = 0;
    CK(cuptiGetCallbackState(&on, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CBID_LAUNCH));
    ck_assert_uint_eq(on, 1);
    cusim_init();
    void *dev = cusim_mem_alloc(64, CUSIM_MEM_DEVICE);
    uint32_t c = do_launch(0);
    ck_assert_int_eq(cb.enters, 1);
    ck_assert_int_eq(cb.exits, 1);
    ck_assert_uint_eq(cb.corr_enter, c);
    ck_assert_uint_eq(cb.corr_exit, c);
    ck_assert_uint_eq(cb.data_at_exit, 0xfeedULL + c); /* kept from enter to exit */
    ck_assert_int_eq(cb.ret_at_exit, 0);
    ck_assert_str_eq(cb.func, "cudaLaunchKernel");
    ck_assert_str_eq(cb.sym, kname);
    ck_assert_int_eq(cb.on_main, 1); /* callbacks run on the calling thread */
    ck_assert_uint_eq(cb.last_cbid, CBID_LAUNCH);

    do_memset(dev, 0, 64); /* not enabled: no callback */
    ck_assert_int_eq(cb.enters, 1);
    CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API));
    do_memset(dev, 0, 64);
    ck_assert_int_eq(cb.enters, 2);
    ck_assert_uint_eq(cb.last_cbid, CBID_MEMSET);
    CK(cuptiEnableAllDomains(0, sub));
    do_launch(0);
    ck_assert_int_eq(cb.enters, 2);

    CK(cuptiUnsubscribe(sub));
    ck_assert_int_eq(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API, CBID_LAUNCH),
                     CUPTI_ERROR_INVALID_PARAMETER);
}
END_TEST

/* Graphs as CUPTI 13 reports them: a resource callback per node created
 * (on the capturing thread, inside the capturing call) and per clone at
 * instantiation (with its original), no kernel record while capturing, and
 * at each launch kernel records with the launch's correlation id, the
 * exec's graphId and the clone's graphNodeId. */
static struct {
    int created, cloned, exec;
    uint64_t node[8], clone[8], original[8];
    uint32_t exec_id;
} gcb;

static void CUPTIAPI on_graph_callback(void *ud, CUpti_CallbackDomain dom, CUpti_CallbackId id,
                                        const void *data)
{
    (void)ud;
    if (dom != CUPTI_CB_DOMAIN_RESOURCE)
        return;
    const CUpti_GraphData *g = ((const CUpti_ResourceData *)data)->resourceDescriptor;
    if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED && gcb.created < 8)
        CK(cuptiGetGraphNodeId(g->node, &gcb.node[gcb.created++]));
    if (id == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED && gcb.cloned < 8) {
        CK(cuptiGetGraphNodeId(g->originalNode, &gcb.original[gcb.cloned]));
        CK(cuptiGetGraphNodeId(g->node, &gcb.clone[gcb.cloned++]));
    }
    if (id == CUPTI_CBID_RESOURCE_GRAPHEXEC_CREATED) {
        gcb.exec++;
        CK(cuptiGetGraphExecId(g->graphExec, &gcb.exec_id));
    }
}

START_TEST(test_graph_records_and_callbacks)
{
    client_start(1 << 16, 0);
    enable_all_sim_kinds();
    CUpti_SubscriberHandle sub;
    CK(cuptiSubscribe(&sub, on_graph_callback, NULL));
    CK(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RESOURCE));
    cusim_init();
    cusim_stream *s = cusim_stream_create(0, 0);
    ck_assert_int_eq(cusim_stream_begin_capture(s), 0);
    cusim_kernel_desc d = {.name = kname, .grid = {4, 1, 1}, .block = {128, 1, 1}, .cls = CUSIM_KERNEL_USER};
    cusim_api_call c;
    for (int i = 0; i < 2; i++) {
        cusim_api_begin_sym(&c, CBID_LAUNCH, "cudaLaunchKernel", NULL, kname);
        cusim_launch(s, &d, cusim_current_correlation());
        cusim_api_end(&c, 0);
    }
    uint32_t captured_corr = c.correlation_id;
    cusim_graph *g = cusim_stream_end_capture(s);
    ck_assert_ptr_nonnull(g);
    ck_assert_int_eq(gcb.created, 2);
    cusim_graph_exec *e = cusim_graph_instantiate(g);
    ck_assert_int_eq(gcb.exec, 1);
    ck_assert_int_eq(gcb.cloned, 2);
    ck_assert_uint_eq(gcb.exec_id, cusim_graph_exec_id(e));
    for (int i = 0; i < 2; i++)
        ck_assert_uint_eq(gcb.original[i], gcb.node[i]);
    uint32_t launch_corr[3];
    for (int r = 0; r < 3; r++) {
        cusim_api_begin(&c, CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch", NULL);
        cusim_graph_launch(e, s, cusim_current_correlation());
        cusim_api_end(&c, 0);
        launch_corr[r] = c.correlation_id;
    }
    cusim_stream_sync(s);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL), 6);
    ck_assert_ptr_null(find_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, captured_corr));
    for (size_t i = 0, k = 0; i < cl.n; i++) {
        if (cl.recs[i].u.any.kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            continue;
        const CUpti_ActivityKernel10 *kr = &cl.recs[i].u.kernel;
        ck_assert_uint_eq(kr->correlationId, launch_corr[k / 2]);
        ck_assert_uint_eq(kr->graphId, gcb.exec_id);
        ck_assert_uint_eq(kr->graphNodeId, gcb.clone[k % 2]);
        k++;
    }
    cusim_graph_exec_destroy(e);
    cusim_graph_destroy(g);
    CK(cuptiUnsubscribe(sub));
}
END_TEST

/* The MEMORY2 and MEMORY_POOL records the sim's CUPTI writes from the
 * device's reports, only while their kinds are on. */
START_TEST(test_memory_kinds)
{
    client_start(1 << 16, 0);
    cusim_init();
    cusim_memory_activity m = {.mem_kind = CUSIM_MEM_DEVICE, .address = 0x1000, .bytes = 4096};
    cusim_report_memory(&m);   /* kind off: nothing */
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY_POOL));
    cusim_api_call c;
    cusim_api_begin(&c, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", NULL);
    cusim_report_memory(&m);
    cusim_api_end(&c, 0);
    cusim_pool_activity p = {.op = 2, .pool = (void *)0x2000, .reserved = 1 << 21, .min_keep = 7};
    cusim_report_pool(&p);
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMORY2), 1);
    ck_assert_uint_eq(count_kind(CUPTI_ACTIVITY_KIND_MEMORY_POOL), 1);
    for (size_t i = 0; i < cl.n; i++) {
        const CUpti_Activity *r = &cl.recs[i].u.any;
        if (r->kind == CUPTI_ACTIVITY_KIND_MEMORY2) {
            const CUpti_ActivityMemory4 *x = &cl.recs[i].u.mem;
            ck_assert_int_eq(x->memoryOperationType, CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION);
            ck_assert_int_eq(x->memoryKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
            ck_assert_uint_eq(x->address, 0x1000);
            ck_assert_uint_eq(x->bytes, 4096);
            ck_assert_uint_eq(x->correlationId, c.correlation_id);
            ck_assert_uint_gt(x->timestamp, 0);
        }
        if (r->kind == CUPTI_ACTIVITY_KIND_MEMORY_POOL) {
            const CUpti_ActivityMemoryPool3 *x = &cl.recs[i].u.pool;
            ck_assert_int_eq(x->memoryPoolOperationType, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED);
            ck_assert_uint_eq(x->address, 0x2000);
            ck_assert_uint_eq(x->size, 1 << 21);
            ck_assert_uint_eq(x->minBytesToKeep, 7);
        }
    }
}
END_TEST

/* Driver records by callback id (cuptiActivityEnableDriverApi): without
 * the kind, only the enabled ids make records; enabling the kind afterwards
 * turns every id on again; an id switched off after the kind stays off. */
static size_t driver_records(uint32_t cbid)
{
    size_t n = 0;
    for (size_t i = 0; i < cl.n; i++)
        n += cl.recs[i].u.any.kind == CUPTI_ACTIVITY_KIND_DRIVER && cl.recs[i].u.api.cbid == cbid;
    return n;
}

static void driver_call(uint32_t cbid, const char *name)
{
    cusim_api_call c;
    cusim_api_begin_driver(&c, cbid, name, NULL, NULL);
    cusim_api_end(&c, 0);
}

START_TEST(test_driver_records_by_cbid)
{
    client_start(1 << 16, 0);
    cusim_init();
    const uint32_t LK = CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, ATTR = CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute;
    CK(cuptiActivityEnableDriverApi(LK, 1));
    driver_call(LK, "cuLaunchKernelEx");
    driver_call(ATTR, "cuKernelGetAttribute");
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_uint_eq(driver_records(LK), 1);
    ck_assert_uint_eq(driver_records(ATTR), 0);
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));   /* the kind: every id */
    CK(cuptiActivityEnableDriverApi(LK, 0));               /* then one off */
    driver_call(LK, "cuLaunchKernelEx");
    driver_call(ATTR, "cuKernelGetAttribute");
    CK(cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED));
    ck_assert_uint_eq(driver_records(LK), 1);
    ck_assert_uint_eq(driver_records(ATTR), 1);
    ck_assert_int_eq(cuptiActivityEnableDriverApi(CUPTI_DRIVER_TRACE_CBID_SIZE, 1), CUPTI_ERROR_INVALID_PARAMETER);
}
END_TEST

START_TEST(test_second_subscriber_fails)
{
    CUpti_SubscriberHandle a, b;
    CUpti_SubscriberParams p = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
                                .subscriberName = "cuprof"};
    CK(cuptiSubscribe_v2(&a, on_callback, &cb, &p));
    ck_assert_int_eq(cuptiSubscribe(&b, on_callback, NULL),
                     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    char old[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN] = "";
    CUpti_SubscriberParams q = {.structSize = CUpti_SubscriberParams_STRUCT_SIZE,
                                .subscriberName = "other", .oldSubscriberName = old,
                                .oldSubscriberSize = sizeof old};
    ck_assert_int_eq(cuptiSubscribe_v2(&b, on_callback, NULL, &q),
                     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    ck_assert_str_eq(old, "CUPTI for cuprof");
    CK(cuptiUnsubscribe(a));
    CK(cuptiSubscribe(&b, on_callback, NULL)); /* free again */
    CK(cuptiFinalize());                       /* which also frees it */
    CK(cuptiSubscribe(&a, on_callback, NULL));
}
END_TEST

/* ---- small API ------------------------------------------------------------------------- */

START_TEST(test_version_strings_and_records)
{
    uint32_t v = 0;
    CK(cuptiGetVersion(&v));
    ck_assert_uint_eq(v, CUPTI_API_VERSION);
    const char *s = NULL;
    CK(cuptiGetResultString(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, &s));
    ck_assert_str_eq(s, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
    CK(cuptiGetResultString(CUPTI_ERROR_UNKNOWN, &s));
    ck_assert_str_eq(s, "CUPTI_ERROR_UNKNOWN");
    CK(cuptiGetCallbackName(CUPTI_CB_DOMAIN_RUNTIME_API, CBID_LAUNCH, &s));
    ck_assert_str_eq(s, "cudaLaunchKernel_v7000");
    /* walking buffers: end and garbage */
    uint64_t buf[64] = {0};
    CUpti_Activity *r = NULL;
    ck_assert_int_eq(cuptiActivityGetNextRecord((uint8_t *)buf, 0, &r), CUPTI_ERROR_MAX_LIMIT_REACHED);
    ck_assert_int_eq(cuptiActivityGetNextRecord((uint8_t *)buf, sizeof buf, &r), CUPTI_ERROR_INVALID_KIND);
    /* flush before registering is an error, as in the real one */
    ck_assert_int_eq(cuptiActivityFlushAll(0), CUPTI_ERROR_INVALID_OPERATION);
}
END_TEST

static Suite *sim_cupti_suite(void)
{
    Suite *s = suite_create("sim_cupti");
    TCase *tc = tcase_create("cupti");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, test_kinds_counts_and_correlation);
    tcase_add_test(tc, test_every_device_record_has_a_runtime_record);
    tcase_add_test(tc, test_external_correlation);
    tcase_add_test(tc, test_timestamps_on_device_clock);
    tcase_add_test(tc, test_timestamp_callback_before_init);
    tcase_add_test(tc, test_timestamp_callback_refused_after_init);
    tcase_add_test(tc, test_timestamp_callback_late_reading_moves_nothing);
    tcase_add_test(tc, test_injection_settings_apply);
    tcase_add_test(tc, test_latency_timestamps);
    tcase_add_test(tc, test_disabled_kinds_produce_nothing);
    tcase_add_test(tc, test_flush_is_synchronous_on_a_cupti_thread);
    tcase_add_test(tc, test_default_flush_holds_unfinished_kernels);
    tcase_add_test(tc, test_full_buffers_arrive_without_flush);
    tcase_add_test(tc, test_no_buffer_drops_records);
    tcase_add_test(tc, test_device_buffer_drops_kernels);
    tcase_add_test(tc, test_device_buffer_size_after_init_ignored);
    tcase_add_test(tc, test_periodic_flush_empties_device_buffer);
    tcase_add_test(tc, test_fork_child_starts_clean);
    tcase_add_test(tc, test_many_threads);
    tcase_add_test(tc, test_runtime_callbacks);
    tcase_add_test(tc, test_graph_records_and_callbacks);
    tcase_add_test(tc, test_memory_kinds);
    tcase_add_test(tc, test_driver_records_by_cbid);
    tcase_add_test(tc, test_second_subscriber_fails);
    tcase_add_test(tc, test_version_strings_and_records);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(sim_cupti_suite());
    /* Forked: each test needs a driver that has not started yet. */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_ENV);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
