/*
 * cudart_graph_nodes.c - the graph calls beyond kernels, copies and memsets
 * (issue 41: NVIDIA's simpleCudaGraphs, graphMemoryNodes,
 * graphMemoryFootprint and graphConditionalNodes stopped at them): host
 * nodes, graph memory (allocation and free nodes, and the device's graph
 * memory attributes), cudaGraphClone, capture into an existing graph and
 * its dependencies. tests/sim/core/cusim_graph.c has the model.
 *
 * Errors as the runtime documents them: a bad graph or node handle, a NULL
 * output, a free of an address no allocation node gave (or freed twice in
 * one graph) are cudaErrorInvalidValue; a bad stream
 * cudaErrorInvalidResourceHandle; capture calls on a stream that does not
 * capture cudaErrorIllegalState.
 */
#include "cudart_internal.h"

#include <string.h>

/* ---- host nodes ------------------------------------------------------------ */

cudaError_t cudart_graph_host_node(cusim_graph *g, cudaHostFn_t fn, void *data, cudaGraphNode_t *out)
{
    if (fn == NULL)
        return cudaErrorInvalidValue;
    cusim_graph_node *n = cusim_graph_add_host(g, fn, data);
    if (n == NULL)
        return cudaErrorMemoryAllocation;
    *out = (cudaGraphNode_t)n;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                               const struct cudaHostNodeParams *pNodeParams)
{
    API_ENTER(cudaGraphAddHostNode, v10000,
              (&(cudaGraphAddHostNode_v10000_params){pGraphNode, graph, pDependencies, numDependencies,
                                                     pNodeParams}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || pGraphNode == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (pNodeParams == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(cudart_graph_host_node(g, pNodeParams->fn, pNodeParams->userData, pGraphNode));
}

CUDART_EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *pNodeParams)
{
    API_ENTER(cudaGraphHostNodeGetParams, v10000,
              (&(cudaGraphHostNodeGetParams_v10000_params){node, pNodeParams}));
    cusim_graph_node *n = cusim_graph_node_get(node);
    void (*fn)(void *);
    void *data;
    if (n == NULL || pNodeParams == NULL || cusim_graph_node_host(n, &fn, &data) != 0)
        API_RETURN(cudaErrorInvalidValue);
    pNodeParams->fn = fn;
    pNodeParams->userData = data;
    API_RETURN(cudaSuccess);
}

/* ---- graph memory ------------------------------------------------------------ */

cudaError_t cudart_graph_alloc_node(cusim_graph *g, const cudaGraphNode_t *deps, size_t ndeps,
                                    const struct cudaMemPoolProps *props, size_t bytes, void **dptr,
                                    cudaGraphNode_t *out)
{
    if (bytes == 0 || (ndeps > 0 && deps == NULL))
        return cudaErrorInvalidValue;
    if (props->location.type != cudaMemLocationTypeDevice &&
        props->location.type != cudaMemLocationTypeInvalid)   /* 0: left unset */
        return cudaErrorInvalidValue;
    if (props->location.type == cudaMemLocationTypeDevice && props->location.id != 0)
        return cudaErrorInvalidDevice;
    for (size_t i = 0; i < ndeps; i++)
        if (cusim_graph_node_get(deps[i]) == NULL)
            return cudaErrorInvalidValue;
    cusim_graph_node *n =
        cusim_graph_add_mem_alloc(g, bytes, (cusim_graph_node *const *)deps, ndeps, dptr);
    if (n == NULL)
        return cudaErrorMemoryAllocation;
    *out = (cudaGraphNode_t)n;
    return cudaSuccess;
}

cudaError_t cudart_graph_free_node(cusim_graph *g, void *dptr, cudaGraphNode_t *out)
{
    cusim_graph_node *n = NULL;
    switch (cusim_graph_add_mem_free(g, dptr, &n)) {
    case 0:
        *out = (cudaGraphNode_t)n;
        return cudaSuccess;
    case -1:
        return cudaErrorInvalidValue;
    default:
        return cudaErrorMemoryAllocation;
    }
}

/* The memory is the program's from the node's creation (the real driver
 * reserves the address then and maps it at each launch); the node itself
 * does no device work. */
CUDART_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                   struct cudaMemAllocNodeParams *nodeParams)
{
    API_ENTER(cudaGraphAddMemAllocNode, v11040,
              (&(cudaGraphAddMemAllocNode_v11040_params){pGraphNode, graph, pDependencies, numDependencies,
                                                         nodeParams}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || pGraphNode == NULL || nodeParams == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(cudart_graph_alloc_node(g, pDependencies, numDependencies, &nodeParams->poolProps,
                                       nodeParams->bytesize, &nodeParams->dptr, pGraphNode));
}

CUDART_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                  void *dptr)
{
    API_ENTER(cudaGraphAddMemFreeNode, v11040,
              (&(cudaGraphAddMemFreeNode_v11040_params){pGraphNode, graph, pDependencies, numDependencies,
                                                        dptr}));
    cusim_graph *g = cusim_graph_get(graph);
    if (g == NULL || pGraphNode == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(cudart_graph_free_node(g, dptr, pGraphNode));
}

CUDART_EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node,
                                                         struct cudaMemAllocNodeParams *params_out)
{
    API_ENTER(cudaGraphMemAllocNodeGetParams, v11040,
              (&(cudaGraphMemAllocNodeGetParams_v11040_params){node, params_out}));
    cusim_graph_node *n = cusim_graph_node_get(node);
    void *ptr;
    size_t bytes;
    if (n == NULL || params_out == NULL || cusim_graph_node_type(n) != CUSIM_NODE_MEM_ALLOC ||
        cusim_graph_node_mem(n, &ptr, &bytes) != 0)
        API_RETURN(cudaErrorInvalidValue);
    memset(params_out, 0, sizeof *params_out);
    params_out->poolProps.allocType = cudaMemAllocationTypePinned;
    params_out->poolProps.location.type = cudaMemLocationTypeDevice;
    params_out->bytesize = bytes;
    params_out->dptr = ptr;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out)
{
    API_ENTER(cudaGraphMemFreeNodeGetParams, v11040,
              (&(cudaGraphMemFreeNodeGetParams_v11040_params){node, dptr_out}));
    cusim_graph_node *n = cusim_graph_node_get(node);
    void *ptr;
    size_t bytes;
    if (n == NULL || dptr_out == NULL || cusim_graph_node_type(n) != CUSIM_NODE_MEM_FREE ||
        cusim_graph_node_mem(n, &ptr, &bytes) != 0)
        API_RETURN(cudaErrorInvalidValue);
    *(void **)dptr_out = ptr;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                         void *value)
{
    API_ENTER(cudaDeviceGetGraphMemAttribute, v11040,
              (&(cudaDeviceGetGraphMemAttribute_v11040_params){device, attr, value}));
    uint64_t v[4];
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    if (value == NULL || (unsigned)attr > cudaGraphMemAttrReservedMemHigh)
        API_RETURN(cudaErrorInvalidValue);
    cusim_graph_mem_usage(v);
    *(uint64_t *)value = v[attr];   /* the enum's order: used, used high, reserved, reserved high */
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr,
                                                         void *value)
{
    API_ENTER(cudaDeviceSetGraphMemAttribute, v11040,
              (&(cudaDeviceSetGraphMemAttribute_v11040_params){device, attr, value}));
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    /* only the high-water marks can be set, and only to 0 (a reset) */
    if (value == NULL || (attr != cudaGraphMemAttrUsedMemHigh && attr != cudaGraphMemAttrReservedMemHigh) ||
        *(const uint64_t *)value != 0)
        API_RETURN(cudaErrorInvalidValue);
    cusim_graph_mem_reset_high();
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceGraphMemTrim(int device)
{
    API_ENTER(cudaDeviceGraphMemTrim, v11040, (&(cudaDeviceGraphMemTrim_v11040_params){device}));
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    cusim_graph_mem_trim();
    API_RETURN(cudaSuccess);
}

/* ---- clone ------------------------------------------------------------------- */

CUDART_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph)
{
    API_ENTER(cudaGraphClone, v10000, (&(cudaGraphClone_v10000_params){pGraphClone, originalGraph}));
    cusim_graph *g = cusim_graph_get(originalGraph);
    if (g == NULL || pGraphClone == NULL)
        API_RETURN(cudaErrorInvalidValue);
    /* CUDA: "Cloning is not supported for graphs which contain memory
     * allocation nodes, memory free nodes, or conditional nodes" (the sim's
     * conditional nodes are empty nodes: not told apart) */
    if (cusim_graph_has_mem_nodes(g))
        API_RETURN(cudaErrorNotSupported);
    cusim_graph *c = cusim_graph_clone(g);
    if (c == NULL)
        API_RETURN(cudaErrorMemoryAllocation);
    *pGraphClone = (cudaGraph_t)c;
    API_RETURN(cudaSuccess);
}

/* ---- capture into a graph, and its dependencies ------------------------------ */

static cudaError_t capture_to_graph(cudaStream_t stream, int ptds, cudaGraph_t graph, const cudaGraphNode_t *deps,
                                    size_t ndeps)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    cusim_graph *g = cusim_graph_get(graph);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    if (g == NULL || (ndeps > 0 && deps == NULL))
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < ndeps; i++)
        if (cusim_graph_node_get(deps[i]) == NULL)
            return cudaErrorInvalidValue;
    if (stream == NULL || stream == cudaStreamLegacy)
        return cudaErrorStreamCaptureUnsupported;   /* as cudaStreamBeginCapture */
    /* the nodes are appended to g: the sim replays in the order they were
     * added, which follows the given dependencies */
    return cusim_stream_begin_capture_to(s, g) == 0 ? cudaSuccess : cudaErrorIllegalState;
}

CUDART_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                        const cudaGraphNode_t *dependencies,
                                                        const cudaGraphEdgeData *dependencyData,
                                                        size_t numDependencies, enum cudaStreamCaptureMode mode)
{
    API_ENTER(cudaStreamBeginCaptureToGraph, v12030,
              (&(cudaStreamBeginCaptureToGraph_v12030_params){stream, graph, dependencies, dependencyData,
                                                              numDependencies, mode}));
    API_RETURN(capture_to_graph(stream, 0, graph, dependencies, numDependencies));
}

CUDART_EXPORT cudaError_t cudaStreamBeginCaptureToGraph_ptsz(cudaStream_t stream, cudaGraph_t graph,
                                                             const cudaGraphNode_t *dependencies,
                                                             const cudaGraphEdgeData *dependencyData,
                                                             size_t numDependencies,
                                                             enum cudaStreamCaptureMode mode)
{
    API_ENTER(cudaStreamBeginCaptureToGraph_ptsz, v12030,
              (&(cudaStreamBeginCaptureToGraph_ptsz_v12030_params){stream, graph, dependencies, dependencyData,
                                                                   numDependencies, mode}));
    API_RETURN(capture_to_graph(stream, 1, graph, dependencies, numDependencies));
}

/* Dependencies are accepted and not needed (nodes run in the order they
 * were added), so this checks its arguments and changes nothing. */
static cudaError_t update_deps(cudaStream_t stream, int ptds, cudaGraphNode_t *deps, size_t ndeps,
                               unsigned flags)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    if ((flags != cudaStreamAddCaptureDependencies && flags != cudaStreamSetCaptureDependencies) ||
        (ndeps > 0 && deps == NULL))
        return cudaErrorInvalidValue;
    for (size_t i = 0; i < ndeps; i++)
        if (cusim_graph_node_get(deps[i]) == NULL)
            return cudaErrorInvalidValue;
    return cusim_stream_capture_graph(s) != NULL ? cudaSuccess : cudaErrorIllegalState;
}

CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                              const cudaGraphEdgeData *dependencyData,
                                                              size_t numDependencies, unsigned int flags)
{
    API_ENTER(cudaStreamUpdateCaptureDependencies, v12030,
              (&(cudaStreamUpdateCaptureDependencies_v12030_params){stream, dependencies, dependencyData,
                                                                    numDependencies, flags}));
    API_RETURN(update_deps(stream, 0, dependencies, numDependencies, flags));
}

CUDART_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies_ptsz(cudaStream_t stream,
                                                                   cudaGraphNode_t *dependencies,
                                                                   const cudaGraphEdgeData *dependencyData,
                                                                   size_t numDependencies, unsigned int flags)
{
    API_ENTER(cudaStreamUpdateCaptureDependencies_ptsz, v12030,
              (&(cudaStreamUpdateCaptureDependencies_ptsz_v12030_params){stream, dependencies, dependencyData,
                                                                         numDependencies, flags}));
    API_RETURN(update_deps(stream, 1, dependencies, numDependencies, flags));
}

/* ---- persisting L2 ------------------------------------------------------------ */

/* The sim has no L2 to persist lines in: resetting them is done at once. */
CUDART_EXPORT cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    API_ENTER(cudaCtxResetPersistingL2Cache, v11000, NULL);
    API_RETURN(cudaSuccess);
}
