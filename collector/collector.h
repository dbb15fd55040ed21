/*
 * collector.h - what preload/ (the hooks) may call: the event record, the
 * per-thread recording API, the kernel-name table and the API table.
 *
 * The collector is the only module with global state. Hooks know CUDA
 * signatures; they translate a call into one fixed-size cuprof_event in the
 * collector's vocabulary (a launch, a copy, a BLAS call, ...) and nothing else.
 * formats/ reads the recorded run at exit and knows nothing about CUDA calls.
 */
#ifndef CUPROF_COLLECTOR_H
#define CUPROF_COLLECTOR_H

#include "collector/event.h"

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

/* Registers preload's API table once (before the first cuprof_begin); the
 * table must outlive the process. Event.api indexes it. */
void cuprof_api_register(const cuprof_api_desc *table, size_t n);

/*
 * Opens a call on this thread: takes the next sequence number, stamps t0
 * and depth, sets api and cls, and returns the call's slot, zeroed, for the
 * hook to fill in arguments until cuprof_end (the slot is the thread's
 * staging slot for this depth: valid until then, reused after). Returns NULL when this call must not be recorded (the profiler's
 * own call into CUDA, recording off, out of memory): the hook then just calls
 * the real function. Lock-free: touches only this thread's buffer.
 */
cuprof_event *cuprof_begin(uint16_t api, uint8_t cls);
/* Closes the call opened by cuprof_begin: stamps t1 and result. ev may be
 * NULL (then it does nothing). */
void cuprof_end(cuprof_event *ev, int32_t result);
/* Event id of a slot from cuprof_begin: unique in the process, never 0; used
 * as CUPTI's external correlation id. */
uint64_t cuprof_event_id(const cuprof_event *ev);

/* The profiler's own calls into CUDA (e.g. resolving a cudaMemcpyDefault
 * direction) are bracketed by these so they are not recorded:
 *     int g = cuprof_guard_enter(); ...real call...; cuprof_guard_leave(g); */
int cuprof_guard_enter(void);
void cuprof_guard_leave(int saved);
/* The same for the profiler's own calls CUPTI sees (runtime API calls such
 * as cudaPointerGetAttributes): also marks CUPTI's records of them as ours,
 * so the GPU timeline drops them instead of showing program calls. Costs a
 * CUPTI push/pop while CUPTI runs: not for hot paths. */
int cuprof_own_cuda_enter(void);
void cuprof_own_cuda_leave(int saved);
/* 1 when the driver's launch functions handed out by the entry points are to
 * be wrapped (CUPROF_DRIVER_HOOKS, default 1). */
int cuprof_driver_hooks_on(void);

/* Kernel-name table. register: from __cudaRegisterFunction (host stub and
 * device name, which the table copies); handle: from __cudaGetKernel, binds a
 * cudaKernel_t to the stub it came from. lookup works with either a stub or a
 * handle and returns the name id, or 0 if unknown. Lock-free lookups. */
void cuprof_kernel_register(const void *host_fn, const char *device_name);
void cuprof_kernel_handle(const void *handle, const void *host_fn);
uint32_t cuprof_kernel_lookup(const void *host_fn_or_handle);

/* NVTX (preload/nvtx.c). intern: the id of a string's interned copy (by
 * content; 0 for NULL or out of memory), lock-free for a string this thread
 * interned recently. instant: records an event of class cls with a.nvtx =
 * {name, domain, id} at this moment (t1 = t0) that neither opens nor closes
 * a call (depth unchanged, no external id); -1 when not recorded. */
uint32_t cuprof_string_intern(const char *s);
/* Sets the name (a string id) of this thread's innermost open call of class
 * cls (preload/nccl_plugin.c: the algorithm NCCL chose for the collective
 * being made); 0, or -1 when none is open. */
int cuprof_open_call_name(uint8_t cls, uint32_t name);
int cuprof_instant(uint16_t api, uint8_t cls, uint32_t name, uint32_t domain, uint64_t id);

/* cudaProfilerStart (start = 1, before the call is recorded) and
 * cudaProfilerStop (start = 0, after): the capture window's trigger under
 * CUPROF_CAPTURE_RANGE=cudaProfilerApi, nothing otherwise. Keeps errno. */
void cuprof_capture_profiler_api(int start);

/* A device allocation (is_free 0) or free that succeeded, whether recorded
 * or not: with a capture window configured, what is held when a window opens
 * is the window's starting memory (collector/memheld.c). */
void cuprof_memheld_note(int is_free, uint64_t ptr, uint64_t bytes, uint16_t api);

/* Starts the collector (reads CUPROF_* once, installs the exit path).
 * Idempotent and safe from any thread or constructor; every hook calls it
 * through cuprof_begin, the library's constructor calls it too. */
void cuprof_collector_init(void);

/* ---- For the libc hooks (preload/hooks_libc.c): every way a process ends
 * or replaces itself other than exit(). collector/process.h says what each
 * path does and why. ---- */

/* Installs our handler for the signals above whose disposition is SIG_DFL
 * and starts the writer thread. From cuprof_collector_init when recording
 * is enabled; once per process (and again in a forked child, below). */
void cuprof_process_init(void);
/* In a forked child (atfork handler): the writer thread did not survive. */
void cuprof_process_fork_child(void);

/* exit() was called: returns at once for the process's first exit() (and
 * where nothing is recorded); a later one, from another thread while the
 * first runs, waits here until the process ends, so that it cannot end the
 * process while the first writes the outputs. */
void cuprof_process_exit_call(void);
/* _exit/_Exit/quick_exit are about to end the process: writes the outputs
 * (through the writer thread, bounded wait; ended_by names the function),
 * unless this is a vfork child or nothing was recorded. Keeps errno. */
void cuprof_process_ending(const char *ended_by);

/* exec is about to replace the image: writes the outputs (ended_by
 * "exec"). If exec then fails, call cuprof_process_exec_failed(): recording
 * resumes and the files are written again (same names) at the real end. */
void cuprof_process_exec_begin(void);
void cuprof_process_exec_failed(void);

/* sigaction as the program sees it: for the signals we manage, installing
 * SIG_DFL keeps our handler (and remembers the program's struct), anything
 * else is installed as asked; old gets the program's view. real is libc's
 * sigaction. Returns what sigaction returns (errno as it sets it). */
int cuprof_process_sigaction(int sig, const struct sigaction *act, struct sigaction *old,
                             int (*real)(int, const struct sigaction *, struct sigaction *));

/* The environment for an image about to be exec'd or spawned: envp plus
 * whatever of LD_PRELOAD (our library), CUDA_INJECTION64_PATH and CUPROF_*
 * the process had at start-up and envp lacks. Returns envp itself when
 * nothing is missing (or when memory is short), else a malloc'd array
 * (strings owned by it, or by envp / the saved copy) to release with
 * cuprof_process_env_free. Never fails. */
char **cuprof_process_exec_env(char *const envp[]);
void cuprof_process_env_free(char **env, char *const envp[]);

/* Lets sig do what SIG_DFL does (terminate, dump core) on this thread:
 * restores the default disposition with libc's sigaction, unblocks sig and
 * raises it. Async-signal-safe. Returns only if sig's default is to be
 * ignored or stop. */
void cuprof_process_reraise(int sig);

/* 1 in a vfork child (shares the parent's memory: must not touch state). */
int cuprof_process_is_vfork_child(void);

/* The program is about to close or replace descriptors lo..hi (close,
 * close_range, closefrom, dup2/dup3's target: preload/hooks_libc.c); call
 * cuprof_fd_end with the same c after the real call, errno as it left it
 * (both keep errno). One that covers the run file's descriptor holds the
 * run file's lock from begin to end, so that no write of ours can reach
 * the file the program puts on that number (collector/runfile.c); any
 * other costs two atomic additions. Async-signal-safe on the fast path. */
typedef struct cuprof_fd_call {
    int counted;      /* counted among the calls in progress (fast path) */
    int locked;       /* holds the run file's lock */
    int fd;           /* the run file's descriptor it covers, -1 none */
    sigset_t old;     /* the signal mask before the lock */
} cuprof_fd_call;
void cuprof_fd_begin(cuprof_fd_call *c, unsigned lo, unsigned hi);
void cuprof_fd_end(cuprof_fd_call *c);
/* FD_CLOEXEC set again on the run file's descriptor (a program may clear it
 * on all of them): before every exec and spawn, and each flusher round. */
void cuprof_process_fds_cloexec(void);

#endif /* CUPROF_COLLECTOR_H */
