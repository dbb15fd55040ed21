// pinned_mapped: the simpleZeroCopy and simpleHostRegister samples' shape.
// Mapped pinned memory (cudaHostAlloc with cudaHostAllocMapped) handed to a
// kernel through cudaHostGetDevicePointer; a malloc'ed buffer registered
// with cudaHostRegister, copied to the device and back, unregistered.
//@ api cudaSetDeviceFlags 1
//@ api cudaHostAlloc 1
//@ api cudaHostGetDevicePointer 1
//@ api cudaHostRegister 1
//@ api cudaHostUnregister 1
//@ api cudaFreeHost 1
//@ kernel vectorAddGPU 1
//@ copy HtoD 1
//@ copy DtoH 1
#include "common.h"

__global__ void vectorAddGPU(float *a, float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

int main()
{
    const int n = 1 << 20;
    float *a, *da;
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("Device can map host memory: %s\n", prop.canMapHostMemory ? "yes" : "no");
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    CHECK(cudaHostAlloc(&a, 3 * n * sizeof(float), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer(&da, a, 0));
    vectorAddGPU<<<n / 256, 256>>>(da, da + n, da + 2 * n, n);
    CHECK(cudaDeviceSynchronize());

    float *reg = (float *)malloc(n * sizeof(float)), *d;
    for (int i = 0; i < n; i++)
        reg[i] = (float)i;
    CHECK(cudaHostRegister(reg, n * sizeof(float), cudaHostRegisterDefault));
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, reg, n * sizeof(float), cudaMemcpyHostToDevice));
    for (int i = 0; i < n; i++)
        reg[i] = -1.0f;
    CHECK(cudaMemcpy(reg, d, n * sizeof(float), cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < n; i++)
        ok &= reg[i] == (float)i;
    CHECK(cudaHostUnregister(reg));
    free(reg);
    CHECK(cudaFree(d));
    CHECK(cudaFreeHost(a));
    printf("%s\n", ok ? "Test PASSED" : "Test FAILED");
    return ok ? 0 : 1;
}
