/*
 * compare.c - cuprof-compare: side-by-side comparison of profiled runs.
 *
 *   cuprof-compare [--json] A B [C ...]
 *
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

static const char usage[] =
    "usage: cuprof-compare [--json] RUN RUN [RUN ...]\n"
    "  RUN     a NAME.summary.json written by prof.sh, or a directory holding exactly one\n"
    "  --json  print a machine-readable comparison (\"" COMPARE_SCHEMA "\", see formats/SCHEMA.md)\n"
    "Shows the runs side by side (the first run, A, is the base of deltas and ratios):\n"
    "wall time, CPU time in CUDA calls, GPU busy time and idle share, kernel launches,\n"
    "runtime calls, copies, cuBLAS/cuBLASLt shapes and epilogues, and every kernel,\n"
    "with the kernels present in only some runs called out.\n";

int main(int argc, char **argv)
{
    bool json = false, opts = true;
    const char *files[CMP_MAX_RUNS + 1];
    size_t n = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && strcmp(a, "--") == 0) {
            opts = false;
        } else if (opts && strcmp(a, "--json") == 0) {
            json = true;
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
    char err[SUMMARY_ERR_MAX];
    int rc = 1;
    size_t loaded = 0;
    for (; loaded < n; loaded++) {
        char *path = NULL;
        int bad = cmp_resolve_path(files[loaded], &path, err, sizeof err) ||
                  cmp_summary_load(path, &runs[loaded], err, sizeof err);
        free(path);
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
    if ((json ? cmp_print_json(&c, stdout) : cmp_print_text(&c, stdout)) == 0)
        rc = 0;
    else
        fprintf(stderr, "cuprof: compare: could not write the output; check where stdout goes\n");
    cmp_free(&c);
out:
    for (size_t i = 0; i < loaded && i < n; i++)
        cmp_summary_destroy(runs[i]);
    return rc;
}
