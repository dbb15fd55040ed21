/* compare.c - builds the comparison model: metrics and rows by name; see
 * compare.h. Run names and the plain-words differences: compare_diff.c. */
#include "formats/compare/compare.h"
#include "formats/compare/compare_int.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* Sums saturate: a hostile or corrupt file may hold INT64_MAX in every row. */
static int64_t sat_add(int64_t a, int64_t b)
{
    return a > INT64_MAX - b ? INT64_MAX : a + b;
}

static void put(cmp_series *s, size_t r, int64_t v)
{
    if (r >= CMP_MAX_RUNS)
        return;   /* callers stay below; the sanitizer build cannot tell */
    s->v[r] = v;
    s->has |= 1u << r;
}

/* Marks run r's median in s approximate when its summary said so. */
static void mark_sketched(compare *c, cmp_series *s, size_t r, bool sketched)
{
    if (!sketched || r >= CMP_MAX_RUNS)
        return;
    s->sketched |= 1u << r;
    c->sketched = true;
}

static void add(cmp_series *s, size_t r, int64_t v)
{
    if (r >= CMP_MAX_RUNS)
        return;
    s->v[r] = (s->has & (1u << r)) ? sat_add(s->v[r], v) : v;
    s->has |= 1u << r;
}

char *cmp_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s)
        return NULL;
    va_start(ap, fmt);
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return s;
}

/* Grows *v (of *n elements of size sz) by one zeroed element; NULL on OOM. */
void *cmp_push(void **v, size_t *n, size_t sz)
{
    /* Capacity is 4, then the next power of two: amortized O(1) without a
     * capacity field. */
    if (*n == 0 || (*n >= 4 && (*n & (*n - 1)) == 0)) {
        size_t cap = *n ? *n * 2 : 4;
        void *nv = realloc(*v, cap * sz);
        if (!nv)
            return NULL;
        *v = nv;
    }
    void *e = (char *)*v + *n * sz;
    memset(e, 0, sz);
    (*n)++;
    return e;
}

/* ---- overview and per-iteration metrics ---- */

static cmp_metric *metric(cmp_metric *v, size_t *n, const char *key, const char *label,
                          cmp_unit unit)
{
    cmp_metric *m = &v[(*n)++];
    m->key = key;
    m->label = label;
    m->unit = unit;
    return m;
}

static void build_overview(compare *c)
{
    cmp_metric *wall = metric(c->overview, &c->n_overview, "wall_ns", "wall time", CMP_NS);
    cmp_metric *cpu = metric(c->overview, &c->n_overview, "cpu_in_cuda_calls_ns",
                             "CPU time in CUDA calls", CMP_NS);
    cmp_metric *busy = metric(c->overview, &c->n_overview, "gpu_busy_ns", "GPU busy time", CMP_NS);
    cmp_metric *idle = metric(c->overview, &c->n_overview, "gpu_idle_share", "GPU idle share",
                              CMP_PPM);
    cmp_metric *lat = metric(c->overview, &c->n_overview, "launch_latency_median_ns",
                             "launch latency (median)", CMP_NS);
    cmp_metric *launch = metric(c->overview, &c->n_overview, "kernel_launches",
                                "kernel launches", CMP_COUNT);
    cmp_metric *ktime = metric(c->overview, &c->n_overview, "kernel_gpu_total_ns",
                               "GPU time in kernels", CMP_NS);
    for (size_t r = 0; r < c->n_runs; r++) {
        const summary *s = c->runs[r];
        put(&wall->s, r, s->wall_ns);
        put(&cpu->s, r, 0);
        for (size_t i = 0; i < s->n_api; i++)
            add(&cpu->s, r, s->api[i].cpu_self_ns);
        put(&launch->s, r, 0);
        if (s->gpu_captured)
            put(&ktime->s, r, 0);
        for (size_t i = 0; i < s->n_kernels; i++) {
            add(&launch->s, r, s->kernels[i].launches);
            if (s->gpu_captured)
                add(&ktime->s, r, s->kernels[i].gpu_total_ns);
        }
        if (s->gpu.has_busy_ns)
            put(&busy->s, r, s->gpu.busy_ns);
        if (s->gpu.has_idle_share)
            put(&idle->s, r, (int64_t)(s->gpu.idle_share * 1e6 + 0.5));
        if (s->gpu.has_launch_latency_median_ns) {
            put(&lat->s, r, s->gpu.launch_latency_median_ns);
            mark_sketched(c, &lat->s, r, s->gpu.launch_latency_median_sketched);
        }
    }
}

static int build_per_iteration(compare *c)
{
    int64_t it = c->runs[0]->iterations;
    bool all = true, same = true;
    for (size_t r = 0; r < c->n_runs; r++) {
        all &= c->runs[r]->has_iterations;
        same &= c->runs[r]->iterations == it;
    }
    if (!all || !same) {
        bool any = false;
        for (size_t r = 0; r < c->n_runs; r++)
            any |= c->runs[r]->has_iterations;
        if (any && !(c->iteration_note = strdup(!all ? "not every run says how many iterations it ran"
                                                     : "the runs ran different numbers of iterations")))
            return -1;
        return 0;
    }
    c->per_iteration = true;
    c->iterations = it;
    /* Divide what the overview summed; launches keep three decimals. */
    static const struct { size_t from; const char *key, *label; } pick[] = {
        {0, "wall_ns", "wall time / iteration"},
        {1, "cpu_in_cuda_calls_ns", "CPU in CUDA calls / iteration"},
        {2, "gpu_busy_ns", "GPU busy / iteration"},
        {5, "kernel_launches", "kernel launches / iteration"},
    };
    for (size_t i = 0; i < sizeof pick / sizeof pick[0]; i++) {
        const cmp_metric *src = &c->overview[pick[i].from];
        bool count = src->unit == CMP_COUNT;
        cmp_metric *m = metric(c->per_iter, &c->n_per_iter, pick[i].key, pick[i].label,
                               count ? CMP_MILLI : CMP_NS);
        for (size_t r = 0; r < c->n_runs; r++) {
            if (!(src->s.has & (1u << r)))
                continue;
            double v = (double)src->s.v[r] * (count ? 1000.0 : 1.0) / (double)it;
            put(&m->s, r, v >= 9.2e18 ? INT64_MAX : (int64_t)(v + 0.5));
        }
    }
    return 0;
}

/* ---- rows by name: the union over all runs ---- */

static cmp_api_row *api_row(compare *c, const char *name)
{
    for (size_t i = 0; i < c->n_api; i++)
        if (strcmp(c->api[i].name, name) == 0)
            return &c->api[i];
    cmp_api_row *row = cmp_push((void **)&c->api, &c->n_api, sizeof *row);
    if (row)
        row->name = name;
    return row;
}

static cmp_kernel_row *kernel_row(compare *c, const char *name)
{
    for (size_t i = 0; i < c->n_kernels; i++)
        if (strcmp(c->kernels[i].name, name) == 0)
            return &c->kernels[i];
    cmp_kernel_row *row = cmp_push((void **)&c->kernels, &c->n_kernels, sizeof *row);
    if (row)
        row->name = name;
    return row;
}

static cmp_copy_row *copy_row(compare *c, const char *kind)
{
    for (size_t i = 0; i < c->n_copies; i++)
        if (strcmp(c->copies[i].kind, kind) == 0)
            return &c->copies[i];
    cmp_copy_row *row = cmp_push((void **)&c->copies, &c->n_copies, sizeof *row);
    if (row)
        row->kind = kind;
    return row;
}

static cmp_blas_row *blas_row(compare *c, const char *name)
{
    for (size_t i = 0; i < c->n_blas; i++)
        if (strcmp(c->blas[i].name, name) == 0)
            return &c->blas[i];
    cmp_blas_row *row = cmp_push((void **)&c->blas, &c->n_blas, sizeof *row);
    if (row)
        row->name = name;
    return row;
}

static cmp_shape_row *shape_row(compare *c, const char *blas, const cuprof_stat_shape *sh)
{
    for (size_t i = 0; i < c->n_shapes; i++) {
        cmp_shape_row *x = &c->shapes[i];
        if (strcmp(x->blas, blas) == 0 && x->m == sh->m && x->n == sh->n && x->k == sh->k &&
            x->batch == sh->batch && strcmp(x->dtype, sh->dtype) == 0 &&
            strcmp(x->epilogue, sh->epilogue) == 0)
            return x;
    }
    cmp_shape_row *row = cmp_push((void **)&c->shapes, &c->n_shapes, sizeof *row);
    if (row) {
        row->blas = blas;
        row->m = sh->m, row->n = sh->n, row->k = sh->k, row->batch = sh->batch;
        row->dtype = sh->dtype;
        row->epilogue = sh->epilogue;
    }
    return row;
}

static cmp_finding_row *finding_row(compare *c, const char *rule)
{
    for (size_t i = 0; i < c->n_findings; i++)
        if (strcmp(c->findings[i].rule, rule) == 0)
            return &c->findings[i];
    cmp_finding_row *row = cmp_push((void **)&c->findings, &c->n_findings, sizeof *row);
    if (row)
        row->rule = rule;
    return row;
}

static cmp_range_row *range_row(compare *c, const cuprof_stat_range *x)
{
    for (size_t i = 0; i < c->n_ranges; i++)
        if (strcmp(c->ranges[i].name, x->name) == 0 && strcmp(c->ranges[i].domain, x->domain) == 0)
            return &c->ranges[i];
    cmp_range_row *row = cmp_push((void **)&c->ranges, &c->n_ranges, sizeof *row);
    if (row)
        row->name = x->name, row->domain = x->domain;
    return row;
}

static cmp_site_row *site_row(compare *c, const char *site)
{
    for (size_t i = 0; i < c->n_sites; i++)
        if (strcmp(c->sites[i].site, site) == 0)
            return &c->sites[i];
    cmp_site_row *row = cmp_push((void **)&c->sites, &c->n_sites, sizeof *row);
    if (row)
        row->site = site;
    return row;
}

/* Launch sites (--stacks). A run with stacks that lacks a site has 0 there:
 * the site lost all its GPU time. */
static int build_sites(compare *c, size_t r)
{
    const summary *s = c->runs[r];
    for (size_t i = 0; i < s->n_sites; i++) {
        cmp_site_row *row = site_row(c, s->sites[i].site);
        if (!row)
            return -1;
        add(&row->gpu_total_ns, r, s->sites[i].gpu_total_ns);
        add(&row->kernels, r, s->sites[i].kernels);
        add(&row->calls, r, s->sites[i].calls);
    }
    return 0;
}

/* NVTX ranges and steps: newer sections, absent from older files. */
static int build_ranges(compare *c, size_t r)
{
    const summary *s = c->runs[r];
    for (size_t i = 0; i < s->n_ranges; i++) {
        cmp_range_row *row = range_row(c, &s->ranges[i]);
        if (!row)
            return -1;
        add(&row->calls, r, s->ranges[i].calls);
        add(&row->cpu_total_ns, r, s->ranges[i].cpu_total_ns);
        put(&row->median_ns, r, s->ranges[i].median_ns);
        mark_sketched(c, &row->median_ns, r, s->ranges[i].median_sketched);
        if (s->gpu_captured)
            add(&row->gpu_total_ns, r, s->ranges[i].gpu_total_ns);
    }
    if (s->n_steps) {
        const cuprof_stat_step *st = &s->steps[0];
        c->has_steps = true;
        put(&c->steps.steps, r, st->steps);
        put(&c->steps.median_ns, r, st->median_ns);
        put(&c->steps.first_ns, r, st->first_ns);
        if (st->steps > 1)
            put(&c->steps.steady_median_ns, r, st->steady_median_ns);
        if (s->gpu_captured)
            put(&c->steps.busy_ppm, r, (int64_t)(st->busy_median * 1e6 + 0.5));
    }
    return 0;
}

static int build_rows(compare *c)
{
    for (size_t r = 0; r < c->n_runs; r++) {
        const summary *s = c->runs[r];
        bool gpu = s->gpu_captured;  /* GPU fields are 0 without a timeline */
        for (size_t i = 0; i < s->n_api; i++) {
            cmp_api_row *row = api_row(c, s->api[i].name);
            if (!row)
                return -1;
            add(&row->calls, r, s->api[i].calls);
            add(&row->errors, r, s->api[i].errors);
            add(&row->cpu_total_ns, r, s->api[i].cpu_total_ns);
            add(&row->cpu_self_ns, r, s->api[i].cpu_self_ns);
        }
        for (size_t i = 0; i < s->n_kernels; i++) {
            const cuprof_stat_kernel *k = &s->kernels[i];
            cmp_kernel_row *row = kernel_row(c, k->name);
            if (!row)
                return -1;
            add(&row->launches, r, k->launches);
            if (gpu) {
                add(&row->gpu_total_ns, r, k->gpu_total_ns);
                put(&row->median_ns, r, k->median_ns);
                mark_sketched(c, &row->median_ns, r, k->median_sketched);
            }
        }
        for (size_t i = 0; i < s->n_copies; i++) {
            cmp_copy_row *row = copy_row(c, s->copies[i].kind);
            if (!row)
                return -1;
            add(&row->calls, r, s->copies[i].calls);
            add(&row->bytes, r, s->copies[i].bytes);
            if (gpu)
                add(&row->gpu_total_ns, r, s->copies[i].gpu_total_ns);
        }
        for (size_t i = 0; i < s->n_blas; i++) {
            cmp_blas_row *row = blas_row(c, s->blas[i].name);
            if (!row)
                return -1;
            add(&row->calls, r, s->blas[i].calls);
            for (size_t j = 0; j < s->blas[i].nshapes; j++) {
                cmp_shape_row *sr = shape_row(c, s->blas[i].name, &s->blas[i].shapes[j]);
                if (!sr)
                    return -1;
                add(&sr->calls, r, s->blas[i].shapes[j].calls);
            }
        }
        for (size_t i = 0; i < s->n_findings; i++) {
            cmp_finding_row *row = finding_row(c, s->findings[i].rule);
            if (!row)
                return -1;
            row->severity[r] = s->findings[i].severity;
        }
        if (build_ranges(c, r) < 0 || build_sites(c, r) < 0)
            return -1;
    }
    return 0;
}

/* ---- ordering ---- */

static int64_t series_max(const cmp_series *s)
{
    int64_t m = 0;
    for (size_t r = 0; r < CMP_MAX_RUNS; r++)
        if ((s->has & (1u << r)) && s->v[r] > m)
            m = s->v[r];
    return m;
}

static int cmp_i64_desc(int64_t a, int64_t b) { return a < b ? 1 : a > b ? -1 : 0; }

static int order_api(const void *pa, const void *pb)
{
    const cmp_api_row *a = pa, *b = pb;
    int d = cmp_i64_desc(series_max(&a->cpu_total_ns), series_max(&b->cpu_total_ns));
    return d ? d : strcmp(a->name, b->name);
}

static int order_kernel(const void *pa, const void *pb)
{
    const cmp_kernel_row *a = pa, *b = pb;
    int d = cmp_i64_desc(series_max(&a->gpu_total_ns), series_max(&b->gpu_total_ns));
    if (!d)
        d = cmp_i64_desc(series_max(&a->launches), series_max(&b->launches));
    return d ? d : strcmp(a->name, b->name);
}

static int order_range(const void *pa, const void *pb)
{
    const cmp_range_row *a = pa, *b = pb;
    int d = cmp_i64_desc(series_max(&a->gpu_total_ns), series_max(&b->gpu_total_ns));
    if (!d)
        d = cmp_i64_desc(series_max(&a->cpu_total_ns), series_max(&b->cpu_total_ns));
    return d ? d : strcmp(a->name, b->name);
}

/* Largest change of a site's GPU time against run 0 (a run without the
 * site counts 0 when it has sites at all). */
static int64_t site_swing(const cmp_site_row *x, const compare *c)
{
    int64_t base = x->gpu_total_ns.v[0], most = 0;   /* v is 0 where absent */
    for (size_t r = 1; r < c->n_runs; r++) {
        if (!c->runs[r]->n_sites)
            continue;
        int64_t v = x->gpu_total_ns.v[r];
        int64_t d = v > base ? v - base : base - v;
        if (d > most)
            most = d;
    }
    return most;
}

static const compare *sort_ctx;
static int order_site(const void *pa, const void *pb)
{
    const cmp_site_row *a = pa, *b = pb;
    int d = cmp_i64_desc(site_swing(a, sort_ctx), site_swing(b, sort_ctx));
    if (!d)
        d = cmp_i64_desc(series_max(&a->gpu_total_ns), series_max(&b->gpu_total_ns));
    return d ? d : strcmp(a->site, b->site);
}

static int kind_rank(const char *k)
{
    static const char *const order[] = {"HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "memset"};
    for (int i = 0; i < 6; i++)
        if (strcmp(k, order[i]) == 0)
            return i;
    return 6;
}

static int order_copy(const void *pa, const void *pb)
{
    const cmp_copy_row *a = pa, *b = pb;
    int d = kind_rank(a->kind) - kind_rank(b->kind);
    return d ? d : strcmp(a->kind, b->kind);
}

static int order_shape(const void *pa, const void *pb)
{
    const cmp_shape_row *a = pa, *b = pb;
    int d = strcmp(a->blas, b->blas);
    if (!d) d = a->m < b->m ? -1 : a->m > b->m;
    if (!d) d = a->n < b->n ? -1 : a->n > b->n;
    if (!d) d = a->k < b->k ? -1 : a->k > b->k;
    if (!d) d = a->batch < b->batch ? -1 : a->batch > b->batch;
    if (!d) d = strcmp(a->dtype, b->dtype);
    return d ? d : strcmp(a->epilogue, b->epilogue);
}

int cmp_build(compare *c, const summary *const *runs, size_t n)
{
    memset(c, 0, sizeof *c);
    if (n < 2 || n > CMP_MAX_RUNS)
        return -1;
    c->n_runs = n;
    for (size_t r = 0; r < n; r++)
        c->runs[r] = runs[r];
    build_overview(c);
    if (cmp_make_names(c) || build_per_iteration(c) || build_rows(c))
        goto fail;
    if (c->n_api)
        qsort(c->api, c->n_api, sizeof *c->api, order_api);
    if (c->n_kernels)
        qsort(c->kernels, c->n_kernels, sizeof *c->kernels, order_kernel);
    if (c->n_copies)
        qsort(c->copies, c->n_copies, sizeof *c->copies, order_copy);
    if (c->n_shapes)
        qsort(c->shapes, c->n_shapes, sizeof *c->shapes, order_shape);
    if (c->n_ranges)
        qsort(c->ranges, c->n_ranges, sizeof *c->ranges, order_range);
    for (size_t i = 0; i < c->n_sites; i++)   /* a run with stacks: 0 where absent */
        for (size_t r = 0; r < c->n_runs; r++)
            if (c->runs[r]->n_sites && !(c->sites[i].gpu_total_ns.has & (1u << r))) {
                put(&c->sites[i].gpu_total_ns, r, 0);
                put(&c->sites[i].kernels, r, 0);
                put(&c->sites[i].calls, r, 0);
            }
    if (c->n_sites) {
        sort_ctx = c;   /* qsort has no context argument */
        qsort(c->sites, c->n_sites, sizeof *c->sites, order_site);
        sort_ctx = NULL;
    }
    if (cmp_build_presence(c) || cmp_build_epilogues(c))
        goto fail;
    return 0;
fail:
    cmp_free(c);
    return -1;
}

void cmp_free(compare *c)
{
    for (size_t r = 0; r < CMP_MAX_RUNS; r++)
        free(c->names[r]);
    free(c->iteration_note);
    free(c->api);
    free(c->copies);
    free(c->blas);
    free(c->shapes);
    free(c->kernels);
    free(c->findings);
    free(c->ranges);
    free(c->sites);
    free(c->presence);
    for (size_t i = 0; i < c->n_epilogues; i++) {
        free(c->epilogues[i].from);
        free(c->epilogues[i].to);
        free(c->epilogues[i].sentence);
    }
    free(c->epilogues);
    memset(c, 0, sizeof *c);
}
