// host_callbacks: the simpleCallback sample's shape. Each of three streams
// queues a copy, a kernel and then a host function (cudaLaunchHostFunc) or a
// stream callback (cudaStreamAddCallback) that counts what finished.
//@ api cudaLaunchHostFunc 3
//@ api cudaStreamAddCallback 3
//@ api cudaStreamCreateWithFlags 3
//@ kernel work 3
//@ copy HtoD 3
#include "common.h"
#include <atomic>

static std::atomic<int> finished{0};

__global__ void work(float *p) { p[threadIdx.x] *= 2.0f; }

static void CUDART_CB host_fn(void *arg) { finished += *(int *)arg; }

static void CUDART_CB stream_cb(cudaStream_t, cudaError_t status, void *arg)
{
    if (status == cudaSuccess)
        finished += *(int *)arg;
}

int main()
{
    const int nstreams = 3;
    cudaStream_t s[nstreams];
    float *d, h[256] = {0};
    int weight[nstreams] = {1, 10, 100};
    CHECK(cudaMalloc(&d, nstreams * sizeof h));
    for (int i = 0; i < nstreams; i++) {
        CHECK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
        CHECK(cudaMemcpyAsync(d + i * 256, h, sizeof h, cudaMemcpyHostToDevice, s[i]));
        work<<<1, 256, 0, s[i]>>>(d + i * 256);
        CHECK(cudaLaunchHostFunc(s[i], host_fn, &weight[i]));
        CHECK(cudaStreamAddCallback(s[i], stream_cb, &weight[i], 0));
    }
    CHECK(cudaDeviceSynchronize());
    printf("callbacks counted %d (expected %d)\n", finished.load(), 2 * 111);
    for (int i = 0; i < nstreams; i++)
        CHECK(cudaStreamDestroy(s[i]));
    CHECK(cudaFree(d));
    return finished.load() == 222 ? 0 : 1;
}
