// graph_explicit.cu - a CUDA graph built node by node (no stream capture):
// a memset node, a kernel node after it, a device-to-host memcpy node after
// that; instantiated once and launched N times. For scripts/gpu_check.sh
// (explicit graph nodes, their CUPTI node ids and origins) and its fixtures.
//   nvcc -cudart=shared -o graph_explicit scripts/graph_explicit.cu
//   graph_explicit [N]
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

__global__ void add_one(int *p, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "graph_explicit: %s: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main(int argc, char **argv)
{
    int launches = argc > 1 ? atoi(argv[1]) : 5, n = 1024;
    int *dev, host[1024];
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMalloc(&dev, n * sizeof(int)));
    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaMemsetParams ms = {};
    ms.dst = dev; ms.value = 0; ms.elementSize = 4; ms.width = n; ms.height = 1;
    cudaGraphNode_t nset, nkern, ncopy;
    CK(cudaGraphAddMemsetNode(&nset, g, NULL, 0, &ms));
    void *args[] = {&dev, &n};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)add_one; kp.gridDim = dim3((n + 255) / 256); kp.blockDim = dim3(256);
    kp.kernelParams = args;
    CK(cudaGraphAddKernelNode(&nkern, g, &nset, 1, &kp));
    CK(cudaGraphAddMemcpyNode1D(&ncopy, g, &nkern, 1, host, dev, n * sizeof(int),
                                cudaMemcpyDeviceToHost));
    cudaGraphExec_t ge;
    CK(cudaGraphInstantiate(&ge, g, 0));
    for (int i = 0; i < launches; i++)
        CK(cudaGraphLaunch(ge, s));
    CK(cudaStreamSynchronize(s));
    CK(cudaGraphExecDestroy(ge));
    CK(cudaGraphDestroy(g));
    CK(cudaFree(dev));
    printf("graph_explicit: launches=%d host[0]=%d (want 1)\n", launches, host[0]);
    return 0;
}
