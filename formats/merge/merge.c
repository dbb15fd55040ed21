/*
 * merge.c - reading the ranks' files, putting them on one time axis, and
 * matching the collectives where they meet (merge.h).
 *
 * Clocks. Every time in a rank's files is its CLOCK_MONOTONIC. Ranks with
 * the same boot id (same host, same boot) share that clock: their times are
 * used as they are, with no error. Ranks of other hosts are first placed by
 * CLOCK_REALTIME, read next to CLOCK_MONOTONIC at start and end (so off by
 * what the hosts' real-time clocks disagree: NTP keeps that to about a
 * millisecond or less), then refined where the ranks are known to meet:
 * a collective returns on every rank at nearly the same moment (when the
 * last rank has arrived), so for each host the median difference between
 * its ranks' ends of the same collective calls and the first host's is its
 * correction (the median: a rank the scheduler held back returns late, and
 * one such match must not move a host). The estimated error is half the
 * interquartile range of those differences (how far a typical match is
 * from the correction: it includes how unevenly the collective releases
 * the ranks, microseconds on an idle host, milliseconds on an overloaded
 * one); without collectives it is the drift between the start and end
 * pairs, and the method says the realtime clocks were trusted as they are.
 */
#include "formats/merge/merge.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

uint64_t mg_median(uint64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_u64);
    return v[(n - 1) / 2];
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static int64_t median_i64(int64_t *v, size_t n)
{
    if (n == 0)
        return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    return v[(n - 1) / 2];
}

/* ---- reading ------------------------------------------------------------- */

static int cmp_rank(const void *a, const void *b)
{
    const mg_rank *x = a, *y = b;
    return (x->rank > y->rank) - (x->rank < y->rank);
}

static uint64_t u64_at(json_t *o, const char *k)
{
    json_t *v = json_object_get(o, k);
    return json_is_integer(v) && json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
}

static const char *str_at(json_t *o, const char *k)
{
    const char *s = json_string_value(json_object_get(o, k));
    return s ? s : "";
}

static int cmp_coll(const void *a, const void *b)
{
    const mg_coll *x = a, *y = b;
    return (x->start > y->start) - (x->start < y->start);
}

static int64_t ns_of(json_t *v)
{
    return llround(json_number_value(v) * 1000.0);
}

/* 1 for an MPI collective's event, 2 for an NCCL collective's (the
 * point-to-point calls meet two ranks, not all: not meetings), 0 else. */
static int coll_kind(json_t *ev)
{
    static const char *const nccl[] = {"ncclAllReduce", "ncclBroadcast", "ncclBcast", "ncclReduce",
                                       "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll",
                                       "ncclGather", "ncclScatter"};
    const char *cat = json_string_value(json_object_get(ev, "cat"));
    if (!cat || strcmp(str_at(ev, "ph"), "X"))
        return 0;
    if (!strcmp(cat, "mpi"))
        return 1;
    if (strcmp(cat, "nccl"))
        return 0;
    const char *name = str_at(ev, "name");
    for (size_t k = 0; k < sizeof nccl / sizeof nccl[0]; k++)
        if (!strcmp(name, nccl[k]))
            return 2;
    return 0;
}

/* The name an NCCL call meets under: its own and its communicator's (the
 * same id on every rank: collector's hash of the ncclUniqueId), kept once
 * per rank; NULL without memory. */
static const char *nccl_key(mg_rank *r, json_t *ev)
{
    const char *comm = json_string_value(json_object_get(json_object_get(ev, "args"), "comm"));
    char key[256];
    snprintf(key, sizeof key, "%s on comm %s", str_at(ev, "name"), comm ? comm : "?");
    for (size_t k = 0; k < r->nkeys; k++)
        if (!strcmp(r->keys[k], key))
            return r->keys[k];
    char **nk = realloc(r->keys, (r->nkeys + 1) * sizeof *nk);
    if (!nk)
        return NULL;
    r->keys = nk;
    if (!(r->keys[r->nkeys] = strdup(key)))
        return NULL;
    return r->keys[r->nkeys++];
}

/* A point of the trace: a flow's start or end, or a kernel (end in v). */
typedef struct mg_point {
    int64_t tid;
    uint64_t ts, v;            /* v: the flow's id, or the kernel's end */
} mg_point;

static int cmp_point(const void *a, const void *b)
{
    const mg_point *x = a, *y = b;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    return (x->ts > y->ts) - (x->ts < y->ts);
}

static int cmp_point_id(const void *a, const void *b)
{
    const mg_point *x = a, *y = b;
    return (x->v > y->v) - (x->v < y->v);
}

/* Each NCCL call's gpu_end: the latest end of the kernels whose launch
 * arrows (flows "s" on its thread within its span, "f" at the kernel)
 * start inside it. Out of memory: left 0. */
static void nccl_kernel_ends(mg_rank *r, json_t *evs)
{
    size_t i, ns = 0, nf = 0, nk = 0, n = json_array_size(evs);
    json_t *ev;
    mg_point *s = malloc((n + 1) * sizeof *s), *f = malloc((n + 1) * sizeof *f), *k = malloc((n + 1) * sizeof *k);
    if (!s || !f || !k)
        goto out;
    json_array_foreach(evs, i, ev) {
        const char *ph = str_at(ev, "ph"), *cat = str_at(ev, "cat");
        mg_point p = {json_integer_value(json_object_get(ev, "tid")),
                      r->base_ns + (uint64_t)ns_of(json_object_get(ev, "ts")), 0};
        if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
            p.v = (uint64_t)json_integer_value(json_object_get(ev, "id"));
            if (ph[0] == 's')
                s[ns++] = p;
            else
                f[nf++] = p;
        } else if (!strcmp(ph, "X") && !strcmp(cat, "kernel")) {
            p.v = p.ts + (uint64_t)ns_of(json_object_get(ev, "dur"));
            k[nk++] = p;
        }
    }
    qsort(s, ns, sizeof *s, cmp_point);
    qsort(f, nf, sizeof *f, cmp_point_id);
    qsort(k, nk, sizeof *k, cmp_point);
    for (size_t c = 0; c < r->ncoll; c++) {
        mg_coll *x = &r->coll[c];
        if (!x->async)
            continue;
        size_t lo = 0, hi = ns;   /* the first flow start at or after the call's */
        mg_point key = {x->tid, x->start, 0};
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (cmp_point(&s[mid], &key) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        for (size_t j = lo; j < ns && s[j].tid == x->tid && s[j].ts <= x->end; j++) {
            mg_point *to = bsearch(&s[j], f, nf, sizeof *f, cmp_point_id);
            mg_point *kern = to ? bsearch(to, k, nk, sizeof *k, cmp_point) : NULL;
            if (kern && kern->v > x->gpu_end)
                x->gpu_end = kern->v;
        }
    }
out:
    free(s);
    free(f);
    free(k);
}

/* The rank's collective calls (MPI's and NCCL's) from its trace, in start
 * order. */
static int index_collectives(mg_rank *r);

static int read_collectives(mg_rank *r)
{
    json_t *evs = json_object_get(r->trace, "traceEvents"), *ev;
    size_t i, n = 0;
    json_array_foreach(evs, i, ev)
        n += coll_kind(ev) != 0;
    r->coll = calloc(n ? n : 1, sizeof *r->coll);
    if (!r->coll)
        return -1;
    json_array_foreach(evs, i, ev) {
        int kind = coll_kind(ev);
        if (!kind)
            continue;
        mg_coll *c = &r->coll[r->ncoll++];
        c->name = kind == 2 ? nccl_key(r, ev) : str_at(ev, "name");
        if (!c->name)
            return -1;
        c->start = r->base_ns + (uint64_t)ns_of(json_object_get(ev, "ts"));
        c->end = c->start + (uint64_t)ns_of(json_object_get(ev, "dur"));
        c->async = kind == 2;
        c->tid = json_integer_value(json_object_get(ev, "tid"));
        if (kind == 1)
            r->mpi_ns += c->end - c->start;
    }
    nccl_kernel_ends(r, evs);
    return index_collectives(r);
}

/* Indexes r->coll by name (the i-th call of a collective is one index
 * away), after sorting it by start. */
static int index_collectives(mg_rank *r)
{
    qsort(r->coll, r->ncoll, sizeof *r->coll, cmp_coll);
    r->by_name = calloc(r->ncoll ? r->ncoll : 1, sizeof *r->by_name);
    if (!r->by_name)
        return -1;
    for (size_t k = 0; k < r->ncoll; k++) {
        size_t q = 0;
        while (q < r->nnames && strcmp(r->by_name[q].name, r->coll[k].name) != 0)
            q++;
        if (q == r->nnames) {
            r->by_name[q].name = r->coll[k].name;
            r->by_name[q].at = malloc(r->ncoll * sizeof *r->by_name[q].at);
            if (!r->by_name[q].at)
                return -1;
            r->nnames++;
        }
        r->coll[k].occ = r->by_name[q].n;
        r->by_name[q].at[r->by_name[q].n++] = k;
    }
    return 0;
}

/* The NCCL calls from summary.json's collectives.call_list (rows of
 * op, comm, seq, start_ns, end_ns, gpu_end_ns): what the merge needs of a
 * rank without reading its trace. 1 when the summary has them, 0 when not
 * (an older file: the trace is read), -1 out of memory. */
static int summary_collectives(mg_rank *r)
{
    json_t *list = json_object_get(json_object_get(r->summary, "collectives"), "call_list"), *row;
    if (!json_is_array(list))
        return 0;
    size_t i;
    json_array_foreach(json_object_get(r->summary, "api"), i, row)   /* MPI's are in the trace only */
        if (!strcmp(str_at(row, "category"), "mpi") && u64_at(row, "calls"))
            return 0;
    size_t n = json_array_size(list);
    r->coll = calloc(n ? n : 1, sizeof *r->coll);
    if (!r->coll)
        return -1;
    json_array_foreach(list, i, row) {
        char key[256];
        snprintf(key, sizeof key, "nccl%s on comm %s", json_string_value(json_array_get(row, 0)) ?
                 json_string_value(json_array_get(row, 0)) : "?", json_string_value(json_array_get(row, 1)) ?
                 json_string_value(json_array_get(row, 1)) : "?");
        const char *name = NULL;
        for (size_t k = 0; k < r->nkeys && !name; k++)
            if (!strcmp(r->keys[k], key))
                name = r->keys[k];
        if (!name) {
            char **nk = realloc(r->keys, (r->nkeys + 1) * sizeof *nk);
            if (!nk || !(nk[r->nkeys] = strdup(key))) {
                if (nk)
                    r->keys = nk;
                return -1;
            }
            r->keys = nk;
            name = r->keys[r->nkeys++];
        }
        mg_coll *c = &r->coll[r->ncoll++];
        c->name = name;
        c->start = (uint64_t)json_integer_value(json_array_get(row, 3));
        c->end = (uint64_t)json_integer_value(json_array_get(row, 4));
        c->gpu_end = (uint64_t)json_integer_value(json_array_get(row, 5));
        c->async = 1;
    }
    return index_collectives(r) < 0 ? -1 : 1;
}

/* What the merge does not read of a summary, dropped once it is read: at a
 * thousand ranks the kept summaries are most of the merge's memory. */
static void trim_summary(json_t *s)
{
    static const char *const drop[] = {"argv", "threads", "overhead", "gpu_timeline", "device", "memory",
                                       "graphs", "launch_census", "copies", "blas", "math", "ranges",
                                       "findings", "sites", "capture"};
    for (size_t k = 0; k < sizeof drop / sizeof drop[0]; k++)
        json_object_del(s, drop[k]);
    json_object_del(json_object_get(s, "collectives"), "call_list");
    json_object_del(json_object_get(s, "collectives"), "rows");
}

int mg_read_trace(mg_rank *r, int collectives, char *err, size_t errlen)
{
    if (r->trace || !r->trace_path)
        return 0;
    json_error_t je;
    r->trace = json_load_file(r->trace_path, 0, &je);
    if (!r->trace || !json_is_array(json_object_get(r->trace, "traceEvents"))) {
        snprintf(err, errlen, "%s: not a trace (%s)", r->trace_path, r->trace ? "no traceEvents" : je.text);
        return -1;
    }
    r->base_ns = u64_at(r->trace, "baseTimeNanoseconds");
    if (collectives && read_collectives(r) < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    return 0;
}

static int load_rank(mg_rank *r, const char *dir, const char *name, char *err, size_t errlen)
{
    size_t len = strlen(dir) + strlen(name) + 64;
    r->summary_path = malloc(len);
    r->trace_path = malloc(len);
    if (!r->summary_path || !r->trace_path) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    char w[32] = "";
    if (r->window)
        snprintf(w, sizeof w, ".w%lu", r->window);
    snprintf(r->summary_path, len, "%s/%s.rank%d%s.summary.json", dir, name, r->rank, w);
    snprintf(r->trace_path, len, "%s/%s.rank%d%s.trace.json", dir, name, r->rank, w);
    json_error_t je;
    r->summary = json_load_file(r->summary_path, 0, &je);
    if (!r->summary || strcmp(str_at(r->summary, "schema"), "cuprof.summary/1") != 0) {
        snprintf(err, errlen, "%s is not a cuprof summary (%s); merge the files cuprof wrote",
                 r->summary_path, r->summary ? "another schema" : je.text);
        return -1;
    }
    json_t *d = json_object_get(r->summary, "distributed");
    json_t *rk = json_object_get(d, "rank");
    if (!d || json_integer_value(rk) != r->rank) {
        snprintf(err, errlen, "%s does not say it is rank %d (written by an older cuprof?)",
                 r->summary_path, r->rank);
        return -1;
    }
    r->pid = (long)json_integer_value(json_object_get(r->summary, "pid"));
    r->program = str_at(r->summary, "program");
    r->host = json_string_value(json_object_get(d, "host")) ? str_at(d, "host") : "";
    r->boot_id = json_string_value(json_object_get(d, "boot_id")) ? str_at(d, "boot_id") : "";
    json_t *ck = json_object_get(d, "clocks");
    r->mono_start = u64_at(ck, "monotonic_start_ns");
    r->real_start = u64_at(ck, "realtime_start_ns");
    r->mono_end = u64_at(ck, "monotonic_end_ns");
    r->real_end = u64_at(ck, "realtime_end_ns");
    r->wall_ns = u64_at(r->summary, "wall_ns");
    /* a window's files (NAME.rankR.wN): its numbers cover the window, and so
     * does its wall time (the summary's wall_ns is the whole process's) */
    uint64_t window_ns = u64_at(json_object_get(r->summary, "capture"), "recorded_ns");
    if (r->window && window_ns)
        r->wall_ns = window_ns;
    r->self_cpu_ns = u64_at(r->summary, "self_cpu_total_ns");
    /* busy, less the time its GPU only waited in NCCL kernels for the other
     * ranks (a straggler's peers are not the ones with more work) */
    r->gpu_busy_ns = u64_at(json_object_get(r->summary, "gpu"), "busy_ns");
    uint64_t exposed = u64_at(json_object_get(r->summary, "collectives"), "exposed_ns");
    r->gpu_busy_ns -= exposed < r->gpu_busy_ns ? exposed : r->gpu_busy_ns;
    struct stat st;
    if (stat(r->trace_path, &st) != 0) {
        free(r->trace_path);
        r->trace_path = NULL;
    }
    int from_summary = summary_collectives(r);
    if (from_summary < 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    trim_summary(r->summary);
    /* an older summary without its calls: the trace has them */
    return from_summary ? 0 : mg_read_trace(r, 1, err, errlen);
}

int mg_load(mg_run *m, const char *dir, const char *name, long window, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->world_size = -1;
    if (mg_pick_files(m, dir, name, window, err, errlen) < 0)
        return -1;
    qsort(m->r, m->n, sizeof *m->r, cmp_rank);
    for (size_t i = 0; i + 1 < m->n; i++)
        if (m->r[i].rank == m->r[i + 1].rank) {
            snprintf(err, errlen, "two files for rank %d in %s", m->r[i].rank, dir);
            return -1;
        }
    for (size_t i = 0; i < m->n; i++)
        if (load_rank(&m->r[i], dir, m->name, err, errlen) < 0)
            return -1;
    for (size_t i = 0; i < m->n; i++) {
        json_t *w = json_object_get(json_object_get(m->r[i].summary, "distributed"), "world_size");
        if (json_integer_value(w) > m->world_size)
            m->world_size = (int)json_integer_value(w);
    }
    return 0;
}

/* ---- clocks ---------------------------------------------------------------- */

static const mg_calls *calls_of(const mg_rank *r, const char *name)
{
    for (size_t q = 0; q < r->nnames; q++)
        if (!strcmp(r->by_name[q].name, name))
            return &r->by_name[q];
    return NULL;
}

/* The i-th call of `name` on r, or NULL. */
static const mg_coll *nth_call(const mg_rank *r, const char *name, size_t i)
{
    const mg_calls *c = calls_of(r, name);
    return c && i < c->n ? &r->coll[c->at[i]] : NULL;
}

static size_t count_calls(const mg_rank *r, const char *name)
{
    const mg_calls *c = calls_of(r, name);
    return c ? c->n : 0;
}

/* Which call of its name r->coll[k] is (0 = the first). */
static size_t occurrence(const mg_rank *r, size_t k)
{
    return r->coll[k].occ;
}

/* 1 when every rank made an i-th call of name. */
static int all_called(const mg_run *m, const char *name, size_t i)
{
    for (size_t j = 0; j < m->n; j++)
        if (!nth_call(&m->r[j], name, i))
            return 0;
    return 1;
}

/* Where a call meets the other ranks' on its rank's clock: a blocking
 * collective's end, an NCCL call's kernels' end; 0 none. */
static uint64_t meet_end(const mg_coll *c)
{
    return c->async ? c->gpu_end : c->end;
}

/* 1 when every rank made an i-th call of name, each with a meeting point. */
static int all_met(const mg_run *m, const char *name, size_t i)
{
    for (size_t j = 0; j < m->n; j++) {
        const mg_coll *c = nth_call(&m->r[j], name, i);
        if (!c || !meet_end(c))
            return 0;
    }
    return 1;
}

/* realtime - monotonic of a rank: the mean of its start and end pairs. */
static int64_t real_minus_mono(const mg_rank *r)
{
    int64_t a = (int64_t)(r->real_start - r->mono_start);
    if (!r->mono_end || !r->real_end)
        return a;
    int64_t b = (int64_t)(r->real_end - r->mono_end);
    return a + (b - a) / 2;
}

void mg_align(mg_run *m)
{
    int *group = calloc(m->n ? m->n : 1, sizeof *group);
    int ngroups = 0;
    for (size_t i = 0; group && i < m->n; i++) {
        group[i] = -1;
        for (size_t j = 0; j < i && group[i] < 0; j++)
            if (m->r[i].boot_id[0] && !strcmp(m->r[i].boot_id, m->r[j].boot_id))
                group[i] = group[j];
        if (group[i] < 0)
            group[i] = ngroups++;
    }
    for (size_t i = 0; i < m->n; i++)
        m->r[i].offset_ns = 0;
    m->error_ns = 0;
    m->refined_by = 0;
    if (!group || ngroups <= 1) {
        m->method = "CLOCK_MONOTONIC: every rank on one host (same boot id), no correction needed";
        free(group);
        return;
    }
    /* Realtime first: group g's offset = its ranks' median (real - mono),
     * less group 0's, so group 0 keeps its own clock. */
    int64_t *v = calloc(m->n, sizeof *v), *g_off = calloc((size_t)ngroups, sizeof *g_off);
    uint64_t drift = 0;
    for (int g = 0; v && g_off && g < ngroups; g++) {
        size_t k = 0;
        for (size_t i = 0; i < m->n; i++)
            if (group[i] == g) {
                v[k++] = real_minus_mono(&m->r[i]);
                if (m->r[i].mono_end && m->r[i].real_end) {
                    int64_t a = (int64_t)(m->r[i].real_start - m->r[i].mono_start);
                    int64_t b = (int64_t)(m->r[i].real_end - m->r[i].mono_end);
                    uint64_t d = (uint64_t)llabs(b - a);
                    drift = d > drift ? d : drift;
                }
            }
        g_off[g] = median_i64(v, k);
    }
    for (int g = ngroups - 1; g_off && g >= 0; g--)
        g_off[g] -= g_off[0];
    /* Refined by the collectives' ends: each group's median end of each
     * matched call against group 0's (a blocking collective's return, an
     * NCCL collective's kernels' end). */
    const mg_rank *r0 = &m->r[0];
    size_t nmatch = 0;
    for (size_t k = 0; k < r0->ncoll; k++)
        nmatch += all_met(m, r0->coll[k].name, occurrence(r0, k));
    uint64_t err = drift;
    if (nmatch > 0 && v && g_off) {
        int64_t *res = calloc(nmatch, sizeof *res);
        int64_t *ends = calloc(m->n, sizeof *ends);
        uint64_t worst = 0;
        for (int g = 1; res && ends && g < ngroups; g++) {
            size_t nr = 0;
            for (size_t k = 0; k < r0->ncoll; k++) {
                size_t i = occurrence(r0, k), n0 = 0, ng = 0;
                if (!all_met(m, r0->coll[k].name, i))
                    continue;
                for (size_t j = 0; j < m->n; j++)
                    if (group[j] == 0)
                        ends[n0++] = (int64_t)meet_end(nth_call(&m->r[j], r0->coll[k].name, i));
                int64_t e0 = median_i64(ends, n0);
                for (size_t j = 0; j < m->n; j++)
                    if (group[j] == g)
                        ends[ng++] = (int64_t)meet_end(nth_call(&m->r[j], r0->coll[k].name, i)) + g_off[g];
                res[nr++] = e0 - median_i64(ends, ng);
            }
            int64_t corr = median_i64(res, nr);   /* sorts res */
            g_off[g] += corr;
            /* half the interquartile range of the matches */
            uint64_t spread = nr ? (uint64_t)(res[(3 * (nr - 1)) / 4] - res[(nr - 1) / 4]) / 2 : 0;
            worst = spread > worst ? spread : worst;
        }
        free(res);
        free(ends);
        err = worst;
        m->refined_by = nmatch;
        m->method = "CLOCK_REALTIME at start and end per host, refined by the ends of the collectives "
                    "the ranks share";
    } else {
        m->method = "CLOCK_REALTIME at start and end per host, as the hosts' clocks say (no collective "
                    "to refine it)";
    }
    for (size_t i = 0; g_off && i < m->n; i++)
        m->r[i].offset_ns = g_off[group[i]];
    m->error_ns = err;
    free(v);
    free(g_off);
    free(group);
}

/* ---- meetings -------------------------------------------------------------- */

void mg_meetings(mg_run *m)
{
    free(m->meets);
    free(m->arrivals);
    m->meets = NULL;
    m->arrivals = NULL;
    m->nmeets = 0;
    m->unmatched = 0;
    if (m->n < 2)
        return;
    const mg_rank *r0 = &m->r[0];
    size_t cap = r0->ncoll ? r0->ncoll : 1;
    m->meets = calloc(cap, sizeof *m->meets);
    m->arrivals = calloc(cap * m->n, sizeof *m->arrivals);
    uint64_t *others = calloc(m->n, sizeof *others);
    if (!m->meets || !m->arrivals || !others) {
        free(others);
        return;
    }
    for (size_t k = 0; k < r0->ncoll; k++) {
        const char *name = r0->coll[k].name;
        size_t i = occurrence(r0, k);
        if (i == 0)
            for (size_t j = 1; j < m->n; j++)
                m->unmatched |= count_calls(&m->r[j], name) != count_calls(r0, name);
        if (!all_called(m, name, i))
            continue;
        uint64_t *arr = &m->arrivals[m->nmeets * m->n];
        for (size_t j = 0; j < m->n; j++)
            arr[j] = (uint64_t)((int64_t)nth_call(&m->r[j], name, i)->start + m->r[j].offset_ns);
        size_t last = 0;
        for (size_t j = 1; j < m->n; j++)
            if (arr[j] > arr[last])
                last = j;
        size_t no = 0;
        uint64_t wait = 0;
        for (size_t j = 0; j < m->n; j++)
            if (j != last) {
                others[no++] = arr[j];
                wait += arr[last] - arr[j];
            }
        uint64_t med = mg_median(others, no);
        m->meets[m->nmeets++] = (mg_meet){name, i, (int)last, arr[last] - med, wait, arr};
    }
    free(others);
}

void mg_free(mg_run *m)
{
    for (size_t i = 0; i < m->n; i++) {
        json_decref(m->r[i].summary);
        json_decref(m->r[i].trace);
        free(m->r[i].summary_path);
        free(m->r[i].trace_path);
        free(m->r[i].coll);
        for (size_t q = 0; q < m->r[i].nnames; q++)
            free(m->r[i].by_name[q].at);
        free(m->r[i].by_name);
        for (size_t k = 0; k < m->r[i].nkeys; k++)
            free(m->r[i].keys[k]);
        free(m->r[i].keys);
    }
    free(m->r);
    for (size_t k = 0; k < m->nnotes; k++)
        free(m->notes[k]);
    free(m->notes);
    free(m->meets);
    free(m->arrivals);
    free(m->name);
    memset(m, 0, sizeof *m);
}
