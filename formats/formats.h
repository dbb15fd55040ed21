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

#endif /* CUPROF_FORMATS_H */
