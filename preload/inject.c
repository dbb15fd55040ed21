/*
 * inject.c - InitializeInjection: the entry point the CUDA driver calls in
 * the library named by CUDA_INJECTION64_PATH, while it initializes.
 *
 * This is the documented way to start a tool inside an unmodified process,
 * and the only one that reaches a program linked with static cudart (nvcc's
 * default), whose cuda* calls no LD_PRELOAD hook sees. prof.sh points
 * CUDA_INJECTION64_PATH at this library; CUPTI started here still gets its
 * timestamp callback and device-buffer attributes, which must be set before
 * CUDA is up.
 */
#include "preload/hooks.h"

/* Defined by the collector's CUPTI part (collector/cupti.h, hidden in
 * libcuprof.so). Weak here: the hooks-only test library
 * (tests/preload/libcuprof_hooks.so) is loaded next to a fake collector that
 * has no CUPTI part. */
extern int cuprof_cupti_start(void) __attribute__((weak));
/* collector/lifecycle.c: 0 when CUPROF_GPU=0 asked for no GPU timeline (then
 * CUPTI must not start here either: its records are not bounded by
 * CUPROF_MEM_LIMIT). Weak for the same reason. */
extern int cuprof_collector_gpu_enabled(void) __attribute__((weak));

/* Called once by the CUDA driver during its initialization, on the thread
 * that made the first CUDA call. Returns 1 (success: the driver treats 0 as
 * a failed injection). Never fails the program: a CUPTI that cannot start
 * leaves a CPU-only run with the reason in the header. */
PRELOAD_EXPORT int InitializeInjection(void)
{
    int e = errno;
    cuprof_collector_init();
    if (cuprof_cupti_start && (!cuprof_collector_gpu_enabled || cuprof_collector_gpu_enabled()))
        cuprof_cupti_start();
    errno = e;
    return 1;
}
