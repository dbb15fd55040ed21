/*
 * test_sim_cublaslt.c - the simulated cuBLASLt: every supported epilogue
 * against a naive reference, refusals (NOT_SUPPORTED), strided batches with a
 * batched bias, descriptor attributes read back as a profiler reads them, and
 * the heuristic.
 */
#include "test_util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static double ref_epilogue(cublasLtEpilogue_t epi, double v, double bias)
{
    if (epi == CUBLASLT_EPILOGUE_BIAS || epi == CUBLASLT_EPILOGUE_RELU_BIAS ||
        epi == CUBLASLT_EPILOGUE_GELU_BIAS)
        v += bias;
    if (epi == CUBLASLT_EPILOGUE_RELU || epi == CUBLASLT_EPILOGUE_RELU_BIAS)
        v = v > 0 ? v : 0;
    if (epi == CUBLASLT_EPILOGUE_GELU || epi == CUBLASLT_EPILOGUE_GELU_BIAS)
        v = 0.5 * v * (1.0 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
    return v;
}

static const cublasLtEpilogue_t epis[6] = {CUBLASLT_EPILOGUE_DEFAULT,   CUBLASLT_EPILOGUE_RELU,
                                           CUBLASLT_EPILOGUE_BIAS,      CUBLASLT_EPILOGUE_RELU_BIAS,
                                           CUBLASLT_EPILOGUE_GELU,      CUBLASLT_EPILOGUE_GELU_BIAS};

/* Loop index: epilogue (6) x {fp32 NN beta 0.5, bf16 TN beta 0, fp16 NT beta 0}. */
START_TEST(test_lt_epilogues)
{
    static const cudaDataType types[3] = {CUDA_R_32F, CUDA_R_16BF, CUDA_R_16F};
    int v = _i / 6;
    lt_case c = {types[v], v == 1 ? CUBLAS_OP_T : CUBLAS_OP_N, v == 2 ? CUBLAS_OP_T : CUBLAS_OP_N,
                 12, 9, 10, epis[_i % 6], v == 0 ? 0.5f : 0.0f};
    lt_run r;
    char what[64];
    snprintf(what, sizeof what, "epilogue %d type %d", (int)c.epi, (int)c.t);
    lt_setup(&r, &c);
    for (int i = 0; i < c.m * c.n; i++)
        put(r.D, c.t, (size_t)i, NAN); /* every element must be written */
    ck_assert_int_eq(lt_matmul(&r, c.beta), CUBLAS_STATUS_SUCCESS);
    wait_results();
    for (int j = 0; j < c.n; j++)
        for (int i = 0; i < c.m; i++) {
            double acc = 0;
            for (int l = 0; l < c.k; l++)
                acc += at(r.A, c.t, c.ta != CUBLAS_OP_N, c.ta == CUBLAS_OP_N ? c.m : c.k, i, l) *
                       at(r.B, c.t, c.tb != CUBLAS_OP_N, c.tb == CUBLAS_OP_N ? c.k : c.n, l, j);
            acc += c.beta * get(r.C, c.t, (size_t)i + (size_t)j * c.m);
            expect_close(get(r.D, c.t, (size_t)i + (size_t)j * c.m),
                         ref_epilogue(c.epi, acc, get(r.bias, c.t, (size_t)i)), c.t, what, i, j);
        }
    lt_teardown(&r);
}
END_TEST

START_TEST(test_lt_not_supported)
{
    static const cublasLtEpilogue_t bad[] = {CUBLASLT_EPILOGUE_RELU_AUX, CUBLASLT_EPILOGUE_DRELU_BGRAD,
                                             CUBLASLT_EPILOGUE_GELU_AUX_BIAS, CUBLASLT_EPILOGUE_BGRADA};
    lt_case c = {CUDA_R_32F, CUBLAS_OP_N, CUBLAS_OP_N, 4, 4, 4, CUBLASLT_EPILOGUE_DEFAULT, 0.0f};
    cublasLtOrder_t row = CUBLASLT_ORDER_ROW, col = CUBLASLT_ORDER_COL;
    lt_run r;
    lt_setup(&r, &c);
    rec_start();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        ck_assert_int_eq(cublasLtMatmulDescSetAttribute(r.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &bad[i],
                                                        sizeof bad[i]),
                         CUBLAS_STATUS_SUCCESS);
        ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_NOT_SUPPORTED);
    }
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(r.op, CUBLASLT_MATMUL_DESC_EPILOGUE, &c.epi,
                                                    sizeof c.epi),
                     0);
    ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(r.la, CUBLASLT_MATRIX_LAYOUT_ORDER, &row,
                                                      sizeof row),
                     0);
    ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_NOT_SUPPORTED);
    ck_assert_int_eq(rec.nkern, 0); /* nothing was launched for refused calls */
    ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(r.la, CUBLASLT_MATRIX_LAYOUT_ORDER, &col,
                                                      sizeof col),
                     0);
    ck_assert_int_eq(lt_matmul(&r, 0.0f), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.nkern, 1);
    rec_stop();
    lt_teardown(&r);
}
END_TEST

START_TEST(test_lt_strided_batch)
{
    enum { M = 5, N = 4, K = 3, BATCH = 3 };
    cublasLtHandle_t h;
    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la, lb, ld;
    int32_t batch = BATCH;
    int64_t sa = M * K + 2, sb = K * N + 1, sd = M * N, bstride = M;
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    float alpha = 1.0f, beta = 0.0f, *A = fill(CUDA_R_32F, (size_t)sa * BATCH, 1),
          *B = fill(CUDA_R_32F, (size_t)sb * BATCH, 2), *D = dev(sd * BATCH * sizeof(float)),
          *bias = fill(CUDA_R_32F, M * BATCH, 3);
    ck_assert_int_eq(cublasLtCreate(&h), 0);
    ck_assert_int_eq(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
                                                    sizeof epi), 0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                                    sizeof bias), 0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE,
                                                    &bstride, sizeof bstride), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, M, K, M), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, K, N, K), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, M, N, M), 0);
    cublasLtMatrixLayout_t ls[3] = {la, lb, ld};
    int64_t strides[3] = {sa, sb, sd};
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(ls[i], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                          &batch, sizeof batch), 0);
        ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(
                             ls[i], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &strides[i],
                             sizeof strides[i]), 0);
    }
    rec_start();
    ck_assert_int_eq(cublasLtMatmul(h, op, &alpha, A, la, B, lb, &beta, D, ld, D, ld, NULL, NULL, 0,
                                    NULL),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.nkern, 1);
    ck_assert_uint_eq(rec.desc[0].grid[2], BATCH);
    ck_assert(rec.desc[0].flops == 2.0 * M * N * K * BATCH);
    rec_stop();
    wait_results();
    for (int b = 0; b < BATCH; b++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < M; i++) {
                double acc = bias[b * bstride + i];
                for (int l = 0; l < K; l++)
                    acc += (double)A[b * sa + i + l * M] * B[b * sb + l + j * K];
                expect_close(D[b * sd + i + j * M], acc, CUDA_R_32F, "batched bias", i, j);
            }
    cublasLtMatrixLayoutDestroy(la);
    cublasLtMatrixLayoutDestroy(lb);
    cublasLtMatrixLayoutDestroy(ld);
    cublasLtMatmulDescDestroy(op);
    cublasLtDestroy(h);
}
END_TEST

START_TEST(test_lt_attributes)
{
    cublasLtMatrixLayout_t l;
    cublasLtMatmulDesc_t d;
    cublasLtMatrixLayoutOpaque_t stack_layout;
    uint32_t type = 0;
    uint64_t rows = 0, cols = 0;
    int64_t ld = 0, stride = 77, got_stride = 0;
    int32_t order = -1, batch = 0, i32 = 0;
    size_t written = 0;
    uint32_t epi = CUBLASLT_EPILOGUE_GELU_BIAS, got_epi = 0;
    const void *bias = (const void *)0x1234, *got_bias = NULL;
    cublasOperation_t t = CUBLAS_OP_T;

    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&l, CUDA_R_16BF, 96, 40, 128), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_TYPE, &type,
                                                      sizeof type, &written), 0);
    ck_assert_uint_eq(type, CUDA_R_16BF);
    ck_assert_uint_eq(written, 4);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows,
                                                      sizeof rows, &written), 0);
    ck_assert_uint_eq(written, 8);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_COLS, &cols,
                                                      sizeof cols, NULL), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_LD, &ld, sizeof ld,
                                                      NULL), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order,
                                                      sizeof order, NULL), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch,
                                                      sizeof batch, NULL), 0);
    ck_assert_uint_eq(rows, 96);
    ck_assert_uint_eq(cols, 40);
    ck_assert_int_eq(ld, 128);
    ck_assert_int_eq(order, CUBLASLT_ORDER_COL);
    ck_assert_int_eq(batch, 1);
    ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(
                         l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(
                         l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &got_stride,
                         sizeof got_stride, NULL), 0);
    ck_assert_int_eq(got_stride, 77);
    /* size query, then the contract's refusals */
    written = 0;
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, NULL, 0,
                                                      &written), 0);
    ck_assert_uint_eq(written, sizeof(uint64_t));
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, NULL, 0, NULL),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &type,
                                                      sizeof type, NULL),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &type,
                                                      sizeof type),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ROWS, NULL, 8),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasLtMatrixLayoutDestroy(l), 0);
    /* the header's inline Init on caller storage */
    ck_assert_int_eq(cublasLtMatrixLayoutInit(&stack_layout, CUDA_R_32F, 3, 5, 4), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutGetAttribute(&stack_layout, CUBLASLT_MATRIX_LAYOUT_COLS,
                                                      &cols, sizeof cols, NULL), 0);
    ck_assert_uint_eq(cols, 5);

    ck_assert_int_eq(cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F_FAST_16BF, CUDA_R_32F), 0);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &got_epi,
                                                    sizeof got_epi, &written), 0);
    ck_assert_uint_eq(got_epi, CUBLASLT_EPILOGUE_DEFAULT);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &i32,
                                                    sizeof i32, NULL), 0);
    ck_assert_int_eq(i32, -1);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi,
                                                    sizeof epi), 0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                                    sizeof bias), 0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof t),
                     0);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &got_epi,
                                                    sizeof got_epi, &written), 0);
    ck_assert_uint_eq(got_epi, CUBLASLT_EPILOGUE_GELU_BIAS);
    ck_assert_uint_eq(written, 4);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &got_bias,
                                                    sizeof got_bias, &written), 0);
    ck_assert_ptr_eq(got_bias, bias);
    ck_assert_uint_eq(written, sizeof(void *));
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &i32,
                                                    sizeof i32, NULL), 0);
    ck_assert_int_eq(i32, CUBLAS_OP_T);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &i32,
                                                    sizeof i32, NULL), 0);
    ck_assert_int_eq(i32, CUBLAS_OP_N);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, &i32,
                                                    sizeof i32, NULL), 0);
    ck_assert_int_eq(i32, CUBLAS_COMPUTE_32F_FAST_16BF);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_SCALE_TYPE, &i32,
                                                    sizeof i32, NULL), 0);
    ck_assert_int_eq(i32, CUDA_R_32F);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_POINTER_MODE, &i32,
                                                    sizeof i32, NULL), 0);
    ck_assert_int_eq(i32, CUBLASLT_POINTER_MODE_HOST);
    i32 = CUDA_R_32F;
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &i32,
                                                    sizeof i32), 0);
    i32 = 0;
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &i32,
                                                    sizeof i32, NULL), 0);
    ck_assert_int_eq(i32, CUDA_R_32F);
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, NULL, 0,
                                                    &written), 0);
    ck_assert_uint_eq(written, sizeof(uint32_t));
    ck_assert_int_eq(cublasLtMatmulDescGetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &rows,
                                                    sizeof rows, NULL),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasLtMatmulDescDestroy(d), 0);
}
END_TEST

START_TEST(test_lt_heuristic)
{
    lt_case c = {CUDA_R_16BF, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, CUBLASLT_EPILOGUE_BIAS, 0.0f};
    cublasLtMatmulPreference_t pref;
    cublasLtMatmulHeuristicResult_t res[4];
    uint64_t ws = 0;
    size_t written = 0;
    int found = 7;
    lt_run r;
    lt_setup(&r, &c);
    ck_assert_int_eq(cublasLtMatmulPreferenceCreate(&pref), 0);
    ck_assert_int_eq(cublasLtMatmulPreferenceGetAttribute(
                         pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws, &written), 0);
    ck_assert_uint_eq(ws, 0);
    ck_assert_uint_eq(written, 8);
    ck_assert_int_eq(cublasLtMatmulAlgoGetHeuristic(r.h, r.op, r.la, r.lb, r.lc, r.lc, pref, 0, res,
                                                    &found),
                     CUBLAS_STATUS_INVALID_VALUE);
    ck_assert_int_eq(cublasLtMatmulAlgoGetHeuristic(r.h, r.op, r.la, r.lb, r.lc, r.lc, pref, 4, res,
                                                    &found),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(res[0].state, CUBLAS_STATUS_SUCCESS);
    ck_assert_uint_eq(res[0].workspaceSize, 0); /* no workspace allowed */
    ck_assert_int_eq(cublasLtMatmulPreferenceDestroy(pref), 0);
    /* the heuristic launches nothing; the algo it gave runs */
    rec_start();
    ck_assert_int_eq(cublasLtMatmul(r.h, r.op, &(float){1}, r.A, r.la, r.B, r.lb, &(float){0}, r.C,
                                    r.lc, r.D, r.lc, &res[0].algo, NULL, 0, NULL),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(rec.nkern, 1);
    rec_stop();
    lt_teardown(&r);
}
END_TEST

TCase *cublaslt_tcase(void)
{
    TCase *tc = tcase_create("cublasLt");
    tcase_add_loop_test(tc, test_lt_epilogues, 0, 18);
    tcase_add_test(tc, test_lt_not_supported);
    tcase_add_test(tc, test_lt_strided_batch);
    tcase_add_test(tc, test_lt_attributes);
    tcase_add_test(tc, test_lt_heuristic);
    return tc;
}
