/*
 * summary_reader.h - load and validate a NAME.summary.json ("cuprof.summary/1")
 * into plain C structs, for the tools that read runs back (cuprof-compare).
 *
 * This module links jansson; the preloaded library must never link it, so it
 * is only built into the tools and their tests (formats/compare/compare.mk,
 * tests/unit/unit.mk).
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

#include "formats/summary_schema.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SUMMARY_SCHEMA CUPROF_SCHEMA_VERSION
/* Size of the buffer the functions below write their error line into. */
#define SUMMARY_ERR_MAX 1024
/* Larger files are refused before parsing (a summary is kilobytes). */
#define SUMMARY_MAX_BYTES ((size_t)256 << 20)

/* The rows are the writer's own types (model/summary.h), filled from the
 * fields formats/summary_schema.h lists; the reader owns their strings.
 * Members the file does not carry (an api row's index, a kernel's id, a
 * copy's dir, a finding's numbers) are 0. */

/* The optional top-level "gpu" object; each field may be absent. */
typedef struct summary_gpu {
    bool has_busy_ns;       /* busy_ns was present and valid */
    int64_t busy_ns;        /* time the device was executing something */
    bool has_idle_share;    /* idle_share was present and valid */
    double idle_share;      /* idle fraction of the wall time, 0..1 */
    bool has_launch_latency_median_ns;
    int64_t launch_latency_median_ns; /* kernel start minus launching call start */
    bool launch_latency_median_sketched; /* that median is approximate
                                            (launch_latency_median_sketched: true) */
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
    cuprof_stat_api *api;          size_t n_api;
    cuprof_stat_kernel *kernels;   size_t n_kernels;
    cuprof_stat_copy *copies;      size_t n_copies;
    cuprof_stat_blas *blas;        size_t n_blas;   /* each with nshapes shapes */
    cuprof_finding *findings;      size_t n_findings;
    cuprof_stat_range *ranges;     size_t n_ranges; /* none in files written before NVTX */
    cuprof_stat_site *sites;       size_t n_sites;  /* launch sites: only with --stacks */
    cuprof_stat_step *steps;       size_t n_steps;  /* 0 or 1; none before steps existed */
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
