/*
 * findings_nccl.c - the findings about NCCL's collectives (issue 30):
 * communication the GPU did not hide, collectives too small for the bus,
 * and calls of one collective far slower than its best.
 */
#include "model/collectives.h"
#include "model/findings_int.h"

#include <stdio.h>

/* exposed-communication: NCCL kernels are 10% or more of the GPU's busy
 * time, and half of their time or more (100 us at least) no compute kernel
 * ran beside them. */
#define EXPOSED_MIN_SHARE_OF_BUSY 0.1
#define EXPOSED_MIN_SHARE 0.5
#define EXPOSED_MIN_NS 100000ull
/* latency-bound-collectives: 16 calls or more of one collective of at most
 * 256 KiB: NCCL's fixed cost per call (microseconds) dominates. */
#define SMALL_COLL_BYTES (256u << 10)
#define SMALL_COLL_CALLS 16
/* collective-spread: 4 calls at least, the median 2x the fastest and 50 us
 * more: the calls waited (a late rank, contention). */
#define COLL_SPREAD_CALLS 4
#define COLL_SPREAD_RATIO 2.0
#define COLL_SPREAD_MIN_NS 50000ull

/* exposed-communication, per step: a median 10% or more of each step. */
#define EXPOSED_MIN_STEP_SHARE 0.1

static void exposed(fctx *c, const cuprof_collectives *k)
{
    if (k->nsteps >= 2 && c->steps && c->steps->name) {
        if (k->step_share_median < EXPOSED_MIN_STEP_SHARE)
            return;
        char p[32], e[32];
        cuprof_finding *f = cuprof_findings_add(
            c, "exposed-communication", "warning",
            "overlap communication with compute: launch the collectives on their own stream while "
            "the next layer computes (DDP's gradient buckets, FSDP's prefetch), or send fewer, "
            "larger messages",
            "NCCL kernels ran with no compute kernel beside them for a median %s of each %s (%zu steps; "
            "%s in all): that time the step waits on communication",
            cuprof_findings_fmt_pct(p, sizeof p, k->step_share_median), c->steps->name, k->nsteps,
            cuprof_findings_fmt_ns(e, sizeof e, k->exposed_ns));
        cuprof_findings_num(f, "step_share_median", k->step_share_median, 0);
        cuprof_findings_num(f, "steps", (double)k->nsteps, 1);
        cuprof_findings_num(f, "exposed_ns", (double)k->exposed_ns, 1);
        return;
    }
    uint64_t busy = c->tl ? c->tl->stats.busy_ns : 0;
    if (!busy || k->nccl_kernel_ns < EXPOSED_MIN_SHARE_OF_BUSY * (double)busy ||
        k->exposed_ns < EXPOSED_MIN_SHARE * (double)k->nccl_kernel_ns || k->exposed_ns < EXPOSED_MIN_NS)
        return;
    char e[32], t[32], p[32], q[32];
    cuprof_finding *f = cuprof_findings_add(
        c, "exposed-communication", "warning",
        "overlap communication with compute: launch the collectives on their own stream while "
        "the next layer computes (DDP's gradient buckets, FSDP's prefetch), or send fewer, "
        "larger messages",
        "%s of the %s of NCCL kernel time (%s) ran with no compute kernel beside it: %s of the "
        "GPU's busy time waited on communication",
        cuprof_findings_fmt_ns(e, sizeof e, k->exposed_ns), cuprof_findings_fmt_ns(t, sizeof t, k->nccl_kernel_ns),
        cuprof_findings_fmt_pct(p, sizeof p, (double)k->exposed_ns / (double)k->nccl_kernel_ns),
        cuprof_findings_fmt_pct(q, sizeof q, (double)k->exposed_ns / (double)busy));
    cuprof_findings_num(f, "exposed_ns", (double)k->exposed_ns, 1);
    cuprof_findings_num(f, "nccl_kernel_ns", (double)k->nccl_kernel_ns, 1);
    cuprof_findings_num(f, "gpu_busy_ns", (double)busy, 1);
}

static void small(fctx *c, const cuprof_collectives *k)
{
    const cuprof_coll_row *best = NULL;
    for (size_t i = 0; i < k->nrows; i++) {
        const cuprof_coll_row *r = &k->rows[i];
        if (r->size <= SMALL_COLL_BYTES && r->calls >= SMALL_COLL_CALLS && (!best || r->calls > best->calls))
            best = r;
    }
    if (!best)
        return;
    char b[32], m[32];
    cuprof_finding *f = cuprof_findings_add(
        c, "latency-bound-collectives", "warning",
        "bucket them: one collective over a flat buffer of many tensors (DDP's bucket_cap_mb, "
        "torch's coalescing manager) pays NCCL's per-call cost once",
        "%llu %s calls of %s each (%s, %u ranks; median %s on the GPU): messages this small "
        "are bound by NCCL's fixed cost per call, not by the bus",
        (unsigned long long)best->calls, best->op, cuprof_findings_fmt_bytes(b, sizeof b, best->size),
        best->dtype, best->nranks, cuprof_findings_fmt_ns(m, sizeof m, best->gpu_median_ns));
    cuprof_findings_num(f, "calls", (double)best->calls, 1);
    cuprof_findings_num(f, "size_bytes", (double)best->size, 1);
    cuprof_findings_num(f, "gpu_median_ns", (double)best->gpu_median_ns, 1);
}

static void spread(fctx *c, const cuprof_collectives *k)
{
    const cuprof_coll_row *worst = NULL;
    for (size_t i = 0; i < k->nrows; i++) {
        const cuprof_coll_row *r = &k->rows[i];
        if (r->calls >= COLL_SPREAD_CALLS && r->gpu_min_ns &&
            r->gpu_median_ns >= COLL_SPREAD_RATIO * (double)r->gpu_min_ns &&
            r->gpu_median_ns - r->gpu_min_ns >= COLL_SPREAD_MIN_NS &&
            (!worst || r->gpu_total_ns > worst->gpu_total_ns))
            worst = r;
    }
    if (!worst)
        return;
    double factor = cuprof_coll_bus_factor(worst->op, worst->nranks);
    double best_bw = (double)worst->size / (double)worst->gpu_min_ns * factor;
    char b[32], x[32];
    cuprof_finding *f = cuprof_findings_add(
        c, "collective-spread", "warning",
        "a rank reaches the collective late (prof.sh merge names the straggler), or the bus is "
        "shared: look at what the ranks do before it",
        "%s of %s on %u ranks: median bus bandwidth %.1f GB/s, %s below its best call's %.1f GB/s "
        "(the calls wait inside the kernel for the other ranks)",
        worst->op, cuprof_findings_fmt_bytes(b, sizeof b, worst->size), worst->nranks, worst->busbw_gbps,
        cuprof_findings_fmt_x(x, sizeof x, best_bw / (worst->busbw_gbps > 0 ? worst->busbw_gbps : 1)), best_bw);
    cuprof_findings_num(f, "busbw_median_gbps", worst->busbw_gbps, 0);
    cuprof_findings_num(f, "busbw_best_gbps", best_bw, 0);
    cuprof_findings_num(f, "calls", (double)worst->calls, 1);
}

void cuprof_findings_rule_collectives(fctx *c)
{
    if (!c->g || !c->tl)
        return;
    /* the model's (the same inputs: steps NULL or none counts alike), else built */
    cuprof_collectives *own = c->colls ? NULL : cuprof_collectives_build(c->run, c->tl, c->steps);
    const cuprof_collectives *k = c->colls ? c->colls : own;
    if (!k)
        return;
    if (k->nrows) {
        exposed(c, k);
        small(c, k);
        spread(c, k);
    }
    cuprof_collectives_destroy(own);
}
