// graph_memory_host: the graph calls NVIDIA's graphMemoryNodes,
// graphMemoryFootprint, simpleCudaGraphs and graphConditionalNodes make that
// stopped them on the simulated device (issue 41): a stream-captured graph
// whose buffer comes from cudaMallocAsync and goes with cudaFreeAsync, with a
// host function at its end (cudaLaunchHostFunc); an explicit graph with
// allocation and free nodes (the second allocation reusing the first's
// address after its free) and a host node (CUDA refuses to clone it; a graph
// of a copy and a host node is cloned); a graph built in part by
// capturing into it (cudaStreamBeginCaptureToGraph); a graph allocation
// freed outside its graph; the graph pool's footprint; and
// cudaCtxResetPersistingL2Cache. The host functions check, at each replay,
// the bytes the replay's memset and copy brought back.
//@ api cudaGraphAddMemAllocNode 3
//@ api cudaGraphAddMemFreeNode 2
//@ api cudaGraphAddHostNode 2
//@ api cudaGraphClone 2
//@ api cudaStreamBeginCaptureToGraph 1
//@ api cudaCtxResetPersistingL2Cache 1
//@ api cudaDeviceGetGraphMemAttribute 2
//@ api cudaLaunchHostFunc 1
//@ api cudaMallocAsync 1
//@ api cudaFreeAsync 2
//@ gpu_copy memset 7
#include "common.h"
#include <cstring>

static const size_t kBytes = 1 << 16;

// What a host function checks: the replay's bytes, and how often it ran.
struct Seen {
    const unsigned char *host;   // where the replay copied the device bytes
    unsigned char want;          // the byte the replay's memset wrote
    int calls, bad;
};

static void CUDART_CB check_bytes(void *arg)
{
    Seen *s = (Seen *)arg;
    s->calls++;
    if (s->host[0] != s->want || s->host[kBytes - 1] != s->want)
        s->bad++;
}

static void alloc_params(cudaMemAllocNodeParams *ap)
{
    memset(ap, 0, sizeof *ap);
    ap->poolProps.allocType = cudaMemAllocationTypePinned;
    ap->poolProps.location.type = cudaMemLocationTypeDevice;
    ap->poolProps.location.id = 0;
    ap->bytesize = kBytes;
}

int main()
{
    cudaStream_t s;
    unsigned char *h;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMallocHost(&h, kBytes));
    CHECK(cudaCtxResetPersistingL2Cache());

    // 1. captured: cudaMallocAsync, memset, copy back, cudaFreeAsync, host function
    Seen captured = {h, 0x11, 0, 0};
    cudaGraph_t g;
    unsigned char *d;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void **)&d, kBytes, s));
    CHECK(cudaMemsetAsync(d, 0x11, kBytes, s));
    CHECK(cudaMemcpyAsync(h, d, kBytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d, s));
    CHECK(cudaLaunchHostFunc(s, check_bytes, &captured));
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphDestroy(g));
    for (int i = 0; i < 3; i++)
        CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    printf("captured graph: 3 launches, host function ran %d times, %d saw wrong bytes\n", captured.calls,
           captured.bad);

    // 2. explicit: alloc A, memset, copy back, free A, alloc B after it, free B, host node
    Seen manual = {h, 0x22, 0, 0};
    cudaGraphNode_t allocA, setA, copyA, freeA, allocB, freeB, host;
    cudaMemAllocNodeParams ap;
    CHECK(cudaGraphCreate(&g, 0));
    alloc_params(&ap);
    CHECK(cudaGraphAddMemAllocNode(&allocA, g, NULL, 0, &ap));
    unsigned char *a = (unsigned char *)ap.dptr;
    cudaMemsetParams mp;
    memset(&mp, 0, sizeof mp);
    mp.dst = a;
    mp.value = 0x22;
    mp.elementSize = 1;
    mp.width = kBytes;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&setA, g, &allocA, 1, &mp));
    CHECK(cudaGraphAddMemcpyNode1D(&copyA, g, &setA, 1, h, a, kBytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddMemFreeNode(&freeA, g, &copyA, 1, a));
    CHECK(cudaGraphAddMemAllocNode(&allocB, g, &freeA, 1, &ap));
    unsigned char *b = (unsigned char *)ap.dptr;
    CHECK(cudaGraphAddMemFreeNode(&freeB, g, &allocB, 1, b));
    cudaHostNodeParams hp = {check_bytes, &manual};
    CHECK(cudaGraphAddHostNode(&host, g, &freeB, 1, &hp));
    printf("explicit graph: the second allocation %s the first's address\n", a == b ? "reuses" : "does not reuse");
    cudaGraph_t clone;
    cudaGraphExec_t me, ce;
    // CUDA clones no graph with memory nodes; a graph of a copy and a host node, yes
    if (cudaGraphClone(&clone, g) != cudaErrorNotSupported) {
        fprintf(stderr, "graph_memory_host: a graph with memory nodes was cloned\n");
        return 1;
    }
    (void)cudaGetLastError();
    CHECK(cudaGraphInstantiate(&me, g, 0));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphLaunch(me, s));
    CHECK(cudaGraphCreate(&g, 0));
    unsigned char *e;
    CHECK(cudaMalloc((void **)&e, kBytes));
    CHECK(cudaMemset(e, 0x22, kBytes));
    CHECK(cudaGraphAddMemcpyNode1D(&copyA, g, NULL, 0, h, e, kBytes, cudaMemcpyDeviceToHost));
    CHECK(cudaGraphAddHostNode(&host, g, &copyA, 1, &hp));
    CHECK(cudaGraphClone(&clone, g));
    CHECK(cudaGraphInstantiate(&ce, clone, 0));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphDestroy(clone));
    CHECK(cudaGraphLaunch(ce, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaFree(e));
    size_t footprint = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &footprint));
    printf("explicit graph and its clone: host node ran %d times, %d saw wrong bytes; pool in use: %s\n",
           manual.calls, manual.bad, footprint >= kBytes ? "yes" : "no");

    // 3. captured into a graph that has a node already; the allocation is
    // left to the program, which frees it outside the graph
    Seen into = {h, 0x33, 0, 0};
    cudaGraphNode_t first;
    CHECK(cudaGraphCreate(&g, 0));
    alloc_params(&ap);
    CHECK(cudaGraphAddMemAllocNode(&first, g, NULL, 0, &ap));
    unsigned char *c = (unsigned char *)ap.dptr;
    CHECK(cudaStreamBeginCaptureToGraph(s, g, &first, NULL, 1, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemsetAsync(c, 0x33, kBytes, s));
    CHECK(cudaMemcpyAsync(h, c, kBytes, cudaMemcpyDeviceToHost, s));
    CHECK(cudaStreamEndCapture(s, NULL));
    cudaGraphExec_t ie;
    CHECK(cudaGraphInstantiate(&ie, g, 0));
    CHECK(cudaGraphLaunch(ie, s));
    CHECK(cudaStreamSynchronize(s));
    check_bytes(&into);
    CHECK(cudaFree(c));              // freed outside its graph: the next launch allocates it again
    CHECK(cudaGraphLaunch(ie, s));
    CHECK(cudaFreeAsync(c, s));
    CHECK(cudaStreamSynchronize(s));
    check_bytes(&into);
    CHECK(cudaDeviceGraphMemTrim(0));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &footprint));
    printf("captured into a graph: %d checks, %d wrong; pool after trim: %zu bytes\n", into.calls, into.bad,
           footprint);

    CHECK(cudaGraphExecDestroy(ie));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphExecDestroy(me));
    CHECK(cudaGraphExecDestroy(ce));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaFreeHost(h));
    CHECK(cudaStreamDestroy(s));
    int bad = captured.bad + manual.bad + into.bad;
    if (captured.calls != 3 || manual.calls != 2 || into.calls != 2 || bad != 0) {
        fprintf(stderr, "graph_memory_host: host functions ran %d/%d/%d times, %d wrong\n", captured.calls,
                manual.calls, into.calls, bad);
        return 1;
    }
    return 0;
}
