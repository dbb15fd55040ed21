/*
 * cudart_graph.c - the runtime's graph API on the simulated device
 * (tests/sim/core/cusim_graph.c has the model): stream capture
 * (cudaStreamBeginCapture/EndCapture), explicit construction (kernel,
 * 1D memcpy, memset and empty nodes), instantiation, launch, kernel node
 * updates in an exec (host and memory nodes, clones and capture into a
 * graph: cudart_graph_nodes.c). Errors as the runtime's: a bad handle is
 * cudaErrorInvalidValue (graphs) or cudaErrorInvalidResourceHandle
 * (streams), ending a capture that was never begun
 * cudaErrorIllegalState, a second begin cudaErrorIllegalState.
 */
#include "cudart_internal.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>


/* A kernel node's kernel as the launch path builds it. */
static cudaError_t kernel_of(const struct cudaKernelNodeParams *p, cusim_kernel_desc *k)
{
    if (p == NULL)
        return cudaErrorInvalidValue;
    cudart_func *f = cudart_func_find(p->func);
    if (f == NULL)
        return cudaErrorInvalidDeviceFunction;
    memset(k, 0, sizeof *k);
    k->name = f->name;
    k->grid[0] = p->gridDim.x, k->grid[1] = p->gridDim.y, k->grid[2] = p->gridDim.z;
    k->block[0] = p->blockDim.x, k->block[1] = p->blockDim.y, k->block[2] = p->blockDim.z;
    k->dynamic_smem = p->sharedMemBytes;
    k->registers = (uint16_t)f->registers;
    k->cls = CUSIM_KERNEL_USER;
    if (!k->grid[0] || !k->grid[1] || !k->grid[2] || !k->block[0] || !k->block[1] || !k->block[2])
        return cudaErrorInvalidConfiguration;
    return cudaSuccess;
}

static cudaError_t begin_capture(cudaStream_t stream, int ptds)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    if (stream == NULL || stream == cudaStreamLegacy)
        return cudaErrorStreamCaptureUnsupported;   /* the legacy stream cannot capture */
    return cusim_stream_begin_capture(s) == 0 ? cudaSuccess : cudaErrorIllegalState;
}

CUDART_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    API_ENTER(cudaStreamBeginCapture, v10000, (&(cudaStreamBeginCapture_v10000_params){stream, mode}));
    API_RETURN(begin_capture(stream, 0));
}

CUDART_EXPORT cudaError_t cudaStreamBeginCapture_ptsz(cudaStream_t stream, enum cudaStreamCaptureMode mode)
{
    API_ENTER(cudaStreamBeginCapture_ptsz, v10000,
              (&(cudaStreamBeginCapture_ptsz_v10000_params){stream, mode}));
    API_RETURN(begin_capture(stream, 1));
}

static cudaError_t end_capture(cudaStream_t stream, int ptds, cudaGraph_t *graph)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    if (cusim_stream_capture_joined(s))   /* it did not begin the capture */
        return cudaErrorStreamCaptureUnmatched;
    /* a capture into the program's graph (cudaStreamBeginCaptureToGraph)
     * may leave pGraph NULL (NVIDIA's graphConditionalNodes does) */
    if (graph == NULL && !(cusim_stream_capture_graph(s) != NULL && cusim_stream_capture_to(s)))
        return cudaErrorInvalidValue;
    cusim_graph *g = cusim_stream_end_capture(s);
    if (g == NULL)
        return cudaErrorIllegalState;
    if (graph != NULL)
        *graph = (cudaGraph_t)g;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph)
{
    API_ENTER(cudaStreamEndCapture, v10000, (&(cudaStreamEndCapture_v10000_params){stream, pGraph}));
    API_RETURN(end_capture(stream, 0, pGraph));
}

CUDART_EXPORT cudaError_t cudaStreamEndCapture_ptsz(cudaStream_t stream, cudaGraph_t *pGraph)
{
    API_ENTER(cudaStreamEndCapture_ptsz, v10000,
              (&(cudaStreamEndCapture_ptsz_v10000_params){stream, pGraph}));
    API_RETURN(end_capture(stream, 1, pGraph));
}

CUDART_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags)
{
    API_ENTER(cudaGraphCreate, v10000, (&(cudaGraphCreate_v10000_params){pGraph, flags}));
    if (pGraph == NULL || flags != 0)
        API_RETURN(cudaErrorInvalidValue);
    cusim_graph *g = cusim_graph_create();
    if (g == NULL)
        API_RETURN(cudaErrorMemoryAllocation);
    *pGraph = (cudaGraph_t)g;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph)
{
    API_ENTER(cudaGraphDestroy, v10000, (&(cudaGraphDestroy_v10000_params){graph}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (cusim_graph_capturing(g))   /* a stream still captures into it */
        API_RETURN(cudaErrorIllegalState);
    cusim_graph_destroy(g);
    API_RETURN(cudaSuccess);
}

/* A new node's handle, or the error (dependencies are accepted: the sim
 * runs a graph's nodes in the order they were added). */
static cudaError_t node_out(cudaGraphNode_t *out, cusim_graph_node *n)
{
    if (n == NULL)
        return cudaErrorMemoryAllocation;
    *out = (cudaGraphNode_t)n;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 const struct cudaKernelNodeParams *pNodeParams)
{
    API_ENTER(cudaGraphAddKernelNode, v10000,
              (&(cudaGraphAddKernelNode_v10000_params){pGraphNode, graph, pDependencies, numDependencies,
                                                       pNodeParams}));
    cusim_graph *g = cusim_graph_get(graph);
    cusim_kernel_desc k;
    if (g == NULL || pGraphNode == NULL)
        API_RETURN(cudaErrorInvalidValue);
    cudaError_t e = kernel_of(pNodeParams, &k);
    if (e != cudaSuccess)
        API_RETURN(e);
    API_RETURN(node_out(pGraphNode, cusim_graph_add_kernel(g, &k)));
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                   void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    API_ENTER(cudaGraphAddMemcpyNode1D, v11010,
              (&(cudaGraphAddMemcpyNode1D_v11010_params){pGraphNode, graph, pDependencies, numDependencies,
                                                         dst, src, count, kind}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || pGraphNode == NULL || dst == NULL || src == NULL || (int)kind < 0 || kind > cudaMemcpyDefault)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(node_out(pGraphNode, cusim_graph_add_memcpy(g, dst, count, src, count, count, 1, (int)kind)));
}

CUDART_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 const struct cudaMemsetParams *p)
{
    API_ENTER(cudaGraphAddMemsetNode, v10000,
              (&(cudaGraphAddMemsetNode_v10000_params){pGraphNode, graph, pDependencies, numDependencies, p}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || pGraphNode == NULL || p == NULL || p->dst == NULL ||
        (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4))
        API_RETURN(cudaErrorInvalidValue);
    /* bytes: the sim sets each byte to the value's low byte (as cudaMemset) */
    size_t width = p->width * p->elementSize, height = p->height ? p->height : 1;
    API_RETURN(node_out(pGraphNode, cusim_graph_add_memset(g, p->dst, height > 1 ? p->pitch : width,
                                                           (int)(p->value & 0xff), width, height)));
}

/* ---- node kinds beyond the first ones (issue 31: programs stopped at
 * them): 3-D copies between pitched pointers, memory allocation and free
 * nodes, the generic cudaGraphAddNode, conditional nodes ----------------------- */

/* A cudaMemcpy3DParms between pitched pointers as the sim's 2-D copy
 * (rows of extent.width bytes: height x depth of them); arrays are not
 * modelled. */
static cudaError_t memcpy3d_node(cusim_graph *g, const struct cudaMemcpy3DParms *p, cusim_graph_node **out)
{
    if (p == NULL || p->srcArray || p->dstArray || !p->srcPtr.ptr || !p->dstPtr.ptr)
        return p && (p->srcArray || p->dstArray) ? cudaErrorNotSupported : cudaErrorInvalidValue;
    size_t rows = (p->extent.height ? p->extent.height : 1) * (p->extent.depth ? p->extent.depth : 1);
    size_t sp = p->srcPtr.pitch ? p->srcPtr.pitch : p->extent.width;
    size_t dp = p->dstPtr.pitch ? p->dstPtr.pitch : p->extent.width;
    const char *src = (const char *)p->srcPtr.ptr + p->srcPos.x +
                      (p->srcPos.y + p->srcPos.z * p->srcPtr.ysize) * sp;
    char *dst = (char *)p->dstPtr.ptr + p->dstPos.x + (p->dstPos.y + p->dstPos.z * p->dstPtr.ysize) * dp;
    *out = cusim_graph_add_memcpy(g, dst, dp, src, sp, p->extent.width, rows, (int)p->kind);
    return *out ? cudaSuccess : cudaErrorMemoryAllocation;
}

CUDART_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 const struct cudaMemcpy3DParms *pCopyParams)
{
    API_ENTER(cudaGraphAddMemcpyNode, v10000,
              (&(cudaGraphAddMemcpyNode_v10000_params){pGraphNode, graph, pDependencies, numDependencies,
                                                       pCopyParams}));
    cusim_graph *g = cusim_graph_get(graph);
    cusim_graph_node *n = NULL;
    if (g == NULL || pGraphNode == NULL)
        API_RETURN(cudaErrorInvalidValue);
    cudaError_t e = memcpy3d_node(g, pCopyParams, &n);
    API_RETURN(e == cudaSuccess ? node_out(pGraphNode, n) : e);
}

CUDART_EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
                                                           unsigned int defaultLaunchValue, unsigned int flags)
{
    API_ENTER(cudaGraphConditionalHandleCreate, v12030,
              (&(cudaGraphConditionalHandleCreate_v12030_params){pHandle_out, graph, defaultLaunchValue, flags}));
    static _Atomic unsigned long long next_handle = 1;
    if (pHandle_out == NULL || cusim_graph_get(graph) == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *pHandle_out = (cudaGraphConditionalHandle)atomic_fetch_add(&next_handle, 1);
    API_RETURN(cudaSuccess);
}

/* cudaGraphAddNode: the kinds above by their parameters. A conditional
 * node gets its body graphs (owned here, for the node's life: the
 * process's); the condition is set by device code, which the sim does not
 * run, so a body never runs (an If without its else, a While that does not
 * loop). Event and child-graph nodes are not modelled. */
CUDART_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies,
                                           const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                           struct cudaGraphNodeParams *p)
{
    API_ENTER(cudaGraphAddNode, v12030,
              (&(cudaGraphAddNode_v12030_params){pGraphNode, graph, pDependencies, dependencyData,
                                                 numDependencies, p}));
    cusim_graph *g = cusim_graph_get(graph);
    cusim_graph_node *n = NULL;
    cusim_kernel_desc k;
    if (g == NULL || pGraphNode == NULL || p == NULL)
        API_RETURN(cudaErrorInvalidValue);
    cudaError_t e = cudaSuccess;
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        struct cudaKernelNodeParams kp = {p->kernel.func, p->kernel.gridDim, p->kernel.blockDim,
                                          p->kernel.sharedMemBytes, p->kernel.kernelParams, p->kernel.extra};
        if ((e = kernel_of(&kp, &k)) == cudaSuccess)
            n = cusim_graph_add_kernel(g, &k);
        break;
    }
    case cudaGraphNodeTypeMemset: {
        const struct cudaMemsetParamsV2 *m = &p->memset;
        if (m->dst == NULL || (m->elementSize != 1 && m->elementSize != 2 && m->elementSize != 4))
            API_RETURN(cudaErrorInvalidValue);
        size_t width = m->width * m->elementSize, height = m->height ? m->height : 1;
        n = cusim_graph_add_memset(g, m->dst, height > 1 ? m->pitch : width, (int)(m->value & 0xff), width,
                                   height);
        break;
    }
    case cudaGraphNodeTypeMemcpy:
        e = memcpy3d_node(g, &p->memcpy.copyParams, &n);
        break;
    case cudaGraphNodeTypeEmpty:
        n = cusim_graph_add_empty(g);
        break;
    case cudaGraphNodeTypeHost:
        API_RETURN(cudart_graph_host_node(g, p->host.fn, p->host.userData, pGraphNode));
    case cudaGraphNodeTypeMemAlloc:
        API_RETURN(cudart_graph_alloc_node(g, pDependencies, numDependencies, &p->alloc.poolProps,
                                           p->alloc.bytesize, &p->alloc.dptr, pGraphNode));
    case cudaGraphNodeTypeMemFree:
        API_RETURN(cudart_graph_free_node(g, p->free.dptr, pGraphNode));
    case cudaGraphNodeTypeConditional: {
        unsigned size = p->conditional.size;
        if (size == 0 || size > 8)
            API_RETURN(cudaErrorInvalidValue);
        cudaGraph_t *bodies = calloc(size, sizeof *bodies);
        if (bodies == NULL)
            API_RETURN(cudaErrorMemoryAllocation);
        for (unsigned i = 0; i < size; i++)
            if ((bodies[i] = (cudaGraph_t)cusim_graph_create()) == NULL)
                API_RETURN(cudaErrorMemoryAllocation);
        p->conditional.phGraph_out = bodies;
        n = cusim_graph_add_empty(g);
        break;
    }
    default:
        API_RETURN(cudaErrorNotSupported);
    }
    if (e != cudaSuccess)
        API_RETURN(e);
    API_RETURN(node_out(pGraphNode, n));
}

CUDART_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies, size_t numDependencies)
{
    API_ENTER(cudaGraphAddEmptyNode, v10000,
              (&(cudaGraphAddEmptyNode_v10000_params){pGraphNode, graph, pDependencies, numDependencies}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || pGraphNode == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(node_out(pGraphNode, cusim_graph_add_empty(g)));
}

CUDART_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes)
{
    API_ENTER(cudaGraphGetNodes, v10000, (&(cudaGraphGetNodes_v10000_params){graph, nodes, numNodes}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || numNodes == NULL)
        API_RETURN(cudaErrorInvalidValue);
    size_t n = cusim_graph_nodes(g, (cusim_graph_node **)nodes, nodes ? *numNodes : 0);
    if (nodes == NULL || n < *numNodes)
        *numNodes = n;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType)
{
    API_ENTER(cudaGraphNodeGetType, v10000, (&(cudaGraphNodeGetType_v10000_params){node, pType}));
    cusim_graph_node *n = cusim_graph_node_get(node);
    if (n == NULL || pType == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *pType = (enum cudaGraphNodeType)cusim_graph_node_type(n);
    API_RETURN(cudaSuccess);
}

static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t graph, unsigned long long flags)
{
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || out == NULL)
        return cudaErrorInvalidValue;
    cusim_graph_exec *e = cusim_graph_instantiate(g);
    if (e == NULL)
        return cudaErrorMemoryAllocation;
    cusim_graph_exec_set_auto_free(e, (flags & cudaGraphInstantiateFlagAutoFreeOnLaunch) != 0);
    *out = (cudaGraphExec_t)e;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                               unsigned long long flags)
{
    API_ENTER(cudaGraphInstantiate, v12000, (&(cudaGraphInstantiate_v12000_params){pGraphExec, graph, flags}));
    API_RETURN(instantiate(pGraphExec, graph, flags));
}

CUDART_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                        unsigned long long flags)
{
    API_ENTER(cudaGraphInstantiateWithFlags, v11040,
              (&(cudaGraphInstantiateWithFlags_v11040_params){pGraphExec, graph, flags}));
    API_RETURN(instantiate(pGraphExec, graph, flags));
}

CUDART_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec)
{
    API_ENTER(cudaGraphExecDestroy, v10000, (&(cudaGraphExecDestroy_v10000_params){graphExec}));
    cusim_graph_exec *e = cusim_graph_exec_get(graphExec);
    if (e == NULL)
        API_RETURN(cudaErrorInvalidValue);
    cusim_device_drain();   /* a launch still queued finishes first */
    cusim_graph_exec_destroy(e);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t node,
                                                           const struct cudaKernelNodeParams *pNodeParams)
{
    API_ENTER(cudaGraphExecKernelNodeSetParams, v10010,
              (&(cudaGraphExecKernelNodeSetParams_v10010_params){hGraphExec, node, pNodeParams}));
    cusim_graph_exec *e = cusim_graph_exec_get(hGraphExec);
    cusim_graph_node *n = cusim_graph_node_get(node);
    cusim_kernel_desc k;
    if (e == NULL || n == NULL)
        API_RETURN(cudaErrorInvalidValue);
    cudaError_t err = kernel_of(pNodeParams, &k);
    if (err != cudaSuccess)
        API_RETURN(err);
    API_RETURN(cusim_graph_exec_set_kernel(e, n, &k) == 0 ? cudaSuccess : cudaErrorInvalidValue);
}

static cudaError_t launch(cudaGraphExec_t graphExec, cudaStream_t stream, int ptds)
{
    cusim_graph_exec *e = cusim_graph_exec_get(graphExec);
    if (e == NULL)
        return cudaErrorInvalidValue;
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    /* CUDA: an allocation of a previous launch still not freed fails the
     * launch (unless instantiated to free it on launch) */
    if (cusim_graph_exec_unfreed(e))
        return cudaErrorInvalidValue;
    cusim_spin_ns(cusim_launch_cpu_ns());   /* one submission for the whole graph */
    cusim_graph_launch(e, s, cusim_current_correlation());
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    API_ENTER(cudaGraphLaunch, v10000, (&(cudaGraphLaunch_v10000_params){graphExec, stream}));
    API_RETURN(launch(graphExec, stream, 0));
}

CUDART_EXPORT cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t graphExec, cudaStream_t stream)
{
    API_ENTER(cudaGraphLaunch_ptsz, v10000, (&(cudaGraphLaunch_ptsz_v10000_params){graphExec, stream}));
    API_RETURN(launch(graphExec, stream, 1));
}
