/*
 * writer.h - the shape every output format has: one callback that writes
 * the whole file from the model, with the format's own state in a struct
 * that starts with cuprof_writer.
 *
 * Adding a format means adding a file that defines one cuprof_writer_ops and
 * listing it in formats.c; the others are untouched. A writer reads the
 * model (model/model.h) and nothing else: names, joins and rows are
 * resolved there.
 */
#ifndef CUPROF_WRITER_H
#define CUPROF_WRITER_H

#include "formats/outbuf.h"
#include "model/model.h"

typedef struct cuprof_writer cuprof_writer;

typedef struct cuprof_writer_ops {
    const char *suffix;   /* the file is NAME.<suffix>, e.g. "trace.json" */
    size_t size;          /* size of the format's writer struct (cuprof_writer first) */
    /* Writes the file to w->out. Returns 0, or -1 to stop (output errors
     * are also caught by the output's sticky error). */
    int (*write)(cuprof_writer *w);
    /* NULL: always written; else written only when it returns 1 (the stack
     * outputs, for a run with stacks). */
    int (*wanted)(const cuprof_model *model);
    /* Non-NULL: the file is gzip-compressed (outbuf's cuprof_out_gzip), and
     * where libz cannot be loaded this format is written instead. */
    const struct cuprof_writer_ops *plain;
} cuprof_writer_ops;

/* What every format's state starts with. */
struct cuprof_writer {
    const cuprof_writer_ops *ops;
    cuprof_out *out;              /* where the bytes go */
    const cuprof_model *model;    /* what is written */
    const cuprof_run *run;        /* model->run */
    const cuprof_summary *sum;    /* model->summary */
};

extern const cuprof_writer_ops cuprof_chrome_trace_ops;   /* chrome_trace.c */
extern const cuprof_writer_ops cuprof_chrome_trace_gz_ops; /* the same, gzip'ed (--gzip) */
extern const cuprof_writer_ops cuprof_summary_txt_ops;    /* summary_txt.c */
extern const cuprof_writer_ops cuprof_summary_json_ops;   /* summary_json.c */
extern const cuprof_writer_ops cuprof_gpu_folded_ops;     /* flame.c: with stacks */
extern const cuprof_writer_ops cuprof_cpu_folded_ops;
extern const cuprof_writer_ops cuprof_calls_folded_ops;
extern const cuprof_writer_ops cuprof_speedscope_ops;
extern const cuprof_writer_ops cuprof_perfetto_ops;       /* perfetto.c */
extern const cuprof_writer_ops cuprof_report_html_ops;    /* report_html.c: --report-html */

/* flame.c: the GPU-weighted folded stacks as a JSON array of ["outer;...;
 * api;kernel", ns], the heaviest max_lines (the rest summed as one "[other
 * stacks]" line), for the report page's flame graph. 0, or -1 (memory). */
int cuprof_flame_json(cuprof_out *o, const cuprof_model *m, size_t max_lines);

/* The run's trace files (CUPROF_TRACE_FORMAT_JSON, _PERFETTO or _BOTH):
 * as asked (CUPROF_FORMAT), or for auto by the run's size (model/run.h).
 * formats.c; chrome_trace.c and perfetto.c are written as it says. */
int cuprof_trace_format(const cuprof_model *model);
int cuprof_trace_json_wanted(const cuprof_model *model);   /* trace.json */
int cuprof_trace_json_gz_wanted(const cuprof_model *model);   /* trace.json.gz */

/* Runs one format over the model into out (file or memory). Returns 0, or
 * -1 (out->err set when it was an output error). Does not commit out. */
int cuprof_writer_run(const cuprof_writer_ops *ops, cuprof_out *out, const cuprof_model *model);

#endif /* CUPROF_WRITER_H */
