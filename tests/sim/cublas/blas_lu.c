/*
 * blas_lu.c - the batched LU factorization the simulated cuBLAS computes for
 * real: cublasSgetrfBatched and cublasDgetrfBatched.
 *
 * Programs read what getrf leaves behind (NVIDIA's simpleCUBLAS_LU turns the
 * pivots into a permutation matrix, indexing an array with them), so a timed
 * kernel that leaves the pivot array as it was hands such a program garbage
 * indices: it crashed on the simulated device. Here each matrix is factorized
 * as LAPACK's getf2 does (cuBLAS documents the same factorization: P A = L U
 * with partial pivoting, L unit lower triangular, 1-based pivots; without a
 * pivot array, A = L U with no pivoting), in stream order by a deferred job,
 * and info[i] is 0, or k when U(k,k) is exactly zero (the factorization goes
 * on, as LAPACK's does). Problems over CUSIM_COMPUTE_MAX (n^3 * batch) are
 * timed only: the matrices stay as they were, and the pivots (identity) and
 * info (0) are still written, so what a program indexes with them stays in
 * range.
 */
#include "cublas_handle.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

typedef struct getrf_job {
    int dbl;          /* double (else float) */
    int compute;      /* 0: timed only (pivots identity, info 0) */
    int n, lda, batch;
    void **a;         /* batch matrix pointers, copied at the call (owned) */
    int *piv;         /* n per matrix, or NULL: no pivoting */
    int *info;        /* one per matrix */
} getrf_job;

static double lu_ld(const void *p, int dbl, size_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void lu_st(void *p, int dbl, size_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

/* getf2 on one n x n column-major matrix: returns its info. Arithmetic in
 * double, stored back in the matrix's type after each step (so single
 * precision rounds as it goes, as the real one does). */
static int getf2(void *a, int dbl, int n, int lda, int *piv)
{
    int info = 0;
    for (int j = 0; j < n; j++) {
        int p = j;
        if (piv != NULL) {
            double best = fabs(lu_ld(a, dbl, (size_t)j + (size_t)j * lda));
            for (int i = j + 1; i < n; i++) {
                double v = fabs(lu_ld(a, dbl, (size_t)i + (size_t)j * lda));
                if (v > best)
                    best = v, p = i;
            }
            piv[j] = p + 1;
        }
        if (lu_ld(a, dbl, (size_t)p + (size_t)j * lda) == 0.0) {
            if (info == 0)
                info = j + 1;
            continue;   /* nothing to eliminate with (LAPACK goes on) */
        }
        if (p != j)
            for (int c = 0; c < n; c++) {
                size_t x = (size_t)j + (size_t)c * lda, y = (size_t)p + (size_t)c * lda;
                double t = lu_ld(a, dbl, x);
                lu_st(a, dbl, x, lu_ld(a, dbl, y));
                lu_st(a, dbl, y, t);
            }
        double d = lu_ld(a, dbl, (size_t)j + (size_t)j * lda);
        for (int i = j + 1; i < n; i++) {
            size_t x = (size_t)i + (size_t)j * lda;
            lu_st(a, dbl, x, lu_ld(a, dbl, x) / d);
        }
        for (int c = j + 1; c < n; c++) {
            double u = lu_ld(a, dbl, (size_t)j + (size_t)c * lda);
            if (u == 0.0)
                continue;
            for (int i = j + 1; i < n; i++) {
                size_t x = (size_t)i + (size_t)c * lda;
                lu_st(a, dbl, x, lu_ld(a, dbl, x) - lu_ld(a, dbl, (size_t)i + (size_t)j * lda) * u);
            }
        }
    }
    return info;
}

static void getrf_run(void *arg)
{
    getrf_job *j = arg;
    for (int b = 0; b < j->batch; b++) {
        int *piv = j->piv ? j->piv + (size_t)b * j->n : NULL;
        if (j->compute && j->a[b] != NULL) {
            j->info[b] = getf2(j->a[b], j->dbl, j->n, j->lda, piv);
            continue;
        }
        for (int i = 0; piv != NULL && i < j->n; i++)
            piv[i] = i + 1;
        j->info[b] = 0;
    }
    free(j->a);
    free(j);
}

static cublasStatus_t getrf_batched(cublasHandle_t handle, int dbl, int n, void *const a[], int lda,
                                    int *piv, int *info, int batch)
{
    static const simblas_routine kernels[2] = {{"getrf_kernel<float>", 3, 4, 32},
                                               {"getrf_kernel<double>", 3, 8, 64}};
    if (!simblas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    /* cuBLAS: n < 0, lda < max(1, n), batchSize < 0 are invalid; the sim
     * also refuses the arrays it would have to read or write when missing
     * (the real one would fault on the device) */
    if (n < 0 || batch < 0 || lda < simblas_max1(n) ||
        (batch > 0 && (info == NULL || (n > 0 && a == NULL))))
        return CUBLAS_STATUS_INVALID_VALUE;
    getrf_job *j = calloc(1, sizeof *j);
    if (j == NULL || (j->a = malloc((size_t)batch * sizeof *j->a + 1)) == NULL) {
        free(j);
        return CUBLAS_STATUS_ALLOC_FAILED;
    }
    /* the pointer array is device memory the program may reuse: copy it now */
    if (n > 0 && batch > 0)
        memcpy(j->a, a, (size_t)batch * sizeof *j->a);
    else
        memset(j->a, 0, (size_t)batch * sizeof *j->a);
    *j = (getrf_job){dbl, 1, n, lda, batch, j->a, piv, info};
    j->compute = (double)n * n * n * batch <= (double)simblas_compute_max();
    return simblas_call(handle, &kernels[dbl], -1, n, -1, batch, getrf_run, j);
}

EXPORT cublasStatus_t cublasSgetrfBatched(cublasHandle_t handle, int n, float *const A[], int lda, int *P,
                                          int *info, int batchSize)
{
    return getrf_batched(handle, 0, n, (void *const *)A, lda, P, info, batchSize);
}

EXPORT cublasStatus_t cublasDgetrfBatched(cublasHandle_t handle, int n, double *const A[], int lda, int *P,
                                          int *info, int batchSize)
{
    return getrf_batched(handle, 1, n, (void *const *)A, lda, P, info, batchSize);
}
