/*
 * test_findings.c - the rules of collector/findings.c on hand-built runs:
 * for each rule, one run built to trigger it and one built not to; then the
 * findings as summary.txt and summary.json show them.
 *
 * A run here is one thread of calls (cuprof_event) plus GPU records
 * (kernels, copies, runtime records) on the same made-up clock, in ns. A
 * kernel or copy names its launching call by external id (the event id of
 * the call), as CUPTI's records do after the collector's normalization.
 */
#include "tests/unit/test_model.h"
#include "model/findings.h"
#include "model/peak.h"
#include "model/timeline.h"
#include "formats/writer.h"

#include <check.h>
#include <jansson.h>
#include <library_types.h>
#include <stdlib.h>
#include <string.h>

enum {
    A_GEMM, A_LAUNCH, A_MEMCPY, A_SYNC, A_RT_LAUNCH, A_LASTERR, A_OCC, A_MALLOC, A_FREE,
};
static const cuprof_api_desc APIS[] = {
    [A_GEMM] = {"cublasGemmEx", "cublas"},
    [A_LAUNCH] = {"__cudaLaunchKernel", "cuda_runtime"},
    [A_MEMCPY] = {"cudaMemcpyAsync", "cuda_runtime"},
    [A_SYNC] = {"cudaStreamSynchronize", "cuda_runtime"},
    [A_RT_LAUNCH] = {"cudaLaunchKernel", "cuda_runtime"},
    [A_LASTERR] = {"cudaGetLastError", "cuda_runtime"},
    [A_OCC] = {"cudaOccupancyMaxActiveBlocksPerMultiprocessor", "cuda_runtime"},
    [A_MALLOC] = {"cudaMalloc", "cuda_runtime"},
    [A_FREE] = {"cudaFree", "cuda_runtime"},
};

enum { MAX_EV = 20010, MAX_K = 64, MAX_C = 8, MAX_A = 64, TID = 7 };
static cuprof_event *evs;
static const cuprof_event *chunk_list[1];
static cuprof_run_thread thread;
static cuprof_run run;
static cuprof_gpu_kernel kernels[MAX_K];
static cuprof_gpu_copy copies[MAX_C];
static cuprof_gpu_api apis[MAX_A];
static cuprof_gpu_run gpu;
static const char *knames[] = {"(unknown kernel)", "bias_add", "gemm_kernel"};
static uint32_t next_corr;

static uint64_t id_of(size_t i)
{
    return cuprof_event_id_make(1, (uint64_t)i);
}

static void reset(void)
{
    if (!evs)
        evs = calloc(MAX_EV, sizeof *evs);
    ck_assert_ptr_nonnull(evs);
    memset(evs, 0, MAX_EV * sizeof *evs);
    memset(kernels, 0, sizeof kernels);
    memset(copies, 0, sizeof copies);
    memset(apis, 0, sizeof apis);
    chunk_list[0] = evs;
    thread = (cuprof_run_thread){.index = 1, .tid = TID, .n = 0, .per_chunk = MAX_EV,
                                 .chunks = chunk_list};
    gpu = (cuprof_gpu_run){.captured = 1, .status = "test", .kernels = kernels, .copies = copies,
                           .apis = apis};
    memset(&run, 0, sizeof run);
    run.program = "app";
    run.exe = "";
    run.clock = "CLOCK_MONOTONIC";
    run.napis = sizeof APIS / sizeof APIS[0];
    run.apis = APIS;
    run.nkernels = 2;
    run.kernel_names = knames;
    run.threads = &thread;
    run.nthreads = 1;
    run.gpu.captured = 1;
    run.gpu.reason = "";
    run.gpu_run = &gpu;
    next_corr = 1;
}

/* Appends a call; returns its index. */
static size_t ev(uint16_t api, uint8_t cls, uint64_t t0, uint64_t t1, uint8_t depth)
{
    size_t i = thread.n++;
    ck_assert_uint_lt(i, MAX_EV);
    evs[i] = (cuprof_event){.t0 = t0, .t1 = t1, .api = api, .cls = cls, .depth = depth};
    run.nevents = thread.n;
    return i;
}

/* A GEMM call (m = n = k = 64, bf16). */
static size_t gemm(uint64_t t0, uint64_t t1, int beta_nonzero)
{
    size_t i = ev(A_GEMM, CUPROF_EV_BLAS, t0, t1, 0);
    evs[i].a.blas.m = evs[i].a.blas.n = evs[i].a.blas.k = 64;
    evs[i].a.blas.batch = 1;
    evs[i].a.blas.atype = evs[i].a.blas.ctype = CUDA_R_16BF;
    evs[i].a.blas.beta_nonzero = (uint8_t)beta_nonzero;
    return i;
}

/* A <<<grid, block>>> launch of kernel id 1 (bias_add). */
static size_t launch(uint64_t t0, uint64_t t1, uint32_t grid, uint16_t block)
{
    size_t i = ev(A_LAUNCH, CUPROF_EV_LAUNCH, t0, t1, 0);
    evs[i].a.launch.kernel = 1;
    evs[i].a.launch.grid_x = grid;
    evs[i].a.launch.grid_y = evs[i].a.launch.grid_z = 1;
    evs[i].a.launch.block[0] = block;
    evs[i].a.launch.block[1] = evs[i].a.launch.block[2] = 1;
    return i;
}

static size_t copy_call(uint64_t t0, uint64_t t1, uint8_t dir, uint64_t bytes)
{
    size_t i = ev(A_MEMCPY, CUPROF_EV_COPY, t0, t1, 0);
    evs[i].a.copy.dir = dir;
    evs[i].a.copy.bytes = bytes;
    evs[i].a.copy.async = 1;
    return i;
}

/* A kernel on the device caused by call `call`. */
static cuprof_gpu_kernel *kern(const char *name, uint64_t s, uint64_t e, size_t call)
{
    ck_assert_uint_lt(gpu.n_kernels, MAX_K);
    cuprof_gpu_kernel *k = &kernels[gpu.n_kernels++];
    *k = (cuprof_gpu_kernel){.start_ns = s, .end_ns = e, .ext = id_of(call), .corr = next_corr++,
                             .stream = 7, .name = name};
    return k;
}

static cuprof_gpu_copy *gcopy(uint8_t kind, uint64_t s, uint64_t e, uint64_t bytes, size_t call)
{
    ck_assert_uint_lt(gpu.n_copies, MAX_C);
    cuprof_gpu_copy *c = &copies[gpu.n_copies++];
    *c = (cuprof_gpu_copy){.start_ns = s, .end_ns = e, .bytes = bytes, .ext = id_of(call),
                           .corr = next_corr++, .stream = 7, .kind = kind,
                           .src_mem = CUPROF_GPU_MEM_DEVICE, .dst_mem = CUPROF_GPU_MEM_DEVICE,
                           .async = 1};
    return c;
}

static cuprof_summary *build(void)
{
    cuprof_summary *s = test_summary_build(&run);
    ck_assert_ptr_nonnull(s);
    return s;
}

static const cuprof_finding *find(const cuprof_summary *s, const char *rule)
{
    for (size_t i = 0; i < s->nfindings; i++)
        if (!strcmp(s->findings[i].rule, rule))
            return &s->findings[i];
    return NULL;
}

static double number(const cuprof_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nnums; i++)
        if (!strcmp(f->nums[i].key, key))
            return f->nums[i].value;
    ck_abort_msg("finding %s has no number %s", f->rule, key);
    return 0;
}

static void expect(const char *rule, int fires)
{
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, rule);
    if (fires) {
        ck_assert_msg(f != NULL, "%s did not fire", rule);
        ck_assert_ptr_nonnull(f->message);
        ck_assert_ptr_nonnull(f->advice);
        ck_assert_msg(f->advice[0] != '\0', "%s has no advice", rule);
        ck_assert_msg(f->nnums > 0, "%s has no numbers", rule);
    } else {
        ck_assert_msg(f == NULL, "%s fired: %s", rule, f ? f->message : "");
    }
    test_summary_destroy(s);
}

/* n iterations of a launch (cpu_ns of CPU each) of a kernel of kern_ns, the
 * next launch cpu_ns later; the kernel starts latency ns after its call. */
static void launches(int n, uint64_t cpu_ns, uint64_t kern_ns, uint64_t latency)
{
    uint64_t t = 1000000, gpu_free = 0;
    for (int i = 0; i < n; i++) {
        size_t c = launch(t, t + cpu_ns, 16, 256);
        uint64_t s = t + latency > gpu_free ? t + latency : gpu_free;
        kern("_Z8bias_addPfi", s, s + kern_ns, c);
        gpu_free = s + kern_ns;
        t += cpu_ns;
    }
}

START_TEST(overhead_vs_compute_bound)
{
    reset();   /* 20 us of CPU per launch, 1 us kernels: overhead-bound */
    launches(20, 20000, 1000, 4000);
    expect("overhead-bound", 1);
    expect("compute-bound", 0);
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, "overhead-bound");
    ck_assert_double_ge(number(f, "idle_share"), 0.9);
    ck_assert_double_ge(number(f, "cpu_cuda_ratio"), 5.0);
    test_summary_destroy(s);

    reset();   /* 5 us of CPU per launch, 500 us kernels: compute-bound */
    launches(20, 5000, 500000, 4000);
    expect("compute-bound", 1);
    expect("overhead-bound", 0);

    reset();   /* CPU 10x GPU but GPU half busy: neither */
    launches(20, 20000, 10000, 4000);
    expect("compute-bound", 0);
    expect("overhead-bound", 0);

    reset();   /* a warm-up, then a sync during which the host is busy 20 ms, then a
                * busy loop: the whole window is mostly idle, the steady state is not */
    {
        uint64_t t = 1000;
        for (int i = 0; i < 2; i++, t += 5000) {
            size_t c = launch(t, t + 5000, 16, 256);
            kern("_Z8bias_addPfi", t + 4000, t + 504000, c);
        }
        ev(A_SYNC, CUPROF_EV_SYNC, t, 21000000, 0);
        t = 21000000;
        uint64_t free_at = 0;
        for (int i = 0; i < 10; i++, t += 5000) {
            size_t c = launch(t, t + 5000, 16, 256);
            uint64_t st = t + 4000 > free_at ? t + 4000 : free_at;
            kern("_Z8bias_addPfi", st, st + 500000, c);
            free_at = st + 500000;
        }
        ev(A_SYNC, CUPROF_EV_SYNC, t, free_at + 1000, 0);
    }
    expect("compute-bound", 1);
    expect("overhead-bound", 0);
    s = build();
    f = find(s, "compute-bound");
    ck_assert_double_ge(number(f, "idle_share"), 0.5);          /* the whole window */
    ck_assert_double_le(number(f, "steady_idle_share"), 0.05);  /* the loop */
    ck_assert_double_eq(number(f, "steady_kernels"), 10);
    test_summary_destroy(s);

    reset();   /* no GPU timeline: no verdict */
    launches(20, 20000, 1000, 4000);
    run.gpu.captured = 0;
    expect("overhead-bound", 0);
}
END_TEST

/* A graph's replays: n replays of two nodes, the second starting gap ns
 * after the first ends (each kernel 10 us). */
static void graph_replays(int n, uint64_t gap)
{
    uint64_t t = 1000000;
    for (int r = 0; r < n; r++) {
        size_t call = launch(t, t + 2000, 1, 32);
        uint32_t corr = next_corr;
        cuprof_gpu_kernel *a = kern("node_a", t + 5000, t + 15000, call);
        cuprof_gpu_kernel *b = kern("node_b", t + 15000 + gap, t + 25000 + gap, call);
        a->corr = b->corr = corr;
        a->graph = b->graph = 1;
        a->graph_id = b->graph_id = 9;
        a->graph_node_id = 101;
        b->graph_node_id = 102;
        t += 100000;
    }
}

START_TEST(graph_gaps)
{
    reset();
    graph_replays(5, 30000);   /* 30 us idle in a 50 us span: 60% */
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, "graph-gaps");
    ck_assert_msg(f != NULL, "graph-gaps did not fire");
    ck_assert_int_eq((int)number(f, "graph"), 9);
    ck_assert_int_eq((int)number(f, "replays"), 5);
    ck_assert_int_eq((int)number(f, "replay_span_ns"), 50000);
    ck_assert(number(f, "idle_share") > 0.59 && number(f, "idle_share") < 0.61);
    const cuprof_graphs *gs = test_model_of(s)->graphs;
    ck_assert_uint_eq(gs->n, 1);
    ck_assert_uint_eq(gs->g[0].launches, 5);
    ck_assert_uint_eq(gs->g[0].nodes, 2);
    test_summary_destroy(s);

    reset();
    graph_replays(5, 0);       /* back to back: nothing idle */
    expect("graph-gaps", 0);
    reset();
    graph_replays(1, 30000);   /* one replay: not a pattern */
    expect("graph-gaps", 0);
}
END_TEST

/* The device-memory model (model/memory.c) against a plain account, over
 * thousands of allocations freed in random order, addresses reused: peak,
 * allocations live at the peak, bytes held at the end. */
START_TEST(memory_model_many_allocations)
{
    reset();
    static uint64_t live_ptr[8000], live_bytes[8000];
    size_t nlive = 0;
    uint64_t next = 0x100000, last_freed = 0, held = 0, peak = 0, peak_live = 0, t = 1000, rnd = 12345;
    int allocs = 0, frees = 0;
    for (int step = 0; step < 9000; step++) {
        rnd = rnd * 6364136223846793005ull + 1442695040888963407ull;
        int do_alloc = nlive == 0 || (rnd >> 33) % 100 < 55;
        if (do_alloc && nlive < 8000) {
            uint64_t p = (allocs % 10 == 9 && last_freed) ? last_freed : (next += 256);
            if (p == last_freed)
                last_freed = 0;
            uint64_t b = 64 + (rnd >> 40) % 5000;
            size_t i = ev(A_MALLOC, CUPROF_EV_ALLOC, t, t + 10, 0);
            evs[i].a.mem.ptr = p;
            evs[i].a.mem.bytes = b;
            live_ptr[nlive] = p;
            live_bytes[nlive++] = b;
            held += b;
            allocs++;
            if (held > peak) {
                peak = held;
                peak_live = nlive;
            }
        } else {
            size_t k = (size_t)((rnd >> 20) % nlive);
            size_t i = ev(A_FREE, CUPROF_EV_FREE, t, t + 10, 0);
            evs[i].a.mem.ptr = live_ptr[k];
            held -= live_bytes[k];
            last_freed = live_ptr[k];
            live_ptr[k] = live_ptr[nlive - 1];
            live_bytes[k] = live_bytes[--nlive];
            frees++;
        }
        t += 20;
    }
    cuprof_summary *s = build();
    const cuprof_memory *m = test_model_of(s)->memory;
    ck_assert_uint_eq(m->allocations, (uint64_t)allocs);
    ck_assert_uint_eq(m->frees, (uint64_t)frees);
    ck_assert_uint_eq(m->peak_bytes, peak);
    ck_assert_uint_eq(m->peak_allocations, peak_live);
    ck_assert_uint_eq(m->end_bytes, held);
    ck_assert_uint_eq(m->end_allocations, nlive);
    ck_assert_uint_eq(m->nend_top, held ? 1 : 0);
    if (held)
        ck_assert_uint_eq(m->end_top[0].bytes, held);
    ck_assert_uint_eq(m->ntop, 1);
    ck_assert_uint_eq(m->top[0].bytes, peak);
    test_summary_destroy(s);
}
END_TEST

/* killed-by-oom: the run says the kernel's OOM killer ended it (prof.sh's
 * supervisor saw its cgroup count the kill): the host memory last seen,
 * the limit, the device memory held at the end and its largest owners
 * (most bytes first; a freed allocation not counted). Silent otherwise. */
START_TEST(killed_by_oom)
{
    reset();
    static const struct { uint16_t api; uint64_t ptr, bytes; } allocs[] = {
        {A_MALLOC, 0x1000, 8u << 20}, {A_MALLOC, 0x2000, 4u << 20}, {A_MALLOC, 0x3000, 2u << 20},
    };
    uint64_t t = 1000;
    for (size_t k = 0; k < 3; k++, t += 100) {
        size_t i = ev(allocs[k].api, CUPROF_EV_ALLOC, t, t + 10, 0);
        evs[i].a.mem.ptr = allocs[k].ptr;
        evs[i].a.mem.bytes = allocs[k].bytes;
    }
    size_t f = ev(A_FREE, CUPROF_EV_FREE, t, t + 10, 0);   /* the 2 MiB one, freed */
    evs[f].a.mem.ptr = 0x3000;
    expect("killed-by-oom", 0);
    run.killed = (cuprof_killed){.recovered = 1, .from_memory = 1, .oom = 1, .cgroup = "/job.slice",
                                 .mem_limit = 1ull << 30, .rss = 1000ull << 20,
                                 .rss_peak = 1010ull << 20};
    cuprof_summary *s = build();
    const cuprof_finding *k = find(s, "killed-by-oom");
    ck_assert_ptr_nonnull(k);
    ck_assert_ptr_eq(k, &s->findings[0]);   /* first: how the run ended */
    ck_assert_msg(strstr(k->message, "killed by the kernel's OOM killer (its memory cgroup "
                                     "/job.slice counted the kill)") &&
                      strstr(k->message, "1000.00 MiB when last seen (peak 1010.00 MiB)") &&
                      strstr(k->message, "limit 1.00 GiB") &&
                      strstr(k->message, "12.00 MiB in 2 allocations, largest owners cudaMalloc "
                                         "(12.00 MiB in 2)"),
                  "%s", k->message);
    ck_assert_double_eq(number(k, "device_held_bytes"), (double)(12u << 20));
    ck_assert_double_eq(number(k, "device_allocations"), 2);
    ck_assert_double_eq(number(k, "rss_bytes"), (double)(1000ull << 20));
    ck_assert_double_eq(number(k, "memory_limit_bytes"), (double)(1ull << 30));
    test_summary_destroy(s);
    run.killed.oom = 0;   /* killed, not by the OOM killer */
    expect("killed-by-oom", 0);
}
END_TEST

START_TEST(hotspot)
{
    reset();
    size_t a = launch(1000, 2000, 1, 32), b = launch(3000, 4000, 1, 32);
    kern("big", 5000, 95000, a);
    kern("small", 95000, 100000, b);
    expect("hotspot", 1);

    reset();   /* two kernels at 45/55: neither dominates */
    a = launch(1000, 2000, 1, 32);
    b = launch(3000, 4000, 1, 32);
    kern("one", 5000, 9500, a);
    kern("two", 9500, 15000, b);
    expect("hotspot", 0);

    reset();   /* one kernel: trivially all the time, not a finding */
    a = launch(1000, 2000, 1, 32);
    kern("only", 5000, 95000, a);
    expect("hotspot", 0);
}
END_TEST

/* The peak table: matched by name and SM count; a GEMM's FLOPs and precision. */
START_TEST(peak_table)
{
    char why[200];
    ck_assert_str_eq(cuprof_peak_match("NVIDIA H100 80GB HBM3", 132, NULL, 0)->label, "H100 SXM5");
    ck_assert_str_eq(cuprof_peak_match("NVIDIA H100 PCIe", 114, NULL, 0)->label, "H100 PCIe");
    ck_assert_str_eq(cuprof_peak_match("NVIDIA H100 NVL", 132, NULL, 0)->label, "H100 NVL");
    ck_assert_str_eq(cuprof_peak_match("NVIDIA H200", 132, NULL, 0)->label, "H200 SXM");
    ck_assert_str_eq(cuprof_peak_match("NVIDIA A100-SXM4-80GB", 108, NULL, 0)->label, "A100 SXM4 80GB");
    ck_assert_str_eq(cuprof_peak_match("NVIDIA L40S", 142, NULL, 0)->label, "L40S");
    ck_assert_str_eq(cuprof_peak_match("NVIDIA L4", 58, NULL, 0)->label, "L4");
    ck_assert_str_eq(cuprof_peak_match("NVIDIA B200", 148, NULL, 0)->label, "B200");
    /* an L40 (not S) is not an L4; a MIG slice has fewer SMs than its GPU */
    ck_assert_ptr_null(cuprof_peak_match("NVIDIA L40", 142, why, sizeof why));
    ck_assert_ptr_null(cuprof_peak_match("NVIDIA H100 80GB HBM3", 16, why, sizeof why));
    ck_assert_msg(strstr(why, "16 SMs") && strstr(why, "132"), "%s", why);
    ck_assert_ptr_null(cuprof_peak_match("Tesla T4", 40, why, sizeof why));
    ck_assert_msg(strstr(why, "not in the peak table") != NULL, "%s", why);
    ck_assert_ptr_null(cuprof_peak_match(NULL, 0, why, sizeof why));
    ck_assert_str_eq(cuprof_peak_by_label("H200 SXM")->label, "H200 SXM");
    ck_assert_ptr_null(cuprof_peak_by_label("H300"));
    ck_assert_double_eq(cuprof_peak_by_label("H100 SXM5")->tflops[CUPROF_PREC_BF16], 989.4);
    ck_assert_double_eq(cuprof_peak_by_label("A100 SXM4 40GB")->tflops[CUPROF_PREC_FP8], 0.0);

    ck_assert_double_eq(cuprof_gemm_flops(64, 32, 16, 1, CUDA_R_16BF, 1), 2.0 * 64 * 32 * 16);
    ck_assert_double_eq(cuprof_gemm_flops(64, 32, 16, 3, CUDA_C_32F, 0), 3 * 4 * 2.0 * 64 * 32 * 16);
    ck_assert_double_eq(cuprof_gemm_flops(64, 32, 16, 1, CUDA_R_16BF, 6 /* RELU_BIAS */),
                        2.0 * 64 * 32 * 16 + 64 * 32);
    ck_assert_int_eq(cuprof_gemm_prec(CUDA_R_32F, 68), CUPROF_PREC_FP32);
    ck_assert_int_eq(cuprof_gemm_prec(CUDA_R_32F, 77), CUPROF_PREC_TF32);
    ck_assert_int_eq(cuprof_gemm_prec(CUDA_R_16BF, 68), CUPROF_PREC_BF16);
    ck_assert_int_eq(cuprof_gemm_prec(CUDA_C_64F, 0), CUPROF_PREC_FP64);
    ck_assert_int_eq(cuprof_gemm_prec(CUDA_R_8F_E4M3, 68), CUPROF_PREC_FP8);
    ck_assert_str_eq(cuprof_prec_name(CUPROF_PREC_TF32), "tf32");
}
END_TEST

/* below-peak: a 64^3 bf16 GEMM kernel of 10 us on an H100 is at 0.0026% of
 * 989 TFLOP/s; a 4096^3 one at 85% is not far; no peak, no finding. */
START_TEST(below_peak)
{
    static cuprof_gpu_device h100 = {.name = "NVIDIA H100 80GB HBM3", .sms = 132};
    reset();
    gpu.devices = &h100, gpu.n_devices = 1;
    size_t g = gemm(1000, 2000, 0);
    kern("gemm_kernel", 3000, 13000, g);
    size_t b = launch(14000, 15000, 1, 32);
    kern("bias_add", 16000, 17000, b);
    expect("below-peak", 1);
    cuprof_summary *s = build();
    const cuprof_stat_shape *sh = &s->blas[0].shapes[0];
    ck_assert_uint_eq(sh->flops_per_call, 2 * 64 * 64 * 64);
    ck_assert_uint_eq(sh->gpu_ns, 10000);
    ck_assert_str_eq(sh->prec, "bf16");
    ck_assert_double_eq_tol(sh->peak_pct, 2.0 * 64 * 64 * 64 / 10000.0 / 1e3 / 989.4 * 100, 1e-9);
    ck_assert_double_eq_tol(number(find(s, "below-peak"), "pct_of_peak"), sh->peak_pct, 1e-9);
    ck_assert_str_eq(s->device.peak_label, "H100 SXM5");
    cuprof_summary_destroy(s);

    reset();   /* 4096^3 in 163.6 us: 840 TFLOP/s, 85% */
    gpu.devices = &h100, gpu.n_devices = 1;
    g = gemm(1000, 2000, 0);
    evs[g].a.blas.m = evs[g].a.blas.n = evs[g].a.blas.k = 4096;
    kern("gemm_kernel", 3000, 166600, g);
    expect("below-peak", 0);

    reset();   /* the same small GEMM on a GPU the table does not know */
    g = gemm(1000, 2000, 0);
    kern("gemm_kernel", 3000, 13000, g);
    expect("below-peak", 0);

    static cuprof_gpu_device mig = {.name = "NVIDIA H100 80GB HBM3", .sms = 16};
    reset();   /* a MIG slice: fewer SMs than the table's H100, no peak */
    gpu.devices = &mig, gpu.n_devices = 1;
    g = gemm(1000, 2000, 0);
    kern("gemm_kernel", 3000, 13000, g);
    expect("below-peak", 0);
    s = build();
    ck_assert_ptr_null(s->device.peak_label);
    ck_assert_msg(strstr(s->device.peak_why, "MIG") != NULL, "%s", s->device.peak_why);
    cuprof_summary_destroy(s);
}
END_TEST

START_TEST(many_calls)
{
    reset();
    for (uint64_t i = 0; i < 10000; i++)
        ev(A_LASTERR, CUPROF_EV_CALL, 1000 + i * 100, 1050 + i * 100, 0);
    expect("many-calls", 1);
    reset();
    for (uint64_t i = 0; i < 9999; i++)
        ev(A_LASTERR, CUPROF_EV_CALL, 1000 + i * 100, 1050 + i * 100, 0);
    expect("many-calls", 0);
}
END_TEST

/* n GEMMs 10 us each, the first first_ns long; a sync after the warm_n
 * first ones (0: none). */
static void gemms(int n, uint64_t first_ns, int warm_n)
{
    uint64_t t = 1000;
    for (int i = 0; i < n; i++) {
        uint64_t d = i == 0 ? first_ns : 10000;
        gemm(t, t + d, 0);
        t += d + 1000;
        if (warm_n && i + 1 == warm_n) {
            ev(A_SYNC, CUPROF_EV_SYNC, t, t + 1000, 0);
            t += 2000;
        }
    }
}

/* CUDA's start-up in the first call: a 150 ms cudaMalloc (context creation
 * on a real GPU: 100-200 ms on the H100) before any launch, then a short
 * loop of launches; it is most of Self CPU and worth saying so. */
static void startup_run(uint64_t first_ns)
{
    reset();
    ev(A_MEMCPY, CUPROF_EV_COPY, 1000, 1000 + first_ns, 0);
    uint64_t t = 2000 + first_ns;
    for (int i = 0; i < 10; i++, t += 20000) {
        size_t l = launch(t, t + 5000, 64, 128);
        kern("_Z8bias_addPfi", t + 6000, t + 8000, l);
    }
}

START_TEST(cuda_startup)
{
    startup_run(150000000);
    expect("cuda-startup", 1);
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, "cuda-startup");
    ck_assert_double_eq(number(f, "startup_ns"), 150000000);
    ck_assert_ptr_nonnull(strstr(f->message, "cudaMemcpyAsync"));
    ck_assert_ptr_nonnull(strstr(f->message, "150.00ms"));
    test_summary_destroy(s);

    startup_run(2000000);   /* 2 ms: a slow call, not a start-up worth a word */
    expect("cuda-startup", 0);

    reset();   /* the long call comes after the first launch: not start-up */
    size_t l = launch(1000, 6000, 64, 128);
    kern("_Z8bias_addPfi", 7000, 9000, l);
    ev(A_MEMCPY, CUPROF_EV_COPY, 10000, 150010000, 0);
    expect("cuda-startup", 0);
}
END_TEST

START_TEST(cold_start)
{
    reset();   /* first GEMM 500 us, no warm-up */
    gemms(10, 500000, 0);
    expect("cold-start", 1);
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, "cold-start");
    ck_assert_double_eq(number(f, "first_ns"), 500000);
    ck_assert_ptr_nonnull(strstr(f->message, "cublasGemmEx"));
    test_summary_destroy(s);

    reset();   /* the same, but two warm-up calls and a sync before the other eight */
    gemms(10, 500000, 2);
    expect("cold-start", 0);

    reset();   /* a first call only a little slower */
    gemms(10, 30000, 0);
    expect("cold-start", 0);

    reset();   /* too few calls to know the steady state */
    gemms(4, 500000, 0);
    expect("cold-start", 0);

    /* set-up calls made only before the loop (five cudaMalloc, the first one
     * slow: a preempted thread on a loaded machine, or the context's
     * creation), then a warmed-up loop: the measured phase has none of
     * them, so nothing to warm up (test_e2e_findings saw this under load) */
    reset();
    for (int i = 0; i < 5; i++)
        ev(A_MALLOC, CUPROF_EV_ALLOC, 100 + (uint64_t)i * 400000, 100 + (uint64_t)i * 400000 + (i ? 2000 : 300000), 0);
    {
        uint64_t t = 3000000;
        for (int i = 0; i < 7; i++) {
            gemm(t, t + 10000, 0);
            t += 11000;
            if (i == 1) {
                ev(A_SYNC, CUPROF_EV_SYNC, t, t + 1000, 0);
                t += 2000;
            }
        }
    }
    expect("cold-start", 0);
}
END_TEST

/* A GEMM whose kernel cuBLAS launched after an occupancy query (both calls
 * only CUPTI saw), then a bias_add launch. */
static void gemm_with_query(int query)
{
    size_t g = gemm(1000, 20000, 0);
    uint32_t corr = 100;
    if (query)
        apis[gpu.n_apis++] = (cuprof_gpu_api){.start_ns = 2000, .end_ns = 2100, .ext = id_of(g),
                                              .corr = corr++, .cbid = 1, .name = APIS[A_OCC].name,
                                              .thread_id = TID};
    apis[gpu.n_apis++] = (cuprof_gpu_api){.start_ns = 3000, .end_ns = 3500, .ext = id_of(g),
                                          .corr = corr, .cbid = 2, .name = "cudaLaunchKernel",
                                          .thread_id = TID, .is_launch = 1};
    cuprof_gpu_kernel *k = kern("gemm_kernel", 8000, 30000, g);
    k->corr = corr;
    size_t l = launch(21000, 25000, 1, 32);
    kern("_Z8bias_addPfi", 30000, 32000, l);
}

START_TEST(heavyweight_kernels)
{
    reset();
    gemm_with_query(1);
    expect("heavyweight-kernels", 1);
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, "heavyweight-kernels");
    ck_assert_double_eq(number(f, "heavy_launches"), 1);
    ck_assert_double_eq(number(f, "light_launches"), 1);
    ck_assert_ptr_nonnull(strstr(f->message, "gemm_kernel"));
    ck_assert_ptr_nonnull(strstr(f->message, "bias_add"));
    test_summary_destroy(s);

    reset();   /* no query (cuBLAS 13): the BLAS call that caused it says it */
    gemm_with_query(0);
    expect("heavyweight-kernels", 1);

    reset();   /* a user kernel alone, no query, no library: nothing heavy */
    size_t l = launch(21000, 25000, 1, 32);
    kern("_Z8bias_addPfi", 30000, 32000, l);
    expect("heavyweight-kernels", 0);

    reset();   /* a user kernel after the program's own occupancy query */
    ev(A_OCC, CUPROF_EV_OCCUPANCY, 1000, 1100, 0);
    l = launch(2000, 3000, 1, 32);
    kern("_Z6customPf", 4000, 9000, l);
    expect("heavyweight-kernels", 1);
}
END_TEST

START_TEST(sync_wait)
{
    reset();   /* a 1 ms sync while the GPU is idle */
    size_t l = launch(1000, 5000, 1, 32);
    kern("k", 6000, 10000, l);
    ev(A_SYNC, CUPROF_EV_SYNC, 8000, 1008000, 0);
    size_t l2 = launch(1010000, 1012000, 1, 32);
    kern("k", 1013000, 1015000, l2);
    expect("sync-wait", 1);

    reset();   /* a 1 ms sync that waits for a 1 ms kernel */
    l = launch(1000, 5000, 1, 32);
    kern("k", 6000, 1006000, l);
    ev(A_SYNC, CUPROF_EV_SYNC, 8000, 1008000, 0);
    expect("sync-wait", 0);
}
END_TEST

START_TEST(addmm_pattern)
{
    reset();   /* DtoD copy of 64x64 bf16, then GEMM beta = 1, twice */
    for (int i = 0; i < 2; i++) {
        uint64_t t = 1000 + (uint64_t)i * 100000;
        size_t c = copy_call(t, t + 3000, CUPROF_DIR_DTOD, 64 * 64 * 2);
        gcopy(CUPROF_GPU_COPY_DTOD, t + 4000, t + 7000, 64 * 64 * 2, c);
        ev(A_LASTERR, CUPROF_EV_CALL, t + 3100, t + 3200, 0);   /* skipped */
        size_t g = gemm(t + 4000, t + 12000, 1);
        kern("gemm_kernel", t + 13000, t + 20000, g);
    }
    expect("addmm-pattern", 1);
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, "addmm-pattern");
    ck_assert_double_eq(number(f, "occurrences"), 2);
    ck_assert_ptr_nonnull(strstr(f->advice, "EPILOGUE_BIAS"));
    test_summary_destroy(s);

    reset();   /* beta = 0: the copy is not the bias */
    copy_call(1000, 4000, CUPROF_DIR_DTOD, 64 * 64 * 2);
    gemm(5000, 12000, 0);
    expect("addmm-pattern", 0);

    reset();   /* a copy of another size */
    copy_call(1000, 4000, CUPROF_DIR_DTOD, 100);
    gemm(5000, 12000, 1);
    expect("addmm-pattern", 0);

    reset();   /* a HtoD copy */
    copy_call(1000, 4000, CUPROF_DIR_HTOD, 64 * 64 * 2);
    gemm(5000, 12000, 1);
    expect("addmm-pattern", 0);
}
END_TEST

START_TEST(fusion_candidate)
{
    reset();   /* GEMM 64x64, then bias_add over 16 x 256 = 4096 threads */
    size_t g = gemm(1000, 10000, 0);
    kern("gemm_kernel", 11000, 20000, g);
    size_t l = launch(10500, 14000, 16, 256);
    kern("_Z8bias_addPfi", 20000, 22000, l);
    expect("fusion-candidate", 1);
    cuprof_summary *s = build();
    ck_assert_ptr_nonnull(strstr(find(s, "fusion-candidate")->message, "bias_add"));
    test_summary_destroy(s);

    reset();   /* a one-block kernel after the GEMM: not elementwise over its output */
    gemm(1000, 10000, 0);
    launch(10500, 14000, 1, 32);
    expect("fusion-candidate", 0);

    reset();   /* GEMM alone (the fused mode) */
    gemm(1000, 10000, 0);
    gemm(11000, 20000, 0);
    expect("fusion-candidate", 0);
}
END_TEST

START_TEST(kernel_spread)
{
    reset();   /* 9 runs of 100 us and one of 1 ms */
    for (int i = 0; i < 10; i++) {
        uint64_t t = 1000 + (uint64_t)i * 2000000;
        size_t l = launch(t, t + 5000, 1, 32);
        kern("k", t + 6000, t + 6000 + (i == 5 ? 1000000 : 100000), l);
    }
    expect("kernel-spread", 1);

    reset();
    for (int i = 0; i < 10; i++) {
        uint64_t t = 1000 + (uint64_t)i * 2000000;
        size_t l = launch(t, t + 5000, 1, 32);
        kern("k", t + 6000, t + 106000 + (uint64_t)i * 1000, l);
    }
    expect("kernel-spread", 0);
}
END_TEST

START_TEST(launch_latency_and_gaps)
{
    reset();   /* kernels start 2 ms after their launch (a deep queue) */
    launches(10, 5000, 500000, 2000000);
    expect("launch-latency", 1);
    expect("launch-gaps", 0);

    reset();   /* 2 us kernels, 20 us apart: the GPU waits for launches */
    launches(10, 20000, 2000, 4000);
    expect("launch-gaps", 1);
    expect("launch-latency", 0);
}
END_TEST

START_TEST(pageable_and_blocking_copies)
{
    reset();   /* a pageable HtoD copy and a blocking DtoH between two kernels */
    size_t l = launch(1000, 5000, 1, 32);
    kern("k", 6000, 10000, l);
    size_t c = copy_call(11000, 40000, CUPROF_DIR_HTOD, 1 << 20);
    gcopy(CUPROF_GPU_COPY_HTOD, 12000, 39000, 1 << 20, c)->src_mem = CUPROF_GPU_MEM_PAGEABLE;
    c = copy_call(41000, 60000, CUPROF_DIR_DTOH, 4096);
    cuprof_gpu_copy *d = gcopy(CUPROF_GPU_COPY_DTOH, 42000, 59000, 4096, c);
    d->async = 0;
    d->dst_mem = CUPROF_GPU_MEM_PINNED;
    l = launch(61000, 65000, 1, 32);
    kern("k", 66000, 70000, l);
    expect("pageable-copy", 1);
    expect("blocking-copy", 1);

    reset();   /* the same copies before the first kernel (set-up): fine */
    c = copy_call(11000, 40000, CUPROF_DIR_HTOD, 1 << 20);
    gcopy(CUPROF_GPU_COPY_HTOD, 12000, 39000, 1 << 20, c)->src_mem = CUPROF_GPU_MEM_PAGEABLE;
    c = copy_call(41000, 60000, CUPROF_DIR_DTOH, 4096);
    gcopy(CUPROF_GPU_COPY_DTOH, 42000, 59000, 4096, c)->async = 0;
    l = launch(61000, 65000, 1, 32);
    kern("k", 66000, 70000, l);
    expect("pageable-copy", 0);
    expect("blocking-copy", 0);
}
END_TEST

static int has_number(const cuprof_finding *f, const char *key)
{
    for (size_t i = 0; i < f->nnums; i++)
        if (!strcmp(f->nums[i].key, key))
            return 1;
    return 0;
}

/* rule fires on the run as built; with sketched, its message has mark (a
 * "~" before the median) and its numbers median_sketched = 1; exact, no
 * "~" anywhere and no such number (the messages and numbers of exact runs,
 * which the goldens hold, do not change). */
static void expect_median_mark(const char *rule, int sketched, const char *mark)
{
    cuprof_summary *s = build();
    const cuprof_finding *f = find(s, rule);
    ck_assert_msg(f != NULL, "%s did not fire", rule);
    if (sketched) {
        ck_assert_msg(strstr(f->message, mark) != NULL, "%s: no \"%s\" in: %s", rule, mark, f->message);
        ck_assert_msg(has_number(f, "median_sketched"), "%s: no median_sketched", rule);
        ck_assert_double_eq(number(f, "median_sketched"), 1);
        /* and summary.json's "quantiles", summary.txt's legend say so */
        ck_assert_int_eq(cuprof_summary_any_sketched(&run, s, NULL), 1);
    } else {
        ck_assert_msg(strchr(f->message, '~') == NULL, "%s: \"~\" in an exact median: %s", rule, f->message);
        ck_assert_msg(!has_number(f, "median_sketched"), "%s: median_sketched on an exact median", rule);
    }
    ck_assert_uint_le(f->nnums, CUPROF_FINDING_NUMS);
    test_summary_destroy(s);
}

/* A median only a finding keeps (launch-gaps', the graph replays') counts
 * as sketched for summary.json's "quantiles" and summary.txt's legend, with
 * no row sketched. */
START_TEST(any_sketched_counts_the_findings)
{
    cuprof_run r = {0};
    cuprof_finding f = {.rule = "launch-gaps", .nnums = 2,
                        .nums = {{"idle_share", 0.5, 0}, {"median_sketched", 1, 1}}};
    cuprof_summary sum = {.nfindings = 1, .findings = &f};
    ck_assert_int_eq(cuprof_summary_any_sketched(&r, &sum, NULL), 1);
    f.nnums = 1;
    ck_assert_int_eq(cuprof_summary_any_sketched(&r, &sum, NULL), 0);
}
END_TEST

/* The rules that quote a median say when it is sketched: each run built
 * twice, once with run.quantile_exact_max lowered under its sample count
 * (the median comes from model/quantile.h's sketch) and once not. */
START_TEST(sketched_medians_are_marked)
{
    for (int sk = 0; sk < 2; sk++) {
        reset();   /* many-calls: 10000 calls of one entry point */
        run.quantile_exact_max = sk ? 100 : 0;
        for (uint64_t i = 0; i < 10000; i++)
            ev(A_LASTERR, CUPROF_EV_CALL, 1000 + i * 100, 1050 + i * 100, 0);
        expect_median_mark("many-calls", sk, "median ~50ns per call");

        reset();   /* cold-start: the first of 10 GEMMs 500 us, the rest 10 us */
        run.quantile_exact_max = sk ? 4 : 0;
        gemms(10, 500000, 0);
        expect_median_mark("cold-start", sk, "its median ~");

        reset();   /* kernel-spread: 9 runs of 100 us and one of 1 ms */
        run.quantile_exact_max = sk ? 4 : 0;
        for (int i = 0; i < 10; i++) {
            uint64_t t = 1000 + (uint64_t)i * 2000000;
            size_t l = launch(t, t + 5000, 1, 32);
            kern("k", t + 6000, t + 6000 + (i == 5 ? 1000000 : 100000), l);
        }
        expect_median_mark("kernel-spread", sk, "runs in a median ~");

        reset();   /* launch-latency: kernels 2 ms behind their launches */
        run.quantile_exact_max = sk ? 4 : 0;
        launches(10, 5000, 500000, 2000000);
        expect_median_mark("launch-latency", sk, "start a median ~");

        reset();   /* launch-gaps: 2 us kernels 20 us apart (both medians sketched) */
        run.quantile_exact_max = sk ? 4 : 0;
        launches(10, 20000, 2000, 4000);
        expect_median_mark("launch-gaps", sk, "idles a median ~");
        if (sk)
            expect_median_mark("launch-gaps", sk, "median kernel (~");

        reset();   /* graph-gaps: 5 replays 60% idle (span and share both medians) */
        run.quantile_exact_max = sk ? 2 : 0;
        graph_replays(5, 30000);
        expect_median_mark("graph-gaps", sk, "idle ~");
        if (sk)
            expect_median_mark("graph-gaps", sk, "of their ~");
    }
}
END_TEST

/* Writes one format of the run into memory. */
static char *write_mem(const cuprof_writer_ops *ops, cuprof_summary *s)
{
    cuprof_out o;
    ck_assert_int_eq(cuprof_out_open_mem(&o), 0);
    ck_assert_int_eq(cuprof_writer_run(ops, &o, test_model_of(s)), 0);
    ck_assert_int_eq(cuprof_out_commit(&o), 0);
    char *text = strdup(o.buf);
    cuprof_out_discard(&o);
    return text;
}

START_TEST(findings_in_the_files)
{
    reset();
    launches(20, 20000, 1000, 4000);
    cuprof_summary *s = build();
    char *js = write_mem(&cuprof_summary_json_ops, s);
    json_error_t err;
    json_t *j = json_loads(js, 0, &err);
    ck_assert_msg(j != NULL, "invalid JSON: %s\n%s", err.text, js);
    json_t *arr = json_object_get(j, "findings");
    ck_assert(json_is_array(arr));
    ck_assert_uint_eq(json_array_size(arr), s->nfindings);
    json_t *f = NULL;
    for (size_t i = 0; i < json_array_size(arr); i++)
        if (!strcmp(json_string_value(json_object_get(json_array_get(arr, i), "rule")),
                    "overhead-bound"))
            f = json_array_get(arr, i);
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(json_string_value(json_object_get(f, "severity")), "warning");
    ck_assert(json_is_string(json_object_get(f, "message")));
    ck_assert(json_is_string(json_object_get(f, "advice")));
    json_t *nums = json_object_get(f, "numbers");
    ck_assert(json_is_integer(json_object_get(nums, "self_cpu_total_ns")));
    ck_assert(json_is_real(json_object_get(nums, "idle_share")));
    ck_assert_double_ge(json_real_value(json_object_get(nums, "idle_share")), 0.9);
    json_decref(j);
    free(js);

    char *txt = write_mem(&cuprof_summary_txt_ops, s);
    ck_assert_ptr_nonnull(strstr(txt, "\nFindings\n  [warning] overhead-bound: "));
    ck_assert_ptr_nonnull(strstr(txt, "      try: "));
    free(txt);
    test_summary_destroy(s);

    reset();   /* no calls that say anything: "(none)" */
    ev(A_LASTERR, CUPROF_EV_CALL, 1000, 2000, 0);
    run.gpu.captured = 0;
    s = build();
    ck_assert_uint_eq(s->nfindings, 0);
    txt = write_mem(&cuprof_summary_txt_ops, s);
    ck_assert_ptr_nonnull(strstr(txt, "\nFindings\n  (none)\n"));
    free(txt);
    test_summary_destroy(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("findings");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, overhead_vs_compute_bound);
    tcase_add_test(tc, hotspot);
    tcase_add_test(tc, peak_table);
    tcase_add_test(tc, below_peak);
    tcase_add_test(tc, memory_model_many_allocations);
    tcase_add_test(tc, killed_by_oom);
    tcase_add_test(tc, graph_gaps);
    tcase_add_test(tc, many_calls);
    tcase_add_test(tc, cold_start);
    tcase_add_test(tc, cuda_startup);
    tcase_add_test(tc, heavyweight_kernels);
    tcase_add_test(tc, sync_wait);
    tcase_add_test(tc, addmm_pattern);
    tcase_add_test(tc, fusion_candidate);
    tcase_add_test(tc, kernel_spread);
    tcase_add_test(tc, launch_latency_and_gaps);
    tcase_add_test(tc, pageable_and_blocking_copies);
    tcase_add_test(tc, sketched_medians_are_marked);
    tcase_add_test(tc, any_sketched_counts_the_findings);
    tcase_add_test(tc, findings_in_the_files);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
