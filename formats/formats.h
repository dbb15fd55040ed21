/*
 * formats.h - what the collector calls at exit: write every output file of
 * a run.
 *
 * formats/ knows files and nothing about CUDA calls: it reads the model
 * (model/model.h), whose names, joins and rows are already resolved, and
 * writes them.
 */
#ifndef CUPROF_FORMATS_H
#define CUPROF_FORMATS_H

#include "model/model.h"

#include <stddef.h>

/*
 * Writes DIR/NAME.<suffix> for every format (trace.json, summary.txt,
 * summary.json), each to a temporary name in DIR first and renamed when
 * complete, so no reader ever sees a partial file under a final name.
 * written gets the suffixes written, as "{trace.json,summary.txt,...}" (or
 * the single suffix); err gets a user-facing sentence for each failure ("" if
 * none). Returns the number of files written. Never prints.
 */
int cuprof_formats_write_all(const cuprof_model *model, const char *dir, const char *name,
                             char *written, size_t written_len, char *err, size_t err_len);

/*
 * The same in two groups that two threads may write at once: the trace
 * files (trace.json[.gz], perfetto-trace: they read the model's traced
 * part only, cuprof_model_build_traced, never its summary or census) and
 * the tables (the summaries, folded stacks, report.html). cuprof-report
 * writes the traces while the summary is still being built.
 *
 *   job = cuprof_formats_job_new(dir, name);
 *   cuprof_formats_open_group(job, model, CUPROF_FORMATS_TRACES);
 *   cuprof_formats_write_group(job, model, CUPROF_FORMATS_TRACES);   (thread A)
 *   cuprof_formats_open_group(job, model, CUPROF_FORMATS_TABLES);
 *   cuprof_formats_write_group(job, model, CUPROF_FORMATS_TABLES);   (thread B)
 *   n = cuprof_formats_job_end(job, written, ..., err, ...);
 *
 * open_group creates the group's files (temporary names), in the list's
 * order, and returns -1 when the directory refused one: then no file after
 * it is created, in this group or the next, as write_all stops; the tables
 * are opened after the traces' open_group returned. write_group writes the
 * files its open_group created (still under their temporary names); the two
 * groups share nothing but the (read-only) model. job_end, after both,
 * commits them in the list's order and gives write_all's result (the files
 * in that order, the messages too), and frees the job; job_cancel discards
 * every file instead (the model could not be completed). NULL from job_new:
 * out of memory.
 */
enum { CUPROF_FORMATS_TRACES, CUPROF_FORMATS_TABLES };
typedef struct cuprof_formats_job cuprof_formats_job;
cuprof_formats_job *cuprof_formats_job_new(const char *dir, const char *name);
int cuprof_formats_open_group(cuprof_formats_job *job, const cuprof_model *model, int group);
void cuprof_formats_write_group(cuprof_formats_job *job, const cuprof_model *model, int group);
int cuprof_formats_job_end(cuprof_formats_job *job, char *written, size_t written_len, char *err,
                           size_t err_len);
void cuprof_formats_job_cancel(cuprof_formats_job *job);

#endif /* CUPROF_FORMATS_H */
