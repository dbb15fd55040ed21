// stream_priorities: the StreamPriorities sample's shape, with events made
// with flags: a low- and a high-priority stream, the second waiting on an
// event of the first; a timing-free event for the dependency, a timed pair
// for the measurement.
//@ api cudaDeviceGetStreamPriorityRange 1
//@ api cudaStreamCreateWithPriority 2
//@ api cudaEventCreateWithFlags 3
//@ api cudaStreamWaitEvent 1
//@ api cudaEventSynchronize 1
//@ kernel memcpy_kernel 2
#include "common.h"

__global__ void memcpy_kernel(int *dst, const int *src, size_t n)
{
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        dst[i] = src[i];
}

int main()
{
    int lo = 0, hi = 0, plo = 0, phi = 0;
    const size_t n = 1 << 22;
    int *a, *b;
    cudaStream_t slow, fast;
    cudaEvent_t dep, t0, t1;
    CHECK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    printf("CUDA stream priority range: LOW: %d to HIGH: %d\n", lo, hi);
    CHECK(cudaStreamCreateWithPriority(&slow, cudaStreamNonBlocking, lo));
    CHECK(cudaStreamCreateWithPriority(&fast, cudaStreamNonBlocking, hi));
    CHECK(cudaStreamGetPriority(slow, &plo));
    CHECK(cudaStreamGetPriority(fast, &phi));
    CHECK(cudaEventCreateWithFlags(&dep, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&t0, cudaEventBlockingSync));
    CHECK(cudaEventCreateWithFlags(&t1, cudaEventBlockingSync));
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    CHECK(cudaEventRecord(t0, slow));
    memcpy_kernel<<<256, 256, 0, slow>>>(b, a, n);
    CHECK(cudaEventRecord(dep, slow));
    CHECK(cudaStreamWaitEvent(fast, dep, 0));
    memcpy_kernel<<<256, 256, 0, fast>>>(a, b, n);
    CHECK(cudaEventRecord(t1, fast));
    CHECK(cudaEventSynchronize(t1));
    float ms = 0;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    printf("streams created with priorities %d and %d; both kernels took %.3f ms\n", plo, phi, ms);
    float bad;
    int timing_refused = cudaEventElapsedTime(&bad, t0, dep) == cudaErrorInvalidResourceHandle;
    cudaGetLastError();
    printf("elapsed time from a timing-free event refused: %s\n", timing_refused ? "yes" : "no");
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    return plo == lo && phi == hi ? 0 : 1;
}
