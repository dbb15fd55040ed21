/*
 * recover.h - what cuprof-report --recover adds to the run file of a
 * process killed outright, from the recording memory prof.sh's supervisor
 * shared with it (collector/shm.h), before it reads the file.
 */
#ifndef CUPROF_TOOLS_RECOVER_H
#define CUPROF_TOOLS_RECOVER_H

#include <stddef.h>
#include <stdint.h>

/* How the process ended, as its supervisor saw it (0 / NULL: unknown). */
typedef struct cuprof_recover_end {
    const char *ended_by;    /* "SIGKILL", ... */
    uint64_t died_ns;        /* CLOCK_MONOTONIC when it was seen gone */
    uint64_t oom_kills;      /* its memory cgroup's oom_kill grew by this while it ran */
    const char *cgroup;      /* that cgroup */
    uint64_t mem_limit;      /* its limit, bytes */
    uint64_t rss, rss_peak;  /* host memory when last seen, and its peak, bytes */
    uint64_t rss_ns;         /* when */
} cuprof_recover_end;

/* What was added. */
typedef struct cuprof_recover_stats {
    int from_memory;         /* 1: the process's recording memory was found */
    uint32_t threads;        /* threads whose calls were taken from it */
    uint64_t ring_blocks;    /* the flight recorder's blocks taken from its ring */
    uint32_t names;          /* names taken from its log */
} cuprof_recover_stats;

/* Appends to path (the run file of pid, not completed, its whole blocks
 * ending at byte good: anything after is cut off first) what the recording
 * memory shm_fd (-1: none) holds of pid that the file lacks, then a
 * RECOVERED block saying how it ended (end). Returns 0, or -1 with one
 * line in err when the file cannot be written. */
int cuprof_recover_append(const char *path, long pid, int shm_fd, uint64_t good,
                          const cuprof_recover_end *end, cuprof_recover_stats *st, char *err,
                          size_t errlen);

/* Both clocks read together (the run's end anchor, after every stamp the
 * process made): *stamp a TSC reading and *ns the CLOCK_MONOTONIC reading
 * taken between two of them, from the narrowest of a few such brackets, so
 * that a preemption inside one bracket (tens of us on a busy machine)
 * does not put the anchor off, and with it the slope of every call's
 * conversion since the last chunk's anchor (collector/clock.h does the
 * same). The readers are parameters for the unit test. */
void cuprof_recover_anchor(uint64_t (*tsc)(void), uint64_t (*mono)(void), uint64_t *stamp,
                           uint64_t *ns);

#endif /* CUPROF_TOOLS_RECOVER_H */
