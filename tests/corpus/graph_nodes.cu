// graph_nodes: a graph built with the node kinds that made programs stop on
// the simulated device (issue 31): a 2-D copy node from cudaMemcpy3DParms
// between pitched allocations, a memory allocation node, kernel, memset and
// conditional nodes through cudaGraphAddNode (the condition set by device
// code: its body does not run on the sim), and a stream with an attribute
// set and read back and managed memory attached to it. Launched 4 times, the
// allocation freed after each (CUDA fails a launch while it is still allocated).
//@ api cudaGraphAddMemcpyNode 1
//@ api cudaGraphAddMemAllocNode 1
//@ api cudaFreeAsync 4
//@ api cudaGraphAddNode 3
//@ api cudaStreamSetAttribute 1
//@ api cudaStreamAttachMemAsync 1
//@ kernel bump 4
//@ gpu_copy memset 4
//@ gpu_copy DtoD 4
#include "common.h"
#include <cstdlib>
#include <cstring>

__global__ void bump(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        a[i] += 1.0f;
}

int main()
{
    const int w = 64, h = 32;
    size_t spitch, dpitch;
    float *src, *dst, *managed;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMallocPitch((void **)&src, &spitch, w * sizeof(float), h));
    CHECK(cudaMallocPitch((void **)&dst, &dpitch, w * sizeof(float), h));
    CHECK(cudaMallocManaged((void **)&managed, 4096));
    CHECK(cudaStreamAttachMemAsync(s, managed, 0, cudaMemAttachSingle));
    cudaStreamAttrValue v, back;
    memset(&v, 0, sizeof v);
    v.priority = 0;
    CHECK(cudaStreamSetAttribute(s, cudaStreamAttributePriority, &v));
    CHECK(cudaStreamGetAttribute(s, cudaStreamAttributePriority, &back));

    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemcpy3DParms cp;
    memset(&cp, 0, sizeof cp);
    cp.srcPtr = make_cudaPitchedPtr(src, spitch, w * sizeof(float), h);
    cp.dstPtr = make_cudaPitchedPtr(dst, dpitch, w * sizeof(float), h);
    cp.extent = make_cudaExtent(w * sizeof(float), h, 1);
    cp.kind = cudaMemcpyDeviceToDevice;
    cudaGraphNode_t copy, alloc, kern, set, cond;
    CHECK(cudaGraphAddMemcpyNode(&copy, g, NULL, 0, &cp));
    cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = 1 << 20;
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, &copy, 1, &ap));

    // (C++: cudaGraphNodeParams has no default constructor: zeroed storage)
    cudaGraphNodeParams &kp = *(cudaGraphNodeParams *)calloc(1, sizeof(cudaGraphNodeParams));
    int n = w;
    void *args[] = {&dst, &n};
    kp.type = cudaGraphNodeTypeKernel;
    kp.kernel.func = (void *)bump;
    kp.kernel.gridDim = dim3(1);
    kp.kernel.blockDim = dim3(64);
    kp.kernel.kernelParams = args;
    CHECK(cudaGraphAddNode(&kern, g, &alloc, NULL, 1, &kp));
    cudaGraphNodeParams &mp = *(cudaGraphNodeParams *)calloc(1, sizeof(cudaGraphNodeParams));
    mp.type = cudaGraphNodeTypeMemset;
    mp.memset.dst = src;
    mp.memset.value = 0;
    mp.memset.elementSize = 1;
    mp.memset.width = 256;
    mp.memset.height = 1;
    CHECK(cudaGraphAddNode(&set, g, &kern, NULL, 1, &mp));
    cudaGraphConditionalHandle handle;
    CHECK(cudaGraphConditionalHandleCreate(&handle, g, 0, 0));
    cudaGraphNodeParams &cpar = *(cudaGraphNodeParams *)calloc(1, sizeof(cudaGraphNodeParams));
    cpar.type = cudaGraphNodeTypeConditional;
    cpar.conditional.handle = handle;
    cpar.conditional.type = cudaGraphCondTypeIf;
    cpar.conditional.size = 1;
    CHECK(cudaGraphAddNode(&cond, g, &set, NULL, 1, &cpar));
    int body = cpar.conditional.phGraph_out != NULL && cpar.conditional.phGraph_out[0] != NULL;

    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    // the allocation node's memory outlives each launch (no free node): it
    // must be freed before the next launch, which CUDA fails otherwise
    for (int i = 0; i < 4; i++) {
        CHECK(cudaGraphLaunch(e, s));
        CHECK(cudaFreeAsync(ap.dptr, s));
    }
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(e));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaFree(src));
    CHECK(cudaFree(dst));
    CHECK(cudaFree(managed));
    CHECK(cudaStreamDestroy(s));
    printf("graph_nodes: 4 launches, allocation node %s, conditional body %s\n",
           ap.dptr ? "mapped" : "missing", body ? "made" : "missing");
    return ap.dptr && body ? 0 : 1;
}
