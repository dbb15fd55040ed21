/*
 * hooks_launch.c - kernel launches on every path, the kernel names behind
 * them, and occupancy queries.
 *
 * nvcc 13 compiles `k<<<g, b, s, st>>>(...)` into __cudaGetKernel(&handle,
 * stub) once per launch site, then __cudaLaunchKernel(handle, ...) (or
 * _ptsz with --default-stream per-thread). __cudaRegisterFunction gives
 * stub -> device name at start-up, __cudaGetKernel handle -> stub, so the
 * collector can name a launch from either a stub or a handle.
 *
 * The launch hooks are the hot path: no locks, no allocation, nothing beyond
 * the collector's own begin/lookup/end.
 */
#include "preload/hooks.h"

/* Fills the launch arguments; kernel is a host stub or a cudaKernel_t. */
static inline __attribute__((always_inline)) void fill_launch(cuprof_event *ev, const void *kernel,
                                                              dim3 grid, dim3 block, size_t smem,
                                                              cudaStream_t stream)
{
    ev->a.launch.kernel = cuprof_kernel_lookup(kernel);
    ev->a.launch.grid_x = grid.x;
    ev->a.launch.grid_y = preload_u16(grid.y);
    ev->a.launch.grid_z = preload_u16(grid.z);
    ev->a.launch.block[0] = preload_u16(block.x);
    ev->a.launch.block[1] = preload_u16(block.y);
    ev->a.launch.block[2] = preload_u16(block.z);
    ev->a.launch.smem = smem > UINT32_MAX ? UINT32_MAX : (uint32_t)smem;
    ev->a.launch.stream = (uint64_t)(uintptr_t)stream;
}

/* cudaLaunchKernel and _ptsz (func: a host stub, or a cudaKernel_t). */
static inline __attribute__((always_inline)) cudaError_t
launch(unsigned fn, const void *func, dim3 grid, dim3 block, void **args, size_t smem,
       cudaStream_t stream)
{
    preload_cudaLaunchKernel_fn real = PRELOAD_REAL_AS(cudaLaunchKernel, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_LAUNCH);
    if (c.ev)
        fill_launch(c.ev, func, grid, block, smem, stream);
    cudaError_t r = real ? real(func, grid, block, args, smem, stream) : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaLaunchKernel PRELOAD_SIG_LAUNCH
{
    return launch(PRELOAD_FN_cudaLaunchKernel, func, gridDim, blockDim, args, sharedMem, stream);
}

PRELOAD_EXPORT cudaError_t cudaLaunchKernel_ptsz PRELOAD_SIG_LAUNCH
{
    return launch(PRELOAD_FN_cudaLaunchKernel_ptsz, func, gridDim, blockDim, args, sharedMem, stream);
}

/* Cooperative launches (grid-wide synchronisation): cudaLaunchKernel's
 * arguments, one launch each. */
PRELOAD_EXPORT cudaError_t cudaLaunchCooperativeKernel PRELOAD_SIG_LAUNCH
{
    return launch(PRELOAD_FN_cudaLaunchCooperativeKernel, func, gridDim, blockDim, args, sharedMem, stream);
}

PRELOAD_EXPORT cudaError_t cudaLaunchCooperativeKernel_ptsz PRELOAD_SIG_LAUNCH
{
    return launch(PRELOAD_FN_cudaLaunchCooperativeKernel_ptsz, func, gridDim, blockDim, args, sharedMem,
                  stream);
}

/* __cudaLaunchKernel and _ptsz: what nvcc 13 emits for <<<>>>. */
static inline __attribute__((always_inline)) cudaError_t
klaunch(unsigned fn, cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t smem,
        cudaStream_t stream)
{
    preload___cudaLaunchKernel_fn real = PRELOAD_REAL_AS(__cudaLaunchKernel, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_LAUNCH);
    if (c.ev)
        fill_launch(c.ev, kernel, grid, block, smem, stream);
    cudaError_t r = real ? real(kernel, grid, block, args, smem, stream) : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t __cudaLaunchKernel PRELOAD_SIG_KLAUNCH
{
    return klaunch(PRELOAD_FN___cudaLaunchKernel, kernel, gridDim, blockDim, args, sharedMem, stream);
}

PRELOAD_EXPORT cudaError_t __cudaLaunchKernel_ptsz PRELOAD_SIG_KLAUNCH
{
    return klaunch(PRELOAD_FN___cudaLaunchKernel_ptsz, kernel, gridDim, blockDim, args, sharedMem,
                   stream);
}

/* cudaLaunchKernelExC and _ptsz: the configuration comes in a struct (its
 * attributes, e.g. cluster dimensions, are not recorded: no room in 64 B). */
static cudaError_t launch_ex(unsigned fn, const cudaLaunchConfig_t *config, const void *func,
                             void **args)
{
    preload_cudaLaunchKernelExC_fn real = PRELOAD_REAL_AS(cudaLaunchKernelExC, fn);
    preload_call c = hook_begin(fn, CUPROF_EV_LAUNCH);
    if (c.ev) {
        if (config)
            fill_launch(c.ev, func, config->gridDim, config->blockDim, config->dynamicSmemBytes,
                        config->stream);
        else
            c.ev->a.launch.kernel = cuprof_kernel_lookup(func);
    }
    cudaError_t r = real ? real(config, func, args) : PRELOAD_CUDART_MISSING;
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaLaunchKernelExC PRELOAD_SIG_LAUNCHEX
{
    return launch_ex(PRELOAD_FN_cudaLaunchKernelExC, config, func, args);
}

PRELOAD_EXPORT cudaError_t cudaLaunchKernelExC_ptsz PRELOAD_SIG_LAUNCHEX
{
    return launch_ex(PRELOAD_FN_cudaLaunchKernelExC_ptsz, config, func, args);
}

/* Binds the handle the runtime hands out to the stub it came from. Runs once
 * per launch site (a function-local static in the generated stub). */
PRELOAD_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun)
{
    preload___cudaGetKernel_fn real = PRELOAD_REAL(__cudaGetKernel);
    preload_call c = HOOK_BEGIN(__cudaGetKernel);
    cudaKernel_t before = kernel != NULL ? *kernel : NULL;
    cudaError_t r = real ? real(kernel, hostFun) : PRELOAD_CUDART_MISSING;
    /* Bind whatever handle the call wrote, even with an error: without a
     * driver the runtime still writes one (the stub itself) and returns 35,
     * and the launches that follow carry it. */
    if (kernel != NULL && *kernel != NULL && *kernel != before)
        cuprof_kernel_handle((const void *)*kernel, hostFun);
    return (cudaError_t)hook_end(c, r);
}

/* Called from every CUDA module's static initializer, often before main()
 * and before our constructor: records the name, no event. */
PRELOAD_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                           char *deviceFun, const char *deviceName,
                                           int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim,
                                           dim3 *gDim, int *wSize)
{
    preload___cudaRegisterFunction_fn real = PRELOAD_REAL(__cudaRegisterFunction);
    int *errp = &errno, e = *errp;
    /* deviceFun is the mangled device name (deviceName is the same string
     * in nvcc's output; take it only if deviceFun is missing). */
    const char *name = deviceFun != NULL ? deviceFun : deviceName;
    if (hostFun != NULL && name != NULL) {
        cuprof_collector_init();
        cuprof_kernel_register(hostFun, name);
    }
    *errp = e;
    if (real)
        real(fatCubinHandle, hostFun, deviceFun, deviceName, thread_limit, tid, bid, bDim, gDim,
             wSize);
}

/* Occupancy queries: kernel, block size, smem, and the answer. */
static cudaError_t occupancy(unsigned fn, int *numBlocks, const void *func, int blockSize,
                             size_t smem, int with_flags, unsigned flags)
{
    void *real = preload_real(fn);
    preload_call c = hook_begin(fn, CUPROF_EV_OCCUPANCY);
    if (c.ev) {
        c.ev->a.occ.kernel = cuprof_kernel_lookup(func);
        c.ev->a.occ.block_size = blockSize;
        c.ev->a.occ.smem = smem;
    }
    cudaError_t r;
    if (real == NULL)
        r = PRELOAD_CUDART_MISSING;
    else if (with_flags)
        r = ((preload_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags_fn)real)(
            numBlocks, func, blockSize, smem, flags);
    else
        r = ((preload_cudaOccupancyMaxActiveBlocksPerMultiprocessor_fn)real)(numBlocks, func,
                                                                             blockSize, smem);
    if (c.ev && r == cudaSuccess && numBlocks != NULL)
        c.ev->a.occ.answer = *numBlocks;
    return (cudaError_t)hook_end(c, r);
}

PRELOAD_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor PRELOAD_SIG_OCC
{
    return occupancy(PRELOAD_FN_cudaOccupancyMaxActiveBlocksPerMultiprocessor, numBlocks, func,
                     blockSize, dynamicSMemSize, 0, 0);
}

PRELOAD_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags PRELOAD_SIG_OCCF
{
    return occupancy(PRELOAD_FN_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, numBlocks,
                     func, blockSize, dynamicSMemSize, 1, flags);
}
