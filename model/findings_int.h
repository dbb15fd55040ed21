/*
 * findings_int.h - what the findings rules share (model/findings*.c
 * only): the thresholds, the list being filled, number formatting.
 */
#ifndef CUPROF_FINDINGS_INT_H
#define CUPROF_FINDINGS_INT_H

#include "model/findings.h"
#include "model/timeline.h"

#include <stddef.h>
#include <stdint.h>

/* ---- thresholds --------------------------------------------------------- */

/* overhead-bound: the cheatsheet's "Self CPU total >> Self CUDA total (ms vs
 * us)". 5x leaves no doubt that dispatch dominates; the idle share (>= 50%
 * of the launch window) confirms the GPU waited rather than the CPU waiting
 * for it (a CPU blocked in a sync also counts as Self CPU). */
#define OVERHEAD_CPU_CUDA_RATIO 5.0
#define OVERHEAD_IDLE_SHARE 0.5
/* compute-bound: the GPU busy at least 80% of the steady state (else of the
 * window from the first launch to the last kernel end): launches keep it
 * fed, the kernels are the cost (the 4096 matmul runs at ~99%). */
#define COMPUTE_IDLE_SHARE 0.2
/* The steady state, where the verdict is read: the stretch between two
 * synchronizations of one thread that launched the most kernels (at least
 * 4), so set-up, warm-up and the syncs between them do not count as idle. */
#define STEADY_MIN_KERNELS 4
/* hotspot: one kernel with 60% of the GPU kernel time or more dominates (of
 * two kernels one always has half; 60% is clearly more than its share). */
#define HOTSPOT_SHARE 0.6
/* many-calls: 10k calls of one entry point cost ~10-50 ms of launch overhead
 * alone on a real system even when each call is cheap. */
#define MANY_CALLS 10000
/* cold-start: a first call 10x its entry point's median and at least 100 us
 * slower (cuBLAS's first GEMM on a handle, lazy module loading: hundreds of
 * us); needs 5 calls for the median to mean "steady state". */
#define COLD_MIN_CALLS 5
#define COLD_RATIO 10
#define COLD_MIN_EXTRA_NS 100000ull
/* cuda-startup: one call before the first launch that took 20 ms or more
 * and a fifth of Self CPU: CUDA creating its context and loading modules
 * (100-200 ms on an H100, in whichever call comes first: cudaMalloc,
 * cudaStreamCreate, PyTorch's cudaDeviceGetStreamPriorityRange), which the
 * table's totals otherwise present as the program's cost. */
#define STARTUP_MIN_NS 20000000ull
#define STARTUP_SHARE 0.2
/* sync-wait: a synchronize of at least 200 us during which the GPU was busy
 * less than a quarter of the time: the wait was not for GPU work. */
#define SYNC_MIN_NS 200000ull
#define SYNC_BUSY_SHARE 0.25
/* fusion-candidate: the kernel after the GEMM has about one thread per output
 * element: between 1/16 (vectorized: up to 16 elements per thread) and 2x
 * the output (+ one block's rounding). */
#define FUSE_MIN_DIV 16
#define FUSE_MAX_MUL 2
/* kernel-spread: 5 executions at least; max 2x the median and a mean 10%
 * above it: the average misleads ("a reader who only saw the average"). */
#define SPREAD_MIN_LAUNCHES 5
#define SPREAD_MAX_RATIO 2.0
#define SPREAD_MEAN_RATIO 1.1
/* launch-latency: kernels starting a millisecond after their launch mean a
 * deep queue (the CPU runs far ahead): fine when compute-bound, but the CPU
 * timings of a step then say nothing about its GPU cost. */
#define LATENCY_QUEUE_NS 1000000ull
/* launch-gaps: the GPU idles a median 5 us or more between consecutive
 * kernels, longer than a median kernel: launches do not keep up. */
#define GAP_MIN_NS 5000ull
#define GAP_MIN_KERNELS 4

/* step-cold-start: the first step 2x the steady steps' median and 100 us
 * slower at least (the first-call tax is hundreds of us to seconds; short
 * steps vary by tens of us on their own); needs 3 steps, so that there is
 * a steady state of 2 to compare with. */
#define STEP_COLD_MIN_STEPS 3
#define STEP_COLD_RATIO 2.0
#define STEP_COLD_MIN_EXTRA_NS 100000ull
/* step-outlier: a steady step (not the first) 1.5x their median and 100 us
 * slower, among 4 steady steps at least. */
#define STEP_OUTLIER_MIN_STEPS 4
#define STEP_OUTLIER_RATIO 1.5
#define STEP_OUTLIER_MIN_EXTRA_NS 100000ull
/* step-host-bound / step-gpu-bound: the GPU busy less than half of the
 * median step (the host is the bottleneck: launches, syncs, data), or 80%
 * and more (the kernels are the cost); 2 steps at least. */
#define STEP_HOST_BOUND_BUSY 0.5
#define STEP_GPU_BOUND_BUSY 0.8

/* below-peak: a GEMM shape with 5% of the kernel time or more that reaches
 * less than 30% of the device's dense peak at its precision (large bf16
 * GEMMs reach 85% on an H200, bench/H200.md; under a third is far). */
#define BELOW_PEAK_MIN_SHARE 0.05
#define BELOW_PEAK_PCT 30.0

/* ---- the list being filled ------------------------------------------------ */

#define MSG_MAX 640       /* a message with up to three kernel names */
#define ADV_MAX 240       /* one line of advice */
#define MAX_FINDINGS 32   /* more than every rule firing at its most */

/* A finding's strings, stored after the findings in the same block. */
typedef struct finding_text {
    char msg[MSG_MAX];    /* cuprof_finding.message points here */
    char adv[ADV_MAX];    /* cuprof_finding.advice points here */
} finding_text;

/* What the rules read and the list they fill. */
typedef struct fctx {
    const cuprof_run *run;         /* the calls, per thread in begin order */
    const cuprof_names *names;     /* kernel names as shown */
    const cuprof_summary *s;       /* the rows (findings not yet set) */
    const cuprof_timeline *tl;     /* GPU records joined to the calls (NULL in some tests) */
    const cuprof_gpu_run *g;       /* GPU records, NULL when not captured */
    const struct cuprof_steps *steps; /* the steps (model/steps.h), NULL when none */
    const struct cuprof_memory *mem;  /* device memory (model/memory.h), NULL in some tests */
    const struct cuprof_graphs *graphs; /* CUDA graphs replayed (model/graphs.h), may be NULL */
    const struct cuprof_collectives *colls; /* NCCL's collectives (model/collectives.h),
                                               NULL: built by their rule */
    cuprof_finding *out;           /* [MAX_FINDINGS] */
    finding_text *text;            /* [MAX_FINDINGS], after out in the same block */
    size_t n;                      /* findings so far */
} fctx;

/* Time in torch.profiler's units ("850ns", "56.0us", "1.23ms"), a share as
 * "91.2%", a ratio as "14.2x", into b (n bytes); returns b. Integer
 * arithmetic only: printf's %f follows the program's locale. */
const char *cuprof_findings_fmt_ns(char *b, size_t n, uint64_t ns);
const char *cuprof_findings_fmt_pct(char *b, size_t n, double share);
const char *cuprof_findings_fmt_bytes(char *b, size_t n, uint64_t bytes);
const char *cuprof_findings_fmt_x(char *b, size_t n, double r);

/* A median as cuprof_findings_fmt_ns writes it, "~" before it when it is
 * sketched (past run->quantile_exact_max samples, within
 * CUPROF_QUANTILE_REL_ERR: model/quantile.h), as summary.txt marks such
 * medians; exact: unchanged, so the messages of exact runs stay as they were. */
const char *cuprof_findings_fmt_median(char *b, size_t n, uint64_t ns, int sketched);
/* Adds the number median_sketched = 1 to f when sketched (some median the
 * finding quotes is approximate); nothing when exact (f may be NULL). */
void cuprof_findings_sketched(cuprof_finding *f, int sketched);

/* Adds a finding (message formatted like printf, advice copied); NULL when
 * the list is full. */
cuprof_finding *cuprof_findings_add(fctx *c, const char *rule, const char *severity, const char *advice,
                             const char *fmt, ...) __attribute__((format(printf, 5, 6)));
/* Adds a number to f (f may be NULL: then nothing). */
void cuprof_findings_num(cuprof_finding *f, const char *key, double v, int integer);

/* b - a, 0 when b <= a. */
static inline uint64_t findings_dur(uint64_t a, uint64_t b)
{
    return b > a ? b - a : 0;
}

/* GPU idle share in the steady state (see STEADY_MIN_KERNELS). */
typedef struct findings_steady {
    double idle_share;    /* 1 - busy / window, in [0, 1] */
    uint64_t window_ns;   /* first launching call of the stretch to its last kernel's end */
    uint64_t kernels;     /* kernels launched in the stretch */
} findings_steady;

/* Fills st; -1 when there is no steady state to read (no GPU records, or
 * fewer than STEADY_MIN_KERNELS kernels in any stretch, or out of memory). */
int cuprof_findings_steady_state(const fctx *c, findings_steady *st);

/* Rules that follow the calls' order (findings_order.c). */
void cuprof_findings_rule_cold_start(fctx *c);
void cuprof_findings_rule_heavyweight(fctx *c);
/* NCCL: exposed communication, small collectives, slow calls (findings_nccl.c). */
void cuprof_findings_rule_collectives(fctx *c);
void cuprof_findings_rule_sync_wait(fctx *c);
void cuprof_findings_rule_sequences(fctx *c);
/* Rules on the steps (findings_steps.c). */
void cuprof_findings_rule_steps(fctx *c);

/* GEMMs far below the device's peak (findings_peak.c). */
void cuprof_findings_rule_below_peak(fctx *c);

/* findings_errors.c: calls that failed; 1 when every CUDA call did. */
int cuprof_findings_rule_errors(fctx *c);

#endif /* CUPROF_FINDINGS_INT_H */
