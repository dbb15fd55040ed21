/*
 * test_util.h - what the simulated cuBLAS/cuBLASLt test files share: a cusim
 * tool that records what the device sees, device buffers with typed element
 * access, a tolerance check, and a whole cuBLASLt problem set up in one call.
 */
#ifndef SIMBLAS_TEST_UTIL_H
#define SIMBLAS_TEST_UTIL_H

#include <check.h>
#include <cublasLt.h>
#include <cublas_v2.h>

#include "cusim.h"
#include "simblas.h" /* the half/bf16 conversions and the cost constants */

/* ---- the recording tool ------------------------------------------------------ */

#define REC_MAX 64

typedef struct rec_api {
    uint32_t cbid;    /* CUPTI_RUNTIME_TRACE_CBID_*, or _DRIVER_ when driver */
    int driver;       /* a driver-API call */
    uint32_t corr;    /* correlation id */
    char symbol[256]; /* symbol_name at enter ("" if NULL) */
    int exited;       /* api_exit seen */
} rec_api;

typedef struct test_recording {
    int napi;                        /* calls entered */
    rec_api api[REC_MAX];            /* in order of entry */
    int nkern;                       /* kernels queued */
    cusim_kernel_activity kern[REC_MAX];
    cusim_kernel_desc desc[REC_MAX]; /* copies of kern[i].desc */
    int ncopy;                       /* copies and memsets queued */
    cusim_copy_activity copy[REC_MAX];
} test_recording;

/* What the tool saw since rec_start(). */
extern test_recording rec;

/* Clears the recording and attaches the tool; rec_stop detaches it. */
void rec_start(void);
void rec_stop(void);
/* Name of the last kernel queued (interned by the library, lives forever). */
const char *last_kernel(void);
/* Checks that the api calls from index first_api on are exactly cuBLAS 13's
 * (GEMM_SEQ_CALLS of them): cudaGetDevice, cuKernelGetAttribute x2,
 * cudaGetDevice, then a driver cuLaunchKernelEx whose correlation id the
 * last kernel carries. */
#define GEMM_SEQ_CALLS 5
void expect_gemm_sequence(int first_api, const char *what);

/* ---- data ------------------------------------------------------------------- */

/* Device memory (cusim_mem_alloc), never NULL. */
void *dev(size_t bytes);
/* Bytes per element of CUDA_R_32F / 16F / 16BF. */
size_t esize(cudaDataType t);
/* Element i of a typed array, as float. */
void put(void *p, cudaDataType t, size_t i, float v);
float get(const void *p, cudaDataType t, size_t i);
/* Deterministic small values, exact in fp16 and bf16 (multiples of 1/4). */
float val(size_t i, int salt);
/* Device array of count elements filled with val(i, salt). */
void *fill(cudaDataType t, size_t count, int salt);
/* op(X)(r, c) of a column-major matrix with leading dimension ld. */
double at(const void *x, cudaDataType t, int trans, int ld, int r, int c);
/* Waits for the device like a program's cudaDeviceSynchronize before it
 * reads results: a driver with deferred host work computes them there. */
void wait_results(void);
/* Fails the test unless got is within the output type's tolerance of want. */
void expect_close(double got, double want, cudaDataType t, const char *what, int i, int j);

/* ---- a cuBLASLt problem ------------------------------------------------------ */
/* A whole Lt problem: D = epi(alpha op(A) op(B) + beta C + bias). */
typedef struct lt_case {
    cudaDataType t;            /* A, B, C, D and bias type */
    cublasOperation_t ta, tb;
    int m, n, k;
    cublasLtEpilogue_t epi;
    float beta;
} lt_case;

typedef struct lt_run {
    cublasLtHandle_t h;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, lc;
    void *A, *B, *C, *D, *bias;
    cublasLtMatmulHeuristicResult_t algo;
} lt_run;

/* Creates the handle, descriptors, operands (filled) and asks the heuristic. */
void lt_setup(lt_run *r, const lt_case *c);
/* One cublasLtMatmul of the problem with alpha 1 and this beta. */
cublasStatus_t lt_matmul(lt_run *r, float beta);
void lt_teardown(lt_run *r);

/* ---- the suites ------------------------------------------------------------- */

TCase *cublas_tcase(void);   /* test_sim_cublas.c */
TCase *cublaslt_tcase(void); /* test_sim_cublaslt.c */
TCase *trace_tcase(void);    /* test_sim_trace.c */
TCase *blas_tcase(void);     /* test_sim_blas.c */

#endif /* SIMBLAS_TEST_UTIL_H */
