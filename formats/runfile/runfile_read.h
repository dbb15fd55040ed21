/*
 * runfile_read.h - a run file (NAME.cuprof, collector/runfile.h) read back
 * as the model's input: the cuprof_run with its threads' calls decoded
 * (compact records to 64-byte events, stamps to CLOCK_MONOTONIC ns) and
 * the GPU records normalized (host clock, external ids, sorted) as its
 * gpu_run. Used by cuprof-report (tools/) and the tests; never by the
 * library that writes the file.
 */
#ifndef CUPROF_RUNFILE_READ_H
#define CUPROF_RUNFILE_READ_H

#include "model/run.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* How far a reading has come, for a progress display on another thread
 * (tools/progress.h): the caller's, given to cuprof_rfread_with
 * zeroed; the reader only sets and adds to it. Work is counted in bytes:
 * each block of the file checked and read (the GPU records are decoded
 * then), then each call's record decoded, a second pass over the calls'
 * chunks. */
typedef struct cuprof_rfread_progress {
    _Atomic uint64_t file;      /* the file's bytes (set first) */
    _Atomic uint64_t walked;    /* bytes of its blocks read */
    _Atomic uint64_t chunks;    /* bytes of the calls' records to decode, once known */
    _Atomic uint64_t decoded;   /* ... of them decoded (a part decoded again counts again) */
} cuprof_rfread_progress;

/* The work done and the work in all, in bytes. Until the calls' bytes are
 * known they are taken to be the whole file's, so the share done only grows
 * when they are. */
static inline void cuprof_rfread_work(cuprof_rfread_progress *p, uint64_t *done, uint64_t *total)
{
    uint64_t file = atomic_load_explicit(&p->file, memory_order_relaxed);
    uint64_t chunks = atomic_load_explicit(&p->chunks, memory_order_relaxed);
    *done = atomic_load_explicit(&p->walked, memory_order_relaxed) +
            atomic_load_explicit(&p->decoded, memory_order_relaxed);
    *total = file + (chunks ? chunks : file);
}

/* What reading found besides the run. */
typedef struct cuprof_rfread_info {
    uint32_t major, minor;   /* the file's version */
    uint64_t file_bytes;     /* its size */
    uint64_t read_bytes;     /* the whole blocks read (header included) */
    int complete;            /* 1: the last block is END (the run was completed) */
    int have_meta;           /* 1: a META block was read */
    const char *name;        /* the base name the process chose, NULL unknown */
    const char *out_dir;     /* its output directory, NULL unknown */
    int keep_run_file;       /* CUPROF_RUN_FILE as the process had it */
    const char *name_base;   /* its base name before the no-clobber suffix, NULL unknown */
    long root_pid;           /* CUPROF_ROOT_PID it had (the process prof.sh started), 0 */
    long pid;                /* the process that wrote it */
    uint64_t windows_written;/* repeating capture windows written while it ran */
    int recovered;           /* 1: prof.sh's supervisor completed it after a kill (a
                                RECOVERED block, 4.1): run->killed says how it ended */
    char lost[512];          /* what was lost, in words ("" nothing): a torn or
                                damaged block, a run not completed */
} cuprof_rfread_info;

/* Reads path. Returns the run (owned: cuprof_rfread_free), or NULL with
 * one line in err (no "cuprof:" prefix) when the file cannot be used: not
 * there, not a run file, a newer major version, out of memory. A torn or
 * damaged block ends the reading there: what came before is the run, and
 * info->lost says what was lost. */
cuprof_run *cuprof_rfread(const char *path, cuprof_rfread_info *info, char *err, size_t errlen);
/* How to read (cuprof_rfread_with; all 0: as cuprof_rfread). */
typedef struct cuprof_rfread_opts {
    cuprof_rfread_progress *progress;  /* the work counted into it as it goes, NULL none */
    int stream;              /* 1: the threads' calls are not decoded into one array
                                of every call: each thread is streamed (model/run.h),
                                its blocks decoded from the mapped file when read
                                (a file of 2.0 or later; a 1.x file's are decoded
                                as without) */
    uint64_t stream_above;   /* stream 0: streamed all the same when every call
                                decoded would take more than this many bytes (64 a
                                call; 0: never) and the run holds no GPU records
                                (with them cuprof-report's peak went past its bound
                                streamed: bench/RESULTS.md) */
    uint32_t stream_block;   /* streamed: most calls a block holds (0: a chunk's) */
    uint32_t stream_slots;   /* streamed: blocks a reading thread keeps decoded
                                (0: 8; at least CUPROF_RUN_BLOCKS_HELD + 1) */
    int stream_free;         /* streamed: a block put out of its slot is freed, not
                                kept for the next (the tests: a pointer held past
                                CUPROF_RUN_BLOCKS_HELD is then a use after free) */
} cuprof_rfread_opts;

/* cuprof_rfread as opts say (NULL: as cuprof_rfread). A streamed run's
 * events are decoded on the thread that reads them, into blocks of its
 * own: several threads may read one run at once; the run and its file's
 * mapping stay until cuprof_rfread_free, after which no thread reads it. */
cuprof_run *cuprof_rfread_with(const char *path, cuprof_rfread_info *info,
                               const cuprof_rfread_opts *opts, char *err, size_t errlen);
void cuprof_rfread_free(cuprof_run *run);
/* The GPU side as read, also when CUPTI did not run (captured 0, status
 * says why): run->gpu_run is NULL then. */
const struct cuprof_gpu_run *cuprof_rfread_gpu(const cuprof_run *run);

/* __cxa_demangle from a dlopen'd libstdc++ (the model's demangler):
 * malloc'd, NULL when not a mangled C++ name or no demangler. */
char *cuprof_rfread_demangle(const char *name);

#endif /* CUPROF_RUNFILE_READ_H */
