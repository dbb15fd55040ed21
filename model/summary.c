/*
 * summary.c - from the run model to the tables' numbers (see aggregate.h).
 *
 * Self time: on each thread, a call's direct children are the calls that
 * begin after it, before it returns, one level deeper. The events are in
 * begin order with their depth, so one pass with a stack of open calls
 * finds each call's parent and takes the child's duration off the parent's
 * self time.
 *
 * With a GPU timeline (model/timeline.h), runtime calls only CUPTI saw
 * (derived calls) are rows too, children of the hooked call they ran in; and
 * each kernel, copy and memset is charged as Self CUDA to the innermost call
 * that caused it (a derived call, else the hooked call) and to the CUDA total
 * of that call and every call around it (model/README.md).
 */
#include "model/summary.h"
#include "model/findings.h"
#include "model/timeline.h"
#include "model/peak.h"
#include "model/quantile.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int cuprof_summary_any_sketched(const cuprof_run *run, const cuprof_summary *s,
                                const cuprof_timeline *tl)
{
    int any = tl && run->gpu.captured && tl->stats.latency_median_sketched;
    for (size_t i = 0; !any && i < s->napi; i++)
        any = s->api[i].median_sketched;
    for (size_t i = 0; !any && i < s->nkernels; i++)
        any = s->kernels[i].median_sketched;
    for (size_t i = 0; !any && i < s->nranges; i++)
        any = s->ranges[i].median_sketched;
    /* and the medians the findings keep of their own (launch-gaps', the
     * graph replays'): the rule says so in its numbers */
    for (size_t i = 0; !any && i < s->nfindings; i++)
        for (size_t k = 0; !any && k < s->findings[i].nnums; k++)
            any = !strcmp(s->findings[i].nums[k].key, "median_sketched");
    return any;
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
        if (run->threads[t].api_end) {   /* the reader knows it */
            if (run->threads[t].api_end > n)
                n = run->threads[t].api_end;
        } else for (uint64_t i = 0; i < run->threads[t].n; i++) {
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
 * (into acc[api]), and self time (self[api] gets each call's duration and
 * loses its direct children's); parent[i] (when not NULL) gets the index
 * of call i's direct parent, -1 for none. -1 when out of memory. */
static int accumulate_thread(const cuprof_run_thread *th, cuprof_stat_api *rows, int64_t *self,
                             cuprof_quantile *acc, int64_t *parent, uint64_t *failed)
{
    int rc = 0;
    struct {
        uint64_t t1, at;              /* its end, its index */
        uint16_t api;
        uint8_t depth;
    } stack[257];                     /* open calls (copies: a streamed thread's
                                         events go with their blocks); depth <= 255 */
    int sp = 0;
    for (uint64_t i = 0; i < th->n; i++) {
        const cuprof_event *ev = cuprof_run_event(th, i);
        uint64_t d = ev_dur(ev);
        while (sp > 0 && (stack[sp - 1].t1 <= ev->t0 || stack[sp - 1].depth >= ev->depth))
            sp--;
        if (parent)
            parent[i] = sp > 0 ? (int64_t)stack[sp - 1].at : -1;
        if (sp > 0)   /* direct child of the call on top */
            self[stack[sp - 1].api] -= (int64_t)d;
        if (sp < 257) {
            stack[sp].t1 = ev->t1;
            stack[sp].at = i;
            stack[sp].api = ev->api;
            stack[sp++].depth = ev->depth;
        }
        cuprof_stat_api *r = &rows[ev->api];
        r->calls++;
        r->errors += ev->result != 0;
        *failed += ev->result != 0;
        r->cpu_total_ns += d;
        self[ev->api] += (int64_t)d;
        rc |= cuprof_quantile_add(&acc[ev->api], d);
    }
    return rc;
}

/* Min, median, max of a row's durations (acc, freed here), and its self time. */
static void finish_row(cuprof_stat_api *r, cuprof_quantile *acc, int64_t self)
{
    r->min_ns = cuprof_quantile_min(acc);
    r->max_ns = cuprof_quantile_max(acc);
    r->median_ns = cuprof_quantile_median(acc);
    r->median_sketched = cuprof_quantile_sketched(acc);
    cuprof_quantile_free(acc);
    r->cpu_self_ns = self > 0 ? (uint64_t)self : 0;
}

/* Where each call's events sit in one array over all threads: thread t's
 * event i is at base[t] + i. */
typedef struct call_index {
    uint64_t *base;        /* [nthreads] */
    int64_t *parent;       /* [nevents]: index of the direct parent on the thread, -1 */
} call_index;

/* Thread and index of an event id in run, or -1. */
static int locate(const cuprof_run *run, uint64_t id, size_t *t, uint64_t *i)
{
    const cuprof_run_thread *th = id ? cuprof_run_thread_of(run, id) : NULL;
    if (!th)
        return -1;
    *t = (size_t)(th - run->threads);
    *i = cuprof_event_id_seq(id);
    return 0;
}

/* Row of each derived call: the API table's row of the same name if there
 * is one (a cudaLaunchKernel cuBLAS made joins the program's own), else a
 * row after the table's (extra names in xname[], their categories in
 * xcat[]: the record's domain; *nx of them). */
static int derived_rows(const cuprof_run *run, const cuprof_timeline *tl, size_t span,
                        size_t *drow, const char **xname, const char **xcat, size_t *nx)
{
    /* Key: cbid * 2 + domain (runtime and driver cbids overlap). */
#define CBKEY(a) ((size_t)(a)->cbid * 2 + (a)->driver)
    size_t maxcb = 0;
    for (size_t k = 0; k < tl->nderived; k++)
        if (CBKEY(tl->derived[k].rec) > maxcb)
            maxcb = CBKEY(tl->derived[k].rec);
    size_t *by_cbid = malloc(((size_t)maxcb + 1) * sizeof *by_cbid);
    if (!by_cbid)
        return -1;
    for (size_t c = 0; c <= maxcb; c++)
        by_cbid[c] = SIZE_MAX;
    for (size_t k = 0; k < tl->nderived; k++) {
        const cuprof_gpu_api *a = tl->derived[k].rec;
        size_t r = by_cbid[CBKEY(a)];
        for (size_t i = 0; r == SIZE_MAX && i < run->napis; i++)
            if (run->apis[i].name && !strcmp(run->apis[i].name, a->name))
                r = i;
        for (size_t i = 0; r == SIZE_MAX && i < *nx; i++)
            if (!strcmp(xname[i], a->name))
                r = span + i;
        if (r == SIZE_MAX) {
            xname[*nx] = a->name;
            xcat[*nx] = a->driver ? "cuda_driver" : "cuda_runtime";
            r = span + (*nx)++;
        }
        by_cbid[CBKEY(a)] = r;
        drow[k] = r;
    }
    free(by_cbid);
#undef CBKEY
    return 0;
}

/* Derived calls into the rows, like hooked ones; each is a direct child of
 * its parent (the innermost hooked call open around it). -1 when out of
 * memory. */
static int accumulate_derived(const cuprof_run *run, const cuprof_timeline *tl, const size_t *drow,
                              cuprof_stat_api *rows, int64_t *self, cuprof_quantile *acc)
{
    int rc = 0;
    for (size_t k = 0; k < tl->nderived; k++) {
        const cuprof_derived_call *dc = &tl->derived[k];
        uint64_t d = dc->t1 - dc->t0;
        cuprof_stat_api *r = &rows[drow[k]];
        r->calls++;
        r->errors += dc->rec->result != 0;
        r->cpu_total_ns += d;
        self[drow[k]] += (int64_t)d;
        rc |= cuprof_quantile_add(&acc[drow[k]], d);
        const cuprof_event *p = dc->parent ? cuprof_run_find_event(run, dc->parent, NULL) : NULL;
        if (p)
            self[p->api] -= (int64_t)d;
    }
    return rc;
}

/* Charges d ns of device time caused by c (the timeline's join): Self CUDA to the
 * innermost causing call, CUDA total to it and to every call around it. */
static void charge(const cuprof_run *run, const size_t *drow, const call_index *ci,
                   cuprof_stat_api *rows, cuprof_cause c, uint64_t d)
{
    int self_done = 0;
    if (c.derived >= 0) {
        rows[drow[c.derived]].cuda_self_ns += d;
        rows[drow[c.derived]].cuda_total_ns += d;
        self_done = 1;
    }
    size_t t;
    uint64_t i;
    if (locate(run, c.hooked, &t, &i) < 0)
        return;
    for (int64_t j = (int64_t)i; j >= 0; j = ci->parent[ci->base[t] + (uint64_t)j]) {
        const cuprof_event *ev = cuprof_run_event(&run->threads[t], (uint64_t)j);
        if (!self_done)
            rows[ev->api].cuda_self_ns += d;
        self_done = 1;
        rows[ev->api].cuda_total_ns += d;
    }
}

/* Every kernel, copy and memset charged to the calls that caused it. */
static void attribute_gpu(const cuprof_run *run, const cuprof_timeline *tl, const size_t *drow,
                          const call_index *ci, cuprof_stat_api *rows)
{
    const cuprof_gpu_run *g = tl->gpu;
    for (size_t i = 0; i < g->n_kernels; i++) {
        const cuprof_gpu_kernel *k = &g->kernels[i];
        if (k->end_ns > k->start_ns)
            charge(run, drow, ci, rows, cuprof_kernel_cause(tl, i), k->end_ns - k->start_ns);
    }
    for (size_t i = 0; i < g->n_copies; i++) {
        const cuprof_gpu_copy *c = &g->copies[i];
        if (c->end_ns > c->start_ns)
            charge(run, drow, ci, rows, cuprof_copy_cause(tl, i), c->end_ns - c->start_ns);
    }
}

/* One row per entry point called (hooked, or seen by CUPTI only): counts,
 * totals, self, min/median/max, CUDA self and total. */
static int build_api(const cuprof_run *run, const cuprof_timeline *tl, cuprof_summary *s)
{
    size_t span = api_span(run);
    size_t nd = tl->nderived, nx = 0, nrows = span + nd;
    int64_t *self = calloc(nrows + 1, sizeof *self);
    /* each row's durations: exact up to the bound, a sketch past it */
    size_t nacc = nrows + 1;
    cuprof_quantile *acc = malloc(nacc * sizeof *acc);
    cuprof_stat_api *rows = calloc(nrows + 1, sizeof *rows);
    size_t *drow = malloc((nd ? nd : 1) * sizeof *drow);
    const char **xname = malloc((nd ? nd : 1) * sizeof *xname);
    const char **xcat = malloc((nd ? nd : 1) * sizeof *xcat);
    /* parents only for charging device time: 8 bytes of fresh memory per
     * call otherwise spent for nothing (bench/RESULTS.md) */
    int gpu_work = tl->gpu->n_kernels + tl->gpu->n_copies > 0;
    call_index ci = {calloc(run->nthreads + 1, sizeof *ci.base),
                     gpu_work ? malloc((run->nevents ? run->nevents : 1) * sizeof *ci.parent)
                              : NULL};
    int rc = -1;
    if (acc)
        for (size_t a = 0; a < nacc; a++)
            cuprof_quantile_init(&acc[a], run->quantile_exact_max);
    if (!self || !acc || !rows || !drow || !xname || !xcat || !ci.base ||
        (gpu_work && !ci.parent) ||
        derived_rows(run, tl, span, drow, xname, xcat, &nx) < 0)
        goto out;
    nrows = span + nx;
    for (size_t a = 0; a < nrows; a++) {
        rows[a].api = (uint16_t)(a < span ? a : UINT16_MAX);   /* extra rows: no table entry */
        rows[a].name = a < span ? cuprof_run_api_name(run, (uint16_t)a) : xname[a - span];
        rows[a].category = a < span ? cuprof_run_api_category(run, (uint16_t)a) : xcat[a - span];
    }
    for (size_t t = 0; t < run->nthreads; t++) {
        ci.base[t + 1] = ci.base[t] + run->threads[t].n;
        if (accumulate_thread(&run->threads[t], rows, self, acc,
                              ci.parent ? ci.parent + ci.base[t] : NULL, &s->events_failed) < 0)
            goto out;
    }
    if (accumulate_derived(run, tl, drow, rows, self, acc) < 0)
        goto out;
    if (gpu_work)
        attribute_gpu(run, tl, drow, &ci, rows);

    size_t n = 0;
    for (size_t a = 0; a < nrows; a++) {
        uint64_t dropped = a < span && run->dropped_by_api && a < run->napis ? run->dropped_by_api[a] : 0;
        /* With a GPU timeline CUPTI saw the runtime calls we dropped: they
         * are derived calls already (with their times). */
        if (run->gpu_run && tl->nderived && !strcmp(rows[a].category, "cuda_runtime"))
            dropped = 0;
        if (rows[a].calls == 0 && dropped == 0)
            continue;
        if (!strcmp(rows[a].category, "nvtx"))   /* ranges have rows of their own (ranges.c) */
            continue;
        if (rows[a].calls)
            finish_row(&rows[a], &acc[a], self[a]);
        rows[a].calls += dropped;   /* the count stays exact; the times are of the recorded */
        rows[a].dropped = dropped;
        s->self_cpu_total_ns += rows[a].cpu_self_ns;
        s->self_cuda_total_ns += rows[a].cuda_self_ns;
        s->sorted_by_cuda |= rows[a].cuda_total_ns != 0;
        rows[n++] = rows[a];
    }
    qsort(rows, n, sizeof *rows, cmp_api);
    s->api = rows;
    s->napi = n;
    s->overhead_per_call_ns = run->hook_ns;
    s->overhead_calls = run->nevents;
    s->overhead_total_ns = run->hook_ns * run->nevents;
    rows = NULL;
    rc = 0;
out:
    for (size_t a = 0; acc && a < nacc; a++)
        cuprof_quantile_free(&acc[a]);
    free(acc);
    free(self);
    free(rows);
    free(drow);
    free(xname);
    free(xcat);
    free(ci.base);
    free(ci.parent);
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

/* Launch counts per kernel name, from the CPU side (no GPU timeline). */
static int build_kernels_cpu(const cuprof_run *run, const cuprof_names *names, cuprof_summary *s)
{
    size_t nk = (size_t)run->nkernels + 1;
    cuprof_stat_kernel *rows = calloc(nk, sizeof *rows);
    if (!rows)
        return -1;
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            /* a launch that returned an error queued nothing */
            if (ev->cls != CUPROF_EV_LAUNCH || ev->result != 0)
                continue;
            uint32_t id = ev->a.launch.kernel < nk ? ev->a.launch.kernel : 0;
            rows[id].launches++;
        }
    size_t n = 0;
    for (size_t id = 0; id < nk; id++) {
        if (rows[id].launches == 0)
            continue;
        rows[id].id = (uint32_t)id;
        rows[id].name = cuprof_names_kernel(names, (uint32_t)id);
        rows[n++] = rows[id];
    }
    qsort(rows, n, sizeof *rows, cmp_kernel);
    s->kernels = rows;
    s->nkernels = n;
    return 0;
}

/* One kernel row being built: its name (as recorded), its durations. */
typedef struct kernel_acc {
    const char *raw;
    uint64_t hash;
    size_t ix;                 /* its first record (the name shown is that record's) */
    uint64_t launches, gpu_total_ns;
    cuprof_quantile q;
} kernel_acc;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* Per kernel name (as recorded): executions, device time, min/median/max
 * of one execution. One pass over the records, rows found by the name's
 * hash (a repeated name pointer skips it): memory by names, not records. */
static int build_kernels_gpu(const cuprof_gpu_run *g, const cuprof_names *names,
                             uint64_t exact_max, cuprof_summary *s)
{
    size_t n = g->n_kernels, nr = 0, cap = 16, slots = 64;
    kernel_acc *acc = malloc(cap * sizeof *acc);
    uint32_t *map = calloc(slots, sizeof *map);   /* row + 1, 0 empty */
    int rc = -1;
    if (!acc || !map)
        goto out;
    const char *last = NULL;
    size_t last_row = 0;
    for (size_t i = 0; i < n; i++) {
        const cuprof_gpu_kernel *k = &g->kernels[i];
        size_t r;
        if (k->name == last) {
            r = last_row;
        } else {
            uint64_t h = hash_str(k->name);
            size_t at = (size_t)h & (slots - 1);
            while (map[at] && (acc[map[at] - 1].hash != h || strcmp(acc[map[at] - 1].raw, k->name)))
                at = (at + 1) & (slots - 1);
            if (map[at]) {
                r = map[at] - 1;
            } else {
                if (nr == cap) {
                    kernel_acc *a = realloc(acc, 2 * cap * sizeof *acc);
                    if (!a)
                        goto out;
                    acc = a, cap *= 2;
                }
                r = nr++;
                acc[r] = (kernel_acc){.raw = k->name, .hash = h, .ix = i};
                cuprof_quantile_init(&acc[r].q, exact_max);
                map[at] = (uint32_t)r + 1;
                if (2 * nr > slots) {   /* rehash at half full */
                    uint32_t *m2 = calloc(2 * slots, sizeof *m2);
                    if (!m2)
                        goto out;
                    slots *= 2;
                    for (size_t q = 0; q < nr; q++) {
                        size_t b = (size_t)acc[q].hash & (slots - 1);
                        while (m2[b])
                            b = (b + 1) & (slots - 1);
                        m2[b] = (uint32_t)q + 1;
                    }
                    free(map);
                    map = m2;
                }
            }
            last = k->name, last_row = r;
        }
        uint64_t d = k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0;
        if (cuprof_quantile_add(&acc[r].q, d))
            goto out;
        acc[r].launches++;
        acc[r].gpu_total_ns += d;
    }
    cuprof_stat_kernel *rows = calloc(nr ? nr : 1, sizeof *rows);
    if (!rows)
        goto out;
    for (size_t r = 0; r < nr; r++) {
        cuprof_quantile *q = &acc[r].q;
        rows[r] = (cuprof_stat_kernel){.name = cuprof_names_gpu(names, g->kernels[acc[r].ix].name),
                                       .launches = acc[r].launches,
                                       .gpu_total_ns = acc[r].gpu_total_ns,
                                       .min_ns = cuprof_quantile_min(q),
                                       .max_ns = cuprof_quantile_max(q),
                                       .median_ns = cuprof_quantile_median(q),
                                       .median_sketched = cuprof_quantile_sketched(q)};
    }
    qsort(rows, nr, sizeof *rows, cmp_kernel);
    s->kernels = rows;
    s->nkernels = nr;
    rc = 0;
out:
    for (size_t r = 0; acc && r < nr; r++)
        cuprof_quantile_free(&acc[r].q);
    free(acc);
    free(map);
    return rc;
}

static int build_kernels(const cuprof_run *run, const cuprof_names *names,
                         const cuprof_timeline *tl, cuprof_summary *s)
{
    if (run->gpu.captured && tl->gpu->n_kernels > 0 && names->ngpu_kernels == tl->gpu->n_kernels)
        return build_kernels_gpu(tl->gpu, names, run->quantile_exact_max, s);
    return build_kernels_cpu(run, names, s);
}

/* Calls and bytes per copy direction (CPU side), device copies, bytes and
 * time per kind (GPU records; enum cuprof_gpu_copy_kind has the values of
 * enum cuprof_dir), in a fixed order. */
static int build_copies(const cuprof_run *run, const cuprof_timeline *tl, cuprof_summary *s)
{
    static const uint8_t order[] = {CUPROF_DIR_HTOD, CUPROF_DIR_DTOH, CUPROF_DIR_DTOD,
                                    CUPROF_DIR_HTOH, CUPROF_DIR_PTOP, CUPROF_DIR_MEMSET,
                                    CUPROF_DIR_UNKNOWN};
    cuprof_stat_copy by_dir[CUPROF_DIR_MEMSET + 1];
    memset(by_dir, 0, sizeof by_dir);
    const uint32_t copies = cuprof_run_class_bit(CUPROF_EV_COPY) | cuprof_run_class_bit(CUPROF_EV_MEMSET);
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; cuprof_run_thread_has(&run->threads[t], copies) && i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            if (ev->cls != CUPROF_EV_COPY && ev->cls != CUPROF_EV_MEMSET)
                continue;
            uint8_t dir = ev->cls == CUPROF_EV_MEMSET ? CUPROF_DIR_MEMSET : ev->a.copy.dir;
            if (dir > CUPROF_DIR_MEMSET)
                dir = CUPROF_DIR_UNKNOWN;
            by_dir[dir].calls++;
            by_dir[dir].bytes += ev->a.copy.bytes;
        }
    for (size_t i = 0; i < tl->gpu->n_copies; i++) {
        const cuprof_gpu_copy *c = &tl->gpu->copies[i];
        uint8_t dir = c->kind <= CUPROF_DIR_MEMSET ? c->kind : CUPROF_DIR_UNKNOWN;
        by_dir[dir].gpu_copies++;
        by_dir[dir].gpu_bytes += c->bytes;
        by_dir[dir].gpu_total_ns += c->end_ns > c->start_ns ? c->end_ns - c->start_ns : 0;
    }
    s->copies = calloc(sizeof order, sizeof *s->copies);
    if (!s->copies)
        return -1;
    for (size_t j = 0; j < sizeof order; j++) {
        cuprof_stat_copy *c = &by_dir[order[j]];
        if (c->calls == 0 && c->gpu_copies == 0)
            continue;
        c->dir = order[j];
        c->kind = cuprof_dir_name(order[j]);
        c->gb_per_s = c->gpu_total_ns ? (double)c->gpu_bytes / (double)c->gpu_total_ns : 0.0;
        /* device memory traffic against its bandwidth (a host link's speed is not
         * known to CUPTI: HtoD and DtoH have none) */
        if (s->device.mem_gbps > 0 && (order[j] == CUPROF_DIR_DTOD || order[j] == CUPROF_DIR_MEMSET))
            c->mem_pct = c->gb_per_s * (order[j] == CUPROF_DIR_DTOD ? 2.0 : 1.0) /
                         s->device.mem_gbps * 100.0;
        s->copies[s->ncopies++] = *c;
    }
    return 0;
}

/* The grouping key of a BLAS call: entry point and shape; the call's own
 * device time rides along (not part of the key). */
typedef struct blas_key {
    uint16_t api;
    uint16_t epilogue;
    uint8_t transa, transb, atype, _pad;
    uint16_t compute, _pad2;
    uint32_t m, n, k, batch;
    /* not compared: */
    uint64_t id;         /* the call's event id */
    uint64_t gpu_ns;     /* its kernels' device time */
    uint64_t kernels;
} blas_key;

#define BLAS_KEY_BYTES offsetof(blas_key, id)

static int cmp_blas_key(const void *a, const void *b)
{
    return memcmp(a, b, BLAS_KEY_BYTES);
}

static int cmp_key_id(const void *a, const void *b)
{
    const blas_key *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Each GEMM call's kernels (those whose innermost hooked call is the GEMM:
 * cuBLAS's own runtime launches them, no hook sees those): keys sorted by
 * event id for the lookup, then back. */
static void blas_gpu_time(const cuprof_timeline *tl, blas_key *keys, size_t nb)
{
    const cuprof_gpu_run *g = tl ? tl->gpu : NULL;
    if (!g || g->n_kernels == 0)
        return;
    qsort(keys, nb, sizeof *keys, cmp_key_id);
    for (size_t i = 0; i < g->n_kernels; i++) {
        const cuprof_gpu_kernel *k = &g->kernels[i];
        blas_key probe = {.id = tl->kernel_hooked[i]};
        blas_key *hit = probe.id ? bsearch(&probe, keys, nb, sizeof *keys, cmp_key_id) : NULL;
        if (hit && k->end_ns > k->start_ns) {
            hit->gpu_ns += k->end_ns - k->start_ns;
            hit->kernels++;
        }
    }
}

/* The device the peaks come from: the one the run's kernels ran on (the
 * first kernel's; the first device described when none ran), or the one
 * --peak-device names. */
static void pick_device(const cuprof_run *run, const cuprof_timeline *tl, cuprof_summary *s)
{
    cuprof_stat_device *d = &s->device;
    const cuprof_gpu_run *g = tl ? tl->gpu : NULL;
    d->name = "";
    const cuprof_gpu_device *dev = NULL;
    for (size_t i = 0; g && i < g->n_devices; i++)
        if (!dev || (g->n_kernels && g->devices[i].id == g->kernels[0].device))
            dev = &g->devices[i];
    if (dev) {
        d->name = dev->name;
        d->sms = dev->sms;
        d->clock_khz = dev->clock_khz;
        d->mem_bytes = dev->mem_bytes;
    }
    const cuprof_peak_gpu *p = NULL;
    if (run->peak_device && run->peak_device[0]) {
        p = cuprof_peak_by_label(run->peak_device);
        if (!p)
            snprintf(d->why_buf, sizeof d->why_buf, "--peak-device %s is not in the peak table",
                     run->peak_device);
    } else {
        p = cuprof_peak_match(dev ? dev->name : NULL, dev ? dev->sms : 0, d->why_buf,
                              sizeof d->why_buf);
    }
    if (p) {
        d->peak_label = p->label;
        d->peak_source = p->source;
        d->mem_gbps = p->mem_gbps;
    } else {
        d->peak_why = d->why_buf;
    }
}

/* FLOPs, rate and share of the peak of every shape (after the grouping). */
static void shape_rates(const cuprof_summary *s, cuprof_stat_shape *sh, int prec)
{
    cuprof_peak_rate(s->device.peak_label, prec, (double)sh->flops_per_call * (double)sh->timed_calls,
                     sh->gpu_ns, &sh->tflops, &sh->prec, &sh->peak_tflops, &sh->peak_pct);
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
static int build_blas(const cuprof_run *run, const cuprof_timeline *tl, cuprof_summary *s)
{
    size_t nb = 0;
    const uint32_t blas = cuprof_run_class_bit(CUPROF_EV_BLAS);
    for (size_t t = 0; t < run->nthreads; t++)
        for (uint64_t i = 0; cuprof_run_thread_has(&run->threads[t], blas) && i < run->threads[t].n; i++)
            nb += cuprof_ev_is_gemm(cuprof_run_event(&run->threads[t], i));
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
        for (uint64_t i = 0; cuprof_run_thread_has(&run->threads[t], blas) && i < run->threads[t].n; i++) {
            const cuprof_event *ev = cuprof_run_event(&run->threads[t], i);
            if (!cuprof_ev_is_gemm(ev))
                continue;
            blas_key *k = &keys[j++];
            k->api = ev->api;
            k->epilogue = ev->a.blas.epilogue;
            k->transa = ev->a.blas.transa;
            k->transb = ev->a.blas.transb;
            k->atype = ev->a.blas.atype;
            k->m = ev->a.blas.m; k->n = ev->a.blas.n; k->k = ev->a.blas.k;
            k->batch = ev->a.blas.batch;
            k->compute = ev->a.blas.compute;
            k->id = cuprof_event_id_make(run->threads[t].index, i);
        }
    blas_gpu_time(tl, keys, nb);
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
            sh->flops_per_call = (uint64_t)(cuprof_gemm_flops(keys[i].m, keys[i].n, keys[i].k,
                                                              keys[i].batch, keys[i].atype,
                                                              keys[i].epilogue) + 0.5);
            sh->prec = cuprof_prec_name(cuprof_gemm_prec(keys[i].atype, keys[i].compute));
            g->nshapes++;
        }
        cuprof_stat_shape *sh = &shapes[ns - 1];
        sh->calls++;
        sh->gpu_ns += keys[i].gpu_ns;
        sh->kernels += keys[i].kernels;
        sh->timed_calls += keys[i].kernels != 0;
        if (i + 1 == nb || cmp_blas_key(&keys[i], &keys[i + 1]) != 0)
            shape_rates(s, sh, cuprof_gemm_prec(keys[i].atype, keys[i].compute));
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

cuprof_summary *cuprof_summary_build(const cuprof_run *run, const cuprof_names *names,
                                     const cuprof_timeline *tl)
{
    cuprof_summary *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    pick_device(run, tl, s);
    if (build_api(run, tl, s) < 0 || build_kernels(run, names, tl, s) < 0 ||
        build_copies(run, tl, s) < 0 || build_blas(run, tl, s) < 0) {
        cuprof_summary_destroy(s);
        return NULL;
    }
    return s;   /* findings: cuprof_findings_build, once the steps are known (model.c) */
}

void cuprof_summary_destroy(cuprof_summary *s)
{
    if (!s)
        return;
    free(s->ranges);
    free(s->math);
    free(s->steps);
    free(s->shapes_all);
    free(s->blas);
    free(s->copies);
    free(s->kernels);
    free(s->api);
    free(s->findings);
    free(s);
}
