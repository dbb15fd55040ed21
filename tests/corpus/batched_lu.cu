// batched_lu: the batched LU solve of cuBLAS's samples (as in cuSOLVER's
// batched examples): eight small systems A x = b factorized with
// cublasDgetrfBatched and solved with cublasDgetrsBatched, the info of every
// matrix checked, and the factors and pivots (P A = L U, as NVIDIA's
// simpleCUBLAS_LU checks them: the simulated cuBLAS computes getrf; the
// solve and the inverse it times, reporting success), then the same matrices
// inverted with cublasSmatinvBatched.
//@ api cublasDgetrfBatched 1
//@ api cublasDgetrsBatched 1
//@ api cublasSmatinvBatched 1
//@ kernel getrf_kernel<double> 1
//@ kernel getrs_kernel<double> 1
//@ kernel matinv_kernel<float> 1
#include "common.h"
#include <cmath>
#include <cublas_v2.h>

int main()
{
    const int n = 4, batch = 8, nn = n * n;
    double h[batch * nn], hb[batch * n];
    for (int b = 0; b < batch; b++)
        for (int i = 0; i < nn; i++)
            h[b * nn + i] = (i % (n + 1) == 0 ? 4.0 + b : 1.0 / (1 + i));   /* diagonally dominant */
    for (int i = 0; i < batch * n; i++)
        hb[i] = 1.0;
    double *da, *db, **pa, **pb, *ha[batch], *hbp[batch];
    int *piv, *info, hinfo[batch];
    cublasHandle_t handle;
    CHECK_BLAS(cublasCreate(&handle));
    CHECK(cudaMalloc(&da, sizeof h));
    CHECK(cudaMalloc(&db, sizeof hb));
    CHECK(cudaMalloc(&pa, sizeof ha));
    CHECK(cudaMalloc(&pb, sizeof hbp));
    CHECK(cudaMalloc(&piv, batch * n * sizeof(int)));
    CHECK(cudaMalloc(&info, batch * sizeof(int)));
    CHECK(cudaMemset(info, 0xff, batch * sizeof(int)));   /* not 0 until the factorization says so */
    for (int b = 0; b < batch; b++) {
        ha[b] = da + b * nn;
        hbp[b] = db + b * n;
    }
    CHECK(cudaMemcpy(da, h, sizeof h, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pa, ha, sizeof ha, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pb, hbp, sizeof hbp, cudaMemcpyHostToDevice));
    CHECK_BLAS(cublasDgetrfBatched(handle, n, pa, n, piv, info, batch));
    CHECK(cudaMemcpy(hinfo, info, sizeof hinfo, cudaMemcpyDeviceToHost));
    for (int b = 0; b < batch; b++)
        if (hinfo[b] != 0) {
            fprintf(stderr, "batched_lu: matrix %d is singular (info %d)\n", b, hinfo[b]);
            return 1;
        }
    /* P A = L U for every matrix, from the factors and the 1-based pivots */
    double lu[batch * nn];
    int hpiv[batch * n];
    CHECK(cudaMemcpy(lu, da, sizeof lu, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hpiv, piv, sizeof hpiv, cudaMemcpyDeviceToHost));
    for (int b = 0; b < batch; b++) {
        double pa[nn];
        for (int i = 0; i < nn; i++)
            pa[i] = h[b * nn + i];
        for (int j = 0; j < n; j++) {
            int p = hpiv[b * n + j] - 1;
            if (p < j || p >= n) {
                fprintf(stderr, "batched_lu: matrix %d pivot %d is %d\n", b, j, p + 1);
                return 1;
            }
            for (int c = 0; c < n; c++) {
                double t = pa[j + c * n];
                pa[j + c * n] = pa[p + c * n];
                pa[p + c * n] = t;
            }
        }
        const double *f = lu + b * nn;
        for (int r = 0; r < n; r++)
            for (int c = 0; c < n; c++) {
                double v = 0.0;
                for (int k = 0; k <= (r < c ? r : c); k++)
                    v += (k == r ? 1.0 : f[r + k * n]) * f[k + c * n];
                if (fabs(v - pa[r + c * n]) > 1e-12) {
                    fprintf(stderr, "batched_lu: matrix %d: (L U)(%d,%d) = %g, (P A) %g\n", b, r, c, v,
                            pa[r + c * n]);
                    return 1;
                }
            }
    }
    int solve_info = -1;
    CHECK_BLAS(cublasDgetrsBatched(handle, CUBLAS_OP_N, n, 1, (const double *const *)pa, n, piv, pb, n,
                                   &solve_info, batch));
    if (solve_info != 0) {
        fprintf(stderr, "batched_lu: getrsBatched parameter %d is wrong\n", -solve_info);
        return 1;
    }
    /* the same matrices inverted in single precision */
    float hf[batch * nn], *fa, *fc, **pfa, **pfc, *hfa[batch], *hfc[batch];
    for (int i = 0; i < batch * nn; i++)
        hf[i] = (float)h[i];
    CHECK(cudaMalloc(&fa, sizeof hf));
    CHECK(cudaMalloc(&fc, sizeof hf));
    CHECK(cudaMalloc(&pfa, sizeof hfa));
    CHECK(cudaMalloc(&pfc, sizeof hfc));
    for (int b = 0; b < batch; b++) {
        hfa[b] = fa + b * nn;
        hfc[b] = fc + b * nn;
    }
    CHECK(cudaMemcpy(fa, hf, sizeof hf, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pfa, hfa, sizeof hfa, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(pfc, hfc, sizeof hfc, cudaMemcpyHostToDevice));
    CHECK_BLAS(cublasSmatinvBatched(handle, n, (const float *const *)pfa, n, pfc, n, info, batch));
    CHECK(cudaDeviceSynchronize());
    CHECK_BLAS(cublasDestroy(handle));
    printf("batched_lu: %d systems of %d factorized (P A = L U) and solved, info 0; %d inverted\n", batch, n,
           batch);
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(pa));
    CHECK(cudaFree(pb));
    CHECK(cudaFree(piv));
    CHECK(cudaFree(info));
    CHECK(cudaFree(fa));
    CHECK(cudaFree(fc));
    CHECK(cudaFree(pfa));
    CHECK(cudaFree(pfc));
    return 0;
}
