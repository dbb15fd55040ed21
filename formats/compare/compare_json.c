/* compare_json.c - the "cuprof.compare/1" document of cuprof-compare --json.
 * Shape documented in formats/SCHEMA.md ("compare"). */
#include "formats/compare/compare.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

/* Set when any jansson allocation failed; checked once at the end rather
 * than after each of the hundreds of small calls. */
typedef struct json_out {
    const compare *c;
    int oom;
} json_out;

static json_t *chk(json_out *o, json_t *v)
{
    if (!v)
        o->oom = 1;
    return v;
}

static void set(json_out *o, json_t *obj, const char *key, json_t *v)
{
    if (!v || json_object_set_new(obj, key, v))
        o->oom = 1;
}

static void append(json_out *o, json_t *arr, json_t *v)
{
    if (!v || json_array_append_new(arr, v))
        o->oom = 1;
}

/* A number in JSON: integers as they are; shares (ppm) as fractions 0..1;
 * milli-counts as real counts. */
static json_t *num(cmp_unit unit, int64_t v)
{
    switch (unit) {
    case CMP_PPM: return json_real((double)v / 1e6);
    case CMP_MILLI: return json_real((double)v / 1e3);
    default: return json_integer((json_int_t)v);
    }
}

/* {"values": [...], "delta": [...], "ratio": [...]}, one entry per run, null
 * where the run lacks the number (delta and ratio: also where run A does;
 * ratio: also where A's value is 0); and "sketched": [true|false per run],
 * only when some run's value is a median its summary marks approximate
 * (median_sketched), so exact comparisons' documents do not change. */
static json_t *series(json_out *o, cmp_unit unit, const cmp_series *s)
{
    json_t *obj = chk(o, json_object()), *values = chk(o, json_array()),
           *delta = chk(o, json_array()), *ratio = chk(o, json_array());
    for (size_t r = 0; r < o->c->n_runs; r++) {
        bool has = s->has & (1u << r), both = has && (s->has & 1u);
        append(o, values, has ? num(unit, s->v[r]) : json_null());
        append(o, delta, both ? num(unit, s->v[r] - s->v[0]) : json_null());
        append(o, ratio, both && s->v[0] ? json_real((double)s->v[r] / (double)s->v[0])
                                         : json_null());
    }
    if (obj) {
        set(o, obj, "values", values);
        set(o, obj, "delta", delta);
        set(o, obj, "ratio", ratio);
        if (s->sketched) {
            json_t *sk = chk(o, json_array());
            for (size_t r = 0; r < o->c->n_runs && sk; r++)
                append(o, sk, json_boolean(s->sketched & (1u << r)));
            set(o, obj, "sketched", sk);
        }
    } else {
        json_decref(values);
        json_decref(delta);
        json_decref(ratio);
    }
    return obj;
}

static json_t *letter(json_out *o, size_t r)
{
    char s[2] = {compare_letter(r), 0};
    return chk(o, json_string(s));
}

/* Strings are passed through jansson's validating constructor: the reader
 * only accepted UTF-8, so this cannot fail short of memory. */
static json_t *str(json_out *o, const char *s)
{
    return chk(o, json_string(s));
}

static json_t *runs(json_out *o)
{
    const compare *c = o->c;
    json_t *arr = chk(o, json_array());
    for (size_t r = 0; r < c->n_runs && arr; r++) {
        const summary *s = c->runs[r];
        json_t *run = chk(o, json_object()), *argv = chk(o, json_array()),
               *gt = chk(o, json_object());
        if (!run || !argv || !gt) {
            json_decref(run), json_decref(argv), json_decref(gt);
            break;
        }
        for (size_t i = 0; i < s->argc; i++)
            append(o, argv, str(o, s->argv[i]));
        set(o, gt, "captured", json_boolean(s->gpu_captured));
        set(o, gt, "reason", str(o, s->gpu_reason));
        set(o, run, "label", letter(o, r));
        set(o, run, "name", str(o, c->names[r]));
        set(o, run, "file", str(o, s->path));
        set(o, run, "program", str(o, s->program));
        set(o, run, "argv", argv);
        set(o, run, "pid", json_integer((json_int_t)s->pid));
        set(o, run, "gpu_timeline", gt);
        set(o, run, "iterations",
            s->has_iterations ? json_integer((json_int_t)s->iterations) : json_null());
        append(o, arr, run);
    }
    return arr;
}

static json_t *metrics(json_out *o, const cmp_metric *m, size_t n)
{
    json_t *obj = chk(o, json_object());
    for (size_t i = 0; i < n && obj; i++)
        set(o, obj, m[i].key, series(o, m[i].unit, &m[i].s));
    return obj;
}

static json_t *api(json_out *o)
{
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < o->c->n_api && arr; i++) {
        const cmp_api_row *a = &o->c->api[i];
        json_t *e = chk(o, json_object());
        if (!e)
            break;
        set(o, e, "name", str(o, a->name));
        set(o, e, "calls", series(o, CMP_COUNT, &a->calls));
        set(o, e, "errors", series(o, CMP_COUNT, &a->errors));
        set(o, e, "cpu_total_ns", series(o, CMP_NS, &a->cpu_total_ns));
        set(o, e, "cpu_self_ns", series(o, CMP_NS, &a->cpu_self_ns));
        append(o, arr, e);
    }
    return arr;
}

static json_t *copies(json_out *o)
{
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < o->c->n_copies && arr; i++) {
        const cmp_copy_row *k = &o->c->copies[i];
        json_t *e = chk(o, json_object());
        if (!e)
            break;
        set(o, e, "kind", str(o, k->kind));
        set(o, e, "calls", series(o, CMP_COUNT, &k->calls));
        set(o, e, "bytes", series(o, CMP_BYTES, &k->bytes));
        set(o, e, "gpu_total_ns", series(o, CMP_NS, &k->gpu_total_ns));
        append(o, arr, e);
    }
    return arr;
}

static json_t *blas(json_out *o)
{
    const compare *c = o->c;
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < c->n_blas && arr; i++) {
        json_t *e = chk(o, json_object()), *shapes = chk(o, json_array());
        if (!e || !shapes) {
            json_decref(e), json_decref(shapes);
            break;
        }
        for (size_t j = 0; j < c->n_shapes; j++) {
            const cmp_shape_row *s = &c->shapes[j];
            json_t *x;
            if (strcmp(s->blas, c->blas[i].name) != 0 || !(x = chk(o, json_object())))
                continue;
            set(o, x, "m", json_integer((json_int_t)s->m));
            set(o, x, "n", json_integer((json_int_t)s->n));
            set(o, x, "k", json_integer((json_int_t)s->k));
            set(o, x, "batch", json_integer((json_int_t)s->batch));
            set(o, x, "dtype", str(o, s->dtype));
            set(o, x, "epilogue", str(o, s->epilogue));
            set(o, x, "calls", series(o, CMP_COUNT, &s->calls));
            append(o, shapes, x);
        }
        set(o, e, "name", str(o, c->blas[i].name));
        set(o, e, "calls", series(o, CMP_COUNT, &c->blas[i].calls));
        set(o, e, "shapes", shapes);
        append(o, arr, e);
    }
    return arr;
}

static json_t *kernels(json_out *o)
{
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < o->c->n_kernels && arr; i++) {
        const cmp_kernel_row *k = &o->c->kernels[i];
        json_t *e = chk(o, json_object());
        if (!e)
            break;
        set(o, e, "name", str(o, k->name));
        set(o, e, "launches", series(o, CMP_COUNT, &k->launches));
        set(o, e, "gpu_total_ns", series(o, CMP_NS, &k->gpu_total_ns));
        set(o, e, "median_ns", series(o, CMP_NS, &k->median_ns));
        append(o, arr, e);
    }
    return arr;
}

static json_t *ranges(json_out *o)
{
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < o->c->n_ranges && arr; i++) {
        const cmp_range_row *x = &o->c->ranges[i];
        json_t *e = chk(o, json_object());
        if (!e)
            break;
        set(o, e, "name", str(o, x->name));
        set(o, e, "domain", str(o, x->domain));
        set(o, e, "calls", series(o, CMP_COUNT, &x->calls));
        set(o, e, "cpu_total_ns", series(o, CMP_NS, &x->cpu_total_ns));
        set(o, e, "gpu_total_ns", series(o, CMP_NS, &x->gpu_total_ns));
        set(o, e, "median_ns", series(o, CMP_NS, &x->median_ns));
        append(o, arr, e);
    }
    return arr;
}

static json_t *sites(json_out *o)
{
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < o->c->n_sites && arr; i++) {
        const cmp_site_row *x = &o->c->sites[i];
        json_t *e = chk(o, json_object());
        if (!e)
            break;
        set(o, e, "site", str(o, x->site));
        set(o, e, "gpu_total_ns", series(o, CMP_NS, &x->gpu_total_ns));
        set(o, e, "kernels", series(o, CMP_COUNT, &x->kernels));
        set(o, e, "calls", series(o, CMP_COUNT, &x->calls));
        append(o, arr, e);
    }
    return arr;
}

static json_t *steps(json_out *o)
{
    const compare *c = o->c;
    if (!c->has_steps)
        return json_null();
    json_t *e = chk(o, json_object());
    if (!e)
        return NULL;
    set(o, e, "steps", series(o, CMP_COUNT, &c->steps.steps));
    set(o, e, "median_ns", series(o, CMP_NS, &c->steps.median_ns));
    set(o, e, "first_ns", series(o, CMP_NS, &c->steps.first_ns));
    set(o, e, "steady_median_ns", series(o, CMP_NS, &c->steps.steady_median_ns));
    set(o, e, "busy_median", series(o, CMP_PPM, &c->steps.busy_ppm));
    return e;
}

static json_t *findings(json_out *o)
{
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < o->c->n_findings && arr; i++) {
        json_t *e = chk(o, json_object()), *sev = chk(o, json_array());
        if (!e || !sev) {
            json_decref(e), json_decref(sev);
            break;
        }
        for (size_t r = 0; r < o->c->n_runs; r++) {
            const char *s = o->c->findings[i].severity[r];
            append(o, sev, s ? str(o, s) : json_null());
        }
        set(o, e, "rule", str(o, o->c->findings[i].rule));
        set(o, e, "severity", sev);
        append(o, arr, e);
    }
    return arr;
}

static json_t *run_letters(json_out *o, uint32_t mask)
{
    json_t *arr = chk(o, json_array());
    for (size_t r = 0; r < o->c->n_runs && arr; r++)
        if (mask & (1u << r))
            append(o, arr, letter(o, r));
    return arr;
}

static json_t *presence(json_out *o)
{
    const compare *c = o->c;
    uint32_t all = (uint32_t)((1ull << c->n_runs) - 1);
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < c->n_presence && arr; i++) {
        const cmp_presence *p = &c->presence[i];
        json_t *e = chk(o, json_object()), *launches = chk(o, json_array());
        if (!e || !launches) {
            json_decref(e), json_decref(launches);
            break;
        }
        for (size_t r = 0; r < c->n_runs; r++)
            append(o, launches, (p->in & (1u << r)) ? json_integer((json_int_t)p->launches[r])
                                                    : json_null());
        char line[4608];
        cmp_presence_text(c, i, line, sizeof line);
        set(o, e, "name", str(o, p->name));
        set(o, e, "in", run_letters(o, p->in));
        set(o, e, "missing", run_letters(o, all & ~p->in));
        set(o, e, "launches", launches);
        set(o, e, "message", str(o, line));
        append(o, arr, e);
    }
    return arr;
}

static json_t *epilogues(json_out *o)
{
    json_t *arr = chk(o, json_array());
    for (size_t i = 0; i < o->c->n_epilogues && arr; i++) {
        const cmp_epilogue_change *x = &o->c->epilogues[i];
        json_t *e = chk(o, json_object()), *gemm = json_null();
        if (!e)
            break;
        if (!x->all_gemms && (gemm = chk(o, json_object()))) {
            set(o, gemm, "m", json_integer((json_int_t)x->m));
            set(o, gemm, "n", json_integer((json_int_t)x->n));
            set(o, gemm, "k", json_integer((json_int_t)x->k));
            set(o, gemm, "batch", json_integer((json_int_t)x->batch));
        }
        set(o, e, "run", letter(o, x->run));
        set(o, e, "base", letter(o, 0));
        set(o, e, "gemm", gemm);
        set(o, e, "from", str(o, x->from));
        set(o, e, "to", str(o, x->to));
        set(o, e, "message", str(o, x->sentence));
        append(o, arr, e);
    }
    return arr;
}

int cmp_print_json(const compare *c, FILE *out)
{
    json_out o = {.c = c};
    json_t *doc = chk(&o, json_object());
    if (!doc)
        return -1;
    set(&o, doc, "schema", str(&o, COMPARE_SCHEMA));
    set(&o, doc, "base", letter(&o, 0));
    set(&o, doc, "runs", runs(&o));
    set(&o, doc, "overview", metrics(&o, c->overview, c->n_overview));
    if (c->per_iteration) {
        json_t *pi = metrics(&o, c->per_iter, c->n_per_iter);
        if (pi)
            set(&o, pi, "iterations", json_integer((json_int_t)c->iterations));
        set(&o, doc, "per_iteration", pi);
    } else {
        set(&o, doc, "per_iteration", json_null());
    }
    set(&o, doc, "per_iteration_note",
        c->iteration_note ? str(&o, c->iteration_note) : json_null());
    set(&o, doc, "api", api(&o));
    set(&o, doc, "copies", copies(&o));
    set(&o, doc, "blas", blas(&o));
    set(&o, doc, "kernels", kernels(&o));
    set(&o, doc, "ranges", ranges(&o));
    set(&o, doc, "sites", sites(&o));
    set(&o, doc, "steps", steps(&o));
    set(&o, doc, "findings", findings(&o));
    set(&o, doc, "kernels_not_in_every_run", presence(&o));
    set(&o, doc, "epilogue_changes", epilogues(&o));
    int rc = -1;
    if (!o.oom && json_dumpf(doc, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) == 0 &&
        fputc('\n', out) != EOF && fflush(out) == 0)
        rc = 0;
    json_decref(doc);
    return rc;
}
