// batched_gemm: the batchCUBLAS sample's shape. Ten small GEMMs through
// cublasSgemmBatched (pointer arrays in device memory) and the same through
// cublasDgemmStridedBatched in double, each checked against the CPU.
//@ api cudaMemcpy 5
//@ api cublasSgemmBatched 1
//@ api cublasDgemmStridedBatched 1
//@ kernel_prefix nvjet_ 1
//@ kernel gemm_kernel<double> 1
#include "common.h"
#include <cmath>
#include <cublas_v2.h>

int main()
{
    const int m = 32, batch = 10, mm = m * m;
    float *h = (float *)malloc(3 * batch * mm * 4), *out = (float *)malloc(batch * mm * 4);
    double *hd = (double *)malloc(3 * batch * mm * 8), *outd = (double *)malloc(batch * mm * 8);
    float *d, one = 1.0f, zero = 0.0f;
    double *dd, oned = 1.0, zerod = 0.0;
    float **ptrs, *hp[3 * batch];
    cublasHandle_t handle;
    for (int i = 0; i < 3 * batch * mm; i++) {
        h[i] = (float)((i * 7) % 11) / 8;
        hd[i] = h[i];
    }
    CHECK_BLAS(cublasCreate(&handle));
    CHECK(cudaMalloc(&d, 3 * batch * mm * 4));
    CHECK(cudaMalloc(&dd, 3 * batch * mm * 8));
    CHECK(cudaMalloc(&ptrs, 3 * batch * sizeof(float *)));
    CHECK(cudaMemcpy(d, h, 3 * batch * mm * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dd, hd, 3 * batch * mm * 8, cudaMemcpyHostToDevice));
    for (int b = 0; b < batch; b++)
        for (int k = 0; k < 3; k++)
            hp[k * batch + b] = d + (k * batch + b) * mm;
    CHECK(cudaMemcpy(ptrs, hp, sizeof hp, cudaMemcpyHostToDevice));
    CHECK_BLAS(cublasSgemmBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &one,
                                  (const float **)ptrs, m, (const float **)ptrs + batch, m, &zero,
                                  ptrs + 2 * batch, m, batch));
    CHECK_BLAS(cublasDgemmStridedBatched(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, m, m, &oned, dd, m,
                                         mm, dd + batch * mm, m, mm, &zerod, dd + 2 * batch * mm,
                                         m, mm, batch));
    CHECK(cudaMemcpy(out, d + 2 * batch * mm, batch * mm * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(outd, dd + 2 * batch * mm, batch * mm * 8, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int b = 0; b < batch; b++)
        for (int j = 0; j < m; j++)
            for (int i = 0; i < m; i++) {
                double s = 0;
                for (int k = 0; k < m; k++)
                    s += hd[b * mm + k * m + i] * hd[(batch + b) * mm + j * m + k];
                bad += fabs(out[b * mm + j * m + i] - s) > 1e-3 * (1 + fabs(s));
                bad += fabs(outd[b * mm + j * m + i] - s) > 1e-12 * (1 + fabs(s));
            }
    printf("%d GEMMs of %dx%d, float and double: %s\n", batch, m, m, bad ? "FAILED" : "PASSED");
    CHECK(cudaFree(d));
    CHECK(cudaFree(dd));
    CHECK(cudaFree(ptrs));
    CHECK_BLAS(cublasDestroy(handle));
    return bad ? 1 : 0;
}
