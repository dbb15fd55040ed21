/*
 * model.h - the run as plain data, built once at exit: what every writer
 * in formats/ reads, and nothing else.
 *
 *   collector (snapshot)  ->  cuprof_run + cuprof_gpu_run  ->  cuprof_model_build
 *                                                               |  names: every kernel name
 *                                                               |    demangled once
 *                                                               |  timeline: every GPU record
 *                                                               |    joined to its cause
 *                                                               |  summary: rows, findings
 *                                                               v
 *                                                    formats/ (const cuprof_model *)
 *
 * No global state, no I/O, no CUDA calls: the same input gives the same
 * model, in the library at exit and in a test that fills a run by hand.
 */
#ifndef CUPROF_MODEL_H
#define CUPROF_MODEL_H

#include "model/capture.h"
#include "model/census.h"
#include "model/collectives.h"
#include "model/gpu.h"
#include "model/graphs.h"
#include "model/mathlib.h"
#include "model/memory.h"
#include "model/names.h"
#include "model/ranges.h"
#include "model/run.h"
#include "model/stacks.h"
#include "model/steps.h"
#include "model/summary.h"
#include "model/timeline.h"

typedef struct cuprof_model {
    const cuprof_run *run;        /* the recorded calls and metadata (not owned) */
    const cuprof_gpu_run *gpu;    /* the device records: run->gpu_run, or an empty one */
    cuprof_names names;           /* kernel names as shown */
    cuprof_timeline *timeline;    /* GPU records joined to the calls; GPU stats */
    cuprof_summary *summary;      /* the tables' rows and the findings */
    cuprof_ranges *ranges;        /* NVTX ranges, the GPU work inside each */
    cuprof_steps *steps;          /* the step range's occurrences (model/steps.h) */
    cuprof_stacks *stacks;        /* time by host call stack (model/stacks.h) */
    cuprof_memory *memory;        /* device memory held over the run (model/memory.h) */
    cuprof_graphs *graphs;        /* CUDA graphs replayed, by origin (model/graphs.h) */
    cuprof_census *census;        /* how each kernel was launched (model/census.h) */
    cuprof_collectives *colls;    /* NCCL's collectives, exposed communication */
    cuprof_math_index *math;      /* the math libraries' handles, for their calls' sizes
                                     (cuprof_math_args_of, model/mathlib.h) */
    /* Through a capture window (run->capture): run is run_clipped, a copy of
     * the recorded run whose gpu_run is clipped to the windows' calls. */
    cuprof_run run_clipped;
    cuprof_gpu_run *clipped;
} cuprof_model;

/* Builds the model of run (with its device records attached as
 * run->gpu_run, or none). demangle turns mangled kernel names into what the
 * outputs show (NULL: names stay as recorded). run, and the records, must
 * outlive the model. NULL on out of memory. Owned: cuprof_model_destroy. */
cuprof_model *cuprof_model_build(const cuprof_run *run, cuprof_demangle_fn demangle);
void cuprof_model_destroy(cuprof_model *m);

/* cuprof_model_build in its stages, for a caller that runs the two middle
 * ones on two threads at once (tools/report.c; the model itself starts no
 * thread). Each stage reads only what the stages before it built:
 *   cuprof_model_start          the capture window's clip, names, timeline
 *                               (and gpu); NULL on out of memory
 *   cuprof_model_build_traced   ranges, steps, stacks, memory, graphs,
 *                               census, collectives, the math index: all
 *                               that the trace writers read
 *   cuprof_summary_build(m->run, &m->names, m->timeline)
 *                               the summary's rows (by API, kernel, copy,
 *                               shape), stored by the caller in m->summary:
 *                               it reads only start's fields, and
 *                               build_traced writes only its own
 *   cuprof_model_finish         after both: the summary's ranges, steps and
 *                               math rows, then the findings (writes only
 *                               into m->summary)
 * build_traced and finish return 0, or -1 on out of memory (then only
 * cuprof_model_destroy). */
cuprof_model *cuprof_model_start(const cuprof_run *run, cuprof_demangle_fn demangle);
int cuprof_model_build_traced(cuprof_model *m, cuprof_demangle_fn demangle);
int cuprof_model_finish(cuprof_model *m);

#endif /* CUPROF_MODEL_H */
