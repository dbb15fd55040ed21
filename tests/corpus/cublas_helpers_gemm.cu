// cublas_helpers_gemm: the simpleCUBLAS sample's shape. Matrices go in with
// cublasSetVector, one cublasSgemm, the result comes back with
// cublasGetVector and is checked against a CPU reference.
//@ api cublasSgemm_v2 1
//@ api cublasSetVector 3
//@ api cudaMalloc 3
//@ kernel_prefix nvjet_ 1
//@ gpu_copy HtoD 3
//@ gpu_copy DtoH 1
#include "common.h"
#include <cmath>
#include <cublas_v2.h>

int main()
{
    const int n = 96, n2 = n * n;
    float *a = (float *)malloc(n2 * 4), *b = (float *)malloc(n2 * 4), *c = (float *)malloc(n2 * 4),
          *ref = (float *)malloc(n2 * 4), alpha = 1.0f, beta = 0.5f;
    float *da, *db, *dc;
    cublasHandle_t h;
    printf("simpleCUBLAS test running..\n");
    for (int i = 0; i < n2; i++) {
        a[i] = (float)(i % 7) / 4;
        b[i] = (float)(i % 5) / 8;
        c[i] = ref[i] = (float)(i % 3);
    }
    CHECK_BLAS(cublasCreate(&h));
    CHECK(cudaMalloc(&da, n2 * 4));
    CHECK(cudaMalloc(&db, n2 * 4));
    CHECK(cudaMalloc(&dc, n2 * 4));
    CHECK_BLAS(cublasSetVector(n2, 4, a, 1, da, 1));
    CHECK_BLAS(cublasSetVector(n2, 4, b, 1, db, 1));
    CHECK_BLAS(cublasSetVector(n2, 4, c, 1, dc, 1));
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, da, n, db, n, &beta, dc, n));
    CHECK_BLAS(cublasGetVector(n2, 4, dc, 1, c, 1));
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            float s = 0;
            for (int k = 0; k < n; k++)
                s += a[k * n + i] * b[j * n + k];
            ref[j * n + i] = alpha * s + beta * ref[j * n + i];
        }
    double err = 0, norm = 0;
    for (int i = 0; i < n2; i++) {
        err += (ref[i] - c[i]) * (ref[i] - c[i]);
        norm += ref[i] * ref[i];
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK_BLAS(cublasDestroy(h));
    if (sqrt(err / norm) < 1e-6) {
        printf("simpleCUBLAS test passed.\n");
        return 0;
    }
    printf("simpleCUBLAS test failed.\n");
    return 1;
}
