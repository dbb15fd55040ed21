/*
 * clock.h - the one host clock every event is stamped with.
 *
 * Every time the outputs carry is CLOCK_MONOTONIC in nanoseconds: system-wide
 * (traces of several processes of one run line up when merged) and the clock
 * CUPTI's records are put on (timestamp callback or measured offset), so a
 * call and the kernel it launched line up.
 *
 * Two functions, two costs:
 *   cuprof_clock_now()    CLOCK_MONOTONIC ns (vDSO clock_gettime, ~20-25 ns).
 *                         Everything off the hot path uses it: run start and
 *                         end, CUPTI's clock, calibration.
 *   cuprof_clock_stamp()  what cuprof_begin/cuprof_end store in t0/t1: the
 *                         raw TSC (rdtsc, ~8-10 ns) when the TSC is invariant
 *                         (constant_tsc and nonstop_tsc in /proc/cpuinfo, read
 *                         once) and CUPROF_CLOCK is not "monotonic"; otherwise
 *                         cuprof_clock_now() itself.
 * Stamps become CLOCK_MONOTONIC ns in one place, before any reader sees them:
 * cuprof_buffers_stamps_to_ns() (buffers.c), called by the run build. Each
 * chunk's header holds an anchor (TSC, CLOCK_MONOTONIC) taken when the chunk
 * was started, and the conversion is linear between one anchor and the next
 * (the next chunk's, or one taken at conversion time): a stamp is off by at
 * most the two anchors' read error (tens of ns) plus what NTP slewed
 * CLOCK_MONOTONIC by within one chunk's span, whatever the run's length.
 */
#ifndef CUPROF_CLOCK_H
#define CUPROF_CLOCK_H

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define CUPROF_CLOCK_HAVE_TSC 1
#else
#define CUPROF_CLOCK_HAVE_TSC 0
#endif

/* Name of the time base of every output, written into their metadata. */
#define CUPROF_CLOCK_NAME "CLOCK_MONOTONIC"

/* Current host time in ns (CLOCK_MONOTONIC). Never fails on Linux; does not
 * touch errno on success. */
static inline uint64_t cuprof_clock_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* 1 when stamps are TSC ticks (set once by cuprof_clock_init, before the
 * first stamp; never changes after). */
extern int cuprof_clock_tsc __attribute__((visibility("hidden")));

/* The hot-path stamp: TSC ticks or CLOCK_MONOTONIC ns (see the top). One
 * load and a predictable branch besides the read itself. */
static inline uint64_t cuprof_clock_stamp(void)
{
#if CUPROF_CLOCK_HAVE_TSC
    if (__builtin_expect(cuprof_clock_tsc, 1))
        return __rdtsc();
#endif
    return cuprof_clock_now();
}

/* A simultaneous reading of both clocks. */
typedef struct cuprof_clock_anchor {
    uint64_t stamp;   /* cuprof_clock_stamp() */
    uint64_t ns;      /* cuprof_clock_now() at the same moment (+- tens of ns) */
} cuprof_clock_anchor;

/* Chooses the stamp source once per process (later calls do nothing):
 * the TSC when allow_tsc and the CPU's TSC is invariant. Call before the
 * first cuprof_clock_stamp (buffers.c does, when the first thread registers). */
void cuprof_clock_init(int allow_tsc) __attribute__((visibility("hidden")));

/* Both clocks read back to back (the narrowest of a few tries). */
cuprof_clock_anchor cuprof_clock_anchor_now(void) __attribute__((visibility("hidden")));

/* The line through two anchors: stamps to CLOCK_MONOTONIC ns. */
typedef struct cuprof_clock_line {
    cuprof_clock_anchor a;   /* the earlier anchor */
    double ns_per_stamp;     /* slope; 1 when stamps are ns already */
} cuprof_clock_line;

/* The line through a and b (b taken after a). */
static inline cuprof_clock_line cuprof_clock_line_make(cuprof_clock_anchor a,
                                                       cuprof_clock_anchor b)
{
    cuprof_clock_line l = {a, 1.0};
    int64_t ds = (int64_t)(b.stamp - a.stamp), dn = (int64_t)(b.ns - a.ns);
    if (cuprof_clock_tsc && ds > 0 && dn > 0)
        l.ns_per_stamp = (double)dn / (double)ds;
    return l;
}

/* Stamp s in CLOCK_MONOTONIC ns (s may lie outside the two anchors: the line
 * goes on). Identity when stamps are ns; 0 ("not stamped") stays 0. */
static inline uint64_t cuprof_clock_line_ns(const cuprof_clock_line *l, uint64_t s)
{
    if (!cuprof_clock_tsc || s == 0)
        return s;
    return l->a.ns + (uint64_t)(int64_t)((double)(int64_t)(s - l->a.stamp) * l->ns_per_stamp);
}

#endif /* CUPROF_CLOCK_H */
