/*
 * gemm_cpu.c - the GEMM computed for real on the host, so programs running on
 * the simulated device get correct results for small problems.
 *
 * Device memory is host memory in the sim, so the operands are read in place.
 * Each operand is first converted to fp32 and packed (op(A) in panels of 8
 * rows, op(B) by columns), then the product is computed in 8 x 4 blocks of
 * the result with the accumulators in vector registers (GCC vector
 * extensions, an AVX2 clone where the CPU has one). There is no FMA and no
 * -ffast-math: the order of the sums is fixed and results are reproducible.
 * Accumulation is always fp32, as cuBLAS does for every compute type but
 * COMPUTE_16F (there we still use fp32: results are at least as accurate).
 *
 * The computation costs real CPU time (about 20 us at 64^3, 1 ms at 256^3,
 * 10-20 ms at 512^3 on one core); simblas_gemm_submit defers it through the
 * driver so it is not the API call's (see below). CUSIM_COMPUTE_MAX=0 turns
 * it off.
 */
#include "simblas.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

uint64_t simblas_compute_max(void)
{
    return cusim_compute_max();
}

size_t simblas_dtype_size(cudaDataType t)
{
    switch (t) {
    case CUDA_R_32F:
        return 4;
    case CUDA_R_16F:
    case CUDA_R_16BF:
        return 2;
    default:
        return 0;
    }
}

static float load(const void *base, cudaDataType t, int64_t i)
{
    uint16_t h;
    switch (t) {
    case CUDA_R_16F:
        memcpy(&h, (const char *)base + 2 * i, 2);
        return simblas_f16_to_f32(h);
    case CUDA_R_16BF:
        memcpy(&h, (const char *)base + 2 * i, 2);
        return simblas_bf16_to_f32(h);
    default:
        return ((const float *)base)[i];
    }
}

static void store(void *base, cudaDataType t, int64_t i, float v)
{
    uint16_t h;
    switch (t) {
    case CUDA_R_16F:
        h = simblas_f32_to_f16(v);
        memcpy((char *)base + 2 * i, &h, 2);
        break;
    case CUDA_R_16BF:
        h = simblas_f32_to_bf16(v);
        memcpy((char *)base + 2 * i, &h, 2);
        break;
    default:
        ((float *)base)[i] = v;
        break;
    }
}

/* out[i * ostep] = X[first + i * step] for i < count, converted to float;
 * the type switch is outside the loop (packing is a good part of a small
 * GEMM's cost). */
static void load_run(const void *base, cudaDataType t, int64_t first, int64_t step, int64_t count,
                     float *out, int64_t ostep)
{
    const uint16_t *h = (const uint16_t *)base + first;
    const float *f = (const float *)base + first;
    switch (t) {
    case CUDA_R_16F:
        for (int64_t i = 0; i < count; i++)
            out[i * ostep] = simblas_f16_to_f32(h[i * step]);
        break;
    case CUDA_R_16BF:
        for (int64_t i = 0; i < count; i++)
            out[i * ostep] = simblas_bf16_to_f32(h[i * step]);
        break;
    default:
        for (int64_t i = 0; i < count; i++)
            out[i * ostep] = f[i * step];
        break;
    }
}

/* Address of batch b's matrix. */
static const void *batch_ptr(const simblas_matrix *x, int b)
{
    if (x->array != NULL)
        return x->array[b];
    return (const char *)x->ptr + (int64_t)b * x->stride * (int64_t)simblas_dtype_size(x->type);
}

/* Packs op(X) (rows x k) into out[r * k + l] (each row contiguous over k).
 * trans: X is stored k x rows. */
static void pack_rows(const simblas_matrix *x, const void *base, int trans, int64_t rows, int64_t k,
                      float *out)
{
    for (int64_t r = 0; r < rows; r++)
        load_run(base, x->type, trans ? r * x->ld : r, trans ? 1 : x->ld, k, out + r * k, 1);
}

#define MR 8 /* output rows per micro-tile: one AVX vector, two SSE vectors */
#define NR 4 /* output columns per micro-tile */

/* Packs op(X) (rows x k) in panels of MR rows: element (r, l) goes to
 * out[(r / MR) * k * MR + l * MR + r % MR], so a micro-tile reads one panel
 * front to back. Rows past `rows` (up to a multiple of MR) are zeros.
 * trans: X is stored k x rows. */
static void pack_panels(const simblas_matrix *x, const void *base, int trans, int64_t rows,
                        int64_t k, float *out)
{
    int64_t rows_pad = (rows + MR - 1) / MR * MR;
    for (int64_t r = 0; r < rows_pad; r++) {
        float *o = out + (r / MR) * k * MR + r % MR;
        if (r < rows)
            load_run(base, x->type, trans ? r * x->ld : r, trans ? 1 : x->ld, k, o, MR);
        else
            for (int64_t l = 0; l < k; l++)
                o[l * MR] = 0.0f;
    }
}

/* Eight floats, one AVX register or two SSE ones (GCC vector extension). */
typedef float simblas_v8 __attribute__((vector_size(MR * sizeof(float))));

/* acc[jj][ii] = sum_l ap[l * MR + ii] * bp[jj * k + l]: one MR x NR block of
 * op(A) op(B), the accumulators in registers. Cloned for AVX2 where the CPU
 * has it (same operations in the same order, no FMA: same results). */
__attribute__((target_clones("avx2", "default"))) static void
micro_tile(const float *ap, const float *bp, int64_t k, float acc[NR][MR])
{
    simblas_v8 c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, a;
    const float *b0 = bp, *b1 = bp + k, *b2 = bp + 2 * k, *b3 = bp + 3 * k;
    for (int64_t l = 0; l < k; l++) {
        memcpy(&a, ap + l * MR, sizeof a);
        c0 += a * b0[l];
        c1 += a * b1[l];
        c2 += a * b2[l];
        c3 += a * b3[l];
    }
    memcpy(acc[0], &c0, sizeof c0);
    memcpy(acc[1], &c1, sizeof c1);
    memcpy(acc[2], &c2, sizeof c2);
    memcpy(acc[3], &c3, sizeof c3);
}

/* GELU, tanh approximation (what cuBLASLt's GELU epilogue computes). */
static float gelu(float x)
{
    const float c = 0.7978845608028654f; /* sqrt(2 / pi) */
    return 0.5f * x * (1.0f + tanhf(c * (x + 0.044715f * x * x * x)));
}

static float epilogue(const simblas_gemm *g, const void *bias, int64_t row, float v)
{
    if (g->epilogue & SIMBLAS_EPI_BIAS)
        v += load(bias, g->bias_type, row);
    if (g->epilogue & SIMBLAS_EPI_RELU)
        v = v > 0.0f ? v : 0.0f;
    if (g->epilogue & SIMBLAS_EPI_GELU)
        v = gelu(v);
    return v;
}

/* Writes D(i, j) = epilogue(alpha * acc + beta * C(i, j)). */
static void finish(const simblas_gemm *g, const void *c, void *d, const void *bias, int64_t i,
                   int64_t j, float acc)
{
    float v = g->alpha * acc;
    /* BLAS: with beta == 0, C is not read (it may hold NaNs) */
    if (c != NULL)
        v += g->beta * load(c, g->c.type, i + j * g->c.ld);
    store(d, g->d.type, i + j * g->d.ld, epilogue(g, bias, i, v));
}

/* One matrix of the batch, with the operands packed: ap in panels of MR rows
 * (mp rows, padded), bp by columns of op(B) (np columns, padded). */
static void gemm_one(const simblas_gemm *g, int b, const float *ap, int64_t mp, const float *bp,
                     int64_t np)
{
    const void *c = g->beta != 0.0f ? batch_ptr(&g->c, b) : NULL;
    void *d = (void *)batch_ptr(&g->d, b);
    const void *bias = NULL;
    float acc[NR][MR];
    if (g->epilogue & SIMBLAS_EPI_BIAS)
        bias = (const char *)g->bias +
               (int64_t)b * g->bias_stride * (int64_t)simblas_dtype_size(g->bias_type);
    for (int64_t j0 = 0; j0 < np; j0 += NR)
        for (int64_t i0 = 0; i0 < mp; i0 += MR) {
            micro_tile(ap + i0 * g->k, bp + j0 * g->k, g->k, acc);
            for (int jj = 0; jj < NR && j0 + jj < g->n; jj++)
                for (int ii = 0; ii < MR && i0 + ii < g->m; ii++)
                    finish(g, c, d, bias, i0 + ii, j0 + jj, acc[jj][ii]);
        }
}

int simblas_gemm_compute(const simblas_gemm *g)
{
    double work = (double)g->m * (double)g->n * (double)g->k * (double)g->batch;
    int64_t mp = (g->m + MR - 1) / MR * MR, np = (g->n + NR - 1) / NR * NR;
    size_t ka = (size_t)(g->k > 0 ? g->k : 1);
    float *ap, *bp;
    if (work > (double)simblas_compute_max())
        return 0;
    if (g->m <= 0 || g->n <= 0)
        return 1;
    ap = malloc((size_t)mp * ka * sizeof *ap);
    bp = calloc((size_t)np * ka, sizeof *bp); /* padding columns stay zero */
    if (ap == NULL || bp == NULL) {
        free(ap);
        free(bp);
        return 0;
    }
    for (int b = 0; b < g->batch; b++) {
        pack_panels(&g->a, batch_ptr(&g->a, b), g->trans_a, g->m, g->k, ap);
        pack_rows(&g->b, batch_ptr(&g->b, b), !g->trans_b, g->n, g->k, bp);
        gemm_one(g, b, ap, mp, bp, np);
    }
    free(ap);
    free(bp);
    return 1;
}

/* ---- deferred computation ---------------------------------------------------
 * Computing inside the API call would put the sim's own CPU time (10+ ms at
 * 512^3) on the program's host timeline and, through the gap before the next
 * launch, on the device's. The driver's cusim_defer() runs the work later, in
 * order, before anything that can observe device memory or the device's
 * completion (copies, memsets, synchronizations, queries, frees), so results
 * are there whenever a program can look. */

/* A GEMM waiting to be computed; owns its copy of the pointer arrays. */
typedef struct gemm_job {
    simblas_gemm g;             /* the problem, alpha and beta by value */
    const void *arrays[];       /* 3 * batch pointers when g used arrays */
} gemm_job;

static void gemm_job_run(void *arg)
{
    gemm_job *job = arg;
    simblas_gemm_compute(&job->g);
    free(job);
}

/* Copies a pointer array (device memory the program may reuse) into dst. */
static const void *const *copy_array(const void *const *src, int n, const void **dst)
{
    if (src == NULL)
        return NULL;
    memcpy(dst, src, (size_t)n * sizeof *dst);
    return dst;
}

int simblas_gemm_submit(const simblas_gemm *g)
{
    double work = (double)g->m * (double)g->n * (double)g->k * (double)g->batch;
    int arrays = g->a.array != NULL || g->b.array != NULL || g->c.array != NULL;
    size_t narr = arrays ? 4 * (size_t)g->batch : 0;
    gemm_job *job;
    if (work > (double)simblas_compute_max())
        return 0; /* timing only */
    if ((job = malloc(sizeof *job + narr * sizeof(void *))) == NULL)
        return simblas_gemm_compute(g); /* no memory: compute now, correct if slow */
    job->g = *g;
    if (arrays) {
        job->g.a.array = copy_array(g->a.array, g->batch, job->arrays);
        job->g.b.array = copy_array(g->b.array, g->batch, job->arrays + g->batch);
        job->g.c.array = copy_array(g->c.array, g->batch, job->arrays + 2 * (size_t)g->batch);
        job->g.d.array = copy_array(g->d.array, g->batch, job->arrays + 3 * (size_t)g->batch);
    }
    cusim_defer(gemm_job_run, job);
    return 1;
}
