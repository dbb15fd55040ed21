/*
 * stacks_prog.c - a C program whose CUDA calls come from known functions,
 * for the host-stack tests (test_e2e_stacks.c). Built twice: with frame
 * pointers and without (-fomit-frame-pointer), where only libunwind can
 * find the callers.
 *
 *   stacks_prog [--depth N] [--exceptions N LIB]
 *     main -> outer_fn -> middle_fn -> inner_fn -> cudaMemsetAsync,
 *     cudaStreamSynchronize; then main -> recurse_fn x N -> cudaMemset.
 *     --exceptions: dlopen LIB (throw_lib.cc, C++) and have it throw and
 *     catch N exceptions; prints "exceptions N caught, ns per throw T,
 *     unwinder OBJECT" (the object _Unwind_RaiseException resolves to for
 *     C++ code loaded after the profiler).
 */
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static volatile int sink;

__attribute__((noinline)) static int inner_fn(void *d, cudaStream_t s)
{
    int rc = cudaMemsetAsync(d, 1, 256, s);
    sink += rc;
    return rc;
}

__attribute__((noinline)) static int middle_fn(void *d, cudaStream_t s)
{
    int rc = inner_fn(d, s);
    sink += 1;
    return rc + sink * 0;
}

__attribute__((noinline)) static int outer_fn(void *d, cudaStream_t s)
{
    int rc = middle_fn(d, s);
    rc += cudaStreamSynchronize(s);
    sink += 2;
    return rc;
}

__attribute__((noinline)) static int recurse_fn(void *d, int n)
{
    if (n <= 1)
        return cudaMemset(d, 2, 64) + sink * 0;
    int rc = recurse_fn(d, n - 1);
    sink += n;
    return rc;
}

int main(int argc, char **argv)
{
    int depth = 0, exceptions = 0;
    const char *lib = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--depth") && i + 1 < argc)
            depth = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--exceptions") && i + 2 < argc) {
            exceptions = atoi(argv[++i]);
            lib = argv[++i];
        }
        else {
            fprintf(stderr, "usage: stacks_prog [--depth N] [--exceptions N LIB]\n");
            return 2;
        }
    }
    void *d = NULL;
    cudaStream_t s;
    if (cudaMalloc(&d, 4096) != cudaSuccess || cudaStreamCreate(&s) != cudaSuccess) {
        fprintf(stderr, "stacks_prog: no CUDA device\n");
        return 1;
    }
    int rc = 0;
    for (int i = 0; i < 3; i++)
        rc |= outer_fn(d, s);
    if (depth > 0)
        rc |= recurse_fn(d, depth);
    if (exceptions > 0) {
        void *h = dlopen(lib, RTLD_NOW | RTLD_GLOBAL);
        int (*run)(int, double *, const char **) = h ? (int (*)(int, double *, const char **))
                                                           dlsym(h, "throw_lib_run") : NULL;
        if (!run) {
            fprintf(stderr, "stacks_prog: %s: %s\n", lib, dlerror());
            return 1;
        }
        double ns = 0;
        const char *unwinder = "?";
        int caught = run(exceptions, &ns, &unwinder);
        printf("exceptions %d caught, ns per throw %.0f, unwinder %s\n", caught, ns, unwinder);
    }
    cudaFree(d);
    cudaStreamDestroy(s);
    printf("stacks_prog: rc %d\n", rc);
    return rc ? 1 : 0;
}
