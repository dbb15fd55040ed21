/*
 * hooks_driver.c - the driver API's launches, and the way Triton and PyTorch
 * reach the driver: by address, from cuGetProcAddress or
 * cudaGetDriverEntryPoint*.
 *
 * The launch functions a program links (cuLaunchKernel, cuLaunchKernelEx,
 * cuLaunchCooperativeKernel and their per-thread-stream forms) are hooked
 * here, recording the call like any hooked launch (kernel name, grid, block,
 * shared memory, stream).
 *
 * No export of ours is on the entry points' path, so their hooks hand back,
 * for a function the driver gave, the hook of ours that calls that very
 * function (the export whose real function is the same address: every
 * driver hook, hand-written or generated, hooks_driver_api.c,
 * hooks_driver_gen.c), so that a program's calls through the pointer are
 * rows as its linked calls are, and counted once. Where the driver gave a
 * function no export of it matches, the launch functions, cuMemAlloc and
 * cuMemFree get wrappers that call what the driver gave, and the rest is
 * handed back as the driver gave it. For cuGetProcAddress itself, what
 * it hands out is wrapped the same way.
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

/* The real function behind a wrapper (idx) or behind a hook (PRELOAD_FN_name). */
#define W_REAL(idx) atomic_load_explicit(&real_of[idx], memory_order_acquire)
#define H_REAL(name) preload_real(PRELOAD_FN_##name)

/* A launch: the wrapper `fname` (static) or the hook `name` (exported) when
 * fname is the hook's name; `real` the function it calls. */
#define W_LAUNCH(vis, fname, realexpr, api)                                                            \
    vis CUresult fname(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,     \
                       unsigned bz, unsigned smem, CUstream hs, void **params, void **extra)              \
    {                                                                                                  \
        lk_fn real = (lk_fn)(realexpr);                                                                \
        uint32_t kernel = kernel_id(f); /* before the call's clock starts: a first naming is ours */  \
        preload_call c = hook_begin(api, CUPROF_EV_LAUNCH);                                            \
        fill(c, kernel, gx, gy, gz, bx, by, bz, smem, hs);                                             \
        CUresult r = real ? real(f, gx, gy, gz, bx, by, bz, smem, hs, params, extra) : PRELOAD_CUDA_MISSING; \
        return (CUresult)hook_end(c, r);                                                               \
    }
W_LAUNCH(static, w_launch_kernel, W_REAL(W_LK), PRELOAD_FN_cuLaunchKernel)
W_LAUNCH(static, w_launch_kernel_ptsz, W_REAL(W_LK_PTSZ), PRELOAD_FN_cuLaunchKernel_ptsz)
W_LAUNCH(PRELOAD_EXPORT, cuLaunchKernel, H_REAL(cuLaunchKernel), PRELOAD_FN_cuLaunchKernel)
W_LAUNCH(PRELOAD_EXPORT, cuLaunchKernel_ptsz, H_REAL(cuLaunchKernel_ptsz), PRELOAD_FN_cuLaunchKernel_ptsz)

/* cuLaunchCooperativeKernel and _ptsz: cuLaunchKernel's arguments without
 * `extra`. */
#define W_LAUNCH_COOP(vis, fname, realexpr, api)                                                       \
    vis CUresult fname(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,     \
                       unsigned bz, unsigned smem, CUstream hs, void **params)                            \
    {                                                                                                  \
        lck_fn real = (lck_fn)(realexpr);                                                              \
        uint32_t kernel = kernel_id(f);                                                                \
        preload_call c = hook_begin(api, CUPROF_EV_LAUNCH);                                            \
        fill(c, kernel, gx, gy, gz, bx, by, bz, smem, hs);                                             \
        CUresult r = real ? real(f, gx, gy, gz, bx, by, bz, smem, hs, params) : PRELOAD_CUDA_MISSING;  \
        return (CUresult)hook_end(c, r);                                                               \
    }
W_LAUNCH_COOP(static, w_launch_coop, W_REAL(W_LCK), PRELOAD_FN_cuLaunchCooperativeKernel)
W_LAUNCH_COOP(static, w_launch_coop_ptsz, W_REAL(W_LCK_PTSZ), PRELOAD_FN_cuLaunchCooperativeKernel_ptsz)
W_LAUNCH_COOP(PRELOAD_EXPORT, cuLaunchCooperativeKernel, H_REAL(cuLaunchCooperativeKernel),
              PRELOAD_FN_cuLaunchCooperativeKernel)
W_LAUNCH_COOP(PRELOAD_EXPORT, cuLaunchCooperativeKernel_ptsz, H_REAL(cuLaunchCooperativeKernel_ptsz),
              PRELOAD_FN_cuLaunchCooperativeKernel_ptsz)

#define W_LAUNCH_EX(vis, fname, realexpr, api)                                                         \
    vis CUresult fname(const CUlaunchConfig *cfg, CUfunction f, void **params, void **extra)           \
    {                                                                                                  \
        lkex_fn real = (lkex_fn)(realexpr);                                                            \
        uint32_t kernel = kernel_id(f);                                                                \
        preload_call c = hook_begin(api, CUPROF_EV_LAUNCH);                                            \
        if (cfg)                                                                                       \
            fill(c, kernel, cfg->gridDimX, cfg->gridDimY, cfg->gridDimZ, cfg->blockDimX, cfg->blockDimY,    \
                 cfg->blockDimZ, cfg->sharedMemBytes, cfg->hStream);                                   \
        CUresult r = real ? real(cfg, f, params, extra) : PRELOAD_CUDA_MISSING;                        \
        return (CUresult)hook_end(c, r);                                                               \
    }
W_LAUNCH_EX(static, w_launch_kernel_ex, W_REAL(W_LKEX), PRELOAD_FN_cuLaunchKernelEx)
W_LAUNCH_EX(static, w_launch_kernel_ex_ptsz, W_REAL(W_LKEX_PTSZ), PRELOAD_FN_cuLaunchKernelEx_ptsz)
W_LAUNCH_EX(PRELOAD_EXPORT, cuLaunchKernelEx, H_REAL(cuLaunchKernelEx), PRELOAD_FN_cuLaunchKernelEx)
W_LAUNCH_EX(PRELOAD_EXPORT, cuLaunchKernelEx_ptsz, H_REAL(cuLaunchKernelEx_ptsz), PRELOAD_FN_cuLaunchKernelEx_ptsz)

/* Device memory through a driver function no hook of ours matches
 * (preload_drv_mem_alloc/free, hooks_driver_api.c: as the hooks record it). */
static CUresult w_mem_alloc(CUdeviceptr *dptr, size_t bytes)
{
    return preload_drv_mem_alloc(W_REAL(W_MALLOC), dptr, bytes);
}

static CUresult w_mem_free(CUdeviceptr dptr)
{
    return preload_drv_mem_free(W_REAL(W_MFREE), dptr);
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

/* Every hook's name, library and address, in PRELOAD_FN order (the
 * addresses of hooks of deprecated functions too: not a use of them). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static const struct {
    const char *name;
    unsigned char lib;
    void *addr;
} hook_table[PRELOAD_N_HOOKS] = {
#define X(name, lib, cls, ret, params) {#name, lib, (void *)name},
    PRELOAD_HOOKS(X)
#undef X
};
#pragma GCC diagnostic pop

/* n is symbol, or symbol with a version (_v2 ... _v9) and/or a
 * per-thread-stream suffix (_ptsz, _ptds): the names the driver answers
 * symbol with. */
static int names_form_of(const char *n, const char *symbol)
{
    size_t k = strlen(symbol);
    if (strncmp(n, symbol, k) != 0)
        return 0;
    n += k;
    if (n[0] == '_' && n[1] == 'v' && n[2] >= '2' && n[2] <= '9')
        n += 3;
    return !*n || !strcmp(n, "_ptsz") || !strcmp(n, "_ptds");
}

/* Our driver hook that calls `real` and answers to symbol, or NULL. */
static void *hook_for(const char *symbol, void *real)
{
    for (unsigned i = 0; i < PRELOAD_N_HOOKS; i++)
        if (hook_table[i].lib == PRELOAD_LIB_CUDA && hook_table[i].name[2] == symbol[2] &&
            names_form_of(hook_table[i].name, symbol) && preload_real(i) == real)
            return hook_table[i].addr;
    return NULL;
}

/* 1 when p is already ours: a wrapper, or a driver hook. */
static int is_ours(void *p)
{
    for (int i = 0; i < W_N; i++)
        if (p == wrappers[i])
            return 1;
    for (unsigned i = 0; i < PRELOAD_N_HOOKS; i++)
        if (p == hook_table[i].addr)
            return 1;
    return 0;
}

/* What to hand the program for symbol when the driver gave real: our hook
 * of that function; else a wrapper (launches, cuMemAlloc, cuMemFree,
 * cuGetProcAddress) that calls it; else real. */
static void *wrap(const char *symbol, int ptds, void *real)
{
    if (real == NULL || symbol == NULL || strncmp(symbol, "cu", 2) != 0)
        return real;
    if (is_ours(real))
        return real;   /* asked twice through our cuGetProcAddress */
    if (!cuprof_driver_hooks_on())
        return real;
    int e = errno;
    void *h = hook_for(symbol, real);
    errno = e;
    if (h != NULL)
        return h;
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
    if (idx < 0)
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

/* The CUDA 11 form (no status), which older runtimes and programs call. */
PRELOAD_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    preload_cuGetProcAddress_fn real = PRELOAD_REAL(cuGetProcAddress);
    preload_call c = HOOK_BEGIN(cuGetProcAddress);
    name_symbol(c, symbol);
    CUresult r = real ? real(symbol, pfn, cudaVersion, flags) : PRELOAD_CUDA_MISSING;
    if (r == CUDA_SUCCESS && pfn != NULL)
        *pfn = wrap(symbol, (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) != 0, *pfn);
    return (CUresult)hook_end(c, r);
}
