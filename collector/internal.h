/*
 * internal.h - the collector's own shared state; not for preload/ or
 * formats/ (they use collector.h and run.h). Unit tests include it to look
 * inside.
 *
 * Memory per recorded call: a compact record (compact.h: about 7 bytes for a
 * repeated launch, at most CUPROF_REC_MAX), written when the call ends into
 * 64 KiB chunks mmap'd per thread and chained. While a call is open, its
 * 64-byte cuprof_event lives in the thread's staging slots (one per nesting
 * depth, reused: cache-resident), where the hook fills its arguments. Per
 * thread: one record (~2.3 KiB with the slots) plus its chunks. At exit the
 * records are decoded into 64-byte events (snapshot.c) and the model adds
 * about 8 bytes per call (durations for the medians).
 */
#ifndef CUPROF_COLLECTOR_INTERNAL_H
#define CUPROF_COLLECTOR_INTERNAL_H

#include "collector/clock.h"
#include "collector/collector.h"
#include "collector/config.h"
#include "collector/runfile_types.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>

#include "collector/compact.h"

#define CUPROF_CHUNK_BYTES 65536u
#define CUPROF_CHUNK_DATA (CUPROF_CHUNK_BYTES - 64u)
/* Calls open at once on one thread that can be recorded (deeper ones are
 * counted, not recorded: no hooked library nests this deep). */
#define CUPROF_STAGE_DEPTH 24u

/* A block of compact records of one thread (compact.h), in the order the
 * calls ended; a 0 byte after the last one when the chunk was closed. */
typedef struct cuprof_chunk {
    _Atomic(struct cuprof_chunk *) next;  /* next chunk of the thread, NULL at the tail */
    uint64_t nrec;                         /* records in it; set when it is closed
                                              (informational: readers stop at the 0) */
    cuprof_clock_anchor anchor;            /* both clocks when the chunk was started: the
                                              stamps of its records become ns by the line
                                              from here to the next chunk's anchor */
    char pad[32];                          /* header padded to one cache line */
    uint8_t data[CUPROF_CHUNK_DATA];
} cuprof_chunk;

_Static_assert(sizeof(cuprof_chunk) == CUPROF_CHUNK_BYTES, "chunk must be 64 KiB");

/* One thread's record: registered at the thread's first event. When the
 * thread ends (no call open, recording on, no capture window or flight
 * recorder) its last calls are written to the run file and the record and
 * its chunk are freed (buffers.c's thread_ended); otherwise it survives the
 * thread, so its events are still written at process exit. Fields marked
 * "owner" are touched only by the thread itself; readers at exit use
 * committed. */
typedef struct cuprof_thread {
    /* the calls open now, one slot per depth: the event the hook fills
     * (first, so the slots are cache-line aligned like the record) */
    cuprof_event stage[CUPROF_STAGE_DEPTH];
    uint64_t stage_seq[CUPROF_STAGE_DEPTH]; /* owner: each open call's sequence number */
    struct cuprof_thread *next;   /* global list, in registration order (under cuprof_g.lock) */
    uint32_t index;               /* 1-based registration order; in event ids */
    uint32_t tid;                 /* kernel thread id (gettid) */
    char name[16];                /* thread name when registered (PR_GET_NAME) */
    cuprof_chunk *head;           /* first chunk in memory, set before the record is listed */
    cuprof_chunk *tail;           /* owner: chunk being filled */
    uint8_t *wp;                  /* owner: where the next record goes in tail */
    uint8_t *wend;                /* owner: tail's data end */
    cuprof_codec codec;           /* owner: the encoder's state (compact.h) */
    cuprof_clock_anchor first;    /* anchor of the thread's first chunk */
    uint64_t reserved;            /* owner: sequence numbers handed out */
    uint32_t depth;               /* owner: calls open on this thread now */
    _Atomic uint64_t committed;   /* the first `committed` records written are complete
                                     and are the calls [0, committed): published when an
                                     outermost call ends (release) */
    _Atomic uint64_t dropped;     /* calls not recorded for lack of memory */
    uint64_t written;             /* chunks written to the run file (runfile.c), the
                                     thread's oldest */
    _Atomic uint64_t gen;         /* odd while the chunk is being emptied after its
                                     write, bumped before and after (the flusher's
                                     copy of a live chunk checks it did not change) */
    uint64_t flushed;             /* the flusher: committed when it last wrote a TAIL */
    uint64_t flushed_no;          /* ... the chunk it copied then */
    size_t flushed_bytes;         /* ... and how much of it (the next TAIL goes on from there) */
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
    uint32_t nthreads;            /* records registered (the last index given); those
                                     given back at their thread's end are not listed */
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
    uint64_t exit_ns;             /* clock when the exit path stopped recording (0: not yet) */
    char out_name[320];           /* base name this image wrote its files under ("" =
                                     not yet): a rewrite (failed exec) replaces them */
};

/* Calls not recorded, per API id (below CUPROF_MAX_APIS): the table adds
 * them to its counts. Relaxed atomics, written on the drop path only. */
#define CUPROF_MAX_APIS 8192   /* the hooks: about 2400 with the math libraries and libcuda (issue 41) */
extern _Atomic uint64_t cuprof_dropped_api[CUPROF_MAX_APIS];

/* The APIs the run used, a bit each (a record written, an allocation the
 * memory-held map noted): the run file's API table names only these (the
 * others get an empty entry in the API_TABLE tag: 3 bytes, with the driver's
 * 637 hooks and the math libraries' among some 2400). Set once per API by
 * the first user: off the hot path (a repeated launch never reaches it). */
extern _Atomic uint64_t cuprof_api_used[CUPROF_MAX_APIS / 64];
/* How many APIs have been marked: the flusher writes a META again when it
 * grew (a run killed before its end names every API its records use). */
extern _Atomic uint64_t cuprof_api_used_count;

/* buffers.c: the first use of api (out of line: the common case, an API
 * seen before, is one load and a test). */
void cuprof_api_mark_first(uint16_t api) __attribute__((cold, noinline));
static inline void cuprof_api_mark(uint16_t api)
{
    if (api >= CUPROF_MAX_APIS)
        return;
    if (__builtin_expect(!(atomic_load_explicit(&cuprof_api_used[api >> 6], memory_order_relaxed) &
                           (1ull << (api & 63))), 0))
        cuprof_api_mark_first(api);
}

extern struct cuprof_state cuprof_g;
extern cuprof_config cuprof_g_config;

/* buffers.c: forgets every thread record (in a forked child: the parent's
 * events are the parent's to write). Caller holds no lock; single-threaded. */
void cuprof_buffers_reset_after_fork(void);
/* buffers.c: a stamp (clock.h) of a record in a chunk whose anchor is a,
 * the next chunk's (or the end's) b, as CLOCK_MONOTONIC ns; whole: the line
 * over the thread's life, for a stamp past b. The one place stamps become
 * ns: the run build calls it while it decodes. */
uint64_t cuprof_buffers_stamp_ns(const cuprof_clock_line *seg, const cuprof_clock_line *whole,
                                 uint64_t b_stamp, uint64_t s);
/* The hot path's cost: ns per cuprof_begin + cuprof_end pair, measured on a
 * private record (nothing reaches the outputs); 0 when not measured (called
 * on a thread that recorded already). The process's first call runs it
 * (into cuprof_g.hook_ns). */
uint64_t cuprof_buffers_calibrate(void);
/* Event id of the outermost call open on this thread (the one every call
 * made inside it belongs to), 0 when none is open. */
uint64_t cuprof_open_call_id(void);

/* runfile.c: the run file (collector/runfile.h), written while the
 * program runs. */
struct iovec;
/* Appends one block of type whose payload is the nparts (at most 6) parts,
 * under the file's lock (opened at the first block); 0, or -1 when the run
 * file cannot be written (reported once: recording then stops). */
int cuprof_runfile_append(uint32_t type, const struct iovec *parts, int nparts);
int cuprof_runfile_put(uint32_t type, const void *p, size_t n);
/* A chunk of t as a block of type (CHUNK or TAIL): used bytes of records. */
int cuprof_runfile_write_chunk(uint32_t type, const cuprof_thread *t, const cuprof_chunk *c,
                               size_t used);
/* The same from a copy: records of thread index whose chunk's anchor was
 * anchor. */
int cuprof_runfile_write_records(uint32_t type, uint32_t thread, uint32_t chunk_no,
                                 uint32_t offset, cuprof_clock_anchor anchor, const void *data,
                                 size_t used);
/* Starts the flusher (once per process; again in a forked child): the run
 * file opened at once, each thread's published calls written every second. */
void cuprof_runfile_flusher_start(void);
/* The fork's prepare handler: waits (bounded) until the flusher is between
 * two rounds and keeps it there until cuprof_runfile_fork_done (child: 1 in
 * the child, 0 in the parent), so no lock a round takes (malloc's among
 * them) is held in the child for good. */
void cuprof_runfile_fork_prepare(void);
void cuprof_runfile_fork_done(int child);
/* For the unit tests (NULL in the library): run by the flusher inside each
 * of its rounds, the first (the run file opened) included. */
extern void (*cuprof_runfile_round_hook)(void);
/* Repeating windows whose outputs the flusher wrote (NAME.wK.*). */
uint64_t cuprof_runfile_windows_written(void);
/* Owner thread, its tail chunk full: writes it as a CHUNK block (0: the
 * chunk may be reused), -1 when not (the exit path runs, or the file
 * failed: the caller drops the call). */
int cuprof_runfile_chunk_full(cuprof_thread *t);
/* 1 (counted in the exit path's quiesce: call cuprof_runfile_release) while
 * recording is on; 0 when the exit path runs (or recording is gated). */
int cuprof_runfile_hold(void);
void cuprof_runfile_release(void);
/* Waits (bounded) for chunk writes in progress; the exit path calls it
 * after clearing recording. */
void cuprof_runfile_quiesce(void);
/* Why the run file stopped (for the summary), NULL if it did not. */
const char *cuprof_runfile_failure(void);
/* Blocks every asynchronous signal on this thread (the faults stay
 * deliverable), the previous mask into *old: around a region that holds a
 * lock the exit path needs, so that a signal handled on this thread (our
 * handler waits for the exit path) cannot find the lock held. */
void cuprof_block_async(sigset_t *old);
/* The kernel names and NVTX strings interned since the last call, to the
 * file (with each chunk and CUPTI buffer; the end writes whole tables). */
void cuprof_runfile_new_names(void);
/* CHUNK blocks written so far. */
uint64_t cuprof_runfile_chunks(void);
/* The exit path completes the file: after a failure, its (small) blocks
 * are still tried, each one that fails cut off again. */
void cuprof_runfile_final(void);
/* ---- flight.c: the flight recorder's ring (CUPROF_FLIGHT_RECORDER) ---- */
int cuprof_flight_on(void);
/* 1 when a block of this type goes to the ring, not the file (flight mode). */
int cuprof_flight_keeps(uint32_t type);
struct iovec;
/* Keeps a whole block (its parts as the file would take them) in the ring,
 * kept at clock ns `now`; the run file's lock held. */
void cuprof_flight_put_locked(const struct iovec *v, int n, uint64_t now);
/* Calls fn on each block not written yet that was kept at or after `from`,
 * oldest first, marking it written when fn returns 0 (a non-zero return
 * stops there and is returned). The run file's lock held. */
int cuprof_flight_each_locked(uint64_t from, int (*fn)(const void *block, size_t len, void *ctx),
                              void *ctx);
typedef struct cuprof_flight_stats {
    uint64_t span_ns, bound, held, peak;
    uint64_t evicted_until;   /* newest block that went for lack of room (clock ns), 0 none */
    uint64_t lost;            /* blocks the ring could not take */
} cuprof_flight_stats;
void cuprof_flight_stats_locked(cuprof_flight_stats *s);
/* The same, taking the run file's lock (runfile.c). */
void cuprof_runfile_flight_stats(cuprof_flight_stats *s);
void cuprof_flight_reset_after_fork(void);
/* A window asked for, with why (a second before it is written adds its
 * reason); 0 for the first. The flusher takes it (capture.c opens the
 * window, runfile.c writes it). */
int cuprof_flight_ask(const char *why);
int cuprof_flight_take(char *why, size_t n);
/* From cuprof_end's slow branch: a call failed with result; asks for a
 * window when it is out of memory or a sticky error (once per code). */
void cuprof_flight_error(const cuprof_event *ev, int32_t result);
/* Writes the ring's blocks kept since `from` and not written yet to the
 * file; 0 or -1. */
int cuprof_runfile_flight_write(uint64_t from);

/* A failed exec: recording resumes, so blocks may follow the END again. */
void cuprof_runfile_resume(void);
/* Opens the file if it is not open yet; 0 or -1. */
int cuprof_runfile_ensure(void);
/* Times the program closed or replaced the file's descriptor and the file
 * was opened again by its path. */
uint64_t cuprof_runfile_reopened(void);
/* Where the file is now ("" before it is opened). */
const char *cuprof_runfile_path(void);
/* Renames the file to `to` (its final name); 0 or -1. */
int cuprof_runfile_rename(const char *to);
/* Closes the file (and removes it with remove = 1); the next block opens a
 * new one. */
void cuprof_runfile_forget(int remove);
/* In a forked child: the parent's file is not ours. */
void cuprof_runfile_reset_after_fork(void);
/* A name table block (KERNEL_NAMES, STRINGS, GPU_NAMES): ids first ..
 * first + count - 1, get(id) each (NULL: empty). */
int cuprof_runfile_names(uint32_t type, uint32_t first, uint32_t count,
                         const char *(*get)(uint32_t id));

/* Tagged fields being built for a META, GPU_INFO or STACKS block. */
typedef struct cuprof_tags {
    uint8_t *p;
    size_t len, cap;
    int failed;
} cuprof_tags;
void cuprof_tags_raw(cuprof_tags *b, uint16_t tag, const void *p, size_t n);
void cuprof_tags_u64(cuprof_tags *b, uint16_t tag, uint64_t v);
void cuprof_tags_str(cuprof_tags *b, uint16_t tag, const char *s);
/* Appends b as a block of type and frees it; 0 or -1. */
int cuprof_tags_write(cuprof_tags *b, uint32_t type);

/* shm.c: the recording memory prof.sh's supervisor reads after a SIGKILL
 * (collector/shm.h). attach: at init, when CUPROF_SHM names it; on: 1 when
 * attached with a process slot. A thread slot: its record area then its
 * chunk, populated (NULL: none, private memory then); give: the thread
 * ended. The names log, once per name or API. alive: the flusher's round.
 * ring_area: the flight ring's state and cap bytes there, NULL when it
 * does not fit. set_done: the run file is complete (1) or recording
 * resumed after a failed exec (0). */
void cuprof_shm_attach(void);
int cuprof_shm_on(void);
void *cuprof_shm_slot_take(void);
int cuprof_shm_slot_owns(const void *rec);
void cuprof_shm_slot_give(void *rec);
void cuprof_shm_name_kernel(uint32_t id, const char *name);
void cuprof_shm_name_string(uint32_t id, const char *s);
void cuprof_shm_api_first_used(uint16_t api);
void cuprof_shm_alive(uint64_t now);
struct cuprof_shm_ring;
struct cuprof_shm_ring *cuprof_shm_ring_area(uint64_t cap, uint8_t **mem);
void cuprof_shm_set_done(int done);
void cuprof_shm_atfork_child(void);

/* lifecycle.c: the outputs' base name (PROGRAM.PID, NAME, NAME.rankR, ...)
 * before the no-clobber suffix. */
void cuprof_output_base(char *dst, size_t n);

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
/* Repeating windows (repeat:N, none, --steps): how many have closed so far
 * (their outputs are written as they close); 0 for a single window. */
uint64_t cuprof_capture_closed(void);
/* Standby (CUPROF_STANDBY): a trigger's request ("duration_ns=N", "calls=N",
 * "steps=N [RANGE]") opens a window; answer says what happened (0) or why
 * not (-1). The flusher calls cuprof_capture_tick every 0.1 s: it closes a
 * window whose duration or calls are done. */
int cuprof_capture_trigger(const char *req, char *answer, size_t n);
void cuprof_capture_tick(void);
/* Standby: the number of the step this process is in (its "#K", else its
 * occurrence from 0; -1 none begun yet), the last step's time (0 unknown)
 * and the number the next window will have (prof.sh trigger --job). A
 * request's "from=K" arms the window for the first step numbered K or more
 * ("missed" when step K has begun). */
void cuprof_capture_steps_now(int64_t *step, uint64_t *step_ns, uint64_t *next_window);
/* Standby: follow the NVTX range name as the steps from now on (another
 * name starts the count again); nothing while a window is open or armed. */
void cuprof_capture_follow(const char *name);
/* job.c: prof.sh trigger --job's request in the output directory, read and
 * answered (the flusher, every 0.1 s; a stat when there is none). */
void cuprof_job_poll(void);
/* The flight recorder: a window of the last CUPROF_FLIGHT_RECORDER seconds
 * (from what the ring still holds) closed now, why as given; its number,
 * 0 when not one (another mode, no memory). The flusher writes it. */
uint64_t cuprof_capture_flight_window(const char *why);
/* Window k's opening (clock ns), 0 when there is none. */
uint64_t cuprof_capture_window_open(uint64_t k);
/* memheld.c: device memory held when a window opens (with a capture window
 * configured only). note: a successful device allocation or free, recorded
 * or not; window_opened: a snapshot (capture.c, its lock held); flush: the
 * snapshots to the run file (the flusher, the end). */
void cuprof_memheld_window_opened(uint32_t window, uint64_t t);
void cuprof_memheld_flush(void);
void cuprof_memheld_atfork_child(void);
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
