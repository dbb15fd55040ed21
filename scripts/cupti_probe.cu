/*
 * cupti_probe.cu - what the real CUPTI reports for the calls cuprof cares
 * about, printed record by record. Run on a GPU machine (scripts/gpu_check.sh
 * builds and runs it) to check what the simulated device models:
 *   - which API records (runtime, driver) a cudaLaunchKernel, a <<<>>>
 *     launch, a cudaMalloc and a cuBLAS / cuBLASLt GEMM produce;
 *   - which correlation id each kernel carries, and which external id
 *     (pushed around each step, as cuprof's hooks do) each record maps to.
 * Build: nvcc -cudart=shared -o cupti_probe scripts/cupti_probe.cu -lcupti -lcublas -lcublasLt
 */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                       \
    do {                                                                            \
        int rc_ = (int)(x);                                                         \
        if (rc_ != 0)                                                               \
            fprintf(stderr, "cupti_probe: %s failed: %d (line %d)\n", #x, rc_, __LINE__); \
    } while (0)

static void CUPTIAPI buf_req(uint8_t **b, size_t *size, size_t *max)
{
    *size = 8 << 20;
    *b = (uint8_t *)aligned_alloc(8, *size);
    *max = 0;
}

static const char *cb_name(CUpti_CallbackDomain d, uint32_t cbid)
{
    const char *n = NULL;
    if (cuptiGetCallbackName(d, cbid, &n) != CUPTI_SUCCESS || n == NULL)
        return "?";
    return n;
}

static void CUPTIAPI buf_done(CUcontext c, uint32_t s, uint8_t *b, size_t size, size_t valid)
{
    (void)c; (void)s; (void)size;
    CUpti_Activity *r = NULL;
    while (cuptiActivityGetNextRecord(b, valid, &r) == CUPTI_SUCCESS) {
        switch (r->kind) {
        case CUPTI_ACTIVITY_KIND_RUNTIME:
        case CUPTI_ACTIVITY_KIND_DRIVER: {
            CUpti_ActivityAPI *a = (CUpti_ActivityAPI *)r;
            int drv = r->kind == CUPTI_ACTIVITY_KIND_DRIVER;
            printf("%s corr=%u cbid=%u %s start=%llu end=%llu tid=%u\n", drv ? "DRIVER " : "RUNTIME",
                   a->correlationId, a->cbid,
                   cb_name(drv ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API, a->cbid),
                   (unsigned long long)a->start, (unsigned long long)a->end, a->threadId);
            break;
        }
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
            CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)r;
            printf("KERNEL  corr=%u start=%llu end=%llu stream=%u %.80s\n", k->correlationId,
                   (unsigned long long)k->start, (unsigned long long)k->end, k->streamId, k->name);
            break;
        }
        case CUPTI_ACTIVITY_KIND_MEMSET:
            printf("MEMSET  corr=%u\n", ((CUpti_ActivityMemset4 *)r)->correlationId);
            break;
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            printf("MEMCPY  corr=%u\n", ((CUpti_ActivityMemcpy6 *)r)->correlationId);
            break;
        case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
            CUpti_ActivityExternalCorrelation *e = (CUpti_ActivityExternalCorrelation *)r;
            printf("EXTCORR corr=%u ext=%llu kind=%d\n", e->correlationId,
                   (unsigned long long)e->externalId, (int)e->externalKind);
            break;
        }
        default:
            printf("OTHER   kind=%d\n", (int)r->kind);
        }
    }
    free(b);
}

__global__ void k_empty(int *p) { if (p) *p = 1; }

static void step(const char *what, unsigned long long ext)
{
    printf("--- step %llu: %s\n", ext, what);
    fflush(stdout);
    CK(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, ext));
}
static void step_end(void)
{
    uint64_t id = 0;
    CK(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM2, &id));
}

int main(int argc, char **argv)
{
    int driver = argc > 1 ? atoi(argv[1]) : 1;
    CK(cuptiActivityRegisterCallbacks(buf_req, buf_done));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME));
    if (driver)
        CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_DRIVER));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET));
    CK(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY));
    printf("probe: DRIVER kind %s\n", driver ? "on" : "off");

    const int n = 64;
    __nv_bfloat16 *a, *b, *c, *bias;
    int *flag;
    cudaStream_t st;
    cublasHandle_t h;
    cublasLtHandle_t lt;
    step("setup: cudaStreamCreate, cudaMalloc x5, cublasCreate, cublasLtCreate", 1);
    CK(cudaStreamCreate(&st));
    CK(cudaMalloc(&a, n * n * 2));
    CK(cudaMalloc(&b, n * n * 2));
    CK(cudaMalloc(&c, n * n * 2));
    CK(cudaMalloc(&bias, n * 2));
    CK(cudaMalloc(&flag, 4));
    CK(cublasCreate(&h));
    CK(cublasSetStream(h, st));
    CK(cublasLtCreate(&lt));
    step_end();

    step("k_empty<<<1,1>>> (twice)", 2);
    k_empty<<<1, 1, 0, st>>>(flag);
    k_empty<<<1, 1, 0, st>>>(flag);
    step_end();

    step("cudaLaunchKernel", 3);
    void *args[] = {&flag};
    CK(cudaLaunchKernel((const void *)k_empty, dim3(1), dim3(1), args, 0, st));
    step_end();

    step("cudaMemsetAsync", 4);
    CK(cudaMemsetAsync(c, 0, n * n * 2, st));
    step_end();

    float one = 1.0f, zero = 0.0f;
    for (int i = 0; i < 3; i++) {
        step("cublasGemmEx bf16 64^3", 10 + i);
        CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, CUDA_R_16BF, n, b,
                        CUDA_R_16BF, n, &zero, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                        CUBLAS_GEMM_DEFAULT));
        step_end();
    }

    cublasLtMatmulDesc_t op;
    cublasLtMatrixLayout_t la;
    CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
    CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, n, n, n));
    for (int i = 0; i < 2; i++) {
        step("cublasLtMatmul bf16 64^3 BIAS", 20 + i);
        CK(cublasLtMatmul(lt, op, &one, a, la, b, la, &zero, c, la, c, la, NULL, NULL, 0, st));
        step_end();
    }
    step("cudaStreamSynchronize", 30);
    CK(cudaStreamSynchronize(st));
    step_end();
    CK(cuptiActivityFlushAll(1));
    fflush(stdout);
    return 0;
}
