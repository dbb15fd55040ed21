/*
 * summary_reader.h - load and validate a NAME.summary.json ("cuprof.summary/1")
 * into plain C structs, for the tools that read runs back (cuprof-compare).
 *
 * This module links jansson; the preloaded library must never link it, so it
 * is only built into the tools and their tests (formats/compare/compare.mk).
 *
 * Validation is strict on the fields the schema fixes (every type is checked,
 * integers must be whole numbers >= 0 that fit in int64_t) and lenient on
 * everything else: unknown fields are ignored, and the optional fields the
 * GPU-timeline work adds ("gpu", "iterations") are read when they have the
 * expected type and treated as absent otherwise, because their shape is not
 * fixed yet.
 *
 * Every failure is reported as one line, ready to print:
 *     cuprof: <file>: <what is wrong>; <what to do>
 */
#ifndef CUPROF_SUMMARY_READER_H
#define CUPROF_SUMMARY_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SUMMARY_SCHEMA "cuprof.summary/1"
/* Size of the buffer the functions below write their error line into. */
#define SUMMARY_ERR_MAX 1024
/* Larger files are refused before parsing (a summary is kilobytes). */
#define SUMMARY_MAX_BYTES ((size_t)256 << 20)

/* One row of "api": a CUDA runtime / cuBLAS entry point the program called. */
typedef struct summary_api {
    char *name;             /* entry point, e.g. "cudaLaunchKernel" */
    int64_t calls;          /* number of calls */
    int64_t errors;         /* calls that returned an error */
    int64_t cpu_total_ns;   /* host time inside the call, children included */
    int64_t cpu_self_ns;    /* host time minus nested recorded calls */
    int64_t min_ns;         /* shortest call */
    int64_t median_ns;      /* median call */
    int64_t max_ns;         /* longest call */
    int64_t cuda_self_ns;   /* device time of what the call caused directly */
    int64_t cuda_total_ns;  /* device time including nested calls */
} summary_api;

/* One row of "kernels": a demangled kernel name and its launches. */
typedef struct summary_kernel {
    char *name;             /* demangled kernel name */
    int64_t launches;       /* number of launches */
    int64_t gpu_total_ns;   /* summed device time (0 without a GPU timeline) */
    int64_t min_ns;         /* shortest launch */
    int64_t median_ns;      /* median launch */
    int64_t max_ns;         /* longest launch */
} summary_kernel;

/* One row of "copies": one direction ("HtoD", ..., "memset"). */
typedef struct summary_copy {
    char *kind;             /* "HtoD" "DtoH" "DtoD" "HtoH" "PtoP" "memset" (others kept) */
    int64_t calls;          /* number of copies */
    int64_t bytes;          /* bytes moved */
    int64_t gpu_total_ns;   /* summed device time */
} summary_copy;

/* One distinct GEMM shape of a BLAS entry point. */
typedef struct summary_shape {
    int64_t m, n, k;        /* GEMM dimensions */
    int64_t batch;          /* batch count (1 when not batched) */
    char *dtype;            /* data type as the writer names it, e.g. "bf16" */
    char *epilogue;         /* cuBLASLt epilogue ("DEFAULT", "BIAS", ...) */
    int64_t calls;          /* calls with this shape */
} summary_shape;

/* One row of "blas": a cuBLAS / cuBLASLt entry point and its shapes. */
typedef struct summary_blas {
    char *name;             /* e.g. "cublasLtMatmul" */
    int64_t calls;          /* calls, all shapes */
    summary_shape *shapes;  /* n_shapes entries, owned */
    size_t n_shapes;
} summary_blas;

/* One entry of "findings". */
typedef struct summary_finding {
    char *rule;             /* rule id */
    char *severity;         /* e.g. "info", "warning" */
    char *message;          /* one line for the user */
} summary_finding;

/* The optional top-level "gpu" object; each field may be absent. */
typedef struct summary_gpu {
    bool has_busy_ns;       /* busy_ns was present and valid */
    int64_t busy_ns;        /* time the device was executing something */
    bool has_idle_share;    /* idle_share was present and valid */
    double idle_share;      /* idle fraction of the wall time, 0..1 */
    bool has_launch_latency_median_ns;
    int64_t launch_latency_median_ns; /* kernel start minus launching call start */
} summary_gpu;

/* A whole run. All strings and arrays are owned and freed by cmp_summary_destroy. */
typedef struct summary {
    char *path;             /* file it was read from (or the label given to cmp_summary_parse) */
    char *program;          /* profiled program as given to prof.sh */
    char **argv;            /* its argument vector, argc entries */
    size_t argc;
    int64_t pid;            /* process id */
    int64_t wall_ns;        /* profiled wall time */
    bool gpu_captured;      /* gpu_timeline.captured */
    char *gpu_reason;       /* gpu_timeline.reason (may be "") */
    summary_api *api;       size_t n_api;
    summary_kernel *kernels; size_t n_kernels;
    summary_copy *copies;   size_t n_copies;
    summary_blas *blas;     size_t n_blas;
    summary_finding *findings; size_t n_findings;
    bool has_gpu;           /* a "gpu" object was present */
    summary_gpu gpu;        /* its fields, when has_gpu */
    bool has_iterations;    /* an "iterations" count was present */
    int64_t iterations;     /* iterations the program ran (integer, or {"count": n}) */
} summary;

/*
 * Parses len bytes of data (need not be NUL-terminated) as a summary. label
 * names the input in error lines. On success returns 0 and *out owns a new
 * summary (free it with cmp_summary_destroy). On failure returns -1, leaves *out
 * NULL and writes one "cuprof: ..." line (no newline) into err[errlen].
 */
int cmp_summary_parse(const char *data, size_t len, const char *label, summary **out,
                  char *err, size_t errlen);

/* Reads the file at path and parses it as cmp_summary_parse does. */
int cmp_summary_load(const char *path, summary **out, char *err, size_t errlen);

/* Frees a summary and everything it owns; NULL is fine. */
void cmp_summary_destroy(summary *s);

#endif
