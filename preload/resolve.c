/*
 * resolve.c - finds the real function behind every hook, in one place, and
 * registers the API table with the collector.
 *
 * Lookup order for each name: dlsym(RTLD_NEXT) (the library the program
 * linked, next after us in the global scope), then, if that misses,
 * dlopen(soname, RTLD_NOLOAD) + dlsym: a program (or python) that loads CUDA
 * with RTLD_LOCAL keeps it out of the global scope, yet its calls still bind
 * to our global hooks. A name still missing is retried on each call to its
 * hook (the library may be loaded later); the hook returns an error meanwhile.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "preload/hooks.h"

/* Category of each library's calls, by the enum constant's name. */
#define CAT_PRELOAD_LIB_CUDART "cuda_runtime"
#define CAT_PRELOAD_LIB_CUBLAS "cublas"
#define CAT_PRELOAD_LIB_CUBLASLT "cublaslt"
#define CAT_PRELOAD_LIB_MPI "mpi"
#define CAT_PRELOAD_LIB_CUDA "cuda_driver"
#define CAT_PRELOAD_LIB_NCCL "nccl"
#define CAT_PRELOAD_LIB_CUFFT "cufft"
#define CAT_PRELOAD_LIB_CURAND "curand"
#define CAT_PRELOAD_LIB_CUSPARSE "cusparse"
#define CAT_PRELOAD_LIB_CUSOLVER "cusolver"
#define CAT_PRELOAD_LIB_CUSOLVERMG "cusolver"

/* Sonames by enum preload_lib, for dlopen(RTLD_NOLOAD) when RTLD_NEXT misses. */
static const char *const preload_sonames[PRELOAD_N_LIBS] = {
    [PRELOAD_LIB_CUDART] = "libcudart.so.13",
    [PRELOAD_LIB_CUBLAS] = "libcublas.so.13",
    [PRELOAD_LIB_CUBLASLT] = "libcublasLt.so.13",
    [PRELOAD_LIB_LIBC] = "libc.so.6",
    [PRELOAD_LIB_MPI] = "libmpi.so.40",   /* Open MPI's; MPICH's is found by RTLD_NEXT */
    [PRELOAD_LIB_CUDA] = "libcuda.so.1",
    [PRELOAD_LIB_NCCL] = "libnccl.so.2",
    [PRELOAD_LIB_CUFFT] = "libcufft.so.12",
    [PRELOAD_LIB_CURAND] = "libcurand.so.10",
    [PRELOAD_LIB_CUSPARSE] = "libcusparse.so.12",
    [PRELOAD_LIB_CUSOLVER] = "libcusolver.so.12",
    [PRELOAD_LIB_CUSOLVERMG] = "libcusolverMg.so.12",
};

/* Name and library of every function in enum preload_fn order. */
static const struct {
    const char *name;
    enum preload_lib lib;
} fn_table[PRELOAD_N_FNS] = {
#define X(name, lib, cls, ret, params) {#name, lib},
    PRELOAD_HOOKS(X)
#undef X
#define X(name, lib, ret, params) {#name, lib},
    PRELOAD_HELPERS(X)
#undef X
#define X(name, ret, params) {#name, PRELOAD_LIB_LIBC},
    PRELOAD_LIBC_HOOKS(X)
#undef X
};

/* The collector's view of the hooks and the NVTX entry points (event.api
 * indexes it). */
static const cuprof_api_desc preload_api_table[PRELOAD_N_APIS] = {
#define X(name, lib, cls, ret, params) {#name, CAT_##lib},
    PRELOAD_HOOKS(X)
#undef X
#define X(name) {#name, "nvtx"},
    PRELOAD_NVTX_APIS(X)
#undef X
};

_Atomic(void *) cuprof_preload_real_fns[PRELOAD_N_FNS];

/* dlopen handles kept (never closed) for libraries found with RTLD_NOLOAD:
 * holding the reference keeps the real functions mapped even if the program
 * dlcloses its own handle. */
static _Atomic(void *) lib_handles[PRELOAD_N_LIBS];

/* Our own address, to reject a lookup that finds ourselves (possible when
 * the library is reached through a dlopen handle that includes us). */
static int is_self(void *p)
{
    Dl_info self, found;
    if (!dladdr((void *)cuprof_preload_resolve_all, &self) || !dladdr(p, &found))
        return 0;
    return self.dli_fbase == found.dli_fbase;
}

static void *lookup_in_lib(enum preload_lib lib, const char *name)
{
    void *h = atomic_load_explicit(&lib_handles[lib], memory_order_acquire);
    if (h == NULL) {
        h = dlopen(preload_sonames[lib], RTLD_NOLOAD | RTLD_LAZY);
        if (h == NULL)
            return NULL;
        void *expected = NULL;
        if (!atomic_compare_exchange_strong(&lib_handles[lib], &expected, h)) {
            dlclose(h); /* another thread stored one first */
            h = expected;
        }
    }
    return dlsym(h, name);
}

/* One lookup for fn; stores and returns what it found (NULL if nothing).
 * absent (the first pass only, else NULL): the libraries found not loaded
 * so far in this pass, which are not asked again (a failed dlopen costs
 * about 15 us: 600 driver functions in a program without libcuda took 10 ms
 * at every start). */
static void *resolve_one(unsigned fn, unsigned char *absent)
{
    const char *name = fn_table[fn].name;
    enum preload_lib lib = fn_table[fn].lib;
    void *p = dlsym(RTLD_NEXT, name);
    if ((p == NULL || is_self(p)) && absent != NULL && absent[lib])
        return NULL;
    if (p == NULL || is_self(p)) {
        p = lookup_in_lib(lib, name);
        if (p == NULL && absent != NULL && atomic_load_explicit(&lib_handles[lib], memory_order_acquire) == NULL)
            absent[lib] = 1;
    }
    if (p != NULL && is_self(p))
        p = NULL;
    if (p != NULL)
        atomic_store_explicit(&cuprof_preload_real_fns[fn], p, memory_order_release);
    return p;
}

/* Hook names -> ids (enum preload_fn below PRELOAD_N_HOOKS), for the dlsym
 * hook (hooks_dlsym.c): open addressing, built once. */
#define NAME_SLOTS 8192u
static uint16_t name_slots[NAME_SLOTS];   /* id + 1, 0 empty */
static pthread_once_t names_once = PTHREAD_ONCE_INIT;

static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void names_build(void)
{
    for (unsigned fn = 0; fn < PRELOAD_N_HOOKS; fn++) {
        uint32_t i = name_hash(fn_table[fn].name) & (NAME_SLOTS - 1);
        while (name_slots[i])
            i = (i + 1) & (NAME_SLOTS - 1);
        name_slots[i] = (uint16_t)(fn + 1);
    }
}

int cuprof_preload_hook_of(const char *name)
{
    pthread_once(&names_once, names_build);
    for (uint32_t i = name_hash(name) & (NAME_SLOTS - 1);; i = (i + 1) & (NAME_SLOTS - 1)) {
        unsigned v = name_slots[i];
        if (v == 0)
            return -1;
        if (!strcmp(fn_table[v - 1].name, name))
            return (int)v - 1;
    }
}

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;
/* Set on the thread running resolve_all_once: if anything it calls comes
 * back into a hook (a collector that starts CUDA while registering), that
 * hook resolves its own function directly instead of waiting on the once it
 * is already inside (a self-deadlock). */
static _Thread_local int resolving;

static void resolve_all_once(void)
{
    resolving = 1;
    /* Register before any pointer is published: a hook on another thread that
     * sees a resolved pointer may call cuprof_begin at once. The collector
     * itself starts from cuprof_begin, outside the once. */
    cuprof_api_register(preload_api_table, PRELOAD_N_APIS);
    unsigned char absent[PRELOAD_N_LIBS] = {0};
    for (unsigned i = 0; i < PRELOAD_N_FNS; i++)
        resolve_one(i, absent);
    resolving = 0;
}

void cuprof_preload_resolve_all(void)
{
    pthread_once(&resolve_once, resolve_all_once);
}

void *cuprof_preload_resolve(unsigned fn)
{
    if (!resolving)
        cuprof_preload_resolve_all();
    void *p = atomic_load_explicit(&cuprof_preload_real_fns[fn], memory_order_acquire);
    return p != NULL ? p : resolve_one(fn, NULL);
}

/* Resolve at load time so the hot path never takes the slow one in a normal
 * program; hooks called earlier (another library's static initializer runs
 * before our constructor) resolve on first use instead. */
__attribute__((constructor)) static void preload_constructor(void)
{
    cuprof_preload_resolve_all();
}
