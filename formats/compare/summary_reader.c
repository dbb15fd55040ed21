/* summary_reader.c - see summary_reader.h. */
#include "formats/compare/summary_reader.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What to tell the user for each family of problems. */
#define TODO_RERUN  "the profiled process may have stopped while writing it: profile the program again"
#define TODO_SUMMARY "pass a NAME.summary.json written by prof.sh"
#define TODO_REGEN  "the file does not follow " SUMMARY_SCHEMA ": profile the program again with prof.sh"

/* Parsing state: where errors go and what the input is called. */
typedef struct reader {
    const char *label;      /* file name used in error lines */
    char *err;              /* error line buffer */
    size_t errlen;          /* its size */
} reader;

/* Replaces bytes a terminal would act on (newlines, escapes) so the error
 * stays one printable line whatever the input held. */
static void one_line(char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
            *s = '?';
}

/* Writes "cuprof: <label>: <what>; <todo>" into the error buffer; returns -1. */
static int fail(const reader *r, const char *todo, const char *fmt, ...)
{
    char what[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->err && r->errlen) {
        snprintf(r->err, r->errlen, "cuprof: %s: %s; %s", r->label, what, todo);
        one_line(r->err);
    }
    return -1;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a fraction";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

/* Fetches obj.key, failing when it is missing. */
static json_t *need(const reader *r, json_t *obj, const char *where, const char *key)
{
    json_t *v = json_object_get(obj, key);
    if (!v)
        fail(r, TODO_REGEN, "%s has no \"%s\" field", where, key);
    return v;
}

/* The readers of one listed field (formats/summary_schema.h): a field
 * written ALWAYS must be there; an ADDED or NONZERO one reads as "" or 0 when
 * absent. Present fields are checked whatever their WHEN. */
static json_t *field(const reader *r, json_t *obj, const char *where, const char *key,
                     int when)
{
    return when == CUPROF_SCHEMA_ALWAYS ? need(r, obj, where, key) : json_object_get(obj, key);
}

static int get_U64(const reader *r, json_t *obj, const char *where, const char *key,
                   uint64_t *out, int when)
{
    json_t *v = field(r, obj, where, key, when);
    if (!v)
        return when == CUPROF_SCHEMA_ALWAYS ? -1 : 0;
    if (!json_is_integer(v))
        return fail(r, TODO_REGEN, "%s.%s is %s, expected an integer", where, key,
                    type_name(v));
    json_int_t i = json_integer_value(v);
    if (i < 0)
        return fail(r, TODO_REGEN, "%s.%s is %lld, expected a number >= 0", where, key,
                    (long long)i);
    *out = (uint64_t)i;
    return 0;
}

static int get_U32(const reader *r, json_t *obj, const char *where, const char *key,
                   uint32_t *out, int when)
{
    uint64_t v = 0;
    if (get_U64(r, obj, where, key, &v, when))
        return -1;
    if (v > UINT32_MAX)
        return fail(r, TODO_REGEN, "%s.%s is %llu, expected a number below 2^32", where, key,
                    (unsigned long long)v);
    *out = (uint32_t)v;
    return 0;
}

static int get_FIX6(const reader *r, json_t *obj, const char *where, const char *key,
                    double *out, int when)
{
    json_t *v = field(r, obj, where, key, when);
    if (!v)
        return when == CUPROF_SCHEMA_ALWAYS ? -1 : 0;
    if (!json_is_number(v))
        return fail(r, TODO_REGEN, "%s.%s is %s, expected a number", where, key, type_name(v));
    double d = json_number_value(v);
    if (!isfinite(d) || d < 0.0)
        return fail(r, TODO_REGEN, "%s.%s is %g, expected a number >= 0", where, key, d);
    *out = d;
    return 0;
}

static int get_BOOL(const reader *r, json_t *obj, const char *where, const char *key,
                    int *out, int when)
{
    json_t *v = field(r, obj, where, key, when);
    if (!v)
        return when == CUPROF_SCHEMA_ALWAYS ? -1 : 0;
    if (!json_is_boolean(v))
        return fail(r, TODO_REGEN, "%s.%s is %s, expected true or false", where, key, type_name(v));
    *out = json_is_true(v);
    return 0;
}

static int get_STR(const reader *r, json_t *obj, const char *where, const char *key,
                   const char **out, int when)
{
    json_t *v = field(r, obj, where, key, when);
    if (!v && when == CUPROF_SCHEMA_ALWAYS)
        return -1;
    if (v && !json_is_string(v))
        return fail(r, TODO_REGEN, "%s.%s is %s, expected a string", where, key,
                    type_name(v));
    *out = strdup(v ? json_string_value(v) : "");
    if (!*out)
        return fail(r, "free some memory and try again", "out of memory");
    return 0;
}

/* Reads obj.key as an integer >= 0 (the top level's fields). */
static int get_count(const reader *r, json_t *obj, const char *where, const char *key,
                     int64_t *out)
{
    uint64_t v = 0;
    if (get_U64(r, obj, where, key, &v, CUPROF_SCHEMA_ALWAYS))
        return -1;
    *out = (int64_t)v;
    return 0;
}

/* Reads obj.key as a string and copies it (the top level's fields). */
static int get_str(const reader *r, json_t *obj, const char *where, const char *key,
                   char **out)
{
    const char *v = NULL;
    if (get_STR(r, obj, where, key, &v, CUPROF_SCHEMA_ALWAYS))
        return -1;
    *out = (char *)v;
    return 0;
}

/* Reads obj.key as an array; *n gets its length. */
static json_t *get_array(const reader *r, json_t *obj, const char *where, const char *key,
                         size_t *n)
{
    json_t *v = need(r, obj, where, key);
    if (!v)
        return NULL;
    if (!json_is_array(v)) {
        fail(r, TODO_REGEN, "%s.%s is %s, expected an array", where, key, type_name(v));
        return NULL;
    }
    *n = json_array_size(v);
    return v;
}

/* Allocates n zeroed elements (at least one, so NULL always means failure). */
static void *alloc_rows(const reader *r, size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p)
        fail(r, "free some memory and try again", "out of memory");
    return p;
}

/* Element i of array key, which must be an object; where gets its name. */
static json_t *row_at(const reader *r, json_t *arr, const char *key, size_t i, char *where,
                   size_t wlen)
{
    json_t *e = json_array_get(arr, i);
    snprintf(where, wlen, "%s[%zu]", key, i);
    if (!json_is_object(e)) {
        fail(r, TODO_REGEN, "%s is %s, expected an object", where, type_name(e));
        return NULL;
    }
    return e;
}

#define GET_FIELD(KIND, m, WHEN) \
    || get_##KIND(r, e, w, #m, &row->m, CUPROF_SCHEMA_##WHEN)

/* Reads the array key of obj into *rows / *n, each element's listed fields
 * (LIST) and then what extra reads (nested parts; 0 on success); error
 * lines name a row label[i]. *n is set as soon as the rows exist:
 * cmp_summary_destroy walks them. */
#define READ_ROWS(obj, objname, key, label, type, rows, n, LIST, extra)      \
    do {                                                                  \
        size_t cnt_ = 0;                                                  \
        json_t *arr_ = get_array(r, obj, objname, key, &cnt_);            \
        if (!arr_ || !((rows) = alloc_rows(r, cnt_, sizeof(type))))       \
            return -1;                                                    \
        (n) = cnt_;                                                       \
        for (size_t i = 0; i < cnt_; i++) {                               \
            char w[160];                                                  \
            type *row = &(rows)[i];                                       \
            json_t *e = row_at(r, arr_, label, i, w, sizeof w);           \
            if (!e LIST(GET_FIELD) || (extra))                            \
                return -1;                                                \
        }                                                                 \
    } while (0)

static int read_shapes(const reader *r, json_t *obj, const char *bw, cuprof_stat_blas *b)
{
    char label[200];
    snprintf(label, sizeof label, "%s.shapes", bw);
    READ_ROWS(obj, bw, "shapes", label, cuprof_stat_shape, b->shapes, b->nshapes,
              CUPROF_SCHEMA_SHAPE, 0);
    return 0;
}

/* A copy row must name its direction. */
static int copy_kind(const reader *r, const char *w, const cuprof_stat_copy *c)
{
    if (c->kind[0])
        return 0;
    return fail(r, TODO_REGEN, "%s.kind is empty, expected a direction such as \"HtoD\"", w);
}

static int read_rows(const reader *r, json_t *root, summary *s)
{
    READ_ROWS(root, "the summary", "api", "api", cuprof_stat_api, s->api, s->n_api,
              CUPROF_SCHEMA_API, 0);
    READ_ROWS(root, "the summary", "kernels", "kernels", cuprof_stat_kernel, s->kernels, s->n_kernels,
              CUPROF_SCHEMA_KERNEL, 0);
    READ_ROWS(root, "the summary", "copies", "copies", cuprof_stat_copy, s->copies, s->n_copies,
              CUPROF_SCHEMA_COPY, copy_kind(r, w, row));
    READ_ROWS(root, "the summary", "blas", "blas", cuprof_stat_blas, s->blas, s->n_blas,
              CUPROF_SCHEMA_BLAS, read_shapes(r, e, w, row));
    if (json_object_get(root, "sites"))    /* only in runs with --stacks */
        READ_ROWS(root, "the summary", "sites", "sites", cuprof_stat_site, s->sites,
                  s->n_sites, CUPROF_SCHEMA_SITE, 0);
    if (json_object_get(root, "ranges"))   /* a newer section: optional */
        READ_ROWS(root, "the summary", "ranges", "ranges", cuprof_stat_range, s->ranges,
                  s->n_ranges, CUPROF_SCHEMA_RANGE, 0);
    if (json_object_get(root, "steps"))   /* newer still */
        READ_ROWS(root, "the summary", "steps", "steps", cuprof_stat_step, s->steps, s->n_steps,
                  CUPROF_SCHEMA_STEP, 0);
    READ_ROWS(root, "the summary", "findings", "findings", cuprof_finding, s->findings, s->n_findings,
              CUPROF_SCHEMA_FINDING, 0);
    return 0;
}

/* Optional integer >= 0; wrong types and negatives count as absent. */
static bool opt_count(json_t *obj, const char *key, int64_t *out)
{
    json_t *v = json_object_get(obj, key);
    if (!json_is_integer(v) || json_integer_value(v) < 0)
        return false;
    *out = (int64_t)json_integer_value(v);
    return true;
}

/* The optional fields of the GPU-timeline work: read what has the expected
 * shape, ignore the rest (their shape may still change). */
static void read_optional(json_t *root, summary *s)
{
    json_t *gpu = json_object_get(root, "gpu");
    if (json_is_object(gpu)) {
        s->has_gpu = true;
        s->gpu.has_busy_ns = opt_count(gpu, "busy_ns", &s->gpu.busy_ns);
        s->gpu.has_launch_latency_median_ns =
            opt_count(gpu, "launch_latency_median_ns", &s->gpu.launch_latency_median_ns);
        s->gpu.launch_latency_median_sketched =
            json_is_true(json_object_get(gpu, "launch_latency_median_sketched"));
        json_t *idle = json_object_get(gpu, "idle_share");
        if (json_is_number(idle)) {
            double d = json_number_value(idle);
            if (isfinite(d) && d >= 0.0 && d <= 1.0) {
                s->gpu.has_idle_share = true;
                s->gpu.idle_share = d;
            }
        }
    }
    json_t *it = json_object_get(root, "iterations");
    if (json_is_object(it))
        it = json_object_get(it, "count");
    if (json_is_integer(it) && json_integer_value(it) > 0) {
        s->has_iterations = true;
        s->iterations = (int64_t)json_integer_value(it);
    }
}

/* Checks "schema" before anything else, so a foreign file gets a message
 * about what it is rather than about its first odd field. */
static int check_schema(const reader *r, json_t *root)
{
    if (!json_is_object(root))
        return fail(r, TODO_SUMMARY, "not a cuprof summary (the top level is %s, expected an object)",
                    type_name(root));
    json_t *v = json_object_get(root, "schema");
    if (!v) {
        if (json_object_get(root, "traceEvents"))
            return fail(r, "pass the NAME.summary.json next to it",
                        "this is a Chrome trace (NAME.trace.json), not a summary");
        return fail(r, TODO_SUMMARY, "not a cuprof summary (it has no \"schema\" field)");
    }
    if (!json_is_string(v))
        return fail(r, TODO_SUMMARY, "not a cuprof summary (\"schema\" is %s)", type_name(v));
    const char *sv = json_string_value(v);
    if (strcmp(sv, SUMMARY_SCHEMA) == 0)
        return 0;
    if (strncmp(sv, "cuprof.summary/", 15) == 0)
        return fail(r, "read it with the cuprof that wrote it, or profile the program again",
                    "written for schema \"%.60s\", this tool reads \"" SUMMARY_SCHEMA "\"", sv);
    return fail(r, TODO_SUMMARY, "not a cuprof summary (schema \"%.60s\", expected \"" SUMMARY_SCHEMA "\")",
                sv);
}

static int read_root(const reader *r, json_t *root, summary *s)
{
    if (check_schema(r, root) || get_str(r, root, "the summary", "program", &s->program))
        return -1;
    size_t argc = 0;
    json_t *argv = get_array(r, root, "the summary", "argv", &argc);
    if (!argv || !(s->argv = alloc_rows(r, argc, sizeof *s->argv)))
        return -1;
    for (size_t i = 0; i < argc; i++) {
        json_t *a = json_array_get(argv, i);
        if (!json_is_string(a))
            return fail(r, TODO_REGEN, "argv[%zu] is %s, expected a string", i, type_name(a));
        if (!(s->argv[i] = strdup(json_string_value(a))))
            return fail(r, "free some memory and try again", "out of memory");
        s->argc = i + 1;
    }
    if (get_count(r, root, "the summary", "pid", &s->pid) ||
        get_count(r, root, "the summary", "wall_ns", &s->wall_ns))
        return -1;
    json_t *gt = need(r, root, "the summary", "gpu_timeline");
    if (!gt)
        return -1;
    if (!json_is_object(gt))
        return fail(r, TODO_REGEN, "gpu_timeline is %s, expected an object", type_name(gt));
    json_t *cap = need(r, gt, "gpu_timeline", "captured");
    if (!cap)
        return -1;
    if (!json_is_boolean(cap))
        return fail(r, TODO_REGEN, "gpu_timeline.captured is %s, expected a boolean",
                    type_name(cap));
    s->gpu_captured = json_is_true(cap);
    if (get_str(r, gt, "gpu_timeline", "reason", &s->gpu_reason) || read_rows(r, root, s))
        return -1;
    read_optional(root, s);
    return 0;
}

/* Turns a jansson error into a line that says what kind of damage it is. */
static int parse_error(const reader *r, const json_error_t *je)
{
    switch (json_error_code(je)) {
    case json_error_premature_end_of_input:
        return fail(r, TODO_RERUN, "the JSON is truncated (it ends inside a value at line %d)",
                    je->line);
    case json_error_invalid_utf8:
    case json_error_null_character:
        return fail(r, TODO_SUMMARY, "binary data, not JSON text (at byte %d)", je->position);
    case json_error_numeric_overflow:
        return fail(r, TODO_REGEN, "a number at line %d, column %d is too large for 64 bits",
                    je->line, je->column);
    case json_error_duplicate_key:
        return fail(r, TODO_REGEN, "a field appears twice (%s, line %d)", je->text, je->line);
    case json_error_end_of_input_expected:
        return fail(r, TODO_RERUN, "extra data after the JSON object at line %d", je->line);
    default:
        return fail(r, TODO_SUMMARY, "not valid JSON (%s at line %d, column %d)", je->text,
                    je->line, je->column);
    }
}

int cmp_summary_parse(const char *data, size_t len, const char *label, summary **out,
                  char *err, size_t errlen)
{
    reader r = {.label = label ? label : "(input)", .err = err, .errlen = errlen};
    *out = NULL;
    size_t i = 0;
    while (i < len && (data[i] == ' ' || data[i] == '\n' || data[i] == '\r' || data[i] == '\t'))
        i++;
    if (i == len)
        return fail(&r, TODO_RERUN, "the file is empty");
    const char *nul = memchr(data, 0, len);
    if (nul)
        return fail(&r, TODO_SUMMARY, "binary data, not JSON text (a zero byte at byte %zu)",
                    (size_t)(nul - data));
    if (len > SUMMARY_MAX_BYTES)
        return fail(&r, TODO_SUMMARY, "%zu bytes is too large for a summary", len);

    json_error_t je;
    json_t *root = json_loadb(data, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return parse_error(&r, &je);
    summary *s = calloc(1, sizeof *s);
    int rc = -1;
    if (!s)
        fail(&r, "free some memory and try again", "out of memory");
    else if (!(s->path = strdup(r.label)))
        fail(&r, "free some memory and try again", "out of memory");
    else
        rc = read_root(&r, root, s);
    json_decref(root);
    if (rc) {
        cmp_summary_destroy(s);
        return -1;
    }
    *out = s;
    return 0;
}

int cmp_summary_load(const char *path, summary **out, char *err, size_t errlen)
{
    reader r = {.label = path, .err = err, .errlen = errlen};
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0)
        return fail(&r, TODO_SUMMARY, "%s", strerror(errno));
    if (!S_ISREG(st.st_mode))
        return fail(&r, TODO_SUMMARY, "not a regular file");
    if ((size_t)st.st_size > SUMMARY_MAX_BYTES)
        return fail(&r, TODO_SUMMARY, "%lld bytes is too large for a summary",
                    (long long)st.st_size);
    FILE *f = fopen(path, "rb");
    if (!f)
        return fail(&r, "check its permissions", "cannot open it (%s)", strerror(errno));
    size_t cap = (size_t)st.st_size + 1, len = 0;
    char *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return fail(&r, "free some memory and try again", "out of memory");
    }
    /* Read to EOF rather than trusting st_size: the writer may still be
     * appending, and we want to see exactly what is there now. */
    for (;;) {
        if (len == cap) {
            if (cap > SUMMARY_MAX_BYTES) {
                free(buf);
                fclose(f);
                return fail(&r, TODO_SUMMARY, "the file is too large for a summary");
            }
            char *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return fail(&r, "free some memory and try again", "out of memory");
            }
            buf = nb;
            cap *= 2;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return fail(&r, "check the file and the disk", "read error");
    }
    int rc = cmp_summary_parse(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

/* Frees what a listed field owns: a string's copy. */
static void free_STR(const char **p) { free((char *)*p); }
static void free_U64(const uint64_t *p) { (void)p; }
static void free_U32(const uint32_t *p) { (void)p; }
static void free_FIX6(const double *p) { (void)p; }
static void free_BOOL(const int *p) { (void)p; }

#define FREE_FIELD(KIND, m, WHEN) free_##KIND(&row_->m);
#define FREE_ROWS(type, rows, n, LIST, extra)                  \
    do {                                                    \
        for (size_t i_ = 0; i_ < (n); i_++) {               \
            type *row_ = &(rows)[i_];                       \
            LIST(FREE_FIELD)                                \
            { type *row = row_; (void)row; extra; }         \
        }                                                   \
        free(rows);                                         \
    } while (0)

void cmp_summary_destroy(summary *s)
{
    if (!s)
        return;
    free(s->path);
    free(s->program);
    for (size_t i = 0; i < s->argc; i++)
        free(s->argv[i]);
    free(s->argv);
    free(s->gpu_reason);
    FREE_ROWS(cuprof_stat_api, s->api, s->n_api, CUPROF_SCHEMA_API, (void)0);
    FREE_ROWS(cuprof_stat_kernel, s->kernels, s->n_kernels, CUPROF_SCHEMA_KERNEL, (void)0);
    FREE_ROWS(cuprof_stat_copy, s->copies, s->n_copies, CUPROF_SCHEMA_COPY, (void)0);
    FREE_ROWS(cuprof_stat_blas, s->blas, s->n_blas, CUPROF_SCHEMA_BLAS,
              FREE_ROWS(cuprof_stat_shape, row->shapes, row->nshapes, CUPROF_SCHEMA_SHAPE,
                        (void)0));
    FREE_ROWS(cuprof_stat_range, s->ranges, s->n_ranges, CUPROF_SCHEMA_RANGE, (void)0);
    FREE_ROWS(cuprof_stat_site, s->sites, s->n_sites, CUPROF_SCHEMA_SITE, (void)0);
    FREE_ROWS(cuprof_stat_step, s->steps, s->n_steps, CUPROF_SCHEMA_STEP, (void)0);
    FREE_ROWS(cuprof_finding, s->findings, s->n_findings, CUPROF_SCHEMA_FINDING, (void)0);
    free(s);
}
