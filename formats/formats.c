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

#define NFORMATS (sizeof all_formats / sizeof all_formats[0])

/* The trace files: the first CUPROF_FORMATS_NTRACES of all_formats. */
#define CUPROF_FORMATS_NTRACES 3u
_Static_assert(CUPROF_FORMATS_NTRACES <= NFORMATS, "the traces are in the list");

/* One format's file in a job. */
typedef struct fmt_file {
    const cuprof_writer_ops *ops;   /* as written (the plain one when gzip failed) */
    cuprof_out out;
    char file[512];                 /* NAME.<suffix> */
    int state;                      /* FILE_*: how far it got */
    int err;                        /* the errno that stopped it, 0 none known */
} fmt_file;

enum { FILE_SKIPPED, FILE_REFUSED, FILE_OPEN, FILE_DONE, FILE_WRITTEN, FILE_FAILED };

struct cuprof_formats_job {
    const char *dir, *name;
    int refused;                    /* a file could not be created: none after it is */
    fmt_file f[NFORMATS];
};

cuprof_formats_job *cuprof_formats_job_new(const char *dir, const char *name)
{
    cuprof_formats_job *j = calloc(1, sizeof *j);
    if (j) {
        j->dir = dir;
        j->name = name;
    }
    return j;
}

/* Opens DIR/NAME.<ops suffix> (its name into f->file); -1 when the
 * directory refuses it (its errno in f->err). */
static int open_for(cuprof_formats_job *j, fmt_file *f, const cuprof_writer_ops *ops)
{
    snprintf(f->file, sizeof f->file, "%s.%s", j->name, ops->suffix);
    f->ops = ops;
    if (cuprof_out_open(&f->out, j->dir, f->file) == 0)
        return 0;
    f->err = f->out.err;
    f->state = FILE_REFUSED;
    j->refused = 1;
    return -1;
}

/* The range of all_formats a group covers. */
static void group_range(int group, size_t *from, size_t *to)
{
    *from = group == CUPROF_FORMATS_TRACES ? 0 : CUPROF_FORMATS_NTRACES;
    *to = group == CUPROF_FORMATS_TRACES ? CUPROF_FORMATS_NTRACES : NFORMATS;
}

int cuprof_formats_open_group(cuprof_formats_job *j, const cuprof_model *model, int group)
{
    size_t from, to;
    group_range(group, &from, &to);
    for (size_t i = from; i < to && !j->refused; i++) {
        const cuprof_writer_ops *ops = all_formats[i];
        fmt_file *f = &j->f[i];
        if (ops->wanted && !ops->wanted(model))
            continue;
        if (open_for(j, f, ops) < 0)
            break;   /* the directory is the problem: every other file would fail too */
        if (ops->plain && (model->run->truncated || cuprof_out_gzip(&f->out) < 0)) {
            /* no libz (or a crash, where loading one could hang): plain */
            cuprof_out_discard(&f->out);
            if (open_for(j, f, ops->plain) < 0)
                break;
        }
        f->state = FILE_OPEN;
    }
    return j->refused ? -1 : 0;
}

void cuprof_formats_write_group(cuprof_formats_job *j, const cuprof_model *model, int group)
{
    size_t from, to;
    group_range(group, &from, &to);
    for (size_t i = from; i < to; i++) {
        fmt_file *f = &j->f[i];
        if (f->state != FILE_OPEN)
            continue;
        if (cuprof_writer_run(f->ops, &f->out, model) == 0) {
            f->state = FILE_DONE;   /* committed by job_end */
            continue;
        }
        f->err = f->out.err;
        cuprof_out_discard(&f->out);
        f->state = FILE_FAILED;
    }
}

void cuprof_formats_job_cancel(cuprof_formats_job *j)
{
    for (size_t i = 0; j && i < NFORMATS; i++)
        if (j->f[i].state == FILE_OPEN || j->f[i].state == FILE_DONE)
            cuprof_out_discard(&j->f[i].out);
    free(j);
}

int cuprof_formats_job_end(cuprof_formats_job *j, char *written, size_t written_len, char *err,
                           size_t err_len)
{
    const char *ok[NFORMATS];
    size_t nok = 0;
    if (written_len)
        written[0] = '\0';
    if (err_len)
        err[0] = '\0';
    for (size_t i = 0; i < NFORMATS; i++) {
        fmt_file *f = &j->f[i];
        if (f->state == FILE_DONE) {   /* committed in the list's order */
            f->state = cuprof_out_commit(&f->out) == 0 ? FILE_WRITTEN : FILE_FAILED;
            f->err = f->out.err;
        }
        if (f->state == FILE_WRITTEN) {
            ok[nok++] = f->ops->suffix;
        } else if (f->state == FILE_REFUSED) {
            append(err, err_len, "%scannot create files in %.300s", err[0] ? "; " : "", j->dir);
            append(err, err_len, ": %s%s", strerror(f->err),
                   " (make it writable, or choose another with prof.sh -o DIR / CUPROF_OUT_DIR)");
        } else if (f->state == FILE_FAILED) {
            append(err, err_len, "%swriting %.300s", err[0] ? "; " : "", f->file);
            append(err, err_len, " failed: %s%s", f->err ? strerror(f->err) : "internal error",
                   " (no partial file was left)");
        } else if (f->state == FILE_OPEN) {   /* opened, never written: not kept */
            cuprof_out_discard(&f->out);
        }
    }
    if (written_len && nok > 0) {
        append(written, written_len, "%s%s", nok > 1 ? "{" : "", "");
        for (size_t i = 0; i < nok; i++)
            append(written, written_len, "%s%s", i ? "," : "", ok[i]);
        append(written, written_len, "%s%s", nok > 1 ? "}" : "", "");
    }
    free(j);
    return (int)nok;
}

int cuprof_formats_write_all(const cuprof_model *model, const char *dir, const char *name,
                             char *written, size_t written_len, char *err, size_t err_len)
{
    cuprof_formats_job *j = cuprof_formats_job_new(dir, name);
    if (!j) {
        if (written_len)
            written[0] = '\0';
        if (err_len)
            snprintf(err, err_len, "out of memory: no profile was written");
        return 0;
    }
    for (int g = CUPROF_FORMATS_TRACES; g <= CUPROF_FORMATS_TABLES; g++) {
        cuprof_formats_open_group(j, model, g);
        cuprof_formats_write_group(j, model, g);
    }
    return cuprof_formats_job_end(j, written, written_len, err, err_len);
}
