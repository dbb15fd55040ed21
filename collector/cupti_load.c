/*
 * cupti_load.c - finding and loading libcupti, resolving its entry points,
 * and naming its errors.
 *
 * libcuprof must not link CUPTI (the program may have none, or its own in
 * another folder): the library is dlopen'ed with RTLD_LOCAL and every entry
 * point resolved into cuprof_cupti_fn, a candidate lacking a required one is
 * passed over. Search order (the first that loads and resolves wins):
 *   1. "libcupti.so.13": LD_LIBRARY_PATH (the sim), the loader cache;
 *   2. next to the libcudart.so.13 the process loaded (dladdr);
 *   3. $CUDA_HOME/lib64, $CUDA_HOME/extras/CUPTI/lib64 (before CUDA 13);
 *   4. /usr/local/cuda/lib64, /usr/local/cuda/extras/CUPTI/lib64.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cupti_int.h"
#include "collector/libc.h"

cuprof_cupti_api cuprof_cupti_fn;

const char *cuprof_cupti_err(CUptiResult r)
{
    static char buf[8][96];
    static unsigned slot;
    const char *s = NULL;
    if (cuprof_cupti_fn.cuptiGetResultString != NULL &&
        cuprof_cupti_fn.cuptiGetResultString(r, &s) == CUPTI_SUCCESS && s != NULL &&
        strncmp(s, "CUPTI_", 6) == 0)
        return s;
    char *b = buf[__atomic_fetch_add(&slot, 1, __ATOMIC_RELAXED) % 8];
    if (r == CUPTI_ERROR_UNKNOWN)
        snprintf(b, sizeof buf[0], "CUPTI_ERROR_UNKNOWN");
    else
        snprintf(b, sizeof buf[0], "CUPTI error %d%s%s", (int)r, s ? ": " : "", s ? s : "");
    return b;
}

/* What a user can do about an error, or "". */
const char *cuprof_cupti_err_hint(CUptiResult r)
{
    switch (r) {
    case CUPTI_ERROR_UNKNOWN:
    case CUPTI_ERROR_NOT_INITIALIZED:
    case CUPTI_ERROR_INVALID_DEVICE:
    case CUPTI_ERROR_NOT_COMPATIBLE:
        return " (no NVIDIA driver, or one older than this CUPTI?)";
    case CUPTI_ERROR_INSUFFICIENT_PRIVILEGES:
    case CUPTI_ERROR_VIRTUALIZED_DEVICE_INSUFFICIENT_PRIVILEGES:
        return " (profiling needs permission: see NVreg_RestrictProfilingToAdminUsers)";
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        return " (another profiler, e.g. Nsight Systems, holds CUPTI)";
    default:
        return "";
    }
}

/* Resolves the table from lib; on a missing required entry point names it in
 * *missing and returns -1. */
static int resolve(void *lib, cuprof_cupti_api *f, const char **missing)
{
    memset(f, 0, sizeof *f);
#define CUPROF_CUPTI_RESOLVE(req, name)                  \
    *(void **)&f->name = cuprof_libc_dlsym(lib, #name);              \
    if ((req) && f->name == NULL) {                      \
        *missing = #name;                                \
        return -1;                                       \
    }
    CUPROF_CUPTI_FUNCS(CUPROF_CUPTI_RESOLVE)
#undef CUPROF_CUPTI_RESOLVE
    f->lib = lib;
    return 0;
}

/* Tries one candidate; returns 0 when loaded and resolved. tried collects
 * what failed, for the reason. */
static int try_load(const char *path, char *tried, size_t tried_len)
{
    size_t used = strlen(tried);
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *e = dlerror();
        /* "cannot open shared object file" says nothing new per path. */
        int not_found = e == NULL || strstr(e, "No such file") != NULL;
        snprintf(tried + used, tried_len - used, "%s%s%s%s", used ? ", " : "", path,
                 not_found ? "" : ": ", not_found ? "" : e);
        return -1;
    }
    cuprof_cupti_api f;
    const char *missing = NULL;
    if (resolve(lib, &f, &missing) != 0) {
        snprintf(tried + used, tried_len - used, "%s%s (lacks %s)", used ? ", " : "", path,
                 missing);
        dlclose(lib);
        return -1;
    }
    Dl_info info;
    if (dladdr(*(void **)&f.cuptiActivityEnable, &info) != 0 && info.dli_fname != NULL)
        snprintf(f.path, sizeof f.path, "%s", info.dli_fname);
    else
        snprintf(f.path, sizeof f.path, "%s", path);
    cuprof_cupti_fn = f;
    return 0;
}

/* Directory of the libcudart this process loaded, or "" (static cudart,
 * not loaded yet). dlsym on the cudart handle, not RTLD_DEFAULT: our own
 * hooks export the same names. */
static void cudart_dir(char *dir, size_t len)
{
    dir[0] = '\0';
    void *h = dlopen("libcudart.so.13", RTLD_LAZY | RTLD_NOLOAD);
    if (h == NULL)
        return;
    void *sym = cuprof_libc_dlsym(h, "cudaRuntimeGetVersion");
    Dl_info info;
    if (sym != NULL && dladdr(sym, &info) != 0 && info.dli_fname != NULL) {
        snprintf(dir, len, "%s", info.dli_fname);
        char *slash = strrchr(dir, '/');
        if (slash != NULL)
            *slash = '\0';
        else
            dir[0] = '\0';
    }
    dlclose(h);
}

int cuprof_cupti_load(const char *path, char *reason, size_t len)
{
    char tried[1024] = "";
    if (path != NULL) {
        if (try_load(path, tried, sizeof tried) == 0)
            return 0;
        snprintf(reason, len, "CUPTI: cannot load %s", tried);
        return -1;
    }
    char cudart[PATH_MAX], cand[PATH_MAX + 64];
    cudart_dir(cudart, sizeof cudart);
    const char *home = getenv("CUDA_HOME");
    if (home != NULL && strcmp(home, "/usr/local/cuda") == 0)
        home = NULL; /* tried below anyway */
    /* Folder (NULL or "": skip; "." for the bare soname) and file. CUDA 13
     * keeps libcupti next to libcudart in lib64/; older toolkits in
     * extras/CUPTI/lib64/. */
    const struct {
        const char *dir, *file;
    } cands[] = {
        {".", "libcupti.so.13"},
        {cudart, "/libcupti.so.13"},
        {home, "/lib64/libcupti.so.13"},
        {home, "/extras/CUPTI/lib64/libcupti.so.13"},
        {"/usr/local/cuda", "/lib64/libcupti.so.13"},
        {"/usr/local/cuda", "/extras/CUPTI/lib64/libcupti.so.13"},
    };
    for (size_t i = 0; i < sizeof cands / sizeof cands[0]; i++) {
        const char *dir = cands[i].dir;
        if (dir == NULL || dir[0] == '\0')
            continue;
        snprintf(cand, sizeof cand, "%s%s", strcmp(dir, ".") == 0 ? "" : dir, cands[i].file);
        if (try_load(cand, tried, sizeof tried) == 0)
            return 0;
    }
    snprintf(reason, len, "CUPTI: libcupti.so.13 not found (tried %s); set CUDA_HOME to the "
             "CUDA toolkit or put its lib64 on LD_LIBRARY_PATH", tried);
    return -1;
}
