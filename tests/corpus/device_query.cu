// device_query: the deviceQuery sample's shape: versions, the device count,
// and the properties and attributes a user checks first.
//@ api cudaGetDeviceCount 1
//@ api cudaDriverGetVersion 1
//@ api cudaRuntimeGetVersion 1
//@ api cudaGetDeviceProperties 1
//@ api cudaDeviceGetAttribute 2
//@ api cudaMemGetInfo 1
#include "common.h"

int main()
{
    int count = 0, driver = 0, runtime = 0, clock = 0, l2 = 0;
    size_t free_b = 0, total_b = 0;
    cudaDeviceProp p;
    CHECK(cudaGetDeviceCount(&count));
    printf("Detected %d CUDA Capable device(s)\n", count);
    CHECK(cudaDriverGetVersion(&driver));
    CHECK(cudaRuntimeGetVersion(&runtime));
    printf("CUDA Driver Version / Runtime Version          %d.%d / %d.%d\n", driver / 1000,
           (driver % 100) / 10, runtime / 1000, (runtime % 100) / 10);
    CHECK(cudaGetDeviceProperties(&p, 0));
    printf("Device 0: \"%s\"\n", p.name);
    printf("  CUDA Capability Major/Minor version number:    %d.%d\n", p.major, p.minor);
    printf("  Total amount of global memory:                 %.0f MBytes\n",
           (double)p.totalGlobalMem / 1048576.0);
    printf("  Multiprocessors:                               %d\n", p.multiProcessorCount);
    printf("  Warp size:                                     %d\n", p.warpSize);
    printf("  Maximum number of threads per block:           %d\n", p.maxThreadsPerBlock);
    CHECK(cudaDeviceGetAttribute(&clock, cudaDevAttrMemoryClockRate, 0));
    CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
    printf("  Memory clock rate (kHz), L2 cache (bytes):     %d, %d\n", clock, l2);
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    printf("  Total memory reported by cudaMemGetInfo:       %.0f MBytes\n",
           (double)total_b / 1048576.0);
    printf("Result = %s\n", count > 0 ? "PASS" : "FAIL");
    return count > 0 ? 0 : 1;
}
