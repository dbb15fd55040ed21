// vector_add: the vectorAdd sample's shape. Host arrays, three device
// buffers, two copies in, one kernel, a launch-error check, one copy out.
// The simulated device does not run device code, so only the copies are
// verified (the input round-trips).
//@ api cudaMalloc 3
//@ api cudaMemcpy 4
//@ api cudaFree 3
//@ api cudaGetLastError 1
//@ kernel vectorAdd 1
//@ copy HtoD 2
//@ copy DtoH 2
#include "common.h"

__global__ void vectorAdd(const float *a, const float *b, float *c, int n)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    const int n = 50000;
    size_t bytes = n * sizeof(float);
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes), *back = (float *)malloc(bytes);
    float *da, *db, *dc;
    for (int i = 0; i < n; i++) {
        a[i] = i * 0.5f;
        b[i] = 1.0f;
    }
    printf("[Vector addition of %d elements]\n", n);
    CHECK(cudaMalloc(&da, bytes));
    CHECK(cudaMalloc(&db, bytes));
    CHECK(cudaMalloc(&dc, bytes));
    CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
    int threads = 256, blocks = (n + threads - 1) / threads;
    printf("CUDA kernel launch with %d blocks of %d threads\n", blocks, threads);
    vectorAdd<<<blocks, threads>>>(da, db, dc, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(back, dc, bytes, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(back, da, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        if (back[i] != a[i]) {
            fprintf(stderr, "Result verification failed at element %d\n", i);
            return EXIT_FAILURE;
        }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    free(a);
    free(b);
    free(back);
    printf("Test PASSED\n");
    return 0;
}
