/*
 * capture.h - a run recorded through a capture window (run->capture): the
 * GPU records of what was recorded, and nothing of what was not.
 *
 * CUPTI runs for the whole process (collector/capture.c says why), so its
 * records include calls made outside every window. The model keeps:
 *  - a runtime/driver record when it is, or ran inside, a recorded call
 *    (the timeline joined it: api_hooked), or began inside a window and
 *    is not of an entry point the hooks were seen to record (a record of
 *    one that joined no recorded call was made outside every window: had
 *    it been inside, its call would have been recorded; so a call right
 *    after the window closed is not kept because the two clocks put its
 *    record a little inside);
 *  - a kernel, copy, memset or sync when the record of the call that caused
 *    it (same correlation id) is kept; with no such record, when its
 *    external id names a recorded call (in a kernels-only run: when it was
 *    matched to one, model/kmatch.h), or (no external id either) when it
 *    began inside a window; in a kernels-only run, when the matched records
 *    on both sides of it in CUPTI's call order (correlation ids) were made
 *    in the same window instead (a record of work queued before a window
 *    may run inside it).
 * Work launched inside a window and run after it closed is kept: the window
 * selects calls, and a call's GPU work belongs to it.
 */
#ifndef CUPROF_MODEL_CAPTURE_H
#define CUPROF_MODEL_CAPTURE_H

#include "model/gpu.h"
#include "model/run.h"
#include "model/timeline.h"

/* The records of run->gpu_run to keep, by the rules above (tl: the
 * timeline joined over all of them). NULL on out of memory. Owned:
 * cuprof_capture_clip_free. */
cuprof_gpu_run *cuprof_capture_clip(const cuprof_run *run, const cuprof_timeline *tl);
void cuprof_capture_clip_free(cuprof_gpu_run *g);

#endif /* CUPROF_MODEL_CAPTURE_H */
