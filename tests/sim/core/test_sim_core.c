/*
 * test_sim_core.c - unit tests of the simulated driver (libcusim's sources
 * are compiled into this binary, so the internals are reachable).
 *
 * Check forks each test, so each starts with an uninitialized driver: a test
 * may set CUSIM_* variables before its first call.
 */
#include "cusim_internal.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- a recording tool ----------------------------------------------------- */

#define REC_MAX 64
static struct {
    int n_enter, n_exit, n_kernel, n_copy, n_sync;
    cusim_api_call enter[REC_MAX], exit[REC_MAX];
    cusim_kernel_activity kernel[REC_MAX];
    cusim_copy_activity copy[REC_MAX];
    cusim_sync_activity sync[REC_MAX];
} rec;

static void on_api_enter(const cusim_api_call *c)
{
    if (rec.n_enter < REC_MAX)
        rec.enter[rec.n_enter++] = *c;
}
static void on_api_exit(const cusim_api_call *c)
{
    if (rec.n_exit < REC_MAX)
        rec.exit[rec.n_exit++] = *c;
}
static void on_kernel(const cusim_kernel_activity *a)
{
    if (rec.n_kernel < REC_MAX)
        rec.kernel[rec.n_kernel++] = *a;
}
static void on_copy(const cusim_copy_activity *a)
{
    if (rec.n_copy < REC_MAX)
        rec.copy[rec.n_copy++] = *a;
}
static void on_sync(const cusim_sync_activity *a)
{
    if (rec.n_sync < REC_MAX)
        rec.sync[rec.n_sync++] = *a;
}
static const cusim_tool_ops recorder = {on_api_enter, on_api_exit, on_kernel, on_copy, on_sync, NULL, NULL, NULL};

static cusim_kernel_desc user_kernel(uint32_t blocks, uint32_t threads)
{
    return (cusim_kernel_desc){.name = "user_k", .grid = {blocks, 1, 1},
                               .block = {threads, 1, 1}, .cls = CUSIM_KERNEL_USER};
}

/* ---- clocks --------------------------------------------------------------- */

START_TEST(test_clock_default_offset)
{
    unsetenv("CUSIM_CLOCK_OFFSET_NS");
    cusim_init();
    uint64_t h = cusim_host_ns(), g = cusim_gpu_ns();
    ck_assert_uint_ne(h, g);
    int64_t d = (int64_t)(g - h);
    ck_assert_int_ge(d, CUSIM_DEFAULT_CLOCK_OFFSET_NS);
    ck_assert_int_lt(d, CUSIM_DEFAULT_CLOCK_OFFSET_NS + 10000000); /* < 10 ms apart */
    ck_assert_uint_eq(cusim_gpu_ns_at(1000), 1000 + (uint64_t)CUSIM_DEFAULT_CLOCK_OFFSET_NS);
}
END_TEST

START_TEST(test_clock_env_offset)
{
    setenv("CUSIM_CLOCK_OFFSET_NS", "-5000", 1);
    cusim_init();
    ck_assert_uint_eq(cusim_gpu_ns_at(1000000), 995000);
}
END_TEST

static uint64_t fake_clock(void)
{
    return 42000000000ull;
}

START_TEST(test_timestamp_fn_only_before_init)
{
    ck_assert_int_eq(cusim_tool_set_timestamp_fn(fake_clock), 0);
    cusim_init();
    ck_assert_uint_eq(cusim_gpu_ns(), 42000000000ull);
    ck_assert_int_eq(cusim_tool_set_timestamp_fn(NULL), -1);
    ck_assert_uint_eq(cusim_gpu_ns(), 42000000000ull);
    ck_assert_int_eq(cusim_initialized(), 1);
}
END_TEST

START_TEST(test_wait_until_host)
{
    uint64_t t = cusim_host_ns() + 3000000; /* 3 ms */
    cusim_wait_until_host(t);
    uint64_t now = cusim_host_ns();
    ck_assert_uint_ge(now, t);
    ck_assert_uint_lt(now, t + 1000000000); /* and does not hang */
}
END_TEST

/* ---- correlation ids ------------------------------------------------------- */

START_TEST(test_correlation_sequence_and_nesting)
{
    cusim_init();
    ck_assert_uint_eq(cusim_current_correlation(), 0);
    cusim_api_call a, b, c;
    cusim_api_begin(&a, 211, "cudaLaunchKernel", NULL);
    ck_assert_uint_eq(a.correlation_id, 1);
    ck_assert_uint_eq(cusim_current_correlation(), 1);
    cusim_api_begin(&b, 31, "cudaMemcpy", NULL);
    ck_assert_uint_eq(b.correlation_id, 2);
    ck_assert_uint_eq(cusim_current_correlation(), 2);
    cusim_api_end(&b, 0);
    ck_assert_uint_eq(cusim_current_correlation(), 1);
    cusim_api_end(&a, 3);
    ck_assert_int_eq(a.status, 3);
    ck_assert_uint_eq(cusim_current_correlation(), 0);
    cusim_api_begin(&c, 165, "cudaDeviceSynchronize", NULL);
    ck_assert_uint_eq(c.correlation_id, 3);
    ck_assert_uint_ne(c.thread_id, 0);
    cusim_api_end(&c, 0);
}
END_TEST

#define CORR_THREADS 4
#define CORR_CALLS 3000
static uint32_t corr_seen[CORR_THREADS][CORR_CALLS];

static void *corr_worker(void *arg)
{
    uint32_t *out = arg;
    for (int i = 0; i < CORR_CALLS; i++) {
        cusim_api_call c;
        cusim_api_begin(&c, 211, "cudaLaunchKernel", NULL);
        out[i] = c.correlation_id;
        cusim_api_end(&c, 0);
    }
    return NULL;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

START_TEST(test_correlation_unique_across_threads)
{
    cusim_init();
    pthread_t th[CORR_THREADS];
    for (int i = 0; i < CORR_THREADS; i++)
        pthread_create(&th[i], NULL, corr_worker, corr_seen[i]);
    for (int i = 0; i < CORR_THREADS; i++)
        pthread_join(th[i], NULL);
    uint32_t *all = &corr_seen[0][0];
    qsort(all, CORR_THREADS * CORR_CALLS, sizeof(uint32_t), cmp_u32);
    ck_assert_uint_ge(all[0], 1);
    for (int i = 1; i < CORR_THREADS * CORR_CALLS; i++)
        ck_assert_uint_ne(all[i - 1], all[i]);
}
END_TEST

START_TEST(test_tool_sees_api_calls)
{
    cusim_init();
    cusim_tool_set(&recorder);
    cusim_api_call c;
    static const char sym[] = "_Z3fooPf";
    cusim_api_begin_sym(&c, 211, "cudaLaunchKernel", &c, sym);
    cusim_api_end(&c, 0);
    cusim_tool_set(NULL);
    ck_assert_int_eq(rec.n_enter, 1);
    ck_assert_int_eq(rec.n_exit, 1);
    ck_assert_uint_eq(rec.enter[0].cbid, 211);
    ck_assert_str_eq(rec.enter[0].name, "cudaLaunchKernel");
    ck_assert_str_eq(rec.enter[0].symbol_name, sym);
    ck_assert_uint_eq(rec.enter[0].correlation_id, rec.exit[0].correlation_id);
    ck_assert_uint_ge(rec.exit[0].end_gpu_ns, rec.exit[0].start_gpu_ns);
    ck_assert_uint_gt(rec.exit[0].start_gpu_ns, (uint64_t)CUSIM_DEFAULT_CLOCK_OFFSET_NS);
}
END_TEST

/* ---- memory --------------------------------------------------------------- */

START_TEST(test_mem_classify_and_free)
{
    char *d = cusim_mem_alloc(1000, CUSIM_MEM_DEVICE);
    char *p = cusim_mem_alloc(64, CUSIM_MEM_PINNED);
    char *m = cusim_mem_alloc(64, CUSIM_MEM_MANAGED);
    char *z1 = cusim_mem_alloc(0, CUSIM_MEM_DEVICE), *z2 = cusim_mem_alloc(0, CUSIM_MEM_DEVICE);
    char host[16];
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq((uintptr_t)d % 256, 0);
    ck_assert_int_eq(cusim_mem_kind_of(d), CUSIM_MEM_DEVICE);
    ck_assert_int_eq(cusim_mem_kind_of(d + 999), CUSIM_MEM_DEVICE);
    ck_assert_int_eq(cusim_mem_kind_of(p + 10), CUSIM_MEM_PINNED);
    ck_assert_int_eq(cusim_mem_kind_of(m + 63), CUSIM_MEM_MANAGED);
    ck_assert_int_eq(cusim_mem_kind_of(host), CUSIM_MEM_UNKNOWN);
    ck_assert_int_eq(cusim_mem_kind_of(NULL), CUSIM_MEM_UNKNOWN);
    ck_assert_ptr_nonnull(z1);
    ck_assert_ptr_ne(z1, z2);
    void *base = NULL;
    size_t size = 0;
    ck_assert_int_eq(cusim_mem_find(d + 500, &base, &size), CUSIM_MEM_DEVICE);
    ck_assert_ptr_eq(base, d);
    ck_assert_uint_eq(size, 1000);
    ck_assert_uint_eq(cusim_mem_device_used(), 1000 + 64);
    ck_assert_int_eq(cusim_mem_free(d + 1, CUSIM_MEM_DEVICE), -1);  /* interior */
    ck_assert_int_eq(cusim_mem_free(p, CUSIM_MEM_DEVICE), -1);      /* wrong kind */
    ck_assert_int_eq(cusim_mem_free(host, CUSIM_MEM_DEVICE), -1);   /* not ours */
    ck_assert_int_eq(cusim_mem_free(d, CUSIM_MEM_DEVICE), 0);
    ck_assert_int_eq(cusim_mem_kind_of(d), CUSIM_MEM_UNKNOWN);
    ck_assert_uint_eq(cusim_mem_device_used(), 64);
    ck_assert_int_eq(cusim_mem_free(p, CUSIM_MEM_PINNED), 0);
    ck_assert_int_eq(cusim_mem_free(m, CUSIM_MEM_MANAGED), 0);
    ck_assert_ptr_null(cusim_mem_alloc((size_t)CUSIM_DEVICE_MEM_BYTES + 1, CUSIM_MEM_DEVICE));
}
END_TEST

START_TEST(test_memcpy_moves_bytes_and_resolves_default)
{
    cusim_init();
    cusim_tool_set(&recorder);
    cusim_stream *s = cusim_stream_get(NULL, 0);
    char src[64], back[64];
    for (int i = 0; i < 64; i++)
        src[i] = (char)i;
    char *d = cusim_mem_alloc(64, CUSIM_MEM_DEVICE), *d2 = cusim_mem_alloc(64, CUSIM_MEM_DEVICE);
    cusim_memcpy(s, d, src, 64, 4, 1, 7);
    cusim_memcpy(s, d2, d, 64, 4, 1, 8);
    cusim_memset(s, d2 + 60, 0x7f, 4, 1, 9);
    cusim_memcpy(s, back, d2, 64, 4, 1, 10);
    ck_assert_mem_eq(back, src, 60);
    ck_assert_int_eq(back[63], 0x7f);
    ck_assert_int_eq(rec.n_copy, 4);
    ck_assert_int_eq(rec.copy[0].copy_kind, CUSIM_COPY_HTOD);
    ck_assert_int_eq(rec.copy[0].src_mem, CUSIM_MEM_UNKNOWN);
    ck_assert_int_eq(rec.copy[1].copy_kind, CUSIM_COPY_DTOD);
    ck_assert_int_eq(rec.copy[2].is_memset, 1);
    ck_assert_int_eq(rec.copy[2].value, 0x7f);
    ck_assert_int_eq(rec.copy[3].copy_kind, CUSIM_COPY_DTOH);
    ck_assert_uint_eq(rec.copy[3].correlation_id, 10);
    ck_assert_uint_eq(rec.copy[3].bytes, 64);
    for (int i = 1; i < 4; i++) /* one stream: in order, no overlap */
        ck_assert_uint_ge(rec.copy[i].start, rec.copy[i - 1].end);
    /* 2D: 3 rows of 4 bytes out of 8-byte pitched rows */
    char grid[24], out[12];
    for (int i = 0; i < 24; i++)
        grid[i] = (char)(100 + i);
    cusim_memcpy2d(s, out, 4, grid, 8, 4, 3, CUSIM_COPY_HTOH, 1, 0);
    ck_assert_int_eq(out[0], 100);
    ck_assert_int_eq(out[4], 108);
    ck_assert_int_eq(out[11], 119);
    cusim_tool_set(NULL);
}
END_TEST

/* ---- deferred sim work ------------------------------------------------------ */

static int defer_log[8], defer_n;

static void job_log(void *arg)
{
    defer_log[defer_n++] = (int)(intptr_t)arg;
}

/* A job that itself copies (a cusim call inside a job must not drain again). */
static void job_fill(void *arg)
{
    static const char msg[8] = "deferrd";
    cusim_memcpy(cusim_stream_get(NULL, 0), arg, msg, sizeof msg, CUSIM_COPY_HTOD, 0, 0);
    defer_log[defer_n++] = 99;
}

START_TEST(test_defer_runs_before_observers)
{
    cusim_init();
    cusim_stream *s = cusim_stream_get(NULL, 0);
    char *d = cusim_mem_alloc(8, CUSIM_MEM_DEVICE);
    char out[8] = {0};
    memset(d, 0, 8);
    cusim_defer(job_log, (void *)1);
    cusim_defer(job_fill, d);
    cusim_defer(job_log, (void *)2);
    ck_assert_int_eq(defer_n, 0); /* nothing ran yet: launches do not observe */
    cusim_kernel_desc k = user_kernel(1, 32);
    cusim_launch(s, &k, 0);
    ck_assert_int_eq(defer_n, 0);
    cusim_memcpy(s, out, d, 8, CUSIM_COPY_DTOH, 1, 0);
    ck_assert_int_eq(defer_n, 3);
    ck_assert_int_eq(defer_log[0], 1);
    ck_assert_int_eq(defer_log[1], 99);
    ck_assert_int_eq(defer_log[2], 2);
    ck_assert_str_eq(out, "deferrd");
    /* queries, syncs and frees drain too */
    cusim_defer(job_log, (void *)3);
    cusim_stream_query(s);
    ck_assert_int_eq(defer_n, 4);
    cusim_defer(job_log, (void *)4);
    cusim_device_sync();
    ck_assert_int_eq(defer_n, 5);
    cusim_defer(job_log, (void *)5);
    ck_assert_int_eq(cusim_mem_free(d, CUSIM_MEM_DEVICE), 0);
    ck_assert_int_eq(defer_n, 6);
    ck_assert_int_eq(defer_log[5], 5);
}
END_TEST

/* Stands in for the cuBLAS sim's deferred GEMM: writes its pattern into the
 * device buffer after spinning a while (the CPU cost of computing it). */
static void job_slow_fill(void *arg)
{
    cusim_spin_ns(20 * 1000 * 1000);
    memset(arg, 0x5a, 4096);
}

START_TEST(test_async_copy_is_deferred_and_off_the_timelines)
{
    enum { BIG = 64 << 20 };
    cusim_init();
    cusim_stream *s = cusim_stream_create(0, 0);
    char *a = cusim_mem_alloc(BIG, CUSIM_MEM_DEVICE), *b = cusim_mem_alloc(BIG, CUSIM_MEM_DEVICE);
    char *c = cusim_mem_alloc(4096, CUSIM_MEM_DEVICE);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    memset(a, 1, BIG);
    memset(b, 2, BIG);
    /* what moving the bytes on the host costs */
    uint64_t t0 = cusim_host_ns();
    memmove(b, a, BIG);
    uint64_t host_copy_ns = cusim_host_ns() - t0;
    memset(a, 3, BIG);
    cusim_tool_set(&recorder);
    rec.n_copy = rec.n_kernel = 0;
    /* Earlier deferred work (a GEMM's CPU computation), then async copies
     * of its output (the big one first: the stream stays busy while the host
     * makes the next calls), a memset and a kernel: none of these calls may
     * run the deferred work or move the big buffer on the host. */
    cusim_defer(job_slow_fill, a);
    uint64_t h0 = cusim_host_ns();
    cusim_memcpy(s, b, a, BIG, CUSIM_COPY_DTOD, 0, 1);
    cusim_memcpy(s, c, a, 4096, CUSIM_COPY_DTOD, 0, 2);
    cusim_memset(s, b + BIG - 16, 0x77, 16, 0, 3);
    cusim_kernel_desc k = user_kernel(1, 32);
    cusim_launch(s, &k, 4);
    uint64_t h1 = cusim_host_ns(), call_ns = h1 - h0;
    ck_assert_msg(call_ns < host_copy_ns / 2 && call_ns < 10 * 1000 * 1000,
                  "async calls took %llu ns (a host memmove of the buffer: %llu ns)",
                  (unsigned long long)call_ns, (unsigned long long)host_copy_ns);
    /* The device timeline is the model's alone: each operation starts when
     * the one before it ends, or (had the host been slow) at the latest one
     * launch latency after the last call, never later. */
    ck_assert_int_eq(rec.n_copy, 3);
    ck_assert_int_eq(rec.n_kernel, 1);
    uint64_t d = (uint64_t)cusim_gpu_delta(), latest = h1 + d + CUSIM_LAUNCH_LATENCY_NS;
    ck_assert_uint_ge(rec.copy[0].start, h0 + d + CUSIM_LAUNCH_LATENCY_NS);
    ck_assert_uint_le(rec.copy[0].start, latest);
    uint64_t prev_end = rec.copy[0].end, starts[3] = {rec.copy[1].start, rec.copy[2].start,
                                                      rec.kernel[0].start};
    uint64_t ends[3] = {rec.copy[1].end, rec.copy[2].end, rec.kernel[0].end};
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_ge(starts[i], prev_end);
        ck_assert_uint_le(starts[i], prev_end > latest ? prev_end : latest);
        prev_end = ends[i];
    }
    /* a blocking copy sees everything, in stream order */
    char out[32];
    cusim_memcpy(s, out, c, 16, CUSIM_COPY_DTOH, 1, 5);
    for (int i = 0; i < 16; i++)
        ck_assert_int_eq(out[i], 0x5a);
    cusim_memcpy(s, out, b + BIG - 32, 32, CUSIM_COPY_DTOH, 1, 6);
    for (int i = 0; i < 16; i++) {
        ck_assert_int_eq(out[i], 3);
        ck_assert_int_eq(out[16 + i], 0x77);
    }
    ck_assert_int_eq(b[0], 0x5a);
    ck_assert_int_eq(b[4096], 3);
    /* an async copy then a sync: the sync drains it */
    cusim_memset(s, c, 0x11, 4096, 0, 7);
    cusim_memcpy(s, b, c, 4096, CUSIM_COPY_DTOD, 0, 8);
    cusim_stream_sync(s);
    ck_assert_int_eq(b[0], 0x11);
    ck_assert_int_eq(b[4095], 0x11);
    cusim_tool_set(NULL);
    cusim_stream_destroy(s);
    ck_assert_int_eq(cusim_mem_free(a, CUSIM_MEM_DEVICE), 0);
    ck_assert_int_eq(cusim_mem_free(b, CUSIM_MEM_DEVICE), 0);
    ck_assert_int_eq(cusim_mem_free(c, CUSIM_MEM_DEVICE), 0);
}
END_TEST

/* ---- timing model --------------------------------------------------------- */

START_TEST(test_jitter_deterministic_and_bounded)
{
    int outliers = 0;
    for (uint64_t i = 0; i < 100000; i++) {
        double f = cusim_model_jitter(1234, i, 1);
        ck_assert(f == cusim_model_jitter(1234, i, 1));
        if (f > 1.0 + CUSIM_JITTER + 1e-9) {
            outliers++;
            ck_assert(f >= CUSIM_OUTLIER_MIN * (1.0 - CUSIM_JITTER) - 1e-9);
            ck_assert(f <= CUSIM_OUTLIER_MAX * (1.0 + CUSIM_JITTER) + 1e-9);
        } else {
            ck_assert(f >= 1.0 - CUSIM_JITTER - 1e-9);
        }
        double g = cusim_model_jitter(1234, i, 0);
        ck_assert(g >= 1.0 - CUSIM_JITTER - 1e-9 && g <= 1.0 + CUSIM_JITTER + 1e-9);
    }
    /* about 1 in 200: 500 expected */
    ck_assert_int_gt(outliers, 350);
    ck_assert_int_lt(outliers, 650);
    int differ = 0;
    for (uint64_t i = 0; i < 100; i++)
        differ += cusim_model_jitter(1, i, 1) != cusim_model_jitter(2, i, 1);
    ck_assert_int_gt(differ, 90);
}
END_TEST

START_TEST(test_model_rates)
{
    double n = 4096;
    cusim_kernel_desc g16 = {.cls = CUSIM_KERNEL_GEMM, .flops = 2 * n * n * n,
                             .bytes = 3 * n * n * 2, .tensor_dtype_bits = 16};
    double t16 = cusim_model_kernel_ns(&g16);
    ck_assert(fabs(t16 - (2 * n * n * n / 790e12 * 1e9 + CUSIM_GEMM_FIXED_NS)) < 1.0);
    cusim_kernel_desc g32 = g16;
    g32.tensor_dtype_bits = 32;
    ck_assert(cusim_model_kernel_ns(&g32) > 1.9 * (t16 - CUSIM_GEMM_FIXED_NS));
    /* small GEMM: memory/fixed bound */
    cusim_kernel_desc small = {.cls = CUSIM_KERNEL_GEMM, .flops = 2 * 64.0 * 64 * 64,
                               .bytes = 3 * 64 * 64 * 2, .tensor_dtype_bits = 16};
    ck_assert(cusim_model_kernel_ns(&small) < CUSIM_GEMM_FIXED_NS + 10);
    cusim_kernel_desc ew = {.cls = CUSIM_KERNEL_ELEMENTWISE, .bytes = 64};
    ck_assert(cusim_model_kernel_ns(&ew) == CUSIM_ELEM_FLOOR_NS);
    ew.bytes = 3e9; /* 1 ms of HBM traffic */
    ck_assert(fabs(cusim_model_kernel_ns(&ew) - (1e6 + CUSIM_ELEM_FIXED_NS)) < 1.0);
    cusim_kernel_desc u = user_kernel(1u << 20, 1024); /* 2^30 threads * 12 B */
    ck_assert(fabs(cusim_model_kernel_ns(&u) - ((double)(1u << 30) * 12 / 3e12 * 1e9 +
                                                CUSIM_ELEM_FIXED_NS)) < 1.0);
    /* copies: pinned faster than pageable; DtoD fastest */
    uint64_t mb = 1 << 20;
    double pinned = cusim_model_copy_ns(CUSIM_COPY_HTOD, CUSIM_MEM_PINNED, CUSIM_MEM_DEVICE, mb);
    double pageable = cusim_model_copy_ns(CUSIM_COPY_HTOD, CUSIM_MEM_UNKNOWN, CUSIM_MEM_DEVICE, mb);
    double d2d = cusim_model_copy_ns(CUSIM_COPY_DTOD, CUSIM_MEM_DEVICE, CUSIM_MEM_DEVICE, mb);
    ck_assert(fabs(pinned - (CUSIM_COPY_FIXED_NS + mb / 25e9 * 1e9)) < 1.0);
    ck_assert(pageable > pinned && d2d < pinned);
    ck_assert(cusim_model_memset_ns(0) == CUSIM_MEMSET_FIXED_NS);
}
END_TEST

START_TEST(test_occupancy_model)
{
    ck_assert_int_eq(cusim_occupancy(256, 0, 32, 0), 8);    /* thread limited */
    ck_assert_int_eq(cusim_occupancy(1024, 0, 64, 0), 1);   /* register limited */
    ck_assert_int_eq(cusim_occupancy(128, 0, 128, 0), 4);   /* 65536/(128*32)=16 warps / 4 */
    ck_assert_int_eq(cusim_occupancy(32, 0, 16, 0), 32);    /* block limited */
    ck_assert_int_eq(cusim_occupancy(128, 100 * 1024, 32, 0), 2); /* smem limited */
    ck_assert_int_eq(cusim_occupancy(1025, 0, 32, 0), 0);
    ck_assert_int_eq(cusim_occupancy(128, 228 * 1024, 32, 0), 0);
    ck_assert_int_eq(cusim_occupancy(64, 0, 0, 0), 32);
}
END_TEST

/* ---- timeline ------------------------------------------------------------- */

START_TEST(test_one_stream_serializes)
{
    cusim_init();
    cusim_tool_set(&recorder);
    cusim_stream *s = cusim_stream_create(0, 0);
    cusim_kernel_desc k = user_kernel(1000, 256);
    uint64_t t0 = cusim_gpu_ns();
    for (int i = 0; i < 5; i++)
        cusim_launch(s, &k, (uint32_t)(100 + i));
    ck_assert_int_eq(rec.n_kernel, 5);
    ck_assert_uint_ge(rec.kernel[0].start, t0 + CUSIM_LAUNCH_LATENCY_NS);
    for (int i = 0; i < 5; i++) {
        ck_assert_uint_eq(rec.kernel[i].correlation_id, 100 + (uint32_t)i);
        ck_assert_uint_eq(rec.kernel[i].stream_id, cusim_stream_id(s));
        ck_assert_ptr_eq(rec.kernel[i].desc, &k);
        ck_assert_uint_le(rec.kernel[i].queued, rec.kernel[i].submitted);
        ck_assert_uint_le(rec.kernel[i].submitted, rec.kernel[i].start);
        ck_assert_uint_gt(rec.kernel[i].end, rec.kernel[i].start);
        if (i > 0)
            ck_assert_uint_ge(rec.kernel[i].start, rec.kernel[i - 1].end);
    }
    cusim_tool_set(NULL);
}
END_TEST

/* A kernel long enough (about 4.3 ms) to see what waits for what. */
static cusim_kernel_desc long_kernel(void)
{
    return user_kernel(1u << 20, 1024);
}

START_TEST(test_legacy_stream_semantics)
{
    cusim_init();
    cusim_tool_set(&recorder);
    cusim_stream *legacy = cusim_stream_get(NULL, 0);
    cusim_stream *blocking = cusim_stream_create(0, 0);
    cusim_stream *nonblocking = cusim_stream_create(CUSIM_STREAM_NONBLOCKING, 0);
    cusim_kernel_desc big = long_kernel(), small = user_kernel(1, 32);
    cusim_launch(blocking, &big, 1);    /* [0] */
    cusim_launch(legacy, &small, 2);    /* [1] waits for [0] */
    cusim_launch(nonblocking, &small, 3); /* [2] does not wait for [1] */
    cusim_launch(blocking, &small, 4);  /* [3] waits for [1] */
    ck_assert_int_eq(rec.n_kernel, 4);
    ck_assert_uint_ge(rec.kernel[1].start, rec.kernel[0].end);
    ck_assert_uint_lt(rec.kernel[2].start, rec.kernel[1].start);
    ck_assert_uint_ge(rec.kernel[3].start, rec.kernel[1].end);
    /* per-thread default streams are blocking: they wait for the legacy stream */
    cusim_stream *ptds = cusim_stream_get(NULL, 1);
    ck_assert_ptr_ne(ptds, legacy);
    ck_assert_ptr_eq(cusim_stream_get((void *)2, 0), ptds);
    ck_assert_ptr_eq(cusim_stream_get((void *)1, 1), legacy);
    cusim_launch(legacy, &big, 5);      /* [4] */
    cusim_launch(ptds, &small, 6);      /* [5] */
    ck_assert_uint_ge(rec.kernel[5].start, rec.kernel[4].end);
    cusim_tool_set(NULL);
}
END_TEST

START_TEST(test_sync_blocks_until_device_end)
{
    cusim_init();
    cusim_tool_set(&recorder);
    cusim_stream *s = cusim_stream_create(0, 0);
    cusim_kernel_desc big = long_kernel();
    uint64_t end = cusim_launch(s, &big, 1);
    ck_assert_int_eq(cusim_stream_query(s), 0);
    uint64_t before = cusim_gpu_ns();
    ck_assert_uint_lt(before, end);
    cusim_stream_sync(s);
    ck_assert_uint_ge(cusim_gpu_ns(), end);
    ck_assert_int_eq(cusim_stream_query(s), 1);
    ck_assert_int_eq(rec.n_sync, 1);
    ck_assert_int_eq(rec.sync[0].type, CUSIM_SYNC_STREAM);
    ck_assert_uint_eq(rec.sync[0].stream_id, cusim_stream_id(s));
    ck_assert_uint_ge(rec.sync[0].end, end);
    ck_assert_uint_le(rec.sync[0].start, before + 1000000);
    /* device sync waits for every stream */
    cusim_stream *s2 = cusim_stream_create(CUSIM_STREAM_NONBLOCKING, 0);
    uint64_t e2 = cusim_launch(s2, &big, 2);
    cusim_device_sync();
    ck_assert_uint_ge(cusim_gpu_ns(), e2);
    ck_assert_int_eq(rec.sync[1].type, CUSIM_SYNC_CONTEXT);
    cusim_tool_set(NULL);
}
END_TEST

START_TEST(test_events_measure_device_time)
{
    cusim_init();
    cusim_stream *s = cusim_stream_create(0, 0);
    cusim_event *a = cusim_event_create(0), *b = cusim_event_create(0);
    cusim_kernel_desc big = long_kernel();
    ck_assert_float_eq(cusim_event_elapsed_ms(a, b), -1.0f);
    ck_assert_ptr_eq(cusim_event_get(a), a);
    cusim_event_record(a, s);
    uint64_t t0 = cusim_host_ns();
    cusim_launch(s, &big, 1);
    cusim_launch(s, &big, 2);
    cusim_event_record(b, s);
    ck_assert_float_eq(cusim_event_elapsed_ms(a, b), -3.0f); /* not reached */
    ck_assert_int_eq(cusim_event_query(b), 0);
    cusim_event_sync(b);
    ck_assert_int_eq(cusim_event_query(b), 1);
    float ms = cusim_event_elapsed_ms(a, b);
    double model = 2 * cusim_model_kernel_ns(&big) / 1e6;
    /* two kernels with jitter (and maybe one outlier) plus the launch gap */
    ck_assert(ms > model * 0.96);
    ck_assert(ms < model * 3.1);
    ck_assert_uint_ge(cusim_host_ns() - t0, (uint64_t)(ms * 1e6 * 0.9));
    /* a second stream that waits for b starts after it */
    cusim_stream *s2 = cusim_stream_create(CUSIM_STREAM_NONBLOCKING, 0);
    cusim_event *c = cusim_event_create(0);
    cusim_event_record(c, s);
    cusim_stream_wait_event(s2, c);
    cusim_event *d = cusim_event_create(0);
    cusim_event_record(d, s2);
    cusim_event_sync(d);
    ck_assert_float_ge(cusim_event_elapsed_ms(c, d), 0.0f);
    cusim_event *nt = cusim_event_create(CUSIM_EVENT_DISABLE_TIMING);
    cusim_event_record(nt, s);
    cusim_event_sync(nt);
    ck_assert_float_eq(cusim_event_elapsed_ms(a, nt), -2.0f);
    cusim_event_destroy(nt);
    ck_assert_ptr_null(cusim_event_get(nt));
    cusim_stream_destroy(s2);
    ck_assert_ptr_null(cusim_stream_get(s2, 0));
}
END_TEST

static uint64_t run_durations(uint64_t *out, int n)
{
    cusim_stream *s = cusim_stream_create(CUSIM_STREAM_NONBLOCKING, 0);
    cusim_kernel_desc k = user_kernel(64, 128);
    for (int i = 0; i < n; i++) {
        rec.n_kernel = 0;
        cusim_launch(s, &k, 1);
        out[i] = rec.kernel[0].end - rec.kernel[0].start;
    }
    return 0;
}

START_TEST(test_jitter_seed_env)
{
    /* The seed comes from CUSIM_SEED; durations follow cusim_model_jitter of
     * the operation sequence number. */
    setenv("CUSIM_SEED", "777", 1);
    cusim_init();
    ck_assert_uint_eq(cusim_cfg.seed, 777);
    cusim_tool_set(&recorder);
    uint64_t d[20];
    run_durations(d, 20);
    cusim_kernel_desc k = user_kernel(64, 128);
    double base = cusim_model_kernel_ns(&k);
    int distinct = 0;
    for (int i = 0; i < 20; i++) {
        double expect = base * cusim_model_jitter(777, (uint64_t)i, 1);
        ck_assert(fabs((double)d[i] - expect) <= 1.0);
        distinct += i > 0 && d[i] != d[i - 1];
    }
    ck_assert_int_gt(distinct, 10);
    cusim_tool_set(NULL);
}
END_TEST

static Suite *core_suite(void)
{
    Suite *s = suite_create("sim_core");
    TCase *tc = tcase_create("clock");
    tcase_add_test(tc, test_clock_default_offset);
    tcase_add_test(tc, test_clock_env_offset);
    tcase_add_test(tc, test_timestamp_fn_only_before_init);
    tcase_add_test(tc, test_wait_until_host);
    suite_add_tcase(s, tc);
    tc = tcase_create("api");
    tcase_add_test(tc, test_correlation_sequence_and_nesting);
    tcase_add_test(tc, test_correlation_unique_across_threads);
    tcase_add_test(tc, test_tool_sees_api_calls);
    suite_add_tcase(s, tc);
    tc = tcase_create("memory");
    tcase_add_test(tc, test_mem_classify_and_free);
    tcase_add_test(tc, test_memcpy_moves_bytes_and_resolves_default);
    tcase_add_test(tc, test_defer_runs_before_observers);
    tcase_add_test(tc, test_async_copy_is_deferred_and_off_the_timelines);
    suite_add_tcase(s, tc);
    tc = tcase_create("model");
    tcase_add_test(tc, test_jitter_deterministic_and_bounded);
    tcase_add_test(tc, test_model_rates);
    tcase_add_test(tc, test_occupancy_model);
    tcase_add_test(tc, test_jitter_seed_env);
    suite_add_tcase(s, tc);
    tc = tcase_create("timeline");
    tcase_add_test(tc, test_one_stream_serializes);
    tcase_add_test(tc, test_legacy_stream_semantics);
    tcase_add_test(tc, test_sync_blocks_until_device_end);
    tcase_add_test(tc, test_events_measure_device_time);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(core_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
