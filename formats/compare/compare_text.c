/* compare_text.c - the side-by-side table of cuprof-compare; see compare.h. */
#include "formats/compare/compare.h"
#include "model/quantile.h"

#include <inttypes.h>
#include <string.h>

#define CELL 12         /* width of a value column */
#define NAME_MIN 30     /* narrowest name column */
#define NAME_MAX 64     /* widest; longer names are cut with "..." */

/* Output state: where to write and how wide the name column is. */
typedef struct text_out {
    FILE *f;
    const compare *c;
    int name_w;
} text_out;

static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

static const char *sign_of(int64_t v, int sign)
{
    return !sign || v == 0 ? "" : v < 0 ? "-" : "+";
}

void cmp_fmt_time(char *buf, size_t len, int64_t ns, int sign)
{
    uint64_t m = magnitude(ns);
    const char *sg = sign_of(ns, sign);
    if (!sign && ns < 0)
        sg = "-";
    if (m < 1000)
        snprintf(buf, len, "%s%" PRIu64 "ns", sg, m);
    else if (m < 1000000)
        snprintf(buf, len, "%s%.3fus", sg, (double)m / 1e3);
    else if (m < 1000000000)
        snprintf(buf, len, "%s%.3fms", sg, (double)m / 1e6);
    else
        snprintf(buf, len, "%s%.3fs", sg, (double)m / 1e9);
}

void cmp_fmt_bytes(char *buf, size_t len, int64_t bytes, int sign)
{
    static const char *const unit[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    uint64_t m = magnitude(bytes);
    const char *sg = sign_of(bytes, sign);
    if (!sign && bytes < 0)
        sg = "-";
    if (m < 1024) {
        snprintf(buf, len, "%s%" PRIu64 "B", sg, m);
        return;
    }
    double d = (double)m / 1024.0;
    size_t u = 0;
    while (d >= 1024.0 && u + 1 < sizeof unit / sizeof unit[0]) {
        d /= 1024.0;
        u++;
    }
    snprintf(buf, len, "%s%.2f%s", sg, d, unit[u]);
}

/* One value (or delta, with sign) in the series' unit. */
static void fmt_value(char *buf, size_t len, cmp_unit unit, int64_t v, int sign)
{
    switch (unit) {
    case CMP_NS:
        cmp_fmt_time(buf, len, v, sign);
        return;
    case CMP_BYTES:
        cmp_fmt_bytes(buf, len, v, sign);
        return;
    case CMP_PPM:
        snprintf(buf, len, sign ? "%+.1fpp" : "%.1f%%", (double)v / 1e4);
        return;
    case CMP_MILLI:
        snprintf(buf, len, sign ? "%+.2f" : "%.2f", (double)v / 1e3);
        return;
    case CMP_COUNT:
        snprintf(buf, len, sign && v > 0 ? "+%" PRId64 : "%" PRId64, v);
        return;
    }
}

static void fmt_ratio(char *buf, size_t len, int64_t base, int64_t v)
{
    if (base == 0) {
        snprintf(buf, len, "-");
        return;
    }
    double r = (double)v / (double)base;
    if (r < 100.0)
        snprintf(buf, len, "%.2fx", r);
    else if (r < 1e5)
        snprintf(buf, len, "%.0fx", r);
    else
        snprintf(buf, len, "%.1ex", r);
}

/* Copies s into buf (cut in the middle to width with "...", control bytes as
 * '?'), so a kernel name cannot break the table or drive the terminal. The
 * middle goes because GEMM kernel names differ in their tails ("_bias_..."). */
static void clean(char *buf, size_t len, const char *s, size_t width)
{
    size_t n = strlen(s), o = 0;
    if (width >= len)
        width = len - 1;
    size_t head = n, tail = 0;
    if (n > width) {
        head = width > 3 ? (width - 3) / 2 : 0;
        tail = width > 3 ? width - 3 - head : 0;
    }
    for (size_t i = 0; i < n && o < width; i++) {
        if (i == head && n > width) {
            for (int d = 0; d < 3 && o < width; d++)
                buf[o++] = '.';
            i = n - tail;
            if (i >= n)
                break;
        }
        buf[o++] = ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) ? '?' : s[i];
    }
    buf[o] = 0;
}

/* Prints one table row: label, one cell per run ("~" before a median its
 * run sketched, as summary.txt marks it), then delta and ratio of each
 * later run against run 0 ("-" where either lacks the number). */
static void row(const text_out *t, int indent, const char *label, cmp_unit unit,
                const cmp_series *s)
{
    char name[NAME_MAX + 1], cell[48];
    clean(name, sizeof name, label, (size_t)(t->name_w - indent));
    fprintf(t->f, "%*s%-*s", indent, "", t->name_w - indent, name);
    for (size_t r = 0; r < t->c->n_runs; r++) {
        if (s->has & (1u << r)) {
            size_t off = (s->sketched >> r) & 1u;   /* 1: room for the '~' */
            cell[0] = '~';
            fmt_value(cell + off, sizeof cell - off, unit, s->v[r], 0);
        } else
            strcpy(cell, "-");
        fprintf(t->f, " %*s", CELL, cell);
    }
    bool base = s->has & 1u;
    for (size_t r = 1; r < t->c->n_runs; r++) {
        char ratio[48];
        if (base && (s->has & (1u << r))) {
            fmt_value(cell, sizeof cell, unit, s->v[r] - s->v[0], 1);
            fmt_ratio(ratio, sizeof ratio, s->v[0], s->v[r]);
        } else {
            strcpy(cell, "-");
            strcpy(ratio, "-");
        }
        fprintf(t->f, " %*s %*s", CELL, cell, 8, ratio);
    }
    fputc('\n', t->f);
}

static bool series_has_nonzero(const cmp_series *s)
{
    for (size_t r = 0; r < CMP_MAX_RUNS; r++)
        if ((s->has & (1u << r)) && s->v[r])
            return true;
    return false;
}

static void header(const text_out *t)
{
    const compare *c = t->c;
    fprintf(t->f, "cuprof compare: %zu runs; deltas and ratios against A\n", c->n_runs);
    for (size_t r = 0; r < c->n_runs; r++) {
        char name[NAME_MAX + 1], path[512];
        clean(name, sizeof name, c->names[r], NAME_MAX);
        clean(path, sizeof path, c->runs[r]->path, sizeof path - 1);
        fprintf(t->f, "  %c  %-*s  %s\n", compare_letter(r), t->name_w - 5, name, path);
        if (!c->runs[r]->gpu_captured) {
            char why[256];
            clean(why, sizeof why, c->runs[r]->gpu_reason[0] ? c->runs[r]->gpu_reason
                                                               : "no reason given",
                  sizeof why - 1);
            fprintf(t->f, "     no GPU timeline: %s\n", why);
        }
    }
    fprintf(t->f, "\n%-*s", t->name_w, "");
    for (size_t r = 0; r < c->n_runs; r++)
        fprintf(t->f, " %*c", CELL, compare_letter(r));
    for (size_t r = 1; r < c->n_runs; r++) {
        char d[8], q[8];
        snprintf(d, sizeof d, "%c-A", compare_letter(r));
        snprintf(q, sizeof q, "%c/A", compare_letter(r));
        fprintf(t->f, " %*s %*s", CELL, d, 8, q);
    }
    fputc('\n', t->f);
}

static void section(const text_out *t, const char *title)
{
    fprintf(t->f, "%s\n", title);
}

static void overview(const text_out *t)
{
    const compare *c = t->c;
    section(t, "Overview");
    for (size_t i = 0; i < c->n_overview; i++)
        row(t, 2, c->overview[i].label, c->overview[i].unit, &c->overview[i].s);
    if (c->per_iteration) {
        char title[96];
        snprintf(title, sizeof title, "Per iteration (%" PRId64 " iterations in every run)",
                 c->iterations);
        section(t, title);
        for (size_t i = 0; i < c->n_per_iter; i++)
            row(t, 2, c->per_iter[i].label, c->per_iter[i].unit, &c->per_iter[i].s);
    } else if (c->iteration_note) {
        fprintf(t->f, "Per iteration: not shown, %s\n", c->iteration_note);
    }
}

/* "A, C" for the runs in mask. */
static void run_list(char *buf, size_t len, uint32_t mask, size_t n)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t r = 0; r < n && used < len; r++)
        if (mask & (1u << r)) {
            int w = snprintf(buf + used, len - used, "%s%c", used ? ", " : "", compare_letter(r));
            used += w > 0 ? (size_t)w : 0;
        }
}

size_t cmp_presence_text(const compare *c, size_t i, char *buf, size_t len)
{
    const cmp_presence *p = &c->presence[i];
    uint32_t all = (uint32_t)((1ull << c->n_runs) - 1), gone = all & ~p->in;
    char runs[96];
    size_t used;
    int w;
#define ADVANCE() (used += w > 0 ? (size_t)w : 0, used = used < len ? used : len - 1)
    if (__builtin_popcount(p->in) == 1) {
        size_t r = (size_t)__builtin_ctz(p->in);
        w = snprintf(buf, len, "only in %c: %s (%" PRId64 " launch%s)", compare_letter(r),
                     p->name, p->launches[r], p->launches[r] == 1 ? "" : "es");
        used = 0;
        ADVANCE();
        if (r == 0) {
            run_list(runs, sizeof runs, gone, c->n_runs);
            w = snprintf(buf + used, len - used, "; gone from %s", runs);
            ADVANCE();
        }
        return used;
    }
    run_list(runs, sizeof runs, gone, c->n_runs);
    w = snprintf(buf, len, "missing from %s: %s (", runs, p->name);
    used = 0;
    ADVANCE();
    bool first = true;
    for (size_t r = 0; r < c->n_runs; r++)
        if (p->in & (1u << r)) {
            w = snprintf(buf + used, len - used, "%s%c: %" PRId64, first ? "" : ", ",
                         compare_letter(r), p->launches[r]);
            ADVANCE();
            first = false;
        }
    w = snprintf(buf + used, len - used, " launches)");
    ADVANCE();
#undef ADVANCE
    return used;
}

static void differences(const text_out *t)
{
    const compare *c = t->c;
    if (!c->n_presence && !c->n_epilogues)
        return;
    section(t, "Differences");
    for (size_t i = 0; i < c->n_presence; i++) {
        char raw[4608], line[4608];
        cmp_presence_text(c, i, raw, sizeof raw);
        clean(line, sizeof line, raw, sizeof line - 1);
        fprintf(t->f, "  %s\n", line);
    }
    for (size_t i = 0; i < c->n_epilogues; i++) {
        char line[512];
        clean(line, sizeof line, c->epilogues[i].sentence, sizeof line - 1);
        fprintf(t->f, "  %s\n", line);
    }
}

static void api_table(const text_out *t)
{
    const compare *c = t->c;
    if (!c->n_api)
        return;
    section(t, "Runtime calls by name: calls, then CPU total");
    for (size_t i = 0; i < c->n_api; i++) {
        const cmp_api_row *a = &c->api[i];
        row(t, 2, a->name, CMP_COUNT, &a->calls);
        row(t, 4, "CPU total", CMP_NS, &a->cpu_total_ns);
        if (series_has_nonzero(&a->errors))
            row(t, 4, "errors", CMP_COUNT, &a->errors);
    }
}

static void blas_table(const text_out *t)
{
    const compare *c = t->c;
    if (!c->n_blas)
        return;
    section(t, "cuBLAS / cuBLASLt calls, by shape (m x n x k, dtype, epilogue)");
    for (size_t i = 0; i < c->n_blas; i++) {
        row(t, 2, c->blas[i].name, CMP_COUNT, &c->blas[i].calls);
        for (size_t j = 0; j < c->n_shapes; j++) {
            const cmp_shape_row *s = &c->shapes[j];
            if (strcmp(s->blas, c->blas[i].name) != 0)
                continue;
            char label[256], batch[32] = "";
            if (s->batch > 1)
                snprintf(batch, sizeof batch, " batch %" PRId64, s->batch);
            snprintf(label, sizeof label, "%" PRId64 "x%" PRId64 "x%" PRId64 "%s %s %s", s->m,
                     s->n, s->k, batch, s->dtype[0] ? s->dtype : "?",
                     s->epilogue[0] ? s->epilogue : "DEFAULT");
            row(t, 4, label, CMP_COUNT, &s->calls);
        }
    }
}

static void copy_table(const text_out *t)
{
    const compare *c = t->c;
    if (!c->n_copies)
        return;
    section(t, "Copies by direction: calls, bytes, GPU time");
    for (size_t i = 0; i < c->n_copies; i++) {
        const cmp_copy_row *k = &c->copies[i];
        row(t, 2, k->kind, CMP_COUNT, &k->calls);
        row(t, 4, "bytes", CMP_BYTES, &k->bytes);
        row(t, 4, "GPU time", CMP_NS, &k->gpu_total_ns);
    }
}

static void kernel_table(const text_out *t)
{
    const compare *c = t->c;
    if (!c->n_kernels)
        return;
    section(t, "Kernels: launches, GPU total and median per kernel");
    for (size_t i = 0; i < c->n_kernels; i++) {
        const cmp_kernel_row *k = &c->kernels[i];
        /* The full name on a line of its own: GEMM variants differ only in
         * the middle of long names, so any cut could make two look alike. */
        char name[4096];
        clean(name, sizeof name, k->name, sizeof name - 1);
        fprintf(t->f, "  %s\n", name);
        row(t, 4, "launches", CMP_COUNT, &k->launches);
        row(t, 4, "total", CMP_NS, &k->gpu_total_ns);
        row(t, 4, "median", CMP_NS, &k->median_ns);
    }
}

static void ranges_table(const text_out *t)
{
    const compare *c = t->c;
    if (c->has_steps) {
        section(t, "Steps (each run's step range)");
        row(t, 2, "steps", CMP_COUNT, &c->steps.steps);
        row(t, 2, "median step", CMP_NS, &c->steps.median_ns);
        row(t, 2, "first step", CMP_NS, &c->steps.first_ns);
        if (series_has_nonzero(&c->steps.steady_median_ns))
            row(t, 2, "after the first", CMP_NS, &c->steps.steady_median_ns);
        if (c->steps.busy_ppm.has)
            row(t, 2, "GPU busy", CMP_PPM, &c->steps.busy_ppm);
    }
    if (!c->n_ranges)
        return;
    section(t, "NVTX ranges: occurrences, CPU and GPU time inside");
    for (size_t i = 0; i < c->n_ranges; i++) {
        const cmp_range_row *x = &c->ranges[i];
        char label[512];
        snprintf(label, sizeof label, "%s%s%s", x->name[0] ? x->name : "(unnamed)",
                 x->domain[0] ? "@" : "", x->domain);
        row(t, 2, label, CMP_COUNT, &x->calls);
        row(t, 4, "CPU total", CMP_NS, &x->cpu_total_ns);
        if (x->gpu_total_ns.has)
            row(t, 4, "GPU total", CMP_NS, &x->gpu_total_ns);
        row(t, 4, "median", CMP_NS, &x->median_ns);
    }
}

/* Launch sites (runs with --stacks): where in the program GPU time was
 * gained or lost, the largest change first. */
#define SITES_SHOWN 12
static void sites_table(const text_out *t)
{
    const compare *c = t->c;
    if (!c->n_sites)
        return;
    section(t, "Launch sites (--stacks): GPU time of the work each site's calls caused");
    size_t n = c->n_sites < SITES_SHOWN ? c->n_sites : SITES_SHOWN;
    for (size_t i = 0; i < n; i++) {
        const cmp_site_row *x = &c->sites[i];
        row(t, 2, x->site, CMP_NS, &x->gpu_total_ns);
        row(t, 4, "kernels", CMP_COUNT, &x->kernels);
        row(t, 4, "calls", CMP_COUNT, &x->calls);
    }
    if (c->n_sites > n)
        fprintf(t->f, "  ... %zu more sites (compare --json lists them all)\n", c->n_sites - n);
}

static void findings_table(const text_out *t)
{
    const compare *c = t->c;
    if (!c->n_findings)
        return;
    section(t, "Findings (severity per run)");
    for (size_t i = 0; i < c->n_findings; i++) {
        char name[NAME_MAX + 1], sev[CELL + 1];
        clean(name, sizeof name, c->findings[i].rule, (size_t)t->name_w - 2);
        fprintf(t->f, "  %-*s", t->name_w - 2, name);
        for (size_t r = 0; r < c->n_runs; r++) {
            const char *s = c->findings[i].severity[r];
            clean(sev, sizeof sev, s ? s : "-", CELL);
            fprintf(t->f, " %*s", CELL, sev);
        }
        fputc('\n', t->f);
    }
}

/* Name column: as wide as the longest label needs, within bounds. */
static int name_width(const compare *c)
{
    size_t w = NAME_MIN;
    for (size_t i = 0; i < c->n_api; i++)
        w = strlen(c->api[i].name) + 2 > w ? strlen(c->api[i].name) + 2 : w;
    for (size_t i = 0; i < c->n_runs; i++)
        w = strlen(c->names[i]) + 5 > w ? strlen(c->names[i]) + 5 : w;
    for (size_t i = 0; i < c->n_sites; i++)   /* "function (file:line)": the line must show */
        w = strlen(c->sites[i].site) + 2 > w ? strlen(c->sites[i].site) + 2 : w;
    return (int)(w > NAME_MAX ? NAME_MAX : w);
}

int cmp_print_text(const compare *c, FILE *out)
{
    text_out t = {.f = out, .c = c, .name_w = name_width(c)};
    header(&t);
    overview(&t);
    differences(&t);
    api_table(&t);
    blas_table(&t);
    copy_table(&t);
    kernel_table(&t);
    ranges_table(&t);
    sites_table(&t);
    findings_table(&t);
    if (c->sketched)   /* only then: the tables of exact runs stay as they were */
        fprintf(out, "~ median: approximate, within %.2f%% (that run's summary.json marks it "
                     "median_sketched: more samples than its exact bound, so a log-bucket sketch); "
                     "deltas and ratios with it are approximate too\n",
                100.0 * CUPROF_QUANTILE_REL_ERR);
    fflush(out);
    return ferror(out) ? -1 : 0;
}
