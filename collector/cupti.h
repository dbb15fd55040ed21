/*
 * cupti.h - the GPU timeline: CUPTI, loaded at run time, tied to our calls.
 *
 * libcuprof links only libc/libdl/libpthread: CUPTI is dlopen'ed ("libcupti.so.13",
 * then next to the loaded libcudart, then $CUDA_HOME and /usr/local/cuda) and
 * every entry point is resolved into one table. Absent or failing CUPTI means
 * a CPU-only run, with the reason in words (cuprof_cupti_reason); never a
 * crash, never output on stdout. This module prints nothing itself.
 *
 * Life cycle (the lead wires it):
 *   InitializeInjection()  -> cuprof_cupti_start()   CUDA is initializing: the
 *                                                    timestamp callback and
 *                                                    device buffers still apply
 *   first hooked CUDA call -> cuprof_cupti_start()   fallback (LD_PRELOAD only;
 *                                                    also before CUDA is up)
 *   once, at start-up:  cuprof_cupti_set_exit_fn(exit_path)
 *   cuBLAS/cuBLASLt calls and calls nested in a hooked call (and every
 *   call when CUPROF_CUPTI_PUSH_ALL):
 *                       cuprof_cupti_push(cuprof_event_id(ev)) ... real call ...
 *                       cuprof_cupti_pop()
 *   other top-level calls push nothing: their CUPTI record is matched to
 *   the hooked call by thread, name and time (model/timeline.c)
 *   exit_path:          cuprof_cupti_finish(); cuprof_cupti_write_info();
 *
 * Exit ordering: CUDA registers its teardown with atexit() as it initializes
 * (cudart at its first call, nvcc's module constructors their
 * atexit(__cudaUnregisterBinaryUtil)); atexit handlers run in reverse order
 * of registration and ELF destructors after all of them, so an exit path
 * registered from our constructor would run after CUDA is gone. Hence
 * cuprof_cupti_set_exit_fn: it registers the exit path again from CUPTI's
 * callback when the program's first real runtime call returns (not the
 * __cudaRegister* calls of constructors), after all of CUDA's registrations,
 * so it runs first. Tested against a stand-in teardown in test_cupti.
 */
#ifndef CUPROF_CUPTI_H
#define CUPROF_CUPTI_H

#include <stdint.h>


#define CUPROF_CUPTI_HIDDEN __attribute__((visibility("hidden")))

/*
 * Starts GPU capture: loads CUPTI, sets the device-buffer attributes,
 * registers the timestamp callback (host clock) and the buffer callbacks,
 * subscribes (for the exit-ordering callback), enables the activity kinds
 * CONCURRENT_KERNEL, MEMCPY, MEMSET, RUNTIME, SYNCHRONIZATION and
 * EXTERNAL_CORRELATION, and measures the CUPTI-to-host clock offset.
 * Idempotent and thread-safe: the first call does the work, later calls (and
 * a re-entrant call from inside CUPTI/driver initialization) return the
 * outcome. Call it as early as possible (from InitializeInjection) so the
 * timestamp callback is taken; later calls still line up via the offset.
 * Returns 0 when the GPU timeline is being captured, -1 otherwise (see
 * cuprof_cupti_reason). Once started, a child forked later runs CPU-only
 * (CUPTI does not survive fork; an atfork handler of this module says so in
 * the child's reason); a child forked before start can start its own.
 */
CUPROF_CUPTI_HIDDEN int cuprof_cupti_start(void);

/* Why the GPU timeline is not captured, in words a user can act on, e.g.
 * "CUPTI: cuptiActivityEnable(CONCURRENT_KERNEL) failed: CUPTI_ERROR_UNKNOWN
 * (no NVIDIA driver?)". "" when captured, and before start was called.
 * Static storage, valid forever. */
CUPROF_CUPTI_HIDDEN const char *cuprof_cupti_reason(void);

/* One line for the header: what was loaded and how, e.g. "CUPTI 130001 from
 * /usr/local/cuda/lib64/libcupti.so.13; subscriber: own; clock: timestamp
 * callback" or "not captured: <reason>". Static storage, valid forever. */
CUPROF_CUPTI_HIDDEN const char *cuprof_cupti_status(void);

/*
 * Makes fn run at exit before CUDA's own teardown: fn is registered with
 * atexit() now (so it runs even if no CUDA call follows) and again when the
 * program's first real runtime call returns (see the top of this file), if
 * that happens later; it runs once, at whichever registration fires first.
 * Without a CUPTI subscriber (another tool holds it) only the first
 * registration exists: then call this after CUDA is up if you can (e.g. from
 * the end of the first hooked runtime call), and cuprof_cupti_finish copes
 * with running after CUDA's teardown anyway. Call once, before or after
 * cuprof_cupti_start; fn == NULL cancels.
 */
CUPROF_CUPTI_HIDDEN void cuprof_cupti_set_exit_fn(void (*fn)(void));
/* Who made a graph node: fn gives the event id of the outermost hooked call
 * open on the calling thread (collector/buffers.c), asked when CUPTI says a
 * node was created. NULL (the default): no origins. */
CUPROF_CUPTI_HIDDEN void cuprof_cupti_set_origin_fn(uint64_t (*fn)(void));
/* on = 1 before start: enable the kernel, memcpy and memset kinds only (no
 * runtime/driver API, sync or external-correlation records, no external
 * ids pushed): the run file says kernels_only and the model matches
 * the records to the hooked calls by name, bytes and order (model/kmatch.h).
 * 0 (the default): every kind the outputs use. */
CUPROF_CUPTI_HIDDEN void cuprof_cupti_set_kernels_only(int on);

/*
 * Delivers every record: synchronizes the device (through the process's
 * libcudart.so.13 once the program has made a runtime call, else through
 * libcuda's current context if any; marked so the synchronize is left out of
 * the records), forces a CUPTI flush, reads the dropped count, stops
 * pushing external ids, and writes what is left to the run file (the
 * reader normalizes: host clock, external ids, sorted). Idempotent; cheap and harmless when CUPTI never started. Must run
 * on a thread that is not inside a hooked call. Not async-signal-safe.
 */
CUPROF_CUPTI_HIDDEN void cuprof_cupti_finish(void);

/* cuprof_cupti_finish for an exit path that runs while other threads may be
 * stopped anywhere, inside CUDA or CUPTI holding their locks (a signal,
 * _exit, exec): the part that calls into CUDA/CUPTI (synchronize, forced
 * flush) runs on a helper thread and is waited for at most wait_ms (< 0:
 * no bound, same as cuprof_cupti_finish). When it does not end in time the
 * records are those CUPTI delivered so far, the rest count as late, and
 * this returns 1 (the GPU timeline is partial); else 0. Not
 * async-signal-safe. */
CUPROF_CUPTI_HIDDEN int cuprof_cupti_finish_within(int wait_ms);

/* The GPU side's state as a GPU_INFO block of the run file (captured,
 * status line, mode, dropped and late counts, the clock map); after
 * cuprof_cupti_finish. 0, or -1 when the file could not be written. */
CUPROF_CUPTI_HIDDEN int cuprof_cupti_write_info(void);
/* The exit path has stopped recording: calls other threads make from now on
 * are not the run's, and CUPTI's API and sync records of them are not kept
 * (however long the exit path's synchronize and flush take). */
CUPROF_CUPTI_HIDDEN void cuprof_cupti_exit_begins(void);
/* CUPTI's buffers handed over now (a forced flush, as at the end, without
 * the synchronize), for a live snapshot; returns what it took in ns (0:
 * CUPTI not running). Not on a hot path. */
CUPROF_CUPTI_HIDDEN /* Hands over the records whose activity has completed (a flush that is not
 * forced): the run file's flusher, once a second, so that a killed process
 * loses at most a second of GPU records. CUPTI's own periodic flush returns
 * only full buffers (its documentation says so, and the sim does the same). */
CUPROF_CUPTI_HIDDEN void cuprof_cupti_flush_completed(void);
uint64_t cuprof_cupti_flush_now(void);
/* 1 when CUPTI ran (records may still be 0); *dropped: records CUPTI
 * dropped or the run file could not take; *apis: API records written. */
CUPROF_CUPTI_HIDDEN int cuprof_cupti_captured(uint64_t *dropped, uint64_t *apis);

/* The name of a runtime-API callback id as collector/cbid.h gives it, or
 * "cbid_<n>" for an id this build does not know; the driver-API form, or
 * "driver_cbid_<n>". Never NULL; the pointer stays valid until exit (an
 * unknown id's name is made once and kept). */
CUPROF_CUPTI_HIDDEN const char *cuprof_cupti_cbid_name(uint32_t cbid);
CUPROF_CUPTI_HIDDEN const char *cuprof_cupti_driver_cbid_name(uint32_t cbid);

/* ---- hot path ----------------------------------------------------------- */

/* Nonzero while external ids are being pushed (CUPTI running, not finished).
 * Read relaxed: a stale read costs at most one unattributed call.
 * CUPROF_CUPTI_ON: only calls that run CUDA calls inside them (cuBLAS) and
 * nested calls push; a top-level call's CUPTI record is found by thread,
 * name and time instead (collector/timeline.c), which needs CUPTI's thread
 * ids to be gettid() and its timestamps our clock. CUPROF_CUPTI_PUSH_ALL:
 * CUPTI refused one of those, every call pushes. */
#define CUPROF_CUPTI_ON 1
#define CUPROF_CUPTI_PUSH_ALL 2
CUPROF_CUPTI_HIDDEN extern int cuprof_cupti_active;
CUPROF_CUPTI_HIDDEN void cuprof_cupti_push_slow(uint64_t ext_id);
CUPROF_CUPTI_HIDDEN void cuprof_cupti_pop_slow(void);
/* Pushes the profiler's own external id: CUPTI records made until the pop
 * are dropped when the run is normalized (cupti_records.c). */
CUPROF_CUPTI_HIDDEN void cuprof_cupti_push_own(void);

/* Pushes ext_id (cuprof_event_id of the call about to run) as this thread's
 * external correlation id: every CUPTI record the call causes (the runtime
 * API record, its kernels, copies, syncs, and what cuBLAS does inside) is
 * mapped to it. One relaxed load when CUPTI is off. Pair with pop on the
 * same thread, LIFO; a pop whose push was skipped because CUPTI started in
 * between is harmless (CUPTI returns an empty-stack error, ignored). */
static inline void cuprof_cupti_push(uint64_t ext_id)
{
    if (__atomic_load_n(&cuprof_cupti_active, __ATOMIC_RELAXED))
        cuprof_cupti_push_slow(ext_id);
}

/* Pops the id pushed by cuprof_cupti_push. */
static inline void cuprof_cupti_pop(void)
{
    if (__atomic_load_n(&cuprof_cupti_active, __ATOMIC_RELAXED))
        cuprof_cupti_pop_slow();
}

#endif /* CUPROF_CUPTI_H */
