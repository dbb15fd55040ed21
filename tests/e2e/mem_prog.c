/*
 * mem_prog.c - device memory in a known pattern, for test_e2e_memory: plain,
 * pitched, stream-ordered and pool allocations, frees on this thread and on
 * another one, then an allocation far beyond the device's memory. The
 * program keeps its own account and prints it on stdout:
 *
 *   peak=BYTES peak_allocations=N end=BYTES allocations=N frees=N
 *   oom_held=BYTES oom_live=N
 *
 * Each kind of allocation is made in its own function (not inlined) so that
 * with --stacks the owners are named by site.
 */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static unsigned long long held, peak, peak_live, live, allocations, frees;

static void took(size_t bytes)
{
    held += bytes;
    live++;
    allocations++;
    if (held > peak) {
        peak = held;
        peak_live = live;
    }
}

static void gave(size_t bytes)
{
    held -= bytes;
    live--;
    frees++;
}

static void check(cudaError_t r, const char *what)
{
    if (r != cudaSuccess) {
        fprintf(stderr, "mem_prog: %s: %s\n", what, cudaGetErrorString(r));
        exit(3);
    }
}

__attribute__((noinline)) static void *alloc_weights(size_t bytes)
{
    void *p;
    check(cudaMalloc(&p, bytes), "cudaMalloc");
    took(bytes);
    return p;
}

__attribute__((noinline)) static void *alloc_activations(size_t bytes, cudaStream_t s)
{
    void *p;
    check(cudaMallocAsync(&p, bytes, s), "cudaMallocAsync");
    took(bytes);
    return p;
}

__attribute__((noinline)) static void *alloc_from_pool(size_t bytes, cudaStream_t s)
{
    cudaMemPool_t pool;
    void *p;
    check(cudaDeviceGetDefaultMemPool(&pool, 0), "cudaDeviceGetDefaultMemPool");
    check(cudaMallocFromPoolAsync(&p, bytes, pool, s), "cudaMallocFromPoolAsync");
    took(bytes);
    return p;
}

__attribute__((noinline)) static void *alloc_image(size_t width, size_t height)
{
    void *p;
    size_t pitch = 0;
    check(cudaMallocPitch(&p, &pitch, width, height), "cudaMallocPitch");
    took(pitch * height);
    return p;
}

static void *free_on_other_thread(void *p)
{
    check(cudaFree(p), "cudaFree (other thread)");
    return NULL;
}

int main(void)
{
    const size_t MiB = 1 << 20;
    cudaStream_t s;
    check(cudaStreamCreate(&s), "cudaStreamCreate");
    void *w1 = alloc_weights(8 * MiB), *w2 = alloc_weights(4 * MiB);
    void *a1 = alloc_activations(16 * MiB, s), *a2 = alloc_activations(2 * MiB, s);
    void *img = alloc_image(1000, 300);
    size_t img_bytes = held - 30 * MiB;
    void *pl = alloc_from_pool(6 * MiB, s);
    /* peak so far: 36 MiB + the image; now some go */
    check(cudaFreeAsync(a1, s), "cudaFreeAsync");
    gave(16 * MiB);
    pthread_t t;
    pthread_create(&t, NULL, free_on_other_thread, w2);
    pthread_join(t, NULL);
    gave(4 * MiB);
    void *w3 = alloc_weights(12 * MiB);   /* below the peak again */
    /* far beyond the device: fails, nothing is taken */
    void *huge = NULL;
    cudaError_t r = cudaMalloc(&huge, (size_t)1 << 40);
    if (r != cudaErrorMemoryAllocation) {
        fprintf(stderr, "mem_prog: a 1 TiB cudaMalloc returned %d, not cudaErrorMemoryAllocation\n", (int)r);
        return 3;
    }
    cudaGetLastError();
    unsigned long long oom_held = held, oom_live = live;
    check(cudaFree(w1), "cudaFree");
    gave(8 * MiB);
    check(cudaFree(img), "cudaFree");
    gave(img_bytes);
    check(cudaFreeAsync(pl, s), "cudaFreeAsync");
    gave(6 * MiB);
    check(cudaStreamSynchronize(s), "cudaStreamSynchronize");
    (void)a2;
    (void)w3;   /* a2 and w3 are still held at exit */
    printf("peak=%llu peak_allocations=%llu end=%llu allocations=%llu frees=%llu\n", peak, peak_live, held,
           allocations, frees);
    printf("oom_held=%llu oom_live=%llu\n", oom_held, oom_live);
    return 0;
}
