/*
 * test_preload_cudart.c - a plain C program (built against the real CUDA 13
 * libcudart, so its references are versioned: cudaMalloc@libcudart.so.13)
 * that calls every runtime hook once, in a fixed order, with arguments the
 * test recognizes. For each call it prints the return value, errno after the
 * call, and any out-value; the test runs it with and without the profiler
 * and requires identical output. Streams and events are real where the
 * runtime can make them (the sim), otherwise recognizable fake handles that
 * a runtime without a driver never dereferences; their values are printed.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cuda_profiler_api.h>
#include <cuda_runtime_api.h>

/* The per-thread entry points: declared by the CUDA headers only under
 * --default-stream per-thread, exported by libcudart.so.13 always. */
cudaError_t cudaMemcpy_ptds(void *, const void *, size_t, enum cudaMemcpyKind);
cudaError_t cudaMemcpyAsync_ptsz(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemcpy2D_ptds(void *, size_t, const void *, size_t, size_t, size_t,
                              enum cudaMemcpyKind);
cudaError_t cudaMemcpy2DAsync_ptsz(void *, size_t, const void *, size_t, size_t, size_t,
                                   enum cudaMemcpyKind, cudaStream_t);
cudaError_t cudaMemset_ptds(void *, int, size_t);
cudaError_t cudaMemsetAsync_ptsz(void *, int, size_t, cudaStream_t);
cudaError_t cudaMemset2D_ptds(void *, size_t, int, size_t, size_t);
cudaError_t cudaMemset2DAsync_ptsz(void *, size_t, int, size_t, size_t, cudaStream_t);
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t);
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t, cudaEvent_t, unsigned int);
cudaError_t cudaEventRecord_ptsz(cudaEvent_t, cudaStream_t);
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t, cudaStream_t, unsigned int);
cudaError_t cudaLaunchKernel_ptsz(const void *, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *, const void *, void **);
cudaError_t __cudaGetKernel(cudaKernel_t *, const void *);
cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

#define S(x) ((cudaStream_t)(uintptr_t)(x))
#define E(x) ((cudaEvent_t)(uintptr_t)(x))

static int step;
/* Runs one call with errno preset, prints what came back. */
#define CALL(name, expr)                                                      \
    do {                                                                      \
        errno = 1111;                                                         \
        int r_ = (int)(expr);                                                 \
        int e_ = errno;                                                       \
        printf("%d %s r=%d errno=%d\n", ++step, name, r_, e_);              \
    } while (0)

static void host_fn(void) {}

int main(void)
{
    static char a[1 << 16], b[1 << 16];
    void *p = NULL, *h = NULL;
    int n = -7;
    void *args[1] = {&p};
    dim3 g = {2, 3, 4}, bl = {32, 2, 1};
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = (dim3){5, 6, 7};
    cfg.blockDim = (dim3){64, 1, 1};
    cfg.dynamicSmemBytes = 96;
    cfg.stream = NULL;

    cudaStream_t s1 = S(0x77), s2 = S(0x177), tmp_s;
    cudaEvent_t e1 = E(0x7e), tmp_e;
    if (cudaStreamCreate(&tmp_s) == cudaSuccess)
        s1 = tmp_s;
    if (cudaStreamCreate(&tmp_s) == cudaSuccess)
        s2 = tmp_s;
    int er = cudaEventCreate(&tmp_e);   /* recorded: the first event */
    if (er == cudaSuccess)
        e1 = tmp_e;
    printf("handles s1=%p s2=%p e1=%p\n", (void *)s1, (void *)s2, (void *)e1);

    CALL("cudaMalloc", cudaMalloc(&p, 1000));
    printf("  p=%p\n", p);
    CALL("cudaMallocHost", cudaMallocHost(&h, 2000));
    CALL("cudaHostAlloc", cudaHostAlloc(&h, 3000, 0));
    CALL("cudaMallocManaged", cudaMallocManaged(&h, 4000, 1));
    CALL("cudaMemcpy", cudaMemcpy(a, b, 5000, cudaMemcpyHostToDevice));
    CALL("cudaMemcpy", cudaMemcpy(p, b, 999, cudaMemcpyDefault));
    CALL("cudaMemcpyAsync", cudaMemcpyAsync(a, b, 6000, cudaMemcpyDeviceToHost, s1));
    CALL("cudaMemcpy2D", cudaMemcpy2D(a, 64, b, 64, 32, 10, cudaMemcpyDeviceToDevice));
    CALL("cudaMemcpy2DAsync", cudaMemcpy2DAsync(a, 64, b, 64, 16, 4, cudaMemcpyHostToHost, s1));
    CALL("cudaMemset", cudaMemset(a, 0, 7000));
    CALL("cudaMemsetAsync", cudaMemsetAsync(a, 1, 7001, s1));
    CALL("cudaMemset2D", cudaMemset2D(a, 64, 0, 8, 9));
    CALL("cudaMemset2DAsync", cudaMemset2DAsync(a, 64, 0, 8, 10, s1));
    CALL("cudaFree", cudaFree((void *)0x1234));
    CALL("cudaFreeHost", cudaFreeHost((void *)0x2345));
    CALL("cudaDeviceSynchronize", cudaDeviceSynchronize());
    CALL("cudaStreamSynchronize", cudaStreamSynchronize(s1));
    CALL("cudaEventSynchronize", cudaEventSynchronize(e1));
    CALL("cudaStreamWaitEvent", cudaStreamWaitEvent(s1, e1, 0));
    CALL("cudaEventRecord", cudaEventRecord(e1, s1));
    CALL("cudaEventRecordWithFlags", cudaEventRecordWithFlags(e1, s1, 0));
    CALL("cudaOccupancyMaxActiveBlocksPerMultiprocessor",
         cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, (const void *)host_fn, 256, 1024));
    printf("  n=%d\n", n);
    CALL("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags",
         cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, (const void *)host_fn, 128, 512, 0));
    CALL("cudaProfilerStart", cudaProfilerStart());
    CALL("cudaProfilerStop", cudaProfilerStop());
    CALL("cudaLaunchKernel", cudaLaunchKernel((const void *)host_fn, g, bl, args, 48, s1));
    cfg.stream = s1;
    CALL("cudaLaunchKernelExC", cudaLaunchKernelExC(&cfg, (const void *)host_fn, args));
    /* per-thread variants, same arguments shifted so the test tells them apart */
    CALL("cudaMemcpy_ptds", cudaMemcpy_ptds(a, b, 5100, cudaMemcpyDeviceToHost));
    CALL("cudaMemcpyAsync_ptsz", cudaMemcpyAsync_ptsz(a, b, 6100, cudaMemcpyHostToDevice, s2));
    CALL("cudaMemcpy2D_ptds", cudaMemcpy2D_ptds(a, 64, b, 64, 32, 11, cudaMemcpyDeviceToDevice));
    CALL("cudaMemcpy2DAsync_ptsz", cudaMemcpy2DAsync_ptsz(a, 64, b, 64, 16, 5, cudaMemcpyHostToHost, s2));
    CALL("cudaMemset_ptds", cudaMemset_ptds(a, 0, 7100));
    CALL("cudaMemsetAsync_ptsz", cudaMemsetAsync_ptsz(a, 1, 7101, s2));
    CALL("cudaMemset2D_ptds", cudaMemset2D_ptds(a, 64, 0, 8, 11));
    CALL("cudaMemset2DAsync_ptsz", cudaMemset2DAsync_ptsz(a, 64, 0, 8, 12, s2));
    CALL("cudaStreamSynchronize_ptsz", cudaStreamSynchronize_ptsz(s2));
    CALL("cudaStreamWaitEvent_ptsz", cudaStreamWaitEvent_ptsz(s2, e1, 0));
    CALL("cudaEventRecord_ptsz", cudaEventRecord_ptsz(e1, s2));
    CALL("cudaEventRecordWithFlags_ptsz", cudaEventRecordWithFlags_ptsz(e1, s2, 0));
    cfg.stream = s2;
    CALL("cudaLaunchKernel_ptsz", cudaLaunchKernel_ptsz((const void *)host_fn, g, bl, args, 49, s2));
    CALL("cudaLaunchKernelExC_ptsz", cudaLaunchKernelExC_ptsz(&cfg, (const void *)host_fn, args));
    cudaKernel_t k = NULL;
    CALL("__cudaGetKernel", __cudaGetKernel(&k, (const void *)host_fn));
    printf("  k_set=%d\n", k != NULL);
    if (k != NULL) { /* only a real handle may be launched */
        CALL("__cudaLaunchKernel", __cudaLaunchKernel(k, g, bl, args, 50, s1));
        CALL("__cudaLaunchKernel_ptsz", __cudaLaunchKernel_ptsz(k, g, bl, args, 51, s2));
    }

    /* The profiler's own calls are bracketed by the collector's guard; a
     * call made inside it must not be recorded (only under the fake). */
    int (*enter)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "cuprof_guard_enter");
    void (*leave)(int) = (void (*)(int))dlsym(RTLD_DEFAULT, "cuprof_guard_leave");
    if (enter != NULL && leave != NULL) {
        int gs = enter();
        errno = 1111;
        int r = cudaMalloc(&p, 424242);
        int e = errno;
        leave(gs);
        printf("guarded cudaMalloc r=%d errno=%d\n", r, e);
    }
    return 0;
}
