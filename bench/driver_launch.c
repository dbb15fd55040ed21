/*
 * driver_launch.c - the driver-API workload: a kernel loaded from a cubin
 * (bench/driver_kernel.cubin, built by nvcc -cubin) and launched with
 * cuLaunchKernelEx, every driver function obtained through
 * cudaGetDriverEntryPointByVersion, the way Triton and PyTorch's driver calls
 * reach the driver from a runtime program. Links only libcudart.
 *
 *   driver_launch [--launches N] [--cubin PATH] [--dlsym] [--cooperative]
 *
 * --dlsym: the driver functions from dlopen("libcuda.so.1") and dlsym
 * instead, the path no export of a profiler is on (only CUPTI sees it).
 * --cooperative: the launches through cuLaunchCooperativeKernel instead.
 *
 * Prints "driver_launch: N launches of scale" and exits 0; 3 when a CUDA
 * call fails (the message names it), 2 for a usage error.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef CUresult (*load_fn)(CUmodule *, const void *);
typedef CUresult (*getfn_fn)(CUfunction *, CUmodule, const char *);
typedef CUresult (*launchex_fn)(const CUlaunchConfig *, CUfunction, void **, void **);
typedef CUresult (*launchco_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                unsigned, CUstream, void **);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*sync_fn)(void);

static void *libcuda;   /* --dlsym: the driver library's handle */

static void *entry(const char *name)
{
    if (libcuda) {
        /* the exported names of the versioned functions */
        char sym[64];
        snprintf(sym, sizeof sym, "%s%s", name,
                 !strcmp(name, "cuMemAlloc") || !strcmp(name, "cuMemFree") ? "_v2" : "");
        void *f = dlsym(libcuda, sym);
        if (f == NULL) {
            fprintf(stderr, "driver_launch: dlsym(%s): %s\n", sym, dlerror());
            exit(3);
        }
        return f;
    }
    void *p = NULL;
    enum cudaDriverEntryPointQueryResult st;
    cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &st);
    if (e != cudaSuccess || st != cudaDriverEntryPointSuccess || p == NULL) {
        fprintf(stderr, "driver_launch: cudaGetDriverEntryPointByVersion(%s) failed: %s\n", name,
                cudaGetErrorString(e));
        exit(3);
    }
    return p;
}

static void check(CUresult r, const char *what)
{
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "driver_launch: %s failed: CUresult %d\n", what, (int)r);
        exit(3);
    }
}

/* The cubin: --cubin, else driver_kernel.cubin next to this program. */
static char *read_cubin(const char *path, const char *argv0)
{
    char buf[4096];
    if (!path) {
        const char *slash = strrchr(argv0, '/');
        snprintf(buf, sizeof buf, "%.*sdriver_kernel.cubin", slash ? (int)(slash - argv0 + 1) : 0, argv0);
        path = buf;
    }
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "driver_launch: cannot open %s (build it with make)\n", path);
        exit(3);
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *img = malloc(n > 0 ? (size_t)n : 1);
    if (!img || fread(img, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "driver_launch: cannot read %s\n", path);
        exit(3);
    }
    fclose(f);
    return img;
}

int main(int argc, char **argv)
{
    int launches = 10;
    const char *cubin = NULL;
    int cooperative = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--launches") && i + 1 < argc)
            launches = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cubin") && i + 1 < argc)
            cubin = argv[++i];
        else if (!strcmp(argv[i], "--dlsym")) {
            if ((libcuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL)) == NULL) {
                fprintf(stderr, "driver_launch: dlopen(libcuda.so.1): %s\n", dlerror());
                return 3;
            }
        } else if (!strcmp(argv[i], "--cooperative")) {
            cooperative = 1;
        } else {
            fprintf(stderr, "usage: driver_launch [--launches N] [--cubin PATH] [--dlsym] [--cooperative]\n");
            return 2;
        }
    }
    char *img = read_cubin(cubin, argv[0]);
    check(cudaFree(0) == cudaSuccess ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED, "cudaFree(0)");
    load_fn load = (load_fn)entry("cuModuleLoadData");
    getfn_fn getfn = (getfn_fn)entry("cuModuleGetFunction");
    launchex_fn launch = cooperative ? NULL : (launchex_fn)entry("cuLaunchKernelEx");
    launchco_fn launch_co = cooperative ? (launchco_fn)entry("cuLaunchCooperativeKernel") : NULL;
    alloc_fn alloc = (alloc_fn)entry("cuMemAlloc");
    free_fn mfree = (free_fn)entry("cuMemFree");
    sync_fn sync = (sync_fn)entry("cuCtxSynchronize");
    CUmodule mod;
    CUfunction fn;
    check(load(&mod, img), "cuModuleLoadData");
    check(getfn(&fn, mod, "scale"), "cuModuleGetFunction");
    int n = 1 << 16;
    CUdeviceptr x;
    check(alloc(&x, (size_t)n * sizeof(float)), "cuMemAlloc");
    float a = 2.0f;
    void *params[] = {&x, &a, &n};
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = (unsigned)(n + 255) / 256, cfg.gridDimY = cfg.gridDimZ = 1;
    cfg.blockDimX = 256, cfg.blockDimY = cfg.blockDimZ = 1;
    for (int i = 0; i < launches; i++)
        if (cooperative)
            check(launch_co(fn, cfg.gridDimX, 1, 1, cfg.blockDimX, 1, 1, 0, NULL, params),
                  "cuLaunchCooperativeKernel");
        else
            check(launch(&cfg, fn, params, NULL), "cuLaunchKernelEx");
    check(sync(), "cuCtxSynchronize");
    check(mfree(x), "cuMemFree");
    printf("driver_launch: %d launches of scale\n", launches);
    free(img);
    return 0;
}
