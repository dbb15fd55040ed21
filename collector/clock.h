/*
 * clock.h - the one host clock every event is stamped with.
 *
 * Everything the collector records (call entry and return, run start and
 * end) goes through cuprof_clock_now(), so the time base can be swapped (for
 * the TSC, or CUPTI's clock when the GPU timeline lands) in this one place.
 * Today it is CLOCK_MONOTONIC in nanoseconds: system-wide, so traces of
 * several processes of one run line up when merged; about 20 ns through the
 * vDSO on x86-64.
 */
#ifndef CUPROF_CLOCK_H
#define CUPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

/* Name of the time base, written into the outputs' metadata. */
#define CUPROF_CLOCK_NAME "CLOCK_MONOTONIC"

/* Current host time in ns. Never fails on Linux (the clock always exists);
 * does not touch errno on success. */
static inline uint64_t cuprof_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif /* CUPROF_CLOCK_H */
