/*
 * floor_hook.c - the smallest possible hook, the floor cuprof is measured
 * against: LD_PRELOAD it into bench/calls and compare with cuprof in the same
 * run.
 *
 * For each of the entry points bench/calls makes (cudaLaunchKernel,
 * __cudaLaunchKernel, cudaOccupancyMaxActiveBlocksPerMultiprocessor): the
 * real function resolved once (constructor, dlsym RTLD_NEXT), two timestamps
 * (rdtsc), and a fixed-size record appended to a thread-local buffer that was
 * touched before the timed calls (a ring: the floor never pays a page fault,
 * never converts, never writes a file). Nothing else: no errno care, no
 * nesting, no recursion guard, no arguments, no names. Built as its own
 * shared object (build/bench/libfloor_hook.so); never part of libcuprof.
 *
 * Built with -DFLOOR_FRESH (build/bench/libfloor_fresh.so) the records go to
 * fresh memory instead, never reused, 64 bytes each in 64 KiB mmap'd blocks
 * (MAP_POPULATE), as a profiler that keeps every event must: the floor for
 * "keep everything until exit", which is cuprof's design.
 *
 * Built with -DFLOOR_DRAIN (build/bench/libfloor_drain.so, an experiment
 * not in `make bench`'s table) the calling thread writes 64-byte
 * records into a small ring (2 halves of 32 KiB, cache-resident) and a
 * drainer thread copies each full half into fresh memory: everything is
 * kept, but the fresh-memory cost moves off the calling thread. When the
 * drainer has not emptied the other half yet, the caller waits for it.
 */
#include <cuda_runtime_api.h>

#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <x86intrin.h>

cudaError_t __cudaLaunchKernel(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);

#define FLOOR_RING 65536u   /* records per thread (2 MiB), a power of two */

/* One recorded call: 32 bytes (64 in the FLOOR_FRESH build, cuprof's size). */
typedef struct floor_rec {
    uint64_t t0, t1;   /* TSC at entry and return */
    uint32_t fn;       /* which entry point */
    int32_t result;    /* its return value */
#if defined(FLOOR_FRESH) || defined(FLOOR_DRAIN)
    uint64_t pad[5];
#else
    uint64_t pad;
#endif
} floor_rec;

typedef cudaError_t (*launch_fn)(const void *, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*klaunch_fn)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t);
typedef cudaError_t (*occ_fn)(int *, const void *, int, size_t);

static launch_fn real_launch;
static klaunch_fn real_klaunch;
static occ_fn real_occ;

#ifndef FLOOR_DRAIN
static __thread floor_rec *ring __attribute__((tls_model("initial-exec")));
#endif
#ifdef FLOOR_DRAIN
#include <pthread.h>
#include <stdatomic.h>
#define DRAIN_HALF 512u   /* records per half: 32 KiB */
/* One thread's ring: the caller fills halves in turn; full[h] = 1 hands half
 * h to the drainer, which copies it out and sets it back to 0. One caller
 * thread is drained (bench/calls --threads 1). */
static struct drain_ring {
    floor_rec rec[2 * DRAIN_HALF];
    _Atomic int full[2];
} drain;
static __thread uint32_t drain_pos __attribute__((tls_model("initial-exec")));

static void *drainer(void *arg)
{
    (void)arg;
    floor_rec *out = NULL, *out_end = NULL;
    for (unsigned h = 0;; h ^= 1) {
        while (!atomic_load_explicit(&drain.full[h], memory_order_acquire))
            __builtin_ia32_pause();
        if (out == out_end) {
            out = mmap(NULL, 1u << 20, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
            if (out == MAP_FAILED)
                abort();
            out_end = out + (1u << 20) / sizeof *out;
        }
        memcpy(out, &drain.rec[h * DRAIN_HALF], DRAIN_HALF * sizeof *out);
        out += DRAIN_HALF;
        atomic_store_explicit(&drain.full[h], 0, memory_order_release);
    }
    return NULL;
}
#elif defined(FLOOR_FRESH)
#define FRESH_BLOCK 65536u
static __thread floor_rec *fresh_end __attribute__((tls_model("initial-exec")));
#else
static __thread uint32_t ring_pos __attribute__((tls_model("initial-exec")));
#endif

__attribute__((constructor)) static void floor_init(void)
{
    real_launch = (launch_fn)dlsym(RTLD_NEXT, "cudaLaunchKernel");
    real_klaunch = (klaunch_fn)dlsym(RTLD_NEXT, "__cudaLaunchKernel");
    real_occ = (occ_fn)dlsym(RTLD_NEXT, "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
#ifdef FLOOR_DRAIN
    pthread_t t;
    pthread_create(&t, NULL, drainer, NULL);
    pthread_detach(t);
#endif
}

/* The thread's ring, allocated and touched on its first call (bench/calls
 * makes warm-up calls before timing). */
static floor_rec *floor_slot(void)
{
#ifdef FLOOR_DRAIN
    uint32_t i = drain_pos++ & (2 * DRAIN_HALF - 1);
    if (__builtin_expect(i % DRAIN_HALF == 0, 0)) {
        unsigned h = i / DRAIN_HALF;   /* entering half h: hand over the other */
        atomic_store_explicit(&drain.full[h ^ 1], 1, memory_order_release);
        while (atomic_load_explicit(&drain.full[h], memory_order_acquire))
            __builtin_ia32_pause();   /* the drainer is behind: wait */
    }
    return &drain.rec[i];
#elif defined(FLOOR_FRESH)
    if (__builtin_expect(ring == fresh_end, 0)) {
        void *p = mmap(NULL, FRESH_BLOCK, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED)
            abort();
        ring = p;
        fresh_end = ring + FRESH_BLOCK / sizeof *ring;
    }
    return ring++;
#else
    if (__builtin_expect(ring == NULL, 0)) {
        ring = malloc(FLOOR_RING * sizeof *ring);
        if (ring == NULL)
            abort();
        memset(ring, 0, FLOOR_RING * sizeof *ring);
    }
    return &ring[ring_pos++ & (FLOOR_RING - 1)];
#endif
}

#define FLOOR_CALL(id, call)               \
    uint64_t t0 = __rdtsc();               \
    cudaError_t r = call;                  \
    uint64_t t1 = __rdtsc();               \
    floor_rec *rec = floor_slot();         \
    rec->t0 = t0;                          \
    rec->t1 = t1;                          \
    rec->fn = id;                          \
    rec->result = r;                       \
    return r

__attribute__((visibility("default"))) cudaError_t
cudaLaunchKernel(const void *func, dim3 grid, dim3 block, void **args, size_t smem,
                 cudaStream_t stream)
{
    FLOOR_CALL(0, real_launch(func, grid, block, args, smem, stream));
}

__attribute__((visibility("default"))) cudaError_t
__cudaLaunchKernel(cudaKernel_t kernel, dim3 grid, dim3 block, void **args, size_t smem,
                   cudaStream_t stream)
{
    FLOOR_CALL(1, real_klaunch(kernel, grid, block, args, smem, stream));
}

__attribute__((visibility("default"))) cudaError_t
cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *blocks, const void *func, int block_size,
                                              size_t smem)
{
    FLOOR_CALL(2, real_occ(blocks, func, block_size, smem));
}
