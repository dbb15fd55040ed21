/*
 * steps.h - the steps of a run: the occurrences of one NVTX range that
 * repeats (a training or inference step), with the statistics a user reads
 * per step rather than per process: step time, the first step against the
 * steady state, how busy the GPU was inside each step.
 *
 * Which range (cuprof_steps.chosen_by says):
 *  1. run->step_range when set (prof.sh --step-range NAME[@DOMAIN]; by
 *     default the capture range, --capture-range nvtx:NAME);
 *  2. else a top-level range (no push range around it) that occurs at least
 *     twice and is named like a step: "ProfilerStep" first (PyTorch's), then
 *     a name containing "step", then "iter" (any case); the most frequent
 *     wins a tie.
 * A name matches with or without a "#N" suffix (PyTorch numbers its steps:
 * ProfilerStep#12); DOMAIN "" is the default domain, "*" any.
 */
#ifndef CUPROF_STEPS_H
#define CUPROF_STEPS_H

#include "model/ranges.h"
#include "model/run.h"
#include "model/timeline.h"

#include <stddef.h>
#include <stdint.h>

/* One step. */
typedef struct cuprof_step {
    uint64_t index;          /* 1-based, in start order */
    uint64_t start_ns;       /* host clock */
    uint64_t dur_ns;         /* its range's duration */
    uint64_t gpu_ns;         /* device time of the work launched inside it */
    uint64_t kernels;        /* kernels launched inside it */
    uint64_t busy_ns;        /* GPU busy (kernels, copies, memsets, whoever
                              * launched them) within [start, start + dur) */
} cuprof_step;

typedef struct cuprof_steps {
    const char *name;        /* the range's name, "#N" stripped */
    const char *domain;      /* its domain ("" default, "*" any) */
    const char *chosen_by;   /* "--step-range", "the capture range", "its name" */
    size_t n;
    cuprof_step *s;          /* by start time */
} cuprof_steps;

/* The steps of run (none: n = 0, name NULL). NULL on out of memory.
 * Owned: cuprof_steps_destroy. */
cuprof_steps *cuprof_steps_build(const cuprof_run *run, const cuprof_ranges *rg,
                                 const cuprof_timeline *tl);
void cuprof_steps_destroy(cuprof_steps *st);

/* Fills s->steps (one row, or none without steps). 0, or -1 on out of
 * memory. */
struct cuprof_summary;
int cuprof_steps_summarize(const cuprof_steps *st, struct cuprof_summary *s);

#endif /* CUPROF_STEPS_H */
