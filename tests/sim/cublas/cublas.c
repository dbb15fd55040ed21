/*
 * cublas.c - the simulated libcublas.so.13: handles and the GEMM family, with
 * the real CUDA 13 prototypes (cublas_v2.h maps cublasCreate and friends to
 * the *_v2 names exported here).
 *
 * Every GEMM goes through simblas_run: cold start on the handle's first
 * GEMM, cuBLAS 13's traced call sequence ending in a driver cuLaunchKernelEx
 * of a cuBLAS-style kernel (gemm_launch.c), and the result computed on the CPU (deferred until the
 * program can observe it) up to CUSIM_COMPUTE_MAX; beyond it the output is
 * left untouched: timing only.
 */
#include "cublas_handle.h"

#include <cublasLt.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

static int handle_ok(cublasHandle_t h)
{
    return simblas_handle_ok(h);
}

EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    struct cublasContext *h;
    if (handle == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cusim_init();
    /* like the real library, refuse a cuBLASLt from another release */
    if (cublasLtGetVersion() / 100 != CUBLAS_VERSION / 100)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    h = calloc(1, sizeof *h);
    if (h == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = SIMBLAS_HANDLE_MAGIC;
    h->math = CUBLAS_DEFAULT_MATH;
    h->pmode = CUBLAS_POINTER_MODE_HOST;
    *handle = h;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    simblas_ctx_release(&handle->engine);
    handle->magic = 0;
    free(handle);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    (void)handle; /* the real one answers without a handle too */
    if (version == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = CUBLAS_VERSION;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT const char *cublasGetStatusName(cublasStatus_t status)
{
    return simblas_status_name(status);
}

EXPORT const char *cublasGetStatusString(cublasStatus_t status)
{
    return simblas_status_string(status);
}

EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    handle->stream = streamId;
    /* the real one drops a user workspace when the stream changes */
    handle->user_ws = NULL;
    handle->user_ws_size = 0;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (streamId == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = handle->stream;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                            size_t workspaceSizeInBytes)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (workspace == NULL && workspaceSizeInBytes != 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->user_ws = workspace;
    handle->user_ws_size = workspaceSizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, cublasMath_t mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (((unsigned)mode & ~(unsigned)CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION) > 15u)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->math = mode;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->math;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_POINTER_MODE_HOST && mode != CUBLAS_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->pmode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->pmode;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- library and handle settings: stored and read back ------------------- */

EXPORT cublasStatus_t cublasGetProperty(libraryPropertyType type, int *value)
{
    if (value == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    switch (type) {
    case MAJOR_VERSION:
        *value = CUBLAS_VER_MAJOR;
        return CUBLAS_STATUS_SUCCESS;
    case MINOR_VERSION:
        *value = CUBLAS_VER_MINOR;
        return CUBLAS_STATUS_SUCCESS;
    case PATCH_LEVEL:
        *value = CUBLAS_VER_PATCH;
        return CUBLAS_STATUS_SUCCESS;
    default:
        return CUBLAS_STATUS_INVALID_VALUE;
    }
}

EXPORT size_t cublasGetCudartVersion(void)
{
    return 13000; /* the runtime it was built with, as the sim's cudart reports */
}

EXPORT cublasStatus_t cublasSetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != CUBLAS_ATOMICS_NOT_ALLOWED && mode != CUBLAS_ATOMICS_ALLOWED)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->atomics = mode;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = handle->atomics;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (smCountTarget < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    handle->sm_target = smCountTarget;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetSmCountTarget(cublasHandle_t handle, int *smCountTarget)
{
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (smCountTarget == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *smCountTarget = handle->sm_target;
    return CUBLAS_STATUS_SUCCESS;
}

/* The logger: accepted; the sim has nothing to log. */
static cublasLogCallback log_callback;

EXPORT cublasStatus_t cublasLoggerConfigure(int logIsOn, int logToStdOut, int logToStdErr,
                                            const char *logFileName)
{
    (void)logIsOn;
    (void)logToStdOut;
    (void)logToStdErr;
    (void)logFileName;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetLoggerCallback(cublasLogCallback userCallback)
{
    log_callback = userCallback;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetLoggerCallback(cublasLogCallback *userCallback)
{
    if (userCallback == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *userCallback = log_callback;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- routines outside the GEMM engine (blas_compute.c, blas_timed.c) ---- */

cublasStatus_t simblas_call(cublasHandle_t handle, const simblas_routine *r, int64_t m,
                            int64_t n, int64_t k, int64_t batch, void (*job)(void *), void *arg)
{
    if (!handle_ok(handle)) {
        free(arg);
        return CUBLAS_STATUS_NOT_INITIALIZED;
    }
    cusim_init();
    if (simblas_run_routine(&handle->engine, handle->stream, r, m, n, k, batch, job, arg) != 0)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- the GEMM family ------------------------------------------------------ */

/* One GEMM call's arguments, whichever entry point it came through. */
typedef struct gemm_args {
    cublasOperation_t transa, transb;
    int64_t m, n, k;
    const void *alpha, *beta; /* host or device memory: both readable here */
    simblas_matrix a, b, c;   /* c is also the output */
    int64_t batch;
    cublasComputeType_t compute;
} gemm_args;

/* Checks the argument values as cuBLAS does (INVALID_VALUE). */
static cublasStatus_t check_shape(const gemm_args *x)
{
    if (!simblas_gemm_dims_ok(x->transa, x->transb, x->m, x->n, x->k, x->batch, x->a.ld, x->b.ld,
                              x->c.ld))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (x->alpha == NULL || x->beta == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}

/* Checks the type combination for the compute type; sets *half_scalars when
 * alpha/beta are __half (COMPUTE_16F). */
static cublasStatus_t check_types(const gemm_args *x, int *half_scalars)
{
    cudaDataType at = x->a.type;
    *half_scalars = 0;
    switch (x->compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
        if (at != CUDA_R_16F || x->b.type != CUDA_R_16F || x->c.type != CUDA_R_16F)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        *half_scalars = 1;
        return CUBLAS_STATUS_SUCCESS;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
        if (simblas_dtype_size(at) == 0 || x->b.type != at)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        if (x->c.type != at && x->c.type != CUDA_R_32F)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        return CUBLAS_STATUS_SUCCESS;
    default:
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
}

static float scalar(const void *p, int half)
{
    uint16_t h;
    if (!half)
        return *(const float *)p;
    __builtin_memcpy(&h, p, sizeof h);
    return simblas_f16_to_f32(h);
}

static cublasStatus_t gemm(cublasHandle_t handle, const gemm_args *x)
{
    simblas_gemm g = {0};
    cublasStatus_t st;
    int half_scalars;
    if (!handle_ok(handle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cusim_init();
    if ((st = check_shape(x)) != CUBLAS_STATUS_SUCCESS ||
        (st = check_types(x, &half_scalars)) != CUBLAS_STATUS_SUCCESS)
        return st;
    if (x->m == 0 || x->n == 0 || x->batch == 0)
        return CUBLAS_STATUS_SUCCESS; /* nothing to do: no kernel, as in cuBLAS */
    g.trans_a = x->transa != CUBLAS_OP_N;
    g.trans_b = x->transb != CUBLAS_OP_N;
    g.m = x->m;
    g.n = x->n;
    g.k = x->k;
    if (x->batch > INT32_MAX)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    g.batch = (int)x->batch;
    g.a = x->a;
    g.b = x->b;
    g.c = g.d = x->c;
    g.alpha = scalar(x->alpha, half_scalars);
    g.beta = scalar(x->beta, half_scalars);
    g.acc16 = half_scalars;
    g.tf32 = x->a.type == CUDA_R_32F &&
             (x->compute == CUBLAS_COMPUTE_32F_FAST_TF32 ||
              (x->compute == CUBLAS_COMPUTE_32F && (handle->math & 0xf) == CUBLAS_TF32_TENSOR_OP_MATH));
    if (simblas_run(&handle->engine, handle->stream, &g, -1) != 0)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}

static simblas_matrix mat(const void *p, cudaDataType t, int64_t ld, long long stride)
{
    simblas_matrix m = {.ptr = p, .array = NULL, .type = t, .ld = ld, .stride = stride};
    return m;
}

static cublasComputeType_t compute_32f(cublasHandle_t handle)
{
    return handle != NULL && (handle->math & 0xf) == CUBLAS_PEDANTIC_MATH
               ? CUBLAS_COMPUTE_32F_PEDANTIC
               : CUBLAS_COMPUTE_32F;
}

/* A batch of per-matrix pointers (device memory, which is host memory here). */
static cublasStatus_t gemm_arrays(cublasHandle_t handle, gemm_args *x, const void *const *a,
                                  const void *const *b, const void *const *c)
{
    if (x->batch > 0 && (a == NULL || b == NULL || c == NULL))
        return handle_ok(handle) ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_NOT_INITIALIZED;
    x->a.array = a;
    x->b.array = b;
    x->c.array = c;
    return gemm(handle, x);
}

/* Each GEMM entry point twice: with int sizes, and as its _64 form (int64_t
 * sizes, leading dimensions and batch counts), as cublas_api.h declares them. */

#define SGEMM(NAME, I)                                                                            \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const float *alpha,        \
                               const float *A, I lda, const float *B, I ldb, const float *beta,    \
                               float *C, I ldc)                                                    \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(A, CUDA_R_32F, lda, 0),          \
                       mat(B, CUDA_R_32F, ldb, 0), mat(C, CUDA_R_32F, ldc, 0), 1,                 \
                       compute_32f(handle)};                                                       \
        return gemm(handle, &x);                                                                  \
    }
SGEMM(cublasSgemm_v2, int)
SGEMM(cublasSgemm_v2_64, int64_t)

#define SGEMM_STRIDED(NAME, I)                                                                    \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const float *alpha,        \
                               const float *A, I lda, long long int strideA, const float *B,       \
                               I ldb, long long int strideB, const float *beta, float *C, I ldc,   \
                               long long int strideC, I batchCount)                                \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(A, CUDA_R_32F, lda, strideA),    \
                       mat(B, CUDA_R_32F, ldb, strideB), mat(C, CUDA_R_32F, ldc, strideC),        \
                       batchCount, compute_32f(handle)};                                           \
        return gemm(handle, &x);                                                                  \
    }
SGEMM_STRIDED(cublasSgemmStridedBatched, int)
SGEMM_STRIDED(cublasSgemmStridedBatched_64, int64_t)

#define SGEMM_BATCHED(NAME, I)                                                                    \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const float *alpha,        \
                               const float *const Aarray[], I lda, const float *const Barray[],    \
                               I ldb, const float *beta, float *const Carray[], I ldc,             \
                               I batchCount)                                                       \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(NULL, CUDA_R_32F, lda, 0),       \
                       mat(NULL, CUDA_R_32F, ldb, 0), mat(NULL, CUDA_R_32F, ldc, 0), batchCount,  \
                       compute_32f(handle)};                                                       \
        return gemm_arrays(handle, &x, (const void *const *)Aarray, (const void *const *)Barray,  \
                           (const void *const *)Carray);                                           \
    }
SGEMM_BATCHED(cublasSgemmBatched, int)
SGEMM_BATCHED(cublasSgemmBatched_64, int64_t)

/* cublas_api.h declares the H (__half) GEMMs only for C++ (C has no __half
 * type); the symbols are the same, and __half_raw has __half's layout. */
#define HGEMM(NAME, I)                                                                            \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const __half_raw *alpha,   \
                               const __half_raw *A, I lda, const __half_raw *B, I ldb,             \
                               const __half_raw *beta, __half_raw *C, I ldc)                       \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(A, CUDA_R_16F, lda, 0),          \
                       mat(B, CUDA_R_16F, ldb, 0), mat(C, CUDA_R_16F, ldc, 0), 1,                 \
                       CUBLAS_COMPUTE_16F};                                                        \
        return gemm(handle, &x);                                                                  \
    }
HGEMM(cublasHgemm, int)
HGEMM(cublasHgemm_64, int64_t)

#define HGEMM_STRIDED(NAME, I)                                                                    \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const __half_raw *alpha,   \
                               const __half_raw *A, I lda, long long int strideA,                  \
                               const __half_raw *B, I ldb, long long int strideB,                  \
                               const __half_raw *beta, __half_raw *C, I ldc,                       \
                               long long int strideC, I batchCount)                                \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(A, CUDA_R_16F, lda, strideA),    \
                       mat(B, CUDA_R_16F, ldb, strideB), mat(C, CUDA_R_16F, ldc, strideC),        \
                       batchCount, CUBLAS_COMPUTE_16F};                                            \
        return gemm(handle, &x);                                                                  \
    }
HGEMM_STRIDED(cublasHgemmStridedBatched, int)
HGEMM_STRIDED(cublasHgemmStridedBatched_64, int64_t)

#define HGEMM_BATCHED(NAME, I)                                                                    \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const __half_raw *alpha,   \
                               const __half_raw *const Aarray[], I lda,                            \
                               const __half_raw *const Barray[], I ldb, const __half_raw *beta,    \
                               __half_raw *const Carray[], I ldc, I batchCount)                    \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(NULL, CUDA_R_16F, lda, 0),       \
                       mat(NULL, CUDA_R_16F, ldb, 0), mat(NULL, CUDA_R_16F, ldc, 0), batchCount,  \
                       CUBLAS_COMPUTE_16F};                                                        \
        return gemm_arrays(handle, &x, (const void *const *)Aarray, (const void *const *)Barray,  \
                           (const void *const *)Carray);                                           \
    }
HGEMM_BATCHED(cublasHgemmBatched, int)
HGEMM_BATCHED(cublasHgemmBatched_64, int64_t)

#define GEMM_EX(NAME, I)                                                                          \
    EXPORT cublasStatus_t NAME(cublasHandle_t handle, cublasOperation_t transa,                   \
                               cublasOperation_t transb, I m, I n, I k, const void *alpha,         \
                               const void *A, cudaDataType Atype, I lda, const void *B,            \
                               cudaDataType Btype, I ldb, const void *beta, void *C,               \
                               cudaDataType Ctype, I ldc, cublasComputeType_t computeType,         \
                               cublasGemmAlgo_t algo)                                              \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(A, Atype, lda, 0),               \
                       mat(B, Btype, ldb, 0), mat(C, Ctype, ldc, 0), 1, computeType};             \
        (void)algo; /* every algo id maps to the heuristic's choice */                            \
        return gemm(handle, &x);                                                                  \
    }
GEMM_EX(cublasGemmEx, int)
GEMM_EX(cublasGemmEx_64, int64_t)

#define GEMM_STRIDED_EX(NAME, I)                                                                  \
    EXPORT cublasStatus_t NAME(                                                                   \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
        const void *alpha, const void *A, cudaDataType Atype, I lda, long long int strideA,       \
        const void *B, cudaDataType Btype, I ldb, long long int strideB, const void *beta,        \
        void *C, cudaDataType Ctype, I ldc, long long int strideC, I batchCount,                  \
        cublasComputeType_t computeType, cublasGemmAlgo_t algo)                                   \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(A, Atype, lda, strideA),         \
                       mat(B, Btype, ldb, strideB), mat(C, Ctype, ldc, strideC), batchCount,      \
                       computeType};                                                               \
        (void)algo;                                                                               \
        return gemm(handle, &x);                                                                  \
    }
GEMM_STRIDED_EX(cublasGemmStridedBatchedEx, int)
GEMM_STRIDED_EX(cublasGemmStridedBatchedEx_64, int64_t)

#define GEMM_BATCHED_EX(NAME, I)                                                                  \
    EXPORT cublasStatus_t NAME(                                                                   \
        cublasHandle_t handle, cublasOperation_t transa, cublasOperation_t transb, I m, I n, I k, \
        const void *alpha, const void *const Aarray[], cudaDataType Atype, I lda,                 \
        const void *const Barray[], cudaDataType Btype, I ldb, const void *beta,                  \
        void *const Carray[], cudaDataType Ctype, I ldc, I batchCount,                            \
        cublasComputeType_t computeType, cublasGemmAlgo_t algo)                                   \
    {                                                                                             \
        gemm_args x = {transa, transb, m, n, k, alpha, beta, mat(NULL, Atype, lda, 0),            \
                       mat(NULL, Btype, ldb, 0), mat(NULL, Ctype, ldc, 0), batchCount,            \
                       computeType};                                                               \
        (void)algo;                                                                               \
        return gemm_arrays(handle, &x, Aarray, Barray, (const void *const *)Carray);              \
    }
GEMM_BATCHED_EX(cublasGemmBatchedEx, int)
GEMM_BATCHED_EX(cublasGemmBatchedEx_64, int64_t)
