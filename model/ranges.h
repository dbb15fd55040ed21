/*
 * ranges.h - NVTX ranges, paired from the instant events preload/nvtx.c
 * records, and the GPU work launched inside each.
 *
 *  - A push range opens at its nvtxRangePush event and closes at the next
 *    unmatched nvtxRangePop on the same thread; the calls recorded between
 *    the two on that thread are inside it. A start/end range pairs its
 *    nvtxRangeStart and nvtxRangeEnd by range id, on any threads; the calls
 *    inside it are those of its starting thread between the two times.
 *  - A range never closed (no pop, no end) ends at the end of the capture
 *    window it opened in (run->capture), else at the run's end; one whose
 *    pop or end came without its open is dropped.
 *  - A kernel, copy or memset belongs to the innermost range around the
 *    hooked call that caused it (timeline.h), and counts in that range and
 *    every range around it: a range's GPU time is the device time of the
 *    work launched inside it, nested ranges included.
 *  - A push range or mark may carry a payload: the text of its NVTX
 *    extended payload (preload/nvtx_payload.c), the event's id.
 *  - A library's own range around a hooked call of the same name (NCCL's,
 *    domain "NCCL": ncclAllReduce inside the hook of ncclAllReduce) is
 *    folded into the call: shown once, as the call with the range's payload
 *    (cuprof_ranges_call_payload), not as a range of its own (no row, no
 *    slice), so its time is not counted twice.
 */
#ifndef CUPROF_RANGES_H
#define CUPROF_RANGES_H

#include "model/run.h"
#include "model/timeline.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cuprof_range {
    uint32_t name;           /* string id (run->strings), 0 = unnamed */
    uint32_t domain;         /* string id of the domain, 0 = default */
    uint32_t thread;         /* index in run->threads of its push/start */
    uint8_t start_end;       /* 1: nvtxRangeStart/End, 0: push/pop */
    uint8_t closed;          /* 0: still open at the end of the run */
    uint16_t level;          /* push ranges: how many push ranges are around it */
    uint64_t t0, t1;         /* host clock */
    uint64_t first, last;    /* seq of its open and close events on thread
                              * (last = UINT64_MAX when never closed) */
    int32_t parent;          /* push range around it on its thread, -1 = none */
    uint64_t gpu_ns;         /* device time of the work launched inside it */
    uint64_t kernels;        /* kernels launched inside it */
    uint64_t id;             /* start/end ranges: the nvtxRangeId_t */
    uint32_t payload;        /* push ranges: string id of its payload's text, 0 = none */
    uint8_t folded;          /* 1: a library's range folded into the call around it
                              * (that call: rg->folded) */
} cuprof_range;

/* A folded range's payload, by its call (thread, seq), sorted. */
typedef struct cuprof_folded {
    uint32_t thread;
    uint32_t payload;
    uint64_t seq;
} cuprof_folded;

typedef struct cuprof_ranges {
    size_t n;
    cuprof_range *r;         /* push ranges in open order per thread, then
                              * start/end ranges from first_start on, by id
                              * (the order they started in) */
    size_t first_start;
    int32_t *kernel_range;   /* [gpu kernel i]: innermost range, -1 = none (NULL: the run
                                has no range, or no GPU records) */
    int32_t *copy_range;     /* [gpu copy i]: the same for copies and memsets */
    size_t nfolded;
    cuprof_folded *folded;   /* the folded ranges by (thread, seq) of their call */
} cuprof_ranges;

/* Pairs run's NVTX events and joins tl's device records to them. NULL on
 * out of memory. Owned: cuprof_ranges_destroy. */
cuprof_ranges *cuprof_ranges_build(const cuprof_run *run, const cuprof_timeline *tl);
void cuprof_ranges_destroy(cuprof_ranges *rg);

/* The payload (string id) of the library range folded into call seq of
 * thread, or 0. */
uint32_t cuprof_ranges_call_payload(const cuprof_ranges *rg, size_t thread, uint64_t seq);

/* Fills s->ranges: one row per (domain, name) of rg, folded ranges left out. 0, or -1 on out of
 * memory. */
struct cuprof_summary;
int cuprof_ranges_summarize(const cuprof_ranges *rg, const cuprof_run *run,
                            struct cuprof_summary *s);

/* The display name of string id s ("" for 0 or unknown). */
const char *cuprof_run_string(const cuprof_run *run, uint32_t s);

#endif /* CUPROF_RANGES_H */
