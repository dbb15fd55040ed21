/*
 * compare.h - side-by-side comparison of profiled runs (cuprof-compare).
 *
 * cmp_build() lines up two or more summaries (formats/compare/summary_reader.h)
 * into one model: overview metrics, per-iteration figures, and the union of
 * API calls, copies, BLAS shapes and kernels by name, each as one number per
 * run. It also derives the plain-words differences (kernels present in only
 * some runs, GEMM epilogue changes). The renderers print that model as a
 * table (compare_text.c) or as JSON (compare_json.c, "cuprof.compare/1",
 * documented in formats/SCHEMA.md). The first run is the base of every delta
 * and ratio.
 */
#ifndef CUPROF_COMPARE_H
#define CUPROF_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/compare/summary_reader.h"

/* Runs are labelled A..Z, so at most 26. */
#define CMP_MAX_RUNS 26
#define COMPARE_SCHEMA "cuprof.compare/1"

/* How a series' numbers read. */
typedef enum cmp_unit {
    CMP_NS,         /* nanoseconds */
    CMP_COUNT,      /* a plain count */
    CMP_BYTES,      /* bytes */
    CMP_PPM,        /* a share in parts per million (idle share) */
    CMP_MILLI,      /* a count times 1000 (launches per iteration) */
} cmp_unit;

/* One number per run; a run that lacks it (absent field, no GPU timeline,
 * name not in that run) has its bit clear in has. */
typedef struct cmp_series {
    int64_t v[CMP_MAX_RUNS];    /* value per run, 0 where absent */
    uint32_t has;               /* bit r: run r has a value */
    uint32_t sketched;          /* bit r: run r's value is a median its summary.json
                                   marks approximate (median_sketched: past the exact
                                   bound, within CUPROF_QUANTILE_REL_ERR) */
} cmp_series;

/* A named top-level metric (overview and per-iteration tables). */
typedef struct cmp_metric {
    const char *key;            /* JSON key, e.g. "wall_ns" */
    const char *label;          /* text label, e.g. "wall time" */
    cmp_unit unit;              /* how to print it */
    cmp_series s;               /* the numbers */
} cmp_metric;

typedef struct cmp_api_row {
    const char *name;           /* entry point (borrowed from a summary) */
    cmp_series calls;           /* number of calls */
    cmp_series errors;          /* calls that returned an error */
    cmp_series cpu_total_ns;    /* host time, nested calls included */
    cmp_series cpu_self_ns;     /* host time, nested calls excluded */
} cmp_api_row;

typedef struct cmp_kernel_row {
    const char *name;           /* demangled kernel name (borrowed) */
    cmp_series launches;        /* launches */
    cmp_series gpu_total_ns;    /* device time (absent without a GPU timeline) */
    cmp_series median_ns;       /* median launch (absent without a GPU timeline) */
} cmp_kernel_row;

typedef struct cmp_copy_row {
    const char *kind;           /* direction (borrowed) */
    cmp_series calls;           /* copies */
    cmp_series bytes;           /* bytes moved */
    cmp_series gpu_total_ns;    /* device time (absent without a GPU timeline) */
} cmp_copy_row;

typedef struct cmp_shape_row {
    const char *blas;           /* entry point the shape belongs to (borrowed) */
    int64_t m, n, k, batch;     /* GEMM dimensions */
    const char *dtype;          /* data type (borrowed) */
    const char *epilogue;       /* epilogue (borrowed) */
    cmp_series calls;           /* calls with this exact shape */
} cmp_shape_row;

typedef struct cmp_blas_row {
    const char *name;           /* entry point (borrowed) */
    cmp_series calls;           /* calls, all shapes */
} cmp_blas_row;

typedef struct cmp_range_row {
    const char *name;           /* NVTX range name (borrowed) */
    const char *domain;         /* its domain, "" default (borrowed) */
    cmp_series calls;           /* occurrences */
    cmp_series cpu_total_ns;    /* host time inside them */
    cmp_series gpu_total_ns;    /* device time launched inside (absent without a GPU timeline) */
    cmp_series median_ns;       /* median occurrence on the host */
} cmp_range_row;

/* A launch site (runs with --stacks): the GPU time its calls caused. */
typedef struct cmp_site_row {
    const char *site;           /* "function (object)" (borrowed) */
    cmp_series gpu_total_ns;    /* device time of the work its calls caused */
    cmp_series kernels;         /* kernels among it */
    cmp_series calls;           /* calls made from it */
} cmp_site_row;

/* The steps (model/steps.h) of each run: one row, whatever each run's step
 * range is called (the label names them). */
typedef struct cmp_step_row {
    cmp_series steps;           /* how many */
    cmp_series median_ns;       /* step time */
    cmp_series first_ns;        /* the first step */
    cmp_series steady_median_ns;/* the steps after the first */
    cmp_series busy_ppm;        /* GPU busy share of the median step, ppm
                                   (absent without a GPU timeline) */
} cmp_step_row;

typedef struct cmp_finding_row {
    const char *rule;           /* rule id (borrowed) */
    const char *severity[CMP_MAX_RUNS]; /* per run, NULL where it did not fire */
} cmp_finding_row;

/* A kernel present in some runs and missing from others. */
typedef struct cmp_presence {
    const char *name;           /* kernel name (borrowed) */
    uint32_t in;                /* bit r: present in run r */
    int64_t launches[CMP_MAX_RUNS]; /* launches where present */
} cmp_presence;

/* A GEMM whose epilogue differs between the base run and another. */
typedef struct cmp_epilogue_change {
    size_t run;                 /* the run that differs from run 0 */
    bool all_gemms;             /* no common shape: compared all GEMMs at once */
    int64_t m, n, k, batch;     /* the shape (when !all_gemms) */
    char *from;                 /* epilogues in run 0, "A, B" (owned) */
    char *to;                   /* epilogues in this run (owned) */
    char *sentence;             /* the plain-words line (owned) */
} cmp_epilogue_change;

/* The whole comparison. Strings marked borrowed point into the summaries,
 * which must outlive it. */
typedef struct compare {
    size_t n_runs;                          /* 2..CMP_MAX_RUNS */
    const summary *runs[CMP_MAX_RUNS];      /* the inputs, in order */
    char *names[CMP_MAX_RUNS];              /* "program --distinguishing args" (owned) */
    cmp_metric overview[8];  size_t n_overview;   /* wall, CPU in CUDA calls, GPU, launches */
    bool per_iteration;                     /* all runs share an iteration count */
    int64_t iterations;                     /* that count */
    char *iteration_note;                   /* why per_iteration is false, or NULL (owned) */
    cmp_metric per_iter[4];  size_t n_per_iter;   /* overview figures / iterations */
    /* Rows: the union over all runs, sorted (most expensive first; copies by
     * direction; shapes by entry point and size). Arrays owned. */
    cmp_api_row *api;        size_t n_api;
    cmp_copy_row *copies;    size_t n_copies;
    cmp_blas_row *blas;      size_t n_blas;
    cmp_shape_row *shapes;   size_t n_shapes;
    cmp_kernel_row *kernels; size_t n_kernels;
    cmp_finding_row *findings; size_t n_findings;
    cmp_range_row *ranges;   size_t n_ranges;     /* NVTX ranges by name and domain */
    cmp_site_row *sites;     size_t n_sites;      /* launch sites, by the largest GPU
                                                     time gained or lost, then GPU time */
    bool has_steps;                         /* some run has steps */
    cmp_step_row steps;                     /* their numbers, where a run has them */
    cmp_presence *presence;  size_t n_presence;   /* kernels missing from some run */
    cmp_epilogue_change *epilogues; size_t n_epilogues; /* GEMM epilogues that changed */
    bool sketched;                          /* some median shown is approximate (a
                                               series' sketched bit): the text's legend */
} compare;

/*
 * Turns a command-line argument into a summary file path: a file is taken as
 * it is; a directory must hold exactly one *.summary.json (otherwise the error
 * names what is there and asks for a file). Returns 0 and a malloc'd path in
 * *path, or -1 and one "cuprof: ..." line in err[errlen].
 */
int cmp_resolve_path(const char *arg, char **path, char *err, size_t errlen);

/* Fills *c from n summaries (2 <= n <= CMP_MAX_RUNS). Returns 0, or -1 when
 * out of memory or n is out of range (then *c holds nothing to free). */
int cmp_build(compare *c, const summary *const *runs, size_t n);
/* Frees what cmp_build allocated. */
void cmp_free(compare *c);

/* Prints the table; returns 0, or -1 if writing failed. */
int cmp_print_text(const compare *c, FILE *out);
/* Prints the "cuprof.compare/1" JSON document; returns 0 or -1. */
int cmp_print_json(const compare *c, FILE *out);

/* Human time as torch.profiler prints it: "850ns", "56.000us", "1.234ms",
 * "2.500s"; with sign != 0 a leading '+' or '-' is always written. */
void cmp_fmt_time(char *buf, size_t len, int64_t ns, int sign);
/* Human byte count: "512B", "4.00KiB", "1.50MiB", "2.00GiB". */
void cmp_fmt_bytes(char *buf, size_t len, int64_t bytes, int sign);

/* The plain-words line for presence[i]: "only in B: NAME (10 launches)",
 * "only in A: NAME (10 launches); gone from B" or "missing from B: NAME (A: 10,
 * C: 10 launches)". Raw names, no newline; returns the length written. */
size_t cmp_presence_text(const compare *c, size_t i, char *buf, size_t len);

/* Letter of run r: 'A' + r. */
static inline char compare_letter(size_t r) { return (char)('A' + r); }

#endif
