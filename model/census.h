/*
 * census.h - how each kernel was launched, and how much of the GPU time the
 * hooks saw with full arguments (issue 16's launch census).
 *
 * A kernel is, by the call behind it (model/timeline.h's cause):
 *   runtime      a hooked runtime launch (cudaLaunchKernel, <<<>>>, ...)
 *   driver       a hooked driver launch: cuLaunchKernel* linked (-lcuda)
 *                or from cuGetProcAddress / cudaGetDriverEntryPoint*
 *                (preload/hooks_driver.c)
 *   inside       launched inside a hooked call (cuBLAS's own launches)
 *   graph        a CUDA graph's replay (seen when the node's captured call
 *                is known: model/graphs.h)
 *   cupti        a launch no hook saw: CUPTI's record only (a driver
 *                function from a dlsym on libcuda, an unhooked call)
 *   unknown      no launching call at all in CUPTI's records
 * With no runtime record for the kernel (a kernels-only run: model/kmatch.h),
 * the hooked call it was matched to decides: a launch is runtime or driver
 * by its entry point's category, any other call (cuBLAS) inside.
 */
#ifndef CUPROF_MODEL_CENSUS_H
#define CUPROF_MODEL_CENSUS_H

#include "model/graphs.h"
#include "model/timeline.h"

enum cuprof_launch_path {
    CUPROF_LAUNCH_RUNTIME = 0,
    CUPROF_LAUNCH_DRIVER = 1,
    CUPROF_LAUNCH_INSIDE = 2,
    CUPROF_LAUNCH_GRAPH = 3,
    CUPROF_LAUNCH_CUPTI = 4,
    CUPROF_LAUNCH_UNKNOWN = 5,
    CUPROF_LAUNCH_NPATHS = 6,
};

typedef struct cuprof_census {
    uint64_t kernels[CUPROF_LAUNCH_NPATHS];
    uint64_t gpu_ns[CUPROF_LAUNCH_NPATHS];
    uint64_t total_kernels, total_gpu_ns;
    uint64_t seen_gpu_ns;        /* launched by a call a hook saw with its arguments */
    double coverage;             /* seen_gpu_ns / total_gpu_ns; 0 with no kernel time */
    uint8_t *path;               /* [tl->gpu->n_kernels] each kernel's path */
} cuprof_census;

/* short names: "runtime", "driver", "inside", "graph", "cupti", "unknown" */
const char *cuprof_launch_path_key(int path);
/* in words: "runtime launches", "driver API launches", ... */
const char *cuprof_launch_path_words(int path);

/* NULL on out of memory. */
cuprof_census *cuprof_census_build(const cuprof_timeline *tl, const cuprof_graphs *gs);
void cuprof_census_destroy(cuprof_census *c);

#endif /* CUPROF_MODEL_CENSUS_H */
