/*
 * kmatch.h - who caused each device record of a kernels-only run
 * (prof.sh --gpu kernels: CUPTI made kernel, memcpy and memset records
 * only, so no runtime/driver record and no external id ties them to a
 * call). The hooked calls are matched to the records instead:
 *
 *  1. By what they are. A launch whose kernel name is known takes the
 *     records of that kernel, the i-th launch (by start) the i-th record (by
 *     start on the device); a copy the copy records of its byte count and
 *     direction, a memset the memset records of its byte count, the same way. A record
 *     that began on the device before the next call of its kind even began
 *     (by more than the clocks' tolerance) is not that call's: it is left
 *     for step 2 (a call not recorded, e.g. outside a capture window).
 *  2. By order. What step 1 left (cuBLAS's own kernels and memsets, launches
 *     of unknown kernels; not a kernel some hooked launch names, which is
 *     the program's own, nor a copy, which an unhooked helper such as
 *     cublasGetMatrix makes) goes to the calls that can hold such work: cuBLAS
 *     and cuBLASLt calls and launches whose kernel is unknown. CUPTI numbers
 *     the calls that launch work in the order they are made (correlation
 *     ids), so a leftover record falls between two matched ones, and its
 *     call between their calls in time; the leftovers between the same two
 *     are shared out in order among the candidate calls made in that span
 *     (never to one that began after the record did).
 *
 * Left out: graph replays (their call, cudaGraphLaunch, is not hooked) and
 * device-launched kernels: caused by nothing known in this mode. Launches
 * captured into a graph (a graph node's origin) make no record and take
 * none. The order in step 2 is one thread's: with several threads
 * launching library work at once, the shares may go to the wrong thread's
 * call (the totals per entry point stay right when the calls are alike).
 */
#ifndef CUPROF_MODEL_KMATCH_H
#define CUPROF_MODEL_KMATCH_H

#include "model/gpu.h"
#include "model/run.h"

#include <stdint.h>

/* kernel_hooked[n_kernels] and copy_hooked[n_copies] of g: the event id of
 * the hooked call behind each record, 0 = none. tol_ns: how far apart the
 * CUPTI and hook clocks may be. 0, or -1 on out of memory (nothing set). */
int cuprof_kmatch(const cuprof_run *run, const cuprof_gpu_run *g, uint64_t tol_ns,
                  uint64_t *kernel_hooked, uint64_t *copy_hooked);

#endif /* CUPROF_MODEL_KMATCH_H */
