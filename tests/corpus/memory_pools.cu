// memory_pools: the streamOrderedAllocation sample's shape. Each step
// allocates its scratch with cudaMallocAsync on a stream and frees it with
// cudaFreeAsync; the default pool keeps memory (release threshold) and its
// high-water mark says what the peak was. Exits 1 unless the pool says
// 8 MiB for both.
//@ api cudaMallocAsync 8
//@ api cudaFreeAsync 8
//@ api cudaDeviceGetDefaultMemPool 1
//@ api cudaMemPoolSetAttribute 1
//@ api cudaMemPoolGetAttribute 2
//@ kernel step 8
#include "common.h"
#include <cstdint>

__global__ void step(float *scratch, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        scratch[i] = i;
}

int main()
{
    cudaStream_t s;
    cudaMemPool_t pool;
    uint64_t threshold = UINT64_MAX, high = 0, reserved = 0;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
    CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold));
    for (int i = 0; i < 8; i++) {
        float *scratch;
        int n = (i + 1) << 18; /* 1, 2, ... 8 MiB */
        CHECK(cudaMallocAsync(&scratch, n * sizeof(float), s));
        step<<<(n + 255) / 256, 256, 0, s>>>(scratch, n);
        CHECK(cudaFreeAsync(scratch, s));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high));
    CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemCurrent, &reserved));
    printf("peak used %llu MiB, reserved after the loop %llu MiB\n",
           (unsigned long long)(high >> 20), (unsigned long long)(reserved >> 20));
    CHECK(cudaStreamDestroy(s));
    return high == (8ull << 20) && reserved == (8ull << 20) ? 0 : 1;
}
