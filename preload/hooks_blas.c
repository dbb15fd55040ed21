/*
 * hooks_blas.c - cuBLAS GEMMs (S, H, D, C, Z, Ex; plain, batched and
 * strided-batched; each with its _64 form) and cublasLtMatmul.
 *
 * A GEMM records m, n, k, batch, transposes, the A and C data types, the
 * compute type, the Lt epilogue, and whether beta != 0 when beta is a host
 * value (then C is read: addmm vs mm). Everything the hook has to ask the
 * library (pointer mode, Lt layouts and descriptor) is asked before the call
 * is timed, inside the guard, with errno kept.
 *
 * cuBLAS and cuBLASLt link cudart statically: the kernels they launch never
 * pass through our launch hooks (CUPTI sees them: collector/cupti.h).
 */
#include <string.h>

#include "preload/hooks.h"

/* What one GEMM call looks like, gathered before the call is timed. */
typedef struct gemm_shape {
    int64_t m, n, k, batch;
    int transa, transb;
    int atype, ctype;  /* cudaDataType of A and of the output */
    int compute;       /* cublasComputeType_t */
    int epilogue;      /* cublasLtEpilogue_t, 0 for cuBLAS */
    int beta_nonzero;  /* 1 when beta is known (host) and != 0 */
} gemm_shape;

static void fill_blas(cuprof_event *ev, const gemm_shape *s)
{
    ev->a.blas.m = preload_u32(s->m);
    ev->a.blas.n = preload_u32(s->n);
    ev->a.blas.k = preload_u32(s->k);
    ev->a.blas.batch = preload_u32(s->batch);
    ev->a.blas.transa = (uint8_t)s->transa;
    ev->a.blas.transb = (uint8_t)s->transb;
    ev->a.blas.atype = (uint8_t)s->atype;
    ev->a.blas.ctype = (uint8_t)s->ctype;
    ev->a.blas.compute = (uint16_t)s->compute;
    ev->a.blas.epilogue = (uint16_t)s->epilogue;
    ev->a.blas.beta_nonzero = (uint8_t)s->beta_nonzero;
}

/* Is the host scalar at p, of type t (the scale type), non-zero? Unknown
 * types read as 0 (not known). The sign bit alone (-0.0) is zero. */
static int scalar_nonzero(const void *p, int t)
{
    uint16_t h;
    uint32_t f[2];
    uint64_t d[2];
    switch (t) {
    case CUDA_R_16F:
    case CUDA_R_16BF: memcpy(&h, p, sizeof h); return (h & 0x7fffu) != 0;
    case CUDA_R_32F: memcpy(f, p, 4); return (f[0] & 0x7fffffffu) != 0;
    case CUDA_C_32F: memcpy(f, p, 8); return ((f[0] | f[1]) & 0x7fffffffu) != 0;
    case CUDA_R_64F: memcpy(d, p, 8); return (d[0] & ~(1ull << 63)) != 0;
    case CUDA_C_64F: memcpy(d, p, 16); return ((d[0] | d[1]) & ~(1ull << 63)) != 0;
    case CUDA_R_32I: memcpy(f, p, 4); return f[0] != 0;
    default: return 0;
    }
}

static int is_complex(int t)
{
    return t == CUDA_C_16F || t == CUDA_C_32F || t == CUDA_C_64F || t == CUDA_C_16BF;
}

/* Type of alpha/beta for a cuBLAS compute type (cublasGemmEx docs). */
static int scale_type(int compute, int ctype)
{
    switch (compute) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC: return CUDA_R_16F;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
    case CUBLAS_COMPUTE_32F_EMULATED_16BFX9: return is_complex(ctype) ? CUDA_C_32F : CUDA_R_32F;
    case CUBLAS_COMPUTE_64F:
    case CUBLAS_COMPUTE_64F_PEDANTIC:
    case CUBLAS_COMPUTE_64F_EMULATED_FIXEDPOINT: return is_complex(ctype) ? CUDA_C_64F : CUDA_R_64F;
    case CUBLAS_COMPUTE_32I:
    case CUBLAS_COMPUTE_32I_PEDANTIC: return ctype == CUDA_R_32F ? CUDA_R_32F : CUDA_R_32I;
    default: return -1;
    }
}

/* beta != 0, read only when the handle says beta lives on the host (reading
 * a device pointer from the host would fault). */
static int cublas_beta_nonzero(cublasHandle_t handle, const void *beta, int type)
{
    preload_cublasGetPointerMode_v2_fn get_mode = PRELOAD_REAL(cublasGetPointerMode_v2);
    if (beta == NULL || get_mode == NULL)
        return 0;
    int *errp = &errno, e = *errp;
    int g = cuprof_guard_enter();
    cublasPointerMode_t mode = CUBLAS_POINTER_MODE_DEVICE;
    cublasStatus_t st = get_mode(handle, &mode);
    cuprof_guard_leave(g);
    *errp = e;
    return st == CUBLAS_STATUS_SUCCESS && mode == CUBLAS_POINTER_MODE_HOST &&
           scalar_nonzero(beta, type);
}

static gemm_shape cublas_shape(cublasHandle_t handle, cublasOperation_t ta, cublasOperation_t tb,
                               int64_t m, int64_t n, int64_t k, int64_t batch, int atype,
                               int ctype, int compute, const void *beta)
{
    gemm_shape s = {m, n, k, batch, ta, tb, atype, ctype, compute, 0, 0};
    s.beta_nonzero = cublas_beta_nonzero(handle, beta, scale_type(compute, ctype));
    return s;
}

/* Brackets one cuBLAS call: the shape is already gathered; `call` is the
 * real call expression, evaluated only when the real function exists. */
#define BLAS_CALL(name, shape, call)                                        \
    do {                                                                    \
        preload_##name##_fn real = PRELOAD_REAL(name);                      \
        preload_call c_ = HOOK_BEGIN(name);                                 \
        if (c_.ev)                                                          \
            fill_blas(c_.ev, &(shape));                                     \
        cublasStatus_t r_ = real ? call : PRELOAD_CUBLAS_MISSING;           \
        return (cublasStatus_t)hook_end(c_, r_);                            \
    } while (0)

PRELOAD_EXPORT cublasStatus_t cublasSgemm_v2 PRELOAD_SIG_SGEMM(int)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, 1, CUDA_R_32F, CUDA_R_32F,
                                CUBLAS_COMPUTE_32F, beta);
    BLAS_CALL(cublasSgemm_v2, s, real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

PRELOAD_EXPORT cublasStatus_t cublasSgemm_v2_64 PRELOAD_SIG_SGEMM(int64_t)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, 1, CUDA_R_32F, CUDA_R_32F,
                                CUBLAS_COMPUTE_32F, beta);
    BLAS_CALL(cublasSgemm_v2_64, s, real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

PRELOAD_EXPORT cublasStatus_t cublasHgemm PRELOAD_SIG_HGEMM(int)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, 1, CUDA_R_16F, CUDA_R_16F,
                                CUBLAS_COMPUTE_16F, beta);
    BLAS_CALL(cublasHgemm, s, real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

PRELOAD_EXPORT cublasStatus_t cublasHgemm_64 PRELOAD_SIG_HGEMM(int64_t)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, 1, CUDA_R_16F, CUDA_R_16F,
                                CUBLAS_COMPUTE_16F, beta);
    BLAS_CALL(cublasHgemm_64, s, real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmEx PRELOAD_SIG_GEMMEX(int)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, 1, Atype, Ctype, computeType, beta);
    BLAS_CALL(cublasGemmEx, s,
              real(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                   Ctype, ldc, computeType, algo));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmEx_64 PRELOAD_SIG_GEMMEX(int64_t)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, 1, Atype, Ctype, computeType, beta);
    BLAS_CALL(cublasGemmEx_64, s,
              real(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb, beta, C,
                   Ctype, ldc, computeType, algo));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmStridedBatchedEx PRELOAD_SIG_GEMMSB(int)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, batchCount, Atype, Ctype,
                                computeType, beta);
    BLAS_CALL(cublasGemmStridedBatchedEx, s,
              real(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                   strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmStridedBatchedEx_64 PRELOAD_SIG_GEMMSB(int64_t)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, batchCount, Atype, Ctype,
                                computeType, beta);
    BLAS_CALL(cublasGemmStridedBatchedEx_64, s,
              real(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype, ldb,
                   strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmBatchedEx PRELOAD_SIG_GEMMB(int)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, batchCount, Atype, Ctype,
                                computeType, beta);
    BLAS_CALL(cublasGemmBatchedEx, s,
              real(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb,
                   beta, Carray, Ctype, ldc, batchCount, computeType, algo));
}

PRELOAD_EXPORT cublasStatus_t cublasGemmBatchedEx_64 PRELOAD_SIG_GEMMB(int64_t)
{
    gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, batchCount, Atype, Ctype,
                                computeType, beta);
    BLAS_CALL(cublasGemmBatchedEx_64, s,
              real(handle, transa, transb, m, n, k, alpha, Aarray, Atype, lda, Barray, Btype, ldb,
                   beta, Carray, Ctype, ldc, batchCount, computeType, algo));
}

/* ---- the typed GEMMs: D, C, Z, and the S/D/C/Z/H batched forms ----------- */

/* Storage and compute type of a typed GEMM's letter: D, C, Z, S, H. */
#define TG_TYPE_D CUDA_R_64F
#define TG_TYPE_C CUDA_C_32F
#define TG_TYPE_Z CUDA_C_64F
#define TG_TYPE_S CUDA_R_32F
#define TG_TYPE_H CUDA_R_16F
#define TG_COMPUTE_D CUBLAS_COMPUTE_64F
#define TG_COMPUTE_C CUBLAS_COMPUTE_32F
#define TG_COMPUTE_Z CUBLAS_COMPUTE_64F
#define TG_COMPUTE_S CUBLAS_COMPUTE_32F
#define TG_COMPUTE_H CUBLAS_COMPUTE_16F
#define TG_CTYPE_D double
#define TG_CTYPE_C cuComplex
#define TG_CTYPE_Z cuDoubleComplex
#define TG_CTYPE_S float
#define TG_CTYPE_H void

#define TGEMM(T, NAME, I)                                                                     \
    PRELOAD_EXPORT cublasStatus_t NAME PRELOAD_SIG_TGEMM(TG_CTYPE_##T, I)                                   \
    {                                                                                         \
        gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, 1, TG_TYPE_##T,          \
                                    TG_TYPE_##T, TG_COMPUTE_##T, beta);                       \
        BLAS_CALL(NAME, s, real(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, \
                                C, ldc));                                                     \
    }
#define TGEMM_SB(T, NAME, I)                                                                  \
    PRELOAD_EXPORT cublasStatus_t NAME PRELOAD_SIG_TGEMMSB(TG_CTYPE_##T, I)                                 \
    {                                                                                         \
        gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, batchCount, TG_TYPE_##T, \
                                    TG_TYPE_##T, TG_COMPUTE_##T, beta);                       \
        BLAS_CALL(NAME, s, real(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B,   \
                                ldb, strideB, beta, C, ldc, strideC, batchCount));            \
    }
#define TGEMM_B(T, NAME, I)                                                                   \
    PRELOAD_EXPORT cublasStatus_t NAME PRELOAD_SIG_TGEMMB(TG_CTYPE_##T, I)                                  \
    {                                                                                         \
        gemm_shape s = cublas_shape(handle, transa, transb, m, n, k, batchCount, TG_TYPE_##T, \
                                    TG_TYPE_##T, TG_COMPUTE_##T, beta);                       \
        BLAS_CALL(NAME, s, real(handle, transa, transb, m, n, k, alpha, Aarray, lda, Barray,  \
                                ldb, beta, Carray, ldc, batchCount));                         \
    }
#define TGEMM_FORMS(T)                                                                        \
    TGEMM_SB(T, cublas##T##gemmStridedBatched, int)                                           \
    TGEMM_SB(T, cublas##T##gemmStridedBatched_64, int64_t)                                    \
    TGEMM_B(T, cublas##T##gemmBatched, int)                                                   \
    TGEMM_B(T, cublas##T##gemmBatched_64, int64_t)

TGEMM(D, cublasDgemm_v2, int)
TGEMM(D, cublasDgemm_v2_64, int64_t)
TGEMM(C, cublasCgemm_v2, int)
TGEMM(C, cublasCgemm_v2_64, int64_t)
TGEMM(Z, cublasZgemm_v2, int)
TGEMM(Z, cublasZgemm_v2_64, int64_t)
TGEMM_FORMS(S)
TGEMM_FORMS(D)
TGEMM_FORMS(C)
TGEMM_FORMS(Z)
TGEMM_FORMS(H)

/* ---- cuBLASLt ------------------------------------------------------------ */

/* Reads one Lt attribute of `size` bytes into buf (zero-extended into a
 * 64-bit slot); leaves it unchanged on any failure. */
static void lt_layout_get(preload_cublasLtMatrixLayoutGetAttribute_fn get,
                          cublasLtMatrixLayout_t l, cublasLtMatrixLayoutAttribute_t attr,
                          void *buf, size_t size)
{
    size_t written = 0;
    if (l != NULL)
        (void)get(l, attr, buf, size, &written);
}

static void lt_desc_get(preload_cublasLtMatmulDescGetAttribute_fn get, cublasLtMatmulDesc_t d,
                        cublasLtMatmulDescAttributes_t attr, int32_t *out)
{
    size_t written = 0;
    int32_t v = 0;
    if (d != NULL && get(d, attr, &v, sizeof v, &written) == CUBLAS_STATUS_SUCCESS &&
        written == sizeof v)
        *out = v;
}

/*
 * The shape of an Lt matmul: m, n from D's layout (the output), k from A's
 * (its columns, or rows when A is transposed), batch from D, transposes,
 * epilogue, compute and scale type and pointer mode from the descriptor.
 */
static gemm_shape lt_shape(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t adesc,
                           cublasLtMatrixLayout_t ddesc, const void *beta)
{
    gemm_shape s = {0};
    preload_cublasLtMatrixLayoutGetAttribute_fn lget =
        PRELOAD_REAL(cublasLtMatrixLayoutGetAttribute);
    preload_cublasLtMatmulDescGetAttribute_fn dget = PRELOAD_REAL(cublasLtMatmulDescGetAttribute);
    if (lget == NULL || dget == NULL)
        return s;
    int *errp = &errno, e = *errp;
    int g = cuprof_guard_enter();

    uint64_t a_rows = 0, a_cols = 0, d_rows = 0, d_cols = 0;
    uint32_t a_type = 0, d_type = 0;
    int32_t batch = 1;
    lt_layout_get(lget, adesc, CUBLASLT_MATRIX_LAYOUT_ROWS, &a_rows, sizeof a_rows);
    lt_layout_get(lget, adesc, CUBLASLT_MATRIX_LAYOUT_COLS, &a_cols, sizeof a_cols);
    lt_layout_get(lget, adesc, CUBLASLT_MATRIX_LAYOUT_TYPE, &a_type, sizeof a_type);
    lt_layout_get(lget, ddesc, CUBLASLT_MATRIX_LAYOUT_ROWS, &d_rows, sizeof d_rows);
    lt_layout_get(lget, ddesc, CUBLASLT_MATRIX_LAYOUT_COLS, &d_cols, sizeof d_cols);
    lt_layout_get(lget, ddesc, CUBLASLT_MATRIX_LAYOUT_TYPE, &d_type, sizeof d_type);
    lt_layout_get(lget, ddesc, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);

    int32_t transa = CUBLAS_OP_N, transb = CUBLAS_OP_N, epilogue = 0, compute = 0;
    int32_t scale = -1, mode = CUBLASLT_POINTER_MODE_HOST;
    lt_desc_get(dget, desc, CUBLASLT_MATMUL_DESC_TRANSA, &transa);
    lt_desc_get(dget, desc, CUBLASLT_MATMUL_DESC_TRANSB, &transb);
    lt_desc_get(dget, desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue);
    lt_desc_get(dget, desc, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &compute);
    lt_desc_get(dget, desc, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &scale);
    lt_desc_get(dget, desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode);

    cuprof_guard_leave(g);
    *errp = e;

    s.m = (int64_t)(d_rows > INT64_MAX ? INT64_MAX : d_rows);
    s.n = (int64_t)(d_cols > INT64_MAX ? INT64_MAX : d_cols);
    uint64_t k = transa == CUBLAS_OP_N ? a_cols : a_rows;
    s.k = (int64_t)(k > INT64_MAX ? INT64_MAX : k);
    s.batch = batch;
    s.transa = transa;
    s.transb = transb;
    s.atype = (int)a_type;
    s.ctype = (int)d_type;
    s.compute = compute;
    s.epilogue = epilogue;
    /* beta is a host value in these two modes; BETA_ZERO says it is 0. */
    if (beta != NULL && (mode == CUBLASLT_POINTER_MODE_HOST ||
                         mode == CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST))
        s.beta_nonzero = scalar_nonzero(beta, scale);
    return s;
}

PRELOAD_EXPORT cublasStatus_t cublasLtMatmul PRELOAD_SIG_LTMATMUL
{
    gemm_shape s = lt_shape(computeDesc, Adesc, Ddesc, beta);
    BLAS_CALL(cublasLtMatmul, s,
              real(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc, beta, C, Cdesc, D, Ddesc,
                   algo, workspace, workspaceSizeInBytes, stream));
}
