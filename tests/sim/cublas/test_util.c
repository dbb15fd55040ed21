/*
 * test_util.c - helpers shared by the simulated cuBLAS/cuBLASLt tests (see
 * test_util.h), and main(), which runs the four test cases.
 *
 * The tests link build/sim/libcublas.so.13, libcublasLt.so.13 and
 * libcusim.so and call them through the real CUDA 13 headers. Results are
 * checked against a naive double-precision reference; the call sequence the
 * device sees is checked with a cusim tool of our own (the hook the simulated
 * CUPTI uses). Timing assertions use generous bounds: a lower bound we spin
 * for, never a tight upper one.
 */
#include "test_util.h"

#include <cupti_runtime_cbid.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- the recording tool ------------------------------------------------------ */

test_recording rec;

static void rec_enter(const cusim_api_call *c)
{
    if (rec.napi < REC_MAX) {
        rec_api *a = &rec.api[rec.napi++];
        a->cbid = c->cbid;
        a->driver = c->driver;
        a->corr = c->correlation_id;
        snprintf(a->symbol, sizeof a->symbol, "%s", c->symbol_name ? c->symbol_name : "");
    }
}

static void rec_exit(const cusim_api_call *c)
{
    for (int i = rec.napi - 1; i >= 0; i--)
        if (rec.api[i].corr == c->correlation_id)
            rec.api[i].exited = 1;
}

static void rec_kernel(const cusim_kernel_activity *a)
{
    if (rec.nkern < REC_MAX) {
        rec.desc[rec.nkern] = *a->desc;
        rec.kern[rec.nkern++] = *a;
    }
}

static void rec_copy(const cusim_copy_activity *a)
{
    if (rec.ncopy < REC_MAX)
        rec.copy[rec.ncopy++] = *a;
}

static const cusim_tool_ops rec_ops = {rec_enter, rec_exit, rec_kernel, rec_copy, NULL, NULL, NULL, NULL};

void rec_start(void)
{
    memset(&rec, 0, sizeof rec);
    cusim_tool_set(&rec_ops);
}

void rec_stop(void)
{
    cusim_tool_set(NULL);
}

/* Name of the last kernel queued (interned by the library, lives forever). */
const char *last_kernel(void)
{
    ck_assert_int_gt(rec.nkern, 0);
    return rec.kern[rec.nkern - 1].desc->name;
}

/* ---- data helpers ------------------------------------------------------------ */

void *dev(size_t bytes)
{
    void *p = cusim_mem_alloc(bytes, CUSIM_MEM_DEVICE);
    ck_assert_ptr_nonnull(p);
    return p;
}

size_t esize(cudaDataType t)
{
    return t == CUDA_R_32F ? 4 : 2;
}

void put(void *p, cudaDataType t, size_t i, float v)
{
    uint16_t h;
    if (t == CUDA_R_32F) {
        ((float *)p)[i] = v;
        return;
    }
    h = t == CUDA_R_16F ? simblas_f32_to_f16(v) : simblas_f32_to_bf16(v);
    memcpy((char *)p + 2 * i, &h, 2);
}

float get(const void *p, cudaDataType t, size_t i)
{
    uint16_t h;
    if (t == CUDA_R_32F)
        return ((const float *)p)[i];
    memcpy(&h, (const char *)p + 2 * i, 2);
    return t == CUDA_R_16F ? simblas_f16_to_f32(h) : simblas_bf16_to_f32(h);
}

/* Small values exactly representable in fp16 and bf16: multiples of 1/4. */
float val(size_t i, int salt)
{
    return (float)((int)((i * 7 + (size_t)salt * 13) % 11) - 5) / 4.0f;
}

/* A device matrix of `count` elements filled with val(i, salt). */
void *fill(cudaDataType t, size_t count, int salt)
{
    void *p = dev(count * esize(t) + 1);
    for (size_t i = 0; i < count; i++)
        put(p, t, i, val(i, salt));
    return p;
}

/* op(X)(r, c) of a column-major matrix stored with leading dimension ld. */
double at(const void *x, cudaDataType t, int trans, int ld, int r, int c)
{
    return get(x, t, trans ? (size_t)c + (size_t)r * ld : (size_t)r + (size_t)c * ld);
}

/* Compares one output element with tolerance for the output type. */
void wait_results(void)
{
    cusim_device_sync();
}

void expect_close(double got, double want, cudaDataType t, const char *what, int i, int j)
{
    double tol = t == CUDA_R_32F ? 1e-4 * fabs(want) + 1e-4
                 : t == CUDA_R_16F ? 2e-3 * fabs(want) + 1e-3
                                   : 8e-3 * fabs(want) + 1e-3;
    ck_assert_msg(fabs(got - want) <= tol, "%s: D(%d,%d) = %g, want %g", what, i, j, got, want);
}

/* Checks the last recorded things are cuBLAS 13's GEMM sequence (see
 * test_util.h) and one kernel correlated to its launch. */
void expect_gemm_sequence(int first_api, const char *what)
{
    static const struct {
        int driver;
        uint32_t cbid;
    } want[GEMM_SEQ_CALLS] = {
        {0, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020},
        {1, CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute},
        {1, CUPTI_DRIVER_TRACE_CBID_cuKernelGetAttribute},
        {0, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020},
        {1, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx},
    };
    ck_assert_msg(rec.napi == first_api + GEMM_SEQ_CALLS, "%s: %d api calls", what,
                  rec.napi - first_api);
    for (int i = 0; i < GEMM_SEQ_CALLS; i++) {
        const rec_api *a = &rec.api[first_api + i];
        ck_assert_msg(a->driver == want[i].driver && a->cbid == want[i].cbid,
                      "%s: call %d is %s cbid %u", what, i, a->driver ? "driver" : "runtime",
                      a->cbid);
        ck_assert(a->exited);
        ck_assert_uint_ne(a->corr, 0);
    }
    const rec_api *launch = &rec.api[first_api + GEMM_SEQ_CALLS - 1];
    ck_assert_uint_ne(rec.api[first_api].corr, launch->corr);
    ck_assert_uint_eq(rec.kern[rec.nkern - 1].correlation_id, launch->corr);
    ck_assert_str_eq(launch->symbol, rec.kern[rec.nkern - 1].desc->name);
}

/* ---- a cuBLASLt problem ------------------------------------------------------ */

void lt_setup(lt_run *r, const lt_case *c)
{
    int ar = c->ta == CUBLAS_OP_N ? c->m : c->k, ac = c->ta == CUBLAS_OP_N ? c->k : c->m;
    int br = c->tb == CUBLAS_OP_N ? c->k : c->n, bc = c->tb == CUBLAS_OP_N ? c->n : c->k;
    cublasLtMatmulPreference_t pref;
    uint64_t ws = 1 << 22;
    int found = 0;
    memset(r, 0, sizeof *r);
    r->A = fill(c->t, (size_t)ar * ac, 1);
    r->B = fill(c->t, (size_t)br * bc, 2);
    r->C = fill(c->t, (size_t)c->m * c->n, 3);
    r->D = dev((size_t)c->m * c->n * esize(c->t));
    r->bias = fill(c->t, (size_t)c->m, 4);
    ck_assert_int_eq(cublasLtCreate(&r->h), CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(cublasLtMatmulDescCreate(&r->op, CUBLAS_COMPUTE_32F, CUDA_R_32F), 0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(r->op, CUBLASLT_MATMUL_DESC_TRANSA, &c->ta,
                                                    sizeof c->ta),
                     0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(r->op, CUBLASLT_MATMUL_DESC_TRANSB, &c->tb,
                                                    sizeof c->tb),
                     0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(r->op, CUBLASLT_MATMUL_DESC_EPILOGUE, &c->epi,
                                                    sizeof c->epi),
                     0);
    ck_assert_int_eq(cublasLtMatmulDescSetAttribute(r->op, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                    &r->bias, sizeof r->bias),
                     0);
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&r->la, c->t, ar, ac, ar), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&r->lb, c->t, br, bc, br), 0);
    ck_assert_int_eq(cublasLtMatrixLayoutCreate(&r->lc, c->t, c->m, c->n, c->m), 0);
    ck_assert_int_eq(cublasLtMatmulPreferenceCreate(&pref), 0);
    ck_assert_int_eq(cublasLtMatmulPreferenceSetAttribute(
                         pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws),
                     0);
    ck_assert_int_eq(cublasLtMatmulAlgoGetHeuristic(r->h, r->op, r->la, r->lb, r->lc, r->lc, pref,
                                                    1, &r->algo, &found),
                     CUBLAS_STATUS_SUCCESS);
    ck_assert_int_eq(found, 1);
    ck_assert_int_eq(r->algo.state, CUBLAS_STATUS_SUCCESS);
    ck_assert(r->algo.wavesCount > 0);
    ck_assert_uint_le(r->algo.workspaceSize, ws);
    ck_assert_int_eq(cublasLtMatmulPreferenceDestroy(pref), 0);
}

cublasStatus_t lt_matmul(lt_run *r, float beta)
{
    float alpha = 1.0f;
    return cublasLtMatmul(r->h, r->op, &alpha, r->A, r->la, r->B, r->lb, &beta, r->C, r->lc, r->D,
                          r->lc, &r->algo.algo, NULL, 1 << 22, NULL);
}

void lt_teardown(lt_run *r)
{
    cublasLtMatrixLayoutDestroy(r->la);
    cublasLtMatrixLayoutDestroy(r->lb);
    cublasLtMatrixLayoutDestroy(r->lc);
    cublasLtMatmulDescDestroy(r->op);
    ck_assert_int_eq(cublasLtDestroy(r->h), CUBLAS_STATUS_SUCCESS);
}

int main(void)
{
    Suite *s = suite_create("sim_cublas");
    SRunner *sr;
    int failed;
    suite_add_tcase(s, cublas_tcase());
    suite_add_tcase(s, cublaslt_tcase());
    suite_add_tcase(s, trace_tcase());
    suite_add_tcase(s, blas_tcase());
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
