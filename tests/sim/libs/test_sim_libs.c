/*
 * test_sim_libs.c - the stand-ins for cuFFT, cuRAND, cuSPARSE and cuSOLVER
 * (tests/sim/libs/), linked as a program links the real ones: what they
 * compute against plain references, the documented refusals, and that a
 * program's wrong sizes, indices or pivots do not crash the sim (a buffer
 * too small: the kernel is timed, its result not computed; an index out of
 * range: that entry skipped).
 * The corpus programs (tests/corpus/fft_roundtrip.cu, ...) cover the common
 * path under prof.sh.
 */
#include <check.h>
#include <cuda_runtime_api.h>
#include <cufftXt.h>
#include <curand.h>
#include <cusolverDn.h>
#define DISABLE_CUSPARSE_DEPRECATED
#include <cusparse.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void *dev(size_t bytes)
{
    void *p = NULL;
    ck_assert_int_eq(cudaMalloc(&p, bytes), cudaSuccess);
    return p;
}

static void put(void *d, const void *h, size_t bytes)
{
    ck_assert_int_eq(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice), cudaSuccess);
}

static void get(void *h, const void *d, size_t bytes)
{
    ck_assert_int_eq(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost), cudaSuccess);
}

/* A delta's transform is flat; with the advanced layout (every other
 * element, stride 2) the elements between are left as they were. */
START_TEST(fft_delta_is_flat_with_strides)
{
    enum { N = 12, B = 2 };
    cufftDoubleComplex h[2 * N * B], *d = dev(sizeof h);
    for (int i = 0; i < 2 * N * B; i++)
        h[i].x = -7, h[i].y = 0;            /* the gaps: must stay -7 */
    for (int b = 0; b < B; b++)
        for (int i = 0; i < N; i++)
            h[b * 2 * N + 2 * i].x = i == 0 ? 1.0 + b : 0.0;
    put(d, h, sizeof h);
    cufftHandle p;
    int n[] = {N}, embed[] = {N};
    ck_assert_int_eq(cufftPlanMany(&p, 1, n, embed, 2, 2 * N, embed, 2, 2 * N, CUFFT_Z2Z, B), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftExecZ2Z(p, d, d, CUFFT_FORWARD), CUFFT_SUCCESS);
    get(h, d, sizeof h);
    for (int b = 0; b < B; b++)
        for (int i = 0; i < N; i++) {
            ck_assert_double_eq_tol(h[b * 2 * N + 2 * i].x, 1.0 + b, 1e-12);
            ck_assert_double_eq_tol(h[b * 2 * N + 2 * i].y, 0.0, 1e-12);
            ck_assert_double_eq(h[b * 2 * N + 2 * i + 1].x, -7);
        }
    ck_assert_int_eq(cufftExecC2C(p, (cufftComplex *)d, (cufftComplex *)d, CUFFT_FORWARD), CUFFT_INVALID_VALUE);
    ck_assert_int_eq(cufftExecZ2Z(p, d, d, 3), CUFFT_INVALID_VALUE);
    ck_assert_int_eq(cufftDestroy(p), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftDestroy(p), CUFFT_INVALID_PLAN);
    ck_assert_int_eq(cufftPlan1d(&p, 0, CUFFT_C2C, 1), CUFFT_INVALID_SIZE);
    cudaFree(d);
}
END_TEST

/* cufftXtMakePlanMany (the public samples' plan): the kind from the data
 * types, then the same transform as cufftPlanMany's; cufftXtExec runs it;
 * 16-bit types are not simulated (CUFFT_NOT_SUPPORTED), never a crash. */
START_TEST(fft_xt_plan_is_a_plan)
{
    enum { N = 8 };
    cufftComplex h[N], *d = dev(sizeof h);
    for (int i = 0; i < N; i++)
        h[i].x = i == 0 ? 2.0f : 0.0f, h[i].y = 0;
    put(d, h, sizeof h);
    cufftHandle p;
    long long n[] = {N};
    size_t ws = 1;
    ck_assert_int_eq(cufftCreate(&p), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftXtMakePlanMany(p, 1, n, NULL, 1, 0, CUDA_C_32F, NULL, 1, 0, CUDA_C_32F, 1, &ws, CUDA_C_32F),
                     CUFFT_SUCCESS);
    ck_assert_uint_eq(ws, 0);
    ck_assert_int_eq(cufftXtExec(p, d, d, CUFFT_FORWARD), CUFFT_SUCCESS);
    get(h, d, sizeof h);
    for (int i = 0; i < N; i++)
        ck_assert_float_eq_tol(h[i].x, 2.0f, 1e-6f);
    ck_assert_int_eq(cufftDestroy(p), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftCreate(&p), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftXtMakePlanMany(p, 1, n, NULL, 1, 0, CUDA_C_16F, NULL, 1, 0, CUDA_C_16F, 1, &ws, CUDA_C_16F),
                     CUFFT_NOT_SUPPORTED);
    ck_assert_int_eq(cufftDestroy(p), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftXtMakePlanMany(p, 1, n, NULL, 1, 0, CUDA_C_32F, NULL, 1, 0, CUDA_C_32F, 1, &ws, CUDA_C_32F),
                     CUFFT_INVALID_PLAN);
    ck_assert_int_eq(cufftXtExec(p, d, d, CUFFT_FORWARD), CUFFT_INVALID_PLAN);
    cudaFree(d);
}
END_TEST

/* The legacy matrix descriptor: its documented defaults, what is set is
 * read back, bad values refused. */
START_TEST(sparse_mat_descr)
{
    cusparseMatDescr_t m;
    ck_assert_int_eq(cusparseCreateMatDescr(&m), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseGetMatType(m), CUSPARSE_MATRIX_TYPE_GENERAL);
    ck_assert_int_eq(cusparseGetMatIndexBase(m), CUSPARSE_INDEX_BASE_ZERO);
    ck_assert_int_eq(cusparseGetMatFillMode(m), CUSPARSE_FILL_MODE_LOWER);
    ck_assert_int_eq(cusparseGetMatDiagType(m), CUSPARSE_DIAG_TYPE_NON_UNIT);
    ck_assert_int_eq(cusparseSetMatIndexBase(m, CUSPARSE_INDEX_BASE_ONE), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSetMatType(m, CUSPARSE_MATRIX_TYPE_SYMMETRIC), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSetMatFillMode(m, CUSPARSE_FILL_MODE_UPPER), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSetMatDiagType(m, CUSPARSE_DIAG_TYPE_UNIT), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseGetMatIndexBase(m), CUSPARSE_INDEX_BASE_ONE);
    ck_assert_int_eq(cusparseGetMatType(m), CUSPARSE_MATRIX_TYPE_SYMMETRIC);
    ck_assert_int_eq(cusparseGetMatFillMode(m), CUSPARSE_FILL_MODE_UPPER);
    ck_assert_int_eq(cusparseGetMatDiagType(m), CUSPARSE_DIAG_TYPE_UNIT);
    ck_assert_int_eq(cusparseSetMatIndexBase(m, (cusparseIndexBase_t)7), CUSPARSE_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cusparseSetMatType(NULL, CUSPARSE_MATRIX_TYPE_GENERAL), CUSPARSE_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cusparseCreateMatDescr(NULL), CUSPARSE_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cusparseDestroyMatDescr(m), CUSPARSE_STATUS_SUCCESS);
}
END_TEST

/* Same seed and offset, same numbers; the offset moves by what a call made. */
START_TEST(rand_seed_and_offset)
{
    float a[8], b[4], *d = dev(sizeof a);
    curandGenerator_t g;
    ck_assert_int_eq(curandCreateGenerator(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq(curandSetPseudoRandomGeneratorSeed(g, 7), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq(curandGenerateUniform(g, d, 8), CURAND_STATUS_SUCCESS);
    get(a, d, sizeof a);
    ck_assert_int_eq(curandSetGeneratorOffset(g, 4), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq(curandGenerateUniform(g, d, 4), CURAND_STATUS_SUCCESS);
    get(b, d, sizeof b);
    ck_assert_mem_eq(b, a + 4, sizeof b);
    for (int i = 0; i < 8; i++)
        ck_assert(a[i] > 0 && a[i] <= 1);
    unsigned long long ll;
    ck_assert_int_eq(curandGenerateLongLong(g, &ll, 1), CURAND_STATUS_TYPE_ERROR);
    ck_assert_int_eq(curandGenerateNormal(g, d, 3, 0, 1), CURAND_STATUS_LENGTH_NOT_MULTIPLE);
    float host[4];
    ck_assert_int_eq(curandGenerateUniform(g, host, 4), CURAND_STATUS_LAUNCH_FAILURE);   /* pageable */
    ck_assert_int_eq(curandDestroyGenerator(g), CURAND_STATUS_SUCCESS);
    cudaFree(d);
}
END_TEST

/* A matrix in CSC is the same matrix: SpMV equals the dense product. */
START_TEST(sparse_csc_matches_dense)
{
    /* 3 x 2: [[1 0] [2 3] [0 4]] by columns */
    int off[] = {0, 2, 4}, row[] = {0, 1, 1, 2};
    double val[] = {1, 2, 3, 4}, x[] = {10, 100}, y[3] = {1, 1, 1};
    int *doff = dev(sizeof off), *drow = dev(sizeof row);
    double *dval = dev(sizeof val), *dx = dev(sizeof x), *dy = dev(sizeof y);
    put(doff, off, sizeof off), put(drow, row, sizeof row), put(dval, val, sizeof val);
    put(dx, x, sizeof x), put(dy, y, sizeof y);
    cusparseHandle_t h;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t vx, vy;
    ck_assert_int_eq(cusparseCreate(&h), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseCreateCsc(&a, 3, 2, 4, doff, drow, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F), CUSPARSE_STATUS_SUCCESS);
    cusparseCreateDnVec(&vx, 2, dx, CUDA_R_64F);
    cusparseCreateDnVec(&vy, 3, dy, CUDA_R_64F);
    double alpha = 1, beta = 2;
    size_t bytes;
    ck_assert_int_eq(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                                             CUDA_R_64F, CUSPARSE_SPMV_ALG_DEFAULT, &bytes), CUSPARSE_STATUS_SUCCESS);
    void *buf = dev(bytes);
    ck_assert_int_eq(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_64F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, buf), CUSPARSE_STATUS_SUCCESS);
    get(y, dy, sizeof y);
    ck_assert_double_eq(y[0], 12);
    ck_assert_double_eq(y[1], 322);
    ck_assert_double_eq(y[2], 402);
    ck_assert_int_eq(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vy, &beta, vx, CUDA_R_64F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, buf), CUSPARSE_STATUS_INVALID_VALUE);   /* sizes */
    ck_assert_int_eq(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_64F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, NULL), CUSPARSE_STATUS_INVALID_VALUE);  /* buffer */
    cusparseDestroySpMat(a);
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
    ck_assert_int_eq(cusparseDestroy(h), CUSPARSE_STATUS_SUCCESS);
}
END_TEST

/* SpGEMM with its two-phase protocol: sizes asked with NULL buffers, C's
 * nnz known after compute, C written by copy (base 1, 64-bit values, columns
 * ascending, alpha and beta applied); transposes refused as cuSPARSE does. */
START_TEST(sparse_spgemm_protocol)
{
    /* A 2x3 [[1 0 2] [0 3 0]], B 3x2 [[0 4] [5 0] [6 7]] (base 1); A B = [[12 18] [15 0]] */
    int aoff[] = {1, 3, 4}, acol[] = {3, 1, 2}, boff[] = {1, 2, 3, 5}, bcol[] = {2, 1, 2, 1};
    double aval[] = {2, 1, 3}, bval[] = {4, 5, 7, 6};
    int *daoff = dev(sizeof aoff), *dacol = dev(sizeof acol), *dboff = dev(sizeof boff), *dbcol = dev(sizeof bcol);
    double *daval = dev(sizeof aval), *dbval = dev(sizeof bval);
    put(daoff, aoff, sizeof aoff), put(dacol, acol, sizeof acol), put(daval, aval, sizeof aval);
    put(dboff, boff, sizeof boff), put(dbcol, bcol, sizeof bcol), put(dbval, bval, sizeof bval);
    int *dcoff = dev(3 * sizeof(int));
    cusparseHandle_t h;
    cusparseSpMatDescr_t a, b, c;
    cusparseSpGEMMDescr_t d;
    ck_assert_int_eq(cusparseCreate(&h), CUSPARSE_STATUS_SUCCESS);
    cusparseIndexBase_t one = CUSPARSE_INDEX_BASE_ONE;
    cusparseCreateCsr(&a, 2, 3, 3, daoff, dacol, daval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, one, CUDA_R_64F);
    cusparseCreateCsr(&b, 3, 2, 4, dboff, dbcol, dbval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, one, CUDA_R_64F);
    cusparseCreateCsr(&c, 2, 2, 0, dcoff, NULL, NULL, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, one, CUDA_R_64F);
    ck_assert_int_eq(cusparseSpGEMM_createDescr(&d), CUSPARSE_STATUS_SUCCESS);
    double alpha = 2, beta = 0;
    cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE;
    size_t s1 = 0, s2 = 0;
    ck_assert_int_eq(cusparseSpGEMM_compute(h, N, N, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d,
                                            &s2, NULL), CUSPARSE_STATUS_INVALID_VALUE);   /* estimation first */
    ck_assert_int_eq(cusparseSpGEMM_workEstimation(h, CUSPARSE_OPERATION_TRANSPOSE, N, &alpha, a, b, &beta, c,
                                                   CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d, &s1, NULL),
                     CUSPARSE_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(cusparseSpGEMM_workEstimation(h, N, N, &alpha, a, b, &beta, c, CUDA_R_64F,
                                                   CUSPARSE_SPGEMM_DEFAULT, d, &s1, NULL), CUSPARSE_STATUS_SUCCESS);
    ck_assert_uint_gt(s1, 0);
    void *b1 = dev(s1);
    ck_assert_int_eq(cusparseSpGEMM_workEstimation(h, N, N, &alpha, a, b, &beta, c, CUDA_R_64F,
                                                   CUSPARSE_SPGEMM_DEFAULT, d, &s1, b1), CUSPARSE_STATUS_SUCCESS);
    int64_t prods = 0, rows, cols, nnz;
    ck_assert_int_eq(cusparseSpGEMM_getNumProducts(d, &prods), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(prods, 4);   /* 1*(B row 3: 2) + 2*(B row 1: 1) + 3*(B row 2: 1) */
    ck_assert_int_eq(cusparseSpGEMM_compute(h, N, N, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d,
                                            &s2, NULL), CUSPARSE_STATUS_SUCCESS);
    ck_assert_uint_gt(s2, 0);
    void *b2 = dev(s2);
    ck_assert_int_eq(cusparseSpGEMM_compute(h, N, N, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d,
                                            &s2, b2), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSpMatGetSize(c, &rows, &cols, &nnz), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(nnz, 3);
    int coff[3], ccol[3];
    get(coff, dcoff, sizeof coff);   /* the row offsets are there after compute */
    ck_assert(coff[0] == 1 && coff[1] == 3 && coff[2] == 4);
    put(dcoff, (int[]){0, 0, 0}, sizeof coff);
    int *dccol = dev(3 * sizeof(int));
    double *dcval = dev(3 * sizeof(double));
    ck_assert_int_eq(cusparseCsrSetPointers(c, dcoff, dccol, dcval), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSpGEMM_copy(h, N, N, &alpha, a, b, &beta, c, CUDA_R_64F, CUSPARSE_SPGEMM_DEFAULT, d),
                     CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSpGEMM_destroyDescr(d), CUSPARSE_STATUS_SUCCESS);   /* before the copy is seen */
    double cval[3];
    get(coff, dcoff, sizeof coff), get(ccol, dccol, sizeof ccol), get(cval, dcval, sizeof cval);
    ck_assert(coff[0] == 1 && coff[1] == 3 && coff[2] == 4);
    ck_assert(ccol[0] == 1 && ccol[1] == 2 && ccol[2] == 1);
    ck_assert(cval[0] == 24 && cval[1] == 36 && cval[2] == 30);
    cusparseDestroySpMat(a), cusparseDestroySpMat(b), cusparseDestroySpMat(c);
    cusparseDestroy(h);
}
END_TEST

/* SpSV: lower CSR with its diagonal, upper COO transposed, a unit diagonal
 * (the stored one ignored), against substitution by hand. */
START_TEST(sparse_spsv_triangles)
{
    /* A = [[2 0 0] [1 4 0] [0 3 5]] plus an upper entry (0,2)=9 the fill mode ignores */
    int off[] = {0, 2, 4, 6}, col[] = {0, 2, 0, 1, 1, 2};
    float val[] = {2, 9, 1, 4, 3, 5}, x[] = {2, 9, 28}, y[3];
    int *doff = dev(sizeof off), *dcol = dev(sizeof col);
    float *dval = dev(sizeof val), *dx = dev(sizeof x), *dy = dev(sizeof y);
    put(doff, off, sizeof off), put(dcol, col, sizeof col), put(dval, val, sizeof val), put(dx, x, sizeof x);
    cusparseHandle_t h;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t vx, vy;
    cusparseSpSVDescr_t d;
    cusparseCreate(&h);
    cusparseCreateCsr(&a, 3, 3, 6, doff, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                      CUDA_R_32F);
    cusparseCreateDnVec(&vx, 3, dx, CUDA_R_32F);
    cusparseCreateDnVec(&vy, 3, dy, CUDA_R_32F);
    ck_assert_int_eq(cusparseSpSV_createDescr(&d), CUSPARSE_STATUS_SUCCESS);
    float alpha = 1;
    size_t bytes = 0;
    cusparseOperation_t N = CUSPARSE_OPERATION_NON_TRANSPOSE, T = CUSPARSE_OPERATION_TRANSPOSE;
    ck_assert_int_eq(cusparseSpSV_bufferSize(h, N, &alpha, a, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, &bytes),
                     CUSPARSE_STATUS_SUCCESS);
    void *buf = dev(bytes);
    ck_assert_int_eq(cusparseSpSV_solve(h, N, &alpha, a, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d),
                     CUSPARSE_STATUS_INVALID_VALUE);   /* analysis first */
    ck_assert_int_eq(cusparseSpSV_analysis(h, N, &alpha, a, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, buf),
                     CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSpSV_solve(h, N, &alpha, a, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d),
                     CUSPARSE_STATUS_SUCCESS);
    get(y, dy, sizeof y);   /* 2 y0 = 2; y0 + 4 y1 = 9; 3 y1 + 5 y2 = 28 */
    ck_assert(y[0] == 1 && y[1] == 2 && y[2] == 4.4f);
    /* A^T is upper: 2 y0 + y1 = 2 ... solved from the bottom: 5 y2 = 28, 4 y1 + 3 y2 = 9, 2 y0 + y1 = 2 */
    cusparseDiagType_t unit = CUSPARSE_DIAG_TYPE_UNIT;
    ck_assert_int_eq(cusparseSpSV_analysis(h, T, &alpha, a, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d, buf),
                     CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSpSV_solve(h, T, &alpha, a, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d),
                     CUSPARSE_STATUS_SUCCESS);
    get(y, dy, sizeof y);
    ck_assert_float_eq_tol(y[2], 5.6f, 1e-6f);
    ck_assert_float_eq_tol(y[1], (9 - 3 * 5.6f) / 4, 1e-6f);
    ck_assert_float_eq_tol(y[0], (2 - y[1]) / 2, 1e-6f);
    ck_assert_int_eq(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &unit, sizeof unit),
                     CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(cusparseSpMatSetAttribute(a, CUSPARSE_SPMAT_DIAG_TYPE, &unit, 1), CUSPARSE_STATUS_INVALID_VALUE);
    alpha = 2;
    ck_assert_int_eq(cusparseSpSV_solve(h, N, &alpha, a, vx, vy, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, d),
                     CUSPARSE_STATUS_SUCCESS);
    get(y, dy, sizeof y);   /* y0 = 4; y0 + y1 = 18; 3 y1 + y2 = 56 */
    ck_assert(y[0] == 4 && y[1] == 14 && y[2] == 14);
    ck_assert_int_eq(cusparseSpSV_solve(h, N, &alpha, a, vx, vx, CUDA_R_32F, CUSPARSE_SPSV_ALG_DEFAULT, NULL),
                     CUSPARSE_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cusparseSpSV_destroyDescr(d), CUSPARSE_STATUS_SUCCESS);
    cusparseDestroySpMat(a), cusparseDestroyDnVec(vx), cusparseDestroyDnVec(vy);
    cusparseDestroy(h);
}
END_TEST

/* Cholesky's devInfo names the first minor that is not positive definite. */
START_TEST(solver_potrf_info)
{
    float m[] = {4, 2, 0, 2, 1, 0, 0, 0, 5};   /* 2x2 minor singular */
    float *dm = dev(sizeof m), *work;
    int *info = dev(sizeof(int)), lwork, hinfo = -1;
    put(dm, m, sizeof m);
    cusolverDnHandle_t h;
    ck_assert_int_eq(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
    ck_assert_int_eq(cusolverDnSpotrf_bufferSize(h, CUBLAS_FILL_MODE_LOWER, 3, dm, 3, &lwork), CUSOLVER_STATUS_SUCCESS);
    work = dev(sizeof(float) * lwork);
    ck_assert_int_eq(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, 3, dm, 3, work, lwork, info), CUSOLVER_STATUS_SUCCESS);
    get(&hinfo, info, sizeof hinfo);
    ck_assert_int_eq(hinfo, 2);
    ck_assert_int_eq(cusolverDnSpotrf(h, CUBLAS_FILL_MODE_LOWER, 3, dm, 2, work, lwork, info),
                     CUSOLVER_STATUS_INVALID_VALUE);   /* lda < n */
    ck_assert_int_eq(cusolverDnDestroy(h), CUSOLVER_STATUS_SUCCESS);
}
END_TEST

/* potrfBatched: each matrix its factor and info (the second not positive
 * definite, as NVIDIA's example has it); potrsBatched solves with nrhs 1 and
 * refuses more, as the header says. Pointer arrays in device memory. */
START_TEST(solver_potrf_batched)
{
    double a0[] = {4, 2, 2, 5}, a1[] = {1, 2, 2, 4}, b0[] = {2, 4}, l[4], x[2];   /* a1 singular */
    double *da0 = dev(sizeof a0), *da1 = dev(sizeof a1), *db0 = dev(sizeof b0), *db1 = dev(sizeof b0);
    put(da0, a0, sizeof a0), put(da1, a1, sizeof a1), put(db0, b0, sizeof b0), put(db1, b0, sizeof b0);
    double *ha[2] = {da0, da1}, *hb[2] = {db0, db1}, **dA = dev(sizeof ha), **dB = dev(sizeof hb);
    put(dA, ha, sizeof ha), put(dB, hb, sizeof hb);
    int *info = dev(2 * sizeof(int)), hinfo[2] = {-1, -1};
    cusolverDnHandle_t h;
    ck_assert_int_eq(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
    ck_assert_int_eq(cusolverDnDpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, 2, dA, 2, info, 2), CUSOLVER_STATUS_SUCCESS);
    get(hinfo, info, sizeof hinfo);
    ck_assert(hinfo[0] == 0 && hinfo[1] == 2);
    get(l, da0, sizeof l);   /* L = [[2 0] [1 2]] */
    ck_assert(l[0] == 2 && l[1] == 1 && l[3] == 2);
    ck_assert_int_eq(cusolverDnDpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, 2, 1, dA, 2, dB, 2, info, 1),
                     CUSOLVER_STATUS_SUCCESS);
    get(x, db0, sizeof x);   /* [[4 2] [2 5]] x = [2 4]: x = [0.125 0.75] */
    ck_assert_double_eq_tol(x[0], 0.125, 1e-15);
    ck_assert_double_eq_tol(x[1], 0.75, 1e-15);
    ck_assert_int_eq(cusolverDnDpotrsBatched(h, CUBLAS_FILL_MODE_LOWER, 2, 2, dA, 2, dB, 2, info, 1),
                     CUSOLVER_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cusolverDnSpotrfBatched(h, CUBLAS_FILL_MODE_LOWER, 2, (float **)dA, 1, info, 2),
                     CUSOLVER_STATUS_INVALID_VALUE);   /* lda < n */
    /* pointers to buffers too small for the matrix: skipped, no crash */
    float *tiny = dev(sizeof(float)), *hs[1] = {tiny}, **dS = dev(sizeof hs);
    put(dS, hs, sizeof hs);
    ck_assert_int_eq(cusolverDnSpotrfBatched(h, CUBLAS_FILL_MODE_UPPER, 8, dS, 8, info, 1), CUSOLVER_STATUS_SUCCESS);
    get(hinfo, info, sizeof(int));
    ck_assert_int_eq(hinfo[0], 0);
    ck_assert_int_eq(cusolverDnDestroy(h), CUSOLVER_STATUS_SUCCESS);
}
END_TEST

/* gesvd computes A = U S VT: NVIDIA's example's matrix and values, U and VT
 * orthogonal, the product back; jobu 'N'; m < n refused, as cuSOLVER does. */
START_TEST(solver_gesvd)
{
    enum { M = 3, N = 2 };
    double a[] = {1, 4, 2, 2, 5, 1}, sv[N], u[M * M], vt[N * N];
    double *da = dev(sizeof a), *ds = dev(sizeof sv), *du = dev(sizeof u), *dvt = dev(sizeof vt), *work;
    int *info = dev(sizeof(int)), lwork, hinfo = -1;
    put(da, a, sizeof a);
    cusolverDnHandle_t h;
    ck_assert_int_eq(cusolverDnCreate(&h), CUSOLVER_STATUS_SUCCESS);
    ck_assert_int_eq(cusolverDnDgesvd_bufferSize(h, M, N, &lwork), CUSOLVER_STATUS_SUCCESS);
    work = dev(sizeof(double) * lwork);
    ck_assert_int_eq(cusolverDnDgesvd(h, 'A', 'A', M, N, da, M, ds, du, M, dvt, N, work, lwork, NULL, info),
                     CUSOLVER_STATUS_SUCCESS);
    get(sv, ds, sizeof sv), get(u, du, sizeof u), get(vt, dvt, sizeof vt), get(&hinfo, info, sizeof hinfo);
    ck_assert_int_eq(hinfo, 0);
    ck_assert_double_eq_tol(sv[0], 7.065283497082729, 1e-13);
    ck_assert_double_eq_tol(sv[1], 1.040081297712078, 1e-13);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < M; j++) {   /* U^T U = I */
            double d = 0;
            for (int k = 0; k < M; k++)
                d += u[k + i * M] * u[k + j * M];
            ck_assert_double_eq_tol(d, i == j, 1e-13);
        }
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {   /* U S VT = A */
            double d = 0;
            for (int k = 0; k < N; k++)
                d += u[i + k * M] * sv[k] * vt[k + j * N];
            ck_assert_double_eq_tol(d, a[i + j * M], 1e-13);
        }
    float sa[] = {3, 0, 0, 0, 0, 0, 0, 4, 0}, ss[3];   /* a zero value: U still completed */
    float *dsa = dev(sizeof sa), *dss = dev(sizeof ss), *swork = dev(sizeof(float) * lwork * 4);
    put(dsa, sa, sizeof sa);
    ck_assert_int_eq(cusolverDnSgesvd_bufferSize(h, 3, 3, &lwork), CUSOLVER_STATUS_SUCCESS);
    ck_assert_int_eq(cusolverDnSgesvd(h, 'N', 'N', 3, 3, dsa, 3, dss, NULL, 1, NULL, 1, swork, lwork, NULL, info),
                     CUSOLVER_STATUS_SUCCESS);
    get(ss, dss, sizeof ss);
    ck_assert(ss[0] == 4 && ss[1] == 3 && ss[2] == 0);
    ck_assert_int_eq(cusolverDnDgesvd(h, 'A', 'A', N, M, da, N, ds, du, N, dvt, M, work, lwork, NULL, info),
                     CUSOLVER_STATUS_INVALID_VALUE);   /* m < n */
    ck_assert_int_eq(cusolverDnDgesvd(h, 'O', 'O', M, N, da, M, ds, du, M, dvt, N, work, lwork, NULL, info),
                     CUSOLVER_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cusolverDnDestroy(h), CUSOLVER_STATUS_SUCCESS);
}
END_TEST

/* A program's wrong sizes, indices and pivots: no crash; what is in range
 * is still computed, what is not is left alone (timed only). */
START_TEST(bad_arguments_do_not_crash)
{
    cufftHandle p;
    cufftComplex *small = dev(sizeof(cufftComplex) * 8);
    ck_assert_int_eq(cufftPlan1d(&p, 1024, CUFFT_C2C, 4), CUFFT_SUCCESS);
    ck_assert_int_eq(cufftExecC2C(p, small, small, CUFFT_FORWARD), CUFFT_SUCCESS);   /* too small: timed only */
    cufftDestroy(p);
    curandGenerator_t g;
    float *f = dev(sizeof(float) * 4);
    curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
    ck_assert_int_eq(curandGenerateUniform(g, f, 1 << 20), CURAND_STATUS_SUCCESS);
    curandDestroyGenerator(g);
    /* CSR with a column index past the matrix and offsets past nnz */
    int off[] = {0, 2, 9}, col[] = {0, 99};
    float val[] = {1, 1}, x[2] = {1, 1}, y[2] = {5, 5};
    int *doff = dev(sizeof off), *dcol = dev(sizeof col);
    float *dval = dev(sizeof val), *dx = dev(sizeof x), *dy = dev(sizeof y);
    put(doff, off, sizeof off), put(dcol, col, sizeof col), put(dval, val, sizeof val), put(dx, x, sizeof x);
    put(dy, y, sizeof y);
    cusparseHandle_t h;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t vx, vy;
    cusparseCreate(&h);
    cusparseCreateCsr(&a, 2, 2, 2, doff, dcol, dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                      CUDA_R_32F);
    cusparseCreateDnVec(&vx, 2, dx, CUDA_R_32F);
    cusparseCreateDnVec(&vy, 2, dy, CUDA_R_32F);
    float alpha = 1, beta = 0;
    void *buf = dev(64);
    ck_assert_int_eq(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, buf), CUSPARSE_STATUS_SUCCESS);
    get(y, dy, sizeof y);
    ck_assert_float_eq(y[0], 1);   /* the entry in range */
    cusparseDestroySpMat(a);
    cusparseDestroyDnVec(vx);
    cusparseDestroyDnVec(vy);
    cusparseDestroy(h);
    /* getrs with pivots no getrf wrote; a matrix bigger than its buffer */
    double m[4] = {2, 0, 0, 2}, b[2] = {2, 4}, *dm = dev(sizeof m), *db = dev(sizeof b), *work = dev(4096);
    int piv[2] = {77, -3}, *dpiv = dev(sizeof piv), *info = dev(sizeof(int)), hinfo;
    put(dm, m, sizeof m), put(db, b, sizeof b), put(dpiv, piv, sizeof piv);
    cusolverDnHandle_t s;
    cusolverDnCreate(&s);
    ck_assert_int_eq(cusolverDnDgetrs(s, CUBLAS_OP_N, 2, 1, dm, 2, dpiv, db, 2, info), CUSOLVER_STATUS_SUCCESS);
    get(b, db, sizeof b);
    ck_assert_double_eq(b[0], 1);
    ck_assert_double_eq(b[1], 2);
    ck_assert_int_eq(cusolverDnDgetrf(s, 300, 300, dm, 300, work, dpiv, info), CUSOLVER_STATUS_SUCCESS);
    get(&hinfo, info, sizeof hinfo);
    ck_assert_int_eq(hinfo, 0);   /* timed only */
    cusolverDnDestroy(s);
}
END_TEST

/* Each library says its own version, as its header spells it. */
START_TEST(versions_and_properties)
{
    int v = -1;
    ck_assert_int_eq(cufftGetProperty(MAJOR_VERSION, &v), CUFFT_SUCCESS);
    ck_assert_int_eq(v, CUFFT_VER_MAJOR);
    ck_assert_int_eq(curandGetProperty(MINOR_VERSION, &v), CURAND_STATUS_SUCCESS);
    ck_assert_int_eq(v, CURAND_VER_MINOR);
    ck_assert_int_eq(cusparseGetProperty(PATCH_LEVEL, &v), CUSPARSE_STATUS_SUCCESS);
    ck_assert_int_eq(v, CUSPARSE_VER_PATCH);
    ck_assert_int_eq(cusolverGetProperty(MAJOR_VERSION, &v), CUSOLVER_STATUS_SUCCESS);
    ck_assert_int_eq(v, CUSOLVER_VER_MAJOR);
    ck_assert_int_eq(cufftGetProperty((libraryPropertyType)7, &v), CUFFT_INVALID_TYPE);
    ck_assert_int_eq(cusolverGetProperty(MAJOR_VERSION, NULL), CUSOLVER_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cufftGetVersion(&v), CUFFT_SUCCESS);
    ck_assert_int_eq(v, CUFFT_VERSION);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_libs");
    TCase *tc = tcase_create("libs");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, fft_delta_is_flat_with_strides);
    tcase_add_test(tc, fft_xt_plan_is_a_plan);
    tcase_add_test(tc, sparse_mat_descr);
    tcase_add_test(tc, rand_seed_and_offset);
    tcase_add_test(tc, sparse_csc_matches_dense);
    tcase_add_test(tc, sparse_spgemm_protocol);
    tcase_add_test(tc, sparse_spsv_triangles);
    tcase_add_test(tc, solver_potrf_info);
    tcase_add_test(tc, solver_potrf_batched);
    tcase_add_test(tc, solver_gesvd);
    tcase_add_test(tc, bad_arguments_do_not_crash);
    tcase_add_test(tc, versions_and_properties);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
