/*
 * timeline.h - the GPU records of a run joined to the calls that caused them.
 *
 * Built at exit from a run whose gpu_run is attached (model/gpu.h), once,
 * by cuprof_model_build; the tables and the trace read it. Plain data, so
 * formats/ uses it without knowing CUDA.
 *
 * Rules (collector/README.md, "GPU attribution"):
 *  - A CUPTI runtime-API record is the hooked call itself when the innermost
 *    hooked call open around it (its ext) has the same entry-point name; any
 *    other record is a call no hook saw (cuBLAS's own occupancy query and
 *    cudaLaunchKernel, a program's unhooked cudart calls): a derived call,
 *    placed on the CPU lane as a child of that hooked call (or at the top of
 *    its thread when no hooked call was open). A record with no ext is still
 *    the hooked call itself when a hooked call of the same name on the same
 *    thread encloses it in time (CUPTI started inside that call, or the call
 *    is a top-level runtime call, which pushes no ext). CUDA's
 *    module registration (__cudaRegister*, __cudaPush/PopCallConfiguration:
 *    "__cuda" names that launch nothing) is left out. The profiler's own
 *    queries (a cudaMemcpyDefault's direction) never reach the timeline:
 *    they carry the profiler's own external id (cuprof_own_cuda_enter).
 *  - A kernel, copy or memset is caused by the runtime call with its
 *    correlation id: a derived call when that record is derived, else the
 *    hooked call its ext names.
 */
#ifndef CUPROF_TIMELINE_H
#define CUPROF_TIMELINE_H

#include "model/gpu.h"
#include "model/run.h"

#include <stddef.h>
#include <stdint.h>

/* A runtime-API call only CUPTI saw, as the CPU lane shows it. */
typedef struct cuprof_derived_call {
    const cuprof_gpu_api *rec;   /* the CUPTI record: name, corr, cbid, result */
    uint64_t t0, t1;             /* host clock, clamped inside the parent's span */
    uint64_t parent;             /* event id of the hooked call it ran in, 0 = none */
    uint32_t tid;                /* thread: the parent's, else the record's */
    uint32_t depth;              /* parent's depth + 1, 0 at the top */
} cuprof_derived_call;

/* Who caused one device record: 16 bytes (the report holds one a kernel:
 * issue 40). */
#define CUPROF_CAUSE_NO_API UINT32_MAX
typedef struct cuprof_cause {
    uint32_t api;                /* index in gpu->apis of the runtime record with the
                                  * same corr, CUPROF_CAUSE_NO_API none: cuprof_cause_api */
    int32_t derived;             /* index in tl->derived when api is derived, else -1 */
    uint64_t hooked;             /* event id of the innermost hooked call behind it, 0 = none */
} cuprof_cause;

/* GPU-wide numbers for the header (all 0 when nothing was captured). */
typedef struct cuprof_gpu_stats {
    uint64_t busy_ns;            /* union of all kernel, copy and memset intervals */
    uint64_t window_start_ns;    /* idle-share window: start of the first kernel's
                                  * launching call (first copy's call if no kernel) */
    uint64_t window_end_ns;      /* ... to the end of the last kernel (copy) */
    uint64_t busy_window_ns;     /* busy time inside the window */
    double idle_share;           /* 1 - busy_window / window, in [0, 1]; 0 with no window */
    uint64_t latency_median_ns;  /* kernel start - launching call start */
    uint64_t latency_max_ns;
    uint64_t latency_count;      /* kernels with a known launching call */
    int latency_median_sketched; /* 1: the median is approximate (model/quantile.h:
                                    more kernels than the exact bound) */
} cuprof_gpu_stats;

typedef struct cuprof_timeline {
    const cuprof_run *run;
    const cuprof_gpu_run *gpu;   /* run->gpu_run, or an empty one */
    size_t nderived;
    cuprof_derived_call *derived; /* by start time */
    int32_t *api_derived;        /* [i] for gpu->apis[i]: index in derived, -1 = the
                                  * hooked call itself, -2 = left out */
    uint64_t *api_hooked;        /* [i]: event id of the hooked call gpu->apis[i] is
                                  * or ran in: its external id, or for a record
                                  * without one, the hooked call of the same name
                                  * around it (a top-level runtime call pushes none); 0 */
    uint32_t *by_corr;           /* indexes of gpu->apis sorted by corr, only when
                                  * corr_first is NULL (sparse ids) */
    uint32_t *corr_first;        /* [corr - corr_lo]: the first record with that
                                  * corr (UINT32_MAX none), when the ids are dense
                                  * (CUPTI's count up); NULL: by_corr is searched */
    uint32_t corr_lo;
    uint64_t corr_span;          /* corr_first's entries */
    uint64_t *kernel_hooked;     /* [i]: event id of the innermost hooked call behind
                                  * gpu->kernels[i], 0 = none (its cause's: cuprof_kernel_cause) */
    uint64_t *copy_hooked;       /* [i]: the same for gpu->copies[i] */
    cuprof_gpu_stats stats;
} cuprof_timeline;

/* Joins run->gpu_run (may be NULL: an empty timeline) to the run's calls and
 * computes the stats. NULL on out of memory. Owned: cuprof_timeline_destroy.
 * The run must outlive it. */
cuprof_timeline *cuprof_timeline_build(const cuprof_run *run);
void cuprof_timeline_destroy(cuprof_timeline *tl);

/* Runtime record with correlation id corr, or NULL. O(log n). */
const cuprof_gpu_api *cuprof_timeline_api(const cuprof_timeline *tl, uint32_t corr);
/* Event id of the hooked call record a is, or ran in (api_hooked); 0 = none. */
uint64_t cuprof_timeline_api_hooked(const cuprof_timeline *tl, const cuprof_gpu_api *a);
/* Where a host-side wait CUPTI recorded goes on the CPU rows: the thread of
 * the synchronize call that waited and [*t0, *t1] clamped inside that call
 * (the record's own thread and times when no hooked call is known). 0 when
 * its runtime record is unknown (no thread to show it on). */
int cuprof_timeline_sync_place(const cuprof_timeline *tl, const cuprof_gpu_sync *s,
                               uint32_t *tid, uint64_t *t0, uint64_t *t1);
/* Cause of a device record with (corr, ext). */
cuprof_cause cuprof_timeline_cause(const cuprof_timeline *tl, uint32_t corr, uint64_t ext);
/* Who caused gpu->kernels[i] (copies[i]): the runtime record with its corr,
 * its derived call, and kernel_hooked[i] (issue 40: the 8 bytes kept a
 * record, not the 16 of a cause). */
cuprof_cause cuprof_kernel_cause(const cuprof_timeline *tl, size_t i);
cuprof_cause cuprof_copy_cause(const cuprof_timeline *tl, size_t i);

/* The runtime record of a cause, or NULL. */
static inline const cuprof_gpu_api *cuprof_cause_api(const cuprof_timeline *tl, const cuprof_cause *c)
{
    return c->api == CUPROF_CAUSE_NO_API ? NULL : &tl->gpu->apis[c->api];
}

/* Busy time in [lo, hi) of g's kernels, copies and memsets: the length of
 * the union of their intervals clipped to it (0, UINT64_MAX: all of it), by
 * a merge of the two arrays in start order with no copy of them (a copy
 * when a run filled by hand has them out of order). */
uint64_t cuprof_gpu_busy(const cuprof_gpu_run *g, uint64_t lo, uint64_t hi);

/* The same for kernels [kf, kf + nk) and copies [cf, cf + nc) of arrays
 * sorted by start (the model's; the caller checks), merged as they are:
 * no array at all. */
uint64_t cuprof_gpu_busy_span(const cuprof_gpu_run *g, size_t kf, size_t nk, size_t cf,
                              size_t nc, uint64_t lo, uint64_t hi);

/* Busy time: length of the union of [start[i], end[i]) (n intervals, sorted
 * here in place by start; end <= start counts as empty). */
uint64_t cuprof_interval_union(uint64_t (*iv)[2], size_t n);

#endif /* CUPROF_TIMELINE_H */
