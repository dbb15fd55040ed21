/*
 * census.c - how each kernel was launched (census.h).
 */
#include "model/census.h"

#include <stdlib.h>
#include <string.h>

const char *cuprof_launch_path_key(int path)
{
    static const char *const k[] = {"runtime", "driver", "inside", "graph", "cupti", "unknown"};
    return path >= 0 && path < CUPROF_LAUNCH_NPATHS ? k[path] : "unknown";
}

const char *cuprof_launch_path_words(int path)
{
    static const char *const w[] = {
        "runtime launches", "driver API launches", "launches inside a hooked call",
        "graph replays", "launches seen by CUPTI only", "no launching call known",
    };
    return path >= 0 && path < CUPROF_LAUNCH_NPATHS ? w[path] : w[CUPROF_LAUNCH_UNKNOWN];
}

static int classify(const cuprof_timeline *tl, const cuprof_graphs *gs, size_t i, int *seen)
{
    const cuprof_gpu_kernel *k = &tl->gpu->kernels[i];
    const cuprof_cause cc = cuprof_kernel_cause(tl, i), *c = &cc;
    if (k->graph_id) {
        *seen = cuprof_graphs_node_captured(gs, k->graph_node_id);
        return CUPROF_LAUNCH_GRAPH;
    }
    *seen = 1;
    const cuprof_gpu_api *a = cuprof_cause_api(tl, c);
    if (a == NULL) {
        /* No runtime record (a kernels-only run, model/kmatch.h; or one CUPTI
         * dropped): the hooked call behind it says which path. */
        const cuprof_event *ev = c->hooked ? cuprof_run_find_event(tl->run, c->hooked, NULL) : NULL;
        if (ev && ev->cls == CUPROF_EV_LAUNCH)
            return strcmp(cuprof_run_api_category(tl->run, ev->api), "cuda_driver") == 0
                       ? CUPROF_LAUNCH_DRIVER
                       : CUPROF_LAUNCH_RUNTIME;
        if (ev)
            return CUPROF_LAUNCH_INSIDE;
        return *seen = 0, CUPROF_LAUNCH_UNKNOWN;
    }
    if (c->derived < 0)
        return a->driver ? CUPROF_LAUNCH_DRIVER : CUPROF_LAUNCH_RUNTIME;
    if (c->hooked)
        return CUPROF_LAUNCH_INSIDE;
    *seen = 0;
    return CUPROF_LAUNCH_CUPTI;
}

cuprof_census *cuprof_census_build(const cuprof_timeline *tl, const cuprof_graphs *gs)
{
    cuprof_census *c = calloc(1, sizeof *c);
    size_t n = tl && tl->gpu ? tl->gpu->n_kernels : 0;
    if (!c)
        return NULL;
    c->path = calloc(n ? n : 1, 1);
    if (!c->path) {
        free(c);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) {
        const cuprof_gpu_kernel *k = &tl->gpu->kernels[i];
        uint64_t ns = k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0;
        int seen = 0, p = tl->kernel_hooked ? classify(tl, gs, i, &seen) : CUPROF_LAUNCH_UNKNOWN;
        c->path[i] = (uint8_t)p;
        c->kernels[p]++;
        c->gpu_ns[p] += ns;
        c->total_kernels++;
        c->total_gpu_ns += ns;
        c->seen_gpu_ns += seen ? ns : 0;
    }
    c->coverage = c->total_gpu_ns ? (double)c->seen_gpu_ns / (double)c->total_gpu_ns : 0.0;
    return c;
}

void cuprof_census_destroy(cuprof_census *c)
{
    if (!c)
        return;
    free(c->path);
    free(c);
}
