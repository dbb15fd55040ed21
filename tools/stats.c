/*
 * stats.c - cuprof-stats (`prof.sh stats`): one report of a run's
 * summary.json as a table, CSV or JSON, sorted, filtered and cut, the way
 * `nsys stats` prints its reports.
 *
 *   prof.sh stats [--report api|kernels|copies|blas|ranges] [--sort COLUMN]
 *                 [--limit N] [--filter REGEX] [--csv|--json] NAME.summary.json
 *
 * A report is one array of summary.json (formats/SCHEMA.md): api (default:
 * the torch.profiler table's rows), kernels, copies, blas (one row per
 * GEMM shape), ranges. Its columns are the rows' keys; --sort takes any of
 * them, with or without "_ns" (cuda_total = cuda_total_ns): numbers largest
 * first, text in order. --filter keeps the rows whose name (kind for
 * copies) matches the extended regular expression. The table prints times
 * in torch.profiler's units; CSV and JSON keep the numbers as they are.
 *
 * --group-by-stack N (a run with --stacks): torch's
 * key_averages(group_by_stack_n=N): the api report's rows by entry point and
 * the N innermost user frames of the calls' stacks (Python frames and the
 * program's native ones, with file:line when known; not CUDA's libraries
 * nor cuprof: model/stacks.h), from summary.json's by_stack; sorted by
 * CUDA total unless --sort says otherwise. The stack column reads innermost
 * frame first, " <- " before each caller.
 */
#include "formats/units.h"

#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(const char *why)
{
    fprintf(stderr, "cuprof: stats: %s\n", why);
    fprintf(stderr, "cuprof: usage: prof.sh stats [--report api|kernels|copies|blas|ranges] "
                    "[--group-by-stack N] [--sort COLUMN] [--limit N] [--filter REGEX] "
                    "[--csv|--json] NAME.summary.json\n");
    return 2;
}

static const char *sort_key;   /* qsort has no context argument in C11 */

static int cmp_rows(const void *a, const void *b)
{
    json_t *x = json_object_get(*(json_t *const *)a, sort_key);
    json_t *y = json_object_get(*(json_t *const *)b, sort_key);
    if (json_is_number(x) && json_is_number(y)) {
        double dx = json_number_value(x), dy = json_number_value(y);
        return dx > dy ? -1 : dx < dy;
    }
    const char *sx = json_string_value(x), *sy = json_string_value(y);
    return strcmp(sx ? sx : "", sy ? sy : "");
}

/* The report's rows: the array, or for blas one row per shape. Owned. */
static json_t *report_rows(json_t *sum, const char *report)
{
    json_t *arr = json_object_get(sum, report);
    if (!json_is_array(arr))
        return NULL;
    json_t *rows = json_array();
    size_t i, j;
    json_t *r, *sh;
    json_array_foreach(arr, i, r) {
        json_t *shapes = json_object_get(r, "shapes");
        if (!strcmp(report, "blas") && json_is_array(shapes)) {
            json_array_foreach(shapes, j, sh) {
                json_t *row = json_object();
                json_object_set(row, "name", json_object_get(r, "name"));
                const char *k;
                json_t *v;
                json_object_foreach(sh, k, v)
                    if (!json_is_object(v) && !json_is_array(v))
                        json_object_set(row, k, v);
                json_array_append_new(rows, row);
            }
            continue;
        }
        json_t *row = json_object();
        const char *k;
        json_t *v;
        json_object_foreach(r, k, v)   /* flat columns only */
            if (!json_is_object(v) && !json_is_array(v))
                json_object_set(row, k, v);
        json_array_append_new(rows, row);
    }
    return rows;
}

static const char *frame_at(json_t *frames, size_t j)
{
    const char *f = json_string_value(json_array_get(frames, j));
    return f ? f : "";
}

/* The api report by entry point and the n innermost user frames, from
 * by_stack[] (NULL: the summary has no stacks). Owned. */
static json_t *stack_rows(json_t *sum, long n)
{
    json_t *arr = json_object_get(sum, "by_stack");
    if (!json_is_array(arr))
        return NULL;
    json_t *rows = json_array(), *r;
    size_t i, j;
    json_array_foreach(arr, i, r) {
        const char *api = json_string_value(json_object_get(r, "api"));
        json_t *frames = json_object_get(r, "frames");
        size_t len = 1;
        for (j = 0; j < json_array_size(frames) && (long)j < n; j++)
            len += strlen(frame_at(frames, j)) + 4;
        char *key = malloc(len);
        if (!key)
            break;
        key[0] = '\0';
        for (j = 0; j < json_array_size(frames) && (long)j < n; j++) {
            if (j)
                strcat(key, " <- ");
            strcat(key, frame_at(frames, j));
        }
        json_t *row = NULL, *x;
        size_t k;
        json_array_foreach(rows, k, x)
            if (!strcmp(json_string_value(json_object_get(x, "name")), api ? api : "") &&
                !strcmp(json_string_value(json_object_get(x, "stack")), key)) {
                row = x;
                break;
            }
        if (!row) {
            row = json_object();
            json_object_set_new(row, "name", json_string(api ? api : ""));
            json_object_set_new(row, "calls", json_integer(0));
            json_object_set_new(row, "cpu_total_ns", json_integer(0));
            json_object_set_new(row, "cuda_total_ns", json_integer(0));
            json_object_set_new(row, "stack", json_string(key));
            json_array_append_new(rows, row);
        }
        static const char *const sums[] = {"calls", "cpu_total_ns", "cuda_total_ns"};
        for (k = 0; k < 3; k++)
            json_object_set_new(row, sums[k],
                                json_integer(json_integer_value(json_object_get(row, sums[k])) +
                                             json_integer_value(json_object_get(r, sums[k]))));
        free(key);
    }
    return rows;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static void print_csv_cell(json_t *v)
{
    if (json_is_string(v)) {
        const char *s = json_string_value(v);
        if (strpbrk(s, ",\"\n")) {
            putchar('"');
            for (; *s; s++) {
                if (*s == '"')
                    putchar('"');
                putchar(*s);
            }
            putchar('"');
        } else {
            fputs(s, stdout);
        }
    } else if (json_is_integer(v)) {
        printf("%lld", (long long)json_integer_value(v));
    } else if (json_is_real(v)) {
        printf("%.6g", json_real_value(v));
    } else if (json_is_boolean(v)) {
        fputs(json_is_true(v) ? "true" : "false", stdout);
    }
}

/* A cell as the table shows it. */
static void cell_text(const char *col, json_t *v, char *buf, size_t len)
{
    if (json_is_integer(v) && ends_with(col, "_ns"))
        cuprof_fmt_time(buf, len, (uint64_t)json_integer_value(v));
    else if (json_is_integer(v) && !strcmp(col, "bytes"))
        cuprof_fmt_bytes(buf, len, (uint64_t)json_integer_value(v));
    else if (json_is_integer(v))
        snprintf(buf, len, "%lld", (long long)json_integer_value(v));
    else if (json_is_real(v))
        snprintf(buf, len, "%.2f", json_real_value(v));
    else if (json_is_string(v))
        snprintf(buf, len, "%s", json_string_value(v));
    else if (json_is_boolean(v))
        snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
    else
        buf[0] = '\0';
}

int main(int argc, char **argv)
{
    const char *report = "api", *sort = NULL, *filter = NULL, *path = NULL;
    long limit = -1, by_stack = 0;
    int csv = 0, as_json = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int more = i + 1 < argc;
        if (!strcmp(a, "--report") && more) report = argv[++i];
        else if (!strcmp(a, "--sort") && more) sort = argv[++i];
        else if (!strcmp(a, "--filter") && more) filter = argv[++i];
        else if (!strcmp(a, "--limit") && more) {
            char *end;
            limit = strtol(argv[++i], &end, 10);
            if (*end || limit < 0)
                return usage("--limit needs a count (0 or more)");
        } else if (!strcmp(a, "--group-by-stack") && more) {
            char *end;
            by_stack = strtol(argv[++i], &end, 10);
            if (*end || by_stack < 1)
                return usage("--group-by-stack needs a frame count (1 or more)");
        } else if (!strcmp(a, "--csv")) csv = 1;
        else if (!strcmp(a, "--json")) as_json = 1;
        else if (a[0] == '-' && a[1]) return usage("unknown option or missing value");
        else if (!path) path = a;
        else return usage("one summary.json at a time");
    }
    if (!path)
        return usage("which summary.json?");
    if (csv && as_json)
        return usage("--csv or --json, not both");
    static const char *const reports[] = {"api", "kernels", "copies", "blas", "ranges"};
    int known = 0;
    for (size_t i = 0; i < sizeof reports / sizeof reports[0]; i++)
        known |= !strcmp(report, reports[i]);
    if (!known)
        return usage("--report is one of api, kernels, copies, blas, ranges");
    if (by_stack && strcmp(report, "api"))
        return usage("--group-by-stack groups the api report (torch's group_by_stack_n)");
    json_error_t jerr;
    json_t *sum = json_load_file(path, 0, &jerr);
    if (!sum || !json_is_string(json_object_get(sum, "schema"))) {
        fprintf(stderr, "cuprof: stats: %s is not a cuprof summary.json (%s)\n", path,
                sum ? "no schema" : jerr.text);
        json_decref(sum);
        return 1;
    }
    json_t *rows = by_stack ? stack_rows(sum, by_stack) : report_rows(sum, report);
    if (!rows && by_stack) {
        fprintf(stderr, "cuprof: stats: %s has no host stacks; profile with prof.sh --stacks "
                        "to group by stack\n", path);
        json_decref(sum);
        return 1;
    }
    if (by_stack && !sort)
        sort = "cuda_total_ns";
    if (!rows) {
        fprintf(stderr, "cuprof: stats: %s has no %s report\n", path, report);
        json_decref(sum);
        return 1;
    }
    /* columns: the first row's keys, in the file's order */
    json_t *first = json_array_get(rows, 0);
    const char *name_col = !strcmp(report, "copies") ? "kind" : "name";
    char sort_buf[128];
    if (sort) {
        snprintf(sort_buf, sizeof sort_buf, "%s_ns", sort);
        if (first && !json_object_get(first, sort) && json_object_get(first, sort_buf))
            sort = sort_buf;
        if (first && !json_object_get(first, sort)) {
            fprintf(stderr, "cuprof: stats: --sort %s: the %s report has no such column (", sort,
                    report);
            const char *k;
            json_t *v;
            int c = 0;
            json_object_foreach(first, k, v)
                fprintf(stderr, "%s%s", c++ ? ", " : "", k);
            fprintf(stderr, ")\n");
            json_decref(rows);
            json_decref(sum);
            return 2;
        }
    }
    regex_t re;
    if (filter && regcomp(&re, filter, REG_EXTENDED | REG_NOSUB) != 0) {
        json_decref(rows);
        json_decref(sum);
        return usage("--filter is not an extended regular expression");
    }
    size_t n = json_array_size(rows), kept = 0;
    json_t **r = calloc(n + 1, sizeof *r);
    for (size_t i = 0; i < n; i++) {
        json_t *row = json_array_get(rows, i);
        const char *nm = json_string_value(json_object_get(row, name_col));
        if (filter && regexec(&re, nm ? nm : "", 0, NULL, 0) != 0)
            continue;
        r[kept++] = row;
    }
    if (filter)
        regfree(&re);
    if (sort) {
        sort_key = sort;
        qsort(r, kept, sizeof *r, cmp_rows);
    }
    if (limit >= 0 && (size_t)limit < kept)
        kept = (size_t)limit;

    const char *k;
    json_t *v;
    if (as_json) {
        json_t *out = json_array();
        for (size_t i = 0; i < kept; i++)
            json_array_append(out, r[i]);
        char *s = json_dumps(out, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
        puts(s ? s : "[]");
        free(s);
        json_decref(out);
    } else if (csv) {
        int c = 0;
        json_object_foreach(first, k, v)
            printf("%s%s", c++ ? "," : "", k);
        putchar('\n');
        for (size_t i = 0; i < kept; i++) {
            c = 0;
            json_object_foreach(first, k, v) {
                if (c++)
                    putchar(',');
                print_csv_cell(json_object_get(r[i], k));
            }
            putchar('\n');
        }
    } else if (first) {
        /* widths, then the rows */
        size_t ncol = json_object_size(first), c = 0;
        size_t *w = calloc(ncol, sizeof *w);
        char buf[512];
        json_object_foreach(first, k, v) {
            w[c] = strlen(k);
            for (size_t i = 0; i < kept; i++) {
                cell_text(k, json_object_get(r[i], k), buf, sizeof buf);
                size_t l = strlen(buf) > 60 && strcmp(k, "stack") ? 60 : strlen(buf);
                if (l > w[c])
                    w[c] = l;
            }
            c++;
        }
        c = 0;
        json_object_foreach(first, k, v) {
            if (!strcmp(k, "stack"))   /* the last column, left-aligned */
                printf("  %s", k);
            else
                printf(c ? "  %*s" : "%-*s", (int)w[c], k);
            c++;
        }
        putchar('\n');
        int cut = 0;
        for (size_t i = 0; i < kept; i++) {
            c = 0;
            json_object_foreach(first, k, v) {
                cell_text(k, json_object_get(r[i], k), buf, sizeof buf);
                if (strlen(buf) > 60 && strcmp(k, "stack")) {   /* cut, and said so: "..." and the note below */
                    memcpy(buf + 57, "...", 4);
                    cut = 1;
                }
                if (!strcmp(k, "stack"))
                    printf("  %s", buf);
                else
                    printf(c ? "  %*.*s" : "%-*.*s", (int)w[c], 60, buf);
                c++;
            }
            putchar('\n');
        }
        if (cut)
            printf("(names longer than 60 characters end in \"...\" here; --csv or --json "
                   "gives them whole)\n");
        free(w);
    }
    free(r);
    json_decref(rows);
    json_decref(sum);
    return 0;
}
