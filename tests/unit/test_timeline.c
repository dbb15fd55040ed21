/*
 * test_timeline.c - the GPU attribution math (collector/timeline.c,
 * collector/aggregate.c) and the trace's GPU lanes (formats/
 * chrome_trace_gpu.c), on a hand-built run with hand-built CUPTI records:
 * derived calls, Self/Total CUDA, busy-time union, idle share, launch
 * latency, kernel and copy rows, flows.
 */
#include "tests/unit/test_model.h"
#include "model/timeline.h"
#include "model/names.h"
#include "model/quantile.h"
#include "formats/writer.h"
#include "formats/gpu_rows.h"

#include <check.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static const cuprof_api_desc APIS[] = {
    {"cublasLtMatmul", "cublaslt"},     /* 0 */
    {"__cudaLaunchKernel", "cuda_runtime"}, /* 1 */
    {"cudaMemcpyAsync", "cuda_runtime"},    /* 2 */
    {"cudaLaunchKernel", "cuda_runtime"},   /* 3 */
    {"cublasGemmEx", "cublas"},             /* 4 */
    {"cudaMalloc", "cuda_runtime"},         /* 5 */
};

enum { NEV = 6, TID = 100 };
static cuprof_event evs[NEV];
static const cuprof_event *chunk_list[1] = {evs};
static cuprof_run_thread threads[1];
static cuprof_run run;
static cuprof_gpu_api apis[9];
static cuprof_gpu_kernel kernels[4];
static cuprof_gpu_copy copies[3];
static cuprof_gpu_sync syncs[1];
static cuprof_gpu_run gpu;
static const char *knames[1] = {"(unknown kernel)"};

static uint64_t id_of(int i)
{
    return cuprof_event_id_make(1, (uint64_t)i);
}

static cuprof_gpu_api api(uint32_t corr, const char *name, uint64_t s, uint64_t e, uint64_t ext,
                          int launch)
{
    return (cuprof_gpu_api){.start_ns = s, .end_ns = e, .ext = ext, .corr = corr, .cbid = corr,
                            .name = name, .thread_id = TID,
                            .is_launch = (uint8_t)launch};
}

/* The kernels' launch configuration: [1] (kern's), after the all-0 [0]. */
static const cuprof_gpu_launch_cfg cfgs[2] = {
    {.grid = {0, 0, 0}}, {.grid = {4, 2, 1}, .block = {128, 1, 1}, .registers = 96, .static_smem = 1024, .dynamic_smem = 2048}};

static cuprof_gpu_kernel kern(uint32_t corr, uint64_t ext, const char *name, uint64_t s, uint64_t e)
{
    return (cuprof_gpu_kernel){.start_ns = s, .end_ns = e, .ext = ext, .corr = corr, .stream = 7,
                               .name = name, .cfg = 1};
}

/*
 * ev0 cublasLtMatmul [1000,2000]: inside it (CUPTI only) an occupancy query
 *     [1100,1150] and cudaLaunchKernel [1200,1300] (corr 11) -> K1 [1400,2400]
 * ev1 __cudaLaunchKernel [3000,3500] (its own record, corr 12) -> K2 [3500,4000]
 * ev2 cudaMemcpyAsync [4000,4600] (corr 13) -> HtoD copy [4200,4400], 2000 B
 * ev3 cublasGemmEx [5000,6000], with ev4, a hooked cudaMemcpyAsync [5100,5300]
 *     (corr 15) -> DtoD copy [5200,5300], 1000 B; and a derived
 *     cudaLaunchKernel [5400,5500] (corr 14) -> K3 [5600,5900]
 * ev5 cudaMalloc [7000,7100]; its own record has no ext (CUPTI started inside it)
 * unhooked: cudaGetDevice [500,600] (no ext), __cudaPushCallConfiguration
 * (left out); K4 [2000,2600] caused by nothing known.
 */
static void make_run(void)
{
    memset(evs, 0, sizeof evs);
    evs[0] = (cuprof_event){.t0 = 1000, .t1 = 2000, .api = 0, .cls = CUPROF_EV_BLAS};
    evs[1] = (cuprof_event){.t0 = 3000, .t1 = 3500, .api = 1, .cls = CUPROF_EV_LAUNCH};
    evs[2] = (cuprof_event){.t0 = 4000, .t1 = 4600, .api = 2, .cls = CUPROF_EV_COPY};
    evs[2].a.copy.bytes = 2000;
    evs[2].a.copy.dir = CUPROF_DIR_HTOD;
    evs[3] = (cuprof_event){.t0 = 5000, .t1 = 6000, .api = 4, .cls = CUPROF_EV_BLAS};
    evs[4] = (cuprof_event){.t0 = 5100, .t1 = 5300, .api = 2, .depth = 1, .cls = CUPROF_EV_COPY};
    evs[4].a.copy.bytes = 1000;
    evs[4].a.copy.dir = CUPROF_DIR_DTOD;
    evs[5] = (cuprof_event){.t0 = 7000, .t1 = 7100, .api = 5, .cls = CUPROF_EV_ALLOC};
    threads[0] = (cuprof_run_thread){.index = 1, .tid = TID, .n = NEV, .per_chunk = NEV,
                                     .chunks = chunk_list};

    apis[0] = api(10, "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 1100, 1150, id_of(0), 0);
    apis[1] = api(11, "cudaLaunchKernel", 1200, 1300, id_of(0), 1);
    apis[2] = api(12, "__cudaLaunchKernel", 3100, 3200, id_of(1), 1);
    apis[3] = api(13, "cudaMemcpyAsync", 4100, 4500, id_of(2), 0);
    apis[4] = api(14, "cudaLaunchKernel", 5400, 5500, id_of(3), 1);
    apis[5] = api(15, "cudaMemcpyAsync", 5150, 5250, id_of(4), 0);
    apis[6] = api(16, "cudaGetDevice", 500, 600, 0, 0);
    apis[7] = api(17, "__cudaPushCallConfiguration", 2900, 2950, 0, 0);
    apis[8] = api(18, "cudaMalloc", 7010, 7090, 0, 0);
    kernels[0] = kern(11, id_of(0), "gemm_a", 1400, 2400);
    kernels[1] = kern(12, id_of(1), "_Z8bias_addPfi", 3500, 4000);
    kernels[2] = kern(14, id_of(3), "gemm_a", 5600, 5900);
    kernels[3] = kern(99, 0, "other", 2000, 2600);
    copies[0] = (cuprof_gpu_copy){.start_ns = 4200, .end_ns = 4400, .bytes = 2000, .ext = id_of(2),
                                  .corr = 13, .stream = 7, .kind = CUPROF_GPU_COPY_HTOD,
                                  .src_mem = CUPROF_GPU_MEM_PAGEABLE, .dst_mem = CUPROF_GPU_MEM_DEVICE};
    copies[1] = (cuprof_gpu_copy){.start_ns = 5200, .end_ns = 5300, .bytes = 1000, .ext = id_of(4),
                                  .corr = 15, .stream = 7, .kind = CUPROF_GPU_COPY_DTOD};
    syncs[0] = (cuprof_gpu_sync){.start_ns = 4450, .end_ns = 4500, .corr = 13, .stream = 7,
                                 .event = CUPROF_GPU_NO_EVENT, .type = CUPROF_GPU_SYNC_STREAM};
    gpu = (cuprof_gpu_run){.captured = 1, .status = "CUPTI test", .kernels = kernels, .cfgs = cfgs, .n_cfgs = 2,
                           .n_kernels = 4, .copies = copies, .n_copies = 2, .apis = apis,
                           .n_apis = 9, .syncs = syncs, .n_syncs = 1, .dropped = 3};
    memset(&run, 0, sizeof run);
    run.program = "app";
    run.exe = "";
    run.pid = TID;
    run.clock = "CLOCK_MONOTONIC";
    run.napis = sizeof APIS / sizeof APIS[0];
    run.apis = APIS;
    run.kernel_names = knames;
    run.threads = threads;
    run.nthreads = 1;
    run.nevents = NEV;
    run.gpu.captured = 1;
    run.gpu.reason = "";
    run.gpu_run = &gpu;
}

static const cuprof_stat_api *row(const cuprof_summary *s, const char *name)
{
    for (size_t i = 0; i < s->napi; i++)
        if (!strcmp(s->api[i].name, name))
            return &s->api[i];
    ck_abort_msg("no row %s", name);
    return NULL;
}

START_TEST(interval_union)
{
    uint64_t iv[][2] = {{50, 60}, {10, 20}, {15, 30}, {30, 35}, {40, 40}, {70, 65}, {55, 58}};
    ck_assert_uint_eq(cuprof_interval_union(iv, 7), 25 + 10);
    ck_assert_uint_eq(cuprof_interval_union(iv, 0), 0);
    /* sorted already, and two sorted runs (kernels, then copies: merged) */
    uint64_t sorted[][2] = {{10, 20}, {15, 30}, {30, 35}, {50, 60}};
    ck_assert_uint_eq(cuprof_interval_union(sorted, 4), 25 + 10);
    uint64_t runs[][2] = {{10, 20}, {50, 60}, {90, 95}, {5, 12}, {55, 70}, {100, 101}};
    ck_assert_uint_eq(cuprof_interval_union(runs, 6), 15 + 20 + 5 + 1);
    for (size_t i = 1; i < 6; i++)
        ck_assert_uint_le(runs[i - 1][0], runs[i][0]);
}
END_TEST

/* cuprof_gpu_busy (a merge of the sorted kernels and copies, each clipped
 * to the window) against cuprof_interval_union of the clipped intervals:
 * random records, several windows, and the same records out of order (a
 * run filled by hand: the copy path). */
START_TEST(gpu_busy_is_the_clipped_union)
{
    enum { NK = 300, NC = 200 };
    static cuprof_gpu_kernel k[NK];
    static cuprof_gpu_copy c[NC];
    static uint64_t iv[NK + NC][2];
    srand(7);
    uint64_t t = 1000;
    for (size_t i = 0; i < NK; i++) {
        t += (uint64_t)(rand() % 50);
        k[i] = (cuprof_gpu_kernel){.start_ns = t, .end_ns = t + (uint64_t)(rand() % 120)};
    }
    t = 900;
    for (size_t i = 0; i < NC; i++) {
        t += (uint64_t)(rand() % 90);
        c[i] = (cuprof_gpu_copy){.start_ns = t, .end_ns = t + (uint64_t)(rand() % 60)};
    }
    cuprof_gpu_run g = {.kernels = k, .n_kernels = NK, .copies = c, .n_copies = NC};
    const uint64_t win[][2] = {{0, UINT64_MAX}, {2000, 9000}, {5000, 5100}, {0, 1000},
                               {20000, 30000}, {4321, 4321}};
    for (int shuffled = 0; shuffled < 2; shuffled++) {
        if (shuffled) {   /* out of order: reversed */
            for (size_t i = 0; i < NK / 2; i++) {
                cuprof_gpu_kernel x = k[i];
                k[i] = k[NK - 1 - i];
                k[NK - 1 - i] = x;
            }
        }
        for (size_t w = 0; w < sizeof win / sizeof win[0]; w++) {
            uint64_t lo = win[w][0], hi = win[w][1];
            size_t m = 0;
            for (size_t i = 0; i < NK + NC; i++) {
                uint64_t a = i < NK ? k[i].start_ns : c[i - NK].start_ns;
                uint64_t b = i < NK ? k[i].end_ns : c[i - NK].end_ns;
                iv[m][0] = a > lo ? a : lo;
                iv[m++][1] = b < hi ? b : hi;
            }
            uint64_t want = cuprof_interval_union(iv, m);
            ck_assert_uint_eq(cuprof_gpu_busy(&g, lo, hi), want);
            if (w == 1)
                ck_assert_uint_gt(want, 0);
        }
    }
    cuprof_gpu_run none = {0};
    ck_assert_uint_eq(cuprof_gpu_busy(&none, 0, UINT64_MAX), 0);
}
END_TEST

static int cmp_u64_test(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* cuprof_kth_u64 against a sort: duplicates, sorted and reversed input,
 * every k of small arrays and some of a large one. */
START_TEST(kth_u64_is_sorted_kth)
{
    enum { N = 5000 };
    uint64_t *v = malloc(N * sizeof *v), *w = malloc(N * sizeof *w), *s = malloc(N * sizeof *s);
    ck_assert_ptr_nonnull(v);
    ck_assert_ptr_nonnull(w);
    ck_assert_ptr_nonnull(s);
    uint64_t x = 88172645463325252ull;
    for (int shape = 0; shape < 4; shape++) {
        for (size_t i = 0; i < N; i++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            v[i] = shape == 0 ? x : shape == 1 ? x % 7 : shape == 2 ? i : N - i;
        }
        memcpy(s, v, N * sizeof *v);
        qsort(s, N, sizeof *s, cmp_u64_test);
        for (size_t n = 0; n <= 40; n++)
            for (size_t k = 0; k < n; k++) {
                memcpy(w, v, n * sizeof *v);
                uint64_t t[40];
                memcpy(t, v, n * sizeof *v);
                qsort(t, n, sizeof *t, cmp_u64_test);
                ck_assert_uint_eq(cuprof_kth_u64(w, n, k), t[k]);
            }
        for (size_t k = 0; k < N; k += 499) {
            memcpy(w, v, N * sizeof *v);
            ck_assert_uint_eq(cuprof_kth_u64(w, N, k), s[k]);
            for (size_t i = 0; i < N; i++)   /* partitioned around it */
                ck_assert(i < k ? w[i] <= w[k] : w[i] >= w[k]);
        }
    }
    ck_assert_uint_eq(cuprof_kth_u64(v, 3, 3), 0);
    free(v);
    free(w);
    free(s);
}
END_TEST

START_TEST(derived_calls)
{
    make_run();
    cuprof_timeline *tl = cuprof_timeline_build(&run);
    ck_assert_ptr_nonnull(tl);
    /* occupancy, launch (under ev0), launch (under ev3), cudaGetDevice */
    ck_assert_uint_eq(tl->nderived, 4);
    ck_assert_str_eq(tl->derived[0].rec->name, "cudaGetDevice");
    ck_assert_uint_eq(tl->derived[0].parent, 0);
    ck_assert_uint_eq(tl->derived[1].parent, id_of(0));
    ck_assert_uint_eq(tl->derived[1].depth, 1);
    ck_assert_uint_eq(tl->derived[3].parent, id_of(3));
    ck_assert_int_eq(tl->api_derived[2], -1);   /* __cudaLaunchKernel: the hook's own */
    ck_assert_int_eq(tl->api_derived[3], -1);
    ck_assert_int_eq(tl->api_derived[7], -2);   /* __cudaPushCallConfiguration: left out */
    ck_assert_int_eq(tl->api_derived[8], -1);   /* enclosed by the hooked cudaMalloc */
    cuprof_cause c = cuprof_timeline_cause(tl, 11, id_of(0));
    ck_assert_int_eq(c.derived, 2);
    ck_assert_uint_eq(c.hooked, id_of(0));
    c = cuprof_timeline_cause(tl, 12, id_of(1));
    ck_assert_int_eq(c.derived, -1);
    ck_assert_uint_eq(c.hooked, id_of(1));
    cuprof_timeline_destroy(tl);
}
END_TEST

/* Top-level runtime calls push no external id (collector/buffers.c): each
 * launch's CUPTI record (named cudaLaunchKernel, as the real CUPTI reports
 * <<<>>>) is matched to the hooked __cudaLaunchKernel around it by thread and
 * time, with the clocks a little apart, and its kernel charged to that call. */
START_TEST(launch_without_ext)
{
    make_run();
    memset(evs, 0, sizeof evs);
    for (int i = 0; i < 3; i++)   /* back to back, 10 ns apart */
        evs[i] = (cuprof_event){.t0 = 100 + 110 * (uint64_t)i, .t1 = 200 + 110 * (uint64_t)i,
                                .api = 1, .cls = CUPROF_EV_LAUNCH};
    threads[0].n = 3;
    run.nevents = 3;
    /* records skewed against the hooks by up to 40 ns either way */
    apis[0] = api(21, "cudaLaunchKernel", 95, 190, 0, 1);
    apis[1] = api(22, "cudaLaunchKernel", 215, 330, 0, 1);   /* ends past its hook */
    apis[2] = api(23, "cudaLaunchKernel", 290, 415, 0, 1);   /* starts before its hook */
    for (int i = 0; i < 3; i++)
        kernels[i] = kern(21 + (uint32_t)i, 0, "_Z1kv", 1000 + 1000 * (uint64_t)i,
                          1100 + 1000 * (uint64_t)i + 100 * (uint64_t)i);
    gpu.n_apis = 3;
    gpu.n_kernels = 3;
    gpu.n_copies = 0;
    gpu.n_syncs = 0;
    cuprof_timeline *tl = cuprof_timeline_build(&run);
    ck_assert_ptr_nonnull(tl);
    ck_assert_uint_eq(tl->nderived, 0);   /* no second "cudaLaunchKernel" call */
    for (int i = 0; i < 3; i++) {
        cuprof_cause c = cuprof_timeline_cause(tl, 21 + (uint32_t)i, 0);
        ck_assert_int_eq(c.derived, -1);
        ck_assert_msg(c.hooked == id_of(i), "record %d matched %llx", i,
                      (unsigned long long)c.hooked);
    }
    cuprof_timeline_destroy(tl);
    cuprof_summary *s = test_summary_build(&run);
    const cuprof_stat_api *hl = row(s, "__cudaLaunchKernel");
    ck_assert_uint_eq(hl->calls, 3);
    ck_assert_uint_eq(hl->cuda_self_ns, 100 + 200 + 300);
    for (size_t i = 0; i < s->napi; i++)
        ck_assert_msg(strcmp(s->api[i].name, "cudaLaunchKernel") != 0 || s->api[i].calls == 0,
                      "the launches' records became calls of their own");
    test_summary_destroy(s);
}
END_TEST

START_TEST(self_and_total_cuda)
{
    make_run();
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    const cuprof_stat_api *lt = row(s, "cublasLtMatmul");
    ck_assert_uint_eq(lt->cpu_total_ns, 1000);
    ck_assert_uint_eq(lt->cpu_self_ns, 1000 - 50 - 100);   /* derived children */
    ck_assert_uint_eq(lt->cuda_self_ns, 0);
    ck_assert_uint_eq(lt->cuda_total_ns, 1000);            /* K1, via its launch */
    const cuprof_stat_api *lk = row(s, "cudaLaunchKernel");
    ck_assert_uint_eq(lk->calls, 2);                       /* both from inside cuBLAS */
    ck_assert_uint_eq(lk->cpu_total_ns, 200);
    ck_assert_uint_eq(lk->cuda_self_ns, 1000 + 300);
    ck_assert_uint_eq(lk->cuda_total_ns, 1300);
    const cuprof_stat_api *occ = row(s, "cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags");
    ck_assert_uint_eq(occ->calls, 1);
    ck_assert_uint_eq(occ->api, UINT16_MAX);               /* not in the hook table */
    ck_assert_str_eq(occ->category, "cuda_runtime");
    const cuprof_stat_api *hl = row(s, "__cudaLaunchKernel");
    ck_assert_uint_eq(hl->calls, 1);                       /* its record is not a second call */
    ck_assert_uint_eq(hl->cuda_self_ns, 500);
    ck_assert_uint_eq(hl->cuda_total_ns, 500);
    const cuprof_stat_api *mc = row(s, "cudaMemcpyAsync");
    ck_assert_uint_eq(mc->calls, 2);
    ck_assert_uint_eq(mc->cuda_self_ns, 300);
    ck_assert_uint_eq(mc->cuda_total_ns, 300);
    const cuprof_stat_api *gx = row(s, "cublasGemmEx");
    ck_assert_uint_eq(gx->cpu_self_ns, 1000 - 200 - 100);  /* hooked and derived child */
    ck_assert_uint_eq(gx->cuda_self_ns, 0);
    ck_assert_uint_eq(gx->cuda_total_ns, 100 + 300);       /* its copy and its kernel */
    ck_assert_uint_eq(row(s, "cudaMalloc")->calls, 1);
    ck_assert_uint_eq(row(s, "cudaGetDevice")->calls, 1);
    for (size_t i = 0; i < s->napi; i++)
        ck_assert_msg(strcmp(s->api[i].name, "__cudaPushCallConfiguration") != 0, "left out");
    /* Self CUDA sums to the attributed device time; K4 (no cause) is in no row. */
    ck_assert_uint_eq(s->self_cuda_total_ns, 1300 + 500 + 300);
    ck_assert_int_eq(s->sorted_by_cuda, 1);
    ck_assert_str_eq(s->api[0].name, "cudaLaunchKernel");   /* most CUDA total first */
    test_summary_destroy(s);
}
END_TEST

START_TEST(busy_idle_latency)
{
    make_run();
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    const cuprof_gpu_stats *st = &test_model_of(s)->timeline->stats;
    /* [1400,2600] (K1 and K4 overlap) + K2 500 + 200 + 100 + K3 300 */
    ck_assert_uint_eq(st->busy_ns, 1200 + 500 + 200 + 100 + 300);
    /* first kernel launch call (1200) to the last kernel end (5900) */
    ck_assert_uint_eq(st->window_start_ns, 1200);
    ck_assert_uint_eq(st->window_end_ns, 5900);
    ck_assert_uint_eq(st->busy_window_ns, 2300);
    ck_assert_double_eq_tol(st->idle_share, 1.0 - 2300.0 / 4700.0, 1e-9);
    /* K1 1400-1200, K2 3500-3100, K3 5600-5400; K4 has no launching call */
    ck_assert_uint_eq(st->latency_count, 3);
    ck_assert_uint_eq(st->latency_median_ns, 200);
    ck_assert_uint_eq(st->latency_max_ns, 400);
    test_summary_destroy(s);
}
END_TEST

START_TEST(kernel_and_copy_rows)
{
    make_run();
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->nkernels, 3);
    ck_assert_str_eq(s->kernels[0].name, "gemm_a");
    ck_assert_uint_eq(s->kernels[0].launches, 2);
    ck_assert_uint_eq(s->kernels[0].gpu_total_ns, 1300);
    ck_assert_uint_eq(s->kernels[0].min_ns, 300);
    ck_assert_uint_eq(s->kernels[0].median_ns, 650);
    ck_assert_uint_eq(s->kernels[0].max_ns, 1000);
    ck_assert_str_eq(s->kernels[1].name, "other");
    ck_assert_str_eq(s->kernels[2].name, "bias_add(float*, int)");   /* demangled */
    ck_assert_uint_eq(s->ncopies, 2);
    ck_assert_str_eq(s->copies[0].kind, "HtoD");
    ck_assert_uint_eq(s->copies[0].calls, 1);
    ck_assert_uint_eq(s->copies[0].gpu_copies, 1);
    ck_assert_uint_eq(s->copies[0].gpu_bytes, 2000);
    ck_assert_uint_eq(s->copies[0].gpu_total_ns, 200);
    ck_assert_double_eq_tol(s->copies[0].gb_per_s, 10.0, 1e-9);
    ck_assert_str_eq(s->copies[1].kind, "DtoD");
    ck_assert_uint_eq(s->copies[1].gpu_total_ns, 100);
    test_summary_destroy(s);
}
END_TEST

/* Writes one format of the run into memory and parses it. */
static json_t *write_json(const cuprof_writer_ops *ops, cuprof_summary *s)
{
    cuprof_out o;
    ck_assert_int_eq(cuprof_out_open_mem(&o), 0);
    ck_assert_int_eq(cuprof_writer_run(ops, &o, test_model_of(s)), 0);
    ck_assert_int_eq(cuprof_out_commit(&o), 0);
    json_error_t err;
    json_t *j = json_loads(o.buf, 0, &err);
    ck_assert_msg(j != NULL, "invalid JSON: %s\n%s", err.text, o.buf);
    cuprof_out_discard(&o);
    return j;
}

static json_t *find_ev(json_t *evs_, const char *ph, const char *name, json_int_t id)
{
    size_t i;
    json_t *e;
    json_array_foreach(evs_, i, e) {
        if (strcmp(json_string_value(json_object_get(e, "ph")), ph) != 0)
            continue;
        if (name && (!json_object_get(e, "name") ||
                     strcmp(json_string_value(json_object_get(e, "name")), name) != 0))
            continue;
        if (id >= 0 && json_integer_value(json_object_get(e, "id")) != id)
            continue;
        return e;
    }
    return NULL;
}

/* A dim3 argument of the trace: [x, y, z] as a JSON array of 3 integers. */
static int dim3_is(json_t *a, long long x, long long y, long long z)
{
    return json_is_array(a) && json_array_size(a) == 3 &&
           json_is_integer(json_array_get(a, 0)) && json_integer_value(json_array_get(a, 0)) == x &&
           json_is_integer(json_array_get(a, 1)) && json_integer_value(json_array_get(a, 1)) == y &&
           json_is_integer(json_array_get(a, 2)) && json_integer_value(json_array_get(a, 2)) == z;
}

START_TEST(trace_gpu_lanes_and_flows)
{
    make_run();
    cuprof_summary *s = test_summary_build(&run);
    json_t *j = write_json(&cuprof_chrome_trace_ops, s);
    json_t *te = json_object_get(j, "traceEvents");
    /* the derived launch: nested by time under cublasLtMatmul, source cupti */
    json_t *lt = find_ev(te, "X", "cublasLtMatmul", -1);
    json_t *lk = find_ev(te, "X", "cudaLaunchKernel", -1);
    ck_assert_ptr_nonnull(lt);
    ck_assert_ptr_nonnull(lk);
    ck_assert_str_eq(json_string_value(json_object_get(lk, "cat")), "cuda_runtime");
    ck_assert_str_eq(json_string_value(json_object_get(json_object_get(lk, "args"), "source")), "cupti");
    ck_assert_int_eq(json_integer_value(json_object_get(lk, "tid")), TID);
    double lts = json_number_value(json_object_get(lt, "ts")), ltd = json_number_value(json_object_get(lt, "dur"));
    double lks = json_number_value(json_object_get(lk, "ts")), lkd = json_number_value(json_object_get(lk, "dur"));
    ck_assert(lts <= lks && lks + lkd <= lts + ltd);
    /* the kernel on GPU 0 / stream 7, with its arguments */
    json_t *k = find_ev(te, "X", "gemm_a", -1);
    ck_assert_ptr_nonnull(k);
    ck_assert_int_eq(json_integer_value(json_object_get(k, "pid")), (1ll << 30));
    ck_assert_int_eq(json_integer_value(json_object_get(k, "tid")), 7);
    json_t *ka = json_object_get(k, "args");
    ck_assert(dim3_is(json_object_get(ka, "grid"), 4, 2, 1));
    ck_assert(dim3_is(json_object_get(ka, "block"), 128, 1, 1));
    ck_assert_int_eq(json_integer_value(json_object_get(ka, "registers per thread")), 96);
    ck_assert_int_eq(json_integer_value(json_object_get(ka, "correlation")), 11);
    /* the arrow: s inside the launch, f on the kernel */
    json_t *fs = find_ev(te, "s", NULL, 11), *ff = find_ev(te, "f", NULL, 11);
    ck_assert_ptr_nonnull(fs);
    ck_assert_ptr_nonnull(ff);
    ck_assert_str_eq(json_string_value(json_object_get(fs, "cat")), "ac2g");
    ck_assert_str_eq(json_string_value(json_object_get(ff, "bp")), "e");
    double fts = json_number_value(json_object_get(fs, "ts"));
    ck_assert(lks <= fts && fts <= lks + lkd);
    ck_assert_double_eq_tol(json_number_value(json_object_get(ff, "ts")), 1.4, 1e-9);
    ck_assert_int_eq(json_integer_value(json_object_get(ff, "tid")), 7);
    ck_assert_ptr_nonnull(find_ev(te, "f", NULL, 13));     /* copies get arrows too */
    ck_assert_ptr_null(find_ev(te, "s", NULL, 99));        /* no launching call known */
    /* K1 and K4 overlap on stream 7: K4 goes to the overlap row, whose tid
     * fits in 32 bits (viewers keep 32: 7 + 2^32 landed on stream 7's row),
     * counted down from INT32_MAX: 2^31 - 1 - (stream * 16 + row) */
    json_t *other = find_ev(te, "X", "other", -1);
    ck_assert_int_eq(json_integer_value(json_object_get(other, "tid")), 2147483647ll - (7 * 16 + 1));
    int named = 0;
    size_t i;
    json_t *e;
    json_array_foreach(te, i, e) {
        const char *n = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
        named += n && (!strcmp(n, "stream 7") || !strcmp(n, "stream 7 (overlap)") || !strcmp(n, "GPU 0"));
    }
    ck_assert_int_eq(named, 3);
    ck_assert_ptr_nonnull(find_ev(te, "X", "stream sync", -1));
    json_decref(j);

    j = write_json(&cuprof_summary_json_ops, s);
    json_t *g = json_object_get(j, "gpu");
    ck_assert_int_eq(json_integer_value(json_object_get(g, "busy_ns")), 2300);
    ck_assert_double_eq_tol(json_number_value(json_object_get(g, "idle_share")), 1.0 - 2300.0 / 4700.0, 1e-6);
    ck_assert_int_eq(json_integer_value(json_object_get(g, "launch_latency_median_ns")), 200);
    ck_assert_int_eq(json_integer_value(json_object_get(g, "launch_latency_max_ns")), 400);
    ck_assert_int_eq(json_integer_value(json_object_get(g, "dropped_records")), 3);
    ck_assert_str_eq(json_string_value(json_object_get(g, "status")), "CUPTI test");
    json_decref(j);
    test_summary_destroy(s);
}
END_TEST

/* A record that touches the next on its row is drawn 1 ns shorter, one that
 * overlaps the one before by rounding (<= 50 ns) 1 ns after it; both carry
 * CUPTI's own times (recorded_start_ns from the base, recorded_dur_ns),
 * which prof.sh export reads. */
START_TEST(trace_rows_keep_recorded_times)
{
    make_run();
    kernels[1].end_ns = 4200;     /* K2 [3500,4200] touches the HtoD copy at 4200 */
    kernels[2].start_ns = 5290;   /* K3 starts 10 ns before the DtoD copy ends */
    cuprof_summary *s = test_summary_build(&run);
    json_t *j = write_json(&cuprof_chrome_trace_ops, s);
    json_t *te = json_object_get(j, "traceEvents");
    json_int_t base = json_integer_value(json_object_get(j, "baseTimeNanoseconds"));
    json_t *k2 = find_ev(te, "X", "bias_add(float*, int)", -1), *k3 = NULL, *e;
    size_t i;
    json_array_foreach(te, i, e)   /* the second gemm_a: K3 */
        if (!strcmp(json_string_value(json_object_get(e, "name")), "gemm_a") &&
            json_number_value(json_object_get(e, "ts")) > 5.0 - (double)base / 1000.0)
            k3 = e;
    ck_assert_ptr_nonnull(k2);
    ck_assert_ptr_nonnull(k3);
    json_t *a2 = json_object_get(k2, "args"), *a3 = json_object_get(k3, "args");
    ck_assert_double_eq_tol(json_number_value(json_object_get(k2, "dur")), 0.699, 1e-9);
    ck_assert_int_eq(json_integer_value(json_object_get(a2, "recorded_dur_ns")), 700);
    ck_assert_int_eq(json_integer_value(json_object_get(a2, "recorded_start_ns")) + base, 3500);
    ck_assert_double_eq_tol(json_number_value(json_object_get(k3, "ts")) * 1000.0 + (double)base,
                            5301.0, 1e-6);
    ck_assert_int_eq(json_integer_value(json_object_get(a3, "recorded_start_ns")) + base, 5290);
    ck_assert_int_eq(json_integer_value(json_object_get(a3, "recorded_dur_ns")), 610);
    ck_assert_int_eq(json_integer_value(json_object_get(k3, "tid")), 7);   /* its own row */
    /* a record drawn where CUPTI put it carries none */
    json_t *k1 = find_ev(te, "X", "gemm_a", -1);
    ck_assert_ptr_null(json_object_get(json_object_get(k1, "args"), "recorded_dur_ns"));
    json_decref(j);
    test_summary_destroy(s);
}
END_TEST

/* formats/gpu_rows.h on its own: sorted by device, stream and start; an
 * overlap of at most CUPROF_GPU_JITTER_NS moves the start 1 ns past the
 * row's end (the 16-byte ref keeps the move), a longer one opens a row;
 * touching records part by 1 ns; a record whose end is before its start
 * stays as recorded; copies share their stream's rows; rows_sort then
 * orders by row. */
static int by_row(const cuprof_gpu_row_item *x, const cuprof_gpu_row_item *y)
{
    if (x->device != y->device) return x->device < y->device ? -1 : 1;
    if (x->stream != y->stream) return x->stream < y->stream ? -1 : 1;
    if (x->sub != y->sub) return x->sub < y->sub ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

START_TEST(rows_of_records)
{
    /* (start, end, stream), listed out of order */
    static const uint64_t kt[][3] = {{600, 900, 1}, {150, 300, 1}, {100, 200, 1},
                                     {2000, 1500, 2}, {300, 400, 1}, {350, 500, 1},
                                     {700, 800, 1}, {2010, 2100, 2}, {100, 200, 3}, {190, 195, 3}};
    cuprof_gpu_kernel k[10];
    memset(k, 0, sizeof k);
    for (int i = 0; i < 10; i++) {
        k[i].start_ns = kt[i][0];
        k[i].end_ns = kt[i][1];
        k[i].stream = (uint32_t)kt[i][2];
        k[i].name = "k";
    }
    cuprof_gpu_copy c[1];
    memset(c, 0, sizeof c);
    c[0].start_ns = 1000;
    c[0].end_ns = 1100;
    c[0].stream = 1;
    cuprof_gpu_run g;
    memset(&g, 0, sizeof g);
    g.kernels = k;
    g.n_kernels = 10;
    g.copies = c;
    g.n_copies = 1;
    cuprof_gpu_rows rows;
    ck_assert_int_eq(cuprof_gpu_rows_make(&g, &rows), 0);
    ck_assert_uint_eq(rows.n, 11);
    /* shown (start, end, sub, is_copy, idx) in the rows' order */
    static const uint64_t want[][5] = {
        {100, 200, 0, 0, 2},  {201, 299, 0, 0, 1},   /* moved past 200; parted from 300 */
        {300, 400, 0, 0, 4},  {401, 500, 0, 0, 5},   /* moved 51 */
        {600, 900, 0, 0, 0},  {700, 800, 1, 0, 6},   /* 200 ns over: a row of its own */
        {1000, 1100, 0, 1, 0},
        {2000, 1500, 0, 0, 3}, {2010, 2100, 0, 0, 7},
        {100, 200, 0, 0, 8},  {201, 201, 0, 0, 9}};   /* moved past its own end: ends there */
    for (size_t i = 0; i < rows.n; i++) {
        cuprof_gpu_row_item x = cuprof_gpu_rows_at(&rows, i);
        ck_assert_msg(x.start == want[i][0] && x.end == want[i][1] && x.sub == want[i][2] &&
                          x.is_copy == want[i][3] && x.idx == want[i][4],
                      "row item %zu: [%llu, %llu] sub %u copy %u idx %u", i,
                      (unsigned long long)x.start, (unsigned long long)x.end, x.sub, x.is_copy,
                      x.idx);
        ck_assert_uint_eq(x.stream, i < 7 ? 1 : i < 9 ? 2 : 3);
    }
    ck_assert_uint_eq(rows.r[3].moved, 51);
    /* a ref's view comes from its value alone (a sort compares copies) */
    cuprof_gpu_row_ref copy = rows.r[1];
    cuprof_gpu_row_item v = cuprof_gpu_row_of(&g, &copy), w = cuprof_gpu_rows_at(&rows, 1);
    ck_assert(v.start == w.start && v.end == w.end && v.idx == w.idx && v.sub == w.sub);
    cuprof_gpu_rows_sort(&rows, by_row);
    static const uint32_t order[] = {2, 1, 4, 5, 0, 0, 6, 3, 7, 8, 9};   /* the copy before row 1 */
    for (size_t i = 0; i < rows.n; i++) {
        cuprof_gpu_row_item x = cuprof_gpu_rows_at(&rows, i);
        ck_assert_msg(x.idx == order[i] && x.is_copy == (i == 5), "by row %zu: idx %u", i, x.idx);
    }
    cuprof_gpu_rows_free(&rows);
}
END_TEST

START_TEST(no_gpu_run)
{
    make_run();
    run.gpu_run = NULL;
    run.gpu.captured = 0;
    run.gpu.reason = "CUPTI: test reason";
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(test_model_of(s)->timeline->nderived, 0);
    ck_assert_uint_eq(s->self_cuda_total_ns, 0);
    ck_assert_uint_eq(row(s, "cublasLtMatmul")->cpu_self_ns, 1000);
    json_t *j = write_json(&cuprof_summary_json_ops, s);
    json_t *g = json_object_get(j, "gpu");
    ck_assert(json_is_false(json_object_get(g, "captured")));
    ck_assert_str_eq(json_string_value(json_object_get(g, "status")), "CUPTI: test reason");
    ck_assert_ptr_null(json_object_get(g, "busy_ns"));
    json_decref(j);
    test_summary_destroy(s);
}
END_TEST

/* Without kernel records, the kernel rows count launch calls: a launch
 * that returned an error (an invalid configuration) queued nothing and is
 * no launch of its kernel. */
START_TEST(failed_launch_is_no_kernel)
{
    make_run();
    run.gpu_run = NULL;
    run.gpu.captured = 0;
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->nkernels, 1);
    ck_assert_uint_eq(s->kernels[0].launches, 1);
    test_summary_destroy(s);
    make_run();
    run.gpu_run = NULL;
    run.gpu.captured = 0;
    evs[1].result = 9; /* cudaErrorInvalidConfiguration */
    s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    ck_assert_uint_eq(s->nkernels, 0);
    ck_assert_uint_eq(row(s, "__cudaLaunchKernel")->calls, 1); /* the call stays a call */
    test_summary_destroy(s);
}
END_TEST

/* A record joins at most one hooked call, and a hooked call at most one
 * record: a launch made right after two recorded ones (within the clocks'
 * tolerance of the second, but not recorded: a capture window had closed)
 * is no second record of the second call. Through a window that closed
 * between them, that launch and its kernel go, even where the clocks put
 * the record a little inside the window: its API is hooked, so had it been
 * made inside, its call would have been recorded. */
START_TEST(record_joins_one_call)
{
    static const uint64_t win[1][2] = {{50, 330}};
    make_run();
    memset(evs, 0, sizeof evs);
    for (int i = 0; i < 2; i++)
        evs[i] = (cuprof_event){.t0 = 100 + 110 * (uint64_t)i, .t1 = 200 + 110 * (uint64_t)i,
                                .api = 1, .cls = CUPROF_EV_LAUNCH};
    threads[0].n = 2;
    run.nevents = 2;
    apis[0] = api(21, "cudaLaunchKernel", 105, 195, 0, 1);
    apis[1] = api(22, "cudaLaunchKernel", 215, 305, 0, 1);
    apis[2] = api(23, "cudaLaunchKernel", 325, 420, 0, 1);   /* not recorded */
    for (int i = 0; i < 3; i++)
        kernels[i] = kern(21 + (uint32_t)i, 0, "_Z1kv", 1000 + 1000 * (uint64_t)i,
                          1100 + 1000 * (uint64_t)i);
    gpu.n_apis = 3;
    gpu.n_kernels = 3;
    gpu.n_copies = 0;
    gpu.n_syncs = 0;
    cuprof_timeline *tl = cuprof_timeline_build(&run);
    ck_assert_ptr_nonnull(tl);
    for (int i = 0; i < 2; i++)
        ck_assert_uint_eq(cuprof_timeline_cause(tl, 21 + (uint32_t)i, 0).hooked, id_of(i));
    ck_assert_uint_eq(tl->api_hooked[2], 0);
    ck_assert_uint_eq(cuprof_timeline_cause(tl, 23, 0).hooked, 0);
    cuprof_timeline_destroy(tl);
    run.capture = (cuprof_capture){.trigger = "test", .spec = "test", .repeat = 1, .seen = 1,
                                   .opened = 1, .nwindows = 1, .windows = win};
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    const cuprof_gpu_run *g = test_model_of(s)->gpu;
    ck_assert_uint_eq(g->n_apis, 2);
    ck_assert_uint_eq(g->n_kernels, 2);
    for (size_t i = 0; i < g->n_kernels; i++)
        ck_assert_uint_ne(g->kernels[i].corr, 23);
    test_summary_destroy(s);
}
END_TEST

/* A kernels-only run (no API records, no external ids): model/kmatch.h.
 * ev0, ev1 cublasGemmEx [10000,20000] and [21000,30000] with no other call
 * between them; ev2 <<<bias_add>>> [31000,32000]; ev3 a 256-byte memset
 * [33000,34000]; ev4 <<<bias_add>>> [35000,36000] captured into a graph
 * (a graph node's origin: it ran nothing). Records: two GEMM kernels (corr
 * 10, 11) shared out to the two GEMM calls in order; bias_add (corr 12)
 * to ev2; a bias_add that began (20500) before any call of it (corr 3: a
 * launch not recorded), to nothing, not to a cuBLAS call; the memset to
 * ev3; a graph replay's memset to nothing; a copy no hooked call made
 * (between the GEMMs) to nothing. */
START_TEST(kernels_only_matched_by_kind_and_order)
{
    static const char *names2[2] = {"(unknown kernel)", "_Z8bias_addPfi"};
    static cuprof_gpu_graph_node node = {.id = 1, .graph = 1};
    make_run();
    memset(evs, 0, sizeof evs);
    evs[0] = (cuprof_event){.t0 = 10000, .t1 = 20000, .api = 4, .cls = CUPROF_EV_BLAS};
    evs[0].a.blas.m = evs[0].a.blas.n = evs[0].a.blas.k = 64;
    evs[1] = (cuprof_event){.t0 = 21000, .t1 = 30000, .api = 4, .cls = CUPROF_EV_BLAS};
    evs[1].a.blas.m = evs[1].a.blas.n = evs[1].a.blas.k = 64;   /* a GEMM: holds no copy */
    evs[2] = (cuprof_event){.t0 = 31000, .t1 = 32000, .api = 1, .cls = CUPROF_EV_LAUNCH};
    evs[2].a.launch.kernel = 1;
    evs[3] = (cuprof_event){.t0 = 33000, .t1 = 34000, .api = 2, .cls = CUPROF_EV_MEMSET};
    evs[3].a.copy.bytes = 256;
    evs[4] = (cuprof_event){.t0 = 35000, .t1 = 36000, .api = 1, .cls = CUPROF_EV_LAUNCH};
    evs[4].a.launch.kernel = 1;
    threads[0].n = 5;
    run.nevents = 5;
    run.nkernels = 1;
    run.kernel_names = names2;
    node.origin = id_of(4);
    kernels[0] = kern(10, 0, "gemm_a", 25000, 26000);
    kernels[1] = kern(11, 0, "gemm_a", 30500, 31000);
    /* the records' name: the same string at another address, as CUPTI's
     * records hold their own copy */
    static char rec_name[] = "_Z8bias_addPfi";
    kernels[2] = kern(12, 0, rec_name, 32500, 33000);
    kernels[3] = kern(3, 0, rec_name, 20500, 20900);
    copies[0] = (cuprof_gpu_copy){.start_ns = 34500, .end_ns = 34600, .bytes = 256, .corr = 13,
                                  .stream = 7, .kind = CUPROF_GPU_COPY_MEMSET};
    copies[1] = (cuprof_gpu_copy){.start_ns = 40000, .end_ns = 40100, .bytes = 256, .corr = 14,
                                  .stream = 7, .kind = CUPROF_GPU_COPY_MEMSET, .graph_id = 1,
                                  .graph_node_id = 1};
    /* a copy no hooked call made (cublasGetMatrix's), between the GEMMs */
    copies[2] = (cuprof_gpu_copy){.start_ns = 26500, .end_ns = 26600, .bytes = 4096, .corr = 9,
                                  .stream = 7, .kind = CUPROF_GPU_COPY_DTOH};
    gpu.kernels_only = 1;
    gpu.n_apis = 0;
    gpu.n_syncs = 0;
    gpu.n_kernels = 4;
    gpu.n_copies = 3;
    gpu.graph_nodes = &node;
    gpu.n_graph_nodes = 1;
    cuprof_timeline *tl = cuprof_timeline_build(&run);
    ck_assert_ptr_nonnull(tl);
    ck_assert_uint_eq(tl->kernel_hooked[0], id_of(0));
    ck_assert_uint_eq(tl->kernel_hooked[1], id_of(1));
    ck_assert_uint_eq(tl->kernel_hooked[2], id_of(2));
    ck_assert_uint_eq(tl->kernel_hooked[3], 0);
    ck_assert_uint_eq(tl->copy_hooked[0], id_of(3));
    ck_assert_uint_eq(tl->copy_hooked[1], 0);
    ck_assert_uint_eq(tl->copy_hooked[2], 0);   /* not charged to a GEMM */
    cuprof_timeline_destroy(tl);
    /* the same records with the API records' mode: nothing to go by */
    gpu.kernels_only = 0;
    tl = cuprof_timeline_build(&run);
    ck_assert_ptr_nonnull(tl);
    for (size_t i = 0; i < 4; i++)
        ck_assert_uint_eq(tl->kernel_hooked[i], 0);
    cuprof_timeline_destroy(tl);
    gpu.graph_nodes = NULL;
    gpu.n_graph_nodes = 0;
}
END_TEST

/* Through capture windows [900, 2100) and [4900, 6100): the records of
 * recorded calls stay, those of calls made outside the windows go, with
 * the device work they caused. ev1 is made a cudaMalloc and the
 * __cudaLaunchKernel record (corr 12, at 3100) loses its ext: a call no
 * hook recorded, a launch made outside the windows. */
START_TEST(capture_clip_keeps_the_windows_calls)
{
    static const uint64_t win[2][2] = {{900, 2100}, {4900, 6100}};
    make_run();
    evs[1].api = 5;
    apis[2].ext = 0;      /* no hooked call was open around it */
    kernels[1].ext = 0;
    run.capture = (cuprof_capture){.trigger = "test", .spec = "test", .repeat = 2, .seen = 2,
                                   .opened = 2, .nwindows = 2, .windows = win};
    ck_assert(cuprof_capture_contains(&run.capture, 900));
    ck_assert(!cuprof_capture_contains(&run.capture, 2100));
    ck_assert(cuprof_capture_contains(&run.capture, 6000));
    ck_assert(!cuprof_capture_contains(&run.capture, 3000));
    ck_assert_uint_eq(cuprof_capture_recorded_ns(&run.capture), 2400);
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    const cuprof_gpu_run *g = test_model_of(s)->gpu;
    /* kept: the recorded calls' records (ext, or matched by name and time:
     * cudaMalloc at 7010 is ev5's, outside the windows but recorded), and
     * K4, caused by nothing known, which began inside a window */
    ck_assert_uint_eq(g->n_apis, 6);
    for (size_t i = 0; i < g->n_apis; i++) {
        ck_assert_uint_ne(g->apis[i].corr, 12);   /* the gated launch */
        ck_assert_uint_ne(g->apis[i].corr, 16);   /* cudaGetDevice at 500 */
        ck_assert_uint_ne(g->apis[i].corr, 17);   /* at 2900 */
    }
    ck_assert_uint_eq(g->n_kernels, 3);
    for (size_t i = 0; i < g->n_kernels; i++)
        ck_assert_uint_ne(g->kernels[i].corr, 12);   /* K2, the gated launch's kernel */
    ck_assert_uint_eq(g->n_copies, 2);
    ck_assert_uint_eq(g->n_syncs, 1);
    /* the run the model reads is the clipped one; the recorded run is untouched */
    ck_assert_ptr_eq(test_model_of(s)->run->gpu_run, g);
    ck_assert_uint_eq(gpu.n_kernels, 4);
    /* and the same run with K4 outside the windows loses it too */
    test_summary_destroy(s);
    kernels[3].start_ns = 2200;
    kernels[3].end_ns = 2600;
    s = test_summary_build(&run);
    ck_assert_uint_eq(test_model_of(s)->gpu->n_kernels, 2);
    test_summary_destroy(s);
}
END_TEST

/* A run past a lowered exact bound (model/quantile.h): NQ launches whose
 * durations, kernels and launch latencies all vary; the rows are flagged
 * sketched, their medians within the sketch's error of the exact ones (the
 * same run under the default bound), min and max exact; the writers say so. */
enum { NQ = 20001, QBOUND = 1000 };

static uint64_t q_median_of(uint64_t *v, size_t n)
{
    return cuprof_median_u64(v, n);
}

static void assert_within(uint64_t got, uint64_t want)
{
    double d = got > want ? (double)(got - want) : (double)(want - got);
    ck_assert_msg(d <= (double)want * 0.01, "got %llu, want %llu", (unsigned long long)got,
                  (unsigned long long)want);
}

START_TEST(medians_past_the_bound_are_sketched)
{
    cuprof_event *qev = calloc(NQ, sizeof *qev);
    const cuprof_event *qchunks[1] = {qev};
    cuprof_gpu_kernel *qk = calloc(NQ, sizeof *qk);
    uint64_t *cpu = malloc(NQ * sizeof *cpu), *dev = malloc(NQ * sizeof *dev), *lat = malloc(NQ * sizeof *lat);
    ck_assert(qev && qk && cpu && dev && lat);
    for (uint64_t i = 0; i < NQ; i++) {
        uint64_t t0 = 1000 + i * 100000;   /* 0 would be "no call start" */
        cpu[i] = 2000 + (i * 7919) % 40000;
        lat[i] = 500 + (i * 104729) % 9000;
        dev[i] = 1000 + (i * 15485863) % 30000;
        qev[i] = (cuprof_event){.t0 = t0, .t1 = t0 + cpu[i], .api = 1, .cls = CUPROF_EV_LAUNCH};
        qk[i] = kern((uint32_t)(1000 + i), id_of((int)i), "gemm_q", t0 + lat[i], t0 + lat[i] + dev[i]);
    }
    make_run();
    threads[0] = (cuprof_run_thread){.index = 1, .tid = TID, .n = NQ, .per_chunk = NQ, .chunks = qchunks};
    run.nevents = NQ;
    gpu = (cuprof_gpu_run){.captured = 1, .status = "CUPTI test", .kernels = qk, .n_kernels = NQ};
    uint64_t want_cpu = q_median_of(cpu, NQ), want_dev = q_median_of(dev, NQ), want_lat = q_median_of(lat, NQ);

    /* under the default bound: exact, not flagged, nothing said */
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    const cuprof_stat_api *a = row(s, "__cudaLaunchKernel");
    ck_assert_uint_eq(a->calls, NQ);
    ck_assert_uint_eq(a->median_ns, want_cpu);
    ck_assert_int_eq(a->median_sketched, 0);
    ck_assert_uint_eq(s->nkernels, 1);
    ck_assert_uint_eq(s->kernels[0].median_ns, want_dev);
    ck_assert_int_eq(s->kernels[0].median_sketched, 0);
    const cuprof_gpu_stats *st = &test_model_of(s)->timeline->stats;
    ck_assert_uint_eq(st->latency_count, NQ);
    ck_assert_uint_eq(st->latency_median_ns, want_lat);
    ck_assert_int_eq(st->latency_median_sketched, 0);
    json_t *j = write_json(&cuprof_summary_json_ops, s);
    ck_assert_ptr_null(json_object_get(j, "quantiles"));
    ck_assert_ptr_null(json_object_get(json_array_get(json_object_get(j, "api"), 0), "median_sketched"));
    json_decref(j);
    test_summary_destroy(s);

    /* past a lowered one: flagged, within 1%, min and max exact */
    run.quantile_exact_max = QBOUND;
    s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    a = row(s, "__cudaLaunchKernel");
    ck_assert_uint_eq(a->calls, NQ);
    ck_assert_int_eq(a->median_sketched, 1);
    assert_within(a->median_ns, want_cpu);
    ck_assert_uint_eq(a->min_ns, cpu[0]);   /* sorted by the reference median */
    ck_assert_uint_eq(a->max_ns, cpu[NQ - 1]);
    const cuprof_stat_kernel *k = &s->kernels[0];
    ck_assert_uint_eq(k->launches, NQ);
    ck_assert_int_eq(k->median_sketched, 1);
    assert_within(k->median_ns, want_dev);
    ck_assert_uint_eq(k->min_ns, dev[0]);
    ck_assert_uint_eq(k->max_ns, dev[NQ - 1]);
    st = &test_model_of(s)->timeline->stats;
    ck_assert_int_eq(st->latency_median_sketched, 1);
    assert_within(st->latency_median_ns, want_lat);
    ck_assert_uint_eq(st->latency_max_ns, lat[NQ - 1]);
    j = write_json(&cuprof_summary_json_ops, s);
    json_t *qj = json_object_get(j, "quantiles");
    ck_assert_ptr_nonnull(qj);
    ck_assert_int_eq(json_integer_value(json_object_get(qj, "exact_max")), QBOUND);
    ck_assert_double_eq_tol(json_real_value(json_object_get(qj, "relative_error")), 0.007813, 1e-9);
    json_t *ja = NULL, *e;
    size_t i;
    json_array_foreach(json_object_get(j, "api"), i, e)
        if (!strcmp(json_string_value(json_object_get(e, "name")), "__cudaLaunchKernel"))
            ja = e;
    ck_assert_ptr_nonnull(ja);
    ck_assert(json_is_true(json_object_get(ja, "median_sketched")));
    ck_assert(json_is_true(json_object_get(json_array_get(json_object_get(j, "kernels"), 0), "median_sketched")));
    ck_assert(json_is_true(json_object_get(json_object_get(j, "gpu"), "launch_latency_median_sketched")));
    json_decref(j);
    cuprof_out o;
    ck_assert_int_eq(cuprof_out_open_mem(&o), 0);
    ck_assert_int_eq(cuprof_writer_run(&cuprof_summary_txt_ops, &o, test_model_of(s)), 0);
    ck_assert_int_eq(cuprof_out_commit(&o), 0);
    ck_assert_msg(strstr(o.buf, "~ median: approximate") != NULL, "%s", o.buf);
    ck_assert_msg(strstr(o.buf, "  ~") != NULL, "no ~ median in\n%s", o.buf);
    cuprof_out_discard(&o);
    test_summary_destroy(s);
    free(qev);
    free(qk);
    free(cpu);
    free(dev);
    free(lat);
}
END_TEST

/* A record by its correlation id, whether the ids are dense (a direct
 * index) or sparse (a sorted array): the first of equal ids in both. */
START_TEST(api_by_corr_dense_and_sparse)
{
    for (int sparse = 0; sparse < 2; sparse++) {
        cuprof_gpu_api a[4] = {api(10, "cudaMalloc", 100, 200, 0, 0), api(12, "cudaFree", 300, 400, 0, 0),
                               api(10, "cudaMemset", 500, 600, 0, 0),
                               api(sparse ? 9000000 : 11, "cudaLaunchKernel", 700, 800, 0, 1)};
        cuprof_gpu_run g = {.captured = 1, .status = "test", .apis = a, .n_apis = 4};
        cuprof_run r;
        memset(&r, 0, sizeof r);
        r.gpu_run = &g;
        r.gpu.captured = 1;
        cuprof_timeline *tl = cuprof_timeline_build(&r);
        ck_assert_ptr_nonnull(tl);
        ck_assert(sparse ? tl->corr_first == NULL && tl->by_corr != NULL
                         : tl->corr_first != NULL && tl->by_corr == NULL);
        ck_assert_ptr_eq(cuprof_timeline_api(tl, 10), &a[0]);
        ck_assert_ptr_eq(cuprof_timeline_api(tl, 12), &a[1]);
        ck_assert_ptr_eq(cuprof_timeline_api(tl, sparse ? 9000000 : 11), &a[3]);
        ck_assert_ptr_null(cuprof_timeline_api(tl, 13));
        ck_assert_ptr_null(cuprof_timeline_api(tl, 1));
        cuprof_timeline_destroy(tl);
    }
}
END_TEST

static char *fake_demangle(const char *name)
{
    return strcmp(name, "_Z3fooi") ? NULL : strdup("foo(int)");
}

/* The device records' names: demangled once per name (a second pointer to
 * the same string shares the display form), looked up by the record's own
 * pointer, with no array a record; a name the build never saw, or no
 * names at all, comes back as it is. */
START_TEST(names_of_device_records)
{
    static const char mangled[] = "_Z3fooi";
    char *copy = strdup(mangled), *unseen = strdup("_Z3bari");
    cuprof_gpu_kernel k[4] = {{.name = mangled}, {.name = mangled}, {.name = copy}, {.name = "plain"}};
    cuprof_gpu_run g = {.kernels = k, .n_kernels = 4};
    cuprof_run run;
    memset(&run, 0, sizeof run);
    cuprof_names nm;
    ck_assert_int_eq(cuprof_names_build(&nm, &run, &g, fake_demangle), 0);
    const char *d = cuprof_names_gpu(&nm, mangled);
    ck_assert_str_eq(d, "foo(int)");
    ck_assert_ptr_eq(cuprof_names_gpu(&nm, copy), d);
    ck_assert_str_eq(cuprof_names_gpu(&nm, "plain"), "plain");
    ck_assert_ptr_eq(cuprof_names_gpu(&nm, unseen), unseen);
    ck_assert_ptr_eq(cuprof_names_gpu(NULL, mangled), mangled);
    ck_assert_uint_eq(nm.nentries, 2);   /* foo(int) and plain, each once */
    cuprof_names_destroy(&nm);
    free(copy);
    free(unseen);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("timeline");
    TCase *tc = tcase_create("attribution");
    tcase_add_test(tc, interval_union);
    tcase_add_test(tc, gpu_busy_is_the_clipped_union);
    tcase_add_test(tc, kth_u64_is_sorted_kth);
    tcase_add_test(tc, derived_calls);
    tcase_add_test(tc, launch_without_ext);
    tcase_add_test(tc, record_joins_one_call);
    tcase_add_test(tc, kernels_only_matched_by_kind_and_order);
    tcase_add_test(tc, self_and_total_cuda);
    tcase_add_test(tc, busy_idle_latency);
    tcase_add_test(tc, kernel_and_copy_rows);
    tcase_add_test(tc, trace_gpu_lanes_and_flows);
    tcase_add_test(tc, trace_rows_keep_recorded_times);
    tcase_add_test(tc, rows_of_records);
    tcase_add_test(tc, no_gpu_run);
    tcase_add_test(tc, failed_launch_is_no_kernel);
    tcase_add_test(tc, capture_clip_keeps_the_windows_calls);
    tcase_add_test(tc, medians_past_the_bound_are_sketched);
    tcase_add_test(tc, names_of_device_records);
    tcase_add_test(tc, api_by_corr_dense_and_sparse);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
