/*
 * hooks_driver.c - driver-API launches, the way Triton and PyTorch reach the
 * driver: by address, from cuGetProcAddress or cudaGetDriverEntryPoint*. No
 * export of ours is on that path, so those hooks hand back, for the launch
 * functions (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and
 * their per-thread-stream forms), a wrapper that records the call like any hooked launch (kernel
 * name, grid, block, shared memory, stream) and calls the function the
 * driver gave; for cuGetProcAddress itself, a wrapper that does the same for
 * what it hands out; for cuMemAlloc and cuMemFree, wrappers that record the
 * allocation (device memory, model/memory.h). Everything else is handed
 * back as the driver gave it.
 * CUPROF_DRIVER_HOOKS=0 hands back the driver's own functions (their
 * launches are then seen by CUPTI only). A launch whose function was found
 * with a dlsym on a libcuda handle is seen by CUPTI only.
 *
 * The kernel's name: the kernel-name table knows the CUfunction once it was
 * named; a new one is named once through the driver's cuFuncGetName (found
 * through the same entry points, called as the profiler's own call).
 */
#include "preload/hooks.h"

#include <string.h>

enum { W_LK, W_LK_PTSZ, W_LKEX, W_LKEX_PTSZ, W_GPA, W_MALLOC, W_MFREE, W_LCK, W_LCK_PTSZ, W_N };

/* The driver's function behind each wrapper (the last one handed out). */
static _Atomic(void *) real_of[W_N];
static _Atomic(void *) func_get_name;   /* the driver's cuFuncGetName, once found */

typedef CUresult (*lk_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                          CUstream, void **, void **);
typedef CUresult (*lck_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           CUstream, void **);
typedef CUresult (*lkex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*gpa_fn) PRELOAD_SIG_GPA;
typedef CUresult (*getname_fn)(const char **, CUfunction);
typedef CUresult (*malloc_fn)(CUdeviceptr *, size_t);
_Static_assert((int)CUDA_ERROR_OUT_OF_MEMORY == (int)cudaErrorMemoryAllocation, "out of memory is 2 in both APIs");
typedef CUresult (*mfree_fn)(CUdeviceptr);

/* A driver function by name through the real entry points (no hook). */
static void *driver_fn(const char *symbol)
{
    void *p = NULL;
    gpa_fn gpa = (gpa_fn)atomic_load_explicit(&real_of[W_GPA], memory_order_acquire);
    if (gpa == NULL)
        gpa = PRELOAD_REAL(cuGetProcAddress_v2);
    if (gpa != NULL && gpa(symbol, &p, 12030, 0, NULL) == CUDA_SUCCESS && p != NULL)
        return p;
    preload_cudaGetDriverEntryPointByVersion_fn ep = PRELOAD_REAL(cudaGetDriverEntryPointByVersion);
    enum cudaDriverEntryPointQueryResult st;
    if (ep != NULL && ep(symbol, &p, 12030, cudaEnableDefault, &st) == cudaSuccess)
        return p;
    return NULL;
}

/* The kernel-name id of f, naming it through the driver the first time. */
static uint32_t kernel_id(CUfunction f)
{
    uint32_t id = cuprof_kernel_lookup(f);
    if (id || f == NULL)
        return id;
    int e = errno;
    int g = cuprof_own_cuda_enter();
    getname_fn fn = (getname_fn)atomic_load_explicit(&func_get_name, memory_order_acquire);
    if (fn == NULL && (fn = (getname_fn)driver_fn("cuFuncGetName")) != NULL)
        atomic_store_explicit(&func_get_name, (void *)fn, memory_order_release);
    const char *name = NULL;
    if (fn != NULL && fn(&name, f) != CUDA_SUCCESS)
        name = NULL;
    cuprof_own_cuda_leave(g);
    if (name != NULL)
        cuprof_kernel_register(f, name);
    errno = e;
    return name != NULL ? cuprof_kernel_lookup(f) : 0;
}

static void fill(preload_call c, uint32_t kernel, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                 unsigned bz, unsigned smem, CUstream hs)
{
    if (!c.ev)
        return;
    c.ev->a.launch.kernel = kernel;
    c.ev->a.launch.grid_x = gx;
    c.ev->a.launch.grid_y = preload_u16(gy);
    c.ev->a.launch.grid_z = preload_u16(gz);
    c.ev->a.launch.block[0] = preload_u16(bx);
    c.ev->a.launch.block[1] = preload_u16(by);
    c.ev->a.launch.block[2] = preload_u16(bz);
    c.ev->a.launch.smem = smem;
    c.ev->a.launch.stream = (uint64_t)(uintptr_t)hs;
}

#define W_LAUNCH(fname, idx, api)                                                                      \
    static CUresult fname(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,  \
                          unsigned bz, unsigned smem, CUstream hs, void **params, void **extra)           \
    {                                                                                                  \
        lk_fn real = (lk_fn)atomic_load_explicit(&real_of[idx], memory_order_acquire);                \
        uint32_t kernel = kernel_id(f); /* before the call's clock starts: a first naming is ours */  \
        preload_call c = hook_begin(api, CUPROF_EV_LAUNCH);                                            \
        fill(c, kernel, gx, gy, gz, bx, by, bz, smem, hs);                                             \
        CUresult r = real ? real(f, gx, gy, gz, bx, by, bz, smem, hs, params, extra) : PRELOAD_CUDA_MISSING; \
        return (CUresult)hook_end(c, r);                                                               \
    }
W_LAUNCH(w_launch_kernel, W_LK, PRELOAD_API_cuLaunchKernel)
W_LAUNCH(w_launch_kernel_ptsz, W_LK_PTSZ, PRELOAD_API_cuLaunchKernel_ptsz)

/* cuLaunchCooperativeKernel and _ptsz: cuLaunchKernel's arguments without
 * `extra`. */
#define W_LAUNCH_COOP(fname, idx, api)                                                                 \
    static CUresult fname(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,  \
                          unsigned bz, unsigned smem, CUstream hs, void **params)                         \
    {                                                                                                  \
        lck_fn real = (lck_fn)atomic_load_explicit(&real_of[idx], memory_order_acquire);              \
        uint32_t kernel = kernel_id(f);                                                                \
        preload_call c = hook_begin(api, CUPROF_EV_LAUNCH);                                            \
        fill(c, kernel, gx, gy, gz, bx, by, bz, smem, hs);                                             \
        CUresult r = real ? real(f, gx, gy, gz, bx, by, bz, smem, hs, params) : PRELOAD_CUDA_MISSING;  \
        return (CUresult)hook_end(c, r);                                                               \
    }
W_LAUNCH_COOP(w_launch_coop, W_LCK, PRELOAD_API_cuLaunchCooperativeKernel)
W_LAUNCH_COOP(w_launch_coop_ptsz, W_LCK_PTSZ, PRELOAD_API_cuLaunchCooperativeKernel_ptsz)

#define W_LAUNCH_EX(fname, idx, api)                                                                   \
    static CUresult fname(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)        \
    {                                                                                                  \
        lkex_fn real = (lkex_fn)atomic_load_explicit(&real_of[idx], memory_order_acquire);            \
        uint32_t kernel = kernel_id(f);                                                                \
        preload_call c = hook_begin(api, CUPROF_EV_LAUNCH);                                            \
        if (cfg)                                                                                       \
            fill(c, kernel, cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ, cfg->blockDimX, cfg->blockDimY,    \
                 cfg->blockDimZ, cfg->sharedMemBytes, cfg->hStream);                                   \
        CUresult r = real ? real(cfg, f, params, extra) : PRELOAD_CUDA_MISSING;                        \
        return (CUresult)hook_end(c, r);                                                               \
    }
W_LAUNCH_EX(w_launch_kernel_ex, W_LKEX, PRELOAD_API_cuLaunchKernelEx)
W_LAUNCH_EX(w_launch_kernel_ex_ptsz, W_LKEX_PTSZ, PRELOAD_API_cuLaunchKernelEx_ptsz)

/* Device memory through the driver (model/memory.h counts it). */
static CUresult w_mem_alloc(CUdeviceptr *dptr, size_t bytes)
{
    malloc_fn real = (malloc_fn)atomic_load_explicit(&real_of[W_MALLOC], memory_order_acquire);
    preload_call c = hook_begin(PRELOAD_API_cuMemAlloc, CUPROF_EV_ALLOC);
    if (c.ev)
        c.ev->a.mem.bytes = bytes;
    CUresult r = real ? real(dptr, bytes) : PRELOAD_CUDA_MISSING;
    if (c.ev && r == CUDA_SUCCESS && dptr)
        c.ev->a.mem.ptr = (uint64_t)*dptr;
    if (r == CUDA_SUCCESS && dptr)
        preload_memheld(0, (uint64_t)*dptr, bytes, PRELOAD_API_cuMemAlloc);
    /* CUDA_ERROR_OUT_OF_MEMORY is 2, as the runtime's cudaErrorMemoryAllocation:
     * the memory model's out-of-memory note reads both */
    return (CUresult)hook_end(c, r);
}

static CUresult w_mem_free(CUdeviceptr dptr)
{
    mfree_fn real = (mfree_fn)atomic_load_explicit(&real_of[W_MFREE], memory_order_acquire);
    preload_call c = hook_begin(PRELOAD_API_cuMemFree, CUPROF_EV_FREE);
    if (c.ev)
        c.ev->a.mem.ptr = (uint64_t)dptr;
    CUresult r = real ? real(dptr) : PRELOAD_CUDA_MISSING;
    if (r == CUDA_SUCCESS)
        preload_memheld(1, (uint64_t)dptr, 0, PRELOAD_API_cuMemFree);
    return (CUresult)hook_end(c, r);
}

static void *wrap(const char *symbol, int ptds, void *real);

/* cuGetProcAddress as an entry point handed it out: the same wrapping. */
static CUresult w_get_proc_address PRELOAD_SIG_GPA
{
    gpa_fn real = (gpa_fn)atomic_load_explicit(&real_of[W_GPA], memory_order_acquire);
    CUresult r = real ? real(symbol, pfn, cudaVersion, flags, symbolStatus) : PRELOAD_CUDA_MISSING;
    if (r == CUDA_SUCCESS && pfn != NULL)
        *pfn = wrap(symbol, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0, *pfn);
    return r;
}

static void *const wrappers[W_N] = {
    (void *)w_launch_kernel, (void *)w_launch_kernel_ptsz, (void *)w_launch_kernel_ex,
    (void *)w_launch_kernel_ex_ptsz, (void *)w_get_proc_address, (void *)w_mem_alloc, (void *)w_mem_free,
    (void *)w_launch_coop, (void *)w_launch_coop_ptsz,
};

/* What to hand the program for symbol when the driver gave real. */
static void *wrap(const char *symbol, int ptds, void *real)
{
    if (real == NULL || symbol == NULL)
        return real;
    for (int i = 0; i < W_N; i++)
        if (real == wrappers[i])
            return real;   /* ours already (asked twice through our cuGetProcAddress) */
    int idx = !strcmp(symbol, "cuLaunchKernel")          ? (ptds ? W_LK_PTSZ : W_LK)
              : !strcmp(symbol, "cuLaunchKernel_ptsz")   ? W_LK_PTSZ
              : !strcmp(symbol, "cuLaunchKernelEx")      ? (ptds ? W_LKEX_PTSZ : W_LKEX)
              : !strcmp(symbol, "cuLaunchKernelEx_ptsz") ? W_LKEX_PTSZ
              : !strcmp(symbol, "cuGetProcAddress")      ? W_GPA
              : !strcmp(symbol, "cuMemAlloc")            ? W_MALLOC
              : !strcmp(symbol, "cuMemFree")             ? W_MFREE
              : !strcmp(symbol, "cuLaunchCooperativeKernel")      ? (ptds ? W_LCK_PTSZ : W_LCK)
              : !strcmp(symbol, "cuLaunchCooperativeKernel_ptsz") ? W_LCK_PTSZ
                                                         : -1;
    if (idx < 0 || !cuprof_driver_hooks_on())
        return real;
    atomic_store_explicit(&real_of[idx], real, memory_order_release);
    return wrappers[idx];
}

/* The symbol an entry-point query asks for, kept with its call (event.name). */
static inline void name_symbol(preload_call c, const char *symbol)
{
    if (c.ev != NULL && symbol != NULL) {
        int e = *c.errp;
        c.ev->name = cuprof_string_intern(symbol);
        *c.errp = e;
    }
}

#define ENTRY_POINT(name, ptds_flag)                                                                   \
    PRELOAD_EXPORT cudaError_t name PRELOAD_SIG_DEP                                                     \
    {                                                                                                  \
        preload_##name##_fn real = PRELOAD_REAL(name);                                                 \
        preload_call c = HOOK_BEGIN(name);                                                             \
        name_symbol(c, symbol);                                                                        \
        cudaError_t r = real ? real(symbol, funcPtr, flags, driverStatus) : PRELOAD_CUDART_MISSING;    \
        if (r == cudaSuccess && funcPtr != NULL)                                                       \
            *funcPtr = wrap(symbol, (ptds_flag) || (flags & cudaEnablePerThreadDefaultStream), *funcPtr); \
        return (cudaError_t)hook_end(c, r);                                                            \
    }
ENTRY_POINT(cudaGetDriverEntryPoint, 0)
ENTRY_POINT(cudaGetDriverEntryPoint_ptsz, 1)

#define ENTRY_POINT_V(name, ptds_flag)                                                                 \
    PRELOAD_EXPORT cudaError_t name PRELOAD_SIG_DEPV                                                    \
    {                                                                                                  \
        preload_##name##_fn real = PRELOAD_REAL(name);                                                 \
        preload_call c = HOOK_BEGIN(name);                                                             \
        name_symbol(c, symbol);                                                                        \
        cudaError_t r = real ? real(symbol, funcPtr, cudaVersion, flags, driverStatus) : PRELOAD_CUDART_MISSING; \
        if (r == cudaSuccess && funcPtr != NULL)                                                       \
            *funcPtr = wrap(symbol, (ptds_flag) || (flags & cudaEnablePerThreadDefaultStream), *funcPtr); \
        return (cudaError_t)hook_end(c, r);                                                            \
    }
ENTRY_POINT_V(cudaGetDriverEntryPointByVersion, 0)
ENTRY_POINT_V(cudaGetDriverEntryPointByVersion_ptsz, 1)

PRELOAD_EXPORT CUresult cuGetProcAddress_v2 PRELOAD_SIG_GPA
{
    preload_cuGetProcAddress_v2_fn real = PRELOAD_REAL(cuGetProcAddress_v2);
    preload_call c = HOOK_BEGIN(cuGetProcAddress_v2);
    name_symbol(c, symbol);
    CUresult r = real ? real(symbol, pfn, cudaVersion, flags, symbolStatus) : PRELOAD_CUDA_MISSING;
    if (r == CUDA_SUCCESS && pfn != NULL)
        *pfn = wrap(symbol, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0, *pfn);
    return (CUresult)hook_end(c, r);
}
