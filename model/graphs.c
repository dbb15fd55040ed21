/*
 * graphs.c - CUDA graphs in the run (graphs.h).
 */
#include "model/graphs.h"
#include "model/gpu.h"
#include "model/quantile.h"
#include "model/vocab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One replayed record: its graph, node, launch and time. */
typedef struct rec {
    uint32_t graph, corr;
    uint64_t node, origin, ns;
    const char *work;
    uint64_t start, end;
} rec;

static int cmp_replay(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->corr != y->corr)
        return x->corr < y->corr ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

/* The replays of one graph (r[0..n), sorted here by launch and start): the
 * median span and the median share of it no record ran (the lower middles;
 * exact up to exact_max replays, within CUPROF_QUANTILE_REL_ERR past it:
 * model/quantile.h; the shares as fixed-point integers). */
static void replay_gaps(rec *r, size_t n, uint64_t exact_max, cuprof_graph *gr)
{
    qsort(r, n, sizeof *r, cmp_replay);
    cuprof_quantile span, idle;
    cuprof_quantile_init(&span, exact_max);
    cuprof_quantile_init(&idle, exact_max);
    int oom = 0;
    for (size_t i = 0; !oom && i < n;) {
        size_t j = i;
        uint64_t busy = 0, cur_s = r[i].start, cur_e = r[i].end, last = r[i].end;
        for (; j < n && r[j].corr == r[i].corr; j++) {
            if (r[j].start > cur_e) {
                busy += cur_e - cur_s;
                cur_s = r[j].start;
                cur_e = r[j].end;
            } else if (r[j].end > cur_e) {
                cur_e = r[j].end;
            }
            last = r[j].end > last ? r[j].end : last;
        }
        busy += cur_e - cur_s;
        uint64_t sp = last > r[i].start ? last - r[i].start : 0;
        oom |= cuprof_quantile_add(&span, sp);
        oom |= cuprof_quantile_add(&idle, cuprof_quantile_of_share(sp ? 1.0 - (double)busy / (double)sp : 0.0));
        i = j;
    }
    uint64_t m = cuprof_quantile_count(&span);
    if (m && !oom) {   /* out of memory: none, as before */
        gr->replay_span_ns = cuprof_quantile_rank(&span, (m - 1) / 2);
        gr->replay_idle_share = cuprof_quantile_share(cuprof_quantile_rank(&idle, (m - 1) / 2));
        gr->replay_sketched = cuprof_quantile_sketched(&span);
    }
    cuprof_quantile_free(&span);
    cuprof_quantile_free(&idle);
}

static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    if (x->graph != y->graph)
        return x->graph < y->graph ? -1 : 1;
    if (x->origin != y->origin)
        return x->origin < y->origin ? -1 : 1;
    return x->origin ? 0 : strcmp(x->work, y->work);
}

static const cuprof_gpu_graph_node *find_node(const cuprof_gpu_run *g, uint64_t id)
{
    size_t lo = 0, hi = g->n_graph_nodes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->graph_nodes[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < g->n_graph_nodes && g->graph_nodes[lo].id == id ? &g->graph_nodes[lo] : NULL;
}

/* The event id of the call a (cloned) node came from, 0 when unknown. */
static uint64_t origin_of(const cuprof_gpu_run *g, uint64_t node)
{
    const cuprof_gpu_graph_node *n = find_node(g, node);
    if (n && n->original)
        n = find_node(g, n->original);
    return n ? n->origin : 0;
}

/* "cublasGemmEx 64x64x64 bf16", "__cudaLaunchKernel bias_add<...>", the API
 * alone for other calls; NULL when the event is not in the run. */
static char *label_of(const cuprof_run *run, const cuprof_names *names, uint64_t event)
{
    const cuprof_run_thread *th;
    const cuprof_event *ev = event ? cuprof_run_find_event(run, event, &th) : NULL;
    if (!ev)
        return NULL;
    const char *api = cuprof_run_api_name(run, ev->api);
    char buf[1024];
    if (cuprof_ev_is_gemm(ev)) {
        int n = snprintf(buf, sizeof buf, "%s %ux%ux%u %s", api, ev->a.blas.m, ev->a.blas.n, ev->a.blas.k,
                         cuprof_dtype_name(ev->a.blas.atype));
        if (ev->a.blas.batch > 1 && n > 0 && (size_t)n < sizeof buf)
            n += snprintf(buf + n, sizeof buf - (size_t)n, " x%u", ev->a.blas.batch);
        if (ev->a.blas.epilogue && n > 0 && (size_t)n < sizeof buf)
            snprintf(buf + n, sizeof buf - (size_t)n, " %s", cuprof_epilogue_name(ev->a.blas.epilogue));
    } else if (ev->cls == CUPROF_EV_LAUNCH) {
        snprintf(buf, sizeof buf, "%s %s", api, cuprof_names_kernel(names, ev->a.launch.kernel));
    } else {
        snprintf(buf, sizeof buf, "%s", api);
    }
    return strdup(buf);
}

/* The innermost push range on the origin call's thread around it. */
static const char *range_of(const cuprof_run *run, const cuprof_ranges *rg, uint64_t event)
{
    const cuprof_run_thread *th;
    const cuprof_event *ev = event && rg ? cuprof_run_find_event(run, event, &th) : NULL;
    if (!ev)
        return NULL;
    uint64_t seq = cuprof_event_id_seq(event);
    long best = -1;
    for (size_t i = 0; i < rg->n; i++) {
        const cuprof_range *r = &rg->r[i];
        if (r->start_end || r->folded || run->threads[r->thread].index != th->index || seq <= r->first ||
            (r->last != UINT64_MAX && seq >= r->last))
            continue;
        if (best < 0 || r->level > rg->r[best].level)
            best = (long)i;
    }
    if (best < 0)
        return NULL;
    const char *name = cuprof_run_string(run, rg->r[best].name);
    return name[0] ? name : NULL;
}

static const char *site_of(const cuprof_run *run, const cuprof_stacks *sk, uint64_t event)
{
    const cuprof_run_thread *th;
    const cuprof_event *ev = event && sk && sk->stack_site ? cuprof_run_find_event(run, event, &th) : NULL;
    return ev && ev->stack ? cuprof_stacks_site(sk, ev->stack) : NULL;
}

static int cmp_origin(const void *a, const void *b)
{
    const cuprof_graph_origin *x = a, *y = b;
    if (x->gpu_total_ns != y->gpu_total_ns)
        return x->gpu_total_ns < y->gpu_total_ns ? 1 : -1;
    return strcmp(x->label, y->label);
}

static int cmp_graph(const void *a, const void *b)
{
    const cuprof_graph *x = a, *y = b;
    if (x->gpu_total_ns != y->gpu_total_ns)
        return x->gpu_total_ns < y->gpu_total_ns ? 1 : -1;
    return (x->id > y->id) - (x->id < y->id);
}

static int cmp_node_origin(const void *a, const void *b)
{
    const cuprof_graph_node_origin *x = a, *y = b;
    return (x->node > y->node) - (x->node < y->node);
}

static const cuprof_graph_node_origin *by_node(const cuprof_graphs *gs, uint64_t node)
{
    size_t lo = 0, hi = gs ? gs->nby_node : 0;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (gs->by_node[mid].node < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return gs && lo < gs->nby_node && gs->by_node[lo].node == node ? &gs->by_node[lo] : NULL;
}

int cuprof_graphs_node_captured(const cuprof_graphs *gs, uint64_t node)
{
    const cuprof_graph_node_origin *o = by_node(gs, node);
    return o ? o->captured : 0;
}

uint64_t cuprof_graphs_node_origin_event(const cuprof_graphs *gs, uint64_t node)
{
    const cuprof_graph_node_origin *o = by_node(gs, node);
    return o ? o->event : 0;
}

const char *cuprof_graphs_origin(const cuprof_graphs *gs, uint64_t node)
{
    const cuprof_graph_node_origin *o = by_node(gs, node);
    return o ? o->label : NULL;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Distinct values among v[0..n) (sorts v). */
static uint64_t distinct(uint64_t *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    uint64_t d = 0;
    for (size_t i = 0; i < n; i++)
        d += i == 0 || v[i] != v[i - 1];
    return d;
}

cuprof_graphs *cuprof_graphs_build(const cuprof_run *run, const cuprof_names *names,
                                   const cuprof_ranges *ranges, const cuprof_stacks *stacks)
{
    cuprof_graphs *gs = calloc(1, sizeof *gs);
    const cuprof_gpu_run *g = run->gpu_run;
    if (!gs || !g)
        return gs;
    size_t n = 0;
    for (size_t i = 0; i < g->n_kernels; i++)
        n += g->kernels[i].graph_id != 0;
    for (size_t i = 0; i < g->n_copies; i++)
        n += g->copies[i].graph_id != 0;
    if (n == 0)
        return gs;
    rec *r = calloc(n, sizeof *r);
    uint64_t *scratch = calloc(n, sizeof *scratch);
    if (!r || !scratch)
        goto fail;
    size_t k = 0;
    for (size_t i = 0; i < g->n_kernels; i++) {
        const cuprof_gpu_kernel *x = &g->kernels[i];
        if (x->graph_id)
            r[k++] = (rec){x->graph_id, x->corr, x->graph_node_id, origin_of(g, x->graph_node_id),
                           x->end_ns > x->start_ns ? x->end_ns - x->start_ns : 0,
                           cuprof_names_gpu(names, x->name), x->start_ns,
                           x->end_ns > x->start_ns ? x->end_ns : x->start_ns};
    }
    for (size_t i = 0; i < g->n_copies; i++) {
        const cuprof_gpu_copy *x = &g->copies[i];
        if (x->graph_id)
            r[k++] = (rec){x->graph_id, x->corr, x->graph_node_id, origin_of(g, x->graph_node_id),
                           x->end_ns > x->start_ns ? x->end_ns - x->start_ns : 0,
                           cuprof_gpu_copy_kind_name(x->kind), x->start_ns,
                           x->end_ns > x->start_ns ? x->end_ns : x->start_ns};
    }
    qsort(r, n, sizeof *r, cmp_rec);
    size_t ngraphs = 0;
    for (size_t i = 0; i < n; i++)
        ngraphs += i == 0 || r[i].graph != r[i - 1].graph;
    gs->g = calloc(ngraphs, sizeof *gs->g);
    gs->by_node = calloc(n, sizeof *gs->by_node);   /* node -> origin, for the traces */
    if (!gs->g || !gs->by_node)
        goto fail;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && r[j].graph == r[i].graph)
            j++;
        cuprof_graph *gr = &gs->g[gs->n++];
        gr->id = r[i].graph;
        gr->records = j - i;
        size_t norig = 0;
        for (size_t q = i; q < j; q++) {
            gr->gpu_total_ns += r[q].ns;
            norig += q == i || cmp_rec(&r[q], &r[q - 1]) != 0;
        }
        for (size_t q = i; q < j; q++)
            scratch[q - i] = r[q].corr;
        gr->launches = distinct(scratch, j - i);
        for (size_t q = i; q < j; q++)
            scratch[q - i] = r[q].node;
        gr->nodes = distinct(scratch, j - i);
        gr->origins = calloc(norig, sizeof *gr->origins);
        if (!gr->origins)
            goto fail;
        for (size_t q = i; q < j; q++) {
            if (q == i || cmp_rec(&r[q], &r[q - 1]) != 0) {
                cuprof_graph_origin *o = &gr->origins[gr->norigins++];
                o->event = r[q].origin;
                o->work = r[q].work;
                o->label = label_of(run, names, r[q].origin);
                o->range = range_of(run, ranges, r[q].origin);
                o->site = site_of(run, stacks, r[q].origin);
                if (o->label && !strcmp(o->label, "cudaGraphAddKernelNode") && r[q].work) {
                    /* a kernel node added by hand: its kernel, as a captured launch's */
                    char *l = malloc(strlen(o->label) + strlen(r[q].work) + 2);
                    if (l)
                        sprintf(l, "%s %s", o->label, r[q].work);
                    free(o->label);
                    o->label = l;
                }
                if (!o->label)
                    o->label = strdup(r[q].work);
                if (!o->label)
                    goto fail;
            }
            cuprof_graph_origin *o = &gr->origins[gr->norigins - 1];
            o->records++;
            o->gpu_total_ns += r[q].ns;
            /* the label string stays put when the origins are sorted below */
            gs->by_node[gs->nby_node++] = (cuprof_graph_node_origin){r[q].node, o->label, r[q].origin != 0,
                                                                     r[q].origin};
        }
        qsort(gr->origins, gr->norigins, sizeof *gr->origins, cmp_origin);
        replay_gaps(r + i, j - i, run->quantile_exact_max, gr);   /* re-sorts this graph's records: last */
        i = j;
    }
    qsort(gs->by_node, gs->nby_node, sizeof *gs->by_node, cmp_node_origin);
    size_t u = 0;
    for (size_t i = 0; i < gs->nby_node; i++)
        if (u == 0 || gs->by_node[i].node != gs->by_node[u - 1].node)
            gs->by_node[u++] = gs->by_node[i];
    gs->nby_node = u;
    qsort(gs->g, gs->n, sizeof *gs->g, cmp_graph);
    free(r);
    free(scratch);
    return gs;
fail:
    free(r);
    free(scratch);
    cuprof_graphs_destroy(gs);
    return NULL;
}

void cuprof_graphs_destroy(cuprof_graphs *gs)
{
    if (!gs)
        return;
    for (size_t i = 0; i < gs->n; i++) {
        for (size_t k = 0; k < gs->g[i].norigins; k++)
            free(gs->g[i].origins[k].label);
        free(gs->g[i].origins);
    }
    free(gs->g);
    free(gs->by_node);
    free(gs);
}
