/*
 * cusparse_solve.c - the simulated cuSPARSE's SpGEMM (C = alpha op(A) op(B)
 * + beta C, sparse times sparse) and SpSV (op(A) y = alpha x, A triangular),
 * with the calling protocol of cuSPARSE's documentation and NVIDIA's
 * CUDALibrarySamples (cuSPARSE/spgemm, spsv_csr):
 *
 *   SpGEMM  createDescr; workEstimation twice (NULL buffer: its size; then
 *           with it: A and B are read and the product's structure found);
 *           compute twice (the size, then C's nnz known: cusparseSpMatGetSize
 *           says it, and C's row offsets written); the program allocates C
 *           and sets its pointers; copy writes C's offsets, columns
 *           (ascending in each row) and values.
 *           CSR, op NON_TRANSPOSE, 32- and 64-bit real values (cuSPARSE's
 *           SpGEMM refuses transposes: NOT_SUPPORTED).
 *   SpSV    createDescr; bufferSize; analysis (the buffer needed); solve,
 *           reading the fill mode and diagonal type of the matrix's
 *           attributes; CSR and COO, plain or transposed, 32/64-bit real.
 *
 * Each step queues a kernel of a readable name of the sim's own (the real
 * library runs several per step, not recorded here) and the CPU work in
 * stream order. SpGEMM's work estimation must tell the host how many products
 * there are, so it waits for its own work (the real library copies the count
 * back); the product is computed in double there, whatever its size (the
 * host has to know C's size), and written into C by copy's deferred job.
 */
#include "cusparse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SPGEMM_MAGIC 0x53504745u /* "SPGE" */
#define SPSV_MAGIC 0x53505356u   /* "SPSV" */

static int computable(cudaDataType t)
{
    return t == CUDA_R_32F || t == CUDA_R_64F;
}

/* 1 when a's arrays lie in device memory of the sizes its shape implies. */
static int sp_fits(const struct cusparseSpMatDescr *a)
{
    size_t nnz = (size_t)a->nnz, es = elem_size(a->type);
    size_t outer = a->format == CUSPARSE_FORMAT_COO ? nnz
                   : (size_t)(a->format == CUSPARSE_FORMAT_CSC ? a->cols : a->rows) + 1;
    cusparseIndexType_t ot = a->format == CUSPARSE_FORMAT_COO ? a->ind_type : a->off_type;
    return simlib_fits(a->offsets_or_rows, outer * index_size(ot)) &&
           (nnz == 0 || (simlib_fits(a->ind, nnz * index_size(a->ind_type)) && simlib_fits(a->values, nnz * es)));
}

static double host_or_device_scalar(const void *p, int dbl)
{
    return val_at(p, dbl, 0);
}

/* ---- SpGEMM -------------------------------------------------------------- */

struct cusparseSpGEMMDescr {
    uint32_t magic;       /* SPGEMM_MAGIC until destroyed */
    int estimated;        /* workEstimation has read A and B (the fields below are C's) */
    int computed;         /* compute has run */
    int failed;           /* A's or B's arrays did not fit: nothing computed */
    int64_t rows, products, nnz;
    int64_t *off;         /* rows + 1 offsets, base 0 */
    int64_t *col;         /* nnz columns, ascending in each row */
    double *val;          /* nnz values of A B */
};

typedef struct spgemm_in {
    struct cusparseSpGEMMDescr *d;
    struct cusparseSpMatDescr a, b;
    int dbl;
} spgemm_in;

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The range [*k0, *k1) of row r of CSR matrix m, base removed; 0 when it is
 * out of the arrays (a kernel would fault: the row is skipped). */
static int csr_row(const struct cusparseSpMatDescr *m, int64_t r, int64_t *k0, int64_t *k1)
{
    int64_t base = m->base == CUSPARSE_INDEX_BASE_ONE;
    *k0 = idx_at(m->offsets_or_rows, m->off_type, r) - base;
    *k1 = idx_at(m->offsets_or_rows, m->off_type, r + 1) - base;
    return *k0 >= 0 && *k0 <= *k1 && *k1 <= m->nnz;
}

/* Gustavson's row-by-row product A B into d (a deferred job: A and B are
 * read in stream order). */
static void spgemm_structure(void *arg)
{
    spgemm_in *in = arg;
    struct cusparseSpGEMMDescr *d = in->d;
    const struct cusparseSpMatDescr *a = &in->a, *b = &in->b;
    int64_t n = b->cols, base_a = a->base == CUSPARSE_INDEX_BASE_ONE, base_b = b->base == CUSPARSE_INDEX_BASE_ONE;
    double *acc = calloc((size_t)(n > 0 ? n : 1), sizeof *acc);
    int64_t *mark = malloc(sizeof *mark * (size_t)(n > 0 ? n : 1)), *cols = malloc(sizeof *cols * (size_t)(n > 0 ? n : 1));
    d->off = calloc((size_t)a->rows + 1, sizeof *d->off);
    size_t cap = 64;
    d->col = malloc(cap * sizeof *d->col);
    d->val = malloc(cap * sizeof *d->val);
    if (acc == NULL || mark == NULL || cols == NULL || d->off == NULL || d->col == NULL || d->val == NULL) {
        d->failed = 1;
        goto out;
    }
    for (int64_t c = 0; c < n; c++)
        mark[c] = -1;
    for (int64_t r = 0; r < a->rows; r++) {
        int64_t k0, k1, ncols = 0;
        if (csr_row(a, r, &k0, &k1))
            for (int64_t k = k0; k < k1; k++) {
                int64_t i = idx_at(a->ind, a->ind_type, k) - base_a, j0, j1;
                if (i < 0 || i >= b->rows || !csr_row(b, i, &j0, &j1))
                    continue;
                double av = val_at(a->values, in->dbl, k);
                for (int64_t j = j0; j < j1; j++) {
                    int64_t c = idx_at(b->ind, b->ind_type, j) - base_b;
                    if (c < 0 || c >= n)
                        continue;
                    d->products++;
                    if (mark[c] != r) {
                        mark[c] = r, acc[c] = 0, cols[ncols++] = c;
                    }
                    acc[c] += av * val_at(b->values, in->dbl, j);
                }
            }
        qsort(cols, (size_t)ncols, sizeof *cols, cmp_i64);
        if ((size_t)(d->nnz + ncols) > cap) {
            while ((size_t)(d->nnz + ncols) > cap)
                cap *= 2;
            int64_t *nc = realloc(d->col, cap * sizeof *nc);
            if (nc != NULL)
                d->col = nc;
            double *nv = realloc(d->val, cap * sizeof *nv);
            if (nv != NULL)
                d->val = nv;
            if (nc == NULL || nv == NULL) {
                d->failed = 1;
                goto out;
            }
        }
        for (int64_t t = 0; t < ncols; t++) {
            d->col[d->nnz] = cols[t];
            d->val[d->nnz++] = acc[cols[t]];
        }
        d->off[r + 1] = d->nnz;
    }
out:
    free(acc);
    free(mark);
    free(cols);
    free(in);
}

typedef struct spgemm_out {
    struct cusparseSpMatDescr c;   /* where to write */
    int64_t rows, nnz;
    int64_t *off, *col;            /* copies, in the job's own allocation */
    double *val;
    int dbl;
    double alpha, beta;            /* host pointer mode */
    const void *alpha_p, *beta_p;  /* device pointer mode: read in the job */
} spgemm_out;

/* Writes C's row offsets (compute: a program may read them before copy). */
static void spgemm_offsets(void *arg)
{
    spgemm_out *o = arg;
    int64_t base = o->c.base == CUSPARSE_INDEX_BASE_ONE;
    for (int64_t r = 0; r <= o->rows; r++)
        idx_set((void *)o->c.offsets_or_rows, o->c.off_type, r, o->off[r] + base);
    free(o);
}

/* Writes C = alpha A B (+ beta C, the values the program put in C's arrays). */
static void spgemm_write(void *arg)
{
    spgemm_out *o = arg;
    double alpha = o->alpha_p ? host_or_device_scalar(o->alpha_p, o->dbl) : o->alpha;
    double beta = o->beta_p ? host_or_device_scalar(o->beta_p, o->dbl) : o->beta;
    int64_t base = o->c.base == CUSPARSE_INDEX_BASE_ONE;
    for (int64_t r = 0; r <= o->rows; r++)
        idx_set((void *)o->c.offsets_or_rows, o->c.off_type, r, o->off[r] + base);
    for (int64_t k = 0; k < o->nnz; k++) {
        idx_set((void *)o->c.ind, o->c.ind_type, k, o->col[k] + base);
        double old = beta == 0 ? 0 : val_at(o->c.values, o->dbl, k);
        val_set((void *)o->c.values, o->dbl, k, alpha * o->val[k] + beta * old);
    }
    free(o);
}

static struct cusparseSpGEMMDescr *spgemm_of(cusparseSpGEMMDescr_t d)
{
    return d != NULL && d->magic == SPGEMM_MAGIC ? d : NULL;
}

SP_EXPORT cusparseStatus_t cusparseSpGEMM_createDescr(cusparseSpGEMMDescr_t *descr)
{
    if (descr == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseSpGEMMDescr *d = calloc(1, sizeof *d);
    if (d == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    d->magic = SPGEMM_MAGIC;
    *descr = d;
    return CUSPARSE_STATUS_SUCCESS;
}

static void spgemm_clear(struct cusparseSpGEMMDescr *d)
{
    free(d->off);
    free(d->col);
    free(d->val);
    d->off = d->col = NULL, d->val = NULL;
    d->estimated = d->computed = d->failed = 0;
    d->products = d->nnz = 0;
}

/* A deferred structure job still holds d: waits for it before d changes. */
SP_EXPORT cusparseStatus_t cusparseSpGEMM_destroyDescr(cusparseSpGEMMDescr_t descr)
{
    struct cusparseSpGEMMDescr *d = spgemm_of(descr);
    if (d == NULL)
        return descr == NULL ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
    cusim_defer_drain();
    spgemm_clear(d);
    d->magic = 0;
    free(d);
    return CUSPARSE_STATUS_SUCCESS;
}

/* The checks every SpGEMM step makes. */
static cusparseStatus_t spgemm_check(cusparseHandle_t h, cusparseOperation_t opA, cusparseOperation_t opB,
                                     const void *alpha, cusparseConstSpMatDescr_t a, cusparseConstSpMatDescr_t b,
                                     const void *beta, cusparseSpMatDescr_t c, cudaDataType compute,
                                     cusparseSpGEMMDescr_t d)
{
    if (handle_of(h) == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (a == NULL || b == NULL || c == NULL || alpha == NULL || beta == NULL || spgemm_of(d) == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (opA != CUSPARSE_OPERATION_NON_TRANSPOSE || opB != CUSPARSE_OPERATION_NON_TRANSPOSE)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (a->format != CUSPARSE_FORMAT_CSR || b->format != CUSPARSE_FORMAT_CSR || c->format != CUSPARSE_FORMAT_CSR)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    if (a->cols != b->rows || c->rows != a->rows || c->cols != b->cols)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (!computable(compute) || a->type != compute || b->type != compute || c->type != compute)
        return CUSPARSE_STATUS_NOT_SUPPORTED;   /* the sim computes 32/64-bit real only */
    return CUSPARSE_STATUS_SUCCESS;
}

static simlib_kernel spgemm_kernel(const char *step, cudaDataType compute, double flops, double bytes, char *name,
                                   size_t n)
{
    snprintf(name, n, "cusparse::spgemm_%s_kernel<%s>", step, compute == CUDA_R_64F ? "double" : "float");
    return (simlib_kernel){.name = name, .threads = bytes / 8 + 1, .block = 128,
                           .cls = flops > 0 ? CUSIM_KERNEL_GEMM : CUSIM_KERNEL_ELEMENTWISE, .flops = flops,
                           .bytes = bytes, .prec_bits = compute == CUDA_R_64F ? 64 : 32};
}

SP_EXPORT cusparseStatus_t cusparseSpGEMM_workEstimation(cusparseHandle_t handle, cusparseOperation_t opA,
                                                         cusparseOperation_t opB, const void *alpha,
                                                         cusparseConstSpMatDescr_t matA,
                                                         cusparseConstSpMatDescr_t matB, const void *beta,
                                                         cusparseSpMatDescr_t matC, cudaDataType computeType,
                                                         cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr,
                                                         size_t *bufferSize1, void *externalBuffer1)
{
    (void)alg;
    cusparseStatus_t st = spgemm_check(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, spgemmDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (bufferSize1 == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (externalBuffer1 == NULL) {   /* the first call: how much the estimation needs */
        *bufferSize1 = (size_t)(matA->rows + 1) * 8 + (size_t)matA->nnz * 8 + 256;
        return CUSPARSE_STATUS_SUCCESS;
    }
    if (!sp_fits(matA) || !sp_fits(matB))
        return CUSPARSE_STATUS_EXECUTION_FAILED;   /* a kernel would fault */
    struct cusparseSpGEMMDescr *d = spgemmDescr;
    cusim_defer_drain();   /* an earlier structure job of d's */
    spgemm_clear(d);
    spgemm_in *in = malloc(sizeof *in);
    if (in == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    *in = (spgemm_in){d, *matA, *matB, computeType == CUDA_R_64F};
    d->rows = matA->rows;
    char name[96];
    simlib_kernel k = spgemm_kernel("count", computeType, 0, (double)(matA->nnz + matB->nnz) * 12, name, sizeof name);
    if (simlib_launch(handle->stream, &k, 1, spgemm_structure, in) != 0)
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    cusim_defer_drain();   /* the count comes back to the host */
    if (d->failed)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    d->estimated = 1;
    simlib_call_tail();
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpGEMM_getNumProducts(cusparseSpGEMMDescr_t spgemmDescr, int64_t *num_prods)
{
    struct cusparseSpGEMMDescr *d = spgemm_of(spgemmDescr);
    if (d == NULL || num_prods == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *num_prods = d->products;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpGEMM_compute(cusparseHandle_t handle, cusparseOperation_t opA,
                                                  cusparseOperation_t opB, const void *alpha,
                                                  cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB,
                                                  const void *beta, cusparseSpMatDescr_t matC,
                                                  cudaDataType computeType, cusparseSpGEMMAlg_t alg,
                                                  cusparseSpGEMMDescr_t spgemmDescr, size_t *bufferSize2,
                                                  void *externalBuffer2)
{
    (void)alg;
    cusparseStatus_t st = spgemm_check(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, spgemmDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    struct cusparseSpGEMMDescr *d = spgemmDescr;
    if (bufferSize2 == NULL || !d->estimated || d->rows != matA->rows)
        return CUSPARSE_STATUS_INVALID_VALUE;   /* workEstimation first, with these matrices */
    if (externalBuffer2 == NULL) {   /* the intermediate products, with their columns */
        *bufferSize2 = (size_t)d->products * 12 + (size_t)(d->rows + 1) * 8 + 256;
        return CUSPARSE_STATUS_SUCCESS;
    }
    char name[96];
    double es = (double)elem_size(computeType);
    simlib_kernel k = spgemm_kernel("compute", computeType, 2.0 * (double)d->products,
                                    (double)(matA->nnz + matB->nnz) * (es + 4) + (double)d->products * (es + 4),
                                    name, sizeof name);
    spgemm_out *o = NULL;   /* C's row offsets, written in stream order where they fit */
    if (simlib_fits(matC->offsets_or_rows, (size_t)(d->rows + 1) * index_size(matC->off_type)) &&
        (o = malloc(sizeof *o + (size_t)(d->rows + 1) * sizeof(int64_t))) != NULL) {
        *o = (spgemm_out){.c = *matC, .rows = d->rows, .off = (int64_t *)(o + 1)};
        memcpy(o->off, d->off, (size_t)(d->rows + 1) * sizeof(int64_t));
    }
    if (simlib_launch(handle->stream, &k, 1, o ? spgemm_offsets : NULL, o) != 0)
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    d->computed = 1;
    matC->nnz = d->nnz;   /* cusparseSpMatGetSize tells the program */
    simlib_call_tail();
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpGEMM_copy(cusparseHandle_t handle, cusparseOperation_t opA,
                                               cusparseOperation_t opB, const void *alpha,
                                               cusparseConstSpMatDescr_t matA, cusparseConstSpMatDescr_t matB,
                                               const void *beta, cusparseSpMatDescr_t matC, cudaDataType computeType,
                                               cusparseSpGEMMAlg_t alg, cusparseSpGEMMDescr_t spgemmDescr)
{
    (void)alg;
    cusparseStatus_t st = spgemm_check(handle, opA, opB, alpha, matA, matB, beta, matC, computeType, spgemmDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    struct cusparseSpGEMMDescr *d = spgemmDescr;
    if (!d->computed || matC->nnz != d->nnz || (d->nnz > 0 && (matC->ind == NULL || matC->values == NULL)))
        return CUSPARSE_STATUS_INVALID_VALUE;   /* compute first, and C's arrays set */
    int dbl = computeType == CUDA_R_64F;
    spgemm_out *o = NULL;
    if (sp_fits(matC)) {   /* else timed only: a kernel would fault */
        size_t noff = (size_t)(d->rows + 1), nnz = (size_t)d->nnz;
        o = malloc(sizeof *o + (noff + nnz) * sizeof(int64_t) + nnz * sizeof(double));   /* one block: */
        if (o == NULL)                                      /* simlib_launch frees it on failure */
            return CUSPARSE_STATUS_ALLOC_FAILED;
        *o = (spgemm_out){.c = *matC, .rows = d->rows, .nnz = d->nnz, .dbl = dbl};
        o->off = (int64_t *)(o + 1);
        o->col = o->off + noff;
        o->val = (double *)(o->col + nnz);
        memcpy(o->off, d->off, sizeof *o->off * (size_t)(d->rows + 1));
        memcpy(o->col, d->col, sizeof *o->col * (size_t)d->nnz);
        memcpy(o->val, d->val, sizeof *o->val * (size_t)d->nnz);
        if (handle->mode == CUSPARSE_POINTER_MODE_HOST)
            o->alpha = host_or_device_scalar(alpha, dbl), o->beta = host_or_device_scalar(beta, dbl);
        else
            o->alpha_p = alpha, o->beta_p = beta;
    }
    char name[96];
    simlib_kernel k = spgemm_kernel("copy", computeType, 0,
                                    (double)d->nnz * (elem_size(computeType) + 4) * 2 + (double)(d->rows + 1) * 4,
                                    name, sizeof name);
    if (simlib_launch(handle->stream, &k, 1, o ? spgemm_write : NULL, o) != 0)
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    simlib_call_tail();
    return CUSPARSE_STATUS_SUCCESS;
}

/* ---- SpSV ---------------------------------------------------------------- */

struct cusparseSpSVDescr {
    uint32_t magic;   /* SPSV_MAGIC until destroyed */
    int analysed;     /* analysis has run */
};

typedef struct spsv_job {
    struct cusparseSpMatDescr a;
    struct cusparseDnVecDescr x, y;
    int trans, dbl;
    double alpha;          /* host pointer mode */
    const void *alpha_p;   /* device pointer mode: read in the job */
} spsv_job;

typedef struct tri_entry {
    int64_t i, j;   /* row and column of op(A) */
    double v;
} tri_entry;

static int cmp_row(const void *x, const void *y)
{
    const tri_entry *a = x, *b = y;
    return (a->i > b->i) - (a->i < b->i);
}

/* Solves op(A) y = alpha x by substitution on the triangle the fill mode
 * names (the other one is ignored, as cuSPARSE does), the diagonal 1 when
 * unit; a zero diagonal gives inf or NaN, as on the GPU. */
static void spsv_run(void *arg)
{
    spsv_job *j = arg;
    const struct cusparseSpMatDescr *a = &j->a;
    int64_t n = a->rows, *rc = NULL;
    double alpha = j->alpha_p ? host_or_device_scalar(j->alpha_p, j->dbl) : j->alpha;
    int lower = (a->fill == CUSPARSE_FILL_MODE_LOWER) != (j->trans != 0);
    tri_entry *e = malloc(sizeof *e * (size_t)(a->nnz ? a->nnz : 1));
    int64_t *start = calloc((size_t)n + 1, sizeof *start);
    double *diag = calloc((size_t)(n ? n : 1), sizeof *diag), *y = calloc((size_t)(n ? n : 1), sizeof *y);
    if (e == NULL || start == NULL || diag == NULL || y == NULL || sp_entries(a, &rc) != 0)
        goto out;
    int64_t m = 0;
    for (int64_t k = 0; k < a->nnz; k++) {
        int64_t r = rc[2 * k], c = rc[2 * k + 1];
        if (r < 0 || r >= n || c < 0 || c >= n)
            continue;   /* out of the matrix: a kernel would fault */
        int64_t i = j->trans ? c : r, col = j->trans ? r : c;
        double v = val_at(a->values, j->dbl, k);
        if (i == col)
            diag[i] += v;
        else if (lower ? col < i : col > i)
            e[m++] = (tri_entry){i, col, v};
    }
    qsort(e, (size_t)m, sizeof *e, cmp_row);
    for (int64_t t = 0; t < m; t++)
        start[e[t].i + 1]++;
    for (int64_t i = 0; i < n; i++)
        start[i + 1] += start[i];
    for (int64_t s = 0; s < n; s++) {
        int64_t i = lower ? s : n - 1 - s;
        double sum = alpha * val_at(j->x.values, j->dbl, i);
        for (int64_t t = start[i]; t < start[i + 1]; t++)
            sum -= e[t].v * y[e[t].j];
        y[i] = a->diag == CUSPARSE_DIAG_TYPE_UNIT ? sum : sum / diag[i];
    }
    for (int64_t i = 0; i < n; i++)
        val_set(j->y.values, j->dbl, i, y[i]);
out:
    free(rc);
    free(e);
    free(start);
    free(diag);
    free(y);
    free(j);
}

static struct cusparseSpSVDescr *spsv_of(cusparseSpSVDescr_t d)
{
    return d != NULL && d->magic == SPSV_MAGIC ? d : NULL;
}

SP_EXPORT cusparseStatus_t cusparseSpSV_createDescr(cusparseSpSVDescr_t *descr)
{
    if (descr == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    struct cusparseSpSVDescr *d = calloc(1, sizeof *d);
    if (d == NULL)
        return CUSPARSE_STATUS_ALLOC_FAILED;
    d->magic = SPSV_MAGIC;
    *descr = d;
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpSV_destroyDescr(cusparseSpSVDescr_t descr)
{
    struct cusparseSpSVDescr *d = spsv_of(descr);
    if (d == NULL)
        return descr == NULL ? CUSPARSE_STATUS_SUCCESS : CUSPARSE_STATUS_INVALID_VALUE;
    d->magic = 0;
    free(d);
    return CUSPARSE_STATUS_SUCCESS;
}

static cusparseStatus_t spsv_check(cusparseHandle_t h, cusparseOperation_t op, const void *alpha,
                                   cusparseConstSpMatDescr_t a, cusparseConstDnVecDescr_t x, cusparseDnVecDescr_t y,
                                   cudaDataType compute, cusparseSpSVDescr_t d)
{
    if (handle_of(h) == NULL)
        return CUSPARSE_STATUS_NOT_INITIALIZED;
    if (a == NULL || x == NULL || y == NULL || alpha == NULL || spsv_of(d) == NULL || op > 2)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (a->rows != a->cols || x->size != a->rows || y->size != a->rows)
        return CUSPARSE_STATUS_INVALID_VALUE;
    if (a->format != CUSPARSE_FORMAT_CSR && a->format != CUSPARSE_FORMAT_COO)
        return CUSPARSE_STATUS_NOT_SUPPORTED;
    (void)compute;
    return CUSPARSE_STATUS_SUCCESS;
}

/* The analysis keeps a level set per row: the buffer the solve needs. */
static size_t spsv_buffer(const struct cusparseSpMatDescr *a)
{
    return (size_t)(a->rows + 1) * 16 + 256;
}

SP_EXPORT cusparseStatus_t cusparseSpSV_bufferSize(cusparseHandle_t handle, cusparseOperation_t opA,
                                                   const void *alpha, cusparseConstSpMatDescr_t matA,
                                                   cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
                                                   cudaDataType computeType, cusparseSpSVAlg_t alg,
                                                   cusparseSpSVDescr_t spsvDescr, size_t *bufferSize)
{
    (void)alg;
    cusparseStatus_t st = spsv_check(handle, opA, alpha, matA, vecX, vecY, computeType, spsvDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (bufferSize == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    *bufferSize = spsv_buffer(matA);
    return CUSPARSE_STATUS_SUCCESS;
}

static const char *type_name(cudaDataType t)
{
    return t == CUDA_R_64F ? "double" : t == CUDA_R_32F ? "float" : "other";
}

SP_EXPORT cusparseStatus_t cusparseSpSV_analysis(cusparseHandle_t handle, cusparseOperation_t opA,
                                                 const void *alpha, cusparseConstSpMatDescr_t matA,
                                                 cusparseConstDnVecDescr_t vecX, cusparseDnVecDescr_t vecY,
                                                 cudaDataType computeType, cusparseSpSVAlg_t alg,
                                                 cusparseSpSVDescr_t spsvDescr, void *externalBuffer)
{
    (void)alg;
    cusparseStatus_t st = spsv_check(handle, opA, alpha, matA, vecX, vecY, computeType, spsvDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (externalBuffer == NULL)
        return CUSPARSE_STATUS_INVALID_VALUE;
    char name[96];
    snprintf(name, sizeof name, "cusparse::spsv_analysis_kernel<%s>", type_name(computeType));
    simlib_kernel k = {.name = name, .threads = (double)matA->rows + 1, .block = 128,
                       .cls = CUSIM_KERNEL_ELEMENTWISE, .bytes = (double)matA->nnz * 4 + (double)matA->rows * 12};
    if (simlib_launch(handle->stream, &k, 1, NULL, NULL) != 0)
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    spsvDescr->analysed = 1;
    simlib_call_tail();
    return CUSPARSE_STATUS_SUCCESS;
}

SP_EXPORT cusparseStatus_t cusparseSpSV_solve(cusparseHandle_t handle, cusparseOperation_t opA, const void *alpha,
                                              cusparseConstSpMatDescr_t matA, cusparseConstDnVecDescr_t vecX,
                                              cusparseDnVecDescr_t vecY, cudaDataType computeType,
                                              cusparseSpSVAlg_t alg, cusparseSpSVDescr_t spsvDescr)
{
    (void)alg;
    cusparseStatus_t st = spsv_check(handle, opA, alpha, matA, vecX, vecY, computeType, spsvDescr);
    if (st != CUSPARSE_STATUS_SUCCESS)
        return st;
    if (!spsvDescr->analysed)
        return CUSPARSE_STATUS_INVALID_VALUE;   /* analysis first */
    int dbl = computeType == CUDA_R_64F;
    double es = (double)elem_size(computeType), nnz = (double)matA->nnz, n = (double)matA->rows;
    spsv_job *j = NULL;
    if (computable(computeType) && matA->type == computeType && vecX->type == computeType &&
        vecY->type == computeType && simlib_compute(nnz + n) && sp_fits(matA) &&
        simlib_fits(vecX->values, (size_t)vecX->size * (size_t)es) &&
        simlib_fits(vecY->values, (size_t)vecY->size * (size_t)es)) {   /* else timed only */
        j = calloc(1, sizeof *j);
        if (j == NULL)
            return CUSPARSE_STATUS_ALLOC_FAILED;
        *j = (spsv_job){.a = *matA, .x = *vecX, .y = *vecY, .trans = opA != CUSPARSE_OPERATION_NON_TRANSPOSE,
                        .dbl = dbl};
        if (handle->mode == CUSPARSE_POINTER_MODE_HOST)
            j->alpha = host_or_device_scalar(alpha, dbl);
        else
            j->alpha_p = alpha;
    }
    char name[96];
    snprintf(name, sizeof name, "cusparse::spsv_solve_kernel<%s>", type_name(computeType));
    simlib_kernel k = {.name = name, .threads = n, .block = 128, .cls = CUSIM_KERNEL_GEMM, .flops = 2.0 * nnz,
                       .bytes = nnz * (es + 4) + n * (4 + 2 * es), .prec_bits = dbl ? 64 : 32};
    if (simlib_launch(handle->stream, &k, 1, j ? spsv_run : NULL, j) != 0)
        return CUSPARSE_STATUS_EXECUTION_FAILED;
    simlib_call_tail();
    return CUSPARSE_STATUS_SUCCESS;
}
