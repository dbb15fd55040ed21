/*
 * test_sim_blas.c - the simulated cuBLAS beyond the fp32 GEMM engine: the
 * Set/Get Vector/Matrix helpers (strided copies on the device timeline),
 * level-1, GEMV and DGMM routines computed in S and D, the GEMM family in D, C and
 * Z, the _64 forms, the batched LU factorization (computed), and the
 * routines generated as timed kernels.
 */
#include "test_util.h"

#include <complex.h>
#include <cupti_runtime_cbid.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static double *ddev(size_t n, int salt)
{
    double *p = dev(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = val(i, salt);
    return p;
}

static float *sdev(size_t n, int salt)
{
    float *p = dev(n * sizeof *p);
    for (size_t i = 0; i < n; i++)
        p[i] = val(i, salt);
    return p;
}

/* ---- Set/Get Vector/Matrix ----------------------------------------------- */

START_TEST(test_set_get_matrix_round_trip)
{
    enum { ROWS = 5, COLS = 4, LDA = 7, LDB = 6 };
    double host[LDA * COLS], back[LDA * COLS];
    double *d = dev(sizeof(double) * LDB * COLS);
    for (int i = 0; i < LDA * COLS; i++)
        host[i] = i + 0.5;
    memset(d, 0, sizeof(double) * LDB * COLS);
    rec_start();
    ck_assert_int_eq(cublasSetMatrix(ROWS, COLS, sizeof(double), host, LDA, d, LDB),
                     CUBLAS_STATUS_SUCCESS);
    /* one traced cudaMemcpy2D, HtoD, of rows * elemSize bytes per column */
    ck_assert_int_eq(rec.napi, 1);
    ck_assert_uint_eq(rec.api[0].cbid, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020);
    ck_assert_int_eq(rec.ncopy, 1);
    ck_assert_int_eq(rec.copy[0].copy_kind, CUSIM_COPY_HTOD);
    ck_assert_uint_eq(rec.copy[0].bytes, sizeof(double) * ROWS * COLS);
    ck_assert_uint_eq(rec.copy[0].correlation_id, rec.api[0].corr);
    for (int c = 0; c < COLS; c++)
        for (int r = 0; r < ROWS; r++)
            ck_assert(d[r + c * LDB] == host[r + c * LDA]);
    ck_assert(d[ROWS] == 0.0); /* the padding rows are not written */
    memset(back, 0, sizeof back);
    ck_assert_int_eq(cublasGetMatrix(ROWS, COLS, sizeof(double), d, LDB, back, LDA),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.copy[1].copy_kind, CUSIM_COPY_DTOH);
    rec_stop();
    for (int c = 0; c < COLS; c++)
        for (int r = 0; r < ROWS; r++)
            ck_assert(back[r + c * LDA] == host[r + c * LDA]);
    ck_assert_int_eq(cublasSetMatrix(ROWS, COLS, 8, host, ROWS - 1, d, LDB),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasSetMatrix(ROWS, COLS, 0, host, LDA, d, LDB),
                     CUBLAS_STATUS_INVALID_VALUE);
}
END_TEST

START_TEST(test_set_get_vector_strided_async_and_64)
{
    float host[12], back[12];
    float *d = dev(sizeof(float) * 12);
    cusim_stream *cs = cusim_stream_create(0, 0); /* what a cudaStream_t is in the sim */
    cudaStream_t st = (cudaStream_t)cs;
    for (int i = 0; i < 12; i++)
        host[i] = (float)i;
    memset(d, 0, sizeof(float) * 12);
    /* 4 elements, every 2nd host float to every 3rd device float */
    rec_start();
    ck_assert_int_eq(cublasSetVectorAsync(4, sizeof(float), host, 2, d, 3, st),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_uint_eq(rec.api[0].cbid, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020);
    ck_assert_uint_eq(rec.copy[0].stream_id, cusim_stream_id(cusim_stream_get(st, 0)));
    rec_stop();
    cusim_stream_sync(cs);
    for (int i = 0; i < 4; i++)
        ck_assert(d[3 * i] == host[2 * i]);
    ck_assert(d[1] == 0.0f);
    memset(back, 0, sizeof back);
    ck_assert_int_eq(cublasGetVector_64(4, sizeof(float), d, 3, back, 1), CUBLAS_STATUS_SUCCESS);
    for (int i = 0; i < 4; i++)
        ck_assert(back[i] == host[2 * i]);
    ck_assert_int_eq(cublasSetVector(4, sizeof(float), host, 0, d, 1), CUBLAS_STATUS_INVALID_VALUE);
    cusim_stream_destroy(cs);
}
END_TEST

/* ---- level 1 ------------------------------------------------------------- */

START_TEST(test_level1_single_and_double)
{
    enum { N = 37 };
    cublasHandle_t h;
    double *x = ddev(N, 1), *y = ddev(N, 2), x0[N], y0[N], dot = 0, want = 0, ss = 0, asum = 0;
    double nrm = 0;
    float *sx = sdev(2 * N, 3), *sy = sdev(N, 4), sdot = -1;
    double alpha = 1.5;
    int imax = 0, imin = 0;
    int64_t imax64 = 0;
    memcpy(x0, x, sizeof x0);
    memcpy(y0, y, sizeof y0);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasDaxpy(h, N, &alpha, x, 1, y, 1), CUBLAS_STATUS_SUCCESS);
    expect_gemm_sequence(0, "Daxpy");
    ck_assert_str_eq(last_kernel(), "axpy_kernel_val<double, double>");
    ck_assert(rec.desc[0].flops == 2.0 * N);
    /* host pointer mode: the result is there when the call returns, copied
     * by a traced cudaMemcpyAsync after the kernel */
    ck_assert_int_eq(cublasDdot(h, N, x, 1, y, 1, &dot), CUBLAS_STATUS_SUCCESS);
    ck_assert_uint_eq(rec.api[rec.napi - 1].cbid, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
    rec_stop();
    for (int i = 0; i < N; i++) {
        double yi = y0[i] + alpha * x0[i];
        want += x0[i] * yi;
        ss += x0[i] * x0[i];
        asum += fabs(x0[i]);
    }
    ck_assert_double_eq_tol(dot, want, 1e-9);
    ck_assert_int_eq(cublasDnrm2(h, N, x, 1, &nrm), CUBLAS_STATUS_SUCCESS);
    ck_assert_double_eq_tol(nrm, sqrt(ss), 1e-9);
    ck_assert_int_eq(cublasDasum(h, N, x, 1, &dot), CUBLAS_STATUS_SUCCESS);
    ck_assert_double_eq_tol(dot, asum, 1e-9);
    /* iamax/iamin: 1-based, first of equals */
    for (int i = 0; i < N; i++)
        x[i] = 1.0 + 0.125 * i;
    x[10] = -100.0;
    x[20] = 100.0;
    x[5] = 1e-3;
    ck_assert_int_eq(cublasIdamax(h, N, x, 1, &imax), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(imax, 11);
    ck_assert_int_eq(cublasIdamax_v2_64(h, N, x, 1, &imax64), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(imax64, 11);
    ck_assert_int_eq(cublasIdamin(h, N, x, 1, &imin), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(imin, 6);
    /* scal, copy, swap; single precision with an increment of 2 and a
     * negative one (the vector walked from its end) */
    ck_assert_int_eq(cublasDscal(h, N, &alpha, y, 1), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDcopy(h, N, y, 1, x, 1), CUBLAS_STATUS_SUCCESS);
    wait_results();
    ck_assert(x[3] == alpha * (y0[3] + alpha * x0[3]));
    float want_s = 0;
    for (int i = 0; i < N; i++)
        want_s += val((size_t)(2 * i), 3) * val((size_t)(N - 1 - i), 4);
    ck_assert_int_eq(cublasSdot(h, N, sx, 2, sy, -1, &sdot), CUBLAS_STATUS_SUCCESS);
    ck_assert_float_eq_tol(sdot, want_s, 1e-3);
    ck_assert_int_eq(cublasSswap(h, N, sx, 2, sy, 1), CUBLAS_STATUS_SUCCESS);
    wait_results();
    ck_assert(sy[1] == val(2, 3) && sx[2] == val(1, 4));
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* Device pointer mode: the result is written to device memory, in stream
 * order, and the call does not wait (no copy is traced). */
START_TEST(test_level1_device_result)
{
    cublasHandle_t h;
    float *x = sdev(16, 5), *res = dev(sizeof(float)), want = 0;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
    *res = -1.0f;
    rec_start();
    ck_assert_int_eq(cublasSasum(h, 16, x, 1, res), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.ncopy, 0);
    expect_gemm_sequence(0, "Sasum device mode");
    rec_stop();
    wait_results();
    for (int i = 0; i < 16; i++)
        want += fabsf(val((size_t)i, 5));
    ck_assert_float_eq_tol(*res, want, 1e-4);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* ---- GEMV ---------------------------------------------------------------- */

START_TEST(test_gemv)
{
    enum { M = 9, N = 6, LDA = 11 };
    cublasHandle_t h;
    double *A = ddev(LDA * N, 1), *x = ddev(M, 2), *y = ddev(M, 3), y0[M];
    float *sA = sdev(LDA * N, 1), *sx = sdev(M, 2), *sy = sdev(N, 3), sy0[N];
    double alpha = 0.5, beta = -2.0;
    float salpha = 0.5f, sbeta = 0.0f;
    memcpy(y0, y, sizeof y0);
    memcpy(sy0, sy, sizeof sy0);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDgemv(h, CUBLAS_OP_N, M, N, &alpha, A, LDA, x, 1, &beta, y, 1),
                     CUBLAS_STATUS_SUCCESS);
    sy[0] = NAN; /* beta == 0: y is not read */
    ck_assert_int_eq(cublasSgemv_v2_64(h, CUBLAS_OP_T, M, N, &salpha, sA, LDA, sx, 1, &sbeta, sy, 1),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int i = 0; i < M; i++) {
        double acc = 0;
        for (int j = 0; j < N; j++)
            acc += A[i + j * LDA] * x[j];
        ck_assert_double_eq_tol(y[i], alpha * acc + beta * y0[i], 1e-9);
    }
    for (int j = 0; j < N; j++) {
        double acc = 0;
        for (int i = 0; i < M; i++)
            acc += sA[i + j * LDA] * sx[i];
        ck_assert_float_eq_tol(sy[j], salpha * acc, 1e-4);
    }
    ck_assert_int_eq(cublasDgemv(h, CUBLAS_OP_N, M, N, &alpha, A, M - 1, x, 1, &beta, y, 1),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* DGMM: C = diag(x) A (left) and A diag(x) (right), a negative increment, in
 * place (C = A); computed, no longer timed only (NVIDIA's gesvd example
 * builds S VT with it). */
START_TEST(test_dgmm)
{
    enum { M = 5, N = 3, LDA = 7 };
    cublasHandle_t h;
    double *A = ddev(LDA * N, 1), *x = ddev(M, 2), *C = ddev(LDA * N, 3), A0[LDA * N];
    float *sA = sdev(M * N, 4), *sx = sdev(N, 5), sA0[M * N];
    memcpy(A0, A, sizeof A0);
    memcpy(sA0, sA, sizeof sA0);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDdgmm(h, CUBLAS_SIDE_LEFT, M, N, A, LDA, x, -1, C, LDA), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSdgmm_64(h, CUBLAS_SIDE_RIGHT, M, N, sA, M, sx, 1, sA, M), CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int j = 0; j < N; j++)
        for (int i = 0; i < M; i++) {
            ck_assert_double_eq_tol(C[i + j * LDA], x[M - 1 - i] * A0[i + j * LDA], 1e-12);
            ck_assert_float_eq_tol(sA[i + j * M], sx[j] * sA0[i + j * M], 1e-5);
        }
    ck_assert_int_eq(cublasDdgmm(h, CUBLAS_SIDE_LEFT, M, N, A, M - 1, x, 1, C, LDA), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDdgmm(h, (cublasSideMode_t)7, M, N, A, LDA, x, 1, C, LDA), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* ---- GEMM in D, C, Z ------------------------------------------------------ */

static double complex zref(const cuDoubleComplex *X, cublasOperation_t op, int ld, int r, int c)
{
    cuDoubleComplex v = op == CUBLAS_OP_N ? X[r + c * ld] : X[c + r * ld];
    double complex z = CMPLX(v.x, v.y);
    return op == CUBLAS_OP_C ? conj(z) : z;
}

START_TEST(test_gemm_double_complex)
{
    enum { M = 7, N = 5, K = 6, LD = 8 };
    cublasHandle_t h;
    double *A = ddev(LD * K, 1), *B = ddev(LD * N, 2), *C = ddev(LD * N, 3), C0[LD * N];
    double alpha = 2.0, beta = 0.5;
    cuDoubleComplex *zA = dev(sizeof *zA * LD * LD), *zB = dev(sizeof *zB * LD * LD),
                    *zC = dev(sizeof *zC * LD * N);
    cuDoubleComplex za = {1.0, -0.5}, zb = {0.0, 0.0};
    memcpy(C0, C, sizeof C0);
    for (int i = 0; i < LD * LD; i++) {
        zA[i] = (cuDoubleComplex){val((size_t)i, 4), val((size_t)i, 5)};
        zB[i] = (cuDoubleComplex){val((size_t)i, 6), -val((size_t)i, 7)};
    }
    for (int i = 0; i < LD * N; i++)
        zC[i] = (cuDoubleComplex){NAN, NAN}; /* beta == 0: not read */
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, LD, B, LD, &beta,
                                 C, LD),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_str_eq(last_kernel(), "gemm_kernel<double>");
    ck_assert(rec.desc[0].flops == 2.0 * M * N * K && rec.desc[0].tensor_dtype_bits == 64);
    rec_stop();
    ck_assert_int_eq(cublasZgemm_v2_64(h, CUBLAS_OP_C, CUBLAS_OP_T, M, N, K, &za, zA, LD, zB, LD,
                                       &zb, zC, LD),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int c = 0; c < N; c++)
        for (int r = 0; r < M; r++) {
            double acc = 0;
            double complex zacc = 0;
            for (int l = 0; l < K; l++) {
                acc += A[r + l * LD] * B[l + c * LD];
                zacc += zref(zA, CUBLAS_OP_C, LD, r, l) * zref(zB, CUBLAS_OP_T, LD, l, c);
            }
            ck_assert_double_eq_tol(C[r + c * LD], alpha * acc + beta * C0[r + c * LD], 1e-9);
            zacc *= CMPLX(za.x, za.y);
            ck_assert_double_eq_tol(zC[r + c * LD].x, creal(zacc), 1e-9);
            ck_assert_double_eq_tol(zC[r + c * LD].y, cimag(zacc), 1e-9);
        }
    ck_assert_int_eq(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, M - 1, B, LD,
                                 &beta, C, LD),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

START_TEST(test_gemm_batched_forms)
{
    enum { M = 4, N = 3, K = 5, BATCH = 3 };
    cublasHandle_t h;
    cuComplex *cA = dev(sizeof *cA * M * K * BATCH), *cB = dev(sizeof *cB * K * N * BATCH),
              *cC = dev(sizeof *cC * M * N * BATCH);
    cuComplex ca = {1.0f, 1.0f}, cb = {0.0f, 0.0f};
    double *A[BATCH], *B[BATCH], *C[BATCH], one = 1.0, zero = 0.0;
    float sone = 1.0f, szero = 0.0f;
    float *sA[BATCH], *sB[BATCH], *sC[BATCH];
    for (int i = 0; i < M * K * BATCH; i++)
        cA[i] = (cuComplex){val((size_t)i, 1), 0.25f};
    for (int i = 0; i < K * N * BATCH; i++)
        cB[i] = (cuComplex){val((size_t)i, 2), -0.5f};
    for (int b = 0; b < BATCH; b++) {
        A[b] = ddev(M * K, 10 + b);
        B[b] = ddev(K * N, 20 + b);
        C[b] = ddev(M * N, 30 + b);
        sA[b] = sdev(M * K, 10 + b);
        sB[b] = sdev(K * N, 20 + b);
        sC[b] = sdev(M * N, 30 + b);
    }
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasCgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &ca, cA, M,
                                               (long long)M * K, cB, K, (long long)K * N, &cb, cC,
                                               M, (long long)M * N, BATCH),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.nkern, 1); /* one kernel for the whole batch */
    ck_assert_uint_eq(rec.desc[0].grid[2], BATCH);
    rec_stop();
    ck_assert_int_eq(cublasDgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &one,
                                        (const double *const *)A, M, (const double *const *)B, K,
                                        &zero, C, M, BATCH),
                     CUBLAS_STATUS_SUCCESS);
    /* SgemmBatched goes through the fp32 engine */
    ck_assert_int_eq(cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &sone,
                                        (const float *const *)sA, M, (const float *const *)sB, K,
                                        &szero, sC, M, BATCH),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int b = 0; b < BATCH; b++)
        for (int c = 0; c < N; c++)
            for (int r = 0; r < M; r++) {
                double acc = 0;
                float complex cacc = 0;
                for (int l = 0; l < K; l++) {
                    acc += A[b][r + l * M] * B[b][l + c * K];
                    cuComplex x = cA[b * M * K + r + l * M], y = cB[b * K * N + l + c * K];
                    cacc += CMPLXF(x.x, x.y) * CMPLXF(y.x, y.y);
                }
                ck_assert_double_eq_tol(C[b][r + c * M], acc, 1e-9);
                ck_assert_float_eq_tol(sC[b][r + c * M], (float)acc, 1e-4);
                cacc *= CMPLXF(ca.x, ca.y);
                ck_assert_float_eq_tol(cC[b * M * N + r + c * M].x, crealf(cacc), 1e-4);
                ck_assert_float_eq_tol(cC[b * M * N + r + c * M].y, cimagf(cacc), 1e-4);
            }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* The _64 forms of the engine's GEMMs compute the same as the 32-bit ones. */
START_TEST(test_gemm_64_forms)
{
    enum { M = 6, N = 5, K = 4 };
    cublasHandle_t h;
    float *A = sdev(M * K, 1), *B = sdev(K * N, 2), *C1 = sdev(M * N, 3), *C2 = sdev(M * N, 3);
    float alpha = 1.25f, beta = 0.5f;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, M, B, K, &beta,
                                 C1, M),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGemmEx_64(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, CUDA_R_32F,
                                     M, B, CUDA_R_32F, K, &beta, C2, CUDA_R_32F, M,
                                     CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    ck_assert_int_eq(memcmp(C1, C2, sizeof(float) * M * N), 0);
    ck_assert(C1[0] != val(0, 3)); /* and it did compute */
    ck_assert_int_eq(cublasSgemm_v2_64(h, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, &alpha, A, M, B, K,
                                       &beta, C2, M),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* ---- generated: timed kernels ------------------------------------------- */

START_TEST(test_timed_routines)
{
    cublasHandle_t h;
    float *A = sdev(64 * 64, 1), *B = sdev(64 * 32, 2), before = B[0], alpha = 1.0f;
    cuComplex *cA = dev(sizeof *cA * 64 * 64), *cC = dev(sizeof *cC * 64 * 64);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, 64, 32, &alpha, A, 64, B, 64),
                     CUBLAS_STATUS_SUCCESS);
    expect_gemm_sequence(0, "Strsm");
    ck_assert_str_eq(last_kernel(), "trsm_kernel<float>");
    ck_assert(rec.desc[0].flops == 2.0 * 64 * 32 * 64); /* k taken as m */
    /* syrk has n and k: m is n */
    ck_assert_int_eq(cublasCherk(h, CUBLAS_FILL_MODE_UPPER, CUBLAS_OP_N, 64, 16, &alpha, cA, 64,
                                 &alpha, cC, 64),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_str_eq(last_kernel(), "herk_kernel<float2>");
    ck_assert(rec.desc[1].flops == 2.0 * 64 * 64 * 16);
    rec_stop();
    wait_results();
    ck_assert(B[0] == before); /* timed only: the output is left as it was */
    ck_assert_int_eq(cublasStrsm(h, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, -1, 32, &alpha, A, 64, B, 64),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasStrsm(NULL, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N,
                                 CUBLAS_DIAG_NON_UNIT, 64, 32, &alpha, A, 64, B, 64),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

/* ---- the batched LU: computed (blas_lu.c) -------------------------------- */

/* P A = L U for one n x n factorization (1-based pivots as getrf's, or none). */
static void expect_lu(const double *a0, const double *lu, const int *piv, int n)
{
    double pa[16];
    memcpy(pa, a0, sizeof(double) * n * n);
    for (int j = 0; piv != NULL && j < n; j++)
        for (int c = 0; c < n; c++) {   /* the row swaps, in order */
            double t = pa[j + c * n];
            pa[j + c * n] = pa[piv[j] - 1 + c * n];
            pa[piv[j] - 1 + c * n] = t;
        }
    for (int r = 0; r < n; r++)
        for (int c = 0; c < n; c++) {
            double v = 0.0;
            for (int k = 0; k <= (r < c ? r : c); k++)
                v += (k == r ? 1.0 : lu[r + k * n]) * lu[k + c * n];
            ck_assert_msg(fabs(v - pa[r + c * n]) < 1e-5, "(L U)(%d,%d) = %g, (P A) %g", r, c, v,
                          pa[r + c * n]);
        }
}

START_TEST(test_getrf_batched_computed)
{
    /* column-major: the first needs a row swap at once (a zero leading
     * entry), the second is singular (third column = first + second) */
    static const double a0[2][9] = {{0, 1, 2, 3, 4, 5, 7, 8, 10}, {4, 2, 1, 8, 5, 3, 12, 7, 4}};
    cublasHandle_t h;
    double *A = dev(sizeof a0), **arr = dev(2 * sizeof *arr);
    int *piv = dev(6 * sizeof *piv), *info = dev(2 * sizeof *info);
    memcpy(A, a0, sizeof a0);
    arr[0] = A, arr[1] = A + 9;
    for (int i = 0; i < 6; i++)
        piv[i] = -7;        /* garbage a program would index with */
    info[0] = info[1] = -1;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasDgetrfBatched(h, 3, arr, 3, piv, info, 2), CUBLAS_STATUS_SUCCESS);
    expect_gemm_sequence(0, "DgetrfBatched");
    ck_assert_str_eq(last_kernel(), "getrf_kernel<double>");
    rec_stop();
    wait_results();
    ck_assert_int_eq(info[0], 0);
    ck_assert_int_eq(info[1], 3);   /* U(3,3) is exactly zero */
    for (int i = 0; i < 6; i++)
        ck_assert(piv[i] >= 1 && piv[i] <= 3);
    ck_assert_int_eq(piv[0], 3);    /* the largest of 0, 1, 2 */
    expect_lu(a0[0], A, piv, 3);
    expect_lu(a0[1], A + 9, piv + 3, 3);

    /* single precision without pivots: A = L U as it stands */
    static const float f0[4] = {4, 2, 6, 5};
    float *F = dev(sizeof f0), **farr = dev(sizeof *farr);
    double fd[4], lud[4];
    memcpy(F, f0, sizeof f0);
    farr[0] = F;
    ck_assert_int_eq(cublasSgetrfBatched(h, 2, farr, 2, NULL, info, 1), CUBLAS_STATUS_SUCCESS);
    wait_results();
    ck_assert_int_eq(info[0], 0);
    ck_assert(F[1] == 0.5f && F[3] == 2.0f);   /* l21 = 2/4, u22 = 5 - 0.5 * 6 */
    for (int i = 0; i < 4; i++)
        fd[i] = f0[i], lud[i] = F[i];
    expect_lu(fd, lud, NULL, 2);

    /* refused: lda < n, a negative batch, no info array; no handle */
    ck_assert_int_eq(cublasDgetrfBatched(h, 3, arr, 2, piv, info, 2), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDgetrfBatched(h, 3, arr, 3, piv, info, -1), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDgetrfBatched(h, 3, arr, 3, piv, NULL, 2), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasSgetrfBatched(NULL, 2, farr, 2, NULL, info, 1), CUBLAS_STATUS_NOT_INITIALIZED);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

START_TEST(test_settings_read_back)
{
    cublasHandle_t h;
    cublasAtomicsMode_t mode = CUBLAS_ATOMICS_NOT_ALLOWED;
    int sms = -1, major = 0;
    ck_assert_int_eq(cublasGetProperty(MAJOR_VERSION, &major), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(major, CUBLAS_VER_MAJOR);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSetAtomicsMode(h, CUBLAS_ATOMICS_ALLOWED), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGetAtomicsMode(h, &mode), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(mode, CUBLAS_ATOMICS_ALLOWED);
    ck_assert_int_eq(cublasSetSmCountTarget(h, 66), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGetSmCountTarget(h, &sms), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(sms, 66);
    ck_assert_int_eq(cublasSetSmCountTarget(h, -1), CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

TCase *blas_tcase(void)
{
    TCase *tc = tcase_create("blas");
    tcase_add_test(tc, test_set_get_matrix_round_trip);
    tcase_add_test(tc, test_set_get_vector_strided_async_and_64);
    tcase_add_test(tc, test_level1_single_and_double);
    tcase_add_test(tc, test_level1_device_result);
    tcase_add_test(tc, test_gemv);
    tcase_add_test(tc, test_dgmm);
    tcase_add_test(tc, test_gemm_double_complex);
    tcase_add_test(tc, test_gemm_batched_forms);
    tcase_add_test(tc, test_gemm_64_forms);
    tcase_add_test(tc, test_timed_routines);
    tcase_add_test(tc, test_getrf_batched_computed);
    tcase_add_test(tc, test_settings_read_back);
    return tc;
}
