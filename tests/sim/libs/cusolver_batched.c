/*
 * cusolver_batched.c - the simulated cuSOLVER's batched Cholesky, as
 * cusolverDn.h declares it and NVIDIA's CUDALibrarySamples
 * (cuSOLVER/potrfBatched) use it: potrfBatched factors each matrix of an
 * array of device pointers (infoArray: one LAPACK info per matrix),
 * potrsBatched solves with each factor (nrhs 1 only, as the header says; one
 * info for the call). S and D, computed in double on the CPU by the job of
 * the routine's kernel, in stream order: the pointer arrays are read there
 * (the program may copy them just before the call, asynchronously). A
 * matrix whose buffer does not fit its size is skipped (a kernel would
 * fault); over CUSIM_COMPUTE_MAX, timed only (infos 0).
 */
#include "cusolver_internal.h"

#include <stdlib.h>

typedef struct batched_job {
    solve_job j;        /* first: the job solver_run queues and frees */
    void *const *a;     /* device array of batch matrix pointers */
    void *const *b;     /* potrs: device array of batch right-hand sides */
    int batch;
    int potrs;
} batched_job;

/* 1 when the n-column matrix at p (leading dimension ld) fits its buffer. */
static int matrix_fits(const void *p, int dbl, int rows, int cols, int ld)
{
    size_t es = dbl ? 8 : 4;
    return cols <= 0 || simlib_fits(p, ((size_t)ld * (size_t)(cols - 1) + (size_t)rows) * es);
}

static void batched_run(solve_job *sj)
{
    batched_job *bj = (batched_job *)sj;
    int n = sj->n, arrays = simlib_fits(bj->a, sizeof(void *) * (size_t)bj->batch) &&
                            (!bj->potrs || simlib_fits(bj->b, sizeof(void *) * (size_t)bj->batch));
    int infos = sj->info != NULL && simlib_fits(sj->info, sizeof(int) * (size_t)(bj->potrs ? 1 : bj->batch));
    for (int i = 0; i < bj->batch; i++) {
        int info = 0;
        void *a = arrays ? bj->a[i] : NULL, *b = arrays && bj->potrs ? bj->b[i] : NULL;
        if (sj->compute && a != NULL && matrix_fits(a, sj->dbl, n, n, sj->lda) &&
            (!bj->potrs || (b != NULL && matrix_fits(b, sj->dbl, n, sj->nrhs, sj->ldb)))) {
            double *m = solver_load(a, sj->dbl, n, n, sj->lda), *x = NULL;
            if (bj->potrs)
                x = solver_load(b, sj->dbl, n, sj->nrhs, sj->ldb);
            if (m != NULL && !bj->potrs) {
                info = solver_potrf(m, n, sj->upper);
                solver_store(a, sj->dbl, m, n, n, sj->lda);
            } else if (m != NULL && x != NULL) {
                solver_potrs(m, n, sj->upper, x, sj->nrhs);
                solver_store(b, sj->dbl, x, n, sj->nrhs, sj->ldb);
            }
            free(m);
            free(x);
        }
        if (infos && !bj->potrs)
            sj->info[i] = info;
    }
    if (infos && bj->potrs)
        *sj->info = 0;
    free(bj);
}

static cusolverStatus_t batched(cusolverDnHandle_t h, int dbl, int potrs, cublasFillMode_t uplo, int n, int nrhs,
                                void *const *a, int lda, void *const *b, int ldb, int *info, int batch)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < (n > 1 ? n : 1) || batch < 0 || info == NULL || (batch > 0 && a == NULL) ||
        (uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER))
        return CUSOLVER_STATUS_INVALID_VALUE;
    if (potrs && (nrhs != 1 || ldb < (n > 1 ? n : 1) || (batch > 0 && b == NULL)))
        return CUSOLVER_STATUS_INVALID_VALUE;   /* "only support rhs = 1" */
    batched_job *bj = calloc(1, sizeof *bj);
    if (bj == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    bj->j = (solve_job){.op = OP_OWN, .dbl = dbl, .n = n, .nrhs = nrhs, .lda = lda, .ldb = ldb, .info = info,
                        .upper = uplo == CUBLAS_FILL_MODE_UPPER, .own_run = batched_run};
    bj->a = a, bj->b = b, bj->batch = batch, bj->potrs = potrs;
    double nn = (double)n * n, flops = potrs ? 2.0 * nn * nrhs : nn * n / 3.0;
    return solver_run(h, potrs ? "potrsBatched" : "potrfBatched", &bj->j, flops * batch,
                      (nn + (potrs ? (double)n * nrhs : 0)) * batch);
}

#define BATCHED(T, P, DBL)                                                                                        \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##potrfBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, \
                                                               T *Aarray[], int lda, int *infoArray, int batchSize) \
    {                                                                                                             \
        return batched(h, DBL, 0, uplo, n, 1, (void *const *)Aarray, lda, NULL, 1, infoArray, batchSize);        \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##potrsBatched(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, \
                                                               int nrhs, T *A[], int lda, T *B[], int ldb,        \
                                                               int *d_info, int batchSize)                        \
    {                                                                                                             \
        return batched(h, DBL, 1, uplo, n, nrhs, (void *const *)A, lda, (void *const *)B, ldb, d_info, batchSize); \
    }

BATCHED(float, S, 0)
BATCHED(double, D, 1)
