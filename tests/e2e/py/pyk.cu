/*
 * pyk.cu - the CUDA side of the Python tests' C extension (gpuops.c, built
 * by test_e2e_python.c against each interpreter's headers): a kernel
 * launched with <<<>>> and a cuBLAS call, behind plain C functions.
 * Built once by make (build/tests/libpyk.so); the runtime and cuBLAS at
 * run time are the sim's.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>

__global__ void pyk_scale_kernel(float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        x[i] *= a;
}

static float *buf;
static cublasHandle_t blas;

extern "C" __attribute__((noinline)) int pyk_scale(int n)
{
    if (!buf && cudaMalloc(&buf, 64 * 64 * 3 * sizeof(float)) != cudaSuccess)
        return -1;
    if (n > 64 * 64)
        n = 64 * 64;
    pyk_scale_kernel<<<(n + 255) / 256, 256>>>(buf, 2.0f, n);
    return (int)cudaGetLastError();
}

extern "C" __attribute__((noinline)) int pyk_gemm(int n)
{
    if (!buf && cudaMalloc(&buf, 64 * 64 * 3 * sizeof(float)) != cudaSuccess)
        return -1;
    if (!blas && cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS)
        return -2;
    if (n > 64)
        n = 64;
    const float one = 1.0f, zero = 0.0f;
    return (int)cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, buf, n,
                            buf + 64 * 64, n, &zero, buf + 2 * 64 * 64, n);
}

extern "C" int pyk_sync(void)
{
    return (int)cudaDeviceSynchronize();
}
