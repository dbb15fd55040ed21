/*
 * timeline.c - GPU records joined to the calls that caused them (see
 * timeline.h for the rules).
 */
#include "model/timeline.h"
#include "model/kmatch.h"
#include "model/quantile.h"
#include "model/summary.h"

#include <stdlib.h>
#include <string.h>

static const cuprof_gpu_run EMPTY_GPU = {.status = "not captured"};

static int cmp_iv(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* iv sorted by start: as it is when already sorted (the records are, by
 * start: most callers pass kernels then copies), by merging two sorted runs
 * when it is two, else by qsort. The union does not depend on how equal
 * starts are ordered. */
static void sort_by_start(uint64_t (*iv)[2], size_t n)
{
    size_t p = 1;
    while (p < n && iv[p - 1][0] <= iv[p][0])
        p++;
    if (p >= n)
        return;
    size_t q = p + 1;
    while (q < n && iv[q - 1][0] <= iv[q][0])
        q++;
    uint64_t (*a)[2] = q == n ? malloc(p * sizeof *a) : NULL;
    if (!a) {
        qsort(iv, n, sizeof *iv, cmp_iv);
        return;
    }
    memcpy(a, iv, p * sizeof *a);   /* merge a (the first run) and iv[p..n) into iv */
    size_t i = 0, j = p, k = 0;
    while (i < p && j < n) {
        if (iv[j][0] < a[i][0]) {
            iv[k][0] = iv[j][0];
            iv[k++][1] = iv[j++][1];
        } else {
            iv[k][0] = a[i][0];
            iv[k++][1] = a[i++][1];
        }
    }
    while (i < p) {
        iv[k][0] = a[i][0];
        iv[k++][1] = a[i++][1];
    }
    free(a);
}

/* The length of a union of intervals given in start order: add each, then
 * take the total (an empty interval, e <= s, adds nothing). */
typedef struct busy_acc {
    uint64_t busy, s, e;
    int open;
} busy_acc;

static inline void busy_add(busy_acc *b, uint64_t s, uint64_t e)
{
    if (e <= s)
        return;
    if (b->open && s <= b->e) {
        if (e > b->e)
            b->e = e;
        return;
    }
    if (b->open)
        b->busy += b->e - b->s;
    b->s = s;
    b->e = e;
    b->open = 1;
}

static inline uint64_t busy_total(const busy_acc *b)
{
    return b->busy + (b->open ? b->e - b->s : 0);
}

uint64_t cuprof_interval_union(uint64_t (*iv)[2], size_t n)
{
    sort_by_start(iv, n);
    busy_acc b = {0};
    for (size_t i = 0; i < n; i++)
        busy_add(&b, iv[i][0], iv[i][1]);
    return busy_total(&b);
}

/* Whether a (kernel or copy) record array is sorted by start: both structs
 * start with start_ns (model/gpu.h sorts them; a run filled by hand may
 * not). */
static int by_start(const void *base, size_t n, size_t size)
{
    const char *b = base;
    for (size_t i = 1; i < n; i++)
        if (*(const uint64_t *)(b + (i - 1) * size) > *(const uint64_t *)(b + i * size))
            return 0;
    return 1;
}

uint64_t cuprof_gpu_busy(const cuprof_gpu_run *g, uint64_t lo, uint64_t hi)
{
    const cuprof_gpu_kernel *k = g->kernels;
    const cuprof_gpu_copy *c = g->copies;
    size_t nk = g->n_kernels, nc = g->copies ? g->n_copies : 0;
    if (!k)
        nk = 0;
    if (!by_start(k, nk, sizeof *k) || !by_start(c, nc, sizeof *c)) {
        uint64_t (*iv)[2] = malloc((nk + nc ? nk + nc : 1) * sizeof *iv);
        if (!iv)
            return 0;
        size_t m = 0;
        for (size_t i = 0; i < nk + nc; i++) {
            uint64_t a = i < nk ? k[i].start_ns : c[i - nk].start_ns;
            uint64_t b = i < nk ? k[i].end_ns : c[i - nk].end_ns;
            iv[m][0] = a > lo ? a : lo;
            iv[m++][1] = b < hi ? b : hi;
        }
        uint64_t busy = cuprof_interval_union(iv, m);
        free(iv);
        return busy;
    }
    return cuprof_gpu_busy_span(g, 0, nk, 0, nc, lo, hi);
}

uint64_t cuprof_gpu_busy_span(const cuprof_gpu_run *g, size_t kf, size_t nk, size_t cf,
                              size_t nc, uint64_t lo, uint64_t hi)
{
    /* the two arrays merged in start order, each record clipped (which
     * keeps that order), as cuprof_interval_union goes */
    const cuprof_gpu_kernel *k = nk ? g->kernels + kf : NULL;
    const cuprof_gpu_copy *c = nc ? g->copies + cf : NULL;
    size_t i = 0, j = 0;
    busy_acc acc = {0};
    while (i < nk || j < nc) {
        uint64_t s, e;
        if (j == nc || (i < nk && k[i].start_ns <= c[j].start_ns)) {
            s = k[i].start_ns, e = k[i++].end_ns;
        } else {
            s = c[j].start_ns, e = c[j++].end_ns;
        }
        busy_add(&acc, s > lo ? s : lo, e < hi ? e : hi);
    }
    return busy_total(&acc);
}

/* by_corr sort (glibc's qsort_r: the records are the context). */
static int cmp_corr(const void *a, const void *b, void *apis)
{
    const cuprof_gpu_api *r = apis;
    uint32_t x = r[*(const uint32_t *)a].corr, y = r[*(const uint32_t *)b].corr;
    return x < y ? -1 : x > y;
}

/* corr_first: a direct index of the records by corr when the ids span at
 * most 4 per record (a lookup per kernel, copy, flow and sync: a binary
 * search through two arrays of a million was a tenth of a CUPTI run's
 * report), each id's first record (the lowest index); then no sorted array
 * of indexes is kept (issue 40: 4 bytes a record and a sort). 0 when
 * made, -1 when the ids are sparse (or out of memory): by_corr then. */
static int index_corr(cuprof_timeline *tl)
{
    const cuprof_gpu_api *apis = tl->gpu->apis;
    size_t n = tl->gpu->n_apis;
    uint32_t lo = UINT32_MAX, hi = 0;
    for (size_t i = 0; i < n; i++) {
        if (apis[i].corr < lo) lo = apis[i].corr;
        if (apis[i].corr > hi) hi = apis[i].corr;
    }
    uint64_t span = n ? (uint64_t)hi - lo + 1 : 0;
    if (!n || span > 4 * (uint64_t)n + 1024 || !(tl->corr_first = malloc(span * sizeof *tl->corr_first)))
        return -1;
    memset(tl->corr_first, 0xff, span * sizeof *tl->corr_first);
    for (size_t i = n; i-- > 0;)   /* backwards: the first of equal ids stays */
        tl->corr_first[apis[i].corr - lo] = (uint32_t)i;
    tl->corr_lo = lo;
    tl->corr_span = span;
    return 0;
}

const cuprof_gpu_api *cuprof_timeline_api(const cuprof_timeline *tl, uint32_t corr)
{
    if (tl->corr_first) {
        if (corr < tl->corr_lo || (uint64_t)(corr - tl->corr_lo) >= tl->corr_span)
            return NULL;
        uint32_t k = tl->corr_first[corr - tl->corr_lo];
        return k == UINT32_MAX ? NULL : &tl->gpu->apis[k];
    }
    size_t lo = 0, hi = tl->gpu->n_apis;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uint32_t c = tl->gpu->apis[tl->by_corr[mid]].corr;
        if (c < corr)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < tl->gpu->n_apis && tl->gpu->apis[tl->by_corr[lo]].corr == corr)
        return &tl->gpu->apis[tl->by_corr[lo]];
    return NULL;
}

int cuprof_timeline_sync_place(const cuprof_timeline *tl, const cuprof_gpu_sync *s,
                               uint32_t *tid, uint64_t *t0, uint64_t *t1)
{
    const cuprof_gpu_api *a = cuprof_timeline_api(tl, s->corr);
    if (!a)
        return 0;
    *t0 = s->start_ns;
    *t1 = s->end_ns;
    *tid = a->thread_id;
    const cuprof_run_thread *th = NULL;
    uint64_t hooked = cuprof_timeline_api_hooked(tl, a);
    const cuprof_event *ev = hooked ? cuprof_run_find_event(tl->run, hooked, &th) : NULL;
    if (ev) {
        *tid = th->tid;
        if (*t0 < ev->t0) *t0 = ev->t0;
        if (*t1 > ev->t1) *t1 = ev->t1;
    }
    return 1;
}

uint64_t cuprof_timeline_api_hooked(const cuprof_timeline *tl, const cuprof_gpu_api *a)
{
    int32_t d = tl->api_derived[a - tl->gpu->apis];
    return d >= 0 ? tl->derived[d].parent : tl->api_hooked[a - tl->gpu->apis];
}

/* A record's cause from its corr and the hooked call kept for it. */
static cuprof_cause cause_of(const cuprof_timeline *tl, uint32_t corr, uint64_t hooked)
{
    const cuprof_gpu_api *a = cuprof_timeline_api(tl, corr);
    cuprof_cause c = {.api = a ? (uint32_t)(a - tl->gpu->apis) : CUPROF_CAUSE_NO_API, .derived = -1,
                      .hooked = hooked};
    if (a && tl->api_derived[c.api] >= 0)
        c.derived = tl->api_derived[c.api];
    return c;
}

cuprof_cause cuprof_kernel_cause(const cuprof_timeline *tl, size_t i)
{
    return cause_of(tl, tl->gpu->kernels[i].corr, tl->kernel_hooked[i]);
}

cuprof_cause cuprof_copy_cause(const cuprof_timeline *tl, size_t i)
{
    return cause_of(tl, tl->gpu->copies[i].corr, tl->copy_hooked[i]);
}

cuprof_cause cuprof_timeline_cause(const cuprof_timeline *tl, uint32_t corr, uint64_t ext)
{
    const cuprof_gpu_api *a = cuprof_timeline_api(tl, corr);
    cuprof_cause c = {.api = a ? (uint32_t)(a - tl->gpu->apis) : CUPROF_CAUSE_NO_API, .derived = -1,
                      .hooked = ext};
    if (a) {
        int32_t d = tl->api_derived[c.api];
        uint64_t h = cuprof_timeline_api_hooked(tl, a);
        if (d >= 0)
            c.derived = d;
        if (d >= 0 || h != 0)
            c.hooked = h;
    }
    if (c.hooked != 0 && cuprof_run_thread_of(tl->run, c.hooked) == NULL)
        c.hooked = 0;   /* a call the run does not hold (still open at exit) */
    return c;
}

static const cuprof_run_thread *thread_of(const cuprof_run *run, uint32_t tid)
{
    for (size_t t = 0; t < run->nthreads; t++)
        if (run->threads[t].tid == tid)
            return &run->threads[t];
    return NULL;
}

/* 1 when a CUPTI record named rec is the hooked entry point named hook
 * itself. nvcc 13's <<<>>> calls __cudaLaunchKernel[_ptsz], which the real
 * CUPTI 13.0 reports as cudaLaunchKernel[_ptsz] (cbid 211/214, not the
 * __cudaLaunchKernel ids of its header; seen on an H100, driver 580). */
static int same_call(const char *hook, const char *rec)
{
    if (!strcmp(hook, rec))
        return 1;
    return !strncmp(hook, "__cudaLaunchKernel", 18) && !strncmp(rec, "cudaLaunchKernel", 16) &&
           !strcmp(hook + 18, rec + 16);
}

/* The hooked call of this name on th around [s, e], as an event id, or 0:
 * the record is that call (it pushed no ext: a top-level runtime call, or CUPTI
 * started inside it). The two clocks may disagree by up to tol ns (TSC
 * stamps converted at exit, CUPTI's callback or offset clock), so of the
 * calls of that name within tol of [s, e] the one overlapping it most wins.
 * A call is one record's at most: claimed[i] (a bit per event of th) marks
 * the calls earlier records took (records come in start order), so a call
 * made just after a recorded one, and not recorded itself (outside a
 * capture window), is not taken for a second record of it. Looks back from
 * the last call that began by s + tol, over at most 64. */
static uint64_t hooked_match(const cuprof_run *run, const cuprof_run_thread *th, uint8_t *claimed,
                             uint64_t *cursor, const char *name, uint64_t s, uint64_t e,
                             uint64_t tol)
{
    if (!th || th->n == 0 || !claimed)
        return 0;
    uint64_t lo = 0, hi = th->n;   /* first event with t0 > s + tol */
    uint64_t c = *cursor;          /* the last record's answer: records come in start
                                      order, so this one's is at or after it, most often
                                      near it (a search from there, galloping) */
    if (c <= th->n && (c == 0 || cuprof_run_event(th, c - 1)->t0 <= s + tol)) {
        uint64_t step = 1;
        lo = c;
        while (lo + step <= th->n && cuprof_run_event(th, lo + step - 1)->t0 <= s + tol) {
            lo += step;
            step *= 2;
        }
        hi = lo + step - 1 < th->n ? lo + step - 1 : th->n;
    }
    while (lo < hi) {
        uint64_t mid = lo + (hi - lo) / 2;
        if (cuprof_run_event(th, mid)->t0 <= s + tol)
            lo = mid + 1;
        else
            hi = mid;
    }
    *cursor = lo;
    uint64_t best = 0;
    int64_t best_ov = INT64_MIN;
    for (uint64_t i = lo, k = 0; i > 0 && k < 64; i--, k++) {
        const cuprof_event *ev = cuprof_run_event(th, i - 1);
        if (ev->depth == 0 && ev->t1 + tol < s)
            break;   /* top-level calls do not overlap: every earlier one ended before */
        if (ev->t1 + tol < e || (claimed[(i - 1) / 8] & (1u << ((i - 1) % 8))) ||
            !same_call(cuprof_run_api_name(run, ev->api), name))
            continue;
        int64_t ov = (int64_t)(ev->t1 < e ? ev->t1 : e) - (int64_t)(ev->t0 > s ? ev->t0 : s);
        if (ov > best_ov) {
            best_ov = ov;
            best = i;
        }
    }
    if (!best)
        return 0;
    claimed[(best - 1) / 8] |= (uint8_t)(1u << ((best - 1) % 8));
    return cuprof_event_id_make(th->index, best - 1);
}

/* The claimed bits of run->threads[t] (hooked_match), made on first use;
 * NULL on out of memory (no match then). */
static uint8_t *claimed_of(const cuprof_run *run, uint8_t **claimed, const cuprof_run_thread *th)
{
    if (!th)
        return NULL;
    size_t t = (size_t)(th - run->threads);
    if (!claimed[t])
        claimed[t] = calloc(th->n / 8 + 1, 1);
    return claimed[t];
}

/* CUDA's module registration and <<<>>> configuration calls ("__cuda..."
 * that launch nothing) run from constructors and stubs, not as calls the
 * program wrote. (The hooks' own queries, a cudaMemcpyDefault's direction,
 * never get here: their records carry our own external id and are dropped
 * when the run is normalized, see cuprof_own_cuda_enter.) */
static int left_out(const cuprof_gpu_api *a)
{
    return !strncmp(a->name, "__cuda", 6) && !a->is_launch;
}

static int cmp_derived(const void *a, const void *b)
{
    const cuprof_derived_call *x = a, *y = b;
    if (x->t0 != y->t0)
        return x->t0 < y->t0 ? -1 : 1;
    return x->rec->corr < y->rec->corr ? -1 : x->rec->corr > y->rec->corr;
}

/* Sorts out which runtime records are derived calls and places them. */
static int join_apis(cuprof_timeline *tl)
{
    const cuprof_run *run = tl->run;
    const cuprof_gpu_run *g = tl->gpu;
    size_t n = g->n_apis;
    /* how far apart the CUPTI and hook clocks may be: 1 us, or twice the
     * offset measurement's error when CUPTI's own clock was shifted */
    uint64_t tol = 1000 + 2 * g->clock_error_ns;
    tl->api_derived = malloc((n ? n : 1) * sizeof *tl->api_derived);
    tl->api_hooked = calloc(n ? n : 1, sizeof *tl->api_hooked);
    size_t dcap = 0;   /* tl->derived grows as they are found: few, most runs */
    uint8_t **claimed = calloc(run->nthreads ? run->nthreads : 1, sizeof *claimed);
    uint64_t *cursor = calloc(run->nthreads ? run->nthreads : 1, sizeof *cursor);
    int rc = -1;
    if (!tl->api_derived || !tl->api_hooked || !claimed || !cursor)
        goto out;
    if (index_corr(tl) < 0 && n) {   /* sparse ids: the records sorted by corr */
        if (!(tl->by_corr = malloc(n * sizeof *tl->by_corr)))
            goto out;
        for (size_t i = 0; i < n; i++)
            tl->by_corr[i] = (uint32_t)i;
        qsort_r(tl->by_corr, n, sizeof *tl->by_corr, cmp_corr, (void *)g->apis);
    }

    for (size_t i = 0; i < n; i++) {
        const cuprof_gpu_api *a = &g->apis[i];
        const cuprof_run_thread *th = NULL;
        const cuprof_event *parent = a->ext ? cuprof_run_find_event(run, a->ext, &th) : NULL;
        tl->api_derived[i] = -1;
        tl->api_hooked[i] = parent ? a->ext : 0;
        if (parent && same_call(cuprof_run_api_name(run, parent->api), a->name))
            continue;   /* the hooked call itself */
        const cuprof_run_thread *own = parent ? NULL : thread_of(run, a->thread_id);
        if (own && (tl->api_hooked[i] = hooked_match(run, own, claimed_of(run, claimed, own),
                                                     &cursor[own - run->threads], a->name,
                                                     a->start_ns, a->end_ns, tol)) != 0)
            continue;
        if (left_out(a)) {
            tl->api_derived[i] = -2;
            continue;
        }
        if (tl->nderived == dcap) {
            size_t cap = dcap ? 2 * dcap : 64;
            cuprof_derived_call *nd = realloc(tl->derived, cap * sizeof *nd);
            if (!nd)
                goto out;
            tl->derived = nd;
            dcap = cap;
        }
        cuprof_derived_call *d = &tl->derived[tl->nderived];
        memset(d, 0, sizeof *d);
        d->rec = a;
        d->t0 = a->start_ns;
        d->t1 = a->end_ns > a->start_ns ? a->end_ns : a->start_ns;
        d->tid = a->thread_id;
        if (parent) {
            /* Nested by time under its parent, whatever the clocks' error. */
            d->parent = a->ext;
            d->tid = th->tid;
            d->depth = (uint32_t)parent->depth + 1;
            if (d->t0 < parent->t0) d->t0 = parent->t0;
            if (d->t1 > parent->t1) d->t1 = parent->t1;
            if (d->t1 < d->t0) d->t1 = d->t0;
        }
        tl->nderived++;
    }
    rc = 0;
out:
    for (size_t t = 0; claimed && t < run->nthreads; t++)
        free(claimed[t]);
    free(claimed);
    free(cursor);
    if (rc < 0)
        return -1;
    if (tl->nderived > 1)
        qsort(tl->derived, tl->nderived, sizeof *tl->derived, cmp_derived);
    for (size_t k = 0; k < tl->nderived; k++)
        tl->api_derived[tl->derived[k].rec - g->apis] = (int32_t)k;
    return 0;
}

/* Start of the call that caused a device record: its runtime record's
 * (CUPTI's own entry time), else the hooked call's; 0 if unknown. */
static uint64_t cause_start(const cuprof_timeline *tl, cuprof_cause c)
{
    const cuprof_gpu_api *a = cuprof_cause_api(tl, &c);
    if (a)
        return a->start_ns;
    if (c.hooked)
        return cuprof_run_find_event(tl->run, c.hooked, NULL)->t0;
    return 0;
}

/* The window idle share is measured over: the kernel phase, from the start
 * of the first kernel's launching call to the end of the last kernel (the
 * copies' phase when there are no kernels). Program set-up before it (host
 * data preparation, allocation) and tear-down after it are not GPU idle
 * time the launches could have filled. */
static void find_window(const cuprof_timeline *tl, uint64_t *lo, uint64_t *hi)
{
    const cuprof_gpu_run *g = tl->gpu;
    *lo = UINT64_MAX;
    *hi = 0;
    for (size_t i = 0; i < g->n_kernels; i++) {
        const cuprof_gpu_kernel *k = &g->kernels[i];
        uint64_t s = cause_start(tl, cuprof_kernel_cause(tl, i));
        if (s == 0 || s > k->start_ns)
            s = k->start_ns;
        if (s && s < *lo) *lo = s;
        if (k->end_ns > *hi) *hi = k->end_ns;
    }
    for (size_t i = 0; g->n_kernels == 0 && i < g->n_copies; i++) {
        const cuprof_gpu_copy *c = &g->copies[i];
        uint64_t s = cause_start(tl, cuprof_copy_cause(tl, i));
        if (s == 0 || s > c->start_ns)
            s = c->start_ns;
        if (s && s < *lo) *lo = s;
        if (c->end_ns > *hi) *hi = c->end_ns;
    }
}

/* Busy time (all records, and within the window), idle share, launch
 * latency. */
static int compute_stats(cuprof_timeline *tl)
{
    const cuprof_gpu_run *g = tl->gpu;
    cuprof_gpu_stats *st = &tl->stats;
    cuprof_quantile lat;   /* launch latencies: exact up to the bound */
    cuprof_quantile_init(&lat, tl->run->quantile_exact_max);
    int oom = 0;
    for (size_t i = 0; i < g->n_kernels; i++) {
        const cuprof_gpu_kernel *kr = &g->kernels[i];
        uint64_t call = cause_start(tl, cuprof_kernel_cause(tl, i));
        if (call)
            oom |= cuprof_quantile_add(&lat, kr->start_ns > call ? kr->start_ns - call : 0);
    }
    st->busy_ns = cuprof_gpu_busy(g, 0, UINT64_MAX);
    uint64_t lo, hi;
    find_window(tl, &lo, &hi);
    if (lo < hi) {
        st->window_start_ns = lo;
        st->window_end_ns = hi;
        st->busy_window_ns = cuprof_gpu_busy(g, lo, hi);
        uint64_t w = hi - lo;
        st->idle_share = st->busy_window_ns >= w ? 0.0 : 1.0 - (double)st->busy_window_ns / (double)w;
    }
    st->latency_count = cuprof_quantile_count(&lat);
    st->latency_max_ns = cuprof_quantile_max(&lat);
    st->latency_median_ns = cuprof_quantile_median(&lat);
    st->latency_median_sketched = cuprof_quantile_sketched(&lat);
    cuprof_quantile_free(&lat);
    return oom ? -1 : 0;
}

/* The cause of every kernel, copy and memset, once. */
static int join_records(cuprof_timeline *tl)
{
    const cuprof_gpu_run *g = tl->gpu;
    tl->kernel_hooked = malloc((g->n_kernels ? g->n_kernels : 1) * sizeof *tl->kernel_hooked);
    tl->copy_hooked = malloc((g->n_copies ? g->n_copies : 1) * sizeof *tl->copy_hooked);
    if (!tl->kernel_hooked || !tl->copy_hooked)
        return -1;
    for (size_t i = 0; i < g->n_kernels; i++)
        tl->kernel_hooked[i] = cuprof_timeline_cause(tl, g->kernels[i].corr, g->kernels[i].ext).hooked;
    for (size_t i = 0; i < g->n_copies; i++)
        tl->copy_hooked[i] = cuprof_timeline_cause(tl, g->copies[i].corr, g->copies[i].ext).hooked;
    if (!g->kernels_only)
        return 0;
    /* No API records, no external ids: the calls matched by kind, key and
     * order stand in (model/kmatch.h). */
    uint64_t *kh = malloc((g->n_kernels + 1) * sizeof *kh);
    uint64_t *ch = malloc((g->n_copies + 1) * sizeof *ch);
    int rc = kh && ch ? cuprof_kmatch(tl->run, g, 1000 + 2 * g->clock_error_ns, kh, ch) : -1;
    for (size_t i = 0; rc == 0 && i < g->n_kernels; i++)
        if (!tl->kernel_hooked[i] && !cuprof_timeline_api(tl, g->kernels[i].corr))
            tl->kernel_hooked[i] = kh[i];
    for (size_t i = 0; rc == 0 && i < g->n_copies; i++)
        if (!tl->copy_hooked[i] && !cuprof_timeline_api(tl, g->copies[i].corr))
            tl->copy_hooked[i] = ch[i];
    free(kh);
    free(ch);
    return rc;
}

cuprof_timeline *cuprof_timeline_build(const cuprof_run *run)
{
    cuprof_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return NULL;
    tl->run = run;
    tl->gpu = run->gpu_run ? run->gpu_run : &EMPTY_GPU;
    if (join_apis(tl) < 0 || join_records(tl) < 0 || compute_stats(tl) < 0) {
        cuprof_timeline_destroy(tl);
        return NULL;
    }
    return tl;
}

void cuprof_timeline_destroy(cuprof_timeline *tl)
{
    if (!tl)
        return;
    free(tl->api_derived);
    free(tl->api_hooked);
    free(tl->by_corr);
    free(tl->corr_first);
    free(tl->derived);
    free(tl->kernel_hooked);
    free(tl->copy_hooked);
    free(tl);
}
