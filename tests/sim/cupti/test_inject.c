/*
 * test_inject.c - a CUDA_INJECTION64_PATH library for test_sim_cupti: the
 * simulated driver loads it and calls InitializeInjection() while it starts,
 * the way a profiler is injected. Everything it sets must still count as
 * "before the driver started".
 */
#include <stdint.h>
#include <time.h>

#include <cupti.h>

/* The clock the injected tool asks for: CLOCK_MONOTONIC + 555 s. */
static uint64_t CUPTIAPI inject_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + 555000000000ull;
}

/* Returns 1 (success) only if CUPTI accepted every setting. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    size_t size = 4 * 32, limit = 1, sz = sizeof(size_t);
    if (cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_SIZE, &sz, &size) != CUPTI_SUCCESS ||
        cuptiActivitySetAttribute(CUPTI_ACTIVITY_ATTR_DEVICE_BUFFER_POOL_LIMIT, &sz, &limit) != CUPTI_SUCCESS ||
        cuptiActivityRegisterTimestampCallback(inject_clock) != CUPTI_SUCCESS)
        return 0;
    return 1;
}
