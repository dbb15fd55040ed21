/*
 * flame.c - the host-stack outputs of a run with stacks (--stacks), from
 * model/stacks.h's rows:
 *
 *   NAME.gpu.folded     folded stacks weighted by GPU ns (flamegraph.pl,
 *                       speedscope, inferno): "outer;...;inner;API;KERNEL NS"
 *   NAME.cpu.folded     the same weighted by CPU ns in the calls: "...;API NS"
 *   NAME.calls.folded   ... by number of calls (CUPROF_STACKS_COUNTS=1)
 *   NAME.speedscope.json  the GPU and CPU weights (and the calls) as
 *                       speedscope "sampled" profiles over shared frames
 *
 * A stack reads outermost frame first. Identical lines (two call sites in
 * one function) are merged. ';' inside a name becomes ':' (the separator).
 */
#include "formats/writer.h"

#include <stdlib.h>
#include <string.h>

static const char NO_STACK[] = "[no host stack]";

/* One line of a folded file before merging: its frames as names. */
typedef struct line {
    char *text;                  /* "a;b;c" (malloc'd) */
    uint64_t value;
} line;

static char *put_name(char *w, const char *s)
{
    for (; *s; s++)
        *w++ = *s == ';' || *s == '\n' ? ':' : *s;
    return w;
}

/* "outer;...;inner;api[;leaf]" of a row; NULL on out of memory. */
static char *row_text(const cuprof_stacks *st, const cuprof_stack_row *r)
{
    const cuprof_run *run = st->run;
    const cuprof_run_stack *s = r->stack && r->stack <= run->nstacks ? &run->stacks[r->stack]
                                                                    : NULL;
    const char *api = cuprof_stacks_api_name(st, r);
    size_t len = strlen(api) + (r->leaf ? strlen(r->leaf) + 1 : 0) + 2;
    if (s)
        for (uint32_t k = 0; k < s->n; k++)
            len += strlen(st->frame[s->frames[k]]) + 1;
    else
        len += sizeof NO_STACK;
    char *t = malloc(len), *w = t;
    if (!t)
        return NULL;
    if (s)
        for (uint32_t k = s->n; k > 0; k--) {
            w = put_name(w, st->frame[s->frames[k - 1]]);
            *w++ = ';';
        }
    else {
        w = put_name(w, NO_STACK);
        *w++ = ';';
    }
    w = put_name(w, api);
    if (r->leaf) {
        *w++ = ';';
        w = put_name(w, r->leaf);
    }
    *w = '\0';
    return t;
}

static int line_cmp(const void *a, const void *b)
{
    return strcmp(((const line *)a)->text, ((const line *)b)->text);
}

enum weight { W_GPU, W_CPU, W_CALLS };

/* The merged lines of one weight, sorted by text. */
static line *lines_build(const cuprof_stacks *st, enum weight wt, size_t *n_out)
{
    const cuprof_stack_row *rows = wt == W_GPU ? st->gpu : st->cpu;
    size_t n = wt == W_GPU ? st->ngpu : st->ncpu, k = 0;
    line *v = calloc(n ? n : 1, sizeof *v);
    if (!v)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (!(v[i].text = row_text(st, &rows[i]))) {
            for (size_t j = 0; j < i; j++)
                free(v[j].text);
            free(v);
            return NULL;
        }
        v[i].value = wt == W_CALLS ? rows[i].count : rows[i].ns;
    }
    qsort(v, n, sizeof *v, line_cmp);
    for (size_t i = 0; i < n; i++) {
        if (k > 0 && !strcmp(v[k - 1].text, v[i].text)) {
            v[k - 1].value += v[i].value;
            free(v[i].text);
        }
        else
            v[k++] = v[i];
    }
    *n_out = k;
    return v;
}

static void lines_free(line *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].text);
    free(v);
}

static int write_folded(cuprof_writer *w, enum weight wt)
{
    size_t n;
    line *v = lines_build(w->model->stacks, wt, &n);
    if (!v)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (v[i].value == 0)
            continue;   /* an empty line would show as a zero-width frame */
        cuprof_out_puts(w->out, v[i].text);
        cuprof_out_putc(w->out, ' ');
        cuprof_out_u64(w->out, v[i].value);
        cuprof_out_putc(w->out, '\n');
    }
    lines_free(v, n);
    return 0;
}

static int value_desc(const void *a, const void *b)
{
    uint64_t x = ((const line *)a)->value, y = ((const line *)b)->value;
    return x < y ? 1 : x > y ? -1 : strcmp(((const line *)a)->text, ((const line *)b)->text);
}

int cuprof_flame_json(cuprof_out *o, const cuprof_model *m, size_t max_lines)
{
    size_t n;
    line *v = lines_build(m->stacks, W_GPU, &n);
    if (!v)
        return -1;
    qsort(v, n, sizeof *v, value_desc);
    uint64_t rest = 0;
    size_t wrote = 0;
    cuprof_out_putc(o, '[');
    for (size_t i = 0; i < n; i++) {
        if (v[i].value == 0)
            continue;
        if (wrote == max_lines) {
            rest += v[i].value;
            continue;
        }
        cuprof_out_puts(o, wrote++ ? ",[" : "[");
        cuprof_out_json_cstr(o, v[i].text);
        cuprof_out_putc(o, ',');
        cuprof_out_u64(o, v[i].value);
        cuprof_out_putc(o, ']');
    }
    if (rest) {
        cuprof_out_puts(o, wrote ? ",[\"[other stacks]\"," : "[\"[other stacks]\",");
        cuprof_out_u64(o, rest);
        cuprof_out_putc(o, ']');
    }
    cuprof_out_putc(o, ']');
    lines_free(v, n);
    return 0;
}

static int write_gpu(cuprof_writer *w) { return write_folded(w, W_GPU); }
static int write_cpu(cuprof_writer *w) { return write_folded(w, W_CPU); }
static int write_calls(cuprof_writer *w) { return write_folded(w, W_CALLS); }

static int has_stacks(const cuprof_model *m)
{
    return m->stacks && m->run->nstacks > 0;
}

static int wants_calls(const cuprof_model *m)
{
    return has_stacks(m) && m->run->stacks_counts;
}

const cuprof_writer_ops cuprof_gpu_folded_ops = {
    .suffix = "gpu.folded", .size = sizeof(cuprof_writer), .write = write_gpu,
    .wanted = has_stacks,
};
const cuprof_writer_ops cuprof_cpu_folded_ops = {
    .suffix = "cpu.folded", .size = sizeof(cuprof_writer), .write = write_cpu,
    .wanted = has_stacks,
};
const cuprof_writer_ops cuprof_calls_folded_ops = {
    .suffix = "calls.folded", .size = sizeof(cuprof_writer), .write = write_calls,
    .wanted = wants_calls,
};

/* ---- speedscope ---------------------------------------------------------- */

/* Frame names of the file: every name of every line, once (sorted for
 * lookup by binary search). */
typedef struct names {
    const char **v;
    size_t n;
} names;

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static size_t name_index(const names *nm, const char *s)
{
    size_t lo = 0, hi = nm->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(nm->v[mid], s);
        if (c == 0)
            return mid;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

/* Splits each line's text in place at ';' (the lines are the file's, not
 * the model's) and collects the distinct names. */
static int names_collect(names *nm, line *const *sets, const size_t *ns, int nsets)
{
    size_t total = 0;
    for (int s = 0; s < nsets; s++)
        for (size_t i = 0; i < ns[s]; i++) {
            total++;
            for (const char *c = sets[s][i].text; *c; c++)
                total += *c == ';';
        }
    nm->v = malloc((total ? total : 1) * sizeof *nm->v);
    if (!nm->v)
        return -1;
    nm->n = 0;
    for (int s = 0; s < nsets; s++)
        for (size_t i = 0; i < ns[s]; i++) {
            char *c = sets[s][i].text;
            nm->v[nm->n++] = c;
            for (; *c; c++)
                if (*c == ';') {
                    *c = '\0';
                    nm->v[nm->n++] = c + 1;
                }
        }
    qsort(nm->v, nm->n, sizeof *nm->v, str_cmp);
    size_t k = 0;
    for (size_t i = 0; i < nm->n; i++)
        if (k == 0 || strcmp(nm->v[k - 1], nm->v[i]))
            nm->v[k++] = nm->v[i];
    nm->n = k;
    return 0;
}

/* Names of a split line: the NUL-separated parts of text, count parts. */
static void write_profile(cuprof_out *o, const names *nm, const line *v, size_t n,
                          const char *title, const char *unit, const size_t *parts)
{
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += v[i].value;
    cuprof_out_puts(o, "{\"type\":\"sampled\",\"name\":");
    cuprof_out_json_cstr(o, title);
    cuprof_out_printf(o, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":", unit);
    cuprof_out_u64(o, total);
    cuprof_out_puts(o, ",\"samples\":[");
    for (size_t i = 0; i < n; i++) {
        cuprof_out_puts(o, i ? ",[" : "[");
        const char *p = v[i].text;
        for (size_t k = 0; k < parts[i]; k++) {
            if (k)
                cuprof_out_putc(o, ',');
            cuprof_out_u64(o, name_index(nm, p));
            p += strlen(p) + 1;
        }
        cuprof_out_putc(o, ']');
    }
    cuprof_out_puts(o, "],\"weights\":[");
    for (size_t i = 0; i < n; i++) {
        if (i)
            cuprof_out_putc(o, ',');
        cuprof_out_u64(o, v[i].value);
    }
    cuprof_out_puts(o, "]}");
}

static size_t *count_parts(const line *v, size_t n)
{
    size_t *p = malloc((n ? n : 1) * sizeof *p);
    for (size_t i = 0; p && i < n; i++) {
        p[i] = 1;
        for (const char *c = v[i].text; *c; c++)
            p[i] += *c == ';';
    }
    return p;
}

/* A frame named "function (file:LINE)" (model/stacks.h) also gets
 * speedscope's "file" and "line", which its detail pane shows. */
static void put_where(cuprof_out *o, const char *name)
{
    size_t n = strlen(name);
    if (n < 5 || name[n - 1] != ')')
        return;
    const char *colon = name + n - 1;
    while (colon > name && colon[-1] >= '0' && colon[-1] <= '9')
        colon--;
    if (colon == name + n - 1 || colon <= name || colon[-1] != ':')
        return;
    colon--;
    const char *open = colon;
    while (open > name && *open != '(')
        open--;
    if (open <= name || open[-1] != ' ' || open + 1 >= colon)
        return;
    char file[512];
    size_t len = (size_t)(colon - open - 1);
    if (len >= sizeof file)
        return;
    memcpy(file, open + 1, len);
    file[len] = '\0';
    cuprof_out_puts(o, ",\"file\":");
    cuprof_out_json_cstr(o, file);
    cuprof_out_puts(o, ",\"line\":");
    cuprof_out_u64(o, strtoull(colon + 1, NULL, 10));
}

static int write_speedscope(cuprof_writer *w)
{
    const cuprof_stacks *st = w->model->stacks;
    line *sets[3] = {0};
    size_t ns[3] = {0}, *parts[3] = {0};
    names nm = {0};
    int rc = -1;
    if (!(sets[0] = lines_build(st, W_GPU, &ns[0])) ||
        !(sets[1] = lines_build(st, W_CPU, &ns[1])) ||
        !(sets[2] = lines_build(st, W_CALLS, &ns[2])))
        goto out;
    for (int s = 0; s < 3; s++)
        if (!(parts[s] = count_parts(sets[s], ns[s])))
            goto out;
    if (names_collect(&nm, sets, ns, 3) < 0)
        goto out;
    cuprof_out *o = w->out;
    cuprof_out_puts(o, "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\","
                       "\"exporter\":\"cuprof ");
    cuprof_out_puts(o, cuprof_run_version(w->run));
    cuprof_out_puts(o, "\",\"name\":");
    cuprof_out_json_cstr(o, w->run->program ? w->run->program : "cuprof");
    cuprof_out_puts(o, ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[");
    for (size_t i = 0; i < nm.n; i++) {
        cuprof_out_puts(o, i ? ",{\"name\":" : "{\"name\":");
        cuprof_out_json_cstr(o, nm.v[i]);
        put_where(o, nm.v[i]);
        cuprof_out_putc(o, '}');
    }
    cuprof_out_puts(o, "]},\"profiles\":[");
    write_profile(o, &nm, sets[0], ns[0], "GPU time by host stack", "nanoseconds", parts[0]);
    cuprof_out_putc(o, ',');
    write_profile(o, &nm, sets[1], ns[1], "CPU time in CUDA calls by host stack", "nanoseconds",
                  parts[1]);
    cuprof_out_putc(o, ',');
    write_profile(o, &nm, sets[2], ns[2], "CUDA calls by host stack", "none", parts[2]);
    cuprof_out_puts(o, "]}\n");
    rc = 0;
out:
    free(nm.v);
    for (int s = 0; s < 3; s++) {
        free(parts[s]);
        if (sets[s])
            lines_free(sets[s], ns[s]);
    }
    return rc;
}

const cuprof_writer_ops cuprof_speedscope_ops = {
    .suffix = "speedscope.json", .size = sizeof(cuprof_writer), .write = write_speedscope,
    .wanted = has_stacks,
};
