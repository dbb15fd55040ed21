// occupancy: the simpleOccupancy sample's shape. The launch configuration
// comes from cudaOccupancyMaxPotentialBlockSize; the occupancy it gives is
// computed from the device's properties and printed. Both are templates of
// cuda_runtime.h: the profile shows the runtime calls they make (the block
// size search asks for the occupancy of each of 32 block sizes).
//@ api cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags 33
//@ api cudaFuncGetAttributes 1
//@ api cudaGetDeviceProperties 1
//@ api cudaDeviceSynchronize 2
//@ kernel square 2
#include "common.h"

__global__ void square(int *array, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        array[i] *= array[i];
}

int main()
{
    const int n = 1000000;
    int *d, block = 0, min_grid = 0, active = 0, device;
    cudaDeviceProp prop;
    CHECK(cudaMalloc(&d, n * sizeof(int)));
    // a fixed configuration first, as the sample does
    square<<<(n + 31) / 32, 32>>>(d, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, square, 0, 0));
    int grid = (n + block - 1) / block;
    square<<<grid, block>>>(d, n);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&active, square, block, 0));
    CHECK(cudaGetDevice(&device));
    CHECK(cudaGetDeviceProperties(&prop, device));
    float occupancy = (float)(active * block / prop.warpSize) /
                      (float)(prop.maxThreadsPerMultiProcessor / prop.warpSize);
    printf("Potential block size %d, minimum grid %d\n", block, min_grid);
    printf("Launched blocks of size %d. Theoretical occupancy: %.0f%%\n", block, occupancy * 100);
    CHECK(cudaFree(d));
    printf("Test PASSED\n");
    return 0;
}
