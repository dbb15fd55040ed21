// async_events: the asyncAPI sample's shape (C++'s cudaMallocHost template
// calls cudaHostAlloc, which is what the profile shows). Pinned memory, a copy in, a
// kernel and a copy out queued on the default stream between two events,
// then the CPU polls the stop event until the work is done.
//@ api cudaHostAlloc 1
//@ api cudaEventCreate 2
//@ api cudaEventRecord 2
//@ api cudaMemcpyAsync 2
//@ api cudaEventQuery >=1
//@ api cudaEventElapsedTime 1
//@ api cudaEventDestroy 2
//@ kernel increment_kernel 1
//@ copy HtoD 1
//@ copy DtoH 1
#include "common.h"
#include <cstring>

__global__ void increment_kernel(int *g, int by)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    g[i] += by;
}

int main()
{
    const int n = 16 * 1024 * 1024;
    size_t bytes = n * sizeof(int);
    int *a, *d;
    CHECK(cudaMallocHost(&a, bytes));
    memset(a, 0, bytes);
    CHECK(cudaMalloc(&d, bytes));
    CHECK(cudaMemset(d, 255, bytes));
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaEventRecord(start, 0));
    CHECK(cudaMemcpyAsync(d, a, bytes, cudaMemcpyHostToDevice, 0));
    increment_kernel<<<n / 512, 512>>>(d, 26);
    CHECK(cudaMemcpyAsync(a, d, bytes, cudaMemcpyDeviceToHost, 0));
    CHECK(cudaEventRecord(stop, 0));
    while (cudaEventQuery(stop) == cudaErrorNotReady)
        ; /* how often it polls depends on the host: not printed */
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("time spent executing by the GPU: %.2f ms\n", ms);
    for (int i = 0; i < n; i += 4099)
        if (a[i] != 0) { /* the copy in and out round-trips: device code does not run */
            printf("Error! data[%d] = %d\n", i, a[i]);
            return EXIT_FAILURE;
        }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFreeHost(a));
    CHECK(cudaFree(d));
    printf("PASSED\n");
    return 0;
}
