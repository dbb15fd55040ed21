/*
 * snapshot.h - the live collector's state written to the run file at the
 * end (collector/runfile.h): what was not written while the program ran.
 */
#ifndef CUPROF_SNAPSHOT_H
#define CUPROF_SNAPSHOT_H

#include <stdint.h>

typedef struct cuprof_snapshot_info {
    const char *ended_by;    /* "exit", "_exit", "exec", "SIGINT", "SIGSEGV", ... */
    int truncated;           /* 1: after a crash (calls open then are missing) */
    const char *name;        /* the outputs' base name */
    uint64_t windows_written;/* repeating windows written so far (0: ask runfile.c) */
} cuprof_snapshot_info;

/* Appends to the run file each thread's chunk being filled and its
 * published count, the kernel names, the NVTX strings, the host stacks
 * (resolved now), the run's metadata and an END block. Recording must be
 * off (the exit path). 0, or -1 when the file could not be written. */
int cuprof_snapshot_write(const cuprof_snapshot_info *in);

/* The metadata as known now, the windows written so far said, as a META
 * block (a repeating window closed: its report reads it). */
void cuprof_snapshot_write_meta_now(uint64_t windows_written);
/* The same, with write_meta's result: 0 when the block was written. */
int cuprof_snapshot_write_meta_now_rc(uint64_t windows_written);
/* The metadata as known now, as the run file's first META block (the
 * file was just opened; the end writes the full one). */
void cuprof_snapshot_write_start(void);

/* The flusher's round: each thread whose published calls changed since
 * the last round gets a TAIL (a copy of its live chunk, kept when the
 * thread did not empty it meanwhile) and a THREAD block. */
void cuprof_snapshot_flush(void);

/* A thread ends (its record's owner, no call open, asynchronous signals
 * blocked): its chunk being filled (TAIL) and its count (THREAD) written
 * as the end would, its calls kept for the end's count, its record taken
 * off the list once no walk over the records holds it. 0: the caller frees
 * the record and its chunk; -1 (the exit path runs): the end writes it. */
struct cuprof_thread;
int cuprof_snapshot_thread_end(struct cuprof_thread *t);
/* In a forked child. */
void cuprof_snapshot_reset_after_fork(void);

/* Calls published and calls counted but not recorded, over every thread. */
int cuprof_snapshot_counts(uint64_t *calls, uint64_t *dropped);

/* Records the GPU timeline state, by whoever knows it (the CUPTI code).
 * reason is copied. Default: not captured, "CUPTI not started". */
void cuprof_gpu_timeline_set(int captured, const char *reason);

#endif /* CUPROF_SNAPSHOT_H */
