/*
 * hooks.c - where the simulated CUPTI meets the simulated driver. The driver
 * reports API calls and device activity through cusim_tool_ops; this file
 * turns each report into the CUPTI record a real CUPTI would produce (with
 * the CUDA 13 record structs) and into runtime-domain callbacks.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "cupti_sim.h"

#define CS_CONTEXT_ID 1 /* the one context of the simulated device */
#define CS_DEVICE_ID 0  /* the one device */

static _Thread_local cs_thread cs_tls; /* per-thread state, see cs_thread */
static atomic_llong cs_grid_ids;       /* CUpti_ActivityKernel10.gridId source */

cs_thread *cs_thread_get(void)
{
    return &cs_tls;
}

CUptiResult cs_error(CUptiResult r)
{
    cs_tls.last_error = r;
    return r;
}

CUptiResult CUPTIAPI cuptiGetLastError(void)
{
    CUptiResult r = cs_tls.last_error;
    cs_tls.last_error = CUPTI_SUCCESS;
    return r;
}

/* ---- API calls ------------------------------------------------------------ */

/* Writes one external correlation record for the call in `arg`. */
static void cs_write_ext(CUpti_ExternalCorrelationKind kind, uint64_t id, void *arg)
{
    const cusim_api_call *c = arg;
    CUpti_ActivityExternalCorrelation r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    r.externalKind = kind;
    r.externalId = id;
    r.correlationId = c->correlation_id;
    cs_buf_write(CS_CH_HOST, &r, sizeof r);
}

/* The activity kind of a call's API record. */
static CUpti_ActivityKind api_kind(const cusim_api_call *c)
{
    return c->driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
}

static void cs_on_api_enter(const cusim_api_call *c)
{
    cs_thread *t = &cs_tls;
    cs_frame *f = NULL;
    static _Thread_local cs_frame overflow; /* calls nested deeper than we track */
    if (t->nframes < CS_FRAME_DEPTH)
        f = &t->frames[t->nframes];
    else
        f = &overflow;
    t->nframes++;
    f->call = c;
    f->correlation_data = 0;
    f->ret = 0;
    /* The real CUPTI puts one external correlation record per kind with a
     * pushed id in front of the API record it creates, and only when it
     * creates one: a driver call (cuBLAS 13's cuLaunchKernelEx) gets none
     * unless the DRIVER kind is on, and the kernel it launches, which
     * carries its correlation id, then maps to no external id (seen on an
     * H100 with CUPTI 13.0, scripts/cupti_probe.cu). */
    if (cs_api_enabled(c->driver, c->cbid) && cs_kind_enabled(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))
        cs_ext_for_each(cs_write_ext, (void *)c);
    cs_cb_api(c, CUPTI_API_ENTER, &f->correlation_data, &f->ret);
}

static void cs_on_api_exit(const cusim_api_call *c)
{
    cs_thread *t = &cs_tls;
    static _Thread_local cs_frame orphan; /* exit without a matching enter */
    cs_frame *f = &orphan;
    if (t->nframes > 0 && t->nframes <= CS_FRAME_DEPTH && t->frames[t->nframes - 1].call == c)
        f = &t->frames[t->nframes - 1];
    f->ret = c->status;
    cs_cb_api(c, CUPTI_API_EXIT, &f->correlation_data, &f->ret);
    if (t->nframes > 0)
        t->nframes--;

    if (!cs_api_enabled(c->driver, c->cbid))
        return;
    CUpti_ActivityAPI r;
    memset(&r, 0, sizeof r);
    r.kind = api_kind(c);
    r.cbid = c->cbid;
    r.start = c->start_gpu_ns;
    r.end = c->end_gpu_ns;
    r.processId = (uint32_t)getpid();
    /* Default thread ids on Linux are pthread_self() cut to 32 bits, not
     * the kernel's tid; CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM gives gettid. */
    r.threadId = cs_thread_id_is_system() ? c->thread_id : (uint32_t)pthread_self();
    r.correlationId = c->correlation_id;
    r.returnValue = (uint32_t)c->status;
    cs_buf_write(CS_CH_HOST, &r, sizeof r);
}

/* ---- device activity -------------------------------------------------------- */

static void cs_on_kernel(const cusim_kernel_activity *a)
{
    CUpti_ActivityKind kind;
    if (cs_kind_enabled(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL))
        kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    else if (cs_kind_enabled(CUPTI_ACTIVITY_KIND_KERNEL))
        kind = CUPTI_ACTIVITY_KIND_KERNEL;
    else
        return;
    const cusim_kernel_desc *d = a->desc;
    CUpti_ActivityKernel10 r;
    memset(&r, 0, sizeof r);
    r.kind = kind;
    r.cacheConfig.config.requested = 0; /* CU_FUNC_CACHE_PREFER_NONE */
    r.cacheConfig.config.executed = 0;
    r.sharedMemoryConfig = 1; /* CU_SHARED_MEM_CONFIG_FOUR_BYTE_BANK_SIZE */
    r.partitionedGlobalCacheRequested = CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_UNKNOWN;
    r.partitionedGlobalCacheExecuted = CUPTI_ACTIVITY_PARTITIONED_GLOBAL_CACHE_CONFIG_UNKNOWN;
    r.start = a->start;
    r.end = a->end;
    r.completed = a->end; /* no child kernels in the sim */
    r.deviceId = CS_DEVICE_ID;
    r.contextId = CS_CONTEXT_ID;
    r.streamId = a->stream_id;
    r.correlationId = a->correlation_id;
    r.gridId = atomic_fetch_add(&cs_grid_ids, 1) + 1;
    if (cs_latency_timestamps()) { /* else CUPTI_TIMESTAMP_UNKNOWN, as real */
        r.queued = a->queued;
        r.submitted = a->submitted;
    }
    r.launchType = CUPTI_ACTIVITY_LAUNCH_TYPE_REGULAR;
    r.graphId = a->graph_id;          /* a graph's replay: the exec's id and the node's */
    r.graphNodeId = a->graph_node_id;
    r.shmemLimitConfig = CUPTI_FUNC_SHMEM_LIMIT_DEFAULT;
    r.channelID = a->stream_id % 32; /* hardware channels are a small pool */
    r.channelType = CUPTI_CHANNEL_TYPE_COMPUTE;
    if (d != NULL) {
        r.registersPerThread = d->registers;
        r.gridX = (int32_t)d->grid[0];
        r.gridY = (int32_t)d->grid[1];
        r.gridZ = (int32_t)d->grid[2];
        r.blockX = (int32_t)d->block[0];
        r.blockY = (int32_t)d->block[1];
        r.blockZ = (int32_t)d->block[2];
        r.staticSharedMemory = (int32_t)d->static_smem;
        r.dynamicSharedMemory = (int32_t)d->dynamic_smem;
        r.sharedMemoryExecuted = d->static_smem + d->dynamic_smem;
        r.name = d->name; /* the driver keeps names for the process's life */
    }
    cs_dev_push(&r, sizeof r, a->end);
}

static uint8_t cs_copy_kind(int k)
{
    switch (k) {
    case CUSIM_COPY_HTOH: return CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
    case CUSIM_COPY_HTOD: return CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
    case CUSIM_COPY_DTOH: return CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    case CUSIM_COPY_DTOD: return CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
    default: return CUPTI_ACTIVITY_MEMCPY_KIND_UNKNOWN;
    }
}

static uint8_t cs_memory_kind(int k)
{
    switch (k) {
    case CUSIM_MEM_UNKNOWN: return CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
    case CUSIM_MEM_DEVICE: return CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
    case CUSIM_MEM_PINNED: return CUPTI_ACTIVITY_MEMORY_KIND_PINNED;
    case CUSIM_MEM_MANAGED: return CUPTI_ACTIVITY_MEMORY_KIND_MANAGED;
    default: return CUPTI_ACTIVITY_MEMORY_KIND_UNKNOWN;
    }
}

static void cs_on_memset(const cusim_copy_activity *a)
{
    if (!cs_kind_enabled(CUPTI_ACTIVITY_KIND_MEMSET))
        return;
    CUpti_ActivityMemset4 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    r.value = (uint32_t)a->value;
    r.bytes = a->bytes;
    r.start = a->start;
    r.end = a->end;
    r.deviceId = CS_DEVICE_ID;
    r.contextId = CS_CONTEXT_ID;
    r.streamId = a->stream_id;
    r.correlationId = a->correlation_id;
    r.memoryKind = cs_memory_kind(a->dst_mem);
    r.flags = a->is_async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : CUPTI_ACTIVITY_FLAG_NONE;
    r.graphId = a->graph_id;
    r.graphNodeId = a->graph_node_id;
    r.channelID = a->stream_id % 32;
    r.channelType = CUPTI_CHANNEL_TYPE_COMPUTE; /* memsets run as kernels */
    cs_dev_push(&r, sizeof r, a->end);
}

static void cs_on_copy(const cusim_copy_activity *a)
{
    if (a->is_memset) {
        cs_on_memset(a);
        return;
    }
    if (!cs_kind_enabled(CUPTI_ACTIVITY_KIND_MEMCPY))
        return;
    CUpti_ActivityMemcpy6 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    r.copyKind = cs_copy_kind(a->copy_kind);
    r.srcKind = cs_memory_kind(a->src_mem);
    r.dstKind = cs_memory_kind(a->dst_mem);
    r.bytes = a->bytes;
    r.start = a->start;
    r.end = a->end;
    r.deviceId = CS_DEVICE_ID;
    r.contextId = CS_CONTEXT_ID;
    r.streamId = a->stream_id;
    /* The call that copied; the real CUPTI leaves runtimeCorrelationId 0 (an
     * H200: the correlation id is the runtime call's already). */
    r.correlationId = a->correlation_id;
    r.flags = a->is_async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : CUPTI_ACTIVITY_FLAG_NONE;
    r.channelID = a->stream_id % 32;
    r.channelType = r.copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOD ? CUPTI_CHANNEL_TYPE_COMPUTE
                                                                   : CUPTI_CHANNEL_TYPE_ASYNC_MEMCPY;
    r.copyCount = 1;
    r.graphId = a->graph_id;
    r.graphNodeId = a->graph_node_id;
    cs_dev_push(&r, sizeof r, a->end);
}

static void cs_on_sync(const cusim_sync_activity *a)
{
    if (!cs_kind_enabled(CUPTI_ACTIVITY_KIND_SYNCHRONIZATION))
        return;
    CUpti_ActivitySynchronization2 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    r.type = (CUpti_ActivitySynchronizationType)a->type;
    r.start = a->start;
    r.end = a->end;
    r.correlationId = a->correlation_id;
    r.contextId = CS_CONTEXT_ID;
    r.streamId = a->stream_id;
    r.cudaEventId = CUPTI_SYNCHRONIZATION_INVALID_VALUE; /* the driver does not say */
    r.cudaEventSyncId = CUPTI_SYNCHRONIZATION_INVALID_VALUE;
    cs_buf_write(CS_CH_HOST, &r, sizeof r);
}

/* Memory the device can reach allocated or released (MEMORY2), a pool
 * created, destroyed or trimmed (MEMORY_POOL): host-side records, written
 * when the call makes them. */
static void cs_on_memory(const cusim_memory_activity *a)
{
    if (!cs_kind_enabled(CUPTI_ACTIVITY_KIND_MEMORY2))
        return;
    CUpti_ActivityMemory4 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMORY2;
    r.memoryOperationType = a->release ? CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE
                                       : CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    r.memoryKind = cs_memory_kind(a->mem_kind);
    r.correlationId = a->correlation_id;
    r.address = a->address;
    r.bytes = a->bytes;
    r.timestamp = a->timestamp;
    r.processId = (uint32_t)getpid();
    r.deviceId = CS_DEVICE_ID;
    r.contextId = CS_CONTEXT_ID;
    r.streamId = a->stream_id;
    r.isAsync = (uint32_t)a->is_async;
    if (a->pool != NULL) {
        r.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
        r.memoryPoolConfig.address = (uint64_t)(uintptr_t)a->pool;
        r.memoryPoolConfig.releaseThreshold = a->pool_threshold;
        r.memoryPoolConfig.pool.size = a->pool_reserved;
        r.memoryPoolConfig.utilizedSize = a->pool_used;
    } else {
        r.memoryPoolConfig.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_INVALID;
    }
    cs_buf_write(CS_CH_HOST, &r, sizeof r);
}

static void cs_on_pool(const cusim_pool_activity *a)
{
    if (!cs_kind_enabled(CUPTI_ACTIVITY_KIND_MEMORY_POOL))
        return;
    static const CUpti_ActivityMemoryPoolOperationType op[] = {
        CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_CREATED, CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_DESTROYED,
        CUPTI_ACTIVITY_MEMORY_POOL_OPERATION_TYPE_TRIMMED,
    };
    CUpti_ActivityMemoryPool3 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_MEMORY_POOL;
    r.memoryPoolOperationType = op[a->op];
    r.memoryPoolType = CUPTI_ACTIVITY_MEMORY_POOL_TYPE_LOCAL;
    r.correlationId = a->correlation_id;
    r.processId = (uint32_t)getpid();
    r.deviceId = CS_DEVICE_ID;
    r.minBytesToKeep = a->min_keep;
    r.address = (uint64_t)(uintptr_t)a->pool;
    r.size = a->reserved;
    r.releaseThreshold = a->threshold;
    r.timestamp = a->timestamp;
    r.utilizedSize = a->used;
    cs_buf_write(CS_CH_HOST, &r, sizeof r);
}

/* ---- attaching ------------------------------------------------------------- */

static const cusim_tool_ops cs_ops = {
    .api_enter = cs_on_api_enter,
    .api_exit = cs_on_api_exit,
    .kernel = cs_on_kernel,
    .copy = cs_on_copy,
    .sync = cs_on_sync,
    .graph = cs_cb_graph,
    .memory = cs_on_memory,
    .pool = cs_on_pool,
};

static pthread_once_t cs_attach_once = PTHREAD_ONCE_INIT;

static void cs_attach_now(void)
{
    cusim_tool_set(&cs_ops);
}

void cs_attach(void)
{
    pthread_once(&cs_attach_once, cs_attach_now);
}

/* Attach as soon as the library is loaded, so that even calls made before
 * the client's first CUPTI call get correlation-consistent callbacks. */
__attribute__((constructor)) static void cs_constructor(void)
{
    cs_attach();
}

/* ---- ids ----------------------------------------------------------------------- */

CUptiResult CUPTIAPI cuptiGetContextId(CUcontext context, uint32_t *contextId)
{
    (void)context;
    if (contextId == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *contextId = CS_CONTEXT_ID;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetDeviceId(CUcontext context, uint32_t *deviceId)
{
    (void)context;
    if (deviceId == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *deviceId = CS_DEVICE_ID;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamIdEx(CUcontext context, CUstream stream, uint8_t perThreadStream,
                                        uint32_t *streamId)
{
    (void)context;
    if (streamId == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    cusim_stream *s = cusim_stream_get(stream, perThreadStream);
    if (s == NULL)
        return cs_error(CUPTI_ERROR_INVALID_STREAM);
    *streamId = cusim_stream_id(s);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetStreamId(CUcontext context, CUstream stream, uint32_t *streamId)
{
    return cuptiGetStreamIdEx(context, stream, 0, streamId);
}
