/*
 * aggregate.h - the numbers the tables show, computed once at exit from a
 * cuprof_run: per API entry point, per kernel, per copy kind, per BLAS shape.
 *
 * Everything here is plain data with resolved strings (names, dtypes,
 * epilogues), so formats/ prints it without knowing CUDA. GPU fields are 0
 * until the GPU timeline (issue 4) adds device records to the run; then
 * cuprof_summary_build fills them (cuda_*_ns from the records attributed to
 * each call through its event id, kernel rows from device durations).
 */
#ifndef CUPROF_AGGREGATE_H
#define CUPROF_AGGREGATE_H

#include "collector/run.h"

#include <stddef.h>
#include <stdint.h>

/* One entry point the program called (a row of the main table). */
typedef struct cuprof_stat_api {
    uint16_t api;              /* index in the run's API table */
    const char *name;          /* entry point, e.g. "cudaLaunchKernel" */
    const char *category;      /* "cuda_runtime", "cublas", ... */
    uint64_t calls;
    uint64_t errors;           /* calls whose result was not 0 */
    uint64_t cpu_total_ns;     /* sum of call durations (t1 - t0) */
    uint64_t cpu_self_ns;      /* cpu_total minus the durations of direct children */
    uint64_t min_ns, median_ns, max_ns; /* of one call's duration; median exact */
    uint64_t cuda_self_ns;     /* device time of what the call caused itself (issue 4) */
    uint64_t cuda_total_ns;    /* ... plus what its children caused (issue 4) */
} cuprof_stat_api;

/* One kernel (by demangled name). */
typedef struct cuprof_stat_kernel {
    uint32_t id;               /* kernel-name id, 0 = unknown kernel */
    const char *name;          /* demangled */
    uint64_t launches;         /* launch calls seen on the CPU side */
    uint64_t gpu_total_ns;     /* device time (issue 4) */
    uint64_t min_ns, median_ns, max_ns; /* of one execution on the device (issue 4) */
} cuprof_stat_kernel;

/* Copies (and memsets) of one kind. */
typedef struct cuprof_stat_copy {
    uint8_t dir;               /* enum cuprof_dir */
    const char *kind;          /* "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "memset", "unknown" */
    uint64_t calls;
    uint64_t bytes;
    uint64_t gpu_total_ns;     /* device time (issue 4) */
} cuprof_stat_copy;

/* Calls of one BLAS entry point with one shape. */
typedef struct cuprof_stat_shape {
    uint32_t m, n, k, batch;
    const char *dtype;         /* A's data type: "bf16", "fp16", "fp32", ... */
    const char *epilogue;      /* "DEFAULT", "BIAS", "RELU_BIAS", "GELU_BIAS", ... */
    const char *transa;        /* "N", "T", "C" */
    const char *transb;
    uint64_t calls;
} cuprof_stat_shape;

typedef struct cuprof_stat_blas {
    uint16_t api;
    const char *name;          /* entry point, e.g. "cublasLtMatmul" */
    uint64_t calls;
    size_t nshapes;
    cuprof_stat_shape *shapes; /* most calls first */
} cuprof_stat_blas;

/* Something a rule noticed (rules come with a later issue). */
typedef struct cuprof_finding {
    const char *rule;          /* short id, e.g. "overhead-bound" */
    const char *severity;      /* "info", "warning" */
    const char *message;       /* one sentence a user can act on */
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
    cuprof_finding *findings;
    uint64_t self_cpu_total_ns;  /* sum of cpu_self_ns over api rows */
    uint64_t self_cuda_total_ns; /* sum of cuda_self_ns over api rows */
    int sorted_by_cuda;        /* 1 when api rows are sorted by CUDA total */
    cuprof_stat_shape *shapes_all; /* owns every blas[].shapes (one block) */
} cuprof_summary;

/* Aggregates run. NULL on out of memory. Owned: cuprof_summary_destroy. */
cuprof_summary *cuprof_summary_build(const cuprof_run *run);
void cuprof_summary_destroy(cuprof_summary *sum);

/* Sorts v[0..n) ascending and returns its exact median: the middle value,
 * or the mean of the two middle values (rounded down) when n is even; 0 when
 * n is 0. */
uint64_t cuprof_median_u64(uint64_t *v, size_t n);

#endif /* CUPROF_AGGREGATE_H */
