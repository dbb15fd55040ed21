/*
 * recut.c - a run cut to a capture window after the fact (recut.h).
 *
 * The window is found from the recorded calls as the recording process
 * would have found it (collector/capture.c): cudaProfilerApi opens at the
 * start of the first cudaProfilerStart and closes at the end of the next
 * cudaProfilerStop; nvtx:NAME opens at the first push (or start) of a range
 * called NAME (a "#digits" suffix ignored) and closes at its pop (or end).
 * The calls whose start lies in the window are kept, renumbered; GPU
 * records of the calls left out lose their external id (as records of
 * calls a gated process did not record have none), and the model clips
 * the GPU records to the window as it does for a recorded one.
 */
#include "tools/recut.h"
#include "model/gpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cuprof_recut {
    cuprof_run run;
    cuprof_gpu_run gpu;
    uint64_t window[1][2];
    cuprof_run_thread *threads;
    cuprof_event *events;
    const cuprof_event **chunk_ptrs;
    uint64_t **newseq;            /* [thread][old seq] = new seq + 1, 0 dropped */
    size_t nthreads;
    cuprof_gpu_kernel *kernels;
    cuprof_gpu_copy *copies;
    cuprof_gpu_api *apis;
    cuprof_gpu_sync *syncs;
    cuprof_gpu_extmap *extmap;
    cuprof_gpu_graph_node *nodes;
    char trigger[320], spec[400];
};

static const char *str_of(const cuprof_run *r, uint32_t id)
{
    return id && id <= r->nstrings && r->strings[id] ? r->strings[id] : "";
}

/* 1 when an NVTX event names the range (name, domain as the spec has them). */
static int is_range(const cuprof_run *r, const cuprof_event *e, const char *name, const char *dom)
{
    const char *n = str_of(r, e->a.nvtx.name);
    size_t bl = cuprof_nvtx_base_len(n);
    if (strlen(name) != bl || strncmp(n, name, bl) != 0)
        return 0;
    if (strcmp(dom, "*") == 0)
        return 1;
    return strcmp(str_of(r, e->a.nvtx.domain), dom) == 0;
}

/* The first window [open, close] of the range; 0 when found. */
static int find_window(const cuprof_run *r, const char *range, uint64_t w[2], char *why, size_t n)
{
    int profiler = strcmp(range, "cudaProfilerApi") == 0;
    char name[256] = "", dom[128] = "";
    if (!profiler) {
        if (strncmp(range, "nvtx:", 5) != 0 || !range[5]) {
            snprintf(why, n, "use cudaProfilerApi or nvtx:NAME[@DOMAIN] (a timed window "
                     "needs --delay/--duration when recording)");
            return -1;
        }
        const char *at = strchr(range + 5, '@');
        snprintf(name, sizeof name, "%.*s", at ? (int)(at - range - 5) : 255, range + 5);
        if (at)
            snprintf(dom, sizeof dom, "%s", at + 1);
    }
    uint64_t open = 0, close = 0;
    int found = 0;
    /* the earliest opening over every thread, then its close */
    for (size_t t = 0; t < r->nthreads; t++) {
        const cuprof_run_thread *th = &r->threads[t];
        uint64_t depth = 0, id = 0;
        int in = 0;
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *e = cuprof_run_event(th, i);
            const char *api = cuprof_run_api_name(r, e->api);
            if (profiler) {
                if (!in && strcmp(api, "cudaProfilerStart") == 0 && (!found || e->t0 < open)) {
                    in = 1;
                    open = e->t0;
                } else if (in && strcmp(api, "cudaProfilerStop") == 0) {
                    close = e->t1;
                    found = 1;
                    break;
                }
                continue;
            }
            if (e->cls == CUPROF_EV_RANGE_PUSH) {
                depth++;
                if (!in && is_range(r, e, name, dom) && (!found || e->t0 < open)) {
                    in = (int)depth;
                    open = e->t0;
                }
            } else if (e->cls == CUPROF_EV_RANGE_POP) {
                if (in && (uint64_t)in == depth) {
                    close = e->t0;
                    found = 1;
                    break;
                }
                if (depth)
                    depth--;
            } else if (e->cls == CUPROF_EV_RANGE_START && !in && is_range(r, e, name, dom) &&
                       (!found || e->t0 < open)) {
                in = -1;
                open = e->t0;
                id = e->a.nvtx.id;
            }
        }
        if (in == -1 && !found) {
            /* a start/end range may end on any thread */
            for (size_t u = 0; u < r->nthreads && !found; u++)
                for (uint64_t i = 0; i < r->threads[u].n; i++) {
                    const cuprof_event *e = cuprof_run_event(&r->threads[u], i);
                    if (e->cls == CUPROF_EV_RANGE_END && e->a.nvtx.id == id && e->t0 >= open) {
                        close = e->t0;
                        found = 1;
                        break;
                    }
                }
        }
        if (in && !found) {
            close = r->t_end;   /* open at the end */
            found = 1;
        }
    }
    w[0] = open;
    w[1] = close;
    return found ? 0 : 1;
}

static uint64_t remap(const cuprof_recut *c, const cuprof_run *r, uint64_t id)
{
    if (!id)
        return 0;
    uint32_t ti = cuprof_event_id_thread(id);
    uint64_t seq = cuprof_event_id_seq(id);
    for (size_t t = 0; t < r->nthreads; t++)
        if (r->threads[t].index == ti) {
            if (seq >= r->threads[t].n || !c->newseq[t][seq])
                return 0;
            return cuprof_event_id_make(ti, c->newseq[t][seq] - 1);
        }
    return 0;
}

#define COPY_REMAP(dst, src, n, c, r)                                    \
    do {                                                                 \
        if ((n) && ((dst) = malloc((n) * sizeof *(dst))) != NULL) {      \
            memcpy((dst), (src), (n) * sizeof *(dst));                   \
            for (size_t k_ = 0; k_ < (n); k_++)                          \
                (dst)[k_].ext = remap((c), (r), (dst)[k_].ext);          \
        }                                                                \
    } while (0)

static int cut_calls(cuprof_recut *c, const cuprof_run *r, int none, char *why, size_t n);

cuprof_recut *cuprof_recut_make(const cuprof_run *r, const char *range, char *why, size_t n)
{
    if (r->capture.trigger) {
        snprintf(why, n, "this run was recorded through a window already (%s): only the calls "
                 "in it are there", r->capture.spec ? r->capture.spec : r->capture.trigger);
        return NULL;
    }
    cuprof_recut *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    c->run = *r;
    c->run.kernels_used = NULL;   /* (the cut's calls are fewer) */
    int none = find_window(r, range, c->window[0], why, n);
    if (none < 0) {
        free(c);
        return NULL;
    }
    int profiler = strcmp(range, "cudaProfilerApi") == 0;
    snprintf(c->trigger, sizeof c->trigger, "%s",
             profiler ? "cudaProfilerStart/Stop" : range + 5);
    if (!profiler) {
        snprintf(c->trigger, sizeof c->trigger, "NVTX range %.300s", range + 5);
    }
    snprintf(c->spec, sizeof c->spec, "%.300s, end stop, skip first 0 (cut from the whole run "
             "by prof.sh report)", range);
    c->run.capture.trigger = c->trigger;
    c->run.capture.spec = c->spec;
    c->run.capture.repeat = 1;
    c->run.capture.seen = none ? 0 : 1;
    c->run.capture.opened = none ? 0 : 1;
    c->run.capture.nwindows = none ? 0 : 1;
    c->run.capture.windows = (const uint64_t (*)[2])c->window;
    c->run.capture.open_at_end = !none && c->window[0][1] == r->t_end;
    if (!profiler && !r->step_range) {
        static char step[256];
        const char *at = strchr(range + 5, '@');
        snprintf(step, sizeof step, "%.*s", at ? (int)(at - range - 5) : 255, range + 5);
        c->run.step_range = step;
        c->run.step_domain = at ? at + 1 : "";
        c->run.step_range_from = "the capture range";
    }
    if (cut_calls(c, r, none, why, n) != 0)
        return NULL;
    return c;
}

/* Keeps the calls of r that began in c->window[0] (none: no call), renumbered,
 * and the GPU records with their causes renumbered; 0, or -1 (c freed, why
 * said) without memory. */
static int cut_calls(cuprof_recut *c, const cuprof_run *r, int none, char *why, size_t n)
{
    c->nthreads = r->nthreads;
    c->threads = calloc(r->nthreads ? r->nthreads : 1, sizeof *c->threads);
    c->chunk_ptrs = calloc(r->nthreads ? r->nthreads : 1, sizeof *c->chunk_ptrs);
    c->newseq = calloc(r->nthreads ? r->nthreads : 1, sizeof *c->newseq);
    c->events = malloc((r->nevents ? r->nevents : 1) * sizeof *c->events);
    if (!c->threads || !c->chunk_ptrs || !c->newseq || !c->events) {
        cuprof_recut_free(c);
        snprintf(why, n, "out of memory");
        return -1;
    }
    cuprof_event *out = c->events;
    uint64_t kept = 0, left = 0;
    for (size_t t = 0; t < r->nthreads; t++) {
        const cuprof_run_thread *th = &r->threads[t];
        c->threads[t] = *th;
        c->newseq[t] = calloc(th->n ? th->n : 1, sizeof **c->newseq);
        if (!c->newseq[t]) {
            cuprof_recut_free(c);
            snprintf(why, n, "out of memory");
            return -1;
        }
        uint64_t m = 0;
        for (uint64_t i = 0; i < th->n; i++) {
            const cuprof_event *e = cuprof_run_event(th, i);
            if (!none && e->t0 >= c->window[0][0] && e->t0 <= c->window[0][1]) {
                out[m] = *e;
                c->newseq[t][i] = ++m;
            } else {
                left++;
            }
        }
        c->chunk_ptrs[t] = out;
        c->threads[t].n = m;
        c->threads[t].per_chunk = m ? m : 1;
        c->threads[t].chunks = &c->chunk_ptrs[t];
        out += m;
        kept += m;
    }
    c->run.threads = c->threads;
    c->run.nevents = kept;
    c->run.capture.outside_calls = left ? 1 : 0;
    if (r->gpu_run) {
        const cuprof_gpu_run *g = r->gpu_run;
        c->gpu = *g;
        COPY_REMAP(c->kernels, g->kernels, g->n_kernels, c, r);
        COPY_REMAP(c->copies, g->copies, g->n_copies, c, r);
        COPY_REMAP(c->apis, g->apis, g->n_apis, c, r);
        COPY_REMAP(c->syncs, g->syncs, g->n_syncs, c, r);
        COPY_REMAP(c->extmap, g->extmap, g->n_extmap, c, r);
        c->gpu.kernels = c->kernels;
        c->gpu.copies = c->copies;
        c->gpu.apis = c->apis;
        c->gpu.syncs = c->syncs;
        c->gpu.extmap = c->extmap;
        if (g->n_graph_nodes && (c->nodes = malloc(g->n_graph_nodes * sizeof *c->nodes))) {
            memcpy(c->nodes, g->graph_nodes, g->n_graph_nodes * sizeof *c->nodes);
            for (size_t k = 0; k < g->n_graph_nodes; k++)
                c->nodes[k].origin = remap(c, r, c->nodes[k].origin);
            c->gpu.graph_nodes = c->nodes;
        }
        c->run.gpu_run = &c->gpu;
    }
    return 0;
}

cuprof_recut *cuprof_recut_window(const cuprof_run *r, uint64_t k, char *why, size_t n)
{
    if (!r->capture.trigger || k == 0 || k > r->capture.nwindows) {
        snprintf(why, n, "the run has no capture window %llu (%zu recorded)", (unsigned long long)k,
                 r->capture.nwindows);
        return NULL;
    }
    cuprof_recut *c = calloc(1, sizeof *c);
    if (!c) {
        snprintf(why, n, "out of memory");
        return NULL;
    }
    c->run = *r;
    c->run.kernels_used = NULL;   /* (the cut's calls are fewer) */
    c->window[0][0] = r->capture.windows[k - 1][0];
    c->window[0][1] = r->capture.windows[k - 1][1];
    c->run.capture.nwindows = 1;
    c->run.capture.windows = (const uint64_t (*)[2])c->window;
    c->run.capture.open_at_end = k == r->capture.nwindows && r->capture.open_at_end;
    if (k <= r->capture.nwhy) {   /* the flight recorder's: why this one was written */
        c->run.capture.window_why = &r->capture.window_why[k - 1];
        c->run.capture.nwhy = 1;
    }
    if (cut_calls(c, r, 0, why, n) != 0)
        return NULL;
    return c;
}

const cuprof_run *cuprof_recut_run(const cuprof_recut *c)
{
    return &c->run;
}

void cuprof_recut_free(cuprof_recut *c)
{
    if (!c)
        return;
    for (size_t t = 0; c->newseq && t < c->nthreads; t++)
        free(c->newseq[t]);
    free(c->newseq);
    free(c->threads);
    free(c->chunk_ptrs);
    free(c->events);
    free(c->kernels);
    free(c->copies);
    free(c->apis);
    free(c->syncs);
    free(c->extmap);
    free(c->nodes);
    free(c);
}
