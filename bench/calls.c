/*
 * calls.c - the overhead benchmark's workload: N calls of a cheap CUDA entry
 * point per thread, timed on the host, so that running it without and with a
 * hook gives the hook's cost per call ((with - without) / N).
 *
 * A plain C program linked against the CUDA 13 runtime (-lcudart); run on the
 * simulated device (LD_LIBRARY_PATH=build/sim, CUSIM_LAUNCH_CPU_NS=0) the
 * call itself costs a few tens of ns, so what a hook adds stands out. It
 * registers one dummy kernel the way nvcc's host code does
 * (__cudaRegisterFatBinary + __cudaRegisterFunction), gives every thread its
 * own stream (so threads do not contend inside the runtime), makes W warm-up
 * calls, waits for the other threads, then times N calls with
 * CLOCK_MONOTONIC.
 *
 *   calls [--n N] [--threads T] [--api launch|klaunch|occupancy|nvtx|nccl|driver|math]
 *         [--warmup W]
 *         [--depth D]
 * --depth: the calls are made D nested function calls deep (the host-stack
 * benchmarks: cuprof --stacks walks every frame).
 *
 * launch    = cudaLaunchKernel(stub, ...)         (what PyTorch calls)
 * klaunch   = __cudaLaunchKernel(handle, ...)     (what nvcc 13 emits for <<<>>>)
 * occupancy = cudaOccupancyMaxActiveBlocksPerMultiprocessor(stub): hooked
 *             too, and lock-free in the sim, whose launches take one global
 *             lock (two threads launching contend there, whatever the hook);
 *             so it is the call the 2-thread scaling is measured with.
 * nvtx      = nvtxRangePushA("step") + nvtxRangePop(): one "call" is the
 *             pair (NVTX is header-only: without a tool in
 *             NVTX_INJECTION64_PATH both are NVTX's own no-ops).
 * nccl      = ncclAllReduce of 0 elements on a one-rank communicator per
 *             thread (made with ncclCommInitAll): the NCCL hook's own cost
 *             (NCCL returns at once for 0 elements).
 * driver    = cuStreamQuery(stream): the driver API linked (-lcuda), as JAX
 *             and the driver samples call it: a generated driver hook's cost.
 * math      = cufftSetStream(plan, stream) on a 1-D C2C plan per thread: a
 *             generated math-library hook's cost (the same path as an exec's,
 *             which also pushes its id for CUPTI when CUPTI runs, without the
 *             library's own work).
 *
 * Prints one line on stdout:
 *   calls api=launch threads=T n=N ns_per_call=X.XX min_thread=.. max_thread=.. rss_kb=..
 * where ns_per_call is the mean over threads of (loop time / N) and rss_kb
 * the peak RSS when the calls are done (before any exit handler). Exit status:
 * 0 ok, 2 usage error, 3 CUDA error.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cufft.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* nvcc's host-side registration and launch entry points (crt/host_runtime.h,
 * not in the public headers; exported by libcudart.so.13). */
void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun,
                            const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid,
                            dim3 *bDim, dim3 *gDim, int *wSize);
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun);
cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args,
                               size_t smem, cudaStream_t stream);

#define MAX_THREADS 64

/* The dummy kernel's host stub: its address is the kernel's identity. */
static void dummy_kernel_stub(void) {}
static char dummy_name[] = "_Z12dummy_kernelv";

static long n_calls = 2000000;
static long n_warmup = 10000;
enum { API_LAUNCH, API_KLAUNCH, API_OCCUPANCY, API_NVTX, API_NCCL, API_DRIVER, API_MATH };
static const char *const api_names[] = {"launch", "klaunch", "occupancy", "nvtx", "nccl", "driver", "math"};
static const char *const api_calls[] = {"cudaLaunchKernel", "__cudaLaunchKernel",
                                        "cudaOccupancyMaxActiveBlocksPerMultiprocessor",
                                        "nvtxRangePushA", "ncclAllReduce", "cuStreamQuery",
                                        "cufftSetStream"};
static int api = API_LAUNCH;
static pthread_barrier_t start_line;

typedef struct worker {
    pthread_t th;
    cudaStream_t stream;
    ncclComm_t comm;   /* --api nccl */
    cufftHandle plan;  /* --api math */
    double ns_per_call;
    int err;
} worker;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Makes n calls on w's stream; nonzero on the first failing call. */
static int run_calls(worker *w, cudaKernel_t handle, long n)
{
    dim3 grid = {1, 1, 1}, block = {32, 1, 1};
    if (api == API_KLAUNCH) {
        for (long i = 0; i < n; i++)
            if (__cudaLaunchKernel(handle, grid, block, NULL, 0, w->stream) != cudaSuccess)
                return 1;
    } else if (api == API_NVTX) {
        for (long i = 0; i < n; i++) {
            nvtxRangePushA("step");
            nvtxRangePop();
        }
    } else if (api == API_NCCL) {
        for (long i = 0; i < n; i++)
            if (ncclAllReduce(NULL, NULL, 0, ncclFloat, ncclSum, w->comm, w->stream) != ncclSuccess)
                return 1;
    } else if (api == API_DRIVER) {
        for (long i = 0; i < n; i++)
            if (cuStreamQuery((CUstream)w->stream) != CUDA_SUCCESS)
                return 1;
    } else if (api == API_MATH) {
        for (long i = 0; i < n; i++)
            if (cufftSetStream(w->plan, w->stream) != CUFFT_SUCCESS)
                return 1;
    } else if (api == API_OCCUPANCY) {
        int blocks;
        for (long i = 0; i < n; i++)
            if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                    &blocks, (const void *)dummy_kernel_stub, 128, 0) != cudaSuccess)
                return 1;
    } else {
        for (long i = 0; i < n; i++)
            if (cudaLaunchKernel((const void *)dummy_kernel_stub, grid, block, NULL, 0,
                                 w->stream) != cudaSuccess)
                return 1;
    }
    return 0;
}

static int depth;   /* --depth */

/* The calls, d frames below the caller (noinline, not a tail call). */
__attribute__((noinline)) static int nested_calls(worker *w, cudaKernel_t handle, long count, int d)
{
    if (d <= 0)
        return run_calls(w, handle, count);
    int rc = nested_calls(w, handle, count, d - 1);
    __asm__ volatile("" ::: "memory");
    return rc;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    cudaKernel_t handle = NULL;
    if (api == API_KLAUNCH && __cudaGetKernel(&handle, (const void *)dummy_kernel_stub) != cudaSuccess)
        w->err = 1;
    int dev0 = 0;
    if (api == API_NCCL && ncclCommInitAll(&w->comm, 1, &dev0) != ncclSuccess)
        w->err = 1;
    if (api == API_MATH && cufftPlan1d(&w->plan, 256, CUFFT_C2C, 1) != CUFFT_SUCCESS)
        w->err = 1;
    if (!w->err)
        w->err = nested_calls(w, handle, n_warmup, depth);
    pthread_barrier_wait(&start_line);
    if (w->err)
        return NULL;
    uint64_t t0 = now_ns();
    w->err = nested_calls(w, handle, n_calls, depth);
    uint64_t t1 = now_ns();
    w->ns_per_call = (double)(t1 - t0) / (double)n_calls;
    return NULL;
}

static long arg_long(const char *opt, const char *v, long min)
{
    char *end;
    long x = v ? strtol(v, &end, 10) : 0;
    if (!v || !*v || *end || x < min) {
        fprintf(stderr, "calls: %s needs an integer >= %ld\n", opt, min);
        exit(2);
    }
    return x;
}

static int api_index(const char *name)
{
    for (int i = 0; i < (int)(sizeof api_names / sizeof api_names[0]); i++)
        if (!strcmp(name, api_names[i]))
            return i;
    return -1;
}

int main(int argc, char **argv)
{
    int nthreads = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--n"))
            n_calls = arg_long(a, v, 1), i++;
        else if (!strcmp(a, "--warmup"))
            n_warmup = arg_long(a, v, 0), i++;
        else if (!strcmp(a, "--threads"))
            nthreads = (int)arg_long(a, v, 1), i++;
        else if (!strcmp(a, "--api") && v && (api = api_index(v)) >= 0)
            i++;
        else if (!strcmp(a, "--depth"))
            depth = (int)arg_long(a, v, 0), i++;
        else {
            fprintf(stderr, "usage: calls [--n N] [--threads T] [--api launch|klaunch|occupancy|nvtx|nccl|"
                            "driver|math] [--warmup W] [--depth D]\n");
            return 2;
        }
    }
    if (nthreads > MAX_THREADS) {
        fprintf(stderr, "calls: at most %d threads\n", MAX_THREADS);
        return 2;
    }

    static char fatbin[16];   /* the sim does not read it; nvcc's would be here */
    void **module = __cudaRegisterFatBinary(fatbin);
    __cudaRegisterFunction(module, (const char *)dummy_kernel_stub, dummy_name, dummy_name, -1,
                           NULL, NULL, NULL, NULL, NULL);
    __cudaRegisterFatBinaryEnd(module);

    static worker w[MAX_THREADS];
    for (int t = 0; t < nthreads; t++) {
        cudaError_t e = cudaStreamCreate(&w[t].stream);
        if (e != cudaSuccess) {
            fprintf(stderr, "calls: cudaStreamCreate failed: %s (%d)\n", cudaGetErrorName(e), e);
            return 3;
        }
    }
    pthread_barrier_init(&start_line, NULL, (unsigned)nthreads);
    for (int t = 1; t < nthreads; t++)
        pthread_create(&w[t].th, NULL, worker_main, &w[t]);
    worker_main(&w[0]);
    for (int t = 1; t < nthreads; t++)
        pthread_join(w[t].th, NULL);

    double sum = 0, lo = 1e300, hi = 0;
    for (int t = 0; t < nthreads; t++) {
        if (w[t].err) {
            fprintf(stderr, "calls: a %s call failed on thread %d\n", api_calls[api], t);
            return 3;
        }
        sum += w[t].ns_per_call;
        lo = w[t].ns_per_call < lo ? w[t].ns_per_call : lo;
        hi = w[t].ns_per_call > hi ? w[t].ns_per_call : hi;
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);   /* peak so far: before any exit-time work */
    printf("calls api=%s threads=%d n=%ld ns_per_call=%.2f min_thread=%.2f max_thread=%.2f "
           "rss_kb=%ld\n",
           api_names[api], nthreads, n_calls, sum / nthreads, lo, hi, ru.ru_maxrss);
    return 0;
}
