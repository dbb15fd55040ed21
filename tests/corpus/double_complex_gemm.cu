// double_complex_gemm: matrixMulCUBLAS's shape in double and double complex:
// cublasSetMatrix in, cublasDgemm and cublasZgemm (conjugate transpose),
// cublasGetMatrix out, checked against the CPU.
//@ api cudaMalloc 4
//@ api cublasDgemm_v2 1
//@ api cublasZgemm_v2 1
//@ kernel gemm_kernel<double> 1
//@ kernel gemm_kernel<double2> 1
#include "common.h"
#include <cmath>
#include <complex>
#include <cublas_v2.h>

int main()
{
    const int m = 24, k = 16, n = 20;
    double A[m * k], B[k * n], C[m * n];
    cuDoubleComplex zA[k * m], zB[k * n], zC[m * n];
    double *dA, *dB, *dC, one = 1.0, zero = 0.0;
    cuDoubleComplex *zdA, *zdB, *zdC, zone = {1.0, 0.0}, zzero = {0.0, 0.0};
    cublasHandle_t h;
    for (int i = 0; i < m * k; i++) {
        A[i] = (i % 7) * 0.25;
        zA[i] = make_cuDoubleComplex((i % 5) * 0.5, (i % 3) - 1.0);
    }
    for (int i = 0; i < k * n; i++) {
        B[i] = (i % 11) * 0.125;
        zB[i] = make_cuDoubleComplex((i % 4) * 0.25, 0.5);
    }
    CHECK_BLAS(cublasCreate(&h));
    CHECK(cudaMalloc(&dA, sizeof A));
    CHECK(cudaMalloc(&dB, sizeof B));
    CHECK(cudaMalloc(&dC, sizeof C));
    CHECK(cudaMalloc(&zdA, sizeof zA + sizeof zB + sizeof zC));
    zdB = zdA + k * m;
    zdC = zdB + k * n;
    CHECK_BLAS(cublasSetMatrix(m, k, sizeof(double), A, m, dA, m));
    CHECK_BLAS(cublasSetMatrix(k, n, sizeof(double), B, k, dB, k));
    CHECK_BLAS(cublasSetMatrix(k, m, sizeof(cuDoubleComplex), zA, k, zdA, k));
    CHECK_BLAS(cublasSetMatrix(k, n, sizeof(cuDoubleComplex), zB, k, zdB, k));
    CHECK_BLAS(cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dA, m, dB, k, &zero, dC, m));
    CHECK_BLAS(cublasZgemm(h, CUBLAS_OP_C, CUBLAS_OP_N, m, n, k, &zone, zdA, k, zdB, k, &zzero, zdC,
                           m));
    CHECK_BLAS(cublasGetMatrix(m, n, sizeof(double), dC, m, C, m));
    CHECK_BLAS(cublasGetMatrix(m, n, sizeof(cuDoubleComplex), zdC, m, zC, m));
    double err = 0;
    for (int i = 0; i < m; i++)
        for (int j = 0; j < n; j++) {
            double s = 0;
            std::complex<double> z = 0;
            for (int l = 0; l < k; l++) {
                s += A[i + l * m] * B[l + j * k];
                z += std::conj(std::complex<double>(zA[l + i * k].x, zA[l + i * k].y)) *
                     std::complex<double>(zB[l + j * k].x, zB[l + j * k].y);
            }
            err = fmax(err, fabs(C[i + j * m] - s));
            err = fmax(err, std::abs(z - std::complex<double>(zC[i + j * m].x, zC[i + j * m].y)));
        }
    printf("DGEMM and ZGEMM %dx%dx%d: max error %s\n", m, n, k, err < 1e-12 ? "< 1e-12" : "too large");
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    CHECK(cudaFree(zdA));
    CHECK_BLAS(cublasDestroy(h));
    return err < 1e-12 ? 0 : 1;
}
