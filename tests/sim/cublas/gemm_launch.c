/*
 * gemm_launch.c - how a simulated cuBLAS GEMM reaches the simulated device:
 * the kernel it picks (tile, name, launch shape) and the call sequence the
 * real cuBLAS 13 shows under CUPTI on an H100 (scripts/cupti_probe.cu, driver
 * 580, 2026-11-24): per GEMM two cudaGetDevice (runtime API), two
 * cuKernelGetAttribute and one cuLaunchKernelEx (driver API), the kernel
 * carrying the cuLaunchKernelEx's correlation id. No occupancy query: the
 * cuBLAS 11/12 pattern of one before each launch is gone.
 *
 * All are traced with cusim_api_begin/_driver and go to libcusim directly,
 * never through the exported cudart symbols (the real library links cudart
 * statically and calls the driver through cudaGetDriverEntryPointByVersion),
 * so an LD_PRELOAD hook on cudaLaunchKernel does not see them; CUPTI does,
 * the launch only with its DRIVER activity kind on.
 */
#include "simblas.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hopper-style tiles, smallest first. k is for 16-bit inputs; fp32 inputs
 * halve it so a stage holds the same bytes. */
typedef struct tile_shape {
    int m, n, k;
    int warpgroups; /* "warpgroupsize" in the name */
    int threads;    /* block size: one producer + consumer warpgroups */
    int stages;     /* smem pipeline depth */
} tile_shape;

static const tile_shape tiles[] = {
    {64, 64, 64, 1, 128, 4},
    {128, 128, 64, 2, 384, 4},
    {128, 256, 64, 1, 384, 4},
};
#define NTILES ((int)(sizeof tiles / sizeof tiles[0]))

#define GEMM_REGISTERS 168       /* per thread, as cuBLAS's sm90 kernels */
#define SMEM_EPILOGUE 16384u     /* output staging for the big tiles */
#define SMEM_BARRIERS 1024u      /* mbarriers and scheduler state */
#define SPLITK_WORKSPACE (1u << 20) /* what the heuristic asks for large k */

/* ---- the plan ------------------------------------------------------------ */

static int tile_k(const simblas_gemm *g, const tile_shape *t)
{
    return simblas_dtype_size(g->a.type) == 4 ? t->k / 2 : t->k;
}

/* Bigger tiles only once the problem fills the 132 SMs with them. */
static int choose_tile(const simblas_gemm *g)
{
    double tiles_out = (double)g->m * (double)g->n * (double)g->batch;
    if (tiles_out >= 128.0 * 256.0 * CUSIM_SM_COUNT)
        return 2;
    if (tiles_out >= 128.0 * 128.0 * CUSIM_SM_COUNT / 2)
        return 1;
    return 0;
}

void simblas_plan_gemm(const simblas_gemm *g, int tile, simblas_plan *p)
{
    const tile_shape *t;
    size_t esz = simblas_dtype_size(g->a.type);
    double ctas;
    if (tile < 0 || tile >= NTILES)
        tile = choose_tile(g);
    t = &tiles[tile];
    memset(p, 0, sizeof *p);
    p->tile = tile;
    p->tile_m = t->m;
    p->tile_n = t->n;
    p->tile_k = tile_k(g, t);
    p->threads = t->threads;
    p->dynamic_smem = (uint32_t)((size_t)t->stages * (size_t)(t->m + t->n) * (size_t)p->tile_k *
                                 (esz ? esz : 2)) +
                      SMEM_BARRIERS + (t->threads > 128 ? SMEM_EPILOGUE : 0u);
    p->blocks_per_sm = cusim_occupancy(p->threads, p->dynamic_smem, GEMM_REGISTERS, 0);
    if (p->blocks_per_sm < 1)
        p->blocks_per_sm = 1;
    ctas = ceil((double)g->m / t->m) * ceil((double)g->n / t->n) * g->batch;
    p->waves = (float)(ctas / ((double)CUSIM_SM_COUNT * p->blocks_per_sm));
    /* long reductions on few tiles would use split-K, which needs scratch */
    p->workspace = (p->waves < 0.5f && g->k >= 4096) ? SPLITK_WORKSPACE : 0;
}

/* ---- the kernel name ----------------------------------------------------- */

/*
 * The naming of cuBLAS 13's Hopper GEMM kernels ("nvjet"), as seen on an H100:
 *   nvjet_sm90_tst_<M>x<N>_<K>x<S>_<cx>x<cy>_<t>_<bz|badd>[_coopA][_bias|_relu|_gelu...]_<opA><opB>T
 * e.g. nvjet_sm90_tst_64x8_64x16_1x4_h_bz_NNT (64^3 bf16),
 *      nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_bias_NNT (4096^3 bf16, BIAS epilogue),
 *      ..._h_badd_NNT (beta != 0).
 * <t>: h for 16-bit inputs, s for fp32, t for tf32. The sim's own tiles fill
 * the fields; the real heuristic's choices differ (64x8 for 64^3 there).
 */
const char *simblas_kernel_name(const simblas_gemm *g, const simblas_plan *p)
{
    char name[256], epi[64] = "";
    const char *t = simblas_dtype_size(g->a.type) == 4 ? (g->tf32 ? "t" : "s") : "h";
    if (tiles[p->tile].warpgroups > 1)
        strcat(epi, "_coopA");
    if (g->epilogue & SIMBLAS_EPI_BIAS)
        strcat(epi, "_bias");
    if (g->epilogue & SIMBLAS_EPI_RELU)
        strcat(epi, "_relu");
    if (g->epilogue & SIMBLAS_EPI_GELU)
        strcat(epi, "_gelu");
    snprintf(name, sizeof name, "nvjet_sm90_tst_%dx%d_%dx%d_1x%d_%s_%s%s_%c%cT", p->tile_m,
             p->tile_n, p->tile_k, tiles[p->tile].stages, tiles[p->tile].warpgroups, t,
             g->beta != 0.0f ? "badd" : "bz", epi, g->trans_a ? 'T' : 'N', g->trans_b ? 'T' : 'N');
    return cusim_intern_name(name);
}

/* ---- the call sequence --------------------------------------------------- */

void simblas_spin(uint64_t ns)
{
    uint64_t until = cusim_host_ns() + ns;
    while (cusim_host_ns() < until)
        ;
}

static double operand_bytes(const simblas_gemm *g)
{
    double mn = (double)g->m * g->n;
    double bytes = (double)g->m * g->k * simblas_dtype_size(g->a.type) +
                   (double)g->k * g->n * simblas_dtype_size(g->b.type) +
                   mn * simblas_dtype_size(g->d.type);
    if (g->beta != 0.0f)
        bytes += mn * simblas_dtype_size(g->c.type);
    if (g->epilogue & SIMBLAS_EPI_BIAS)
        bytes += (double)g->m * simblas_dtype_size(g->bias_type);
    return bytes * g->batch;
}

/* The launch descriptor for g, interned (CUPTI may read it after we return). */
static const cusim_kernel_desc *kernel_desc(const simblas_gemm *g, const simblas_plan *p)
{
    cusim_kernel_desc d;
    memset(&d, 0, sizeof d); /* padding too: the bytes are the intern key */
    d.name = simblas_kernel_name(g, p);
    d.grid[0] = (uint32_t)((g->m + p->tile_m - 1) / p->tile_m);
    d.grid[1] = (uint32_t)((g->n + p->tile_n - 1) / p->tile_n);
    d.grid[2] = (uint32_t)g->batch;
    d.block[0] = (uint32_t)p->threads;
    d.block[1] = d.block[2] = 1;
    d.dynamic_smem = p->dynamic_smem;
    d.static_smem = 0; /* sm90 GEMM kernels keep everything in dynamic smem */
    d.registers = GEMM_REGISTERS;
    d.cls = CUSIM_KERNEL_GEMM;
    d.flops = 2.0 * (double)g->m * (double)g->n * (double)g->k * g->batch;
    d.bytes = operand_bytes(g);
    d.tensor_dtype_bits = simblas_dtype_size(g->a.type) == 4 ? 32 : 16;
    if (d.name == NULL)
        return NULL;
    return cusim_intern(&d, sizeof d);
}

/* First GEMM on a handle: cuBLAS picks heuristics, loads kernels and
 * allocates its workspace; that costs a few hundred microseconds of CPU. */
static void cold_start(simblas_ctx *ctx)
{
    ctx->workspace = cusim_mem_alloc(SIMBLAS_WORKSPACE_BYTES, CUSIM_MEM_DEVICE);
    simblas_spin(SIMBLAS_COLD_START_NS);
    ctx->warm = 1;
}

/* cuBLAS 13's traced sequence for one kernel (see the top of this file). */
static void launch_traced(cusim_stream *s, const cusim_kernel_desc *desc)
{
    cusim_api_call dev, attr, launch;
    cusim_api_begin(&dev, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, "cudaGetDevice", NULL);
    cusim_api_end(&dev, 0);
    for (int i = 0; i < 2; i++) {
        cusim_api_begin_driver(&attr, CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute,
                               "cuKernelGetAttribute", NULL, NULL);
        cusim_api_end(&attr, 0);
    }
    cusim_api_begin(&dev, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, "cudaGetDevice", NULL);
    cusim_api_end(&dev, 0);
    if (desc != NULL) {
        cusim_api_begin_driver(&launch, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
                               "cuLaunchKernelEx", NULL, desc->name);
        cusim_launch(s, desc, cusim_current_correlation());
        cusim_api_end(&launch, 0);
    }
}

int simblas_run(simblas_ctx *ctx, const void *stream, const simblas_gemm *g, int tile)
{
    cusim_stream *s = cusim_stream_get(stream, 0);
    simblas_plan p;
    if (s == NULL)
        return -1;
    if (!ctx->warm)
        cold_start(ctx);
    simblas_spin(SIMBLAS_CALL_CPU_NS);
    simblas_plan_gemm(g, tile, &p);
    launch_traced(s, kernel_desc(g, &p));
    /* the data: deferred until something can observe it, or computed now */
    simblas_gemm_submit(g);
    return 0;
}

/* ---- routines outside the engine ----------------------------------------- */

#define ROUTINE_THREADS 256
#define ROUTINE_REGISTERS 64
#define ROUTINE_CALL_CPU_NS 3000u /* level 1 and 2: less checking than a GEMM */

int simblas_run_routine(simblas_ctx *ctx, const void *stream, const simblas_routine *r,
                        int64_t m, int64_t n, int64_t k, int64_t batch, void (*job)(void *),
                        void *arg)
{
    cusim_stream *s = cusim_stream_get(stream, 0);
    cusim_kernel_desc d;
    double es = r->elem_bytes > 0 ? r->elem_bytes : 4, flops, bytes, threads, b;
    if (s == NULL) {
        free(arg);
        return -1;
    }
    if (!ctx->warm)
        cold_start(ctx);
    simblas_spin(r->level == 3 ? SIMBLAS_CALL_CPU_NS : ROUTINE_CALL_CPU_NS);
    /* the work model: a size that is not a parameter takes the routine's
     * other one (trmv is n x n, syrk's m is its n, trsm's k its m) */
    if (n < 0)
        n = m;
    if (m < 0)
        m = n;
    if (k < 0)
        k = m;
    b = batch < 0 ? 1.0 : (double)batch;
    if (r->level == 1) {
        flops = 2.0 * (double)n;
        bytes = 3.0 * (double)n * es;
        threads = (double)n;
    } else if (r->level == 2) {
        flops = 2.0 * (double)m * (double)n;
        bytes = ((double)m * (double)n + (double)m + (double)n) * es;
        threads = (double)m;
    } else {
        flops = 2.0 * (double)m * (double)n * (double)k;
        bytes = ((double)m * (double)k + (double)k * (double)n + 2.0 * (double)m * (double)n) * es;
        threads = (double)m * (double)n / 16.0;
    }
    if (flops * b <= 0.0) { /* nothing to do: no kernel, as in cuBLAS */
        if (job != NULL)
            job(arg);
        else
            free(arg);
        return 0;
    }
    memset(&d, 0, sizeof d); /* padding too: the bytes are the intern key */
    d.name = r->kernel;
    d.grid[0] = (uint32_t)fmin(65535.0, fmax(1.0, ceil(threads / ROUTINE_THREADS)));
    d.grid[1] = 1;
    d.grid[2] = (uint32_t)fmin(65535.0, b);
    d.block[0] = ROUTINE_THREADS;
    d.block[1] = d.block[2] = 1;
    d.registers = ROUTINE_REGISTERS;
    d.cls = CUSIM_KERNEL_GEMM;
    d.flops = flops * b;
    d.bytes = bytes * b;
    d.tensor_dtype_bits = r->prec_bits;
    launch_traced(s, cusim_intern(&d, sizeof d));
    if (job != NULL)
        cusim_defer(job, arg);
    else
        free(arg);
    return 0;
}

void simblas_ctx_release(simblas_ctx *ctx)
{
    if (ctx->workspace != NULL)
        cusim_mem_free(ctx->workspace, CUSIM_MEM_DEVICE);
    ctx->workspace = NULL;
    ctx->warm = 0;
}
