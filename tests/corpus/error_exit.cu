// error_exit: a program that fails the way samples fail: an invalid launch
// configuration (2048 threads per block) caught by cudaGetLastError, an
// error message, and exit status 2 after freeing what it had.
//@ exit 2
//@ api cudaGetLastError 1
//@ api cudaFree 1
#include "common.h"

__global__ void too_big(float *p) { p[threadIdx.x] = 1.0f; }

int main()
{
    float *d;
    CHECK(cudaMalloc(&d, 4096 * sizeof(float)));
    too_big<<<1, 2048>>>(d);
    cudaError_t err = cudaGetLastError();
    printf("launch of 2048 threads per block: %s\n", cudaGetErrorName(err));
    CHECK(cudaFree(d));
    if (err != cudaSuccess) {
        fprintf(stderr, "error_exit: kernel launch failed: %s\n", cudaGetErrorString(err));
        return 2;
    }
    return 0;
}
