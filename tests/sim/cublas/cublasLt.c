/*
 * cublasLt.c - the simulated libcublasLt.so.13: handles, the heuristic and
 * cublasLtMatmul with the DEFAULT, RELU, BIAS, RELU_BIAS, GELU and GELU_BIAS
 * epilogues (others answer CUBLAS_STATUS_NOT_SUPPORTED).
 *
 * A matmul is one fused kernel whatever the epilogue, run by simblas_run like
 * a cuBLAS GEMM: cold start on the handle's first matmul, the traced call
 * sequence ending in a driver cuLaunchKernelEx (gemm_launch.c), then the CPU computation (deferred
 * until the program can observe it) up to CUSIM_COMPUTE_MAX (timing only
 * above it: D is left untouched).
 */
#include "lt_desc.h"
#include "simblas.h"

#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define LT_HANDLE_MAGIC 0x4c74c7c7u
#define ALGO_MAGIC 0x5a1e0000u /* algo.data[0] = ALGO_MAGIC | tile */

/* What cublasLtHandle_t points to. */
struct cublasLtContext {
    uint32_t magic;     /* LT_HANDLE_MAGIC while alive */
    simblas_ctx engine; /* cold-start state and workspace */
};

static int handle_ok(cublasLtHandle_t h)
{
    return h != NULL && h->magic == LT_HANDLE_MAGIC;
}

EXPORT cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle)
{
    struct cublasLtContext *h;
    if (lightHandle == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    cusim_init();
    if ((h = calloc(1, sizeof *h)) == NULL)
        return CUBLAS_STATUS_ALLOC_FAILED;
    h->magic = LT_HANDLE_MAGIC;
    *lightHandle = h;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle)
{
    if (!handle_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    simblas_ctx_release(&lightHandle->engine);
    lightHandle->magic = 0;
    free(lightHandle);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT size_t cublasLtGetVersion(void)
{
    return CUBLAS_VERSION;
}

EXPORT const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return simblas_status_name(status);
}

EXPORT const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return simblas_status_string(status);
}

/* ---- problem description from the descriptors ---------------------------- */

static int epilogue_flags(uint32_t epi, unsigned *flags)
{
    switch (epi) {
    case CUBLASLT_EPILOGUE_DEFAULT:
        *flags = 0;
        return 1;
    case CUBLASLT_EPILOGUE_RELU:
        *flags = SIMBLAS_EPI_RELU;
        return 1;
    case CUBLASLT_EPILOGUE_BIAS:
        *flags = SIMBLAS_EPI_BIAS;
        return 1;
    case CUBLASLT_EPILOGUE_RELU_BIAS:
        *flags = SIMBLAS_EPI_BIAS | SIMBLAS_EPI_RELU;
        return 1;
    case CUBLASLT_EPILOGUE_GELU:
        *flags = SIMBLAS_EPI_GELU;
        return 1;
    case CUBLASLT_EPILOGUE_GELU_BIAS:
        *flags = SIMBLAS_EPI_BIAS | SIMBLAS_EPI_GELU;
        return 1;
    default:
        return 0;
    }
}

static int op_ok(int32_t op)
{
    return op == CUBLAS_OP_N || op == CUBLAS_OP_T || op == CUBLAS_OP_C;
}

/* Types, compute type, scale type and pointer mode we can run. */
static cublasStatus_t check_types(const lt_matmul_desc *op, const lt_layout *a,
                                  const lt_layout *b, const lt_layout *c, const lt_layout *d)
{
    cudaDataType at = (cudaDataType)a->type;
    if (simblas_dtype_size(at) == 0 || b->type != a->type)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (c->type != d->type || (d->type != a->type && d->type != CUDA_R_32F))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    switch (op->compute_type) {
    case CUBLAS_COMPUTE_16F:
    case CUBLAS_COMPUTE_16F_PEDANTIC:
        if (at != CUDA_R_16F || d->type != CUDA_R_16F ||
            (op->scale_type != CUDA_R_16F && op->scale_type != CUDA_R_32F))
            return CUBLAS_STATUS_NOT_SUPPORTED;
        break;
    case CUBLAS_COMPUTE_32F:
    case CUBLAS_COMPUTE_32F_PEDANTIC:
    case CUBLAS_COMPUTE_32F_FAST_16F:
    case CUBLAS_COMPUTE_32F_FAST_16BF:
    case CUBLAS_COMPUTE_32F_FAST_TF32:
        if (op->scale_type != CUDA_R_32F)
            return CUBLAS_STATUS_NOT_SUPPORTED;
        break;
    default:
        return CUBLAS_STATUS_NOT_SUPPORTED;
    }
    if (op->pointer_mode != CUBLASLT_POINTER_MODE_HOST &&
        op->pointer_mode != CUBLASLT_POINTER_MODE_DEVICE)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (a->order != CUBLASLT_ORDER_COL || b->order != CUBLASLT_ORDER_COL ||
        c->order != CUBLASLT_ORDER_COL || d->order != CUBLASLT_ORDER_COL)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    if (a->batch_mode || b->batch_mode || c->batch_mode || d->batch_mode)
        return CUBLAS_STATUS_NOT_SUPPORTED; /* pointer-array batches */
    if (op->transc != CUBLAS_OP_N)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    return CUBLAS_STATUS_SUCCESS;
}

static int ld_ok(const lt_layout *l)
{
    return l->ld >= (int64_t)(l->rows > 1 ? l->rows : 1);
}

static simblas_matrix mat(const lt_layout *l)
{
    simblas_matrix m = {.ptr = NULL, .array = NULL, .type = (cudaDataType)l->type,
                        .ld = l->ld, .stride = l->batch_stride};
    return m;
}

/* Fills g (without the data pointers and scalars) from the descriptors. */
static cublasStatus_t lt_problem(cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t ad,
                                 cublasLtMatrixLayout_t bd, cublasLtMatrixLayout_t cd,
                                 cublasLtMatrixLayout_t dd, simblas_gemm *g)
{
    const lt_matmul_desc *op = lt_desc_of(desc);
    const lt_layout *a = lt_layout_of(ad), *b = lt_layout_of(bd), *c = lt_layout_of(cd),
                    *d = lt_layout_of(dd);
    uint64_t m, n, k;
    unsigned epi;
    cublasStatus_t st;
    if (op == NULL || a == NULL || b == NULL || c == NULL || d == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!op_ok(op->transa) || !op_ok(op->transb))
        return CUBLAS_STATUS_INVALID_VALUE;
    if ((st = check_types(op, a, b, c, d)) != CUBLAS_STATUS_SUCCESS)
        return st;
    if (!epilogue_flags(op->epilogue, &epi))
        return CUBLAS_STATUS_NOT_SUPPORTED;
    m = d->rows;
    n = d->cols;
    k = op->transa == CUBLAS_OP_N ? a->cols : a->rows;
    if ((op->transa == CUBLAS_OP_N ? a->rows : a->cols) != m ||
        (op->transb == CUBLAS_OP_N ? b->rows : b->cols) != k ||
        (op->transb == CUBLAS_OP_N ? b->cols : b->rows) != n || c->rows != m || c->cols != n)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (m > INT32_MAX || n > INT32_MAX || k > INT32_MAX || !ld_ok(a) || !ld_ok(b) || !ld_ok(c) ||
        !ld_ok(d))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (d->batch_count < 1 || a->batch_count != d->batch_count ||
        b->batch_count != d->batch_count || c->batch_count != d->batch_count)
        return CUBLAS_STATUS_INVALID_VALUE;

    memset(g, 0, sizeof *g);
    g->trans_a = op->transa != CUBLAS_OP_N;
    g->trans_b = op->transb != CUBLAS_OP_N;
    g->m = (int64_t)m;
    g->n = (int64_t)n;
    g->k = (int64_t)k;
    g->batch = d->batch_count;
    g->a = mat(a);
    g->b = mat(b);
    g->c = mat(c);
    g->d = mat(d);
    g->epilogue = epi;
    g->bias = op->bias;
    g->bias_type = op->bias_data_type == -1 ? (cudaDataType)d->type
                                            : (cudaDataType)op->bias_data_type;
    g->bias_stride = op->bias_batch_stride;
    if ((epi & SIMBLAS_EPI_BIAS) && simblas_dtype_size(g->bias_type) == 0)
        return CUBLAS_STATUS_NOT_SUPPORTED;
    g->tf32 = a->type == CUDA_R_32F && op->compute_type == CUBLAS_COMPUTE_32F_FAST_TF32;
    g->acc16 = op->compute_type == CUBLAS_COMPUTE_16F ||
               op->compute_type == CUBLAS_COMPUTE_16F_PEDANTIC;
    return CUBLAS_STATUS_SUCCESS;
}

/* ---- heuristic and matmul ------------------------------------------------- */

EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(
    cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t operationDesc, cublasLtMatrixLayout_t Adesc,
    cublasLtMatrixLayout_t Bdesc, cublasLtMatrixLayout_t Cdesc, cublasLtMatrixLayout_t Ddesc,
    cublasLtMatmulPreference_t preference, int requestedAlgoCount,
    cublasLtMatmulHeuristicResult_t heuristicResultsArray[], int *returnAlgoCount)
{
    const lt_pref *pref = lt_pref_of(preference);
    cublasLtMatmulHeuristicResult_t *r = heuristicResultsArray;
    simblas_gemm g;
    simblas_plan p;
    cublasStatus_t st;
    if (!handle_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (requestedAlgoCount <= 0 || r == NULL || returnAlgoCount == NULL || pref == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    *returnAlgoCount = 0;
    if ((st = lt_problem(operationDesc, Adesc, Bdesc, Cdesc, Ddesc, &g)) != CUBLAS_STATUS_SUCCESS)
        return st == CUBLAS_STATUS_INVALID_VALUE ? st : CUBLAS_STATUS_NOT_SUPPORTED;
    simblas_plan_gemm(&g, -1, &p);
    memset(r, 0, sizeof *r);
    r->algo.data[0] = ALGO_MAGIC | (uint64_t)p.tile;
    r->algo.data[1] = (uint64_t)(p.tile_m << 16 | p.tile_n); /* for a curious reader */
    /* split-K only when the caller allows its scratch */
    r->workspaceSize = p.workspace <= pref->max_workspace ? p.workspace : 0;
    r->algo.data[2] = r->workspaceSize;
    r->state = CUBLAS_STATUS_SUCCESS;
    r->wavesCount = p.waves;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

/* The tile an algo from our heuristic asks for, -1 for "choose", -2 if it is
 * not one of ours. */
static int algo_tile(const cublasLtMatmulAlgo_t *algo)
{
    if (algo == NULL)
        return -1;
    if ((algo->data[0] & ~(uint64_t)0xffff) != ALGO_MAGIC)
        return -2;
    return (int)(algo->data[0] & 0xffff);
}

static float scalar(const void *p, int32_t scale_type)
{
    uint16_t h;
    if (scale_type != CUDA_R_16F)
        return *(const float *)p;
    memcpy(&h, p, sizeof h);
    return simblas_f16_to_f32(h);
}

EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
                                     const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc,
                                     const void *B, cublasLtMatrixLayout_t Bdesc, const void *beta,
                                     const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
                                     cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
                                     void *workspace, size_t workspaceSizeInBytes,
                                     cudaStream_t stream)
{
    simblas_gemm g;
    cublasStatus_t st;
    int tile = algo_tile(algo);
    (void)workspace; /* our kernels keep their scratch in the handle's workspace */
    if (!handle_ok(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    cusim_init();
    if ((st = lt_problem(computeDesc, Adesc, Bdesc, Cdesc, Ddesc, &g)) != CUBLAS_STATUS_SUCCESS)
        return st;
    if (tile == -2 || alpha == NULL || beta == NULL)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (algo != NULL && algo->data[2] > workspaceSizeInBytes)
        return CUBLAS_STATUS_INVALID_VALUE; /* the algo needs more scratch */
    g.alpha = scalar(alpha, lt_desc_of(computeDesc)->scale_type);
    g.beta = scalar(beta, lt_desc_of(computeDesc)->scale_type);
    if (g.m == 0 || g.n == 0)
        return CUBLAS_STATUS_SUCCESS;
    if (A == NULL || B == NULL || D == NULL || (g.beta != 0.0f && C == NULL) ||
        ((g.epilogue & SIMBLAS_EPI_BIAS) && g.bias == NULL))
        return CUBLAS_STATUS_INVALID_VALUE;
    g.a.ptr = A;
    g.b.ptr = B;
    g.c.ptr = C;
    g.d.ptr = D;
    if (simblas_run(&lightHandle->engine, stream, &g, tile) != 0)
        return CUBLAS_STATUS_EXECUTION_FAILED;
    return CUBLAS_STATUS_SUCCESS;
}
