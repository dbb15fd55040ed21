/*
 * cusolver.c - libcusolver.so.12 of the simulated device: cuSOLVER's dense
 * handle (cusolverDn.h) and the factorizations programs use most, in S and
 * D: LU (getrf, with or without pivots; getrs, plain or transposed) and
 * Cholesky (potrf, lower or upper; potrs), computed on the CPU in stream
 * order in double and written back with devInfo as LAPACK defines it (the
 * first zero pivot, the first minor not positive definite); QR (geqrf) and
 * the symmetric eigensolver (syevd) timed only, devInfo 0. The batched
 * Cholesky: cusolver_batched.c; the SVD (gesvd): cusolver_svd.c.
 * Each call queues one kernel on the handle's stream (a traced
 * cudaLaunchKernel of the library's static runtime, simlib.h); the real
 * library launches several per call (panels, trailing updates). The
 * bufferSize calls ask for n*64 elements (geqrf, gesvd, syevd more), and a
 * call whose workspace is missing or short is CUSOLVER_STATUS_INVALID_VALUE.
 */
#include "cusolver_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define A(i, j) a[(i) + (long long)(j) * m]

/* The matrix as doubles, column-major with leading dimension rows. */
double *solver_load(const void *p, int dbl, int rows, int cols, int ld)
{
    double *a = malloc(sizeof *a * (size_t)(rows > 0 && cols > 0 ? rows * cols : 1));
    if (a != NULL)
        for (int j = 0; j < cols; j++)
            for (int i = 0; i < rows; i++)
                a[i + (long long)j * rows] = get(p, dbl, i + (long long)j * ld);
    return a;
}

void solver_store(void *p, int dbl, const double *a, int rows, int cols, int ld)
{
    for (int j = 0; j < cols; j++)
        for (int i = 0; i < rows; i++)
            put(p, dbl, i + (long long)j * ld, a[i + (long long)j * rows]);
}

static int getrf(double *a, int m, int n, int *ipiv)
{
    int info = 0;
    for (int j = 0; j < (m < n ? m : n); j++) {
        int p = j;
        if (ipiv != NULL) {
            for (int i = j + 1; i < m; i++)
                if (fabs(A(i, j)) > fabs(A(p, j)))
                    p = i;
            ipiv[j] = p + 1;
            if (p != j)
                for (int k = 0; k < n; k++) {
                    double t = A(j, k);
                    A(j, k) = A(p, k);
                    A(p, k) = t;
                }
        }
        if (A(j, j) == 0) {
            if (info == 0)
                info = j + 1;
            continue;
        }
        for (int i = j + 1; i < m; i++)
            A(i, j) /= A(j, j);
        for (int k = j + 1; k < n; k++)
            for (int i = j + 1; i < m; i++)
                A(i, k) -= A(i, j) * A(j, k);
    }
    return info;
}

static void getrs(const double *a, int m, const int *ipiv, int trans, double *b, int nrhs)
{
    int n = m;
    for (int c = 0; c < nrhs; c++) {
        double *x = b + (long long)c * n;
        if (!trans) {
            for (int i = 0; ipiv && i < n; i++) {
                if (ipiv[i] < 1 || ipiv[i] > n)
                    continue;   /* not a pivot getrf wrote */
                double t = x[i];
                x[i] = x[ipiv[i] - 1];
                x[ipiv[i] - 1] = t;
            }
            for (int i = 0; i < n; i++) /* L y = P b, L unit */
                for (int k = 0; k < i; k++)
                    x[i] -= A(i, k) * x[k];
            for (int i = n - 1; i >= 0; i--) { /* U x = y */
                for (int k = i + 1; k < n; k++)
                    x[i] -= A(i, k) * x[k];
                x[i] /= A(i, i);
            }
        } else {
            for (int i = 0; i < n; i++) { /* U^T y = b */
                for (int k = 0; k < i; k++)
                    x[i] -= A(k, i) * x[k];
                x[i] /= A(i, i);
            }
            for (int i = n - 1; i >= 0; i--) /* L^T z = y */
                for (int k = i + 1; k < n; k++)
                    x[i] -= A(k, i) * x[k];
            for (int i = n - 1; ipiv && i >= 0; i--) {
                if (ipiv[i] < 1 || ipiv[i] > n)
                    continue;
                double t = x[i];
                x[i] = x[ipiv[i] - 1];
                x[ipiv[i] - 1] = t;
            }
        }
    }
}

/* L(i, j) of a Cholesky factor kept in the lower or the upper triangle. */
#define L(i, j) (*(upper ? &A(j, i) : &A(i, j)))

int solver_potrf(double *a, int m, int upper)
{
    for (int j = 0; j < m; j++) {
        double d = L(j, j);
        for (int k = 0; k < j; k++)
            d -= L(j, k) * L(j, k);
        if (!(d > 0))
            return j + 1;
        L(j, j) = sqrt(d);
        for (int i = j + 1; i < m; i++) {
            double s = L(i, j);
            for (int k = 0; k < j; k++)
                s -= L(i, k) * L(j, k);
            L(i, j) = s / L(j, j);
        }
    }
    return 0;
}

void solver_potrs(const double *a, int m, int upper, double *b, int nrhs)
{
    for (int c = 0; c < nrhs; c++) {
        double *x = b + (long long)c * m;
        for (int i = 0; i < m; i++) {
            for (int k = 0; k < i; k++)
                x[i] -= L(i, k) * x[k];
            x[i] /= L(i, i);
        }
        for (int i = m - 1; i >= 0; i--) {
            for (int k = i + 1; k < m; k++)
                x[i] -= L(k, i) * x[k];
            x[i] /= L(i, i);
        }
    }
}

static void solve_run(void *arg)
{
    solve_job *j = arg;
    int info = 0;
    if (j->own_run != NULL) {   /* a routine of cusolver_batched.c: it does all */
        j->own_run(j);
        return;
    }
    if (j->compute) {
        int rows = j->op == OP_GETRF ? j->m : j->n;
        double *a = solver_load(j->a, j->dbl, rows, j->n, j->lda), *b = NULL;
        if (j->op == OP_GETRS || j->op == OP_POTRS)
            b = solver_load(j->b, j->dbl, j->n, j->nrhs, j->ldb);
        if (a != NULL && (b != NULL || j->op == OP_GETRF || j->op == OP_POTRF)) {
            switch (j->op) {
            case OP_GETRF:
                info = getrf(a, j->m, j->n, j->ipiv);
                solver_store(j->a, j->dbl, a, j->m, j->n, j->lda);
                break;
            case OP_POTRF:
                info = solver_potrf(a, j->n, j->upper);
                solver_store(j->a, j->dbl, a, j->n, j->n, j->lda);
                break;
            case OP_GETRS:
                getrs(a, j->n, j->ipiv, j->trans, b, j->nrhs);
                solver_store(j->b, j->dbl, b, j->n, j->nrhs, j->ldb);
                break;
            case OP_POTRS:
                solver_potrs(a, j->n, j->upper, b, j->nrhs);
                solver_store(j->b, j->dbl, b, j->n, j->nrhs, j->ldb);
                break;
            case OP_TIMED:
            case OP_OWN:   /* (handled above) */
                break;
            }
        }
        free(a);
        free(b);
    }
    if (j->info != NULL)
        *j->info = info;
    free(j);
}

/* ---- the handle --------------------------------------------------------- */

SOLVER_EXPORT cusolverStatus_t cusolverDnCreate(cusolverDnHandle_t *handle)
{
    if (handle == NULL)
        return CUSOLVER_STATUS_INVALID_VALUE;
    cusim_init();
    cusolverDnHandle_t h = calloc(1, sizeof *h);
    if (h == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    h->magic = HANDLE_MAGIC;
    *handle = h;
    return CUSOLVER_STATUS_SUCCESS;
}

SOLVER_EXPORT cusolverStatus_t cusolverDnDestroy(cusolverDnHandle_t handle)
{
    cusolverDnHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    h->magic = 0;
    free(h);
    return CUSOLVER_STATUS_SUCCESS;
}

SOLVER_EXPORT cusolverStatus_t cusolverDnSetStream(cusolverDnHandle_t handle, cudaStream_t streamId)
{
    cusolverDnHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    h->stream = streamId;
    return CUSOLVER_STATUS_SUCCESS;
}

SOLVER_EXPORT cusolverStatus_t cusolverDnGetStream(cusolverDnHandle_t handle, cudaStream_t *streamId)
{
    cusolverDnHandle_t h = handle_of(handle);
    if (h == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (streamId == NULL)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *streamId = h->stream;
    return CUSOLVER_STATUS_SUCCESS;
}

SOLVER_EXPORT cusolverStatus_t cusolverGetVersion(int *version)
{
    if (version == NULL)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *version = CUSOLVER_VERSION;
    return CUSOLVER_STATUS_SUCCESS;
}

SOLVER_EXPORT cusolverStatus_t cusolverGetProperty(libraryPropertyType type, int *value)
{
    int ok = simlib_property(type, CUSOLVER_VER_MAJOR, CUSOLVER_VER_MINOR, CUSOLVER_VER_PATCH, value) == 0;
    return ok ? CUSOLVER_STATUS_SUCCESS : CUSOLVER_STATUS_INVALID_VALUE;
}

/* ---- the routines ------------------------------------------------------- */

/* 1 when the matrices, pivots a routine touches lie in device memory of
 * their size (simlib_fits). */
static int buffers_fit(const solve_job *j)
{
    if (j->own_run != NULL)
        return 1;   /* it checks its own, matrix by matrix */
    size_t es = j->dbl ? 8 : 4;
    size_t a = j->n > 0 ? ((size_t)j->lda * (size_t)(j->n - 1) + (size_t)(j->op == OP_GETRF ? j->m : j->n)) * es : 0;
    size_t b = j->nrhs > 0 ? ((size_t)j->ldb * (size_t)(j->nrhs - 1) + (size_t)j->n) * es : 0;
    int ok = simlib_fits(j->a, a);
    if (j->op == OP_GETRS || j->op == OP_POTRS)
        ok = ok && simlib_fits(j->b, b);
    if (j->ipiv != NULL)
        ok = ok && simlib_fits(j->ipiv, sizeof(int) * (size_t)(j->op == OP_GETRF ? (j->m < j->n ? j->m : j->n) : j->n));
    return ok;
}

/* The kernels an H200 ran for each routine (tests/fixtures/h200-580.159.04/
 * solver_dense: CUPTI's mangled names, %c the precision, d or f), in order;
 * the one marked MAIN does the routine's work (its flops, its result), the
 * others are cuSOLVER's small set-up and pivot kernels. Routines not listed
 * (geqrf, syevd) run as one kernel of their own name. gesvd's is its
 * bidiagonalization only (the real one also runs ~100 rotation kernels and
 * cuBLAS GEMMs). */
#define MAIN "*"
static const struct {
    const char *what;
    int trans;   /* getrs: 1 transposed; -1 either */
    const char *const k[7];
} routine_kernels[] = {
    {"getrf", -1, {"_Z19xxtrf4_set_info_keriPi",
                   MAIN "_Z11getrf_pivotI13getrf_params_I%cLi64ELi1ELi64ELi64ELi1EEEviiiPviPliPNT_9data_typeEPjS7_S6_jjjPi",
                   "_Z16ipiv_lower_smallI%cLi64EEviPviPlii", "_Z15create_pivot_v2ILi64EEviPiPli",
                   "_Z15ipiv_lower_diagI%cLi64EEviPviPii", "_Z17ipiv_64_to_32_kerILi128EEvlPKlPi"}},
    {"getrs", 0, {"_Z16copy_info_kerneliPi", "_Z13laswp_kernel2I%cLb0EiEviPT_miiPKT1_i", "_Z10dtrsv_initPi",
                  "_Z12trsv_ln_execI%cLj32ELj32ELj4ELb1EEviPKT_lPS0_lPi", "_Z13dtrsv_init_upPii",
                  MAIN "_Z15trsv_ln_exec_upI%cLj32ELj32ELj4ELb0EEviPKT_lPS0_lPi"}},
    {"getrs", 1, {"_Z16copy_info_kerneliPi", "_Z10dtrsv_initPi",
                  "_Z15trsv_lt_exec_upI%cLj32ELj32ELj4ELb0ELb0EEviPKT_lPS0_lPi", "_Z13dtrsv_init_upPii",
                  MAIN "_Z12trsv_lt_execI%cLj32ELj32ELj4ELb1ELb0EEviPKT_lPS0_lPi",
                  "_Z21laswp_kernel2_reverseI%cLb0EiEviPT_miiPKT1_i"}},
    {"potrf", -1, {"_Z19potrf_alg2_set_infoiiPi", MAIN "_Z20potrf_alg2_cta_upperI%c%cLi32EEviiPT_mPi",
                   "_Z21potrf_alg2_reset_infoPi"}},
    {"potrs", -1, {"_Z16copy_info_kerneliPi", "_Z10dtrsv_initPi",
                   "_Z15trsv_lt_exec_upI%cLj32ELj32ELj4ELb0ELb0EEviPKT_lPS0_lPi", "_Z13dtrsv_init_upPii",
                   MAIN "_Z15trsv_ln_exec_upI%cLj32ELj32ELj4ELb0EEviPKT_lPS0_lPi"}},
    {"gesvd", -1, {MAIN "_Z9gebd2_ctaI%c%cLi32ELi4EEvllPT_lPT0_S3_S1_S1_"}},
};

/* Queues routine `what` (getrf, potrs, ...) of j on the handle's stream:
 * its kernels (routine_kernels), the result with the main one. */
cusolverStatus_t solver_run(cusolverDnHandle_t h, const char *what, solve_job *j, double flops, double elems)
{
    char name[160], fmt[160];
    const char *const *ks = NULL;
    const char *own[2] = {NULL, NULL};
    char pc = j->dbl ? 'd' : 'f';
    for (size_t i = 0; i < sizeof routine_kernels / sizeof routine_kernels[0] && !ks; i++)
        if (!strcmp(routine_kernels[i].what, what) &&
            (routine_kernels[i].trans < 0 || routine_kernels[i].trans == (j->trans != 0)))
            ks = routine_kernels[i].k;
    if (ks == NULL) {   /* one kernel named after the routine */
        snprintf(fmt, sizeof fmt, MAIN "cusolver::%s_kernel<%s>", what, j->dbl ? "double" : "float");
        own[0] = fmt;
        ks = own;
    }
    j->compute = j->op != OP_TIMED && simlib_compute(flops / 2) && buffers_fit(j);
    if (!simlib_fits(j->info, sizeof *j->info))
        j->info = NULL;   /* nowhere a kernel could write it */
    int handed = 0;   /* j went with the main kernel (freed by it or its job) */
    for (int i = 0; i < 7 && ks[i]; i++) {
        int main_k = ks[i][0] == '*';
        snprintf(name, sizeof name, ks[i] + main_k, pc, pc);
        simlib_kernel k = {.name = name, .threads = main_k ? elems / 4 : 32, .block = main_k ? 256 : 32,
                           .cls = main_k ? CUSIM_KERNEL_GEMM : CUSIM_KERNEL_ELEMENTWISE,
                           .flops = main_k ? flops : 0, .bytes = main_k ? 2.0 * elems * (j->dbl ? 8 : 4) : 64,
                           .prec_bits = j->dbl ? 64 : 32};
        /* each launch costs the CPU its own, as the library's launches do:
         * small kernels start inside the call, as on a GPU that keeps up */
        int r = simlib_launch(h->stream, &k, 1, main_k ? solve_run : NULL, main_k ? j : NULL);
        handed |= main_k;
        if (r != 0) {
            if (!handed)
                free(j);
            return CUSOLVER_STATUS_EXECUTION_FAILED;
        }
    }
    if (!handed)
        free(j);   /* (every listed routine has a main kernel) */
    simlib_call_tail();
    return CUSOLVER_STATUS_SUCCESS;
}

solve_job *solver_job_new(enum op op, int dbl)
{
    solve_job *j = calloc(1, sizeof *j);
    if (j != NULL) {
        j->op = op;
        j->dbl = dbl;
    }
    return j;
}

static cusolverStatus_t getrf_size(cusolverDnHandle_t h, int m, int n, int lda, int *lwork)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || lwork == NULL)
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = (n > 0 ? n : 1) * WORK_PER_COL;
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t getrf_call(cusolverDnHandle_t h, int dbl, int m, int n, void *a, int lda, void *work,
                                   int *ipiv, int *info)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || lda < (m > 1 ? m : 1) || work == NULL || info == NULL || (m * n > 0 && a == NULL))
        return CUSOLVER_STATUS_INVALID_VALUE;
    solve_job *j = solver_job_new(OP_GETRF, dbl);
    if (j == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    j->m = m, j->n = n, j->a = a, j->lda = lda, j->ipiv = ipiv, j->info = info;
    double k = m < n ? m : n;
    return solver_run(h, "getrf", j, 2.0 * m * n * k - (m + n) * k * k + 2.0 / 3.0 * k * k * k, (double)m * n);
}

static cusolverStatus_t getrs_call(cusolverDnHandle_t h, int dbl, cublasOperation_t trans, int n, int nrhs,
                                   const void *a, int lda, const int *ipiv, void *b, int ldb, int *info)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || nrhs < 0 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || info == NULL ||
        (trans != CUBLAS_OP_N && trans != CUBLAS_OP_T && trans != CUBLAS_OP_C))
        return CUSOLVER_STATUS_INVALID_VALUE;
    solve_job *j = solver_job_new(OP_GETRS, dbl);
    if (j == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    j->n = n, j->nrhs = nrhs, j->a = (void *)a, j->lda = lda, j->ipiv = (int *)ipiv, j->b = b, j->ldb = ldb;
    j->info = info, j->trans = trans != CUBLAS_OP_N;
    return solver_run(h, "getrs", j, 2.0 * n * n * nrhs, (double)n * n + (double)n * nrhs);
}

static cusolverStatus_t potrf_size(cusolverDnHandle_t h, cublasFillMode_t uplo, int n, int lda, int *lwork)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || lda < (n > 1 ? n : 1) || lwork == NULL || (uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER))
        return CUSOLVER_STATUS_INVALID_VALUE;
    *lwork = (n > 0 ? n : 1) * WORK_PER_COL;
    return CUSOLVER_STATUS_SUCCESS;
}

static cusolverStatus_t potrf_call(cusolverDnHandle_t h, int dbl, cublasFillMode_t uplo, int n, void *a, int lda,
                                   void *work, int lwork, int *info)
{
    int need;
    cusolverStatus_t st = potrf_size(h, uplo, n, lda, &need);
    if (st != CUSOLVER_STATUS_SUCCESS)
        return st;
    if (work == NULL || lwork < need || info == NULL || (n > 0 && a == NULL))
        return CUSOLVER_STATUS_INVALID_VALUE;
    solve_job *j = solver_job_new(OP_POTRF, dbl);
    if (j == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    j->n = n, j->a = a, j->lda = lda, j->info = info, j->upper = uplo == CUBLAS_FILL_MODE_UPPER;
    return solver_run(h, "potrf", j, (double)n * n * n / 3.0, (double)n * n);
}

static cusolverStatus_t potrs_call(cusolverDnHandle_t h, int dbl, cublasFillMode_t uplo, int n, int nrhs,
                                   const void *a, int lda, void *b, int ldb, int *info)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (n < 0 || nrhs < 0 || lda < (n > 1 ? n : 1) || ldb < (n > 1 ? n : 1) || info == NULL ||
        (uplo != CUBLAS_FILL_MODE_LOWER && uplo != CUBLAS_FILL_MODE_UPPER))
        return CUSOLVER_STATUS_INVALID_VALUE;
    solve_job *j = solver_job_new(OP_POTRS, dbl);
    if (j == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    j->n = n, j->nrhs = nrhs, j->a = (void *)a, j->lda = lda, j->b = b, j->ldb = ldb, j->info = info;
    j->upper = uplo == CUBLAS_FILL_MODE_UPPER;
    return solver_run(h, "potrs", j, 2.0 * n * n * nrhs, (double)n * n + (double)n * nrhs);
}

/* A routine timed only: its kernel, and devInfo 0 in stream order. */
static cusolverStatus_t timed(cusolverDnHandle_t h, const char *what, int dbl, int m, int n, void *work, int lwork,
                              int need, int *info, double flops)
{
    if (handle_of(h) == NULL)
        return CUSOLVER_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || work == NULL || lwork < need || info == NULL)
        return CUSOLVER_STATUS_INVALID_VALUE;
    solve_job *j = solver_job_new(OP_TIMED, dbl);
    if (j == NULL)
        return CUSOLVER_STATUS_ALLOC_FAILED;
    j->info = info;
    return solver_run(h, what, j, flops, (double)m * n);
}

int solver_big_work(int m, int n)
{
    int k = m > n ? m : n;
    return (k > 0 ? k : 1) * WORK_PER_COL * 2 + m * n;
}

#define SIZE_CHECK(h, m, n, lwork)                                                               \
    do {                                                                                         \
        if (handle_of(h) == NULL)                                                                \
            return CUSOLVER_STATUS_NOT_INITIALIZED;                                              \
        if ((m) < 0 || (n) < 0 || (lwork) == NULL)                                               \
            return CUSOLVER_STATUS_INVALID_VALUE;                                                \
        *(lwork) = solver_big_work(m, n);                                                        \
        return CUSOLVER_STATUS_SUCCESS;                                                          \
    } while (0)

/* The S and D entry points of each routine. */
#define SOLVER_PAIR(T, P, DBL)                                                                                    \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##getrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *a,     \
                                                                   int lda, int *lwork)                          \
    {                                                                                                             \
        (void)a;                                                                                                  \
        return getrf_size(h, m, n, lda, lwork);                                                                   \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##getrf(cusolverDnHandle_t h, int m, int n, T *a, int lda,       \
                                                        T *work, int *ipiv, int *info)                           \
    {                                                                                                             \
        return getrf_call(h, DBL, m, n, a, lda, work, ipiv, info);                                                \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##getrs(cusolverDnHandle_t h, cublasOperation_t trans, int n,    \
                                                        int nrhs, const T *a, int lda, const int *ipiv, T *b,    \
                                                        int ldb, int *info)                                      \
    {                                                                                                             \
        return getrs_call(h, DBL, trans, n, nrhs, a, lda, ipiv, b, ldb, info);                                    \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##potrf_bufferSize(cusolverDnHandle_t h, cublasFillMode_t uplo,  \
                                                                   int n, T *a, int lda, int *lwork)             \
    {                                                                                                             \
        (void)a;                                                                                                  \
        return potrf_size(h, uplo, n, lda, lwork);                                                                \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##potrf(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,      \
                                                        T *a, int lda, T *work, int lwork, int *info)            \
    {                                                                                                             \
        return potrf_call(h, DBL, uplo, n, a, lda, work, lwork, info);                                            \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##potrs(cusolverDnHandle_t h, cublasFillMode_t uplo, int n,      \
                                                        int nrhs, const T *a, int lda, T *b, int ldb, int *info) \
    {                                                                                                             \
        return potrs_call(h, DBL, uplo, n, nrhs, a, lda, b, ldb, info);                                           \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##geqrf_bufferSize(cusolverDnHandle_t h, int m, int n, T *a,     \
                                                                   int lda, int *lwork)                          \
    {                                                                                                             \
        (void)a, (void)lda;                                                                                       \
        SIZE_CHECK(h, m, n, lwork);                                                                               \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##geqrf(cusolverDnHandle_t h, int m, int n, T *a, int lda,       \
                                                        T *tau, T *work, int lwork, int *info)                   \
    {                                                                                                             \
        (void)a, (void)lda, (void)tau;                                                                            \
        double k = m < n ? m : n;                                                                                 \
        return timed(h, "geqrf", DBL, m, n, work, lwork, solver_big_work(m, n), info,                             \
                     2.0 * m * n * k - (m + n) * k * k + 2.0 / 3.0 * k * k * k);                                  \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##gesvd_bufferSize(cusolverDnHandle_t h, int m, int n,           \
                                                                   int *lwork)                                   \
    {                                                                                                             \
        SIZE_CHECK(h, m, n, lwork);                                                                               \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##syevd_bufferSize(cusolverDnHandle_t h, cusolverEigMode_t jobz, \
                                                                   cublasFillMode_t uplo, int n, const T *a,     \
                                                                   int lda, const T *w, int *lwork)              \
    {                                                                                                             \
        (void)jobz, (void)uplo, (void)a, (void)lda, (void)w;                                                      \
        SIZE_CHECK(h, n, n, lwork);                                                                               \
    }                                                                                                             \
    SOLVER_EXPORT cusolverStatus_t cusolverDn##P##syevd(cusolverDnHandle_t h, cusolverEigMode_t jobz,            \
                                                        cublasFillMode_t uplo, int n, T *a, int lda, T *w,       \
                                                        T *work, int lwork, int *info)                           \
    {                                                                                                             \
        (void)jobz, (void)uplo, (void)a, (void)lda, (void)w;                                                      \
        return timed(h, "syevd", DBL, n, n, work, lwork, solver_big_work(n, n), info, 9.0 * n * n * n);           \
    }

SOLVER_PAIR(float, S, 0)
SOLVER_PAIR(double, D, 1)
