/*
 * summary_schema.h - the fields of summary.json's rows, listed once.
 *
 * The rows are the model's own types (model/summary.h). Each list below
 * names, in the order they are written, the members of one row type that
 * summary.json carries; the member's name is the JSON key. The writer
 * (formats/summary_json.c) and the reader (formats/compare/summary_reader.c)
 * both expand these lists, and tests/unit/test_schema.c checks them against
 * formats/SCHEMA.md. Adding a number to a row is one line here and one row in
 * SCHEMA.md.
 *
 *   X(KIND, member, WHEN)
 *   KIND  STR   const char *    a JSON string
 *         U32   uint32_t        an integer >= 0
 *         U64   uint64_t        an integer >= 0 (the reader refuses > INT64_MAX)
 *         FIX6  double          a number written with 6 decimals
 *         BOOL  int             true (1) or false (0)
 *   WHEN  ALWAYS   always written; a file without it is refused
 *         ADDED    always written, added after cuprof.summary/1 first shipped:
 *                  read when present, "" or 0 when absent
 *         NONZERO  written only when not 0; 0 when absent
 *
 * Nested parts (blas[].shapes, findings[].numbers) are written by hand after
 * the row's listed fields.
 */
#ifndef CUPROF_SUMMARY_SCHEMA_H
#define CUPROF_SUMMARY_SCHEMA_H

#include "model/stacks.h"
#include "model/summary.h"

#define CUPROF_SCHEMA_VERSION "cuprof.summary/1"

enum cuprof_schema_when {
    CUPROF_SCHEMA_ALWAYS,
    CUPROF_SCHEMA_ADDED,
    CUPROF_SCHEMA_NONZERO,
};

/* api[]: cuprof_stat_api */
#define CUPROF_SCHEMA_API(X)            \
    X(STR, name, ALWAYS)                \
    X(STR, category, ADDED)             \
    X(U64, calls, ALWAYS)               \
    X(U64, dropped, NONZERO)            \
    X(U64, errors, ALWAYS)              \
    X(U64, cpu_total_ns, ALWAYS)        \
    X(U64, cpu_self_ns, ALWAYS)         \
    X(U64, min_ns, ALWAYS)              \
    X(U64, median_ns, ALWAYS)           \
    X(U64, max_ns, ALWAYS)              \
    X(BOOL, median_sketched, NONZERO)   \
    X(U64, cuda_self_ns, ALWAYS)        \
    X(U64, cuda_total_ns, ALWAYS)

/* kernels[]: cuprof_stat_kernel */
#define CUPROF_SCHEMA_KERNEL(X)         \
    X(STR, name, ALWAYS)                \
    X(U64, launches, ALWAYS)            \
    X(U64, gpu_total_ns, ALWAYS)        \
    X(U64, min_ns, ALWAYS)              \
    X(U64, median_ns, ALWAYS)           \
    X(U64, max_ns, ALWAYS)              \
    X(BOOL, median_sketched, NONZERO)

/* copies[]: cuprof_stat_copy */
#define CUPROF_SCHEMA_COPY(X)           \
    X(STR, kind, ALWAYS)                \
    X(U64, calls, ALWAYS)               \
    X(U64, bytes, ALWAYS)               \
    X(U64, gpu_total_ns, ALWAYS)        \
    X(U64, gpu_copies, ADDED)           \
    X(U64, gpu_bytes, ADDED)            \
    X(FIX6, gb_per_s, ADDED)            \
    X(FIX6, mem_pct, ADDED)

/* math[]: cuprof_stat_math */
#define CUPROF_SCHEMA_MATH(X)           \
    X(STR, name, ADDED)                 \
    X(STR, library, ADDED)              \
    X(STR, kind, ADDED)                 \
    X(STR, dtype, ADDED)                \
    X(U64, m, ADDED)                    \
    X(U64, n, ADDED)                    \
    X(U64, k, ADDED)                    \
    X(U64, batch, ADDED)                \
    X(U64, b_cols, ADDED)               \
    X(U64, calls, ADDED)                \
    X(U64, gpu_total_ns, ADDED)         \
    X(U64, flops_per_call, ADDED)       \
    X(U64, timed_calls, ADDED)          \
    X(FIX6, tflops, ADDED)              \
    X(STR, prec, ADDED)                 \
    X(FIX6, peak_tflops, ADDED)         \
    X(FIX6, peak_pct, ADDED)

/* blas[]: cuprof_stat_blas, then "shapes" */
#define CUPROF_SCHEMA_BLAS(X)           \
    X(STR, name, ALWAYS)                \
    X(U64, calls, ALWAYS)

/* blas[].shapes[]: cuprof_stat_shape */
#define CUPROF_SCHEMA_SHAPE(X)          \
    X(U32, m, ALWAYS)                   \
    X(U32, n, ALWAYS)                   \
    X(U32, k, ALWAYS)                   \
    X(U32, batch, ALWAYS)               \
    X(STR, dtype, ALWAYS)               \
    X(STR, epilogue, ALWAYS)            \
    X(STR, transa, ADDED)               \
    X(STR, transb, ADDED)               \
    X(U64, calls, ALWAYS)               \
    X(U64, flops_per_call, ADDED)       \
    X(U64, gpu_ns, ADDED)               \
    X(U64, kernels, ADDED)              \
    X(U64, timed_calls, ADDED)          \
    X(FIX6, tflops, ADDED)              \
    X(STR, prec, ADDED)                 \
    X(FIX6, peak_tflops, ADDED)         \
    X(FIX6, peak_pct, ADDED)

/* ranges[]: cuprof_stat_range (the section is new: a reader takes a file
 * without it as one with no ranges) */
#define CUPROF_SCHEMA_RANGE(X)          \
    X(STR, name, ALWAYS)                \
    X(STR, domain, ALWAYS)              \
    X(U64, calls, ALWAYS)               \
    X(U64, cpu_total_ns, ALWAYS)        \
    X(U64, gpu_total_ns, ALWAYS)        \
    X(U64, kernels, ALWAYS)             \
    X(U64, min_ns, ALWAYS)              \
    X(U64, median_ns, ALWAYS)           \
    X(U64, max_ns, ALWAYS)              \
    X(BOOL, median_sketched, NONZERO)

/* steps[]: cuprof_stat_step (model/steps.h; one row, or none; the section
 * is new: a reader takes a file without it as one with no steps) */
#define CUPROF_SCHEMA_STEP(X)           \
    X(STR, name, ALWAYS)                \
    X(STR, domain, ALWAYS)              \
    X(STR, chosen_by, ALWAYS)           \
    X(U64, steps, ALWAYS)               \
    X(U64, median_ns, ALWAYS)           \
    X(U64, min_ns, ALWAYS)              \
    X(U64, max_ns, ALWAYS)              \
    X(U64, first_ns, ALWAYS)            \
    X(U64, steady_median_ns, ALWAYS)    \
    X(U64, gpu_median_ns, ALWAYS)       \
    X(FIX6, busy_median, ALWAYS)

/* step_list[]: cuprof_step, one per step in start order (written for
 * programs that plot them; compare does not read it) */
#define CUPROF_SCHEMA_STEP_ROW(X)       \
    X(U64, index, ALWAYS)               \
    X(U64, start_ns, ALWAYS)            \
    X(U64, dur_ns, ALWAYS)              \
    X(U64, gpu_ns, ALWAYS)              \
    X(U64, kernels, ALWAYS)             \
    X(U64, busy_ns, ALWAYS)

/* sites[]: cuprof_stat_site (model/stacks.h; launch sites of a run with
 * --stacks, by GPU time; the section is new and written only with stacks:
 * a reader takes a file without it as one with no sites) */
#define CUPROF_SCHEMA_SITE(X)           \
    X(STR, site, ALWAYS)                \
    X(U64, gpu_total_ns, ALWAYS)        \
    X(U64, kernels, ALWAYS)             \
    X(U64, calls, ALWAYS)               \
    X(U64, cpu_total_ns, ALWAYS)        \
    X(U64, cuda_total_ns, ADDED)

/* by_stack[] (with --stacks): written by summary_json.c's put_by_stack, in
 * this order, "frames" (the stack's user frames) after "api" */
#define CUPROF_SCHEMA_BY_STACK(X)       \
    X(STR, api, ALWAYS)                 \
    X(U64, calls, ALWAYS)               \
    X(U64, cpu_total_ns, ALWAYS)        \
    X(U64, cuda_total_ns, ALWAYS)

/* findings[]: cuprof_finding, then "numbers" */
#define CUPROF_SCHEMA_FINDING(X)        \
    X(STR, rule, ALWAYS)                \
    X(STR, severity, ALWAYS)            \
    X(STR, message, ALWAYS)             \
    X(STR, advice, ADDED)

#endif /* CUPROF_SUMMARY_SCHEMA_H */
