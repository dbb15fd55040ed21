/*
 * test_inject.c - a CUDA injection library for test_sim_cudart: it checks,
 * from inside InitializeInjection, what a CUPTI-based tool relies on (re-entrant
 * init returns at once, the timestamp callback is taken), and leaves the
 * results in exported variables the test reads back with dlsym.
 */
#include "cusim.h"

CUSIM_EXPORT int sim_test_inject_calls;      /* InitializeInjection calls */
CUSIM_EXPORT int sim_test_inject_reentry_ok; /* cusim_init returned while initializing */
CUSIM_EXPORT int sim_test_inject_ts_ok;      /* timestamp callback accepted */

/* The tool's clock: host + 5 s, easy to tell from the default offset. */
CUSIM_EXPORT uint64_t sim_test_inject_clock(void)
{
    return cusim_host_ns() + 5000000000ull;
}

CUSIM_EXPORT int InitializeInjection(void)
{
    sim_test_inject_calls++;
    sim_test_inject_reentry_ok = cusim_init() == 0 && !cusim_initialized();
    sim_test_inject_ts_ok = cusim_tool_set_timestamp_fn(sim_test_inject_clock) == 0;
    return 1;
}
