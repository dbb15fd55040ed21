/* steps.c - see steps.h. */
#include "model/steps.h"
#include "model/summary.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* 1 when range r is named name (with or without "#N") in domain ("" the
 * default, "*" any). */
static int range_is(const cuprof_run *run, const cuprof_range *r, const char *name,
                    size_t nlen, const char *domain)
{
    const char *rn = cuprof_run_string(run, r->name);
    if (r->folded)   /* a library's range shown as its call (ranges.h) */
        return 0;
    if (cuprof_nvtx_base_len(rn) != nlen || strncmp(rn, name, nlen) != 0)
        return 0;
    return strcmp(domain, "*") == 0 || strcmp(cuprof_run_string(run, r->domain), domain) == 0;
}

/* How much a name looks like a step's: 3 ProfilerStep, 2 "step", 1 "iter". */
static int step_like(const char *name, size_t n)
{
    char low[256];
    if (n >= sizeof low)
        n = sizeof low - 1;
    for (size_t i = 0; i < n; i++)
        low[i] = (char)tolower((unsigned char)name[i]);
    low[n] = '\0';
    if (strcmp(low, "profilerstep") == 0)
        return 3;
    if (strstr(low, "step"))
        return 2;
    if (strstr(low, "iter"))
        return 1;
    return 0;
}

/* A (domain, name) of top-level ranges and how often it occurs. */
typedef struct name_count {
    uint32_t domain, name;
    const char *base;        /* the name's string, compared up to len */
    size_t len;              /* its length without "#N" */
    size_t count;
} name_count;

static int cmp_ids(const void *a, const void *b)
{
    const name_count *x = a, *y = b;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_base(const void *a, const void *b)
{
    const name_count *x = a, *y = b;
    if (x->domain != y->domain)
        return x->domain < y->domain ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = strncmp(x->base, y->base, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

/* The step range found by name (steps.h, rule 2): a representative (name,
 * domain) in *best, 0; -1 when none (or out of memory). O(n log n): the
 * top-level ranges are counted by id, then the ids by name without "#N". */
static int find_by_name(const cuprof_run *run, const cuprof_ranges *rg, name_count *best)
{
    name_count *v = malloc((rg->n ? rg->n : 1) * sizeof *v);
    if (!v)
        return -1;
    size_t n = 0;
    for (size_t k = 0; k < rg->n; k++)
        if ((rg->r[k].start_end || rg->r[k].parent < 0) && !rg->r[k].folded)   /* (a library's call) */
            v[n++] = (name_count){.domain = rg->r[k].domain, .name = rg->r[k].name, .count = 1};
    qsort(v, n, sizeof *v, cmp_ids);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && v[m - 1].domain == v[i].domain && v[m - 1].name == v[i].name) {
            v[m - 1].count++;
            continue;
        }
        v[m] = v[i];
        v[m].base = cuprof_run_string(run, v[i].name);
        v[m].len = cuprof_nvtx_base_len(v[m].base);
        m++;
    }
    qsort(v, m, sizeof *v, cmp_base);
    int best_like = 0;
    size_t best_count = 0;
    for (size_t i = 0; i < m;) {
        size_t j = i, count = 0;
        while (j < m && cmp_base(&v[i], &v[j]) == 0)
            count += v[j++].count;
        int like = step_like(v[i].base, v[i].len);
        if (like && count >= 2 &&
            (like > best_like || (like == best_like && count > best_count))) {
            *best = v[i];
            best_like = like;
            best_count = count;
        }
        i = j;
    }
    free(v);
    return best_like ? 0 : -1;
}

static int cmp_step(const void *a, const void *b)
{
    const cuprof_step *x = a, *y = b;
    return x->start_ns < y->start_ns ? -1 : x->start_ns > y->start_ns;
}

static int cmp_iv(const void *a, const void *b)
{
    const uint64_t *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* Every kernel and copy interval of g, merged: disjoint, in order (so their
 * ends increase too). Returns how many, -1 on out of memory. */
static long busy_merge(const cuprof_gpu_run *g, uint64_t (**out)[2])
{
    size_t n = 0, cap = g ? g->n_kernels + g->n_copies : 0;
    uint64_t (*iv)[2] = malloc((cap ? cap : 1) * sizeof *iv);
    if (!iv)
        return -1;
    for (size_t i = 0; g && i < g->n_kernels; i++)
        if (g->kernels[i].end_ns > g->kernels[i].start_ns)
            iv[n][0] = g->kernels[i].start_ns, iv[n][1] = g->kernels[i].end_ns, n++;
    for (size_t i = 0; g && i < g->n_copies; i++)
        if (g->copies[i].end_ns > g->copies[i].start_ns)
            iv[n][0] = g->copies[i].start_ns, iv[n][1] = g->copies[i].end_ns, n++;
    qsort(iv, n, sizeof *iv, cmp_iv);
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if (m && iv[i][0] <= iv[m - 1][1]) {
            if (iv[i][1] > iv[m - 1][1])
                iv[m - 1][1] = iv[i][1];
        } else {
            iv[m][0] = iv[i][0], iv[m][1] = iv[i][1], m++;
        }
    }
    *out = iv;
    return (long)m;
}

/* GPU busy time within [t0, t1) from the merged intervals m[0..n). */
static uint64_t busy_in(const uint64_t (*m)[2], size_t n, uint64_t t0, uint64_t t1)
{
    size_t lo = 0, hi = n;   /* first interval ending after t0 */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (m[mid][1] <= t0)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint64_t sum = 0;
    for (size_t i = lo; i < n && m[i][0] < t1; i++) {
        uint64_t a = m[i][0] > t0 ? m[i][0] : t0, b = m[i][1] < t1 ? m[i][1] : t1;
        sum += b > a ? b - a : 0;
    }
    return sum;
}

cuprof_steps *cuprof_steps_build(const cuprof_run *run, const cuprof_ranges *rg,
                                 const cuprof_timeline *tl)
{
    cuprof_steps *st = calloc(1, sizeof *st);
    if (!st)
        return NULL;
    if (!rg || rg->n == 0)
        return st;
    char nbuf[256] = "", dbuf[128] = "";
    if (run->step_range) {
        if (strlen(run->step_range) >= sizeof nbuf ||
            (run->step_domain && strlen(run->step_domain) >= sizeof dbuf))
            return st;
        strcpy(nbuf, run->step_range);
        strcpy(dbuf, run->step_domain ? run->step_domain : "");
        st->chosen_by = run->step_range_from ? run->step_range_from : "--step-range";
    } else {
        name_count best;
        if (find_by_name(run, rg, &best) < 0 || best.len >= sizeof nbuf)
            return st;
        memcpy(nbuf, best.base, best.len);
        nbuf[best.len] = '\0';
        snprintf(dbuf, sizeof dbuf, "%s", cuprof_run_string(run, best.domain));
        st->chosen_by = "its name";
    }
    size_t nlen = strlen(nbuf), count = 0;
    for (size_t k = 0; k < rg->n; k++)
        count += range_is(run, &rg->r[k], nbuf, nlen, dbuf);
    uint64_t (*iv)[2] = NULL;
    long niv = busy_merge(tl ? tl->gpu : NULL, &iv);
    st->s = calloc(count ? count : 1, sizeof *st->s);
    st->name = strdup(nbuf);
    st->domain = strdup(dbuf);
    if (!st->s || niv < 0 || !st->name || !st->domain) {
        free(iv);
        cuprof_steps_destroy(st);
        return NULL;
    }
    for (size_t k = 0; k < rg->n; k++) {
        const cuprof_range *r = &rg->r[k];
        if (!range_is(run, r, nbuf, nlen, dbuf))
            continue;
        cuprof_step *s = &st->s[st->n++];
        s->start_ns = r->t0;
        s->dur_ns = r->t1 > r->t0 ? r->t1 - r->t0 : 0;
        s->gpu_ns = r->gpu_ns;
        s->kernels = r->kernels;
    }
    qsort(st->s, st->n, sizeof *st->s, cmp_step);
    for (size_t i = 0; i < st->n; i++) {
        st->s[i].index = i + 1;
        st->s[i].busy_ns = busy_in((const uint64_t (*)[2])iv, (size_t)niv, st->s[i].start_ns,
                                   st->s[i].start_ns + st->s[i].dur_ns);
    }
    free(iv);
    if (st->n == 0) {   /* the range never occurred: no steps */
        free((void *)st->name);
        free((void *)st->domain);
        st->name = st->domain = NULL;
        st->chosen_by = NULL;
    }
    return st;
}

void cuprof_steps_destroy(cuprof_steps *st)
{
    if (!st)
        return;
    free(st->s);
    free((void *)st->name);
    free((void *)st->domain);
    free(st);
}

int cuprof_steps_summarize(const cuprof_steps *st, cuprof_summary *s)
{
    s->nsteps = 0;
    s->steps = NULL;
    if (!st || st->n == 0)
        return 0;
    uint64_t *v = malloc(st->n * sizeof *v);
    cuprof_stat_step *row = calloc(1, sizeof *row);
    if (!v || !row) {
        free(v);
        free(row);
        return -1;
    }
    row->name = st->name;
    row->domain = st->domain;
    row->chosen_by = st->chosen_by;
    row->steps = st->n;
    row->first_ns = st->s[0].dur_ns;
    row->min_ns = UINT64_MAX;
    for (size_t i = 0; i < st->n; i++) {
        v[i] = st->s[i].dur_ns;
        if (v[i] < row->min_ns) row->min_ns = v[i];
        if (v[i] > row->max_ns) row->max_ns = v[i];
    }
    row->median_ns = cuprof_median_u64(v, st->n);
    for (size_t i = 1; i < st->n; i++)
        v[i - 1] = st->s[i].dur_ns;
    row->steady_median_ns = cuprof_median_u64(v, st->n - 1);
    for (size_t i = 0; i < st->n; i++)
        v[i] = st->s[i].gpu_ns;
    row->gpu_median_ns = cuprof_median_u64(v, st->n);
    /* busy shares in millionths, for an exact median of integers */
    for (size_t i = 0; i < st->n; i++)
        v[i] = st->s[i].dur_ns ? st->s[i].busy_ns * 1000000u / st->s[i].dur_ns : 0;
    row->busy_median = (double)cuprof_median_u64(v, st->n) / 1e6;
    free(v);
    s->steps = row;
    s->nsteps = 1;
    return 0;
}
