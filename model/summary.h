/*
 * summary.h - the numbers the tables show, computed once at exit from a
 * cuprof_run: per API entry point, per kernel, per copy kind, per BLAS shape.
 *
 * Everything here is plain data with resolved strings (names, dtypes,
 * epilogues), so formats/ prints it without knowing CUDA. GPU fields are 0
 * without a GPU timeline; with one (run->gpu_run attached), the records are
 * joined to the calls (model/timeline.h) and fill them: cuda_*_ns by the
 * attribution rules of model/README.md, kernel rows from device records,
 * copy rows' gpu_* fields, and the header's GPU numbers (timeline->stats).
 */
#ifndef CUPROF_SUMMARY_H
#define CUPROF_SUMMARY_H

#include "model/names.h"
#include "model/run.h"

struct cuprof_timeline;   /* model/timeline.h */

#include <stddef.h>
#include <stdint.h>

/* One entry point the program called (a row of the main table). */
typedef struct cuprof_stat_api {
    uint16_t api;              /* index in the run's API table; UINT16_MAX for a
                                * name only CUPTI saw (not in the table) */
    const char *name;          /* entry point, e.g. "cudaLaunchKernel" */
    const char *category;      /* "cuda_runtime", "cublas", ... */
    uint64_t calls;            /* hooked calls + calls only CUPTI saw (derived) +
                                * dropped ones */
    uint64_t dropped;          /* of calls: counted but not recorded (memory limit
                                * with no spill possible): no times, no errors */
    uint64_t errors;           /* calls whose result was not 0 */
    uint64_t cpu_total_ns;     /* sum of call durations (t1 - t0) */
    uint64_t cpu_self_ns;      /* cpu_total minus the durations of direct children */
    uint64_t min_ns, median_ns, max_ns; /* of one call's duration; median exact up to
                                         * CUPROF_QUANTILE_EXACT_MAX calls (model/quantile.h) */
    int median_sketched;       /* 1: more calls than that: the median is within
                                * CUPROF_QUANTILE_REL_ERR (min and max stay exact) */
    uint64_t cuda_self_ns;     /* device time of the work these calls caused directly */
    uint64_t cuda_total_ns;    /* ... plus what the calls inside them caused */
} cuprof_stat_api;

/* One kernel (by demangled name). */
typedef struct cuprof_stat_kernel {
    uint32_t id;               /* kernel-name id, 0 = unknown or from GPU records */
    const char *name;          /* demangled */
    uint64_t launches;         /* executions on the device (GPU records); launch
                                * calls seen on the CPU side without a timeline */
    uint64_t gpu_total_ns;     /* device time */
    uint64_t min_ns, median_ns, max_ns; /* of one execution on the device */
    int median_sketched;       /* 1: the median is approximate (model/quantile.h) */
} cuprof_stat_kernel;

/* Copies (and memsets) of one kind. */
typedef struct cuprof_stat_copy {
    uint8_t dir;               /* enum cuprof_dir */
    const char *kind;          /* "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "memset", "unknown" */
    uint64_t calls;            /* hooked calls of that kind (CPU side) */
    uint64_t bytes;            /* their bytes */
    uint64_t gpu_total_ns;     /* device time of the GPU records of that kind */
    uint64_t gpu_copies;       /* GPU records (copies cuBLAS made included) */
    uint64_t gpu_bytes;        /* their bytes */
    double gb_per_s;           /* gpu_bytes / gpu_total_ns (bytes per ns = GB/s) */
    double mem_pct;            /* DtoD and memset: the device memory traffic (a DtoD copy
                                  reads and writes its bytes) over the peak table's
                                  memory bandwidth, x 100; 0 unknown or another kind */
} cuprof_stat_copy;

/* Calls of one BLAS entry point with one shape. */
typedef struct cuprof_stat_shape {
    uint32_t m, n, k, batch;
    const char *dtype;         /* A's data type: "bf16", "fp16", "fp32", ... */
    const char *epilogue;      /* "DEFAULT", "BIAS", "RELU_BIAS", "GELU_BIAS", ... */
    const char *transa;        /* "N", "T", "C" */
    const char *transb;
    uint64_t calls;
    /* How far from the peak (model/peak.h): */
    uint64_t flops_per_call;   /* 2mnk x batch (x4 complex, + mn for a bias epilogue) */
    uint64_t gpu_ns;           /* device time of the kernels these calls launched */
    uint64_t kernels;          /* those kernels */
    uint64_t timed_calls;      /* calls with at least one such kernel (their FLOPs count) */
    double tflops;             /* FLOPs of the timed calls / gpu_ns, TFLOP/s; 0 unknown */
    const char *prec;          /* the precision it ran at: "bf16", "tf32", ... */
    double peak_tflops;        /* the device's dense peak at prec, 0 = unknown */
    double peak_pct;           /* tflops / peak_tflops x 100 (0 with no peak) */
} cuprof_stat_shape;

/* The device the peaks are taken from (summary->device). */
typedef struct cuprof_stat_device {
    const char *name;          /* CUDA's name for it ("" unknown) */
    uint32_t sms;
    uint32_t clock_khz;
    uint64_t mem_bytes;
    const char *peak_label;    /* the peak table's entry ("H100 SXM5"), NULL = none */
    const char *peak_source;   /* where its numbers come from */
    const char *peak_why;      /* with no entry: why (never NULL then) */
    double mem_gbps;           /* the table's device memory bandwidth, GB/s (0 unknown) */
    char why_buf[200];
} cuprof_stat_device;

/* Calls of one math-library entry point (cuFFT, cuRAND, cuSPARSE, cuSOLVER)
 * with one size, as model/mathlib.h gives them (cuprof_math_summarize): the
 * calls that compute (an FFT exec, a generate, SpMV, getrf, ...), an exec's
 * sizes joined from its plan or descriptor. */
typedef struct cuprof_stat_math {
    const char *name;          /* entry point: "cufftExecC2C", "cusparseSpMV", ... */
    const char *library;       /* "cufft", "curand", "cusparse", "cusolver" */
    const char *kind;          /* FFT type ("C2C"), RAND distribution ("normal"), SPARSE
                                  format ("CSR"); "" none or unknown */
    const char *dtype;         /* "fp32", ...; "" unknown */
    uint64_t m, n, k, batch;   /* cuprof_math_args's: FFT dims, SPARSE m n nnz, RAND count
                                  (k), SOLVER m n nrhs; batch 1 when none */
    uint64_t b_cols;           /* SPARSE: columns of the second operand (SpMM's B), 0 */
    uint64_t calls;
    uint64_t gpu_total_ns;     /* device time of the kernels, copies and memsets charged to
                                  these calls or to calls inside them (0 without a GPU
                                  timeline) */
    /* How far from the peak (model/peak.h; cuprof_math_flops): */
    uint64_t flops_per_call;   /* 0: not counted for this routine (RAND, SVD, ...) */
    uint64_t timed_calls;      /* calls with device time: the rate's FLOPs are theirs */
    double tflops;             /* 0 unknown */
    const char *prec;          /* "fp32", "fp64", ...: the peak it is held to */
    double peak_tflops;        /* 0 unknown */
    double peak_pct;           /* 0 unknown */
    int prec_id;               /* enum cuprof_prec (not written) */
} cuprof_stat_math;

typedef struct cuprof_stat_blas {
    uint16_t api;
    const char *name;          /* entry point, e.g. "cublasLtMatmul" */
    uint64_t calls;
    size_t nshapes;
    cuprof_stat_shape *shapes; /* most calls first */
} cuprof_stat_blas;

/* NVTX ranges of one name in one domain (model/ranges.h pairs them). */
typedef struct cuprof_stat_range {
    const char *name;          /* the range's message ("" when unnamed) */
    const char *domain;        /* "" for the default domain */
    uint64_t calls;            /* ranges of that name */
    uint64_t cpu_total_ns;     /* sum of their durations on the host */
    uint64_t gpu_total_ns;     /* device time of the work launched inside them */
    uint64_t kernels;          /* kernels launched inside them */
    uint64_t min_ns, median_ns, max_ns; /* of one range's duration */
    int median_sketched;       /* 1: the median is approximate (model/quantile.h) */
} cuprof_stat_range;

/* The steps (model/steps.h): one row for the step range, when there is one. */
typedef struct cuprof_stat_step {
    const char *name;          /* the step range, "#N" stripped */
    const char *domain;        /* "" default, "*" any */
    const char *chosen_by;     /* "--step-range", "the capture range", "its name" */
    uint64_t steps;            /* how many */
    uint64_t median_ns, min_ns, max_ns; /* step time */
    uint64_t first_ns;         /* the first step's */
    uint64_t steady_median_ns; /* median of the steps after the first (0 with < 2) */
    uint64_t gpu_median_ns;    /* median device time launched per step */
    double busy_median;        /* median share of a step the GPU was busy, [0, 1] */
} cuprof_stat_step;

/* Most numbers one finding carries. */
#define CUPROF_FINDING_NUMS 8

/* One number behind a finding, e.g. {"idle_share", 0.91, 0}. */
typedef struct cuprof_finding_num {
    const char *key;           /* static string, snake_case; "_ns" suffix for times */
    double value;
    int integer;               /* 1: written as an integer (counts, ns) */
} cuprof_finding_num;

/* Something a rule noticed (model/findings.h computes them). */
typedef struct cuprof_finding {
    const char *rule;          /* short id, e.g. "overhead-bound" */
    const char *severity;      /* "info", "warning" */
    const char *message;       /* one sentence a user can act on */
    const char *advice;        /* one line on what to try ("" if none) */
    size_t nnums;              /* numbers[0..nnums) */
    cuprof_finding_num nums[CUPROF_FINDING_NUMS]; /* the numbers behind it */
} cuprof_finding;

typedef struct cuprof_summary {
    size_t napi;
    cuprof_stat_api *api;      /* most expensive first (CUDA total, else CPU total) */
    size_t nkernels;
    cuprof_stat_kernel *kernels; /* most GPU time, then most launches first */
    size_t ncopies;
    cuprof_stat_copy *copies;  /* kinds that occurred, HtoD DtoH DtoD HtoH PtoP memset unknown */
    size_t nblas;
    cuprof_stat_blas *blas;    /* most calls first */
    size_t nfindings;
    cuprof_finding *findings;  /* one malloc block with their strings (findings.c) */
    uint64_t self_cpu_total_ns;  /* sum of cpu_self_ns over api rows */
    uint64_t self_cuda_total_ns; /* sum of cuda_self_ns over api rows */
    int sorted_by_cuda;        /* 1 when api rows are sorted by CUDA total */
    cuprof_stat_shape *shapes_all; /* owns every blas[].shapes (one block) */
    cuprof_stat_device device; /* the GPU and its peak table entry (model/peak.h) */
    size_t nmath;
    cuprof_stat_math *math;    /* most GPU time, then most calls first (cuprof_math_summarize) */
    size_t nranges;
    cuprof_stat_range *ranges; /* most GPU time, then most CPU time first
                                * (cuprof_ranges_summarize) */
    size_t nsteps;             /* 0 or 1 */
    cuprof_stat_step *steps;   /* cuprof_steps_summarize */
    /* The profiler's own cost: the recording's per-call cost measured at the
     * first call (run->hook_ns) times the calls recorded; 0 when not measured. */
    uint64_t overhead_per_call_ns;
    uint64_t overhead_calls;
    uint64_t overhead_total_ns;
    uint64_t events_failed;    /* recorded calls whose result was not 0, every one (the
                                  rows leave NVTX's out): 0, and the errors rule reads
                                  no call */
} cuprof_summary;

/* Aggregates run, with its kernel names (names) and its GPU records joined
 * to the calls (tl), then runs the findings rules. NULL on out of memory.
 * Strings point into run, names or static storage: they must outlive it.
 * Owned: cuprof_summary_destroy. */
cuprof_summary *cuprof_summary_build(const cuprof_run *run, const cuprof_names *names,
                                     const struct cuprof_timeline *tl);
void cuprof_summary_destroy(cuprof_summary *sum);

/* 1 when some median the summaries show is approximate (model/quantile.h):
 * a row's of s, the launch latency's of tl when run captured a timeline, or
 * one a finding quotes (its median_sketched number). */
int cuprof_summary_any_sketched(const cuprof_run *run, const cuprof_summary *s,
                                const struct cuprof_timeline *tl);

/* Sorts v[0..n) ascending and returns its exact median: the middle value,
 * or the mean of the two middle values (rounded down) when n is even; 0 when
 * n is 0. */
uint64_t cuprof_median_u64(uint64_t *v, size_t n);

#endif /* CUPROF_SUMMARY_H */
