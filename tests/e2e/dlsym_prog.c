/*
 * dlsym_prog.c - where dlsym's answers lead under the dlsym hook
 * (preload/hooks_dlsym.c; test_e2e_driver.c's dlsym_lookups): prints the
 * object each lookup's address lies in, one "NAME -> OBJECT" line each:
 *   handle:cuLaunchKernel        on libcuda.so.1's own handle (the hook's)
 *   handle:cuGetProcAddress_v2   the same (the driver's own: a static
 *                                runtime bootstraps from it)
 *   handle:cudaMalloc            on libcudart.so's own handle (the hook's)
 *   handle:cudaGetErrorString    ditto, a function not hooked (the library's)
 *   default:cudaMalloc           RTLD_DEFAULT
 *   next:dlsym                   RTLD_NEXT from the program: the next object
 *                                after it that defines dlsym
 *   handle:nosuch                NULL, dlerror() set
 * then calls cudaMalloc through the pointer the handle gave.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

static void show(const char *what, void *p)
{
    Dl_info i;
    const char *obj = p && dladdr(p, &i) && i.dli_fname ? strrchr(i.dli_fname, '/') : NULL;
    printf("%s -> %s\n", what, p ? (obj ? obj + 1 : "?") : "NULL");
}

int main(void)
{
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    void *rt = dlopen("libcudart.so", RTLD_NOW | RTLD_LOCAL);
    if (!cuda || !rt) {
        fprintf(stderr, "dlsym_prog: %s\n", dlerror());
        return 1;
    }
    show("handle:cuLaunchKernel", dlsym(cuda, "cuLaunchKernel"));
    show("handle:cuGetProcAddress_v2", dlsym(cuda, "cuGetProcAddress_v2"));
    void *mallocp = dlsym(rt, "cudaMalloc");
    show("handle:cudaMalloc", mallocp);
    show("handle:cudaGetErrorString", dlsym(rt, "cudaGetErrorString"));
    show("default:cudaMalloc", dlsym(RTLD_DEFAULT, "cudaMalloc"));
    show("next:dlsym", dlsym(RTLD_NEXT, "dlsym"));
    dlerror();
    void *none = dlsym(rt, "nosuch");
    const char *err = dlerror();
    printf("handle:nosuch -> %s, dlerror %s\n", none ? "found" : "NULL", err ? "set" : "unset");
    /* one call through what the handle gave */
    void *d = NULL;
    int rc = ((int (*)(void **, size_t))mallocp)(&d, 256);
    printf("cudaMalloc through the handle: %d\n", rc);
    return rc != 0;
}
