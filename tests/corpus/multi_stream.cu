// multi_stream: the simpleStreams sample's shape. The work is cut in four
// chunks, each copied in, processed and copied out on its own stream, timed
// with events; the result (the copies' round trip) is checked.
//@ api cudaStreamCreate 4
//@ api cudaMemcpyAsync 8
//@ api cudaStreamSynchronize 4
//@ api cudaStreamDestroy 4
//@ api cudaEventSynchronize 1
//@ kernel init_array 4
//@ copy HtoD 5
//@ copy DtoH 4
#include "common.h"

__global__ void init_array(int *g, const int *factor, int iterations)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    for (int i = 0; i < iterations; i++)
        g[idx] += *factor;
}

int main()
{
    const int nstreams = 4, n = 4 * 1024 * 1024, chunk = n / nstreams;
    int *h, *d, *factor, c = 5;
    cudaStream_t streams[nstreams];
    cudaEvent_t start, stop;
    CHECK(cudaHostAlloc(&h, n * sizeof(int), cudaHostAllocDefault));
    for (int i = 0; i < n; i++)
        h[i] = i;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    CHECK(cudaMalloc(&factor, sizeof(int)));
    CHECK(cudaMemcpy(factor, &c, sizeof(int), cudaMemcpyHostToDevice));
    for (int i = 0; i < nstreams; i++)
        CHECK(cudaStreamCreate(&streams[i]));
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start, 0));
    for (int i = 0; i < nstreams; i++) {
        CHECK(cudaMemcpyAsync(d + i * chunk, h + i * chunk, chunk * sizeof(int),
                              cudaMemcpyHostToDevice, streams[i]));
        init_array<<<chunk / 512, 512, 0, streams[i]>>>(d + i * chunk, factor, 10);
        CHECK(cudaMemcpyAsync(h + i * chunk, d + i * chunk, chunk * sizeof(int),
                              cudaMemcpyDeviceToHost, streams[i]));
    }
    for (int i = 0; i < nstreams; i++)
        CHECK(cudaStreamSynchronize(streams[i]));
    CHECK(cudaEventRecord(stop, 0));
    CHECK(cudaEventSynchronize(stop));
    float ms;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    printf("%d streams:\t%.2f ms\n", nstreams, ms);
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= h[i] == i;
    for (int i = 0; i < nstreams; i++)
        CHECK(cudaStreamDestroy(streams[i]));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFree(d));
    CHECK(cudaFree(factor));
    CHECK(cudaFreeHost(h));
    printf("%s\n", ok ? "Test PASSED" : "Test FAILED");
    return ok ? 0 : 1;
}
