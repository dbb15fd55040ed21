/*
 * test_preload_blas.c - a plain C program calling every cuBLAS / cuBLASLt
 * hook once with recognizable shapes (m, n, k = 10*i+1, +2, +3 for the i-th
 * cuBLAS call). Prints each status; without a GPU cublasCreate fails and
 * every GEMM returns CUBLAS_STATUS_NOT_INITIALIZED, which must pass through.
 * cuBLASLt layouts and descriptors work without a driver, so the Lt shape,
 * types and epilogue are read for real. On the sim the GEMMs really run, so
 * every matrix lives in a buffer large enough for any shape used here. The
 * _64 entry points are looked up by name (the sim may not have them): a
 * missing one prints "missing".
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>

#include <cublasLt.h>
#include <cuda_runtime_api.h>
#include <cublas_v2.h>

/* C++-only declarations in cublas_api.h (__half); same ABI with void *. */
cublasStatus_t cublasHgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
                           const void *, const void *, int, const void *, int, const void *,
                           void *, int);

#define BUF_BYTES (256 * 256 * 4)
/* Device memory where the runtime gives it (the sim), else host memory that
 * a library without a driver never touches. */
static void *buf(void)
{
    static char pool[8][BUF_BYTES];
    static int used;
    void *p = NULL;
    if (cudaMalloc(&p, BUF_BYTES) == cudaSuccess && p != NULL)
        return p;
    return pool[used++ % 8];
}

/* A _64 entry point by name, or NULL (then the call prints "missing"). */
#define SYM64(type, name) ((type)dlsym(RTLD_DEFAULT, name))
#define SHOW64(name, fn, args) \
    do { \
        if (fn == NULL) \
            printf("%s missing\n", name); \
        else \
            SHOW(name, fn args); \
    } while (0)
typedef cublasStatus_t (*sgemm64_t)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t,
                                    int64_t, int64_t, const float *, const float *, int64_t,
                                    const float *, int64_t, const float *, float *, int64_t);
typedef cublasStatus_t (*hgemm64_t)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t,
                                    int64_t, int64_t, const void *, const void *, int64_t,
                                    const void *, int64_t, const void *, void *, int64_t);
typedef cublasStatus_t (*gemmex64_t)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t,
                                     int64_t, int64_t, const void *, const void *, cudaDataType,
                                     int64_t, const void *, cudaDataType, int64_t, const void *,
                                     void *, cudaDataType, int64_t, cublasComputeType_t,
                                     cublasGemmAlgo_t);
typedef cublasStatus_t (*gemmsb64_t)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t,
                                     int64_t, int64_t, const void *, const void *, cudaDataType,
                                     int64_t, long long, const void *, cudaDataType, int64_t,
                                     long long, const void *, void *, cudaDataType, int64_t,
                                     long long, int64_t, cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*gemmb64_t)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t,
                                    int64_t, int64_t, const void *, const void *const[], cudaDataType,
                                    int64_t, const void *const[], cudaDataType, int64_t,
                                    const void *, void *const[], cudaDataType, int64_t, int64_t,
                                    cublasComputeType_t, cublasGemmAlgo_t);

#define SHOW(name, expr) printf("%s st=%d\n", name, (int)(expr))

static cublasLtMatrixLayout_t layout(cudaDataType t, uint64_t rows, uint64_t cols, int32_t batch)
{
    cublasLtMatrixLayout_t l = NULL;
    SHOW("layout", cublasLtMatrixLayoutCreate(&l, t, rows, cols, (int64_t)rows));
    if (batch != 1)
        SHOW("layout_batch", cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                              &batch, sizeof batch));
    return l;
}

static cublasLtMatmulDesc_t desc(cublasOperation_t ta, cublasOperation_t tb, uint32_t epilogue,
                                 int32_t pointer_mode, void *bias)
{
    cublasLtMatmulDesc_t d = NULL;
    SHOW("desc", cublasLtMatmulDescCreate(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F));
    SHOW("desc_bias", cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias,
                                                     sizeof bias));
    SHOW("desc_ta", cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
    SHOW("desc_tb", cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
    SHOW("desc_ep", cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue,
                                                   sizeof epilogue));
    SHOW("desc_pm", cublasLtMatmulDescSetAttribute(d, CUBLASLT_MATMUL_DESC_POINTER_MODE,
                                                   &pointer_mode, sizeof pointer_mode));
    return d;
}

int main(void)
{
    cublasHandle_t h = NULL;
    SHOW("create", cublasCreate(&h));
    float *A = buf(), *B = buf(), *C = buf();
    /* batched: arrays of 10 pointers, all to the same matrices */
    const void **Aa = buf(), **Ba = buf();
    void **Ca = buf();
    const void *hA[10], *hB[10];
    void *hC[10];
    for (int i = 0; i < 10; i++) {
        hA[i] = A;
        hB[i] = B;
        hC[i] = C;
    }
    cudaMemcpy(Aa, hA, sizeof hA, cudaMemcpyHostToDevice);
    cudaMemcpy(Ba, hB, sizeof hB, cudaMemcpyHostToDevice);
    cudaMemcpy(Ca, hC, sizeof hC, cudaMemcpyHostToDevice);
    float one = 1, zero = 0;
    uint16_t hone = 0x3c00;
    sgemm64_t sgemm64 = SYM64(sgemm64_t, "cublasSgemm_v2_64");
    hgemm64_t hgemm64 = SYM64(hgemm64_t, "cublasHgemm_64");
    gemmex64_t gemmex64 = SYM64(gemmex64_t, "cublasGemmEx_64");
    gemmsb64_t gemmsb64 = SYM64(gemmsb64_t, "cublasGemmStridedBatchedEx_64");
    gemmb64_t gemmb64 = SYM64(gemmb64_t, "cublasGemmBatchedEx_64");

    SHOW("cublasSgemm_v2", cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, 11, 12, 13, &one, A, 11, B, 12, &one, C, 11));
    SHOW64("cublasSgemm_v2_64", sgemm64, (h, CUBLAS_OP_T, CUBLAS_OP_N, 21, 22, 23, &one, A, 23, B, 23, &zero, C, 21));
    SHOW("cublasHgemm", cublasHgemm(h, CUBLAS_OP_T, CUBLAS_OP_T, 31, 32, 33, &hone, A, 33, B, 32, &hone, C, 31));
    SHOW64("cublasHgemm_64", hgemm64, (h, CUBLAS_OP_N, CUBLAS_OP_N, 41, 42, 43, &hone, A, 41, B, 43, &hone, C, 41));
    SHOW("cublasGemmEx", cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_C, 51, 52, 53, &one, A, CUDA_R_16BF, 51, B,
                                      CUDA_R_16BF, 52, &one, C, CUDA_R_32F, 51, CUBLAS_COMPUTE_32F_FAST_TF32,
                                      CUBLAS_GEMM_DEFAULT));
    SHOW64("cublasGemmEx_64", gemmex64, (h, CUBLAS_OP_N, CUBLAS_OP_N, 61, 62, 63, &one, A, CUDA_R_32F, 61,
                                            B, CUDA_R_32F, 63, &one, C, CUDA_R_32F, 61, CUBLAS_COMPUTE_32F,
                                            CUBLAS_GEMM_DEFAULT));
    SHOW("cublasGemmStridedBatchedEx",
         cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, 71, 72, 73, &one, A, CUDA_R_16F, 73, 0, B,
                                    CUDA_R_16F, 73, 0, &one, C, CUDA_R_16F, 71, 0, 7, CUBLAS_COMPUTE_32F,
                                    CUBLAS_GEMM_DEFAULT));
    SHOW64("cublasGemmStridedBatchedEx_64", gemmsb64,
           (h, CUBLAS_OP_N, CUBLAS_OP_N, 81, 82, 83, &one, A, CUDA_R_16F, 81, 0, B,
                                       CUDA_R_16F, 83, 0, &one, C, CUDA_R_16F, 81, 0, 8, CUBLAS_COMPUTE_32F,
                                       CUBLAS_GEMM_DEFAULT));
    SHOW("cublasGemmBatchedEx",
         cublasGemmBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_T, 91, 92, 93, &one, Aa, CUDA_R_16BF, 91, Ba, CUDA_R_16BF,
                             92, &zero, Ca, CUDA_R_16BF, 91, 9, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    SHOW64("cublasGemmBatchedEx_64", gemmb64,
           (h, CUBLAS_OP_N, CUBLAS_OP_N, 101, 102, 103, &one, Aa, CUDA_R_32F, 101, Ba,
                                CUDA_R_32F, 103, &one, Ca, CUDA_R_32F, 101, 10, CUBLAS_COMPUTE_32F,
                                CUBLAS_GEMM_DEFAULT));

    /* cuBLASLt: D (128 x 256, fp32, batch 4) = A (128 x 64, fp16) B, GELU_BIAS, beta = 1 on the host. */
    cublasLtHandle_t lt = NULL;
    SHOW("ltcreate", cublasLtCreate(&lt));
    void *bias = buf();
    cublasLtMatrixLayout_t la = layout(CUDA_R_16F, 128, 64, 4), lb = layout(CUDA_R_16F, 64, 256, 4);
    cublasLtMatrixLayout_t lc = layout(CUDA_R_32F, 128, 256, 4), ld = layout(CUDA_R_32F, 128, 256, 4);
    cublasLtMatmulDesc_t d1 = desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_GELU_BIAS, CUBLASLT_POINTER_MODE_HOST, bias);
    SHOW("cublasLtMatmul", cublasLtMatmul(lt, d1, &one, A, la, B, lb, &one, C, lc, C, ld, NULL, NULL, 0, 0));
    /* A transposed: layout 64 x 128, so k = its rows = 64; beta = 0. */
    cublasLtMatrixLayout_t lat = layout(CUDA_R_16F, 64, 128, 4);
    cublasLtMatmulDesc_t d2 = desc(CUBLAS_OP_T, CUBLAS_OP_N, CUBLASLT_EPILOGUE_RELU_BIAS, CUBLASLT_POINTER_MODE_HOST, bias);
    SHOW("cublasLtMatmul", cublasLtMatmul(lt, d2, &one, A, lat, B, lb, &zero, C, lc, C, ld, NULL, NULL, 0, 0));
    /* Device pointer mode: beta must not be read from the host, so alpha and
     * beta are device buffers holding 1.0f. */
    float *dev_one = buf();
    cudaMemcpy(dev_one, &one, sizeof one, cudaMemcpyHostToDevice);
    cublasLtMatmulDesc_t d3 = desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT, CUBLASLT_POINTER_MODE_DEVICE, bias);
    SHOW("cublasLtMatmul", cublasLtMatmul(lt, d3, dev_one, A, la, B, lb, dev_one, C, lc, C, ld, NULL, NULL, 0, 0));

    /* the typed GEMMs beyond S and H, and typed batched forms (shapes m,
     * m+1, m+2 small enough for complex double in one buffer) */
    double done = 1;
    cuDoubleComplex zzero = {0, 0};
    typedef cublasStatus_t (*zgemmsb64_t)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
                                          int64_t, int64_t, int64_t, const cuDoubleComplex *,
                                          const cuDoubleComplex *, int64_t, long long,
                                          const cuDoubleComplex *, int64_t, long long,
                                          const cuDoubleComplex *, cuDoubleComplex *, int64_t,
                                          long long, int64_t);
    zgemmsb64_t zgemmsb64 = SYM64(zgemmsb64_t, "cublasZgemmStridedBatched_64");
    SHOW("cublasDgemm_v2", cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, 11, 12, 13, &done, (double *)A, 13,
                                       (double *)B, 13, &done, (double *)C, 11));
    SHOW64("cublasZgemmStridedBatched_64", zgemmsb64,
           (h, CUBLAS_OP_C, CUBLAS_OP_N, 5, 6, 7, (cuDoubleComplex *)&done, (cuDoubleComplex *)A, 7, 0,
            (cuDoubleComplex *)B, 7, 0, &zzero, (cuDoubleComplex *)C, 5, 0, 3));
    SHOW("cublasSgemmBatched",
         cublasSgemmBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, 21, 22, 23, &one, (const float **)Aa, 21,
                            (const float **)Ba, 23, &one, (float **)Ca, 21, 4));
    return 0;
}
