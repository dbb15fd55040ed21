/*
 * formats.c - the list of formats and the loop that writes them.
 */
#include "formats/formats.h"
#include "formats/writer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Every format written at exit, in this order. */
static const cuprof_writer_ops *const all_formats[] = {
    &cuprof_chrome_trace_ops,
    &cuprof_chrome_trace_gz_ops,
    &cuprof_perfetto_ops,
    &cuprof_summary_txt_ops,
    &cuprof_summary_json_ops,
    &cuprof_gpu_folded_ops,
    &cuprof_cpu_folded_ops,
    &cuprof_calls_folded_ops,
    &cuprof_speedscope_ops,
    &cuprof_report_html_ops,
};

int cuprof_writer_run(const cuprof_writer_ops *ops, cuprof_out *out, const cuprof_model *model)
{
    cuprof_writer *w = calloc(1, ops->size > sizeof *w ? ops->size : sizeof *w);
    if (!w)
        return -1;
    w->ops = ops;
    w->out = out;
    w->model = model;
    w->run = model->run;
    w->sum = model->summary;
    int rc = ops->write(w);
    free(w);
    return rc == 0 && !out->err ? 0 : -1;
}

/* Which trace files this run writes (model/run.h: CUPROF_TRACE_FORMAT_*). */
int cuprof_trace_format(const cuprof_model *m)
{
    const cuprof_run *run = m->run;
    int f = run->trace_format;
    if (f == CUPROF_TRACE_FORMAT_AUTO) {
        uint64_t events = run->nevents;
        if (run->gpu.captured && m->timeline)   /* (CUPTI-only calls are drawn too) */
            events += m->timeline->gpu->n_kernels + m->timeline->gpu->n_copies +
                      m->timeline->gpu->n_apis;
        f = events > CUPROF_TRACE_AUTO_EVENTS ? CUPROF_TRACE_FORMAT_PERFETTO
                                              : CUPROF_TRACE_FORMAT_JSON;
    }
    if (run->export_sqlite)   /* the export is made from the JSON trace */
        f = (f & CUPROF_TRACE_FORMAT_PERFETTO) | CUPROF_TRACE_FORMAT_JSON;
    return f;
}

int cuprof_trace_json_wanted(const cuprof_model *m)
{
    return (cuprof_trace_format(m) & CUPROF_TRACE_FORMAT_JSON) != 0 && !m->run->trace_gzip;
}

int cuprof_trace_json_gz_wanted(const cuprof_model *m)
{
    return (cuprof_trace_format(m) & CUPROF_TRACE_FORMAT_JSON) != 0 && m->run->trace_gzip;
}

/* Appends to a bounded string. */
static void append(char *dst, size_t len, const char *fmt, const char *a, const char *b)
{
    size_t used = strnlen(dst, len);
    if (used + 1 < len)
        snprintf(dst + used, len - used, fmt, a, b);
}

/* Opens DIR/NAME.<ops suffix> (its name into file); -1 with the reason
 * appended to err. */
static int open_for(cuprof_out *out, const char *dir, const char *name,
                    const cuprof_writer_ops *ops, char *file, size_t file_len, char *err,
                    size_t err_len)
{
    snprintf(file, file_len, "%s.%s", name, ops->suffix);
    if (cuprof_out_open(out, dir, file) == 0)
        return 0;
    append(err, err_len, "%scannot create files in %.300s", err[0] ? "; " : "", dir);
    append(err, err_len, ": %s%s", strerror(out->err),
           " (make it writable, or choose another with prof.sh -o DIR / CUPROF_OUT_DIR)");
    return -1;
}

int cuprof_formats_write_all(const cuprof_model *model, const char *dir, const char *name,
                             char *written, size_t written_len, char *err, size_t err_len)
{
    const size_t n = sizeof all_formats / sizeof all_formats[0];
    const char *ok[sizeof all_formats / sizeof all_formats[0]];
    size_t nok = 0;
    if (written_len)
        written[0] = '\0';
    if (err_len)
        err[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const cuprof_writer_ops *ops = all_formats[i];
        if (ops->wanted && !ops->wanted(model))
            continue;
        char file[512];
        cuprof_out out;
        if (open_for(&out, dir, name, ops, file, sizeof file, err, err_len) < 0)
            break;   /* the directory is the problem: every other file would fail too */
        if (ops->plain && (model->run->truncated || cuprof_out_gzip(&out) < 0)) {
            /* no libz (or a crash, where loading one could hang): plain */
            cuprof_out_discard(&out);
            ops = ops->plain;
            if (open_for(&out, dir, name, ops, file, sizeof file, err, err_len) < 0)
                break;
        }
        int rc = cuprof_writer_run(ops, &out, model);
        if (rc != 0) {
            int e = out.err;
            cuprof_out_discard(&out);
            out.err = e;
        } else if (cuprof_out_commit(&out) == 0) {
            ok[nok++] = ops->suffix;
            continue;
        }
        append(err, err_len, "%swriting %.300s", err[0] ? "; " : "", file);
        append(err, err_len, " failed: %s%s", out.err ? strerror(out.err) : "internal error",
               " (no partial file was left)");
    }
    if (written_len && nok > 0) {
        append(written, written_len, "%s%s", nok > 1 ? "{" : "", "");
        for (size_t i = 0; i < nok; i++)
            append(written, written_len, "%s%s", i ? "," : "", ok[i]);
        append(written, written_len, "%s%s", nok > 1 ? "}" : "", "");
    }
    return (int)nok;
}
