/*
 * internal.h - the collector's own shared state; not for preload/ or
 * formats/ (they use collector.h and run.h). Unit tests include it to look
 * inside.
 *
 * Memory per recorded call: one 64-byte cuprof_event, nothing else on the
 * hot path. Events live in 64 KiB chunks (1023 events + a 64-byte header)
 * mmap'd per thread and chained, so a thread's buffer grows without copying
 * and an event's address never changes (hooks fill it between begin and end).
 * Per thread: one record (~128 bytes) plus its chunks. At exit the run model
 * and the aggregation add about 8 bytes per call (durations for the medians).
 */
#ifndef CUPROF_COLLECTOR_INTERNAL_H
#define CUPROF_COLLECTOR_INTERNAL_H

#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/config.h"
#include "model/run.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#define CUPROF_CHUNK_BYTES 65536u
#define CUPROF_CHUNK_EVENTS ((CUPROF_CHUNK_BYTES - 64u) / sizeof(cuprof_event))   /* 1023 */

/* A block of events of one thread. */
typedef struct cuprof_chunk {
    _Atomic(struct cuprof_chunk *) next;  /* next chunk of the thread, NULL at the tail */
    uint64_t base;                         /* sequence number of ev[0] on the thread */
    cuprof_clock_anchor anchor;            /* both clocks when the chunk was started: the
                                              stamps of its events become ns by the line
                                              from here to the next chunk's anchor */
    char pad[32];                          /* header padded to one cache line */
    cuprof_event ev[CUPROF_CHUNK_EVENTS];
} cuprof_chunk;

_Static_assert(sizeof(cuprof_chunk) == CUPROF_CHUNK_BYTES, "chunk must be 64 KiB");

/* One thread's record: registered once, never freed (survives thread exit so
 * its events are still written at process exit). Fields marked "owner" are
 * touched only by the thread itself; readers at exit use committed. */
typedef struct cuprof_thread {
    struct cuprof_thread *next;   /* global list, in registration order (under cuprof_g.lock) */
    uint32_t index;               /* 1-based registration order; in event ids */
    uint32_t tid;                 /* kernel thread id (gettid) */
    char name[16];                /* thread name when registered (PR_GET_NAME) */
    cuprof_chunk *head;           /* first chunk, set before the record is listed */
    cuprof_chunk *tail;           /* owner: chunk being filled */
    cuprof_event *cur;            /* owner: next free slot in tail */
    cuprof_event *end;            /* owner: one past tail's last slot */
    uint64_t reserved;            /* owner: slots handed out by cuprof_begin */
    uint32_t depth;               /* owner: calls open on this thread now */
    _Atomic uint64_t committed;   /* events [0, committed) are complete: published
                                     when an outermost call ends (release) */
    _Atomic uint64_t dropped;     /* calls not recorded for lack of memory */
    uint64_t converted;           /* events [0, converted) hold ns already (stamps
                                     converted by cuprof_buffers_stamps_to_ns) */
    cuprof_chunk *conv_chunk;     /* chunk holding event `converted` (or the one
                                     before it when that is full), for resuming */
    uint64_t spilled;             /* chunks written to the spill file (spill.c);
                                     events [0, spilled * 1023) live there */
} cuprof_thread;

/* cuprof_g.recording: what cuprof_begin does. */
enum cuprof_rec_state {
    CUPROF_REC_OFF = 0,     /* not started, disabled, or the exit path runs */
    CUPROF_REC_ON = 1,      /* record */
    CUPROF_REC_GATED = 2,   /* outside the capture window (capture.c) */
};

/* The collector's global state (one instance, cuprof_g). */
struct cuprof_state {
    _Atomic int init;             /* 0 not started, 1 running, 2 done */
    _Atomic int recording;        /* enum cuprof_rec_state */
    _Atomic int finished;         /* set by the first cuprof_collector_finish */
    pthread_mutex_t lock;         /* guards threads/threads_tail/nthreads/apis */
    cuprof_thread *threads;       /* registered threads, oldest first */
    cuprof_thread **threads_tail; /* where the next record is linked */
    uint32_t nthreads;            /* number of records listed */
    cuprof_thread *inherited;     /* in a forked child: the parent's records, never
                                     written here (kept reachable, not listed) */
    _Atomic uint64_t mem_bytes;   /* chunk memory mapped, bytes */
    uint64_t hook_ns;             /* the hot path's measured cost per call (start) */
    _Atomic int mem_warned;       /* the memory-limit warning was printed */
    const cuprof_api_desc *apis;  /* preload's API table (cuprof_api_register) */
    size_t napis;                 /* its length */
    uint64_t t_start;             /* clock at init (in a forked child: at fork) */
    long pid;                     /* getpid() at init / fork */
    int gpu_captured;             /* GPU timeline state, set by whoever knows */
    char gpu_reason[512];         /* ... and why, in words */
    _Atomic int finish_done;      /* the exit path's work is complete (files written or
                                     reported); signal handlers wait for it */
    _Atomic int pending_sig;      /* a terminating signal that arrived on the thread
                                     running the exit path: raised when it is done */
    char out_name[320];           /* base name this image wrote its files under ("" =
                                     not yet): a rewrite (failed exec) replaces them */
};

/* Calls not recorded, per API id (below CUPROF_MAX_APIS): the table adds
 * them to its counts. Relaxed atomics, written on the drop path only. */
#define CUPROF_MAX_APIS 1024
extern _Atomic uint64_t cuprof_dropped_api[CUPROF_MAX_APIS];

extern struct cuprof_state cuprof_g;
extern cuprof_config cuprof_g_config;

/* buffers.c: forgets every thread record (in a forked child: the parent's
 * events are the parent's to write). Caller holds no lock; single-threaded. */
void cuprof_buffers_reset_after_fork(void);
/* buffers.c: turns the stamps (clock.h) of t's events [0, upto) into
 * CLOCK_MONOTONIC ns, in place, once each (a later call converts only events
 * added since). The one place stamps become ns: the run build calls it on
 * committed events, which their thread never writes again. Thread-safe. */
void cuprof_buffers_stamps_to_ns(cuprof_thread *t, uint64_t upto);
/* The hot path's cost: ns per cuprof_begin + cuprof_end pair, measured on a
 * private record (nothing reaches the outputs); 0 when not measured (called
 * on a thread that recorded already). The process's first call runs it
 * (into cuprof_g.hook_ns). */
uint64_t cuprof_buffers_calibrate(void);
/* Event id of the outermost call open on this thread (the one every call
 * made inside it belongs to), 0 when none is open. */
uint64_t cuprof_open_call_id(void);
/* buffers.c: turns the stamps of a chunk's first n events into ns, by the
 * line from its anchor to next (the anchor of the chunk that followed it);
 * for spilled chunks (the run build). */
void cuprof_buffers_chunk_to_ns(cuprof_chunk *c, uint64_t n, cuprof_clock_anchor next);

/* spill.c (events beyond CUPROF_MEM_LIMIT, see there): */
/* Writes t's oldest chunk to the spill file if all its calls are closed and
 * takes it off t's chain; returns it for reuse, NULL when it cannot (the
 * caller drops the call). Owner thread only. */
cuprof_chunk *cuprof_spill_oldest(cuprof_thread *t);
/* Waits (bounded) for spills in progress; the exit path calls it after
 * clearing recording. */
void cuprof_spill_quiesce(void);
/* t's spilled chunks, oldest first, into out (at most max): pointers into
 * the file mapped read-write. Returns how many. */
size_t cuprof_spill_chunks(const cuprof_thread *t, cuprof_chunk **out, size_t max);
/* A spilled chunk's "stamps are ns already" mark; set = 1 sets it. */
int cuprof_spill_chunk_converted(cuprof_chunk *c, int set);
/* Why spilling stopped (for the summary), NULL if it did not. */
const char *cuprof_spill_failure(void);
/* Records written so far. */
uint64_t cuprof_spill_records(void);
/* After the outputs are written: unmaps the file, and removes it (remove =
 * 1) unless an exec may still fail and need it again. */
void cuprof_spill_release(int remove);
/* In a forked child: the parent's file is not ours. */
void cuprof_spill_reset_after_fork(void);

/* capture.c: the capture window (CUPROF_CAPTURE_RANGE & co). */
/* From init: sets the window up (timer thread for a timed one); returns
 * the recording state to start in. */
int cuprof_capture_init(void);
/* The recording state the window asks for now (a failed exec resumes it). */
int cuprof_capture_state(void);
/* Set while NVTX events must pass through cuprof_capture_nvtx. */
extern _Atomic int cuprof_capture_nvtx_on;
/* Before an NVTX event is recorded: opens the window if the event is the
 * trigger's start. 1 when it ends the range holding the window open: call
 * cuprof_capture_close() after recording it. */
int cuprof_capture_nvtx(uint8_t cls, uint32_t name, uint32_t domain, uint64_t id);
void cuprof_capture_close(void);
/* A call found the window closed: the first one starts CUPTI (so that it
 * runs when a window opens) and makes the exit path write files. */
void cuprof_capture_outside(void);
int cuprof_capture_outside_seen(void);
/* The windows so far for the run (strings and list stay owned by capture.c;
 * a window open now closes at t_end). */
void cuprof_capture_snapshot(cuprof_capture *out, uint64_t t_end);

/* process_signals.c: the executable segment holding libcuprof's code
 * (found once). */
void cuprof_self_text(uintptr_t *lo, uintptr_t *hi);

/* buffers.c: 1 when the calling thread is inside cuprof_guard_enter. */
int cuprof_guard_active(void);

/* kernels.c: number of interned names (ids are 1..count). */
uint32_t cuprof_kernel_count(void);
/* kernels.c: interned name of id (as registered, mangled), NULL if unknown. */
const char *cuprof_kernel_raw_name(uint32_t id);
/* kernels.c: fork handlers: prepare takes the table's lock so a child never
 * inherits it held; done releases it (parent) or re-creates it (child). */
void cuprof_kernels_fork_prepare(void);
void cuprof_kernels_fork_done(int child);

/* strings.c: number of interned strings (ids 1..count); the string of id
 * (NULL if unknown); fork handlers as for the kernel table. */
uint32_t cuprof_string_count(void);
const char *cuprof_string_get(uint32_t id);
void cuprof_strings_fork_prepare(void);
void cuprof_strings_fork_done(int child);

/* lifecycle.c: the exit path. Stops recording, builds the run model,
 * aggregates it and writes the files; runs its work at most once per process
 * (later calls return at once). Returns the number of files written (0 when
 * the process recorded nothing), -1 on failure (already reported). */
int cuprof_collector_finish(void);
/* lifecycle.c: the same for the other exit paths (collector/process.h):
 * ended_by names how the process ends ("_exit", "exec", "SIGINT", ...,
 * static string), truncated = 1 for a crash. */
int cuprof_collector_finish_as(const char *ended_by, int truncated);
/* lifecycle.c: an exec that the exit path ran for failed: record again, and
 * let the next exit path write (the same files) again. */
void cuprof_collector_resume(void);
/* lifecycle.c: 1 when the calling thread is running the exit path's work. */
int cuprof_collector_finishing_here(void);

#endif /* CUPROF_COLLECTOR_INTERNAL_H */
