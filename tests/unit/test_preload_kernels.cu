// test_preload_kernels.cu - kernels launched on every path nvcc 13 offers:
// <<<>>> (__cudaGetKernel + __cudaLaunchKernel, or _ptsz when built with
// --default-stream per-thread), cudaLaunchKernel and cudaLaunchKernelExC with
// the host stub, and an occupancy query. Prints each return value so the test
// can compare the recorded results; the kernels' device names are known
// (mangled: _Z4addkPfi, _Z5scalePff, _Z2tkILi3EEvPf).
#include <cstdio>
#include <cuda_runtime.h>

__global__ void addk(float *x, int n) { int i = threadIdx.x; if (i < n) x[i] += 1; }
__global__ void scale(float *x, float s) { x[threadIdx.x] *= s; }
template <int N> __global__ void tk(float *x) { x[threadIdx.x] = N; }

int main()
{
    float *d = 0;
    cudaStream_t st = (cudaStream_t)0;
    printf("malloc r=%d\n", (int)cudaMalloc(&d, 4096));
    addk<<<dim3(3, 2, 1), dim3(32, 1, 1), 128, st>>>(d, 4);
    printf("chevron r=%d\n", (int)cudaGetLastError());
    addk<<<dim3(5, 1, 1), dim3(64, 1, 1)>>>(d, 5);
    printf("chevron2 r=%d\n", (int)cudaGetLastError());
    float s = 2;
    void *args[] = {&d, &s};
    printf("launchkernel r=%d\n",
           (int)cudaLaunchKernel((const void *)scale, dim3(7, 1, 1), dim3(128, 1, 1), args, 256, st));
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(9, 1, 1);
    cfg.blockDim = dim3(96, 1, 1);
    cfg.dynamicSmemBytes = 512;
    void *targs[] = {&d};
    printf("launchex r=%d\n", (int)cudaLaunchKernelExC(&cfg, (const void *)tk<3>, targs));
    int n = -1;
    printf("occ r=%d\n", (int)cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void *)addk, 256, 64));
    printf("sync r=%d\n", (int)cudaDeviceSynchronize());
    return 0;
}
