/*
 * summary_json.c - NAME.summary.json: the summary's numbers for programs
 * (compare, merge, users' scripts). The schema is fixed in SCHEMA.md: add
 * fields freely, rename none; times are integer nanoseconds.
 */
#include "formats/place.h"
#include "formats/summary_schema.h"
#include "formats/writer.h"
#include "model/quantile.h"
#include "model/timeline.h"

#include <stdlib.h>
#include <string.h>

/* "key": with a leading comma unless first (keys are plain literals). */
static void key(cuprof_out *o, const char *k, int first)
{
    cuprof_out_puts(o, first ? "\"" : ",\"");
    cuprof_out_puts(o, k);
    cuprof_out_puts(o, "\":");
}

static void num(cuprof_out *o, const char *k, uint64_t v)
{
    key(o, k, 0);
    cuprof_out_u64(o, v);
}

static void str(cuprof_out *o, const char *k, const char *v)
{
    key(o, k, 0);
    cuprof_out_json_cstr(o, v ? v : "");
}

/* A ratio or rate as a JSON number with 6 decimals, written by hand: printf
 * follows the program's LC_NUMERIC and could write a decimal comma. */
static void fixed6_value(cuprof_out *o, double v)
{
    if (!(v >= 0.0) || v > 1e12)
        v = 0.0;
    uint64_t micro = (uint64_t)(v * 1e6 + 0.5);
    cuprof_out_u64(o, micro / 1000000);
    cuprof_out_putc(o, '.');
    char frac[7];
    uint64_t f = micro % 1000000;
    for (int i = 5; i >= 0; i--, f /= 10)
        frac[i] = (char)('0' + f % 10);
    frac[6] = '\0';
    cuprof_out_puts(o, frac);
}

static void fixed6(cuprof_out *o, const char *k, double v)
{
    key(o, k, 0);
    fixed6_value(o, v);
}

/* "capture": the capture window, when there was one (SCHEMA.md). */
static void put_capture(cuprof_out *o, const cuprof_capture *cap)
{
    if (!cap->trigger)
        return;
    cuprof_out_puts(o, ",\n\"capture\":{\"trigger\":");
    cuprof_out_json_cstr(o, cap->trigger);
    str(o, "spec", cap->spec);
    num(o, "skip_first", cap->skip_first);
    num(o, "repeat", cap->repeat);
    num(o, "seen", cap->seen);
    num(o, "windows", cap->opened);
    cuprof_out_puts(o, ",\"opened\":");
    cuprof_out_puts(o, cap->opened ? "true" : "false");
    cuprof_out_puts(o, ",\"open_at_end\":");
    cuprof_out_puts(o, cap->open_at_end ? "true" : "false");
    num(o, "recorded_ns", cuprof_capture_recorded_ns(cap));
    if (cap->flight_ns) {
        cuprof_out_puts(o, ",\"flight_recorder\":{\"span_ns\":");
        cuprof_out_u64(o, cap->flight_ns);
        num(o, "memory_bound_bytes", cap->flight_bytes);
        num(o, "ring_peak_bytes", cap->flight_peak_bytes);
        num(o, "full_before_ns", cap->flight_evicted_until);
        str(o, "why", cap->nwhy ? cap->window_why[cap->nwhy - 1] : "");
        cuprof_out_putc(o, '}');
    }
    cuprof_out_puts(o, ",\"spans\":[");
    for (size_t i = 0; i < cap->nwindows; i++) {
        cuprof_out_puts(o, i ? ",[" : "[");
        cuprof_out_u64(o, cap->windows[i][0]);
        cuprof_out_putc(o, ',');
        cuprof_out_u64(o, cap->windows[i][1]);
        cuprof_out_putc(o, ']');
    }
    cuprof_out_puts(o, "]}");
}

/* "gpu": the header's GPU numbers (SCHEMA.md); the numbers only when the
 * timeline was captured. */
static void put_gpu(cuprof_out *o, const cuprof_run *run, const cuprof_timeline *tl)
{
    const cuprof_gpu_run *g = run->gpu_run;
    cuprof_out_puts(o, ",\n\"gpu\":{\"captured\":");
    cuprof_out_puts(o, run->gpu.captured ? "true" : "false");
    str(o, "status", g && g->status ? g->status : run->gpu.reason);
    num(o, "dropped_records", g ? g->dropped : 0);
    if (run->gpu.captured && g && tl) {
        const cuprof_gpu_stats *st = &tl->stats;
        num(o, "busy_ns", st->busy_ns);
        num(o, "window_start_ns", st->window_start_ns);
        num(o, "window_ns", st->window_end_ns - st->window_start_ns);
        num(o, "busy_window_ns", st->busy_window_ns);
        fixed6(o, "idle_share", st->idle_share);
        num(o, "launch_latency_median_ns", st->latency_median_ns);
        num(o, "launch_latency_max_ns", st->latency_max_ns);
        num(o, "launch_latency_count", st->latency_count);
        if (st->latency_median_sketched)
            cuprof_out_puts(o, ",\"launch_latency_median_sketched\":true");
        num(o, "kernels", g->n_kernels);
        num(o, "copies", g->n_copies);
        num(o, "syncs", g->n_syncs);
        num(o, "runtime_calls", g->n_apis);
        num(o, "derived_calls", tl->nderived);
        str(o, "mode", g->kernels_only ? "kernels" : "all");
        num(o, "records", g->n_kernels + g->n_copies + g->n_syncs + g->n_apis + g->n_extmap);
    }
    cuprof_out_putc(o, '}');
}

/* "quantiles": the medians' exact bound and the sketch's error, written
 * only when some median is approximate (model/quantile.h), so that a run
 * under the bound reads as before. */
static void put_quantiles(cuprof_out *o, const cuprof_run *run, const cuprof_summary *s,
                          const cuprof_timeline *tl)
{
    if (!cuprof_summary_any_sketched(run, s, tl))
        return;
    cuprof_out_puts(o, ",\n\"quantiles\":{");
    key(o, "exact_max", 1);
    cuprof_out_u64(o, run->quantile_exact_max ? run->quantile_exact_max : CUPROF_QUANTILE_EXACT_MAX);
    fixed6(o, "relative_error", CUPROF_QUANTILE_REL_ERR);
    cuprof_out_putc(o, '}');
}

/* "device": the GPU the rates are held to and its peak table entry. */
static void put_device(cuprof_out *o, const cuprof_stat_device *d)
{
    cuprof_out_puts(o, ",\n\"device\":{\"name\":");
    cuprof_out_json_cstr(o, d->name);
    num(o, "sms", d->sms);
    num(o, "clock_khz", d->clock_khz);
    num(o, "mem_bytes", d->mem_bytes);
    key(o, "peak", 0);
    if (d->peak_label)
        cuprof_out_json_cstr(o, d->peak_label);
    else
        cuprof_out_puts(o, "null");
    str(o, "peak_source", d->peak_source ? d->peak_source : "");
    str(o, "peak_why", d->peak_why ? d->peak_why : "");
    fixed6(o, "mem_gbps", d->mem_gbps);
    cuprof_out_putc(o, '}');
}

/* One listed field of a row (formats/summary_schema.h); *first: no comma
 * before it. A NONZERO field is left out when 0. */
static void field_STR(cuprof_out *o, const char *k, const char *v, int when, int *first)
{
    (void)when;
    key(o, k, *first);
    *first = 0;
    cuprof_out_json_cstr(o, v ? v : "");
}

static void field_U64(cuprof_out *o, const char *k, uint64_t v, int when, int *first)
{
    if (when == CUPROF_SCHEMA_NONZERO && v == 0)
        return;
    key(o, k, *first);
    *first = 0;
    cuprof_out_u64(o, v);
}

static void field_U32(cuprof_out *o, const char *k, uint32_t v, int when, int *first)
{
    field_U64(o, k, v, when, first);
}

static void field_FIX6(cuprof_out *o, const char *k, double v, int when, int *first)
{
    if (when == CUPROF_SCHEMA_NONZERO && v == 0.0)
        return;
    key(o, k, *first);
    *first = 0;
    fixed6_value(o, v);
}

static void field_BOOL(cuprof_out *o, const char *k, int v, int when, int *first)
{
    if (when == CUPROF_SCHEMA_NONZERO && !v)
        return;
    key(o, k, *first);
    *first = 0;
    cuprof_out_puts(o, v ? "true" : "false");
}

#define PUT_FIELD(KIND, m, WHEN) field_##KIND(o, #m, row->m, CUPROF_SCHEMA_##WHEN, &first);

/* ",\n\"name\":[" then one object per row, its listed fields, then what
 * extra(o, row) adds (nested parts), then "}". */
#define PUT_ROWS(name, type, rows, n, LIST, extra)                       \
    do {                                                             \
        cuprof_out_puts(o, ",\n\"" name "\":[");                      \
        for (size_t i = 0; i < (n); i++) {                           \
            const type *row = &(rows)[i];                            \
            int first = 1;                                           \
            cuprof_out_puts(o, i ? ",\n {" : "\n {");                 \
            LIST(PUT_FIELD)                                          \
            extra;                                                   \
            cuprof_out_putc(o, '}');                                 \
        }                                                            \
        cuprof_out_putc(o, ']');                                     \
    } while (0)

static void put_owner_list(cuprof_out *o, const char *k, const cuprof_mem_owner *top, size_t n)
{
    key(o, k, 0);
    cuprof_out_putc(o, '[');
    for (size_t i = 0; i < n; i++) {
        cuprof_out_puts(o, i ? ",{" : "{");
        key(o, "api", 1);
        cuprof_out_json_cstr(o, top[i].api);
        if (top[i].site)
            str(o, "site", top[i].site);
        num(o, "bytes", top[i].bytes);
        num(o, "allocations", top[i].allocations);
        cuprof_out_putc(o, '}');
    }
    cuprof_out_putc(o, ']');
}

/* A kernel name and launch path, and how many launches had both. */
typedef struct census_group {
    const char *name;
    int path;
    uint64_t launches;
} census_group;

/* The kernels' (name, path) groups, counted in an open-addressing table
 * (a sort of every kernel was most of this file's time with 1 M kernels);
 * *ng gets their number. NULL on out of memory. */
static census_group *census_groups(const cuprof_census *cs, const cuprof_timeline *tl,
                                   const cuprof_names *names, size_t n, size_t *ng)
{
    size_t cap = 64, used = 0;
    census_group *t = calloc(cap, sizeof *t);
    for (size_t i = 0; t && i < n; i++) {
        const char *name = cuprof_names_gpu(names, tl->gpu->kernels[i].name);
        int path = cs->path[i];
        uint64_t h = ((uint64_t)(uintptr_t)name ^ (uint64_t)path << 56) * 0x9E3779B97F4A7C15ull;
        size_t k = (size_t)(h >> 32) & (cap - 1);
        while (t[k].launches && (t[k].name != name || t[k].path != path))
            k = (k + 1) & (cap - 1);
        if (t[k].launches) {
            t[k].launches++;
            continue;
        }
        t[k] = (census_group){name, path, 1};
        if (++used * 2 <= cap)
            continue;
        census_group *g = calloc(cap * 2, sizeof *g);   /* grow: rehash */
        for (size_t j = 0; g && j < cap; j++) {
            if (!t[j].launches)
                continue;
            uint64_t hj = ((uint64_t)(uintptr_t)t[j].name ^ (uint64_t)t[j].path << 56) *
                          0x9E3779B97F4A7C15ull;
            size_t q = (size_t)(hj >> 32) & (cap * 2 - 1);
            while (g[q].launches)
                q = (q + 1) & (cap * 2 - 1);
            g[q] = t[j];
        }
        free(t);
        t = g;
        cap *= 2;
    }
    *ng = 0;
    for (size_t k = 0; t && k < cap; k++)   /* packed to the front */
        if (t[k].launches)
            t[(*ng)++] = t[k];
    return t;
}

static int cmp_group_count(const void *a, const void *b)
{
    const census_group *x = a, *y = b;
    if (x->launches != y->launches)
        return x->launches < y->launches ? 1 : -1;
    int c = strcmp(x->name, y->name);
    return c ? c : x->path - y->path;
}

/* "collectives": NCCL's collectives (model/collectives.h; SCHEMA.md). */
static void put_collectives(cuprof_out *o, const cuprof_collectives *c)
{
    cuprof_out_puts(o, ",\n\"collectives\":{\"calls\":");
    cuprof_out_u64(o, c ? c->calls : 0);
    num(o, "nccl_kernel_ns", c ? c->nccl_kernel_ns : 0);
    num(o, "exposed_ns", c ? c->exposed_ns : 0);
    cuprof_out_printf(o, ",\"step_exposed_share_median\":%.4f,\"steps_exposed_ns\":[", c ? c->step_share_median : 0.0);
    for (size_t i = 0; c && i < c->nsteps; i++) {
        if (i)
            cuprof_out_putc(o, ',');
        cuprof_out_u64(o, c->step_exposed_ns[i]);
    }
    cuprof_out_putc(o, ']');
    cuprof_out_puts(o, ",\"rows\":[");
    for (size_t i = 0; c && i < c->nrows; i++) {
        const cuprof_coll_row *r = &c->rows[i];
        cuprof_out_puts(o, i ? ",\n{\"op\":" : "\n{\"op\":");
        cuprof_out_json_cstr(o, r->op);
        str(o, "dtype", r->dtype);
        str(o, "algo", r->algo);
        num(o, "size_bytes", r->size);
        num(o, "nranks", r->nranks);
        num(o, "calls", r->calls);
        num(o, "gpu_total_ns", r->gpu_total_ns);
        num(o, "gpu_min_ns", r->gpu_min_ns);
        num(o, "gpu_median_ns", r->gpu_median_ns);
        num(o, "gpu_max_ns", r->gpu_max_ns);
        cuprof_out_printf(o, ",\"algbw_gbps\":%.6g,\"busbw_gbps\":%.6g}", r->algbw_gbps, r->busbw_gbps);
    }
    cuprof_out_putc(o, ']');
    /* every call, in order, as a row of call_fields: what prof.sh merge
     * lines the ranks up by without reading their traces */
    cuprof_out_puts(o, ",\"call_fields\":[\"op\",\"comm\",\"seq\",\"start_ns\",\"end_ns\",\"gpu_end_ns\"],"
                       "\"call_list\":[");
    for (size_t i = 0; c && i < c->ncalls; i++) {
        const cuprof_coll_call *k = &c->by_call[i];
        cuprof_out_puts(o, i ? ",\n[" : "\n[");
        cuprof_out_json_cstr(o, k->op);
        cuprof_out_puts(o, ",\"");
        cuprof_out_hex(o, k->comm);
        cuprof_out_puts(o, "\",");
        cuprof_out_u64(o, k->seq);
        cuprof_out_putc(o, ',');
        cuprof_out_u64(o, k->host_start_ns);
        cuprof_out_putc(o, ',');
        cuprof_out_u64(o, k->host_end_ns);
        cuprof_out_putc(o, ',');
        cuprof_out_u64(o, k->gpu_end_ns);
        cuprof_out_putc(o, ']');
    }
    cuprof_out_puts(o, "]}");
}

/* "launch_census": how the kernels were launched (model/census.h). */
static void put_census(cuprof_out *o, const cuprof_census *cs, const cuprof_timeline *tl,
                       const cuprof_names *names)
{
    cuprof_out_puts(o, ",\n\"launch_census\":{");
    key(o, "kernels", 1);
    cuprof_out_u64(o, cs ? cs->total_kernels : 0);
    num(o, "gpu_total_ns", cs ? cs->total_gpu_ns : 0);
    num(o, "seen_gpu_ns", cs ? cs->seen_gpu_ns : 0);
    if (cs && cs->total_kernels)
        fixed6(o, "coverage", cs->coverage);
    else {   /* no kernel ran: no share to give (issue 33: it said 0.0) */
        key(o, "coverage", 0);
        cuprof_out_puts(o, "null");
    }
    key(o, "paths", 0);
    cuprof_out_putc(o, '[');
    for (int p = 0, first = 1; cs && p < CUPROF_LAUNCH_NPATHS; p++) {
        if (!cs->kernels[p])
            continue;
        cuprof_out_puts(o, first ? "{" : ",{");
        first = 0;
        key(o, "path", 1);
        cuprof_out_json_cstr(o, cuprof_launch_path_key(p));
        num(o, "kernels", cs->kernels[p]);
        num(o, "gpu_total_ns", cs->gpu_ns[p]);
        cuprof_out_putc(o, '}');
    }
    cuprof_out_putc(o, ']');
    /* per kernel name (display names are interned: one pointer per name)
     * and path: launches, most first, the first 256 */
    key(o, "by_kernel", 0);
    cuprof_out_putc(o, '[');
    size_t n = tl && tl->gpu ? tl->gpu->n_kernels : 0, ng = 0;
    census_group *gr = cs && n ? census_groups(cs, tl, names, n, &ng) : NULL;
    if (gr)   /* (a total order: the groups' first order does not matter) */
        qsort(gr, ng, sizeof *gr, cmp_group_count);
    for (size_t i = 0; i < ng && i < 256; i++) {
        cuprof_out_puts(o, i ? ",{" : "{");
        key(o, "name", 1);
        cuprof_out_json_cstr(o, gr[i].name);
        str(o, "path", cuprof_launch_path_key(gr[i].path));
        num(o, "launches", gr[i].launches);
        cuprof_out_putc(o, '}');
    }
    free(gr);
    cuprof_out_puts(o, "]}");
}

/* "graphs": CUDA graphs replayed, by origin (model/graphs.h). */
static void put_graphs(cuprof_out *o, const cuprof_graphs *gs)
{
    cuprof_out_puts(o, ",\n\"graphs\":[");
    for (size_t i = 0; gs && i < gs->n; i++) {
        const cuprof_graph *g = &gs->g[i];
        cuprof_out_puts(o, i ? ",{" : "{");
        key(o, "id", 1);
        cuprof_out_u64(o, g->id);
        num(o, "launches", g->launches);
        num(o, "nodes", g->nodes);
        num(o, "records", g->records);
        num(o, "gpu_total_ns", g->gpu_total_ns);
        key(o, "origins", 0);
        cuprof_out_putc(o, '[');
        for (size_t k = 0; k < g->norigins; k++) {
            const cuprof_graph_origin *x = &g->origins[k];
            cuprof_out_puts(o, k ? ",{" : "{");
            key(o, "origin", 1);
            cuprof_out_json_cstr(o, x->label);
            cuprof_out_puts(o, ",\"captured\":");
            cuprof_out_puts(o, x->event ? "true" : "false");
            str(o, "work", x->work);
            if (x->range)
                str(o, "range", x->range);
            if (x->site)
                str(o, "site", x->site);
            num(o, "records", x->records);
            num(o, "gpu_total_ns", x->gpu_total_ns);
            cuprof_out_putc(o, '}');
        }
        cuprof_out_puts(o, "]}");
    }
    cuprof_out_putc(o, ']');
}

/* "memory": device memory held over the run (model/memory.h). */
static void put_memory(cuprof_out *o, const cuprof_memory *m)
{
    cuprof_out_puts(o, ",\n\"memory\":{");
    key(o, "allocations", 1);
    cuprof_out_u64(o, m ? m->allocations : 0);
    num(o, "frees", m ? m->frees : 0);
    num(o, "allocated_bytes", m ? m->allocated_bytes : 0);
    num(o, "peak_bytes", m ? m->peak_bytes : 0);
    num(o, "peak_at_ns", m ? m->peak_t : 0);
    num(o, "peak_allocations", m ? m->peak_allocations : 0);
    num(o, "end_bytes", m ? m->end_bytes : 0);
    if (m && m->end_bytes) {   /* who held it at the end (the killed-by-oom finding's) */
        num(o, "end_allocations", m->end_allocations);
        put_owner_list(o, "end_owners", m->end_top, m->nend_top);
    }
    num(o, "held_at_open_bytes", m ? m->held_at_open_bytes : 0);
    num(o, "held_at_open_allocations", m ? m->held_at_open_allocations : 0);
    put_owner_list(o, "owners", m ? m->top : NULL, m ? m->ntop : 0);
    num(o, "failures", m ? m->oom_total : 0);
    /* the driver's address ranges (cuMemAddressReserve, cuMemMap), apart */
    static const char *const range_names[2] = {"reserved", "mapped"};
    for (int k = 0; k < 2; k++) {
        const cuprof_mem_range *r = !m ? NULL : k ? &m->mapped : &m->reserved;
        key(o, range_names[k], 0);
        cuprof_out_putc(o, '{');
        key(o, "calls", 1);
        cuprof_out_u64(o, r ? r->calls : 0);
        num(o, "frees", r ? r->frees : 0);
        num(o, "peak_bytes", r ? r->peak_bytes : 0);
        num(o, "end_bytes", r ? r->end_bytes : 0);
        cuprof_out_putc(o, '}');
    }
    key(o, "oom", 0);
    cuprof_out_putc(o, '[');
    for (size_t i = 0; m && i < m->noom; i++) {
        const cuprof_mem_oom *x = &m->oom[i];
        cuprof_out_puts(o, i ? ",{" : "{");
        key(o, "at_ns", 1);
        cuprof_out_u64(o, x->t);
        str(o, "api", x->api);
        if (x->site)
            str(o, "site", x->site);
        num(o, "requested_bytes", x->requested);
        num(o, "held_bytes", x->live_bytes);
        num(o, "held_allocations", x->live_allocations);
        put_owner_list(o, "owners", x->top, x->ntop);
        cuprof_out_putc(o, '}');
    }
    cuprof_out_puts(o, "]}");
}

static void put_shapes(cuprof_out *o, const cuprof_stat_blas *b)
{
    cuprof_out_puts(o, ",\"shapes\":[");
    for (size_t j = 0; j < b->nshapes; j++) {
        const cuprof_stat_shape *row = &b->shapes[j];
        int first = 1;
        cuprof_out_puts(o, j ? ",\n  {" : "\n  {");
        CUPROF_SCHEMA_SHAPE(PUT_FIELD)
        cuprof_out_putc(o, '}');
    }
    cuprof_out_putc(o, ']');
}

static void put_numbers(cuprof_out *o, const cuprof_finding *f)
{
    cuprof_out_puts(o, ",\"numbers\":{");
    for (size_t j = 0; j < f->nnums; j++) {
        const cuprof_finding_num *v = &f->nums[j];
        key(o, v->key, j == 0);
        if (v->integer)
            cuprof_out_u64(o, v->value > 0 ? (uint64_t)(v->value + 0.5) : 0);
        else
            fixed6_value(o, v->value);
    }
    cuprof_out_putc(o, '}');
}

/* by_stack[] (--stacks): time by stack and hooked call, each row with the
 * stack's user frames, innermost first (prof.sh stats --group-by-stack N). */
#define BY_STACK_FRAMES 16
static void put_by_stack(cuprof_out *o, const cuprof_stacks *sk)
{
    cuprof_out_puts(o, ",\n\"by_stack\":[");
    for (size_t i = 0; i < sk->nby_stack; i++) {
        const cuprof_stack_api *r = &sk->by_stack[i];
        uint32_t f[BY_STACK_FRAMES];
        size_t n = cuprof_stacks_user_frames(sk, r->stack, f, BY_STACK_FRAMES);
        cuprof_out_puts(o, i ? ",\n {" : "\n {");
        key(o, "api", 1);
        cuprof_out_json_cstr(o, cuprof_run_api_name(sk->run, r->api));
        key(o, "frames", 0);
        cuprof_out_putc(o, '[');
        for (size_t k = 0; k < n; k++) {
            if (k)
                cuprof_out_putc(o, ',');
            cuprof_out_json_cstr(o, sk->frame[f[k]]);
        }
        cuprof_out_putc(o, ']');
        num(o, "calls", r->calls);
        num(o, "cpu_total_ns", r->cpu_total_ns);
        num(o, "cuda_total_ns", r->cuda_total_ns);
        cuprof_out_putc(o, '}');
    }
    cuprof_out_putc(o, ']');
}

static void put_rows(cuprof_out *o, const cuprof_summary *s, const cuprof_steps *st,
                     const cuprof_stacks *sk)
{
    PUT_ROWS("api", cuprof_stat_api, s->api, s->napi, CUPROF_SCHEMA_API, (void)0);
    PUT_ROWS("kernels", cuprof_stat_kernel, s->kernels, s->nkernels, CUPROF_SCHEMA_KERNEL, (void)0);
    PUT_ROWS("copies", cuprof_stat_copy, s->copies, s->ncopies, CUPROF_SCHEMA_COPY, (void)0);
    PUT_ROWS("blas", cuprof_stat_blas, s->blas, s->nblas, CUPROF_SCHEMA_BLAS, put_shapes(o, row));
    PUT_ROWS("math", cuprof_stat_math, s->math, s->nmath, CUPROF_SCHEMA_MATH, (void)0);
    PUT_ROWS("ranges", cuprof_stat_range, s->ranges, s->nranges, CUPROF_SCHEMA_RANGE, (void)0);
    PUT_ROWS("steps", cuprof_stat_step, s->steps, s->nsteps, CUPROF_SCHEMA_STEP, (void)0);
    PUT_ROWS("step_list", cuprof_step, st ? st->s : NULL, st ? st->n : 0, CUPROF_SCHEMA_STEP_ROW,
             (void)0);
    if (sk && sk->run->stacks_mode)
        PUT_ROWS("sites", cuprof_stat_site, sk->sites, sk->nsites, CUPROF_SCHEMA_SITE, (void)0);
    if (sk && sk->run->stacks_mode)
        put_by_stack(o, sk);
    PUT_ROWS("findings", cuprof_finding, s->findings, s->nfindings, CUPROF_SCHEMA_FINDING, put_numbers(o, row));
}

static int json_write(cuprof_writer *w)
{
    cuprof_out *o = w->out;
    const cuprof_run *run = w->run;
    const cuprof_summary *s = w->sum;
    cuprof_out_puts(o, "{\"schema\":\"" CUPROF_SCHEMA_VERSION "\"");
    str(o, "tool", "cuprof");
    str(o, "version", cuprof_run_version(run));
    str(o, "program", run->program);
    str(o, "exe", run->exe);
    key(o, "argv", 0);
    cuprof_out_putc(o, '[');
    for (int i = 0; i < run->argc; i++) {
        if (i)
            cuprof_out_putc(o, ',');
        cuprof_out_json_cstr(o, run->argv[i]);
    }
    cuprof_out_putc(o, ']');
    key(o, "pid", 0);
    cuprof_out_i64(o, run->pid);
    num(o, "wall_ns", run->wall_ns);
    str(o, "clock", run->clock);
    num(o, "start_ns", run->t_start);
    num(o, "events", run->nevents);
    num(o, "dropped", run->dropped);
    num(o, "spilled", run->spilled_events);
    if (run->spill_failure)
        str(o, "spill_failure", run->spill_failure);
    if (run->run_file) {
        const char *base = strrchr(run->run_file, '/');
        cuprof_out_puts(o, ",\"run_file\":{");
        key(o, "name", 1);
        cuprof_out_json_cstr(o, base ? base + 1 : run->run_file);
        num(o, "bytes", run->run_file_bytes);
        if (run->run_file_lost)
            str(o, "lost", run->run_file_lost);
        cuprof_out_putc(o, '}');
    }
    str(o, "ended_by", run->ended_by ? run->ended_by : "exit");
    cuprof_out_puts(o, ",\"truncated\":");
    cuprof_out_puts(o, run->truncated ? "true" : "false");
    const cuprof_killed *k = &run->killed;
    if (k->recovered) {   /* killed outright: what prof.sh's supervisor saw and recovered */
        cuprof_out_puts(o, ",\"killed\":{\"by\":");
        cuprof_out_json_cstr(o, k->oom ? "the OOM killer" : "a signal");
        cuprof_out_puts(o, ",\"recovered_from_memory\":");
        cuprof_out_puts(o, k->from_memory ? "true" : "false");
        if (k->cgroup)
            str(o, "cgroup", k->cgroup);
        if (k->cgroup)
            num(o, "memory_limit_bytes", k->mem_limit);
        if (k->rss) {
            num(o, "rss_bytes", k->rss);
            num(o, "rss_peak_bytes", k->rss_peak);
            num(o, "rss_at_ns", k->rss_ns);
        }
        if (k->died_ns)
            num(o, "died_at_ns", k->died_ns);
        cuprof_out_putc(o, '}');
    }
    num(o, "threads", run->nthreads);
    num(o, "self_cpu_total_ns", s->self_cpu_total_ns);
    num(o, "self_cuda_total_ns", s->self_cuda_total_ns);
    cuprof_out_puts(o, ",\n\"overhead\":{");
    key(o, "per_call_ns", 1);
    cuprof_out_u64(o, s->overhead_per_call_ns);
    num(o, "calls", s->overhead_calls);
    num(o, "total_ns", s->overhead_total_ns);
    fixed6(o, "cpu_share", s->self_cpu_total_ns ? (double)s->overhead_total_ns / (double)s->self_cpu_total_ns : 0.0);
    num(o, "event_bytes", run->event_bytes);
    fixed6(o, "bytes_per_event", run->nevents ? (double)run->event_bytes / (double)run->nevents : 0.0);
    cuprof_out_putc(o, '}');
    put_capture(o, &run->capture);
    cuprof_out_puts(o, ",\n\"distributed\":");
    cuprof_put_place(o, run);
    cuprof_out_puts(o, ",\n\"gpu_timeline\":{\"captured\":");
    cuprof_out_puts(o, run->gpu.captured ? "true" : "false");
    str(o, "reason", run->gpu.reason);
    cuprof_out_putc(o, '}');
    put_gpu(o, run, w->model->timeline);
    put_quantiles(o, run, s, w->model->timeline);
    put_device(o, &w->sum->device);
    put_memory(o, w->model->memory);
    put_graphs(o, w->model->graphs);
    put_census(o, w->model->census, w->model->timeline, &w->model->names);
    put_collectives(o, w->model->colls);
    if (run->stacks_mode) {
        const cuprof_stacks *sk = w->model->stacks;
        cuprof_out_puts(o, ",\n\"stacks\":{");
        key(o, "mode", 1);
        cuprof_out_json_cstr(o, run->stacks_mode);
        num(o, "stacks", run->nstacks);
        num(o, "lost", run->stacks_lost);
        num(o, "gpu_total_ns", sk ? sk->gpu_total_ns : 0);
        num(o, "cpu_total_ns", sk ? sk->cpu_total_ns : 0);
        cuprof_out_putc(o, '}');
    }
    put_rows(o, s, w->model->steps, w->model->stacks);
    cuprof_out_puts(o, "}\n");
    return 0;
}

const cuprof_writer_ops cuprof_summary_json_ops = {
    .suffix = "summary.json",
    .size = sizeof(cuprof_writer),
    .write = json_write,
};
