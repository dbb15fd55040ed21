// level1_blas: the level-1 and level-2 cuBLAS calls an iterative solver
// makes (conjugateGradient's shape without the sparse part): axpy, dot,
// nrm2, scal, gemv and isamax, each checked against the CPU.
//@ api cudaMalloc 3
//@ kernel axpy_kernel_val<float, float> 1
//@ kernel dot_kernel<float> 1
//@ kernel nrm2_kernel<float> 1
//@ kernel scal_kernel_val<float, float> 1
//@ kernel gemv2N_kernel<float> 1
//@ kernel iamax_kernel<float> 1
//@ api cublasCreate_v2 1
//@ api cublasSetVector 2
//@ api cublasSetMatrix 1
//@ api cublasSaxpy_v2 1
//@ api cublasSdot_v2 1
//@ api cublasIsamax_v2 1
//@ api cublasGetVector 1
//@ api cublasDestroy_v2 1
#include "common.h"
#include <cmath>
#include <cublas_v2.h>

int main()
{
    const int n = 64;
    float x[n], y[n], A[n * n], yv[n], alpha = 2.0f, beta = 0.0f, dot = 0, nrm = 0, out[n];
    float *dx, *dy, *dA;
    int imax = 0;
    cublasHandle_t h;
    for (int i = 0; i < n; i++) {
        x[i] = (float)(i % 9) - 4.0f;
        y[i] = 0.5f * i;
    }
    x[17] = 40.0f;
    for (int i = 0; i < n * n; i++)
        A[i] = (float)(i % 13) / 16;
    CHECK_BLAS(cublasCreate(&h));
    CHECK(cudaMalloc(&dx, sizeof x));
    CHECK(cudaMalloc(&dy, sizeof y));
    CHECK(cudaMalloc(&dA, sizeof A));
    CHECK_BLAS(cublasSetVector(n, 4, x, 1, dx, 1));
    CHECK_BLAS(cublasSetVector(n, 4, y, 1, dy, 1));
    CHECK_BLAS(cublasSetMatrix(n, n, 4, A, n, dA, n));
    CHECK_BLAS(cublasSaxpy(h, n, &alpha, dx, 1, dy, 1)); /* y += 2x */
    CHECK_BLAS(cublasSdot(h, n, dx, 1, dy, 1, &dot));
    CHECK_BLAS(cublasSnrm2(h, n, dx, 1, &nrm));
    CHECK_BLAS(cublasSscal(h, n, &alpha, dx, 1)); /* x *= 2 */
    CHECK_BLAS(cublasSgemv(h, CUBLAS_OP_N, n, n, &alpha, dA, n, dx, 1, &beta, dy, 1));
    CHECK_BLAS(cublasIsamax(h, n, dx, 1, &imax));
    CHECK_BLAS(cublasGetVector(n, 4, dy, 1, out, 1));
    double rdot = 0, rnrm = 0;
    for (int i = 0; i < n; i++) {
        rdot += x[i] * (y[i] + 2.0 * x[i]);
        rnrm += x[i] * x[i];
    }
    int bad = fabs(dot - rdot) > 1e-3 * fabs(rdot) || fabs(nrm - sqrt(rnrm)) > 1e-3 || imax != 18;
    for (int i = 0; i < n; i++) {
        double s = 0;
        for (int j = 0; j < n; j++)
            s += A[i + j * n] * 2.0 * x[j];
        yv[i] = (float)(2.0 * s);
        bad += fabs(out[i] - yv[i]) > 1e-3 * (1 + fabs(yv[i]));
    }
    printf("dot %.1f nrm2 %.3f isamax %d: %s\n", dot, nrm, imax, bad ? "FAILED" : "PASSED");
    CHECK(cudaFree(dx));
    CHECK(cudaFree(dy));
    CHECK(cudaFree(dA));
    CHECK_BLAS(cublasDestroy(h));
    return bad ? 1 : 0;
}
