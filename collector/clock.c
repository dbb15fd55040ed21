/*
 * clock.c - choosing the stamp source once, and reading both clocks together
 * (see clock.h for why there are two).
 */
#include "collector/clock.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

int cuprof_clock_tsc;

/* The caller's wish, for clock_choose (atomic: every registering thread
 * stores it before the once; they all pass the same configuration). */
static _Atomic int clock_allow_tsc;
static pthread_once_t clock_once = PTHREAD_ONCE_INIT;

/* 1 when /proc/cpuinfo lists both constant_tsc (fixed rate, whatever the
 * core's frequency) and nonstop_tsc (keeps counting in deep C-states): then
 * the TSC is a clock. Linux only sets them when they hold on every CPU. */
static int tsc_invariant(void)
{
    FILE *f = fopen("/proc/cpuinfo", "re");
    if (!f)
        return 0;
    char line[4096];
    int constant = 0, nonstop = 0;
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0)
            continue;
        constant = strstr(line, " constant_tsc") != NULL;
        nonstop = strstr(line, " nonstop_tsc") != NULL;
        break;   /* the first CPU's flags line; the kernel clears them for all */
    }
    fclose(f);
    return constant && nonstop;
}

static void clock_choose(void)
{
#if CUPROF_CLOCK_HAVE_TSC
    cuprof_clock_tsc = atomic_load_explicit(&clock_allow_tsc, memory_order_relaxed) &&
                       tsc_invariant();
#endif
}

void cuprof_clock_init(int allow_tsc)
{
    atomic_store_explicit(&clock_allow_tsc, allow_tsc, memory_order_relaxed);
    pthread_once(&clock_once, clock_choose);
}

cuprof_clock_anchor cuprof_clock_anchor_now(void)
{
    cuprof_clock_anchor best = {cuprof_clock_stamp(), cuprof_clock_now()};
    if (!cuprof_clock_tsc)
        return (cuprof_clock_anchor){best.ns, best.ns};
    uint64_t best_w = UINT64_MAX;
    /* The narrowest of a few brackets: an interrupt in one only widens it. */
    for (int i = 0; i < 5; i++) {
        uint64_t s0 = cuprof_clock_stamp();
        uint64_t ns = cuprof_clock_now();
        uint64_t s1 = cuprof_clock_stamp();
        if (s1 - s0 < best_w) {
            best_w = s1 - s0;
            best.stamp = s0 + (s1 - s0) / 2;
            best.ns = ns;
        }
    }
    return best;
}
