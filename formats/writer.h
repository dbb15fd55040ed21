/*
 * writer.h - the shape every output format has: a table of callbacks
 * (header, one call per recorded event, footer), with the format's own state
 * in a struct that starts with cuprof_writer.
 *
 * Adding a format means adding a file that defines one cuprof_writer_ops and
 * listing it in formats.c; the others are untouched. The GPU side (device
 * records joined to the calls) is not a callback: it is read from
 * sum->timeline (collector/timeline.h) by the formats that show it.
 */
#ifndef CUPROF_WRITER_H
#define CUPROF_WRITER_H

#include "collector/aggregate.h"
#include "collector/run.h"
#include "formats/outbuf.h"

typedef struct cuprof_writer cuprof_writer;

typedef struct cuprof_writer_ops {
    const char *suffix;   /* the file is NAME.<suffix>, e.g. "trace.json" */
    size_t size;          /* size of the format's writer struct (cuprof_writer first) */
    /* Each returns 0, or -1 to stop (output errors are also caught by the
     * output's sticky error). */
    int (*header)(cuprof_writer *w);
    /* Every recorded call, thread by thread, in order; NULL when the format
     * works from the summary only or walks the run's events itself in its
     * footer (the trace writer does, for speed: no call per event). */
    int (*event)(cuprof_writer *w, const cuprof_run_thread *th, const cuprof_event *ev);
    int (*footer)(cuprof_writer *w);
} cuprof_writer_ops;

/* What every format's state starts with. */
struct cuprof_writer {
    const cuprof_writer_ops *ops;
    cuprof_out *out;              /* where the bytes go */
    const cuprof_run *run;        /* the run being written */
    const cuprof_summary *sum;    /* its aggregation */
};

extern const cuprof_writer_ops cuprof_chrome_trace_ops;   /* chrome_trace.c */
extern const cuprof_writer_ops cuprof_summary_txt_ops;    /* summary_txt.c */
extern const cuprof_writer_ops cuprof_summary_json_ops;   /* summary_json.c */

/* Runs one format over run/sum into out (file or memory): header, events,
 * footer. Returns 0, or -1 (out->err set when it was an output error). Does
 * not commit out. */
int cuprof_writer_run(const cuprof_writer_ops *ops, cuprof_out *out, const cuprof_run *run,
                      const cuprof_summary *sum);

#endif /* CUPROF_WRITER_H */
