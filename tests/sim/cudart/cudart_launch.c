/*
 * cudart_launch.c - kernels: the registration nvcc's host code makes at
 * start-up (__cudaRegisterFatBinary, __cudaRegisterFunction, ...), every
 * launch path (cudaLaunchKernel[_ptsz], cudaLaunchKernelExC[_ptsz],
 * cudaLaunchCooperativeKernel[_ptsz], and nvcc 13's `<<<>>>`:
 * __cudaPushCallConfiguration, __cudaPopCallConfiguration, __cudaGetKernel,
 * __cudaLaunchKernel[_ptsz]), function attributes and occupancy.
 *
 * Device code never runs: a launch is validated, timed by the model and
 * reported, nothing more.
 */
#include "cudart_internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FUNCS 16384         /* registered __global__ functions, all modules */
#define TABLE_SIZE (2 * MAX_FUNCS) /* open-addressing host stub -> function */
#define DEFAULT_MAX_DYN_SMEM (48 * 1024) /* without cudaFuncSetAttribute opt-in */
#define OPTIN_MAX_SMEM (227 * 1024)      /* sharedMemPerBlockOptin on sm_90 */
#define CONFIG_DEPTH 16         /* nested <<<>>> configurations per thread */

/* Functions live in one array, so "is this a handle we gave out?" is a range
 * check, never a read through an arbitrary pointer. */
static cudart_func funcs[MAX_FUNCS];
static int nfuncs;
/* By host stub. Entries are published once (release) and never removed, so
 * lookups, on every launch, need no lock; registrations take funcs_lock. */
static _Atomic(cudart_func *) table[TABLE_SIZE];
static pthread_mutex_t funcs_lock = PTHREAD_MUTEX_INITIALIZER;

static size_t slot_of(const void *p)
{
    return (size_t)cusim_ptr_hash(p) & (TABLE_SIZE - 1);
}

/* FNV-1a of the name: the registers we pretend the compiler chose. */
static int invent_registers(const char *name)
{
    uint32_t h = 2166136261u;
    for (const char *p = name; *p; p++)
        h = (h ^ (uint8_t)*p) * 16777619u;
    return 16 + (int)(h % 49);
}

static int is_handle(const void *p)
{
    return (const char *)p >= (const char *)funcs &&
           (const char *)p < (const char *)(funcs + MAX_FUNCS) &&
           ((uintptr_t)p - (uintptr_t)funcs) % sizeof(cudart_func) == 0;
}

cudart_func *cudart_func_find(const void *fn)
{
    if (fn == NULL)
        return NULL;
    if (is_handle(fn))
        return ((const cudart_func *)fn)->name != NULL ? (cudart_func *)fn : NULL;
    for (size_t i = slot_of(fn);; i = (i + 1) & (TABLE_SIZE - 1)) {
        cudart_func *f = atomic_load_explicit(&table[i], memory_order_acquire);
        if (f == NULL || f->host_fn == fn)
            return f;
    }
}

static void register_func(const void *host_fn, const char *name)
{
    pthread_mutex_lock(&funcs_lock);
    size_t i = slot_of(host_fn);
    cudart_func *t;
    while ((t = atomic_load_explicit(&table[i], memory_order_relaxed)) != NULL &&
           t->host_fn != host_fn)
        i = (i + 1) & (TABLE_SIZE - 1);
    if (t == NULL && nfuncs < MAX_FUNCS) {
        cudart_func *f = &funcs[nfuncs++];
        f->host_fn = host_fn;
        f->name = strdup(name);
        f->registers = invent_registers(name);
        f->max_dynamic_smem = DEFAULT_MAX_DYN_SMEM;
        f->carveout = -1;
        atomic_store_explicit(&table[i], f, memory_order_release);
    } else if (t == NULL) {
        fprintf(stderr, "cusim: more than %d kernels registered; %s is unknown to the sim\n",
                MAX_FUNCS, name);
    }
    pthread_mutex_unlock(&funcs_lock);
}

/* ---- registration (static initializers of nvcc-built code) -------------- */

/* These run before main() and, like the real runtime's, do not initialize the
 * driver (no injection from a static initializer) and are not traced. */

/* Module handles: one slot per registered fat binary (the handle points at
 * the slot, which holds the fat binary's address). */
#define MAX_MODULES 1024
static void *modules[MAX_MODULES];
static _Atomic int nmodules;

CUDART_EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    int i = atomic_fetch_add(&nmodules, 1);
    if (i >= MAX_MODULES)
        i = MAX_MODULES - 1; /* more modules than slots: they share the last */
    modules[i] = fatCubin;
    return &modules[i];
}

CUDART_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

CUDART_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    /* Functions stay registered: handles may still be used by atexit code. */
    (void)fatCubinHandle;
}

CUDART_EXPORT char __cudaInitModule(void **fatCubinHandle)
{
    (void)fatCubinHandle;
    return 1;
}

CUDART_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                          char *deviceFun, const char *deviceName,
                                          int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim,
                                          dim3 *gDim, int *wSize)
{
    (void)fatCubinHandle, (void)deviceFun, (void)thread_limit, (void)tid, (void)bid;
    (void)bDim, (void)gDim, (void)wSize;
    if (hostFun != NULL && deviceName != NULL)
        register_func(hostFun, deviceName);
}

/* __device__ / __constant__ variables: the host shadow is the only copy
 * there is; we keep its size for cudaGetSymbolSize. */
#define MAX_VARS 4096
static struct {
    const void *host; /* host shadow address (the "symbol") */
    size_t size;      /* bytes */
} vars[MAX_VARS];
static int nvars;
static pthread_mutex_t vars_lock = PTHREAD_MUTEX_INITIALIZER;

int cudart_var_size(const void *symbol, size_t *size)
{
    int found = 0;
    pthread_mutex_lock(&vars_lock);
    for (int i = 0; i < nvars && !found; i++) {
        if (vars[i].host == symbol) {
            *size = vars[i].size;
            found = 1;
        }
    }
    pthread_mutex_unlock(&vars_lock);
    return found;
}

CUDART_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                     const char *deviceName, int ext, size_t size, int constant,
                                     int global)
{
    (void)fatCubinHandle, (void)deviceAddress, (void)deviceName;
    (void)ext, (void)constant, (void)global;
    pthread_mutex_lock(&vars_lock);
    if (nvars < MAX_VARS)
        vars[nvars].host = hostVar, vars[nvars++].size = size;
    pthread_mutex_unlock(&vars_lock);
}

CUDART_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                            char *deviceAddress, const char *deviceName, int ext,
                                            size_t size, int constant, int global)
{
    (void)fatCubinHandle, (void)hostVarPtrAddress, (void)deviceAddress, (void)deviceName;
    (void)ext, (void)size, (void)constant, (void)global;
}

CUDART_EXPORT void __cudaRegisterHostVar(void **fatCubinHandle, const char *deviceName,
                                         void *hostVar, size_t size)
{
    (void)fatCubinHandle, (void)deviceName, (void)hostVar, (void)size;
}

/* ---- the <<<>>> call configuration -------------------------------------- */

typedef struct call_config {
    dim3 grid, block;
    size_t smem;
    cudaStream_t stream;
} call_config;

/* <<<>>> pushes, the stub pops; nested launches in argument expressions
 * make it a stack. */
static _Thread_local call_config configs[CONFIG_DEPTH];
static _Thread_local int nconfigs;

CUDART_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                                   struct CUstream_st *stream)
{
    if (nconfigs >= CONFIG_DEPTH)
        return 1;
    configs[nconfigs++] = (call_config){gridDim, blockDim, sharedMem, stream};
    return 0;
}

CUDART_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                     size_t *sharedMem, void *stream)
{
    if (nconfigs == 0)
        return cudaErrorMissingConfiguration;
    call_config *c = &configs[--nconfigs];
    *gridDim = c->grid;
    *blockDim = c->block;
    *sharedMem = c->smem;
    *(cudaStream_t *)stream = c->stream;
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fn)
{
    cudart_func *f = cudart_func_find(fn);
    if (f == NULL)
        return cudaErrorInvalidDeviceFunction;
    *kernel = (cudaKernel_t)f;
    return cudaSuccess;
}

/* ---- launches ------------------------------------------------------------ */

cudaError_t cudart_launch(cudart_func *f, dim3 grid, dim3 block, size_t smem,
                          cudaStream_t cuda_stream, int ptds)
{
    if (f == NULL)
        return cudaErrorInvalidDeviceFunction;
    uint64_t threads = (uint64_t)block.x * block.y * block.z;
    if (grid.x == 0 || grid.y == 0 || grid.z == 0 || threads == 0 || block.x > 1024 ||
        block.y > 1024 || block.z > 64 || threads > 1024 || grid.x > 0x7fffffffu ||
        grid.y > 65535 || grid.z > 65535)
        return cudaErrorInvalidConfiguration;
    if (smem > (size_t)f->max_dynamic_smem)
        return cudaErrorInvalidValue;
    if (threads * (uint64_t)f->registers > 65536)
        return cudaErrorLaunchOutOfResources;
    cusim_stream *s = cudart_stream(cuda_stream, ptds);
    if (s == NULL)
        return cudaErrorInvalidResourceHandle;
    cusim_spin_ns(cusim_launch_cpu_ns());
    cusim_kernel_desc k = {
        .name = f->name,
        .grid = {grid.x, grid.y, grid.z},
        .block = {block.x, block.y, block.z},
        .dynamic_smem = (uint32_t)smem,
        .registers = (uint16_t)f->registers,
        .cls = CUSIM_KERNEL_USER,
    };
    cusim_launch(s, &k, cusim_current_correlation());
    return cudaSuccess;
}

static const char *name_of(const void *fn)
{
    cudart_func *f = cudart_func_find(fn);
    return f != NULL ? f->name : NULL;
}

CUDART_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim,
                                           void **args, size_t sharedMem, cudaStream_t stream)
{
    cudart_func *f = cudart_func_find(func);
    API_ENTER_SYM(cudaLaunchKernel, v7000,
                  (&(cudaLaunchKernel_v7000_params){func, gridDim, blockDim, args, sharedMem,
                                                     stream}),
                  f ? f->name : NULL);
    API_RETURN(cudart_launch(f, gridDim, blockDim, sharedMem, stream, 0));
}

CUDART_EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, dim3 gridDim, dim3 blockDim,
                                                void **args, size_t sharedMem,
                                                cudaStream_t stream)
{
    cudart_func *f = cudart_func_find(func);
    API_ENTER_SYM(cudaLaunchKernel_ptsz, v7000,
                  (&(cudaLaunchKernel_ptsz_v7000_params){func, gridDim, blockDim, args,
                                                          sharedMem, stream}),
                  f ? f->name : NULL);
    API_RETURN(cudart_launch(f, gridDim, blockDim, sharedMem, stream, 1));
}

/* The <<<>>> path. The real CUPTI 13.0 reports it as cudaLaunchKernel
 * (cbid 211, with that call's params struct), not as the
 * __cudaLaunchKernel_v13000 id its header lists (seen on an H100, driver
 * 580, scripts/cupti_probe.cu); so does the sim, func = the host stub. */
CUDART_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                             void **args, size_t sharedMem, cudaStream_t stream)
{
    cudart_func *f = cudart_func_find(kernel);
    API_ENTER_SYM(cudaLaunchKernel, v7000,
                  (&(cudaLaunchKernel_v7000_params){f ? f->host_fn : NULL, gridDim, blockDim,
                                                     args, sharedMem, stream}),
                  f ? f->name : NULL);
    API_RETURN(cudart_launch(f, gridDim, blockDim, sharedMem, stream, 0));
}

CUDART_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                                  dim3 blockDim, void **args, size_t sharedMem,
                                                  cudaStream_t stream)
{
    cudart_func *f = cudart_func_find(kernel);
    API_ENTER_SYM(cudaLaunchKernel_ptsz, v7000,
                  (&(cudaLaunchKernel_ptsz_v7000_params){f ? f->host_fn : NULL, gridDim, blockDim,
                                                     args, sharedMem, stream}),
                  f ? f->name : NULL);
    API_RETURN(cudart_launch(f, gridDim, blockDim, sharedMem, stream, 1));
}

CUDART_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                              void **args)
{
    cudart_func *f = cudart_func_find(func);
    API_ENTER_SYM(cudaLaunchKernelExC, v11060,
                  (&(cudaLaunchKernelExC_v11060_params){config, func, args}),
                  f ? f->name : NULL);
    if (config == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(cudart_launch(f, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                             config->stream, 0));
}

CUDART_EXPORT cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *config,
                                                   const void *func, void **args)
{
    cudart_func *f = cudart_func_find(func);
    API_ENTER_SYM(cudaLaunchKernelExC_ptsz, v11060,
                  (&(cudaLaunchKernelExC_ptsz_v11060_params){config, func, args}),
                  f ? f->name : NULL);
    if (config == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(cudart_launch(f, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                             config->stream, 1));
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim,
                                                      dim3 blockDim, void **args,
                                                      size_t sharedMem, cudaStream_t stream)
{
    cudart_func *f = cudart_func_find(func);
    API_ENTER_SYM(cudaLaunchCooperativeKernel, v9000,
                  (&(cudaLaunchCooperativeKernel_v9000_params){func, gridDim, blockDim, args,
                                                                sharedMem, stream}),
                  f ? f->name : NULL);
    API_RETURN(cudart_launch(f, gridDim, blockDim, sharedMem, stream, 0));
}

CUDART_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 gridDim,
                                                           dim3 blockDim, void **args,
                                                           size_t sharedMem, cudaStream_t stream)
{
    cudart_func *f = cudart_func_find(func);
    API_ENTER_SYM(cudaLaunchCooperativeKernel_ptsz, v9000,
                  (&(cudaLaunchCooperativeKernel_ptsz_v9000_params){func, gridDim, blockDim,
                                                                     args, sharedMem, stream}),
                  f ? f->name : NULL);
    API_RETURN(cudart_launch(f, gridDim, blockDim, sharedMem, stream, 1));
}

/* ---- handles, names, attributes ------------------------------------------ */

CUDART_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr)
{
    API_ENTER(cudaGetKernel, v12000,
              (&(cudaGetKernel_v12000_params){kernelPtr, entryFuncAddr}));
    if (kernelPtr == NULL)
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(__cudaGetKernel(kernelPtr, entryFuncAddr));
}

CUDART_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    API_ENTER(cudaGetFuncBySymbol, v11000,
              (&(cudaGetFuncBySymbol_v11000_params){functionPtr, symbolPtr}));
    cudart_func *f = cudart_func_find(symbolPtr);
    if (functionPtr == NULL)
        API_RETURN(cudaErrorInvalidValue);
    if (f == NULL)
        API_RETURN(cudaErrorInvalidDeviceFunction);
    *functionPtr = (cudaFunction_t)f;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func)
{
    API_ENTER(cudaFuncGetName, v12030, (&(cudaFuncGetName_v12030_params){name, func}));
    if (name == NULL)
        API_RETURN(cudaErrorInvalidValue);
    const char *n = name_of(func);
    if (n == NULL)
        API_RETURN(cudaErrorInvalidDeviceFunction);
    *name = n;
    API_RETURN(cudaSuccess);
}

/* Largest block the invented register count allows (multiple of a warp). */
static int max_threads_for(const cudart_func *f)
{
    int t = 65536 / (f->registers > 0 ? f->registers : 1);
    t = t / 32 * 32;
    return t > 1024 ? 1024 : t;
}

CUDART_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    API_ENTER(cudaFuncGetAttributes, v3020,
              (&(cudaFuncGetAttributes_v3020_params){attr, func}));
    if (attr == NULL)
        API_RETURN(cudaErrorInvalidValue);
    cudart_func *f = cudart_func_find(func);
    if (f == NULL)
        API_RETURN(cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof(*attr));
    attr->sharedSizeBytes = 0;
    attr->constSizeBytes = 0;
    attr->localSizeBytes = 0;
    attr->maxThreadsPerBlock = max_threads_for(f);
    attr->numRegs = f->registers;
    attr->ptxVersion = CUSIM_CC_MAJOR * 10 + CUSIM_CC_MINOR;
    attr->binaryVersion = CUSIM_CC_MAJOR * 10 + CUSIM_CC_MINOR;
    attr->cacheModeCA = 0;
    attr->maxDynamicSharedSizeBytes = f->max_dynamic_smem;
    attr->preferredShmemCarveout = f->carveout;
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr,
                                               int value)
{
    API_ENTER(cudaFuncSetAttribute, v9000,
              (&(cudaFuncSetAttribute_v9000_params){func, attr, value}));
    cudart_func *f = cudart_func_find(func);
    if (f == NULL)
        API_RETURN(cudaErrorInvalidDeviceFunction);
    switch (attr) {
    case cudaFuncAttributeMaxDynamicSharedMemorySize:
        if (value < 0 || value > OPTIN_MAX_SMEM)
            API_RETURN(cudaErrorInvalidValue);
        f->max_dynamic_smem = value;
        break;
    case cudaFuncAttributePreferredSharedMemoryCarveout:
        if (value < -1 || value > 100)
            API_RETURN(cudaErrorInvalidValue);
        f->carveout = value;
        break;
    default:
        break; /* accepted, no effect on the model */
    }
    API_RETURN(cudaSuccess);
}

CUDART_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig)
{
    API_ENTER(cudaFuncSetCacheConfig, v3020,
              (&(cudaFuncSetCacheConfig_v3020_params){func, cacheConfig}));
    API_RETURN(cudart_func_find(func) != NULL ? cudaSuccess : cudaErrorInvalidDeviceFunction);
}

/* ---- occupancy ----------------------------------------------------------- */

static cudaError_t occupancy(int *numBlocks, const void *func, int blockSize,
                             size_t dynamicSMemSize)
{
    if (numBlocks == NULL)
        return cudaErrorInvalidValue;
    cudart_func *f = cudart_func_find(func);
    if (f == NULL)
        return cudaErrorInvalidDeviceFunction;
    if (blockSize <= 0)
        return cudaErrorInvalidValue;
    *numBlocks = cusim_occupancy(blockSize, dynamicSMemSize, f->registers, 0);
    return cudaSuccess;
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
                                                                        const void *func,
                                                                        int blockSize,
                                                                        size_t dynamicSMemSize)
{
    API_ENTER(cudaOccupancyMaxActiveBlocksPerMultiprocessor, v6050,
              (&(cudaOccupancyMaxActiveBlocksPerMultiprocessor_v6050_params){
                  numBlocks, func, blockSize, dynamicSMemSize}));
    API_RETURN(occupancy(numBlocks, func, blockSize, dynamicSMemSize));
}

CUDART_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    API_ENTER(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, v7000,
              (&(cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_v7000_params){
                  numBlocks, func, blockSize, dynamicSMemSize, flags}));
    if (flags & ~1u) /* cudaOccupancyDefault | cudaOccupancyDisableCachingOverride */
        API_RETURN(cudaErrorInvalidValue);
    API_RETURN(occupancy(numBlocks, func, blockSize, dynamicSMemSize));
}

CUDART_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize,
                                                                    const void *func,
                                                                    int numBlocks, int blockSize)
{
    API_ENTER(cudaOccupancyAvailableDynamicSMemPerBlock, v10200,
              (&(cudaOccupancyAvailableDynamicSMemPerBlock_v10200_params){
                  dynamicSmemSize, func, numBlocks, blockSize}));
    cudart_func *f = cudart_func_find(func);
    if (f == NULL)
        API_RETURN(cudaErrorInvalidDeviceFunction);
    if (dynamicSmemSize == NULL || numBlocks <= 0 || blockSize <= 0)
        API_RETURN(cudaErrorInvalidValue);
    /* 228 KiB per SM shared by numBlocks, 1 KiB reserved each. */
    size_t per = (228u * 1024u) / (size_t)numBlocks;
    per = per > 1024 ? per - 1024 : 0;
    if (per > (size_t)f->max_dynamic_smem)
        per = (size_t)f->max_dynamic_smem;
    *dynamicSmemSize = per;
    API_RETURN(cudaSuccess);
}
