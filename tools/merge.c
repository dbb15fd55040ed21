/*
 * merge.c - cuprof-merge (prof.sh merge): the ranks of a job as one run.
 *
 *   cuprof-merge [-n NAME] [-o OUTDIR] [--html] [--window K | --run] [--all-ranks] DIR
 *
 * Reads DIR/NAME.rankR.summary.json and .trace.json of every rank (by
 * default the windows of the last prof.sh trigger --job, else each rank's
 * latest window NAME.rankR.wK.*, else the run's own files), writes
 * OUTDIR/NAME.merged.{trace.json,summary.txt,summary.json} (OUTDIR: DIR),
 * (--html: and NAME.merged.report.html, one self-contained page of the
 * ranks' step times and waits), prints the merged summary.txt on stdout and where the files went on
 * stderr. Exit 0; 2 for a usage error or files it cannot read or write,
 * with one "cuprof:" line saying why.
 */
#include "formats/merge/merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Up to this many ranks (a node of 8 GPUs) the merged trace holds them all. */
#define MG_TRACE_ALL_UPTO 8

static int usage(void)
{
    fprintf(stderr, "usage: prof.sh merge [-n NAME] [-o OUTDIR] [--html] [--window K | --run] [--all-ranks] DIR\n"
                    "  merges DIR/NAME.rankR.* (each rank's files, written by prof.sh under mpirun,\n"
                    "  torchrun or srun) into OUTDIR/NAME.merged.{trace.json,summary.txt,summary.json}\n"
                    "  --html  also OUTDIR/NAME.merged.report.html: one self-contained page (no network)\n"
                    "          with each rank's step times and waits\n"
                    "  by default each rank's window of the last \"prof.sh trigger --job DIR\" (the same\n"
                    "  steps on every rank), else each rank's latest window NAME.rankR.wK.*, else its run\n"
                    "  --window K  window K of every rank     --run  the runs' own files (NAME.rankR.*)\n"
                    "  --all-ranks  every rank in the merged trace and in summary.txt's table (default past 8\n"
                    "          ranks: the straggler, the fastest and the median rank in the trace, the slowest\n"
                    "          ranks in the table, a rank x step heatmap)\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *name = NULL, *out = NULL, *dir = NULL;
    int html = 0, all = 0;
    long window = -1;
    for (int i = 1; i < argc; i++) {
        if ((!strcmp(argv[i], "-n") || !strcmp(argv[i], "--name")) && i + 1 < argc)
            name = argv[++i];
        else if ((!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) && i + 1 < argc)
            out = argv[++i];
        else if (!strcmp(argv[i], "--html"))
            html = 1;
        else if (!strcmp(argv[i], "--all-ranks"))
            all = 1;
        else if (!strcmp(argv[i], "--run"))
            window = 0;
        else if (!strcmp(argv[i], "--window") && i + 1 < argc) {
            char *end;
            window = strtol(argv[++i], &end, 10);
            if (*end || window < 1) {
                fprintf(stderr, "cuprof: merge: --window %s: give a window number, 1 or more (NAME.rankR.wK.*)\n",
                        argv[i]);
                return 2;
            }
        }
        else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
            return usage() ? 0 : 0;
        else if (argv[i][0] == '-' || dir)
            return usage();
        else
            dir = argv[i];
    }
    if (!dir)
        return usage();
    if (!out)
        out = dir;
    mg_run m;
    char err[1024] = "";
    if (mg_load(&m, dir, name, window, err, sizeof err) < 0) {
        fprintf(stderr, "cuprof: merge: %s\n", err);
        mg_free(&m);
        return 2;
    }
    mg_align(&m);
    mg_meetings(&m);
    if (mg_trace_ranks(&m, all || m.n <= MG_TRACE_ALL_UPTO, err, sizeof err) < 0) {
        fprintf(stderr, "cuprof: merge: %s\n", err);
        mg_free(&m);
        return 2;
    }
    m.all_ranks = all;
    char trace[4200], sj[4200], st[4200], page[4200];
    snprintf(trace, sizeof trace, "%s/%s.merged.trace.json", out, m.name);
    snprintf(sj, sizeof sj, "%s/%s.merged.summary.json", out, m.name);
    snprintf(st, sizeof st, "%s/%s.merged.summary.txt", out, m.name);
    snprintf(page, sizeof page, "%s/%s.merged.report.html", out, m.name);
    int traced = 0, tracefiles = 0;
    for (size_t i = 0; i < m.n; i++) {
        traced += m.r[i].role && m.r[i].trace_path;
        tracefiles += m.r[i].trace_path != NULL;
    }
    if ((traced && mg_write_trace(&m, trace, err, sizeof err) < 0) ||
        mg_write_summary(&m, sj, st, err, sizeof err) < 0 || (html && mg_write_html(&m, sj, page, err, sizeof err) < 0)) {
        fprintf(stderr, "cuprof: merge: %s\n", err);
        mg_free(&m);
        return 2;
    }
    FILE *f = fopen(st, "r");
    char buf[8192];
    size_t k;
    while (f && (k = fread(buf, 1, sizeof buf, f)) > 0)
        fwrite(buf, 1, k, stdout);
    if (f)
        fclose(f);
    fprintf(stderr, "cuprof: merged %zu rank%s of %s into %s/%s.merged.{%ssummary.txt,summary.json%s}\n", m.n,
            m.n == 1 ? "" : "s", m.name, out, m.name, traced ? "trace.json," : "", html ? ",report.html" : "");
    if (tracefiles < (int)m.n)
        fprintf(stderr, "cuprof: merge: %zu rank%s wrote no trace.json (run with --format json or both): "
                        "not in the merged trace\n",
                m.n - (size_t)tracefiles, m.n - (size_t)tracefiles == 1 ? "" : "s");
    if (!all && m.n > MG_TRACE_ALL_UPTO)
        fprintf(stderr, "cuprof: merge: the merged trace holds the straggler, the fastest and the median rank "
                        "(--all-ranks: every rank)\n");
    mg_free(&m);
    return 0;
}
