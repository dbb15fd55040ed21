/*
 * activity.c - the activity API of the simulated CUPTI: which kinds are
 * collected, attributes, external correlation ids, the clock, and the sizes
 * of the records the sim writes.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "cupti_sim.h"

/* Device buffer defaults of the real CUPTI (see CUpti_ActivityAttribute). */
#define CS_DEFAULT_DEVICE_BUFFER_SIZE ((size_t)3200000)
#define CS_DEFAULT_POOL_LIMIT ((size_t)250)
#define CS_DEFAULT_PRE_ALLOCATE ((size_t)3)
#define CS_DEFAULT_CDP_BUFFER_SIZE ((size_t)8388608)
#define CS_DEFAULT_GRAPH_BUFFER_SIZE ((size_t)16777216)
/* Device memory one kernel/memcpy/memset takes in the device buffer: the
 * real default of 3,200,000 bytes "can accommodate up to 100,000". */
#define CS_DEVICE_BYTES_PER_RECORD 32

static atomic_int cs_kinds[CUPTI_ACTIVITY_KIND_COUNT]; /* 1: kind enabled */
static atomic_int cs_latency;     /* queued/submitted timestamps wanted */
static atomic_int cs_tid_system;  /* CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM */

/* Attribute values as the client last set them (GetAttribute reports these;
 * the device-buffer ones take effect only if set before the driver started). */
static struct {
    pthread_mutex_t lock;
    size_t device_buffer_size;     /* CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE */
    size_t cdp_buffer_size;        /* ..._DEVICE_BUFFER_SIZE_CDP */
    size_t pool_limit;             /* ..._DEVICE_BUFFER_POOL_LIMIT */
    size_t pre_allocate;           /* ..._DEVICE_BUFFER_PRE_ALLOCATE_VALUE */
    size_t graph_buffer_size;      /* ..._DEVICE_BUFFER_SIZE_DEVICE_GRAPHS */
    uint8_t zeroed_buffer;         /* ..._ZEROED_OUT_ACTIVITY_BUFFER */
    uint8_t host_pinned;           /* ..._MEM_ALLOCATION_TYPE_HOST_PINNED */
    uint8_t per_thread_buffer;     /* ..._PER_THREAD_ACTIVITY_BUFFER */
} cs_attr = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .device_buffer_size = CS_DEFAULT_DEVICE_BUFFER_SIZE,
    .cdp_buffer_size = CS_DEFAULT_CDP_BUFFER_SIZE,
    .pool_limit = CS_DEFAULT_POOL_LIMIT,
    .pre_allocate = CS_DEFAULT_PRE_ALLOCATE,
    .graph_buffer_size = CS_DEFAULT_GRAPH_BUFFER_SIZE,
    .per_thread_buffer = 1,
};

/* ---- kinds ---------------------------------------------------------------- */

/* Per-callback-id switches of the RUNTIME and DRIVER records
 * (cuptiActivityEnableRuntimeApi / EnableDriverApi): 0 follows the kind,
 * 1 on, -1 off. Switching the kind resets them (the documented "the kind
 * overrides the settings done by this API if it is called after"). */
static _Atomic signed char cs_rt_cbid[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static _Atomic signed char cs_drv_cbid[CUPTI_DRIVER_TRACE_CBID_SIZE];

int cs_api_enabled(int driver, uint32_t cbid)
{
    CUpti_ActivityKind kind = driver ? CUPTI_ACTIVITY_KIND_DRIVER : CUPTI_ACTIVITY_KIND_RUNTIME;
    signed char s = 0;
    if (driver && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE)
        s = atomic_load(&cs_drv_cbid[cbid]);
    else if (!driver && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE)
        s = atomic_load(&cs_rt_cbid[cbid]);
    return s > 0 || (s == 0 && cs_kind_enabled(kind));
}

static CUptiResult cs_set_api(int driver, CUpti_CallbackId cbid, uint8_t enable)
{
    cs_attach();
    if (driver ? cbid >= CUPTI_DRIVER_TRACE_CBID_SIZE : cbid >= CUPTI_RUNTIME_TRACE_CBID_SIZE)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    atomic_store(driver ? &cs_drv_cbid[cbid] : &cs_rt_cbid[cbid], (signed char)(enable ? 1 : -1));
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
    return cs_set_api(1, cbid, enable);
}

CUptiResult CUPTIAPI cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
    return cs_set_api(0, cbid, enable);
}

int cs_kind_enabled(CUpti_ActivityKind kind)
{
    return (unsigned)kind < CUPTI_ACTIVITY_KIND_COUNT && atomic_load(&cs_kinds[kind]);
}

size_t cs_record_size(CUpti_ActivityKind kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
        return sizeof(CUpti_ActivityExternalCorrelation);
    case CUPTI_ACTIVITY_KIND_MEMORY2:
        return sizeof(CUpti_ActivityMemory4);
    case CUPTI_ACTIVITY_KIND_MEMORY_POOL:
        return sizeof(CUpti_ActivityMemoryPool3);
    case CUPTI_ACTIVITY_KIND_DEVICE:
        return sizeof(CUpti_ActivityDevice5);
    default:
        return 0;
    }
}

/* The simulated H100 as a DEVICE record: one, when the kind is switched on
 * (the sim's choice; the real CUPTI's moment is in bench/H200.md). */
static void cs_device_record(void)
{
    CUpti_ActivityDevice5 r;
    memset(&r, 0, sizeof r);
    r.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    r.globalMemoryBandwidth = 3352000000ull;   /* KB/s: H100 SXM's 3.35 TB/s */
    r.globalMemorySize = CUSIM_DEVICE_MEM_BYTES;
    r.constantMemorySize = 65536;
    r.l2CacheSize = 50u << 20;
    r.numThreadsPerWarp = 32;
    r.coreClockRate = 1980000;
    r.numMemcpyEngines = 3;
    r.numMultiprocessors = CUSIM_SM_COUNT;
    r.maxWarpsPerMultiprocessor = 64;
    r.maxBlocksPerMultiprocessor = 32;
    r.maxSharedMemoryPerMultiprocessor = 233472;
    r.maxRegistersPerMultiprocessor = 65536;
    r.maxRegistersPerBlock = 65536;
    r.maxSharedMemoryPerBlock = 49152;
    r.maxThreadsPerBlock = 1024;
    r.maxBlockDimX = 1024, r.maxBlockDimY = 1024, r.maxBlockDimZ = 64;
    r.maxGridDimX = 2147483647u, r.maxGridDimY = 65535, r.maxGridDimZ = 65535;
    r.computeCapabilityMajor = CUSIM_CC_MAJOR;
    r.computeCapabilityMinor = CUSIM_CC_MINOR;
    r.id = 0;   /* the one device (hooks.c's CS_DEVICE_ID) */
    r.eccEnabled = 1;
    r.name = CUSIM_DEVICE_NAME;
    r.isCudaVisible = 1;
    cs_buf_write(CS_CH_HOST, &r, sizeof r);
}

static CUptiResult cs_set_kind(CUpti_ActivityKind kind, int on)
{
    cs_attach();
    if (kind <= CUPTI_ACTIVITY_KIND_INVALID || kind >= CUPTI_ACTIVITY_KIND_COUNT)
        return cs_error(CUPTI_ERROR_INVALID_KIND);
    /* Every valid kind can be switched on; the sim produces records only for
     * those cs_record_size knows (the others stay silent, as on a device
     * where that activity never happens). */
    int was = atomic_exchange(&cs_kinds[kind], on);
    if (kind == CUPTI_ACTIVITY_KIND_DEVICE && on && !was)
        cs_device_record();
    if (kind == CUPTI_ACTIVITY_KIND_DRIVER)
        for (int i = 0; i < CUPTI_DRIVER_TRACE_CBID_SIZE; i++)
            atomic_store(&cs_drv_cbid[i], 0);
    if (kind == CUPTI_ACTIVITY_KIND_RUNTIME)
        for (int i = 0; i < CUPTI_RUNTIME_TRACE_CBID_SIZE; i++)
            atomic_store(&cs_rt_cbid[i], 0);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
    return cs_set_kind(kind, 1);
}

CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
    return cs_set_kind(kind, 0);
}

/* The sim has one context, so per-context switches are global ones. */
CUptiResult CUPTIAPI cuptiActivityEnableContext(CUcontext context, CUpti_ActivityKind kind)
{
    (void)context;
    return cs_set_kind(kind, 1);
}

CUptiResult CUPTIAPI cuptiActivityDisableContext(CUcontext context, CUpti_ActivityKind kind)
{
    (void)context;
    return cs_set_kind(kind, 0);
}

/* Detaches the client: no kind is collected and no callback fires any more.
 * As documented, flushing what was collected is the client's job first. */
CUptiResult CUPTIAPI cuptiFinalize(void)
{
    cs_attach();
    for (int k = 0; k < CUPTI_ACTIVITY_KIND_COUNT; k++)
        atomic_store(&cs_kinds[k], 0);
    for (int i = 0; i < CUPTI_DRIVER_TRACE_CBID_SIZE; i++)
        atomic_store(&cs_drv_cbid[i], 0);
    for (int i = 0; i < CUPTI_RUNTIME_TRACE_CBID_SIZE; i++)
        atomic_store(&cs_rt_cbid[i], 0);
    cs_cb_detach();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityEnableLatencyTimestamps(uint8_t enable)
{
    cs_attach();
    /* Must come before CUDA starts, as documented; later it changes nothing. */
    if (!cusim_initialized())
        atomic_store(&cs_latency, enable != 0);
    return CUPTI_SUCCESS;
}

int cs_latency_timestamps(void)
{
    return atomic_load(&cs_latency);
}

CUptiResult CUPTIAPI cuptiActivityEnableLaunchAttributes(uint8_t enable)
{
    (void)enable; /* launch attributes are not simulated */
    cs_attach();
    return CUPTI_SUCCESS;
}

/* ---- thread ids ------------------------------------------------------------ */

CUptiResult CUPTIAPI cuptiSetThreadIdType(CUpti_ActivityThreadIdType type)
{
    cs_attach();
    if (type != CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT &&
        type != CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    atomic_store(&cs_tid_system, type == CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiGetThreadIdType(CUpti_ActivityThreadIdType *type)
{
    if (type == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *type = atomic_load(&cs_tid_system) ? CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM
                                        : CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT;
    return CUPTI_SUCCESS;
}

int cs_thread_id_is_system(void)
{
    return atomic_load(&cs_tid_system);
}

/* ---- external correlation ---------------------------------------------------- */

static int cs_ext_kind_valid(CUpti_ExternalCorrelationKind kind)
{
    return kind > CUPTI_EXTERNAL_CORRELATION_KIND_INVALID &&
           kind < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE;
}

CUptiResult CUPTIAPI cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                            uint64_t id)
{
    cs_attach();
    if (!cs_ext_kind_valid(kind))
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    cs_thread *t = cs_thread_get();
    if (t->ext_depth[kind] >= CS_EXT_DEPTH)
        return cs_error(CUPTI_ERROR_MAX_LIMIT_REACHED); /* sim limit */
    t->ext_ids[kind][t->ext_depth[kind]++] = id;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
                                                           uint64_t *lastId)
{
    cs_attach();
    if (!cs_ext_kind_valid(kind))
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    cs_thread *t = cs_thread_get();
    if (t->ext_depth[kind] == 0)
        return cs_error(CUPTI_ERROR_QUEUE_EMPTY);
    uint64_t id = t->ext_ids[kind][--t->ext_depth[kind]];
    if (lastId)
        *lastId = id;
    return CUPTI_SUCCESS;
}

void cs_ext_for_each(void (*fn)(CUpti_ExternalCorrelationKind kind, uint64_t id, void *arg),
                     void *arg)
{
    cs_thread *t = cs_thread_get();
    for (int k = CUPTI_EXTERNAL_CORRELATION_KIND_INVALID + 1;
         k < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; k++) {
        if (t->ext_depth[k] > 0)
            fn((CUpti_ExternalCorrelationKind)k, t->ext_ids[k][t->ext_depth[k] - 1], arg);
    }
}

/* ---- the clock -------------------------------------------------------------- */

CUptiResult CUPTIAPI cuptiGetTimestamp(uint64_t *timestamp)
{
    cs_attach();
    if (timestamp == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    *timestamp = cusim_gpu_ns();
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp)
{
    cs_attach();
    if (funcTimestamp == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    /* The driver takes it only before it has started: records already
     * stamped on the old clock could not be converted. */
    if (cusim_tool_set_timestamp_fn(funcTimestamp) != 0)
        return cs_error(CUPTI_ERROR_INVALID_OPERATION);
    return CUPTI_SUCCESS;
}

/* ---- attributes --------------------------------------------------------------- */

/* Where attribute `attr` lives and how big it is, or NULL if unknown. */
static void *cs_attr_slot(CUpti_ActivityAttribute attr, size_t *size)
{
    switch (attr) {
    case CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE:
        *size = sizeof(size_t);
        return &cs_attr.device_buffer_size;
    case CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_CDP:
        *size = sizeof(size_t);
        return &cs_attr.cdp_buffer_size;
    case CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT:
        *size = sizeof(size_t);
        return &cs_attr.pool_limit;
    case CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_PRE_ALLOCATE_VALUE:
        *size = sizeof(size_t);
        return &cs_attr.pre_allocate;
    case CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE_DEVICE_GRAPHS:
        *size = sizeof(size_t);
        return &cs_attr.graph_buffer_size;
    case CUPTI_ACTIVITY_ATTR_ZEROED_OUT_ACTIVITY_BUFFER:
        *size = sizeof(uint8_t);
        return &cs_attr.zeroed_buffer;
    case CUPTI_ACTIVITY_ATTR_MEM_ALLOCATION_TYPE_HOST_PINNED:
        *size = sizeof(uint8_t);
        return &cs_attr.host_pinned;
    case CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER:
        *size = sizeof(uint8_t);
        return &cs_attr.per_thread_buffer;
    default:
        return NULL; /* includes the semaphore-pool ones, gone since 12.3 */
    }
}

CUptiResult CUPTIAPI cuptiActivityGetAttribute(CUpti_ActivityAttribute attr, size_t *valueSize,
                                               void *value)
{
    cs_attach();
    size_t size = 0;
    void *slot = cs_attr_slot(attr, &size);
    if (valueSize == NULL || value == NULL || slot == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    if (*valueSize < size)
        return cs_error(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT);
    pthread_mutex_lock(&cs_attr.lock);
    memcpy(value, slot, size);
    pthread_mutex_unlock(&cs_attr.lock);
    *valueSize = size;
    return CUPTI_SUCCESS;
}

CUptiResult CUPTIAPI cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *valueSize,
                                               void *value)
{
    cs_attach();
    size_t size = 0;
    void *slot = cs_attr_slot(attr, &size);
    if (valueSize == NULL || value == NULL || slot == NULL)
        return cs_error(CUPTI_ERROR_INVALID_PARAMETER);
    if (*valueSize < size)
        return cs_error(CUPTI_ERROR_PARAMETER_SIZE_NOT_SUFFICIENT);
    pthread_mutex_lock(&cs_attr.lock);
    memcpy(slot, value, size);
    /* Device buffers are sized when the context is created: a change after
     * the driver started is remembered but does not apply. */
    if ((attr == CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE ||
         attr == CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT) &&
        !cusim_initialized()) {
        size_t per_buffer = cs_attr.device_buffer_size / CS_DEVICE_BYTES_PER_RECORD;
        cs_dev_set_capacity(per_buffer * cs_attr.pool_limit);
    }
    pthread_mutex_unlock(&cs_attr.lock);
    *valueSize = size;
    return CUPTI_SUCCESS;
}
