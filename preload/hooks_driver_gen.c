/*
 * hooks_driver_gen.c - every function libcuda exports that the hand-written
 * driver hooks (hooks_driver.c, hooks_driver_api.c) do not cover, as plain
 * hooks: each call a row of category cuda_driver, no argument kept (issue
 * 41). The list is generated from the toolkit's stubs/libcuda.so and cuda.h
 * (preload/gen_lib_hooks.sh DRIVER, build/preload/driver_gen.h). A call that
 * makes GPU work (cuGraphLaunch, cuMemPrefetchAsync, ...) is joined to its
 * CUPTI driver record by name and time, as a top-level runtime call is.
 */
#include "preload/hooks.h"

/* pre and post are PM_NONE for the driver: nothing is kept */
#define PRELOAD_DRIVER_BODY(ret, name, params, args, missing, pre, post) \
    PRELOAD_PLAIN_HOOK(ret, name, params, args, missing)
PRELOAD_DRIVER_GEN_BODIES(PRELOAD_DRIVER_BODY)
