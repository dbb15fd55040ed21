/*
 * memory.h - device memory held by the program over the run: what it
 * allocated (cudaMalloc, cudaMallocManaged, cudaMallocPitch, cudaMallocAsync,
 * cudaMallocFromPoolAsync, and the driver's cuMemAlloc, cuMemAllocPitch,
 * cuMemAllocManaged, cuMemAllocAsync, cuMemAllocFromPoolAsync and the
 * physical memory of cuMemCreate, held until its cuMemRelease; not host
 * allocations: cudaMallocHost, cudaHostAlloc, cuMemAllocHost, cuMemHostAlloc),
 * its peak and who held it then, and the allocations that failed for lack
 * of memory with what was live at that moment. The driver's virtual address
 * ranges, reserved (cuMemAddressReserve / cuMemAddressFree) and mapped
 * (cuMemMap / cuMemUnmap), are counted apart (cuprof_mem_range): they are no
 * memory of their own (a mapping shows memory cuMemCreate made).
 *
 * An allocation holds its bytes from the end of its successful call to the
 * end of the free of its pointer, whatever thread made each (a pointer freed
 * twice, or never allocated in the run, is ignored). Stream-ordered
 * allocations count from the call as well: the pool reserves them then
 * (the memory becomes usable in stream order, which the host view does not
 * need). Owners are the allocating entry point and, with --stacks, its
 * launch site (model/stacks.h).
 */
#ifndef CUPROF_MODEL_MEMORY_H
#define CUPROF_MODEL_MEMORY_H

#include "model/run.h"
#include "model/stacks.h"

#include <stddef.h>
#include <stdint.h>

/* A change of the bytes held: + at an allocation, - at its free. */
typedef struct cuprof_mem_step {
    uint64_t t;                  /* host clock: the call's end */
    int64_t delta;
} cuprof_mem_step;

/* Live allocations of one owner at a moment. */
typedef struct cuprof_mem_owner {
    const char *api;             /* allocating entry point */
    const char *site;            /* its launch site with --stacks, else NULL */
    uint64_t bytes, allocations;
} cuprof_mem_owner;

#define CUPROF_MEM_TOP_OWNERS 5
#define CUPROF_MEM_MAX_OOM 8

/* An allocation that failed with cudaErrorMemoryAllocation. */
typedef struct cuprof_mem_oom {
    uint64_t t;                  /* the call's end */
    const char *api;
    const char *site;            /* with --stacks, else NULL */
    uint64_t requested;          /* bytes asked for */
    uint64_t live_bytes, live_allocations;   /* held at that moment */
    cuprof_mem_owner top[CUPROF_MEM_TOP_OWNERS];  /* most bytes first */
    size_t ntop;
} cuprof_mem_oom;

/* Address space reserved or mapped through the driver's virtual memory
 * calls, by the sizes the calls name. */
typedef struct cuprof_mem_range {
    uint64_t calls, frees;       /* successful reserves (maps), frees (unmaps) */
    uint64_t peak_bytes;         /* most at once */
    uint64_t end_bytes;          /* at the end of the run */
} cuprof_mem_range;

typedef struct cuprof_memory {
    cuprof_mem_step *steps;      /* in time order */
    size_t nsteps;
    uint64_t allocations, frees; /* successful calls counted */
    uint64_t allocated_bytes;    /* sum of the allocations' bytes */
    uint64_t peak_bytes;         /* most held at once; 0 when nothing was */
    uint64_t peak_t;             /* when it was first reached */
    uint64_t peak_allocations;   /* allocations live then */
    uint64_t end_bytes;          /* still held when the run ended */
    uint64_t end_allocations;    /* ... in this many allocations */
    cuprof_mem_owner end_top[CUPROF_MEM_TOP_OWNERS];  /* who held it then, most bytes first */
    size_t nend_top;
    uint64_t held_at_open_bytes; /* a capture window's run: held when its window opened, */
    uint64_t held_at_open_allocations;   /* allocated before it (counted in the peak) */
    cuprof_mem_owner top[CUPROF_MEM_TOP_OWNERS];  /* at the peak, most bytes first */
    size_t ntop;
    cuprof_mem_oom oom[CUPROF_MEM_MAX_OOM];        /* the first ones, in time order */
    size_t noom;
    uint64_t oom_total;          /* all failed allocations (noom keeps the first) */
    cuprof_mem_range reserved;   /* cuMemAddressReserve / cuMemAddressFree */
    cuprof_mem_range mapped;     /* cuMemMap / cuMemUnmap */
} cuprof_memory;

/* Builds it from the run's allocation and free calls; stacks (may be NULL
 * or empty) names the owners' sites. NULL on out of memory. */
cuprof_memory *cuprof_memory_build(const cuprof_run *run, const cuprof_stacks *stacks);
void cuprof_memory_destroy(cuprof_memory *m);

#endif /* CUPROF_MODEL_MEMORY_H */
