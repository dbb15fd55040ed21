/* ranges.c - see ranges.h. */
#include "model/ranges.h"
#include "model/quantile.h"
#include "model/summary.h"

#include <stdlib.h>
#include <string.h>

const char *cuprof_run_string(const cuprof_run *run, uint32_t s)
{
    return s >= 1 && s <= run->nstrings && run->strings[s] ? run->strings[s] : "";
}

/* End of the run on the host clock (for ranges never closed). */
static uint64_t run_end(const cuprof_run *run)
{
    uint64_t end = run->t_start + run->wall_ns;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        if (th->n && cuprof_run_event(th, th->n - 1)->t1 > end)
            end = cuprof_run_event(th, th->n - 1)->t1;
    }
    return end;
}

/* Capture windows: a range opened in window w whose close was not
 * recorded (it came outside every window) ends at w's close, and is cut
 * there as soon as the thread records an event of a later window (one
 * stamped past half-way to the next window's open). w is
 * found with 1 us of slack: window times and event stamps come from two
 * clocks that agree to tens of ns (collector/clock.h). */
#define WINDOW_SLACK_NS 1000

typedef struct open_end {
    uint64_t t1;     /* where the range ends if never closed */
    uint64_t cut;    /* an event from here on is in a later window */
} open_end;

static open_end open_until(const cuprof_run *run, uint64_t t, uint64_t end)
{
    const cuprof_capture *cap = &run->capture;
    open_end o = {end, UINT64_MAX};
    if (!cap->trigger || cap->nwindows == 0)
        return o;
    size_t lo = 1, hi = cap->nwindows;   /* w: the last window opened by t (+ slack) */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (cap->windows[mid][0] <= t + WINDOW_SLACK_NS)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t w = lo - 1;
    if (cap->windows[w][1] < end)
        o.t1 = cap->windows[w][1];
    if (w + 1 < cap->nwindows)   /* half-way between w's close and the next open */
        o.cut = cap->windows[w][1] + (cap->windows[w + 1][0] - cap->windows[w][1]) / 2;
    return o;
}

static int push_range(cuprof_ranges *rg, size_t *cap, const cuprof_range *r)
{
    if (rg->n == *cap) {
        size_t nc = *cap ? *cap * 2 : 64;
        cuprof_range *p = realloc(rg->r, nc * sizeof *p);
        if (!p)
            return -1;
        rg->r = p;
        *cap = nc;
    }
    rg->r[rg->n++] = *r;
    return 0;
}

/* Push/pop pairs of thread t; inner[i] gets the innermost push range open
 * at event i (-1 none). */
static int pair_pushes(const cuprof_run *run, size_t t, uint64_t end, cuprof_ranges *rg,
                       size_t *cap, int32_t *inner)
{
    const cuprof_run_thread *th = &run->threads[t];
    int32_t stack[256];
    open_end until[256];      /* [k]: where stack[k] ends if its pop never comes */
    int sp = 0, lost = 0;     /* lost: pushes beyond the stack, popped blind */
    for (uint64_t i = 0; i < th->n; i++) {
        const cuprof_event *ev = cuprof_run_event(th, i);
        /* A range whose capture window closed before this event was
         * cut by the window: its pop (outside) is not in the run. */
        while (sp && ev->t0 >= until[sp - 1].cut) {
            sp--;
            rg->r[stack[sp]].t1 = until[sp].t1;
        }
        inner[i] = sp ? stack[sp - 1] : -1;
        if (ev->cls == CUPROF_EV_RANGE_PUSH) {
            if (sp == 256) {
                lost++;
                continue;
            }
            cuprof_range r = {.name = ev->a.nvtx.name, .domain = ev->a.nvtx.domain,
                              .thread = (uint32_t)t, .level = (uint16_t)sp, .t0 = ev->t0,
                              .first = i, .last = UINT64_MAX,
                              .parent = sp ? stack[sp - 1] : -1,
                              .payload = (uint32_t)ev->a.nvtx.id};
            if (push_range(rg, cap, &r) < 0)
                return -1;
            until[sp] = open_until(run, ev->t0, end);
            stack[sp++] = (int32_t)(rg->n - 1);
        } else if (ev->cls == CUPROF_EV_RANGE_POP) {
            if (lost) {
                lost--;
            } else if (sp) {
                cuprof_range *r = &rg->r[stack[--sp]];
                r->t1 = ev->t0;
                r->last = i;
                r->closed = 1;
            }
        }
    }
    while (sp) {
        sp--;
        rg->r[stack[sp]].t1 = until[sp].t1;
    }
    return 0;
}

static int cmp_range_id(const void *a, const void *b)
{
    const cuprof_range *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Start/end pairs over all threads, by range id. */
static int pair_starts(const cuprof_run *run, uint64_t end, cuprof_ranges *rg, size_t *cap)
{
    rg->first_start = rg->n;
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        for (uint64_t i = 0; cuprof_run_thread_has(th, cuprof_run_class_bit(CUPROF_EV_RANGE_START)) &&
                             i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (ev->cls != CUPROF_EV_RANGE_START)
                continue;
            cuprof_range r = {.name = ev->a.nvtx.name, .domain = ev->a.nvtx.domain,
                              .thread = (uint32_t)t, .start_end = 1, .t0 = ev->t0,
                              .t1 = open_until(run, ev->t0, end).t1,
                              .first = i, .last = UINT64_MAX, .parent = -1,
                              .id = ev->a.nvtx.id};
            if (push_range(rg, cap, &r) < 0)
                return -1;
        }
    }
    cuprof_range *starts = rg->r + rg->first_start;
    size_t nstarts = rg->n - rg->first_start;
    if (nstarts == 0)
        return 0;
    qsort(starts, nstarts, sizeof *starts, cmp_range_id);
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        for (uint64_t i = 0; cuprof_run_thread_has(th, cuprof_run_class_bit(CUPROF_EV_RANGE_END)) &&
                             i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (ev->cls != CUPROF_EV_RANGE_END)
                continue;
            cuprof_range key = {.id = ev->a.nvtx.id};
            cuprof_range *r = bsearch(&key, starts, nstarts, sizeof *starts, cmp_range_id);
            if (r && !r->closed) {
                r->t1 = ev->t0;
                r->last = i;
                r->closed = 1;
            }
        }
    }
    return 0;
}

/* Charges d ns (and a kernel when kernel) of work caused by c to the push
 * ranges around the hooked call behind it (the innermost and those around
 * it) and to the start/end ranges of that thread open at its start; returns
 * the innermost push range, else a start/end one, else -1. */
static int32_t charge(const cuprof_run *run, const cuprof_timeline *tl, cuprof_ranges *rg,
                      int32_t *const *inner, cuprof_cause c, uint64_t d, int kernel)
{
    const cuprof_run_thread *th = NULL;
    int32_t innermost = -1;
    uint64_t at = 0;
    size_t t = 0;
    if (!rg->n)
        return -1;
    if (c.hooked && cuprof_run_find_event(run, c.hooked, &th)) {
        t = (size_t)(th - run->threads);
        uint64_t i = cuprof_event_id_seq(c.hooked);
        innermost = inner[t] ? inner[t][i] : -1;
        at = cuprof_run_event(th, i)->t0;
    } else if (c.derived >= 0 && tl) {
        /* a call only CUPTI saw, at the top of its thread (issue 33): the
         * innermost push range of that thread open at its start */
        const cuprof_derived_call *dc = &tl->derived[c.derived];
        for (t = 0; t < run->nthreads && run->threads[t].tid != dc->tid; t++)
            ;
        if (t == run->nthreads)
            return -1;
        at = dc->t0;
        for (size_t k = 0; k < rg->first_start; k++) {
            const cuprof_range *r = &rg->r[k];
            if (r->thread == t && r->t0 <= at && at < r->t1 &&
                (innermost < 0 || r->level > rg->r[innermost].level))
                innermost = (int32_t)k;
        }
    } else {
        return -1;
    }
    while (innermost >= 0 && rg->r[innermost].folded)   /* shown as its call, not a range */
        innermost = rg->r[innermost].parent;
    for (int32_t k = innermost; k >= 0; k = rg->r[k].parent) {
        rg->r[k].gpu_ns += d;
        rg->r[k].kernels += (uint64_t)kernel;
    }
    for (size_t k = rg->first_start; k < rg->n; k++) {
        cuprof_range *r = &rg->r[k];
        if (r->thread == t && r->t0 <= at && at < r->t1) {
            r->gpu_ns += d;
            r->kernels += (uint64_t)kernel;
            if (innermost < 0)
                innermost = (int32_t)k;
        }
    }
    return innermost;
}

/* The domains whose ranges name the hooked calls they sit in. */
static int library_domain(const cuprof_run *run, uint32_t domain)
{
    return domain != 0 && strcmp(cuprof_run_string(run, domain), "NCCL") == 0;
}

#define FOLD_LOOKBACK 64   /* events between a call and a range inside it */

static int cmp_folded(const void *a, const void *b)
{
    const cuprof_folded *x = a, *y = b;
    if (x->thread != y->thread)
        return x->thread < y->thread ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* Folds each library range into the hooked call of its name around it: the
 * nearest earlier event of its thread that is a call at a lower depth. */
static int fold(const cuprof_run *run, cuprof_ranges *rg)
{
    size_t cap = 0;
    for (size_t k = 0; k < rg->first_start; k++) {
        cuprof_range *r = &rg->r[k];
        if (!library_domain(run, r->domain))
            continue;
        const cuprof_run_thread *th = &run->threads[r->thread];
        unsigned open_depth = cuprof_run_event(th, r->first)->depth;
        for (uint64_t i = r->first, n = 0; i-- > 0 && n < FOLD_LOOKBACK; n++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (cuprof_ev_is_nvtx(ev->cls) || ev->depth >= open_depth)
                continue;
            if (strcmp(cuprof_run_api_name(run, ev->api), cuprof_run_string(run, r->name)) == 0 &&
                ev->t1 >= r->t1) {
                if (rg->nfolded == cap) {
                    size_t nc = cap ? cap * 2 : 64;
                    cuprof_folded *p = realloc(rg->folded, nc * sizeof *p);
                    if (!p)
                        return -1;
                    rg->folded = p;
                    cap = nc;
                }
                r->folded = 1;
                rg->folded[rg->nfolded++] = (cuprof_folded){r->thread, r->payload, i};
            }
            break;
        }
    }
    if (rg->nfolded)
        qsort(rg->folded, rg->nfolded, sizeof *rg->folded, cmp_folded);
    return 0;
}

uint32_t cuprof_ranges_call_payload(const cuprof_ranges *rg, size_t thread, uint64_t seq)
{
    if (!rg || rg->nfolded == 0)
        return 0;
    cuprof_folded key = {(uint32_t)thread, 0, seq};
    const cuprof_folded *f = bsearch(&key, rg->folded, rg->nfolded, sizeof key, cmp_folded);
    return f ? f->payload : 0;
}

cuprof_ranges *cuprof_ranges_build(const cuprof_run *run, const cuprof_timeline *tl)
{
    cuprof_ranges *rg = calloc(1, sizeof *rg);
    int32_t **inner = calloc(run->nthreads ? run->nthreads : 1, sizeof *inner);
    size_t cap = 0;
    int ok = rg && inner;
    uint64_t end = run_end(run);
    for (size_t t = 0; ok && t < run->nthreads; t++) {
        uint64_t n = run->threads[t].n;
        if (!cuprof_run_thread_has(&run->threads[t], cuprof_run_class_bit(CUPROF_EV_RANGE_PUSH)))
            continue;   /* no push: no range open at any of its calls (inner[t] NULL) */
        ok = (inner[t] = malloc((n ? n : 1) * sizeof **inner)) != NULL &&
             pair_pushes(run, t, end, rg, &cap, inner[t]) == 0;
    }
    ok = ok && pair_starts(run, end, rg, &cap) == 0 && fold(run, rg) == 0;
    const cuprof_gpu_run *g = tl ? tl->gpu : NULL;
    if (ok && g && rg->n) {   /* (no range: none to charge, no arrays; issue 40) */
        rg->kernel_range = malloc((g->n_kernels ? g->n_kernels : 1) * sizeof *rg->kernel_range);
        rg->copy_range = malloc((g->n_copies ? g->n_copies : 1) * sizeof *rg->copy_range);
        ok = rg->kernel_range && rg->copy_range;
        for (size_t i = 0; ok && i < g->n_kernels; i++) {
            const cuprof_gpu_kernel *x = &g->kernels[i];
            rg->kernel_range[i] = charge(run, tl, rg, inner, cuprof_kernel_cause(tl, i),
                                         x->end_ns > x->start_ns ? x->end_ns - x->start_ns : 0, 1);
        }
        for (size_t i = 0; ok && i < g->n_copies; i++) {
            const cuprof_gpu_copy *x = &g->copies[i];
            rg->copy_range[i] = charge(run, tl, rg, inner, cuprof_copy_cause(tl, i),
                                       x->end_ns > x->start_ns ? x->end_ns - x->start_ns : 0, 0);
        }
    }
    for (size_t t = 0; inner && t < run->nthreads; t++)
        free(inner[t]);
    free(inner);
    if (!ok) {
        cuprof_ranges_destroy(rg);
        return NULL;
    }
    return rg;
}

void cuprof_ranges_destroy(cuprof_ranges *rg)
{
    if (!rg)
        return;
    free(rg->r);
    free(rg->kernel_range);
    free(rg->copy_range);
    free(rg->folded);
    free(rg);
}

static int cmp_range_key(const void *a, const void *b, void *ctx)
{
    const cuprof_range *r = ctx;
    const cuprof_range *x = &r[*(const size_t *)a], *y = &r[*(const size_t *)b];
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    if (x->name != y->name)
        return x->name < y->name ? -1 : 1;
    return 0;
}

static int cmp_range_row(const void *a, const void *b)
{
    const cuprof_stat_range *x = a, *y = b;
    if (x->gpu_total_ns != y->gpu_total_ns)
        return x->gpu_total_ns > y->gpu_total_ns ? -1 : 1;
    if (x->cpu_total_ns != y->cpu_total_ns)
        return x->cpu_total_ns > y->cpu_total_ns ? -1 : 1;
    int c = strcmp(x->name, y->name);
    return c ? c : strcmp(x->domain, y->domain);
}

int cuprof_ranges_summarize(const cuprof_ranges *rg, const cuprof_run *run, cuprof_summary *s)
{
    s->nranges = 0;
    s->ranges = NULL;
    if (!rg || rg->n == 0)
        return 0;
    size_t *order = malloc(rg->n * sizeof *order);
    s->ranges = calloc(rg->n, sizeof *s->ranges);
    cuprof_quantile acc;   /* one row's durations at a time */
    cuprof_quantile_init(&acc, run->quantile_exact_max);
    int oom = 0;
    if (!order || !s->ranges) {
        free(order);
        free(s->ranges);
        s->ranges = NULL;
        return -1;
    }
    size_t n = 0;
    for (size_t i = 0; i < rg->n; i++)
        if (!rg->r[i].folded)
            order[n++] = i;
    qsort_r(order, n, sizeof *order, cmp_range_key, rg->r);
    for (size_t i = 0; i < n;) {
        size_t j = i;
        cuprof_stat_range *row = &s->ranges[s->nranges++];
        const cuprof_range *first = &rg->r[order[i]];
        row->name = cuprof_run_string(run, first->name);
        row->domain = cuprof_run_string(run, first->domain);
        for (; j < n && cmp_range_key(&order[i], &order[j], rg->r) == 0; j++) {
            const cuprof_range *r = &rg->r[order[j]];
            uint64_t d = r->t1 > r->t0 ? r->t1 - r->t0 : 0;
            oom |= cuprof_quantile_add(&acc, d);
            row->calls++;
            row->cpu_total_ns += d;
            row->gpu_total_ns += r->gpu_ns;
            row->kernels += r->kernels;
        }
        row->min_ns = cuprof_quantile_min(&acc);
        row->max_ns = cuprof_quantile_max(&acc);
        row->median_ns = cuprof_quantile_median(&acc);
        row->median_sketched = cuprof_quantile_sketched(&acc);
        cuprof_quantile_free(&acc);
        i = j;
    }
    free(order);
    if (oom) {
        free(s->ranges);
        s->ranges = NULL;
        s->nranges = 0;
        return -1;
    }
    qsort(s->ranges, s->nranges, sizeof *s->ranges, cmp_range_row);
    return 0;
}
