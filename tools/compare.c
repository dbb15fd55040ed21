/*
 * compare.c - cuprof-compare: side-by-side comparison of profiled runs.
 *
 *   cuprof-compare [--json] [--html FILE] A B [C ...]
 *
 * --html FILE also writes the comparison as one self-contained page
 * (formats/html/compare.js: the runs' overviews and kernels side by side,
 * the differences first), with the compare document and every run's
 * summary.json inside it.
 * Each argument is a NAME.summary.json or a directory holding exactly one.
 * Exit status: 0 done, 1 an input could not be read or is not a valid
 * summary, 2 usage error. Every input is read and checked before anything is
 * printed, so a failure prints one "cuprof: ..." line on stderr and nothing
 * on stdout.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/compare/compare.h"
#include "formats/html_page.h"

static const char usage[] =
    "usage: cuprof-compare [--json] [--html FILE] RUN RUN [RUN ...]\n"
    "  RUN     a NAME.summary.json written by prof.sh, or a directory holding exactly one\n"
    "  --json  print a machine-readable comparison (\"" COMPARE_SCHEMA "\", see formats/SCHEMA.md)\n"
    "  --html FILE  also write the comparison as one self-contained web page (no network)\n"
    "Shows the runs side by side (the first run, A, is the base of deltas and ratios):\n"
    "wall time, CPU time in CUDA calls, GPU busy time and idle share, kernel launches,\n"
    "runtime calls, copies, cuBLAS/cuBLASLt shapes and epilogues, and every kernel,\n"
    "with the kernels present in only some runs called out.\n";

/* Appends the file at path (JSON, already read and checked) to f, less its
 * trailing white space. 0 or -1. */
static int append_file(FILE *f, const char *path)
{
    FILE *in = fopen(path, "r");
    if (!in)
        return -1;
    char buf[65536];
    size_t k, pending = 0;   /* white space held back until more text follows */
    while ((k = fread(buf, 1, sizeof buf, in)) > 0) {
        size_t end = k;
        while (end && (buf[end - 1] == '\n' || buf[end - 1] == ' ' || buf[end - 1] == '\r' || buf[end - 1] == '\t'))
            end--;
        if (end) {
            for (; pending; pending--)
                fputc(' ', f);
            fwrite(buf, 1, end, f);
        }
        pending += k - end;
    }
    int bad = ferror(in);
    fclose(in);
    return bad ? -1 : 0;
}

/* The page: {"compare": the --json document, "summaries": [each run's
 * summary.json]}; one "cuprof:" line and -1 when it cannot be written. */
static int write_html(const compare *c, const char *out, const char *const *paths, size_t n)
{
    char *data = NULL, err[4400] = "";
    size_t len = 0;
    FILE *f = open_memstream(&data, &len);
    int bad = !f;
    if (f) {
        fputs("{\"compare\":", f);
        bad = cmp_print_json(c, f) != 0;
        fputs(",\"summaries\":[", f);
        for (size_t i = 0; !bad && i < n; i++) {
            if (i)
                fputc(',', f);
            if (append_file(f, paths[i]) < 0) {
                snprintf(err, sizeof err, "cannot read %s again", paths[i]);
                bad = 1;
            }
        }
        fputs("]}", f);
        bad |= fclose(f) != 0;
    }
    char title[512] = "cuprof compare:";
    for (size_t i = 0; i < n && strlen(title) + 8 < sizeof title; i++)
        snprintf(title + strlen(title), sizeof title - strlen(title), "%s %c = %s", i ? "," : "", (char)('A' + i),
                 c->names[i] ? c->names[i] : "?");
    if (!bad && cuprof_html_page_file(out, CUPROF_HTML_COMPARE, title, data, len, err, sizeof err) == 0) {
        free(data);
        return 0;
    }
    fprintf(stderr, "cuprof: compare: %s; check that the page's folder exists and is writable\n",
            err[0] ? err : "out of memory");
    free(data);
    return -1;
}

int main(int argc, char **argv)
{
    bool json = false, opts = true;
    const char *files[CMP_MAX_RUNS + 1], *html = NULL;
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && strcmp(a, "--") == 0) {
            opts = false;
        } else if (opts && strcmp(a, "--json") == 0) {
            json = true;
        } else if (opts && strcmp(a, "--html") == 0) {
            if (i + 1 == argc) {
                fprintf(stderr, "cuprof: compare: --html needs the page's file name; e.g. --html compare.html\n");
                return 2;
            }
            html = argv[++i];
        } else if (opts && (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)) {
            fputs(usage, stdout);
            return 0;
        } else if (opts && a[0] == '-' && a[1]) {
            fprintf(stderr, "cuprof: compare: unknown option %s; run cuprof-compare --help\n", a);
            return 2;
        } else if (n == CMP_MAX_RUNS) {
            fprintf(stderr, "cuprof: compare: more than %d runs; compare at most %d at a time\n",
                    CMP_MAX_RUNS, CMP_MAX_RUNS);
            return 2;
        } else {
            files[n++] = a;
        }
    }
    if (n < 2) {
        fprintf(stderr, "cuprof: compare: needs at least two runs, got %zu; "
                        "usage: cuprof-compare [--json] RUN RUN [RUN ...]\n", n);
        return 2;
    }

    summary *runs[CMP_MAX_RUNS] = {0};
    char *paths[CMP_MAX_RUNS] = {0};
    char err[SUMMARY_ERR_MAX];
    int rc = 1;
    size_t loaded = 0;
    for (; loaded < n; loaded++) {
        char *path = NULL;
        int bad = cmp_resolve_path(files[loaded], &path, err, sizeof err) ||
                  cmp_summary_load(path, &runs[loaded], err, sizeof err);
        paths[loaded] = path;
        if (bad) {
            fprintf(stderr, "%s\n", err);
            goto out;
        }
    }
    compare c;
    if (cmp_build(&c, (const summary *const *)runs, n)) {
        fprintf(stderr, "cuprof: compare: out of memory; free some memory and try again\n");
        goto out;
    }
    if (html && write_html(&c, html, (const char *const *)paths, n) < 0) {
        cmp_free(&c);
        goto out;
    }
    if ((json ? cmp_print_json(&c, stdout) : cmp_print_text(&c, stdout)) == 0)
        rc = 0;
    else
        fprintf(stderr, "cuprof: compare: could not write the output; check where stdout goes\n");
    cmp_free(&c);
out:
    for (size_t i = 0; i < loaded && i < n; i++)
        cmp_summary_destroy(runs[i]);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    return rc;
}
