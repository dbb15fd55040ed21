/*
 * cuda_driver.c - libcuda.so.1 of the simulated device: a minimal driver
 * API, reached the way programs reach the real one: linked or dlopen'ed
 * (exports under the real names), through cuGetProcAddress, or from a
 * runtime program through cudaGetDriverEntryPoint(ByVersion), which the
 * sim's libcudart answers with this library's cuGetProcAddress, as the real
 * libcudart does. Each call is traced in CUPTI's driver domain, as the real
 * driver's are.
 *
 *   cuGetProcAddress        by name, with the per-thread-default-stream flag
 *   modules (cubin, fatbin, PTX) and the linker: cuda_driver_module.c
 *   cuLaunchKernel, cuLaunchKernelEx (and _ptsz): a kernel of the user class
 *   cuCtxSynchronize, cuStreamSynchronize, cuStreamQuery, cuCtxGetCurrent,
 *   cuInit, cuDriverGetVersion, devices, the one context, streams, events
 *   memory, copies and memsets: cuda_driver_mem.c; virtual memory and the
 *   stream-ordered allocator: cuda_driver_vmm.c; error names: cuda_driver_errors.c
 *
 * Every other export of the real driver is a generated stub (stubs.c) that
 * says "not simulated"; cuGetProcAddress hands out any export by name.
 */
#include "driver_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* the per-thread-default-stream forms: cuda.h declares them only for code
 * built with them */
DRV_EXPORT CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                                        unsigned by, unsigned bz, unsigned smem, CUstream hs, void **params,
                                        void **extra);
DRV_EXPORT CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *c, CUfunction f, void **params, void **extra);

/* A launch of f on a stream; ptds: the per-thread default stream for 0. */
static CUresult launch(drv_func *f, const unsigned g[3], const unsigned b[3], unsigned smem, CUstream hs, int ptds)
{
    if (f == NULL || f->magic != FUNC_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    uint64_t threads = (uint64_t)b[0] * b[1] * b[2];
    if (!g[0] || !g[1] || !g[2] || threads == 0 || threads > 1024)
        return CUDA_ERROR_INVALID_VALUE;
    cusim_stream *s = cusim_stream_get(hs, ptds);
    if (s == NULL)
        return CUDA_ERROR_INVALID_HANDLE;
    cusim_spin_ns(cusim_launch_cpu_ns());
    cusim_kernel_desc k = {
        .name = f->name, .grid = {g[0], g[1], g[2]}, .block = {b[0], b[1], b[2]},
        .dynamic_smem = smem, .registers = (uint16_t)f->registers, .cls = CUSIM_KERNEL_USER,
    };
    cusim_launch(s, &k, cusim_current_correlation());
    return CUDA_SUCCESS;
}

#define LAUNCH_KERNEL(fn, cbid, ptds)                                                        \
    DRV_EXPORT CUresult fn(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, \
                       unsigned by, unsigned bz, unsigned smem, CUstream hs, void **params,  \
                       void **extra)                                                         \
    {                                                                                        \
        drv_func *df = (drv_func *)f;                                                        \
        DRV_CALL(cbid, #cbid, df && df->magic == FUNC_MAGIC ? df->name : NULL);              \
        (void)params, (void)extra;                                                           \
        DRV_RETURN(launch(df, (unsigned[3]){gx, gy, gz}, (unsigned[3]){bx, by, bz}, smem, hs, ptds)); \
    }
LAUNCH_KERNEL(cuLaunchKernel, cuLaunchKernel, 0)
LAUNCH_KERNEL(cuLaunchKernel_ptsz, cuLaunchKernel_ptsz, 1)

/* Cooperative launches: cuLaunchKernel's arguments without `extra`; the sim
 * runs every grid at once, so the grid-wide barrier needs nothing more. */
#define LAUNCH_COOPERATIVE(fn, cbid, ptds)                                                   \
    DRV_EXPORT CUresult fn(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, \
                       unsigned by, unsigned bz, unsigned smem, CUstream hs, void **params)  \
    {                                                                                        \
        drv_func *df = (drv_func *)f;                                                        \
        DRV_CALL(cbid, #cbid, df && df->magic == FUNC_MAGIC ? df->name : NULL);              \
        (void)params;                                                                        \
        DRV_RETURN(launch(df, (unsigned[3]){gx, gy, gz}, (unsigned[3]){bx, by, bz}, smem, hs, ptds)); \
    }
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel, cuLaunchCooperativeKernel, 0)
LAUNCH_COOPERATIVE(cuLaunchCooperativeKernel_ptsz, cuLaunchCooperativeKernel_ptsz, 1)

#define LAUNCH_KERNEL_EX(fn, cbid, ptds)                                                     \
    DRV_EXPORT CUresult fn(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) \
    {                                                                                        \
        drv_func *df = (drv_func *)f;                                                        \
        DRV_CALL(cbid, #cbid, df && df->magic == FUNC_MAGIC ? df->name : NULL);              \
        (void)params, (void)extra;                                                           \
        if (c == NULL)                                                                       \
            DRV_RETURN(CUDA_ERROR_INVALID_VALUE);                                            \
        DRV_RETURN(launch(df, (unsigned[3]){c->gridDimX, c->gridDimY, c->gridDimZ},          \
                          (unsigned[3]){c->blockDimX, c->blockDimY, c->blockDimZ},           \
                          c->sharedMemBytes, c->hStream, ptds));                             \
    }
LAUNCH_KERNEL_EX(cuLaunchKernelEx, cuLaunchKernelEx, 0)
LAUNCH_KERNEL_EX(cuLaunchKernelEx_ptsz, cuLaunchKernelEx_ptsz, 1)

DRV_EXPORT CUresult cuCtxSynchronize(void)
{
    DRV_CALL(cuCtxSynchronize, "cuCtxSynchronize", NULL);
    cusim_device_sync();
    DRV_RETURN(CUDA_SUCCESS);
}

/* Waits for the work queued on s. */
static CUresult stream_sync(cusim_stream *s)
{
    cusim_stream_sync(s);
    return CUDA_SUCCESS;
}

/* CUDA_ERROR_NOT_READY while work queued on s runs (not an error). */
static CUresult stream_query(cusim_stream *s)
{
    return cusim_stream_query(s) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
}

/* fn(stream): op on the stream (ptds: NULL is this thread's stream). */
#define STREAM_CALL(fn, ptds, op)                                                            \
    DRV_EXPORT CUresult fn(CUstream hs);                                                     \
    DRV_EXPORT CUresult fn(CUstream hs)                                                      \
    {                                                                                        \
        DRV_CALL(fn, #fn, NULL);                                                             \
        cusim_stream *s = cusim_stream_get(hs, ptds);                                        \
        DRV_RETURN(s == NULL ? CUDA_ERROR_INVALID_HANDLE : op(s));                           \
    }
STREAM_CALL(cuStreamSynchronize, 0, stream_sync)
STREAM_CALL(cuStreamSynchronize_ptsz, 1, stream_sync)
STREAM_CALL(cuStreamQuery, 0, stream_query)
STREAM_CALL(cuStreamQuery_ptsz, 1, stream_query)

DRV_EXPORT CUresult cuEventQuery(CUevent event)
{
    DRV_CALL(cuEventQuery, "cuEventQuery", NULL);
    cusim_event *e = cusim_event_get(event);
    if (e == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    DRV_RETURN(cusim_event_query(e) ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY);
}

DRV_EXPORT CUresult cuStreamWaitEvent(CUstream stream, CUevent event, unsigned flags)
{
    DRV_CALL(cuStreamWaitEvent, "cuStreamWaitEvent", NULL);
    (void)flags;
    cusim_stream *s = cusim_stream_get(stream, 0);
    cusim_event *e = cusim_event_get(event);
    if (s == NULL || e == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    cusim_stream_wait_event(s, e);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    static char ctx;   /* the one context */
    DRV_CALL(cuCtxGetCurrent, "cuCtxGetCurrent", NULL);
    if (pctx == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *pctx = (CUcontext)(void *)&ctx;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuInit(unsigned int flags)
{
    DRV_CALL(cuInit, "cuInit", NULL);
    DRV_RETURN(flags ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS);
}

/* Traced, as on the H200 (tests/fixtures/h200-580.159.04/driver_query). */
DRV_EXPORT CUresult cuDriverGetVersion(int *version)
{
    DRV_CALL(cuDriverGetVersion, "cuDriverGetVersion", NULL);
    if (version == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *version = CUDA_VERSION;
    DRV_RETURN(CUDA_SUCCESS);
}

/* ---- devices, contexts, copies, streams and events: what a driver-API
 * program does first (issue 31: such programs died at load). One device
 * (the sim's H100), one context; the attributes a program commonly reads. */

DRV_EXPORT CUresult cuDeviceGetCount(int *count)
{
    DRV_CALL(cuDeviceGetCount, "cuDeviceGetCount", NULL);
    if (count == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *count = 1;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuDeviceGet(CUdevice *dev, int ordinal)
{
    DRV_CALL(cuDeviceGet, "cuDeviceGet", NULL);
    if (dev == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (ordinal != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *dev = 0;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    DRV_CALL(cuDeviceGetName, "cuDeviceGetName", NULL);
    if (name == NULL || len <= 0)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (dev != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    snprintf(name, (size_t)len, "%s", CUSIM_DEVICE_NAME);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    DRV_CALL(cuDeviceTotalMem_v2, "cuDeviceTotalMem_v2", NULL);
    if (bytes == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (dev != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *bytes = (size_t)CUSIM_DEVICE_MEM_BYTES;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuDeviceGetAttribute(int *value, CUdevice_attribute attr, CUdevice dev)
{
    DRV_CALL(cuDeviceGetAttribute, "cuDeviceGetAttribute", NULL);
    if (value == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (dev != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    switch (attr) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *value = CUSIM_CC_MAJOR; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *value = CUSIM_CC_MINOR; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *value = CUSIM_SM_COUNT; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *value = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: *value = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: *value = 64; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *value = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: *value = 65535; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *value = 49152; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: *value = 2048; break;
    /* the values the sim's cudaGetDeviceProperties gives (cudart_device.c) */
    case CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: *value = 50 * 1024 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_CLOCK_RATE: *value = 1980000; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *value = 2619000; break;
    case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *value = 5120; break;
    case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: *value = 65536; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: *value = 228 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *value = 227 * 1024; break;
    case CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: *value = 3; break;
    case CU_DEVICE_ATTRIBUTE_PCI_BUS_ID: *value = 0x19; break;
    case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED:
    case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: *value = 1; break;
    case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH:
    case CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: case CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: *value = 1; break;
    default: *value = 0; break;   /* not modelled: as a device without the feature */
    }
    DRV_RETURN(CUDA_SUCCESS);
}

static char the_context;   /* the one context's handle */

DRV_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev)
{
    DRV_CALL(cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL);
    if (ctx == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (dev != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *ctx = (CUcontext)(void *)&the_context;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    DRV_CALL(cuDevicePrimaryCtxRelease_v2, "cuDevicePrimaryCtxRelease_v2", NULL);
    DRV_RETURN(dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE);
}

DRV_EXPORT CUresult cuCtxCreate_v2(CUcontext *ctx, unsigned flags, CUdevice dev)
{
    DRV_CALL(cuCtxCreate_v2, "cuCtxCreate_v2", NULL);
    (void)flags;
    if (ctx == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    if (dev != 0)
        DRV_RETURN(CUDA_ERROR_INVALID_DEVICE);
    *ctx = (CUcontext)(void *)&the_context;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuCtxCreate_v4(CUcontext *ctx, CUctxCreateParams *params, unsigned flags, CUdevice dev)
{
    (void)params;
    return cuCtxCreate_v2(ctx, flags, dev);
}

DRV_EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    DRV_CALL(cuCtxDestroy_v2, "cuCtxDestroy_v2", NULL);
    (void)ctx;
    cusim_device_sync();
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    DRV_CALL(cuCtxSetCurrent, "cuCtxSetCurrent", NULL);
    (void)ctx;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    DRV_CALL(cuCtxPushCurrent_v2, "cuCtxPushCurrent_v2", NULL);
    (void)ctx;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *ctx)
{
    DRV_CALL(cuCtxPopCurrent_v2, "cuCtxPopCurrent_v2", NULL);
    if (ctx != NULL)
        *ctx = (CUcontext)(void *)&the_context;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuStreamCreate(CUstream *stream, unsigned flags)
{
    DRV_CALL(cuStreamCreate, "cuStreamCreate", NULL);
    if (stream == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    cusim_stream *st = cusim_stream_create(flags, 0);
    if (st == NULL)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    *stream = (CUstream)(void *)st;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuStreamDestroy_v2(CUstream stream)
{
    DRV_CALL(cuStreamDestroy_v2, "cuStreamDestroy_v2", NULL);
    cusim_stream *st = cusim_stream_get(stream, 0);
    if (st == NULL || stream == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    cusim_stream_destroy(st);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuEventCreate(CUevent *event, unsigned flags)
{
    DRV_CALL(cuEventCreate, "cuEventCreate", NULL);
    if (event == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    cusim_event *e = cusim_event_create(flags);
    if (e == NULL)
        DRV_RETURN(CUDA_ERROR_OUT_OF_MEMORY);
    *event = (CUevent)(void *)e;
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuEventRecord(CUevent event, CUstream stream)
{
    DRV_CALL(cuEventRecord, "cuEventRecord", NULL);
    cusim_event *e = cusim_event_get(event);
    cusim_stream *st = cusim_stream_get(stream, 0);
    if (e == NULL || st == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    cusim_event_record(e, st);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuEventSynchronize(CUevent event)
{
    DRV_CALL(cuEventSynchronize, "cuEventSynchronize", NULL);
    cusim_event *e = cusim_event_get(event);
    if (e == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    cusim_event_sync(e);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuEventElapsedTime_v2(float *ms, CUevent start, CUevent end)
{
    DRV_CALL(cuEventElapsedTime_v2, "cuEventElapsedTime_v2", NULL);
    cusim_event *a = cusim_event_get(start), *b = cusim_event_get(end);
    if (ms == NULL || a == NULL || b == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    *ms = cusim_event_elapsed_ms(a, b);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuEventDestroy_v2(CUevent event)
{
    DRV_CALL(cuEventDestroy_v2, "cuEventDestroy_v2", NULL);
    cusim_event *e = cusim_event_get(event);
    if (e == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_HANDLE);
    cusim_event_destroy(e);
    DRV_RETURN(CUDA_SUCCESS);
}

DRV_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                        CUdriverProcAddressQueryResult *status);
DRV_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags);

/* name -> function, and the per-thread-default-stream one where it differs */
static const struct {
    const char *name;
    void *fn, *fn_ptds;
} drv_table[] = {
    {"cuGetProcAddress", (void *)cuGetProcAddress_v2, NULL},
    {"cuModuleLoadData", (void *)cuModuleLoadData, NULL},
    {"cuModuleGetFunction", (void *)cuModuleGetFunction, NULL},
    {"cuModuleUnload", (void *)cuModuleUnload, NULL},
    {"cuFuncGetName", (void *)cuFuncGetName, NULL},
    {"cuLaunchKernel", (void *)cuLaunchKernel, (void *)cuLaunchKernel_ptsz},
    {"cuLaunchKernelEx", (void *)cuLaunchKernelEx, (void *)cuLaunchKernelEx_ptsz},
    {"cuLaunchCooperativeKernel", (void *)cuLaunchCooperativeKernel, (void *)cuLaunchCooperativeKernel_ptsz},
    {"cuMemAlloc", (void *)cuMemAlloc_v2, NULL},
    {"cuMemFree", (void *)cuMemFree_v2, NULL},
    {"cuCtxSynchronize", (void *)cuCtxSynchronize, NULL},
    {"cuStreamSynchronize", (void *)cuStreamSynchronize, NULL},
    {"cuCtxGetCurrent", (void *)cuCtxGetCurrent, NULL},
    {"cuInit", (void *)cuInit, NULL},
    {"cuDriverGetVersion", (void *)cuDriverGetVersion, NULL},
};

/* This library's own export of name (a modelled function or a generated
 * stub, stubs.c), or NULL. */
static void *own_export(const char *name)
{
    static void *self;
    if (self == NULL) {
        Dl_info di;
        if (dladdr((void *)cuGetProcAddress_v2, &di) && di.dli_fname)
            self = dlopen(di.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
        if (self == NULL)
            return NULL;
    }
    return dlsym(self, name);
}

/* The function for a driver symbol, or NULL: the modelled ones by name (and
 * their per-thread-stream forms), then any the real driver exports, as the
 * sim exports them all (the real driver answers every name of cuda.h; the
 * newest _vN of a name first, and its _ptsz/_ptds form when asked). */
static void *entry(const char *symbol, int ptds)
{
    for (size_t i = 0; symbol && i < sizeof drv_table / sizeof drv_table[0]; i++)
        if (!strcmp(drv_table[i].name, symbol))
            return ptds && drv_table[i].fn_ptds ? drv_table[i].fn_ptds : drv_table[i].fn;
    if (symbol == NULL || strncmp(symbol, "cu", 2) != 0 || strlen(symbol) > 96)
        return NULL;
    char name[128];
    for (int v = 9; v >= 1; v--) {
        for (int p = ptds ? 0 : 2; p < 3; p++) {
            static const char *const sfx[] = {"_ptsz", "_ptds", ""};
            if (v > 1)
                snprintf(name, sizeof name, "%s_v%d%s", symbol, v, sfx[p]);
            else
                snprintf(name, sizeof name, "%s%s", symbol, sfx[p]);
            void *f = own_export(name);
            if (f != NULL)
                return f;
        }
    }
    return NULL;
}

DRV_EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                        CUdriverProcAddressQueryResult *status)
{
    DRV_CALL(cuGetProcAddress_v2, "cuGetProcAddress_v2", NULL);
    (void)version;
    if (symbol == NULL || pfn == NULL)
        DRV_RETURN(CUDA_ERROR_INVALID_VALUE);
    *pfn = entry(symbol, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0);
    if (status != NULL)
        *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    DRV_RETURN(*pfn ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND);
}

/* The CUDA 11 form, without the status. */
DRV_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int version, cuuint64_t flags)
{
    return cuGetProcAddress_v2(symbol, pfn, version, flags, NULL);
}
