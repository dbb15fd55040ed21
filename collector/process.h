/*
 * process.h - every way a process ends or replaces itself other than
 * return-from-main / exit() (which lifecycle.c handles with atexit):
 * signals, _exit/_Exit/quick_exit, abort and crashes, exec; and the
 * environment an exec'd or spawned image needs to be profiled again.
 *
 * preload/hooks_libc.c interposes the libc functions and calls these; the
 * state (the program's view of its signal dispositions, the exit writer
 * thread, the saved environment) lives here.
 *
 * What each path does (collector/README.md, "Exit paths", has the table):
 *   _exit, _Exit, quick_exit  write the outputs, then the real function runs.
 *   exec*, fexecve            write the outputs (exec runs no atexit), put
 *                             back LD_PRELOAD / CUDA_INJECTION64_PATH /
 *                             CUPROF_* if the program dropped them from the
 *                             environment it passes; if exec fails, recording
 *                             resumes and the exit path rewrites the files.
 *   posix_spawn(p)            the child's environment is fixed the same way.
 *   SIGINT SIGTERM SIGHUP     while the program's disposition is SIG_DFL, our
 *   SIGQUIT                   handler writes the outputs and re-raises the
 *                             signal with SIG_DFL (same death, same status).
 *                             A program's own handler or SIG_IGN is installed
 *                             as it asked (it decides; if it then exits, the
 *                             exit paths above write); sigaction/signal
 *                             report the program's view, never ours.
 *   SIGSEGV SIGBUS SIGFPE     the same, best effort, with the outputs marked
 *   SIGILL SIGABRT (abort)    truncated; skipped when the fault is inside
 *                             libcuprof itself.
 *
 * Async-signal-safety: the outputs are built with malloc and friends, which
 * a signal handler must not call (the interrupted thread may hold malloc's
 * or CUDA's locks). So the handler does not write: it wakes a helper thread
 * ("cuprof-exit", started at init, every signal blocked, its own malloc
 * arena) that runs the exit path, and waits for it with async-signal-safe
 * calls only (write, nanosleep, clock_gettime) for a bounded time; then it
 * lets the signal kill the process. A deadlock in the writer (a lock held by
 * the interrupted thread) costs at most the wait, never a hang; the part
 * that calls into CUDA/CUPTI, where such a lock is most likely (the signal
 * lands on a thread inside a CUDA call), is bounded on its own
 * (CUPROF_EXIT_GPU_WAIT_MS), so the CPU-side outputs are still written; a crash in
 * the writer (corrupted heap) jumps back into the writer's loop
 * (siglongjmp) and the process dies of the original signal. A second
 * terminating signal while waiting is absorbed, a third skips the wait; the
 * copy cuprof-run relays of a signal sent to the whole group is paired with
 * the group's own and counted once (process_signals.c, "each end once").
 */
#ifndef CUPROF_PROCESS_H
#define CUPROF_PROCESS_H

#include "collector/collector.h"

#include <signal.h>

/* How long a signal handler or _exit waits for the outputs: a normal
 * ending (SIGINT & co, _exit, exec) and a crash. Long enough for a run at
 * the default memory limit; a writer stuck on a lock held by the
 * interrupted thread costs at most this. */
#define CUPROF_EXIT_WAIT_MS 60000
#define CUPROF_CRASH_WAIT_MS 10000
/* Of that, what the exit path gives the part that calls into CUDA/CUPTI
 * (device synchronize, forced flush) on these paths: another thread may be
 * stopped inside CUDA holding its locks (the signal landed there), and then
 * the call never returns. After it the CPU-side outputs are written with
 * the GPU records delivered so far, marked partial
 * (cuprof_cupti_finish_within). Well under both waits above. */
#define CUPROF_EXIT_GPU_WAIT_MS 5000

/* The functions preload/hooks_libc.c calls are declared in collector.h
 * (the one collector header preload/ includes); they are defined in
 * process_signals.c and process_exec.c. */

/* In a forked child: the parent's exit() calls are not the child's. */
void cuprof_process_exit_calls_reset(void);

#endif /* CUPROF_PROCESS_H */
