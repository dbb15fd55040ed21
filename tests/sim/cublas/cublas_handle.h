/*
 * cublas_handle.h - what a simulated cublasHandle_t points to, shared by the
 * hand-written entry points (cublas.c, blas_data.c, blas_compute.c) and the
 * generated ones (gen_blas.sh -> build/sim/cublas/blas_timed.c).
 */
#ifndef CUBLAS_HANDLE_H
#define CUBLAS_HANDLE_H

#include "simblas.h"

#include <cublas_api.h>

#define SIMBLAS_HANDLE_MAGIC 0xb1a5c0deu

/* What cublasHandle_t points to. */
struct cublasContext {
    uint32_t magic;            /* SIMBLAS_HANDLE_MAGIC while alive */
    cudaStream_t stream;       /* cublasSetStream; NULL = legacy default stream */
    cublasMath_t math;         /* cublasSetMathMode */
    cublasPointerMode_t pmode; /* where alpha/beta/results live (both readable here) */
    void *user_ws;             /* cublasSetWorkspace (accepted, not used) */
    size_t user_ws_size;       /* its size in bytes */
    cublasAtomicsMode_t atomics; /* cublasSetAtomicsMode (stored only) */
    int sm_target;             /* cublasSetSmCountTarget (stored only; 0 = all SMs) */
    simblas_ctx engine;        /* cold-start state and our own workspace */
};

static inline int simblas_handle_ok(cublasHandle_t h)
{
    return h != NULL && h->magic == SIMBLAS_HANDLE_MAGIC;
}

static inline int simblas_op_ok(cublasOperation_t op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

static inline int64_t simblas_max1(int64_t v)
{
    return v > 1 ? v : 1;
}

/* A GEMM's operations, sizes and leading dimensions as cuBLAS checks them
 * (INVALID_VALUE when this is 0): op(A) is m x k, op(B) k x n, C m x n. */
static inline int simblas_gemm_dims_ok(cublasOperation_t ta, cublasOperation_t tb, int64_t m,
                                       int64_t n, int64_t k, int64_t batch, int64_t lda,
                                       int64_t ldb, int64_t ldc)
{
    return simblas_op_ok(ta) && simblas_op_ok(tb) && m >= 0 && n >= 0 && k >= 0 && batch >= 0 &&
           lda >= simblas_max1(ta == CUBLAS_OP_N ? m : k) &&
           ldb >= simblas_max1(tb == CUBLAS_OP_N ? k : n) && ldc >= simblas_max1(m);
}

/* A routine of the generated or hand-written set: checks the handle, then
 * simblas_run_routine on the handle's stream. NOT_INITIALIZED for a bad
 * handle, INVALID_VALUE for negative sizes, EXECUTION_FAILED for a dead
 * stream. */
SIMBLAS_INTERNAL cublasStatus_t simblas_call(cublasHandle_t handle, const simblas_routine *r,
                                             int64_t m, int64_t n, int64_t k, int64_t batch,
                                             void (*job)(void *), void *arg);

#endif /* CUBLAS_HANDLE_H */
