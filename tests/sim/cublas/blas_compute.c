/*
 * blas_compute.c - the cuBLAS routines the simulated library computes for
 * real outside the fp32 GEMM engine: the common level-1 routines, GEMV and
 * DGMM in single and double precision, and the GEMM family in double and complex
 * precision (D, C, Z: plain, batched, strided-batched), each also in its _64
 * form.
 *
 * Each is one kernel on the handle's stream (simblas_run_routine: the same
 * traced call sequence as a GEMM), and its result is computed on the CPU by a
 * deferred job, in stream order, before the program can observe it. A routine
 * that returns a scalar (dot, nrm2, asum, iamax, iamin) into host memory
 * (CUBLAS_POINTER_MODE_HOST) waits for it, as the real one does: a traced
 * cudaMemcpyAsync of the result to the host, which blocks because the
 * destination is pageable. Problems over CUSIM_COMPUTE_MAX (m*n*k*batch) are
 * timed only, as in the engine.
 *
 * The arithmetic is plain loops in double (complex double for C and Z): no
 * blocking, no vectors; these are for correctness on small problems.
 */
#include "cublas_handle.h"

#include <complex.h>
#include <cupti_runtime_cbid.h>
#include <generated_cuda_runtime_api_meta.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))

/* Offset of element i of an n-vector with increment inc (BLAS: a negative
 * increment walks the vector from its end). */
static int64_t at(int64_t i, int64_t inc, int64_t n)
{
    return inc >= 0 ? i * inc : (n - 1 - i) * -inc;
}

static double ld(const void *p, int dbl, int64_t i)
{
    return dbl ? ((const double *)p)[i] : (double)((const float *)p)[i];
}

static void st(void *p, int dbl, int64_t i, double v)
{
    if (dbl)
        ((double *)p)[i] = v;
    else
        ((float *)p)[i] = (float)v;
}

/* Where a scalar result goes, and how. */
typedef union scalar_out {
    double d;
    float f;
    int i;
    int64_t l;
} scalar_out;

/* ---- level 1 ------------------------------------------------------------- */

enum l1_op { L1_AXPY, L1_SCAL, L1_COPY, L1_SWAP, L1_DOT, L1_NRM2, L1_ASUM, L1_IAMAX, L1_IAMIN };

typedef struct l1_job {
    enum l1_op op;
    int dbl;            /* double (else float) */
    int64_t n;
    double alpha;       /* axpy, scal: read at the call, as the host-mode API does */
    void *x, *y;
    int64_t incx, incy;
    void *result;       /* scalar results */
    int result_bytes;   /* 4 or 8: float/int or double/int64_t */
} l1_job;

static void put_result(const l1_job *j, double v)
{
    if (j->op == L1_IAMAX || j->op == L1_IAMIN) {
        if (j->result_bytes == 8)
            *(int64_t *)j->result = (int64_t)v;
        else
            *(int *)j->result = (int)v;
    } else {
        st(j->result, j->dbl, 0, v);
    }
}

static void l1_run(void *arg)
{
    l1_job *j = arg;
    int64_t n = j->n;
    double acc = 0.0, best = -1.0;
    int64_t besti = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t xi = at(i, j->incx, n), yi = j->y != NULL ? at(i, j->incy, n) : 0;
        double xv = ld(j->x, j->dbl, xi), t;
        switch (j->op) {
        case L1_AXPY:
            st(j->y, j->dbl, yi, ld(j->y, j->dbl, yi) + j->alpha * xv);
            break;
        case L1_SCAL:
            st(j->x, j->dbl, xi, j->alpha * xv);
            break;
        case L1_COPY:
            st(j->y, j->dbl, yi, xv);
            break;
        case L1_SWAP:
            t = ld(j->y, j->dbl, yi);
            st(j->y, j->dbl, yi, xv);
            st(j->x, j->dbl, xi, t);
            break;
        case L1_DOT:
            acc += xv * ld(j->y, j->dbl, yi);
            break;
        case L1_NRM2:
            acc += xv * xv;
            break;
        case L1_ASUM:
            acc += fabs(xv);
            break;
        case L1_IAMAX:
        case L1_IAMIN:
            t = fabs(xv);
            if (besti == 0 || (j->op == L1_IAMAX ? t > best : t < best)) {
                best = t;
                besti = i + 1; /* 1-based, the first of equals */
            }
            break;
        }
    }
    if (j->op == L1_NRM2)
        acc = sqrt(acc);
    if (j->op == L1_IAMAX || j->op == L1_IAMIN)
        acc = (double)besti;
    if (j->result != NULL)
        put_result(j, acc);
    free(j);
}

static const char *const l1_kernels[2][9] = {
    {"axpy_kernel_val<float, float>", "scal_kernel_val<float, float>", "copy_kernel<float>",
     "swap_kernel<float>", "dot_kernel<float>", "nrm2_kernel<float>", "asum_kernel<float>",
     "iamax_kernel<float>", "iamin_kernel<float>"},
    {"axpy_kernel_val<double, double>", "scal_kernel_val<double, double>", "copy_kernel<double>",
     "swap_kernel<double>", "dot_kernel<double>", "nrm2_kernel<double>", "asum_kernel<double>",
     "iamax_kernel<double>", "iamin_kernel<double>"},
};

/* Copies a host-mode scalar result out: a traced cudaMemcpyAsync that blocks
 * (the destination is pageable host memory), after the job has run. */
static void result_to_host(cublasHandle_t handle, void *dst, const scalar_out *src, size_t bytes)
{
    cusim_api_call c;
    cusim_stream *s = cusim_stream_get(handle->stream, 0);
    cusim_api_begin(&c, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync",
                    &(cudaMemcpyAsync_v3020_params){dst, src, bytes, cudaMemcpyDeviceToHost,
                                                    handle->stream});
    if (s != NULL)
        cusim_memcpy(s, dst, src, bytes, CUSIM_COPY_DTOH, 1, cusim_current_correlation());
    cusim_api_end(&c, s != NULL ? cudaSuccess : cudaErrorInvalidResourceHandle);
}

static cublasStatus_t level1(cublasHandle_t handle, enum l1_op op, int dbl,
                             int64_t n, const void *alpha, const void *x, int64_t incx,
                             const void *y, int64_t incy, void *result, int result_bytes)
{
    simblas_routine r = {l1_kernels[dbl][op], 1, dbl ? 8 : 4, dbl ? 64 : 32};
    scalar_out tmp = {0};
    int host_result = result != NULL && handle->pmode == CUBLAS_POINTER_MODE_HOST;
    cublasStatus_t st_;
    l1_job *j;
    if (!simblas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if ((alpha == NULL && (op == L1_AXPY || op == L1_SCAL)) ||
        (result == NULL && op >= L1_DOT))
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((j = calloc(1, sizeof *j)) == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    j->op = op;
    j->dbl = dbl;
    /* BLAS: a vector with a non-positive increment is empty for these */
    j->n = (op >= L1_NRM2 && incx <= 0) || n < 0 ? 0 : n;
    j->alpha = alpha != NULL ? ld(alpha, dbl, 0) : 0.0;
    j->x = (void *)x;
    j->y = (void *)y;
    j->incx = incx;
    j->incy = incy;
    j->result = host_result ? (void *)&tmp : result;
    j->result_bytes = result_bytes;
    st_ = simblas_call(handle, &r, -1, j->n, -1, -1, l1_run, j);
    if (st_ == CUBLAS_STATUS_SUCCESS && host_result)
        result_to_host(handle, result, &tmp, (size_t)result_bytes);
    return st_;
}

#define L1_XY(NAME, T, DBL, OP, I, CONSTX)                                                        \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, I n, CONSTX T *x, I incx, T *y, I incy)    \
    {                                                                                             \
        return level1(handle, OP, DBL, n, NULL, x, incx, y, incy, NULL, 0);                \
    }
#define L1_AXPY_(NAME, T, DBL, I)                                                                 \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, I n, const T *alpha, const T *x, I incx,   \
                               T *y, I incy)                                                      \
    {                                                                                             \
        return level1(handle, L1_AXPY, DBL, n, alpha, x, incx, y, incy, NULL, 0);          \
    }
#define L1_SCAL_(NAME, T, DBL, I)                                                                 \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, I n, const T *alpha, T *x, I incx)         \
    {                                                                                             \
        return level1(handle, L1_SCAL, DBL, n, alpha, x, incx, NULL, 0, NULL, 0);          \
    }
#define L1_DOT_(NAME, T, DBL, I)                                                                  \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, I n, const T *x, I incx, const T *y,       \
                               I incy, T *result)                                                 \
    {                                                                                             \
        return level1(handle, L1_DOT, DBL, n, NULL, x, incx, y, incy, result, sizeof(T));  \
    }
#define L1_RED(NAME, T, DBL, OP, I, R)                                                            \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, I n, const T *x, I incx, R *result)        \
    {                                                                                             \
        return level1(handle, OP, DBL, n, NULL, x, incx, NULL, 0, result, sizeof(R));      \
    }

#define L1_ALL(S, s, T, DBL, SUF, I)                                                                 \
    L1_AXPY_(cublas##S##axpy_v2##SUF, T, DBL, I)                                                  \
    L1_SCAL_(cublas##S##scal_v2##SUF, T, DBL, I)                                                  \
    L1_XY(cublas##S##copy_v2##SUF, T, DBL, L1_COPY, I, const)                                     \
    L1_XY(cublas##S##swap_v2##SUF, T, DBL, L1_SWAP, I, )                                          \
    L1_DOT_(cublas##S##dot_v2##SUF, T, DBL, I)                                                    \
    L1_RED(cublas##S##nrm2_v2##SUF, T, DBL, L1_NRM2, I, T)                                        \
    L1_RED(cublas##S##asum_v2##SUF, T, DBL, L1_ASUM, I, T)                                        \
    L1_RED(cublasI##s##amax_v2##SUF, T, DBL, L1_IAMAX, I, I)                                      \
    L1_RED(cublasI##s##amin_v2##SUF, T, DBL, L1_IAMIN, I, I)


L1_ALL(S, s, float, 0, , int)
L1_ALL(S, s, float, 0, _64, int64_t)
L1_ALL(D, d, double, 1, , int)
L1_ALL(D, d, double, 1, _64, int64_t)

/* ---- GEMV ---------------------------------------------------------------- */

typedef struct gemv_job {
    int dbl, trans;
    int64_t m, n, lda, incx, incy;
    double alpha, beta;
    const void *a, *x;
    void *y;
} gemv_job;

static void gemv_run(void *arg)
{
    gemv_job *j = arg;
    int64_t ylen = j->trans ? j->n : j->m, xlen = j->trans ? j->m : j->n;
    for (int64_t i = 0; i < ylen; i++) {
        double acc = 0.0, v;
        int64_t yi = at(i, j->incy, ylen);
        for (int64_t l = 0; l < xlen; l++) {
            int64_t ai = j->trans ? l + i * j->lda : i + l * j->lda;
            acc += ld(j->a, j->dbl, ai) * ld(j->x, j->dbl, at(l, j->incx, xlen));
        }
        v = j->alpha * acc;
        if (j->beta != 0.0) /* BLAS: with beta == 0, y is not read */
            v += j->beta * ld(j->y, j->dbl, yi);
        st(j->y, j->dbl, yi, v);
    }
    free(j);
}

static cublasStatus_t gemv(cublasHandle_t handle, int dbl, cublasOperation_t trans,
                           int64_t m, int64_t n, const void *alpha, const void *a, int64_t lda,
                           const void *x, int64_t incx, const void *beta, void *y, int64_t incy)
{
    static const char *const kernels[2][2] = {
        {"gemv2N_kernel<float>", "gemv2T_kernel_val<float>"},
        {"gemv2N_kernel<double>", "gemv2T_kernel_val<double>"},
    };
    int t = trans != CUBLAS_OP_N;
    simblas_routine r = {kernels[dbl][t], 2, dbl ? 8 : 4, dbl ? 64 : 32};
    gemv_job *j;
    if (!simblas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!simblas_op_ok(trans) || m < 0 || n < 0 || lda < simblas_max1(m) || incx == 0 ||
        incy == 0 || alpha == NULL || beta == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((j = malloc(sizeof *j)) == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *j = (gemv_job){dbl, t, m, n, lda, incx, incy, ld(alpha, dbl, 0), ld(beta, dbl, 0), a, x, y};
    if ((double)m * (double)n > (double)simblas_compute_max()) {
        /* timing only: no job; simblas_call frees j */
        return simblas_call(handle, &r, m, n, -1, -1, NULL, j);
    }
    return simblas_call(handle, &r, m, n, -1, -1, gemv_run, j);
}

#define GEMV(NAME, T, DBL, I)                                                                     \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t trans, I m, I n,          \
                               const T *alpha, const T *A, I lda, const T *x, I incx,             \
                               const T *beta, T *y, I incy)                                       \
    {                                                                                             \
        return gemv(handle, DBL, trans, m, n, alpha, A, lda, x, incx, beta, y, incy);      \
    }
GEMV(cublasSgemv_v2, float, 0, int)
GEMV(cublasSgemv_v2_64, float, 0, int64_t)
GEMV(cublasDgemv_v2, double, 1, int)
GEMV(cublasDgemv_v2_64, double, 1, int64_t)

/* ---- DGMM: C = A diag(x) (right) or diag(x) A (left) ---------------------- */

typedef struct dgmm_job {
    int dbl, left;
    int64_t m, n, lda, incx, ldc;
    const void *a, *x;
    void *c;
} dgmm_job;

static void dgmm_run(void *arg)
{
    dgmm_job *j = arg;
    int64_t xlen = j->left ? j->m : j->n;
    for (int64_t c = 0; c < j->n; c++)   /* column by column: C may be A (in place) */
        for (int64_t i = 0; i < j->m; i++) {
            double xv = ld(j->x, j->dbl, j->incx == 0 ? 0 : at(j->left ? i : c, j->incx, xlen));
            st(j->c, j->dbl, i + c * j->ldc, ld(j->a, j->dbl, i + c * j->lda) * xv);
        }
    free(j);
}

static cublasStatus_t dgmm(cublasHandle_t handle, int dbl, cublasSideMode_t mode, int64_t m, int64_t n,
                           const void *a, int64_t lda, const void *x, int64_t incx, void *c, int64_t ldc)
{
    simblas_routine r = {dbl ? "dgmm_kernel<double>" : "dgmm_kernel<float>", 2, dbl ? 8 : 4, dbl ? 64 : 32};
    dgmm_job *j;
    if (!simblas_handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if ((mode != CUBLAS_SIDE_LEFT && mode != CUBLAS_SIDE_RIGHT) || m < 0 || n < 0 || lda < simblas_max1(m) ||
        ldc < simblas_max1(m))
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((j = malloc(sizeof *j)) == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    *j = (dgmm_job){dbl, mode == CUBLAS_SIDE_LEFT, m, n, lda, incx, ldc, a, x, c};
    if ((double)m * (double)n > (double)simblas_compute_max() || a == NULL || x == NULL || c == NULL)
        return simblas_call(handle, &r, m, n, -1, -1, NULL, j);   /* timing only; j freed */
    return simblas_call(handle, &r, m, n, -1, -1, dgmm_run, j);
}

#define DGMM(NAME, T, DBL, I)                                                                     \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasSideMode_t mode, I m, I n, const T *A,  \
                               I lda, const T *x, I incx, T *C, I ldc)                            \
    {                                                                                             \
        return dgmm(handle, DBL, mode, m, n, A, lda, x, incx, C, ldc);                            \
    }
DGMM(cublasSdgmm, float, 0, int)
DGMM(cublasSdgmm_64, float, 0, int64_t)
DGMM(cublasDdgmm, double, 1, int)
DGMM(cublasDdgmm_64, double, 1, int64_t)

/* ---- GEMM in double and complex precision ------------------------------- */

enum ztype { Z_D, Z_C, Z_Z }; /* double, float2, double2 */

typedef struct zgemm_job {
    enum ztype type;
    cublasOperation_t ta, tb;
    int64_t m, n, k, lda, ldb, ldc, batch;
    long long sa, sb, sc;           /* strides (elements) */
    double complex alpha, beta;
    const void *a, *b;
    void *c;
    const void **arrays;            /* 3 * batch pointers (batched forms), owned */
} zgemm_job;

static double complex zld(enum ztype t, const void *p, int64_t i)
{
    switch (t) {
    case Z_C:
        return CMPLX(((const float *)p)[2 * i], ((const float *)p)[2 * i + 1]);
    case Z_Z:
        return CMPLX(((const double *)p)[2 * i], ((const double *)p)[2 * i + 1]);
    default:
        return ((const double *)p)[i];
    }
}

static void zst(enum ztype t, void *p, int64_t i, double complex v)
{
    switch (t) {
    case Z_C:
        ((float *)p)[2 * i] = (float)creal(v);
        ((float *)p)[2 * i + 1] = (float)cimag(v);
        break;
    case Z_Z:
        ((double *)p)[2 * i] = creal(v);
        ((double *)p)[2 * i + 1] = cimag(v);
        break;
    default:
        ((double *)p)[i] = creal(v);
        break;
    }
}

static size_t zsize(enum ztype t)
{
    return t == Z_Z ? 16 : 8;
}

/* op(X)(i, l) of a column-major X with leading dimension ldx. */
static double complex zop(enum ztype t, cublasOperation_t op, const void *x, int64_t ldx,
                          int64_t i, int64_t l)
{
    double complex v = op == CUBLAS_OP_N ? zld(t, x, i + l * ldx) : zld(t, x, l + i * ldx);
    return op == CUBLAS_OP_C ? conj(v) : v;
}

static void zgemm_run(void *arg)
{
    zgemm_job *j = arg;
    size_t es = zsize(j->type);
    for (int64_t b = 0; b < j->batch; b++) {
        const void *a = j->arrays ? j->arrays[b] : (const char *)j->a + (size_t)(b * j->sa) * es;
        const void *bb = j->arrays ? j->arrays[j->batch + b]
                                   : (const char *)j->b + (size_t)(b * j->sb) * es;
        void *c = j->arrays ? (void *)j->arrays[2 * j->batch + b]
                            : (char *)j->c + (size_t)(b * j->sc) * es;
        for (int64_t col = 0; col < j->n; col++)
            for (int64_t row = 0; row < j->m; row++) {
                double complex acc = 0.0, v;
                for (int64_t l = 0; l < j->k; l++)
                    acc += zop(j->type, j->ta, a, j->lda, row, l) *
                           zop(j->type, j->tb, bb, j->ldb, l, col);
                v = j->alpha * acc;
                if (j->beta != 0.0)
                    v += j->beta * zld(j->type, c, row + col * j->ldc);
                zst(j->type, c, row + col * j->ldc, v);
            }
    }
    free(j->arrays);
    free(j);
}

/* j's sizes, operands and scalars are filled; checks them, then runs it. */
static cublasStatus_t zgemm(cublasHandle_t handle, zgemm_job *j,
                            const void *alpha, const void *beta, const void *const *aa,
                            const void *const *ba, const void *const *ca)
{
    static const char *const kernels[3] = {"gemm_kernel<double>", "gemm_kernel<float2>",
                                           "gemm_kernel<double2>"};
    simblas_routine r = {kernels[j->type], 3, (int)zsize(j->type),
                         j->type == Z_C ? 32 : 64};
    int64_t batch = j->batch;
    if (!simblas_handle_ok(handle)) {
        free(j);
        return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    if (!simblas_gemm_dims_ok(j->ta, j->tb, j->m, j->n, j->k, batch, j->lda, j->ldb, j->ldc) ||
        alpha == NULL || beta == NULL ||
        (aa == NULL && (j->a == NULL || j->b == NULL || j->c == NULL) && j->m * j->n * batch > 0) ||
        (aa != NULL && (ba == NULL || ca == NULL))) {
        free(j);
        return CUBLAS_STATUS_INVALID_VALUE;
    }
    j->alpha = zld(j->type, alpha, 0);
    j->beta = zld(j->type, beta, 0);
    if ((double)j->m * (double)j->n * (double)j->k * (double)batch >
        (double)simblas_compute_max()) {
        /* timing only: no job; simblas_call frees j */
        return simblas_call(handle, &r, j->m, j->n, j->k, batch, NULL, j);
    }
    if (aa != NULL) { /* the arrays are device memory the program may reuse: copy now */
        if ((j->arrays = malloc(3 * (size_t)batch * sizeof(void *) + 1)) == NULL) {
            free(j);
            return CUBLAS_STATUS_ALLOC_FAILED;
        }
        memcpy(j->arrays, aa, (size_t)batch * sizeof(void *));
        memcpy(j->arrays + batch, ba, (size_t)batch * sizeof(void *));
        memcpy(j->arrays + 2 * batch, ca, (size_t)batch * sizeof(void *));
    }
    return simblas_call(handle, &r, j->m, j->n, j->k, batch, zgemm_run, j);
}

static zgemm_job *zjob(enum ztype t, cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                       int64_t n, int64_t k, const void *a, int64_t lda, long long sa,
                       const void *b, int64_t ldb, long long sb, void *c, int64_t ldc,
                       long long sc, int64_t batch)
{
    zgemm_job *j = calloc(1, sizeof *j);
    if (j != NULL)
        *j = (zgemm_job){.type = t, .ta = ta, .tb = tb, .m = m, .n = n, .k = k, .lda = lda,
                         .ldb = ldb, .ldc = ldc, .batch = batch, .sa = sa, .sb = sb, .sc = sc,
                         .a = a, .b = b, .c = c};
    return j;
}

#define ZGEMM(NAME, ZT, T, I)                                                                     \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const T *alpha,           \
                               const T *A, I lda, const T *B, I ldb, const T *beta, T *C, I ldc)  \
    {                                                                                             \
        zgemm_job *j = zjob(ZT, transa, transb, m, n, k, A, lda, 0, B, ldb, 0, C, ldc, 0, 1);     \
        return j ? zgemm(handle, j, alpha, beta, NULL, NULL, NULL)                         \
                 : CUBLAS_STATUS_ALLOC_FAILED;                                                    \
    }
#define ZGEMM_STRIDED(NAME, ZT, T, I)                                                             \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const T *alpha,           \
                               const T *A, I lda, long long int strideA, const T *B, I ldb,       \
                               long long int strideB, const T *beta, T *C, I ldc,                 \
                               long long int strideC, I batchCount)                               \
    {                                                                                             \
        zgemm_job *j = zjob(ZT, transa, transb, m, n, k, A, lda, strideA, B, ldb, strideB, C,     \
                            ldc, strideC, batchCount);                                            \
        return j ? zgemm(handle, j, alpha, beta, NULL, NULL, NULL)                         \
                 : CUBLAS_STATUS_ALLOC_FAILED;                                                    \
    }
#define ZGEMM_BATCHED(NAME, ZT, T, I)                                                             \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const T *alpha,           \
                               const T *const Aarray[], I lda, const T *const Barray[], I ldb,    \
                               const T *beta, T *const Carray[], I ldc, I batchCount)             \
    {                                                                                             \
        zgemm_job *j = zjob(ZT, transa, transb, m, n, k, NULL, lda, 0, NULL, ldb, 0, NULL, ldc,   \
                            0, batchCount);                                                       \
        return j ? zgemm(handle, j, alpha, beta, (const void *const *)Aarray,              \
                         (const void *const *)Barray, (const void *const *)Carray)                \
                 : CUBLAS_STATUS_ALLOC_FAILED;                                                    \
    }
#define ZGEMM_ALL(P, ZT, T)                                                                       \
    ZGEMM(cublas##P##gemm_v2, ZT, T, int)                                                         \
    ZGEMM(cublas##P##gemm_v2_64, ZT, T, int64_t)                                                  \
    ZGEMM_STRIDED(cublas##P##gemmStridedBatched, ZT, T, int)                                      \
    ZGEMM_STRIDED(cublas##P##gemmStridedBatched_64, ZT, T, int64_t)                               \
    ZGEMM_BATCHED(cublas##P##gemmBatched, ZT, T, int)                                             \
    ZGEMM_BATCHED(cublas##P##gemmBatched_64, ZT, T, int64_t)

ZGEMM_ALL(D, Z_D, double)
ZGEMM_ALL(C, Z_C, cuComplex)
ZGEMM_ALL(Z, Z_Z, cuDoubleComplex)
