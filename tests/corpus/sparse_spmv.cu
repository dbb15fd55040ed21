// sparse_spmv: cuSPARSE's generic API as its examples use it (spmv_csr,
// spmv_coo, spmm_csr): the 1-D Laplacian (2 on the diagonal, -1 beside it)
// in CSR times a vector of ones on a stream, the same matrix in 1-based COO
// in double, transposed, with beta = 1 accumulating, and in CSR times a dense
// matrix (SpMM, column-major); each product's external buffer sized by its
// bufferSize call.
//@ link -lcusparse
//@ api cusparseCreateCsr 1
//@ api cusparseCreateCoo 1
//@ api cusparseSpMV 2
//@ api cusparseSpMM 1
//@ kernel void cusparse:: 2
//@ kernel void cusparse::csrmm_alg1_kernel<false, true, true, int, int, float, float, float, float> 1
//@ kernel void cusparse::coomv_transpose_kernel<int, double, double, double, double> 1
//@ kernel void cusparse::csrmv_v3_kernel<std::integral_constant<bool, false>, int, int, float, float, float, float, void> 1
//@ kernel void cusparse::matrix_scalar_multiply_kernel<cusparse::MatrixWiseMulPolicy, true, long, float, float> 1
#include "common.h"
#include <cmath>
#include <cusparse.h>

#define CHECK_SP(call)                                                                   \
    do {                                                                                 \
        cusparseStatus_t r_ = (call);                                                    \
        if (r_ != CUSPARSE_STATUS_SUCCESS) {                                             \
            fprintf(stderr, "cuSPARSE error %s at %s:%d\n", cusparseGetErrorName(r_),    \
                    __FILE__, __LINE__);                                                 \
            exit(EXIT_FAILURE);                                                          \
        }                                                                                \
    } while (0)

int main()
{
    const int n = 1000, nnz = 3 * n - 2, cols = 4;
    int *off = (int *)malloc(sizeof(int) * (n + 1)), *col = (int *)malloc(sizeof(int) * nnz);
    int *crow = (int *)malloc(sizeof(int) * nnz), *ccol = (int *)malloc(sizeof(int) * nnz);
    float *val = (float *)malloc(sizeof(float) * nnz);
    double *dval = (double *)malloc(sizeof(double) * nnz);
    int k = 0;
    for (int i = 0; i < n; i++) {
        off[i] = k;
        for (int j = i - 1; j <= i + 1; j++)
            if (j >= 0 && j < n) {
                col[k] = j, crow[k] = i + 1, ccol[k] = j + 1;   /* COO 1-based */
                val[k] = dval[k] = i == j ? 2.0f : -1.0f;
                k++;
            }
    }
    off[n] = k;
    int *d_off, *d_col, *d_crow, *d_ccol;
    float *d_val, *d_x, *d_y, *d_b, *d_c;
    double *d_dval, *d_dx, *d_dy;
    CHECK(cudaMalloc(&d_off, sizeof(int) * (n + 1)));
    CHECK(cudaMalloc(&d_col, sizeof(int) * nnz));
    CHECK(cudaMalloc(&d_crow, sizeof(int) * nnz));
    CHECK(cudaMalloc(&d_ccol, sizeof(int) * nnz));
    CHECK(cudaMalloc(&d_val, sizeof(float) * nnz));
    CHECK(cudaMalloc(&d_dval, sizeof(double) * nnz));
    CHECK(cudaMalloc(&d_x, sizeof(float) * n));
    CHECK(cudaMalloc(&d_y, sizeof(float) * n));
    CHECK(cudaMalloc(&d_dx, sizeof(double) * n));
    CHECK(cudaMalloc(&d_dy, sizeof(double) * n));
    CHECK(cudaMalloc(&d_b, sizeof(float) * n * cols));
    CHECK(cudaMalloc(&d_c, sizeof(float) * n * cols));
    CHECK(cudaMemcpy(d_off, off, sizeof(int) * (n + 1), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_col, col, sizeof(int) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_crow, crow, sizeof(int) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_ccol, ccol, sizeof(int) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_val, val, sizeof(float) * nnz, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_dval, dval, sizeof(double) * nnz, cudaMemcpyHostToDevice));
    float *ones = (float *)malloc(sizeof(float) * n * cols), *hy = (float *)malloc(sizeof(float) * n * cols);
    double *dones = (double *)malloc(sizeof(double) * n), *hdy = (double *)malloc(sizeof(double) * n);
    for (int i = 0; i < n * cols; i++)
        ones[i] = (float)(i / n + 1);   /* column c of B is c + 1 */
    for (int i = 0; i < n; i++)
        dones[i] = 1.0;
    CHECK(cudaMemcpy(d_x, ones, sizeof(float) * n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_b, ones, sizeof(float) * n * cols, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_dx, dones, sizeof(double) * n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(d_dy, dones, sizeof(double) * n, cudaMemcpyHostToDevice));

    cusparseHandle_t h;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK_SP(cusparseCreate(&h));
    CHECK_SP(cusparseSetStream(h, s));
    cusparseSpMatDescr_t a, acoo;
    cusparseDnVecDescr_t x, y, dx, dy;
    CHECK_SP(cusparseCreateCsr(&a, n, n, nnz, d_off, d_col, d_val, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                               CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CHECK_SP(cusparseCreateDnVec(&x, n, d_x, CUDA_R_32F));
    CHECK_SP(cusparseCreateDnVec(&y, n, d_y, CUDA_R_32F));
    float alpha = 1, beta = 0;
    size_t bytes = 0;
    void *buf = NULL;
    CHECK_SP(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta, y, CUDA_R_32F,
                                     CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    CHECK(cudaMalloc(&buf, bytes));
    CHECK_SP(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, x, &beta, y, CUDA_R_32F,
                          CUSPARSE_SPMV_ALG_DEFAULT, buf));
    CHECK(cudaMemcpyAsync(hy, d_y, sizeof(float) * n, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamSynchronize(s));
    double sum = 0;
    for (int i = 0; i < n; i++)
        sum += hy[i];
    printf("sparse_spmv: CSR %d x %d, %d nonzeros: y[0] %.0f, y[%d] %.0f, y[%d] %.0f, sum %.0f\n", n, n, nnz, hy[0],
           n / 2, hy[n / 2], n - 1, hy[n - 1], sum);
    if (hy[0] != 1 || hy[n / 2] != 0 || hy[n - 1] != 1 || sum != 2)
        return 1;

    /* COO, 1-based, double, transposed, y = 2 A^T x + 1 y */
    double dalpha = 2, dbeta = 1;
    CHECK_SP(cusparseCreateCoo(&acoo, n, n, nnz, d_crow, d_ccol, d_dval, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ONE,
                               CUDA_R_64F));
    CHECK_SP(cusparseCreateDnVec(&dx, n, d_dx, CUDA_R_64F));
    CHECK_SP(cusparseCreateDnVec(&dy, n, d_dy, CUDA_R_64F));
    CHECK_SP(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_TRANSPOSE, &dalpha, acoo, dx, &dbeta, dy, CUDA_R_64F,
                                     CUSPARSE_SPMV_ALG_DEFAULT, &bytes));
    CHECK_SP(cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &dalpha, acoo, dx, &dbeta, dy, CUDA_R_64F,
                          CUSPARSE_SPMV_ALG_DEFAULT, bytes ? buf : NULL));
    CHECK(cudaMemcpy(hdy, d_dy, sizeof(double) * n, cudaMemcpyDeviceToHost));
    printf("sparse_spmv: COO (1-based, double, transposed) y[0] %.0f, y[%d] %.0f\n", hdy[0], n / 2, hdy[n / 2]);
    if (hdy[0] != 3 || hdy[n / 2] != 1)
        return 1;

    /* SpMM: C = A B, B column-major n x 4 with column c all c + 1 */
    cusparseDnMatDescr_t b, c;
    CHECK_SP(cusparseCreateDnMat(&b, n, cols, n, d_b, CUDA_R_32F, CUSPARSE_ORDER_COL));
    CHECK_SP(cusparseCreateDnMat(&c, n, cols, n, d_c, CUDA_R_32F, CUSPARSE_ORDER_COL));
    size_t mm_bytes = 0;
    CHECK_SP(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                     a, b, &beta, c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &mm_bytes));
    void *mm_buf = NULL;
    CHECK(cudaMalloc(&mm_buf, mm_bytes));
    CHECK_SP(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, b, &beta,
                          c, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, mm_buf));
    CHECK(cudaMemcpy(hy, d_c, sizeof(float) * n * cols, cudaMemcpyDeviceToHost));
    printf("sparse_spmv: SpMM %d x %d: C[0][c] = %.0f %.0f %.0f %.0f\n", n, cols, hy[0], hy[n], hy[2 * n], hy[3 * n]);
    for (int cc = 0; cc < cols; cc++)
        if (hy[cc * n] != cc + 1 || hy[cc * n + n / 2] != 0)
            return 1;

    CHECK_SP(cusparseDestroySpMat(a));
    CHECK_SP(cusparseDestroySpMat(acoo));
    CHECK_SP(cusparseDestroyDnVec(x));
    CHECK_SP(cusparseDestroyDnVec(y));
    CHECK_SP(cusparseDestroyDnVec(dx));
    CHECK_SP(cusparseDestroyDnVec(dy));
    CHECK_SP(cusparseDestroyDnMat(b));
    CHECK_SP(cusparseDestroyDnMat(c));
    CHECK_SP(cusparseDestroy(h));
    CHECK(cudaFree(buf));
    CHECK(cudaFree(mm_buf));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
