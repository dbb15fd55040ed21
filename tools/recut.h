/*
 * recut.h - a fully recorded run cut to a capture window after the fact
 * (cuprof-report --capture-range): the run as if it had been recorded with
 * CUPROF_CAPTURE_RANGE set, from the calls that were recorded.
 */
#ifndef CUPROF_TOOLS_RECUT_H
#define CUPROF_TOOLS_RECUT_H

#include "model/run.h"

#include <stddef.h>
#include <stdint.h>

typedef struct cuprof_recut cuprof_recut;

/* The run cut to range ("cudaProfilerApi", "nvtx:NAME[@DOMAIN]"; the
 * first window, as the recording's default "end stop" takes), or NULL with
 * why (a range not understood, a run already recorded through a window).
 * The cut run points into run, which must outlive it. */
cuprof_recut *cuprof_recut_make(const cuprof_run *run, const char *range, char *why, size_t n);
/* The run cut to its own capture window k (1-based) of a repeating
 * capture (NAME.wK.*): the calls of the other windows left out. */
cuprof_recut *cuprof_recut_window(const cuprof_run *run, uint64_t k, char *why, size_t n);
const cuprof_run *cuprof_recut_run(const cuprof_recut *c);
void cuprof_recut_free(cuprof_recut *c);

#endif /* CUPROF_TOOLS_RECUT_H */
