/*
 * launch_overhead.cu - host cost of a kernel launch: N launches of an empty
 * kernel through `<<<>>>` (which nvcc 13 turns into __cudaPushCallConfiguration
 * / __cudaPopCallConfiguration / __cudaLaunchKernel) and through the public
 * cudaLaunchKernel, timed on the host with CLOCK_MONOTONIC.
 *
 * The launches go to the default stream; built with
 * --default-stream per-thread the same source exercises the _ptsz entry
 * points. One warm-up launch per path (module loading, lazy init) is made and
 * synchronized before timing; the host synchronizes once after each timed
 * path, and that wait is reported separately.
 *
 * Exit status: 0 ok, 2 usage error, 3 CUDA error (the message names the call).
 */
#include <cuda_runtime.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define EXIT_USAGE 2
#define EXIT_CUDA 3

#define CUDA_CALL(expr)                                                                       \
    do {                                                                                      \
        cudaError_t e_ = (expr);                                                              \
        if (e_ != cudaSuccess) {                                                              \
            fprintf(stderr, "launch_overhead: %s failed: %s (%d): %s\n", #expr,               \
                    cudaGetErrorName(e_), (int)e_, cudaGetErrorString(e_));                   \
            exit(EXIT_CUDA);                                                                  \
        }                                                                                     \
    } while (0)

__global__ void empty_kernel(void) {}

static unsigned long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void usage(FILE *f)
{
    fprintf(f, "usage: launch_overhead [--n N] [--path triple|api|both]\n"
               "  N launches (default 100000) of an empty kernel per path; prints host ns\n"
               "  per launch. triple = kernel<<<1, 1>>>(), api = cudaLaunchKernel.\n");
}

static void usage_error(const char *what, const char *arg)
{
    fprintf(stderr, "launch_overhead: %s: %s\n", what, arg ? arg : "missing value");
    usage(stderr);
    exit(EXIT_USAGE);
}

static void launch_triple(void) { empty_kernel<<<1, 1>>>(); }

static void launch_api(void)
{
    CUDA_CALL(cudaLaunchKernel((const void *)empty_kernel, dim3(1), dim3(1), NULL, 0, 0));
}

/* Times n launches through one path; prints ns per launch and the final wait. */
static void time_path(const char *name, void (*launch)(void), long n)
{
    launch(); /* warm-up: the first launch pays for module loading */
    CUDA_CALL(cudaGetLastError());
    CUDA_CALL(cudaDeviceSynchronize());
    unsigned long long t0 = now_ns();
    for (long i = 0; i < n; i++)
        launch();
    unsigned long long t1 = now_ns();
    CUDA_CALL(cudaGetLastError()); /* <<<>>> reports launch errors only here */
    CUDA_CALL(cudaDeviceSynchronize());
    unsigned long long t2 = now_ns();
    printf("%-6s launches=%ld host_ns_per_launch=%.1f sync_us=%.1f\n", name, n,
           (double)(t1 - t0) / (double)n, (double)(t2 - t1) / 1e3);
}

int main(int argc, char **argv)
{
    long n = 100000;
    int triple = 1, api = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--n")) {
            char *end;
            n = v ? strtol(v, &end, 10) : 0;
            if (!v || !*v || *end || n < 1)
                usage_error("--n", v);
            i++;
        } else if (!strcmp(a, "--path")) {
            if (!v || (strcmp(v, "triple") && strcmp(v, "api") && strcmp(v, "both")))
                usage_error("--path", v);
            triple = strcmp(v, "api") != 0;
            api = strcmp(v, "triple") != 0;
            i++;
        } else {
            usage_error("unknown argument", a);
        }
    }
    cudaDeviceProp prop;
    CUDA_CALL(cudaGetDeviceProperties(&prop, 0));
    printf("launch_overhead: device=%s n=%ld\n", prop.name, n);
    if (triple)
        time_path("triple", launch_triple, n);
    if (api)
        time_path("api", launch_api, n);
    return 0;
}
