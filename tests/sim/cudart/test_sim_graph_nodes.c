/*
 * test_sim_graph_nodes.c - the graph calls of cudart_graph_nodes.c, linked
 * into test_sim_cudart (its "graph nodes" case): host nodes run in stream
 * order at every replay (made explicitly, with cudaGraphAddNode, or by a
 * captured cudaLaunchHostFunc); graph memory (allocation and free nodes,
 * captured cudaMallocAsync / cudaFreeAsync, frees outside the graph, the
 * graph pool's attributes); cudaGraphClone; capture into an existing graph;
 * streams joining a capture through its events; cudaCtxResetPersistingL2Cache. Each was a stub (or a crash: a replay of
 * a captured graph wrote into memory its captured cudaFreeAsync had freed;
 * make asan-test runs this case under AddressSanitizer).
 */
#include <check.h>
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

TCase *graph_nodes_tcase(void);

/* What a host node saw each time it ran. */
typedef struct host_seen {
    int calls;
    float first[4];        /* host[0] at each call: what the copy before it brought */
    const float *host;     /* the buffer the copy node writes */
} host_seen;

static void CUDART_CB on_host(void *arg)
{
    host_seen *h = arg;
    if (h->calls < 4)
        h->first[h->calls] = h->host[0];
    h->calls++;
}

START_TEST(test_graph_host_nodes)
{
    cudaStream_t s;
    float *d, h[16] = {0}, v[16];
    host_seen seen = {0, {0}, h};
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, sizeof h), cudaSuccess);
    for (int i = 0; i < 16; i++)
        v[i] = 1.5f;
    ck_assert_int_eq(cudaMemcpy(d, v, sizeof v, cudaMemcpyHostToDevice), cudaSuccess);

    /* explicit: copy d to h, then the host node, which must see the copy */
    cudaGraph_t g;
    cudaGraphNode_t cn, hn, en;
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemcpyNode1D(&cn, g, NULL, 0, h, d, sizeof h, cudaMemcpyDeviceToHost),
                     cudaSuccess);
    struct cudaHostNodeParams hp = {on_host, &seen}, back = {0};
    ck_assert_int_eq(cudaGraphAddHostNode(&hn, g, &cn, 1, &hp), cudaSuccess);
    ck_assert_int_eq(seen.calls, 0);   /* not run when added */
    enum cudaGraphNodeType type;
    ck_assert_int_eq(cudaGraphNodeGetType(hn, &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeHost);
    ck_assert_int_eq(cudaGraphHostNodeGetParams(hn, &back), cudaSuccess);
    ck_assert_ptr_eq((void *)back.fn, (void *)on_host);
    ck_assert_ptr_eq(back.userData, &seen);
    ck_assert_int_eq(cudaGraphHostNodeGetParams(cn, &back), cudaErrorInvalidValue);   /* a copy node */
    struct cudaHostNodeParams none = {NULL, NULL};
    ck_assert_int_eq(cudaGraphAddHostNode(&en, g, NULL, 0, &none), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphAddHostNode(&en, g, NULL, 0, NULL), cudaErrorInvalidValue);
    (void)cudaGetLastError();

    cudaGraphExec_t e;
    ck_assert_int_eq(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    for (int i = 0; i < 16; i++)
        v[i] = 2.5f;
    ck_assert_int_eq(cudaMemcpyAsync(d, v, sizeof v, cudaMemcpyHostToDevice, s), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(seen.calls, 2);   /* once per replay */
    ck_assert(seen.first[0] == 1.5f);  /* each after its replay's copy, in stream order */
    ck_assert(seen.first[1] == 2.5f);

    /* a clone replays it too; so does one made with cudaGraphAddNode */
    cudaGraph_t c;
    cudaGraphExec_t ce;
    ck_assert_int_eq(cudaGraphClone(&c, g), cudaSuccess);
    struct cudaGraphNodeParams np;
    memset(&np, 0, sizeof np);
    np.type = cudaGraphNodeTypeHost;
    np.host.fn = on_host;
    np.host.userData = &seen;
    ck_assert_int_eq(cudaGraphAddNode(&en, c, NULL, NULL, 0, &np), cudaSuccess);
    size_t n = 0;
    ck_assert_int_eq(cudaGraphGetNodes(c, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 3);
    ck_assert_int_eq(cudaGraphInstantiate(&ce, c, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(c), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(ce, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(seen.calls, 4);
    ck_assert_int_eq(cudaGraphClone(&c, NULL), cudaErrorInvalidValue);

    /* captured: cudaLaunchHostFunc becomes a host node and runs at replays */
    cudaGraph_t cg;
    cudaGraphExec_t cge;
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_int_eq(cudaLaunchHostFunc(s, on_host, &seen), cudaSuccess);
    ck_assert_int_eq(seen.calls, 4);   /* captured, not run */
    ck_assert_int_eq(cudaStreamEndCapture(s, &cg), cudaSuccess);
    cudaGraphNode_t nodes[2];
    n = 2;
    ck_assert_int_eq(cudaGraphGetNodes(cg, nodes, &n), cudaSuccess);
    ck_assert_uint_eq(n, 2);
    ck_assert_int_eq(cudaGraphNodeGetType(nodes[1], &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeHost);
    ck_assert_int_eq(cudaGraphInstantiate(&cge, cg, 0), cudaSuccess);
    for (int r = 0; r < 3; r++)
        ck_assert_int_eq(cudaGraphLaunch(cge, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(seen.calls, 7);
    (void)cudaGetLastError();

    ck_assert_int_eq(cudaGraphExecDestroy(cge), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(cg), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(ce), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

static void CUDART_CB never(cudaStream_t s, cudaError_t e, void *arg)
{
    (void)s, (void)e;
    ++*(int *)arg;
}

/* The stream callback refused in a capture (a callback that is not NULL). */
START_TEST(test_stream_callback_not_captured)
{
    cudaStream_t s;
    cudaGraph_t g;
    int calls = 0;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaStreamAddCallback(s, never, &calls, 0), cudaErrorStreamCaptureUnsupported);
    ck_assert_int_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
    ck_assert_int_eq(calls, 0);
    ck_assert_int_eq(cudaStreamAddCallback(s, never, &calls, 0), cudaSuccess);
    ck_assert_int_eq(calls, 1);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

static size_t graph_mem(enum cudaGraphMemAttributeType a)
{
    uint64_t v = 0;
    ck_assert_int_eq(cudaDeviceGetGraphMemAttribute(0, a, &v), cudaSuccess);
    return (size_t)v;
}

START_TEST(test_graph_memory_nodes)
{
    enum { BYTES = 4096 };
    cudaStream_t s;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    cudaGraph_t g;
    cudaGraphNode_t a1, f1, a2, a3, f3, x;
    struct cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.bytesize = BYTES;
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemAllocNode(&a1, g, NULL, 0, &ap), cudaSuccess);
    void *p1 = ap.dptr;
    ck_assert_ptr_nonnull(p1);
    ck_assert_int_eq(cudaGraphAddMemFreeNode(&f1, g, &a1, 1, p1), cudaSuccess);
    /* after a free it depends on, an allocation reuses the address (the
     * programming guide; NVIDIA's graphMemoryNodes checks it) */
    ck_assert_int_eq(cudaGraphAddMemAllocNode(&a2, g, &f1, 1, &ap), cudaSuccess);
    ck_assert_ptr_eq(ap.dptr, p1);
    ck_assert_int_eq(cudaGraphAddMemAllocNode(&a3, g, NULL, 0, &ap), cudaSuccess);
    void *p3 = ap.dptr;
    ck_assert_ptr_ne(p3, p1);
    ck_assert_int_eq(cudaGraphAddMemFreeNode(&f3, g, &a3, 1, p3), cudaSuccess);
    /* refused: freed twice in one graph, an address no allocation node gave */
    ck_assert_int_eq(cudaGraphAddMemFreeNode(&x, g, &f3, 1, p3), cudaErrorInvalidValue);
    float *plain;
    ck_assert_int_eq(cudaMalloc((void **)&plain, 64), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemFreeNode(&x, g, NULL, 0, plain), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphAddMemFreeNode(&x, g, NULL, 0, (char *)p1 + 8), cudaErrorInvalidValue);
    ap.bytesize = 0;
    ck_assert_int_eq(cudaGraphAddMemAllocNode(&x, g, NULL, 0, &ap), cudaErrorInvalidValue);
    ap.bytesize = BYTES;
    (void)cudaGetLastError();

    enum cudaGraphNodeType type;
    ck_assert_int_eq(cudaGraphNodeGetType(a1, &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeMemAlloc);
    ck_assert_int_eq(cudaGraphNodeGetType(f3, &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeMemFree);
    struct cudaMemAllocNodeParams got;
    void *freed = NULL;
    ck_assert_int_eq(cudaGraphMemAllocNodeGetParams(a3, &got), cudaSuccess);
    ck_assert_ptr_eq(got.dptr, p3);
    ck_assert_uint_eq(got.bytesize, BYTES);
    ck_assert_int_eq(cudaGraphMemFreeNodeGetParams(f3, &freed), cudaSuccess);
    ck_assert_ptr_eq(freed, p3);
    ck_assert_int_eq(cudaGraphMemFreeNodeGetParams(a3, &freed), cudaErrorInvalidValue);

    /* the pool holds nothing until a launch maps; then the most mapped at
     * once (a2's address is a1's, mapped again after a1's free) */
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), 0);
    cudaGraphExec_t e;
    cudaGraph_t clone;   /* CUDA clones no graph with memory nodes */
    ck_assert_int_eq(cudaGraphClone(&clone, g), cudaErrorNotSupported);
    (void)cudaGetLastError();
    ck_assert_int_eq(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);   /* the exec keeps the addresses */
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), 2 * BYTES);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrReservedMemHigh), 2 * BYTES);
    /* p1 (as a2) is still allocated after the launch: trimming keeps it */
    ck_assert_int_eq(cudaDeviceGraphMemTrim(0), cudaSuccess);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), BYTES);
    /* relaunched with it still allocated: refused (CUDA), nothing replayed */
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    /* freed outside the graph, then trimmed: the pool is empty, the address
     * still the exec's (a relaunch maps it again) */
    ck_assert_int_eq(cudaFreeAsync(p1, s), cudaSuccess);
    ck_assert_int_eq(cudaDeviceGraphMemTrim(0), cudaSuccess);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), 0);
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(p1, 7, BYTES, s), cudaSuccess);   /* it is memory again */
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(((unsigned char *)p1)[BYTES - 1], 7);
    ck_assert_int_eq(cudaFree(p1), cudaSuccess);
    uint64_t zero = 0, one = 1;
    ck_assert_int_eq(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &zero), cudaSuccess);
    ck_assert_int_eq(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemHigh, &one), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaDeviceSetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &zero),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaDeviceGetGraphMemAttribute(1, cudaGraphMemAttrUsedMemCurrent, &zero),
                     cudaErrorInvalidDevice);
    ck_assert_int_eq(cudaDeviceGraphMemTrim(1), cudaErrorInvalidDevice);
    (void)cudaGetLastError();
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);

    /* instantiated to free on launch: each launch frees the last one's */
    cudaGraphNode_t only;
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddMemAllocNode(&only, g, NULL, 0, &ap), cudaSuccess);
    void *kept = ap.dptr;
    ck_assert_int_eq(cudaGraphInstantiateWithFlags(&e, g, cudaGraphInstantiateFlagAutoFreeOnLaunch), cudaSuccess);
    for (int r = 0; r < 3; r++)
        ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(cudaDeviceGraphMemTrim(0), cudaSuccess);
    ck_assert_uint_eq(graph_mem(cudaGraphMemAttrUsedMemCurrent), BYTES);   /* the last launch's */
    ck_assert_int_eq(cudaFree(kept), cudaSuccess);
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaFree(plain), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

/* Captured cudaMallocAsync / cudaFreeAsync are an allocation and a free node:
 * the memory lives on for the replays. Before, the captured free gave the
 * memory back at once and each replay's copy wrote into freed memory
 * (NVIDIA's graphMemoryNodes crashed there). */
START_TEST(test_graph_memory_captured)
{
    enum { N = 1 << 20 };   /* big enough to be its own mapping */
    cudaStream_t s;
    unsigned char *h = malloc(N), *p = NULL;
    float *plain;
    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&plain, 64), cudaSuccess);
    cudaGraph_t g;
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMallocAsync((void **)&p, N, s), cudaSuccess);
    ck_assert_ptr_nonnull(p);
    ck_assert_int_eq(cudaMemsetAsync(p, 0x5a, N, s), cudaSuccess);
    ck_assert_int_eq(cudaMemcpyAsync(h, p, N, cudaMemcpyDeviceToHost, s), cudaSuccess);
    ck_assert_int_eq(cudaFreeAsync(p, s), cudaSuccess);
    /* only graph memory can be freed in a capture */
    ck_assert_int_eq(cudaFreeAsync(plain, s), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaStreamEndCapture(s, &g), cudaSuccess);
    (void)cudaGetLastError();
    size_t n = 0;
    ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 4);
    cudaGraphNode_t nodes[4];
    enum cudaGraphNodeType type;
    ck_assert_int_eq(cudaGraphGetNodes(g, nodes, &n), cudaSuccess);
    ck_assert_int_eq(cudaGraphNodeGetType(nodes[0], &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeMemAlloc);
    ck_assert_int_eq(cudaGraphNodeGetType(nodes[3], &type), cudaSuccess);
    ck_assert_int_eq(type, cudaGraphNodeTypeMemFree);
    cudaGraphExec_t e;
    ck_assert_int_eq(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    for (int r = 0; r < 2; r++) {
        memset(h, 0, N);
        ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
        ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
        ck_assert_int_eq(h[0], 0x5a);
        ck_assert_int_eq(h[N - 1], 0x5a);
    }
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);
    /* the address went with the last node naming it */
    ck_assert_int_eq(cudaFree(p), cudaErrorInvalidValue);
    (void)cudaGetLastError();
    ck_assert_int_eq(cudaFree(plain), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
    free(h);
}
END_TEST

START_TEST(test_capture_to_graph)
{
    cudaStream_t s;
    float *d;
    ck_assert_int_eq(cudaStreamCreate(&s), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, 256), cudaSuccess);
    cudaGraph_t g, other;
    cudaGraphNode_t first;
    ck_assert_int_eq(cudaGraphCreate(&g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphAddEmptyNode(&first, g, NULL, 0), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCaptureToGraph(NULL, g, NULL, NULL, 0, cudaStreamCaptureModeGlobal),
                     cudaErrorStreamCaptureUnsupported);
    ck_assert_int_eq(cudaStreamBeginCaptureToGraph(s, NULL, NULL, NULL, 0, cudaStreamCaptureModeGlobal),
                     cudaErrorInvalidValue);
    ck_assert_int_eq(cudaStreamUpdateCaptureDependencies(s, &first, NULL, 1, cudaStreamSetCaptureDependencies),
                     cudaErrorIllegalState);   /* not capturing */
    ck_assert_int_eq(cudaStreamBeginCaptureToGraph(s, g, &first, NULL, 1, cudaStreamCaptureModeGlobal),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(d, 1, 256, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamUpdateCaptureDependencies(s, &first, NULL, 1, cudaStreamSetCaptureDependencies),
                     cudaSuccess);
    ck_assert_int_eq(cudaStreamUpdateCaptureDependencies(s, &first, NULL, 1, 7), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaErrorIllegalState);   /* still captured into */
    enum cudaStreamCaptureStatus st;
    cudaGraph_t cap = NULL;
    ck_assert_int_eq(cudaStreamGetCaptureInfo(s, &st, NULL, &cap, NULL, NULL, NULL), cudaSuccess);
    ck_assert_int_eq(st, cudaStreamCaptureStatusActive);
    ck_assert_ptr_eq(cap, g);
    /* pGraph may be NULL when the graph is the program's */
    ck_assert_int_eq(cudaStreamEndCapture(s, NULL), cudaSuccess);
    size_t n = 0;
    ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 2);   /* the empty node, then the captured memset */
    /* again, ending with the graph handed back */
    ck_assert_int_eq(cudaStreamBeginCaptureToGraph(s, g, NULL, NULL, 0, cudaStreamCaptureModeGlobal),
                     cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(d, 2, 256, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, &other), cudaSuccess);
    ck_assert_ptr_eq(other, g);
    ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 3);
    /* a capture into a graph of its own still needs pGraph */
    ck_assert_int_eq(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaStreamEndCapture(s, NULL), cudaErrorInvalidValue);
    ck_assert_int_eq(cudaStreamEndCapture(s, &other), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(other), cudaSuccess);
    /* a stream destroyed while capturing into g gives g back */
    cudaStream_t t;
    ck_assert_int_eq(cudaStreamCreate(&t), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCaptureToGraph(t, g, NULL, NULL, 0, cudaStreamCaptureModeGlobal),
                     cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(t), cudaSuccess);
    (void)cudaGetLastError();

    cudaGraphExec_t e;
    ck_assert_int_eq(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(e, s), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s), cudaSuccess);
    ck_assert_int_eq(((unsigned char *)d)[255], 2);   /* the replay's memsets, in order */
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s), cudaSuccess);
}
END_TEST

/* Cross-stream capture: a stream that waits on an event recorded in a
 * capture joins it (its work becomes nodes of the same graph, nothing
 * runs), and leaves it when the stream that began the capture ends it; only
 * that stream can end it. */
START_TEST(test_capture_joins_streams)
{
    cudaStream_t s1, s2;
    cudaEvent_t fork, join;
    unsigned char *d;
    ck_assert_int_eq(cudaStreamCreate(&s1), cudaSuccess);
    ck_assert_int_eq(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&fork), cudaSuccess);
    ck_assert_int_eq(cudaEventCreate(&join), cudaSuccess);
    ck_assert_int_eq(cudaMalloc((void **)&d, 256), cudaSuccess);
    ck_assert_int_eq(cudaMemset(d, 0, 256), cudaSuccess);
    ck_assert_int_eq(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal), cudaSuccess);
    ck_assert_int_eq(cudaMemsetAsync(d, 1, 128, s1), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(fork, s1), cudaSuccess);
    ck_assert_int_eq(cudaStreamWaitEvent(s2, fork, 0), cudaSuccess);
    enum cudaStreamCaptureStatus st;
    ck_assert_int_eq(cudaStreamIsCapturing(s2, &st), cudaSuccess);
    ck_assert_int_eq(st, cudaStreamCaptureStatusActive);
    ck_assert_int_eq(cudaMemsetAsync(d + 128, 2, 128, s2), cudaSuccess);
    ck_assert_int_eq(cudaEventRecord(join, s2), cudaSuccess);
    ck_assert_int_eq(cudaStreamWaitEvent(s1, join, 0), cudaSuccess);
    cudaGraph_t g;
    ck_assert_int_eq(cudaStreamEndCapture(s2, &g), cudaErrorStreamCaptureUnmatched);
    (void)cudaGetLastError();
    ck_assert_int_eq(cudaStreamEndCapture(s1, &g), cudaSuccess);
    ck_assert_int_eq(cudaStreamIsCapturing(s2, &st), cudaSuccess);
    ck_assert_int_eq(st, cudaStreamCaptureStatusNone);   /* left with the capture */
    ck_assert_int_eq(cudaDeviceSynchronize(), cudaSuccess);
    ck_assert_int_eq(d[0], 0);     /* captured, not run */
    ck_assert_int_eq(d[255], 0);
    size_t n = 0;
    ck_assert_int_eq(cudaGraphGetNodes(g, NULL, &n), cudaSuccess);
    ck_assert_uint_eq(n, 2);       /* both streams' memsets */
    cudaGraphExec_t e;
    ck_assert_int_eq(cudaGraphInstantiate(&e, g, 0), cudaSuccess);
    ck_assert_int_eq(cudaGraphLaunch(e, s1), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s1), cudaSuccess);
    ck_assert_int_eq(d[0], 1);
    ck_assert_int_eq(d[255], 2);
    /* s2 works on its own again */
    ck_assert_int_eq(cudaMemsetAsync(d, 3, 1, s2), cudaSuccess);
    ck_assert_int_eq(cudaStreamSynchronize(s2), cudaSuccess);
    ck_assert_int_eq(d[0], 3);
    ck_assert_int_eq(cudaGraphExecDestroy(e), cudaSuccess);
    ck_assert_int_eq(cudaGraphDestroy(g), cudaSuccess);
    ck_assert_int_eq(cudaEventDestroy(fork), cudaSuccess);
    ck_assert_int_eq(cudaEventDestroy(join), cudaSuccess);
    ck_assert_int_eq(cudaFree(d), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s1), cudaSuccess);
    ck_assert_int_eq(cudaStreamDestroy(s2), cudaSuccess);
}
END_TEST

START_TEST(test_reset_persisting_l2)
{
    ck_assert_int_eq(cudaCtxResetPersistingL2Cache(), cudaSuccess);
    ck_assert_int_eq(cudaGetLastError(), cudaSuccess);
}
END_TEST

TCase *graph_nodes_tcase(void)
{
    TCase *tc = tcase_create("graph nodes");
    tcase_add_test(tc, test_graph_host_nodes);
    tcase_add_test(tc, test_stream_callback_not_captured);
    tcase_add_test(tc, test_graph_memory_nodes);
    tcase_add_test(tc, test_graph_memory_captured);
    tcase_add_test(tc, test_capture_to_graph);
    tcase_add_test(tc, test_capture_joins_streams);
    tcase_add_test(tc, test_reset_persisting_l2);
    return tc;
}
