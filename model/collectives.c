/*
 * collectives.c - NCCL's collectives and the exposed communication
 * (collectives.h has the rules).
 */
#include "model/collectives.h"
#include "model/ranges.h"
#include "model/vocab.h"

#include <stdlib.h>
#include <string.h>


static const char *const ops[] = {"AllReduce", "Broadcast", "Bcast", "Reduce", "AllGather",
                                  "ReduceScatter", "AlltoAll", "Gather", "Scatter", "Send", "Recv"};

double cuprof_coll_bus_factor(const char *op, uint32_t n)
{
    if (n < 2)
        return 1.0;
    if (!strcmp(op, "AllReduce"))
        return 2.0 * (n - 1) / n;
    if (!strcmp(op, "AllGather") || !strcmp(op, "ReduceScatter") || !strcmp(op, "AlltoAll"))
        return (double)(n - 1) / n;
    return 1.0;
}

int cuprof_coll_is_nccl_kernel(const char *name)
{
    if (!name)
        return 0;
    return strstr(name, "ncclDevKernel") != NULL || strstr(name, "ncclKernel") != NULL;
}

/* The operation an API name is ("ncclAllReduce" -> "AllReduce"), NULL when
 * it is not a collective or point-to-point call. */
static const char *op_of(const char *api)
{
    if (strncmp(api, "nccl", 4) != 0)
        return NULL;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (!strcmp(api + 4, ops[i]))
            return !strcmp(ops[i], "Bcast") ? "Broadcast" : ops[i];
    return NULL;
}

typedef struct item {
    uint64_t id;        /* the call's event id */
    const char *op;
    uint8_t dtype;
    uint32_t nranks;
    uint64_t size;
    uint64_t gpu;       /* ns */
    size_t group;       /* 1 + its group's index, 0 none */
    const char *algo;   /* NCCL's choice, "" unknown */
    uint64_t start, end;   /* the device work charged to it */
    uint32_t device;
    uint64_t comm;
    size_t order;       /* its place in the run (c->calls) */
    uint32_t rank;
    uint64_t host_start, host_end;   /* the call on the host */
} item;

/* A span charged to a call or a group: widened by [a, b) on device. */
static void widen(uint64_t *start, uint64_t *end, uint32_t *device, uint64_t a, uint64_t b, uint32_t dev)
{
    if (!*end || a < *start)
        *start = a;
    if (b > *end)
        *end = b;
    *device = dev;
}

typedef struct idref {
    uint64_t id;
    size_t at;
} idref;

static int cmp_idref(const void *a, const void *b)
{
    uint64_t x = ((const idref *)a)->id, y = ((const idref *)b)->id;
    return (x > y) - (x < y);
}

static const idref *find(const idref *v, size_t n, uint64_t id)
{
    idref key = {id, 0};
    return n ? bsearch(&key, v, n, sizeof *v, cmp_idref) : NULL;
}

static int cmp_item(const void *a, const void *b)
{
    const item *x = a, *y = b;
    int c = strcmp(x->op, y->op);
    if (c)
        return c;
    if (x->dtype != y->dtype)
        return x->dtype < y->dtype ? -1 : 1;
    if (x->size != y->size)
        return x->size < y->size ? -1 : 1;
    if (x->nranks != y->nranks)
        return x->nranks < y->nranks ? -1 : 1;
    int al = strcmp(x->algo, y->algo);
    if (al)
        return al;
    return (x->gpu > y->gpu) - (x->gpu < y->gpu);
}

static int cmp_row(const void *a, const void *b)
{
    const cuprof_coll_row *x = a, *y = b;
    if (x->gpu_total_ns != y->gpu_total_ns)
        return x->gpu_total_ns > y->gpu_total_ns ? -1 : 1;
    return (x->calls < y->calls) - (x->calls > y->calls);
}

typedef struct span {
    uint64_t a, b;
    uint32_t device;
} span;

static int cmp_span(const void *p, const void *q)
{
    const span *x = p, *y = q;
    if (x->device != y->device)
        return x->device < y->device ? -1 : 1;
    return (x->a > y->a) - (x->a < y->a);
}

/* Merges sorted spans (one device's) in place into their union; its count. */
static size_t merge(span *s, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n; i++) {
        if (out && s[i].device == s[out - 1].device && s[i].a <= s[out - 1].b) {
            if (s[i].b > s[out - 1].b)
                s[out - 1].b = s[i].b;
        } else {
            s[out++] = s[i];
        }
    }
    return out;
}

static int cmp_start(const void *p, const void *q)
{
    const span *x = p, *y = q;
    return (x->a > y->a) - (x->a < y->a);
}

/* The time of the exposed spans ex (sorted by start, each at most `longest`
 * long) inside [a, b). */
static uint64_t exposed_in(const span *ex, size_t n, uint64_t longest, uint64_t a, uint64_t b)
{
    size_t lo = 0, hi = n;
    uint64_t from = a > longest ? a - longest : 0;
    while (lo < hi) {   /* the first that may reach a */
        size_t mid = (lo + hi) / 2;
        if (ex[mid].a < from) lo = mid + 1; else hi = mid;
    }
    uint64_t t = 0;
    for (size_t i = lo; i < n && ex[i].a < b; i++) {
        uint64_t x = ex[i].a > a ? ex[i].a : a, y = ex[i].b < b ? ex[i].b : b;
        if (y > x)
            t += y - x;
    }
    return t;
}

static int cmp_double(const void *p, const void *q)
{
    double x = *(const double *)p, y = *(const double *)q;
    return (x > y) - (x < y);
}

/* NCCL kernels' time, and the part of it no other kernel overlaps; and, per
 * step, that part inside the step (c->step_*). */
static void exposed(const cuprof_gpu_run *g, const cuprof_steps *steps, cuprof_collectives *c)
{
    size_t nk = g ? g->n_kernels : 0, nn = 0, no = 0;
    uint64_t *nccl_ns = &c->nccl_kernel_ns, *exposed_ns = &c->exposed_ns;
    *nccl_ns = *exposed_ns = 0;
    size_t nccl = 0;   /* none (most runs): no span arrays, 48 bytes a kernel */
    const char *last = NULL;   /* the records' names come interned: a name's answer */
    int last_is = 0;           /* holds while the next record has the same pointer */
    for (size_t i = 0; i < nk; i++) {
        if (g->kernels[i].name != last)
            last = g->kernels[i].name, last_is = cuprof_coll_is_nccl_kernel(last);
        nccl += g->kernels[i].end_ns > g->kernels[i].start_ns && last_is;
    }
    size_t cap = nccl ? nk : 0;
    span *n = malloc((nccl ? nccl : 1) * sizeof *n), *o = malloc((cap ? cap : 1) * sizeof *o);
    span *ex = malloc((nccl ? 2 * nk + 1 : 1) * sizeof *ex);
    size_t nex = 0;
    uint64_t longest = 0;
    if (!n || !o || !ex) {
        free(n);
        free(o);
        free(ex);
        return;
    }
    for (size_t i = 0; nccl && i < nk; i++) {
        const cuprof_gpu_kernel *k = &g->kernels[i];
        if (k->end_ns <= k->start_ns)
            continue;
        span s = {k->start_ns, k->end_ns, k->device};
        if (cuprof_coll_is_nccl_kernel(k->name))
            n[nn++] = s;
        else
            o[no++] = s;
    }
    qsort(n, nn, sizeof *n, cmp_span);
    nn = merge(n, nn);
    if (nn) {   /* (the other kernels matter only beside NCCL's) */
        qsort(o, no, sizeof *o, cmp_span);
        no = merge(o, no);
    }
    uint64_t total = 0, covered = 0;
    size_t j = 0;
    for (size_t i = 0; i < nn; i++) {
        total += n[i].b - n[i].a;
        while (j < no && (o[j].device < n[i].device || (o[j].device == n[i].device && o[j].b <= n[i].a)))
            j++;
        uint64_t at = n[i].a;   /* the exposed pieces of this span, in order */
        for (size_t k = j; k < no && o[k].device == n[i].device && o[k].a < n[i].b; k++) {
            uint64_t a = o[k].a > n[i].a ? o[k].a : n[i].a, b = o[k].b < n[i].b ? o[k].b : n[i].b;
            if (b > a)
                covered += b - a;
            if (a > at && nex < 2 * nk + 1)
                ex[nex++] = (span){at, a, n[i].device};
            if (b > at)
                at = b;
        }
        if (n[i].b > at && nex < 2 * nk + 1)
            ex[nex++] = (span){at, n[i].b, n[i].device};
    }
    *nccl_ns = total;
    *exposed_ns = total - covered;
    /* per step */
    size_t ns = steps ? steps->n : 0;
    c->step_exposed_ns = ns ? calloc(ns, sizeof *c->step_exposed_ns) : NULL;
    double *share = ns ? malloc(ns * sizeof *share) : NULL;
    if (ns && c->step_exposed_ns && share) {
        qsort(ex, nex, sizeof *ex, cmp_start);
        for (size_t i = 0; i < nex; i++)
            if (ex[i].b - ex[i].a > longest)
                longest = ex[i].b - ex[i].a;
        for (size_t s = 0; s < ns; s++) {
            const cuprof_step *st = &steps->s[s];
            c->step_exposed_ns[s] = exposed_in(ex, nex, longest, st->start_ns, st->start_ns + st->dur_ns);
            share[s] = st->dur_ns ? (double)c->step_exposed_ns[s] / (double)st->dur_ns : 0;
        }
        qsort(share, ns, sizeof *share, cmp_double);
        c->nsteps = ns;
        c->step_share_median = share[ns / 2];
    }
    free(share);
    free(n);
    free(o);
    free(ex);
}

typedef struct gspan {
    uint64_t start, end;
    uint32_t device;
} gspan;

/* Adds a device record's time to the call or group that caused it. */
static void charge(uint64_t hooked, uint64_t a, uint64_t b, uint32_t dev, item *it, const idref *ids,
                   size_t nids, const idref *ends, size_t nends, uint64_t *group_ns, gspan *gs)
{
    const idref *r;
    if (!hooked || b <= a)
        return;
    if ((r = find(ids, nids, hooked))) {
        it[r->at].gpu += b - a;
        widen(&it[r->at].start, &it[r->at].end, &it[r->at].device, a, b, dev);
    } else if ((r = find(ends, nends, hooked))) {
        group_ns[r->at] += b - a;
        widen(&gs[r->at].start, &gs[r->at].end, &gs[r->at].device, a, b, dev);
    }
}

cuprof_collectives *cuprof_collectives_build(const cuprof_run *run, const cuprof_timeline *tl,
                                             const cuprof_steps *steps)
{
    cuprof_collectives *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    const cuprof_gpu_run *g = tl ? tl->gpu : NULL;
    exposed(g, steps, c);
    /* the calls, and the groups they were made in */
    size_t n = 0, cap = 0, ngroups = 0, gcap = 0;
    item *it = NULL;
    idref *ends = NULL;   /* ncclGroupEnd's id -> group index */
    const char **galgo = NULL;   /* [group]: the algorithm NCCL told at its end */
    for (size_t t = 0; t < run->nthreads; t++) {
        const cuprof_run_thread *th = &run->threads[t];
        int open = 0;
        size_t group = 0;
        for (uint64_t i = 0; cuprof_run_thread_has(th, cuprof_run_class_bit(CUPROF_EV_COLL) |
                                                         cuprof_run_class_bit(CUPROF_EV_CALL)) &&
                             i < th->n; i++) {
            const cuprof_event *ev = cuprof_run_event(th, i);
            if (ev->cls != CUPROF_EV_COLL && ev->cls != CUPROF_EV_CALL)
                continue;
            const char *api = cuprof_run_api_name(run, ev->api);
            if (strncmp(api, "nccl", 4) != 0)
                continue;
            uint64_t id = cuprof_event_id_make(th->index, i);
            if (!strcmp(api, "ncclGroupStart")) {
                if (open++ == 0) {
                    if (ngroups == gcap) {
                        size_t nc = gcap ? gcap * 2 : 64;
                        idref *e = realloc(ends, nc * sizeof *e);
                        if (!e)
                            goto oom;
                        memset(e + gcap, 0, (nc - gcap) * sizeof *e);
                        ends = e;
                        const char **ga = realloc(galgo, nc * sizeof *ga);
                        if (!ga)
                            goto oom;
                        memset(ga + gcap, 0, (nc - gcap) * sizeof *ga);
                        galgo = ga;
                        gcap = nc;
                    }
                    group = ++ngroups;
                }
                continue;
            }
            if (!strcmp(api, "ncclGroupEnd")) {
                if (open > 0 && --open == 0) {
                    ends[group - 1] = (idref){id, group - 1};
                    galgo[group - 1] = ev->name ? cuprof_run_string(run, ev->name) : NULL;
                }
                continue;
            }
            const char *op = op_of(api);
            if (!op || ev->cls != CUPROF_EV_COLL || ev->result != 0)
                continue;
            if (n == cap) {
                cap = cap ? cap * 2 : 256;
                item *p = realloc(it, cap * sizeof *p);
                if (!p)
                    goto oom;
                it = p;
            }
            uint8_t dt = ev->a.coll.dtype;
            uint64_t per = ev->a.coll.count * cuprof_nccl_dtype_bytes(dt);
            int whole = !strcmp(op, "AllGather") || !strcmp(op, "ReduceScatter") || !strcmp(op, "AlltoAll");
            it[n] = (item){id, op, dt, ev->a.coll.nranks,
                           whole && ev->a.coll.nranks ? per * ev->a.coll.nranks : per, 0,
                           open ? group : 0, ev->name ? cuprof_run_string(run, ev->name) : "",
                           0, 0, 0, ev->a.coll.comm, n, ev->a.coll.rank, ev->t0, ev->t1};
            n++;
        }
        /* a group never ended (the program died in it): its calls stand alone */
        if (open)
            for (size_t k = 0; k < n; k++)
                if (it[k].group == group)
                    it[k].group = 0;
    }
    for (size_t i = 0; i < n; i++)   /* a call in a group: the group's algorithm */
        if (it[i].group && !it[i].algo[0] && galgo[it[i].group - 1])
            it[i].algo = galgo[it[i].group - 1];
    free(galgo);
    galgo = NULL;
    c->calls = n;
    if (n == 0) {
        free(ends);
        free(it);
        return c;
    }
    idref *ids = malloc(n * sizeof *ids);
    idref *ends_sorted = malloc((ngroups ? ngroups : 1) * sizeof *ends_sorted);
    uint64_t *group_ns = calloc(ngroups ? ngroups : 1, sizeof *group_ns);
    uint64_t *group_size = calloc(ngroups ? ngroups : 1, sizeof *group_size);
    gspan *gs = calloc(ngroups ? ngroups : 1, sizeof *gs);
    if (!ids || !ends_sorted || !group_ns || !group_size || !gs) {
        free(ids);
        free(ends_sorted);
        free(group_ns);
        free(group_size);
        free(gs);
        goto oom;
    }
    for (size_t i = 0; i < n; i++)
        ids[i] = (idref){it[i].id, i};
    qsort(ids, n, sizeof *ids, cmp_idref);
    size_t nends = 0;
    for (size_t i = 0; i < ngroups; i++)
        if (ends[i].id)
            ends_sorted[nends++] = ends[i];
    qsort(ends_sorted, nends, sizeof *ends_sorted, cmp_idref);
    for (size_t k = 0; g && k < g->n_kernels; k++)
        charge(tl->kernel_hooked[k], g->kernels[k].start_ns, g->kernels[k].end_ns, g->kernels[k].device,
               it, ids, n, ends_sorted, nends, group_ns, gs);
    for (size_t k = 0; g && k < g->n_copies; k++)
        charge(tl->copy_hooked[k], g->copies[k].start_ns, g->copies[k].end_ns, g->copies[k].device,
               it, ids, n, ends_sorted, nends, group_ns, gs);
    for (size_t i = 0; i < n; i++)   /* a call in a group shows its group's span */
        if (it[i].group && !it[i].end && gs[it[i].group - 1].end) {
            it[i].start = gs[it[i].group - 1].start;
            it[i].end = gs[it[i].group - 1].end;
            it[i].device = gs[it[i].group - 1].device;
        }
    free(gs);
    /* a group's time, shared by its calls' sizes */
    for (size_t i = 0; i < n; i++)
        if (it[i].group)
            group_size[it[i].group - 1] += it[i].size ? it[i].size : 1;
    for (size_t i = 0; i < n; i++)
        if (it[i].group && group_size[it[i].group - 1])
            it[i].gpu += (uint64_t)((double)group_ns[it[i].group - 1] * (double)(it[i].size ? it[i].size : 1) /
                                    (double)group_size[it[i].group - 1]);
    free(ids);
    free(ends_sorted);
    free(group_ns);
    free(group_size);
    free(ends);
    ends = NULL;
    /* the calls in order, each with its communicator's sequence number */
    c->by_call = calloc(n, sizeof *c->by_call);
    if (!c->by_call)
        goto oom;
    c->ncalls = n;
    for (size_t i = 0; i < n; i++)
        c->by_call[it[i].order] = (cuprof_coll_call){it[i].id, it[i].op, cuprof_nccl_dtype_name(it[i].dtype),
                                                   it[i].algo, it[i].comm, it[i].rank, it[i].nranks, 0, it[i].size,
                                                   it[i].start, it[i].end, it[i].device, it[i].host_start,
                                                   it[i].host_end};
    for (size_t i = 0; i < n; i++) {
        uint64_t seq = 0;   /* calls on the same communicator (and rank: one process may
                               hold several, ncclCommInitAll) before it */
        for (size_t k = i; k-- > 0 && seq < UINT64_MAX;)
            if (c->by_call[k].comm == c->by_call[i].comm && c->by_call[k].rank == c->by_call[i].rank) {
                seq = c->by_call[k].seq + 1;
                break;
            }
        c->by_call[i].seq = seq;
    }
    /* rows */
    qsort(it, n, sizeof *it, cmp_item);
    c->rows = calloc(n, sizeof *c->rows);
    if (!c->rows)
        goto oom;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && !strcmp(it[j].op, it[i].op) && it[j].dtype == it[i].dtype &&
               it[j].size == it[i].size && it[j].nranks == it[i].nranks && !strcmp(it[j].algo, it[i].algo))
            j++;
        cuprof_coll_row *r = &c->rows[c->nrows++];
        r->op = it[i].op;
        r->dtype = cuprof_nccl_dtype_name(it[i].dtype);
        r->algo = it[i].algo;
        r->size = it[i].size;
        r->nranks = it[i].nranks;
        r->calls = j - i;
        for (size_t k = i; k < j; k++)   /* sorted by GPU time within the row */
            r->gpu_total_ns += it[k].gpu;
        r->gpu_min_ns = it[i].gpu;
        r->gpu_max_ns = it[j - 1].gpu;
        r->gpu_median_ns = it[i + (j - i) / 2].gpu;
        if (r->gpu_median_ns) {
            r->algbw_gbps = (double)r->size / (double)r->gpu_median_ns;
            r->busbw_gbps = r->algbw_gbps * cuprof_coll_bus_factor(r->op, r->nranks);
        }
        i = j;
    }
    qsort(c->rows, c->nrows, sizeof *c->rows, cmp_row);
    free(it);
    return c;
oom:
    free(ends);
    free(galgo);
    free(it);
    cuprof_collectives_destroy(c);
    return NULL;
}

void cuprof_collectives_destroy(cuprof_collectives *c)
{
    if (!c)
        return;
    free(c->rows);
    free(c->by_call);
    free(c->step_exposed_ns);
    free(c);
}
