/*
 * test_sim_cublas.c - the simulated cuBLAS: half/bf16 conversions, the GEMM
 * family against a naive reference (types, transposes, leading dimensions,
 * batches), handle settings, argument errors and the compute threshold.
 */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- conversions ----------------------------------------------------------- */

START_TEST(test_half_bits)
{
    ck_assert_uint_eq(simblas_f32_to_f16(1.0f), 0x3c00);
    ck_assert_uint_eq(simblas_f32_to_f16(-2.0f), 0xc000);
    ck_assert_uint_eq(simblas_f32_to_f16(65504.0f), 0x7bff);
    ck_assert_uint_eq(simblas_f32_to_f16(65520.0f), 0x7c00);      /* rounds to inf */
    ck_assert_uint_eq(simblas_f32_to_f16(5.9604645e-8f), 0x0001); /* 2^-24 */
    ck_assert_uint_eq(simblas_f32_to_f16(1.0f + 1.0f / 2048), 0x3c00); /* tie: even */
    ck_assert_uint_eq(simblas_f32_to_f16(1.0f + 3.0f / 2048), 0x3c02); /* tie: even */
    ck_assert(simblas_f16_to_f32(0x3555) > 0.333f && simblas_f16_to_f32(0x3555) < 0.3334f);
    ck_assert(simblas_f16_to_f32(0x0001) == 5.9604645e-8f);
    ck_assert(isinf(simblas_f16_to_f32(0xfc00)) && simblas_f16_to_f32(0xfc00) < 0);
    ck_assert(isnan(simblas_f16_to_f32(0x7e00)));
    ck_assert_uint_eq(simblas_f32_to_bf16(1.0f), 0x3f80);
    ck_assert_uint_eq(simblas_f32_to_bf16(-3.0f), 0xc040);
    ck_assert_uint_eq(simblas_f32_to_bf16(1.0f + 1.0f / 256), 0x3f80); /* tie: even */
    ck_assert_uint_eq(simblas_f32_to_bf16(1.0f + 3.0f / 256), 0x3f82);
    ck_assert(simblas_bf16_to_f32(0x4049) == 3.140625f);
}
END_TEST

/* ---- cuBLAS GEMMs ------------------------------------------------------------ */

/* One cublasGemmEx / strided / batched case, checked against the reference. */
typedef struct gemm_case {
    cudaDataType ab, c;   /* input and output types */
    cublasOperation_t ta, tb;
    int m, n, k, batch;
    int api;              /* 0 GemmEx / Sgemm, 1 strided batched, 2 pointer arrays */
} gemm_case;

static void run_gemm_case(const gemm_case *gc, const char *what)
{
    cublasHandle_t h;
    int m = gc->m, n = gc->n, k = gc->k;
    int lda = (gc->ta == CUBLAS_OP_N ? m : k) + 3, ldb = (gc->tb == CUBLAS_OP_N ? k : n) + 1;
    int ldc = m + 2;
    long long sa = (long long)lda * (gc->ta == CUBLAS_OP_N ? k : m) + 5,
              sb = (long long)ldb * (gc->tb == CUBLAS_OP_N ? n : k) + 7, sc = (long long)ldc * n;
    float alpha = 0.75f, beta = -0.5f;
    void *A = fill(gc->ab, (size_t)sa * gc->batch, 1), *B = fill(gc->ab, (size_t)sb * gc->batch, 2);
    void *C = fill(gc->c, (size_t)sc * gc->batch, 3), *C0 = malloc((size_t)sc * gc->batch * 4);
    const void *pa[8], *pb[8];
    void *pc[8];
    cublasStatus_t st;
    for (size_t i = 0; i < (size_t)sc * gc->batch; i++)
        ((float *)C0)[i] = get(C, gc->c, i);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    if (gc->api == 0 && gc->ab == CUDA_R_32F && gc->c == CUDA_R_32F)
        st = cublasSgemm(h, gc->ta, gc->tb, m, n, k, &alpha, A, lda, B, ldb, &beta, C, ldc);
    else if (gc->api == 0)
        st = cublasGemmEx(h, gc->ta, gc->tb, m, n, k, &alpha, A, gc->ab, lda, B, gc->ab, ldb, &beta,
                          C, gc->c, ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    else if (gc->api == 1)
        st = cublasGemmStridedBatchedEx(h, gc->ta, gc->tb, m, n, k, &alpha, A, gc->ab, lda, sa, B,
                                        gc->ab, ldb, sb, &beta, C, gc->c, ldc, sc, gc->batch,
                                        CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
    else {
        for (int b = 0; b < gc->batch; b++) {
            pa[b] = (char *)A + (size_t)b * sa * esize(gc->ab);
            pb[b] = (char *)B + (size_t)b * sb * esize(gc->ab);
            pc[b] = (char *)C + (size_t)b * sc * esize(gc->c);
        }
        st = cublasGemmBatchedEx(h, gc->ta, gc->tb, m, n, k, &alpha, pa, gc->ab, lda, pb, gc->ab,
                                 ldb, &beta, pc, gc->c, ldc, gc->batch, CUBLAS_COMPUTE_32F,
                                 CUBLAS_GEMM_DEFAULT);
    }
    ck_assert_int_eq(st, CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int b = 0; b < gc->batch; b++) {
        const char *Ab = (char *)A + (size_t)b * sa * esize(gc->ab);
        const char *Bb = (char *)B + (size_t)b * sb * esize(gc->ab);
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) {
                double acc = 0;
                size_t ci = (size_t)b * sc + i + (size_t)j * ldc;
                for (int l = 0; l < k; l++)
                    acc += at(Ab, gc->ab, gc->ta != CUBLAS_OP_N, lda, i, l) *
                           at(Bb, gc->ab, gc->tb != CUBLAS_OP_N, ldb, l, j);
                expect_close(get(C, gc->c, ci), alpha * acc + beta * ((float *)C0)[ci], gc->c,
                             what, i, j);
            }
        /* the padding rows between columns are not touched */
        for (int j = 0; j < n; j++)
            ck_assert(get(C, gc->c, (size_t)b * sc + m + (size_t)j * ldc) ==
                      ((float *)C0)[(size_t)b * sc + m + (size_t)j * ldc]);
    }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    free(C0);
}

static const cublasOperation_t ops2[2] = {CUBLAS_OP_N, CUBLAS_OP_T};

/* Loop index: transposes (2 bits) x type (3). */
START_TEST(test_gemm_types_transposes)
{
    static const cudaDataType types[3] = {CUDA_R_32F, CUDA_R_16F, CUDA_R_16BF};
    gemm_case gc = {types[_i / 4], types[_i / 4], ops2[_i & 1], ops2[(_i >> 1) & 1], 13, 7, 11, 1,
                    0};
    char what[64];
    snprintf(what, sizeof what, "type %d ta %d tb %d", gc.ab, gc.ta, gc.tb);
    run_gemm_case(&gc, what);
}
END_TEST

START_TEST(test_gemm_mixed_output)
{
    gemm_case bf = {CUDA_R_16BF, CUDA_R_32F, CUBLAS_OP_T, CUBLAS_OP_N, 9, 17, 33, 1, 0};
    gemm_case hf = {CUDA_R_16F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_T, 16, 5, 20, 1, 0};
    run_gemm_case(&bf, "bf16 -> f32");
    run_gemm_case(&hf, "f16 -> f32");
}
END_TEST

START_TEST(test_gemm_batched)
{
    gemm_case s = {CUDA_R_32F, CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_T, 6, 5, 4, 3, 1};
    gemm_case bf = {CUDA_R_16BF, CUDA_R_16BF, CUBLAS_OP_T, CUBLAS_OP_N, 8, 3, 9, 4, 1};
    gemm_case arr = {CUDA_R_16F, CUDA_R_16F, CUBLAS_OP_N, CUBLAS_OP_N, 5, 6, 7, 3, 2};
    run_gemm_case(&s, "strided f32");
    run_gemm_case(&bf, "strided bf16");
    run_gemm_case(&arr, "pointer arrays f16");
}
END_TEST

/* cublas_api.h declares cublasHgemm for C++ only (C has no __half); the same
 * prototype with __half_raw, which has __half's layout. */
cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
                           cublasOperation_t transb, int m, int n, int k, const __half_raw *alpha,
                           const __half_raw *A, int lda, const __half_raw *B, int ldb,
                           const __half_raw *beta, __half_raw *C, int ldc);

START_TEST(test_sgemm_strided_and_hgemm)
{
    cublasHandle_t h;
    float alpha = 2.0f, beta = 0.0f, *A = fill(CUDA_R_32F, 2 * 6, 1), *B = fill(CUDA_R_32F, 2 * 6, 2);
    float *C = dev(2 * 4 * sizeof(float));
    __half_raw ha = {simblas_f32_to_f16(1.5f)}, hb = {simblas_f32_to_f16(0.0f)};
    void *HA = fill(CUDA_R_16F, 6, 4), *HB = fill(CUDA_R_16F, 6, 5), *HC = dev(4 * 2);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    /* 2x2 = (2x3)(3x2), two batches */
    ck_assert_int_eq(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &alpha, A, 2,
                                               6, B, 3, 6, &beta, C, 2, 4, 2),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int b = 0; b < 2; b++)
        for (int j = 0; j < 2; j++)
            for (int i = 0; i < 2; i++) {
                double acc = 0;
                for (int l = 0; l < 3; l++)
                    acc += (double)A[b * 6 + i + 2 * l] * B[b * 6 + l + 3 * j];
                expect_close(C[b * 4 + i + 2 * j], 2.0 * acc, CUDA_R_32F, "sgemm strided", i, j);
            }
    /* cublasHgemm: __half scalars */
    ck_assert_int_eq(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 3, &ha, HA, 2, HB, 3, &hb, HC,
                                 2),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++) {
            double acc = 0;
            for (int l = 0; l < 3; l++)
                acc += (double)get(HA, CUDA_R_16F, i + 2 * l) * get(HB, CUDA_R_16F, l + 3 * j);
            expect_close(get(HC, CUDA_R_16F, i + 2 * j), 1.5 * acc, CUDA_R_16F, "hgemm", i, j);
        }
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

START_TEST(test_beta_zero_ignores_nan_and_device_pointer_mode)
{
    cublasHandle_t h;
    float *A = fill(CUDA_R_32F, 4, 1), *B = fill(CUDA_R_32F, 4, 2), *C = dev(4 * sizeof(float));
    float *scal = dev(2 * sizeof(float));
    cublasPointerMode_t pm;
    for (int i = 0; i < 4; i++)
        C[i] = NAN;
    scal[0] = 1.0f;
    scal[1] = 0.0f;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_DEVICE), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGetPointerMode(h, &pm), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(pm, CUBLAS_POINTER_MODE_DEVICE);
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &scal[0], A, 2, B, 2,
                                 &scal[1], C, 2),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int j = 0; j < 2; j++)
        for (int i = 0; i < 2; i++)
            expect_close(C[i + 2 * j], A[i] * B[2 * j] + A[i + 2] * B[1 + 2 * j], CUDA_R_32F,
                         "beta 0", i, j);
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
}
END_TEST

START_TEST(test_errors)
{
    cublasHandle_t h;
    float one = 1.0f, *A = fill(CUDA_R_32F, 64, 1), *C = dev(64 * sizeof(float));
    ck_assert_int_eq(cublasSgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A, 2, A, 2, &one,
                                 C, 2),
                     CUBLAS_STATUS_NOT_INITIALIZED);
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    /* lda < m */
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 4, 2, 2, &one, A, 3, A, 2, &one, C,
                                 4),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, -1, 2, 2, &one, A, 2, A, 2, &one, C,
                                 2),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A, CUDA_R_64F, 2, A,
                                  CUDA_R_64F, 2, &one, C, CUDA_R_64F, 2, CUBLAS_COMPUTE_64F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A, CUDA_R_16BF, 2, A,
                                  CUDA_R_16F, 2, &one, C, CUDA_R_32F, 2, CUBLAS_COMPUTE_32F,
                                  CUBLAS_GEMM_DEFAULT),
                     CUBLAS_STATUS_NOT_SUPPORTED);
    /* an empty problem is a success that launches nothing */
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 0, 2, 2, &one, A, 1, A, 2, &one, C,
                                 1),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.nkern, 0);
    ck_assert_int_eq(rec.napi, 0);
    rec_stop();
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasDestroy(NULL), CUBLAS_STATUS_NOT_INITIALIZED);
}
END_TEST

START_TEST(test_handle_settings)
{
    cublasHandle_t h;
    cudaStream_t s = (cudaStream_t)cusim_stream_create(0, 0), got = NULL;
    cublasMath_t mm;
    int v = 0;
    float one = 1.0f, *A = fill(CUDA_R_32F, 4, 1), *C = dev(4 * sizeof(float));
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGetVersion(h, &v), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(v, CUBLAS_VERSION);
    ck_assert_uint_eq(cublasLtGetVersion(), CUBLAS_VERSION);
    ck_assert_int_eq(cublasSetStream(h, s), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGetStream(h, &got), CUBLAS_STATUS_SUCCESS);
    ck_assert_ptr_eq(got, s);
    ck_assert_int_eq(cublasGetMathMode(h, &mm), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(mm, CUBLAS_DEFAULT_MATH);
    ck_assert_int_eq(cublasSetWorkspace(h, C, 16), CUBLAS_STATUS_SUCCESS);
    rec_start();
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A, 2, A, 2, &one, C,
                                 2),
                     CUBLAS_STATUS_SUCCESS);
    /* the kernel went to the handle's stream, on the fp32 (non-TF32) path */
    ck_assert_uint_eq(rec.kern[0].stream_id, cusim_stream_id((cusim_stream *)s));
    ck_assert_ptr_nonnull(strstr(last_kernel(), "_s_badd_"));
    ck_assert_int_eq(rec.desc[0].tensor_dtype_bits, 32);
    ck_assert_int_eq(cublasSetMathMode(h, CUBLAS_TF32_TENSOR_OP_MATH), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasGetMathMode(h, &mm), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(mm, CUBLAS_TF32_TENSOR_OP_MATH);
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &one, A, 2, A, 2, &one, C,
                                 2),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_ptr_nonnull(strstr(last_kernel(), "_t_badd_"));
    rec_stop();
    ck_assert_str_eq(cublasGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED),
                     "CUBLAS_STATUS_NOT_SUPPORTED");
    ck_assert_str_eq(cublasGetStatusString(CUBLAS_STATUS_SUCCESS),
                     "the operation completed successfully");
    ck_assert_str_eq(cublasLtGetStatusName(CUBLAS_STATUS_INVALID_VALUE),
                     "CUBLAS_STATUS_INVALID_VALUE");
    ck_assert_int_eq(cublasDestroy(h), CUBLAS_STATUS_SUCCESS);
    cusim_stream_destroy((cusim_stream *)s);
}
END_TEST

START_TEST(test_compute_threshold)
{
    cublasHandle_t h;
    float one = 1.0f, zero = 0.0f, *A = fill(CUDA_R_32F, 64, 1), *C = dev(64 * sizeof(float));
    /* read once per process: only meaningful when each test forks */
    if (getenv("CK_FORK") != NULL && strcmp(getenv("CK_FORK"), "no") == 0)
        return;
    setenv("CUSIM_COMPUTE_MAX", "511", 1);
    for (int i = 0; i < 64; i++)
        C[i] = 42.0f;
    ck_assert_int_eq(cublasCreate(&h), CUBLAS_STATUS_SUCCESS);
    rec_start();
    /* 8*8*8 = 512 > 511: timed, not computed: C untouched */
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &one, A, 8, A, 8, &zero, C,
                                 8),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.nkern, 1);
    wait_results();
    for (int i = 0; i < 64; i++)
        ck_assert(C[i] == 42.0f);
    /* 8*8*7 = 448: computed */
    ck_assert_int_eq(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 7, &one, A, 8, A, 7, &zero, C,
                                 8),
                     CUBLAS_STATUS_SUCCESS);
    wait_results();
    ck_assert(C[0] != 42.0f);
    rec_stop();
    cublasDestroy(h);
}
END_TEST

TCase *cublas_tcase(void)
{
    TCase *tc = tcase_create("cublas");
    tcase_add_test(tc, test_half_bits);
    tcase_add_loop_test(tc, test_gemm_types_transposes, 0, 12);
    tcase_add_test(tc, test_gemm_mixed_output);
    tcase_add_test(tc, test_gemm_batched);
    tcase_add_test(tc, test_sgemm_strided_and_hgemm);
    tcase_add_test(tc, test_beta_zero_ignores_nan_and_device_pointer_mode);
    tcase_add_test(tc, test_errors);
    tcase_add_test(tc, test_handle_settings);
    tcase_add_test(tc, test_compute_threshold);
    return tc;
}
