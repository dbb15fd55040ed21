/*
 * hooks_sync.c - synchronization, events, and the profiler start/stop calls.
 *
 * Each records one handle in a.sync.stream: the stream for stream syncs,
 * waits and event records, the event for cudaEventSynchronize, 0 for the
 * device. And the frequent queries whose CUPTI records are off
 * (cudaGetDevice, cudaGetLastError, event creation: plain calls).
 */
#include "preload/hooks.h"

#include <errno.h>

static inline void fill_handle(preload_call c, const void *handle)
{
    if (c.ev)
        c.ev->a.sync.stream = (uint64_t)(uintptr_t)handle;
}

PRELOAD_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    preload_cudaDeviceSynchronize_fn real = PRELOAD_REAL(cudaDeviceSynchronize);
    preload_call c = HOOK_BEGIN(cudaDeviceSynchronize);
    cudaError_t r = real ? real() : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

static cudaError_t stream_sync(unsigned fn, cudaStream_t stream)
{
    preload_cudaStreamSynchronize_fn real = PRELOAD_REAL_AS(cudaStreamSynchronize, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_SYNC);
    fill_handle(c, stream);
    cudaError_t r = real ? real(stream) : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaStreamSynchronize PRELOAD_SIG_STREAM
{
    return stream_sync(PRELOAD_FN_cudaStreamSynchronize, stream);
}
PRELOAD_EXPORT cudaError_t cudaStreamSynchronize_ptsz PRELOAD_SIG_STREAM
{
    return stream_sync(PRELOAD_FN_cudaStreamSynchronize_ptsz, stream);
}

PRELOAD_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    preload_cudaEventSynchronize_fn real = PRELOAD_REAL(cudaEventSynchronize);
    preload_call c = HOOK_BEGIN(cudaEventSynchronize);
    fill_handle(c, event);
    cudaError_t r = real ? real(event) : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

static cudaError_t wait_event(unsigned fn, cudaStream_t stream, cudaEvent_t event,
                              unsigned int flags)
{
    preload_cudaStreamWaitEvent_fn real = PRELOAD_REAL_AS(cudaStreamWaitEvent, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_EVENT);
    fill_handle(c, stream);
    cudaError_t r = real ? real(stream, event, flags) : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaStreamWaitEvent PRELOAD_SIG_WAITEV
{
    return wait_event(PRELOAD_FN_cudaStreamWaitEvent, stream, event, flags);
}
PRELOAD_EXPORT cudaError_t cudaStreamWaitEvent_ptsz PRELOAD_SIG_WAITEV
{
    return wait_event(PRELOAD_FN_cudaStreamWaitEvent_ptsz, stream, event, flags);
}

/* cudaEventRecord(WithFlags)(_ptsz): one body, flags only for WithFlags. */
static cudaError_t event_record(unsigned fn, cudaEvent_t event, cudaStream_t stream,
                                unsigned int flags, int with_flags)
{
    void *real = preload_real(fn);
    preload_call c = hook_begin(fn, CUPROF_EV_EVENT);
    fill_handle(c, stream);
    cudaError_t r;
    if (real == NULL)
        r = PRELOAD_CUDART_MISSING;
    else if (with_flags)
        r = ((preload_cudaEventRecordWithFlags_fn)real)(event, stream, flags);
    else
        r = ((preload_cudaEventRecord_fn)real)(event, stream);
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaEventRecord PRELOAD_SIG_EVREC
{
    return event_record(PRELOAD_FN_cudaEventRecord, event, stream, 0, 0);
}
PRELOAD_EXPORT cudaError_t cudaEventRecord_ptsz PRELOAD_SIG_EVREC
{
    return event_record(PRELOAD_FN_cudaEventRecord_ptsz, event, stream, 0, 0);
}
PRELOAD_EXPORT cudaError_t cudaEventRecordWithFlags PRELOAD_SIG_EVRECF
{
    return event_record(PRELOAD_FN_cudaEventRecordWithFlags, event, stream, flags, 1);
}
PRELOAD_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz PRELOAD_SIG_EVRECF
{
    return event_record(PRELOAD_FN_cudaEventRecordWithFlags_ptsz, event, stream, flags, 1);
}

PRELOAD_EXPORT cudaError_t cudaProfilerStart(void)
{
    preload_cudaProfilerStart_fn real = PRELOAD_REAL(cudaProfilerStart);
    int e = errno;
    cuprof_capture_profiler_api(1);   /* opens the capture window: this call is in it */
    errno = e;
    preload_call c = HOOK_BEGIN(cudaProfilerStart);
    cudaError_t r = real ? real() : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaProfilerStop(void)
{
    preload_cudaProfilerStop_fn real = PRELOAD_REAL(cudaProfilerStop);
    preload_call c = HOOK_BEGIN(cudaProfilerStop);
    cudaError_t r = real ? real() : PRELOAD_CUDART_MISSING;
    r = (cudaError_t)hook_end(c, r);
    int e = errno;
    cuprof_capture_profiler_api(0);   /* closes it: this call was its last */
    errno = e;
    return r;
}

/* Plain calls: recorded, no arguments kept. */
PRELOAD_PLAIN_HOOK(cudaError_t, cudaGetDevice, (int *device), (device), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaSetDevice, (int device), (device), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaGetLastError, (void), (), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaEventCreate, (cudaEvent_t *event), (event), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaEventCreateWithFlags, (cudaEvent_t *event, unsigned int flags),
                   (event, flags), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaEventDestroy, (cudaEvent_t event), (event), PRELOAD_CUDART_MISSING)

/* Graph nodes added one by one: recorded so that each node has the call
 * that added it as its origin (the CUPTI callback that names the node comes
 * inside the call). */
PRELOAD_PLAIN_HOOK(cudaError_t, cudaGraphAddKernelNode,
                   (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                    size_t numDependencies, const struct cudaKernelNodeParams *pNodeParams),
                   (pGraphNode, graph, pDependencies, numDependencies, pNodeParams), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaGraphAddMemcpyNode,
                   (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                    size_t numDependencies, const struct cudaMemcpy3DParms *pCopyParams),
                   (pGraphNode, graph, pDependencies, numDependencies, pCopyParams), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaGraphAddMemcpyNode1D,
                   (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                    size_t numDependencies, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind),
                   (pGraphNode, graph, pDependencies, numDependencies, dst, src, count, kind),
                   PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaGraphAddMemsetNode,
                   (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                    size_t numDependencies, const struct cudaMemsetParams *pMemsetParams),
                   (pGraphNode, graph, pDependencies, numDependencies, pMemsetParams), PRELOAD_CUDART_MISSING)
PRELOAD_PLAIN_HOOK(cudaError_t, cudaGraphAddNode,
                   (cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies,
                    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                    struct cudaGraphNodeParams *nodeParams),
                   (pGraphNode, graph, pDependencies, dependencyData, numDependencies, nodeParams),
                   PRELOAD_CUDART_MISSING)
