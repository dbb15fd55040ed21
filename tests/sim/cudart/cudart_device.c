/*
 * cudart_device.c - the one simulated device: count, selection, properties,
 * attributes, versions, limits; the per-thread last error; profiler control;
 * driver entry points (not available).
 */
#include "cudart_internal.h"

#include <cuda.h>
#include <dlfcn.h>
#include <stdatomic.h>

#include <stdio.h>
#include <string.h>
#include <strings.h>

/* This thread's last error, as the real runtime keeps it: set by any failing
 * call, returned and reset by cudaGetLastError, returned by Peek. */
static _Thread_local cudaError_t last_error;

void cudart_set_error(cudaError_t err)
{
    if (err != cudaErrorNotReady) /* a status ("still running"), not an error */
        last_error = err;
}

cudaError_t cudart_stub_status(void)
{
    cudart_set_error(cudaErrorNotSupported);
    return cudaErrorNotSupported;
}

CUDART_EXPORT cudaError_t cudaGetLastError(void)
{
    API_ENTER(cudaGetLastError, v3020, NULL);
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    cusim_api_end(&api_call_, (int)e);
    return e;
}

CUDART_EXPORT cudaError_t cudaPeekAtLastError(void)
{
    API_ENTER(cudaPeekAtLastError, v3020, NULL);
    cudaError_t e = last_error;
    cusim_api_end(&api_call_, (int)e);
    return e;
}

/* ---- device selection ---------------------------------------------------- */

static _Thread_local unsigned device_flags; /* cudaSetDeviceFlags */

CUDART_EXPORT cudaError_t cudaGetDeviceCount(int *count)
{
    API_ENTER(cudaGetDeviceCount, v3020, (&(cudaGetDeviceCount_v3020_params){count}));
    if (count == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *count = 1;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaGetDevice(int *device)
{
    API_ENTER(cudaGetDevice, v3020, (&(cudaGetDevice_v3020_params){device}));
    if (device == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *device = 0;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaSetDevice(int device)
{
    API_ENTER(cudaSetDevice, v3020, (&(cudaSetDevice_v3020_params){device}));
    API_RETURN(device == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags)
{
    API_ENTER(cudaInitDevice, v12000,
              (&(cudaInitDevice_v12000_params){device, deviceFlags, flags}));
    API_RETURN(device == 0 ? cudaSuccess : cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop)
{
    API_ENTER(cudaChooseDevice, v3020, (&(cudaChooseDevice_v3020_params){device, prop}));
    if (device == NULL || prop == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *device = 0;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags)
{
    API_ENTER(cudaSetDeviceFlags, v3020, (&(cudaSetDeviceFlags_v3020_params){flags}));
    device_flags = flags;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags)
{
    API_ENTER(cudaGetDeviceFlags, v7000, (&(cudaGetDeviceFlags_v7000_params){flags}));
    if (flags == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *flags = device_flags | cudaDeviceMapHost;
    API_RETURN(cudaSuccess);
}

/* ---- properties ---------------------------------------------------------- */

#define SIM_SMEM_PER_BLOCK (48 * 1024)
#define SIM_SMEM_PER_SM (228 * 1024)
#define SIM_SMEM_OPTIN (227 * 1024)
#define SIM_L2_BYTES (50 * 1024 * 1024)
#define SIM_CLOCK_KHZ 1980000
#define SIM_MEM_CLOCK_KHZ 2619000
#define SIM_BUS_WIDTH 5120
#define SIM_PCI_BUS 0x19

static void fill_props(struct cudaDeviceProp *p)
{
    memset(p, 0, sizeof(*p));
    snprintf(p->name, sizeof(p->name), "%s", CUSIM_DEVICE_NAME);
    static const unsigned char uuid[16] = {0x5e, 0xc1, 0x7a, 0x11, 0x00, 0x90, 0x4b, 0x1d,
                                           0x8a, 0x13, 0x2c, 0x55, 0x66, 0x01, 0x00, 0x01};
    memcpy(p->uuid.bytes, uuid, sizeof(uuid));
    p->totalGlobalMem = CUSIM_DEVICE_MEM_BYTES;
    p->sharedMemPerBlock = SIM_SMEM_PER_BLOCK;
    p->regsPerBlock = 65536;
    p->warpSize = 32;
    p->memPitch = 2147483647;
    p->maxThreadsPerBlock = 1024;
    p->maxThreadsDim[0] = 1024, p->maxThreadsDim[1] = 1024, p->maxThreadsDim[2] = 64;
    p->maxGridSize[0] = 2147483647, p->maxGridSize[1] = 65535, p->maxGridSize[2] = 65535;
    p->totalConstMem = 65536;
    p->major = CUSIM_CC_MAJOR;
    p->minor = CUSIM_CC_MINOR;
    p->textureAlignment = 512;
    p->texturePitchAlignment = 32;
    p->multiProcessorCount = CUSIM_SM_COUNT;
    p->integrated = 0;
    p->canMapHostMemory = 1;
    p->maxTexture1D = 131072;
    p->maxTexture2D[0] = 131072, p->maxTexture2D[1] = 65536;
    p->maxTexture3D[0] = p->maxTexture3D[1] = p->maxTexture3D[2] = 16384;
    p->surfaceAlignment = 512;
    p->concurrentKernels = 1;
    p->ECCEnabled = 1;
    p->pciBusID = SIM_PCI_BUS;
    p->asyncEngineCount = 3;
    p->unifiedAddressing = 1;
    p->memoryBusWidth = SIM_BUS_WIDTH;
    p->l2CacheSize = SIM_L2_BYTES;
    p->persistingL2CacheMaxSize = 32768000;
    p->maxThreadsPerMultiProcessor = 2048;
    p->streamPrioritiesSupported = 1;
    p->globalL1CacheSupported = 1;
    p->localL1CacheSupported = 1;
    p->sharedMemPerMultiprocessor = SIM_SMEM_PER_SM;
    p->regsPerMultiprocessor = 65536;
    p->managedMemory = 1;
    p->concurrentManagedAccess = 1;
    p->computePreemptionSupported = 1;
    p->cooperativeLaunch = 1;
    p->sharedMemPerBlockOptin = SIM_SMEM_OPTIN;
    p->maxBlocksPerMultiProcessor = 32;
    p->accessPolicyMaxWindowSize = 134213632;
    p->reservedSharedMemPerBlock = 1024;
    p->hostRegisterSupported = 1;
    p->sparseCudaArraySupported = 1;
    p->memoryPoolsSupported = 1;
    p->gpuDirectRDMASupported = 1;
    p->ipcEventSupported = 1;
    p->clusterLaunch = 1;
    p->unifiedFunctionPointers = 1;
    p->hostNumaId = -1;
    p->deviceNumaId = -1;
    p->gpuPciDeviceID = 0x233010deu; /* H100 SXM5 80GB: 0x2330, NVIDIA 0x10de */
}

CUDART_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    API_ENTER(cudaGetDeviceProperties, v12000,
              (&(cudaGetDeviceProperties_v12000_params){prop, device}));
    if (prop == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    fill_props(prop);
    API_RETURN(cudaSuccess);
}

/* Attribute value, or -1 when the attribute is not known to us (reported
 * as 0, as a device without the feature would). */
static int attribute(enum cudaDeviceAttr a)
{
    switch (a) {
    case cudaDevAttrMaxThreadsPerBlock: return 1024;
    case cudaDevAttrMaxBlockDimX: return 1024;
    case cudaDevAttrMaxBlockDimY: return 1024;
    case cudaDevAttrMaxBlockDimZ: return 64;
    case cudaDevAttrMaxGridDimX: return 2147483647;
    case cudaDevAttrMaxGridDimY: return 65535;
    case cudaDevAttrMaxGridDimZ: return 65535;
    case cudaDevAttrMaxSharedMemoryPerBlock: return SIM_SMEM_PER_BLOCK;
    case cudaDevAttrTotalConstantMemory: return 65536;
    case cudaDevAttrWarpSize: return 32;
    case cudaDevAttrMaxPitch: return 2147483647;
    case cudaDevAttrMaxRegistersPerBlock: return 65536;
    case cudaDevAttrClockRate: return SIM_CLOCK_KHZ;
    case cudaDevAttrTextureAlignment: return 512;
    case cudaDevAttrGpuOverlap: return 1;
    case cudaDevAttrMultiProcessorCount: return CUSIM_SM_COUNT;
    case cudaDevAttrKernelExecTimeout: return 0;
    case cudaDevAttrIntegrated: return 0;
    case cudaDevAttrCanMapHostMemory: return 1;
    case cudaDevAttrComputeMode: return cudaComputeModeDefault;
    case cudaDevAttrConcurrentKernels: return 1;
    case cudaDevAttrEccEnabled: return 1;
    case cudaDevAttrPciBusId: return SIM_PCI_BUS;
    case cudaDevAttrPciDeviceId: return 0;
    case cudaDevAttrPciDomainId: return 0;
    case cudaDevAttrTccDriver: return 0;
    case cudaDevAttrMemoryClockRate: return SIM_MEM_CLOCK_KHZ;
    case cudaDevAttrGlobalMemoryBusWidth: return SIM_BUS_WIDTH;
    case cudaDevAttrL2CacheSize: return SIM_L2_BYTES;
    case cudaDevAttrMaxThreadsPerMultiProcessor: return 2048;
    case cudaDevAttrAsyncEngineCount: return 3;
    case cudaDevAttrUnifiedAddressing: return 1;
    case cudaDevAttrComputeCapabilityMajor: return CUSIM_CC_MAJOR;
    case cudaDevAttrComputeCapabilityMinor: return CUSIM_CC_MINOR;
    case cudaDevAttrStreamPrioritiesSupported: return 1;
    case cudaDevAttrGlobalL1CacheSupported: return 1;
    case cudaDevAttrLocalL1CacheSupported: return 1;
    case cudaDevAttrMaxSharedMemoryPerMultiprocessor: return SIM_SMEM_PER_SM;
    case cudaDevAttrMaxRegistersPerMultiprocessor: return 65536;
    case cudaDevAttrManagedMemory: return 1;
    case cudaDevAttrIsMultiGpuBoard: return 0;
    case cudaDevAttrConcurrentManagedAccess: return 1;
    case cudaDevAttrComputePreemptionSupported: return 1;
    case cudaDevAttrCooperativeLaunch: return 1;
    case cudaDevAttrMaxSharedMemoryPerBlockOptin: return SIM_SMEM_OPTIN;
    case cudaDevAttrMaxBlocksPerMultiprocessor: return 32;
    case cudaDevAttrReservedSharedMemoryPerBlock: return 1024;
    case cudaDevAttrMemoryPoolsSupported: return 1;
    case cudaDevAttrClusterLaunch: return 1;
    case cudaDevAttrHostRegisterSupported: return 1;
    case cudaDevAttrMaxPersistingL2CacheSize: return 32768000;
    case cudaDevAttrMaxAccessPolicyWindowSize: return 134213632;
    default: return -1;
    }
}

CUDART_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device)
{
    API_ENTER(cudaDeviceGetAttribute, v5000,
              (&(cudaDeviceGetAttribute_v5000_params){value, attr, device}));
    if (value == NULL || (int)attr <= 0 || attr >= cudaDevAttrMax)
        API_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    int v = attribute(attr);
    *value = v < 0 ? 0 : v;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority,
                                                           int *greatestPriority)
{
    API_ENTER(cudaDeviceGetStreamPriorityRange, v5050,
              (&(cudaDeviceGetStreamPriorityRange_v5050_params){leastPriority,
                                                                greatestPriority}));
    if (leastPriority != NULL)
        *leastPriority = 0;
    if (greatestPriority != NULL)
        *greatestPriority = -5;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    API_ENTER(cudaDeviceGetPCIBusId, v4010,
              (&(cudaDeviceGetPCIBusId_v4010_params){pciBusId, len, device}));
    if (pciBusId == NULL || len <= 0)
        API_RETURN(cudaErrorInvalidValue);
    if (device != 0)
        API_RETURN(cudaErrorInvalidDevice);
    snprintf(pciBusId, (size_t)len, "00000000:%02X:00.0", SIM_PCI_BUS);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice)
{
    API_ENTER(cudaDeviceCanAccessPeer, v4000,
              (&(cudaDeviceCanAccessPeer_v4000_params){canAccessPeer, device, peerDevice}));
    if (canAccessPeer == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (device != 0 || peerDevice != 0)
        API_RETURN(cudaErrorInvalidDevice);
    *canAccessPeer = 0;
    API_RETURN(cudaSuccess);
}

/* One device: there is never a peer. */
CUDART_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags)
{
    API_ENTER(cudaDeviceEnablePeerAccess, v4000,
              (&(cudaDeviceEnablePeerAccess_v4000_params){peerDevice, flags}));
    API_RETURN(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice)
{
    API_ENTER(cudaDeviceDisablePeerAccess, v4000,
              (&(cudaDeviceDisablePeerAccess_v4000_params){peerDevice}));
    API_RETURN(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr,
                                                    int srcDevice, int dstDevice)
{
    API_ENTER(cudaDeviceGetP2PAttribute, v8000,
              (&(cudaDeviceGetP2PAttribute_v8000_params){value, attr, srcDevice, dstDevice}));
    API_RETURN(cudaErrorInvalidDevice);
}

CUDART_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId)
{
    API_ENTER(cudaDeviceGetByPCIBusId, v4010,
              (&(cudaDeviceGetByPCIBusId_v4010_params){device, pciBusId}));
    char ours[32];
    snprintf(ours, sizeof ours, "00000000:%02X:00.0", SIM_PCI_BUS);
    if (device == NULL || pciBusId == NULL)
        API_RETURN(cudaErrorInvalidValue);
    /* accept the short domain form too ("0000:19:00.0") */
    if (strcasecmp(pciBusId, ours) != 0 && strcasecmp(pciBusId, ours + 4) != 0)
        API_RETURN(cudaErrorInvalidDevice);
    *device = 0;
    API_RETURN(cudaSuccess);
}

/* ---- limits, cache config ------------------------------------------------- */

static size_t limits[cudaLimitPersistingL2CacheSize + 1] = {
    [cudaLimitStackSize] = 1024,
    [cudaLimitPrintfFifoSize] = 1 << 20,
    [cudaLimitMallocHeapSize] = 8 << 20,
    [cudaLimitDevRuntimeSyncDepth] = 2,
    [cudaLimitDevRuntimePendingLaunchCount] = 2048,
    [cudaLimitMaxL2FetchGranularity] = 64,
    [cudaLimitPersistingL2CacheSize] = 0,
};

CUDART_EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    API_ENTER(cudaDeviceSetLimit, v3020, (&(cudaDeviceSetLimit_v3020_params){limit, value}));
    if ((unsigned)limit > cudaLimitPersistingL2CacheSize)
        API_RETURN(cudaErrorUnsupportedLimit);
    limits[limit] = value;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    API_ENTER(cudaDeviceGetLimit, v3020, (&(cudaDeviceGetLimit_v3020_params){pValue, limit}));
    if (pValue == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if ((unsigned)limit > cudaLimitPersistingL2CacheSize)
        API_RETURN(cudaErrorUnsupportedLimit);
    *pValue = limits[limit];
    API_RETURN(cudaSuccess);
}

static enum cudaFuncCache cache_config = cudaFuncCachePreferNone;

CUDART_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    API_ENTER(cudaDeviceSetCacheConfig, v3020,
              (&(cudaDeviceSetCacheConfig_v3020_params){cacheConfig}));
    cache_config = cacheConfig;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    API_ENTER(cudaDeviceGetCacheConfig, v3020,
              (&(cudaDeviceGetCacheConfig_v3020_params){pCacheConfig}));
    if (pCacheConfig == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *pCacheConfig = cache_config;
    API_RETURN(cudaSuccess);
}

/* ---- versions ------------------------------------------------------------- */

CUDART_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion)
{
    API_ENTER(cudaDriverGetVersion, v3020, (&(cudaDriverGetVersion_v3020_params){driverVersion}));
    if (driverVersion == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *driverVersion = CUDART_SIM_VERSION;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion)
{
    API_ENTER(cudaRuntimeGetVersion, v3020,
              (&(cudaRuntimeGetVersion_v3020_params){runtimeVersion}));
    if (runtimeVersion == NULL)
        API_RETURN(cudaErrorInvalidValue);
    *runtimeVersion = CUDART_SIM_VERSION;
    API_RETURN(cudaSuccess);
}

/* ---- profiler control ----------------------------------------------------- */

CUDART_EXPORT cudaError_t cudaProfilerStart(void)
{
    API_ENTER(cudaProfilerStart, v4000, NULL);
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaProfilerStop(void)
{
    API_ENTER(cudaProfilerStop, v4000, NULL);
    API_RETURN(cudaSuccess);
}

/* ---- driver entry points: the sim's libcuda.so.1 (tests/sim/driver/) ----- */

void *cudart_driver_entry(const char *symbol, int ptds)
{
    static void *_Atomic gpa;   /* libcuda's cuGetProcAddress_v2, once found */
    CUresult (*fn)(const char *, void **, int, cuuint64_t, CUdriverProcAddressQueryResult *) = atomic_load(&gpa);
    if (fn == NULL) {
        void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
        if (h != NULL)
            *(void **)&fn = dlsym(h, "cuGetProcAddress_v2");
        if (fn == NULL)
            return NULL;
        atomic_store(&gpa, (void *)fn);
    }
    void *p = NULL;
    if (fn(symbol, &p, CUDA_VERSION, ptds ? CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM : 0, NULL) != CUDA_SUCCESS)
        return NULL;
    return p;
}

static cudaError_t entry_point(const char *symbol, void **funcPtr, unsigned long long flags,
                               enum cudaDriverEntryPointQueryResult *status)
{
    if (funcPtr == NULL || symbol == NULL)
        return cudaErrorInvalidValue;
    *funcPtr = cudart_driver_entry(symbol, (flags & cudaEnablePerThreadDefaultStream) != 0);
    if (status != NULL)
        *status = *funcPtr ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return *funcPtr ? cudaSuccess : cudaErrorSymbolNotFound;
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr,
                                                  unsigned long long flags,
                                                  enum cudaDriverEntryPointQueryResult *status)
{
    API_ENTER(cudaGetDriverEntryPoint, v11030,
              (&(cudaGetDriverEntryPoint_v11030_params){symbol, funcPtr, flags, status}));
    API_RETURN(entry_point(symbol, funcPtr, flags, status));
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPoint_ptsz(const char *symbol, void **funcPtr,
                                                       unsigned long long flags,
                                                       enum cudaDriverEntryPointQueryResult *status)
{
    API_ENTER(cudaGetDriverEntryPoint_ptsz, v11030,
              (&(cudaGetDriverEntryPoint_ptsz_v11030_params){symbol, funcPtr, flags, status}));
    API_RETURN(entry_point(symbol, funcPtr, flags, status));
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *status)
{
    API_ENTER(cudaGetDriverEntryPointByVersion, v12050,
              (&(cudaGetDriverEntryPointByVersion_v12050_params){symbol, funcPtr, cudaVersion,
                                                                 flags, status}));
    API_RETURN(entry_point(symbol, funcPtr, flags, status));
}

CUDART_EXPORT cudaError_t cudaGetDriverEntryPointByVersion_ptsz(
    const char *symbol, void **funcPtr, unsigned int cudaVersion, unsigned long long flags,
    enum cudaDriverEntryPointQueryResult *status)
{
    API_ENTER(cudaGetDriverEntryPointByVersion_ptsz, v12050,
              (&(cudaGetDriverEntryPointByVersion_ptsz_v12050_params){symbol, funcPtr,
                                                                      cudaVersion, flags,
                                                                      status}));
    API_RETURN(entry_point(symbol, funcPtr, flags, status));
}
