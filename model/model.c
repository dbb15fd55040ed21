/*
 * model.c - the model built from a run: names, then the timeline, then the
 * summary and its findings (see model.h).
 */
#include "model/model.h"

#include <stdlib.h>

cuprof_model *cuprof_model_build(const cuprof_run *run, cuprof_demangle_fn demangle)
{
    cuprof_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->run = run;
    if (cuprof_names_build(&m->names, run, run->gpu_run, demangle) < 0 ||
        !(m->timeline = cuprof_timeline_build(run)) ||
        !(m->summary = cuprof_summary_build(run, &m->names, m->timeline)) ||
        !(m->ranges = cuprof_ranges_build(run, m->timeline)) ||
        cuprof_ranges_summarize(m->ranges, run, m->summary) < 0) {
        cuprof_model_destroy(m);
        return NULL;
    }
    m->gpu = m->timeline->gpu;
    return m;
}

void cuprof_model_destroy(cuprof_model *m)
{
    if (!m)
        return;
    cuprof_ranges_destroy(m->ranges);
    cuprof_summary_destroy(m->summary);
    cuprof_timeline_destroy(m->timeline);
    cuprof_names_destroy(&m->names);
    free(m);
}
