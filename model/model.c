/*
 * model.c - the model built from a run: names, then the timeline, then the
 * modules the traces read beside the summary, then the summary's other rows
 * and the findings (see model.h).
 */
#include "model/model.h"
#include "model/findings.h"

#include <stdlib.h>

cuprof_model *cuprof_model_start(const cuprof_run *run, cuprof_demangle_fn demangle)
{
    cuprof_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->run = run;
    if (run->capture.trigger && run->gpu_run) {
        /* Through a capture window: join once to learn which records are
         * the recorded calls', then build on those alone (model/capture.h). */
        cuprof_timeline *all = cuprof_timeline_build(run);
        m->clipped = all ? cuprof_capture_clip(run, all) : NULL;
        cuprof_timeline_destroy(all);
        if (!m->clipped) {
            free(m);
            return NULL;
        }
        m->run_clipped = *run;
        m->run_clipped.gpu_run = m->clipped;
        m->run = run = &m->run_clipped;
    }
    if (cuprof_names_build(&m->names, run, run->gpu_run, demangle) < 0 ||
        !(m->timeline = cuprof_timeline_build(run))) {
        cuprof_model_destroy(m);
        return NULL;
    }
    m->gpu = m->timeline->gpu;
    return m;
}

int cuprof_model_build_traced(cuprof_model *m, cuprof_demangle_fn demangle)
{
    const cuprof_run *run = m->run;
    if (!(m->ranges = cuprof_ranges_build(run, m->timeline)) ||
        !(m->steps = cuprof_steps_build(run, m->ranges, m->timeline)) ||
        !(m->stacks = cuprof_stacks_build(run, &m->names, m->timeline, demangle)) ||
        !(m->memory = cuprof_memory_build(run, m->stacks)) ||
        !(m->graphs = cuprof_graphs_build(run, &m->names, m->ranges, m->stacks)) ||
        !(m->census = cuprof_census_build(m->timeline, m->graphs)) ||
        !(m->colls = cuprof_collectives_build(run, m->timeline, m->steps)) ||
        !(m->math = cuprof_math_index_build(run)))
        return -1;
    return 0;
}

int cuprof_model_finish(cuprof_model *m)
{
    const cuprof_run *run = m->run;
    if (cuprof_ranges_summarize(m->ranges, run, m->summary) < 0 ||
        cuprof_steps_summarize(m->steps, m->summary) < 0 ||
        cuprof_math_summarize(m->math, run, m->timeline, m->summary) < 0)
        return -1;
    /* last: some rules read the steps (none on out of memory, the rest stands) */
    cuprof_findings_build(run, &m->names, m->timeline, m->steps, m->memory, m->graphs, m->colls,
                          m->summary);
    return 0;
}

cuprof_model *cuprof_model_build(const cuprof_run *run, cuprof_demangle_fn demangle)
{
    cuprof_model *m = cuprof_model_start(run, demangle);
    if (m && (cuprof_model_build_traced(m, demangle) < 0 ||
              !(m->summary = cuprof_summary_build(m->run, &m->names, m->timeline)) ||
              cuprof_model_finish(m) < 0)) {
        cuprof_model_destroy(m);
        return NULL;
    }
    return m;
}

void cuprof_model_destroy(cuprof_model *m)
{
    if (!m)
        return;
    cuprof_math_index_destroy(m->math);
    cuprof_census_destroy(m->census);
    cuprof_collectives_destroy(m->colls);
    cuprof_graphs_destroy(m->graphs);
    cuprof_memory_destroy(m->memory);
    cuprof_stacks_destroy(m->stacks);
    cuprof_steps_destroy(m->steps);
    cuprof_ranges_destroy(m->ranges);
    cuprof_summary_destroy(m->summary);
    cuprof_timeline_destroy(m->timeline);
    cuprof_names_destroy(&m->names);
    cuprof_capture_clip_free(m->clipped);
    free(m);
}
