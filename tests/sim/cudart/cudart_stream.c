/*
 * cudart_stream.c - streams, events, host callbacks and the device-wide
 * synchronization calls. The timeline itself lives in the driver core
 * (cusim_timeline.c); this file validates handles and maps the API onto it.
 */
#include "cudart_internal.h"

#include <pthread.h>
#include <string.h>

/* ---- streams -------------------------------------------------------------- */

static cudaError_t stream_create(cudaStream_t *p, unsigned flags, int priority)
{
    if (p == NULL || (flags & ~(unsigned)cudaStreamNonBlocking))
        return cudaErrorInvalidValue;
    if (priority > 0)
        priority = 0; /* clamped to [greatest -5, least 0] like the real one */
    if (priority < -5)
        priority = -5;
    cusim_stream *s = cusim_stream_create(flags, priority);
    if (s == NULL)
        return cudaErrorMemoryAllocation;
    *p = (cudaStream_t)s;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    API_ENTER(cudaStreamCreate, v3020, (&(cudaStreamCreate_v3020_params){pStream}));
    API_RETURN(stream_create(pStream, cudaStreamDefault, 0));
}

CUDART_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    API_ENTER(cudaStreamCreateWithFlags, v5000,
              (&(cudaStreamCreateWithFlags_v5000_params){pStream, flags}));
    API_RETURN(stream_create(pStream, flags, 0));
}

CUDART_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags,
                                                       int priority)
{
    API_ENTER(cudaStreamCreateWithPriority, v5050,
              (&(cudaStreamCreateWithPriority_v5050_params){pStream, flags, priority}));
    API_RETURN(stream_create(pStream, flags, priority));
}

/* A created stream (not one of the default streams), or NULL. */
static cusim_stream *created(cudaStream_t s)
{
    uintptr_t v = (uintptr_t)s;
    if (v == 0 || v == (uintptr_t)cudaStreamLegacy || v == (uintptr_t)cudaStreamPerThread)
        return NULL;
    return cudart_stream(s, 0);
}

CUDART_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    API_ENTER(cudaStreamDestroy, v5050, (&(cudaStreamDestroy_v5050_params){stream}));
    cusim_stream *s = created(stream);
    if (s == NULL)
        API_RETURN(cudaErrorInvalidResourceHandle);
    cusim_stream_destroy(s);
    API_RETURN(cudaSuccess);
}


CUDART_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    API_ENTER(cudaStreamSynchronize, v3020, (&(cudaStreamSynchronize_v3020_params){stream}));
    STREAM_OR_FAIL(s, stream, 0);
    cusim_stream_sync(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t stream)
{
    API_ENTER(cudaStreamSynchronize_ptsz, v7000,
              (&(cudaStreamSynchronize_ptsz_v7000_params){stream}));
    STREAM_OR_FAIL(s, stream, 1);
    cusim_stream_sync(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    API_ENTER(cudaStreamQuery, v3020, (&(cudaStreamQuery_v3020_params){stream}));
    STREAM_OR_FAIL(s, stream, 0);
    /* cudaErrorNotReady is not an error: it does not become the last error. */
    cudaError_t e = cusim_stream_query(s) ? cudaSuccess : cudaErrorNotReady;
    cusim_api_end(&api_call_, (int)e);
    return e;
}

CUDART_EXPORT cudaError_t cudaStreamQuery_ptsz(cudaStream_t stream)
{
    API_ENTER(cudaStreamQuery_ptsz, v7000, (&(cudaStreamQuery_ptsz_v7000_params){stream}));
    STREAM_OR_FAIL(s, stream, 1);
    cudaError_t e = cusim_stream_query(s) ? cudaSuccess : cudaErrorNotReady;
    cusim_api_end(&api_call_, (int)e);
    return e;
}

static cudaError_t wait_event(cudaStream_t stream, cudaEvent_t event, int ptds)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    cusim_event *e = cusim_event_get(event);
    if (s == NULL || e == NULL)
        return cudaErrorInvalidResourceHandle;
    cusim_stream_wait_event(s, e);
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                              unsigned int flags)
{
    API_ENTER(cudaStreamWaitEvent, v3020,
              (&(cudaStreamWaitEvent_v3020_params){stream, event, flags}));
    API_RETURN(wait_event(stream, event, 0));
}

CUDART_EXPORT cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t stream, cudaEvent_t event,
                                                   unsigned int flags)
{
    API_ENTER(cudaStreamWaitEvent_ptsz, v7000,
              (&(cudaStreamWaitEvent_ptsz_v7000_params){stream, event, flags}));
    API_RETURN(wait_event(stream, event, 1));
}

CUDART_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    API_ENTER(cudaStreamGetFlags, v5050, (&(cudaStreamGetFlags_v5050_params){hStream, flags}));
    STREAM_OR_FAIL(s, hStream, 0);
    if (flags == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *flags = cusim_stream_flags(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamGetFlags_ptsz(cudaStream_t hStream, unsigned int *flags)
{
    API_ENTER(cudaStreamGetFlags_ptsz, v7000,
              (&(cudaStreamGetFlags_ptsz_v7000_params){hStream, flags}));
    STREAM_OR_FAIL(s, hStream, 1);
    if (flags == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *flags = cusim_stream_flags(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    API_ENTER(cudaStreamGetPriority, v5050,
              (&(cudaStreamGetPriority_v5050_params){hStream, priority}));
    STREAM_OR_FAIL(s, hStream, 0);
    if (priority == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *priority = cusim_stream_priority(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamGetPriority_ptsz(cudaStream_t hStream, int *priority)
{
    API_ENTER(cudaStreamGetPriority_ptsz, v7000,
              (&(cudaStreamGetPriority_ptsz_v7000_params){hStream, priority}));
    STREAM_OR_FAIL(s, hStream, 1);
    if (priority == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *priority = cusim_stream_priority(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    API_ENTER(cudaStreamGetId, v12000, (&(cudaStreamGetId_v12000_params){hStream, streamId}));
    STREAM_OR_FAIL(s, hStream, 0);
    if (streamId == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *streamId = cusim_stream_id(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamGetId_ptsz(cudaStream_t hStream, unsigned long long *streamId)
{
    API_ENTER(cudaStreamGetId_ptsz, v12000,
              (&(cudaStreamGetId_ptsz_v12000_params){hStream, streamId}));
    STREAM_OR_FAIL(s, hStream, 1);
    if (streamId == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *streamId = cusim_stream_id(s);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream,
                                                enum cudaStreamCaptureStatus *pCaptureStatus)
{
    API_ENTER(cudaStreamIsCapturing, v10000,
              (&(cudaStreamIsCapturing_v10000_params){stream, pCaptureStatus}));
    STREAM_OR_FAIL(s, stream, 0);
    if (pCaptureStatus == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *pCaptureStatus = cusim_stream_capture_graph(s) ? cudaStreamCaptureStatusActive
                                                    : cudaStreamCaptureStatusNone;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamIsCapturing_ptsz(cudaStream_t stream,
                                                     enum cudaStreamCaptureStatus *pCaptureStatus)
{
    API_ENTER(cudaStreamIsCapturing_ptsz, v10000,
              (&(cudaStreamIsCapturing_ptsz_v10000_params){stream, pCaptureStatus}));
    STREAM_OR_FAIL(s, stream, 1);
    if (pCaptureStatus == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *pCaptureStatus = cusim_stream_capture_graph(s) ? cudaStreamCaptureStatusActive
                                                    : cudaStreamCaptureStatusNone;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode)
{
    API_ENTER(cudaThreadExchangeStreamCaptureMode, v10010,
              (&(cudaThreadExchangeStreamCaptureMode_v10010_params){mode}));
    API_RETURN(mode != NULL ? cudaSuccess : cudaErrorInvalidValue);
}

/* Host functions run on the calling thread once the stream's earlier work is
 * done (the real driver runs them on a thread of its own). The call thus
 * blocks; ordering is kept. On a capturing stream the function becomes a
 * host node of the capture's graph, run at each replay. */
static cudaError_t launch_host_func(cusim_stream *s, cudaHostFn_t fn, void *userData)
{
    cudaGraphNode_t node;
    if (fn == NULL)
        return cudaErrorInvalidValue;
    cusim_graph *g = cusim_stream_capture_graph(s);
    if (g != NULL)
        return cudart_graph_host_node(g, fn, userData, &node);
    cusim_device_drain();
    fn(userData);
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData)
{
    API_ENTER(cudaLaunchHostFunc, v10000,
              (&(cudaLaunchHostFunc_v10000_params){stream, fn, userData}));
    STREAM_OR_FAIL(s, stream, 0);
    API_RETURN(launch_host_func(s, fn, userData));
}

CUDART_EXPORT cudaError_t cudaLaunchHostFunc_ptsz(cudaStream_t stream, cudaHostFn_t fn,
                                                  void *userData)
{
    API_ENTER(cudaLaunchHostFunc_ptsz, v10000,
              (&(cudaLaunchHostFunc_ptsz_v10000_params){stream, fn, userData}));
    STREAM_OR_FAIL(s, stream, 1);
    API_RETURN(launch_host_func(s, fn, userData));
}

CUDART_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream,
                                                cudaStreamCallback_t callback, void *userData,
                                                unsigned int flags)
{
    API_ENTER(cudaStreamAddCallback, v5000,
              (&(cudaStreamAddCallback_v5000_params){stream, callback, userData, flags}));
    STREAM_OR_FAIL(s, stream, 0);
    if (callback == NULL || flags != 0)
        API_RETURN(cudaErrorInvalidValue);
    if (cusim_stream_capture_graph(s) != NULL)   /* CUDA: not allowed in a capture */
        API_RETURN(cudaErrorStreamCaptureUnsupported);
    cusim_device_drain();
    callback(stream, cudaSuccess, userData);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamAddCallback_ptsz(cudaStream_t stream,
                                                     cudaStreamCallback_t callback,
                                                     void *userData, unsigned int flags)
{
    API_ENTER(cudaStreamAddCallback_ptsz, v7000,
              (&(cudaStreamAddCallback_ptsz_v7000_params){stream, callback, userData, flags}));
    STREAM_OR_FAIL(s, stream, 1);
    if (callback == NULL || flags != 0)
        API_RETURN(cudaErrorInvalidValue);
    if (cusim_stream_capture_graph(s) != NULL)   /* CUDA: not allowed in a capture */
        API_RETURN(cudaErrorStreamCaptureUnsupported);
    cusim_device_drain();
    callback(stream, cudaSuccess, userData);
    API_RETURN(cudaSuccess);
}

/* ---- events --------------------------------------------------------------- */

static cudaError_t event_create(cudaEvent_t *p, unsigned flags)
{
    if (p == NULL || (flags & ~0xfu))
        return cudaErrorInvalidValue;
    cusim_event *e = cusim_event_create(flags);
    if (e == NULL)
        return cudaErrorMemoryAllocation;
    *p = (cudaEvent_t)e;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    API_ENTER(cudaEventCreate, v3020, (&(cudaEventCreate_v3020_params){event}));
    API_RETURN(event_create(event, cudaEventDefault));
}

CUDART_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    API_ENTER(cudaEventCreateWithFlags, v3020,
              (&(cudaEventCreateWithFlags_v3020_params){event, flags}));
    API_RETURN(event_create(event, flags));
}

CUDART_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    API_ENTER(cudaEventDestroy, v3020, (&(cudaEventDestroy_v3020_params){event}));
    cusim_event *e = cusim_event_get(event);
    if (e == NULL)
        API_RETURN(cudaErrorInvalidResourceHandle);
    cusim_event_destroy(e);
    API_RETURN(cudaSuccess);
}

static cudaError_t event_record(cudaEvent_t event, cudaStream_t stream, int ptds)
{
    cusim_event *e = cusim_event_get(event);
    cusim_stream *s = cudart_stream(stream, ptds);
    if (e == NULL || s == NULL)
        return cudaErrorInvalidResourceHandle;
    cusim_event_record(e, s);
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    API_ENTER(cudaEventRecord, v3020, (&(cudaEventRecord_v3020_params){event, stream}));
    API_RETURN(event_record(event, stream, 0));
}

CUDART_EXPORT cudaError_t cudaEventRecord_ptsz(cudaEvent_t event, cudaStream_t stream)
{
    API_ENTER(cudaEventRecord_ptsz, v7000, (&(cudaEventRecord_ptsz_v7000_params){event, stream}));
    API_RETURN(event_record(event, stream, 1));
}

CUDART_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream,
                                                   unsigned int flags)
{
    API_ENTER(cudaEventRecordWithFlags, v11010,
              (&(cudaEventRecordWithFlags_v11010_params){event, stream, flags}));
    API_RETURN(event_record(event, stream, 0));
}

CUDART_EXPORT cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t event, cudaStream_t stream,
                                                        unsigned int flags)
{
    API_ENTER(cudaEventRecordWithFlags_ptsz, v11010,
              (&(cudaEventRecordWithFlags_ptsz_v11010_params){event, stream, flags}));
    API_RETURN(event_record(event, stream, 1));
}

CUDART_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    API_ENTER(cudaEventSynchronize, v3020, (&(cudaEventSynchronize_v3020_params){event}));
    cusim_event *e = cusim_event_get(event);
    if (e == NULL)
        API_RETURN(cudaErrorInvalidResourceHandle);
    cusim_event_sync(e);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event)
{
    API_ENTER(cudaEventQuery, v3020, (&(cudaEventQuery_v3020_params){event}));
    cusim_event *e = cusim_event_get(event);
    if (e == NULL)
        API_RETURN(cudaErrorInvalidResourceHandle);
    cudaError_t r = cusim_event_query(e) ? cudaSuccess : cudaErrorNotReady;
    cusim_api_end(&api_call_, (int)r); /* NotReady is not recorded as an error */
    return r;
}

CUDART_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    API_ENTER(cudaEventElapsedTime, v12080, (&(cudaEventElapsedTime_v12080_params){ms, start, end}));
    cusim_event *a = cusim_event_get(start), *b = cusim_event_get(end);
    if (ms == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (a == NULL || b == NULL)
        API_RETURN(cudaErrorInvalidResourceHandle);
    float v = cusim_event_elapsed_ms(a, b);
    if (v == -1.0f || v == -2.0f)
        API_RETURN(cudaErrorInvalidResourceHandle);
    if (v == -3.0f)
        API_RETURN(cudaErrorNotReady);
    *ms = v;
    API_RETURN(cudaSuccess);
}

/* ---- device-wide ---------------------------------------------------------- */

CUDART_EXPORT cudaError_t cudaDeviceSynchronize(void)
{
    API_ENTER(cudaDeviceSynchronize, v3020, NULL);
    cusim_device_sync();
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceReset(void)
{
    API_ENTER(cudaDeviceReset, v3020, NULL);
    cusim_device_reset();
    API_RETURN(cudaSuccess);
}

/* ---- stream queries used by libraries (capture is never active) ------------ */

CUDART_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device)
{
    API_ENTER(cudaStreamGetDevice, v12080, (&(cudaStreamGetDevice_v12080_params){hStream, device}));
    STREAM_OR_FAIL(s, hStream, 0);
    (void)s;
    if (device == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *device = 0;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaStreamGetDevice_ptsz(cudaStream_t hStream, int *device)
{
    API_ENTER(cudaStreamGetDevice_ptsz, v12080,
              (&(cudaStreamGetDevice_ptsz_v12080_params){hStream, device}));
    STREAM_OR_FAIL(s, hStream, 1);
    (void)s;
    if (device == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *device = 0;
    API_RETURN(cudaSuccess);
}

static cudaError_t capture_info(cudaStream_t stream, int ptds,
                                enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                const cudaGraphEdgeData **edges, size_t *ndeps)
{
    cusim_stream *s = cudart_stream(stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    if (status == NULL)
        return cudaErrorInvalidValue;
    cusim_graph *g = cusim_stream_capture_graph(s);
    *status = g ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id != NULL)
        *id = cusim_stream_capture_id(s);
    if (graph != NULL)
        *graph = (cudaGraph_t)g;
    if (deps != NULL)
        *deps = NULL;
    if (edges != NULL)
        *edges = NULL;
    if (ndeps != NULL)
        *ndeps = 0;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream,
                                                   enum cudaStreamCaptureStatus *captureStatus_out,
                                                   unsigned long long *id_out,
                                                   cudaGraph_t *graph_out,
                                                   const cudaGraphNode_t **dependencies_out,
                                                   const cudaGraphEdgeData **edgeData_out,
                                                   size_t *numDependencies_out)
{
    API_ENTER(cudaStreamGetCaptureInfo, v12030,
              (&(cudaStreamGetCaptureInfo_v12030_params){stream, captureStatus_out, id_out,
                                                         graph_out, dependencies_out,
                                                         edgeData_out, numDependencies_out}));
    API_RETURN(capture_info(stream, 0, captureStatus_out, id_out, graph_out, dependencies_out,
                            edgeData_out, numDependencies_out));
}

CUDART_EXPORT cudaError_t cudaStreamGetCaptureInfo_ptsz(
    cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
    unsigned long long *id_out, cudaGraph_t *graph_out, const cudaGraphNode_t **dependencies_out,
    const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out)
{
    API_ENTER(cudaStreamGetCaptureInfo_ptsz, v12030,
              (&(cudaStreamGetCaptureInfo_ptsz_v12030_params){stream, captureStatus_out, id_out,
                                                              graph_out, dependencies_out,
                                                              edgeData_out,
                                                              numDependencies_out}));
    API_RETURN(capture_info(stream, 1, captureStatus_out, id_out, graph_out, dependencies_out,
                            edgeData_out, numDependencies_out));
}

/* ---- stream attributes and managed-memory attachment (issue 31: programs
 * stopped at them): accepted, with no effect on the sim's timing; an
 * attribute reads back as the program set it, else zero. ---------------------- */

static struct {
    cudaStream_t stream;
    cudaStreamAttrID attr;
    cudaStreamAttrValue value;
} stream_attrs[64];
static pthread_mutex_t attrs_lock = PTHREAD_MUTEX_INITIALIZER;

static cudaError_t set_attr(cudaStream_t stream, cudaStreamAttrID attr, const cudaStreamAttrValue *value, int ptds)
{
    if (value == NULL)
        return cudaErrorInvalidValue;
    if (cudart_stream(stream, ptds) == NULL)
        return cudaErrorInvalidResourceHandle;
    pthread_mutex_lock(&attrs_lock);
    size_t i = 0, free_slot = sizeof stream_attrs / sizeof stream_attrs[0];
    for (; i < sizeof stream_attrs / sizeof stream_attrs[0]; i++) {
        if (stream_attrs[i].attr == attr && stream_attrs[i].stream == stream)
            break;
        if (stream_attrs[i].attr == 0 && free_slot == sizeof stream_attrs / sizeof stream_attrs[0])
            free_slot = i;
    }
    if (i == sizeof stream_attrs / sizeof stream_attrs[0])
        i = free_slot;
    if (i < sizeof stream_attrs / sizeof stream_attrs[0])
        stream_attrs[i].stream = stream, stream_attrs[i].attr = attr, stream_attrs[i].value = *value;
    pthread_mutex_unlock(&attrs_lock);
    return cudaSuccess;
}

static cudaError_t get_attr(cudaStream_t stream, cudaStreamAttrID attr, cudaStreamAttrValue *value, int ptds)
{
    if (value == NULL)
        return cudaErrorInvalidValue;
    if (cudart_stream(stream, ptds) == NULL)
        return cudaErrorInvalidResourceHandle;
    memset(value, 0, sizeof *value);
    pthread_mutex_lock(&attrs_lock);
    for (size_t i = 0; i < sizeof stream_attrs / sizeof stream_attrs[0]; i++)
        if (stream_attrs[i].attr == attr && stream_attrs[i].stream == stream)
            *value = stream_attrs[i].value;
    pthread_mutex_unlock(&attrs_lock);
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                                 const cudaStreamAttrValue *value)
{
    API_ENTER(cudaStreamSetAttribute, v11000,
              (&(cudaStreamSetAttribute_v11000_params){hStream, attr, value}));
    API_RETURN(set_attr(hStream, attr, value, 0));
}

CUDART_EXPORT cudaError_t cudaStreamSetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                                      const cudaStreamAttrValue *value)
{
    API_ENTER(cudaStreamSetAttribute_ptsz, v11000,
              (&(cudaStreamSetAttribute_ptsz_v11000_params){hStream, attr, value}));
    API_RETURN(set_attr(hStream, attr, value, 1));
}

CUDART_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                                 cudaStreamAttrValue *value_out)
{
    API_ENTER(cudaStreamGetAttribute, v11000,
              (&(cudaStreamGetAttribute_v11000_params){hStream, attr, value_out}));
    API_RETURN(get_attr(hStream, attr, value_out, 0));
}

CUDART_EXPORT cudaError_t cudaStreamGetAttribute_ptsz(cudaStream_t hStream, cudaStreamAttrID attr,
                                                      cudaStreamAttrValue *value_out)
{
    API_ENTER(cudaStreamGetAttribute_ptsz, v11000,
              (&(cudaStreamGetAttribute_ptsz_v11000_params){hStream, attr, value_out}));
    API_RETURN(get_attr(hStream, attr, value_out, 1));
}

/* Managed memory attached to a stream: no effect on the sim's memory. */
static cudaError_t attach(cudaStream_t stream, void *devPtr, int ptds)
{
    if (cudart_stream(stream, ptds) == NULL)
        return cudaErrorInvalidResourceHandle;
    return devPtr == NULL ? cudaErrorInvalidValue : cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length,
                                                   unsigned int flags)
{
    API_ENTER(cudaStreamAttachMemAsync, v6000,
              (&(cudaStreamAttachMemAsync_v6000_params){stream, devPtr, length, flags}));
    API_RETURN(attach(stream, devPtr, 0));
}

CUDART_EXPORT cudaError_t cudaStreamAttachMemAsync_ptsz(cudaStream_t stream, void *devPtr, size_t length,
                                                        unsigned int flags)
{
    API_ENTER(cudaStreamAttachMemAsync_ptsz, v7000,
              (&(cudaStreamAttachMemAsync_ptsz_v7000_params){stream, devPtr, length, flags}));
    API_RETURN(attach(stream, devPtr, 1));
}
