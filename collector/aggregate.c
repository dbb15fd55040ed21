/*
 * aggregate.c - from the run model to the tables' numbers (see aggregate.h).
 *
 * Self time: on each thread, a call's direct children are the calls that
 * begin after it, before it returns, one level deeper. The events are in
 * begin order with their depth, so one pass with a stack of open calls
 * finds each call's parent and takes the child's duration off the parent's
 * self time.
 */
#include "collector/aggregate.h"

#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t cuprof_median_u64(uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    if (n % 2)
        return v[n / 2];
    uint64_t a = v[n / 2 - 1], b = v[n / 2];
    return a + (b - a) / 2;
}

static uint64_t ev_dur(const cuprof_event *ev)
{
    return ev->t1 > ev->t0 ? ev->t1 - ev->t0 : 0;
}

/* Largest api index used + 1, at least the table size. */
static size_t api_span(const cuprof_run *run)
{
    size_t n = run->napis;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++) {
            uint16_t a = cuprof_run_event(&run->threads[t], i)->api;
            if ((size_t)a + 1 > n)
                n = (size_t)a + 1;
        }
    return n;
}

static int cmp_api(const void *a, const void *b)
{
    const cuprof_stat_api *x = a, *y = b;
    uint64_t kx = x->cuda_total_ns, ky = y->cuda_total_ns;
    if (kx != ky)
        return kx > ky ? -1 : 1;
    if (x->cpu_total_ns != y->cpu_total_ns)
        return x->cpu_total_ns > y->cpu_total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* One thread's calls into the rows: counts, totals, errors, durations
 * (appended at off[api]), and self time (self[api] gets each call's
 * duration and loses its direct children's). */
static void accumulate_thread(const cuprof_run_thread *th, cuprof_stat_api *rows, int64_t *self,
                              uint64_t *off, uint64_t *durs)
{
    const cuprof_event *stack[257];   /* open calls; depth is at most 255 */
    int sp = 0;
    for (uint64_t i = 0; i < th->n; i++) {
        const cuprof_event *ev = cuprof_run_event(th, i);
        uint64_t d = ev_dur(ev);
        while (sp > 0 && (stack[sp - 1]->t1 <= ev->t0 || stack[sp - 1]->depth >= ev->depth))
            sp--;
        if (sp > 0)   /* direct child of the call on top */
            self[stack[sp - 1]->api] -= (int64_t)d;
        if (sp < 257)
            stack[sp++] = ev;
        cuprof_stat_api *r = &rows[ev->api];
        r->calls++;
        r->errors += ev->result != 0;
        r->cpu_total_ns += d;
        self[ev->api] += (int64_t)d;
        durs[off[ev->api]++] = d;
    }
}

/* Min, median, max of a row's durations v[0..calls), and its self time. */
static void finish_row(cuprof_stat_api *r, uint64_t *v, int64_t self)
{
    r->min_ns = UINT64_MAX;
    for (uint64_t j = 0; j < r->calls; j++) {
        if (v[j] < r->min_ns) r->min_ns = v[j];
        if (v[j] > r->max_ns) r->max_ns = v[j];
    }
    r->median_ns = cuprof_median_u64(v, r->calls);
    r->cpu_self_ns = self > 0 ? (uint64_t)self : 0;
}

/* One row per entry point called: counts, totals, self, min/median/max. */
static int build_api(const cuprof_run *run, cuprof_summary *s)
{
    size_t span = api_span(run);
    uint64_t *calls = calloc(span + 1, sizeof *calls);
    uint64_t *off = calloc(span + 1, sizeof *off);
    int64_t *self = calloc(span + 1, sizeof *self);
    uint64_t *durs = malloc((run->nevents ? run->nevents : 1) * sizeof *durs);
    cuprof_stat_api *rows = calloc(span + 1, sizeof *rows);
    int rc = -1;
    if (!calls || !off || !self || !durs || !rows)
        goto out;

    /* durations grouped by api: api a owns durs[off[a] .. off[a] + calls[a]) */
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++)
            calls[cuprof_run_event(&run->threads[t], i)->api]++;
    for (size_t a = 1; a <= span; a++)
        off[a] = off[a - 1] + calls[a - 1];
    for (size_t a = 0; a < span; a++) {
        rows[a].api = (uint16_t)a;
        rows[a].name = cuprof_run_api_name(run, (uint16_t)a);
        rows[a].category = cuprof_run_api_category(run, (uint16_t)a);
    }
    for (size_t t = 0; t < run->nthreads; t++)
        accumulate_thread(&run->threads[t], rows, self, off, durs);

    size_t n = 0;
    for (size_t a = 0; a < span; a++) {
        if (rows[a].calls == 0)
            continue;
        finish_row(&rows[a], durs + off[a] - rows[a].calls, self[a]);   /* off[a] is now its end */
        s->self_cpu_total_ns += rows[a].cpu_self_ns;
        s->self_cuda_total_ns += rows[a].cuda_self_ns;
        s->sorted_by_cuda |= rows[a].cuda_total_ns != 0;
        rows[n++] = rows[a];
    }
    qsort(rows, n, sizeof *rows, cmp_api);
    s->api = rows;
    s->napi = n;
    rows = NULL;
    rc = 0;
out:
    free(calls);
    free(off);
    free(self);
    free(durs);
    free(rows);
    return rc;
}

static int cmp_kernel(const void *a, const void *b)
{
    const cuprof_stat_kernel *x = a, *y = b;
    if (x->gpu_total_ns != y->gpu_total_ns)
        return x->gpu_total_ns > y->gpu_total_ns ? -1 : 1;
    if (x->launches != y->launches)
        return x->launches > y->launches ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* Launch counts per kernel name (CPU side until the GPU timeline). */
static int build_kernels(const cuprof_run *run, cuprof_summary *s)
{
    size_t nk = (size_t)run->nkernels + 1;
    cuprof_stat_kernel *rows = calloc(nk, sizeof *rows);
    if (!rows)
        return -1;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            if (ev->cls != CUPROF_EV_LAUNCH)
                continue;
            uint32_t id = ev->a.launch.kernel < nk ? ev->a.launch.kernel : 0;
            rows[id].launches++;
        }
    size_t n = 0;
    for (size_t id = 0; id < nk; id++) {
        if (rows[id].launches == 0)
            continue;
        rows[id].id = (uint32_t)id;
        rows[id].name = cuprof_run_kernel_name(run, (uint32_t)id);
        rows[n++] = rows[id];
    }
    qsort(rows, n, sizeof *rows, cmp_kernel);
    s->kernels = rows;
    s->nkernels = n;
    return 0;
}

/* Calls and bytes per copy direction, in a fixed order. */
static int build_copies(const cuprof_run *run, cuprof_summary *s)
{
    static const uint8_t order[] = {CUPROF_DIR_HTOD, CUPROF_DIR_DTOH, CUPROF_DIR_DTOD,
                                    CUPROF_DIR_HTOH, CUPROF_DIR_PTOP, CUPROF_DIR_MEMSET,
                                    CUPROF_DIR_UNKNOWN};
    cuprof_stat_copy by_dir[CUPROF_DIR_MEMSET + 1];
    memset(by_dir, 0, sizeof by_dir);
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            if (ev->cls != CUPROF_EV_COPY && ev->cls != CUPROF_EV_MEMSET)
                continue;
            uint8_t dir = ev->cls == CUPROF_EV_MEMSET ? CUPROF_DIR_MEMSET : ev->a.copy.dir;
            if (dir > CUPROF_DIR_MEMSET)
                dir = CUPROF_DIR_UNKNOWN;
            by_dir[dir].calls++;
            by_dir[dir].bytes += ev->a.copy.bytes;
        }
    s->copies = calloc(sizeof order, sizeof *s->copies);
    if (!s->copies)
        return -1;
    for (size_t j = 0; j < sizeof order; j++) {
        cuprof_stat_copy *c = &by_dir[order[j]];
        if (c->calls == 0)
            continue;
        c->dir = order[j];
        c->kind = cuprof_dir_name(order[j]);
        s->copies[s->ncopies++] = *c;
    }
    return 0;
}

/* The grouping key of a BLAS call: entry point and shape. */
typedef struct blas_key {
    uint16_t api;
    uint16_t epilogue;
    uint8_t transa, transb, atype, _pad;
    uint32_t m, n, k, batch;
} blas_key;

static int cmp_blas_key(const void *a, const void *b)
{
    return memcmp(a, b, sizeof(blas_key));
}

static int cmp_shape(const void *a, const void *b)
{
    const cuprof_stat_shape *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    if (x->m != y->m) return x->m < y->m ? -1 : 1;
    if (x->n != y->n) return x->n < y->n ? -1 : 1;
    if (x->k != y->k) return x->k < y->k ? -1 : 1;
    return 0;
}

static int cmp_blas(const void *a, const void *b)
{
    const cuprof_stat_blas *x = a, *y = b;
    if (x->calls != y->calls)
        return x->calls > y->calls ? -1 : 1;
    return strcmp(x->name, y->name);
}

/* BLAS calls grouped by entry point, then by shape (sort the keys, count
 * runs of equal keys). */
static int build_blas(const cuprof_run *run, cuprof_summary *s)
{
    size_t nb = 0;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++)
            nb += cuprof_run_event(&run->threads[t], i)->cls == CUPROF_EV_BLAS;
    if (nb == 0)
        return 0;
    blas_key *keys = calloc(nb, sizeof *keys);
    cuprof_stat_shape *shapes = calloc(nb, sizeof *shapes);   /* one block for all groups */
    cuprof_stat_blas *groups = calloc(nb, sizeof *groups);
    if (!keys || !shapes || !groups) {
        free(keys); free(shapes); free(groups);
        return -1;
    }
    size_t j = 0;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            if (ev->cls != CUPROF_EV_BLAS)
                continue;
            blas_key *k = &keys[j++];
            k->api = ev->api;
            k->epilogue = ev->a.blas.epilogue;
            k->transa = ev->a.blas.transa;
            k->transb = ev->a.blas.transb;
            k->atype = ev->a.blas.atype;
            k->m = ev->a.blas.m; k->n = ev->a.blas.n; k->k = ev->a.blas.k;
            k->batch = ev->a.blas.batch;
        }
    qsort(keys, nb, sizeof *keys, cmp_blas_key);
    size_t ng = 0, ns = 0;
    for (size_t i = 0; i < nb; i++) {
        if (i == 0 || keys[i].api != keys[i - 1].api) {
            cuprof_stat_blas *g = &groups[ng++];
            g->api = keys[i].api;
            g->name = cuprof_run_api_name(run, keys[i].api);
            g->shapes = &shapes[ns];
        }
        cuprof_stat_blas *g = &groups[ng - 1];
        g->calls++;
        if (i == 0 || cmp_blas_key(&keys[i], &keys[i - 1]) != 0) {
            cuprof_stat_shape *sh = &shapes[ns++];
            sh->m = keys[i].m; sh->n = keys[i].n; sh->k = keys[i].k;
            sh->batch = keys[i].batch;
            sh->dtype = cuprof_dtype_name(keys[i].atype);
            sh->epilogue = cuprof_epilogue_name(keys[i].epilogue);
            sh->transa = cuprof_trans_name(keys[i].transa);
            sh->transb = cuprof_trans_name(keys[i].transb);
            g->nshapes++;
        }
        shapes[ns - 1].calls++;
    }
    for (size_t g = 0; g < ng; g++)
        qsort(groups[g].shapes, groups[g].nshapes, sizeof(cuprof_stat_shape), cmp_shape);
    qsort(groups, ng, sizeof *groups, cmp_blas);
    free(keys);
    s->blas = groups;
    s->nblas = ng;
    s->shapes_all = shapes;
    return 0;
}

cuprof_summary *cuprof_summary_build(const cuprof_run *run)
{
    cuprof_summary *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    if (build_api(run, s) < 0 || build_kernels(run, s) < 0 || build_copies(run, s) < 0 ||
        build_blas(run, s) < 0) {
        cuprof_summary_destroy(s);
        return NULL;
    }
    return s;
}

void cuprof_summary_destroy(cuprof_summary *s)
{
    if (!s)
        return;
    free(s->shapes_all);
    free(s->blas);
    free(s->copies);
    free(s->kernels);
    free(s->api);
    free(s->findings);
    free(s);
}
