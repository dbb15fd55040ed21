/*
 * collectives.h - NCCL's collectives as nccl-tests judges them, and the
 * communication the GPU did not hide (issue 30's analysis).
 *
 * Rows: the collective and point-to-point calls (class CUPROF_EV_COLL with
 * an operation's name; not the communicator's life, not ncclGroupEnd) that
 * succeeded, grouped by operation, datatype, size and communicator size.
 * A call's GPU time is the device work charged to it; work charged to an
 * ncclGroupEnd (NCCL launches a group's kernels there) is shared among the
 * group's calls in proportion to their sizes. The size is nccl-tests':
 * count x type size, times the ranks for AllGather, ReduceScatter and
 * AlltoAll (their count is per rank). Algorithm bandwidth = size / median
 * GPU time; bus bandwidth = algbw x 2(n-1)/n for AllReduce, (n-1)/n for
 * AllGather, ReduceScatter and AlltoAll, 1 otherwise.
 *
 * The algorithm, protocol and channels NCCL chose come from its profiler
 * plugin (preload/nccl_plugin.c: the call's name); a call in a group takes
 * its group's (NCCL tells them at ncclGroupEnd), and rows are kept apart by it.
 *
 * Exposed communication: time an NCCL kernel (a name starting "ncclDevKernel"
 * or "ncclKernel") runs on a device with no other kernel running there.
 */
#ifndef CUPROF_MODEL_COLLECTIVES_H
#define CUPROF_MODEL_COLLECTIVES_H

#include "model/run.h"
#include "model/steps.h"
#include "model/timeline.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cuprof_coll_row {
    const char *op;              /* "AllReduce", "Broadcast", ... (the API name less "nccl") */
    const char *dtype;           /* "f32", "bf16", ... */
    const char *algo;            /* "RING/Simple ch32" as NCCL's profiler plugin told it
                                    (the group's for a call in one), "" unknown */
    uint64_t size;               /* bytes, as nccl-tests counts them */
    uint32_t nranks;             /* 0 = unknown */
    uint64_t calls;
    uint64_t gpu_total_ns, gpu_min_ns, gpu_median_ns, gpu_max_ns;   /* per call */
    double algbw_gbps, busbw_gbps;   /* at the median time; 0 when no GPU time */
} cuprof_coll_row;

/* One collective call, for the trace's track per communicator. */
typedef struct cuprof_coll_call {
    uint64_t id;                 /* the call's event id */
    const char *op, *dtype, *algo;
    uint64_t comm;               /* the communicator's id (0 unknown) */
    uint32_t rank, nranks;
    uint64_t seq;                /* its place among its communicator's collectives on this
                                    rank (NCCL's sequence number) */
    uint64_t size;               /* nccl-tests' bytes */
    uint64_t gpu_start_ns, gpu_end_ns;   /* the device work charged to it (its group's in one);
                                            0, 0: none */
    uint32_t device;
    uint64_t host_start_ns, host_end_ns;   /* the call itself, on the host clock */
} cuprof_coll_call;

typedef struct cuprof_collectives {
    size_t ncalls;
    cuprof_coll_call *by_call;   /* [ncalls], in the order they were made (per thread, threads
                                    in turn) */
    size_t nrows;
    cuprof_coll_row *rows;       /* most GPU time first */
    uint64_t calls;              /* collective calls in all */
    uint64_t nccl_kernel_ns;     /* NCCL kernels' time (union per device) */
    uint64_t exposed_ns;         /* ... of it with no other kernel on the device */
    /* per step (model/steps.h), when the run has steps: the exposed time
     * inside each step's span, and the median share of the step it was */
    size_t nsteps;
    uint64_t *step_exposed_ns;   /* [nsteps], in the steps' order */
    double step_share_median;    /* median of exposed / step duration */
} cuprof_collectives;

/* The bus factor of an operation (its name less "nccl") on n ranks. */
double cuprof_coll_bus_factor(const char *op, uint32_t nranks);
/* 1 when a kernel's (mangled or not) name is NCCL's. */
int cuprof_coll_is_nccl_kernel(const char *name);

/* NULL on out of memory; nrows 0 when the run made no collective. steps
 * may be NULL (no per-step numbers). */
cuprof_collectives *cuprof_collectives_build(const cuprof_run *run, const cuprof_timeline *tl,
                                             const cuprof_steps *steps);
void cuprof_collectives_destroy(cuprof_collectives *c);

#endif /* CUPROF_MODEL_COLLECTIVES_H */
